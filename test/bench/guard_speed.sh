#!/bin/bash
# Single-row insert throughput with the near-duplicate guard against the same
# table without it, side by side in one run (pgbench, 2 clients). Both tables
# carry the same index: a simhash index when the access method is installed,
# else a B-tree on the fingerprint (which the guard cannot use: it then scans
# the table for every row, see docs/guard.md).
#
# Uses the server of PGHOST/PGPORT (e.g. eval "$(devpg env NAME)"); makes and
# drops database guard_bench. Settings: ROWS (preloaded rows, default 100000),
# BENCH_SECONDS (per run, default 10), ROUNDS (alternating pairs, default 2),
# INDEX=btree to measure the guard without a simhash index.
set -euo pipefail

ROWS=${ROWS:-100000}
BENCH_SECONDS=${BENCH_SECONDS:-10}
ROUNDS=${ROUNDS:-2}
DB=guard_bench
work=$(mktemp -d)
trap 'rm -rf "$work"; dropdb --if-exists "$DB" >/dev/null 2>&1 || true' EXIT

dropdb --if-exists "$DB" >/dev/null 2>&1 || true
createdb "$DB"
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<SQL
CREATE EXTENSION simhash;
-- 64 random bits (random() gives 52 at most).
CREATE FUNCTION rand_fp() RETURNS simhash64 LANGUAGE sql VOLATILE
  RETURN ((((random() * 4294967296)::bigint) << 32) | (random() * 4294967296)::bigint)::simhash64;
CREATE TABLE plain (id bigserial PRIMARY KEY, fp simhash64);
CREATE TABLE guarded (id bigserial PRIMARY KEY, fp simhash64);
INSERT INTO plain (fp) SELECT rand_fp() FROM generate_series(1, $ROWS);
INSERT INTO guarded (fp) SELECT fp FROM plain;
SQL
am=${INDEX:-$(psql -X -At -d "$DB" -c "SELECT CASE WHEN EXISTS (SELECT FROM pg_am WHERE amname = 'simhash') THEN 'simhash' ELSE 'btree' END")}
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<SQL
CREATE INDEX ON plain USING $am (fp);
CREATE INDEX ON guarded USING $am (fp);
SELECT simhash_guard('guarded', 'fp');
SQL
if [ "$am" != simhash ]; then
  # simhash_guard() made a simhash index if the access method exists: drop it.
  psql -X -q -v ON_ERROR_STOP=1 -d "$DB" <<'SQL'
SELECT pg_catalog.format('DROP INDEX %s', i.indexrelid::regclass)
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
 WHERE i.indrelid = 'guarded'::regclass AND a.amname = 'simhash' \gexec
SQL
fi
psql -X -q -v ON_ERROR_STOP=1 -d "$DB" -c "VACUUM ANALYZE plain, guarded"
index_count=$(psql -X -At -d "$DB" -c "SELECT count(*) FROM pg_index WHERE indrelid = 'guarded'::regclass")

# Random fingerprints: near-duplicates of the preloaded rows are rare, so
# nearly every insert succeeds in both tables.
for t in plain guarded; do
  echo "INSERT INTO $t (fp) VALUES (rand_fp());" > "$work/$t.sql"
done

# synchronous_commit off: otherwise the WAL flush of every commit dominates and
# hides what the guard costs.
run() {
  PGOPTIONS="-c synchronous_commit=off" pgbench -n -c 2 -j 2 -T "$BENCH_SECONDS" -f "$work/$1.sql" "$DB" 2>&1 |
    sed -n 's/^tps = \([0-9.]*\) (without initial connection time)/\1/p'
}

echo "guard_speed: $ROWS preloaded rows, index: $am ($index_count indexes on the guarded table), 2 clients, ${BENCH_SECONDS}s runs, synchronous_commit off"
printf '%-6s %14s %14s %7s\n' round without_tps with_tps ratio
sum_plain=0; sum_guarded=0
for r in $(seq 1 "$ROUNDS"); do
  p=$(run plain); g=$(run guarded)
  printf '%-6s %14s %14s %7.2f\n' "$r" "$p" "$g" "$(echo "$g / $p" | bc -l)"
  sum_plain=$(echo "$sum_plain + $p" | bc -l); sum_guarded=$(echo "$sum_guarded + $g" | bc -l)
done
printf '%-6s %14.1f %14.1f %7.2f\n' mean "$(echo "$sum_plain / $ROUNDS" | bc -l)" \
  "$(echo "$sum_guarded / $ROUNDS" | bc -l)" "$(echo "$sum_guarded / $sum_plain" | bc -l)"
