//! What a table may be made from (`http/rulebooks.rs`): the built-in
//! rulebooks' choices, and a table configuration checked without creating
//! anything.

use serde_json::json;

use super::*;
use crate::bodies::rulebooks::{Checked, Rulebooks};

/// The rulebooks: `rulebooks.rs`.
pub(super) fn operations() -> Vec<Operation> {
    let list = Op::new("Inspector, admin: the rulebooks a table may be made from, with every choice each allows")
        .describe(
            "Each built-in profile with what a table configuration (TOML, `POST /api/tables`) may choose within it: \
             deck counts, variants (the Player and Banker pay tables that go together), layouts, dealing styles, \
             whether a table differential or an ante may be set, and every wager with each pay table it prints; \
             each with its default and the rule allowing it. `limits`: every amount is 1 to `max` minor units, \
             and no table maximum may be above the casino's `ceiling`.",
        )
        .auth()
        .roles("inspectors and admins")
        .ok("the rulebooks", derived::<Rulebooks>());
    let check = Op::new("Inspector, admin: check a table configuration as a creation would, changing nothing")
        .describe(
            "Every problem `POST /api/tables` would refuse the configuration for, listed at once, each with the \
             field it is at (`path`, as `baccarat table check` names it; `config` for text that is not TOML or \
             names no `rulebook`). The problems are the answer: 200 either way.",
        )
        .auth()
        .roles("inspectors and admins")
        .limited()
        .body(closed(
            &[(
                "config",
                json!({ "type": "string", "description": "a table configuration in TOML, with its `rulebook`" }),
            )],
            &["config"],
        ))
        .example(json!({ "config": "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500\n" }))
        .ok("the problems, none if a table can be made from it", derived::<Checked>());
    vec![("get", "/api/rulebooks", list), ("post", "/api/tables/check", check)]
}
