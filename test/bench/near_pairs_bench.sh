#!/bin/bash
# All pairs within k = 3 among N fingerprints (random plus 1% planted
# near-duplicate families of 5): simhash_near_pairs against the pure-SQL
# pigeonhole (union of four 16-bit block equi-joins, bit_count recheck),
# measured in one run on the same table. Both must find the same pairs.
# The extension's functions run twice: with work_mem = 1GB (the in-memory
# search) and with work_mem = 1MB (the input exceeds it: the on-disk search).
#
#   test/bench/near_pairs_bench.sh            # N = 100000
#   test/bench/near_pairs_bench.sh --full     # N = 1000000 (the issue's figure)
#   test/bench/near_pairs_bench.sh --rows N
#
# Connects with the usual libpq variables (PGHOST, PGPORT, PGDATABASE, ...) to a
# database where the simhash extension is installed or can be created.
set -euo pipefail

rows=100000
while [ $# -gt 0 ]; do
    case "$1" in
    --full) rows=1000000 ;;
    --rows) rows="$2"; shift ;;
    *) echo "usage: $0 [--full | --rows N]" >&2; exit 2 ;;
    esac
    shift
done
planted=$((rows / 100))
families=$((planted / 5))

# Progress NOTICEs and "already exists" notices off.
export PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning"
run() { psql -X -q -v ON_ERROR_STOP=1 "$@"; }

# Seconds taken by one statement, from psql's own timing.
timed() {
    run -c '\timing on' -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' | awk '{ printf "%.3f", $1 / 1000 }'
}

run -c "CREATE EXTENSION IF NOT EXISTS simhash"
run -c "DROP TABLE IF EXISTS near_pairs_bench"
run <<SQL
SELECT setseed(0.42) \\gset
CREATE TABLE near_pairs_bench AS
SELECT g AS id, ((random() * 4294967295)::bigint << 32) # (random() * 4294967295)::bigint AS fp
FROM generate_series(1, $rows - $((families * 5))) g;
-- Families: a random centre and 5 members 1 or 2 bit flips away from it, so
-- members are within 4 bits of each other (within 3 for most pairs).
INSERT INTO near_pairs_bench
SELECT $rows - $((families * 5)) + row_number() OVER (),
       c.fp # (1::bigint << floor(random() * 64)::int)
            # CASE WHEN m % 2 = 0 THEN 1::bigint << floor(random() * 64)::int ELSE 0 END
FROM (SELECT ((random() * 4294967295)::bigint << 32) # (random() * 4294967295)::bigint AS fp
      FROM generate_series(1, $families)) c,
     generate_series(1, 5) m;
VACUUM ANALYZE near_pairs_bench;
SQL

ours_sql="SELECT count(*) FROM simhash_near_pairs('SELECT id, fp FROM near_pairs_bench', 3)"
clusters_sql="SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM near_pairs_bench', 3)"
baseline_sql="SELECT count(*) FROM (
    SELECT a.id, b.id FROM near_pairs_bench a JOIN near_pairs_bench b
      ON a.fp >> 48 = b.fp >> 48 AND a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= 3
    UNION
    SELECT a.id, b.id FROM near_pairs_bench a JOIN near_pairs_bench b
      ON (a.fp >> 32) & 65535 = (b.fp >> 32) & 65535 AND a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= 3
    UNION
    SELECT a.id, b.id FROM near_pairs_bench a JOIN near_pairs_bench b
      ON (a.fp >> 16) & 65535 = (b.fp >> 16) & 65535 AND a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= 3
    UNION
    SELECT a.id, b.id FROM near_pairs_bench a JOIN near_pairs_bench b
      ON a.fp & 65535 = b.fp & 65535 AND a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= 3) p"

in_memory() { PGOPTIONS="$PGOPTIONS -c work_mem=1GB" "$@"; }
on_disk() { PGOPTIONS="$PGOPTIONS -c work_mem=1MB" "$@"; }

ours_pairs=$(in_memory run -At -c "$ours_sql")
disk_pairs=$(on_disk run -At -c "$ours_sql")
base_pairs=$(run -At -c "$baseline_sql")
if [ "$ours_pairs" != "$base_pairs" ] || [ "$disk_pairs" != "$base_pairs" ]; then
    echo "MISMATCH: simhash_near_pairs found $ours_pairs pairs in memory, $disk_pairs on disk," \
         "the pure-SQL join $base_pairs" >&2
    exit 1
fi
mem_clusters=$(in_memory run -At -c "$clusters_sql")
disk_clusters=$(on_disk run -At -c "$clusters_sql")
if [ "$mem_clusters" != "$disk_clusters" ]; then
    echo "MISMATCH: simhash_clusters returned $mem_clusters rows in memory, $disk_clusters on disk" >&2
    exit 1
fi

# Warm runs: the counts above have cached the table.
ours=$(in_memory timed "$ours_sql")
clusters=$(in_memory timed "$clusters_sql")
ours_disk=$(on_disk timed "$ours_sql")
clusters_disk=$(on_disk timed "$clusters_sql")
base=$(timed "$baseline_sql")
run -c "DROP TABLE near_pairs_bench"

echo "rows: $rows (planted: $((families * 5)) in $families families), k = 3, pairs found: $ours_pairs"
echo "simhash_near_pairs, work_mem 1GB (in memory): $ours s"
echo "simhash_clusters,   work_mem 1GB (in memory): $clusters s"
echo "simhash_near_pairs, work_mem 1MB (on disk):   $ours_disk s"
echo "simhash_clusters,   work_mem 1MB (on disk):   $clusters_disk s"
echo "pure SQL, 4 block equi-joins: $base s"
awk -v o="$ours" -v b="$base" 'BEGIN { printf "ratio (pure SQL / simhash_near_pairs): %.1fx\n", b / o }'
