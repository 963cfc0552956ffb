//! What a side of the run (the load, or the probe) saw: every request's
//! outcome and its latency, counted by outcome and by HTTP status, in
//! fixed-size histograms so memory stays flat however long the run.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::hist::Hist;

/// How a request ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Outcome {
    /// At least one wager accepted.
    Accepted,
    /// Every wager refused because betting was not open.
    BettingClosed,
    /// Refused by a rule, a limit, the wallet or the server (409, 422, …).
    Refused,
    /// 429: over the per-user rate (retried with the same key).
    RateLimited,
    /// 503: the writer's queue was full (retried with the same key).
    Busy,
    /// No answer, a 5xx other than 503, or an answer that was not JSON.
    Error,
}

/// One side's counts and latencies.
#[derive(Default)]
pub(super) struct Stats {
    pub(super) all_latency: Hist,
    pub(super) accepted_latency: Hist,
    /// The requests refused because betting was closed, apart: a table
    /// settling a big coup refuses about one request in ten, and most of
    /// their answers take another way (`http/early.rs`) than the wagers
    /// taken.
    pub(super) closed_latency: Hist,
    pub(super) accepted: u64,
    pub(super) betting_closed: u64,
    pub(super) refused: u64,
    pub(super) rate_limited: u64,
    pub(super) busy: u64,
    pub(super) errors: u64,
    by_status: BTreeMap<String, u64>,
    /// Probe ticks skipped because too many wagers were waiting.
    pub(super) skipped: u64,
}

impl Stats {
    pub(super) fn add(&mut self, outcome: Outcome, status: Option<u16>, us: u64) {
        self.all_latency.record(us);
        match outcome {
            Outcome::Accepted => {
                self.accepted += 1;
                self.accepted_latency.record(us);
            }
            Outcome::BettingClosed => {
                self.betting_closed += 1;
                self.closed_latency.record(us);
            }
            Outcome::Refused => self.refused += 1,
            Outcome::RateLimited => self.rate_limited += 1,
            Outcome::Busy => self.busy += 1,
            Outcome::Error => self.errors += 1,
        }
        let key = status.map_or_else(|| "no_answer".to_string(), |s| s.to_string());
        *self.by_status.entry(key).or_default() += 1;
    }

    pub(super) fn merge(&mut self, o: &Stats) {
        self.all_latency.merge(&o.all_latency);
        self.accepted_latency.merge(&o.accepted_latency);
        self.closed_latency.merge(&o.closed_latency);
        self.accepted += o.accepted;
        self.betting_closed += o.betting_closed;
        self.refused += o.refused;
        self.rate_limited += o.rate_limited;
        self.busy += o.busy;
        self.errors += o.errors;
        self.skipped += o.skipped;
        for (k, v) in &o.by_status {
            *self.by_status.entry(k.clone()).or_default() += v;
        }
    }

    pub(super) fn total(&self) -> u64 {
        self.all_latency.count()
    }

    /// Requests by outcome. `refused_other` counts every refusal but a closed
    /// betting window: rules and limits, 429 and 503 (also listed apart).
    pub(super) fn outcomes(&self) -> Value {
        json!({
            "total": self.total(),
            "accepted": self.accepted,
            "refused_betting_closed": self.betting_closed,
            "refused_other": self.refused + self.rate_limited + self.busy,
            "rate_limited": self.rate_limited,
            "busy": self.busy,
            "errors": self.errors,
            "by_status": self.by_status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_outcome_is_timed_in_every_request_and_in_its_own_histogram() {
        let (mut a, mut b) = (Stats::default(), Stats::default());
        a.add(Outcome::Accepted, Some(200), 1_000);
        a.add(Outcome::BettingClosed, Some(200), 30_000);
        b.add(Outcome::BettingClosed, Some(409), 40_000);
        b.add(Outcome::Refused, Some(422), 2_000);
        a.merge(&b);
        assert_eq!((a.all_latency.count(), a.accepted_latency.count(), a.closed_latency.count()), (4, 1, 2));
        assert_eq!((a.accepted, a.betting_closed, a.refused), (1, 2, 1));
        assert!(a.closed_latency.quantile_ms(0.5) >= 29.0, "the closed ones' own latencies");
        assert!(a.accepted_latency.quantile_ms(0.99) < 2.0);
    }
}
