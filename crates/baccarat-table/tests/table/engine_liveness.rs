//! A coup can always finish (issue 10 §4): from every state reachable by any
//! sequence of commands at every dealing style — NSW Methods A/B/C, AU Styles
//! A/B/C and International, the resort's face-up and squeeze, EU's face-up and
//! players holding cards — the dealer alone can complete the coup (closing
//! betting, dealing the card due, exposing a hand left out), or a supervisor
//! can void it with every stake returned.
//!
//! The squeeze once stalled: "Pass the cards" by the last player offered a
//! hand left the table in Dealing with no card due and the other hand face
//! down; `nsw_8_14_the_last_decline_leaves_the_coup_finishable` is that case.

use crate::common::*;
use baccarat_rules::Side;
use proptest::prelude::*;

/// Every (rulebook, dealing style) the profiles permit.
fn styles() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for rb in ["nsw-2021", "au-casino", "resort-house", "european-casino"] {
        for d in &profiles::builtin(rb).unwrap().procedures.dealing {
            let name = serde_json::to_value(d).unwrap().as_str().unwrap().to_string();
            out.push((rb, name));
        }
    }
    out
}

#[derive(Clone, Debug)]
enum Op {
    Open,
    Place(u32, bool, i64),
    Close,
    Deal,
    Expose(u32, bool),
    DealerExposes(bool),
    Decline(u32),
    TakeMarker(u32),
    PassMarker(u32),
    /// The holder of the hand out declines it, or exposes it.
    HolderDeclines,
    HolderExposes,
    /// The dealer's natural next step.
    Step,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Open),
        6 => (1u32..5, any::<bool>(), 1i64..40).prop_map(|(p, b, a)| Op::Place(p, b, a * 500)),
        2 => Just(Op::Close),
        6 => Just(Op::Deal),
        4 => (1u32..5, any::<bool>()).prop_map(|(p, s)| Op::Expose(p, s)),
        1 => any::<bool>().prop_map(Op::DealerExposes),
        4 => (1u32..5).prop_map(Op::Decline),
        1 => (1u32..5).prop_map(Op::TakeMarker),
        1 => (1u32..5).prop_map(Op::PassMarker),
        4 => Just(Op::HolderDeclines),
        3 => Just(Op::HolderExposes),
        8 => Just(Op::Step),
    ]
}

fn side(player: bool) -> Side {
    if player {
        Side::Player
    } else {
        Side::Banker
    }
}

fn command(op: &Op, t: &Table) -> Command {
    let holder = t.state().out.and_then(|side| *t.state().holder.get(side));
    match op {
        Op::HolderDeclines => Command::DeclineCards { player: holder.unwrap_or(PlayerId(1)) },
        Op::HolderExposes => Command::Expose { side: t.state().out.unwrap_or(Side::Player), player: holder },
        Op::Step => next_step(t).unwrap_or(Command::DealNext),
        Op::Open => Command::OpenBetting { no_bet: false, closes_at: None },
        Op::Place(p, player, amount) => {
            seat_wager(*p, *p as u8, if *player { Bet::Player } else { Bet::Banker }, *amount)
        }
        Op::Close => Command::CloseBetting,
        Op::Deal => Command::DealNext,
        Op::Expose(p, s) => Command::Expose { side: side(*s), player: Some(PlayerId(*p)) },
        Op::DealerExposes(s) => Command::Expose { side: side(*s), player: None },
        Op::Decline(p) => Command::DeclineCards { player: PlayerId(*p) },
        Op::TakeMarker(p) => Command::TakeMarker { player: PlayerId(*p), seat: *p as u8 },
        Op::PassMarker(p) => Command::PassMarker { player: PlayerId(*p) },
    }
}

/// The dealer's next step in the coup in progress, if one is in progress.
fn next_step(t: &Table) -> Option<Command> {
    Some(match t.phase() {
        Phase::Ready | Phase::NoShoe | Phase::ShoeOver => return None,
        Phase::Betting => Command::CloseBetting,
        Phase::Reconstruction => Command::ResumeCoup,
        Phase::Closed | Phase::Dealing => match t.state().out {
            Some(side) => Command::Expose { side, player: None },
            None => Command::DealNext,
        },
    })
}

/// The dealer finishes the coup in progress; returns a description of where
/// it could not.
fn finish(t: &mut Table) -> Result<(), String> {
    for _ in 0..40 {
        let Some(cmd) = next_step(t) else { return Ok(()) };
        t.execute(cmd.clone()).map_err(|r| format!("{:?}: {cmd:?} refused: {r}", t.phase()))?;
    }
    Err(format!("still {:?} after 40 of the dealer's steps", t.phase()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn a_coup_can_always_finish(style in 0usize..11, seed in any::<u64>(), ops in prop::collection::vec(op(), 0..40)) {
        let all = styles();
        let (rb, dealing) = &all[style % all.len()];
        // AU needs its tie's pay table chosen (AU 5.1(c)).
        let tie = if *rb == "au-casino" { "[bets.tie]\npay_table = \"8_to_1\"\n" } else { "" };
        let extra = format!("dealing = \"{dealing}\"\n{tie}");
        let (mut t, _) = rng_table(rb, &extra, seed);
        for op in &ops {
            let _ = t.execute(command(op, &t));
        }
        // The dealer alone can finish it …
        let mut dealer = t.clone();
        prop_assert!(finish(&mut dealer).is_ok(), "{rb} {dealing}: {:?}", finish(&mut t.clone()));
        // … or a supervisor can void it with every stake returned.
        if matches!(t.phase(), Phase::Betting | Phase::Closed | Phase::Dealing | Phase::Reconstruction) {
            let stakes: i64 = t.state().coup.wagers.iter().map(|w| w.amount.0).sum();
            let ev = t.execute(Command::Invalidate { forfeit: vec![], reason: None });
            let ev = ev.map_err(|r| TestCaseError::fail(format!("{rb} {dealing}: invalidate refused: {r}")))?;
            let returned: i64 = ev
                .iter()
                .filter_map(|e| if let Event::WagerSettled { settlement, .. } = e { Some(settlement.returned.0) } else { None })
                .sum();
            prop_assert_eq!(returned, stakes);
            prop_assert_eq!(t.phase(), Phase::Ready);
        }
    }
}

/// NSW 8.14: the last player offered the Player hand passes; the dealer turns
/// it, and the coup goes on (the Banker hand is passed, or turned) to its end.
#[test]
fn nsw_8_14_the_last_decline_leaves_the_coup_finishable() {
    for seed in 0..40 {
        let (mut t, mut log) = rng_table("nsw-2021", "dealing = \"method_b\"\n", seed);
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 1000));
        run(&mut t, &mut log, seat_wager(2, 2, Bet::Banker, 1000));
        run(&mut t, &mut log, Command::CloseBetting);
        while t.state().out.is_none() && t.phase() == Phase::Dealing || t.phase() == Phase::Closed {
            run(&mut t, &mut log, Command::DealNext);
        }
        if t.state().out == Some(Side::Player) {
            run(&mut t, &mut log, Command::DeclineCards { player: PlayerId(1) });
            assert!(
                t.state().out.is_some() || t.due().is_some() || t.phase() == Phase::Ready,
                "seed {seed}: stalled with nothing out and nothing due"
            );
        }
        finish(&mut t).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
