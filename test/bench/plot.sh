#!/usr/bin/env bash
# Draws median query latency against N per method from the results-*.csv
# files of index_bench.sh runs at several sizes (needs gnuplot, e.g. Debian's
# gnuplot-nox).   test/bench/plot.sh [results dir] [dataset] [out.png]
set -euo pipefail
dir=${1:-/tmp/simhash-bench} ds=${2:-random} png=${3:-$dir/latency-$ds.png}
metrics="simhash_k3_ms pigeonhole_k3_ms btree_eq_ms seq_k3_ms simhash_k6_ms knn_planted_ms knn_random_ms knn_seq_random_ms"
data=$(mktemp)
cat "$dir"/results-*.csv | awk -F, -v ds="$ds" -v metrics="$metrics" '
  BEGIN { nm = split(metrics, m, " ") }
  $1 == ds { v[$2, $3] = $4; ns[$2] = 1 }
  END {
    for (n in ns) { line = n; for (i = 1; i <= nm; i++) line = line " " ((n SUBSEP m[i]) in v ? v[n, m[i]] : "NaN"); print line }
  }' | sort -n > "$data"
{
  echo "set terminal png size 900,600 noenhanced; set output '$png'"
  echo "set logscale xy; set xlabel 'rows'; set ylabel 'median latency (ms)'; set key outside right"
  echo "set title 'simhash index vs baselines ($ds fingerprints)'"
  printf "plot "
  i=2
  for m in $metrics; do
    printf "'%s' using 1:%d with linespoints title '%s', " "$data" $i "${m%_ms}"
    i=$((i + 1))
  done | sed 's/, $//'
  echo
} | gnuplot
rm -f "$data"
echo "$png"
