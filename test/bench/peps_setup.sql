-- The `peps` data set of index_bench.sh: families of near-duplicate
-- fingerprints of real documents, from the pool that peps_pool.sh computed
-- with simhash(text) (its CSV on psql's standard input: psql -f this < pool).  PEPs whose number ends
-- in 7 are held out: their versions are the "fresh document" queries.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
CREATE TABLE peps_pool (pep int, version int, variant int, fp bigint);
\copy peps_pool FROM pstdin WITH (FORMAT csv)

-- one family per stored version: the version's fingerprint, those of its
-- edited copies (variants 1..E) and of the edited copy kept for queries (99)
CREATE TABLE peps_fam (f int PRIMARY KEY, pep int, version int, base bigint, e bigint[], q bigint);
INSERT INTO peps_fam
SELECT row_number() OVER (ORDER BY pep, version) - 1, pep, version,
       max(fp) FILTER (WHERE variant = 0),
       array_agg(fp ORDER BY variant) FILTER (WHERE variant BETWEEN 1 AND 98),
       max(fp) FILTER (WHERE variant = 99)
  FROM peps_pool WHERE pep % 10 <> 7 GROUP BY pep, version;
CREATE TABLE peps_fresh (i int PRIMARY KEY, fp bigint);
INSERT INTO peps_fresh SELECT row_number() OVER (ORDER BY pep, version) - 1, fp
  FROM peps_pool WHERE pep % 10 = 7 AND variant = 0;
ANALYZE peps_fam, peps_fresh;

-- Row g, in family (g - 1) % F of the F families, is its r-th, r = (g - 1) / F: r = 0 is the version, r = 1..E its
-- real edited copies; beyond, there are no more real edits, so a row is the
-- version with a random three quarters of the bits flipped by either of two
-- of its real edits (chosen by g): values stay on the bits that edits of this
-- document actually move, at distances no larger than the real edits'.
-- (One expression with no FROM, so that the planner inlines it into the load.)
CREATE FUNCTION peps_row(g bigint, nfam bigint, base bigint, e bigint[]) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN (g - 1) / nfam = 0 THEN base
              WHEN (g - 1) / nfam <= cardinality(e) THEN e[(g - 1) / nfam]
              ELSE base # (((e[1 + (abs(rnd64(80000000000000 + g)) % cardinality(e))::int] # base)
                            | (e[1 + ((abs(rnd64(80000000000000 + g)) >> 8) % cardinality(e))::int] # base))
                           & (rnd64(g) | rnd64(-g)))
         END $$;
