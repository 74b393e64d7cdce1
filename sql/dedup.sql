-- Whole-table deduplication: simhash_near_pairs and simhash_clusters against
-- brute-force self-joins, on random and clustered data, at several k.

-- Random 64-bit fingerprints (md5 of the id), and clustered ones: families of a
-- centre and copies a few bit flips away, exact copies, a shared 16-bit prefix.
CREATE TABLE dedup_random AS
SELECT g AS id, ('x' || substr(md5(g::text), 1, 16))::bit(64)::bigint::simhash64 AS fp
FROM generate_series(1, 2000) g;

CREATE TABLE dedup_clustered AS
SELECT row_number() OVER (ORDER BY md5(f::text || '/' || m::text))::int AS id,
       (((('x' || substr(md5('c' || f), 1, 12))::bit(48)::bigint) | (4660::bigint << 48))
        # CASE WHEN m % 3 = 0 THEN 0 ELSE 1::bigint << (('x' || substr(md5(f || 'a' || m), 1, 2))::bit(8)::int % 48) END
        # CASE WHEN m % 4 < 2 THEN 0 ELSE 1::bigint << (('x' || substr(md5(f || 'b' || m), 1, 2))::bit(8)::int % 64) END
        # CASE WHEN m % 5 < 3 THEN 0 ELSE 1::bigint << (('x' || substr(md5(f || 'c' || m), 1, 2))::bit(8)::int % 64) END
       )::simhash64 AS fp
FROM generate_series(1, 500) f, generate_series(1, 1 + f % 6) m;

-- Pairs: the same multiset as the brute-force self-join (key_a is the earlier
-- row of the query, here the smaller id), at every k tried. The self-join runs
-- once per table, at the largest k.
CREATE TABLE dedup_brute AS
SELECT 'dedup_random' AS tbl, a.id AS a, b.id AS b, a.fp <-> b.fp AS d
FROM dedup_random a JOIN dedup_random b ON a.id < b.id AND a.fp <-> b.fp <= 12
UNION ALL
SELECT 'dedup_clustered', a.id, b.id, a.fp <-> b.fp
FROM dedup_clustered a JOIN dedup_clustered b ON a.id < b.id AND a.fp <-> b.fp <= 8;

CREATE FUNCTION dedup_compare(tbl text, k int, OUT k_ int, OUT fast bigint, OUT brute bigint,
                              OUT extra bigint, OUT missing bigint) AS $$
BEGIN
    k_ := k;
    CREATE TEMP TABLE dedup_fast AS
        SELECT key_a::int AS a, key_b::int AS b, distance AS d
        FROM simhash_near_pairs(format('SELECT id, fp FROM %I ORDER BY id', tbl), k);
    CREATE TEMP TABLE dedup_expected AS SELECT x.a, x.b, x.d FROM dedup_brute x WHERE x.tbl = $1 AND x.d <= k;
    SELECT count(*) INTO fast FROM dedup_fast;
    SELECT count(*) INTO brute FROM dedup_expected;
    SELECT count(*) INTO extra FROM (TABLE dedup_fast EXCEPT ALL TABLE dedup_expected) x;
    SELECT count(*) INTO missing FROM (TABLE dedup_expected EXCEPT ALL TABLE dedup_fast) x;
    DROP TABLE dedup_fast, dedup_expected;
END $$ LANGUAGE plpgsql;

SELECT (dedup_compare('dedup_random', k)).* FROM unnest(ARRAY[0, 3, 8, 12]) k;
SELECT (dedup_compare('dedup_clustered', k)).* FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 8]) k;

-- Identical fingerprints under different keys are all reported (seomoz
-- simhash-cpp issue 53 loses them); keys of any type come back as text.
CREATE TABLE dedup_same (name text, fp simhash64);
INSERT INTO dedup_same VALUES ('a', '0123456789abcdef'), ('b', '0123456789abcdef'), ('c', '0123456789abcdef'),
    ('d''quote', '0123456789abcdee'), ('far', 'fedcba9876543210'), ('no fingerprint', NULL);
SELECT * FROM simhash_near_pairs('SELECT name, fp FROM dedup_same ORDER BY name') ORDER BY 1, 2;
SELECT * FROM simhash_near_pairs('SELECT name, fp FROM dedup_same ORDER BY name', 0) ORDER BY 1, 2;
-- A bigint fingerprint column, a composite key, an empty query.
SELECT * FROM simhash_near_pairs('SELECT (name, 1), fp::bigint FROM dedup_same ORDER BY name DESC', 0) ORDER BY 1, 2;
SELECT count(*) FROM simhash_near_pairs('SELECT name, fp FROM dedup_same WHERE false');

-- Clusters: connected components of the within-k graph, against a recursive
-- brute force; the representative is the cluster's first row in query order.
CREATE FUNCTION dedup_components(k int) RETURNS TABLE (key int, cluster_key int, cluster_size int) AS $$
    WITH RECURSIVE edges AS (
        SELECT a.id AS x, b.id AS y FROM dedup_clustered a JOIN dedup_clustered b
            ON a.id <> b.id AND a.fp <-> b.fp <= k WHERE a.id <= 400 AND b.id <= 400),
    reach(src, dst) AS (
        SELECT id, id FROM dedup_clustered WHERE id <= 400
        UNION
        SELECT r.src, e.y FROM reach r JOIN edges e ON e.x = r.dst)
    SELECT src, min(dst), count(*)::int FROM reach GROUP BY src HAVING count(*) > 1
$$ LANGUAGE sql;
SELECT k, count(*) AS clustered_rows,
       count(*) FILTER (WHERE c IS DISTINCT FROM b) AS differences
FROM unnest(ARRAY[0, 2, 3, 6]) k,
     LATERAL (SELECT c, b FROM
        (SELECT key::int, cluster_key::int, cluster_size
           FROM simhash_clusters('SELECT id, fp FROM dedup_clustered WHERE id <= 400 ORDER BY id', k)) c
        FULL JOIN dedup_components(k) b USING (key)) x
GROUP BY k ORDER BY k;
SELECT * FROM simhash_clusters('SELECT name, fp FROM dedup_same ORDER BY name DESC', 1) ORDER BY 1;
-- distance_to_representative may exceed k: clusters are transitive.
SELECT max(distance_to_representative) > 3 AS chained
FROM simhash_clusters('SELECT id, fp FROM dedup_clustered ORDER BY id', 3);

-- Inputs larger than work_mem are searched on disk: one external sort per
-- table of the layout, one run of equal prefixes in memory at a time, keys
-- joined back by merging. 64kB holds about 1,100 rows of the in-memory search,
-- so every table below spills; the DEBUG1 lines show which path ran.
CREATE TABLE dedup_dups AS
SELECT g AS id, ('x' || substr(md5((g % 300)::text), 1, 16))::bit(64)::bigint::simhash64 AS fp
FROM generate_series(1, 3000) g;
CREATE TABLE dedup_dups_brute AS
SELECT a.id AS a, b.id AS b, a.fp <-> b.fp AS d
FROM dedup_dups a JOIN dedup_dups b ON a.id < b.id AND a.fp <-> b.fp <= 6;
SET work_mem = '64kB';
SET client_min_messages = debug1;
SELECT count(*) FROM simhash_near_pairs('SELECT id, fp FROM dedup_random ORDER BY id', 3);
SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM dedup_clustered ORDER BY id', 0);
RESET work_mem;
SELECT count(*) FROM simhash_near_pairs('SELECT id, fp FROM dedup_random ORDER BY id', 3);
SET work_mem = '64kB';
RESET client_min_messages;
-- Against the brute force, every k.
SELECT (dedup_compare('dedup_random', k)).* FROM unnest(ARRAY[0, 3, 8, 12]) k;
SELECT (dedup_compare('dedup_clustered', k)).* FROM unnest(ARRAY[0, 1, 2, 3, 4, 5, 6, 8]) k;
-- 300 fingerprints under 10 keys each.
SELECT k, count(*) AS pairs,
       (SELECT count(*) FROM dedup_dups_brute WHERE d <= k) AS brute,
       (SELECT count(*) FROM (SELECT key_a::int, key_b::int, distance
                              FROM simhash_near_pairs('SELECT id, fp FROM dedup_dups ORDER BY id', k)
                              EXCEPT ALL SELECT a, b, d FROM dedup_dups_brute WHERE d <= k) x) AS extra
FROM unnest(ARRAY[0, 3, 6]) k,
     LATERAL simhash_near_pairs('SELECT id, fp FROM dedup_dups ORDER BY id', k)
GROUP BY k ORDER BY k;
-- Clusters: the same rows as the in-memory path.
CREATE TEMP TABLE dedup_spilled_clusters AS
SELECT t, k, c.* FROM unnest(ARRAY['dedup_random', 'dedup_clustered', 'dedup_dups']) t,
     unnest(ARRAY[0, 2, 3, 6]) k,
     LATERAL simhash_clusters(format('SELECT id, fp FROM %I ORDER BY id', t), k) c;
RESET work_mem;
CREATE TEMP TABLE dedup_memory_clusters AS
SELECT t, k, c.* FROM unnest(ARRAY['dedup_random', 'dedup_clustered', 'dedup_dups']) t,
     unnest(ARRAY[0, 2, 3, 6]) k,
     LATERAL simhash_clusters(format('SELECT id, fp FROM %I ORDER BY id', t), k) c;
SELECT t, k, count(*) AS clustered_rows,
       (SELECT count(*) FROM (SELECT * FROM dedup_spilled_clusters s WHERE s.t = m.t AND s.k = m.k
                              EXCEPT ALL
                              SELECT * FROM dedup_memory_clusters x WHERE x.t = m.t AND x.k = m.k) d) AS extra,
       (SELECT count(*) FROM (SELECT * FROM dedup_memory_clusters x WHERE x.t = m.t AND x.k = m.k
                              EXCEPT ALL
                              SELECT * FROM dedup_spilled_clusters s WHERE s.t = m.t AND s.k = m.k) d) AS missing
FROM dedup_memory_clusters m GROUP BY t, k ORDER BY t, k;

-- cstring keys count their length: 150 keys of 10,000 bytes exceed 64kB (each
-- was counted as a few bytes, and the search never left memory).
SET work_mem = '64kB';
SET client_min_messages = debug1;
SELECT count(*) FROM simhash_near_pairs('SELECT textout(repeat(chr(97 + g % 26), 10000)), g::bigint FROM generate_series(1, 150) g', 3);
RESET client_min_messages;
RESET work_mem;

-- Cancel on disk: 100,000 identical fingerprints (5 * 10^9 pairs) stop at the
-- timeout, and the sorts, the stored rows and the layout are released.
SET work_mem = '64kB';
SET statement_timeout = '2s';
SELECT count(*) FROM simhash_near_pairs('SELECT g, 42::bigint FROM generate_series(1, 100000) g', 1);
RESET statement_timeout;
RESET work_mem;

-- The cleanup: keep the first row (smallest id) of each cluster, delete the
-- rest in one statement; afterwards no pair within k is left.
CREATE TABLE dedup_docs AS SELECT * FROM dedup_clustered;
SELECT count(*) AS rows_before,
       (SELECT count(DISTINCT cluster_key) FROM simhash_clusters('SELECT id, fp FROM dedup_docs', 3)) AS clusters,
       (SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM dedup_docs', 3)) AS clustered_rows
FROM dedup_docs;
DELETE FROM dedup_docs d
USING simhash_clusters('SELECT id, fp FROM dedup_docs ORDER BY id', 3) c
WHERE d.id = c.key::int AND c.key <> c.cluster_key;
SELECT count(*) AS rows_after,
       (SELECT count(*) FROM simhash_near_pairs('SELECT id, fp FROM dedup_docs', 3)) AS pairs_left
FROM dedup_docs;

-- Errors.
SELECT * FROM simhash_near_pairs('SELECT id, fp FROM dedup_random', -1);
SELECT * FROM simhash_clusters('SELECT id, fp FROM dedup_random', 65);
SELECT * FROM simhash_near_pairs('SELECT id FROM dedup_random');
SELECT * FROM simhash_near_pairs('SELECT id, fp, id FROM dedup_random');
SELECT * FROM simhash_near_pairs('SELECT id, id FROM dedup_random');
SELECT * FROM simhash_near_pairs('SELECT NULL::int, fp FROM dedup_same');
SELECT * FROM simhash_near_pairs('DELETE FROM dedup_same RETURNING name, fp');
SELECT * FROM simhash_near_pairs('WITH d AS (DELETE FROM dedup_same RETURNING name, fp) SELECT * FROM d');
SELECT * FROM simhash_clusters('SELECT name, fp FROM dedup_same FOR UPDATE');
-- a row lock anywhere in the query (SPI reported 0A000 for these)
SELECT * FROM simhash_near_pairs('SELECT * FROM (SELECT name, fp FROM dedup_same FOR UPDATE) s');
SELECT * FROM simhash_near_pairs('WITH s AS (SELECT name, fp FROM dedup_same FOR SHARE) SELECT * FROM s');
SELECT * FROM simhash_near_pairs('SELECT name, fp FROM dedup_same WHERE name IN (SELECT name FROM dedup_same FOR KEY SHARE)');
CREATE VIEW dedup_locked AS SELECT name, fp FROM dedup_same FOR UPDATE;
SELECT * FROM simhash_clusters('SELECT * FROM dedup_locked');
DROP VIEW dedup_locked;
SELECT * FROM simhash_near_pairs('SELECT name, fp INTO dedup_copy FROM dedup_same');
SELECT * FROM simhash_near_pairs('SELECT name, fp FROM dedup_same; SELECT name, fp FROM dedup_same');
SELECT * FROM simhash_near_pairs('SELECT name fp FROM');
SELECT count(*) AS untouched FROM dedup_same;
-- STRICT: a NULL query or k gives no rows.
SELECT count(*) FROM simhash_near_pairs(NULL);
SELECT count(*) FROM simhash_clusters('SELECT name, fp FROM dedup_same', NULL);

-- The query runs with the caller's privileges.
CREATE ROLE regress_dedup_reader;
SET ROLE regress_dedup_reader;
SELECT * FROM simhash_near_pairs('SELECT name, fp FROM dedup_same');
RESET ROLE;
DROP ROLE regress_dedup_reader;

DROP FUNCTION dedup_compare(text, int);
DROP FUNCTION dedup_components(int);
DROP TABLE dedup_random, dedup_clustered, dedup_brute, dedup_same, dedup_docs, dedup_dups, dedup_dups_brute;
