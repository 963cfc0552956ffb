//! Statistical evidence for the shuffle (issue 11 §5, "The RNG's evidence").
//!
//! Regulators ask for statistics on the shuffled output, not only for a sound
//! design: 25 CFR 547.14 (the RNG's output passes statistical tests of
//! randomness), Virginia 11VAC20-20-510 (every card position passes a
//! chi-square test at 99% confidence, plus runs and serial-correlation tests)
//! and GLI-19 (output unpredictable, uniformly distributed, with no correlation
//! between successive outcomes).
//!
//! # What is tested
//!
//! Shoes are made as an RNG table makes them (the server's
//! `Casino::new_shoe_command`): a seed, [`Stream::new`] on it, [`shuffle_with`]
//! over the `52 × decks` cards, [`CutRules::random`] from the same stream (NSW
//! 4.5; AU 7.6), and the cutting card `max(profile minimum, 20)` cards from the
//! back (NSW 4.6). The table's seed is fresh OS entropy; here shoe `i`'s seed
//! is [`Seed::derive`]`(master, i)`, so a run is fixed by its master seed and
//! can be replayed. Each card is tracked as a *physical* card, `52 · deck +`
//! [`Card::index`](baccarat_rules::Card::index), by shuffling those numbers: the
//! shuffle only swaps, so the permutation is the one the table's `Vec<Card>`
//! undergoes (checked by [`matches_table_shoes`]).
//!
//! | test | statistic |
//! |---|---|
//! | each position's card, shuffled stack | 416 chi-squares over 416 physical cards |
//! | each position's card, dealing order | the same after the cut |
//! | each card's position, dealing order | 416 chi-squares over 416 positions |
//! | each position's rank, dealing order | 416 chi-squares over 13 ranks |
//! | runs above/below the median | Wald–Wolfowitz runs of low/high cards in each shoe against their exact distribution |
//! | runs up and down | in the first 64 32-bit keystream words of each shoe, against their exact distribution |
//! | serial correlation, per position | lag-1 correlation of the point value at each position between consecutive shoes |
//! | serial correlation, pooled | the same summed over positions |
//! | cut | chi-square of the cut position over its allowed range |
//!
//! # Verdicts
//!
//! Every test is judged at the 1% level (11VAC20-20-510's 99%). A family of
//! per-position tests is never judged by "no failures": 1% of true tests fail
//! by chance, so 416 tests expect 4.16 failures. The family's verdict is a
//! second-level test on its p-values: the count of failures against
//! Binomial(m, 0.01) (two-sided), a Kolmogorov–Smirnov test of the p-values
//! against uniform, and the smallest p-value against its distribution under
//! independence (Šidák: 1 − (1 − p_min)^m, which catches one position that
//! fails outright, a defect the other two cannot see). The family's p-value is
//! the Bonferroni combination of the three, `min(1, 3 · min)`.
//!
//! With nine verdicts, a perfect shuffle fails one of them in about 9% of runs;
//! as with dieharder's WEAK results, a failure is re-run on a fresh master seed,
//! which a real defect fails again and chance does not.
//!
//! # Files
//!
//! * `mod.rs`: the settings ([`ALPHA`], [`KEYSTREAM_WORDS`],
//!   [`SERVER_MIN_FROM_BACK`]) and the entry points ([`run`],
//!   [`matches_table_shoes`]).
//! * `shoes.rs`: how a shoe is made and seen ([`Procedure`], [`ShoeDraw`],
//!   [`ShoeSource`], [`TableShoes`], [`card_of`]).
//! * `tally.rs`: the integer counts gathered over shoes, a range of shoes per
//!   thread.
//! * `analyse.rs`: the tests and checks, from the merged counts.
//! * `family.rs`: the second-level test over a family of p-values ([`Family`]).
//! * `report.rs`: the results ([`TestResult`], [`Check`], [`Report`]) and
//!   [`fmt_p`].
//! * `distributions.rs`: the p-value maths (gamma, chi-square, normal,
//!   binomial, Kolmogorov–Smirnov, pooled chi-square).
//! * `runs.rs`: counting runs up and down, and the exact distributions of
//!   both runs tests.
//!
//! [`Stream::new`]: baccarat_table::shuffle::Stream::new
//! [`shuffle_with`]: baccarat_table::shuffle::shuffle_with
//! [`CutRules::random`]: baccarat_table::shoe::CutRules::random

mod analyse;
mod distributions;
mod family;
mod report;
mod runs;
mod shoes;
mod tally;

use std::sync::atomic::AtomicU64;

use baccarat_rules::Card;
use baccarat_table::Seed;

pub use distributions::{
    binomial_two_sided, chi2_sf, chi_square_pooled, gamma_q, ks_uniform, ln_gamma, normal_two_sided,
};
pub use family::Family;
pub use report::{fmt_p, Check, Report, TestResult};
pub use runs::{runs_up_down_distribution, wald_wolfowitz, wald_wolfowitz_moments};
pub use shoes::{card_of, Procedure, ShoeDraw, ShoeSource, TableShoes};

use analyse::analyse;
use tally::{tally_range, Cards, Tally};

/// The level each test is judged at (11VAC20-20-510: 99% confidence).
pub const ALPHA: f64 = 0.01;

/// Keystream words per shoe in the runs-up-and-down test.
pub const KEYSTREAM_WORDS: usize = 64;

/// Where the cutting card goes at an RNG table: the server's
/// `cutting_card_from_back`, the profile's minimum but at least 20 (NSW 4.6).
pub const SERVER_MIN_FROM_BACK: usize = 20;

/// Check that the evidence's shoes are the table's: for the first `count`
/// shoes, the physical cards mapped to playing cards equal the shoe the table
/// code builds from the same seed (`shoe::shuffled`, `CutRules::random`,
/// `Shoe::cut`), card for card, with the same cut.
pub fn matches_table_shoes(proc: &Procedure, master: &Seed, count: u64) -> Result<(), String> {
    use baccarat_table::{shuffled, Shoe};
    let src = TableShoes(*proc);
    let mut d = ShoeDraw::new(proc.cards());
    for i in 0..count {
        src.draw(master, i, &mut d);
        let seed = Seed::derive(master, i);
        let (cards, mut stream) = shuffled(proc.decks, &seed);
        let cut = proc.cut.random(&mut stream, proc.cards(), proc.cutting_card_from_back);
        if cut != d.cut {
            return Err(format!("shoe {i}: the table cuts {cut:?}, the evidence {:?}", d.cut));
        }
        let shoe = Shoe::cut(cards, cut, &proc.cut).map_err(|e| format!("shoe {i}: {e}"))?;
        let ours: Vec<Card> = d.dealing_order().into_iter().map(card_of).collect();
        if shoe.upcoming() != ours.as_slice() {
            return Err(format!("shoe {i}: the dealing order differs from the table's shoe"));
        }
    }
    Ok(())
}

/// Run the suite over `shoes` shoes of `src` (shoe `i` from `master` and `i`),
/// on `threads` threads; `done` counts shoes as they are tallied.
pub fn run<S: ShoeSource + ?Sized>(
    src: &S,
    proc: &Procedure,
    master: &Seed,
    shoes: u64,
    threads: usize,
    done: &AtomicU64,
) -> Report {
    assert!(shoes >= 2, "the suite needs at least two shoes");
    assert!(proc.cards() <= u16::MAX as usize + 1);
    let n = proc.cards();
    let cards = Cards::new(n);
    let threads = threads.clamp(1, 256) as u64;
    let tally = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let range = shoes * k / threads..shoes * (k + 1) / threads;
                let cards = &cards;
                s.spawn(move || tally_range(src, proc, cards, master, range, done))
            })
            .collect();
        let mut total = Tally::new(n);
        for h in handles {
            total.merge(&h.join().expect("a tally thread panicked"));
        }
        total
    });
    analyse(&tally, &cards, proc, master)
}
