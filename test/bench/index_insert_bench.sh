#!/usr/bin/env bash
# Insert cost of the simhash index against a B-tree on bigint, side by side in
# one run: one multi-row INSERT into a table that already holds N rows, then
# single-row inserts with pgbench (2 clients). Also the median latency of
# ORDER BY fp <-> q LIMIT 10 for random queries (nearest rows far away).
#   test/bench/index_insert_bench.sh [--rows N] [--insert M] [--seconds T] [--queries Q]
# Needs PGHOST/PGPORT/PGUSER pointing at a server with the extension installed.
set -euo pipefail
rows=1000000; ins=200000; secs=10; nq=50; db=simhash_insbench
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift;; --insert) ins=$2; shift;; --seconds) secs=$2; shift;;
    --queries) nq=$2; shift;; *) echo "unknown option $1" >&2; exit 2;;
  esac; shift
done
dropdb --if-exists "$db" >/dev/null; createdb "$db"
q() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
q <<SQL
CREATE EXTENSION simhash;
CREATE FUNCTION rnd64(g bigint) RETURNS bigint LANGUAGE sql IMMUTABLE
  AS \$\$ SELECT (hashint8(g)::bigint << 32) | (hashint8(-g - 1)::bigint & 4294967295) \$\$;
SET max_parallel_maintenance_workers = 0;
CREATE TABLE t_simhash AS SELECT rnd64(g)::simhash64 AS fp FROM generate_series(1, $rows) g;
CREATE TABLE t_btree AS SELECT rnd64(g) AS fpi FROM generate_series(1, $rows) g;
CREATE INDEX t_simhash_fp ON t_simhash USING simhash (fp);
CREATE INDEX ON t_btree (fpi);
VACUUM ANALYZE t_simhash; VACUUM ANALYZE t_btree; CHECKPOINT;
SQL
# ORDER BY <-> LIMIT 10 for random query values on the index as built:
# server-timed median (warm), then the backend CPU per query.
om=$(q -At <<SQL
SET enable_seqscan = off;
PREPARE nn(simhash64) AS SELECT count(*) FROM (SELECT fp FROM t_simhash ORDER BY fp <-> \$1 LIMIT 10) s;
CREATE TEMP TABLE lat(ms float8);
DO \$\$ DECLARE t0 timestamptz; v simhash64; BEGIN
  FOR pass IN 1..2 LOOP
    FOR i IN 1..$nq LOOP
      v := rnd64(70000000000000 + i)::simhash64; t0 := clock_timestamp();
      EXECUTE format('EXECUTE nn(%L)', v);
      IF pass = 2 THEN INSERT INTO lat VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000); END IF;
    END LOOP;
  END LOOP; END \$\$;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) FROM lat;
SELECT pg_backend_pid() AS pid \\gset
\\setenv BPID :pid
\\! awk '{print \$14 + \$15}' /proc/\$BPID/stat > /tmp/insbench_cpu0
DO \$\$ DECLARE v simhash64; BEGIN
  FOR i IN 1..$nq LOOP
    v := rnd64(70000000000000 + i)::simhash64; EXECUTE format('EXECUTE nn(%L)', v);
  END LOOP; END \$\$;
\\! echo \$(( ( \$(awk '{print \$14 + \$15}' /proc/\$BPID/stat) - \$(cat /tmp/insbench_cpu0) ) * 1000 / \$(getconf CLK_TCK) / $nq ))
SET enable_seqscan = on; SET enable_indexscan = off; SET enable_bitmapscan = off; SET max_parallel_workers_per_gather = 0;
PREPARE nn_seq(simhash64) AS SELECT count(*) FROM (SELECT fp FROM t_simhash ORDER BY fp <-> \$1 LIMIT 10) s;
TRUNCATE lat;
DO \$\$ DECLARE t0 timestamptz; v simhash64; BEGIN
  FOR i IN 1..5 LOOP
    v := rnd64(70000000000000 + i)::simhash64; t0 := clock_timestamp();
    EXECUTE format('EXECUTE nn_seq(%L)', v);
    INSERT INTO lat VALUES (extract(epoch FROM clock_timestamp() - t0) * 1000);
  END LOOP; END \$\$;
SELECT round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2) FROM lat;
SQL
)
sz0=$(q -At -c "SELECT round(pg_relation_size('t_simhash_fp')::numeric / count(*), 2) FROM t_simhash")
# Wall time, and the backend's CPU time (user + system, from /proc): on a
# shared machine the CPU time is the steadier figure.
ms() {
  psql -X -At -d "$db" <<SQL | tr '\n' ' '
SET synchronous_commit = off;
SELECT pg_backend_pid() AS pid \gset
\setenv BPID :pid
\! awk '{print \$14 + \$15}' /proc/\$BPID/stat > /tmp/insbench_cpu0
\timing on
$1;
\timing off
\! echo "cpu_ms \$(( ( \$(awk '{print \$14 + \$15}' /proc/\$BPID/stat) - \$(cat /tmp/insbench_cpu0) ) * 1000 / \$(getconf CLK_TCK) ))"
SQL
}
rb=$(ms "INSERT INTO t_btree SELECT rnd64(g) FROM generate_series($rows + 1, $rows + $ins) g")
rs=$(ms "INSERT INTO t_simhash SELECT rnd64(g)::simhash64 FROM generate_series($rows + 1, $rows + $ins) g")
wall() { sed -n 's/.*Time: \([0-9.]*\) ms.*/\1/p' <<< "$1"; }
cpu() { sed -n 's/.*cpu_ms \([0-9]*\).*/\1/p' <<< "$1"; }
q -c "CHECKPOINT"
printf '%s\n' '\set g random(100000000000, 900000000000)' 'INSERT INTO t_btree (fpi) VALUES (rnd64(:g));' > /tmp/insbench_btree.sql
printf '%s\n' '\set g random(100000000000, 900000000000)' 'INSERT INTO t_simhash (fp) VALUES (rnd64(:g)::simhash64);' > /tmp/insbench_simhash.sql
# CPU of the whole cluster in ms: the postmaster, its live children, and the
# children it has reaped (cutime/cstime), so that exited backends count too.
pm=$(head -1 "$(psql -X -At -d "$db" -c 'SHOW data_directory')/postmaster.pid")
cluster_cpu() {
  local t=0 c
  t=$(awk '{print $14 + $15 + $16 + $17}' /proc/$pm/stat)
  for c in $(ps -o pid= --ppid "$pm"); do
    t=$((t + $(awk '{print $14 + $15}' /proc/$c/stat 2>/dev/null || echo 0)))
  done
  echo $((t * 1000 / $(getconf CLK_TCK)))
}
# Prints "tps inserts-per-server-CPU-second".
tps() {
  local c0 c1 out n
  c0=$(cluster_cpu)
  out=$(PGOPTIONS="-c synchronous_commit=off" pgbench -n -M prepared -c 2 -j 2 -T "$secs" -f "/tmp/insbench_$1.sql" "$db" 2>&1)
  c1=$(cluster_cpu)
  n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$out")
  echo "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$out") $(( n * 1000 / (c1 - c0 + 1) ))"
}
# interleaved, so that a change of load on the machine hits both alike
b1=($(tps btree)); s1=($(tps simhash)); b2=($(tps btree)); s2=($(tps simhash))
tb=$(echo "(${b1[0]} + ${b2[0]}) / 2" | bc); ts=$(echo "(${s1[0]} + ${s2[0]}) / 2" | bc)
cb=$(( (${b1[1]} + ${b2[1]}) / 2 )); cs=$(( (${s1[1]} + ${s2[1]}) / 2 ))
sz=$(q -At -c "SELECT round(pg_relation_size('t_simhash_fp')::numeric / count(*), 2) FROM t_simhash")
echo "| measure | simhash | B-tree on bigint | ratio |"
echo "|---|---|---|---|"
echo "| INSERT of $ins rows into $rows, wall ms | $(wall "$rs") | $(wall "$rb") | $(echo "scale=2; $(wall "$rs") / $(wall "$rb")" | bc)x |"
echo "| INSERT of $ins rows into $rows, backend CPU ms | $(cpu "$rs") | $(cpu "$rb") | $(echo "scale=2; $(cpu "$rs") / $(cpu "$rb")" | bc)x |"
echo "| single-row inserts/s, pgbench 2 clients, 2 x $secs s each, interleaved | $ts | $tb | $(echo "scale=3; $ts / $tb" | bc)x |"
echo "| single-row inserts per server CPU second, same runs | $cs | $cb | $(echo "scale=3; $cs / $cb" | bc)x |"
om=($om)
echo "| ORDER BY <-> LIMIT 10, random queries: median ms vs seqscan (5 queries) | ${om[0]} | ${om[2]} | $(echo "scale=1; ${om[2]} / ${om[0]}" | bc)x faster |"
echo "| ORDER BY <-> LIMIT 10, random queries: backend CPU ms per query | ${om[1]} | - | - |"
echo "| index bytes per row, as built / after the inserts | $sz0 | $sz | - |"
