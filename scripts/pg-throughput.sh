#!/usr/bin/env bash
# The server's throughput on PostgreSQL beside what the same cluster inserts
# in big batches, in the same run (issue 51 item 5):
#
#   scripts/pg-throughput.sh BIN [SECONDS] [ROUNDS]
#
# BIN: a release `baccarat`. A durable cluster (fsync and synchronous commit
# on: BACCARAT_PG_DURABLE=1 scripts/postgres.sh) is made in a temporary
# directory; each round runs, in turn:
#
#   1. the batched-insert baseline: one client (pgbench), one transaction at a
#      time, each inserting 1,000 rows into each of three tables shaped like
#      the casino's audit records, transfers and answers (3,000 rows, made by
#      the database itself: no bytes sent), for SECONDS;
#   2. the server: `serve --demo` on a fresh database of the same cluster and
#      `loadgen --tables 16 --concurrency ${CONCURRENCY:-64}` for SECONDS; the
#      rows it wrote (audit, transfers, answers) are counted before and after,
#      and its batch sizes and commit times read from /metrics (stderr).
#
# Printed per round: the baseline's rows/s, the server's accepted bets/s, its
# rows per wager and rows/s, the ratio of the two rows/s, and loadgen's
# every-request p99. Loadgen, the server and PostgreSQL share the machine's
# cores, as in every figure of docs/performance.md.
set -euo pipefail
bin=${1:?usage: $0 BIN [SECONDS] [ROUNDS]}
secs=${2:-20}
rounds=${3:-3}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
work=$(mktemp -d /tmp/pg-throughput.XXXXXX)
chmod 755 "$work"
# The databases made on an existing cluster (PG_URL) are dropped as they are
# done with: a round writes gigabytes, and an HA cluster's two copies filled
# this machine's disk after a dozen rounds.
made=()
drop_made() {
    local d
    for d in "${made[@]}"; do psql "$url" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1 ||
            echo "pg-throughput.sh: could not drop database $d; drop it by hand" >&2; done
    made=()
}
# The server stops cleanly on SIGTERM (its last batch, a checkpoint); one
# that has not ended within 30 s (a database gone under it) is killed, so
# that the script never waits on it for ever.
stop_server() {
    local _
    [ -n "${server:-}" ] || return 0
    kill "$server" 2>/dev/null || true
    for _ in $(seq 1 300); do kill -0 "$server" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$server" 2>/dev/null; then
        echo "pg-throughput.sh: the server did not stop within 30 s of SIGTERM; killing it" >&2
        kill -9 "$server" 2>/dev/null || true
    fi
    wait "$server" 2>/dev/null || true
    server=
}
cleanup() {
    stop_server
    [ -n "${url:-}" ] && drop_made
    bash "$here/postgres.sh" remove "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
# PG_URL: an existing cluster instead (scripts/postgres-ha.sh's, with its
# synchronous standby); its `postgres` database is where the others are made.
url=${PG_URL:-$(BACCARAT_PG_DURABLE=1 bash "$here/postgres.sh" start "$work/pg")}
pgbin=$(ls -d /usr/lib/postgresql/*/bin | tail -1)
psql() { "$pgbin/psql" -X -q -v ON_ERROR_STOP=1 "$@"; }
on() { printf '%s' "$url" | sed -E "s#/postgres(\\?|\$)#/$1\\1#"; }

psql "$url" -c "CREATE DATABASE baseline_$$"
made+=("baseline_$$")
psql "$(on baseline_$$)" <<'SQL'
CREATE TABLE b_audit (tbl BIGINT NOT NULL, seq BIGINT NOT NULL, prev TEXT NOT NULL, body TEXT NOT NULL,
  hash TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now(), PRIMARY KEY (tbl, seq));
CREATE TABLE b_transfers (id BIGSERIAL PRIMARY KEY, debit BIGINT NOT NULL, credit BIGINT NOT NULL,
  amount BIGINT NOT NULL, kind TEXT NOT NULL, memo TEXT NOT NULL, cause TEXT NOT NULL,
  at TIMESTAMPTZ NOT NULL DEFAULT now());
CREATE TABLE b_answers (seq BIGSERIAL PRIMARY KEY, key TEXT NOT NULL, key_id BYTEA NOT NULL,
  digest BYTEA NOT NULL, answer TEXT NOT NULL, at_ms BIGINT NOT NULL, cause TEXT NOT NULL);
CREATE INDEX b_answers_key ON b_answers (key);
CREATE SEQUENCE b_seq;
SQL
cat > "$work/batch.sql" <<'SQL'
BEGIN;
INSERT INTO b_audit (tbl, seq, prev, body, hash)
  SELECT 1, nextval('b_seq'), md5(g::text) || md5(g::text), repeat('w', 280), md5((g + 1)::text) || md5(g::text)
  FROM generate_series(1, 1000) g;
INSERT INTO b_transfers (debit, credit, amount, kind, memo, cause)
  SELECT g, g + 1, 500, 'hold', 'wager', 'table 1 coup ' || g FROM generate_series(1, 1000) g;
INSERT INTO b_answers (key, key_id, digest, answer, at_ms, cause)
  SELECT 'k' || nextval('b_seq'), decode(md5(g::text), 'hex'), decode(md5(g::text), 'hex'),
         repeat('a', 200), g, 'wager' FROM generate_series(1, 1000) g;
COMMIT;
SQL

rows_in() {
    psql "$1" -t -A -c "SELECT (SELECT count(*) FROM audit_all) + (SELECT count(*) FROM transfers)
                               + (SELECT count(*) FROM answer_log_all)"
}

printf 'round\tbaseline rows/s\tbets/s\trows/wager\tserver rows/s\tratio\tp99 ms\n'
for r in $(seq 1 "$rounds"); do
    # Each round's baseline starts from empty tables, as the server's round
    # starts from a fresh database: the rounds stay comparable.
    psql "$(on baseline_$$)" -c "TRUNCATE b_audit, b_transfers, b_answers"
    tps=$("$pgbin/pgbench" -n -T "$secs" -c 1 -f "$work/batch.sql" "$(on baseline_$$)" 2>/dev/null \
        | awk '/^tps = / {print $3}')
    base=$(awk -v t="$tps" 'BEGIN {printf "%.0f", t * 3000}')
    db="casino_$$_$r"
    psql "$url" -c "CREATE DATABASE $db"
    made+=("$db")
    rm -f "$work/admin" "$work/serve.log"
    BACCARAT_ADMIN_PASSWORD=throughput-admin-pw "$bin" serve --demo --db "$(on "$db")" \
        --addr 127.0.0.1:0 --anchor-file "$work/$db.anchors" --key-file "$work/$db.key" \
        > "$work/serve.log" 2>&1 &
    server=$!
    for _ in $(seq 1 300); do
        addr=$(grep -so 'listening on http://[0-9.:]*' "$work/serve.log" | head -1 | sed 's|listening on ||') || true
        [ -n "$addr" ] && break
        sleep 0.1
    done
    [ -n "$addr" ] || { cat "$work/serve.log" >&2; exit 1; }
    before=$(rows_in "$(on "$db")")
    out=$("$bin" loadgen --url "$addr" --admin-password throughput-admin-pw --tables 16 --seconds "$secs" --concurrency "${CONCURRENCY:-64}" --json)
    after=$(rows_in "$(on "$db")")
    # Where a batch's time goes: the writer's batch sizes and commit times.
    curl -s "$addr/metrics" | grep -E '^baccarat_writer_(batch_size|commit_seconds)_(sum|count)' \
        | awk '{v[$1] = $2} END {
            n = v["baccarat_writer_commit_seconds_count"];
            if (n > 0) printf "  batches %d, mean size %.1f, mean commit %.2f ms\n", n,
                v["baccarat_writer_batch_size_sum"] / n, 1000 * v["baccarat_writer_commit_seconds_sum"] / n }' >&2
    stop_server
    psql "$url" -c "DROP DATABASE $db WITH (FORCE)" && unset 'made[-1]'
    bets=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["accepted_bets_per_second"])')
    p99=$(printf '%s' "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["latency_ms"]["all"]["p99"])')
    awk -v r="$r" -v b="$base" -v w="$bets" -v rows=$((after - before)) -v s="$secs" -v p="$p99" 'BEGIN {
        per = rows / (w * s); srv = rows / s;
        printf "%d\t%.0f\t%.0f\t%.2f\t%.0f\t%.3f\t%s\n", r, b, w, per, srv, srv / b, p }'
done
