#!/usr/bin/env bash
# Computes the fingerprint pool of the `peps` data set of index_bench.sh and
# writes it as CSV (pep, version, variant, fp): simhash(body) of every PEP
# version (variant 0), of EDITS word-edited copies of each (variants 1..EDITS,
# peps_edits.pl) and of one more edited copy kept for queries (variant 99).
# The fingerprints are computed by the extension, in database DB.
#   peps_pool.sh DB OUT.csv [EDITS]
# PEPS_DIR (default ../shared/data/peps next to the repository) holds
# versions.tar.zst.  About 15 s of CPU per variant (16,288 documents, 345 MB).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
db=$1 csv=$2 edits=${3:-6}
peps=${PEPS_DIR:-$here/../../../shared/data/peps}
[ -f "$peps/versions.tar.zst" ] || { echo "no $peps/versions.tar.zst (set PEPS_DIR)" >&2; exit 1; }
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
zstd -q -d --long=27 -c "$peps/versions.tar.zst" | tar -x -C "$scratch"
psql_db -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS simhash" \
  -c "DROP TABLE IF EXISTS peps_doc, peps_fp" \
  -c "CREATE UNLOGGED TABLE peps_doc (pep int, version int, variant int, body text)" \
  -c "CREATE TABLE peps_fp (pep int, version int, variant int, fp bigint)"
for v in $(seq 0 "$edits") 99; do
  echo "   peps pool: variant $v" >&2
  perl "$here/peps_edits.pl" "$scratch" "$v" | psql_db -c "\\copy peps_doc FROM STDIN"
  psql_db -c "INSERT INTO peps_fp SELECT pep, version, variant, simhash(body)::bigint FROM peps_doc" \
          -c "TRUNCATE peps_doc"
done
psql_db -c "\\copy (SELECT * FROM peps_fp ORDER BY 1, 2, 3) TO '$csv' WITH (FORMAT csv)" \
        -c "DROP TABLE peps_doc, peps_fp"
