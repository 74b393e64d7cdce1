-- Plain and index-only scans of a qualifier stream their rows: the walk
-- pauses at the end of a leaf once a batch holds 64 hits (then what work_mem
-- holds: 104,857 at 4MB), returns the batch, and resumes from that leaf's
-- high key. Every
-- row must come back once, also where a pause falls inside a run of identical
-- fingerprints (the resume key then carries the TID), and a LIMIT must stop
-- the walk early.
SET client_min_messages = warning;

CREATE TABLE stream (id int, fp simhash64);
-- Random rows; a run of 6,000 identical fingerprints, longer than a leaf; 40
-- families of 500 rows 1 or 2 bits from their centre; NULLs (never returned).
INSERT INTO stream SELECT i, hashint8extended(i, 11)::simhash64 FROM generate_series(1, 100000) i;
INSERT INTO stream SELECT 100000 + i, '0123456789abcdef' FROM generate_series(1, 6000) i;
INSERT INTO stream SELECT 200000 + i, (hashint8extended(i % 40, 12) # (1::bigint << (i % 64)) # (1::bigint << (i % 7)))::simhash64
    FROM generate_series(1, 20000) i;
INSERT INTO stream SELECT 300000 + i, NULL FROM generate_series(1, 1000) i;
CREATE INDEX stream_fp ON stream USING simhash (fp);
VACUUM ANALYZE stream;

-- The run's fingerprint at radius 0 (the run alone) and 3; two family centres,
-- a family member and a random value at radius 3 (probes); sweeps at radius
-- 34 and 64 (75,000 and 126,000 rows: one or two full batches).
CREATE TABLE stream_q (qid int, q simhash64, k int);
INSERT INTO stream_q VALUES (1, '0123456789abcdef', 0), (2, '0123456789abcdef', 3),
    (3, hashint8extended(3, 12)::simhash64, 3), (4, hashint8extended(17, 12)::simhash64, 3),
    (5, (SELECT fp FROM stream WHERE id = 200077), 3), (6, hashint8extended(5, 99)::simhash64, 3),
    (7, (SELECT fp FROM stream WHERE id = 200077), 34), (8, hashint8extended(5, 99)::simhash64, 64);
ANALYZE stream_q;

CREATE TEMP TABLE expect AS SELECT q.qid, s.id, s.fp FROM stream_q q, stream s WHERE hamming_distance(s.fp, q.q) <= q.k;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT q.qid, s.id FROM stream_q q, stream s WHERE s.fp <@ simhash_ball(q.q, q.k);
CREATE TEMP TABLE got AS SELECT q.qid, s.id FROM stream_q q, stream s WHERE s.fp <@ simhash_ball(q.q, q.k);
EXPLAIN (COSTS OFF) SELECT q.qid, s.fp FROM stream_q q, stream s WHERE s.fp <@ simhash_ball(q.q, q.k);
CREATE TEMP TABLE got_ios AS SELECT q.qid, s.fp FROM stream_q q, stream s WHERE s.fp <@ simhash_ball(q.q, q.k);
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM expect) AS matches,
       (SELECT count(*) FROM expect WHERE qid = 1) AS run,
       (SELECT count(*) FROM (SELECT qid, id FROM expect EXCEPT ALL SELECT * FROM got) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM got EXCEPT ALL SELECT qid, id FROM expect) x) AS extra,
       (SELECT count(*) FROM (SELECT qid, fp FROM expect EXCEPT ALL SELECT * FROM got_ios) x) AS ios_missing,
       (SELECT count(*) FROM (SELECT * FROM got_ios EXCEPT ALL SELECT qid, fp FROM expect) x) AS ios_extra;

-- The run spans several leaves of every table, so its scan paused inside it.
SELECT entries, longest_leaf_chain > 1 AS run_spans_leaves FROM simhash_index_info('stream_fp');

-- A LIMIT stops the walk. The whole answer at radius 64 reads every leaf of
-- table 0, some 150; LIMIT 10 reads each table's first page, a leaf, and
-- the leaf of each row it returns again (an index-only scan's recheck; the
-- visibility map spares the heap). So does EXISTS over the 75,000 rows of
-- radius 34, where a scan that collects every match first reads hundreds.
CREATE FUNCTION pg_temp.index_blocks(query text) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) ' || query INTO plan;
    RETURN (SELECT sum((n ->> 'Shared Hit Blocks')::bigint + (n ->> 'Shared Read Blocks')::bigint)
            FROM jsonb_path_query(plan, 'strict $.**') n WHERE n ->> 'Index Name' = 'stream_fp');
END $$;
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.index_blocks('SELECT fp FROM stream WHERE fp <@ simhash_ball(''fedcba9876543210'', 64) LIMIT 10') < 30
       AS limit_stops_early;
EXPLAIN (COSTS OFF) SELECT EXISTS (SELECT 1 FROM stream WHERE fp <@ simhash_ball(hashint8extended(5, 99)::simhash64, 34));
SELECT EXISTS (SELECT 1 FROM stream WHERE fp <@ simhash_ball(hashint8extended(5, 99)::simhash64, 34)) AS found,
       pg_temp.index_blocks('SELECT 1 FROM stream WHERE fp <@ simhash_ball(hashint8extended(5, 99)::simhash64, 34) LIMIT 1') < 30
       AS exists_stops_early;
RESET enable_seqscan;
RESET enable_bitmapscan;

-- ORDER BY fp <-> q under a ball around q reads the nearest rows in batches,
-- none beyond the ball (another ball is checked on each row): the distances
-- in order, and the rows, equal a sorted sequential scan's, within the
-- layout's radius (3) and beyond it (sweeps up to 34 and 64).
SET enable_seqscan = off;
SET enable_bitmapscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM stream WHERE fp <@ simhash_ball('0123456789abcdef', 3)
    ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
EXPLAIN (COSTS OFF) SELECT q.qid, n.n, x.r, x.id, x.d FROM stream_q q, (VALUES (10), (300), (200000)) n(n),
    LATERAL (SELECT row_number() OVER () AS r, y.* FROM (SELECT id, fp <-> q.q AS d FROM stream
             WHERE fp <@ simhash_ball(q.q, q.k) ORDER BY fp <-> q.q LIMIT n.n) y) x;
CREATE TEMP TABLE near_got AS SELECT q.qid, n.n, x.r, x.id, x.d FROM stream_q q, (VALUES (10), (300), (200000)) n(n),
    LATERAL (SELECT row_number() OVER () AS r, y.* FROM (SELECT id, fp <-> q.q AS d FROM stream
             WHERE fp <@ simhash_ball(q.q, q.k) ORDER BY fp <-> q.q LIMIT n.n) y) x;
-- index-only, LIMIT 300
CREATE TEMP TABLE near_ios AS SELECT q.qid, x.r, x.d FROM stream_q q,
    LATERAL (SELECT row_number() OVER () AS r, fp <-> q.q AS d FROM (SELECT fp FROM stream
             WHERE fp <@ simhash_ball(q.q, q.k) ORDER BY fp <-> q.q LIMIT 300) y) x;
-- a smaller ball elsewhere drives the scan (the run's value at radius 0)
CREATE TEMP TABLE near_small AS SELECT row_number() OVER () AS r, y.* FROM (SELECT id, fp <-> 'fedcba9876543210' AS d
    FROM stream WHERE fp = '0123456789abcdef' AND fp <@ simhash_ball('fedcba9876543210', 64)
    ORDER BY fp <-> 'fedcba9876543210') y;
CREATE TEMP TABLE near_two AS SELECT q.qid, x.id FROM stream_q q,
    LATERAL (SELECT id FROM stream WHERE fp <@ simhash_ball(q.q, q.k) AND fp <@ simhash_ball('fedcba9876543210', 33)
             ORDER BY fp <-> q.q) x;
RESET enable_seqscan;
RESET enable_bitmapscan;
SELECT q.qid, n.n,
       (SELECT array_agg(d ORDER BY r) FROM near_got g WHERE g.qid = q.qid AND g.n = n.n)
       IS NOT DISTINCT FROM (SELECT array_agg(d) FROM (SELECT hamming_distance(fp, q.q) AS d FROM stream
                                    WHERE hamming_distance(fp, q.q) <= q.k ORDER BY 1 LIMIT n.n) x) AS same_distances
FROM stream_q q, (VALUES (10), (300), (200000)) n(n) ORDER BY 1, 2;
SELECT q.qid, (SELECT array_agg(d ORDER BY r) FROM near_ios g WHERE g.qid = q.qid)
       IS NOT DISTINCT FROM (SELECT array_agg(d) FROM (SELECT hamming_distance(fp, q.q) AS d FROM stream
                                    WHERE hamming_distance(fp, q.q) <= q.k ORDER BY 1 LIMIT 300) x) AS ios_same_distances
FROM stream_q q ORDER BY 1;
SELECT (SELECT count(*) FROM near_got) = (SELECT count(DISTINCT (qid, n, id)) FROM near_got) AS no_repeats,
       (SELECT count(*) FROM near_small) AS small_rows,
       (SELECT count(DISTINCT id) FROM near_small) AS small_ids,
       (SELECT bool_and(d = hamming_distance('0123456789abcdef', 'fedcba9876543210')) FROM near_small) AS small_distances;
-- An answer read whole is the ball's rows; a LIMIT's, rows within the ball.
SELECT (SELECT count(*) FROM (SELECT qid, id FROM near_got WHERE n = 200000 EXCEPT ALL SELECT qid, id FROM expect) x) AS extra,
       (SELECT count(*) FROM (SELECT qid, id FROM expect EXCEPT ALL SELECT qid, id FROM near_got WHERE n = 200000) x) AS missing,
       (SELECT count(*) FROM near_got g JOIN stream s USING (id) JOIN stream_q q USING (qid)
        WHERE hamming_distance(s.fp, q.q) > q.k) AS outside;
SELECT (SELECT count(*) FROM (SELECT qid, id FROM near_two EXCEPT ALL
            SELECT qid, id FROM expect WHERE hamming_distance(fp, 'fedcba9876543210') <= 33) x) AS two_extra,
       (SELECT count(*) FROM (SELECT qid, id FROM expect WHERE hamming_distance(fp, 'fedcba9876543210') <= 33
            EXCEPT ALL SELECT qid, id FROM near_two) x) AS two_missing;
-- LIMIT 10 of the rows within 34 bits of a family's centre stops at its
-- family (the probes at radius 3), where collecting the ball read a sweep;
-- and the ball ends the walk: no sweep follows the probes that found nothing
-- within 3 bits of a random value.
SET enable_seqscan = off;
SET enable_bitmapscan = off;
SELECT pg_temp.index_blocks('SELECT fp FROM stream WHERE fp <@ simhash_ball(hashint8extended(17, 12)::simhash64, 34)
                             ORDER BY fp <-> hashint8extended(17, 12)::simhash64 LIMIT 10') < 30 AS nearest_stop_early,
       pg_temp.index_blocks('SELECT fp FROM stream WHERE fp <@ simhash_ball(hashint8extended(5, 99)::simhash64, 3)
                             ORDER BY fp <-> hashint8extended(5, 99)::simhash64') < 30 AS ball_ends_walk;
RESET enable_seqscan;
RESET enable_bitmapscan;

SELECT simhash_index_check('stream_fp', true);
DROP TABLE stream, stream_q;
