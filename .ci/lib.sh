# Shared steps of .ci/run, .ci/test and .ci/demo. Sourced, not run.
# Debian 12; run as root (or through sudo): packages are installed with apt-get
# and the PostgreSQL server and tests run as the unprivileged 'postgres' user,
# because initdb and the TAP framework refuse to run as root.

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PACKAGES="make g++ clang-14 libclang-rt-14-dev postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR
  libxxhash-dev libicu-dev libgtest-dev libipc-run-perl"

need_root() {
    if [ "$(id -u)" != 0 ]; then
        echo "Run this as root (for example: sudo bash $0): it installs Debian packages." >&2
        exit 1
    fi
}

install_missing_packages() {
    local missing=""
    for p in $PACKAGES; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
    done
    if [ -n "$missing" ]; then
        echo "== installing:$missing"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
    fi
    # clang++ for libFuzzer: Debian names it clang++-14.
    command -v clang++ >/dev/null || ln -sf "$(command -v clang++-14)" /usr/local/bin/clang++
}

build_and_install() {
    echo "== building and installing the extension"
    make -s clean >/dev/null
    make -s WERROR=1 -j"$(nproc)"
    make -s install
}

# A copy of the source tree owned by the unprivileged user: pg_regress and the
# TAP framework write their results next to the tests.
make_user_tree() {
    WORK=$(mktemp -d /tmp/simhash-work.XXXXXX)
    cp -a . "$WORK/src"
    chown -R postgres:postgres "$WORK"
    TREE="$WORK/src"
}

# C.UTF-8 whatever the caller's locale: with none set (a fresh container or
# chroot) initdb made an SQL_ASCII cluster, which fails the UTF-8 tests, and a
# LANG naming a locale that is not installed stopped initdb.
as_pg() {
    su postgres -s /bin/bash -c "cd '$TREE' && export LC_ALL=C.UTF-8 PATH='$PG_BIN:$PATH' PGHOST='$WORK' PGPORT='${PGPORT:-5432}'; $*"
}

# A throwaway cluster on a private socket directory and an unused port.
start_cluster() {
    PGPORT=${PGPORT:-54329}
    while ss -ltn 2>/dev/null | grep -q ":$PGPORT "; do PGPORT=$((PGPORT + 1)); done
    echo "== starting a throwaway PostgreSQL $PG_MAJOR cluster on port $PGPORT"
    as_pg "initdb -D '$WORK/data' -U postgres -A trust --locale=C.UTF-8 --encoding=UTF8 >/dev/null"
    as_pg "pg_ctl -D '$WORK/data' -l '$WORK/server.log' -o \"-p $PGPORT -k '$WORK' -c listen_addresses=''\" -w start >/dev/null"
}

stop_cluster() {
    [ -n "${WORK:-}" ] && [ -d "$WORK/data" ] && as_pg "pg_ctl -D '$WORK/data' -m fast -w stop >/dev/null" || true
}
