#!/usr/bin/env bash
# Fuzzes the running table server against its own OpenAPI document
# (/api/openapi.json) with schemathesis: every operation, bounded in examples and
# in time. Installs schemathesis from PyPI into a venv under the target dir the
# first time (and python3-venv with apt-get if the machine lacks it), builds
# `baccarat`, serves a fresh casino on a temp database on a free loopback port,
# signs in (admin, two demo players), and runs three passes:
#
#   1. as player1: the player's own routes (wagers, withdraw, hand, me, history);
#   2. as the admin: every operation except POST /api/logout;
#   3. as player2: POST /api/logout (it ends the session it is sent with).
#
# Exits non-zero if any pass reports a failure. Settings (environment):
# SCHEMATHESIS_EXAMPLES (per operation, default 100), SCHEMATHESIS_SEED (default
# 1), SCHEMATHESIS_SECONDS (wall-clock bound of each pass, default 300).
set -euo pipefail
cd "$(dirname "$0")/.."

version=4.32.5
examples=${SCHEMATHESIS_EXAMPLES:-100}
seed=${SCHEMATHESIS_SEED:-1}
seconds=${SCHEMATHESIS_SECONDS:-300}
target=${CARGO_TARGET_DIR:-target}
venv="$target/schemathesis-venv"
# Every check but positive_data_acceptance: a schema-valid request may still be
# refused by the game (409), by a TOML configuration that does not parse, or by
# a bound counted in bytes (the schema counts characters); the WebSocket route
# needs upgrade headers. Those answers are documented, and checked as such.
checks=all
exclude_checks=positive_data_acceptance

# python3-venv: apt only when the machine lacks it (sudo only when not root).
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then as_root=(env); else as_root=(sudo env); fi
    as_root+=(DEBIAN_FRONTEND=noninteractive)
    log=$(mktemp)
    if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y -q --no-install-recommends python3-venv; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "schemathesis: could not install python3-venv with apt-get" >&2
        exit 1
    fi
    rm -f "$log"
    echo "schemathesis: installed python3-venv"
fi

# schemathesis, pinned (its CLI changes between major versions), from PyPI.
if [ "$("$venv/bin/st" --version 2>/dev/null)" != "st, version $version" ]; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    if ! "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==$version"; then
        echo "schemathesis: pip install schemathesis==$version failed" >&2
        exit 1
    fi
    echo "schemathesis: installed $("$venv/bin/st" --version)"
fi
st="$venv/bin/st"
py="$venv/bin/python"

# The test profile (optimised; target/debug): `cargo test --workspace` has built
# it already in CI, and GET /api/verify answers within the 10 s limit.
cargo build -q --profile test -p baccarat
bin="$target/debug/baccarat"

tmp=$(mktemp -d)
server=
cleanup() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$tmp"
}
trap cleanup EXIT

port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base="http://127.0.0.1:$port"
# A high per-user rate, so that the fuzzer reaches the handlers (429 is still
# documented and answered past it).
# The demo casino, so that the fuzzer finds tables and players; the first
# admin's password is given (a first run never prints it).
admin_password="schemathesis-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
BACCARAT_ADMIN_PASSWORD="$admin_password" "$bin" serve --demo --db "$tmp/fuzz.db" --addr "127.0.0.1:$port" --rate 100000 >"$tmp/server.log" 2>&1 &
server=$!

# Up when it prints its address.
for _ in $(seq 1 240); do
    grep -q '^baccarat table server on' "$tmp/server.log" && break
    if ! kill -0 "$server" 2>/dev/null; then
        cat "$tmp/server.log" >&2
        echo "schemathesis: the server did not start" >&2
        exit 1
    fi
    sleep 0.5
done
if ! grep -q '^baccarat table server on' "$tmp/server.log"; then
    cat "$tmp/server.log" >&2
    echo "schemathesis: the server did not start within 120 s" >&2
    exit 1
fi
if ! grep -q 'sign in as "admin" with the password from BACCARAT_ADMIN_PASSWORD' "$tmp/server.log"; then
    cat "$tmp/server.log" >&2
    echo "schemathesis: the server did not found its admin with BACCARAT_ADMIN_PASSWORD" >&2
    exit 1
fi

# A session token for NAME PASSWORD.
login() {
    "$py" - "$base" "$1" "$2" <<'EOF'
import json, sys, urllib.request
base, name, password = sys.argv[1:]
body = json.dumps({"name": name, "password": password}).encode()
req = urllib.request.Request(base + "/api/login", body, {"Content-Type": "application/json"})
print(json.load(urllib.request.urlopen(req, timeout=60))["token"])
EOF
}
admin=$(login admin "$admin_password")
player1=$(login player1 demo)
player2=$(login player2 demo)

# The live table (5) has a shoe and is taking bets, so that the dealer's
# commands and the players' wagers meet a coup there too.
"$py" - "$base" "$admin" <<'EOF'
import json, sys, urllib.error, urllib.request
base, token = sys.argv[1:]
for command in [
    {"command": "start_shoe", "source": {"live": {"decks": 8}}, "cut": {"at": 100, "from_back": 30}, "show_burn": False},
    {"command": "open_betting", "no_bet": False},
]:
    req = urllib.request.Request(base + "/api/tables/5/commands", json.dumps(command).encode(),
                                 {"Content-Type": "application/json", "Authorization": "Bearer " + token})
    try:
        urllib.request.urlopen(req, timeout=60)
    except urllib.error.HTTPError as e:
        sys.exit(f"schemathesis: {command['command']} at table 5: {e.code} {e.read().decode()}")
EOF

# Ids that exist (tables 1-5, players 5-9, wagers from 1) are drawn most of the
# time, so that requests reach the handlers rather than stop at 404; the rest
# are fuzzed. The engine's commands (30 kinds) and the wager bodies get more
# examples than the rest.
cat >"$tmp/schemathesis.toml" <<EOF
generation.max-examples = $examples
# Nothing is kept between runs (no .schemathesis/ in the work tree).
cache.enabled = false

[dictionaries.tables]
values = [1, 2, 3, 4, 5]

[dictionaries.players]
values = [5, 6, 7, 8, 9]

[dictionaries.wagers]
values = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20]

[parameters]
"path.id" = { dictionary = "tables", probability = 0.9 }
"body.wager" = { dictionary = "wagers", probability = 0.8 }
"body.player" = { dictionary = "players", probability = 0.8 }

[[operations]]
include-path = "/api/players/{id}/deposit"
parameters = { "path.id" = { dictionary = "players", probability = 0.9 } }

[[operations]]
include-path = "/api/tables/{id}/commands"
generation.max-examples = $((examples * 5))

[[operations]]
include-path = "/api/tables/{id}/wagers"
generation.max-examples = $((examples * 3))
EOF

# One pass: TOKEN, a name for its report, then st's operation filters. One
# worker: with two, hypothesis hit "SystemError: AST constructor recursion depth
# mismatch" (its lambda descriptions, from two threads, on Python 3.11).
status=0
pass() {
    local token=$1 name=$2
    shift 2
    echo "schemathesis: pass '$name'"
    local started=$SECONDS rc=0
    timeout "$seconds" "$st" --config-file "$tmp/schemathesis.toml" run "$base/api/openapi.json" \
        --header "Authorization: Bearer $token" \
        --checks "$checks" --exclude-checks "$exclude_checks" \
        --phases examples,coverage,fuzzing \
        --seed "$seed" \
        --workers 1 \
        --generation-database none \
        --request-timeout 30 \
        --suppress-health-check all \
        --no-color \
        --report junit --report-junit-path "$target/schemathesis/$name.xml" \
        "$@" 2>&1 | tee "$tmp/$name.out" || rc=$?
    if [ "$rc" -eq 124 ]; then
        echo "schemathesis: pass '$name' ran over its $seconds s bound" >&2
    fi
    echo "schemathesis: pass '$name' took $((SECONDS - started)) s (exit $rc)"
    if [ "$rc" -ne 0 ]; then status=1; fi
}
mkdir -p "$target/schemathesis"
start=$SECONDS
pass "$player1" player \
    --include-path-regex '^/api/(tables/\{id\}/(wagers|withdraw|hand)|me|me/history)$'
pass "$admin" admin --exclude-path /api/logout
pass "$player2" logout --include-path /api/logout

if ! kill -0 "$server" 2>/dev/null; then
    echo "schemathesis: the server died during the run" >&2
    status=1
fi
# The figures of the run, from each pass's summary: "Operations: N selected /
# M total", "Tested: N", "N generated, N passed, …", and the closing line "N
# failures, M warnings in T s" (or "No issues found in T s").
tested=0 cases=0 passed=0
for name in player admin logout; do
    t=$(sed -n 's/^ *Tested: \([0-9]*\).*/\1/p' "$tmp/$name.out" | tail -n 1)
    c=$(sed -n 's/^ *\([0-9]*\) generated.*/\1/p' "$tmp/$name.out" | tail -n 1)
    p=$(sed -n 's/^ *[0-9]* generated, \([0-9]*\) passed.*/\1/p' "$tmp/$name.out" | tail -n 1)
    tested=$((tested + ${t:-0}))
    cases=$((cases + ${c:-0}))
    passed=$((passed + ${p:-0}))
done
operations=$(sed -n 's/^ *Operations: *[0-9]* selected \/ \([0-9]*\) total.*/\1/p' "$tmp/admin.out" | head -n 1)
failures=$(awk '/^=+ .* in [0-9.]+s =+$/ { for (i = 2; i < NF; i++) if ($(i + 1) ~ /^(failures?|errors?),?$/) n += $i }
    END { print n + 0 }' "$tmp"/player.out "$tmp"/admin.out "$tmp"/logout.out)
echo "schemathesis $version: ${operations:-?} operations ($tested tested in 3 passes), $cases test cases," \
    "$failures failures or errors, $((SECONDS - start)) s; reports in $target/schemathesis/"
echo "schemathesis: $passed passed, $failures failed"
if [ "$status" -ne 0 ]; then
    echo "schemathesis: failures (server log: last lines follow)" >&2
    tail -n 40 "$tmp/server.log" >&2
fi
exit "$status"
