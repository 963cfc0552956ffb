#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests (crates/baccarat-server/tests/server/pg.rs)
# and for trying the server on PostgreSQL by hand:
#
#   scripts/postgres.sh start [DIR]   # prints the connection URL on stdout
#   scripts/postgres.sh stop [DIR]
#   scripts/postgres.sh remove [DIR]  # stop, then delete the cluster's files
#   scripts/postgres.sh dir           # prints the DIR used when none is given
#
# `start` installs PostgreSQL from Debian's packages if it is missing (apt, as
# browser-deps.sh does for Chromium), makes a new cluster in DIR/data and starts
# it listening only on a Unix socket in DIR (no TCP port, so nothing else on
# the machine can reach it, and two test runs never collide). The cluster trusts
# local connections and runs with fsync off: it is thrown away after the run,
# and what the tests check is the server's own crash behaviour (kill -9 of the
# server process), not the machine's. BACCARAT_PG_DURABLE=1 keeps PostgreSQL's
# durable defaults instead (fsync and synchronous commit on), for benchmarks
# that compare it with SQLite's synchronous=FULL. Idempotent: a running cluster in DIR is
# reused. PostgreSQL refuses to run as root, so as root the cluster runs as the
# `postgres` user the package creates.
#
# Without DIR (the tests and .ci/run give none): $BACCARAT_PG_DIR, else
# /tmp/baccarat-pg-<uid>-<hash of this checkout's path>: one cluster per
# checkout and user, outside the checkout. Inside it (target/tmp/pg, as
# before) the `postgres` user could not reach a checkout under a private
# directory (root's home, or one made by `mktemp -d`), and every PostgreSQL
# test failed with "could not change directory … Permission denied" (issue 45
# finding 14). A DIR it cannot reach is refused, naming the fix.
set -euo pipefail

usage() { echo "usage: $0 start|stop|remove [DIR] | dir" >&2; exit 2; }

# The cluster's directory when none is given (see above).
default_dir() {
    if [ -n "${BACCARAT_PG_DIR:-}" ]; then
        echo "$BACCARAT_PG_DIR"
        return
    fi
    local root hash
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
    hash=$(printf '%s' "$root" | sha256sum | cut -c1-12)
    echo "/tmp/baccarat-pg-$(id -u)-$hash"
}

case "$#:${1:-}" in
1:start | 1:stop | 1:remove | 1:dir) cmd=$1; dir=$(default_dir) ;;
2:start | 2:stop | 2:remove) cmd=$1; dir=$2 ;;
*) usage ;;
esac

pg_bin() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        if [ -x "$d/pg_ctl" ]; then echo "$d"; fi
    done | sort -V | tail -n 1
}

install_postgres() {
    if [ "$(id -u)" -eq 0 ]; then as_root=(env); else as_root=(sudo env); fi
    as_root+=(DEBIAN_FRONTEND=noninteractive)
    local log
    log=$(mktemp)
    if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y -q --no-install-recommends postgresql; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "postgres.sh: could not install postgresql with apt-get" >&2
        exit 1
    fi
    rm -f "$log"
}

# Run a PostgreSQL program as the cluster's owner.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Make DIR (private to the cluster's owner) or check the one there: not a
# symbolic link, owned by the cluster's owner (or by root, as root), and
# reachable by the owner through every directory above it.
prepare_dir() {
    if [ -L "$dir" ]; then
        echo "postgres.sh: $dir is a symbolic link; give a real directory" >&2
        exit 1
    fi
    if [ ! -e "$dir" ]; then
        mkdir -p "$(dirname "$dir")"
        mkdir -m 700 "$dir"
    fi
    dir=$(cd "$dir" && pwd -P)
    local owner
    owner=$(stat -c %U "$dir")
    if [ "$(id -u)" -eq 0 ]; then
        if [ "$owner" != root ] && [ "$owner" != postgres ]; then
            echo "postgres.sh: $dir belongs to $owner; give a directory of root's or postgres's (or set BACCARAT_PG_DIR)" >&2
            exit 1
        fi
        chown postgres: "$dir"
    elif [ "$owner" != "$(id -un)" ]; then
        echo "postgres.sh: $dir belongs to $owner, not to $(id -un); give a directory of your own (or set BACCARAT_PG_DIR)" >&2
        exit 1
    fi
    if ! as_owner test -w "$dir" -a -x "$dir"; then
        echo "postgres.sh: the postgres user cannot reach $dir (a directory above it is private);" \
            "give one it can reach, such as $(BACCARAT_PG_DIR='' default_dir), or set BACCARAT_PG_DIR" >&2
        exit 1
    fi
}

case "$cmd" in
dir)
    echo "$dir"
    ;;
start)
    bin=$(pg_bin)
    if [ -z "$bin" ]; then
        install_postgres
        bin=$(pg_bin)
        [ -n "$bin" ] || { echo "postgres.sh: PostgreSQL installed but pg_ctl not found" >&2; exit 1; }
    fi
    prepare_dir
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        # Its output kept in memory, not in a file that root would write in
        # the owner's directory (a link planted there would be followed).
        if ! out=$(as_owner "$bin/initdb" -D "$dir/data" -A trust -U baccarat -E UTF8 --no-locale 2>&1); then
            echo "$out" >&2
            exit 1
        fi
    fi
    opts="-k $dir -c listen_addresses='' -c max_connections=200"
    if [ "${BACCARAT_PG_DURABLE:-0}" != 1 ]; then
        opts="$opts -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    fi
    if ! as_owner "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start -o "$opts" \
            >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    fi
    # libpq's URL form: the socket directory is the host, percent-encoded.
    host=$(printf '%s' "$dir" | sed 's|/|%2F|g')
    echo "postgres://baccarat@${host}/postgres"
    ;;
stop | remove)
    bin=$(pg_bin)
    if [ -n "$bin" ] && [ -f "$dir/data/PG_VERSION" ]; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    # A CI checkout is new each run, and so is its cluster's directory: left
    # behind, each run's would fill /tmp (1.5 GB or more apiece).
    if [ "$cmd" = remove ] && [ -d "$dir" ] && [ ! -L "$dir" ]; then
        rm -rf -- "$dir"
    fi
    ;;
*)
    usage
    ;;
esac
