//! AU (an Australian casino's baccarat division), rule by rule.

use super::*;

const TIE: &str = "[bets.tie]\npay_table = \"8_to_1\"\n";

/// AU 12.6: "in the event that a reconstruction takes place, the Casino
/// Operator and the players shall abide by the consequences" (and AU 5.14:
/// no withdrawal once the first card is out). NSW 12.1.1's withdrawal does
/// not apply here.
#[test]
fn au_12_6_players_abide_by_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("au-casino", TIE);
    reconstructed(&mut t, &mut log);
    refused(&mut t, Command::WithdrawWager { player: 1, wager: ids[0] }, "AU 12.6");
    run(&mut t, &mut log, Command::ResumeCoup);
    assert_eq!(t.state().coup.wagers.len(), 2, "both wagers stand");
}

/// AU 12.2: "if a card is drawn in excess … (a) it shall, if it has not been
/// disclosed, be used as the first card of the next round of play" — a round
/// with wagers, not NSW 12.3's no-bet coup.
#[test]
fn au_12_2_a_undisclosed_excess_card_starts_next_round() {
    let (mut t, mut log) = live_table("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let excess = Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Banker3), face_up: false };
    let ev = run(&mut t, &mut log, excess);
    assert_eq!(kinds(&ev), [IrregularityKind::ExcessCardToNextCoup]);
    assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule.contains("AU 12.2(a)"))));
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: false, first_card: Some(c), .. } if c.to_string() == "4D"));
    run(&mut t, &mut log, wager(1, Bet::Player, 2000));
}

/// AU 12.2(b): "if the card has been disclosed, the Dealer will announce 'No
/// bets this hand' and, starting with the exposed card, deal a Void Hand".
#[test]
fn au_12_2_b_disclosed_excess_card_starts_a_void_hand() {
    let (mut t, mut log) = live_table("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let excess = Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Banker3), face_up: true };
    let ev = run(&mut t, &mut log, excess);
    assert_eq!(kinds(&ev), [IrregularityKind::ExcessCardToNoBetCoup]);
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, .. }));
}

/// AU 5.14 against 15.10: wagers may change after the first card is removed
/// only in International Baccarat (AU 15.10); at Style A, B and C tables AU
/// 5.14 forbids it.
#[test]
fn au_15_10_late_wagers_only_in_international_baccarat() {
    for (style, allowed) in [("style_a", false), ("style_b", false), ("style_c", false), ("international", true)] {
        let (mut t, mut log, _) = live_with_wagers("au-casino", &format!("dealing = \"{style}\"\n{TIE}"));
        run(&mut t, &mut log, Command::CloseBetting);
        card(&mut t, &mut log, "2H");
        if allowed {
            run(&mut t, &mut log, Command::ReopenWagers);
            run(&mut t, &mut log, wager(3, Bet::Tie, 1000));
        } else {
            refused(&mut t, Command::ReopenWagers, "AU 15.10");
        }
    }
}

/// AU 15.9: cards delivered to the wrong place — "where the round has been
/// dealt in Style B … a hand or hands may be voided … the round of play shall
/// be completed even where all hands have been voided". (Tested in
/// `engine_live.rs`, `wrong_hand_stands_except_where_au_15_9_voids_it`.)
#[test]
fn au_15_9_only_international_baccarat_voids_a_wrong_hand() {
    let (mut t, mut log, _) = live_with_wagers("au-casino", &format!("dealing = \"style_b\"\n{TIE}"));
    card(&mut t, &mut log, "2H");
    card(&mut t, &mut log, "3S");
    refused(&mut t, Command::WrongHand { void_hand: true }, "AU 15.9");
}
