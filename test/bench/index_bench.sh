#!/usr/bin/env bash
# Benchmark of the simhash index against a sequential scan, the pure-SQL
# pigeonhole (four B-tree expression indexes on 16-bit blocks) and a plain
# B-tree on bigint (issue 3, "Speed and size"), side by side in one run.
#
#   test/bench/index_bench.sh [--rows N | --1m | --10m] [--queries Q] [--seq-queries S]
#                             [--insert-seconds T] [--growth-rows G]
#                             [--datasets "random clustered peps"] [--db NAME]
#
# --seq-queries 0 skips the sequential scans (and the exactness row), the
# slowest part at 10M; --insert-seconds 0 skips pgbench and the VACUUM measure; --growth-rows 0 skips
# the growth measure (default: min(N, 1M) rows).  The peps data set needs the
# PEP revisions (PEPS_DIR, see peps_pool.sh); its fingerprint pool is computed
# once and kept in $PEPS_POOL (default $OUT/peps-pool.csv).
#
# Connects with the usual PGHOST/PGPORT/PGUSER; the extension must be
# installed.  Drops and recreates database NAME (default simhash_bench).
# Prints a markdown table; results accumulate in bench_result of that
# database, and as CSV and plans in $OUT (default /tmp/simhash-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rows=100000 nq=300 nseq=30 secs=10 db=simhash_bench datasets="random clustered peps" grow=
out=${OUT:-/tmp/simhash-bench}
pool=${PEPS_POOL:-$out/peps-pool.csv}
while [ $# -gt 0 ]; do
  case $1 in
    --rows) rows=$2; shift;;
    --1m) rows=1000000;;
    --10m) rows=10000000; nseq=10;;
    --queries) nq=$2; shift;;
    --seq-queries) nseq=$2; shift;;
    --insert-seconds) secs=$2; shift;;
    --growth-rows) grow=$2; shift;;
    --datasets) datasets=$2; shift;;
    --db) db=$2; shift;;
    *) echo "unknown option $1" >&2; exit 2;;
  esac
  shift
done
mkdir -p "$out"
. "$here/fresh_bench_db.sh"
[ -n "$grow" ] || grow=$((rows < 1000000 ? rows : 1000000))
if [[ " $datasets " == *" peps "* ]]; then
  if [ ! -s "$pool" ]; then
    echo "== peps: computing the fingerprint pool into $pool (once)" >&2
    "$here/peps_pool.sh" "$db" "$pool.tmp" && mv "$pool.tmp" "$pool"
  fi
  psql_db -f "$here/peps_setup.sql" < "$pool"
fi

# Probes at 10M miss the CPU caches and the TLB: the buffers' size and page
# size move the latency as much as the code does, so the table names them.
psql_db -At -c "SELECT format('Server: PostgreSQL %s, shared_buffers %s, huge_pages %s.',
                              current_setting('server_version'), current_setting('shared_buffers'),
                              current_setting('huge_pages'))"
echo

for ds in $datasets; do
  echo "== $ds, $rows rows: load and build" >&2
  psql_db -v n="$rows" -v dataset="$ds" -f "$here/bench_load.sql" > /dev/null
  echo "== $ds: queries" >&2
  psql_db -v n="$rows" -v dataset="$ds" -v nq="$nq" -v nseq="$nseq" \
    -v planlog="$out/plans-$ds-$rows.txt" -f "$here/bench_queries.sql"

  # The first query of a new session, planning and execution as EXPLAIN
  # ANALYZE reports them: the session's catalog (and library) loads, and for
  # the simhash index its directory read. Median of 20 sessions per method.
  echo "== $ds: first query of 20 new sessions" >&2
  for t in simhash btree; do
    case $t in
      simhash) kind=near stmt="fp <@ simhash_ball((%s)::simhash64, 3)";;
      btree) kind=stored stmt="fpi = (%s)";;
    esac
    ms=()
    for q in $(psql_db -At -c "SELECT q FROM bench_q WHERE kind = '$kind' ORDER BY i LIMIT 20"); do
      # shellcheck disable=SC2059
      ms+=("$(psql_db -At -c "EXPLAIN (ANALYZE, TIMING OFF, COSTS OFF) SELECT count(id) FROM bench WHERE $(printf "$stmt" "$q")" \
              | awk '/^(Planning|Execution) Time:/ { s += $3 } END { print s }')")
    done
    psql_db -c "SELECT bench_put('$ds', $rows, 'first_${t}_ms', percentile_cont(0.5) WITHIN GROUP (ORDER BY x))
                FROM unnest('{$(IFS=,; echo "${ms[*]}")}'::float8[]) x" > /dev/null
  done

  # single-row inserts, 2 clients, into a copy of the data set that has one
  # index: the simhash index, or a B-tree on bigint
  if [ "$grow" -gt 0 ]; then
    echo "== $ds: growth, $grow rows inserted one by one vs built in bulk" >&2
    psql_db -v n="$rows" -v dataset="$ds" -v gn="$grow" -v nq="$nq" -f "$here/bench_growth.sql" > /dev/null
  fi

  [ "$secs" -gt 0 ] || continue
  echo "== $ds: inserts (pgbench, 2 clients, 3 rounds of $secs s each per method)" >&2
  case $ds in
    random) gen="rnd64(:g)" from=;;
    clustered) gen="clustered64(:g)" from=;;
    peps) nfam=$(psql_db -At -c 'SELECT count(*) FROM peps_fam')
          gen="peps_row(:g, $nfam, base, e)" from=" FROM peps_fam WHERE f = (:g::bigint - 1) % $nfam";;
  esac
  psql_db -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS ins_simhash, ins_btree" \
    -c "CREATE TABLE ins_simhash AS SELECT fp FROM bench" -c "CREATE TABLE ins_btree AS SELECT fpi FROM bench" \
    -c "CREATE INDEX ON ins_simhash USING simhash (fp) WITH (max_distance = 3)" -c "CREATE INDEX ON ins_btree (fpi)" \
    -c "VACUUM ANALYZE ins_simhash" -c "VACUUM ANALYZE ins_btree" -c "CHECKPOINT" \
    -c "DROP TABLE IF EXISTS ins_round" -c "CREATE TABLE ins_round (t text, tps float8, wal_bytes float8, fpi float8)"
  printf '%s\n' '\set g random(100000000000, 900000000000)' \
    "INSERT INTO ins_simhash (fp) SELECT $gen::simhash64$from;" > "$out/ins_simhash.sql"
  printf '%s\n' '\set g random(100000000000, 900000000000)' \
    "INSERT INTO ins_btree (fpi) SELECT $gen$from;" > "$out/ins_btree.sql"
  # Three rounds in alternating order (B-tree first, then simhash first, ...),
  # because one 10 s run moves by +-25% on a shared machine and the tables grow
  # as the rounds go; the median of each method is reported. WAL per inserted
  # row (heap and index together) comes from the LSN around each run, the
  # full-page images among it from pg_stat_wal; each round starts at a
  # checkpoint, so that every round pays the images of the pages it touches
  # first, and only those.
  for order in "btree simhash" "simhash btree" "btree simhash"; do
    for t in $order; do
      read -r lsn0 fpi0 < <(psql_db -At -F' ' -c "CHECKPOINT" -c "SELECT pg_current_wal_insert_lsn(), wal_fpi FROM pg_stat_wal")
      # synchronous_commit off: the cost measured is the index, not the WAL flush
      res=$(PGOPTIONS="-c synchronous_commit=off" pgbench -n -M prepared -c 2 -j 2 -T "$secs" -f "$out/ins_$t.sql" "$db" 2>&1) \
        || { printf '%s\n' "$res" >&2; exit 1; }
      tps=$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' <<< "$res")
      done_rows=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<< "$res")
      [ -n "$tps" ] && [ "${done_rows:-0}" -gt 0 ] || { printf 'pgbench inserted nothing:\n%s\n' "$res" >&2; exit 1; }
      sleep 1  # the clients' WAL statistics reach pg_stat_wal as they exit
      psql_db -c "INSERT INTO ins_round SELECT '$t', $tps,
                    pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '$lsn0') / $done_rows,
                    (wal_fpi - $fpi0)::float8 / $done_rows FROM pg_stat_wal" > /dev/null
    done
  done
  psql_db -c "SELECT bench_put('$ds', $rows, 'insert_' || t || '_tps', percentile_cont(0.5) WITHIN GROUP (ORDER BY tps)),
                     bench_put('$ds', $rows, 'insert_' || t || '_wal_bytes', percentile_cont(0.5) WITHIN GROUP (ORDER BY wal_bytes)),
                     bench_put('$ds', $rows, 'insert_' || t || '_fpi', percentile_cont(0.5) WITHIN GROUP (ORDER BY fpi))
              FROM ins_round GROUP BY t" > /dev/null
  psql_db -c "DROP TABLE ins_simhash, ins_btree, ins_round"

  # VACUUM after deleting the same tenth of the rows from fresh copies with
  # one index each, and from one with no index (the heap's share, the same in
  # all three): each index is read whole, the simhash index one tree per table.
  psql_db -c "SET client_min_messages = warning" -c "DROP TABLE IF EXISTS vac_simhash, vac_btree, vac_heap" \
    -c "CREATE TABLE vac_simhash AS SELECT fp FROM bench" -c "CREATE TABLE vac_btree AS SELECT fpi FROM bench" \
    -c "CREATE TABLE vac_heap AS SELECT fpi FROM bench" \
    -c "CREATE INDEX ON vac_simhash USING simhash (fp) WITH (max_distance = 3)" -c "CREATE INDEX ON vac_btree (fpi)" \
    -c "VACUUM ANALYZE vac_simhash" -c "VACUUM ANALYZE vac_btree" -c "VACUUM ANALYZE vac_heap" \
    -c "DELETE FROM vac_simhash WHERE fp::bigint % 10 = 0" -c "DELETE FROM vac_btree WHERE fpi % 10 = 0" \
    -c "DELETE FROM vac_heap WHERE fpi % 10 = 0" -c "CHECKPOINT"
  for t in heap btree simhash; do
    ms=$(psql_db -c '\timing on' -c "VACUUM vac_$t" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    psql_db -c "SELECT bench_put('$ds', $rows, 'vacuum_${t}_ms', $ms)" > /dev/null
  done
  psql_db -c "DROP TABLE vac_simhash, vac_btree, vac_heap"
done

psql_db -A -F, -c "SELECT * FROM bench_result ORDER BY 1, 2, 3" > "$out/results-$rows.csv"
psql_db -v n="$rows" -At -f "$here/bench_report.sql"
