-- VACUUM remembers each heap TID's verdict in chunks of 1,024 heap blocks, up
-- to half of maintenance_work_mem (src/pg/index_vacuum.cpp); TIDs of the heap
-- blocks past that budget go to VACUUM's callback every time. With 1 MB of
-- maintenance_work_mem the budget holds 7 chunks, so a heap of 10,000 blocks
-- (one row per page) takes both paths. Answers must stay exact once the freed
-- heap slots hold other rows: an entry VACUUM left behind would point at them.
SET client_min_messages = warning;

-- (No autovacuum: it would clean up with its own memory before our VACUUM.)
CREATE TABLE wide (id int, fp simhash64, pad text) WITH (autovacuum_enabled = off);
ALTER TABLE wide ALTER COLUMN pad SET STORAGE PLAIN;
-- random, then 200 families of 15 members 1-3 bits from their centre
INSERT INTO wide SELECT i, hashint8extended(i, 21)::simhash64, repeat('x', 5000) FROM generate_series(1, 7000) i;
INSERT INTO wide SELECT 7000 + c * 15 + m,
        (hashint8extended(c, 22) # (1::bigint << (m * 7 % 64)) # ((m % 3)::bigint << (m * 11 % 63)))::simhash64,
        repeat('x', 5000)
    FROM generate_series(0, 199) c, generate_series(0, 14) m;
CREATE INDEX wide_fp ON wide USING simhash (fp);
SELECT pg_relation_size('wide') / current_setting('block_size')::int > 7 * 1024 AS past_the_budget;

CREATE TABLE gone AS SELECT id, fp, ctid AS tid FROM wide WHERE id % 3 = 0;
DELETE FROM wide WHERE id % 3 = 0;
SET maintenance_work_mem = '1MB';
VACUUM wide;
RESET maintenance_work_mem;
SELECT dead_entries, entries = tables * (SELECT count(*) FROM wide) AS entries_match FROM simhash_index_info('wide_fp');
SELECT simhash_index_check('wide_fp', true);

-- New rows, with other fingerprints, into the freed slots.
INSERT INTO wide SELECT 20000 + i, hashint8extended(i, 23)::simhash64, repeat('y', 5000) FROM generate_series(1, 3000) i;
SELECT count(*) > 1000 AS slots_reused FROM wide JOIN gone ON wide.ctid = gone.tid WHERE wide.id > 20000;

-- Each query (the deleted rows' fingerprints, the new rows', the family
-- centres) at k = 0..3: ids through the index against a scan of a copy of the
-- fingerprints (a scan of the wide table per query would read 80 MB).
CREATE TABLE wq AS
    SELECT row_number() OVER () AS qid, q FROM (
        SELECT fp AS q FROM gone WHERE id % 30 = 0
        UNION ALL SELECT fp FROM wide WHERE id > 20000 AND id % 50 = 0
        UNION ALL SELECT hashint8extended(c, 22)::simhash64 FROM generate_series(0, 199, 4) c) x;
CREATE TABLE narrow AS SELECT id, fp FROM wide;
CREATE TABLE expect AS SELECT qid, k, id FROM wq, generate_series(0, 3) k, narrow WHERE hamming_distance(fp, q) <= k;
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT qid, k, id FROM wq, generate_series(0, 3) k, wide WHERE fp <@ simhash_ball(q, k);
CREATE TABLE got AS SELECT qid, k, id FROM wq, generate_series(0, 3) k, wide WHERE fp <@ simhash_ball(q, k);
SELECT (SELECT count(*) FROM wq) AS queries, (SELECT count(*) FROM expect) AS matches,
       (SELECT count(*) FROM (TABLE expect EXCEPT ALL TABLE got) x) AS missing,
       (SELECT count(*) FROM (TABLE got EXCEPT ALL TABLE expect) x) AS extra;
SELECT simhash_index_check('wide_fp', true);
