//! NSW (ILGA 2021), rule by rule: the remedies other rulebooks differ on.

use super::*;
use baccarat_rules::Cite;
use baccarat_table::PlayerId;

/// NSW 12.1.1: "After the reconstruction has occurred, each player shall have
/// the option of removing their own wager prior to the coup resuming".
#[test]
fn nsw_12_1_1_a_player_may_withdraw_after_a_reconstruction() {
    let (mut t, mut log, ids) = live_with_wagers("nsw-2021", "");
    reconstructed(&mut t, &mut log);
    run(&mut t, &mut log, Command::WithdrawWager { player: PlayerId(1), wager: ids[0] });
    run(&mut t, &mut log, Command::ResumeCoup);
    refused(&mut t, Command::WithdrawWager { player: PlayerId(2), wager: ids[1] }, "NSW 5.4");
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

/// NSW 4.7-4.8: the burn at the start of every shoe.
#[test]
fn nsw_4_7_the_shoe_starts_with_a_burn() {
    let (_, log) = started("nsw-2021", "");
    assert!(log.iter().any(|e| matches!(e, Event::Burned { rule, .. } if rule.contains("NSW 4.7-4.8"))));
    bad_cut("nsw-2021", "", "NSW 4.5-4.6");
}

/// NSW 4.11: a continuous shuffler takes each coup's cards back.
#[test]
fn nsw_4_11_a_continuous_shuffler() {
    let mut t = Table::new(setup("nsw-2021", ""));
    let mut log = Vec::new();
    let source = ShoeSource::Continuous { seed: Seed::from_u64(2) };
    let ev = run(&mut t, &mut log, Command::StartShoe { source, cut: None, burn: None, show_burn: false });
    assert!(cites(&ev, "NSW 4.11"), "{ev:?}");
}

/// NSW 14.4-14.5: a supervisor invalidates the outcome; wagers refunded.
#[test]
fn nsw_14_4_a_game_invalidated() {
    let (mut t, mut log, _) = live_with_wagers("nsw-2021", "");
    card(&mut t, &mut log, "2H");
    let ev = run(&mut t, &mut log, Command::Invalidate { forfeit: vec![], reason: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("NSW 14.4-14.5"))));
}

/// NSW 5.4: no wager is withdrawn once settled (or once the first card is out).
#[test]
fn nsw_5_4_a_settled_wager_cannot_be_withdrawn() {
    let (mut t, mut log) = started("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let Event::WagerPlaced { wager: w } = run(&mut t, &mut log, wager(1, Bet::Player, 2000))[0].clone() else {
        unreachable!()
    };
    run(&mut t, &mut log, Command::CloseBetting);
    deal_out(&mut t, &mut log);
    let rule = t.rb().cite(Cite::WithdrawLosing);
    refused(&mut t, Command::WithdrawWager { player: PlayerId(1), wager: w.id }, &rule);
}

/// NSW 5.6.6: a player may wager on "with the approval of a Casino Supervisor,
/// the Banker's Hand and the Player's Hand". A table no supervisor watches (an
/// RNG table, [`TableSetup::unattended`]) refuses the second side when it is
/// placed, naming the rule, instead of holding it for no one until "no more
/// bets" (issue 45 §5). Its configuration may choose to wait instead; a table
/// with a supervisor may choose to refuse.
#[test]
fn nsw_5_6_6_an_rng_table_refuses_banker_and_player_together_at_placement() {
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    let unattended = |extra: &str| {
        let s = setup("nsw-2021", extra).unattended();
        let decks = s.config.decks;
        let mut t = Table::new(s);
        let mut log = Vec::new();
        run(
            &mut t,
            &mut log,
            Command::StartShoe { source: ShoeSource::Live { decks }, cut: None, burn: None, show_burn: false },
        );
        run(&mut t, &mut log, open.clone());
        run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
        (t, log)
    };
    // Refused at placement, naming NSW 5.6.6; the Banker wager stays, alone.
    let (mut t, mut log) = unattended("");
    refused(&mut t, wager(1, Bet::Player, 1000), "NSW 5.6.6");
    let r = t.execute(wager(1, Bet::Player, 1000)).unwrap_err();
    assert!(r.message.contains("no supervisor approves wagers at this table"), "{r}");
    assert_eq!(t.state().coup.wagers.len(), 1);
    // Another player's Player wager is no combination.
    run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    // `approvals = "supervisor"` waits: placed, waiting, returned at "no more bets".
    let (mut t, mut log) = unattended("approvals = \"supervisor\"\n");
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    assert!(matches!(&ev[0], Event::WagerPlaced { wager } if wager.needs_approval));
    let ev = run(&mut t, &mut log, Command::CloseBetting);
    assert!(ev.iter().any(|e| matches!(e, Event::WagerReturned { rule, .. } if rule.contains("NSW 5.6"))));
    // A table with a supervisor waits by default, and refuses where configured to.
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, open.clone());
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    assert!(matches!(&ev[0], Event::WagerPlaced { wager } if wager.needs_approval));
    let (mut t, mut log) = live_table("nsw-2021", "approvals = \"refuse\"\n");
    run(&mut t, &mut log, open);
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    refused(&mut t, wager(1, Bet::Player, 1000), "NSW 5.6.6");
    // With a Tie wagered too, the rule that asks for the approval is 5.6.7.
    run(&mut t, &mut log, wager(1, Bet::Tie, 1000));
    let r = t.execute(wager(1, Bet::Player, 1000)).unwrap_err();
    assert!(r.rule().starts_with("NSW 5.6.7"), "{r}");
    // Where the rulebook allows the combination (AU 5.2(c)), nothing waits or is refused.
    let s = setup("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n").unattended();
    let mut t = Table::new(s);
    let mut log = Vec::new();
    run(
        &mut t,
        &mut log,
        Command::StartShoe { source: ShoeSource::Live { decks: 8 }, cut: None, burn: None, show_burn: false },
    );
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 2000));
    assert!(matches!(&ev[0], Event::WagerPlaced { wager } if !wager.needs_approval));
}
