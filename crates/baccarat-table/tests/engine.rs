//! The table engine: coups as the rulebooks conduct them, refusals that name
//! their rule and change nothing, and replay that reproduces the state.

use baccarat_rules::{profiles, Bet, Card, Money, TableConfig, TableConfigSpec};
use baccarat_table::engine::{Command, Event, IrregularityKind, Phase, Position, ShoeSource, Spot, Table, TableSetup};
use baccarat_table::shoe::{shuffled, Cut, CutRules};
use baccarat_table::shuffle::Seed;

fn setup(rulebook: &str, extra: &str) -> TableSetup {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 100000\n{extra}");
    let spec: TableConfigSpec = toml::from_str(&text).unwrap();
    let cfg = TableConfig::new(&rb, &spec).unwrap();
    TableSetup::new(rb, cfg, None).unwrap()
}

/// A table with a shoe shuffled from `seed` and cut as a simulation would.
fn rng_table(rulebook: &str, extra: &str, seed: u64) -> (Table, Vec<Event>) {
    let s = setup(rulebook, extra);
    let decks = s.config.decks;
    let rules = CutRules::from_profile(&s.rulebook.config);
    let seed = Seed::from_u64(seed);
    let (_, mut stream) = shuffled(decks, &seed);
    let cut = rules.random(&mut stream, 52 * decks as usize, 20);
    let burn = s.rulebook.procedures.burn.first().copied();
    let mut t = Table::new(s);
    let ev = t
        .execute(Command::StartShoe {
            source: ShoeSource::Shuffle { seed: seed.hex() },
            cut: Some(cut),
            burn,
            show_burn: false,
        })
        .unwrap();
    (t, ev)
}

fn run(t: &mut Table, log: &mut Vec<Event>, cmd: Command) -> Vec<Event> {
    let ev = t.execute(cmd.clone()).unwrap_or_else(|r| panic!("{cmd:?} refused: {r}"));
    log.extend(ev.clone());
    ev
}

fn refused(t: &mut Table, cmd: Command, rule: &str) {
    let before = t.clone();
    let r = t.execute(cmd.clone()).expect_err("should be refused");
    assert!(r.to_string().contains(rule), "{cmd:?}: {r} lacks {rule:?}");
    assert!(*t == before, "a refused command changed the table");
}

fn wager(player: u32, bet: Bet, amount: i64) -> Command {
    Command::PlaceWager {
        player,
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        ante: Money(0),
        token: false,
    }
}

fn deal_out(t: &mut Table, log: &mut Vec<Event>) -> Vec<Event> {
    let mut all = Vec::new();
    while t.phase() == Phase::Closed || t.phase() == Phase::Dealing {
        all.extend(run(t, log, Command::DealNext));
    }
    all
}

#[test]
fn a_whole_coup_settles_by_the_pay_tables_and_replays() {
    let (mut t, mut log) = rng_table("nsw-2021", "[bets.super_six]\n[bets.player_pair]\n", 7);
    assert!(matches!(log[0], Event::ShoeStarted { .. }));
    assert!(matches!(log[1], Event::Burned { .. }), "NSW 4.7.1 burn one");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    run(&mut t, &mut log, wager(2, Bet::Tie, 1000));
    run(&mut t, &mut log, wager(3, Bet::SuperSix, 500));
    run(&mut t, &mut log, Command::CloseBetting);
    let ev = deal_out(&mut t, &mut log);
    let dealt: Vec<Card> =
        ev.iter().filter_map(|e| if let Event::CardDealt { card, .. } = e { Some(*card) } else { None }).collect();
    assert!((4..=6).contains(&dealt.len()));
    let (coup, _) = baccarat_rules::Coup::from_cards(&dealt).unwrap();
    let settled: Vec<_> = ev
        .iter()
        .filter_map(|e| {
            if let Event::WagerSettled { wager, settlement, .. } = e {
                Some((*wager, *settlement))
            } else {
                None
            }
        })
        .collect();
    assert_eq!(settled.len(), 4);
    let cfg = &t.setup().config;
    for (id, s) in &settled {
        let w = log
            .iter()
            .find_map(|e| {
                if let Event::WagerPlaced { wager } = e {
                    (wager.id == *id).then(|| wager.clone())
                } else {
                    None
                }
            })
            .unwrap();
        let want = baccarat_rules::settle_wager(
            w.amount,
            &cfg.offer(w.bet).unwrap().pay_table,
            w.bet.classify(&coup),
            &cfg.settle,
        );
        assert_eq!(*s, want, "{}", w.bet);
        assert_eq!(s.returned + s.lost, s.stake);
    }
    assert_eq!(t.phase(), Phase::Ready);
    assert_eq!(t.state().roads.entries().len(), 1);
    let replayed = Table::replay(setup("nsw-2021", "[bets.super_six]\n[bets.player_pair]\n"), &log);
    assert!(replayed == t, "replay differs");
    // Events serialise and come back the same (for the audit log).
    let json = serde_json::to_string(&log).unwrap();
    let back: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(back, log);
}

#[test]
fn refusals_name_their_rule_and_change_nothing() {
    let (mut t, mut log) = rng_table("nsw-2021", "[bets.player_pair]\n", 3);
    refused(&mut t, wager(1, Bet::Player, 1000), "NSW 5.4");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    refused(&mut t, wager(1, Bet::Player, 900), "NSW 6.1, 6.4-6.5: 9.00 is below the player minimum 10.00");
    refused(&mut t, wager(1, Bet::Player, 1050), "NSW 6.1.1: 10.50 is not a whole number of 1.00 chips");
    refused(&mut t, wager(1, Bet::Player, 100_100), "at most 1000.00");
    refused(&mut t, wager(1, Bet::TigerTie, 1000), "does not offer tiger_tie");
    refused(
        &mut t,
        Command::PlaceWager {
            player: 1,
            spot: Spot::Box(15),
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: false,
        },
        "box 15 is not on this layout",
    );
    refused(
        &mut t,
        Command::PlaceWager {
            player: 1,
            spot: Spot::Standing,
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: false,
        },
        "no area for standing players",
    );
    run(&mut t, &mut log, wager(1, Bet::PlayerPair, 500));
    refused(&mut t, wager(1, Bet::PlayerPair, 500), "NSW 10.5");
    run(&mut t, &mut log, Command::CloseBetting);
    refused(&mut t, wager(2, Bet::Banker, 1000), "wagers are closed once \"no more bets\" is called");
    let id =
        match log.iter().rev().find_map(|e| if let Event::WagerPlaced { wager } = e { Some(wager.id) } else { None }) {
            Some(i) => i,
            None => unreachable!(),
        };
    refused(&mut t, Command::WithdrawWager { player: 1, wager: id }, "NSW 5.4");
    deal_out(&mut t, &mut log);
    refused(
        &mut t,
        Command::WithdrawWager { player: 1, wager: id },
        "NSW 5.4: no wager may be withdrawn until a decision and settlement",
    );
    refused(&mut t, Command::DealNext, "no card is due");
}

#[test]
fn au_wager_rules() {
    let (mut t, mut log) = rng_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[ante]\namount = 100\nwaived_at = 5000\n", 4);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    // AU 11B.2: a side bet goes with an initial wager.
    refused(&mut t, wager(1, Bet::DragonBonusPlayer, 1000), "AU 11A.2, 11B.2");
    // AU 14.5: the ante comes with the wager.
    refused(&mut t, wager(1, Bet::Player, 1000), "AU 14.4-14.7: this wager needs an ante of 1.00");
    let with_ante = |player: u32, bet: Bet, amount: i64| Command::PlaceWager {
        player,
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        ante: Money(100),
        token: false,
    };
    // AU 5.12: $25 on Banker cannot be paid exactly at 1:1 less 5% with $1 chips.
    refused(&mut t, with_ante(1, Bet::Banker, 2500), "AU 5.12-5.13");
    run(&mut t, &mut log, with_ante(1, Bet::Banker, 2000));
    // AU 5.2(c): Banker and Player together need no approval.
    run(&mut t, &mut log, with_ante(1, Bet::Player, 1000));
    run(&mut t, &mut log, wager(1, Bet::DragonBonusPlayer, 1000));
    // AU 14.4: waived at 50.00.
    run(&mut t, &mut log, wager(2, Bet::Banker, 6000));
    run(&mut t, &mut log, Command::CloseBetting);
    let ev = deal_out(&mut t, &mut log);
    let antes: Vec<Money> =
        ev.iter().filter_map(|e| if let Event::WagerSettled { ante, .. } = e { Some(*ante) } else { None }).collect();
    assert_eq!(antes, [Money(100), Money(100), Money(0), Money(0)]);
}

#[test]
fn nsw_banker_and_player_need_approval_and_the_differential_applies() {
    let (mut t, mut log) = rng_table("nsw-2021", "differential = 5000\n", 5);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Banker, 5000));
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    let combo = match &ev[0] {
        Event::WagerPlaced { wager } => wager.clone(),
        e => panic!("{e:?}"),
    };
    assert!(combo.needs_approval, "NSW 5.6.6");
    run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    run(&mut t, &mut log, wager(3, Bet::Player, 1000));
    run(&mut t, &mut log, wager(4, Bet::Banker, 6000));
    run(&mut t, &mut log, wager(5, Bet::Banker, 2000));
    let ev = run(&mut t, &mut log, wager(5, Bet::Player, 1000));
    let approved = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        e => panic!("{e:?}"),
    };
    refused(&mut t, Command::ApproveWager { wager: combo.id - 1 }, "needs no approval");
    run(&mut t, &mut log, Command::ApproveWager { wager: approved });
    // Player 1's combination was not approved: returned at "no more bets". Then
    // Banker 13,000 vs Player 3,000 exceeds 5,000: the Banker side is cut pro rata
    // towards 8,000, each wager down to whole chips (NSW 6.2).
    let ev = run(&mut t, &mut log, Command::CloseBetting);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::WagerReturned { wager, rule } if *wager == combo.id && rule.contains("NSW 5.6"))));
    let reduced: Vec<Money> = ev
        .iter()
        .filter_map(|e| {
            if let Event::WagerReduced { to, rule, .. } = e {
                assert!(rule.contains("NSW 6.2"));
                Some(*to)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(reduced, [Money(3000), Money(3600), Money(1200)]);
}

fn live_table(rulebook: &str, extra: &str) -> (Table, Vec<Event>) {
    let s = setup(rulebook, extra);
    let decks = s.config.decks;
    let mut t = Table::new(s);
    let ev = t
        .execute(Command::StartShoe { source: ShoeSource::Live { decks }, cut: None, burn: None, show_burn: false })
        .unwrap();
    (t, ev)
}

fn card(t: &mut Table, log: &mut Vec<Event>, c: &str) -> Vec<Event> {
    run(t, log, Command::CardIn { card: c.parse().unwrap(), to: None, face_up: true })
}

fn kinds(ev: &[Event]) -> Vec<IrregularityKind> {
    ev.iter().filter_map(|e| if let Event::Irregularity { kind, .. } = e { Some(*kind) } else { None }).collect()
}

#[test]
fn live_cards_follow_the_due_positions_and_the_first_card_closes_betting() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    assert_eq!(t.due(), None, "no card is due while betting is open");
    let ev = card(&mut t, &mut log, "6H");
    assert!(matches!(ev[0], Event::BettingClosed { .. }), "NSW 5.4: the first card closes betting");
    assert_eq!(t.due(), Some(Position::Banker1));
    card(&mut t, &mut log, "3S");
    card(&mut t, &mut log, "KD");
    assert_eq!(t.due(), Some(Position::Banker2));
    card(&mut t, &mut log, "KC");
    // Player 6 stands; Banker 3 draws (NSW 9.5).
    assert_eq!(t.due(), Some(Position::Banker3));
    let ev = card(&mut t, &mut log, "2C");
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { summary, .. } if summary.banker_total == 5)));
    assert_eq!(t.phase(), Phase::Ready);
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn nsw_12_2_unauthorised_player_third_card_becomes_the_bankers_third() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    for c in ["6H", "3S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    let ev = run(
        &mut t,
        &mut log,
        Command::CardIn { card: "2C".parse().unwrap(), to: Some(Position::Player3), face_up: true },
    );
    assert_eq!(kinds(&ev), [IrregularityKind::PlayerThirdToBanker]);
    assert!(ev.iter().any(|e| matches!(e, Event::CardDealt { position: Position::Banker3, .. })));
    assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule.contains("NSW 12.2"))));
}

#[test]
fn nsw_12_2_and_au_12_1_the_card_goes_to_the_next_coup_or_a_void_hand() {
    for (face_up, want, no_bet) in [
        (false, IrregularityKind::PlayerThirdToNextCoup, false),
        (true, IrregularityKind::PlayerThirdToNoBetCoup, true),
    ] {
        let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
        // Player 7, Banker 7: both stand; the coup is complete.
        for c in ["7H", "7S", "KD", "KC"] {
            card(&mut t, &mut log, c);
        }
        assert_eq!(t.phase(), Phase::Ready);
        let ev = run(
            &mut t,
            &mut log,
            Command::CardIn { card: "9D".parse().unwrap(), to: Some(Position::Player3), face_up },
        );
        assert_eq!(kinds(&ev), [want]);
        assert!(ev.iter().any(|e| matches!(e, Event::Irregularity { rule, .. } if rule.contains("AU 12.1"))));
        let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
        assert!(
            matches!(&ev[0], Event::BettingOpened { no_bet: n, first_card: Some(c), .. } if *n == no_bet && c.to_string() == "9D")
        );
        if no_bet {
            refused(&mut t, wager(1, Bet::Player, 1000), "no wagers are permitted in a no-bet coup");
        }
        // The held card is the coup's first card; the next card in is the Banker's.
        let ev = card(&mut t, &mut log, "2S");
        let dealt: Vec<(Position, String)> = ev
            .iter()
            .filter_map(|e| {
                if let Event::CardDealt { position, card, .. } = e {
                    Some((*position, card.to_string()))
                } else {
                    None
                }
            })
            .collect();
        assert_eq!(dealt, [(Position::Player1, "9D".to_string()), (Position::Banker1, "2S".to_string())]);
        assert!(Table::replay(setup("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n"), &log) == t);
    }
}

#[test]
fn nsw_12_3_excess_banker_card_starts_a_no_bet_coup() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    for c in ["7H", "7S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    let ev = run(
        &mut t,
        &mut log,
        Command::CardIn { card: "4D".parse().unwrap(), to: Some(Position::Banker3), face_up: false },
    );
    assert_eq!(kinds(&ev), [IrregularityKind::ExcessCardToNoBetCoup]);
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, rule: Some(r), .. } if r.contains("NSW 12.4")));
}

#[test]
fn face_up_cards_in_the_shoe() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
    // NSW 12.3: the first card found face up: no bets this coup; the wager comes back.
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "5H".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FirstCardFaceUp]);
    assert!(ev.iter().any(|e| matches!(e, Event::WagerReturned { rule, .. } if rule.contains("NSW 12.3"))));
    let ev = run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    assert!(matches!(&ev[0], Event::BettingOpened { no_bet: true, .. }));
    card(&mut t, &mut log, "9C");
    // NSW 12.5: face up within a coup, it plays as dealt.
    let ev = run(&mut t, &mut log, Command::FaceUpInShoe { card: "KH".parse().unwrap() });
    assert_eq!(kinds(&ev), [IrregularityKind::FaceUpWithinCoup]);
    assert!(ev.iter().any(|e| matches!(e, Event::CardDealt { position: Position::Player2, .. })));
}

#[test]
fn nsw_12_11_a_foreign_card_voids_the_coup_and_ends_the_shoe() {
    let (mut t, mut log) = live_table("nsw-2021", "decks = 3\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    for c in ["AS", "AS", "AS"] {
        card(&mut t, &mut log, c);
    }
    // A fourth ace of spades cannot come from three decks.
    let ev = card(&mut t, &mut log, "AS");
    assert_eq!(kinds(&ev), [IrregularityKind::ForeignCard]);
    assert!(ev
        .iter()
        .any(|e| matches!(e, Event::WagerSettled { outcome: None, settlement, .. } if settlement.void == Money(1000))));
    assert!(matches!(ev.last(), Some(Event::ShoeEnded { reason, .. }) if reason.contains("NSW 12.11")));
    assert_eq!(t.phase(), Phase::ShoeOver);
    refused(&mut t, Command::OpenBetting { no_bet: false }, "start a shoe first");
}

#[test]
fn nsw_12_1_misdeal_void_or_reconstructed_with_withdrawal() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    card(&mut t, &mut log, "2H");
    refused(
        &mut t,
        Command::CardIn { card: "3S".parse().unwrap(), to: Some(Position::Player2), face_up: true },
        "report a misdeal",
    );
    let ev = run(&mut t, &mut log, Command::Misdeal { reconstructed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("NSW 12.1"))));
    assert_eq!(t.phase(), Phase::Ready);
    // A reconstruction: the cards in their proper order; then each player may withdraw.
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    let ev = run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    let id = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        _ => unreachable!(),
    };
    for c in ["2H", "3S", "4D"] {
        card(&mut t, &mut log, c);
    }
    refused(
        &mut t,
        Command::Misdeal { reconstructed: Some(vec!["2H".parse().unwrap(), "3S".parse().unwrap()]) },
        "exactly the cards dealt",
    );
    let order: Vec<Card> = ["3S", "2H", "4D"].iter().map(|c| c.parse().unwrap()).collect();
    run(&mut t, &mut log, Command::Misdeal { reconstructed: Some(order) });
    assert_eq!(t.phase(), Phase::Reconstruction);
    run(&mut t, &mut log, Command::WithdrawWager { player: 1, wager: id });
    run(&mut t, &mut log, Command::ResumeCoup);
    assert_eq!(t.due(), Some(Position::Banker2));
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn cutting_card_during_a_coup_means_one_more_coup() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    card(&mut t, &mut log, "7H");
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(matches!(&ev[0], Event::CuttingCardOut { coups_left: 2, rule } if rule.contains("NSW 4.9")));
    for c in ["7S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    assert_eq!(t.phase(), Phase::Ready, "NSW 4.9: complete the coup, then one more");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    let mut last = Vec::new();
    for c in ["9H", "2S", "KH", "KS"] {
        last = card(&mut t, &mut log, c);
    }
    assert!(matches!(last.last(), Some(Event::ShoeEnded { .. })));
    // NSW 4.10: out as a coup's first card, that coup is the last.
    let (mut t, mut log) = live_table("nsw-2021", "");
    let ev = run(&mut t, &mut log, Command::CuttingCardOut);
    assert!(matches!(&ev[0], Event::CuttingCardOut { coups_left: 1, rule } if rule.contains("NSW 4.10")));
}

#[test]
fn a_shuffled_shoe_runs_to_its_last_coup() {
    let (mut t, mut log) = rng_table("nsw-2021", "", 11);
    let mut coups = 0;
    while t.phase() != Phase::ShoeOver {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
        run(&mut t, &mut log, wager(1, Bet::Banker, 1000));
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
        coups += 1;
        assert!(coups < 100);
    }
    let cut_at = log.iter().position(|e| matches!(e, Event::CuttingCardOut { .. })).expect("the cutting card came out");
    let after = log[cut_at..].iter().filter(|e| matches!(e, Event::CoupClosed { .. })).count();
    let coups_left = match &log[cut_at] {
        Event::CuttingCardOut { coups_left, .. } => *coups_left as usize,
        _ => unreachable!(),
    };
    assert_eq!(after, coups_left);
    assert!(
        matches!(log.last(), Some(Event::ShoeEnded { seed: Some(_), .. })),
        "the seed is revealed when the shoe ends"
    );
    assert_eq!(t.state().roads.entries().len(), coups);
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn an_uncut_pre_shuffled_shoe_runs_out_and_the_coup_is_void() {
    let s = setup("nsw-2021", "decks = 3\n");
    let cards = baccarat_table::shoe::fresh(3);
    let mut t = Table::new(s);
    let mut log = Vec::new();
    run(
        &mut t,
        &mut log,
        Command::StartShoe { source: ShoeSource::PreShuffled { cards }, cut: None, burn: None, show_burn: false },
    );
    let mut voided = false;
    while t.phase() != Phase::ShoeOver {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
        run(&mut t, &mut log, wager(2, Bet::Player, 1000));
        run(&mut t, &mut log, Command::CloseBetting);
        let ev = deal_out(&mut t, &mut log);
        voided |= kinds(&ev).contains(&IrregularityKind::InsufficientCards);
    }
    assert!(voided, "NSW 12.6");
    let bad = vec!["AS".parse().unwrap(); 156];
    let mut t2 = Table::new(setup("nsw-2021", "decks = 3\n"));
    refused(
        &mut t2,
        Command::StartShoe { source: ShoeSource::PreShuffled { cards: bad }, cut: None, burn: None, show_burn: false },
        "NSW 12.11",
    );
    refused(
        &mut t2,
        Command::StartShoe {
            source: ShoeSource::Shuffle { seed: "zz".into() },
            cut: None,
            burn: None,
            show_burn: false,
        },
        "64 hex digits",
    );
    refused(
        &mut t2,
        Command::StartShoe {
            source: ShoeSource::Shuffle { seed: Seed::from_u64(1).hex() },
            cut: Some(Cut { at: 10, from_back: 20 }),
            burn: None,
            show_burn: false,
        },
        "NSW 4.5-4.6",
    );
}

#[test]
fn eu_three_no_bet_coups_come_first() {
    let s = setup("european-casino", "");
    let mut t = Table::new(s);
    let mut log = Vec::new();
    let seed = Seed::from_u64(8);
    run(
        &mut t,
        &mut log,
        Command::StartShoe {
            source: ShoeSource::Shuffle { seed: seed.hex() },
            cut: Some(Cut { at: 100, from_back: 20 }),
            burn: Some(baccarat_rules::BurnProcedure::ThreeNoBetCoups),
            show_burn: false,
        },
    );
    for _ in 0..3 {
        refused(&mut t, Command::OpenBetting { no_bet: false }, "EU 3.1.2-3.3");
        run(&mut t, &mut log, Command::OpenBetting { no_bet: true });
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
    }
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
}

fn dealing_table(rulebook: &str, extra: &str, stake: i64) -> (Table, Vec<Event>) {
    let (mut t, mut log) = live_table(rulebook, extra);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, stake));
    run(&mut t, &mut log, wager(2, Bet::Banker, stake));
    card(&mut t, &mut log, "2H");
    card(&mut t, &mut log, "3S");
    (t, log)
}

#[test]
fn nsw_12_13_scanner_discrepancy_confirmed_or_void() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let cards: Vec<Card> = ["9H", "3S", "KD", "KC"].iter().map(|c| c.parse().unwrap()).collect();
    let ev = run(&mut t, &mut log, Command::ScannerDiscrepancy { confirmed: Some(cards) });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { summary, .. } if summary.player_total == 9)));
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::ScannerDiscrepancy { confirmed: None });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("NSW 12.13"))));
    assert_eq!(ev.iter().filter(|e| matches!(e, Event::WagerSettled { outcome: None, .. })).count(), 2);
}

#[test]
fn nsw_14_4_invalidation_refunds_or_forfeits() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::Invalidate { forfeit: vec![2] });
    let nets: Vec<Money> =
        ev.iter()
            .filter_map(|e| {
                if let Event::WagerSettled { settlement, .. } = e {
                    Some(settlement.player_net())
                } else {
                    None
                }
            })
            .collect();
    assert_eq!(nets, [Money(0), Money(-1000)]);
}

#[test]
fn nsw_13_shuffler_malfunction() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    let ev = run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: true, other_device: true });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("13.4"))));
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: false, other_device: true });
    assert_eq!(t.phase(), Phase::Dealing, "NSW 13.2: the game continues");
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    run(&mut t, &mut log, Command::ShufflerMalfunction { disadvantage: false, other_device: false });
    assert_eq!(t.phase(), Phase::Reconstruction, "NSW 13.5.1: each player may take their wager back");
    let id = t.state().coup.wagers[0].id;
    run(&mut t, &mut log, Command::WithdrawWager { player: 1, wager: id });
    run(&mut t, &mut log, Command::ResumeCoup);
    assert_eq!(t.state().coup.wagers.len(), 1);
}

#[test]
fn wrong_hand_stands_except_where_au_15_9_voids_it() {
    let (mut t, mut log) = dealing_table("nsw-2021", "", 1000);
    refused(&mut t, Command::WrongHand { void_hand: true }, "NSW 12.15");
    run(&mut t, &mut log, Command::WrongHand { void_hand: false });
    assert_eq!(t.phase(), Phase::Dealing);
    let (mut t, mut log) = dealing_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n", 2000);
    let ev = run(&mut t, &mut log, Command::WrongHand { void_hand: true });
    assert!(ev.iter().any(|e| matches!(e, Event::CoupVoided { rule, .. } if rule.contains("AU 15.9"))));
}

fn seat_wager(player: u32, seat: u8, bet: Bet, amount: i64) -> Command {
    Command::PlaceWager { player, spot: Spot::Box(seat), bet, amount: Money(amount), ante: Money(0), token: false }
}

fn shown(t: &Table, viewer: Option<u32>) -> Vec<Option<String>> {
    t.view(viewer).into_iter().map(|(_, c)| c.map(|c| c.to_string())).collect()
}

#[test]
fn method_b_highest_wager_squeezes_and_the_hands_are_never_out_together() {
    let (mut t, mut log) = live_table("nsw-2021", "dealing = \"method_b\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(2, 5, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(3, 3, Bet::Banker, 1000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "3D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    // NSW 8.10: equal highest wagers: the seat nearest the dealer's right (seat 5).
    assert!(ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(2), .. })));
    assert_eq!(shown(&t, None), [None, None, None, None], "nobody else sees a card before it is exposed");
    assert_eq!(shown(&t, Some(1)), [None, None, None, None]);
    assert_eq!(shown(&t, Some(2)), [Some("2H".into()), None, Some("3D".into()), None]);
    // NSW 8.13 / 8.15.2: nothing more is dealt while a hand is out.
    refused(
        &mut t,
        Command::CardIn { card: "5C".parse().unwrap(), to: None, face_up: false },
        "exposed before another card",
    );
    refused(
        &mut t,
        Command::Expose { side: baccarat_rules::Side::Player, player: Some(1) },
        "only the player holding the hand",
    );
    let ev = run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(2) });
    assert!(ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Banker, to: Some(3), .. })));
    assert_eq!(shown(&t, None), [Some("2H".into()), None, Some("3D".into()), None]);
    // Player 3 declines: nobody else bet on Banker, so the dealer keeps and turns it (NSW 8.14).
    let ev = run(&mut t, &mut log, Command::DeclineCards { player: 3 });
    assert!(ev.iter().any(|e| matches!(e, Event::HandExposed { side: baccarat_rules::Side::Banker, by: None })));
    // Player 5 draws; the third card goes face down to the Player's holder again (NSW 8.16).
    let ev = card(&mut t, &mut log, "5C");
    assert!(ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(2), .. })));
    assert_eq!(shown(&t, None)[4], None);
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(2) });
    // Banker 3 with a third card 5 draws (NSW 9.4); the dealer holds the Banker's hand.
    let ev = card(&mut t, &mut log, "AD");
    assert!(ev.iter().any(|e| matches!(e, Event::CoupCompleted { .. })), "{ev:?}");
    assert!(Table::replay(setup("nsw-2021", "dealing = \"method_b\"\n"), &log) == t);
}

#[test]
fn au_style_b_offers_equal_wagers_to_the_lowest_seat_and_style_c_turns_all_four() {
    let extra = "dealing = \"style_b\"\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let (mut t, mut log) = live_table("au-casino", extra);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, seat_wager(1, 2, Bet::Player, 2000));
    run(&mut t, &mut log, seat_wager(2, 6, Bet::Player, 2000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "4D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    assert!(
        ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(1), .. })),
        "AU 8.9(b)"
    );
    let (mut t, mut log) = live_table("au-casino", "dealing = \"style_c\"\n[bets.tie]\npay_table = \"8_to_1\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    for c in ["2H", "3S", "4D"] {
        card(&mut t, &mut log, c);
    }
    assert_eq!(shown(&t, None), [None, None, None], "AU 8.19: face down until the dealer turns them");
    card(&mut t, &mut log, "KC");
    assert_eq!(shown(&t, None), [Some("2H".into()), Some("3S".into()), Some("4D".into()), Some("KC".into())]);
}

#[test]
fn method_c_marker_holds_the_banker_hand_until_it_loses() {
    let extra = "dealing = \"method_c\"\n";
    let (mut t, mut log) = live_table("nsw-2021", extra);
    refused(&mut t, Command::TakeMarker { player: 9, seat: 0 }, "must be seated");
    run(&mut t, &mut log, Command::TakeMarker { player: 9, seat: 14 });
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, seat_wager(9, 14, Bet::Banker, 2000));
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    let mut ev = Vec::new();
    for c in ["9H", "3S", "KD", "2C"] {
        ev = card(&mut t, &mut log, c);
    }
    // NSW 8.23-8.24: the dealer keeps and turns the Player's hand; the Banker's goes to the marker.
    assert!(ev.iter().any(|e| matches!(e, Event::HandExposed { side: baccarat_rules::Side::Player, by: None })));
    assert!(ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Banker, to: Some(9), .. })));
    let ev = run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Banker, player: Some(9) });
    // Player 9 natural beats Banker 5: the marker is released (NSW 8.26).
    assert!(ev.iter().any(|e| matches!(e, Event::MarkerReleased { from_seat: 14, .. })));
    assert_eq!(t.state().marker, None);
    assert!(Table::replay(setup("nsw-2021", extra), &log) == t);
}

#[test]
fn nsw_6_8_personal_limits_and_6_7_raised_minimum() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::SetPersonalLimits { player: 7, min: Money(500), max: Money(500_000) });
    refused(&mut t, Command::SetPersonalLimits { player: 7, min: Money(900), max: Money(800) }, "NSW 6.8");
    // NSW 6.7.1: raised now, without 20 minutes' notice: players present keep 10.00.
    run(&mut t, &mut log, Command::ChangeMinimum { minimum: Money(5000), at_ms: 0, present: vec![1] });
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, wager(1, Bet::Player, 1000));
    refused(&mut t, wager(2, Bet::Player, 1000), "NSW 6.7: 10.00 is below the player minimum 50.00");
    run(&mut t, &mut log, wager(2, Bet::Player, 5000));
    // NSW 6.8: the personal sign's limits for player 7.
    run(&mut t, &mut log, wager(7, Bet::Banker, 500));
    refused(&mut t, Command::ChangeMinimum { minimum: Money(2000), at_ms: 0, present: vec![] }, "between coups");
    for c in ["9H", "2S", "KD", "KC"] {
        card(&mut t, &mut log, c);
    }
    // With notice given at least 20 minutes before, the raise applies to everyone.
    run(&mut t, &mut log, Command::AnnounceMinimum { minimum: Money(10_000), at_ms: 1_000 });
    let ev = run(
        &mut t,
        &mut log,
        Command::ChangeMinimum { minimum: Money(10_000), at_ms: 1_000 + 20 * 60_000, present: vec![1] },
    );
    assert!(matches!(&ev[0], Event::MinimumChanged { grandfathered, .. } if grandfathered.is_empty()));
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    refused(&mut t, wager(1, Bet::Player, 5000), "below the player minimum 100.00");
    assert!(Table::replay(setup("nsw-2021", ""), &log) == t);
}

#[test]
fn nsw_12_17_invalid_bet_returned_and_promotional_tokens() {
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    let ev = run(
        &mut t,
        &mut log,
        Command::PlaceWager {
            player: 1,
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(2000),
            ante: Money(0),
            token: true,
        },
    );
    let token = match &ev[0] {
        Event::WagerPlaced { wager } => wager.clone(),
        _ => unreachable!(),
    };
    assert!(token.token);
    let ev = run(&mut t, &mut log, wager(2, Bet::Player, 1000));
    let other = match &ev[0] {
        Event::WagerPlaced { wager } => wager.id,
        _ => unreachable!(),
    };
    refused(&mut t, Command::InvalidBet { wager: other }, "NSW 14.12");
    card(&mut t, &mut log, "9H");
    let ev = run(&mut t, &mut log, Command::InvalidBet { wager: other });
    assert!(matches!(&ev[0], Event::WagerReturned { rule, .. } if rule.contains("NSW 12.17")));
    assert_eq!(t.state().coup.wagers.len(), 1);
    // AU has no promotional tokens.
    let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    refused(
        &mut t,
        Command::PlaceWager {
            player: 1,
            spot: Spot::Box(1),
            bet: Bet::Player,
            amount: Money(1000),
            ante: Money(0),
            token: true,
        },
        "no promotional tokens",
    );
}

#[test]
fn au_5_8_up_to_three_players_a_box_within_the_maximum() {
    let (mut t, mut log) = live_table("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    assert_eq!(t.setup().layout.name, "mini");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    for p in 1..=3 {
        run(
            &mut t,
            &mut log,
            Command::PlaceWager {
                player: p,
                spot: Spot::Box(2),
                bet: Bet::Player,
                amount: Money(30_000),
                ante: Money(0),
                token: false,
            },
        );
    }
    refused(
        &mut t,
        Command::PlaceWager {
            player: 4,
            spot: Spot::Box(2),
            bet: Bet::Tie,
            amount: Money(1000),
            ante: Money(0),
            token: false,
        },
        "already has 3 players",
    );
    refused(
        &mut t,
        Command::PlaceWager {
            player: 1,
            spot: Spot::Box(2),
            bet: Bet::Player,
            amount: Money(20_000),
            ante: Money(0),
            token: false,
        },
        "AU 3.1(a), 5.8",
    );
}

#[test]
fn au_7_2_continuous_shuffler_never_reaches_a_cutting_card() {
    let s = setup("au-casino", "decks = 4\n[bets.tie]\npay_table = \"8_to_1\"\n");
    let mut t = Table::new(s);
    let mut log = Vec::new();
    run(
        &mut t,
        &mut log,
        Command::StartShoe {
            source: ShoeSource::Continuous { seed: Seed::from_u64(3).hex() },
            cut: None,
            burn: None,
            show_burn: false,
        },
    );
    // Far more coups than 208 cards could deal without the cards going back in.
    for _ in 0..200 {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
        run(&mut t, &mut log, wager(1, Bet::Banker, 2000));
        run(&mut t, &mut log, Command::CloseBetting);
        deal_out(&mut t, &mut log);
        assert_eq!(t.phase(), Phase::Ready);
    }
    assert!(!log.iter().any(|e| matches!(e, Event::CuttingCardOut { .. } | Event::ShoeEnded { .. })));
    assert!(
        matches!(&log[0], Event::ShoeStarted { continuous: true, cut: None, rule, .. } if rule.contains("AU 3.4(a), 7.2"))
    );
    assert!(Table::replay(setup("au-casino", "decks = 4\n[bets.tie]\npay_table = \"8_to_1\"\n"), &log) == t);
}

#[test]
fn au_15_international_baccarat_cards_go_to_the_nominee() {
    let extra = "dealing = \"international\"\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let (mut t, mut log) = live_table("au-casino", extra);
    run(&mut t, &mut log, Command::AppointNominee { player: 1, nominee: Some(50) });
    refused(&mut t, Command::AppointNominee { player: 2, nominee: Some(50) }, "one other player at a time");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 5000));
    let mut ev = Vec::new();
    for c in ["2H", "3S", "4D", "KC"] {
        ev = card(&mut t, &mut log, c);
    }
    assert!(ev.iter().any(|e| matches!(e, Event::HandPassed { side: baccarat_rules::Side::Player, to: Some(50), .. })));
    assert_eq!(shown(&t, Some(50)), [Some("2H".into()), None, Some("4D".into()), None]);
    assert_eq!(shown(&t, Some(1)), [None, None, None, None]);
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(50) });
    let (mut t, _) = live_table("nsw-2021", "");
    refused(&mut t, Command::AppointNominee { player: 1, nominee: Some(2) }, "no nominees");
}

#[test]
fn nsw_12_12_wagers_reopened_before_any_card_is_exposed() {
    let (mut t, mut log) = live_table("nsw-2021", "dealing = \"method_b\"\n");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    run(&mut t, &mut log, seat_wager(1, 1, Bet::Player, 2000));
    card(&mut t, &mut log, "2H");
    refused(&mut t, seat_wager(2, 2, Bet::Banker, 1000), "wagers are closed");
    run(&mut t, &mut log, Command::ReopenWagers);
    run(&mut t, &mut log, seat_wager(2, 2, Bet::Banker, 1000));
    run(&mut t, &mut log, Command::CloseBetting);
    for c in ["3S", "3D", "KC"] {
        card(&mut t, &mut log, c);
    }
    // The Player's hand is out: cards exposed from here, so no reopening.
    run(&mut t, &mut log, Command::Expose { side: baccarat_rules::Side::Player, player: Some(1) });
    refused(&mut t, Command::ReopenWagers, "NSW 12.12");
    // Method A deals face up: never.
    let (mut t, mut log) = live_table("nsw-2021", "");
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false });
    card(&mut t, &mut log, "2H");
    refused(&mut t, Command::ReopenWagers, "Method A");
}

#[test]
fn au_3_4_two_sets_of_cards_alternate() {
    let s = setup("au-casino", "[bets.tie]\npay_table = \"8_to_1\"\n");
    let mut t = Table::new(s);
    let mut log = Vec::new();
    let start = |seed: u64, set: u8| Command::StartShoe {
        source: ShoeSource::ShufflerSet { seed: Seed::from_u64(seed).hex(), set },
        cut: Some(Cut { at: 100, from_back: 20 }),
        burn: None,
        show_burn: false,
    };
    run(&mut t, &mut log, start(1, 1));
    assert_eq!(t.state().set, Some(1));
    refused(&mut t, start(2, 1), "AU 3.4(a), 7.1: the next shoe uses the other set");
    let ev = run(&mut t, &mut log, start(2, 2));
    assert!(matches!(&ev[0], Event::ShoeEnded { .. }), "the first set's shoe ends, revealing its seed");
    let mut t2 = Table::new(setup("nsw-2021", ""));
    refused(&mut t2, start(1, 1), "does not use two sets");
}
