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

DROP TABLE dirt, grow, dq;
DROP FUNCTION dir_check(regclass);
