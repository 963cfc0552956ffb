//! What the writer counts for `GET /metrics` (issue 48): wagers accepted and
//! refused by reason, the size of each batch and the time each commit (its
//! fsync) takes.
//!
//! Recorded through the `metrics` facade only: the process's one recorder
//! (the server's Prometheus exporter) is installed before the writer starts,
//! and without one every handle here is a no-op. The hot path stays cheap:
//! the handles are made once (a refusal's reason is a fixed label, one per
//! [`Code`], never a message), a wager only adds to a [`Tally`] on the
//! writer's stack, and the counters and histograms are touched once per
//! batch.

use metrics::{Counter, Histogram};

use crate::casino::{Code, Reply, Request};

/// Wagers the casino took (one per wager, a slip's each).
pub const WAGERS_ACCEPTED: &str = "baccarat_wagers_accepted_total";
/// Wagers refused, labelled `reason` by the refusal's kind ([`Code::name`]).
pub const WAGERS_REFUSED: &str = "baccarat_wagers_refused_total";
/// Requests per batch the writer applied (one transaction each).
pub const BATCH_SIZE: &str = "baccarat_writer_batch_size";
/// Seconds each batch's commit took (its one fsync included).
pub const COMMIT_SECONDS: &str = "baccarat_writer_commit_seconds";
/// Seconds the publisher spends on a durable batch (`writer/publishing.rs`),
/// from taking it to its last answer: publishing it (its anchor line, the
/// views, the pricing, the sockets' wake-up) and answering its requests (a
/// clean stop's, which wait for its checkpoint, aside).
pub const PUBLISH_SECONDS: &str = "baccarat_writer_publish_seconds";

/// The wager counters' handles, made once.
pub struct Wagers {
    accepted: Counter,
    /// One per [`Code::ALL`], in its order.
    refused: Vec<Counter>,
}

impl Default for Wagers {
    fn default() -> Wagers {
        Wagers::new()
    }
}

impl Wagers {
    /// The handles, from the recorder installed now (a no-op without one).
    pub fn new() -> Wagers {
        let refused = Code::ALL.iter().map(|c| metrics::counter!(WAGERS_REFUSED, "reason" => c.name())).collect();
        Wagers { accepted: metrics::counter!(WAGERS_ACCEPTED), refused }
    }

    /// Add what a batch tallied.
    pub fn add(&self, t: &Tally) {
        if t.accepted > 0 {
            self.accepted.increment(t.accepted);
        }
        for (c, n) in self.refused.iter().zip(t.refused.iter()) {
            if *n > 0 {
                c.increment(*n);
            }
        }
    }

    /// `n` wagers refused as `code` (a refusal made without the writer).
    pub fn refused(&self, code: Code, n: u64) {
        if let Some(c) = Code::ALL.iter().position(|k| *k == code).and_then(|i| self.refused.get(i)) {
            c.increment(n);
        }
    }
}

/// One batch's wagers, accepted and refused by kind.
#[derive(Default)]
pub struct Tally {
    accepted: u64,
    refused: [u64; Code::ALL.len()],
}

impl Tally {
    /// How many wagers `r` asks for: one, a slip's lines, or none (not a
    /// wager).
    pub fn lines(r: &Request) -> u64 {
        match r {
            Request::Wager { .. } | Request::TokenWager { .. } => 1,
            Request::Wagers { slip, .. } => slip.len() as u64,
            _ => 0,
        }
    }

    /// Count `reply` to a request of `lines` wagers.
    pub fn add(&mut self, lines: u64, reply: &Reply) {
        match reply {
            _ if lines == 0 => {}
            Reply::Wager { .. } => self.accepted += 1,
            Reply::Wagers { results, .. } => {
                for r in results {
                    self.add(1, r);
                }
            }
            Reply::Refused { code, .. } => self.refuse(*code, lines),
            _ => {}
        }
    }

    fn refuse(&mut self, code: Code, n: u64) {
        if let Some(i) = Code::ALL.iter().position(|k| *k == code) {
            self.refused[i] += n;
        }
    }
}

/// The batch and commit histograms' handles, made once per writer.
pub struct Batches {
    pub size: Histogram,
    pub commit_seconds: Histogram,
}

impl Default for Batches {
    fn default() -> Batches {
        Batches { size: metrics::histogram!(BATCH_SIZE), commit_seconds: metrics::histogram!(COMMIT_SECONDS) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_rules::Money;
    use baccarat_table::WagerId;

    #[test]
    fn a_slip_counts_each_line_and_a_refused_request_each_wager_it_asked_for() {
        let mut t = Tally::default();
        let ok = Reply::Wager { wager: WagerId(1), balance: Money(0) };
        t.add(1, &ok);
        let slip = Reply::Wagers { results: vec![ok.clone(), Reply::refused(Code::Wallet, "no")], balance: Money(0) };
        t.add(2, &slip);
        t.add(3, &Reply::refused(Code::Halted, "stopped"));
        // Not a wager: not counted, whatever it answered.
        t.add(0, &Reply::refused(Code::Role, "no"));
        assert_eq!(t.accepted, 2);
        let at = |c: Code| t.refused[Code::ALL.iter().position(|k| *k == c).unwrap()];
        assert_eq!((at(Code::Wallet), at(Code::Halted), at(Code::Role)), (1, 3, 0));
    }
}
