//! Rule-by-rule conformance: one test per rule the engine implements, named
//! after it (`au_12_2_a_…`), its text quoted in the test's doc, driven through
//! `Table::execute` as the rulebook describes the situation. One module per
//! rulebook; `coverage.md` beside this file lists which rules each covers.

mod au;
mod coverage;
mod eu;
mod nsw;

use crate::common::*;

/// A live table of `rulebook` dealing `style`, betting open, with player 1 on
/// the Player and player 2 on the Banker.
pub fn live_with_wagers(rulebook: &str, extra: &str) -> (Table, Vec<Event>, Vec<WagerId>) {
    let (mut t, mut log) = live_table(rulebook, extra);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let mut ids = Vec::new();
    for (p, bet) in [(1, Bet::Player), (2, Bet::Banker)] {
        if let Event::WagerPlaced { wager } = &run(&mut t, &mut log, wager(p, bet, 2000))[0] {
            ids.push(wager.id);
        }
    }
    (t, log, ids)
}

/// Three cards dealt, then reconstructed in another proper order.
pub fn reconstructed(t: &mut Table, log: &mut Vec<Event>) {
    for c in ["2H", "3S", "4D"] {
        card(t, log, c);
    }
    let order: Vec<Card> = ["3S", "2H", "4D"].iter().map(|c| c.parse().unwrap()).collect();
    run(t, log, Command::Misdeal { reconstructed: Some(order) });
    assert_eq!(t.phase(), Phase::Reconstruction);
}

/// Deal a coup of 7 against 7 (7H KD to the Player, 7S KC to the Banker):
/// both hands stand (NSW 9; AU 9), nothing more is due, and the coup is over.
pub fn standing_coup(t: &mut Table, log: &mut Vec<Event>) {
    for c in ["7H", "7S", "KD", "KC"] {
        card(t, log, c);
    }
    assert_eq!(t.phase(), Phase::Ready, "7 against 7: both stand, the coup is over");
}

mod resort;

/// Whether any of `events` cites `rule` (in any of its rule fields).
pub fn cites(events: &[Event], rule: &str) -> bool {
    serde_json::to_string(events).unwrap().contains(rule)
}

/// Play whole coups (one Player wager each) until `stop` sees the events of
/// one, or the shoe is over; returns every event.
pub fn play_until(t: &mut Table, log: &mut Vec<Event>, stop: impl Fn(&[Event]) -> bool) -> Vec<Event> {
    let mut all = Vec::new();
    while !matches!(t.phase(), Phase::ShoeOver | Phase::NoShoe) {
        let no_bet = t.state().no_bet_coups_due > 0;
        let mut ev = run(t, log, Command::OpenBetting { no_bet, closes_at: None });
        if !no_bet && matches!(&ev[0], Event::BettingOpened { no_bet: false, .. }) {
            ev.extend(run(t, log, wager(1, Bet::Player, 2000)));
        }
        ev.extend(run(t, log, Command::CloseBetting));
        ev.extend(deal_out(t, log));
        let done = stop(&ev);
        all.extend(ev);
        if done {
            break;
        }
    }
    all
}

/// A shuffled shoe started with the burn and cut of the profile.
pub fn started(rulebook: &str, extra: &str) -> (Table, Vec<Event>) {
    rng_table(rulebook, extra, 3)
}

/// A cut too near either end of the shoe (NSW 4.5-4.6; AU 7.5-7.6; EU 2.1.3).
pub fn bad_cut(rulebook: &str, extra: &str, rule: &str) {
    let mut t = Table::new(setup(rulebook, &format!("decks = 8\n{extra}")));
    let cmd = Command::StartShoe {
        source: ShoeSource::Shuffle { seed: Seed::from_u64(1) },
        cut: Some(Cut { at: 1, from_back: 20 }),
        burn: None,
        show_burn: false,
    };
    refused(&mut t, cmd, rule);
}
