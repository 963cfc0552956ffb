//! What a table may be made from, for the back-office page's form
//! (`/admin`): `GET /api/rulebooks`, each built-in profile with the choices
//! a table configuration may make within it, and `POST /api/tables/check`,
//! a configuration checked as a creation would check it, every problem
//! listed at once and nothing changed (`baccarat_casino::table_check`).
//!
//! Both are read-only, for the admin and the inspector (who sees what the
//! admin may choose, and may check a configuration someone proposes). The
//! check does work on text the caller sends, so it is rate-limited as the
//! routes that change something are; its text is bounded by the body limit.

use std::sync::OnceLock;

use axum::extract::State;
use axum::Json;
use baccarat_rules::{profiles, BetRules, PayTable, Rulebook, MAX_LIMIT};
use serde::Deserialize;
use serde_json::{json, Value};

use super::extract::{Auth, Body};
use super::{limited, require, ApiError, AppState};
use crate::auth::Role;

/// Who may read the rulebooks and check a configuration.
const READERS: [Role; 2] = [Role::Admin, Role::Inspector];

/// `GET /api/rulebooks`: every built-in profile's choices, and the bounds
/// every amount of a configuration must keep (1 to `MAX_LIMIT` minor units,
/// a table maximum at most the casino's ceiling).
pub(super) async fn list(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<Value>, ApiError> {
    require(&sess, &READERS)?;
    Ok(Json(json!({
        "rulebooks": choices(),
        "limits": { "min": 1, "max": MAX_LIMIT, "ceiling": s.ceiling },
    })))
}

/// The profiles' choices, made once: the profiles are built in.
fn choices() -> &'static Value {
    static CHOICES: OnceLock<Value> = OnceLock::new();
    CHOICES.get_or_init(|| Value::Array(profiles::all().iter().map(rulebook).collect()))
}

/// One profile as a table configuration may choose within it: the field
/// names are `TableConfigSpec`'s, each with its choices, its default (what
/// a configuration that names none gets) and the rule that allows them.
fn rulebook(r: &Rulebook) -> Value {
    let dealing = &r.procedures.dealing;
    json!({
        "id": r.id,
        "title": r.title,
        "source": r.source,
        "decks": { "choices": r.decks, "default": r.default_decks(), "rule": r.decks_rule },
        "variants": r.variants.iter().map(|v| json!({
            "id": v.id, "title": v.title, "rule": v.rule, "player": v.player.name, "banker": v.banker.name,
        })).collect::<Vec<_>>(),
        "layouts": r.layouts,
        "default_layout": r.default_layout().name,
        "dealing": { "choices": dealing, "default": dealing.first(), "rule": r.procedures.dealing_rule },
        "differential": { "allowed": r.table_differential, "rule": r.limits_rule },
        "ante": r.ante.as_ref().map(|a| json!({ "max_num": a.max_num, "max_den": a.max_den, "rule": a.rule })),
        "side_bets_need_main_wager": {
            "always": r.config.conduct.side_bets_need_main_wager,
            "rule": r.config.conduct.rule,
        },
        "bets": bets(r),
        "exclusions": r.exclusions.iter().map(|e| json!({
            "rule": e.rule,
            "offered": e.offered.iter().map(|b| b.id()).collect::<Vec<_>>(),
            "excludes": e.excludes.iter().map(|b| b.id()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// The wagers, main ones first (Player, Banker, Tie), then side bets in id
/// order, as a table lists its offers.
fn bets(r: &Rulebook) -> Vec<Value> {
    let mut list: Vec<&BetRules> = r.bets.iter().collect();
    list.sort_by_key(|b| (!b.bet.is_main(), if b.bet.is_main() { "" } else { b.bet.id() }, b.bet));
    list.into_iter()
        .map(|b| {
            json!({
                "bet": b.bet.id(),
                "main": b.bet.is_main(),
                "rule": b.rule,
                "decks": b.decks,
                "decks_rule": b.decks_rule,
                "pay_tables": b.pay_tables.iter().map(pay_table).collect::<Vec<_>>(),
            })
        })
        .collect()
}

fn pay_table(t: &PayTable) -> Value {
    json!({
        "name": t.name,
        "rule": t.rule,
        "lines": t.lines.iter().map(|(o, p)| json!({ "outcome": o.to_string(), "pays": p.to_string() })).collect::<Vec<_>>(),
    })
}

/// `POST /api/tables/check`'s body: the configuration as `POST /api/tables`
/// takes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Check {
    config: String,
}

/// `POST /api/tables/check`: `{"ok", "problems": [{"path", "message"}]}`,
/// 200 whatever the configuration's problems (they are the answer, not a
/// refusal); nothing is created, nothing recorded.
pub(super) async fn check(
    State(s): State<AppState>,
    Auth(sess, _): Auth,
    Body(b): Body<Check>,
) -> Result<Json<Value>, ApiError> {
    require(&sess, &READERS)?;
    limited(&s, &sess)?;
    Ok(Json(answer(&b.config, s.ceiling)))
}

fn answer(config: &str, ceiling: baccarat_rules::Money) -> Value {
    let problems = baccarat_casino::table_check::problems(config, ceiling);
    let list: Vec<Value> = problems.iter().map(|p| json!({ "path": p.path, "message": p.message })).collect();
    json!({ "ok": list.is_empty(), "problems": list })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casino::DEFAULT_CEILING;

    /// Every built-in profile is listed with its choices as the profile
    /// holds them: its decks and default, each variant's pay tables, and for
    /// a wager with several pay tables every one (the form's choice).
    #[test]
    fn every_profile_is_listed_with_its_choices() {
        let list = choices().as_array().expect("a list");
        assert_eq!(list.len(), profiles::BUILTIN.len());
        for (r, v) in profiles::all().iter().zip(list) {
            assert_eq!(v["id"], r.id);
            assert_eq!(v["decks"]["choices"], json!(r.decks));
            assert_eq!(v["decks"]["default"], r.default_decks());
            assert_eq!(v["variants"].as_array().unwrap().len(), r.variants.len());
            assert_eq!(v["dealing"]["default"], json!(r.procedures.dealing.first()));
            assert_eq!(v["bets"].as_array().unwrap().len(), r.bets.len());
            for b in &r.bets {
                let listed = v["bets"].as_array().unwrap().iter().find(|x| x["bet"] == b.bet.id()).expect("listed");
                let names: Vec<&str> =
                    listed["pay_tables"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
                assert_eq!(names, b.pay_tables.iter().map(|t| t.name.as_str()).collect::<Vec<_>>());
            }
            let first: Vec<&str> =
                v["bets"].as_array().unwrap().iter().take(3).map(|b| b["bet"].as_str().unwrap()).collect();
            assert!(first.iter().all(|b| ["player", "banker", "tie"].contains(b)), "main wagers first: {first:?}");
        }
    }

    /// The answer lists every problem with its path; a good configuration
    /// is `ok` with none.
    #[test]
    fn the_check_answers_ok_or_every_problem() {
        let good = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";
        assert_eq!(answer(good, DEFAULT_CEILING), json!({ "ok": true, "problems": [] }));
        let bad = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 550\n";
        let a = answer(bad, DEFAULT_CEILING);
        assert_eq!(a["ok"], false);
        let paths: Vec<&str> = a["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
        assert!(paths.iter().filter(|p| **p == "max").count() == 2, "off the chip and below the minimum: {a}");
    }
}
