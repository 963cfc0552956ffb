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

use axum::extract::State;
use axum::Json;
use baccarat_rules::MAX_LIMIT;
use serde::Deserialize;

use crate::bodies::rulebooks::{choices, AmountLimits, Checked, ConfigProblem, Rulebooks};

use super::extract::{Auth, Body};
use super::{limited, require, ApiError, AppState};
use crate::auth::Role;

/// Who may read the rulebooks and check a configuration.
const READERS: [Role; 2] = [Role::Admin, Role::Inspector];

/// `GET /api/rulebooks`: every built-in profile's choices, and the bounds
/// every amount of a configuration must keep (1 to `MAX_LIMIT` minor units,
/// a table maximum at most the casino's ceiling).
pub(super) async fn list(State(s): State<AppState>, Auth(sess, _): Auth) -> Result<Json<Rulebooks>, ApiError> {
    require(&sess, &READERS)?;
    let limits = AmountLimits { min: 1, max: MAX_LIMIT, ceiling: s.ceiling };
    Ok(Json(Rulebooks { rulebooks: choices(), limits }))
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
) -> Result<Json<Checked>, ApiError> {
    require(&sess, &READERS)?;
    limited(&s, &sess)?;
    Ok(Json(answer(&b.config, s.ceiling)))
}

fn answer(config: &str, ceiling: baccarat_rules::Money) -> Checked {
    let problems = baccarat_casino::table_check::problems(config, ceiling);
    let problems: Vec<ConfigProblem> =
        problems.into_iter().map(|p| ConfigProblem { path: p.path, message: p.message }).collect();
    Checked { ok: problems.is_empty(), problems }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casino::DEFAULT_CEILING;
    use baccarat_rules::profiles;
    use serde_json::json;

    /// Every built-in profile is listed with its choices as the profile
    /// holds them: its decks and default, each variant's pay tables, and for
    /// a wager with several pay tables every one (the form's choice).
    #[test]
    fn every_profile_is_listed_with_its_choices() {
        let list = serde_json::to_value(choices()).unwrap();
        let list = list.as_array().expect("a list");
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
        assert_eq!(serde_json::to_value(answer(good, DEFAULT_CEILING)).unwrap(), json!({ "ok": true, "problems": [] }));
        let bad = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 550\n";
        let a = serde_json::to_value(answer(bad, DEFAULT_CEILING)).unwrap();
        assert_eq!(a["ok"], false);
        let paths: Vec<&str> = a["problems"].as_array().unwrap().iter().map(|p| p["path"].as_str().unwrap()).collect();
        assert!(paths.iter().filter(|p| **p == "max").count() == 2, "off the chip and below the minimum: {a}");
    }
}
