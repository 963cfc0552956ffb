//! A coup can always finish (issue 10 §4): from every state reachable by any
//! sequence of commands at every dealing style — NSW Methods A/B/C, AU Styles
//! A/B/C and International, the resort's face-up and squeeze, EU's face-up and
//! players holding cards — and from every shoe source — shuffled here, a live
//! shoe whose cards are entered one by one, a pre-shuffled stack (NSW 1.1, 4.3; EU
//! 2.1.1) — the dealer alone can complete the coup (closing betting, dealing
//! the card due, exposing a hand left out), or a supervisor can void it with
//! every stake returned. Who may send which command at which kind of table is
//! the server's (`trust.rs`); its `liveness.rs` runs the same property through
//! the trust matrix, per table mode (issue 45).
//!
//! The squeeze once stalled: "Pass the cards" by the last player offered a
//! hand left the table in Dealing with no card due and the other hand face
//! down; `nsw_8_14_the_last_decline_leaves_the_coup_finishable` is that case.

use crate::common::*;
use baccarat_rules::Side;
use proptest::prelude::*;

/// Where the shoe's cards come from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// Shuffled here from a seed: `deal_next`.
    Shuffled,
    /// A live shoe: each card entered with `card_in`.
    Live,
    /// A pre-shuffled stack in a recorded order: `deal_next` (NSW 1.1, 4.3; EU 2.1.1).
    PreShuffled,
}

const SOURCES: [Source; 3] = [Source::Shuffled, Source::Live, Source::PreShuffled];

/// The physical cards a live shoe holds, in the order they come out.
#[derive(Clone)]
struct Cards {
    source: Source,
    stack: Vec<Card>,
    next: usize,
}

impl Cards {
    /// Deal the card due: from the engine's own stack, or the next physical
    /// card entered at the console.
    fn deal(&self) -> Command {
        match self.source {
            Source::Live => Command::CardIn { card: self.stack[self.next % self.stack.len()], to: None, face_up: true },
            Source::Shuffled | Source::PreShuffled => Command::DealNext,
        }
    }

    /// Run `cmd`; a card entered that the table took is out of the shoe.
    fn execute(&mut self, t: &mut Table, cmd: Command) -> Result<Vec<Event>, String> {
        let card_in = matches!(cmd, Command::CardIn { .. });
        let ev = t.execute(cmd.clone()).map_err(|r| format!("{:?}: {cmd:?} refused: {r}", t.phase()))?;
        if card_in {
            self.next += 1;
        }
        Ok(ev)
    }
}

/// A table of `rb` dealing `extra`'s style with a shoe from `source`, cut and
/// burnt as the profile says where the source has an order.
fn table(rb: &str, extra: &str, source: Source, seed: u64) -> (Table, Cards) {
    let (shuffled_table, _) = rng_table(rb, extra, seed);
    let decks = shuffled_table.setup().config.decks;
    let (stack, _) = shuffled(decks, &Seed::from_u64(seed));
    let cards = Cards { source, stack: stack.clone(), next: 0 };
    let t = match source {
        Source::Shuffled => shuffled_table,
        Source::Live => live_table(rb, extra).0,
        Source::PreShuffled => {
            let s = setup(rb, extra);
            let burn = s.rulebook.procedures.burn.first().copied();
            let cut = CutRules::from_profile(&s.rulebook.config).random(
                &mut baccarat_table::Stream::new(&Seed::from_u64(seed)),
                stack.len(),
                20,
            );
            let mut t = Table::new(s);
            let source = ShoeSource::PreShuffled { cards: stack };
            t.execute(Command::StartShoe { source, cut: Some(cut), burn, show_burn: false })
                .expect("a pre-shuffled shoe");
            t
        }
    };
    (t, cards)
}

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

fn command(op: &Op, t: &Table, cards: &Cards) -> Command {
    let holder = t.state().out.and_then(|side| *t.state().holder.get(side));
    match op {
        Op::HolderDeclines => Command::DeclineCards { player: holder.unwrap_or(PlayerId(1)) },
        Op::HolderExposes => Command::Expose { side: t.state().out.unwrap_or(Side::Player), player: holder },
        Op::Step => next_step(t, cards).unwrap_or(cards.deal()),
        Op::Open => Command::OpenBetting { no_bet: false, closes_at: None },
        Op::Place(p, player, amount) => {
            seat_wager(*p, *p as u8, if *player { Bet::Player } else { Bet::Banker }, *amount)
        }
        Op::Close => Command::CloseBetting,
        Op::Deal => cards.deal(),
        Op::Expose(p, s) => Command::Expose { side: side(*s), player: Some(PlayerId(*p)) },
        Op::DealerExposes(s) => Command::Expose { side: side(*s), player: None },
        Op::Decline(p) => Command::DeclineCards { player: PlayerId(*p) },
        Op::TakeMarker(p) => Command::TakeMarker { player: PlayerId(*p), seat: *p as u8 },
        Op::PassMarker(p) => Command::PassMarker { player: PlayerId(*p) },
    }
}

/// The dealer's next step in the coup in progress, if one is in progress.
fn next_step(t: &Table, cards: &Cards) -> Option<Command> {
    Some(match t.phase() {
        Phase::Ready | Phase::NoShoe | Phase::ShoeOver => return None,
        Phase::Betting => Command::CloseBetting,
        Phase::Reconstruction => Command::ResumeCoup,
        Phase::Closed | Phase::Dealing => match t.state().out {
            Some(side) => Command::Expose { side, player: None },
            None => cards.deal(),
        },
    })
}

/// The dealer finishes the coup in progress; returns a description of where
/// it could not.
fn finish(t: &mut Table, cards: &mut Cards) -> Result<(), String> {
    for _ in 0..40 {
        let Some(cmd) = next_step(t, cards) else { return Ok(()) };
        cards.execute(t, cmd)?;
    }
    Err(format!("still {:?} after 40 of the dealer's steps", t.phase()))
}

/// The dealer plays one whole coup from `Ready` (a no-bet coup where one is
/// due), a Banker wager on it: a table that can finish a coup can also deal
/// the next one from its shoe.
/// Only a shoe that is over (a new one is the next step, not a coup) is
/// excused; any other phase than `Ready` here is a table that cannot go on.
fn another_coup(t: &mut Table, cards: &mut Cards) -> Result<(), String> {
    match t.phase() {
        Phase::Ready => {}
        Phase::ShoeOver => return Ok(()),
        p => return Err(format!("after the coup the table is {p:?}, not ready for another")),
    }
    let no_bet = t.state().no_bet_coups_due > 0;
    cards.execute(t, Command::OpenBetting { no_bet, closes_at: None })?;
    if t.state().coup.no_bet {
        cards.execute(t, Command::CloseBetting)?;
    } else {
        cards.execute(t, seat_wager(9, 1, Bet::Banker, 2000))?;
    }
    finish(t, cards)?;
    match t.phase() {
        Phase::Ready | Phase::ShoeOver => Ok(()),
        p => Err(format!("the next coup stopped at {p:?}")),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn a_coup_can_always_finish(style in 0usize..11, source in 0usize..3, seed in any::<u64>(), ops in prop::collection::vec(op(), 0..40)) {
        let all = styles();
        let (rb, dealing) = &all[style % all.len()];
        let source = SOURCES[source];
        // AU needs its tie's pay table chosen (AU 5.1(c)).
        let tie = if *rb == "au-casino" { "[bets.tie]\npay_table = \"8_to_1\"\n" } else { "" };
        let extra = format!("dealing = \"{dealing}\"\n{tie}");
        let (mut t, mut cards) = table(rb, &extra, source, seed);
        for op in &ops {
            let cmd = command(op, &t, &cards);
            let _ = cards.execute(&mut t, cmd);
        }
        // The dealer alone can finish it, and deal the next …
        let mut dealer = t.clone();
        let mut dealer_cards = cards.clone();
        let done = finish(&mut dealer, &mut dealer_cards).and_then(|()| another_coup(&mut dealer, &mut dealer_cards));
        prop_assert!(done.is_ok(), "{rb} {dealing} {source:?}: {:?}", done);
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
        let mut cards = Cards { source: Source::Shuffled, stack: vec![], next: 0 };
        finish(&mut t, &mut cards).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
    }
}
