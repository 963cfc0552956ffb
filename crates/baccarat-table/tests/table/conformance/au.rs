//! AU (an Australian casino's baccarat division), rule by rule.

use super::*;
use baccarat_table::PlayerId;

const TIE: &str = "[bets.tie]\npay_table = \"8_to_1\"\n";

/// AU 12.6: "in the event that a reconstruction takes place, the Casino
/// Operator and the players shall abide by the consequences" (and AU 5.14:
/// no withdrawal once the first card is out). NSW 12.1.1's withdrawal does
/// not apply here.
#[test]
fn au_12_6_players_abide_by_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("au-casino", TIE);
    reconstructed(&mut t, &mut log);
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: ids[0] }, "AU 12.6");
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

/// AU 5.15: a losing (settled) wager cannot be withdrawn.
#[test]
fn au_5_15_a_settled_wager_cannot_be_withdrawn() {
    let (mut t, mut log) = started("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let Event::WagerPlaced { wager: w } = run(&mut t, &mut log, wager(1, Bet::Player, 2000))[0].clone() else {
        unreachable!()
    };
    run(&mut t, &mut log, Command::CloseBetting);
    deal_out(&mut t, &mut log);
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: w.id }, "AU 5.15");
}

/// AU 5.8-5.9: each wager within the table's minimum and maximum.
#[test]
fn au_5_8_wagers_within_the_table_limits() {
    let (mut t, mut log) = started("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    refused(&mut t, wager(1, Bet::Player, 500), "AU 5.8-5.9");
    refused(&mut t, wager(1, Bet::Player, 200_000), "AU 5.8-5.9");
}

/// AU 5.17-5.18: the table differential; the side over it is reduced.
#[test]
fn au_5_18_wagers_over_the_differential_are_reduced() {
    let (mut t, mut log) = started("au-casino", &format!("differential = 5000\n{TIE}"));
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 20_000));
    run(&mut t, &mut log, wager(2, Bet::Player, 2000));
    let ev = run(&mut t, &mut log, Command::CloseBetting);
    assert!(
        ev.iter().any(|e| matches!(e, Event::WagerReduced { rule, .. } if rule.contains("AU 5.17-5.18"))),
        "{ev:?}"
    );
}

/// AU 12.5: "If there are insufficient cards remaining … to complete a round
/// of play, that round shall be Void".
#[test]
fn au_12_5_insufficient_cards_void_the_round() {
    let mut t = Table::new(setup("au-casino", &format!("decks = 8\n{TIE}")));
    let mut log = Vec::new();
    let cards = baccarat_table::fresh(8);
    run(
        &mut t,
        &mut log,
        Command::StartShoe { source: ShoeSource::PreShuffled { cards }, cut: None, burn: None, show_burn: false },
    );
    let ev = play_until(&mut t, &mut log, |ev| kinds(ev).contains(&IrregularityKind::InsufficientCards));
    assert!(cites(&ev, "AU 12.5"), "the last round is void under AU 12.5");
}

/// AU 11.2: the cutting card — out before a round: that round is the last
/// (11.2(a)); out during one: one more round (11.2(b)).
#[test]
fn au_11_2_the_cutting_card_decides_the_last_rounds() {
    let (mut t, mut log) = live_table("au-casino", TIE);
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(cites(&ev, "AU 11.2(a)"), "{ev:?}");
    let (mut t, mut log, _) = live_with_wagers("au-casino", TIE);
    card(&mut t, &mut log, "2H");
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(cites(&ev, "AU 11.2(b)"), "{ev:?}");
}

/// AU 7.7 (the burn) and AU 7.5-7.6 (the cut).
#[test]
fn au_7_5_to_7_7_cut_and_burn() {
    let (_, log) = started("au-casino", TIE);
    assert!(log.iter().any(|e| matches!(e, Event::Burned { rule, .. } if rule.contains("AU 7.7"))));
    bad_cut("au-casino", TIE, "AU 7.5-7.6");
}

/// AU 12.1(b): a Player third card not authorised, disclosed, while the
/// Banker stands: "No bets this hand", a Void Hand starting with it.
#[test]
fn au_12_1_b_a_disclosed_player_third_starts_a_void_hand() {
    let (mut t, mut log) = live_table("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let c = Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Player3), face_up: true };
    assert_eq!(kinds(&run(&mut t, &mut log, c)), [IrregularityKind::PlayerThirdToNoBetCoup]);
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, .. }) && cites(&ev, "AU 12.1(b)"), "{ev:?}");
}

/// AU 12.3 (the first card found face up: a Void Hand) and AU 12.4 (within a
/// round: played as if face down).
#[test]
fn au_12_3_and_12_4_cards_found_face_up() {
    let (mut t, mut log) = live_table("au-casino", TIE);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "9C".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FirstCardFaceUp]);
    assert!(cites(&ev, "AU 12.3"));
    let (mut t, mut log, _) = live_with_wagers("au-casino", TIE);
    card(&mut t, &mut log, "2H");
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "9C".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FaceUpWithinCoup]);
    assert!(cites(&ev, "AU 12.4"));
}

/// AU 12.6: a round that cannot be reconstructed is Void, wagers returned.
#[test]
fn au_12_6_a_round_not_reconstructed_is_void() {
    let (mut t, mut log, _) = live_with_wagers("au-casino", TIE);
    card(&mut t, &mut log, "2H");
    let ev = run(&mut t, &mut log, Command::Misdeal { reconstructed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("AU 12.6"))));
}

/// AU 5.9(b): a player's personal maximum, within the table's (the profile
/// gives no sign above it, unlike NSW 6.8).
#[test]
fn au_5_9_b_a_personal_maximum_stays_within_the_tables() {
    let (mut t, mut log) = started("au-casino", TIE);
    let ev =
        run(&mut t, &mut log, Command::SetPersonalLimits { player: PlayerId(1), min: Money(2000), max: Money(50_000) });
    assert!(cites(&ev, "AU 5.9(b)"));
    refused(
        &mut t,
        Command::SetPersonalLimits { player: PlayerId(1), min: Money(2000), max: Money(500_000) },
        "AU 5.9(b)",
    );
}

/// AU 2.3: a nominee acts for one other player at a time.
#[test]
fn au_2_3_a_nominee_acts_for_one_player() {
    let (mut t, mut log) = started("au-casino", TIE);
    let ev = run(&mut t, &mut log, Command::AppointNominee { player: PlayerId(1), nominee: Some(PlayerId(2)) });
    assert!(cites(&ev, "AU 2.3"));
    refused(&mut t, Command::AppointNominee { player: PlayerId(3), nominee: Some(PlayerId(2)) }, "AU 2.3");
}

/// A standing player's wager (AU 5.6(a)).
fn standing(player: u32) -> Command {
    Command::PlaceWager {
        player: PlayerId(player),
        spot: Spot::Standing,
        bet: Bet::Player,
        amount: Money(2000),
        ante: Money(0),
        token: false,
        at_ms: None,
    }
}

/// AU 3.1(a): Mini Baccarat "has on one side up to 7 numbered sets of
/// wagering areas for the players". A table whose configuration names no
/// version is Mini Baccarat (AU 2.2(a)): box 8 is not on it, and there is no
/// standing players' area (AU 5.6(a): that is full Baccarat's).
#[test]
fn au_3_1_a_mini_has_up_to_seven_boxes() {
    let (mut t, mut log) = started("au-casino", TIE);
    assert_eq!(t.setup().config.layout.name, "mini");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 7, Bet::Player, 2000));
    refused(&mut t, seat_wager(2, 8, Bet::Player, 2000), "AU 3.1(a)");
    refused(&mut t, standing(3), "AU 3.1(a)");
}

/// AU 3.1(b): Midi Baccarat "has on one side up to 9 numbered sets of
/// wagering areas for the players"; AU 5.8(a): up to three players on one.
#[test]
fn au_3_1_b_midi_has_up_to_nine_boxes() {
    let (mut t, mut log) = started("au-casino", &format!("layout = \"midi\"\n{TIE}"));
    assert_eq!((t.setup().config.layout.name.as_str(), t.setup().config.layout.boxes), ("midi", 9));
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    for p in [8, 9, 10, 11] {
        run(&mut t, &mut log, seat_wager(p, p.min(9) as u8, Bet::Player, 2000));
    }
    refused(&mut t, seat_wager(12, 9, Bet::Player, 2000), "box 9 already has 3 players");
    refused(&mut t, seat_wager(13, 10, Bet::Player, 2000), "AU 3.1(b)");
    refused(&mut t, standing(14), "AU 3.1(b)");
}

/// AU 3.1(c): full Baccarat "has up to 14 numbered sets of wagering areas for
/// the seated players, wagering areas for standing players"; AU 5.7: one
/// player on each numbered area; AU 5.6(a): standing players wager on their
/// own area. Their wagers settle as any other.
#[test]
fn au_3_1_c_full_baccarat_has_fourteen_boxes_and_standing_players() {
    let (mut t, mut log) = started("au-casino", &format!("layout = \"full\"\n{TIE}"));
    assert_eq!(t.setup().config.layout.name, "full");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, seat_wager(1, 14, Bet::Player, 2000));
    refused(&mut t, seat_wager(2, 14, Bet::Player, 2000), "box 14 already has 1 players");
    refused(&mut t, seat_wager(3, 15, Bet::Player, 2000), "AU 3.1(c)");
    run(&mut t, &mut log, standing(20));
    run(&mut t, &mut log, standing(21));
    run(&mut t, &mut log, Command::CloseBetting);
    let ev = deal_out(&mut t, &mut log);
    let settled = ev.iter().filter(|e| matches!(e, Event::WagerSettled { .. })).count();
    assert_eq!(settled, 3, "the seated wager and both standing players' wagers settle");
}

/// AU 5.14: once "No more bets" is called and the first card removed, no
/// player shall place, increase or withdraw a wager.
#[test]
fn au_5_14_no_wager_once_the_first_card_is_out() {
    let (mut t, mut log, ids) = live_with_wagers("au-casino", TIE);
    card(&mut t, &mut log, "2H");
    refused(&mut t, wager(3, Bet::Player, 2000), "AU 5.14");
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: ids[0] }, "AU 5.14");
}
