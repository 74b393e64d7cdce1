#!/usr/bin/env bash
# The index's layouts for max_distance 3 side by side on one table of N random
# fingerprints (default 1M; 1% of them in planted families, as in
# index_bench.sh): 4 tables of 16-bit prefixes (the default up to 32.8M rows),
# 10 of 25 bits, Manku's two-level 16 tables of 28 bits and 20 of 31 bits.
# Each is built alone (timed, one process), measured (bytes per row; median
# ms of prepared k = 1, 2, 3 queries 2 bits from stored rows and of k = 3
# queries on random values, warm, after an untimed pass), then dropped. Every
# layout must return the same rows: the mean row counts are printed with the
# times. Prints a markdown table.
#   test/bench/layout_bench.sh [--rows N] [--queries Q] [--db NAME]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rows=1000000 nq=300 db=simhash_layout
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
echo "== $rows random rows: load" >&2
psql_db -v n="$rows" -v nq="$nq" <<'SQL'
CREATE TABLE lay (id bigint, fp simhash64);
INSERT INTO lay SELECT g, rnd64(g)::simhash64 FROM generate_series(1, :n - :n / 100) g;
INSERT INTO lay SELECT g, flip(rnd64(20000000000000 + (g - (:n - :n / 100) - 1) / 12), rnd64(g), 1)::simhash64
  FROM generate_series(:n - :n / 100 + 1, :n) g;
VACUUM ANALYZE lay;
CREATE TABLE lay_q (kind text, i int, q bigint);
INSERT INTO lay_q SELECT 'near', i, flip((SELECT fp::bigint FROM lay WHERE id = 1 + abs(rnd64(30000000000000 + i)) % :n),
                                         rnd64(40000000000000 + i), 2)
  FROM generate_series(1, :nq) i;
INSERT INTO lay_q SELECT 'random', i, rnd64(60000000000000 + i) FROM generate_series(1, :nq) i;
CREATE TABLE lay_result (tables int, label text, metric text, value float8, mean_rows float8);
SQL

for t in 4 10 16 20; do
  label="$t tables"; [ "$t" = 16 ] && label="16 tables (two-level)"
  echo "== $label: build and queries" >&2
  psql_db -v t="$t" -v label="$label" <<'SQL'
SET max_parallel_maintenance_workers = 0;
SET maintenance_work_mem = '512MB';
SET plan_cache_mode = force_generic_plan;
SET jit = off;
CHECKPOINT;
INSERT INTO lay_result SELECT :t, :'label', 'build_s',
  bench_ddl(format('CREATE INDEX lay_fp ON lay USING simhash (fp) WITH (max_distance = 3, tables = %s)', :t)) / 1000;
INSERT INTO lay_result SELECT :t, :'label', 'bytes_per_row', pg_relation_size('lay_fp')::float8 / count(*) FROM lay;
INSERT INTO lay_result SELECT :t, :'label', 'prefix_bits', prefix_bits FROM simhash_index_info('lay_fp');
PREPARE k1(bigint) AS SELECT count(id) FROM lay WHERE fp <@ simhash_ball($1::simhash64, 1);
PREPARE k2(bigint) AS SELECT count(id) FROM lay WHERE fp <@ simhash_ball($1::simhash64, 2);
PREPARE k3(bigint) AS SELECT count(id) FROM lay WHERE fp <@ simhash_ball($1::simhash64, 3);
\o /dev/null
SELECT bench_run(s, (SELECT array_agg(q ORDER BY i) FROM lay_q WHERE kind = k))
  FROM (VALUES ('k1', 'near'), ('k2', 'near'), ('k3', 'near'), ('k3', 'random')) v(s, k);
\o
INSERT INTO lay_result SELECT :t, :'label', m, b.median_ms, b.mean_rows
  FROM (VALUES ('k1', 'near', 'k=1 ms'), ('k2', 'near', 'k=2 ms'), ('k3', 'near', 'k=3 ms'),
               ('k3', 'random', 'k=3 ms, random values')) v(s, k, m),
       LATERAL bench_run(s, (SELECT array_agg(q ORDER BY i) FROM lay_q WHERE kind = k)) b;
DROP INDEX lay_fp;
SQL
done

psql_db -At <<'SQL'
SELECT '| layout | prefix bits | build s | bytes/row | k=1 ms | k=2 ms | k=3 ms | k=3 ms, random values | mean rows k=1/2/3/random |';
SELECT '|---|---|---|---|---|---|---|---|---|';
SELECT format('| %s | %s | %s | %s | %s | %s | %s | %s | %s |', label,
              max(value) FILTER (WHERE metric = 'prefix_bits'),
              round(max(value) FILTER (WHERE metric = 'build_s')::numeric, 2),
              round(max(value) FILTER (WHERE metric = 'bytes_per_row')::numeric, 1),
              round(max(value) FILTER (WHERE metric = 'k=1 ms')::numeric, 3),
              round(max(value) FILTER (WHERE metric = 'k=2 ms')::numeric, 3),
              round(max(value) FILTER (WHERE metric = 'k=3 ms')::numeric, 3),
              round(max(value) FILTER (WHERE metric = 'k=3 ms, random values')::numeric, 3),
              string_agg(round(mean_rows::numeric, 2)::text, '/' ORDER BY metric) FILTER (WHERE mean_rows IS NOT NULL))
  FROM lay_result GROUP BY tables, label ORDER BY tables;
SQL
