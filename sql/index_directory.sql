-- A scan starts from the directory, a backend's copy of one upper level of
-- each table's tree (docs/index-design.md, "Scans"), which goes stale as leaves
-- split. Answers must stay exact: after this session's own inserts split most
-- leaves under the copy, after the copy was read anew, on an index that grew
-- from a leaf root, and after REINDEX and VACUUM.
SET client_min_messages = warning;
SET enable_seqscan = off;
SET enable_bitmapscan = off;

CREATE TABLE dirt (id serial, fp simhash64);
INSERT INTO dirt (fp) SELECT hashint8extended(i, 11)::simhash64 FROM generate_series(1, 4000) i;
CREATE INDEX dirt_fp ON dirt USING simhash (fp);
-- queries 1-2 bits from stored rows, and random ones (nearest rows far away)
CREATE TABLE dq (qid int, q simhash64);
INSERT INTO dq SELECT i, (hashint8extended(i * 97, 11) # (1::bigint << i) # (1::bigint << (i * 5 % 64)))::simhash64
    FROM generate_series(1, 6) i;
INSERT INTO dq SELECT 10 + i, hashint8extended(i, 12)::simhash64 FROM generate_series(1, 4) i;

-- Within-k ids (k = 0..3) and the 20 nearest distances, through the index and
-- through a sequential scan: how many (query, k) and queries differ.
CREATE FUNCTION dir_check(tab regclass, OUT probes_differing bigint, OUT knn_differing bigint) LANGUAGE plpgsql AS $$
DECLARE r record; a int[]; b int[];
BEGIN
    probes_differing := 0;
    knn_differing := 0;
    FOR r IN SELECT q, k FROM dq, generate_series(0, 3) k LOOP
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s WHERE fp <@ simhash_ball($1, $2)', tab) INTO a USING r.q, r.k;
        EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %s WHERE hamming_distance(fp, $1) <= $2', tab) INTO b USING r.q, r.k;
        IF a IS DISTINCT FROM b THEN probes_differing := probes_differing + 1; END IF;
    END LOOP;
    FOR r IN SELECT q FROM dq LOOP
        EXECUTE format('SELECT array_agg(d) FROM (SELECT fp <-> $1 AS d FROM %s ORDER BY fp <-> $1 LIMIT 20) s', tab) INTO a USING r.q;
        EXECUTE format('SELECT array_agg(d ORDER BY d) FROM (SELECT hamming_distance(fp, $1) AS d FROM %s ORDER BY 1 LIMIT 20) s', tab) INTO b USING r.q;
        IF a IS DISTINCT FROM b THEN knn_differing := knn_differing + 1; END IF;
    END LOOP;
END $$;

EXPLAIN (COSTS OFF) SELECT id FROM dirt WHERE fp <@ simhash_ball('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM dirt ORDER BY fp <-> '0123456789abcdef' LIMIT 20;
SELECT * FROM dir_check('dirt');
-- 24,000 more rows (a sixth of them 1-3 bits from the queries' neighbourhood)
-- split most leaves under the directory this session holds.
INSERT INTO dirt (fp) SELECT hashint8extended(i, 13)::simhash64 FROM generate_series(1, 20000) i;
INSERT INTO dirt (fp) SELECT (q::bigint # (1::bigint << (g % 64)) # (1::bigint << (g * 7 % 64)))::simhash64
    FROM dq, generate_series(1, 400) g;
SELECT * FROM dir_check('dirt');
SELECT * FROM dir_check('dirt');
INSERT INTO dirt (fp) SELECT hashint8extended(i, 14)::simhash64 FROM generate_series(1, 20000) i;
SELECT * FROM dir_check('dirt');
SELECT simhash_index_check('dirt_fp', true);
DELETE FROM dirt WHERE id % 3 = 0;
VACUUM dirt;
SELECT * FROM dir_check('dirt');
REINDEX INDEX dirt_fp;
SELECT * FROM dir_check('dirt');

-- An index created empty: every root is a leaf (no directory), then grows.
CREATE TABLE grow (id serial, fp simhash64);
CREATE INDEX grow_fp ON grow USING simhash (fp);
SELECT * FROM dir_check('grow');
INSERT INTO grow (fp) SELECT hashint8extended(i, 15)::simhash64 FROM generate_series(1, 300) i;
SELECT * FROM dir_check('grow');
INSERT INTO grow (fp) SELECT hashint8extended(i, 16)::simhash64 FROM generate_series(1, 8000) i;
SELECT * FROM dir_check('grow');
SELECT * FROM dir_check('grow');
SELECT height > 1 AS grew FROM simhash_index_info('grow_fp');

-- Rows crowded behind one 40-bit prefix: the probe of a table whose prefix
-- lies inside it spans every leaf. For a query that differs from the prefix,
-- the summary of the keys under each downlink rules most leaves out. The
-- directory's copies of those summaries only suggest it (inserts weaken the
-- summaries after the copy): the walk then starts at the root, whose pages'
-- summaries are current, and reads a few of the 20 to 50 leaves each table
-- has (4-8 pages in all; 20-24 without the walk from the root). A walk of
-- the directory jumps over the entries whose shared leading bits rule them
-- out: queries flipped in every block of the prefix check that it jumps no
-- further.
CREATE TABLE crowd (id serial, fp simhash64);
INSERT INTO crowd (fp) SELECT ((x'9e3779b97f'::bit(40)::bigint << 24) | (hashint8extended(i, 21) & 16777215))::simhash64
    FROM generate_series(1, 40000) i;
CREATE INDEX crowd_fp ON crowd USING simhash (fp);
DELETE FROM dq;
INSERT INTO dq SELECT row_number() OVER (), ((x'9e3779b97f'::bit(40)::bigint << 24) # (1::bigint << b1) # (1::bigint << b2)
        | (hashint8extended(b1, 22) & 16777215))::simhash64
    FROM (VALUES (60, 62), (48, 63), (30, 50), (44, 46), (24, 24), (26, 28), (24, 31), (32, 39), (40, 47),
                 (25, 57), (33, 34), (52, 53), (27, 61)) v(b1, b2);
CREATE FUNCTION scan_buffers(tab regclass, q simhash64) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan json;
BEGIN
    EXECUTE format('EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT count(*) FROM %s WHERE fp <@ simhash_ball($1, 3)', tab)
        INTO plan USING q;
    RETURN (plan -> 0 -> 'Plan' ->> 'Shared Hit Blocks')::bigint + (plan -> 0 -> 'Plan' ->> 'Shared Read Blocks')::bigint;
END $$;
SELECT * FROM dir_check('crowd');
SELECT qid, scan_buffers('crowd', q) < 14 AS few_pages FROM dq WHERE qid <= 2 ORDER BY qid;
-- Rows 3 bits from each query, one in each of three 16-bit blocks, inserted
-- one statement each: only the table whose prefix is the fourth block finds
-- them, the wide probe above for two of the queries. Their downlinks'
-- summaries must let them in before they land.
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT q, skip, v FROM dq, generate_series(0, 3) skip, generate_series(0, 1) v LOOP
        INSERT INTO crowd (fp) SELECT (r.q::bigint # bit_or(1::bigint << (16 * b + 3 + 7 * r.v)))::simhash64
            FROM generate_series(0, 3) b WHERE b <> r.skip;
    END LOOP;
END $$;
SELECT * FROM dir_check('crowd');
SELECT simhash_index_check('crowd_fp', true);

-- Runs of identical rows 3 bits from a query, one bit at the top of each of
-- three blocks (only the table that the fourth block leads finds them), and
-- beside them runs one more bit away, at the bottom of each block in turn.
-- In that table's key order one of those runs ends just below the first run,
-- and its leaves are ruled out on their leading bits: the walk's jump over
-- entries ruled out the same way must stop before the first run's leaves
-- (it stopped one difference short in a mutation of it, which the crowd's
-- queries above did not catch: this does).
CREATE TABLE runs (id serial, fp simhash64);
INSERT INTO runs (fp)
    SELECT ((x'5bd1e9955bd1e995'::bigint # (1::bigint << 15) # (1::bigint << 31) # (1::bigint << 47))
            # CASE WHEN b < 0 THEN 0 ELSE 1::bigint << (16 * b) END)::simhash64
    FROM generate_series(-1, 2) b, generate_series(1, 9000) c;
CREATE INDEX runs_fp ON runs USING simhash (fp);
-- (The case needs a directory over several leaves per run.)
SELECT height > 1 AS has_directory, pages > 40 AS several_leaves_per_run FROM simhash_index_info('runs_fp');
DELETE FROM dq;
INSERT INTO dq VALUES (1, x'5bd1e9955bd1e995'::bigint::simhash64);
SELECT * FROM dir_check('runs');
SELECT count(*) FILTER (WHERE fp <-> x'5bd1e9955bd1e995'::bigint::simhash64 = 3) AS three_away FROM runs;

-- Rows sharing their low 16 bits, the prefix of one table: a query with
-- that block reads some 20 leaves of that table's probe, one of each other
-- table's. The probes run from the narrowest range to the widest, and the
-- prefixes of the probes run before it rule out most of the widest one's
-- leaves (a row it must report differs from the query in each of them): 311
-- pages for the 20 random queries, 436 when that table's probe ran first.
CREATE TABLE skew16 (id serial, fp simhash64);
INSERT INTO skew16 (fp) SELECT ((hashint8extended(i, 21) & ~65535::bigint) | x'0123'::bigint)::simhash64
    FROM generate_series(1, 20000) i;
INSERT INTO skew16 (fp) SELECT hashint8extended(i, 22)::simhash64 FROM generate_series(1, 4000) i;
CREATE INDEX skew16_fp ON skew16 USING simhash (fp);
VACUUM ANALYZE skew16;
DELETE FROM dq;
-- 20 random values with those low bits, and 10 stored rows with 2 bits flipped
INSERT INTO dq SELECT j, ((hashint8extended(1000 + j, 23) & ~65535::bigint) | x'0123'::bigint)::simhash64
    FROM generate_series(1, 20) j;
INSERT INTO dq SELECT 100 + id, (fp::bigint # (1::bigint << id) # (1::bigint << (id * 3)))::simhash64
    FROM skew16 WHERE id <= 10;
SELECT * FROM dir_check('skew16');
SELECT sum(scan_buffers('skew16', q)) < 370 AS narrowest_first FROM dq WHERE qid <= 20;

-- A session reads the directory once its walks from the roots have read as
-- many internal pages as that read would: on an index of 800,000 rows
-- (~3,800 pages, ~19 internal pages above the leaves), a fresh session's
-- first probe reads each table's root, the internal page below it and a leaf
-- (the read at the first scan made it ~27 pages); a few probes later, its 4
-- leaves only. Answers are the same either way.
CREATE TABLE defer (id serial, fp simhash64);
INSERT INTO defer (fp) SELECT hashint8extended(i, 24)::simhash64 FROM generate_series(1, 800000) i;
CREATE INDEX defer_fp ON defer USING simhash (fp);
VACUUM ANALYZE defer;
DELETE FROM dq;
INSERT INTO dq SELECT id, (fp::bigint # (1::bigint << id) # (1::bigint << (id * 5)))::simhash64
    FROM defer WHERE id <= 8;
SELECT pages > 3600 AS big_enough, height FROM simhash_index_info('defer_fp');
\c -
SET client_min_messages = warning;
SET enable_seqscan = off;
SELECT scan_buffers('defer', q) AS first_probe_pages FROM dq WHERE qid = 1;
SELECT sum(scan_buffers('defer', q)) > 0 AS more_probes FROM dq WHERE qid BETWEEN 2 AND 6;
SELECT scan_buffers('defer', q) AS later_probe_pages FROM dq WHERE qid = 7;
SELECT * FROM dir_check('defer');

DROP TABLE dirt, grow, dq, crowd, runs, skew16, defer;
DROP FUNCTION dir_check(regclass), scan_buffers(regclass, simhash64);
