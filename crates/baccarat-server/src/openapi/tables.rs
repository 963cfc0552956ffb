//! The lobby, one table, its WebSocket and a player's routes at a table: their
//! part of the API document (`http/mod.rs`, `http/play.rs`), with the body of
//! a wager or a bet slip, the richest request the server reads.

use serde_json::{json, Value};

use super::*;

/// The body of a wager or a bet slip (`play.rs`'s `WagerBody`, `SlipLine`).
/// Every optional field is an `Option` read with `#[serde(default)]`, so
/// `null` stands for absent.
fn wager_body() -> Value {
    let spot = || {
        let mut b = nullable(int(1, 14));
        b["description"] = json!("the box (default: one derived from the player's id)");
        b
    };
    let ante = || {
        let mut a = nullable(int(0, MAX_LIMIT));
        a["description"] = json!("the ante with an initial wager at an Ante Up table (AU 14.5)");
        a
    };
    let bet = || string_enum(&bet_ids());
    let line = closed(&[("bet", bet()), ("amount", amount()), ("spot", spot()), ("ante", ante())], &["bet", "amount"]);
    let slip = json!({ "type": "array", "minItems": 1, "maxItems": crate::casino::MAX_SLIP, "items": line });
    let one = closed(
        &[
            ("bet", bet()),
            ("amount", amount()),
            ("spot", spot()),
            ("ante", ante()),
            ("wagers", null_only("array")),
            ("token", {
                let mut t = nullable(boolean());
                t["description"] = json!("made with the player's promotional tokens (NSW 1.1); no ante");
                t
            }),
            ("key", key()),
        ],
        &["bet", "amount", "key"],
    );
    let slip = closed(
        &[
            ("wagers", slip),
            ("spot", spot()),
            ("bet", null_only("string")),
            ("amount", null_only("integer")),
            ("ante", null_only("integer")),
            ("token", json!({ "type": "boolean", "enum": [false], "nullable": true })),
            ("key", key()),
        ],
        &["wagers", "key"],
    );
    json!({ "oneOf": [one, slip] })
}

/// The lobby, one table, its WebSocket, and a player's routes: `mod.rs`, `play.rs`.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn operations() -> Vec<Operation> {
    let casino = Op::new("The casino: how it was founded, empty (a real casino) or the demo (`serve --demo`)")
        .ok("the casino", derived::<crate::bodies::CasinoFounding>());
    let (health, ready) = probes();
    let lobby = Op::new("The lobby: every table's public view")
        .ok("tables", object(&[("tables", array(schema_ref("TableView")))]));
    let create = Op::new("Admin: create a table from a configuration in TOML, checked against its rulebook profile")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(
            &[
                (
                    "name",
                    json!({ "type": "string", "minLength": 1, "maxLength": 64,
                            "description": "1 to 64 bytes, not only spaces" }),
                ),
                (
                    "config",
                    json!({ "type": "string", "description": "a table configuration in TOML, with its `rulebook`" }),
                ),
                ("mode", nullable(string_enum(&["rng", "live"]))),
                ("float", nullable(int(1, MAX_LIMIT))),
            ],
            &["name", "config"],
        ))
        .example(json!({
            "name": "Salon 9",
            "config": "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n",
            "mode": "rng",
        }))
        .describe(
            "Names are unique in the casino, compared trimmed and in any case. The same name with the same \
             rulebook, configuration (compared as parsed) and mode answers the table that has it, as when it was \
             made, and makes nothing: a retry is safe. A table closed for good keeps its name.",
        )
        .ok("created, or the same table asked for again", schema_ref("TableReply"))
        .err(400, "config: not TOML, or no `rulebook` (`bad_request`)")
        .err(
            409,
            "a table has the name with another definition, each difference named, e.g. \"max: 500000 here, 300000 \
             asked\"; or the table of that name is closed for good (`table_exists`)",
        )
        .err(422, "the configuration's problems against its profile, or the casino's bounds (`config`)")
        .writer();
    let partitions = Op::new("The casino's partitions: where each is served, its tables, and its path")
        .describe(
            "A partition (serve --partition NAME) has table ids of its own. Any server of the casino passes a \
             request under `/p/NAME/` (as /p/NAME/api/tables/1/wagers, or its WebSocket) to the server holding \
             NAME's lease, which answers it as its route without the prefix: 404 `no_partition` for a name \
             that is none, 502 or 503 naming a partition whose server cannot be reached yet. `partition` is \
             the one this server serves; a casino without partitions lists none.",
        )
        .ok("partitions", derived::<crate::bodies::Partitions>())
        .err(503, "the partitions' lease rows cannot be read (`unavailable`)");
    let one = on_table(Op::new("One table's public view")).ok("the table", schema_ref("TableView"));
    let mut ws = on_table(Op::new("WebSocket: the table's view after every durable change").describe(
        "Signed in by the session cookie sent with the upgrade (from a page of the server's own origin, or one \
             of its --allowed-origin), or by a first message {\"token\": …}; never by the URL. Each message (the \
             component `TableMessage`) is \
             the table as the viewer may see it, their balance and their wagers in this coup, the server's time \
             (`now_ms`) and how long a player may squeeze a hand out with them at an RNG table (`squeeze_ms`) \
             before the dealer exposes it. A dealer's, supervisor's or admin's message also carries `pit` (as \
             GET …/pit without the table and the rulebook's quotes: the coup's wagers and approvals, the \
             notices, the shoes), so the pit console polls nothing. With `?deltas=1` (the pages' choice) each \
             frame is numbered: `{seq, committed_ms, full}` with the whole message, first and whenever a delta \
             would not be smaller or the client sends {\"resync\": true}, else `{seq, committed_ms, delta}`, a \
             merge patch of the last message (`null` sets a member to null; `{\"$tail\": [k, items]}` keeps an \
             array's first k items and appends the items): docs/api.md, `Table WebSocket`.",
    ))
    .param(json!({
        "name": "deltas", "in": "query", "required": false,
        "schema": { "type": "string", "enum": ["0", "1"] },
        "description": "1: numbered frames, the whole message once and then deltas; 0 or absent: whole messages"
    }))
    .err(400, "a token in the URL (`bad_request`), a `deltas` other than 0 or 1 (`bad_request`), or not a WebSocket upgrade (`upgrade`)")
    .err(401, "the cookie's session has ended (`unauthorized`)")
    .err(
        403,
        "signed in by the session cookie from a page of another origin, or with no Origin header (`origin`): a \
         cookie upgrade comes from the server's own origin or one of its --allowed-origin; a token sent as \
         the first message, or a bearer token, is not affected",
    )
    .err(426, "the connection cannot be upgraded (`upgrade`)");
    ws.0["security"] = json!([{}, { "cookie": [] }]);
    ws.0["responses"]["101"] = json!({ "description": "switching to the WebSocket" });
    let wagers =
        on_table(Op::new("Player: place a wager, or a bet slip of up to 32; acknowledged once durable").describe(
            "One wager ({bet, amount, spot?, ante?, key}) or a slip ({wagers: [{bet, amount, spot?, ante?}], \
             spot?, key}): each line of a slip is placed or refused on its own. Retry with the same key.",
        ))
        .auth()
        .roles("players")
        .limited()
        .body(wager_body())
        .example(json!({ "bet": "banker", "amount": 1000, "key": "wager-1" }))
        .ok(
            "placed (one wager), or each line's result (a slip)",
            json!({ "oneOf": [schema_ref("WagerReply"), schema_ref("SlipReply")] }),
        )
        .err(
            400,
            "an unknown bet id, an amount or ante out of range, a box not from 1 to 14, an empty or long slip, a key \
         not 1 to 128 bytes, bet and wagers together or neither (`bad_request`, `slip`)",
        )
        .err(403, "the player's own loss or time limit, or cool-off, refuses it (`self_limit`): /api/me/limits")
        .refusals()
        .writer();
    let withdraw = on_table(Op::new("Player: take back one's own wager while betting is open (NSW 5.4)"))
        .auth()
        .roles("players")
        .limited()
        .body(closed(&[("wager", u64s())], &["wager"]))
        .example(json!({ "wager": 1 }))
        .ok("withdrawn", schema_ref("EventsReply"))
        .refusals()
        .writer();
    let hand = on_table(Op::new(
        "Player holding a hand to squeeze: expose it, or decline it so it passes on (NSW 8.9-8.15; AU 8.9-8.16)",
    ))
    .auth()
    .roles("players")
    .limited()
    .body(closed(&[("action", string_enum(&["expose", "decline"])), ("side", nullable(side()))], &["action"]))
    .example(json!({ "action": "expose", "side": "player" }))
    .ok("done", schema_ref("EventsReply"))
    .refusals()
    .err(409, "no hand is out with a player to expose (`conflict`)")
    .writer();
    vec![
        ("get", "/api/tables", lobby),
        ("get", "/api/partitions", partitions),
        ("post", "/api/tables", create),
        ("get", "/api/tables/{id}", one),
        ("get", "/api/tables/{id}/ws", ws),
        ("post", "/api/tables/{id}/wagers", wagers),
        ("post", "/api/tables/{id}/withdraw", withdraw),
        ("post", "/api/tables/{id}/hand", hand),
        ("get", "/api/casino", casino),
        ("get", "/health", health),
        ("get", "/ready", ready),
        ("get", "/healthz", probes().0),
        ("get", "/readyz", probes().1),
        ("post", "/api/tables/{id}/close", close()),
    ]
}

/// `GET /healthz` and `GET /readyz` (also `/health` and `/ready`:
/// `http/health.rs`).
fn probes() -> (Op, Op) {
    let health = Op::new("Liveness: 200 while the process answers (`serving` says whether it serves the casino now)")
        .ok("alive", derived::<crate::bodies::Alive>());
    let ready = Op::new(
        "Readiness: 200 while this server serves the casino (its store open and recovered, its writer running, its \
         lease held); 503 naming the reason while it starts, recovers or stands by, and once its lease is lost, its \
         writer stops or a fatal condition is found, so that a balancer sends players only where wagers are taken",
    )
    .ok("ready", derived::<crate::bodies::Ready>())
    .err(503, "not serving now (`unavailable`; `error` names why)");
    (health, ready)
}

/// `POST /api/tables/{id}/close` (`http/tables.rs`).
fn close() -> Op {
    let reply = schema_ref("TableClosedReply");
    on_table(Op::new("Admin: close the table for good; its float goes back to the cage"))
        .describe(
            "With no coup in play the table closes now, and everything its house, commission and antes accounts \
             hold goes back to the cage (`closed: true`, `credited`). With a coup in play (wagers held) it takes \
             no new wager and closes when that coup settles (`closed: false`, `closing: true`). A closed table \
             takes no wager or command (409 `closed`), is no longer paced, and stays in the lobby with \
             `closed: true`, in the records and in `verify`; its name is not reused.",
        )
        .auth()
        .roles("admins")
        .limited()
        .body(closed(&[], &[]))
        .example(json!({}))
        .ok("closed, with what went back to the cage; or closing once its coup settles", reply)
        .err(409, "the table is closed already (`closed`), or the ledger refused (`ledger`)")
        .writer()
}
