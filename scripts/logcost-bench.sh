#!/usr/bin/env bash
# What the access line, the metrics and the spans cost under load
# (issue 48; docs/performance.md, "What logs and metrics cost").
#
#   scripts/logcost-bench.sh BASE_BIN NEW_BIN [PAIRS] [SECONDS]
#
# BASE_BIN and NEW_BIN are release builds of `baccarat` (e.g. the commit
# before the logging, built in a worktree of its own, and this one). Each
# run serves a fresh demo casino in a temporary directory of its own
# (`serve --demo --deal-ms 0 --result-ms 0`, its log to a file there),
# pinned to CPU 0, and drives it with `loadgen --seconds SECONDS` (64
# connections, slips of 4) pinned to CPU 1: NEW's loadgen for both builds,
# so that the client is the same. The machine must be otherwise quiet (no
# build running): pinning does not keep other processes off those CPUs. PAIRS pairs (default 9) for each
# way of logging (the default, an access line a request; and
# RUST_LOG=info,baccarat_server::access=warn), interleaved: pair i runs
# base then new when i is odd, new then base when it is even (A B B A ...),
# and the two ways of logging take turns, so that a machine drifting in
# speed weighs on both builds and both ways alike.
#
# Prints a row per run (TSV, to stdout and RESULTS, default
# /tmp/logcost-bench.tsv: build, logging, bets/s, ack p99 ms, the server's
# CPU microseconds per accepted wager over the whole run, and the same over
# the load phase only) and then, for each way of logging, the pairs'
# ratios new/base of accepted bets/s and the median of those ratios, the
# medians of ack p99, and the pairs' ratios of CPU per wager. Column 5
# counts loadgen's set-up too: its players made and signed in, an Argon2
# hash each on the server, seconds of CPU that are the same for both builds
# and, in a 10 s run, more than the load's own; column 6 starts at
# loadgen's `load:` line and is what to compare. Needs taskset
# (util-linux) and python3.
set -euo pipefail

base=${1:?usage: logcost-bench.sh BASE_BIN NEW_BIN [PAIRS] [SECONDS]}
new=${2:?usage: logcost-bench.sh BASE_BIN NEW_BIN [PAIRS] [SECONDS]}
pairs=${3:-9}
seconds=${4:-10}
results=${RESULTS:-/tmp/logcost-bench.tsv}
password=bench-admin-password-1
port=18300

# The user and system CPU time of process $1 so far, in clock ticks
# (/proc/PID/stat fields 14 and 15; the name, field 2, has no spaces here).
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat"
}

# One run: serve with binary $1 (build name $2, logging $3) and load it.
run() {
    local bin=$1 build=$2 logging=$3 dir pid url json
    dir=$(mktemp -d "${RUN_DIR:-/tmp}/logcost-run.XXXXXX")
    port=$((port + 1))
    local env=(env -u RUST_LOG -u BACCARAT_LOG_LEVEL BACCARAT_ADMIN_PASSWORD=$password)
    if [ "$logging" = quiet ]; then
        env+=(RUST_LOG=info,baccarat_server::access=warn)
    fi
    (cd "$dir" && exec "${env[@]}" taskset -c 0 "$bin" serve --demo --deal-ms 0 --result-ms 0 \
        --db "$dir/casino.db" --addr "127.0.0.1:$port" >"$dir/out" 2>"$dir/log") &
    pid=$!
    for _ in $(seq 300); do
        grep -q 'table server on' "$dir/out" 2>/dev/null && break
        sleep 0.1
    done
    url=http://127.0.0.1:$port
    # The server's CPU time (user + system, clock ticks) around the load:
    # what it spent per accepted wager varies far less with a busy machine
    # than wagers per second do (a shared core slows the wall clock, not
    # the work).
    local before after t0 t1 tk0 tk1
    before=$(cpu_ticks "$pid")
    BACCARAT_ADMIN_PASSWORD=$password taskset -c 1 "$new" loadgen --url "$url" --seconds "$seconds" \
        --concurrency 64 --slip 4 >"$dir/report" 2>"$dir/loadgen.err" &
    local lg=$!
    # The load phase only (column 6): from loadgen's `load:` line, which it
    # prints once its players are made and signed in (an Argon2 hash each on
    # the server, a fixed cost that column 5 counts), to half a second
    # before the load ends.
    t0=''
    for _ in $(seq 6000); do
        if grep -q '^load:' "$dir/loadgen.err" 2>/dev/null; then
            t0=$(date +%s.%N) tk0=$(cpu_ticks "$pid")
            break
        fi
        kill -0 "$lg" 2>/dev/null || break
        sleep 0.02
    done
    if [ -n "$t0" ]; then
        sleep "$(python3 -c "print(max($seconds - 0.5, 0.5))")"
        t1=$(date +%s.%N) tk1=$(cpu_ticks "$pid")
    fi
    wait "$lg" || cat "$dir/loadgen.err" >&2
    after=$(cpu_ticks "$pid")
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    python3 - "$build" "$logging" "$dir/report" "$((after - before))" "$(getconf CLK_TCK)" \
        "${t0:-0}" "${t1:-0}" "$((${tk1:-0} - ${tk0:-0}))" <<'EOF' | tee -a "$results"
import re, sys
build, logging, report = sys.argv[1], sys.argv[2], sys.argv[3]
ticks, hz = int(sys.argv[4]), int(sys.argv[5])
t0, t1, wticks = float(sys.argv[6]), float(sys.argv[7]), int(sys.argv[8])
text = open(report).read()
m = re.search(r'^(\d+) accepted bets/s \((\d+) accepted', text, re.M)
bps, bets = (float(m.group(1)), int(m.group(2))) if m else (0.0, 0)
m = re.search(r'^\s+accepted\s+p50\s+\S+ ms\s+p99\s+(\S+) ms', text, re.M)
p99 = float(m.group(1)) if m else 0.0
cpu_us = ticks * 1e6 / hz / bets if bets else 0.0
# The load phase's CPU over the wagers accepted in it, at the run's rate.
window = bps * (t1 - t0)
load_us = wticks * 1e6 / hz / window if window > 0 else 0.0
print(f"{build}\t{logging}\t{bps:.0f}\t{p99:.3f}\t{cpu_us:.2f}\t{load_us:.2f}")
EOF
    rm -rf "$dir"
}

: >"$results"
for i in $(seq "$pairs"); do
    for logging in default quiet; do
        if [ $((i % 2)) -eq 1 ]; then
            run "$base" base "$logging"
            run "$new" new "$logging"
        else
            run "$new" new "$logging"
            run "$base" base "$logging"
        fi
    done
done

python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if l.strip()]
for logging in ('default', 'quiet'):
    runs = [r for r in rows if r[1] == logging]
    base = [r for r in runs if r[0] == 'base']
    new = [r for r in runs if r[0] == 'new']
    ratios, cells = [], []
    for b, n in zip(base, new):
        ratio = float(n[2]) / float(b[2]) if float(b[2]) else float('nan')
        ratios.append(ratio)
        cells.append(f"{float(n[2])/1000:.1f}/{float(b[2])/1000:.1f}k ({ratio:.2f})")
    print(f"\n{logging}: accepted bets/s new/base, pair by pair: " + ", ".join(cells))
    print(f"{logging}: median ratio {statistics.median(ratios):.3f}; "
          f"min {min(ratios):.3f}, max {max(ratios):.3f}")
    print(f"{logging}: ack p99 median new {statistics.median(float(n[3]) for n in new):.1f} ms, "
          f"base {statistics.median(float(b[3]) for b in base):.1f} ms")
    cpu = [float(n[4]) / float(b[4]) for b, n in zip(base, new) if float(b[4])]
    print(f"{logging}: server CPU per accepted wager, median new {statistics.median(float(n[4]) for n in new):.2f} us, "
          f"base {statistics.median(float(b[4]) for b in base):.2f} us; pairs' median ratio new/base "
          f"{statistics.median(cpu):.3f} (min {min(cpu):.3f}, max {max(cpu):.3f})")
    load = [float(n[5]) / float(b[5]) for b, n in zip(base, new) if float(b[5]) and float(n[5])]
    if load:
        print(f"{logging}: load phase only, median new {statistics.median(float(n[5]) for n in new):.2f} us, "
              f"base {statistics.median(float(b[5]) for b in base):.2f} us; pairs' median ratio new/base "
              f"{statistics.median(load):.3f} (min {min(load):.3f}, max {max(load):.3f})")
EOF
