//! NSW (ILGA 2021), rule by rule: the remedies other rulebooks differ on.

use super::*;

/// NSW 12.1.1: "After the reconstruction has occurred, each player shall have
/// the option of removing their own wager prior to the coup resuming".
#[test]
fn nsw_12_1_1_a_player_may_withdraw_after_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("nsw-2021", "");
    reconstructed(&mut t, &mut log);
    run(&mut t, &mut log, Command::WithdrawWager { player: 1, wager: ids[0] });
    run(&mut t, &mut log, Command::ResumeCoup);
    refused(&mut t, Command::WithdrawWager { player: 2, wager: ids[1] }, "NSW 5.4");
}

/// NSW 12.3: "A third card dealt to the Banker's Hand when no third card is
/// authorised … shall become the first card of a no bet coup" — disclosed or not.
#[test]
fn nsw_12_3_an_undisclosed_banker_excess_card_starts_a_no_bet_coup() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    standing_coup(&mut t, &mut log);
    let excess = Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Banker3), face_up: false };
    let ev = run(&mut t, &mut log, excess);
    assert_eq!(kinds(&ev), [IrregularityKind::ExcessCardToNoBetCoup]);
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, .. }));
}

/// NSW 12.12 (not in Method A): wagers may change after the first card is
/// drawn, until one is exposed.
#[test]
fn nsw_12_12_late_wagers_not_in_method_a() {
    for (style, allowed) in [("method_a", false), ("method_b", true), ("method_c", true)] {
        let (mut t, mut log, _) = live_with_wagers("nsw-2021", &format!("dealing = \"{style}\"\n"));
        run(&mut t, &mut log, Command::CloseBetting);
        card(&mut t, &mut log, "2H");
        if allowed {
            run(&mut t, &mut log, Command::ReopenWagers);
        } else {
            refused(&mut t, Command::ReopenWagers, "NSW 12.12");
        }
    }
}
