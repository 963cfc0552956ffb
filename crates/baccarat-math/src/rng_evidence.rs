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

use std::sync::atomic::{AtomicU64, Ordering};

use baccarat_rules::{Card, Rulebook};
use baccarat_table::shoe::{Cut, CutRules};
use baccarat_table::shuffle::{shuffle_with, Seed, Stream};

/// The level each test is judged at (11VAC20-20-510: 99% confidence).
pub const ALPHA: f64 = 0.01;

/// Keystream words per shoe in the runs-up-and-down test.
pub const KEYSTREAM_WORDS: usize = 64;

/// Where the cutting card goes at an RNG table: the server's
/// `cutting_card_from_back`, the profile's minimum but at least 20 (NSW 4.6).
pub const SERVER_MIN_FROM_BACK: usize = 20;

/// How an RNG table makes a shoe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Procedure {
    pub decks: u32,
    pub cut: CutRules,
    /// Cards behind the cutting card: fixed by the table, not drawn.
    pub cutting_card_from_back: usize,
}

impl Procedure {
    /// The procedure of the server's RNG tables for a rulebook.
    pub fn for_rulebook(rb: &Rulebook, decks: u32) -> Procedure {
        let cut = CutRules::from_profile(&rb.config);
        Procedure { decks, cut, cutting_card_from_back: cut.cutting_card_min_from_back.max(SERVER_MIN_FROM_BACK) }
    }

    pub fn cards(&self) -> usize {
        52 * self.decks as usize
    }

    /// The cut's allowed range, both ends included (NSW 4.5; AU 7.6).
    pub fn cut_range(&self) -> (usize, usize) {
        let min = self.cut.min_from_either_end;
        (min, self.cards().saturating_sub(min))
    }
}

/// One shoe as the evidence sees it.
#[derive(Clone, Debug)]
pub struct ShoeDraw {
    /// The physical card (`52 · deck + Card::index`) at each position of the
    /// shuffled stack, before the cut.
    pub stack: Vec<u16>,
    pub cut: Cut,
    /// The first keystream words of the shoe's stream, as 32-bit words.
    pub words: [u32; KEYSTREAM_WORDS],
}

impl ShoeDraw {
    pub fn new(cards: usize) -> ShoeDraw {
        ShoeDraw { stack: vec![0; cards], cut: Cut { at: 0, from_back: 0 }, words: [0; KEYSTREAM_WORDS] }
    }

    /// The physical card dealt at position `p` (after the cut: `Shoe::cut`
    /// moves the `at` cards in front of the cutting card to the back).
    #[inline]
    pub fn dealt(&self, p: usize) -> u16 {
        let n = self.stack.len();
        self.stack[(p + self.cut.at % n) % n]
    }

    /// The dealing order, physical cards.
    pub fn dealing_order(&self) -> Vec<u16> {
        (0..self.stack.len()).map(|p| self.dealt(p)).collect()
    }
}

/// The playing card of a physical card number.
pub fn card_of(physical: u16) -> Card {
    Card::from_index(physical as usize % 52).expect("physical % 52 < 52")
}

/// A maker of shoes: the table's procedure, or in the tests a broken one to
/// show that the suite rejects it.
pub trait ShoeSource: Sync {
    /// Shoe `index` of the run with master seed `master`.
    fn draw(&self, master: &Seed, index: u64, out: &mut ShoeDraw);
}

/// Shoes as an RNG table makes them.
#[derive(Clone, Copy, Debug)]
pub struct TableShoes(pub Procedure);

impl TableShoes {
    /// Shuffle and cut from `seed` exactly as the server does, leaving the
    /// stream after the cut's draw.
    fn shuffle_and_cut(&self, seed: &Seed, stack: &mut [u16]) -> (Cut, Stream) {
        let mut s = Stream::new(seed);
        for (i, x) in stack.iter_mut().enumerate() {
            *x = i as u16;
        }
        shuffle_with(stack, &mut s);
        let cut = self.0.cut.random(&mut s, stack.len(), self.0.cutting_card_from_back);
        (cut, s)
    }

    /// The 16-bit keystream words shoe `index` consumed (shuffle, then cut),
    /// rejected draws included, appended to `out`: what `baccarat rng stream`
    /// writes.
    pub fn consumed_words(&self, master: &Seed, index: u64, stack: &mut [u16], out: &mut Vec<u16>) {
        let seed = Seed::derive(master, index);
        let (_, s) = self.shuffle_and_cut(&seed, stack);
        let mut again = Stream::new(&seed);
        out.extend((0..s.words_read()).map(|_| again.next_u16()));
    }
}

impl ShoeSource for TableShoes {
    fn draw(&self, master: &Seed, index: u64, out: &mut ShoeDraw) {
        let seed = Seed::derive(master, index);
        let (cut, _) = self.shuffle_and_cut(&seed, &mut out.stack);
        out.cut = cut;
        let mut s = Stream::new(&seed);
        for w in out.words.iter_mut() {
            *w = s.next_u32();
        }
    }
}

/// Check that the evidence's shoes are the table's: for the first `count`
/// shoes, the physical cards mapped to playing cards equal the shoe the table
/// code builds from the same seed (`shoe::shuffled`, `CutRules::random`,
/// `Shoe::cut`), card for card, with the same cut.
pub fn matches_table_shoes(proc: &Procedure, master: &Seed, count: u64) -> Result<(), String> {
    use baccarat_table::shoe::{shuffled, Shoe};
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

/// Counts gathered over shoes. Integers only, so the figures are identical
/// whatever the thread count.
#[derive(Clone, Debug)]
struct Tally {
    n: usize,
    shoes: u64,
    /// `[position · n + physical card]`, shuffled stack.
    shuffled: Vec<u32>,
    /// The same in dealing order.
    dealt: Vec<u32>,
    /// Cut positions (`at`, clamped to `n`), in range or not.
    cut: Vec<u64>,
    cut_out_of_bounds: u64,
    /// Cards behind the cutting card (clamped to `n`).
    from_back: Vec<u64>,
    /// Wald–Wolfowitz runs per shoe (0..=n).
    runs: Vec<u64>,
    /// Runs up and down in the keystream words (0..KEYSTREAM_WORDS).
    updown: Vec<u64>,
    /// Per position, Σ over consecutive shoe pairs of the product of centred,
    /// scaled point values.
    serial: Vec<i64>,
}

impl Tally {
    fn new(n: usize) -> Tally {
        Tally {
            n,
            shoes: 0,
            shuffled: vec![0; n * n],
            dealt: vec![0; n * n],
            cut: vec![0; n + 1],
            cut_out_of_bounds: 0,
            from_back: vec![0; n + 1],
            runs: vec![0; n + 1],
            updown: vec![0; KEYSTREAM_WORDS],
            serial: vec![0; n],
        }
    }

    fn merge(&mut self, o: &Tally) {
        fn add<T: Copy + std::ops::AddAssign>(a: &mut [T], b: &[T]) {
            for (x, y) in a.iter_mut().zip(b) {
                *x += *y;
            }
        }
        self.shoes += o.shoes;
        add(&mut self.shuffled, &o.shuffled);
        add(&mut self.dealt, &o.dealt);
        add(&mut self.cut, &o.cut);
        self.cut_out_of_bounds += o.cut_out_of_bounds;
        add(&mut self.from_back, &o.from_back);
        add(&mut self.runs, &o.runs);
        add(&mut self.updown, &o.updown);
        add(&mut self.serial, &o.serial);
    }
}

/// Per physical card: its rank index, whether it is "low" (below the median of
/// the 52 faces by `Card::index`), and its centred point value scaled by n.
struct Cards {
    rank: Vec<u8>,
    low: Vec<bool>,
    /// `n · point − Σ points`: centred exactly, in integers.
    centred: Vec<i64>,
}

impl Cards {
    fn new(n: usize) -> Cards {
        let points: Vec<i64> = (0..n).map(|c| card_of(c as u16).point() as i64).collect();
        let total: i64 = points.iter().sum();
        Cards {
            rank: (0..n).map(|c| card_of(c as u16).rank.index() as u8).collect(),
            low: (0..n).map(|c| c % 52 < 26).collect(),
            centred: points.iter().map(|v| n as i64 * v - total).collect(),
        }
    }
}

/// Runs up and down in `w`: maximal monotone stretches (a tie counts as up).
fn runs_up_down(w: &[u32]) -> usize {
    let mut runs = 0;
    let mut last: Option<bool> = None;
    for pair in w.windows(2) {
        let up = pair[1] >= pair[0];
        if last != Some(up) {
            runs += 1;
            last = Some(up);
        }
    }
    runs
}

fn tally_range<S: ShoeSource + ?Sized>(
    src: &S,
    proc: &Procedure,
    cards: &Cards,
    master: &Seed,
    range: std::ops::Range<u64>,
    done: &AtomicU64,
) -> Tally {
    let n = proc.cards();
    let (lo, hi) = proc.cut_range();
    let mut t = Tally::new(n);
    let mut d = ShoeDraw::new(n);
    let mut prev: Vec<i64> = Vec::new();
    let mut cur = vec![0i64; n];
    if range.start > 0 {
        // The pair that straddles this range's start is counted here.
        src.draw(master, range.start - 1, &mut d);
        prev = (0..n).map(|p| cards.centred[d.dealt(p) as usize]).collect();
    }
    let mut since = 0u64;
    for i in range {
        src.draw(master, i, &mut d);
        t.shoes += 1;
        let at = d.cut.at % n;
        for (p, &c) in d.stack.iter().enumerate() {
            t.shuffled[p * n + c as usize] += 1;
        }
        let mut runs = 0usize;
        let mut last_low = None;
        for p in 0..n {
            let c = d.stack[(p + at) % n] as usize;
            t.dealt[p * n + c] += 1;
            let low = cards.low[c];
            if last_low != Some(low) {
                runs += 1;
                last_low = Some(low);
            }
            cur[p] = cards.centred[c];
        }
        t.runs[runs] += 1;
        t.updown[runs_up_down(&d.words)] += 1;
        if !(lo..=hi).contains(&d.cut.at) {
            t.cut_out_of_bounds += 1;
        }
        t.cut[d.cut.at.min(n)] += 1;
        t.from_back[d.cut.from_back.min(n)] += 1;
        if !prev.is_empty() {
            for p in 0..n {
                t.serial[p] += prev[p] * cur[p];
            }
        } else {
            prev = vec![0; n];
        }
        std::mem::swap(&mut prev, &mut cur);
        since += 1;
        if since == 1024 {
            done.fetch_add(since, Ordering::Relaxed);
            since = 0;
        }
    }
    done.fetch_add(since, Ordering::Relaxed);
    t
}

/// A second-level test over a family of first-level p-values.
#[derive(Clone, Debug, PartialEq)]
pub struct Family {
    /// First-level tests in the family.
    pub tests: usize,
    /// Of those, how many have p < [`ALPHA`].
    pub failures: usize,
    pub expected_failures: f64,
    /// Two-sided exact binomial p-value of `failures` under Binomial(tests, ALPHA).
    pub p_binomial: f64,
    /// Kolmogorov–Smirnov distance of the p-values from uniform, and its p-value.
    pub ks: f64,
    pub p_ks: f64,
    /// The smallest first-level p-value, and the chance of one so small among
    /// `tests` independent ones (Šidák).
    pub min_p: f64,
    pub p_min: f64,
}

impl Family {
    pub fn new(mut p: Vec<f64>) -> Family {
        let m = p.len();
        let failures = p.iter().filter(|&&x| x < ALPHA).count();
        let (ks, p_ks) = ks_uniform(&mut p);
        let min_p = p.first().copied().unwrap_or(1.0);
        Family {
            tests: m,
            failures,
            expected_failures: m as f64 * ALPHA,
            p_binomial: binomial_two_sided(failures, m, ALPHA),
            ks,
            p_ks,
            min_p,
            p_min: -((m as f64) * (-min_p).ln_1p()).exp_m1(),
        }
    }

    /// Bonferroni over the three second-level tests.
    pub fn p_value(&self) -> f64 {
        (3.0 * self.p_binomial.min(self.p_ks).min(self.p_min)).min(1.0)
    }
}

/// One test's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct TestResult {
    pub id: &'static str,
    pub name: &'static str,
    /// Where the test comes from.
    pub rule: &'static str,
    /// What `statistic` is: "chi2", "z" or "failures".
    pub statistic_kind: &'static str,
    pub statistic: f64,
    /// Degrees of freedom of a chi-square (of each first-level test, for a family).
    pub df: Option<f64>,
    pub p_value: f64,
    /// Further figures, in words.
    pub detail: String,
    pub family: Option<Family>,
}

impl TestResult {
    pub fn passed(&self) -> bool {
        self.p_value >= ALPHA
    }
}

/// A check that is true or false, with no distribution (a bound, a fixed
/// setting).
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    pub id: &'static str,
    pub name: &'static str,
    pub rule: &'static str,
    pub passed: bool,
    pub detail: String,
}

/// The suite's figures for one run.
#[derive(Clone, Debug)]
pub struct Report {
    pub master: Seed,
    pub shoes: u64,
    pub procedure: Procedure,
    pub tests: Vec<TestResult>,
    pub checks: Vec<Check>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.tests.iter().all(|t| t.passed()) && self.checks.iter().all(|c| c.passed)
    }

    pub fn test(&self, id: &str) -> Option<&TestResult> {
        self.tests.iter().find(|t| t.id == id)
    }

    pub fn check(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// The ids of failing tests and checks.
    pub fn failures(&self) -> Vec<&'static str> {
        let t = self.tests.iter().filter(|t| !t.passed()).map(|t| t.id);
        t.chain(self.checks.iter().filter(|c| !c.passed).map(|c| c.id)).collect()
    }
}

const POSITIONS_RULE: &str = "11VAC20-20-510 (every card position, chi-square at 99%); GLI-19; 25 CFR 547.14";
const RUNS_RULE: &str = "11VAC20-20-510 (runs test); GLI-19";
const SERIAL_RULE: &str = "11VAC20-20-510 (serial correlation); GLI-19 (no correlation between outcomes)";
const CUT_RULE: &str = "NSW 4.5; AU 7.6 (cut at least one deck from either end); 25 CFR 547.14";

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

fn analyse(t: &Tally, cards: &Cards, proc: &Procedure, master: &Seed) -> Report {
    let n = t.n;
    let shoes = t.shoes;
    let nf = shoes as f64;
    let mut tests = Vec::new();

    // Chi-square of equal expected counts from Σ O² (exact in integers).
    let uniform_chi2 =
        |sum_sq: u128, bins: usize, total: u64| -> f64 { bins as f64 * sum_sq as f64 / total as f64 - total as f64 };
    let row_p = |m: &[u32], p: usize| {
        let sq: u128 = m[p * n..(p + 1) * n].iter().map(|&o| o as u128 * o as u128).sum();
        chi2_sf(uniform_chi2(sq, n, shoes), (n - 1) as f64)
    };
    let col_p = |m: &[u32], c: usize| {
        let sq: u128 = (0..n).map(|p| m[p * n + c] as u128 * m[p * n + c] as u128).sum();
        chi2_sf(uniform_chi2(sq, n, shoes), (n - 1) as f64)
    };
    let family = |id, name, rule, df: f64, p: Vec<f64>, what: &str| {
        let f = Family::new(p);
        TestResult {
            id,
            name,
            rule,
            statistic_kind: "failures",
            statistic: f.failures as f64,
            df: Some(df),
            p_value: f.p_value(),
            detail: format!(
                "{} {what}: {} fail at 1% ({:.2} expected, binomial p {}); KS D {:.4} (p {}); smallest p {} (Šidák p {})",
                f.tests,
                f.failures,
                f.expected_failures,
                fmt_p(f.p_binomial),
                f.ks,
                fmt_p(f.p_ks),
                fmt_p(f.min_p),
                fmt_p(f.p_min)
            ),
            family: Some(f),
        }
    };
    let per_pos = format!("chi-square tests of {n} cards (df {})", n - 1);
    tests.push(family(
        "positions-shuffled",
        "each position's card, shuffled stack (before the cut)",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|p| row_p(&t.shuffled, p)).collect(),
        &per_pos,
    ));
    tests.push(family(
        "positions-dealt",
        "each position's card, dealing order",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|p| row_p(&t.dealt, p)).collect(),
        &per_pos,
    ));
    tests.push(family(
        "cards-dealt",
        "each card's position, dealing order",
        POSITIONS_RULE,
        (n - 1) as f64,
        (0..n).map(|c| col_p(&t.dealt, c)).collect(),
        &format!("chi-square tests of {n} positions (df {})", n - 1),
    ));
    // Ranks: 13 classes with probability (cards of the rank) / n.
    let mut per_rank = [0f64; 13];
    for &r in &cards.rank {
        per_rank[r as usize] += 1.0;
    }
    let rank_p: Vec<f64> = (0..n)
        .map(|p| {
            let mut o = [0u64; 13];
            for c in 0..n {
                o[cards.rank[c] as usize] += t.dealt[p * n + c] as u64;
            }
            let chi2: f64 = (0..13)
                .map(|r| {
                    let e = nf * per_rank[r] / n as f64;
                    (o[r] as f64 - e).powi(2) / e
                })
                .sum();
            chi2_sf(chi2, 12.0)
        })
        .collect();
    tests.push(family(
        "ranks-dealt",
        "each position's rank, dealing order",
        POSITIONS_RULE,
        12.0,
        rank_p,
        "chi-square tests of 13 ranks (df 12)",
    ));

    // Wald–Wolfowitz runs of low and high cards.
    let n1 = cards.low.iter().filter(|&&l| l).count();
    let n2 = n - n1;
    let ww = wald_wolfowitz(n1, n2);
    let (mu, var) = wald_wolfowitz_moments(n1, n2);
    tests.push(histogram_test(
        "runs-median",
        "runs above/below the median (dealing order)",
        RUNS_RULE,
        &t.runs,
        &ww,
        mu,
        var,
        &format!("{n1} low (A♣ to 7♦ by card index) and {n2} high cards per shoe"),
    ));
    let ud = runs_up_down_distribution(KEYSTREAM_WORDS);
    let l = KEYSTREAM_WORDS as f64;
    tests.push(histogram_test(
        "runs-updown",
        "runs up and down (keystream words)",
        RUNS_RULE,
        &t.updown,
        &ud,
        (2.0 * l - 1.0) / 3.0,
        (16.0 * l - 29.0) / 90.0,
        &format!("the first {KEYSTREAM_WORDS} 32-bit words of each shoe's stream"),
    ));

    // Serial correlation between consecutive shoes. For one position, the
    // centred values of two independent shoes multiply to a product of mean 0
    // and variance V² (V the variance of a card's centred value); products of
    // successive pairs are uncorrelated.
    let v: f64 = cards.centred.iter().map(|&a| (a as f64).powi(2)).sum::<f64>() / n as f64;
    let pairs = (shoes - 1) as f64;
    let z: Vec<f64> = t.serial.iter().map(|&s| s as f64 / (pairs.sqrt() * v)).collect();
    let mut fam = family(
        "serial-positions",
        "serial correlation between consecutive shoes, per position",
        SERIAL_RULE,
        0.0,
        z.iter().map(|&z| normal_two_sided(z)).collect(),
        "lag-1 correlations of the point value (z tests)",
    );
    fam.df = None;
    let worst = z.iter().fold(0f64, |a, &b| a.max(b.abs()));
    fam.detail = format!("{}; largest |r| {:.5}", fam.detail, worst / pairs.sqrt());
    tests.push(fam);
    // Pooled: Σ_p a_p b_p for two independent shoes is a permutation statistic
    // of variance (Σ a²)² / (n − 1).
    let total: i128 = t.serial.iter().map(|&s| s as i128).sum();
    let sd = (pairs * (n as f64 * v).powi(2) / (n as f64 - 1.0)).sqrt();
    let zp = total as f64 / sd;
    tests.push(TestResult {
        id: "serial-pooled",
        name: "serial correlation between consecutive shoes, all positions",
        rule: SERIAL_RULE,
        statistic_kind: "z",
        statistic: zp,
        df: None,
        p_value: normal_two_sided(zp),
        detail: format!(
            "{} consecutive pairs; mean correlation {:.6}",
            shoes - 1,
            total as f64 / (pairs * n as f64 * v)
        ),
        family: None,
    });

    // The cut, uniform over its range.
    let (lo, hi) = proc.cut_range();
    let span = hi + 1 - lo;
    let inside: u64 = t.cut[lo..=hi].iter().sum();
    let e = inside as f64 / span as f64;
    let chi2: f64 = t.cut[lo..=hi].iter().map(|&o| (o as f64 - e).powi(2) / e).sum();
    tests.push(TestResult {
        id: "cut",
        name: "cut position, uniform over its range",
        rule: CUT_RULE,
        statistic_kind: "chi2",
        statistic: chi2,
        df: Some((span - 1) as f64),
        p_value: chi2_sf(chi2, (span - 1) as f64),
        detail: format!("{span} positions {lo}..={hi}, {e:.1} expected each"),
        family: None,
    });

    let mut checks = Vec::new();
    checks.push(Check {
        id: "cut-bounds",
        name: "every cut within the profile's bounds",
        rule: CUT_RULE,
        passed: t.cut_out_of_bounds == 0,
        detail: format!("{} of {shoes} cuts outside {lo}..={hi}", t.cut_out_of_bounds),
    });
    let fb = proc.cutting_card_from_back;
    let at_fb = t.from_back.get(fb).copied().unwrap_or(0);
    checks.push(Check {
        id: "cutting-card",
        name: "cutting card at the table's place",
        rule: "NSW 4.6; AU 7.6 (at least the profile's minimum from the back)",
        passed: at_fb == shoes && fb >= proc.cut.cutting_card_min_from_back && fb < n,
        detail: format!(
            "{fb} cards from the back (before position {}) in {at_fb} of {shoes} shoes; the server places it at \
             max(profile minimum {}, {SERVER_MIN_FROM_BACK}): a fixed setting, not drawn, so there is no \
             distribution to test",
            n - fb,
            proc.cut.cutting_card_min_from_back
        ),
    });
    Report { master: *master, shoes, procedure: *proc, tests, checks }
}

/// A histogram against an exact distribution: pooled chi-square and the z of
/// the mean, Bonferroni-combined.
#[allow(clippy::too_many_arguments)]
fn histogram_test(
    id: &'static str,
    name: &'static str,
    rule: &'static str,
    observed: &[u64],
    probs: &[f64],
    mean: f64,
    var: f64,
    what: &str,
) -> TestResult {
    let shoes: u64 = observed.iter().sum();
    let (chi2, df) = chi_square_pooled(observed, probs);
    let p_chi2 = chi2_sf(chi2, df as f64);
    let sum: f64 = observed.iter().enumerate().map(|(r, &o)| r as f64 * o as f64).sum();
    let z = (sum - shoes as f64 * mean) / (shoes as f64 * var).sqrt();
    let p_z = normal_two_sided(z);
    TestResult {
        id,
        name,
        rule,
        statistic_kind: "chi2",
        statistic: chi2,
        df: Some(df as f64),
        p_value: (2.0 * p_chi2.min(p_z)).min(1.0),
        detail: format!(
            "{what}; distribution chi-square p {}; mean runs {:.4} (exact {mean:.4}), z {z:.3} (p {})",
            fmt_p(p_chi2),
            sum / shoes as f64,
            fmt_p(p_z)
        ),
        family: None,
    }
}

/// A p-value for reading: four significant figures, or `<1e-300`.
pub fn fmt_p(p: f64) -> String {
    if p <= 0.0 {
        "<1e-300".into()
    } else if p < 1e-3 {
        format!("{p:.3e}")
    } else {
        format!("{p:.4}")
    }
}

// ---- distributions -------------------------------------------------------

/// ln Γ(x), Lanczos (g = 7, nine terms): about 15 significant digits.
pub fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        let pi = std::f64::consts::PI;
        return pi.ln() - (pi * x).sin().ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let t = x + 7.5;
    let mut a = C[0];
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized upper incomplete gamma function Q(a, x) (series below
/// a + 1, Lentz's continued fraction above, so small tails keep their digits).
pub fn gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 1.0;
    }
    if !x.is_finite() {
        return 0.0;
    }
    let front = (-x + a * x.ln() - ln_gamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del, mut sum) = (a, 1.0 / a, 1.0 / a);
        for _ in 0..100_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        (1.0 - sum * front).max(0.0)
    } else {
        const TINY: f64 = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / TINY;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..100_000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < TINY {
                d = TINY;
            }
            c = b + an / c;
            if c.abs() < TINY {
                c = TINY;
            }
            d = 1.0 / d;
            let del = d * c;
            h *= del;
            if (del - 1.0).abs() < 1e-16 {
                break;
            }
        }
        (front * h).clamp(0.0, 1.0)
    }
}

/// P(χ²(df) ≥ x).
pub fn chi2_sf(x: f64, df: f64) -> f64 {
    gamma_q(df / 2.0, x / 2.0)
}

/// P(|N(0,1)| ≥ |z|) = erfc(|z|/√2) = Q(1/2, z²/2).
pub fn normal_two_sided(z: f64) -> f64 {
    if z.is_nan() {
        return 0.0;
    }
    gamma_q(0.5, z * z / 2.0)
}

fn ln_choose(n: usize, k: usize) -> f64 {
    ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
}

/// Two-sided exact binomial test: the probability under Binomial(m, p) of a
/// count no more likely than `k`.
pub fn binomial_two_sided(k: usize, m: usize, p: f64) -> f64 {
    let pmf = |i: usize| (ln_choose(m, i) + i as f64 * p.ln() + (m - i) as f64 * (-p).ln_1p()).exp();
    let pk = pmf(k) * (1.0 + 1e-7);
    (0..=m).map(pmf).filter(|&q| q <= pk).sum::<f64>().min(1.0)
}

/// Kolmogorov–Smirnov test of `p` against Uniform(0, 1): (D, p-value), with
/// Stephens' small-sample correction. Sorts `p`.
pub fn ks_uniform(p: &mut [f64]) -> (f64, f64) {
    p.sort_by(f64::total_cmp);
    let m = p.len() as f64;
    let d = p.iter().enumerate().map(|(i, &x)| ((i as f64 + 1.0) / m - x).max(x - i as f64 / m)).fold(0.0, f64::max);
    let sm = m.sqrt();
    (d, kolmogorov_q((sm + 0.12 + 0.11 / sm) * d))
}

/// The Kolmogorov distribution's tail: Q(λ) = 2 Σ (−1)^(j−1) e^(−2 j² λ²).
fn kolmogorov_q(l: f64) -> f64 {
    if l < 0.2 {
        return 1.0;
    }
    let mut sum = 0.0;
    for j in 1..=200 {
        let term = (-2.0 * (j * j) as f64 * l * l).exp();
        sum += if j % 2 == 1 { term } else { -term };
        if term < 1e-17 {
            break;
        }
    }
    (2.0 * sum).clamp(0.0, 1.0)
}

/// Chi-square of `observed` against probabilities `probs` (same length),
/// adjacent bins merged until each expects at least 5: (statistic, df).
pub fn chi_square_pooled(observed: &[u64], probs: &[f64]) -> (f64, usize) {
    assert_eq!(observed.len(), probs.len());
    let n: u64 = observed.iter().sum();
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&ob, &p) in observed.iter().zip(probs) {
        o += ob as f64;
        e += p * n as f64;
        if e >= 5.0 {
            bins.push((o, e));
            (o, e) = (0.0, 0.0);
        }
    }
    match bins.last_mut() {
        Some(last) => {
            last.0 += o;
            last.1 += e;
        }
        None => bins.push((o, e)),
    }
    if bins.len() < 2 {
        return (0.0, 0);
    }
    let chi2 = bins.iter().map(|&(o, e)| if e > 0.0 { (o - e).powi(2) / e } else { f64::INFINITY }).sum();
    (chi2, bins.len() - 1)
}

/// The exact distribution of the number of runs R in a random arrangement of
/// `n1` and `n2` items of two kinds (Wald–Wolfowitz): `probs[r]` = P(R = r),
/// r in 0..=n1+n2.
pub fn wald_wolfowitz(n1: usize, n2: usize) -> Vec<f64> {
    let n = n1 + n2;
    let mut p = vec![0.0; n + 1];
    if n1 == 0 || n2 == 0 {
        p[1.min(n)] = 1.0;
        return p;
    }
    let total = ln_choose(n, n1);
    let c = |a: usize, b: isize| if b < 0 || b as usize > a { f64::NEG_INFINITY } else { ln_choose(a, b as usize) };
    for (r, slot) in p.iter_mut().enumerate().skip(2) {
        let k = (r / 2) as isize;
        *slot = if r % 2 == 0 {
            2.0 * (c(n1 - 1, k - 1) + c(n2 - 1, k - 1) - total).exp()
        } else {
            (c(n1 - 1, k) + c(n2 - 1, k - 1) - total).exp() + (c(n1 - 1, k - 1) + c(n2 - 1, k) - total).exp()
        };
    }
    p
}

/// Mean and variance of the Wald–Wolfowitz run count.
pub fn wald_wolfowitz_moments(n1: usize, n2: usize) -> (f64, f64) {
    let (a, b) = (n1 as f64, n2 as f64);
    let n = a + b;
    (1.0 + 2.0 * a * b / n, 2.0 * a * b * (2.0 * a * b - n) / (n * n * (n - 1.0)))
}

/// The exact distribution of the number of runs up and down in `len`
/// distinct values in random order: `probs[k]` = P(k runs), k in 0..len.
/// André's recurrence on permutations of n with k alternating runs,
/// R(n, k) = k R(n−1, k) + 2 R(n−1, k−1) + (n − k) R(n−1, k−2), divided by n!
/// as it goes.
pub fn runs_up_down_distribution(len: usize) -> Vec<f64> {
    assert!(len >= 2);
    let mut p = vec![0.0; len];
    p[1] = 1.0; // two values: one run
    for n in 3..=len {
        let mut next = vec![0.0; len];
        for k in 1..n {
            let mut v = k as f64 * p[k] + 2.0 * p[k - 1];
            if k >= 2 {
                v += (n - k) as f64 * p[k - 2];
            }
            next[k] = v / n as f64;
        }
        p = next;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Published quantiles (χ²(1) 5% at 3.8415, χ²(12) 1% at 26.217, the
    /// normal's 1% and 5% two-sided points), and for an even df near the
    /// suite's, the closed form P(χ²(2k) ≥ x) = e^(−x/2) Σ_{j<k} (x/2)^j / j!.
    #[test]
    fn chi_square_tails_match_published_quantiles() {
        assert!((chi2_sf(3.841_458_820_694_124, 1.0) - 0.05).abs() < 1e-9);
        assert!((chi2_sf(26.216_967_305_535_85, 12.0) - 0.01).abs() < 1e-9);
        assert!((normal_two_sided(2.575_829_303_548_9) - 0.01).abs() < 1e-9);
        assert!((normal_two_sided(-1.959_963_984_540_054) - 0.05).abs() < 1e-9);
        for x in [300.0, 416.0, 470.0, 520.0, 700.0] {
            let h: f64 = x / 2.0;
            let exact: f64 = (0..208).map(|j| (-h + j as f64 * h.ln() - ln_gamma(j as f64 + 1.0)).exp()).sum();
            let got = chi2_sf(x, 416.0);
            assert!((got - exact).abs() <= 1e-10 * exact.max(1e-300) + 1e-14, "x {x}: {got} vs {exact}");
        }
        assert!(chi2_sf(5000.0, 415.0) < 1e-200);
        assert_eq!(chi2_sf(0.0, 3.0), 1.0);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    /// Runs distributions against brute force over every arrangement.
    #[test]
    fn exact_run_distributions_match_enumeration() {
        // Wald–Wolfowitz with 4 and 3: all C(7, 3) arrangements.
        let (n1, n2) = (4usize, 3usize);
        let mut count = vec![0u32; n1 + n2 + 1];
        for mask in 0u32..1 << (n1 + n2) {
            if mask.count_ones() as usize != n2 {
                continue;
            }
            let bits: Vec<bool> = (0..n1 + n2).map(|i| mask >> i & 1 == 1).collect();
            let runs = 1 + bits.windows(2).filter(|w| w[0] != w[1]).count();
            count[runs] += 1;
        }
        let ww = wald_wolfowitz(n1, n2);
        for (r, &c) in count.iter().enumerate() {
            assert!((ww[r] - c as f64 / 35.0).abs() < 1e-12, "R = {r}");
        }
        let big = wald_wolfowitz(208, 208);
        let (mu, var) = wald_wolfowitz_moments(208, 208);
        let m: f64 = big.iter().enumerate().map(|(r, p)| r as f64 * p).sum();
        let v: f64 = big.iter().enumerate().map(|(r, p)| (r as f64 - mu).powi(2) * p).sum();
        assert!((big.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((m - mu).abs() < 1e-9 && (v - var).abs() < 1e-9, "{m} {mu} {v} {var}");

        // Runs up and down: every permutation of 7.
        fn perms(v: &mut Vec<u32>, k: usize, out: &mut Vec<usize>) {
            if k == v.len() {
                out[runs_up_down(v)] += 1;
                return;
            }
            for i in k..v.len() {
                v.swap(k, i);
                perms(v, k + 1, out);
                v.swap(k, i);
            }
        }
        let mut out = vec![0usize; 7];
        perms(&mut (0..7).collect(), 0, &mut out);
        let ud = runs_up_down_distribution(7);
        for k in 0..7 {
            assert!((ud[k] - out[k] as f64 / 5040.0).abs() < 1e-12, "k = {k}");
        }
        let ud = runs_up_down_distribution(KEYSTREAM_WORDS);
        let l = KEYSTREAM_WORDS as f64;
        let m: f64 = ud.iter().enumerate().map(|(k, p)| k as f64 * p).sum();
        let v: f64 = ud.iter().enumerate().map(|(k, p)| (k as f64 - m).powi(2) * p).sum();
        assert!((m - (2.0 * l - 1.0) / 3.0).abs() < 1e-9);
        assert!((v - (16.0 * l - 29.0) / 90.0).abs() < 1e-9);
    }

    /// The second level: uniform p-values pass, four failures of 416 are
    /// expected, none or twenty are not, and one p of 1e-9 is caught.
    #[test]
    fn second_level_tests_judge_the_family() {
        let uniform: Vec<f64> = (0..416).map(|i| (i as f64 + 0.5) / 416.0).collect();
        let f = Family::new(uniform.clone());
        assert_eq!(f.failures, 4);
        assert!(f.p_value() > 0.5, "{f:?}");
        assert!(binomial_two_sided(20, 416, ALPHA) < 1e-5);
        assert!(binomial_two_sided(4, 416, ALPHA) > 0.9);
        let mut one_bad = uniform.clone();
        one_bad[200] = 1e-9;
        assert!(Family::new(one_bad).p_value() < ALPHA);
        let skewed: Vec<f64> = uniform.iter().map(|p| p * p).collect();
        let f = Family::new(skewed);
        assert!(f.p_ks < 1e-6, "{f:?}");
        assert!((kolmogorov_q(1.358) - 0.05).abs() < 1e-3);
    }

    #[test]
    fn pooling_merges_thin_tails() {
        let probs = [0.001, 0.001, 0.498, 0.498, 0.001, 0.001];
        let (chi2, df) = chi_square_pooled(&[0, 1, 499, 497, 2, 1], &probs);
        assert_eq!(df, 1);
        assert!(chi2 < 1.0);
    }

    /// The words the stream command writes are the words the shoe used: the
    /// next word after them is the stream's next word after the cut.
    #[test]
    fn consumed_words_are_the_shoes_prefix_of_the_keystream() {
        let rb = baccarat_rules::profiles::builtin("nsw-2021").unwrap();
        let src = TableShoes(Procedure::for_rulebook(&rb, 8));
        let master = Seed::from_u64(9);
        let mut stack = vec![0u16; 416];
        let mut words = Vec::new();
        src.consumed_words(&master, 3, &mut stack, &mut words);
        // 415 draws for the shuffle, one for the cut, a few rejections.
        assert!((416..440).contains(&words.len()), "{}", words.len());
        let seed = Seed::derive(&master, 3);
        let (_, mut after) = src.shuffle_and_cut(&seed, &mut stack);
        let mut s = Stream::new(&seed);
        for &w in &words {
            assert_eq!(s.next_u16(), w);
        }
        assert_eq!(s.next_u16(), after.next_u16());
    }
}
