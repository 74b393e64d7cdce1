#!/usr/bin/env bash
# The whole index benchmark of issue 3 in one command: index_bench.sh at each
# size for every data set (random, clustered, peps), skew_bench.sh at 1M, and
# the plots of latency against N.  Prints the markdown of docs/benchmark-index.md
# ("Results"): per size the command, wall time, load average and the table.
#   test/bench/index_bench_all.sh [--sizes "100000 1000000 10000000"] [--no-skew]
#                                 [--png-dir DIR] [index_bench.sh options...]
# e.g. --seq-queries 0 skips the sequential scans; --png-dir docs writes
# docs/benchmark-index-<data>.png.  Logs and CSVs go to $OUT (default
# /tmp/simhash-bench).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
sizes="100000 1000000 10000000" skew=1 pngdir= pass=()
export OUT=${OUT:-/tmp/simhash-bench}
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; shift;;
    --no-skew) skew=0;;
    --png-dir) pngdir=$2; shift;;
    *) pass+=("$1");;
  esac
  shift
done
mkdir -p "$OUT"
rm -f "$OUT"/results-*.csv
for n in $sizes; do
  opts=(--rows "$n")
  [ "$n" -lt 10000000 ] || opts+=(--seq-queries 10)   # a 10M sequential scan takes ~1 s
  opts+=("${pass[@]}")
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  t0=$(date +%s)
  "$here/index_bench.sh" "${opts[@]}" > "$OUT/table-$n.md" 2> >(while IFS= read -r l; do echo "$(date -u +%T) $l"; done >> "$OUT/phases-$n.log")
  t=$(( $(date +%s) - t0 ))
  echo "### $n rows"
  echo
  echo "Command: \`test/bench/index_bench.sh ${opts[*]}\`; wall time $((t / 60)) min $((t % 60)) s;"
  echo "load average before $load, after $(cut -d' ' -f1-3 /proc/loadavg) (2 cores, shared). Phases: \`$OUT/phases-$n.log\`."
  echo
  cat "$OUT/table-$n.md"
  echo
done
if [ $skew = 1 ]; then
  t0=$(date +%s)
  "$here/skew_bench.sh" --rows 1000000 > "$OUT/skew.md"
  t=$(( $(date +%s) - t0 ))
  echo "### Skewed data, 1,000,000 rows"
  echo
  echo "Command: \`test/bench/skew_bench.sh --rows 1000000\`; wall time $((t / 60)) min $((t % 60)) s."
  echo
  cat "$OUT/skew.md"
  echo
fi
for ds in random clustered peps; do
  ls "$OUT"/results-*.csv > /dev/null 2>&1 || break
  grep -q "^$ds," "$OUT"/results-*.csv || continue
  png=${pngdir:+$pngdir/benchmark-index-$ds.png}
  "$here/plot.sh" "$OUT" "$ds" ${png:+"$png"} >&2
done
