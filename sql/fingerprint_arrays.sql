-- simhash over arrays of features or of pre-computed hashes.
-- seomoz/simhash-cpp compute() vectors.
SELECT simhash(ARRAY[x'ABCD'::bigint, x'BCDE'::bigint, x'CDEF'::bigint]) AS compute_adcf;
SELECT simhash(ARRAY[x'DEADBEEFDEADBEEF'::bigint, x'2152411021524110'::bigint]) AS compute_tie;
-- Weights: 1 everywhere is the unweighted form; the heavier feature decides.
SELECT simhash(ARRAY[x'ABCD'::bigint, x'BCDE'::bigint, x'CDEF'::bigint], ARRAY[1, 1, 1]::float8[])
     = simhash(ARRAY[x'ABCD'::bigint, x'BCDE'::bigint, x'CDEF'::bigint]) AS unit_weights;
SELECT simhash(ARRAY[1, 2]::bigint[], ARRAY[0.5000001, 0.5]) AS heavier_first,
       simhash(ARRAY[1, 2]::bigint[], ARRAY[0.5, 0.5000001]) AS heavier_second,
       simhash(ARRAY[1, 2]::bigint[], ARRAY[0, 0]::float8[]) AS zero_weights;
-- Signed bigints are the same 64 bits: -1 has every bit set.
SELECT simhash(ARRAY[-1]::bigint[]) AS all_ones, simhash(ARRAY[-9223372036854775808]::bigint[]) AS top_bit;
-- Text features hash like simhash_feature_hash(feature) and vote with weight 1.
SELECT simhash(ARRAY['a']) = simhash(ARRAY[simhash_feature_hash('a')]) AS text_is_xxh3;
SELECT simhash(ARRAY['the', 'quick', 'brown', 'fox'])
     = simhash(ARRAY(SELECT simhash_feature_hash(w) FROM unnest(ARRAY['the', 'quick', 'brown', 'fox']) w)) AS text_is_xxh3_many;
SELECT simhash(ARRAY['x', 'y', 'z'], ARRAY[1.5, 2, 0.25])
     = simhash(ARRAY(SELECT simhash_feature_hash(w) FROM unnest(ARRAY['x', 'y', 'z']) w), ARRAY[1.5, 2, 0.25]) AS weighted_text_is_xxh3;
SELECT simhash(ARRAY['a', 'b', 'a']) = simhash(ARRAY['a', 'b'], ARRAY[2, 1]::float8[]) AS repeats_add_up;
-- Order does not matter; the array's lower bound does not either.
SELECT simhash(ARRAY['one', 'two', 'three']) = simhash(ARRAY['three', 'one', 'two']) AS order_free,
       simhash('[5:7]={one,two,three}'::text[]) = simhash(ARRAY['one', 'two', 'three']) AS bounds_free;
-- Multi-byte features hash their UTF-8 bytes.
SELECT simhash(ARRAY[U&'\00E9t\00E9']) = simhash(ARRAY[simhash_feature_hash(U&'\00E9t\00E9')]) AS utf8_feature;
-- Deterministic across calls.
SELECT simhash(ARRAY['stable', 'fingerprint']) AS fixed_text_vector;
-- No features: 0.
SELECT simhash('{}'::text[]) AS empty_text, simhash('{}'::bigint[]) AS empty_hashes,
       simhash('{}'::text[], '{}'::float8[]) AS empty_weighted;
-- NULL in, NULL out.
SELECT simhash(NULL::text[]) IS NULL AS n1, simhash(NULL::bigint[]) IS NULL AS n2,
       simhash(ARRAY['a'], NULL) IS NULL AS n3, simhash(ARRAY[1]::bigint[], NULL) IS NULL AS n4;
-- A large array answers.
SELECT simhash(ARRAY(SELECT g FROM generate_series(1, 200000) g)::bigint[]) IS NOT NULL AS large;
-- Errors.
SELECT simhash(ARRAY['a', NULL]);
SELECT simhash(ARRAY[1, NULL]::bigint[]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1, NULL]::float8[]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1]::float8[]);
SELECT simhash(ARRAY[1, 2, 3]::bigint[], ARRAY[1, 2]::float8[]);
SELECT simhash('{}'::text[], ARRAY[1]::float8[]);
SELECT simhash(ARRAY['a'], ARRAY[-1]::float8[]);
SELECT simhash(ARRAY['a'], ARRAY['NaN']::float8[]);
SELECT simhash(ARRAY[1]::bigint[], ARRAY['Infinity']::float8[]);
SELECT simhash(ARRAY[1]::bigint[], ARRAY['-Infinity']::float8[]);
SELECT simhash(ARRAY[1]::bigint[], ARRAY[2147483648]::float8[]);
SELECT simhash(ARRAY[1]::bigint[], ARRAY[2147483647.5]::float8[]) AS largest_weight_ok;
SELECT simhash(ARRAY[['a', 'b'], ['c', 'd']]);
SELECT simhash(ARRAY[[1, 2]]::bigint[]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[[1, 2]]::float8[]);
-- The SQLSTATE of each error.
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END $$;
SELECT q AS query, pg_temp.sqlstate_of(q) AS sqlstate FROM unnest(ARRAY[
    $q$SELECT simhash(ARRAY['a', NULL])$q$,
    $q$SELECT simhash(ARRAY[1]::bigint[], ARRAY[NULL]::float8[])$q$,
    $q$SELECT simhash(ARRAY['a', 'b'], ARRAY[1]::float8[])$q$,
    $q$SELECT simhash(ARRAY['a'], ARRAY[-1]::float8[])$q$,
    $q$SELECT simhash(ARRAY[1]::bigint[], ARRAY['NaN']::float8[])$q$,
    $q$SELECT simhash(ARRAY[[1, 2]]::bigint[])$q$]) q;
