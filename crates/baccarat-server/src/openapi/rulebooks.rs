//! What a table may be made from (`http/rulebooks.rs`): the built-in
//! rulebooks' choices, and a table configuration checked without creating
//! anything.

use serde_json::json;

use super::*;

/// One pay table: its name, the rule that prints it, its lines.
fn pay_table() -> Value {
    let line = object(&[("outcome", string()), ("pays", string())]);
    object(&[("name", string()), ("rule", string()), ("lines", array(line))])
}

/// One wager the rulebook offers, with every pay table it prints.
fn bet() -> Value {
    object(&[
        ("bet", string_enum(&bet_ids())),
        ("main", boolean()),
        ("rule", string()),
        ("decks", nullable(array(u32s()))),
        ("decks_rule", nullable(string())),
        ("pay_tables", array(pay_table())),
    ])
}

/// A choice among listed values, its default and the rule allowing them.
fn choice(item: Value, default: Value) -> Value {
    object(&[("choices", array(item)), ("default", default), ("rule", string())])
}

/// One rulebook profile as a table configuration may choose within it.
fn rulebook() -> Value {
    let variant = object(&[
        ("id", string()),
        ("title", string()),
        ("rule", string()),
        ("player", string()),
        ("banker", string()),
    ]);
    let layout = object(&[
        ("name", string()),
        ("boxes", u32s()),
        ("players_per_box", u32s()),
        ("standing_players", boolean()),
        ("rule", string()),
    ]);
    let whole = json!({ "type": "integer", "format": "int64" });
    let ante = object(&[("max_num", whole.clone()), ("max_den", whole), ("rule", string())]);
    let exclusion = object(&[("rule", string()), ("offered", array(string())), ("excludes", array(string()))]);
    object(&[
        ("id", string()),
        ("title", string()),
        ("source", string()),
        ("decks", choice(u32s(), u32s())),
        ("variants", array(variant)),
        ("layouts", array(layout)),
        ("default_layout", string()),
        ("dealing", choice(string(), nullable(string()))),
        ("differential", object(&[("allowed", boolean()), ("rule", string())])),
        ("ante", nullable(ante)),
        ("side_bets_need_main_wager", object(&[("always", boolean()), ("rule", string())])),
        ("bets", array(bet())),
        ("exclusions", array(exclusion)),
    ])
}

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
        .ok(
            "the rulebooks",
            object(&[
                ("rulebooks", array(rulebook())),
                ("limits", object(&[("min", int(1, 1)), ("max", int(MAX_LIMIT, MAX_LIMIT)), ("ceiling", money())])),
            ]),
        );
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
        .ok(
            "the problems, none if a table can be made from it",
            object(&[("ok", boolean()), ("problems", array(object(&[("path", string()), ("message", string())])))]),
        );
    vec![("get", "/api/rulebooks", list), ("post", "/api/tables/check", check)]
}
