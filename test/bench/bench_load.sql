-- Loads one data set of :n rows into bench, builds every index (timed, one
-- process each, and the B-tree once more with the server's parallel workers)
-- and records build times and sizes.  psql variables: n, dataset.
\set ON_ERROR_STOP 1
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '512MB';

SET client_min_messages = warning;
DROP TABLE IF EXISTS bench, bench_q;
-- fp and fp6 hold the same fingerprint (one simhash index each, so every
-- query has exactly one index it can use); fpi is the bigint of today.
CREATE TABLE bench (id bigint, fp simhash64, fp6 simhash64, fpi bigint);

SELECT :'dataset' = 'random' AS is_random, :'dataset' = 'peps' AS is_peps \gset
\if :is_peps
-- fingerprints of real documents (peps_setup.sql): row g is in family
-- (g - 1) % F, one stored PEP version; the first rows of a family are the
-- version itself and its real word-edited copies, the later ones combine the
-- bits those edits flipped (peps_row)
SELECT count(*) AS nfam FROM peps_fam \gset
INSERT INTO bench SELECT g, v::simhash64, v::simhash64, v
  FROM (SELECT g, peps_row(g, :nfam, f.base, f.e) AS v
        FROM generate_series(1, :n) g JOIN peps_fam f ON f.f = (g - 1) % :nfam) s;
\elif :is_random
-- random values, and 1% planted near-duplicate families: 12 rows within one
-- bit of a center that is not itself stored
INSERT INTO bench SELECT g, v::simhash64, v::simhash64, v
  FROM (SELECT g, rnd64(g) AS v FROM generate_series(1, :n - :n / 100) g) s;
INSERT INTO bench SELECT g, v::simhash64, v::simhash64, v
  FROM (SELECT g, flip(rnd64(20000000000000 + (g - (:n - :n / 100) - 1) / 12), rnd64(g), 1) AS v
        FROM generate_series(:n - :n / 100 + 1, :n) g) s;
\else
INSERT INTO bench SELECT g, v::simhash64, v::simhash64, v
  FROM (SELECT g, clustered64(g) AS v FROM generate_series(1, :n) g) s;
\endif
VACUUM ANALYZE bench;

-- query values: rows 2 bits away from stored ones (they find at least that
-- row at k = 3), stored values (B-tree equality), family centers (their ten
-- nearest lie within max_distance) and random values (nearest 15+ bits away)
CREATE TABLE bench_q (kind text, i int, q bigint);
INSERT INTO bench_q SELECT 'stored', i, b.fpi
  FROM generate_series(1, 500) i JOIN bench b ON b.id = 1 + (abs(rnd64(30000000000000 + i)) % :n);
INSERT INTO bench_q SELECT 'near', i, flip(q, rnd64(40000000000000 + i), 2) FROM bench_q WHERE kind = 'stored';
\if :is_peps
-- edited copies (not stored) of stored versions: true near-duplicates;
-- the versions themselves; versions of PEPs that are not stored at all
DELETE FROM bench_q WHERE kind = 'near';
INSERT INTO bench_q SELECT 'near', i, f.q
  FROM generate_series(1, 500) i JOIN peps_fam f ON f.f = abs(rnd64(70000000000000 + i)) % least(:nfam, :n);
INSERT INTO bench_q SELECT 'center', i, f.base
  FROM generate_series(1, 500) i JOIN peps_fam f ON f.f = abs(rnd64(50000000000000 + i)) % least(:nfam, :n);
INSERT INTO bench_q SELECT 'random', g.i, h.fp
  FROM generate_series(1, 500) g(i) JOIN peps_fresh h ON h.i = abs(rnd64(60000000000000 + g.i)) % (SELECT count(*) FROM peps_fresh);
\elif :is_random
INSERT INTO bench_q SELECT 'center', i, rnd64(20000000000000 + (i % greatest(:n / 100 / 12, 1)))
  FROM generate_series(1, 500) i;
\else
INSERT INTO bench_q SELECT 'center', i, rnd64(10000000000000 + (abs(rnd64(50000000000000 + i)) % (:n / 20)))
  FROM generate_series(1, 500) i;
\endif
INSERT INTO bench_q SELECT 'random', i, rnd64(60000000000000 + i) FROM generate_series(1, 500) i
  WHERE NOT :'is_peps'::boolean;

SELECT bench_put(:'dataset', :n, 'table_bytes', pg_relation_size('bench'));
SELECT bench_put(:'dataset', :n, 'build_btree_ms', bench_ddl('CREATE INDEX bench_btree ON bench (fpi)'));
-- A B-tree can also build in parallel, as it does by default; the simhash
-- index cannot. That build is timed too, then dropped.
RESET max_parallel_maintenance_workers;
SELECT bench_put(:'dataset', :n, 'build_btree_parallel_ms', bench_ddl('CREATE INDEX bench_btree_par ON bench (fpi)'));
DROP INDEX bench_btree_par;
SET max_parallel_maintenance_workers = 0;
SELECT bench_put(:'dataset', :n, 'build_pigeonhole_ms',
    bench_ddl('CREATE INDEX bench_b0 ON bench (((fpi >> 0) & 65535))')
  + bench_ddl('CREATE INDEX bench_b1 ON bench (((fpi >> 16) & 65535))')
  + bench_ddl('CREATE INDEX bench_b2 ON bench (((fpi >> 32) & 65535))')
  + bench_ddl('CREATE INDEX bench_b3 ON bench (((fpi >> 48) & 65535))'));
SELECT bench_put(:'dataset', :n, 'build_simhash_ms',
    bench_ddl('CREATE INDEX bench_simhash ON bench USING simhash (fp) WITH (max_distance = 3)'));
SELECT bench_put(:'dataset', :n, 'build_simhash6_ms',
    bench_ddl('CREATE INDEX bench_simhash6 ON bench USING simhash (fp6) WITH (max_distance = 6)'));
VACUUM ANALYZE bench;

SELECT bench_put(:'dataset', :n, 'size_btree_bytes', pg_relation_size('bench_btree'));
SELECT bench_put(:'dataset', :n, 'size_pigeonhole_bytes',
  pg_relation_size('bench_b0') + pg_relation_size('bench_b1') + pg_relation_size('bench_b2') + pg_relation_size('bench_b3'));
SELECT bench_put(:'dataset', :n, 'size_simhash_bytes', pg_relation_size('bench_simhash'));
SELECT bench_put(:'dataset', :n, 'size_simhash6_bytes', pg_relation_size('bench_simhash6'));
