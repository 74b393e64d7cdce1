# Sourced by the benchmark scripts once $here and $db are set: defines
# psql_db (psql on $db, stopping at the first error), then drops and creates
# $db and loads the shared functions of bench_setup.sql into it.
psql_db() { psql -X -q -v ON_ERROR_STOP=1 -d "$db" "$@"; }
psql -X -q -d postgres -c "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" 2>/dev/null
psql_db -f "$here/bench_setup.sql"
