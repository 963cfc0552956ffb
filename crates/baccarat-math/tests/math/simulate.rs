//! The simulator: its fast path equals dealing and settling with the rules crate
//! coup for coup; results do not depend on the thread count; and its estimates
//! agree with the exact odds.

use baccarat_table::PlayerId;
use std::sync::atomic::AtomicU64;

use baccarat_math::sim::{estimate, play_shoe, run, Procedure, Rows, SimWager, SCALE};
use baccarat_math::{report, Shoe as OddsShoe};
use baccarat_rules::{
    profiles, settle_wager, BurnProcedure, Coup, FractionalPayout, Money, SettleRules, UnpayableStake,
};
use baccarat_table::{shuffled_from, Draw, Shoe};
use baccarat_table::{Seed, Stream};

/// The reference: the table crate's `Shoe` (cut, burn, cutting card) and the rules
/// crate's `Coup::deal`, `Bet::classify` and `settle_wager`, one coup at a time.
fn reference_shoe(proc: &Procedure, master: &Seed, index: u64, ws: &[SimWager]) -> Vec<Vec<i64>> {
    let (cards, mut stream) = shuffled_from(proc.decks, Stream::with_nonce(master, index));
    let cut = proc.cut.random(&mut stream, cards.len(), proc.cutting_card_from_back);
    let mut shoe = Shoe::cut(cards, cut, &proc.cut).unwrap();
    let mut no_bet = 0;
    match proc.burn {
        Some(BurnProcedure::ThreeNoBetCoups) => no_bet = 3,
        Some(b) => {
            shoe.burn(b, false).unwrap();
        }
        None => {}
    }
    let rules =
        SettleRules { chip: Money(1), fractional: FractionalPayout::UpToChip, unpayable: UnpayableStake::Accept };
    let mut out = Vec::new();
    let mut left: Option<u32> = None;
    while left != Some(0) {
        let mut first = true;
        let mut cut_first = false;
        let mut cut_during = false;
        let dealt = Coup::deal(|| {
            if shoe.cutting_card_next() {
                shoe.take_cutting_card();
                if first {
                    cut_first = true
                } else {
                    cut_during = true
                }
            }
            first = false;
            match shoe.draw() {
                Draw::Card(c) => Some(c),
                Draw::Empty => None,
            }
        });
        let Ok(coup) = dealt else { break }; // NSW 12.6: void, the shoe ends
        if cut_first {
            left = Some(1);
        } else if cut_during {
            left = Some(2);
        }
        if no_bet > 0 {
            no_bet -= 1;
        } else {
            out.push(
                ws.iter()
                    .map(|w| settle_wager(Money(SCALE), &w.table, w.table.bet.classify(&coup), &rules).player_net().0)
                    .collect(),
            );
        }
        if let Some(l) = left.as_mut() {
            *l -= 1;
        }
    }
    out
}

#[test]
fn fast_path_equals_the_rules_coup_for_coup() {
    for id in ["nsw-2021", "au-casino", "european-casino", "resort-house"] {
        let rb = profiles::builtin(id).unwrap();
        let decks = rb.default_decks();
        let ws = SimWager::every(&rb, decks);
        let rows = Rows::new(&ws).unwrap();
        for (from_back, burn) in [
            (20, rb.procedures.burn.first().copied()),
            (60, Some(BurnProcedure::ThreeNoBetCoups)),
            (20, Some(BurnProcedure::TurnAndBurn)),
        ] {
            let mut proc = Procedure::for_rulebook(&rb, decks, from_back);
            proc.burn = burn;
            let master = Seed::from_u64(9);
            for i in 0..60u64 {
                let want = reference_shoe(&proc, &master, i, &ws);
                let mut got: Vec<Vec<i64>> = Vec::new();
                play_shoe(&proc, &master, i, |k| {
                    got.push((0..ws.len()).map(|j| rows.net(k, j)).collect());
                });
                assert_eq!(got.len(), want.len(), "{id} shoe {i}: coups");
                assert_eq!(got, want, "{id} shoe {i}");
            }
        }
    }
}

#[test]
fn results_do_not_depend_on_threads() {
    let rb = profiles::builtin("au-casino").unwrap();
    let ws = SimWager::every(&rb, 8);
    let rows = Rows::new(&ws).unwrap();
    let proc = Procedure::for_rulebook(&rb, 8, 20);
    let done = AtomicU64::new(0);
    let one = run(&proc, &rows, &Seed::from_u64(5), 301, 1, &done);
    let two = run(&proc, &rows, &Seed::from_u64(5), 301, 2, &done);
    let seven = run(&proc, &rows, &Seed::from_u64(5), 301, 7, &done);
    assert_eq!(one, two);
    assert_eq!(one, seven);
    assert_eq!(one.shoes, 301);
    let other = run(&proc, &rows, &Seed::from_u64(6), 301, 2, &done);
    assert_ne!(one, other);
}

#[test]
fn estimates_agree_with_exact_odds() {
    for id in ["nsw-2021", "au-casino"] {
        let rb = profiles::builtin(id).unwrap();
        let ws = SimWager::every(&rb, 8);
        let rows = Rows::new(&ws).unwrap();
        let proc = Procedure::for_rulebook(&rb, 8, 20);
        let t = run(&proc, &rows, &Seed::from_u64(2026), 25_000, 2, &AtomicU64::new(0));
        assert!(t.coups > 1_900_000, "{}", t.coups);
        let exact = report(&rb, &OddsShoe::decks(8).unwrap(), Some(8));
        for (j, w) in ws.iter().enumerate() {
            let e = exact.bets.iter().find(|b| b.bet == w.table.bet && b.pay_table == w.table.name).unwrap();
            let (mean, lo, hi) = estimate(&t, j);
            let half = (hi - lo) / 2.0;
            let want = -e.house_edge();
            // Four half-widths: a fixed seed, so this either always passes or never.
            assert!(
                (mean - want).abs() < 4.0 * half,
                "{id} {} {}: simulated {mean:.5} ± {half:.5}, exact {want:.5}",
                w.table.bet,
                w.table.name
            );
            assert!(half < 0.02, "{id} {}: interval too wide ({half})", w.table.bet);
        }
    }
}

/// The full table engine (commands, events, cutting card, last coup) and the
/// simulator's fast path give the same coups and the same settlements, shoe for
/// shoe, on the same seeds.
#[test]
fn fast_path_equals_the_table_engine_coup_for_coup() {
    use baccarat_rules::{Bet, TableConfig, TableConfigSpec};
    use baccarat_table::{Command, Event, Phase, ShoeSource, Spot, Table, TableSetup};
    for (id, extra) in [
        ("nsw-2021", "[bets.player_pair]\n[bets.banker_pair]\n[bets.super_six]\n[bets.tiger]\n[bets.big_tiger]\n[bets.small_tiger]\n[bets.tiger_tie]\n[bets.tiger_pair]\n"),
        ("au-casino", "[bets.tie]\npay_table = \"9_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_two\"\n[bets.perfect_pair_banker]\npay_table = \"scale_one\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_3\"\n"),
        ("european-casino", "variant = \"no_house_edge\"\n[bets.player_pair]\n[bets.banker_pair]\n"),
    ] {
        let rb = profiles::builtin(id).unwrap();
        let spec: TableConfigSpec = toml::from_str(&format!("rulebook = \"{id}\"\nchip = 1\nmin = 20\nmax = 100000\n{extra}")).unwrap();
        let cfg = TableConfig::new(&rb, &spec).unwrap();
        let ws: Vec<SimWager> = cfg.offers.iter().map(|o| SimWager { table: o.pay_table.clone() }).collect();
        let rows = Rows::new(&ws).unwrap();
        let layout = if id == "au-casino" { Some("full") } else { None };
        let proc = Procedure::for_rulebook(&rb, cfg.decks, 20);
        let master = Seed::from_u64(77);
        for shoe_no in 0..3u64 {
            // The simulator's shoe `shoe_no` is the stream with nonce `shoe_no`;
            // the engine takes that stream's seed and the cut drawn after the shuffle.
            let mut fast = Vec::new();
            // The rows count in the table's own scale; the engine is staked SCALE.
            assert_eq!(SCALE % rows.scale, 0, "{id}: scale {}", rows.scale);
            let up = SCALE / rows.scale;
            play_shoe(&proc, &master, shoe_no, |k| fast.push((0..ws.len()).map(|j| rows.net(k, j) * up).collect::<Vec<i64>>()));
            let (cards, mut stream) = shuffled_from(cfg.decks, Stream::with_nonce(&master, shoe_no));
            let cut = proc.cut.random(&mut stream, cards.len(), 20);
            // The engine's StartShoe takes a seed (nonce 0): pass the pre-shuffled
            // order the stream produced instead, which is the same shoe.
            let mut t = Table::new(TableSetup::new(rb.clone(), cfg.clone(), layout).unwrap());
            t.execute(Command::StartShoe { source: ShoeSource::PreShuffled { cards }, cut: Some(cut), burn: proc.burn, show_burn: false }).unwrap();
            let mut engine: Vec<Vec<i64>> = Vec::new();
            while t.phase() != Phase::ShoeOver {
                let no_bet = t.state().no_bet_coups_due > 0;
                t.execute(Command::OpenBetting { no_bet, closes_at: None }).unwrap();
                let mut ids = Vec::new();
                if !no_bet {
                    for (j, w) in ws.iter().enumerate() {
                        let player = j as u32 + 1;
                        if !w.table.bet.is_main() && t.setup().config.side_bets_need_main_wager {
                            // AU 11A.2 and siblings: the side bet goes with a main wager.
                            t.execute(Command::PlaceWager { player: PlayerId(player), spot: Spot::Box(player as u8), bet: Bet::Tie, amount: Money(20), ante: Money(0), token: false, at_ms: None }).unwrap();
                        }
                        let ev = t.execute(Command::PlaceWager { player: PlayerId(player), spot: Spot::Box(player as u8), bet: w.table.bet, amount: Money(SCALE), ante: Money(0), token: false, at_ms: None }).unwrap();
                        if let Event::WagerPlaced { wager } = &ev[0] {
                            ids.push(wager.id);
                        }
                    }
                }
                t.execute(Command::CloseBetting).unwrap();
                let mut nets = vec![0i64; ws.len()];
                let mut completed = false;
                while matches!(t.phase(), Phase::Closed | Phase::Dealing) {
                    for e in t.execute(Command::DealNext).unwrap() {
                        match e {
                            Event::WagerSettled { wager, settlement, .. } => {
                                if let Some(j) = ids.iter().position(|i| *i == wager) {
                                    nets[j] = settlement.player_net().0;
                                }
                            }
                            Event::CoupCompleted { .. } => completed = true,
                            _ => {}
                        }
                    }
                }
                if completed && !no_bet {
                    engine.push(nets);
                }
            }
            assert!(fast.len() > 50, "{id} shoe {shoe_no}: only {} coups", fast.len());
            assert_eq!(engine.len(), fast.len(), "{id} shoe {shoe_no}: coups");
            assert_eq!(engine, fast, "{id} shoe {shoe_no}");
        }
    }
}

/// The simulator counts in the common denominator of the pay lines it is
/// given, not a fixed 20: a 24:25 line makes it 100 (the fixed scale would have
/// skewed it in a release build); one that needs more than MAX_SCALE is refused.
#[test]
fn the_scale_is_computed_from_the_pay_lines_or_refused() {
    use baccarat_rules::{Bet, Outcome, PayTable};
    let table = |pays: &str| SimWager {
        table: PayTable {
            bet: Bet::Player,
            name: "t".into(),
            rule: "test".into(),
            lines: vec![(Outcome::Win, pays.parse().unwrap()), (Outcome::Lose, "lose".parse().unwrap())],
        },
    };
    let nsw = profiles::builtin("nsw-2021").unwrap();
    let mut ws = SimWager::every(&nsw, 8);
    assert_eq!(Rows::new(&ws).unwrap().scale, SCALE, "19:20 and 8:1");
    ws.push(table("24:25"));
    assert_eq!(Rows::new(&ws).unwrap().scale, 100);
    let e = Rows::new(&[table("1:40001")]).err().expect("refused");
    assert!(e.contains("1:40001"), "{e}");
}
