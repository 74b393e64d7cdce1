-- simhash_agg over features stored as rows.
CREATE TABLE agg_features (doc int, feature text, weight float8);
INSERT INTO agg_features VALUES
    (1, 'alpha', 1), (1, 'beta', 2), (1, 'gamma', 0.5),
    (2, 'alpha', 1), (2, NULL, 1), (2, 'beta', NULL), (2, 'delta', 3),
    (3, NULL, 1);
-- Equals the array form on the same rows; NULL rows are skipped; a group
-- with no counted row gives NULL.
SELECT doc, simhash_agg(feature, weight) AS fp,
       simhash_agg(feature, weight) = simhash(array_agg(feature) FILTER (WHERE feature IS NOT NULL AND weight IS NOT NULL),
                                             array_agg(weight) FILTER (WHERE feature IS NOT NULL AND weight IS NOT NULL)) AS same_as_array
FROM agg_features GROUP BY doc ORDER BY doc;
-- Hash form: seomoz compute() vectors.
SELECT simhash_agg(h, 1) AS compute_adcf FROM unnest(ARRAY[x'ABCD'::bigint, x'BCDE'::bigint, x'CDEF'::bigint]) h;
SELECT simhash_agg(h, 1) AS compute_tie FROM unnest(ARRAY[x'DEADBEEFDEADBEEF'::bigint, x'2152411021524110'::bigint]) h;
SELECT simhash_agg(h, w) = simhash(array_agg(h), array_agg(w)) AS weighted_hashes
FROM (VALUES (1::bigint, 0.25::float8), (-1, 3), (42, 1e9)) v(h, w);
-- No rows: NULL.
SELECT simhash_agg(feature, weight) IS NULL AS no_rows FROM agg_features WHERE false;
SELECT simhash_agg(h, 1) IS NULL AS no_rows_hashes FROM unnest('{}'::bigint[]) h;
-- Text features hash like simhash(text[]).
SELECT simhash_agg(w, 1) = simhash(ARRAY['the', 'quick', 'brown', 'fox']) AS text_rows
FROM unnest(ARRAY['the', 'quick', 'brown', 'fox']) w;
-- Errors name the weight.
SELECT simhash_agg(feature, -1) FROM agg_features;
SELECT simhash_agg(1::bigint, 'NaN'::float8);
SELECT simhash_agg(1::bigint, 2147483648);
-- Parallel plans combine partial votes; the answer equals the serial one.
CREATE TABLE agg_many AS
    SELECT g AS id, hashtextextended(g::text, 0) AS h, 1 + (g % 7) AS w FROM generate_series(1, 200000) g;
ANALYZE agg_many;
SELECT simhash_agg(h, 1) AS serial_unit, simhash_agg(h, w) AS serial_weighted,
       simhash_agg(h::text, w) AS serial_text FROM agg_many \gset
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT simhash_agg(h, w) FROM agg_many;
SELECT simhash_agg(h, 1) = :'serial_unit' AS parallel_unit, simhash_agg(h, w) = :'serial_weighted' AS parallel_weighted,
       simhash_agg(h::text, w) = :'serial_text' AS parallel_text FROM agg_many;
-- A parallel aggregate where some workers see only NULL rows.
SELECT simhash_agg(CASE WHEN id = 1 THEN h END, w) = simhash(ARRAY[(SELECT h FROM agg_many WHERE id = 1)],
                                                             ARRAY[(SELECT w FROM agg_many WHERE id = 1)]::float8[]) AS parallel_sparse
FROM agg_many;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
DROP TABLE agg_features, agg_many;
-- The SQLSTATE of a bad weight.
CREATE FUNCTION pg_temp.sqlstate_of(query text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  RETURN SQLSTATE;
END $$;
SELECT pg_temp.sqlstate_of($q$SELECT simhash_agg('a', -0.5)$q$) AS negative,
       pg_temp.sqlstate_of($q$SELECT simhash_agg(1::bigint, 'Infinity')$q$) AS infinite;
