//! The engine's commands as the `Command` schema: one variant per command the
//! table engine takes, with its fields and the required ones. Kept in one list
//! so the unit tests can check it against serde's own reading of `Command`.

use serde_json::{json, Value};

use super::schema::*;

/// One command: its name, its fields with their schemas, the required ones.
pub(super) type CommandVariant = (&'static str, Vec<(&'static str, Value)>, Vec<&'static str>);

/// The engine's `Command` (`baccarat_table::engine::types`): internally tagged
/// by `command`, snake_case; fields of `Option` type may be left out.
// Longer than 70 lines: a table, one entry per variant of the engine's Command (data, not steps).
pub(super) fn commands() -> Vec<CommandVariant> {
    let cards = || array(card());
    let shoe_source = json!({ "oneOf": [
        tagged("shuffle", object_with(&[("seed", seed())], &["seed"])),
        tagged("pre_shuffled", object_with(&[("cards", cards())], &["cards"])),
        tagged("live", object_with(&[("decks", u32s())], &["decks"])),
        tagged("shuffler_set", object_with(&[("seed", seed()), ("set", u8s())], &["seed", "set"])),
        tagged("continuous", object_with(&[("seed", seed())], &["seed"])),
    ] });
    let cut = nullable(object_with(&[("at", u64s()), ("from_back", u64s())], &["at", "from_back"]));
    let burn = nullable(string_enum(&["burn_one", "burn_one_shown", "turn_and_burn", "three_no_bet_coups"]));
    vec![
        (
            "start_shoe",
            vec![("source", shoe_source), ("cut", cut), ("burn", burn), ("show_burn", boolean())],
            vec!["source", "show_burn"],
        ),
        ("open_betting", vec![("no_bet", boolean()), ("closes_at", nullable(u64s()))], vec!["no_bet"]),
        (
            "place_wager",
            vec![
                ("player", u32s()),
                ("spot", spot()),
                ("bet", string_enum(&bet_ids())),
                ("amount", money()),
                ("ante", money()),
                ("token", boolean()),
                ("at_ms", nullable(u64s())),
            ],
            vec!["player", "spot", "bet", "amount", "ante", "token"],
        ),
        ("reopen_wagers", vec![], vec![]),
        ("invalid_bet", vec![("wager", u64s())], vec!["wager"]),
        (
            "set_personal_limits",
            vec![("player", u32s()), ("min", money()), ("max", money())],
            vec!["player", "min", "max"],
        ),
        ("announce_minimum", vec![("minimum", money()), ("at_ms", u64s())], vec!["minimum", "at_ms"]),
        (
            "change_minimum",
            vec![("minimum", money()), ("at_ms", u64s()), ("present", array(u32s()))],
            vec!["minimum", "at_ms", "present"],
        ),
        (
            "change_limits",
            vec![("bet", string_enum(&bet_ids())), ("min", nullable(money())), ("max", money())],
            vec!["bet", "max"],
        ),
        ("withdraw_wager", vec![("player", u32s()), ("wager", u64s())], vec!["player", "wager"]),
        ("approve_wager", vec![("wager", u64s())], vec!["wager"]),
        ("refuse_wager", vec![("wager", u64s())], vec!["wager"]),
        ("close_betting", vec![], vec![]),
        ("deal_next", vec![], vec![]),
        (
            "card_in",
            vec![("card", card()), ("to", nullable(position())), ("face_up", boolean())],
            vec!["card", "face_up"],
        ),
        ("face_up_in_shoe", vec![("card", card())], vec!["card"]),
        ("cutting_card_out", vec![], vec![]),
        ("missing_or_foreign", vec![("card", nullable(card()))], vec![]),
        ("misdeal", vec![("reconstructed", nullable(cards()))], vec![]),
        ("expose", vec![("side", side()), ("player", nullable(u32s()))], vec!["side"]),
        ("decline_cards", vec![("player", u32s())], vec!["player"]),
        ("appoint_nominee", vec![("player", u32s()), ("nominee", nullable(u32s()))], vec!["player"]),
        ("take_marker", vec![("player", u32s()), ("seat", u8s())], vec!["player", "seat"]),
        ("pass_marker", vec![("player", u32s())], vec!["player"]),
        ("resume_coup", vec![], vec![]),
        ("scanner_discrepancy", vec![("confirmed", nullable(cards()))], vec![]),
        ("invalidate", vec![("forfeit", array(u32s())), ("reason", nullable(string()))], vec!["forfeit"]),
        (
            "shuffler_malfunction",
            vec![("disadvantage", boolean()), ("other_device", boolean())],
            vec!["disadvantage", "other_device"],
        ),
        ("interrupted", vec![], vec![]),
        ("void_interrupted", vec![], vec![]),
        ("wrong_hand", vec![("void_hand", boolean())], vec!["void_hand"]),
    ]
}

pub(super) fn command_schema() -> Value {
    let variants: Vec<Value> = commands()
        .into_iter()
        .map(|(name, fields, required)| {
            let mut props = vec![("command", string_enum(&[name]))];
            props.extend(fields);
            let mut req = vec!["command"];
            req.extend(required);
            object_with(&props, &req)
        })
        .collect();
    let names: Vec<&str> = commands().iter().map(|c| c.0).collect();
    json!({
        "description": "A command to the table engine, tagged by `command`. Which staff may send which command \
                        at which kind of table is the trust matrix's (trust.rs): at an RNG table no person sends \
                        cards, seeds or the pace.",
        "type": "object",
        "required": ["command"],
        "properties": { "command": string_enum(&names) },
        "oneOf": variants,
    })
}
