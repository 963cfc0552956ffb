//! A tournament played through the casino, its answers as the routes send
//! them (`http/tournaments.rs`, `http/tournament_play.rs`) held against the
//! document's answers for those routes: the list, one tournament, its play
//! before the start, mid-coup with an undisclosed wager shown and at the end
//! with the prizes paid, and a WebSocket message.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_core::{TournamentId, UserId};
use baccarat_rules::{Bet, Money};
use baccarat_table::tournament::commitment;
use baccarat_table::PlayerId;
use serde_json::{json, Value};

use super::answers_tests::{answer, document};
use super::fits::{check, fits};
use crate::auth::Role;
use crate::casino::tournament_manager::PlayStep;
use crate::casino::tournament_play::{PlayAction, Stake};
use crate::casino::tournament_view::{Acted, PlayView};
use crate::casino::tournaments::{TournamentSummary, TournamentViews};
use crate::casino::{Casino, Reply, Request};
use crate::messages::TournamentMessage;
use crate::store::Commit;
use crate::trust::Actor;

/// Four players at one table, a final of two coups.
const CUP: &str = r#"name = "One-table Cup"
rulebook = "nsw-2021"
[entry]
starts = "2026-12-05T10:00:00Z"
fee = 10000
min_players = 4
max_players = 4
withdraw_hours_before_start = 24
application = "at the tournament desk"
[eligibility]
[chips]
per_session = 20000
[wagers]
min = 1000
max = 5000
time_limit_seconds = 60
[structure]
dealing = "method_a"
seats_per_table = 4
rounds = [{ name = "Final", tables = 1, coups = 2 }]
[play]
seating = "draw"
marker = true
pass_cards = 1
undisclosed_wagers = 1
[prizes]
places = [{ percent = 60 }, { percent = 40 }]
payment = "cash"
"#;

const ID: TournamentId = TournamentId(1);
/// 2026-12-01T00:00:00Z, and the start.
const NOW: u64 = 1_796_083_200_000;
const STARTS: u64 = 1_796_464_800_000;
const TM: Actor = Actor::Person { user: UserId(9_000), role: Role::TournamentManager };

fn player(p: PlayerId) -> Actor {
    Actor::Person { user: UserId(p.0), role: Role::Player }
}

/// Players with even ids have a name; the others none (null).
fn named(mut v: PlayView) -> PlayView {
    v.name_players(|p| (p.0 % 2 == 0).then(|| format!("player {p}")));
    v
}

struct Cup {
    casino: Casino,
    commit: Commit,
    now: Arc<AtomicU64>,
}

impl Cup {
    /// Published and entered by four players; not started.
    fn entered() -> Cup {
        let now = Arc::new(AtomicU64::new(NOW));
        let mut casino = Casino::new();
        let clock = now.clone();
        casino.clock = Arc::new(move || clock.load(Ordering::SeqCst));
        let mut cup = Cup { casino, commit: Commit::default(), now };
        cup.ok(Request::CreateTournament { conditions: CUP.into() });
        for p in 700..704 {
            let key = format!("d{p}").parse().unwrap();
            cup.casino.handle(Request::Deposit { player: PlayerId(p), amount: Money(100_000), key }, &mut cup.commit);
            cup.ok(Request::EnterTournament { tournament: ID, player: PlayerId(p) });
        }
        cup
    }

    fn ok(&mut self, r: Request) {
        let reply = self.casino.handle(r, &mut self.commit);
        assert!(matches!(reply, Reply::Tournament { .. }), "{reply:?}");
    }

    fn step(&mut self, step: PlayStep, by: Actor) {
        self.ok(Request::TournamentPlay { tournament: ID, step, by });
    }

    fn views(&self) -> TournamentViews {
        TournamentViews::of(&self.casino)
    }

    fn play(&self) -> PlayView {
        self.views().play(ID).flatten().expect("started")
    }

    /// The coup at table `table` (from 1), box by box in the marker's
    /// order: with `odd`, the first makes an undisclosed wager with a wager
    /// in chips beside it and the second is absent; the rest wager amounts
    /// of their own. Then "no more bets" and the reveal; the view before the
    /// deal.
    fn coup(&mut self, table: usize, odd: bool) -> PlayView {
        for n in 0.. {
            let t = &self.play().tables[table - 1];
            let Some(b) = t.turn else { break };
            let p = t.seats.iter().find(|s| s.box_no == b).expect("a seat").player;
            let salt = format!("salt-{p}");
            let (action, by) = match (odd, n) {
                (true, 0) => {
                    let c = commitment(Bet::Banker, Money(1000), &salt);
                    let with = Some(Stake { bet: Bet::Player, amount: Money(1000) });
                    (PlayAction::Undisclosed { commitment: baccarat_table::hex(&c), with }, player(p))
                }
                (true, 1) => (PlayAction::Absent, TM),
                _ => (PlayAction::Wager { bet: Bet::Banker, amount: Money(1000 * i64::from(b)) }, player(p)),
            };
            self.step(PlayStep::Act { player: p, action }, by);
        }
        self.step(PlayStep::NoMoreBets { table: table as u32 - 1 }, TM);
        if odd {
            let seats = &self.play().tables[table - 1].seats;
            let first = seats.iter().find(|s| matches!(s.acted, Some(Acted::Undisclosed { .. }))).expect("one").player;
            let form = Some(Stake { bet: Bet::Banker, amount: Money(1000) });
            self.step(PlayStep::Reveal { player: first, form, salt: format!("salt-{first}") }, player(first));
        }
        let before = self.play();
        self.step(PlayStep::Deal { table: table as u32 - 1 }, TM);
        before
    }

    /// End the final, playing off any tie, until the prizes are paid.
    fn finish(&mut self) -> PlayView {
        for _ in 0..60 {
            let v = self.play();
            if v.prizes.is_some() {
                return v;
            }
            match v.tables.iter().find(|t| t.play_off) {
                Some(po) => {
                    self.coup(po.table, false);
                }
                None => self.step(PlayStep::EndRound, TM),
            }
        }
        panic!("the final did not end in sixty steps");
    }
}

/// The list, one tournament with its conditions, and its play before the
/// start (null), as sent, fit their routes.
#[test]
fn a_tournament_as_sent_fits_its_routes() {
    let (doc, defs) = document();
    let cup = Cup::entered();
    let views = cup.views();
    let summary = views.public(ID).expect("published");
    let list = serde_json::to_value(vec![summary.clone()]).unwrap();
    assert!(list[0].get("conditions").is_none(), "the list leaves the conditions out");
    fits(&list, &answer(&doc, "get", "/api/tournaments"), &defs, "GET /api/tournaments");
    let conditions = Some(views.all[&ID].conditions.published());
    let one = serde_json::to_value(TournamentSummary { conditions, ..summary }).unwrap();
    fits(&one, &answer(&doc, "get", "/api/tournaments/{id}"), &defs, "GET /api/tournaments/{id}");
    let not_started = serde_json::to_value(views.play(ID).expect("a tournament")).unwrap();
    assert_eq!(not_started, Value::Null);
    fits(&not_started, &answer(&doc, "get", "/api/tournaments/{id}/play"), &defs, "the play before the start");
}

/// A real play, mid-coup (an undisclosed wager shown, a wager beside it, an
/// absence) and at its end (placings, prizes, the seed), its players named
/// or not, fits `GET …/play`'s answer and a WebSocket message fits
/// `TournamentMessage`; a seat's chips as text, or an action of no kind,
/// does not.
#[test]
fn a_tournaments_play_as_sent_fits_its_route() {
    let (doc, defs) = document();
    let schema = answer(&doc, "get", "/api/tournaments/{id}/play");
    let mut cup = Cup::entered();
    cup.now.store(STARTS, Ordering::SeqCst);
    cup.step(PlayStep::Start, TM);
    let shown = serde_json::to_value(named(cup.coup(1, true))).unwrap();
    cup.coup(1, false);
    let seats = shown["tables"][0]["seats"].as_array().unwrap();
    assert!(seats.iter().any(|s| s["revealed"] == json!({ "bet": "banker", "amount": 1000 })), "{shown}");
    assert!(seats.iter().any(|s| s["acted"]["with"]["bet"] == "player"), "{shown}");
    assert!(seats.iter().any(|s| s["acted"]["kind"] == "absent"), "{shown}");
    fits(&shown, &schema, &defs, "the play mid-coup");
    let end = named(cup.finish());
    let sent = serde_json::to_value(&end).unwrap();
    assert!(sent["prizes"].is_array() && sent["shoes"][0]["seed"].is_string(), "{sent}");
    assert!(sent["tables"][0]["last"].is_object(), "{sent}");
    fits(&sent, &schema, &defs, "the play at its end");
    let message = TournamentMessage { tournament: cup.views().public(ID), play: Some(end), now_ms: STARTS };
    let message = serde_json::to_value(message).unwrap();
    fits(&message, &defs["TournamentMessage"], &defs, "a tournament's WebSocket message");
    let mut bad = shown.clone();
    bad["tables"][0]["seats"][0]["chips"] = json!("20000");
    assert!(check(&bad, &schema, &defs, "chips as text").is_err());
    let mut bad = shown;
    bad["tables"][0]["seats"][0]["acted"] = json!({ "kind": "bluff" });
    assert!(check(&bad, &schema, &defs, "an action of no kind").is_err());
}
