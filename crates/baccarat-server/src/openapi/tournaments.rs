//! The tournament routes' part of the API document (`http/tournaments.rs`,
//! `http/tournament_play.rs`).

use serde_json::{json, Value};

use super::*;

/// Tournaments (NSW 15.3, 15.4): `http/tournaments.rs`.
pub(super) fn operations() -> Vec<Operation> {
    let list = Op::new("Every tournament, with its fee, start and entrants")
        .ok("the tournaments", array(schema_ref("TournamentSummary")));
    let one = Op::new("One tournament, with the conditions as published to players (NSW 15.4.1)")
        .id("tournament", "no such tournament (`no_tournament`)")
        .ok("the tournament", schema_ref("TournamentSummary"));
    let create = Op::new("Admin: publish a tournament from its conditions file (TOML, NSW 15.4.2)")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(&[("conditions", string())], &["conditions"]))
        .example(json!({ "conditions": "name = \"Cup\"" }))
        .ok("published", schema_ref("TournamentReply"))
        .err(422, "the conditions do not check: every problem is named (`config`)")
        .err(409, "a bound on tournaments (`bounds`)")
        .writer();
    let nothing = || closed(&[], &[]);
    let enter = Op::new("Player: enter, paying the fee from one's wallet into the prize pool (NSW 15.3.2, 15.4.2(i))")
        .auth()
        .id("tournament", "no such tournament (`no_tournament`)")
        .roles("players")
        .limited()
        .body(nothing())
        .example(json!({}))
        .ok("entered", schema_ref("TournamentReply"))
        .refusals()
        .err(403, "the player's own loss or time limit, or cool-off, refuses it (`self_limit`): /api/me/limits")
        .writer();
    let withdraw = Op::new("Player: withdraw within the terms, the fee refunded (NSW 15.4.2(i); after it, 15.3.2)")
        .auth()
        .id("tournament", "no such tournament (`no_tournament`)")
        .roles("players")
        .limited()
        .body(nothing())
        .example(json!({}))
        .ok("withdrawn", schema_ref("TournamentReply"))
        .refusals()
        .writer();
    let cancel = Op::new("Admin: cancel, refunding every entry fee (NSW 15.3.4)")
        .auth()
        .id("tournament", "no such tournament (`no_tournament`)")
        .roles("admins")
        .limited()
        .body(nothing())
        .example(json!({}))
        .ok("cancelled", schema_ref("TournamentReply"))
        .refusals()
        .writer();
    vec![
        ("get", "/api/tournaments", list),
        ("post", "/api/tournaments", create),
        ("get", "/api/tournaments/{id}", one),
        ("post", "/api/tournaments/{id}/enter", enter),
        ("post", "/api/tournaments/{id}/withdraw", withdraw),
        ("post", "/api/tournaments/{id}/cancel", cancel),
    ]
}

/// Tournament play (NSW 15.5-15.11): `http/tournament_play.rs`.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn play_operations() -> Vec<Operation> {
    let no = "no such tournament (`no_tournament`)";
    let bet = || string_enum(&bet_ids());
    let stake = || closed(&[("bet", bet()), ("amount", amount())], &["bet", "amount"]);
    let kind = |k: &str| string_enum(&[k]);
    let action = json!({ "oneOf": [
        closed(&[("kind", kind("wager")), ("bet", bet()), ("amount", amount())], &["kind", "bet", "amount"]),
        closed(&[("kind", kind("pass"))], &["kind"]),
        closed(
            &[("kind", kind("undisclosed")), ("commitment", seed()), ("with", nullable(stake()))],
            &["kind", "commitment"],
        ),
        closed(&[("kind", kind("late")), ("bet", bet())], &["kind", "bet"]),
        closed(&[("kind", kind("absent"))], &["kind"]),
    ] });
    let nothing = || closed(&[], &[]);
    let manager = |summary: &str, body: Value, example: Value| {
        Op::new(summary)
            .auth()
            .id("tournament", no)
            .roles("tournament managers")
            .limited()
            .body(body)
            .example(example)
            .ok("done", schema_ref("TournamentReply"))
            .refusals()
            .writer()
    };
    let table = || closed(&[("table", int(1, 10_001))], &["table"]);
    let view = Op::new(
        "The play as everyone sees it: each table's coup, limits, marker and turn, every seat's chips and action \
         (an undisclosed wager's form only once its table's are all shown, NSW 15.8), the standings, the shoes' \
         commitments and the seeds of rounds that are over, the placings and prizes; null before the start",
    )
    .id("tournament", no)
    .ok("the play", nullable_ref("PlayView"));
    let start =
        manager("Tournament Manager: start play; the first round seated by draw (NSW 15.5)", nothing(), json!({}));
    let act = Op::new(
        "Player: wager, pass (NSW 15.7) or make an undisclosed wager (its SHA-256 commitment, NSW 15.8) from one's \
         own box, in the marker's order (NSW 15.9); Tournament Manager: `late` (the minimum, NSW 15.6.12) or \
         `absent` (NSW 15.5.6.1) for a named player",
    )
    .auth()
    .id("tournament", no)
    .roles("players and tournament managers")
    .limited()
    .body(closed(&[("action", action), ("player", u32s())], &["action"]))
    .example(json!({ "action": { "kind": "wager", "bet": "banker", "amount": 1000 } }))
    .ok("done", schema_ref("TournamentReply"))
    .refusals()
    .writer();
    let reveal =
        Op::new("Player: show one's undisclosed wager's form and secret after \"no more bets\" (NSW 15.8.2.6)")
            .auth()
            .id("tournament", no)
            .roles("players")
            .limited()
            .body(closed(&[("form", nullable(stake())), ("salt", string())], &["form", "salt"]))
            .example(json!({ "form": { "bet": "banker", "amount": 1000 }, "salt": "a secret" }))
            .ok("done", schema_ref("TournamentReply"))
            .refusals()
            .writer();
    let nmb = manager("Tournament Manager: \"no more bets\" at a table (NSW 15.6.4)", table(), json!({ "table": 1 }));
    let deal = manager(
        "Tournament Manager: deal the coup at a table from its shoe and settle it in tournament chips (NSW 15.2.1)",
        table(),
        json!({ "table": 1 }),
    );
    let end = manager(
        "Tournament Manager: end the round: who advances (NSW 15.10), a play-off (15.10.3), or the final's placings \
         with the prizes paid from the pool (NSW 15.3.2)",
        nothing(),
        json!({}),
    );
    let dq = manager(
        "Tournament Manager: disqualify a player, citing NSW 15.5.6.2, 15.5.7, 15.6.5, 15.6.7 or 15.11.4",
        closed(&[("player", u32s()), ("rule", string()), ("why", string())], &["player", "rule", "why"]),
        json!({ "player": 5, "rule": "NSW 15.6.7", "why": "chips concealed" }),
    );
    let mut ws = Op::new("WebSocket: the tournament and its play after every durable change; public")
        .id("tournament", no)
        .describe(
            "Each message (`TournamentMessage`) is {tournament, play, now_ms}: the summary, the play as GET …/play \
             shows it, and the server's clock for the time left to wager. Nothing in it is secret.",
        )
        .err(400, "not a WebSocket upgrade (`upgrade`)")
        .err(426, "the connection cannot be upgraded (`upgrade`)");
    ws.0["responses"]["101"] = json!({ "description": "switching to the WebSocket" });
    let mv = manager(
        "Tournament Manager: move a player to another table of the round, between coups, to its lowest free box \
         (NSW 15.5.1, 15.5.4)",
        closed(&[("player", u32s()), ("table", int(1, 10_000))], &["player", "table"]),
        json!({ "player": 5, "table": 2 }),
    );
    let change =
        closed(&[("from_coup", int(1, 100_000)), ("min", amount()), ("max", amount())], &["from_coup", "min", "max"]);
    let limits = manager(
        "Tournament Manager: change the limits and the coups from which they change, before the start only (NSW \
         15.6.15); the amended conditions are published",
        closed(
            &[
                ("min", amount()),
                ("max", amount()),
                ("changes", json!({ "type": "array", "maxItems": 100, "items": change })),
            ],
            &["min", "max"],
        ),
        json!({ "min": 1000, "max": 5000, "changes": [{ "from_coup": 10, "min": 2000, "max": 10000 }] }),
    )
    .err(422, "the amended conditions do not check: every problem is named (`config`)");
    vec![
        ("post", "/api/tournaments/{id}/limits", limits),
        ("post", "/api/tournaments/{id}/move", mv),
        ("get", "/api/tournaments/{id}/play", view),
        ("get", "/api/tournaments/{id}/ws", ws),
        ("post", "/api/tournaments/{id}/start", start),
        ("post", "/api/tournaments/{id}/act", act),
        ("post", "/api/tournaments/{id}/reveal", reveal),
        ("post", "/api/tournaments/{id}/no-more-bets", nmb),
        ("post", "/api/tournaments/{id}/deal", deal),
        ("post", "/api/tournaments/{id}/end-round", end),
        ("post", "/api/tournaments/{id}/disqualify", dq),
    ]
}
