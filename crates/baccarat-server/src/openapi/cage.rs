//! The cage's and the inspector's part of the API document
//! (`http/staff.rs`, `http/cage.rs`): players, deposits, the ledger check,
//! `verify`, this document's own route, and the cage's movements (a
//! cash-out, a fill, a credit).

use serde_json::json;

use super::*;
use crate::bodies::{PlayerCreated, Verified};

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
        .ok("created", derived::<PlayerCreated>())
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
        .ok("the findings", derived::<Verified>());
    let this = Op::new("This document").ok("OpenAPI 3.0.3", json!({ "type": "object" }));
    let [cash_out, fill, credit] = movements();
    vec![
        ("post", "/api/players", player),
        ("post", "/api/players/{id}/deposit", deposit),
        ("get", "/api/ledger/check", ledger),
        ("get", "/api/verify", verify),
        ("get", "/api/openapi.json", this),
        ("post", "/api/players/{id}/cash-out", cash_out),
        ("post", "/api/tables/{id}/fill", fill),
        ("post", "/api/tables/{id}/credit", credit),
    ]
}

/// The cage's movements (`http/cage.rs`): a cash-out, a fill, a credit.
fn movements() -> [Op; 3] {
    let body = || closed(&[("amount", amount()), ("key", key())], &["amount", "key"]);
    let cash_out = Op::new("Admin: chips from a player's wallet back to the cage (a cash-out)")
        .describe(
            "At most what the wallet holds free of open wagers (its balance less their stakes); beyond it, refused \
             naming both figures. Recorded in the casino's chain (`cashed_out`) with its ledger transfer. Refused \
             at a partition of a PostgreSQL casino, whose players' money is at the bank (`wallet`).",
        )
        .auth()
        .id("player", "no such player, or not a player (`no_player`)")
        .roles("admins")
        .limited()
        .body(body())
        .example(json!({ "amount": 50000, "key": "cash-out-1" }))
        .ok("the wallet's balance after it, and the amount cashed out", schema_ref("CashOutReply"))
        .err(
            409,
            "more than the wallet holds free of open wagers (`ledger`), the key used for another amount \
             (`idempotency`), or a partition's server (`wallet`)",
        )
        .writer();
    let float = || schema_ref("FloatReply");
    let fill = on_table(Op::new("Admin: chips from the cage to a table's float (a fill)"))
        .auth()
        .roles("admins")
        .limited()
        .body(body())
        .example(json!({ "amount": 1000000, "key": "fill-1" }))
        .ok("the table's float after it", float())
        .err(409, "the key used for another amount (`idempotency`), or the ledger refused (`ledger`)")
        .writer();
    let credit = on_table(Op::new("Admin: chips from a table's float back to the cage (a credit)"))
        .describe(
            "Refused where it would leave the float short of the most the open wagers could win together \
             (`float`), naming both figures.",
        )
        .auth()
        .roles("admins")
        .limited()
        .body(body())
        .example(json!({ "amount": 1000000, "key": "credit-1" }))
        .ok("the table's float after it", float())
        .err(
            409,
            "the float would not cover the open wagers (`float`), or the key used for another amount (`idempotency`)",
        )
        .writer();
    [cash_out, fill, credit]
}
