#!/usr/bin/env bash
# A highly available PostgreSQL for the casino on one machine (issue 51), from
# Debian's pg_auto_failover (package postgresql-15-auto-failover, command
# pg_autoctl): a monitor and two PostgreSQL nodes, a primary and a synchronous
# standby, on loopback ports, with automatic failover. docs/postgres-ha.md says
# why pg_auto_failover rather than Patroni and etcd, and what each failure costs.
#
#   scripts/postgres-ha.sh start DIR           # prints the connection URL on stdout
#   scripts/postgres-ha.sh stop DIR
#   scripts/postgres-ha.sh status DIR          # the monitor's view of the nodes
#   scripts/postgres-ha.sh kill-primary DIR    # kill -9 of the primary's machine
#   scripts/postgres-ha.sh kill-standby DIR    # kill -9 of the standby's, once the primary commits alone
#   scripts/postgres-ha.sh pause-primary DIR   # SIGSTOP of the primary's machine
#   scripts/postgres-ha.sh resume-primary DIR  # SIGCONT of what pause-primary stopped
#   scripts/postgres-ha.sh restart-node DIR N  # start node N again (after kill-primary)
#
# `start` installs pg_auto_failover (and PostgreSQL) from Debian's packages if
# missing (apt, as postgres.sh does), makes the monitor in DIR/monitor and the
# nodes in DIR/node1 and DIR/node2, each run by its own `pg_autoctl run` (the
# "keeper", which starts and watches that node's postmaster), and waits until
# node1 is primary and node2 its synchronous standby. It prints one line, the
# multi-host libpq URL the servers use:
#
#   postgres://postgres@127.0.0.1:P1,127.0.0.1:P2/postgres?target_session_attrs=read-write
#
# Money commits are synchronous: synchronous_commit is on (PostgreSQL's
# default, set explicitly) and pg_auto_failover names the standby in
# synchronous_standby_names ("ANY 1 (pgautofailover_standby_2)") once it is in
# sync: a commit is acknowledged only once the standby has its WAL. While the
# standby is down pg_auto_failover chooses availability: the monitor moves the
# primary to `wait_primary` and empties synchronous_standby_names, so commits
# go on with one copy only, until the standby is back and caught up
# (docs/postgres-ha.md: what that costs, and the operator's other choice).
#
# "The primary's machine" is its keeper and its postmaster with all its
# backends: killing only the postmaster is undone by the keeper within a second
# (a restart, not a failover), and stopping only the postmaster leaves its
# backends answering. kill-primary and pause-primary therefore signal them all.
#
# Ports: BACCARAT_PG_HA_PORT (the monitor's; the nodes take the next two), else
# three free loopback ports chosen at the first start and kept in DIR/ports.
# Failure detection is tuned for tests (health checks every second, a node
# unhealthy after 3 s); DIR is thrown away after the run. PostgreSQL refuses to
# run as root, so as root everything runs as the `postgres` user the package
# creates, and DIR must be reachable by it (as in postgres.sh).
set -euo pipefail

usage() {
    echo "usage: $0 start|stop|status|kill-primary|kill-standby|pause-primary|resume-primary DIR | restart-node DIR 1|2" >&2
    exit 2
}

case "$#:${1:-}" in
2:start | 2:stop | 2:status | 2:kill-primary | 2:kill-standby | 2:pause-primary | 2:resume-primary) cmd=$1; dir=$2 ;;
3:restart-node) cmd=$1; dir=$2; node=$3 ;;
*) usage ;;
esac

pg_bin() {
    local d
    for d in /usr/lib/postgresql/*/bin; do
        if [ -x "$d/pg_ctl" ]; then echo "$d"; fi
    done | sort -V | tail -n 1
}

install_packages() {
    if [ "$(id -u)" -eq 0 ]; then as_root=(env); else as_root=(sudo env); fi
    as_root+=(DEBIAN_FRONTEND=noninteractive)
    local log
    log=$(mktemp)
    if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y -q --no-install-recommends \
        postgresql postgresql-15-auto-failover; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "postgres-ha.sh: could not install postgresql-15-auto-failover with apt-get" >&2
        exit 1
    fi
    rm -f "$log"
}

# Run a program as the cluster's owner, with pg_autoctl's configuration and
# state kept in DIR (not in the owner's home, so that two clusters never share it).
as_owner() {
    local env=(env "XDG_CONFIG_HOME=$dir/config" "XDG_DATA_HOME=$dir/share" "XDG_RUNTIME_DIR=$dir/run"
        "PG_CONFIG=$bin/pg_config" "PATH=$bin:/usr/bin:/bin")
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "${env[@]}" "$@"; else "${env[@]}" "$@"; fi
}

# Make DIR (private to the cluster's owner) or check the one there, as postgres.sh does.
prepare_dir() {
    if [ -L "$dir" ]; then
        echo "postgres-ha.sh: $dir is a symbolic link; give a real directory" >&2
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
            echo "postgres-ha.sh: $dir belongs to $owner; give a directory of root's or postgres's" >&2
            exit 1
        fi
        chown postgres: "$dir"
    elif [ "$owner" != "$(id -un)" ]; then
        echo "postgres-ha.sh: $dir belongs to $owner, not to $(id -un); give a directory of your own" >&2
        exit 1
    fi
    if ! as_owner test -w "$dir" -a -x "$dir"; then
        echo "postgres-ha.sh: the postgres user cannot reach $dir (a directory above it is private)" >&2
        exit 1
    fi
}

# Three free loopback ports (monitor, node1, node2), chosen once and kept.
choose_ports() {
    if [ ! -f "$dir/ports" ]; then
        if [ -n "${BACCARAT_PG_HA_PORT:-}" ]; then
            local p=$BACCARAT_PG_HA_PORT
            echo "$p $((p + 1)) $((p + 2))" >"$dir/ports.new"
        else
            python3 -c '
import socket
ss = [socket.socket() for _ in range(3)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' >"$dir/ports.new"
        fi
        mv "$dir/ports.new" "$dir/ports"
    fi
    read -r mport port1 port2 <"$dir/ports"
}

port_of() { case "$1" in node1) echo "$port1" ;; node2) echo "$port2" ;; *) echo "$mport" ;; esac; }

monitor_url() { echo "postgres://autoctl_node@127.0.0.1:$mport/pg_auto_failover?sslmode=disable"; }

# Start a keeper (`pg_autoctl run`) for DIR/$1 in its own session, its pid kept
# in DIR/$1.pid, its output in DIR/$1.log; nothing if it is running already.
run_keeper() {
    local name=$1
    if [ -f "$dir/$name.pid" ] && kill -0 "$(cat "$dir/$name.pid")" 2>/dev/null; then return; fi
    # The subshell's own descriptors are replaced first, so that nothing left
    # running holds the caller's stdout open (a test reads it to its end).
    (
        exec >>"$dir/$name.log" 2>&1 </dev/null
        as_owner setsid pg_autoctl run --pgdata "$dir/$name"
    ) &
    echo $! >"$dir/$name.pid"
}

# SQL on the monitor, or on a node ($1 = port), unaligned and quiet.
sql_at() {
    local port=$1 db=$2
    shift 2
    as_owner psql -X -q -At -h 127.0.0.1 -p "$port" -d "$db" -U postgres "$@"
}


# The monitor: made once, its failure detection tuned for tests, then run.
start_monitor() {
    if [ ! -f "$dir/monitor/PG_VERSION" ]; then
        as_owner pg_autoctl create monitor --pgdata "$dir/monitor" --pgport "$mport" \
            --hostname 127.0.0.1 --listen 127.0.0.1 --auth trust --no-ssl >>"$dir/monitor.log" 2>&1 ||
            { cat "$dir/monitor.log" >&2; exit 1; }
        # Health checks every second; a node that fails them and has not
        # reported for 3 s is unhealthy; a standby waits 6 s for a dead
        # primary to acknowledge its demotion (more than the keeper's
        # network_partition_timeout of 3 s, after which a primary cut off from
        # the monitor and its standby demotes itself).
        cat >>"$dir/monitor/postgresql.conf" <<CONF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 3000
pgautofailover.primary_demote_timeout = 6000
CONF
    fi
    run_keeper monitor
}

# Node $1 (node1 or node2) on port $2: made once (the first becomes primary,
# the second is cloned from it as its standby), then run.
start_node() {
    local name=$1 port=$2
    if [ ! -f "$dir/$name/PG_VERSION" ]; then
        as_owner pg_autoctl create postgres --pgdata "$dir/$name" --pgport "$port" --pgctl "$bin/pg_ctl" \
            --hostname 127.0.0.1 --listen 127.0.0.1 --name "$name" --dbname postgres --auth trust --no-ssl \
            --monitor "$(monitor_url)" >>"$dir/$name.log" 2>&1 ||
            { cat "$dir/$name.log" >&2; exit 1; }
        as_owner pg_autoctl config set --pgdata "$dir/$name" timeout.network_partition_timeout 3 >/dev/null
        # Money commits wait for the standby (PostgreSQL's default, said here).
        # No server reads from a standby (they connect read-write), so the
        # standby need not hold back the primary's cleanup for its queries:
        # pg_auto_failover turns hot_standby_feedback on, and with it the
        # rows each commit updates (the accounts, the logs' ends, the leases)
        # kept their dead versions: 12 s into a run, accounts 279 pages and
        # 26,373 dead rows, 9% of its updates HOT; without, 5 pages, 227
        # dead, 99.8% HOT (docs/performance.md: 0.39 of the batched-insert
        # rate with it, 0.58 without, alternated on one cluster). A query on
        # the standby may be cancelled by replay instead: pg_autoctl's own,
        # which it retries. These lines follow pg_auto_failover's include,
        # so they win.
        printf '%s\n' "synchronous_commit = on" "hot_standby_feedback = off" >>"$dir/$name/postgresql.conf"
    fi
    run_keeper "$name"
}

# Waits (up to $2 seconds) until the monitor reports the formation as $1.
wait_for() {
    local want=$1 limit=$2 i
    for ((i = 0; i < limit * 2; i++)); do
        if [ "$(state_line)" = "$want" ]; then return 0; fi
        sleep 0.5
    done
    echo "postgres-ha.sh: the cluster in $dir did not reach '$want' in ${limit}s; it is '$(state_line)'" >&2
    return 1
}

# Each node's name and current state, as the monitor reports them: "node1:primary node2:secondary".
state_line() {
    sql_at "$mport" pg_auto_failover -c \
        "select string_agg(nodename || ':' || reportedstate, ' ' order by nodename) from pgautofailover.node" \
        2>/dev/null || true
}

# The node that is primary now (its name), as the monitor last heard.
primary_name() {
    sql_at "$mport" pg_auto_failover -c "select nodename from pgautofailover.node
        where reportedstate in ('primary', 'wait_primary', 'single') order by reportedtli desc limit 1" 2>/dev/null
}

# Every process of node $1's "machine": its keeper's session (pg_autoctl and
# the postmaster it starts) and the postmaster's children (each backend is in
# a session of its own).
node_pids() {
    local name=$1 pm sid
    pm=$(head -n 1 "$dir/$name/postmaster.pid" 2>/dev/null) || return 0
    sid=$(ps -o sid= -p "$pm" | tr -d ' ') || return 0
    ps -e -o pid=,sid=,ppid= | awk -v s="$sid" -v p="$pm" '$2 == s || $3 == p || $1 == p { print $1 }'
}

# The node that is the primary's standby now (its name).
standby_name() {
    sql_at "$mport" pg_auto_failover -c "select nodename from pgautofailover.node
        where reportedstate in ('secondary', 'catchingup') order by nodename limit 1" 2>/dev/null
}

# kill -9 of the standby's machine, then wait (up to 60 s) until the monitor
# has moved the primary to wait_primary: it no longer waits for the standby,
# and commits go on with one copy (docs/postgres-ha.md). Until then commits
# wait for the dead standby.
kill_standby() {
    local name pids i
    name=$(standby_name)
    [ -n "$name" ] || { echo "postgres-ha.sh: the monitor names no standby in $dir" >&2; exit 1; }
    pids=$(node_pids "$name")
    # shellcheck disable=SC2086 # one pid a word
    [ -z "$pids" ] || kill -9 $pids
    echo "$name" >&2
    for ((i = 0; i < 120; i++)); do
        if [ "$(sql_at "$mport" pg_auto_failover -c \
            "select count(*) from pgautofailover.node where reportedstate = 'wait_primary'" 2>/dev/null)" = 1 ]; then
            return 0
        fi
        sleep 0.5
    done
    echo "postgres-ha.sh: the primary in $dir did not reach wait_primary in 60 s" >&2
    exit 1
}

signal_primary() {
    local sig=$1 name pids
    name=$(primary_name)
    [ -n "$name" ] || { echo "postgres-ha.sh: the monitor names no primary in $dir" >&2; exit 1; }
    pids=$(node_pids "$name")
    [ -n "$pids" ] || { echo "postgres-ha.sh: $name (the primary) is not running" >&2; exit 1; }
    # shellcheck disable=SC2086 # one pid a word
    kill "-$sig" $pids
    # The keeper's wrappers are continued with the rest: runuser stops itself
    # when its child stops, and would otherwise stay stopped (and unreaped
    # after a stop) for ever.
    if [ "$sig" = STOP ]; then echo "$pids $(keeper_wrappers "$name")" >"$dir/paused"; fi
    echo "$name" >&2
}

# The processes run_keeper leaves between the caller and node $1's session:
# its subshell and runuser (when run as root), which are not in node_pids.
keeper_wrappers() {
    local sub
    sub=$(cat "$dir/$1.pid" 2>/dev/null) || return 0
    kill -0 "$sub" 2>/dev/null || return 0
    # shellcheck disable=SC2046 # one pid a word
    echo "$sub" $(ps -o pid= --ppid "$sub")
}

case "$cmd" in
start)
    bin=$(pg_bin)
    if [ -z "$bin" ] || ! command -v pg_autoctl >/dev/null; then
        install_packages
        bin=$(pg_bin)
    fi
    prepare_dir
    choose_ports
    mkdir -p "$dir/run" && chown --reference="$dir" "$dir/run"
    start_monitor
    start_node node1 "$port1"
    wait_for "node1:single" 60 || wait_for "node1:primary node2:secondary" 1 2>/dev/null || true
    start_node node2 "$port2"
    wait_for "node1:primary node2:secondary" 90 || wait_for "node1:secondary node2:primary" 1
    echo "postgres://postgres@127.0.0.1:$port1,127.0.0.1:$port2/postgres?target_session_attrs=read-write"
    ;;
status)
    bin=$(pg_bin)
    choose_ports
    as_owner pg_autoctl show state --pgdata "$dir/monitor"
    for n in node1 node2; do
        echo "$n synchronous_standby_names: $(sql_at "$(port_of $n)" postgres -c 'show synchronous_standby_names' 2>&1 || true)"
    done
    ;;
kill-primary) bin=$(pg_bin); choose_ports; signal_primary KILL ;;
kill-standby) bin=$(pg_bin); choose_ports; kill_standby ;;
pause-primary) bin=$(pg_bin); choose_ports; signal_primary STOP ;;
resume-primary)
    if [ -f "$dir/paused" ]; then
        # shellcheck disable=SC2046 # one pid a word
        kill -CONT $(cat "$dir/paused") 2>/dev/null || true
        rm -f "$dir/paused"
    fi
    ;;
restart-node)
    bin=$(pg_bin)
    choose_ports
    case "$node" in 1 | 2) run_keeper "node$node" ;; *) usage ;; esac
    ;;
stop)
    bin=$(pg_bin)
    [ -d "$dir" ] || exit 0
    if [ -f "$dir/paused" ]; then kill -CONT $(cat "$dir/paused") 2>/dev/null || true; rm -f "$dir/paused"; fi
    for n in node2 node1 monitor; do
        pids="$(node_pids "$n") $(keeper_wrappers "$n")"
        # shellcheck disable=SC2086 # one pid a word
        if [ -n "${pids// /}" ]; then kill -9 $pids 2>/dev/null || true; fi
        rm -f "$dir/$n.pid"
    done
    ;;
esac
