-- Beyond max_distance the index still probes where that reads less than a
-- sweep of one table: in each table, every prefix within the slack of the
-- query's (docs/index-design.md, "Probes beyond max_distance"). Answers must
-- equal a sequential scan's at each radius the probes serve and where the
-- sweep takes over, through every scan kind and both predicate forms, on
-- random and clustered rows; and the probes must read far fewer pages than
-- the sweep they replace.
SET client_min_messages = warning;

CREATE TABLE far (id serial, fp simhash64);
-- 110,000 random rows, about 140 leaves a table: enough that the 68 probes
-- of radii 4 to 7 read less than half a sweep.
INSERT INTO far (fp) SELECT hashint8extended(i, 31)::simhash64 FROM generate_series(1, 110000) i;
-- 40 families of 100 rows, 1 to 16 bits from their centre (not stored).
INSERT INTO far (fp)
    SELECT (hashint8extended(c, 32) # (SELECT bit_or(1::bigint << (abs(hashint4(c * 10000 + m * 20 + j)) % 64))
                                       FROM generate_series(1, 1 + m % 16) j))::simhash64
    FROM generate_series(1, 40) c, generate_series(1, 100) m;
-- 600 copies of one value, and 2,000 rows sharing its top 40 bits.
INSERT INTO far (fp) SELECT 'c0ffee1234567890'::simhash64 FROM generate_series(1, 600);
INSERT INTO far (fp) SELECT (('c0ffee1234567890'::simhash64::bigint & ~16777215::bigint)
                             | (hashint8extended(i, 33) & 16777215))::simhash64 FROM generate_series(1, 2000) i;
INSERT INTO far (fp) SELECT NULL FROM generate_series(1, 20);
CREATE INDEX far_fp ON far USING simhash (fp);
VACUUM ANALYZE far;
SELECT max_distance, tables, prefix_bits, pages > 4 * 140 AS enough_leaves FROM simhash_index_info('far_fp');

-- Family centres, centres with 3 flips, the copied value with 5, random values.
CREATE TABLE farq (qid int, q simhash64);
INSERT INTO farq SELECT c, hashint8extended(c, 32)::simhash64 FROM generate_series(1, 4) c;
INSERT INTO farq SELECT 10 + c, (hashint8extended(c, 32) # (1::bigint << c) # (1::bigint << (c + 20))
                                 # (1::bigint << (c + 40)))::simhash64 FROM generate_series(5, 8) c;
INSERT INTO farq VALUES (20, ('c0ffee1234567890'::simhash64::bigint # (31::bigint << 30))::simhash64);
INSERT INTO farq SELECT 30 + i, hashint8extended(i, 34)::simhash64 FROM generate_series(1, 3) i;

-- Every (query, k) for k in kmin..kmax through one scan kind and predicate
-- form, against a sequential scan: rows missing and extra, and whether the
-- plan used the scan kind asked for.
CREATE FUNCTION far_compare(kmin int, kmax int)
RETURNS TABLE (mode text, form text, plan_ok bool, matches bigint, missing bigint, extra bigint)
LANGUAGE plpgsql AS $$
DECLARE
    sql text;
    line text;
    plan text;
BEGIN
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    PERFORM set_config('enable_bitmapscan', 'off', true);
    DROP TABLE IF EXISTS far_expect;
    CREATE TEMP TABLE far_expect AS SELECT q.qid, k.k, f.id, f.fp FROM farq q, generate_series(kmin, kmax) k(k), far f
        WHERE hamming_distance(f.fp, q.q) <= k.k;
    FOREACH mode IN ARRAY ARRAY['Index Scan', 'Bitmap Index Scan', 'Index Only Scan'] LOOP
        FOREACH form IN ARRAY ARRAY['ball', 'within'] LOOP
            PERFORM set_config('enable_seqscan', 'off', true);
            PERFORM set_config('enable_indexscan', (mode <> 'Bitmap Index Scan')::text, true);
            PERFORM set_config('enable_indexonlyscan', (mode = 'Index Only Scan')::text, true);
            PERFORM set_config('enable_bitmapscan', (mode = 'Bitmap Index Scan')::text, true);
            sql := format('SELECT q.qid, k.k, %s, f.fp FROM farq q, generate_series(%s, %s) k(k), far f WHERE %s',
                          CASE mode WHEN 'Index Only Scan' THEN '0' ELSE 'f.id' END, kmin, kmax,
                          CASE form WHEN 'ball' THEN 'f.fp <@ simhash_ball(q.q, k.k)'
                                    ELSE 'simhash_within(f.fp, q.q, k.k)' END);
            plan := '';
            FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP plan := plan || line || E'\n'; END LOOP;
            plan_ok := position(mode || CASE mode WHEN 'Bitmap Index Scan' THEN ' on' ELSE ' using' END IN plan) > 0;
            DROP TABLE IF EXISTS far_got;
            EXECUTE 'CREATE TEMP TABLE far_got AS ' || sql;
            SELECT count(*) INTO matches FROM far_got;
            IF mode = 'Index Only Scan' THEN
                SELECT count(*) INTO missing FROM (SELECT qid, k, 0, fp FROM far_expect EXCEPT ALL SELECT * FROM far_got) x;
                SELECT count(*) INTO extra FROM (SELECT * FROM far_got EXCEPT ALL SELECT qid, k, 0, fp FROM far_expect) x;
            ELSE
                SELECT count(*) INTO missing FROM (SELECT * FROM far_expect EXCEPT ALL SELECT * FROM far_got) x;
                SELECT count(*) INTO extra FROM (SELECT * FROM far_got EXCEPT ALL SELECT * FROM far_expect) x;
            END IF;
            RETURN NEXT;
        END LOOP;
    END LOOP;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'on', true);
    PERFORM set_config('enable_indexonlyscan', 'on', true);
    PERFORM set_config('enable_bitmapscan', 'on', true);
END $$;

-- Index pages a bitmap scan at radius k reads for query q.
CREATE FUNCTION far_index_pages(q simhash64, k int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    PERFORM set_config('enable_indexscan', 'off', true);
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) SELECT count(*) FROM far WHERE fp <@ simhash_ball($1, $2)'
        INTO plan USING q, k;
    PERFORM set_config('enable_seqscan', 'on', true);
    PERFORM set_config('enable_indexscan', 'on', true);
    RETURN (SELECT sum((n ->> 'Shared Hit Blocks')::bigint + (n ->> 'Shared Read Blocks')::bigint)
            FROM jsonb_path_query(plan, 'strict $.**') n WHERE n ->> 'Index Name' = 'far_fp');
END $$;

-- Radii 4 to 7: one flip of each table's 16-bit prefix (17 probes a table);
-- from 8 (137 probes a table) a sweep of table 0 reads less at this size.
SELECT * FROM far_compare(4, 7);
SELECT * FROM far_compare(8, 9);
-- The probes of radius 6 read about 16 leaves a table; a sweep, all of table 0's.
SELECT qid, far_index_pages(q, 3) < 20 AS k3_few, far_index_pages(q, 6) < 100 AS k6_few,
       far_index_pages(q, 8) > 130 AS k8_sweeps
FROM farq WHERE qid IN (1, 31) ORDER BY qid;
-- Two, three and four flips (radii 8 to 19), which pay from a million rows,
-- forced on this table by a setting for tests.
SET simhash.test_probe_always = on;
SELECT * FROM far_compare(8, 19);
SELECT qid, far_index_pages(q, 9) > 300 AS k9_probes FROM farq WHERE qid = 1;  -- 548 probes, not a sweep
RESET simhash.test_probe_always;

-- Nearest first, within k bits (NULL: no qualifier): within 6 bits the
-- probes of radius 6, then nothing more; without a qualifier the probes of
-- one flip reach 7 bits, then the sweeps. The distances must be those of a
-- sort of the rows.
CREATE FUNCTION far_knn(k int, n int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r record; a int[]; b int[]; once bool; differing bigint := 0;
BEGIN
    FOR r IN SELECT q FROM farq LOOP
        PERFORM set_config('enable_indexscan', 'off', true);
        SELECT array_agg(d ORDER BY d) INTO a
            FROM (SELECT hamming_distance(fp, r.q) AS d FROM far WHERE k IS NULL OR hamming_distance(fp, r.q) <= k
                  ORDER BY 1 LIMIT n) s;
        PERFORM set_config('enable_indexscan', 'on', true);
        PERFORM set_config('enable_seqscan', 'off', true);
        -- (Ties come in any order: the distances must match, and no row come twice.)
        IF k IS NULL THEN
            SELECT array_agg(d), count(DISTINCT id) = count(*) INTO b, once
                FROM (SELECT fp <-> r.q AS d, id FROM far ORDER BY fp <-> r.q LIMIT n) s;
        ELSE
            SELECT array_agg(d), count(DISTINCT id) = count(*) INTO b, once
                FROM (SELECT fp <-> r.q AS d, id FROM far WHERE fp <@ simhash_ball(r.q, k) ORDER BY fp <-> r.q LIMIT n) s;
        END IF;
        PERFORM set_config('enable_seqscan', 'on', true);
        IF a IS DISTINCT FROM b OR NOT once THEN differing := differing + 1; END IF;
    END LOOP;
    RETURN differing;
END $$;
SELECT far_knn(6, 25) AS differing_k6, far_knn(9, 300) AS differing_k9, far_knn(12, 25) AS differing_k12,
       far_knn(NULL, 10) AS differing_nearest_10, far_knn(NULL, 400) AS differing_nearest_400;
EXPLAIN (COSTS OFF) SELECT id FROM far ORDER BY fp <-> '0123456789abcdef' LIMIT 10;
-- The 10 nearest of query 20 are 5 bits away (the 600 copies): the probes
-- find them, with no sweep of table 0's 140 leaves.
CREATE FUNCTION far_order_pages(q simhash64, lim int) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE plan jsonb;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, COSTS OFF, TIMING OFF, FORMAT JSON) SELECT id FROM far ORDER BY fp <-> $1 LIMIT $2'
        INTO plan USING q, lim;
    RETURN (SELECT sum((n ->> 'Shared Hit Blocks')::bigint + (n ->> 'Shared Read Blocks')::bigint)
            FROM jsonb_path_query(plan, 'strict $.**') n WHERE n ->> 'Index Name' = 'far_fp');
END $$;
SELECT min(hamming_distance(f.fp, q.q)) AS nearest, far_order_pages(q.q, 10) < 100 AS no_sweep
FROM farq q, far f WHERE q.qid = 20 GROUP BY q.q;
-- Where random values would have 16 rows within a radius the probes pay for
-- (15 bits at 10M rows), the batches widen to it before the
-- sweeps. Told the index holds 10M rows, and with the probes forced, the
-- scan takes that stage here (its 2,788 probes read thousands of pages; the
-- sweep, 140) and still orders exactly; with the index's own row count,
-- and probes only where they pay, it does not.
SELECT reltuples AS far_fp_rows FROM pg_class WHERE oid = 'far_fp'::regclass \gset
SET simhash.test_probe_always = on;
UPDATE pg_class SET reltuples = 1e7 WHERE oid = 'far_fp'::regclass;
SELECT far_order_pages(q, 10) > 2000 AS batch_stage FROM farq WHERE qid = 31;
SELECT far_knn(NULL, 10) AS differing_nearest_10, far_knn(NULL, 400) AS differing_nearest_400;
UPDATE pg_class SET reltuples = :far_fp_rows WHERE oid = 'far_fp'::regclass;
RESET simhash.test_probe_always;
SELECT far_order_pages(q, 10) < 1000 AS no_batch_stage FROM farq WHERE qid = 31;

-- The planner takes the index for radii the probes serve, a sequential scan
-- where most rows match.
EXPLAIN (COSTS OFF) SELECT count(*) FROM far WHERE fp <@ simhash_ball('0123456789abcdef', 6);
EXPLAIN (COSTS OFF) SELECT count(*) FROM far WHERE fp <@ simhash_ball('0123456789abcdef', 30);

-- The guard's search runs under a dirty snapshot (SnapshotSelf), which sees
-- rows that may be in some tables only, so its probes report each copy and
-- the scan drops the repeats: a trigger at 6 bits on an index of 3 probes.
CREATE TABLE farg (id int PRIMARY KEY, fp simhash64);
INSERT INTO farg SELECT id, fp FROM far WHERE fp IS NOT NULL;
CREATE INDEX farg_fp ON farg USING simhash (fp);
ANALYZE farg;
CREATE TRIGGER farg_near BEFORE INSERT OR UPDATE ON farg
    FOR EACH ROW EXECUTE FUNCTION simhash_reject_near_duplicates('fp', '6', 'id');
SET enable_seqscan = off;
-- 6 bits from row 777 and from nothing nearer: rejected, naming it.
SELECT min(hamming_distance(fp, ((SELECT fp FROM farg WHERE id = 777)::bigint # (63::bigint << 20))::simhash64))
    AS nearest FROM farg;
INSERT INTO farg VALUES (-1, ((SELECT fp FROM farg WHERE id = 777)::bigint # (63::bigint << 20))::simhash64);
-- 7 bits from row 778 and more from every other: accepted.
SELECT count(*) AS within_6 FROM farg
    WHERE hamming_distance(fp, ((SELECT fp FROM farg WHERE id = 778)::bigint # (127::bigint << 30))::simhash64) <= 6;
INSERT INTO farg VALUES (-2, ((SELECT fp FROM farg WHERE id = 778)::bigint # (127::bigint << 30))::simhash64);
RESET enable_seqscan;
SELECT count(*) AS inserted FROM farg WHERE id < 0;

-- The other layouts' probes, forced at every radius they allow: 10 tables of
-- 25-26 bits (two blocks of five lead each: one flip at k = 4, two at 5-7),
-- and Manku's 16 tables of 28 bits (one flip at 4-7).
SET simhash.test_probe_always = on;
DROP INDEX far_fp;
CREATE INDEX far_fp ON far USING simhash (fp) WITH (tables = 10);
SELECT max_distance, tables, prefix_bits FROM simhash_index_info('far_fp');
SELECT * FROM far_compare(4, 7);
SELECT qid, far_index_pages(q, 5) > 1000 AS k5_probes FROM farq WHERE qid = 1;  -- about 3,400 probes
DROP INDEX far_fp;
CREATE INDEX far_fp ON far USING simhash (fp) WITH (tables = 16);
SELECT max_distance, tables, prefix_bits FROM simhash_index_info('far_fp');
SELECT * FROM far_compare(4, 7);
SELECT qid, far_index_pages(q, 5) > 300 AS k5_probes FROM farq WHERE qid = 1;  -- 464 probes
RESET simhash.test_probe_always;
DROP INDEX far_fp;
CREATE INDEX far_fp ON far USING simhash (fp);

-- After deletes, VACUUM and inserts the probes stay exact.
DELETE FROM far WHERE id % 5 = 0;
VACUUM far;
INSERT INTO far (fp) SELECT (q::bigint # (1::bigint << (g % 64)) # (1::bigint << (g * 11 % 64))
                             # (1::bigint << (g * 29 % 64)) # (1::bigint << (g * 37 % 64)))::simhash64
    FROM farq, generate_series(1, 300) g;
SELECT * FROM far_compare(5, 9);
SELECT simhash_index_check('far_fp', true);
