-- Growth (issue 3): an index created on an empty table and filled by :gn
-- single-row inserts against one built in bulk on the same rows (the first
-- :gn rows of bench, in the same heap order).  INSERT ... SELECT into a table
-- that already has the index goes through the index's aminsert once per row,
-- as single-row INSERTs do, without their per-statement overhead.
-- psql variables: n, dataset, gn, nq.
\set ON_ERROR_STOP 1
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '512MB';
SET client_min_messages = warning;
SET plan_cache_mode = force_generic_plan;
DROP TABLE IF EXISTS grow_bulk, grow_ins;
CREATE TABLE grow_bulk AS SELECT id, fp FROM bench WHERE id <= :gn ORDER BY id;
CREATE TABLE grow_ins (id bigint, fp simhash64);
CREATE INDEX grow_ins_ix ON grow_ins USING simhash (fp) WITH (max_distance = 3);
CHECKPOINT;
SELECT bench_put(:'dataset', :n, 'grow_insert_ms', bench_ddl('INSERT INTO grow_ins SELECT id, fp FROM grow_bulk ORDER BY id'));
SELECT bench_put(:'dataset', :n, 'grow_build_ms',
  bench_ddl('CREATE INDEX grow_bulk_ix ON grow_bulk USING simhash (fp) WITH (max_distance = 3)'));
VACUUM ANALYZE grow_bulk;
VACUUM ANALYZE grow_ins;
SELECT bench_put(:'dataset', :n, 'grow_rows', :gn);
SELECT bench_put(:'dataset', :n, 'grow_size_ins_bytes', pg_relation_size('grow_ins_ix'));
SELECT bench_put(:'dataset', :n, 'grow_size_bulk_bytes', pg_relation_size('grow_bulk_ix'));

-- queries: stored rows of the first :gn with 2 bits flipped
SELECT array_agg(flip(b.fpi, rnd64(40000000000000 + i), 2) ORDER BY i) AS gq
  FROM generate_series(1, :nq) i JOIN bench b ON b.id = 1 + abs(rnd64(30000000000000 + i)) % :gn \gset
PREPARE grow_bulk3(bigint) AS SELECT count(id) FROM grow_bulk WHERE fp <@ simhash_ball($1::simhash64, 3);
PREPARE grow_ins3(bigint) AS SELECT count(id) FROM grow_ins WHERE fp <@ simhash_ball($1::simhash64, 3);
SELECT bench_run('grow_bulk3', :'gq'), bench_run('grow_ins3', :'gq') \g /dev/null
-- two passes each, interleaved, and the mean of the two medians, so that drift in the
-- machine's load does not favour either
-- ((f()).* would call f once per output column: three passes, not one.)
CREATE TEMP TABLE grow_t AS SELECT 'bulk' AS m, b.* FROM bench_run('grow_bulk3', :'gq') b;
INSERT INTO grow_t SELECT 'ins', b.* FROM bench_run('grow_ins3', :'gq') b;
INSERT INTO grow_t SELECT 'bulk', b.* FROM bench_run('grow_bulk3', :'gq') b;
INSERT INTO grow_t SELECT 'ins', b.* FROM bench_run('grow_ins3', :'gq') b;
SELECT bench_put(:'dataset', :n, 'grow_k3_' || m || '_ms', avg(median_ms)),
       bench_put(:'dataset', :n, 'grow_k3_' || m || '_rows', avg(mean_rows))
  FROM grow_t GROUP BY m;
DROP TABLE grow_bulk, grow_ins;
