//! Structure-aware generation: commands of the right shape (from the command
//! corpus's templates) with values chosen by field name, mostly plausible,
//! sometimes extreme or of the wrong kind; card tokens, valid and garbage.

use serde_json::{json, Map, Value};

use super::mutate::{self, weird_json, weird_string, Rng, NUMBERS};

pub const POSITIONS: [&str; 6] = ["player1", "banker1", "player2", "banker2", "player3", "banker3"];
const RANKS: [&str; 14] = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "T"];
const BURNS: [&str; 4] = ["burn_one", "burn_one_shown", "turn_and_burn", "three_no_bet_coups"];
const REASONS: [&str; 6] = ["invalidated", "shuffler_malfunction", "misdeal", "limits", "", "no_such_rule"];

/// What a generated command may name: players and wagers that exist (or not).
#[derive(Clone, Debug)]
pub struct Ctx {
    pub players: Vec<u32>,
    pub wagers: Vec<u64>,
    /// The table's unit and minimum, so most amounts are acceptable ones.
    pub chip: i64,
    pub min: i64,
}

/// A card token: usually a card, in any case and spelling the parser takes.
pub fn card(rng: &mut Rng) -> String {
    let r = *rng.pick(&RANKS);
    let s = *rng.pick(&["C", "D", "H", "S"]);
    let t = format!("{r}{s}");
    if rng.chance(1, 8) {
        t.to_lowercase()
    } else {
        t
    }
}

/// A token that is not quite a card, or not a card at all.
pub fn garbage_card(rng: &mut Rng) -> String {
    const G: &[&str] = &[
        "11H",
        "1H",
        "0S",
        "AX",
        "A",
        "H",
        "10",
        "",
        " ",
        " 6H ",
        "6H6H",
        "６H",
        "10♥",
        "♥",
        "AS\u{0}",
        "1OH",
        "JOKER",
        "KK",
        "QSS",
        "-5D",
        "+5D",
        "5 D",
        "5\tD",
        "Ｋ♠",
        "é",
        "10h\n",
        "A\u{301}S",
        "ZZ",
        "cut",
        "BURN",
        "null",
    ];
    match rng.below(4) {
        0 => weird_string(rng),
        1 => {
            let c = card(rng);
            let b = mutate::bytes(rng, c.as_bytes(), &[], &[], 2);
            String::from_utf8_lossy(&b).into_owned()
        }
        _ => rng.pick(G).to_string(),
    }
}

fn money(rng: &mut Rng, ctx: &Ctx) -> Value {
    let chip = ctx.chip.max(1);
    match rng.below(10) {
        0..=5 => json!(ctx.min.max(chip) * rng.range(1, 5)),
        6 => json!(chip * rng.range(1, 30)),
        7 => json!(*rng.pick(&[0i64, -1, -100, 1, 50, 150, i64::MAX, i64::MIN, 1_000_000_000_000, 1_000_000_000_100])),
        8 => json!(*rng.pick(&[u64::MAX, 1u64 << 63])),
        _ => weird_json(rng),
    }
}

fn player(rng: &mut Rng, ctx: &Ctx) -> Value {
    match rng.below(10) {
        0..=7 if !ctx.players.is_empty() => json!(*rng.pick(&ctx.players)),
        8 => json!(*rng.pick(&[0u64, 9999, u64::from(u32::MAX), u64::from(u32::MAX) + 1])),
        _ => weird_json(rng),
    }
}

fn wager(rng: &mut Rng, ctx: &Ctx) -> Value {
    match rng.below(10) {
        0..=6 if !ctx.wagers.is_empty() => json!(*rng.pick(&ctx.wagers)),
        0..=7 => json!(rng.range(0, 12)),
        8 => json!(*rng.pick(&[u64::MAX, 1u64 << 63, 0])),
        _ => weird_json(rng),
    }
}

fn cards(rng: &mut Rng, n: usize) -> Value {
    Value::Array((0..n).map(|_| json!(if rng.chance(1, 30) { garbage_card(rng) } else { card(rng) })).collect())
}

fn maybe_null(rng: &mut Rng, v: impl FnOnce(&mut Rng) -> Value) -> Value {
    if rng.chance(1, 4) {
        Value::Null
    } else {
        v(rng)
    }
}

/// A value for the field `key`, shaped like `v`.
pub fn fill(rng: &mut Rng, key: &str, v: &Value, ctx: &Ctx) -> Value {
    if rng.chance(1, 40) {
        return weird_json(rng);
    }
    match key {
        "amount" | "minimum" | "min" | "max" | "ante" => money(rng, ctx),
        "player" | "nominee" => {
            if v.is_null() && rng.chance(1, 2) {
                Value::Null
            } else {
                player(rng, ctx)
            }
        }
        "forfeit" | "present" => Value::Array((0..rng.below(3)).map(|_| player(rng, ctx)).collect()),
        "wager" => wager(rng, ctx),
        "seat" => json!(rng.range(0, 15)),
        "box" => json!(rng.range(0, 16)),
        "decks" => json!(*rng.pick(&[8i64, 8, 6, 3, 4, 1, 0, 9, 255, 256, i64::from(u32::MAX), -1])),
        "at" | "from_back" => json!(*rng.pick(&[0u64, 1, 10, 14, 20, 52, 100, 300, 415, 416, 10_000, u64::MAX])),
        "set" => json!(rng.range(0, 3)),
        "at_ms" | "closes_at" => maybe_null(rng, |rng| {
            json!(*rng.pick(&[0u64, 1_700_000_000_000, 1_700_000_600_000, 4_000_000_000_000, u64::MAX]))
        }),
        "seed" => json!(match rng.below(4) {
            0 => weird_string(rng),
            _ => (0..64).map(|_| *rng.pick(&['0', '1', '7', 'a', 'f', 'F', 'e'])).collect::<String>(),
        }),
        "reason" => maybe_null(rng, |rng| json!(*rng.pick(&REASONS))),
        "card" => {
            if v.is_null() && rng.chance(1, 2) {
                Value::Null
            } else if rng.chance(1, 10) {
                json!(garbage_card(rng))
            } else {
                json!(card(rng))
            }
        }
        "cards" | "reconstructed" | "confirmed" => {
            if v.is_null() && rng.chance(1, 2) {
                Value::Null
            } else {
                let n = if rng.chance(1, 20) { rng.range(0, 500) } else { rng.range(0, 8) };
                cards(rng, n as usize)
            }
        }
        "to" => maybe_null(rng, |rng| json!(*rng.pick(&POSITIONS))),
        "side" => {
            if v.is_null() && rng.chance(1, 2) {
                Value::Null
            } else {
                json!(*rng.pick(&["player", "banker", "tie", "Player"]))
            }
        }
        "bet" => json!(if rng.chance(1, 15) {
            weird_string(rng)
        } else {
            rng.pick(&baccarat_rules::Bet::ALL).id().to_string()
        }),
        "burn" => maybe_null(rng, |rng| json!(*rng.pick(&BURNS))),
        "spot" => {
            if rng.chance(1, 8) {
                json!("standing")
            } else {
                json!({"box": rng.range(0, 15)})
            }
        }
        "cut" => maybe_null(rng, |rng| fill_object(rng, &json!({"at": 100, "from_back": 20}), ctx)),
        "source" => {
            let shapes = [
                json!({"live": {"decks": 8}}),
                json!({"shuffle": {"seed": ""}}),
                json!({"pre_shuffled": {"cards": []}}),
                json!({"shuffler_set": {"seed": "", "set": 1}}),
                json!({"continuous": {"seed": ""}}),
            ];
            let i = if rng.chance(2, 3) { 0 } else { rng.below(shapes.len()) };
            fill_object(rng, &shapes[i], ctx)
        }
        // The tag: the command's name, now and then another command's or none.
        "command" | "action" | "key" | "name" | "password" | "config" | "mode" => v.clone(),
        _ => match v {
            Value::Bool(_) => json!(rng.chance(1, 2)),
            Value::Number(_) => json!(rng.pick(NUMBERS).parse::<i64>().unwrap_or(1)),
            Value::Object(_) => fill_object(rng, v, ctx),
            Value::Array(a) => Value::Array(a.iter().map(|c| fill(rng, key, c, ctx)).collect()),
            _ => v.clone(),
        },
    }
}

/// Each field of an object filled by [`fill`].
pub fn fill_object(rng: &mut Rng, v: &Value, ctx: &Ctx) -> Value {
    match v {
        Value::Object(m) => {
            let mut out = Map::new();
            for (k, c) in m {
                out.insert(k.clone(), fill(rng, k, c, ctx));
            }
            Value::Object(out)
        }
        _ => v.clone(),
    }
}

/// A command: a template filled with fresh values; now and then mutated in
/// structure too, or given another command's tag.
pub fn command(rng: &mut Rng, templates: &[Value], ctx: &Ctx) -> Value {
    let t = rng.pick(templates);
    let mut v = fill_object(rng, t, ctx);
    if rng.chance(1, 10) {
        let other = rng.pick(templates).clone();
        v = mutate::json(rng, &v, &other, 2);
    }
    if rng.chance(1, 30) {
        if let Some(m) = v.as_object_mut() {
            m.insert("command".into(), json!(weird_string(rng)));
        }
    }
    v
}
