//! EU (a European casino's rules), rule by rule.

use super::*;

/// EU 6.1.4: "When the dealer has announced 'no more bets,' bets may not be
/// made, altered, or removed" — so no withdrawal after a reconstruction.
#[test]
fn eu_6_1_4_no_withdrawal_after_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("european-casino", "");
    reconstructed(&mut t, &mut log);
    refused(&mut t, Command::WithdrawWager { player: 2, wager: ids[1] }, "EU 6.1.4");
}

/// EU 6.1.3: "the maximum for those bets [égalité and bonus] stated on the
/// sign … applies as the general maximum for the entire table and not for an
/// individual box/player".
#[test]
fn eu_6_1_3_the_tie_maximum_is_for_the_whole_table() {
    let (mut t, mut log) = live_table("european-casino", "[bets.player_pair]\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Tie, 60_000));
    refused(&mut t, wager(2, Bet::Tie, 50_000), "EU 6.1.3");
    run(&mut t, &mut log, wager(2, Bet::Tie, 40_000));
    run(&mut t, &mut log, wager(3, Bet::PlayerPair, 100_000));
    refused(&mut t, wager(4, Bet::PlayerPair, 100), "EU 6.1.3");
    // The main wagers stay per player (within the differential, EU 6.1.1).
    run(&mut t, &mut log, wager(5, Bet::Player, 50_000));
    run(&mut t, &mut log, wager(6, Bet::Banker, 50_000));
}

/// EU 4.3: "Any card dealt out of turn may not be 'burned', it must be used in
/// proper order in this coup or next" — cited as EU 4.3, not "not stated".
#[test]
fn eu_4_3_a_card_dealt_out_of_turn_is_used_in_the_next_coup() {
    let (mut t, mut log) = live_table("european-casino", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let ev = run(&mut t, &mut log, Command::CardIn { card: "4D".parse().unwrap(), to: None, face_up: false });
    assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule == "EU 4.3")), "{ev:?}");
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: false, first_card: Some(_), .. }));
}
