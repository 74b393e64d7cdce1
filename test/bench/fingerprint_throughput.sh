#!/usr/bin/env bash
# Throughput of simhash(body) inside PostgreSQL, side by side with md5(body) and
# to_tsvector('english', body), on the PEP versions (../shared/data/peps) loaded
# into a table. Prints a markdown table: MB/s (sum of octet_length over the
# median CPU time and the median wall time of the repetitions) and each
# figure's ratio to md5.
#
# Usage: fingerprint_throughput.sh [-d DATABASE] [-r REPETITIONS] [-e EVERY] [-x EXPR]... [--reload]
#   -r N repetitions (default 3), after one warm-up round;
#   -e N keeps every Nth version (default 4: 4,072 versions, 84 MB; -e 1 loads all
#        16,288, 356 MB, but to_tsvector then takes over a minute per repetition);
#   -x adds an expression over body to time, e.g. -x "simhash(body, tokens => 'chars')".
# Connects with psql's usual environment (PGHOST, PGPORT, PGUSER); the simhash
# extension must be installable in DATABASE. One backend, no parallel workers,
# so each figure is one core's.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
db=${PGDATABASE:-postgres}
reps=3
every=4
reload=0
extra=
while [ $# -gt 0 ]; do
    case $1 in
    -d) db=$2; shift 2 ;;
    -r) reps=$2; shift 2 ;;
    -e) every=$2; shift 2 ;;
    -x) extra="$extra, '${2//\'/\'\'}'"; shift 2 ;;
    --reload) reload=1; shift ;;
    *) echo "usage: $0 [-d DATABASE] [-r REPETITIONS] [-e EVERY] [-x EXPR]... [--reload]" >&2; exit 2 ;;
    esac
done
peps=${PEPS_DIR:-$here/../../../shared/data/peps}
[ -f "$peps/versions.tar.zst" ] || { echo "no $peps/versions.tar.zst (set PEPS_DIR)" >&2; exit 1; }
table=simhash_bench_peps_every_$every
psql_q() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }

psql_q -c "SET client_min_messages = warning" -c "CREATE EXTENSION IF NOT EXISTS simhash"
have=$(psql_q -At -c "SELECT to_regclass('$table') IS NOT NULL")
if [ "$have" != t ] || [ $reload = 1 ]; then
    scratch=$(mktemp -d)
    trap 'rm -rf "$scratch"' EXIT
    zstd -q -d --long=27 -c "$peps/versions.tar.zst" | tar -x -C "$scratch"
    psql_q -c "DROP TABLE IF EXISTS $table" \
           -c "CREATE TABLE $table (pep int, version int, body text, PRIMARY KEY (pep, version))"
    perl "$here/load_peps.pl" "$scratch" "$every" | psql_q -c "\\copy $table FROM STDIN"
    psql_q -c "VACUUM ANALYZE $table"
    rm -rf "$scratch"
fi

# Repetitions interleave the expressions so that drift in machine load spreads
# over all of them; the first round only warms the cache. Besides wall time, the
# backend's own CPU time (utime + stime from /proc/self/stat, readable by a
# superuser) is recorded: on a shared machine it does not count the time the
# backend waited for a core, so it is the steadier figure.
ticks=$(getconf CLK_TCK)
psql_q <<SQL
SET max_parallel_workers_per_gather = 0;
SET client_min_messages = warning;
SET jit = off;
CREATE TEMP TABLE timings (expr text, rep int, wall float8, cpu float8);
CREATE FUNCTION pg_temp.cpu_seconds() RETURNS float8 LANGUAGE plpgsql AS \$\$
DECLARE
  stat text[];
BEGIN
  -- Fields after the command name "(postgres)": utime and stime are the 14th and 15th.
  stat := regexp_split_to_array(pg_read_file('/proc/self/stat'), ' ');
  RETURN (stat[14]::bigint + stat[15]::bigint)::float8 / $ticks;
EXCEPTION WHEN OTHERS THEN
  RETURN NULL;
END \$\$;
DO \$\$
DECLARE
  exprs text[] := ARRAY['simhash(body)', 'md5(body)', 'to_tsvector(''english'', body)'$extra];
  e text;
  t0 timestamptz;
  c0 float8;
BEGIN
  FOR rep IN 0..$reps LOOP
    FOREACH e IN ARRAY exprs LOOP
      t0 := clock_timestamp();
      c0 := pg_temp.cpu_seconds();
      EXECUTE format('SELECT count(%s) FROM $table', e);
      IF rep > 0 THEN
        INSERT INTO timings VALUES (e, rep, extract(epoch FROM clock_timestamp() - t0), pg_temp.cpu_seconds() - c0);
      END IF;
    END LOOP;
  END LOOP;
END \$\$;
\pset tuples_only on
\pset format unaligned
SELECT format('%s documents, %s MB (sum of octet_length), median of %s repetitions, one backend:',
              count(*), round(sum(octet_length(body)) / 1e6, 1), $reps) FROM $table;
\echo
\echo '| expression | MB/s (CPU) | vs md5 (CPU) | MB/s (wall) | vs md5 (wall) | median wall s (min-max) |'
\echo '|---|---:|---:|---:|---:|---:|'
WITH bytes AS (SELECT sum(octet_length(body)) AS n FROM $table),
     med AS (SELECT expr, percentile_cont(0.5) WITHIN GROUP (ORDER BY wall) AS wall,
                    percentile_cont(0.5) WITHIN GROUP (ORDER BY cpu) AS cpu,
                    min(wall) AS best, max(wall) AS worst FROM timings GROUP BY expr),
     md5 AS (SELECT wall, cpu FROM med WHERE expr = 'md5(body)')
SELECT format('| \`%s\` | %s | %s | %s | %s | %s (%s-%s) |', expr,
              coalesce(to_char(bytes.n / nullif(med.cpu, 0) / 1e6, 'FM99990.0'), 'n/a'),
              coalesce(to_char(md5.cpu / nullif(med.cpu, 0), 'FM990.00'), 'n/a'),
              to_char(bytes.n / med.wall / 1e6, 'FM99990.0'), to_char(md5.wall / med.wall, 'FM990.00'),
              to_char(med.wall, 'FM990.000'), to_char(best, 'FM990.000'), to_char(worst, 'FM990.000'))
FROM med, bytes, md5 ORDER BY med.wall;
\echo
-- One repetition of md5 takes a few tenths of a second, counted in 10 ms
-- ticks: the ratios of the sums over all repetitions are the finer ones.
WITH total AS (SELECT expr, sum(cpu) AS cpu FROM timings GROUP BY expr),
     md5 AS (SELECT cpu FROM total WHERE expr = 'md5(body)')
SELECT format('CPU time summed over the %s repetitions, speed against md5(body): %s.', $reps,
              string_agg(format('\`%s\` %s', expr, coalesce(to_char(md5.cpu / nullif(total.cpu, 0), 'FM990.000'), 'n/a')),
                         ', ' ORDER BY total.cpu))
FROM total, md5;
SQL
