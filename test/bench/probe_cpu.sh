#!/usr/bin/env bash
# Backend CPU time per execution of the k = 3 probe, the B-tree equality
# lookup and ORDER BY <-> LIMIT 10, from `perf stat -e task-clock` attached to
# the backend while a PL/pgSQL loop executes the prepared statement over the
# benchmark's query values. CPU time moves much less than wall time with the
# load of a shared machine; methods are interleaved, `--rounds` times.
#
#   test/bench/probe_cpu.sh [--db NAME] [--rounds R] [--reps N]
#
# Needs a database loaded by bench_load.sql (index_bench.sh --1m leaves one,
# default simhash_bench), perf, and permission to attach to the backend.
set -euo pipefail
db=simhash_bench rounds=3 reps=10
while [ $# -gt 0 ]; do
  case $1 in
    --db) db=$2; shift;;
    --rounds) rounds=$2; shift;;
    --reps) reps=$2; shift;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
  shift
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# stmt:kind:queries (the kind of bench_q values, how many of them)
methods="noop:near:500 btree_eq:stored:500 simhash3:near:500 knn:random:50"
for r in $(seq "$rounds"); do
  {
    cat <<'EOF'
\set QUIET on
\pset tuples_only on
\pset format unaligned
SET plan_cache_mode = force_generic_plan;
PREPARE noop(bigint) AS SELECT count(*) FROM (SELECT $1) s;
PREPARE btree_eq(bigint) AS SELECT count(id) FROM bench WHERE fpi = $1;
PREPARE simhash3(bigint) AS SELECT count(id) FROM bench WHERE fp <@ simhash_ball($1::simhash64, 3);
PREPARE knn(bigint) AS SELECT count(id) FROM (SELECT id FROM bench ORDER BY fp <-> $1::simhash64 LIMIT 10) s;
CREATE FUNCTION pg_temp.loop(stmt text, k text, nq int, reps int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE q bigint; c bigint;
BEGIN
  FOR r IN 1..reps LOOP
    FOR q IN SELECT b.q FROM bench_q b WHERE b.kind = k AND b.i <= nq ORDER BY b.i LOOP
      EXECUTE format('EXECUTE %I(%s)', stmt, q) INTO c;
    END LOOP;
  END LOOP;
END $$;
EOF
    echo "SELECT pg_backend_pid() \\g $out/pid"
    for m in $methods; do
      IFS=: read -r s k nq <<< "$m"
      echo "SELECT pg_temp.loop('$s', '$k', $nq, 1);"  # warm-up
      echo "\\! perf stat -x, -e task-clock -p \$(cat $out/pid) -o $out/$s.txt & echo \$! > $out/perf.pid; sleep 0.3"
      echo "SELECT pg_temp.loop('$s', '$k', $nq, $reps);"
      echo "\\! kill -INT \$(cat $out/perf.pid); sleep 0.3"
    done
  } | psql -X -q -d "$db" > /dev/null
  for m in $methods; do
    IFS=: read -r s k nq <<< "$m"
    awk -F, -v n=$((reps * nq)) -v r="$r" -v s="$s" \
      '/task-clock/ {printf "round %d  %-9s %8.1f us CPU per execution\n", r, s, $1 / n * 1000}' "$out/$s.txt"
  done
done
