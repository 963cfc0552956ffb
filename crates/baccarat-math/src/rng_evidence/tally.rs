//! The counts gathered over shoes, a range of shoes per thread.

use std::sync::atomic::{AtomicU64, Ordering};

use baccarat_table::Seed;

use super::runs::runs_up_down;
use super::{card_of, Procedure, ShoeDraw, ShoeSource, KEYSTREAM_WORDS};

/// Counts gathered over shoes. Integers only, so the figures are identical
/// whatever the thread count.
#[derive(Clone, Debug)]
pub(super) struct Tally {
    pub(super) n: usize,
    pub(super) shoes: u64,
    /// `[position · n + physical card]`, shuffled stack.
    pub(super) shuffled: Vec<u32>,
    /// The same in dealing order.
    pub(super) dealt: Vec<u32>,
    /// Cut positions (`at`, clamped to `n`), in range or not.
    pub(super) cut: Vec<u64>,
    pub(super) cut_out_of_bounds: u64,
    /// Cards behind the cutting card (clamped to `n`).
    pub(super) from_back: Vec<u64>,
    /// Wald–Wolfowitz runs per shoe (0..=n).
    pub(super) runs: Vec<u64>,
    /// Runs up and down in the keystream words (0..KEYSTREAM_WORDS).
    pub(super) updown: Vec<u64>,
    /// Per position, Σ over consecutive shoe pairs of the product of centred,
    /// scaled point values.
    pub(super) serial: Vec<i64>,
}

impl Tally {
    pub(super) fn new(n: usize) -> Tally {
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

    pub(super) fn merge(&mut self, o: &Tally) {
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
pub(super) struct Cards {
    pub(super) rank: Vec<u8>,
    pub(super) low: Vec<bool>,
    /// `n · point − Σ points`: centred exactly, in integers.
    pub(super) centred: Vec<i64>,
}

impl Cards {
    pub(super) fn new(n: usize) -> Cards {
        let points: Vec<i64> = (0..n).map(|c| card_of(c as u16).point() as i64).collect();
        let total: i64 = points.iter().sum();
        Cards {
            rank: (0..n).map(|c| card_of(c as u16).rank.index() as u8).collect(),
            low: (0..n).map(|c| c % 52 < 26).collect(),
            centred: points.iter().map(|v| n as i64 * v - total).collect(),
        }
    }
}

pub(super) fn tally_range<S: ShoeSource + ?Sized>(
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
