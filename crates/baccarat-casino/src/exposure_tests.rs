//! The exposure monitor's tests: each compares with an independent figure.

use baccarat_math::{report, Ratio, Shoe};
use baccarat_rules::{profiles, Bet, BurnProcedure, Card, Rank, Suit, TableConfig, TableConfigSpec};
use baccarat_table::{shuffled, Command, CutRules, Event, Phase, Position, Seed, ShoeSource, Table, TableSetup};

use super::*;
use baccarat_core::TableId;

fn setup(rulebook: &str, extra: &str) -> TableSetup {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 100000\n{extra}");
    let spec: TableConfigSpec = toml::from_str(&text).unwrap();
    let cfg = TableConfig::new(&rb, &spec).unwrap();
    TableSetup::new(rb, cfg, None).unwrap()
}

const SIDES: &str = "[bets.super_six]\n[bets.player_pair]\n[bets.banker_pair]\n";

/// An RNG table's shoe started with `burn` (shown on request when `show`).
fn started(rulebook: &str, burn: Option<BurnProcedure>, show: bool) -> (Table, Vec<Event>) {
    let s = setup(rulebook, "");
    let decks = s.config.decks;
    let rules = CutRules::from_profile(&s.rulebook.config);
    let seed = Seed::from_u64(11);
    let (_, mut stream) = shuffled(decks, &seed);
    let cut = rules.random(&mut stream, 52 * decks as usize, 20);
    let mut t = Table::new(s);
    let ev = t
        .execute(Command::StartShoe { source: ShoeSource::Shuffle { seed }, cut: Some(cut), burn, show_burn: show })
        .unwrap();
    (t, ev)
}

fn dealt(card: Card) -> Event {
    Event::CardDealt { position: Position::Player1, card, face_up: true }
}

fn card(rank: usize, suit: usize) -> Card {
    Card::new(Rank::ALL[rank], Suit::ALL[suit])
}

#[test]
fn a_full_shoe_gives_the_reports_exact_ev_for_each_offer() {
    let au = "[bets.tie]\npay_table = \"8_to_1\"\n[bets.dragon_bonus_player]\npay_table = \"table_2\"\n[bets.lucky_match_banker]\npay_table = \"scale_two\"\n";
    let nsw = "[bets.super_six]\n[bets.player_pair]\n[bets.tiger_pair]\n[bets.big_tiger]\n[bets.tiger_tie]\n";
    let pairs = "[bets.player_pair]\n[bets.banker_pair]\n";
    for (rb, extra) in [("nsw-2021", nsw), ("au-casino", au), ("european-casino", pairs), ("resort-house", pairs)] {
        let s = setup(rb, extra);
        let decks = s.config.decks;
        let t = Table::new(s);
        let x = table_exposure(&t, &ShownCards::default(), DEFAULT_THRESHOLD);
        let r = report(&t.setup().rulebook, &Shoe::decks(decks).unwrap(), Some(decks));
        assert_eq!(x.offers.len(), t.setup().config.offers.len(), "{rb}: every offer priced");
        assert_eq!(x.unseen, 52 * decks);
        for o in &x.offers {
            let b = r.bets.iter().find(|b| b.bet == o.bet && b.pay_table == o.pay_table).unwrap();
            assert_eq!(o.ev, Ratio::new(b.ev_num, b.ev_den), "{rb} {:?} {}", o.bet, o.pay_table);
            assert!(!o.alert, "{rb} {:?}: a full shoe favours the house", o.bet);
            assert_eq!(o.max, t.offer_limits(o.bet).unwrap().1);
            assert!(o.exposure_minor < 0);
        }
        assert!(!x.alert);
    }
    // NSW 8 decks, Banker commission: the published 1.0579 % edge.
    let t = Table::new(setup("nsw-2021", ""));
    let x = table_exposure(&t, &ShownCards::default(), DEFAULT_THRESHOLD);
    let banker = x.offers.iter().find(|o| o.bet == Bet::Banker).unwrap();
    assert!((banker.ev_display + 0.010579).abs() < 1e-6, "{}", banker.ev_display);
}

/// Player Pair (NSW 10.7: 11 to 1) by its closed form: the two first Player
/// cards are of one rank with probability Σ k(k-1) / n(n-1).
fn pair_ev(unseen: &[u32; 52]) -> Ratio {
    let ranks: Vec<i128> = (0..13).map(|r| unseen[r * 4..r * 4 + 4].iter().sum::<u32>() as i128).collect();
    let n: i128 = ranks.iter().sum();
    let pairs: i128 = ranks.iter().map(|k| k * (k - 1)).sum();
    Ratio::new(12 * pairs - n * (n - 1), n * (n - 1))
}

#[test]
fn the_pair_alert_rises_on_the_card_that_turns_it_not_before() {
    let t = Table::new(setup("nsw-2021", SIDES));
    let mut shown = ShownCards::default();
    let mut turned = None;
    // Aces, then twos, shown one by one: pairs become likelier.
    let cards = (0..2).flat_map(|r| (0..4).flat_map(move |s| (0..8).map(move |_| card(r, s))));
    for (i, c) in cards.enumerate() {
        let before = table_exposure(&t, &shown, DEFAULT_THRESHOLD);
        shown.observe(&dealt(c));
        let after = table_exposure(&t, &shown, DEFAULT_THRESHOLD);
        let pp = |x: &TableExposure| x.offers.iter().find(|o| o.bet == Bet::PlayerPair).unwrap().clone();
        assert_eq!(pp(&after).ev, pair_ev(&shown.unseen(8)), "card {i}");
        if pp(&after).alert && !pp(&before).alert {
            assert!(turned.is_none(), "the alert rose twice");
            turned = Some(i);
            assert!(pp(&before).ev.num <= 0 && pp(&after).ev.num > 0);
            assert!(after.alert && !before.alert);
        }
    }
    // 12 Σk(k-1) > n(n-1) first holds with the aces gone and some twos.
    let first = (0..64)
        .find(|&i| {
            let twos = i + 1 - 32;
            let k: i128 = 11 * 32 * 31 + (32 - twos) * (31 - twos);
            let n = 416 - (i + 1);
            i >= 32 && 12 * k > n * (n - 1)
        })
        .unwrap();
    assert_eq!(turned, Some(first as usize));
}

#[test]
fn an_unseen_burn_changes_nothing_and_a_shown_burn_removes_its_card() {
    let (plain, ev0) = started("nsw-2021", None, false);
    let none = table_exposure(&plain, &ShownCards::replay(&ev0), DEFAULT_THRESHOLD);
    // NSW 4.7.1: burned face down.
    let (t, ev) = started("nsw-2021", Some(BurnProcedure::BurnOne), false);
    assert!(ev.iter().any(|e| matches!(e, Event::Burned { shown: None, cards, .. } if cards.len() == 1)));
    assert_eq!(table_exposure(&t, &ShownCards::replay(&ev), DEFAULT_THRESHOLD), none);
    // NSW 4.7.2: burned face down and shown on request.
    let (t, ev) = started("nsw-2021", Some(BurnProcedure::BurnOneShown), true);
    let c = ev.iter().find_map(|e| if let Event::Burned { shown: Some(c), .. } = e { Some(*c) } else { None });
    let mut removed = ShownCards::default();
    removed.observe(&dealt(c.expect("a shown burn")));
    let want = table_exposure(&t, &removed, DEFAULT_THRESHOLD);
    assert_eq!(table_exposure(&t, &ShownCards::replay(&ev), DEFAULT_THRESHOLD), want);
    assert_ne!(want, none);
    // NSW 4.7.3: the first card face up, the rest face down: only it counts.
    let (_, ev) = started("nsw-2021", Some(BurnProcedure::TurnAndBurn), false);
    let (turned, n) = ev
        .iter()
        .find_map(|e| if let Event::Burned { shown: Some(c), cards, .. } = e { Some((*c, cards.len())) } else { None })
        .unwrap();
    let shown = ShownCards::replay(&ev);
    assert_eq!(shown.shown().iter().sum::<u32>(), 1, "{n} burned, one shown");
    assert_eq!(shown.shown()[turned.index()], 1);
}

#[test]
fn face_down_cards_count_when_their_hand_is_exposed() {
    let mut s = ShownCards::default();
    let c = card(5, 2);
    assert!(!s.observe(&Event::CardDealt { position: Position::Banker1, card: c, face_up: false }));
    assert_eq!(s.shown()[c.index()], 0);
    assert!(!s.observe(&Event::HandExposed { side: Side::Player, by: None }));
    assert_eq!(s.shown()[c.index()], 0, "the other hand");
    assert!(s.observe(&Event::HandExposed { side: Side::Banker, by: None }));
    assert!(!s.observe(&Event::HandExposed { side: Side::Banker, by: None }));
    assert_eq!(s.shown()[c.index()], 1, "shown once");
    assert!(s.observe(&dealt(c)), "a face-up card");
    assert_eq!(s.shown()[c.index()], 2);
}

#[test]
fn only_offered_wagers_are_reported() {
    let t = Table::new(setup("nsw-2021", "[bets.player_pair]\n"));
    let x = table_exposure(&t, &ShownCards::default(), DEFAULT_THRESHOLD);
    let bets: Vec<Bet> = x.offers.iter().map(|o| o.bet).collect();
    let offered: Vec<Bet> = t.setup().config.offers.iter().map(|o| o.bet).collect();
    assert_eq!(bets, offered);
    assert!(bets.contains(&Bet::PlayerPair) && !bets.contains(&Bet::BankerPair));
}

#[test]
fn the_end_of_the_shoe_and_an_empty_shoe_do_not_panic() {
    let t = Table::new(setup("nsw-2021", SIDES));
    let mut s = ShownCards::default();
    let all: Vec<Card> = (0..52).flat_map(|i| (0..8).map(move |_| Card::from_index(i).unwrap())).collect();
    for (i, &c) in all.iter().enumerate() {
        s.observe(&dealt(c));
        let x = table_exposure(&t, &s, DEFAULT_THRESHOLD);
        let left = 416 - (i as u32 + 1);
        assert_eq!(x.unseen, left);
        assert_eq!(x.offers.is_empty(), left < 6, "{left} left");
        assert_eq!(x.unpriced.is_some(), left < 6);
    }
    // A foreign card (shown more often than the decks hold) counts as none.
    s.observe(&dealt(all[0]));
    assert_eq!(table_exposure(&t, &s, DEFAULT_THRESHOLD).unseen, 0);
    // No offers at all.
    let x = exposure_of(&[], |o| o.max, &[8; 52], DEFAULT_THRESHOLD);
    assert!(x.offers.is_empty() && x.unpriced.is_none() && !x.alert);
    // A new shoe forgets the last.
    s.observe(&Event::ShoeStarted {
        shoe: 2,
        seed: None,
        commitment: None,
        algorithm: None,
        preshuffled: None,
        live_decks: Some(8),
        continuous: false,
        set: None,
        cut: None,
        rule: String::new(),
    });
    assert_eq!(s.unseen(8), [8; 52]);
}

#[test]
fn a_threshold_moves_the_alert_and_exposure_rounds_toward_the_house() {
    let t = Table::new(setup("nsw-2021", ""));
    let s = ShownCards::default();
    let x = table_exposure(&t, &s, Ratio::new(-2, 100));
    let flagged: Vec<Bet> = x.offers.iter().filter(|o| o.alert).map(|o| o.bet).collect();
    assert_eq!(flagged, [Bet::Player, Bet::Banker], "edges of 1.24 % and 1.06 % are above -2 %");
    for o in &x.offers {
        let exact = Ratio::new(i128::from(o.max.0) * o.ev.num, o.ev.den);
        assert_eq!(o.exposure, exact);
        assert!(i128::from(o.exposure_minor) * exact.den <= exact.num);
        assert!(i128::from(o.exposure_minor + 1) * exact.den > exact.num);
    }
}

#[test]
fn above_is_exact() {
    let rs: Vec<Ratio> = (-7..=7).flat_map(|n| (1..=6).map(move |d| Ratio::new(n, d))).collect();
    for &a in &rs {
        for &b in &rs {
            assert_eq!(above(a, b), a.num * b.den > b.num * a.den, "{a:?} {b:?}");
        }
    }
    let big = Ratio::new(i128::MAX / 3, i128::MAX / 3 + 1);
    assert!(above(Ratio::new(1, 1), big) && !above(big, Ratio::new(1, 1)));
}

fn run(t: &mut Table, log: &mut Vec<Event>, c: Command) {
    log.extend(t.execute(c).unwrap());
}

fn shoe_started(continuous: bool) -> Event {
    Event::ShoeStarted {
        shoe: 1,
        seed: None,
        commitment: None,
        algorithm: None,
        preshuffled: None,
        live_decks: Some(8),
        continuous,
        set: None,
        cut: None,
        rule: String::new(),
    }
}

#[test]
fn a_live_coup_shows_its_cards_and_a_continuous_shuffler_takes_them_back() {
    // NSW 8.2 Method A: every card goes out face up (the console's flag
    // matters only for a card not due); the face-down handling is tested by
    // its events above.
    let mut t = Table::new(setup("nsw-2021", ""));
    let mut log = t
        .execute(Command::StartShoe { source: ShoeSource::Live { decks: 8 }, cut: None, burn: None, show_burn: false })
        .unwrap();
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    let cards: Vec<Card> = ["6H", "3S", "KD", "KC", "2C"].iter().map(|c| c.parse().unwrap()).collect();
    let mut steps = Vec::new();
    for &c in &cards {
        run(&mut t, &mut log, Command::CardIn { card: c, to: None, face_up: false });
        steps.push(ShownCards::replay(&log).shown().iter().sum::<u32>());
    }
    assert_eq!(steps, [1, 2, 3, 4, 5], "one card shown per card dealt");
    assert!(log.iter().any(|e| matches!(e, Event::CoupCompleted { .. })));
    let shown = ShownCards::replay(&log);
    for c in &cards {
        assert_eq!(shown.shown()[c.index()], 1);
    }
    let x = table_exposure(&t, &shown, DEFAULT_THRESHOLD);
    assert_eq!(x.unseen, 411);
    // AU 7.2: a continuous shuffler's coup goes back when it closes.
    let mut s = ShownCards::default();
    s.observe(&shoe_started(true));
    s.observe(&dealt(cards[1]));
    assert_eq!(s.unseen(8).iter().sum::<u32>(), 415);
    assert!(s.observe(&Event::CoupClosed { coup: 1 }));
    assert_eq!(s.unseen(8), [8; 52]);
    // Without one, the shown cards stay out for the shoe.
    let mut s = ShownCards::default();
    s.observe(&shoe_started(false));
    s.observe(&dealt(cards[1]));
    assert!(!s.observe(&Event::CoupClosed { coup: 1 }));
    assert_eq!(s.unseen(8).iter().sum::<u32>(), 415);
}

#[test]
fn a_whole_rng_shoe_shows_each_dealt_card_once_and_its_burn_only_where_turned() {
    let (mut t, mut log) = started("nsw-2021", Some(BurnProcedure::TurnAndBurn), false);
    let burned = log.iter().find_map(|e| if let Event::Burned { cards, .. } = e { Some(cards.len()) } else { None });
    let face_down = burned.unwrap() - 1;
    let mut coups = 0;
    while t.phase() == Phase::Ready && coups < 200 {
        run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
        run(&mut t, &mut log, Command::CloseBetting);
        while matches!(t.phase(), Phase::Closed | Phase::Dealing) {
            run(&mut t, &mut log, Command::DealNext);
            let shown = ShownCards::replay(&log);
            // The shoe is gone once its last coup ends.
            if let Some((dealt, _)) = t.shoe_progress() {
                assert_eq!(shown.shown().iter().sum::<u32>() as usize, dealt - face_down, "coup {coups}");
            }
            let x = table_exposure(&t, &shown, DEFAULT_THRESHOLD);
            assert_eq!(x.offers.len(), 3);
        }
        coups += 1;
    }
    assert!(coups > 50, "{coups} coups, phase {:?}", t.phase());
    // The cards shown are exactly the cards dealt and the turned burn.
    let mut want = [0u32; 52];
    for e in &log {
        match e {
            Event::CardDealt { card, .. } | Event::Burned { shown: Some(card), .. } => want[card.index()] += 1,
            _ => {}
        }
    }
    assert_eq!(*ShownCards::replay(&log).shown(), want);
}

/// NSW 12.1 (AU 12.6): a misdeal laid out again from the same cards keeps
/// what was shown; NSW 12.13: a card the scanner misread is taken back and
/// the actual card counted in its place.
#[test]
fn a_reconstruction_keeps_what_was_shown_and_a_misread_card_is_taken_back() {
    let (a, b, c, d) = (card(0, 0), card(1, 1), card(2, 2), card(3, 3));
    let mut s = four_dealt([a, b, c, d], |i| i < 2);
    let before = *s.shown();
    let rule = "misdeal".to_string();
    assert!(!s.observe(&Event::Reconstructed { cards: vec![b, a, d, c], rule: rule.clone() }));
    assert_eq!(*s.shown(), before, "the same cards, the same shown");
    // The scanner read `a` (shown) where the card was `e`.
    let e = card(4, 0);
    s.observe(&scanner_discrepancy());
    assert!(s.observe(&Event::Reconstructed { cards: vec![b, e, d, c], rule }));
    assert_eq!(s.shown()[a.index()], 0, "the misread card never left the shoe");
    assert_eq!(s.shown()[e.index()], 1);
    assert_eq!(s.shown()[b.index()], 1);
    assert_eq!(s.shown().iter().sum::<u32>(), 2);
    // The completed coup shows all four actual cards, once each.
    s.observe(&Event::CoupCompleted { coup: 1, summary: baccarat_rules::CoupSummary::from_index(0) });
    assert_eq!(s.shown().iter().sum::<u32>(), 4);
    assert_eq!(s.shown()[a.index()], 0);
}

/// The coup feed keeps each table's shown cards, and a checkpoint of the
/// feed carries them; a checkpoint written before has none.
#[test]
fn the_feed_keeps_the_shown_cards_through_its_checkpoint() {
    let (_, ev) = started("nsw-2021", Some(BurnProcedure::TurnAndBurn), false);
    let mut f = crate::Feed::default();
    let log: Vec<_> = ev.into_iter().enumerate().map(|(i, e)| (TableId(5), i as u64 + 1, e)).collect();
    let changed = f.absorb_all(&log);
    assert_eq!(changed.len(), 1, "{changed:?}");
    let shown = ShownCards::replay(log.iter().map(|(_, _, e)| e));
    assert!(shown.shown().iter().sum::<u32>() >= 1, "the turned burn card is shown");
    assert_eq!(f.shown[&TableId(5)], shown);
    let state = f.state();
    let json = serde_json::to_value(&state).unwrap();
    let back: crate::coup_feed::FeedState = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(crate::Feed::from_state(back).shown[&TableId(5)], shown);
    let mut old = json;
    old.as_object_mut().unwrap().remove("shown");
    let back: crate::coup_feed::FeedState = serde_json::from_value(old).unwrap();
    assert!(crate::Feed::from_state(back).shown.is_empty());
}

/// NSW 6.8: a supervisor allows a player 5,000.00 on the main wagers above
/// the table's 1,000.00. The monitor's exposure at the maximum takes the
/// larger for the main wagers; the pairs keep the table's (personal limits
/// are the main wagers').
#[test]
fn a_personal_maximum_above_the_tables_is_the_main_wagers_largest_stake() {
    let mut t = Table::new(setup("nsw-2021", SIDES));
    let pair = t.setup().config.offer(Bet::PlayerPair).unwrap().clone();
    let banker = t.setup().config.offer(Bet::Banker).unwrap().clone();
    assert_eq!((largest_stake(&t, &banker), largest_stake(&t, &pair)), (Money(100_000), pair.max));
    let player = baccarat_table::PlayerId(7);
    t.execute(Command::SetPersonalLimits { player, min: Money(10_000), max: Money(500_000) }).unwrap();
    assert_eq!(largest_stake(&t, &banker), Money(500_000));
    assert_eq!(largest_stake(&t, &pair), pair.max);
    let x = table_exposure(&t, &ShownCards::default(), DEFAULT_THRESHOLD);
    let b = x.offers.iter().find(|o| o.bet == Bet::Banker).unwrap();
    assert_eq!(b.max, Money(500_000));
    assert_eq!(b.exposure, Ratio::new(500_000 * b.ev.num, b.ev.den));
    let input = crate::ExposureInput::of(baccarat_core::TableId(1), &t);
    assert!(input.offers.iter().any(|(o, m)| o.bet == Bet::Banker && *m == Money(500_000)));
}

/// The irregularity the engine records before the actual cards (NSW 12.13).
fn scanner_discrepancy() -> Event {
    Event::Irregularity { kind: IrregularityKind::ScannerDiscrepancy, card: None, rule: "NSW 12.13".into() }
}

/// NSW 12.13, two cards misread at once, one of the actual cards being a
/// card misread at another place: each place keeps whether it was shown.
/// (Matched by card, the actual `d` at Player 1, shown, took the unshown
/// place of the misread `d` at Banker 2, and the actual `e` at Banker 2 the
/// shown place of the misread `a`.)
#[test]
fn after_two_misread_cards_each_place_keeps_whether_it_was_shown() {
    let (a, b, c, d, e) = (card(0, 0), card(1, 1), card(2, 2), card(3, 3), card(4, 0));
    // The scanner read a, b, c, d; the first two were turned face up.
    let mut s = four_dealt([a, b, c, d], |i| i < 2);
    // The cards were d, b, c, e.
    s.observe(&scanner_discrepancy());
    assert!(s.observe(&Event::Reconstructed { cards: vec![d, b, c, e], rule: "NSW 12.13".into() }));
    let shown = s.shown();
    assert_eq!((shown[a.index()], shown[b.index()], shown[d.index()], shown[e.index()]), (0, 1, 1, 0));
    assert_eq!(shown.iter().sum::<u32>(), 2);
    // Banker 2 turned up, as the result is called: e, once.
    s.observe(&Event::CoupCompleted { coup: 1, summary: baccarat_rules::CoupSummary::from_index(0) });
    let shown = s.shown();
    assert_eq!((shown[a.index()], shown[c.index()], shown[d.index()], shown[e.index()]), (0, 1, 1, 1));
    assert_eq!(shown.iter().sum::<u32>(), 4);
}

/// A misdeal laid out again right after a scanner discrepancy was voided is
/// matched by card (the discrepancy is forgotten at the next event), and a
/// checkpoint's form of the fold is unchanged by the flag.
#[test]
fn the_scanner_flag_lasts_one_event_and_is_not_serialised() {
    let (a, b, c, d) = (card(0, 0), card(1, 1), card(2, 2), card(3, 3));
    let mut s = four_dealt([a, b, c, d], |i| i == 0);
    let plain = serde_json::to_string(&s).unwrap();
    s.observe(&scanner_discrepancy());
    assert!(serde_json::to_string(&s).unwrap().contains("scanner"), "set between the two events");
    s.observe(&Event::Resumed);
    assert_eq!(serde_json::to_string(&s).unwrap(), plain, "gone after the next event");
    // Laid out again with a first: matched by card, a stays shown.
    s.observe(&Event::Reconstructed { cards: vec![b, a, d, c], rule: "NSW 12.1".into() });
    assert_eq!(s.shown()[a.index()], 1);
    assert_eq!(s.shown().iter().sum::<u32>(), 1);
}

/// A misdeal's layout with a card that was not dealt (the engine refuses
/// one: NSW 12.1 uses exactly the cards dealt): should one come, the card
/// left out is taken back and the new one takes its shown, in the order of
/// the places left.
#[test]
fn a_layout_with_a_card_not_dealt_counts_it_in_place_of_the_one_left_out() {
    let (a, b, c, d, e) = (card(0, 0), card(1, 1), card(2, 2), card(3, 3), card(4, 0));
    let mut s = four_dealt([a, b, c, d], |i| i == 1);
    s.observe(&Event::Reconstructed { cards: vec![a, e, c, d], rule: "NSW 12.1".into() });
    let shown = s.shown();
    assert_eq!((shown[b.index()], shown[e.index()]), (0, 1));
    assert_eq!(shown.iter().sum::<u32>(), 1);
}

/// A coup's four cards dealt in order (Player, Banker, Player, Banker), card
/// `i` face up when `face_up(i)`.
fn four_dealt(cards: [Card; 4], face_up: impl Fn(usize) -> bool) -> ShownCards {
    let mut s = ShownCards::default();
    for (i, card) in cards.into_iter().enumerate() {
        let position = [Position::Player1, Position::Banker1, Position::Player2, Position::Banker2][i];
        s.observe(&Event::CardDealt { position, card, face_up: face_up(i) });
    }
    s
}
