//! The latency histogram: log buckets of microseconds, so that a percentile
//! is close (never below the truth, at most ~3% above) and memory is fixed
//! however many requests a run times.

use serde_json::{json, Value};

/// A log-bucket histogram of microseconds: exact below 64 µs, then 32 buckets
/// per power of two. A quantile is reported as its bucket's upper bound (at
/// most ~3% above the true value, never below), and never above the exact
/// maximum. Fixed memory: 2,048 counters.
#[derive(Clone)]
pub(super) struct Hist {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
    max: u64,
}

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const BUCKETS: usize = 2048;

impl Default for Hist {
    fn default() -> Hist {
        Hist { counts: vec![0; BUCKETS], n: 0, sum: 0, max: 0 }
    }
}

impl Hist {
    fn bucket(v: u64) -> usize {
        if v < 2 * SUB {
            return v as usize;
        }
        let e = 63 - v.leading_zeros();
        let shift = e - SUB_BITS;
        ((shift as u64 + 1) * SUB + ((v >> shift) - SUB)) as usize
    }

    /// The largest value bucket `i` holds.
    fn upper(i: usize) -> u64 {
        let i = i as u64;
        if i < 2 * SUB {
            return i;
        }
        let shift = i / SUB - 1;
        let m = i % SUB + SUB;
        (((m + 1) as u128) << shift).saturating_sub(1).min(u64::MAX as u128) as u64
    }

    pub(super) fn record(&mut self, us: u64) {
        self.counts[Self::bucket(us)] += 1;
        self.n += 1;
        self.sum += us as u128;
        self.max = self.max.max(us);
    }

    pub(super) fn merge(&mut self, o: &Hist) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.sum += o.sum;
        self.max = self.max.max(o.max);
    }

    pub(super) fn count(&self) -> u64 {
        self.n
    }

    /// The `q` quantile in ms (0 when empty).
    pub(super) fn quantile_ms(&self, q: f64) -> f64 {
        if self.n == 0 {
            return 0.0;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::upper(i).min(self.max) as f64 / 1000.0;
            }
        }
        self.max_ms()
    }

    pub(super) fn max_ms(&self) -> f64 {
        self.max as f64 / 1000.0
    }

    pub(super) fn summary(&self) -> Value {
        json!({
            "count": self.n,
            "mean": if self.n == 0 { 0.0 } else { self.sum as f64 / self.n as f64 / 1000.0 },
            "p50": self.quantile_ms(0.50),
            "p99": self.quantile_ms(0.99),
            "p999": self.quantile_ms(0.999),
            "p9999": self.quantile_ms(0.9999),
            "max": self.max_ms(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_contiguous_and_bound_their_values() {
        let mut last = 0;
        for v in 0..1_000_000u64 {
            let b = Hist::bucket(v);
            assert!(b == last || b == last + 1, "{v}");
            assert!(Hist::upper(b) >= v, "{v}");
            assert!(Hist::upper(b) as f64 <= v as f64 * (1.0 + 1.0 / SUB as f64) + 1.0, "{v}");
            last = b;
        }
        assert!(Hist::bucket(u64::MAX) < BUCKETS);
        assert_eq!(Hist::upper(Hist::bucket(u64::MAX)), u64::MAX);
    }

    #[test]
    fn quantiles() {
        let mut h = Hist::default();
        for v in 1..=10_000u64 {
            h.record(v);
        }
        assert!((h.quantile_ms(0.5) - 5.0).abs() < 0.2);
        assert!((h.quantile_ms(0.99) - 9.9).abs() < 0.4);
        assert_eq!(h.max_ms(), 10.0);
        assert_eq!(h.quantile_ms(1.0), 10.0);
        assert_eq!(Hist::default().quantile_ms(0.5), 0.0);
    }
}
