-- Planner estimates for "within k bits": the RESTRICT function of <@ / @> and
-- simhash_within's support function give the binomial for random values
-- (sum_{i<=k} C(64,i) / 2^64), with the most common values tested exactly.
CREATE FUNCTION pg_temp.estimated_rows(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  plan json;
BEGIN
  EXECUTE 'EXPLAIN (FORMAT JSON) ' || query INTO plan;
  RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::bigint;
END $$;

-- 100,000 random fingerprints (md5: the same on every platform)
CREATE TABLE random_fp (id int4, fp simhash64);
INSERT INTO random_fp
SELECT i, ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash64 FROM generate_series(1, 100000) i;
-- a sample of every row, so the statistics (and this output) are deterministic
ALTER TABLE random_fp ALTER COLUMN fp SET STATISTICS 1000;
ANALYZE random_fp;

-- the same estimate for the operator in both directions and for the function;
-- k = 3: 1 row (43745 / 2^64 of 100k), k = 32: about 55%, k = 64: every row
SELECT k, pg_temp.estimated_rows(format('SELECT * FROM random_fp WHERE fp <@ simhash_ball(%L, %s)', q, k)) AS ball,
       pg_temp.estimated_rows(format('SELECT * FROM random_fp WHERE simhash_ball(%L, %s) @> fp', q, k)) AS commuted,
       pg_temp.estimated_rows(format('SELECT * FROM random_fp WHERE simhash_within(fp, %L, %s)', q, k)) AS within,
       pg_temp.estimated_rows(format('SELECT * FROM random_fp WHERE simhash_within(%L, fp, %s)', q, k)) AS within_swapped,
       (SELECT count(*) FROM random_fp WHERE simhash_within(fp, q, k)) AS actual
FROM (VALUES ('0123456789abcdef'::simhash64)) c(q), (VALUES (0), (3), (16), (24), (28), (32), (36), (64)) r(k)
ORDER BY k;
EXPLAIN (COSTS OFF) SELECT * FROM random_fp WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN SELECT id FROM random_fp WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN SELECT id FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 32);
-- With an index (max_distance 3): a probe at k = 3, then, beyond the layout,
-- a sweep of one table while it is faster than the sequential scan (k = 12:
-- ~0.5 ms against ~5 ms, which the planner took until the sweep was priced as
-- a sweep), and the sequential scan once most rows match.
CREATE INDEX random_fp_idx ON random_fp USING simhash (fp);
EXPLAIN (COSTS OFF) SELECT id FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 12);
EXPLAIN (COSTS OFF) SELECT id FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 20);
EXPLAIN (COSTS OFF) SELECT id FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 32);
-- Once VACUUM has set the visibility map, an index-only sweep rechecks each
-- match in its leaf, at twice a bitmap scan's cost per match: at k = 28 it
-- took 7.9 ms against the sequential scan's 4.3, and was chosen until priced.
VACUUM random_fp;
EXPLAIN (COSTS OFF) SELECT count(*) FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', 28);
-- ORDER BY fp <-> q: the index for the nearest rows; for every row, which the
-- index returns in batches doubling from 1,024, each a sweep of one table,
-- the sequential scan and a sort (at 1M rows 210-225 ms against the index's
-- 800-850, which the planner took until the sweeps were priced).
EXPLAIN (COSTS OFF) SELECT id FROM random_fp ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT id FROM random_fp ORDER BY fp <-> '0123456789abcdef';
DROP INDEX random_fp_idx;

-- a bigint column seen through the binary-coercible cast uses its own statistics
CREATE TABLE random_bigint AS SELECT id, fp::bigint AS fp FROM random_fp;
ALTER TABLE random_bigint ALTER COLUMN fp SET STATISTICS 1000;
ANALYZE random_bigint;
SELECT pg_temp.estimated_rows($$SELECT * FROM random_bigint WHERE simhash_within(fp::simhash64, '0123456789abcdef', 32)$$) AS bigint_within,
       pg_temp.estimated_rows($$SELECT * FROM random_bigint WHERE fp::simhash64 <@ simhash_ball('0123456789abcdef', 3)$$) AS bigint_ball;

-- a radius or center unknown at plan time gets the default (0.5% of the rows)
SELECT pg_temp.estimated_rows($$SELECT * FROM random_fp WHERE fp <@ simhash_ball('0123456789abcdef', (SELECT 3))$$) AS ball_subselect,
       pg_temp.estimated_rows($$SELECT * FROM random_fp WHERE simhash_within(fp, '0123456789abcdef', (SELECT 3))$$) AS within_subselect;
-- a parameter is folded in a custom plan: the real radius counts
PREPARE near(simhash64, int4) AS SELECT * FROM random_fp WHERE simhash_within(fp, $1, $2);
EXPLAIN EXECUTE near('0123456789abcdef', 32);
DEALLOCATE near;
-- NULL radius or ball: nothing matches
SELECT pg_temp.estimated_rows($$SELECT * FROM random_fp WHERE simhash_within(fp, '0123456789abcdef', NULL)$$) AS within_null,
       pg_temp.estimated_rows($$SELECT * FROM random_fp WHERE fp <@ NULL::simhash_ball$$) AS ball_null;

-- real fingerprints cluster: when 10% of the rows are one near-duplicate
-- family, ANALYZE's most common values say so and the estimate follows them
CREATE TABLE clustered_fp AS
SELECT i AS id, CASE WHEN i % 10 = 0 THEN '0123456789abcdef'::simhash64
                     WHEN i % 10 = 1 THEN '0123456789abcdee'::simhash64
                     ELSE ('x' || substr(md5(i::text), 1, 16))::bit(64)::simhash64 END AS fp
FROM generate_series(1, 100000) i;
INSERT INTO clustered_fp SELECT 0, NULL FROM generate_series(1, 10000);
ALTER TABLE clustered_fp ALTER COLUMN fp SET STATISTICS 1000;
ANALYZE clustered_fp;
SELECT k, pg_temp.estimated_rows(format('SELECT * FROM clustered_fp WHERE fp <@ simhash_ball(%L, %s)', q, k)) AS ball,
       pg_temp.estimated_rows(format('SELECT * FROM clustered_fp WHERE simhash_within(fp, %L, %s)', q, k)) AS within,
       (SELECT count(*) FROM clustered_fp WHERE simhash_within(fp, q, k)) AS actual
FROM (VALUES ('0123456789abcdef'::simhash64)) c(q), (VALUES (0), (1), (3), (64)) r(k)
ORDER BY k;

-- joins: the binomial, not a third (function) or half (operator) of the
-- cross product; the operator's ball is recognised as simhash_ball(expr, k)
SELECT pg_temp.estimated_rows($$SELECT * FROM random_fp a JOIN random_fp b ON simhash_within(a.fp, b.fp, 3)$$) AS within_k3,
       pg_temp.estimated_rows($$SELECT * FROM random_fp a JOIN random_fp b ON simhash_within(a.fp, b.fp, 64)$$) AS within_k64,
       pg_temp.estimated_rows($$SELECT * FROM random_fp a JOIN random_fp b ON a.fp <@ simhash_ball(b.fp, 3)$$) AS ball_k3,
       pg_temp.estimated_rows($$SELECT * FROM random_fp a JOIN random_fp b ON simhash_ball(b.fp, 32) @> a.fp$$) AS ball_k32,
       pg_temp.estimated_rows($$SELECT * FROM random_fp a JOIN random_fp b ON a.fp <@ simhash_ball(b.fp, (SELECT 3))$$) AS ball_unknown_k;
-- a center unknown at plan time with a constant radius: for random values the
-- binomial (and the center's own row)
SELECT pg_temp.estimated_rows($$SELECT * FROM random_fp i WHERE i.fp <@ simhash_ball((SELECT fp FROM random_fp WHERE id = 1), 32)$$) AS ball_center_subselect;

-- A center unknown at plan time that is one of the column's values (a
-- generic plan's parameter): the expectation over the column's values, so
-- the most common values count with their frequencies. It was the binomial:
-- 1 row for clustered_fp, where a tenth of the rows are within 3 bits of
-- each most common value (the custom plan's estimate on such a value).
SET plan_cache_mode = force_generic_plan;
PREPARE near_ball(simhash64) AS SELECT * FROM clustered_fp WHERE fp <@ simhash_ball($1, 3);
PREPARE near_within(simhash64) AS SELECT * FROM clustered_fp WHERE simhash_within(fp, $1, 3);
PREPARE near_random(simhash64) AS SELECT * FROM random_fp WHERE simhash_within(fp, $1, 3);
SELECT pg_temp.estimated_rows($$EXECUTE near_ball('0123456789abcdef')$$) AS clustered_ball,
       pg_temp.estimated_rows($$EXECUTE near_within('0123456789abcdef')$$) AS clustered_within,
       pg_temp.estimated_rows($$EXECUTE near_random('0123456789abcdef')$$) AS random_within;
RESET plan_cache_mode;
DEALLOCATE ALL;

-- Semi- and anti-joins: PostgreSQL asks for the fraction of outer rows with
-- at least one match, 1 - (1 - p)^inner_rows, not the pair probability p
-- (EXISTS at k = 16 was estimated at 1 row of 200, NOT EXISTS at 200).
CREATE TABLE outer_fp AS SELECT id, fp FROM random_fp WHERE id <= 200;
CREATE TABLE inner_fp AS SELECT id, fp FROM random_fp WHERE id > 90000;
ANALYZE outer_fp, inner_fp;
SELECT pg_temp.estimated_rows($$SELECT * FROM outer_fp o WHERE EXISTS (SELECT FROM inner_fp i WHERE simhash_within(i.fp, o.fp, 16))$$) AS semi_within,
       pg_temp.estimated_rows($$SELECT * FROM outer_fp o WHERE EXISTS (SELECT FROM inner_fp i WHERE i.fp <@ simhash_ball(o.fp, 16))$$) AS semi_ball,
       (SELECT count(*) FROM outer_fp o WHERE EXISTS (SELECT FROM inner_fp i WHERE simhash_within(i.fp, o.fp, 16))) AS semi_actual,
       pg_temp.estimated_rows($$SELECT * FROM outer_fp o WHERE NOT EXISTS (SELECT FROM inner_fp i WHERE simhash_within(i.fp, o.fp, 16))$$) AS anti_within,
       pg_temp.estimated_rows($$SELECT * FROM outer_fp o WHERE NOT EXISTS (SELECT FROM inner_fp i WHERE i.fp <@ simhash_ball(o.fp, 16))$$) AS anti_ball;
-- an inner join keeps the pair probability
SELECT pg_temp.estimated_rows($$SELECT * FROM outer_fp o JOIN inner_fp i ON simhash_within(i.fp, o.fp, 16)$$) AS inner_join;
DROP TABLE outer_fp, inner_fp;

-- A row whose fingerprint is NULL matches no row: joins count only the rows
-- that have one, on each side (these were 4,000,000; against an inner table
-- of NULLs only, 219 for the semi-join and 1,781 for the anti-join; and 2,000
-- for the semi-join of the sparse table with itself).
CREATE TABLE sparse_fp AS
SELECT id, CASE WHEN id % 10 = 0 THEN fp END AS fp FROM random_fp WHERE id <= 2000;
CREATE TABLE null_fp AS SELECT id, NULL::simhash64 AS fp FROM random_fp WHERE id <= 3000;
ANALYZE sparse_fp, null_fp;
SELECT pg_temp.estimated_rows($$SELECT * FROM sparse_fp a JOIN sparse_fp b ON simhash_within(a.fp, b.fp, 64)$$) AS within_k64,
       pg_temp.estimated_rows($$SELECT * FROM sparse_fp a JOIN sparse_fp b ON a.fp <@ simhash_ball(b.fp, 64)$$) AS ball_k64,
       (SELECT count(*) FROM sparse_fp a JOIN sparse_fp b ON simhash_within(a.fp, b.fp, 64)) AS actual;
SELECT pg_temp.estimated_rows($$SELECT * FROM sparse_fp o WHERE EXISTS (SELECT FROM null_fp i WHERE simhash_within(i.fp, o.fp, 16))$$) AS semi_within,
       pg_temp.estimated_rows($$SELECT * FROM sparse_fp o WHERE NOT EXISTS (SELECT FROM null_fp i WHERE i.fp <@ simhash_ball(o.fp, 16))$$) AS anti_ball,
       pg_temp.estimated_rows($$SELECT * FROM sparse_fp o WHERE EXISTS (SELECT FROM sparse_fp i WHERE simhash_within(o.fp, i.fp, 64))$$) AS semi_sparse,
       (SELECT count(*) FROM sparse_fp o WHERE EXISTS (SELECT FROM sparse_fp i WHERE simhash_within(o.fp, i.fp, 64))) AS semi_sparse_actual;
DROP TABLE sparse_fp, null_fp;

-- Most common values are tested against each other: half the rows share one
-- fingerprint, so a self-join within 3 bits has a million pairs (estimated
-- at 1 row before).
CREATE TABLE dup_fp AS
SELECT id, CASE WHEN id <= 1000 THEN 'aaaabbbbccccdddd'::simhash64 ELSE fp END AS fp FROM random_fp WHERE id <= 2000;
ANALYZE dup_fp;
SELECT pg_temp.estimated_rows($$SELECT * FROM dup_fp a JOIN dup_fp b ON simhash_within(a.fp, b.fp, 3)$$) AS within_k3,
       pg_temp.estimated_rows($$SELECT * FROM dup_fp a JOIN dup_fp b ON a.fp <@ simhash_ball(b.fp, 3)$$) AS ball_k3,
       (SELECT count(*) FROM dup_fp a JOIN dup_fp b ON simhash_within(a.fp, b.fp, 3)) AS actual;
DROP TABLE dup_fp;
-- A semi- or anti-join gives each outer value its own chance: a value a third
-- of the inner rows share matches the outer rows that have it, not every
-- outer row (a mean chance over all pairs estimated 10,000 and 1).
CREATE TABLE heavy_outer AS
SELECT id, CASE WHEN id % 100 = 0 THEN 'aaaabbbbccccdddd'::simhash64 ELSE fp END AS fp FROM random_fp WHERE id <= 10000;
CREATE TABLE heavy_inner AS
SELECT id, CASE WHEN id % 3 = 0 THEN 'aaaabbbbccccdddd'::simhash64 ELSE fp END AS fp FROM random_fp WHERE id > 90000 AND id <= 95000;
ANALYZE heavy_outer, heavy_inner;
SELECT pg_temp.estimated_rows($$SELECT * FROM heavy_outer o WHERE EXISTS (SELECT FROM heavy_inner i WHERE simhash_within(i.fp, o.fp, 3))$$) AS semi,
       (SELECT count(*) FROM heavy_outer o WHERE EXISTS (SELECT FROM heavy_inner i WHERE simhash_within(i.fp, o.fp, 3))) AS semi_actual,
       pg_temp.estimated_rows($$SELECT * FROM heavy_outer o WHERE NOT EXISTS (SELECT FROM heavy_inner i WHERE i.fp <@ simhash_ball(o.fp, 3))$$) AS anti,
       (SELECT count(*) FROM heavy_outer o WHERE NOT EXISTS (SELECT FROM heavy_inner i WHERE i.fp <@ simhash_ball(o.fp, 3))) AS anti_actual;
DROP TABLE heavy_outer, heavy_inner;

-- Without statistics an unknown center gets 0.5%, or the binomial where that
-- is more (it was 0.5% at k = 64 too).
CREATE TABLE unanalyzed_fp (id int4, fp simhash64) WITH (autovacuum_enabled = off);
INSERT INTO unanalyzed_fp SELECT id, fp FROM random_fp WHERE id <= 10000;
SET plan_cache_mode = force_generic_plan;
PREPARE unknown_center(simhash64) AS SELECT * FROM unanalyzed_fp WHERE simhash_within(fp, $1, 64);
PREPARE unknown_center_40(simhash64) AS SELECT * FROM unanalyzed_fp WHERE fp <@ simhash_ball($1, 40);
PREPARE unknown_center_3(simhash64) AS SELECT * FROM unanalyzed_fp WHERE fp <@ simhash_ball($1, 3);
SELECT pg_temp.estimated_rows($$EXECUTE unknown_center('0123456789abcdef')$$) AS k64,
       pg_temp.estimated_rows($$EXECUTE unknown_center_40('0123456789abcdef')$$) AS k40,
       pg_temp.estimated_rows($$EXECUTE unknown_center_3('0123456789abcdef')$$) AS k3;
RESET plan_cache_mode;
DEALLOCATE ALL;
DROP TABLE unanalyzed_fp;

DROP TABLE random_fp, random_bigint, clustered_fp;
