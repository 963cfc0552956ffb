use super::*;
use baccarat_rules::{profiles, Card, TableConfig, TableConfigSpec};
use baccarat_table::{Event, Position};

#[test]
fn thresholds_parse_exactly_and_bad_ones_are_refused_by_name() {
    assert_eq!(parse_threshold("0"), Ok(Ratio::new(0, 1)));
    assert_eq!(parse_threshold("-0.005"), Ok(Ratio::new(-1, 200)));
    assert_eq!(parse_threshold("+0.01"), Ok(Ratio::new(1, 100)));
    assert_eq!(parse_threshold("1.5%"), Ok(Ratio::new(3, 200)));
    assert_eq!(parse_threshold(" -2 % "), Ok(Ratio::new(-1, 50)));
    for bad in ["", "-", ".", "abc", "0.1.2", "1e-3", "1", "-1", "150%", "0x10", "0.0000000000000000001"] {
        assert!(parse_threshold(bad).is_err(), "{bad:?} should be refused");
    }
    assert!(parse_threshold("1").unwrap_err().contains("between -1 and 1"));
}

/// An NSW table's offers with both pairs, and its decks.
fn offers() -> (Vec<(Offer, Money)>, u32) {
    let rb = profiles::builtin("nsw-2021").unwrap();
    let text =
        "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n[bets.banker_pair]\n";
    let spec: TableConfigSpec = toml::from_str(text).unwrap();
    let c = TableConfig::new(&rb, &spec).unwrap();
    (c.offers.iter().map(|o| (o.clone(), o.max)).collect(), c.decks)
}

/// Show `n` cards of rank index `rank` (all suits in turn).
fn show(shown: &mut ShownCards, rank: usize, n: usize) {
    for i in 0..n {
        let card = Card::from_index(rank * 4 + i % 4).unwrap();
        shown.observe(&Event::CardDealt { position: Position::Player1, card, face_up: true });
    }
}

#[test]
fn an_alert_is_raised_once_per_crossing_and_names_its_card() {
    let (offers, decks) = offers();
    let input = ExposureInput { table: TableId(3), decks, offers, shoe: 1, coup: 1, reveals: Vec::new() };
    let mut x = Exposures::new(Thresholds::default());
    let mut shown = ShownCards::default();
    x.price(Some(input.clone()), TableId(3), &shown, Cause::default(), 1);
    let t = x.table(TableId(3)).unwrap();
    assert!(!t.alert && t.offers.iter().all(|o| !o.alert && o.ev.starts_with('-')), "{t:?}");
    assert_eq!(x.alerts(0).count(), 0);
    // Strip the shoe of every rank but two: pairs become likely and the
    // 11:1 pair pays the player (exactly positive once Σ n(n-1) > N(N-1)/12).
    for rank in 2..13 {
        show(&mut shown, rank, 8 * 4);
    }
    let card = Card::from_index(12 * 4 + 3).unwrap();
    x.price(None, TableId(3), &shown, Cause { seq: 77, cards: vec![card] }, 2);
    let alerts: Vec<_> = x.alerts(0).cloned().collect();
    let t = x.table(TableId(3)).unwrap();
    let above: Vec<&str> =
        t.offers.iter().filter(|o| !o.ev.starts_with('-') && o.ev != "0/1").map(|o| o.bet.id()).collect();
    let raised: Vec<&str> = alerts.iter().map(|a| a.bet.id()).collect();
    assert_eq!(raised, above, "one alert for each offer above 0: {alerts:?}");
    assert!(raised.contains(&"player_pair") && raised.contains(&"banker_pair"), "{raised:?}");
    assert!(alerts.iter().all(|a| a.seq == 77 && a.cards == [card] && a.table == TableId(3)));
    let (n, last) = (alerts.len(), alerts.last().unwrap().id);
    // Still above: no second alert. Exposure at the maximum is positive.
    x.price(None, TableId(3), &shown, Cause { seq: 78, cards: Vec::new() }, 3);
    assert_eq!(x.alerts(0).count(), n);
    assert_eq!(x.alerts(last).count(), 0);
    let pp = x.table(TableId(3)).unwrap().offers.iter().find(|o| o.bet == Bet::PlayerPair).unwrap().clone();
    assert!(pp.alert && pp.exposure.0 > 0 && pp.ev_percent > 0.0, "{pp:?}");
    // A new shoe: nothing shown, no alert; crossing again alerts again.
    let fresh = ShownCards::default();
    x.price(Some(ExposureInput { shoe: 2, ..input }), TableId(3), &fresh, Cause::default(), 4);
    assert!(!x.table(TableId(3)).unwrap().alert);
    x.price(None, TableId(3), &shown, Cause { seq: 99, cards: Vec::new() }, 5);
    assert_eq!(x.alerts(last).count(), n);
}

#[test]
fn a_table_threshold_overrides_the_default() {
    let (offers, decks) = offers();
    let mut th = Thresholds::default();
    // Below the Banker's EV (about -1.06%): the Banker wager alerts at once.
    th.tables.insert(TableId(4), parse_threshold("-1.1%").unwrap());
    let mut x = Exposures::new(th);
    let shown = ShownCards::default();
    for t in [TableId(3), TableId(4)] {
        x.price(
            Some(ExposureInput { table: t, decks, offers: offers.clone(), shoe: 1, coup: 1, reveals: Vec::new() }),
            t,
            &shown,
            Cause::default(),
            1,
        );
    }
    assert!(!x.table(TableId(3)).unwrap().alert);
    let four = x.table(TableId(4)).unwrap();
    assert_eq!(four.threshold, "-11/1000");
    let alerting: Vec<_> = four.offers.iter().filter(|o| o.alert).map(|o| o.bet.id()).collect();
    assert_eq!(alerting, ["banker"], "{four:?}");
}

/// The feed's own words for what it shows, by dealing style: a squeeze
/// table shows a hand only once exposed.
#[test]
fn what_the_feed_reveals_follows_the_dealing_style() {
    use baccarat_rules::DealingStyle;
    let up = reveals(DealingStyle::MethodA);
    assert!(up[0].contains("as it is dealt"), "{up:?}");
    let squeeze = reveals(DealingStyle::MethodB);
    assert!(squeeze[0].contains("when the hand is exposed"), "{squeeze:?}");
    assert!(up.iter().chain(&squeeze).any(|r| r.contains("pairs and naturals")));
}

/// Alerts are numbered from the clock: a server started again (its alerts
/// forgotten) numbers past every alert the last one gave, so a client's
/// `after` loses none; a start's first pricing raises none.
#[test]
fn alert_numbers_grow_across_a_restart_and_a_start_alerts_nothing() {
    let (offers, decks) = offers();
    let input = ExposureInput { table: TableId(3), decks, offers, shoe: 1, coup: 1, reveals: Vec::new() };
    let mut shown = ShownCards::default();
    for rank in 2..13 {
        show(&mut shown, rank, 8 * 4);
    }
    let mut first = Exposures::new(Thresholds::default());
    first.price(Some(input.clone()), TableId(3), &ShownCards::default(), Cause::default(), 1_000);
    first.price(None, TableId(3), &shown, Cause::default(), 2_000);
    let last = first.alerts(0).last().expect("alerts").id;
    assert!(last >= 2_000_000, "{last}");
    let mut again = Exposures::new(Thresholds::default());
    again.price(Some(input.clone()), TableId(3), &shown, Cause::default(), 3_000);
    again.started();
    assert_eq!(again.alerts(0).count(), 0, "a start is no crossing");
    assert!(again.table(TableId(3)).unwrap().alert, "the wagers above stay flagged");
    again.price(Some(input), TableId(3), &ShownCards::default(), Cause::default(), 4_000);
    again.price(None, TableId(3), &shown, Cause::default(), 5_000);
    assert!(again.alerts(last).count() > 0 && again.alerts(0).all(|a| a.id > last));
}

/// Only a maximum, the shoe or the coup changes what an input prices.
#[test]
fn an_input_prices_again_only_when_a_maximum_or_the_coup_moved() {
    let (offers, decks) = offers();
    let input = ExposureInput { table: TableId(3), decks, offers, shoe: 1, coup: 1, reveals: Vec::new() };
    let mut x = Exposures::new(Thresholds::default());
    assert!(x.offers_changed(&input), "never priced");
    x.price(Some(input.clone()), TableId(3), &ShownCards::default(), Cause::default(), 1);
    assert!(!x.offers_changed(&input));
    assert!(x.offers_changed(&ExposureInput { coup: 2, ..input.clone() }));
    let mut lower = input.clone();
    lower.offers[1].1 = Money(300_000);
    assert!(x.offers_changed(&lower));
}
