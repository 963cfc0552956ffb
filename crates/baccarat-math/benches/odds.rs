//! Speed of the odds engine (criterion). Issue 50: every wager of every pay
//! table for any composition in at most 50 µs on one core, the shoe-independent
//! table built once per process (outside the timing: `prepare()`).

use baccarat_math::{
    main_odds, main_odds_reference, prepare, price, report, report_by_enumeration, report_from, summary_table, Shoe,
    ShoeOdds,
};
use baccarat_rules::{profiles, Bet};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

/// A mid-shoe composition by rank and suit: 8 decks less 130 scattered cards.
fn depleted() -> Shoe {
    let mut counts = [8u32; 52];
    for i in 0..130usize {
        let c = (i * 37 + i / 7) % 52;
        if counts[c] > 0 {
            counts[c] -= 1;
        }
    }
    Shoe::from_card_counts(counts, 8).unwrap()
}

fn full_reports(c: &mut Criterion) {
    prepare();
    let shoe = Shoe::decks(8).unwrap();
    for id in ["nsw-2021", "au-casino"] {
        let rb = profiles::builtin(id).unwrap();
        c.bench_function(&format!("report/{id}/8 decks"), |b| {
            b.iter(|| report(black_box(&rb), black_box(&shoe), Some(8)))
        });
    }
    let rb = profiles::builtin("au-casino").unwrap();
    c.bench_function("report_by_enumeration/au-casino/8 decks", |b| {
        b.iter(|| report_by_enumeration(black_box(&rb), black_box(&shoe), Some(8)))
    });
    c.bench_function("summary_table/8 decks", |b| b.iter(|| summary_table(black_box(&shoe.value_counts()))));
}

fn any_shoe(c: &mut Criterion) {
    prepare();
    let shoe = depleted();
    let au = profiles::builtin("au-casino").unwrap();
    let table = au.bets.iter().find(|r| r.bet == Bet::DragonBonusPlayer).unwrap().pay_tables[0].clone();
    c.bench_function("any shoe/one side bet (dragon_bonus_player)", |b| {
        b.iter(|| {
            price(&ShoeOdds::counted(black_box(&shoe), false).distribution(Bet::DragonBonusPlayer).unwrap(), &table)
        })
    });
    c.bench_function("any shoe/class counts", |b| b.iter(|| ShoeOdds::new(black_box(&shoe))));
    c.bench_function("any shoe/report au-casino", |b| b.iter(|| report(black_box(&au), black_box(&shoe), None)));
    let all = profiles::all();
    c.bench_function("any shoe/report all four rulebooks", |b| {
        b.iter(|| {
            let odds = ShoeOdds::new(black_box(&shoe));
            all.iter().map(|rb| report_from(&odds, rb, &shoe, None)).collect::<Vec<_>>()
        })
    });
}

fn per_composition(c: &mut Criterion) {
    let shoe = depleted();
    let (values, ranks) = (shoe.value_counts(), shoe.rank_counts());
    let _ = main_odds(&values, &ranks); // coefficients built once, outside the timing
    c.bench_function("main_and_pairs/fast", |b| b.iter(|| main_odds(black_box(&values), black_box(&ranks))));
    c.bench_function("main_and_pairs/reference enumeration", |b| {
        b.iter(|| main_odds_reference(black_box(&values), black_box(&ranks)))
    });
}

criterion_group!(benches, any_shoe, full_reports, per_composition);
criterion_main!(benches);
