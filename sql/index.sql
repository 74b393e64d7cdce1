-- The simhash index answers exactly what a sequential scan answers: at every
-- radius, on random and clustered data, through every scan kind and both
-- predicate forms, before and after writes. NULLs are not indexed.
SET client_min_messages = warning;

-- Deterministic fingerprints: hashint8extended is stable across platforms.
CREATE FUNCTION fp_of(i int, seed int) RETURNS simhash64
    LANGUAGE sql IMMUTABLE AS $$ SELECT hashint8extended(i, seed)::simhash64 $$;
-- A fingerprint with n low-entropy bit flips of base, picked by i.
CREATE FUNCTION flip(base simhash64, i int, n int) RETURNS simhash64 LANGUAGE sql IMMUTABLE AS $$
    SELECT (base::bigint # coalesce((SELECT bit_or(1::bigint << (abs(hashint4(i * 64 + j)) % 64))
                                     FROM generate_series(1, n) j), 0))::simhash64 $$;

CREATE TABLE docs (id serial PRIMARY KEY, fp simhash64);
-- random
INSERT INTO docs (fp) SELECT fp_of(i, 1) FROM generate_series(1, 3000) i;
-- 400 identical
INSERT INTO docs (fp) SELECT 'aaaabbbbccccdddd'::simhash64 FROM generate_series(1, 400);
-- 1200 sharing a 40-bit prefix
INSERT INTO docs (fp) SELECT ((x'0123456789'::bit(40)::bigint << 24) | (hashint8extended(i, 2) & 16777215))::simhash64
    FROM generate_series(1, 1200) i;
-- near-duplicate families: 30 centers, 20 members each within 1..6 bits
INSERT INTO docs (fp) SELECT flip(fp_of(c, 3), c * 100 + m, 1 + m % 6)
    FROM generate_series(1, 30) c, generate_series(1, 20) m;
INSERT INTO docs (fp) SELECT NULL FROM generate_series(1, 50);

-- Query points: random, the identical value, prefix members, family centers and neighbours.
CREATE TABLE queries (qid int PRIMARY KEY, q simhash64);
INSERT INTO queries SELECT i, fp_of(i, 9) FROM generate_series(1, 6) i;
INSERT INTO queries SELECT 10 + row_number() OVER (ORDER BY id), fp FROM docs WHERE id IN (1, 3001, 3402, 3900, 4700);
INSERT INTO queries VALUES (20, flip('aaaabbbbccccdddd', 1, 2)), (21, flip('aaaabbbbccccdddd', 2, 5));
INSERT INTO queries SELECT 30 + c, flip(fp_of(c, 3), c, c % 4) FROM generate_series(1, 8) c;

-- Runs every (query, k) through one scan kind and predicate form; compares the
-- multiset of fingerprints with a sequential scan's, and reports whether the
-- plan used the scan kind asked for.
CREATE FUNCTION compare_modes(tab text, kmax int)
RETURNS TABLE (mode text, form text, plan_ok bool, matches bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
DECLARE
    sql text;
    line text;
    plan text;
BEGIN
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_indexonlyscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    DROP TABLE IF EXISTS expect;
    EXECUTE format('CREATE TEMP TABLE expect AS SELECT q.qid, k.k, d.fp FROM queries q,
        generate_series(0, %s) k(k), %s d WHERE hamming_distance(d.fp, q.q) <= k.k', kmax, tab);
    FOREACH mode IN ARRAY ARRAY['Index Scan', 'Bitmap Index Scan', 'Index Only Scan'] LOOP
        FOREACH form IN ARRAY ARRAY['ball', 'within'] LOOP
            PERFORM set_config('enable_seqscan', 'off', true);
            -- enable_indexscan = off disables index-only scans too.
            PERFORM set_config('enable_indexscan', (mode <> 'Bitmap Index Scan')::text, true);
            PERFORM set_config('enable_indexonlyscan', (mode = 'Index Only Scan')::text, true);
            PERFORM set_config('enable_bitmapscan', (mode = 'Bitmap Index Scan')::text, true);
            sql := format('SELECT q.qid, k.k, d.fp FROM queries q, generate_series(0, %s) k(k), %s d WHERE %s',
                          kmax, tab, CASE form WHEN 'ball' THEN 'd.fp <@ simhash_ball(q.q, k.k)'
                                              ELSE 'simhash_within(d.fp, q.q, k.k)' END);
            plan := '';
            FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP plan := plan || line || E'\n'; END LOOP;
            plan_ok := position(mode || CASE mode WHEN 'Bitmap Index Scan' THEN ' on' ELSE ' using' END IN plan) > 0;
            DROP TABLE IF EXISTS got;
            EXECUTE 'CREATE TEMP TABLE got AS ' || sql;
            SELECT count(*) INTO matches FROM got;
            SELECT count(*) INTO missing FROM (SELECT * FROM expect EXCEPT ALL SELECT * FROM got) x;
            SELECT count(*) INTO extra FROM (SELECT * FROM got EXCEPT ALL SELECT * FROM expect) x;
            RETURN NEXT;
        END LOOP;
    END LOOP;
END $$;

-- ORDER BY fp <-> q LIMIT n through the index against a sorted sequential
-- scan: the distance sequences must be equal (ties may come in any order).
CREATE FUNCTION compare_knn(tab text, n int) RETURNS TABLE (queries bigint, plan_ok bool, differing bigint)
LANGUAGE plpgsql AS $$
DECLARE
    r record;
    a int[];
    b int[];
    plan text := '';
    line text;
BEGIN
    queries := 0;
    differing := 0;
    FOR r IN SELECT * FROM queries LOOP
        PERFORM set_config('enable_seqscan', 'on', true);
        PERFORM set_config('enable_indexscan', 'off', true);
        PERFORM set_config('enable_indexonlyscan', 'off', true);
        PERFORM set_config('enable_bitmapscan', 'off', true);
        EXECUTE format('SELECT array_agg(d) FROM (SELECT fp <-> $1 AS d FROM %s ORDER BY fp <-> $1 LIMIT %s) x', tab, n)
            INTO a USING r.q;
        PERFORM set_config('enable_seqscan', 'off', true);
        PERFORM set_config('enable_indexscan', 'on', true);
        EXECUTE format('SELECT array_agg(d) FROM (SELECT fp <-> $1 AS d FROM %s ORDER BY fp <-> $1 LIMIT %s) x', tab, n)
            INTO b USING r.q;
        IF plan = '' THEN
            FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %s ORDER BY fp <-> %L::simhash64 LIMIT %s', tab, r.q, n)
            LOOP plan := plan || line; END LOOP;
        END IF;
        queries := queries + 1;
        IF a IS DISTINCT FROM b THEN differing := differing + 1; END IF;
    END LOOP;
    plan_ok := position('Index Scan using' IN plan) > 0 AND position('Order By' IN plan) > 0;
    RETURN NEXT;
END $$;

CREATE INDEX docs_fp ON docs USING simhash (fp);
VACUUM ANALYZE docs;
SELECT max_distance, tables, blocks, prefix_bits, entries, dead_entries FROM simhash_index_info('docs_fp');
SELECT simhash_index_check('docs_fp', true);
SELECT * FROM compare_modes('docs', 12);
SELECT * FROM compare_knn('docs', 25);
SELECT * FROM compare_knn('docs', 700);

-- Radii far beyond the layout are still exact (a sweep of one table).
SET enable_seqscan = off;
SELECT count(*) FROM docs WHERE fp <@ simhash_ball('0000000000000000', 40);
RESET enable_seqscan;
SELECT count(*) FROM docs WHERE bit_count((fp::bigint # 0)::bit(64)) <= 40;
-- NULL query arguments match nothing; NULL rows match no qualifier, but an
-- ORDER BY scan without one returns them last (the index keeps a NULL list).
SET enable_seqscan = off;
SELECT count(*) FROM docs WHERE fp <@ simhash_ball(NULL, 3);
SELECT count(*) FROM docs WHERE fp = 'aaaabbbbccccdddd';
SELECT count(*) FROM (SELECT id FROM docs ORDER BY fp <-> 'aaaabbbbccccdddd' LIMIT 10000) x;
SELECT count(*) FILTER (WHERE fp IS NULL) AS nulls, bool_and(d IS NULL) FILTER (WHERE fp IS NULL) AS null_distance
FROM (SELECT fp, fp <-> 'aaaabbbbccccdddd' AS d FROM docs ORDER BY fp <-> 'aaaabbbbccccdddd' LIMIT 10000 OFFSET 5190) x;
RESET enable_seqscan;

-- Writes after the build: inserts (more of every cluster), updates, deletes, vacuum.
INSERT INTO docs (fp) SELECT fp_of(i, 5) FROM generate_series(1, 2000) i;
INSERT INTO docs (fp) SELECT 'aaaabbbbccccdddd'::simhash64 FROM generate_series(1, 700);
INSERT INTO docs (fp) SELECT flip(fp_of(c, 3), c * 1000 + m, 1 + m % 3) FROM generate_series(1, 30) c, generate_series(1, 10) m;
UPDATE docs SET fp = flip(fp, id, 2) WHERE id % 7 = 0;
INSERT INTO docs (fp) SELECT NULL FROM generate_series(1, 20);
UPDATE docs SET fp = NULL WHERE id % 101 = 0;
SELECT simhash_index_check('docs_fp', true);
DELETE FROM docs WHERE id % 5 = 0;
SELECT dead_entries > 0 AS has_dead FROM simhash_index_info('docs_fp');
VACUUM docs;
SELECT dead_entries, entries = 4 * (SELECT count(fp) FROM docs) AS entries_match FROM simhash_index_info('docs_fp');
SELECT simhash_index_check('docs_fp', true);
SELECT * FROM compare_modes('docs', 8);
SELECT * FROM compare_knn('docs', 25);
-- Space freed by VACUUM is reused: refilling the deleted rows' count adds few pages.
SELECT pages AS before_pages FROM simhash_index_info('docs_fp') \gset
INSERT INTO docs (fp) SELECT fp FROM docs WHERE id % 5 = 1 LIMIT 1500;
SELECT pages - :before_pages < 20 AS reused FROM simhash_index_info('docs_fp');
SELECT simhash_index_check('docs_fp', true);

-- The planner: the index for a small radius, a sequential scan when most rows qualify.
ANALYZE docs;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <@ simhash_ball('0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 3);
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE fp <@ simhash_ball('0123456789abcdef', 40);
EXPLAIN (COSTS OFF) SELECT id FROM docs;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789abcdef' LIMIT 5;
-- A k outside 0..64 is simhash_within's error, raised for a row it compares,
-- as without the index: none on a table with no rows.
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE simhash_within(fp, '0123456789abcdef', 65);
SELECT count(*) FROM docs WHERE simhash_within(fp, '0123456789abcdef', -1);
CREATE TABLE no_docs (fp simhash64);
CREATE INDEX ON no_docs USING simhash (fp);
SELECT count(*) FROM no_docs WHERE simhash_within(fp, '0123456789abcdef', -1);
DROP TABLE no_docs;

-- A self-join: one index probe per outer row, through simhash_within.
EXPLAIN (COSTS OFF) SELECT a.id, b.id FROM docs a JOIN docs b ON simhash_within(a.fp, b.fp, 3) AND a.id < b.id;
SET enable_seqscan = off;
CREATE TEMP TABLE pairs_index AS SELECT a.id AS a, b.id AS b FROM docs a JOIN docs b ON simhash_within(a.fp, b.fp, 3) AND a.id < b.id;
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE pairs_seq AS SELECT a.id AS a, b.id AS b FROM docs a JOIN docs b ON hamming_distance(a.fp, b.fp) <= 3 AND a.id < b.id;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT (SELECT count(*) FROM pairs_seq) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM pairs_seq EXCEPT ALL SELECT * FROM pairs_index) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM pairs_index EXCEPT ALL SELECT * FROM pairs_seq) x) AS extra;
-- ORDER BY without LIMIT through the index: every row, NULL rows last, same as a sort.
SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> 'aaaabbbbccccdddd';
CREATE TEMP TABLE knn_all AS SELECT row_number() OVER () AS r, fp <-> 'aaaabbbbccccdddd' AS d FROM docs ORDER BY fp <-> 'aaaabbbbccccdddd';
RESET enable_seqscan;
RESET enable_sort;
SELECT count(*) = (SELECT count(*) FROM docs) AS all_rows,
       bool_and(d IS NULL) FILTER (WHERE r > (SELECT count(fp) FROM docs)) AS nulls_last,
       array_agg(d ORDER BY r) FILTER (WHERE d IS NOT NULL) =
         (SELECT array_agg(fp <-> 'aaaabbbbccccdddd' ORDER BY fp <-> 'aaaabbbbccccdddd') FROM docs WHERE fp IS NOT NULL) AS same_order
FROM knn_all;
-- Two ORDER BY distances: ties of the first are ordered by the second through
-- the index (plain, index-only, with a qualifier) as through a sort. The scan
-- used to order by the first only.
SET enable_seqscan = off;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd';
CREATE TEMP TABLE knn2 AS SELECT row_number() OVER () AS r, id, fp <-> '0123456789000000' AS d1, fp <-> 'aaaabbbbccccdddd' AS d2
  FROM docs ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd';
EXPLAIN (COSTS OFF) SELECT fp FROM docs ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd';
CREATE TEMP TABLE knn2_only AS SELECT row_number() OVER () AS r, fp <-> '0123456789000000' AS d1, fp <-> 'aaaabbbbccccdddd' AS d2
  FROM (SELECT fp FROM docs ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd') x;
CREATE TEMP TABLE knn2_ball AS SELECT row_number() OVER () AS r, fp <-> '0123456789000000' AS d1, fp <-> 'aaaabbbbccccdddd' AS d2
  FROM docs WHERE fp <@ simhash_ball('0123456789000000', 20) ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd';
RESET enable_seqscan;
RESET enable_sort;
SELECT (SELECT count(*) FROM knn2) = (SELECT count(*) FROM docs) AS all_rows,
       (SELECT array_agg(ARRAY[d1, d2] ORDER BY r) FROM knn2) =
         (SELECT array_agg(ARRAY[fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd']
                           ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd') FROM docs) AS same_order,
       (SELECT array_agg(ARRAY[d1, d2] ORDER BY r) FROM knn2_only) =
         (SELECT array_agg(ARRAY[d1, d2] ORDER BY r) FROM knn2) AS index_only_same_order,
       (SELECT array_agg(ARRAY[d1, d2] ORDER BY r) FROM knn2_ball) =
         (SELECT array_agg(ARRAY[d1, d2] ORDER BY r) FROM knn2 WHERE d1 <= 20) AS qualified_same_order;
-- Left to itself, the planner sorts: the index would collect and sort every row first.
EXPLAIN (COSTS OFF) SELECT id FROM docs ORDER BY fp <-> '0123456789000000', fp <-> 'aaaabbbbccccdddd' LIMIT 5;

-- REINDEX, then the same answers.
REINDEX INDEX docs_fp;
SELECT simhash_index_check('docs_fp', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;

-- VACUUM FULL and CLUSTER write the table anew and rebuild the index on the
-- new TIDs; the index cannot order a table itself (amclusterable is false).
VACUUM FULL docs;
SELECT simhash_index_check('docs_fp', true);
CLUSTER docs USING docs_pkey;
SELECT simhash_index_check('docs_fp', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
CLUSTER docs USING docs_fp;
\echo :LAST_ERROR_SQLSTATE

-- An index created on an empty table, then filled row by row (splits all the way up).
CREATE TABLE grow (id serial PRIMARY KEY, fp simhash64);
CREATE INDEX grow_fp ON grow USING simhash (fp) WITH (max_distance = 0);
SELECT simhash_index_check('grow_fp', true);
INSERT INTO grow (fp) SELECT fp_of(i, 7) FROM generate_series(1, 300000) i;
INSERT INTO grow (fp) SELECT 'aaaabbbbccccdddd'::simhash64 FROM generate_series(1, 3000);
SELECT tables, height >= 3 AS internal_splits, longest_leaf_chain >= 3 AS identical_run FROM simhash_index_info('grow_fp');
SELECT simhash_index_check('grow_fp', true);
SET enable_seqscan = off;
SELECT count(*) FROM grow WHERE fp = 'aaaabbbbccccdddd';
SELECT count(*) FROM grow WHERE fp = fp_of(77777, 7);
SELECT count(*) FROM grow WHERE fp <@ simhash_ball(fp_of(12345, 7), 2);
RESET enable_seqscan;
SELECT count(*) FROM grow WHERE hamming_distance(fp, fp_of(12345, 7)) <= 2;
DROP TABLE grow;

-- Other layouts: max_distance 6 and 32, on the same data.
CREATE INDEX docs_fp6 ON docs USING simhash (fp) WITH (max_distance = 6);
DROP INDEX docs_fp;
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp6');
SELECT simhash_index_check('docs_fp6', true);
SELECT * FROM compare_modes('docs', 8) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
SELECT * FROM compare_knn('docs', 25);
CREATE INDEX docs_fp32 ON docs USING simhash (fp) WITH (max_distance = 32);
DROP INDEX docs_fp6;
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp32');
SELECT simhash_index_check('docs_fp32', true);
SELECT * FROM compare_modes('docs', 4) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
SELECT * FROM compare_knn('docs', 10);
DROP INDEX docs_fp32;
-- Layouts for a spread of max_distance values up to 32 (0, 3 and 6 are
-- built above), on a sample of the same rows (random, identical,
-- prefix-sharing and families), exact at every k up to two above it through
-- every scan kind. (Rows with id % 5 = 0 were deleted above.)
CREATE TABLE docs_sample AS SELECT id, fp FROM docs WHERE id % 20 = 1;
CREATE FUNCTION compare_layouts(ks int[])
RETURNS TABLE (max_distance int, tables int, blocks int, prefix_bits int, k_up_to int, modes bigint, failing bigint)
LANGUAGE plpgsql AS $$
DECLARE
    i int;
BEGIN
    FOREACH i IN ARRAY ks LOOP
        EXECUTE format('CREATE INDEX docs_sample_fp ON docs_sample USING simhash (fp) WITH (max_distance = %s)', i);
        PERFORM simhash_index_check('docs_sample_fp', true);
        SELECT n.max_distance, n.tables, n.blocks, n.prefix_bits INTO max_distance, tables, blocks, prefix_bits
          FROM simhash_index_info('docs_sample_fp') n;
        k_up_to := i + 2;
        SELECT count(*), count(*) FILTER (WHERE NOT c.plan_ok OR c.missing > 0 OR c.extra > 0) INTO modes, failing
          FROM compare_modes('docs_sample', k_up_to) c;
        DROP INDEX docs_sample_fp;
        RETURN NEXT;
    END LOOP;
END $$;
SELECT * FROM compare_layouts(ARRAY[1, 2, 4, 5, 7, 9, 12, 16, 24, 32]);
DROP TABLE docs_sample;

-- Layouts asked for by reloptions (the default picks them from the table's
-- size, unit-tested): at K = 3 the C(5, 3) = 10 tables of 25-bit prefixes and
-- the C(6, 3) = 20 tables of 31 bits; at K = 2 the C(5, 2) = 10 tables of 38
-- bits. Exact at every k in 0..K + 2 through every scan kind, also for rows
-- inserted after the build.
CREATE INDEX docs_fp10 ON docs USING simhash (fp) WITH (tables = 10);
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp10');
SELECT simhash_index_check('docs_fp10', true);
SELECT * FROM compare_modes('docs', 5);
SELECT * FROM compare_knn('docs', 25);
SELECT max(id) AS before_insert FROM docs \gset
INSERT INTO docs (fp) SELECT flip(q, i, 1 + i % 4) FROM queries, generate_series(1, 10) i;
SELECT simhash_index_check('docs_fp10', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
CREATE INDEX docs_fp20 ON docs USING simhash (fp) WITH (max_distance = 3, blocks = 6);
DROP INDEX docs_fp10;
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp20');
SELECT simhash_index_check('docs_fp20', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
SELECT * FROM compare_knn('docs', 25);
CREATE INDEX docs_fp2 ON docs USING simhash (fp) WITH (max_distance = 2, blocks = 5, tables = 10);
DROP INDEX docs_fp20;
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp2');
SELECT simhash_index_check('docs_fp2', true);
SELECT * FROM compare_modes('docs', 4) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
DROP INDEX docs_fp2;
-- Manku's two-level layouts, asked for by their table count: at K = 3 the 16
-- tables of 28 bits (top block, then a group of the blocks outside it), at
-- K = 4 the 25 tables of 18 bits; also for rows inserted after the build.
CREATE INDEX docs_fp16 ON docs USING simhash (fp) WITH (tables = 16);
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp16');
SELECT simhash_index_check('docs_fp16', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
SELECT * FROM compare_knn('docs', 25);
INSERT INTO docs (fp) SELECT flip(q, i + 20, 1 + i % 4) FROM queries, generate_series(1, 10) i;
SELECT simhash_index_check('docs_fp16', true);
SELECT * FROM compare_modes('docs', 5) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
CREATE INDEX docs_fp25 ON docs USING simhash (fp) WITH (max_distance = 4, blocks = 25, tables = 25);
DROP INDEX docs_fp16;
SELECT max_distance, tables, blocks, prefix_bits FROM simhash_index_info('docs_fp25');
SELECT simhash_index_check('docs_fp25', true);
SELECT * FROM compare_modes('docs', 6) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
DROP INDEX docs_fp25;
DELETE FROM docs WHERE id > :before_insert;
VACUUM docs;

-- Reloptions out of range fail at CREATE INDEX.
\set VERBOSITY sqlstate
CREATE INDEX ON docs USING simhash (fp) WITH (max_distance = 33);
CREATE INDEX ON docs USING simhash (fp) WITH (max_distance = -1);
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 34);
CREATE INDEX ON docs USING simhash (fp) WITH (tables = 65);
CREATE INDEX ON docs USING simhash (fp) WITH (width = 4);
CREATE INDEX ON docs USING simhash (fp) WITH (tables = 7);
\set VERBOSITY default
-- Layouts that cannot be: each error names the option (SQLSTATE echoed).
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 3);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 9);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ON docs USING simhash (fp) WITH (tables = 7);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 5, tables = 4);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ON docs USING simhash (fp) WITH (blocks = 5, tables = 16);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX ON docs USING simhash (fp) WITH (max_distance = 5, tables = 36);
\echo :LAST_ERROR_SQLSTATE
CREATE INDEX docs_fp_bad ON docs USING simhash (fp);
ALTER INDEX docs_fp_bad SET (tables = 5);
\echo :LAST_ERROR_SQLSTATE
DROP INDEX docs_fp_bad;
SELECT simhash_index_check('docs_pkey');
-- What the check and the info refuse, and the privileges they ask for,
-- checked before any lock is requested (a user who may not lock the table
-- must not queue for the lock and hold writers up).
CREATE TABLE part_docs (id int, fp simhash64) PARTITION BY RANGE (id);
CREATE TABLE part_docs_1 PARTITION OF part_docs FOR VALUES FROM (0) TO (100);
CREATE INDEX part_docs_fp ON part_docs USING simhash (fp);
INSERT INTO part_docs VALUES (1, 'aaaabbbbccccdddd'), (2, NULL);
SELECT simhash_index_check('part_docs_fp');
SELECT entries FROM simhash_index_info('part_docs_fp');
-- (a failed CREATE INDEX CONCURRENTLY leaves an invalid index)
CREATE FUNCTION fp_or_fail(f simhash64) RETURNS simhash64 IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN IF f = 'aaaabbbbccccdddd' THEN RAISE EXCEPTION 'the build fails on %', f; END IF; RETURN f; END $$;
CREATE INDEX CONCURRENTLY part_docs_bad ON part_docs_1 USING simhash ((fp_or_fail(fp)));
SELECT simhash_index_check('part_docs_bad');
SELECT entries FROM simhash_index_info('part_docs_bad');
DROP INDEX part_docs_bad;
CREATE ROLE regress_simhash_reader;
GRANT SELECT ON part_docs_1 TO regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT entries FROM simhash_index_info('part_docs_1_fp_idx');
SELECT simhash_index_check('part_docs_1_fp_idx');
RESET ROLE;
GRANT UPDATE ON part_docs_1 TO regress_simhash_reader;
SET ROLE regress_simhash_reader;
SELECT simhash_index_check('part_docs_1_fp_idx', true);
RESET ROLE;
DROP TABLE part_docs;
DROP FUNCTION fp_or_fail;
DROP ROLE regress_simhash_reader;
SELECT simhash_index_check(0);
SELECT entries FROM simhash_index_info(0);
-- heapallindexed evaluates the index's expressions as the table's owner, in a
-- restricted context whose settings end with the check: never as the caller.
CREATE ROLE regress_simhash_owner;
CREATE FUNCTION fp_seen(f simhash64) RETURNS simhash64 IMMUTABLE LANGUAGE plpgsql AS $$
BEGIN
  RAISE WARNING 'evaluated as the owner: %', current_user = 'regress_simhash_owner';
  PERFORM set_config('work_mem', '77kB', false);
  RETURN f;
END $$;
CREATE TABLE owned (fp simhash64);
INSERT INTO owned VALUES ('aaaabbbbccccdddd');
CREATE INDEX owned_fp ON owned USING simhash ((fp_seen(fp)));
ALTER TABLE owned OWNER TO regress_simhash_owner;
SET work_mem = '4MB';
SELECT simhash_index_check('owned_fp', true);
SHOW work_mem;
RESET work_mem;
DROP TABLE owned;
DROP FUNCTION fp_seen;
DROP ROLE regress_simhash_owner;
-- heapallindexed finds rows the index lacks: with the index marked not ready
-- (a catalog edit, which commits a relcache invalidation), inserts skip it.
CREATE TABLE missing (id int, fp simhash64);
INSERT INTO missing SELECT i, fp_of(i, 9) FROM generate_series(1, 1000) i;
CREATE INDEX missing_fp ON missing USING simhash (fp);
UPDATE pg_index SET indisready = false WHERE indexrelid = 'missing_fp'::regclass;
INSERT INTO missing VALUES (1001, fp_of(1001, 9));
UPDATE pg_index SET indisready = true WHERE indexrelid = 'missing_fp'::regclass;
SELECT simhash_index_check('missing_fp');
SELECT simhash_index_check('missing_fp', true);
DROP TABLE missing;

-- CREATE INDEX CONCURRENTLY, TRUNCATE, then refill.
CREATE INDEX CONCURRENTLY docs_fpc ON docs USING simhash (fp);
SELECT simhash_index_check('docs_fpc', true);
SELECT * FROM compare_modes('docs', 4) WHERE NOT plan_ok OR missing > 0 OR extra > 0;
REINDEX INDEX CONCURRENTLY docs_fpc;
SELECT simhash_index_check('docs_fpc', true);
TRUNCATE docs;
SELECT entries FROM simhash_index_info('docs_fpc');
INSERT INTO docs (fp) SELECT fp_of(i, 1) FROM generate_series(1, 3000) i;
SELECT simhash_index_check('docs_fpc', true);
SELECT * FROM compare_modes('docs', 4) WHERE NOT plan_ok OR missing > 0 OR extra > 0;

-- An expression index on existing bigint fingerprints.
CREATE TABLE legacy (id int, fp_bigint bigint);
INSERT INTO legacy SELECT i, hashint8extended(i, 1) FROM generate_series(1, 3000) i;
CREATE INDEX legacy_fp ON legacy USING simhash ((fp_bigint::simhash64));
ANALYZE legacy;
EXPLAIN (COSTS OFF) SELECT id FROM legacy WHERE simhash_within(fp_bigint::simhash64, fp_of(17, 1), 3);
SELECT id FROM legacy WHERE simhash_within(fp_bigint::simhash64, fp_of(17, 1), 3);
SELECT simhash_index_check('legacy_fp', true);

-- UNLOGGED tables (the init fork from ambuildempty) and partitioned tables.
CREATE UNLOGGED TABLE scratch (fp simhash64);
CREATE INDEX scratch_fp ON scratch USING simhash (fp);
CREATE INDEX scratch_fp10 ON scratch USING simhash (fp) WITH (tables = 10);
INSERT INTO scratch SELECT fp_of(i, 1) FROM generate_series(1, 2000) i;
SELECT simhash_index_check('scratch_fp', true);
SELECT simhash_index_check('scratch_fp10', true);
SELECT tables, blocks, prefix_bits FROM simhash_index_info('scratch_fp10');
SET enable_seqscan = off;
SELECT count(*) FROM scratch WHERE fp <@ simhash_ball(fp_of(5, 1), 3);
DROP INDEX scratch_fp;
SELECT count(*) FROM scratch WHERE fp <@ simhash_ball(fp_of(5, 1), 3);
RESET enable_seqscan;
CREATE TABLE parts (id int, fp simhash64) PARTITION BY RANGE (id);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (2000);
CREATE TABLE parts_2 PARTITION OF parts FOR VALUES FROM (2000) TO (4000);
CREATE INDEX parts_fp ON parts USING simhash (fp);
INSERT INTO parts SELECT i, fp_of(i, 1) FROM generate_series(0, 3999) i;
ANALYZE parts;
EXPLAIN (COSTS OFF) SELECT id FROM parts WHERE fp <@ simhash_ball(fp_of(2500, 1), 3);
SELECT id FROM parts WHERE fp <@ simhash_ball(fp_of(2500, 1), 3);
SELECT simhash_index_check(c.oid, true) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
    WHERE i.inhparent = 'parts_fp'::regclass;

-- An exclusion constraint on the index: equal fingerprints conflict (23P01),
-- near ones and NULLs do not. Its check passes keys without a subtype (every
-- insert failed with XX000 while the scan required one).
CREATE TABLE excl (id int, fp simhash64, EXCLUDE USING simhash (fp WITH =));
INSERT INTO excl VALUES (1, '0123456789abcdef'), (2, '0123456789abcdee'), (3, NULL), (4, NULL);
INSERT INTO excl VALUES (5, '0123456789abcdef');
INSERT INTO excl VALUES (5, '0123456789abcdef') ON CONFLICT DO NOTHING;
UPDATE excl SET fp = '0123456789abcdef' WHERE id = 2;
SELECT id, fp FROM excl ORDER BY id;
CREATE TABLE excl_later (id int, fp simhash64);
INSERT INTO excl_later VALUES (1, '0123456789abcdef'), (2, '0123456789abcdee');
ALTER TABLE excl_later ADD CONSTRAINT excl_later_fp EXCLUDE USING simhash (fp WITH =);
INSERT INTO excl_later VALUES (3, '0123456789abcdee');
INSERT INTO excl_later VALUES (1, 'ffffffffffffffff'), (1, 'fffffffffffffffe');
ALTER TABLE excl_later DROP CONSTRAINT excl_later_fp;
INSERT INTO excl_later VALUES (4, '0123456789abcdef');
ALTER TABLE excl_later ADD CONSTRAINT excl_later_fp EXCLUDE USING simhash (fp WITH =);
DROP TABLE excl, excl_later;

-- amvalidate passes for the operator class.
SELECT opcname, amvalidate(c.oid) FROM pg_opclass c JOIN pg_am a ON a.oid = c.opcmethod WHERE amname = 'simhash';

DROP TABLE docs, queries, legacy, scratch, parts;
DROP FUNCTION compare_modes, compare_knn, fp_of, flip;
