//! CPU time per shoe of the odds report, for a shared, loaded machine where
//! criterion's wall-clock medians swing with the other work: the thread's own
//! time on a CPU (`/proc/thread-self/schedstat`, Linux) over many calls.
//!
//! `cargo run --release -p baccarat-math --example odds_cpu`

use std::hint::black_box;

use baccarat_math::{effect_of_removal, prepare, price, report, report_from, Shoe, ShoeOdds};
use baccarat_rules::{profiles, Bet};

/// Nanoseconds this thread has run on a CPU.
fn cpu_ns() -> u64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|x| x.parse().ok()).expect("a number")
}

/// The same composition as benches/odds.rs: 8 decks less 130 scattered cards.
fn depleted() -> Shoe {
    let mut counts = [8u32; 52];
    for i in 0..130usize {
        let c = (i * 37 + i / 7) % 52;
        counts[c] = counts[c].saturating_sub(1);
    }
    Shoe::from_card_counts(counts, 8).unwrap()
}

fn per_call(name: &str, calls: u32, mut f: impl FnMut()) {
    let mut best = f64::MAX;
    for _ in 0..5 {
        let t = cpu_ns();
        for _ in 0..calls {
            f();
        }
        best = best.min((cpu_ns() - t) as f64 / calls as f64 / 1000.0);
    }
    println!("{name:<45} {best:>8.1} µs CPU a call (best of 5 x {calls})");
}

fn main() {
    prepare();
    let shoe = depleted();
    let au = profiles::builtin("au-casino").unwrap();
    let table = au.bets.iter().find(|r| r.bet == Bet::DragonBonusPlayer).unwrap().pay_tables[0].clone();
    let all = profiles::all();
    per_call("one side bet (dragon_bonus_player)", 5000, || {
        let d = ShoeOdds::counted(black_box(&shoe), false).distribution(Bet::DragonBonusPlayer).unwrap();
        black_box(price(&d, &table));
    });
    per_call("class counts with the triple features", 5000, || {
        black_box(ShoeOdds::new(black_box(&shoe)));
    });
    for rb in &all {
        per_call(&format!("report {}", rb.id), 5000, || {
            black_box(report(rb, black_box(&shoe), None));
        });
    }
    per_call("all four rulebooks from one count", 5000, || {
        let odds = ShoeOdds::new(black_box(&shoe));
        black_box(all.iter().map(|rb| report_from(&odds, rb, &shoe, None)).collect::<Vec<_>>());
    });
    per_call("effect of removal, au-casino (53 reports)", 20, || {
        black_box(effect_of_removal(&au, black_box(&shoe), None).unwrap());
    });
}
