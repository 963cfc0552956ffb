//! EU (a European casino's rules), rule by rule.

use super::*;
use baccarat_table::PlayerId;

/// EU 6.1.4: "When the dealer has announced 'no more bets,' bets may not be
/// made, altered, or removed" — so no withdrawal after a reconstruction.
#[test]
fn eu_6_1_4_no_withdrawal_after_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("european-casino", "");
    reconstructed(&mut t, &mut log);
    refused(&mut t, Command::WithdrawWager { player: PlayerId(2), wager: ids[1] }, "EU 6.1.4");
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

/// EU's TABLE LIMIT: "Minimum and maximum amounts that a player can bet".
#[test]
fn eu_table_limit_minimum_and_maximum() {
    let (mut t, mut log) = started("european-casino", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::Player, 500), "EU definitions: TABLE LIMIT");
}

/// EU 6.1.1-6.1.2: the maximum differential; bets over it are lowered
/// proportionately.
#[test]
fn eu_6_1_2_bets_over_the_differential_are_lowered() {
    let (mut t, mut log) = started("european-casino", "differential = 5000\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 20_000));
    run(&mut t, &mut log, wager(2, Bet::Player, 2000));
    let ev = run(&mut t, &mut log, Command::CloseBetting);
    assert!(ev.iter().any(|e| matches!(e, Event::WagerReduced { rule, .. } if rule.contains("EU 6.1.1-6.1.3"))));
}

/// EU 3.1.1 (burning by the first card's value) and EU 2.1.3 (the cut).
#[test]
fn eu_3_1_1_and_2_1_3_burn_and_cut() {
    let (_, log) = started("european-casino", "");
    assert!(log.iter().any(|e| matches!(e, Event::Burned { rule, .. } if rule.contains("EU 3.1.1"))));
    bad_cut("european-casino", "", "EU 2.1.3");
}

/// EU 4.2: "If there was a mistake in the dealing order and the proper order
/// is impossible to restore, the coup is declared void."
#[test]
fn eu_4_2_a_coup_whose_order_cannot_be_restored_is_void() {
    let (mut t, mut log, _) = live_with_wagers("european-casino", "");
    card(&mut t, &mut log, "2H");
    let ev = run(&mut t, &mut log, Command::Misdeal { reconstructed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("EU 4.2"))));
}

/// EU 5.1.1-5.1.2: where players hold the cards, each hand goes to the highest
/// bet on it; EU 5.1.7-5.1.8: cards handled by the wrong player, the result stands.
#[test]
fn eu_5_1_players_hold_cards_and_the_wrong_hand_stands() {
    let (mut t, mut log) = live_table("european-casino", "dealing = \"players_hold_cards\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, 2000));
    run(&mut t, &mut log, wager(2, Bet::Player, 5000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "4D", "5C"] {
        ev.extend(card(&mut t, &mut log, c));
    }
    assert!(
        ev.iter()
            .any(|e| matches!(e, Event::HandPassed { to: Some(PlayerId(2)), rule, .. } if rule.contains("EU 5.1"))),
        "the Player hand goes to the highest bet: {ev:?}"
    );
    refused(&mut t, Command::WrongHand { void_hand: true }, "EU 5.1.7-5.1.8");
    let ev = run(&mut t, &mut log, Command::WrongHand { void_hand: false });
    assert!(cites(&ev, "EU 5.1.7-5.1.8"));
}

/// EU's PERSONAL LIMIT MARKER: "a limit different from the table's limit"
/// (the profile lets it exceed the table's maximum).
#[test]
fn eu_personal_limit_marker() {
    let (mut t, mut log) = started("european-casino", "");
    let ev = run(
        &mut t,
        &mut log,
        Command::SetPersonalLimits { player: PlayerId(1), min: Money(1000), max: Money(500_000) },
    );
    assert!(cites(&ev, "PERSONAL LIMIT MARKER"));
}

/// EU 6.1.4: after "no more bets", bets may not be made, altered, or removed.
#[test]
fn eu_6_1_4_no_bet_after_no_more_bets() {
    let (mut t, mut log, ids) = live_with_wagers("european-casino", "");
    run(&mut t, &mut log, Command::CloseBetting);
    refused(&mut t, wager(3, Bet::Player, 2000), "EU 6.1.4");
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: ids[0] }, "EU 6.1.4");
}

/// EU 4.3 for a Player third card dealt out of turn while the Banker stands:
/// used in proper order in the next coup.
#[test]
fn eu_4_3_a_player_third_out_of_turn_goes_to_the_next_coup() {
    let (mut t, mut log) = live_table("european-casino", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let c = Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Player3), face_up: false };
    let ev = run(&mut t, &mut log, c);
    assert_eq!(kinds(&ev), [IrregularityKind::PlayerThirdToNextCoup]);
    assert!(cites(&ev, "EU 4.3"));
}
