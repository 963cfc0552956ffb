//! A tournament played through the server's writer (NSW 15.5-15.11): eight
//! entrants at two tables, the Tournament Manager's steps, players acting in
//! the marker's order with a pass card and an undisclosed wager, ties played
//! off, a disqualification, the final, and the prizes paid from the pool.
//! Cards come from the server's own RNG shoes, so the test plays whatever
//! is dealt; it forces ties by having everyone wager alike. Then the same
//! play comes back from a checkpoint and from the whole history, and
//! `verify` replays it without a problem.

use baccarat_core::{TableId, TournamentId, UserId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_casino::casino::tournament_manager::PlayStep;
use baccarat_casino::casino::tournament_play::{PlayAction, Stake};
use baccarat_casino::casino::tournament_view::view;
use baccarat_casino::casino::tournaments::Replay;
use baccarat_casino::casino::{recover, Keys, Reply, Request};
use baccarat_core::audit::CasinoEvent;
use baccarat_core::trust::Actor;
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{open, write_checkpoint, Opened};
use baccarat_server::verify::verify_file;
use baccarat_table::tournament::commitment;
use baccarat_table::PlayerId;
use serde_json::Value;

use super::checkpoint::{config, step};

/// 2026-12-01T00:00:00Z.
const NOW: u64 = 1_796_083_200_000;
/// The start, 2026-12-05T10:00:00Z.
const STARTS: u64 = 1_796_464_800_000;

const CUP: &str = r#"name = "Two-table Cup"
rulebook = "nsw-2021"
[entry]
starts = "2026-12-05T10:00:00Z"
fee = 10000
min_players = 8
max_players = 8
withdraw_hours_before_start = 24
application = "at the tournament desk"
[eligibility]
[chips]
per_session = 20000
[wagers]
min = 1000
max = 5000
[structure]
dealing = "method_a"
seats_per_table = 4
rounds = [
  { name = "Heat", tables = 2, coups = 2, advance_per_table = 2 },
  { name = "Final", tables = 1, coups = 2 },
]
[play]
seating = "draw"
marker = true
pass_cards = 1
undisclosed_wagers = 1
[prizes]
added = 20000
places = [{ percent = 60 }, { percent = 40 }]
payment = "cash"
"#;

const TM: Actor = Actor::Person { user: UserId(9_000), role: baccarat_server::auth::Role::TournamentManager };

fn player(n: u32) -> Actor {
    Actor::Person { user: UserId(n), role: baccarat_server::auth::Role::Player }
}

fn play(o: &mut Opened, step_: PlayStep, by: Actor) -> Reply {
    step(o, Request::TournamentPlay { tournament: TournamentId(1), step: step_, by })
}

fn ok(r: Reply) {
    assert!(matches!(r, Reply::Tournament { .. }), "{r:?}");
}

fn refused(r: Reply, rule: &str) {
    match r {
        Reply::Refused { rule: Some(got), message, .. } => assert_eq!(got, rule, "{message}"),
        other => panic!("expected a refusal under {rule}: {other:?}"),
    }
}

fn state(o: &Opened) -> Value {
    let started = o.casino.tournaments[&TournamentId(1)].play.as_ref().expect("started");
    serde_json::to_value(view(TournamentId(1), started)).expect("a view serialises")
}

/// The table (from 1) a player sits at and the box's seat view.
fn seat_of(v: &Value, p: u32) -> (u32, Value) {
    for t in v["tables"].as_array().unwrap() {
        for s in t["seats"].as_array().unwrap() {
            if s["player"] == p {
                return (t["table"].as_u64().unwrap() as u32, s.clone());
            }
        }
    }
    panic!("player {p} is not seated: {v}");
}

/// Play one coup at table `table` (from 1): each player in the marker's
/// order does what `choose` says; then "no more bets", reveals, the deal.
fn coup(o: &mut Opened, table: u32, choose: &dyn Fn(u32, u8) -> PlayAction) {
    loop {
        let v = state(o);
        let t = &v["tables"][table as usize - 1];
        let next = match t["turn"].as_u64() {
            Some(b) => t["seats"].as_array().unwrap().iter().find(|s| s["box"] == b).cloned(),
            None => t["seats"].as_array().unwrap().iter().find(|s| s["out"].is_null() && s["acted"].is_null()).cloned(),
        };
        let Some(s) = next else { break };
        let p = s["player"].as_u64().unwrap() as u32;
        ok(play(
            o,
            PlayStep::Act { player: PlayerId(p), action: choose(p, s["box"].as_u64().unwrap() as u8) },
            player(p),
        ));
    }
    ok(play(o, PlayStep::NoMoreBets { table: table - 1 }, TM));
    let v = state(o);
    for s in v["tables"][table as usize - 1]["seats"].as_array().unwrap() {
        if s["acted"]["kind"] == "undisclosed" {
            let p = s["player"].as_u64().unwrap() as u32;
            let form = Some(Stake { bet: Bet::Banker, amount: Money(1000) });
            ok(play(o, PlayStep::Reveal { player: PlayerId(p), form, salt: format!("salt-{p}") }, player(p)));
        }
    }
    ok(play(o, PlayStep::Deal { table: table - 1 }, TM));
}

fn wager(amount: i64) -> PlayAction {
    PlayAction::Wager { bet: Bet::Banker, amount: Money(amount) }
}

/// Play off the play-off table until its order is decided.
fn play_off(o: &mut Opened) {
    for _ in 0..60 {
        let v = state(o);
        let Some(po) = v["tables"].as_array().unwrap().iter().find(|t| t["play_off"] == true).cloned() else {
            return;
        };
        let table = po["table"].as_u64().unwrap() as u32;
        // Different amounts: any result but a tie sets them apart.
        coup(o, table, &|_, b| wager(1000 * i64::from(b)));
    }
    panic!("a play-off of sixty coups did not decide");
}

fn balance(o: &Opened, p: u32) -> i64 {
    o.casino.balance(PlayerId(p)).map_or(0, |b| b.0 .0)
}

#[test]
fn a_two_table_tournament_runs_from_entry_to_prizes_and_replays() {
    let (_dir, mut cfg) = config("tournament-play");
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    cfg.clock = Arc::new(move || n.load(Ordering::SeqCst));
    let mut o = open(&cfg).unwrap();
    let players: Vec<u32> = (700..708).collect();
    for p in &players {
        step(&mut o, Request::Deposit { player: PlayerId(*p), amount: Money(100_000), key: "d".parse().unwrap() });
    }
    step(&mut o, Request::CreateTournament { conditions: CUP.into() });
    for p in &players[..7] {
        step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(*p) });
    }
    now.store(STARTS, Ordering::SeqCst);
    // Seven of the eight the conditions need (NSW 15.4.2(i)).
    refused(play(&mut o, PlayStep::Start, TM), "NSW 15.4.2(i)");
    now.store(NOW, Ordering::SeqCst);
    step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(707) });
    // Not before the start (entries are open until then).
    refused(play(&mut o, PlayStep::Start, TM), "NSW 15.4.2(i)");
    now.store(STARTS, Ordering::SeqCst);
    ok(play(&mut o, PlayStep::Start, TM));
    refused(play(&mut o, PlayStep::Start, TM), "NSW 15.5");
    let v = state(&o);
    let tables = v["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 2);
    assert!(tables.iter().all(|t| t["seats"].as_array().unwrap().len() == 4), "{v}");
    assert_eq!(v["shoes"][0]["seed"], Value::Null, "the round's seed is withheld");

    // Coup 1 at table 1: out of turn is refused (NSW 15.9.4); the player on
    // the marker makes an undisclosed wager, whose form no one sees.
    let t1 = &tables[0];
    let marker = t1["marker"].as_u64().unwrap();
    let seat = |b: u64| {
        t1["seats"].as_array().unwrap().iter().find(|s| s["box"] == b).unwrap()["player"].as_u64().unwrap() as u32
    };
    let first = seat(marker);
    let second_box =
        t1["seats"].as_array().unwrap().iter().map(|s| s["box"].as_u64().unwrap()).find(|b| *b != marker).unwrap();
    let not_first = seat(second_box);
    assert_ne!(not_first, first);
    refused(
        play(&mut o, PlayStep::Act { player: PlayerId(not_first), action: wager(1000) }, player(not_first)),
        "NSW 15.9.4",
    );
    let c = baccarat_table::hex(&commitment(Bet::Banker, Money(1000), &format!("salt-{first}")));
    ok(play(
        &mut o,
        PlayStep::Act {
            player: PlayerId(first),
            action: PlayAction::Undisclosed { commitment: c.clone(), with: None },
        },
        player(first),
    ));
    let (_, shown) = seat_of(&state(&o), first);
    assert_eq!(shown["acted"]["kind"], "undisclosed");
    assert_eq!(shown["revealed"], Value::Null, "the form is hidden before no more bets");
    // A wager once made is not altered (NSW 15.9.5).
    refused(play(&mut o, PlayStep::Act { player: PlayerId(first), action: wager(2000) }, player(first)), "NSW 15.9.5");
    // "No more bets" waits for everyone (NSW 15.6.4).
    refused(play(&mut o, PlayStep::NoMoreBets { table: 0 }, TM), "NSW 15.6.4");
    // The rest wager alike, so the heat stays level; a wrong reveal is refused.
    coup(&mut o, 1, &|_, _| wager(1000));
    coup(&mut o, 2, &|_, _| wager(1000));
    // Coup 2: everyone plays their pass card (NSW 15.7); all are still level.
    coup(&mut o, 1, &|_, _| PlayAction::Pass);
    coup(&mut o, 2, &|_, _| PlayAction::Pass);
    let v = state(&o);
    for t in v["tables"].as_array().unwrap() {
        let chips: Vec<&Value> = t["seats"].as_array().unwrap().iter().map(|s| &s["chips"]).collect();
        assert!(chips.windows(2).all(|w| w[0] == w[1]), "everyone at a table is level: {t}");
        assert_eq!(t["over"], true, "{t}");
    }
    // The heat's coups are played: no more wagers there.
    refused(
        play(&mut o, PlayStep::Act { player: PlayerId(first), action: wager(1000) }, player(first)),
        "NSW 15.4.2(e)",
    );

    // End of the heat: four level at each table for two places: play-offs
    // (NSW 15.10.3), one table at a time, then the final is seated.
    let mut playoffs = 0;
    loop {
        ok(play(&mut o, PlayStep::EndRound, TM));
        let v = state(&o);
        if v["tables"].as_array().unwrap().iter().any(|t| t["play_off"] == true) {
            playoffs += 1;
            refused(play(&mut o, PlayStep::EndRound, TM), "NSW 15.10.3");
            // The round's tables play no more once its end is asked for.
            refused(play(&mut o, PlayStep::NoMoreBets { table: 0 }, TM), "NSW 15.5.8");
            play_off(&mut o);
        } else {
            break;
        }
    }
    assert!(playoffs >= 2, "each table's level heat needed a play-off");
    let v = state(&o);
    assert_eq!((v["round"].as_u64(), v["tables"].as_array().unwrap().len()), (Some(2), 1), "{v}");
    assert_eq!(v["tables"][0]["seats"].as_array().unwrap().len(), 4);
    assert!(v["shoes"][0]["seed"].is_string(), "the heat's seed is revealed once it is over");

    // The final. A disqualification must cite a ground for it.
    let finalists: Vec<u32> =
        v["tables"][0]["seats"].as_array().unwrap().iter().map(|s| s["player"].as_u64().unwrap() as u32).collect();
    let out = finalists[3];
    let d = |rule: &str| PlayStep::Disqualify {
        player: PlayerId(out),
        rule: rule.into(),
        why: "chips passed to another player".into(),
    };
    refused(play(&mut o, d("NSW 9.9"), TM), "NSW 15.5.7");
    ok(play(&mut o, d("NSW 15.6.7"), TM));
    refused(play(&mut o, d("NSW 15.6.7"), TM), "NSW 15.6.7");
    for _ in 0..2 {
        coup(&mut o, 1, &|p, _| wager(1000 * i64::from(1 + p % 4)));
    }
    loop {
        let before = state(&o);
        ok(play(&mut o, PlayStep::EndRound, TM));
        if o.casino.tournaments[&TournamentId(1)].play.as_ref().unwrap().paid.is_some() {
            break;
        }
        assert_ne!(state(&o), before, "ending the round changed nothing");
        play_off(&mut o);
    }
    let v = state(&o);
    let placings: Vec<u32> = v["placings"].as_array().unwrap().iter().map(|p| p.as_u64().unwrap() as u32).collect();
    // Everyone is placed but the disqualified finalist, whose position is
    // cancelled (NSW 15.5.6.2).
    assert_eq!(placings.len(), 7, "{v}");
    assert!(!placings.contains(&out), "{v}");
    // The pool: eight fees and the 20,000 added, 60/40 (NSW 15.3.2, 15.3.1).
    let prizes = &v["prizes"];
    assert_eq!(prizes[0]["prize"], 60_000, "{v}");
    assert_eq!(prizes[1]["prize"], 40_000, "{v}");
    let (w, r) = (placings[0], placings[1]);
    assert_eq!(balance(&o, w), 100_000 - 10_000 + 60_000);
    assert_eq!(balance(&o, r), 100_000 - 10_000 + 40_000);
    for p in placings[2..].iter().chain([&out]) {
        assert_eq!(balance(&o, *p), 90_000, "player {p} paid the fee and won nothing");
    }
    refused(play(&mut o, PlayStep::EndRound, TM), "NSW 15.5.8");
    // Once paid, the tournament is not cancelled (its fees would be refunded twice).
    refused(step(&mut o, Request::CancelTournament { tournament: TournamentId(1) }), "NSW 15.3.4");

    // The same play from a checkpoint and its tail, and from the whole history.
    let live = state(&o);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint);
    assert_eq!(state(&again), live, "from the checkpoint");
    let full = recover(&again.store, None, Keys::Since(0), &Default::default()).unwrap();
    assert_eq!(
        serde_json::to_value(view(TournamentId(1), full.casino.tournaments[&TournamentId(1)].play.as_ref().unwrap()))
            .unwrap(),
        live,
        "from the whole history"
    );
    drop(again);
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);

    // `verify`'s replay names a forged step: cards that are not the shoe's,
    // prizes that are not the pool's shares, a wager out of turn.
    let records = baccarat_core::store::read_records(&cfg.db, TableId(0), 1).unwrap();
    // Each step names who took it: the Tournament Manager, or the player.
    for r in &records {
        let b = baccarat_core::audit::Body::decode(&r.body).unwrap();
        match (&b.casino, b.by) {
            (Some(CasinoEvent::TournamentPaid { .. }), by) => assert_eq!(by, None, "the server pays"),
            (Some(CasinoEvent::TournamentActed { player, action, .. }), Some(by)) => {
                let want = if action.by_manager() { TM } else { self::player(player.0) };
                assert_eq!(by, want, "record {}", r.seq);
            }
            (Some(CasinoEvent::TournamentRevealed { player, .. }), by) => {
                assert_eq!(by, Some(self::player(player.0)), "record {}", r.seq)
            }
            (Some(e), by) if baccarat_casino::casino::tournaments::is_play(e) => {
                assert_eq!(by, Some(TM), "record {}: {e:?}", r.seq)
            }
            _ => {}
        }
    }
    let events: Vec<(CasinoEvent, Option<Actor>)> = records
        .iter()
        .filter_map(|r| {
            let b = baccarat_core::audit::Body::decode(&r.body).unwrap();
            b.casino.map(|e| (e, b.by))
        })
        .collect();
    let replay = |events: &[(CasinoEvent, Option<Actor>)]| {
        let mut r = Replay::default();
        for (i, (e, by)) in events.iter().enumerate() {
            r.feed(i as u64 + 1, e, *by);
        }
        r
    };
    let honest = replay(&events);
    assert!(honest.problems.is_empty() && honest.steps > 40, "{:?} after {}", honest.problems, honest.steps);
    let forge = |f: &dyn Fn(&mut CasinoEvent) -> bool| {
        let mut ev = events.clone();
        assert!(ev.iter_mut().any(|(e, _)| f(e)), "nothing to forge");
        replay(&ev).problems
    };
    let p = forge(&|e| match e {
        CasinoEvent::TournamentDealt { cards, .. } => {
            cards.swap(0, 1);
            cards[0] != cards[1]
        }
        _ => false,
    });
    assert!(p.iter().any(|m| m.contains("shoe's next")), "{p:?}");
    let p = forge(&|e| match e {
        CasinoEvent::TournamentPaid { prizes, .. } => {
            prizes.swap(0, 1);
            true
        }
        _ => false,
    });
    assert!(p.iter().any(|m| m.contains("shares of the pool")), "{p:?}");
    let p = forge(&|e| match e {
        CasinoEvent::TournamentActed { action: PlayAction::Wager { amount, .. }, .. } => {
            *amount = Money(1500);
            true
        }
        _ => false,
    });
    assert!(p.iter().any(|m| m.contains("NSW 15.6.14")), "{p:?}");
    // A wager recorded as the Tournament Manager's, not the player's.
    let mut ev = events.clone();
    let acted = ev
        .iter_mut()
        .find(|(e, _)| matches!(e, CasinoEvent::TournamentActed { action: PlayAction::Wager { .. }, .. }))
        .unwrap();
    acted.1 = Some(TM);
    let p = replay(&ev).problems;
    assert!(p.iter().any(|m| m.contains("may not take it")), "{p:?}");
    // The prizes paid twice.
    let mut ev = events.clone();
    let paid = ev.iter().find(|(e, _)| matches!(e, CasinoEvent::TournamentPaid { .. })).unwrap().clone();
    ev.push(paid);
    let p = replay(&ev).problems;
    assert!(p.iter().any(|m| m.contains("paid already")), "{p:?}");
}

/// The Tournament Manager is held to the clock (records carry the writer's
/// time): a player is late only once the time to wager the conditions gave
/// notice of has run out (NSW 15.6.11, 15.6.12), and a round timed by the
/// clock ends early only once who progresses is determined (NSW 15.5.5.1).
#[test]
fn nsw_15_6_12_and_15_5_5_1_the_clock_binds_the_tournament_manager() {
    let (_dir, mut cfg) = config("tournament-clock");
    let now = Arc::new(AtomicU64::new(NOW));
    let n = now.clone();
    cfg.clock = Arc::new(move || n.load(Ordering::SeqCst));
    let mut o = open(&cfg).unwrap();
    let timed = CUP
        .replace("min_players = 8\nmax_players = 8", "min_players = 2\nmax_players = 2")
        .replace("max = 5000\n", "max = 5000\ntime_limit_seconds = 60\n")
        .replace(
            "rounds = [\n  { name = \"Heat\", tables = 2, coups = 2, advance_per_table = 2 },\n  { name = \"Final\", tables = 1, coups = 2 },\n]",
            "rounds = [{ name = \"Final\", tables = 1, minutes = 10 }]",
        )
        .replace("seats_per_table = 4", "seats_per_table = 2")
        .replace("places = [{ percent = 60 }, { percent = 40 }]", "places = [{ percent = 100 }]");
    assert_ne!(timed, CUP);
    for p in [700u32, 701] {
        step(&mut o, Request::Deposit { player: PlayerId(p), amount: Money(100_000), key: "d".parse().unwrap() });
    }
    let r = step(&mut o, Request::CreateTournament { conditions: timed });
    assert_eq!(r, Reply::Tournament { tournament: TournamentId(1), entrants: 0 }, "{r:?}");
    for p in [700u32, 701] {
        step(&mut o, Request::EnterTournament { tournament: TournamentId(1), player: PlayerId(p) });
    }
    now.store(STARTS, Ordering::SeqCst);
    ok(play(&mut o, PlayStep::Start, TM));
    let v = state(&o);
    let t = &v["tables"][0];
    let first = t["seats"].as_array().unwrap().iter().find(|s| s["box"] == t["turn"]).unwrap()["player"]
        .as_u64()
        .unwrap() as u32;
    let late = |o: &mut Opened| {
        play(o, PlayStep::Act { player: PlayerId(first), action: PlayAction::Late { bet: Bet::Banker } }, TM)
    };
    // 30 s into the minute: not late yet.
    now.store(STARTS + 30_000, Ordering::SeqCst);
    refused(late(&mut o), "NSW 15.6.12");
    // The round's ten minutes are not up, and both are still in play.
    refused(play(&mut o, PlayStep::EndRound, TM), "NSW 15.5.5.1");
    now.store(STARTS + 60_000, Ordering::SeqCst);
    ok(late(&mut o));
    assert_eq!(seat_of(&state(&o), first).1["acted"]["kind"], "late");
    // The other player's minute runs from the first's action (the marker's order).
    let second = if first == 700 { 701 } else { 700 };
    let late2 = PlayStep::Act { player: PlayerId(second), action: PlayAction::Late { bet: Bet::Player } };
    now.store(STARTS + 100_000, Ordering::SeqCst);
    refused(play(&mut o, late2.clone(), TM), "NSW 15.6.12");
    now.store(STARTS + 120_000, Ordering::SeqCst);
    ok(play(&mut o, late2, TM));
    ok(play(&mut o, PlayStep::NoMoreBets { table: 0 }, TM));
    ok(play(&mut o, PlayStep::Deal { table: 0 }, TM));
    // After ten minutes the round ends (a play-off first if they are level).
    now.store(STARTS + 600_000, Ordering::SeqCst);
    ok(play(&mut o, PlayStep::EndRound, TM));
}
