-- A build larger than maintenance_work_mem: every table's keys are sorted in
-- memory-sized runs, spilled to temp files and merged back. The index must
-- answer exactly what a sequential scan answers, and pass its own check.
SET client_min_messages = warning;
SET max_parallel_maintenance_workers = 0;

CREATE TABLE spill (id int, fp simhash64);
-- Random rows, then families around 40 centers (equal table prefixes spread
-- over several runs), then NULL rows: 127,000 entries of 16 bytes, 2 MB.
INSERT INTO spill SELECT i, hashint8extended(i, 1)::simhash64 FROM generate_series(1, 100000) i;
INSERT INTO spill SELECT 100000 + i, (hashint8extended(i % 40, 2) # (1::bigint << (i % 64)) # (1::bigint << (i % 7)))::simhash64
    FROM generate_series(1, 20000) i;
INSERT INTO spill SELECT 200000 + i, NULL FROM generate_series(1, 7000) i;

SELECT temp_files AS temp_files_before FROM pg_stat_database WHERE datname = current_database() \gset
SET maintenance_work_mem = '1MB';
CREATE INDEX spill_fp ON spill USING simhash (fp);
RESET maintenance_work_mem;
SELECT pg_stat_force_next_flush();
SELECT pg_stat_clear_snapshot();
-- It did spill.
SELECT temp_files > :temp_files_before AS spilled FROM pg_stat_database WHERE datname = current_database();
ANALYZE spill;
SELECT max_distance, tables, entries, dead_entries FROM simhash_index_info('spill_fp');
SELECT simhash_index_check('spill_fp', true);

-- Query points: random, family centers and members; radii 0..5 and ORDER BY.
CREATE TABLE spill_q (qid int, q simhash64);
INSERT INTO spill_q SELECT i, hashint8extended(i, 9)::simhash64 FROM generate_series(1, 4) i;
INSERT INTO spill_q SELECT 10 + c, hashint8extended(c, 2)::simhash64 FROM generate_series(1, 4) c;
INSERT INTO spill_q SELECT 20 + row_number() OVER (ORDER BY id), fp FROM spill WHERE id IN (7, 50000, 100001, 100077);

CREATE TEMP TABLE expect AS SELECT q.qid, k.k, s.id FROM spill_q q, generate_series(0, 5) k(k), spill s
    WHERE hamming_distance(s.fp, q.q) <= k.k;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM spill WHERE fp <@ simhash_ball('0000000000000000', 3);
CREATE TEMP TABLE got AS SELECT q.qid, k.k, s.id FROM spill_q q, generate_series(0, 5) k(k), spill s
    WHERE s.fp <@ simhash_ball(q.q, k.k);
SELECT (SELECT count(*) FROM expect) AS matches,
       (SELECT count(*) FROM (SELECT * FROM expect EXCEPT ALL SELECT * FROM got) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM expect) x) AS extra;
-- Nearest neighbours: the distance sequence equals a sorted sequential scan's.
SELECT q.qid, (SELECT array_agg(d) FROM (SELECT s.fp <-> q.q AS d FROM spill s ORDER BY s.fp <-> q.q LIMIT 30) x)
    = (SELECT array_agg(hamming_distance(s.fp, q.q) ORDER BY hamming_distance(s.fp, q.q))
       FROM (SELECT fp FROM spill WHERE fp IS NOT NULL ORDER BY hamming_distance(fp, q.q), id LIMIT 30) s) AS same
FROM spill_q q ORDER BY q.qid;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- Bitmap scans with more hits than the 65,536 a scan sorts and adds to its
-- bitmap at once: the rows are added chunk by chunk, each once, and EXPLAIN
-- counts rows. Radius 64 matches every non-NULL row, 34 nearly three quarters.
SET enable_seqscan = off;
SET enable_indexscan = off;
EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)
    SELECT count(*) FROM spill WHERE fp <@ simhash_ball('0123456789abcdef', 64);
CREATE TEMP TABLE bitmap_got AS SELECT q.qid, k.k, s.id FROM spill_q q, (VALUES (34), (64)) k(k), spill s
    WHERE s.fp <@ simhash_ball(q.q, k.k) AND q.qid IN (1, 21);
-- With rows spread over more heap pages than a 64 kB work_mem can list, the
-- bitmap turns lossy, and the executor's recheck keeps the answer exact.
CREATE TABLE spill_wide AS SELECT id, fp, repeat('x', 200) AS pad FROM spill;
CREATE INDEX spill_wide_fp ON spill_wide USING simhash (fp);
CREATE FUNCTION pg_temp.plan_shows(query text, pattern text) RETURNS bool LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
        IF line ~ pattern THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
END $$;
SET work_mem = '64kB';
SELECT pg_temp.plan_shows('SELECT count(*) FROM spill_wide WHERE fp <@ simhash_ball(''0123456789abcdef'', 64)',
                          'Heap Blocks: exact=\d+ lossy=\d+') AS lossy,
       pg_temp.plan_shows('SELECT count(*) FROM spill_wide WHERE fp <@ simhash_ball(''0123456789abcdef'', 64)',
                          'Bitmap Index Scan on spill_wide_fp \(actual rows=120000 ') AS rows_counted;
CREATE TEMP TABLE bitmap_lossy AS SELECT q.qid, k.k, s.id FROM spill_q q, (VALUES (34), (64)) k(k), spill_wide s
    WHERE s.fp <@ simhash_ball(q.q, k.k) AND q.qid IN (1, 21);
RESET work_mem;
RESET enable_seqscan;
RESET enable_indexscan;
CREATE TEMP TABLE bitmap_expect AS SELECT q.qid, k.k, s.id FROM spill_q q, (VALUES (34), (64)) k(k), spill s
    WHERE hamming_distance(s.fp, q.q) <= k.k AND q.qid IN (1, 21);
SELECT (SELECT count(*) FROM bitmap_expect) AS matches,
       (SELECT count(*) FROM (SELECT * FROM bitmap_expect EXCEPT ALL SELECT * FROM bitmap_got) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM bitmap_got EXCEPT ALL SELECT * FROM bitmap_expect) x) AS extra,
       (SELECT count(*) FROM (SELECT * FROM bitmap_expect EXCEPT ALL SELECT * FROM bitmap_lossy) x) AS lossy_missing,
       (SELECT count(*) FROM (SELECT * FROM bitmap_lossy EXCEPT ALL SELECT * FROM bitmap_expect) x) AS lossy_extra;
DROP TABLE spill_wide;

-- The same rows built in memory: as many entries, as many pages.
CREATE INDEX spill_fp_mem ON spill USING simhash (fp);
SELECT (SELECT entries FROM simhash_index_info('spill_fp')) = (SELECT entries FROM simhash_index_info('spill_fp_mem')) AS same_entries,
       pg_relation_size('spill_fp') = pg_relation_size('spill_fp_mem') AS same_size;

-- A spilled build of another layout (10 tables: the C(5, 3) block sets) is as exact.
DROP INDEX spill_fp, spill_fp_mem;
SET maintenance_work_mem = '1MB';
CREATE INDEX spill_fp10 ON spill USING simhash (fp) WITH (tables = 10);
RESET maintenance_work_mem;
SELECT tables, blocks, prefix_bits, entries FROM simhash_index_info('spill_fp10');
SELECT simhash_index_check('spill_fp10', true);
SET enable_seqscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE got10 AS SELECT q.qid, k.k, s.id FROM spill_q q, generate_series(0, 5) k(k), spill s
    WHERE s.fp <@ simhash_ball(q.q, k.k);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM (SELECT * FROM expect EXCEPT ALL SELECT * FROM got10) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM got10 EXCEPT ALL SELECT * FROM expect) x) AS extra;

DROP TABLE spill, spill_q;
