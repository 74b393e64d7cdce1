#!/usr/bin/env bash
# Skewed data (issue 3): "100,000 identical fingerprints, or 1M sharing a
# 40-bit prefix, must not slow inserts or queries beyond proportion to the
# number of true matches."  Three tables of N rows (default 1M), side by side
# in one run, each with the simhash index (max_distance 3) and a B-tree on the
# bigint (the floor for fetching the same rows):
#   random: 64-bit pseudo-random values;
#   same:   N - 100,000 random values, then 100,000 copies of one value V;
#   prefix: N values with the same top 40 bits and random low 24 bits.
# The first N - 100,000 rows are loaded and indexed in bulk, the last 100,000
# go in through the index's aminsert, one row at a time (INSERT ... SELECT),
# with no other index on the table: for `same` these are the identical rows.
# Then the B-trees are built and k=3 queries run (prepared, warm, medians),
# with their mean number of matches, checked against a sequential scan on 5
# of them; the pigeonhole on the same queries, warmed the same way.  Prints a
# markdown table.
#   test/bench/skew_bench.sh [--rows N] [--queries Q] [--db NAME]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rows=1000000 nq=200 db=simhash_skew
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift;;
    --queries) nq=$2; shift;;
    --db) db=$2; shift;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
  shift
done
. "$here/fresh_bench_db.sh"
m=$((rows < 1000000 ? rows / 10 : 100000))
# V, and the 40-bit prefix P (low 24 bits zero)
read -r v p < <(psql_db -At -F' ' -c "SELECT rnd64(90000000000000), rnd64(90000000000001) & ~16777215")
psql_db -v n="$rows" -v m="$m" -v v="$v" -v p="$p" <<'SQL'
-- row g of n (the last m of them are the inserted ones)
CREATE FUNCTION skew64(kind text, g bigint, n bigint, m bigint, v bigint, p bigint) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE kind WHEN 'random' THEN rnd64(g)
                   WHEN 'same' THEN CASE WHEN g > n - m THEN v ELSE rnd64(g) END
                   ELSE p | (rnd64(g) & 16777215) END $$;
-- query values: kind, label, i, q
CREATE TABLE skew_q (kind text, label text, i int, q bigint);
INSERT INTO skew_q SELECT 'random', 'stored rows, 2 bits flipped', i, flip(rnd64(1 + abs(rnd64(30000000000000 + i)) % :n), rnd64(40000000000000 + i), 2)
  FROM generate_series(1, 500) i;
INSERT INTO skew_q SELECT 'same', 'V with 2 bits flipped (all copies match)', i, flip(:v, rnd64(40000000000000 + i), 2) FROM generate_series(1, 500) i;
INSERT INTO skew_q SELECT 'same', 'V with 5 bits flipped (no copy matches)', i, flip(:v, rnd64(41000000000000 + i), 5) FROM generate_series(1, 500) i;
INSERT INTO skew_q SELECT 'same', 'random stored rows, 2 bits flipped', i, flip(rnd64(1 + abs(rnd64(30000000000000 + i)) % (:n - :m)), rnd64(40000000000000 + i), 2)
  FROM generate_series(1, 500) i;
INSERT INTO skew_q SELECT 'prefix', 'P, random low 24 bits', i, :p | (rnd64(42000000000000 + i) & 16777215) FROM generate_series(1, 500) i;
-- the flipped bits are drawn from the top 40 only (positions 24..63)
INSERT INTO skew_q SELECT 'prefix', 'P with 2 of its bits flipped, random low 24 bits', i,
    (:p # (1::bigint << (24 + abs(rnd64(43000000000000 + i)) % 40)::int) # (1::bigint << (24 + abs(rnd64(44000000000000 + i)) % 40)::int))
    | (rnd64(42000000000000 + i) & 16777215)
  FROM generate_series(1, 500) i;
-- both flips in the top 16 bits, at two different positions: one block of the
-- default layout, which one table's key holds last, so that table's probe
-- range is every row (the hardest of these queries)
INSERT INTO skew_q SELECT 'prefix', 'P with 2 of its top 16 bits flipped, random low 24 bits', i,
    (:p # (1::bigint << (48 + a)) # (1::bigint << (48 + (a + 1 + b) % 16))) | (rnd64(42000000000000 + i) & 16777215)
  FROM generate_series(1, 500) i,
       LATERAL (SELECT (abs(rnd64(45000000000000 + i)) % 16)::int AS a, (abs(rnd64(46000000000000 + i)) % 15)::int AS b) r;
INSERT INTO skew_q SELECT 'prefix', 'P with 5 of its bits flipped (no row matches)', i,
    (:p # (31::bigint << 24 + (i % 35)))
    | (rnd64(42000000000000 + i) & 16777215)
  FROM generate_series(1, 500) i;
SQL
for k in random same prefix; do
  echo "== skew: $k, $rows rows" >&2
  psql_db -v n="$rows" -v m="$m" -v k="$k" -v nq="$nq" -v v="$v" -v p="$p" <<'SQL' > /dev/null
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '512MB';
SET plan_cache_mode = force_generic_plan;
SET client_min_messages = warning;
CREATE TABLE skew (id bigint, fp simhash64, fpi bigint);
INSERT INTO skew SELECT g, x::simhash64, x
  FROM (SELECT g, skew64(:'k', g, :n, :m, :v, :p) AS x FROM generate_series(1, :n - :m) g) s;
SELECT bench_put(:'k', :n, 'build_ms', bench_ddl('CREATE INDEX skew_ix ON skew USING simhash (fp) WITH (max_distance = 3)'));
CHECKPOINT;
-- the timed inserts maintain the simhash index alone; the baselines' B-trees
-- come after (they got cheaper on skewed values and hid its slowdown)
SELECT bench_put(:'k', :n, 'insert_ms',
  bench_ddl(format('INSERT INTO skew SELECT g, x::simhash64, x FROM (SELECT g, skew64(%L, g, %s, %s, %s, %s) AS x FROM generate_series(%s, %s) g) s',
                   :'k', :n, :m, :v, :p, :n - :m + 1, :n)));
CREATE INDEX skew_bt ON skew (fpi);
CREATE INDEX ON skew (((fpi >> 0) & 65535));
CREATE INDEX ON skew (((fpi >> 16) & 65535));
CREATE INDEX ON skew (((fpi >> 32) & 65535));
CREATE INDEX ON skew (((fpi >> 48) & 65535));
VACUUM ANALYZE skew;
SELECT bench_put(:'k', :n, 'size_bytes', pg_relation_size('skew_ix'));
PREPARE k3(bigint) AS SELECT count(id) FROM skew WHERE fp <@ simhash_ball($1::simhash64, 3);
PREPARE seq3(bigint) AS SELECT count(id) FROM skew WHERE bit_count((fpi # $1)::bit(64)) <= 3;
PREPARE pigeonhole3(bigint) AS SELECT count(id) FROM skew
  WHERE (((fpi >> 0) & 65535) = (($1 >> 0) & 65535) OR ((fpi >> 16) & 65535) = (($1 >> 16) & 65535)
      OR ((fpi >> 32) & 65535) = (($1 >> 32) & 65535) OR ((fpi >> 48) & 65535) = (($1 >> 48) & 65535))
    AND bit_count((fpi # $1)::bit(64)) <= 3;
PREPARE eq(bigint) AS SELECT count(id) FROM skew WHERE fpi = $1;
CREATE TEMP TABLE lab AS SELECT label, array_agg(q ORDER BY i) FILTER (WHERE i <= :nq) AS qs,
                                array_agg(q ORDER BY i) FILTER (WHERE i <= 5) AS qseq
  FROM skew_q WHERE kind = :'k' GROUP BY label;
-- warm-up of both indexed methods, then both timed on the same queries
SELECT bench_run('k3', qs), bench_run('pigeonhole3', qs) FROM lab;
SELECT bench_put(:'k', :n, label || ' | k3_ms', b.median_ms),
       bench_put(:'k', :n, label || ' | k3_rows', b.mean_rows),
       bench_put(:'k', :n, label || ' | check_rows', c.mean_rows),
       bench_put(:'k', :n, label || ' | seq_rows', s.mean_rows),
       bench_put(:'k', :n, label || ' | pigeonhole_ms', ph.median_ms)
  FROM lab, LATERAL bench_run('k3', qs) b, LATERAL bench_run('k3', qseq) c, LATERAL bench_run('seq3', qseq) s,
       LATERAL bench_run('pigeonhole3', qs) ph;
-- the floor for fetching the copies of V: a B-tree equality lookup of V
SELECT bench_run('eq', array_fill(:v::bigint, ARRAY[3])) \g /dev/null
SELECT bench_put(:'k', :n, 'eq_V_ms', b.median_ms), bench_put(:'k', :n, 'eq_V_rows', b.mean_rows)
  FROM bench_run('eq', array_fill(:v::bigint, ARRAY[least(:nq, 50)])) b WHERE :'k' = 'same';
DROP TABLE skew;
SQL
done

psql_db -v n="$rows" -v m="$m" -At <<'SQL'
CREATE FUNCTION pg_temp.v(k text, m text) RETURNS float8 LANGUAGE sql
  AS $$ SELECT value FROM bench_result WHERE dataset = k AND metric = m $$;
CREATE FUNCTION pg_temp.f(x float8) RETURNS text LANGUAGE sql
  AS $$ SELECT CASE WHEN x IS NULL THEN '-' WHEN abs(x) >= 100 THEN round(x::numeric, 0)::text
                    WHEN abs(x) >= 1 THEN round(x::numeric, 2)::text ELSE round(x::numeric, 3)::text END $$;
SELECT format('Inserts: the last %s rows one at a time through the index (INSERT ... SELECT) into %s rows built in bulk, with no other index on the table.', :m, :n - :m);
SELECT '';
SELECT '| data | inserts/s | vs random | bulk build ms (first rows) | index bytes/row |';
SELECT '|---|---|---|---|---|';
SELECT format('| %s | %s | %sx | %s | %s |', dataset, pg_temp.f(:m / pg_temp.v(dataset, 'insert_ms') * 1000),
              pg_temp.f(pg_temp.v('random', 'insert_ms') / pg_temp.v(dataset, 'insert_ms')),
              pg_temp.f(pg_temp.v(dataset, 'build_ms')), pg_temp.f(pg_temp.v(dataset, 'size_bytes') / :n))
  FROM (VALUES ('random', 1), ('same', 2), ('prefix', 3)) d(dataset, o) ORDER BY o;
SELECT '';
SELECT '| data | k=3 query | mean matches (index / seqscan, 5 queries) | median ms | vs random data | ms per 1000 matches | pigeonhole median ms |';
SELECT '|---|---|---|---|---|---|---|';
WITH q AS (SELECT DISTINCT dataset, split_part(metric, ' | ', 1) AS label FROM bench_result WHERE metric LIKE '% | k3_ms')
SELECT format('| %s | %s | %s (%s / %s) | %s | %sx | %s | %s |', dataset, label,
              pg_temp.f(pg_temp.v(dataset, label || ' | k3_rows')),
              pg_temp.f(pg_temp.v(dataset, label || ' | check_rows')), pg_temp.f(pg_temp.v(dataset, label || ' | seq_rows')),
              pg_temp.f(pg_temp.v(dataset, label || ' | k3_ms')),
              pg_temp.f(pg_temp.v(dataset, label || ' | k3_ms') / pg_temp.v('random', 'stored rows, 2 bits flipped | k3_ms')),
              CASE WHEN pg_temp.v(dataset, label || ' | k3_rows') >= 100
                   THEN pg_temp.f(pg_temp.v(dataset, label || ' | k3_ms') / pg_temp.v(dataset, label || ' | k3_rows') * 1000) ELSE '-' END,
              pg_temp.f(pg_temp.v(dataset, label || ' | pigeonhole_ms')))
  FROM q ORDER BY array_position(ARRAY['random', 'same', 'prefix'], dataset), label;
SELECT format('| same | B-tree equality lookup of V (the floor for fetching its copies) | %s | %s | - | %s | - |',
              pg_temp.f(pg_temp.v('same', 'eq_V_rows')), pg_temp.f(pg_temp.v('same', 'eq_V_ms')),
              pg_temp.f(pg_temp.v('same', 'eq_V_ms') / pg_temp.v('same', 'eq_V_rows') * 1000));
SQL
