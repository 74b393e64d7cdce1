-- B-tree and hash operator classes of simhash64: UNIQUE, GROUP BY, DISTINCT,
-- ORDER BY (unsigned), hash and merge joins, and amvalidate.
CREATE TABLE fps (id int4, fp simhash64);
INSERT INTO fps VALUES (1, '0000000000000000'), (2, 'ffffffffffffffff'), (3, '8000000000000000'),
                       (4, '7fffffffffffffff'), (5, '0123456789abcdef'), (6, '0123456789abcdef'),
                       (7, '8000000000000000'), (8, NULL);

-- ORDER BY is unsigned: 8000... after 7fff..., ffff... last
SELECT fp FROM fps ORDER BY fp, id;
SELECT fp FROM fps ORDER BY fp DESC NULLS LAST, id;
SELECT DISTINCT fp FROM fps ORDER BY fp;
SELECT fp, count(*) FROM fps GROUP BY fp ORDER BY fp;
-- both strategies for GROUP BY give the same groups
SET enable_hashagg = off;
EXPLAIN (COSTS OFF) SELECT fp, count(*) FROM fps GROUP BY fp;
SELECT fp, count(*) FROM fps GROUP BY fp ORDER BY fp;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT fp, count(*) FROM fps GROUP BY fp;
SELECT fp, count(*) FROM fps GROUP BY fp ORDER BY fp;
RESET enable_sort;

-- UNIQUE rejects duplicates (23505); the B-tree serves range scans in unsigned order
CREATE TABLE unique_fps (fp simhash64 UNIQUE);
INSERT INTO unique_fps SELECT DISTINCT fp FROM fps WHERE fp IS NOT NULL;
\set VERBOSITY sqlstate
INSERT INTO unique_fps VALUES ('0123456789abcdef');
\set VERBOSITY default
INSERT INTO unique_fps VALUES ('8000000000000000');
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT fp FROM unique_fps WHERE fp > '7fffffffffffffff' ORDER BY fp;
SELECT fp FROM unique_fps WHERE fp > '7fffffffffffffff' ORDER BY fp;
RESET enable_seqscan;
-- equal fingerprints are equal images: B-tree deduplication applies, and an
-- index of repeated fingerprints is as small as one of the same bigints (it
-- was 3.2 times larger)
CREATE TABLE repeated AS
  SELECT ((i % 10) * 1000)::bigint AS b, ((i % 10) * 1000)::bigint::simhash64 AS fp
  FROM generate_series(1, 20000) i;
CREATE INDEX repeated_b ON repeated (b);
CREATE INDEX repeated_fp ON repeated (fp);
SELECT pg_relation_size('repeated_fp') = pg_relation_size('repeated_b') AS same_size;
DROP TABLE repeated;
-- a hash index on simhash64
CREATE INDEX fps_hash ON fps USING hash (fp);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM fps WHERE fp = '8000000000000000';
SELECT id FROM fps WHERE fp = '8000000000000000' ORDER BY id;
RESET enable_seqscan;

-- joins: the same answer from a hash join and a merge join
CREATE TABLE other_fps (name text, fp simhash64);
INSERT INTO other_fps VALUES ('zero', '0000000000000000'), ('top', '8000000000000000'),
                             ('ones', 'ffffffffffffffff'), ('none', '1111111111111111'), ('null', NULL);
SET enable_mergejoin = off;
SET enable_nestloop = off;
EXPLAIN (COSTS OFF) SELECT f.id, o.name FROM fps f JOIN other_fps o ON f.fp = o.fp;
SELECT f.id, o.name FROM fps f JOIN other_fps o ON f.fp = o.fp ORDER BY f.id;
RESET enable_mergejoin;
SET enable_hashjoin = off;
EXPLAIN (COSTS OFF) SELECT f.id, o.name FROM fps f JOIN other_fps o ON f.fp = o.fp;
SELECT f.id, o.name FROM fps f JOIN other_fps o ON f.fp = o.fp ORDER BY f.id;
RESET enable_hashjoin;
RESET enable_nestloop;

-- the hash of a fingerprint is the hash of its bigint cast: the same hash
-- functions as int8, so values hash alike on both sides of the cast
SELECT count(*) FILTER (WHERE simhash64_hash(fp) <> hashint8(fp::bigint)) AS hash_differs,
       count(*) FILTER (WHERE simhash64_hash_extended(fp, 7) <> hashint8extended(fp::bigint, 7)) AS extended_differs
FROM fps WHERE fp IS NOT NULL;

-- every operator class of the extension passes the access method's validator
SELECT opcname, amname, amvalidate(c.oid)
FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod
WHERE opcname LIKE 'simhash%' ORDER BY opcname, amname;
-- and reports classes whose types the scan would misread (they crashed the
-- planner, and passed)
CREATE OPERATOR CLASS bad_ball_ops FOR TYPE simhash64 USING simhash AS OPERATOR 1 = (simhash64, simhash64);
CREATE OPERATOR CLASS text_simhash_ops FOR TYPE text USING simhash AS OPERATOR 2 = (text, text);
CREATE OPERATOR CLASS bad_order_ops FOR TYPE simhash64 USING simhash
  AS OPERATOR 3 <-> (simhash64, simhash64) FOR ORDER BY text_ops;
SET client_min_messages = info;
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'bad_ball_ops';
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'text_simhash_ops';
SELECT amvalidate(oid) FROM pg_opclass WHERE opcname = 'bad_order_ops';
RESET client_min_messages;
-- an index with such a class refuses what it cannot read: the build a column
-- of another type, the scan an argument of another type (it read the
-- fingerprint as a ball's address, and crashed)
CREATE TABLE misread (fp simhash64, body text);
INSERT INTO misread VALUES ('00000000075bcd15', 'a');
CREATE INDEX ON misread USING simhash (body text_simhash_ops);
CREATE INDEX misread_fp ON misread USING simhash (fp bad_ball_ops);
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM misread WHERE fp = '00000000075bcd15';
SELECT * FROM misread WHERE fp = '00000000075bcd15';
SET enable_indexscan = off;
EXPLAIN (COSTS OFF) SELECT * FROM misread WHERE fp = '00000000075bcd15';
SELECT * FROM misread WHERE fp = '00000000075bcd15';
RESET enable_indexscan;
RESET enable_seqscan;
DROP TABLE misread;
DROP OPERATOR FAMILY bad_ball_ops USING simhash;
DROP OPERATOR FAMILY text_simhash_ops USING simhash;
DROP OPERATOR FAMILY bad_order_ops USING simhash;

DROP TABLE fps, unique_fps, other_fps;
