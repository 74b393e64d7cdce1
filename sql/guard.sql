-- The near-duplicate guard: simhash_guard(), simhash_unguard() and the
-- simhash_reject_near_duplicates() trigger.
CREATE FUNCTION pg_temp.error_of(query text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
  detail text;
BEGIN
  EXECUTE query;
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || SQLERRM || coalesce(E'\n  DETAIL: ' || nullif(detail, ''), '');
END $$;

CREATE TABLE docs (id int PRIMARY KEY, title text, fp simhash64);
SELECT simhash_guard('docs', 'fp');
SELECT tgname, pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'docs'::regclass;
-- a simhash index is created exactly when the access method exists
SELECT (SELECT count(*) FROM pg_am WHERE amname = 'simhash')
     = (SELECT count(*) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
          JOIN pg_am am ON am.oid = c.relam
         WHERE i.indrelid = 'docs'::regclass AND am.amname = 'simhash') AS index_iff_access_method;

INSERT INTO docs VALUES (1, 'one', 'ffff0000ffff0000');
-- distance 3 = k: refused, naming the table, the existing key, fingerprint, distance
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (2, 'two', 'ffff0000ffff0007')$$);
-- distance 4 > k: accepted
INSERT INTO docs VALUES (3, 'three', 'ffff0000ffff00f0');
-- the nearest existing row is named (row 1 at 3, row 3 at 1)
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (4, 'four', 'ffff0000ffff0070')$$);
-- an exact copy
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (4, 'four', 'ffff0000ffff00f0')$$);
-- the error's fields name the table, column and guard, for applications
DO $$
DECLARE t text; c text; n text; s text;
BEGIN
  INSERT INTO docs VALUES (5, 'five', 'ffff0000ffff0001');
EXCEPTION WHEN exclusion_violation THEN
  GET STACKED DIAGNOSTICS t = TABLE_NAME, c = COLUMN_NAME, n = CONSTRAINT_NAME, s = SCHEMA_NAME;
  RAISE NOTICE 'caught: schema %, table %, column %, guard %', s, t, c, n;
END $$;

-- NULL fingerprints pass, any number of them
INSERT INTO docs VALUES (10, 'null a', NULL), (11, 'null b', NULL);
INSERT INTO docs VALUES (12, 'null c', NULL);

-- UPDATE compares with the other rows, never the row itself
UPDATE docs SET fp = 'ffff0000ffff0001' WHERE id = 1;
UPDATE docs SET title = 'one, again' WHERE id = 1;
SELECT pg_temp.error_of($$UPDATE docs SET fp = 'ffff0000ffff00f1' WHERE id = 1$$);
SELECT pg_temp.error_of($$UPDATE docs SET fp = 'ffff0000ffff0003' WHERE id = 10$$);
UPDATE docs SET fp = NULL WHERE id = 3;
UPDATE docs SET fp = 'ffff0000ffff00f0' WHERE id = 10;
-- swapping two rows' fingerprints in one statement passes through a state with
-- a near-duplicate pair: refused (the guard checks each row when it is written)
SELECT pg_temp.error_of($$UPDATE docs SET fp = CASE id WHEN 1 THEN 'ffff0000ffff00f0'::simhash64
                                                   ELSE 'ffff0000ffff0001'::simhash64 END
                          WHERE id IN (1, 10)$$);
-- a deleted row no longer counts
DELETE FROM docs WHERE id = 10;
INSERT INTO docs VALUES (13, 'thirteen', 'ffff0000ffff00f0');

-- within one statement: multi-row INSERT and COPY see their own earlier rows
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (20, 'a', '0000000000000001'), (21, 'b', '0000000000000003')$$);
SELECT count(*) AS none_inserted FROM docs WHERE id IN (20, 21);
COPY docs FROM stdin;
30	copy a	00000000ffff0000
31	copy b	00000000ffff0001
\.
COPY docs FROM stdin;
32	copy c	0f0f0f0f00000000
33	copy d	ffffffff00000000
\.
SELECT id FROM docs WHERE id BETWEEN 30 AND 33 ORDER BY id;
-- and earlier statements of the same transaction
BEGIN;
INSERT INTO docs VALUES (40, 'tx a', '1234123412341234');
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (41, 'tx b', '1234123412341235')$$);
ROLLBACK;
-- also under REPEATABLE READ, where the transaction snapshot is older than the row
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM docs;
INSERT INTO docs VALUES (40, 'tx a', '1234123412341234');
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (41, 'tx b', '1234123412341235')$$);
-- and a near pair within one statement is a plain violation too, not 40001
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (42, 'a', '4321432143214321'), (43, 'b', '4321432143214320')$$);
ROLLBACK;

-- the bucket locks: one per block (k + 1 = 4) of the row, held to the end of
-- the transaction; pg_locks shows them as advisory locks with objsubid 21320
-- and the guarded table's oid as classid. Writing a value locks exclusively,
-- deleting (or keeping) one shares.
CREATE VIEW guard_locks AS
  SELECT mode, count(*) AS locks, bool_and(classid = 'docs'::regclass::oid) AS on_docs
    FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 21320 AND pid = pg_backend_pid()
   GROUP BY mode ORDER BY mode;
BEGIN;
INSERT INTO docs VALUES (45, 'locks', '0123456789abcdef');
SELECT * FROM guard_locks;
ROLLBACK;
BEGIN;
DELETE FROM docs WHERE id = 1;
SELECT * FROM guard_locks;
ROLLBACK;
-- a transaction holding the table against other writers (LOCK TABLE before a
-- bulk load) takes no bucket locks, and is still checked
BEGIN;
LOCK TABLE docs IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO docs VALUES (45, 'locks', '0123456789abcdef');
SELECT * FROM guard_locks;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (46, 'locks', '0123456789abcdee')$$);
ROLLBACK;
-- a transaction writing many rows: past max_locks_per_transaction bucket
-- locks the guard takes the table against other writers instead, so the
-- shared lock table does not overflow ("out of shared memory")
BEGIN;
INSERT INTO docs (id, title, fp)
  SELECT 100000 + i, 'bulk', ('x' || md5(i::text))::bit(64)::bigint::simhash64 FROM generate_series(1, 5000) i;
SELECT sum(locks) <= current_setting('max_locks_per_transaction')::int AS bounded_bucket_locks FROM guard_locks;
SELECT mode FROM pg_locks WHERE locktype = 'relation' AND relation = 'docs'::regclass
   AND pid = pg_backend_pid() AND mode = 'ShareRowExclusiveLock';
-- still checked
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (99999, 'bulk', ('x' || md5('17'))::bit(64)::bigint::simhash64)$$);
ROLLBACK;
-- a lock the transaction already holds does not count again: updating one
-- row 200 times keeps its few bucket locks and never locks the table
BEGIN;
DO $$ BEGIN FOR i IN 1..200 LOOP UPDATE docs SET title = 'again ' || i WHERE id = 1; END LOOP; END $$;
SELECT sum(locks) <= 8 AS few_bucket_locks FROM guard_locks;
SELECT count(*) AS table_locks FROM pg_locks WHERE locktype = 'relation' AND relation = 'docs'::regclass
   AND pid = pg_backend_pid() AND mode = 'ShareRowExclusiveLock';
ROLLBACK;
DROP VIEW guard_locks;

-- k = 0: only exact copies are refused; guarding again replaces the guard
SELECT simhash_guard('docs', 'fp', 0);
SELECT count(*) AS one_guard FROM pg_trigger WHERE tgrelid = 'docs'::regclass AND NOT tgisinternal;
INSERT INTO docs VALUES (50, 'k0 a', 'abcdabcdabcdabcd'), (51, 'k0 b', 'abcdabcdabcdabcc');
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (52, 'k0 c', 'abcdabcdabcdabcd')$$);
-- k = 32, the widest guard
SELECT simhash_guard('docs', 'fp', 32);
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (53, 'k32', 'ffffffffffffffff')$$);
DELETE FROM docs WHERE id >= 50;
SELECT simhash_guard('docs', 'fp');

-- a renamed table: the guard rebuilds its search
ALTER TABLE docs RENAME TO papers;
SELECT pg_temp.error_of($$INSERT INTO papers VALUES (60, 'renamed', 'ffff0000ffff000c')$$);
ALTER TABLE papers RENAME TO docs;

-- bad arguments to simhash_guard
SELECT pg_temp.error_of($$SELECT simhash_guard('docs', 'nope')$$);
SELECT pg_temp.error_of($$SELECT simhash_guard('docs', 'title')$$);
SELECT pg_temp.error_of($$SELECT simhash_guard('docs', 'fp', -1)$$);
SELECT pg_temp.error_of($$SELECT simhash_guard('docs', 'fp', 33)$$);
SELECT pg_temp.error_of($$SELECT simhash_guard('docs', 'fp', NULL)$$);
CREATE VIEW docs_view AS SELECT * FROM docs;
SELECT pg_temp.error_of($$SELECT simhash_guard('docs_view', 'fp')$$);
DROP VIEW docs_view;
-- a domain over simhash64 is a simhash64 column
CREATE DOMAIN fingerprint AS simhash64;
CREATE TABLE dom (fp fingerprint);
SELECT simhash_guard('dom', 'fp');
INSERT INTO dom VALUES ('0000000000000000');
SELECT pg_temp.error_of($$INSERT INTO dom VALUES ('0000000000000100')$$);
-- a domain over a domain over simhash64 too (the guard used to follow one level)
CREATE DOMAIN fingerprint2 AS fingerprint;
CREATE TABLE dom2 (fp fingerprint2);
SELECT simhash_guard('dom2', 'fp');
INSERT INTO dom2 VALUES ('0000000000000000');
SELECT pg_temp.error_of($$INSERT INTO dom2 VALUES ('0000000000000100')$$);
DROP TABLE dom, dom2;
DROP DOMAIN fingerprint2, fingerprint;
-- Two column names longer than a trigger name sharing their first 49 bytes get
-- two guards; a 63-byte cut made them one, and the second call silently
-- replaced the first column's guard.
CREATE TABLE long_names (id int PRIMARY KEY,
  fingerprint_of_the_document_body_text_as_of_version_one simhash64,
  fingerprint_of_the_document_body_text_as_of_version_two simhash64);
SELECT simhash_guard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_one');
SELECT simhash_guard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_two');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'long_names'::regclass ORDER BY tgname;
INSERT INTO long_names VALUES (1, '0000000000000000', '1111111111111111');
SELECT pg_temp.error_of($$INSERT INTO long_names VALUES (2, '0000000000000000', 'ffffffffffffffff')$$);
SELECT pg_temp.error_of($$INSERT INTO long_names VALUES (3, 'ffffffffffffffff', '1111111111111110')$$);
SELECT simhash_unguard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_one');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'long_names'::regclass ORDER BY tgname;
-- A guard that an earlier script named by the plain cut is still found: guarding
-- again replaces it, and unguard removes it.
CREATE TRIGGER simhash_guard_fingerprint_of_the_document_body_text_as_of_versi
  BEFORE INSERT OR UPDATE OR DELETE ON long_names FOR EACH ROW
  EXECUTE FUNCTION simhash_reject_near_duplicates('fingerprint_of_the_document_body_text_as_of_version_one', '3', 'id');
SELECT simhash_guard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_one', 2);
SELECT tgname, encode(tgargs, 'escape') AS args FROM pg_trigger WHERE tgrelid = 'long_names'::regclass ORDER BY tgname;
CREATE TRIGGER simhash_guard_fingerprint_of_the_document_body_text_as_of_versi
  BEFORE INSERT OR UPDATE OR DELETE ON long_names FOR EACH ROW
  EXECUTE FUNCTION simhash_reject_near_duplicates('fingerprint_of_the_document_body_text_as_of_version_one', '3', 'id');
SELECT simhash_unguard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_one');
SELECT simhash_unguard('long_names', 'fingerprint_of_the_document_body_text_as_of_version_one');
SELECT tgname FROM pg_trigger WHERE tgrelid = 'long_names'::regclass ORDER BY tgname;
DROP TABLE long_names;
-- A trigger of the user's own with the guard's name is neither replaced nor dropped.
CREATE TABLE own_trigger (id int, fp simhash64);
CREATE FUNCTION pg_temp.keep_row() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END';
CREATE TRIGGER simhash_guard_fp BEFORE INSERT ON own_trigger FOR EACH ROW EXECUTE FUNCTION pg_temp.keep_row();
SELECT pg_temp.error_of($$SELECT simhash_guard('own_trigger', 'fp')$$);
SELECT pg_temp.error_of($$SELECT simhash_unguard('own_trigger', 'fp')$$);
SELECT count(*) FROM pg_trigger WHERE tgrelid = 'own_trigger'::regclass AND tgname = 'simhash_guard_fp';
DROP TABLE own_trigger;
-- Triggers are not inherited: a table with inheritance children is refused
-- (writes to a child were never checked); a child alone can be guarded.
CREATE TABLE ancestor (id int, fp simhash64);
CREATE TABLE descendant () INHERITS (ancestor);
SELECT pg_temp.error_of($$SELECT simhash_guard('ancestor', 'fp')$$);
SELECT simhash_guard('descendant', 'fp');
DROP TABLE ancestor CASCADE;

-- bad arguments to the trigger itself: an error when it first fires
CREATE TABLE raw (id int, fp simhash64, note text);
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates();
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('nope');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('note');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '33');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', 'three');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '2', 'missing_key');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t AFTER INSERT ON raw FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
CREATE TRIGGER t BEFORE INSERT ON raw FOR EACH STATEMENT EXECUTE FUNCTION simhash_reject_near_duplicates('fp');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (1, '0000000000000000')$$);
DROP TRIGGER t ON raw;
SELECT pg_temp.error_of($$SELECT simhash_reject_near_duplicates()$$);
-- by hand, with two key columns and k = 1
CREATE TRIGGER t BEFORE INSERT OR UPDATE ON raw FOR EACH ROW
  EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '1', 'id', 'note');
INSERT INTO raw VALUES (1, '0000000000000000', 'first'), (2, '0000000000000003', 'second');
SELECT pg_temp.error_of($$INSERT INTO raw VALUES (3, '0000000000000002', 'third')$$);
-- a table without a key: no key in the detail
CREATE TABLE nokey (fp simhash64);
SELECT simhash_guard('nokey', 'fp');
INSERT INTO nokey VALUES ('0000000000000000');
SELECT pg_temp.error_of($$INSERT INTO nokey VALUES ('0000000000000001')$$);
DROP TABLE nokey;

-- partitions: a row is compared with every partition of the guarded table
CREATE TABLE parts (id int, fp simhash64, PRIMARY KEY (id)) PARTITION BY RANGE (id);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (100);
CREATE TABLE parts_2 PARTITION OF parts FOR VALUES FROM (100) TO (200);
SELECT simhash_guard('parts', 'fp');
INSERT INTO parts VALUES (1, 'aaaaaaaaaaaaaaaa');
SELECT pg_temp.error_of($$INSERT INTO parts VALUES (101, 'aaaaaaaaaaaaaaab')$$);
-- directly into the partition too
SELECT pg_temp.error_of($$INSERT INTO parts_2 VALUES (102, 'aaaaaaaaaaaaaaab')$$);
-- and within one multi-row statement routed to two partitions
SELECT pg_temp.error_of($$INSERT INTO parts VALUES (2, '5555555555555555'), (103, '5555555555555554')$$);
INSERT INTO parts VALUES (2, '5555555555555555'), (103, '1111111111111111');
-- a partition created later is guarded as well
CREATE TABLE parts_3 PARTITION OF parts FOR VALUES FROM (200) TO (300);
SELECT pg_temp.error_of($$INSERT INTO parts VALUES (201, '1111111111111110')$$);
-- moving a row to another partition compares it with the others, not itself
UPDATE parts SET id = 150 WHERE id = 1;
SELECT pg_temp.error_of($$UPDATE parts SET fp = 'aaaaaaaaaaaaaaab' WHERE id = 2$$);
SELECT tableoid::regclass, id, fp FROM parts ORDER BY id;
-- LOCK TABLE ONLY on the parent leaves the partitions open to writers: the
-- guard still takes bucket locks; LOCK TABLE on the whole tree, none
BEGIN;
LOCK TABLE ONLY parts IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO parts VALUES (3, '7777777777777777');
SELECT count(*) > 0 AS bucket_locks FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 21320 AND pid = pg_backend_pid();
ROLLBACK;
BEGIN;
LOCK TABLE parts IN SHARE ROW EXCLUSIVE MODE;
INSERT INTO parts VALUES (3, '7777777777777777');
SELECT count(*) AS bucket_locks FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 21320 AND pid = pg_backend_pid();
ROLLBACK;
-- the bucket lock budget is the transaction's, over all guarded tables: 10
-- rows into docs, then 10 into parts pass max_locks_per_transaction (64)
-- together, and parts is locked against writers instead
BEGIN;
INSERT INTO docs (id, title, fp)
  SELECT 300000 + i, 'budget', ('x' || md5('docs' || i))::bit(64)::bigint::simhash64 FROM generate_series(1, 10) i;
INSERT INTO parts
  SELECT 210 + i, ('x' || md5('parts' || i))::bit(64)::bigint::simhash64 FROM generate_series(1, 10) i;
SELECT count(*) <= current_setting('max_locks_per_transaction')::int AS bounded_bucket_locks
  FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 21320 AND pid = pg_backend_pid();
SELECT relation::regclass, mode FROM pg_locks WHERE locktype = 'relation' AND pid = pg_backend_pid()
   AND mode = 'ShareRowExclusiveLock' AND relation IN ('docs'::regclass, 'parts'::regclass) ORDER BY 1;
ROLLBACK;

-- privileges: the DETAIL shows only the values the user may read
CREATE ROLE regress_guard_writer;
CREATE ROLE regress_guard_reader;
GRANT INSERT ON docs TO regress_guard_writer, regress_guard_reader;
GRANT SELECT (title) ON docs TO regress_guard_writer;
GRANT SELECT (id, fp) ON docs TO regress_guard_reader;
SET ROLE regress_guard_writer;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (70, 'w', 'ffff0000ffff0002')$$);
SET ROLE regress_guard_reader;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (70, 'r', 'ffff0000ffff0002')$$);
RESET ROLE;
GRANT SELECT (id) ON docs TO regress_guard_writer;
SET ROLE regress_guard_writer;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (70, 'w', 'ffff0000ffff0002')$$);
RESET ROLE;

-- row-level security: the check sees the rows a policy hides; the DETAIL shows nothing
ALTER TABLE docs ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_titles ON docs FOR SELECT USING (title = 'mine');
CREATE POLICY writes ON docs FOR INSERT WITH CHECK (true);
GRANT SELECT ON docs TO regress_guard_reader;
SET ROLE regress_guard_reader;
SELECT count(*) AS visible_rows FROM docs;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (70, 'mine', 'ffff0000ffff0002')$$);
INSERT INTO docs VALUES (71, 'mine', '7777777777777777');
RESET ROLE;
-- FORCE ROW LEVEL SECURITY makes the owner subject to policies; the guard still sees all
ALTER TABLE docs FORCE ROW LEVEL SECURITY;
CREATE ROLE regress_guard_owner;
ALTER TABLE docs OWNER TO regress_guard_owner;
SET ROLE regress_guard_owner;
SELECT count(*) AS owner_visible_rows FROM docs;
SELECT pg_temp.error_of($$INSERT INTO docs VALUES (72, 'mine', 'ffff0000ffff0002')$$);
RESET ROLE;
ALTER TABLE docs NO FORCE ROW LEVEL SECURITY;
ALTER TABLE docs DISABLE ROW LEVEL SECURITY;
ALTER TABLE docs OWNER TO CURRENT_USER;

-- unguard removes the guard (the index stays); a second unguard is an error
SELECT simhash_unguard('docs', 'fp');
SELECT count(*) AS guards FROM pg_trigger WHERE tgrelid = 'docs'::regclass AND NOT tgisinternal;
INSERT INTO docs VALUES (80, 'unguarded', 'ffff0000ffff0002');
SELECT pg_temp.error_of($$SELECT simhash_unguard('docs', 'fp')$$);
SELECT pg_temp.error_of($$SELECT simhash_unguard('docs', 'title')$$);
SELECT simhash_unguard('parts', 'fp');
-- unguarding a partition's cloned trigger is refused: it belongs to the parent
SELECT simhash_guard('parts', 'fp');
SELECT pg_temp.error_of($$SELECT simhash_unguard('parts_1', 'fp')$$);
-- and so is guarding it again (it reported the clone as a trigger of the user's)
SELECT pg_temp.error_of($$SELECT simhash_guard('parts_1', 'fp')$$);
-- a partition of a partition: the owner named is the table that was guarded
CREATE TABLE parts_9 PARTITION OF parts FOR VALUES FROM (900) TO (1000) PARTITION BY RANGE (id);
CREATE TABLE parts_9a PARTITION OF parts_9 FOR VALUES FROM (900) TO (950);
SELECT pg_temp.error_of($$SELECT simhash_unguard('parts_9a', 'fp')$$);
SELECT simhash_guard_owner('parts_9a', 'fp') AS leaf, simhash_guard_owner('parts_9', 'fp') AS middle,
       simhash_guard_owner('parts', 'fp') AS guarded, simhash_guard_owner('parts_9a', 'id') AS other_column;
DROP TABLE parts_9;

-- the guard's search uses a simhash index when there is one (no sequential
-- scan of the table per row), and scans the table without one
CREATE TABLE planned (id int PRIMARY KEY, fp simhash64);
SELECT simhash_guard('planned', 'fp');
INSERT INTO planned SELECT i, ('x' || md5(i::text))::bit(64)::bigint::simhash64 FROM generate_series(1, 2000) i;
ANALYZE planned;
SELECT pg_stat_force_next_flush();
SELECT seq_scan AS seq_before FROM pg_stat_user_tables WHERE relid = 'planned'::regclass \gset
INSERT INTO planned SELECT i, ('x' || md5(i::text))::bit(64)::bigint::simhash64 FROM generate_series(3001, 3010) i;
SELECT pg_stat_force_next_flush();
SELECT (seq_scan = :seq_before) = EXISTS (SELECT FROM pg_am WHERE amname = 'simhash') AS index_used_iff_present
  FROM pg_stat_user_tables WHERE relid = 'planned'::regclass;
SELECT pg_catalog.format('DROP INDEX %s', i.indexrelid::regclass)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
 WHERE i.indrelid = 'planned'::regclass AND a.amname = 'simhash' \gexec
SELECT seq_scan AS seq_before FROM pg_stat_user_tables WHERE relid = 'planned'::regclass \gset
INSERT INTO planned SELECT i, ('x' || md5(i::text))::bit(64)::bigint::simhash64 FROM generate_series(5001, 5010) i;
SELECT pg_stat_force_next_flush();
SELECT seq_scan - :seq_before AS seq_scans_without_index FROM pg_stat_user_tables WHERE relid = 'planned'::regclass;
DROP TABLE planned;

-- A fingerprint in a stored generated column: PostgreSQL computes it only after
-- BEFORE ROW triggers, so the guard evaluates the generation expression itself.
CREATE TABLE generated_docs (id int PRIMARY KEY, body text,
                             fp simhash64 GENERATED ALWAYS AS (simhash(body)) STORED);
SELECT simhash_guard('generated_docs', 'fp', 3);
INSERT INTO generated_docs (id, body) VALUES
  (1, 'the quick brown fox jumps over the lazy dog near the river bank today'),
  (2, 'an entirely different sentence about databases indexes and query planning');
INSERT INTO generated_docs (id, body)
  VALUES (3, 'the quick brown fox jumps over the lazy dog near the river bank today');
UPDATE generated_docs SET body = 'the quick brown fox jumps over the lazy dog near the river bank today'
 WHERE id = 2;
UPDATE generated_docs SET body = body || ' again' WHERE id = 1;
SELECT id, fp = simhash(body) AS fp_matches_body FROM generated_docs ORDER BY id;
DROP TABLE generated_docs;

DROP TABLE docs, raw, parts;
DROP ROLE regress_guard_writer, regress_guard_reader, regress_guard_owner;
