//! The pit's part of the API document (`http/staff.rs`): commands to the
//! table engine, the console, opening, voiding, recall, and a table's
//! provably fair shoes and help.

use serde_json::json;

use super::*;

/// The pit: commands, the console, opening, voiding, recall: `staff.rs`, and
/// the provably fair shoes (`mod.rs`).
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn operations() -> Vec<Operation> {
    // Examples: a coup's commands at a live table (5 in the demo casino), in
    // the order a dealer sends them.
    let card = |c: &str| json!({ "command": "card_in", "card": c, "face_up": true });
    let live_coup = [
        (
            "start_live_shoe",
            json!({ "command": "start_shoe", "source": { "live": { "decks": 8 } },
                    "cut": { "at": 100, "from_back": 30 }, "burn": null, "show_burn": false }),
        ),
        ("open_betting", json!({ "command": "open_betting", "no_bet": false })),
        ("close_betting", json!({ "command": "close_betting" })),
        ("player_first_card", card("2H")),
        ("banker_first_card", card("3S")),
        ("player_second_card", card("9D")),
        ("banker_second_card", card("KC")),
        ("player_third_card", card("5C")),
        ("banker_third_card", card("4D")),
        ("invalidate", json!({ "command": "invalidate", "forfeit": [], "reason": "invalidated" })),
    ];
    let mut command = on_table(Op::new(
        "Dealer, supervisor, admin: a command to the table engine (dealing, irregularities; a supervisor's \
         approvals, refusals, voids and limits)",
    ))
    .auth()
    .roles("dealers, supervisors and admins")
    .err(403, "the trust matrix: this role may not send this command at this kind of table (`role`)")
    .limited()
    .body(schema_ref("Command"))
    .examples(&live_coup)
    .ok("the events applied", schema_ref("EventsReply"))
    .refusals()
    .writer();
    command.0["parameters"][0]["example"] = json!(5);
    let pit = on_table(Op::new(
        "Dealer, supervisor, admin: the pit console's view: the coup's wagers and their status, rule-bearing \
         events, every rule the profile cites with its text",
    ))
    .auth()
    .roles("dealers, supervisors and admins")
    .ok("the pit view", schema_ref("PitView"));
    let open = on_table(Op::new(
        "Supervisor, admin: open or close the table; a closed table finishes its coup and deals no more",
    ))
    .auth()
    .roles("supervisors and admins")
    .limited()
    .body(closed(&[("open", boolean())], &["open"]))
    .example(json!({ "open": true }))
    .ok("done", schema_ref("TableReply"))
    .err(409, "the table is closed for good, or closing (`closed`)")
    .writer();
    let void = on_table(
        Op::new(
            "Supervisor, admin: void the coup of a table the server stopped because an invariant broke (every \
             stake returned, the interruption recorded under the profile's rule)",
        )
        .describe("No body is read."),
    )
    .auth()
    .roles("supervisors and admins")
    .limited()
    .ok("the events applied", schema_ref("EventsReply"))
    .err(409, "the table is not stopped (`halted`), or the void was refused")
    .writer();
    let audit = on_table(Op::new(
        "Inspector, admin: game recall, the last N coups step by step from the audit record, with who issued each \
         command, and the table's voids after the cards were out, per person and per shoe",
    ))
    .auth()
    .param(json!({
        "name": "last", "in": "query", "required": false,
        "description": "how many coups (default 5; clamped to 1..100)",
        "schema": u64s(),
    }))
    .err(400, "query: `last` is not a whole number (`bad_request`)")
    .roles("inspectors and admins")
    .ok("the recall", derived::<crate::bodies::recall::Recall>());
    let shoes = on_table(Op::new(
        "Provably fair: each shoe's SHA-256 seed commitment and cut, and the seed once the shoe has ended",
    ))
    .ok("the shoes", object(&[("table", u32s()), ("algorithm", string()), ("shoes", array(schema_ref("Shoe")))]));
    let help = on_table(Op::new(
        "A table's help: each wager offered with its pay table, its limits and its house edge from the exact odds of \
         a full shoe (as a percentage and an exact fraction), and the rulebook's rules in its own words",
    ))
    .ok("the help", derived::<crate::bodies::help::TableHelp>());
    vec![
        ("get", "/api/tables/{id}/help", help),
        ("post", "/api/tables/{id}/commands", command),
        ("get", "/api/tables/{id}/pit", pit),
        ("post", "/api/tables/{id}/open", open),
        ("post", "/api/tables/{id}/void", void),
        ("get", "/api/tables/{id}/audit", audit),
        ("get", "/api/tables/{id}/shoes", shoes),
    ]
}
