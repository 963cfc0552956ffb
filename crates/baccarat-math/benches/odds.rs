//! Speed of the odds engine (criterion). Targets from the issue: a full report
//! with every side bet at 8 decks under 20 ms; main wagers and pairs for an
//! arbitrary remaining shoe in 10 µs or less.

use baccarat_math::{main_odds, main_odds_reference, report, summary_table, Shoe};
use baccarat_rules::profiles;
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn full_reports(c: &mut Criterion) {
    let shoe = Shoe::decks(8).unwrap();
    for id in ["nsw-2021", "au-casino"] {
        let rb = profiles::builtin(id).unwrap();
        c.bench_function(&format!("report/{id}/8 decks"), |b| {
            b.iter(|| report(black_box(&rb), black_box(&shoe), Some(8)))
        });
    }
    c.bench_function("summary_table/8 decks", |b| b.iter(|| summary_table(black_box(&shoe.value_counts()))));
}

fn per_composition(c: &mut Criterion) {
    // A mid-shoe composition: 8 decks less a scattering of cards.
    let mut ranks = [32u32; 13];
    for (i, r) in ranks.iter_mut().enumerate() {
        *r -= (i as u32 * 7) % 11;
    }
    let values = Shoe::from_rank_counts(ranks, 8).unwrap().value_counts();
    let _ = main_odds(&values, &ranks); // coefficients built once, outside the timing
    c.bench_function("main_and_pairs/fast", |b| b.iter(|| main_odds(black_box(&values), black_box(&ranks))));
    c.bench_function("main_and_pairs/reference enumeration", |b| {
        b.iter(|| main_odds_reference(black_box(&values), black_box(&ranks)))
    });
}

criterion_group!(benches, full_reports, per_composition);
criterion_main!(benches);
