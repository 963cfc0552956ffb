//! The cage's and the inspector's part of the API document
//! (`http/staff.rs`): players, deposits, the ledger check, `verify`, and
//! this document's own route.

use serde_json::json;

use super::*;

/// The cage and the inspector: `staff.rs`; and this document.
pub(super) fn operations() -> Vec<Operation> {
    let player = Op::new("Admin: create a player, with play chips")
        .auth()
        .roles("admins")
        .limited()
        .body(closed(
            &[("name", name64()), ("password", password()), ("chips", int(0, MAX_LIMIT))],
            &["name", "password"],
        ))
        .example(json!({ "name": "newcomer", "password": "secret", "chips": 100000 }))
        .ok("created", object(&[("player", u32s()), ("name", string())]))
        .err(409, "the name is taken, or the opening chips were refused (`conflict`, …)")
        .writer();
    let deposit = Op::new("Admin: chips from the cage into a player's wallet")
        .auth()
        .id("player", "no such player, or not a player (`no_player`)")
        .roles("admins")
        .limited()
        .body(closed(&[("amount", amount()), ("key", key())], &["amount", "key"]))
        .example(json!({ "amount": 100000, "key": "cage-1" }))
        .ok("the new balance", schema_ref("DepositReply"))
        .err(409, "the key was used for another deposit (`idempotency`), or the ledger refused (`ledger`)")
        .writer();
    let ledger = Op::new("Inspector, admin: the ledger's invariants, checked in full now")
        .describe(
            "Checked on the database, off the writer: the latest checkpoint (its hash and signature) and the \
             transfers after it rebuild the ledger; the balances must be the stored ones, the holds must match, and \
             every hold must be for a wager its table still holds.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok("the check", schema_ref("LedgerReply"))
        .err(500, "the database could not be read (`internal`)");
    let verify = Op::new("Inspector, admin: `baccarat verify` over the database now")
        .describe(
            "Chains against their signed anchors, seeds against commitments, cards, results, settlements, the \
             betting clock, the ledger reconciled with the audit log; voids after the cards were out listed.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok(
            "the findings",
            object(&[
                ("ok", boolean()),
                ("tables", u64s()),
                ("records", u64s()),
                ("shoes", u64s()),
                ("coups", u64s()),
                ("settlements", u64s()),
                ("problems", array(string())),
                ("voids", array(json!({ "type": "object" }))),
                ("unanchored", array(string())),
                ("notes", array(string())),
                ("anchor_key", nullable(string())),
            ]),
        );
    let this = Op::new("This document").ok("OpenAPI 3.0.3", json!({ "type": "object" }));
    vec![
        ("post", "/api/players", player),
        ("post", "/api/players/{id}/deposit", deposit),
        ("get", "/api/ledger/check", ledger),
        ("get", "/api/verify", verify),
        ("get", "/api/openapi.json", this),
    ]
}
