//! Refusing a wager without the writer while its table takes no wagers.
//!
//! # Why
//!
//! Between coups (dealing, the result, the settlement, a new shoe) a table
//! takes no wagers, and about half of a busy floor's wager requests arrive
//! then. Each used to pass the single writer, wait for the next batch's fsync
//! and be refused there, taking writer time from every other table (issue 12).
//! A table settling a big coup in chunks (`casino/settle.rs`) was left to the
//! writer at first; its refusals then waited behind the batches that carry
//! the settlement, and were the slowest answers `loadgen` timed.
//!
//! # When it is safe
//!
//! A refusal here must be the answer the writer would have given at some
//! moment between the request's arrival and its answer. The writer answers a
//! wager in this order (`Casino::wager`, `Casino::slip`): a *retry* of a key
//! it has answered gets its first answer, whatever the table does now; then a
//! halted table, a settling one, and one closed to wagers are refused. So the
//! HTTP thread refuses only when all of these hold:
//!
//! 1. **The table is closed, as committed.** The read model (`Views`) carries,
//!    for each table that is not halted, the refusal a new wager gets there
//!    ([`TableView::wagers_closed`](baccarat_casino::table_view::TableView)) and
//!    whether it is settling, computed on the writer and made visible only
//!    once its batch is durable (a settling table records events in every
//!    batch until its coup closes, so its view follows each one). At a
//!    settling table a single wager gets `settling` and a slip the table's
//!    refusal line by line, as the writer answers them (`Casino::wager`,
//!    `Casino::slip`). The refusal is the writer's at that batch: nothing a
//!    player has been shown is newer than the read model.
//! 2. **No request under the same key is on its way.** Every wager request
//!    enters its keys in [`InFlight`] before it is queued, and leaves when the
//!    committer answers it, which is after its batch is durable.
//! 3. **The store has no answer under the key** within the retention window
//!    (with a minute's margin: finding too much only sends the request to the
//!    writer). Checked *after* 2: a request that left [`InFlight`] before that
//!    check is already durable, so the read sees it.
//!
//! If any of these fails, or the store cannot be read, the request goes to the
//! writer as before. A refusal here writes nothing, as the writer's does not.
//!
//! On PostgreSQL, 3 is first asked of memory: a filter of every key answered
//! within the window (`ledger/answered.rs`), complete once the start has read
//! the store's into it (every answer made since goes in as it is made). A key
//! it proves never answered needs no read; one it may hold (about 1% of new
//! keys), or any before it is complete, is read as below. Under `loadgen` the
//! reads were the slowest answers and held a third of the requests in flight.
//!
//! The store is read on the HTTP thread for SQLite (one indexed read, a few
//! microseconds) and on the blocking pool for PostgreSQL, whose blocking client
//! must not run on the runtime's threads; there the lookups made at once share
//! one query (`baccarat_cluster::key_reader::Grouped`: one query each queued
//! behind the reader's connection while a floor settled its coups).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::casino::{Clock, Reply, Request};
use crate::ledger::answered::Answered;
use crate::ledger::keys::{key_id, ColdKeys, KeyId};
use baccarat_casino::Views;

/// Searching the store a minute further back than the writer's window.
pub const MARGIN_MS: u64 = 60_000;
const SHARDS: usize = 16;

/// The keys of wager requests queued for the writer and not yet answered.
#[derive(Debug, Default)]
pub struct InFlight {
    shards: [Mutex<HashMap<KeyId, u32>>; SHARDS],
}

impl InFlight {
    fn shard(&self, id: KeyId) -> std::sync::MutexGuard<'_, HashMap<KeyId, u32>> {
        self.shards[(id.0 as usize) % SHARDS].lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn enter(&self, ids: &[KeyId]) {
        for &id in ids {
            *self.shard(id).entry(id).or_insert(0) += 1;
        }
    }

    pub fn leave(&self, ids: &[KeyId]) {
        for &id in ids {
            let mut s = self.shard(id);
            if let Some(n) = s.get_mut(&id) {
                *n -= 1;
                if *n == 0 {
                    s.remove(&id);
                }
            }
        }
    }

    pub fn any(&self, ids: &[KeyId]) -> bool {
        ids.iter().any(|&id| self.shard(id).contains_key(&id))
    }
}

/// A request's keys on their way to the writer; they leave when it drops.
pub struct OnWay {
    early: Arc<Early>,
    ids: Vec<KeyId>,
}

impl Drop for OnWay {
    fn drop(&mut self) {
        self.early.in_flight.leave(&self.ids);
    }
}

/// The early refusal's state, shared by the HTTP handlers.
pub struct Early {
    cold: Arc<dyn ColdKeys>,
    /// Read the store on the blocking pool (PostgreSQL's client blocks on a
    /// runtime of its own).
    blocking: bool,
    pub in_flight: InFlight,
    retention_ms: u64,
    clock: Clock,
    refused: AtomicU64,
    /// Every key answered within the window, once complete: a key it proves
    /// new needs no lookup (`ledger/answered.rs`; PostgreSQL only), while
    /// `certain` says no other server can hold the lease.
    answered: Option<(Arc<Answered>, Certain)>,
    /// Refusals the filter proved new without the store
    /// ([`crate::metrics::KEY_FILTER_PROVED`]; registered with the filter,
    /// so absent on SQLite as the key lookups' metrics are).
    proved: Option<metrics::Counter>,
}

/// Whether no other server can hold this one's lease now
/// (`baccarat_cluster::lease::Held::certain`).
pub type Certain = Arc<dyn Fn() -> bool + Send + Sync>;

impl std::fmt::Debug for Early {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Early").field("refused", &self.refused()).finish_non_exhaustive()
    }
}

/// The keys a wager request binds, as the key memory and the store name them.
pub fn key_ids(req: &Request) -> Vec<KeyId> {
    req.ledger_keys().iter().map(|k| key_id(k)).collect()
}

impl Early {
    pub fn new(cold: Arc<dyn ColdKeys>, blocking: bool, retention_ms: u64, clock: Clock) -> Early {
        Early {
            cold,
            blocking,
            in_flight: InFlight::default(),
            retention_ms,
            clock,
            refused: AtomicU64::new(0),
            answered: None,
            proved: None,
        }
    }

    /// Prove keys new by `answered` where it can, before asking the store,
    /// while `certain` holds. The filter holds this server's answers and
    /// what the store had at its start; a server paused past its lease may
    /// run again after another took over and answered keys it never saw, so
    /// then the store is asked, as before (and finds them).
    pub fn with_answered(mut self, answered: Arc<Answered>, certain: Certain) -> Early {
        self.answered = Some((answered, certain));
        self.proved = Some(metrics::counter!(crate::metrics::KEY_FILTER_PROVED));
        self
    }

    /// Enter `ids` in [`InFlight`] until the guard is dropped: with the
    /// writer's answer, or with a request the writer never took.
    pub fn on_way(self: &Arc<Self>, ids: Vec<KeyId>) -> OnWay {
        self.in_flight.enter(&ids);
        OnWay { early: self.clone(), ids }
    }

    /// The filter's buckets, and whether it is in use now (complete, and
    /// the lease certain); `None` without one (SQLite, or no lease).
    pub fn filter_state(&self) -> Option<(usize, bool)> {
        let (a, certain) = self.answered.as_ref()?;
        Some((a.buckets(), a.is_complete() && certain()))
    }

    /// Requests refused here since the start.
    pub fn refused(&self) -> u64 {
        self.refused.load(Ordering::Relaxed)
    }

    /// The refusal `req` gets without the writer, if it is safe to give one
    /// (see the module's notes); `None` sends it to the writer.
    pub async fn refuse(
        self: &Arc<Self>,
        views: &std::sync::RwLock<Views>,
        req: &Request,
        ids: &[KeyId],
    ) -> Option<Reply> {
        let reply = closed_reply(&views.read().unwrap_or_else(|p| p.into_inner()), req)?;
        if ids.is_empty() || self.in_flight.any(ids) {
            return None;
        }
        let since = (self.clock)().saturating_sub(self.retention_ms.saturating_add(MARGIN_MS));
        // Never answered within the window, as the filter proves: the
        // store's read would find nothing (condition 3).
        if self.answered.as_ref().is_some_and(|(a, certain)| certain() && a.none_answered(ids, since)) {
            self.refused.fetch_add(1, Ordering::Relaxed);
            if let Some(p) = &self.proved {
                p.increment(1);
            }
            return Some(reply);
        }
        let known = if self.blocking {
            let (me, ids) = (self.clone(), ids.to_vec());
            tokio::task::spawn_blocking(move || me.cold.find(&ids, since)).await.ok()?
        } else {
            self.cold.find(ids, since)
        };
        match known {
            Ok(found) if found.is_empty() => {
                self.refused.fetch_add(1, Ordering::Relaxed);
                Some(reply)
            }
            // Answered before (a retry), or the store could not say: the writer
            // decides.
            _ => None,
        }
    }
}

/// What the writer answered at the read model's batch to a wager request at a
/// table closed to wagers, its key unseen: the table's refusal, for each line
/// of a slip with the player's available balance.
pub fn closed_reply(v: &Views, req: &Request) -> Option<Reply> {
    let (table, player) = match req {
        Request::Wager { table, player, .. }
        | Request::TokenWager { table, player, .. }
        | Request::Wagers { table, player, .. } => (*table, *player),
        _ => return None,
    };
    let view = v.tables.iter().find(|t| t.id == table)?;
    Some(match req {
        Request::Wagers { slip, .. } => {
            let refusal = view.wagers_closed.clone()?;
            Reply::Wagers {
                results: slip.iter().map(|_| refusal.clone()).collect(),
                balance: v.balances.get(&player).map_or(baccarat_rules::Money::ZERO, |b| b.1),
            }
        }
        _ if view.settling => crate::casino::settling(table),
        _ => view.wagers_closed.clone()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ledger::keys::AnswerRow;
    use baccarat_casino::TableView;
    use baccarat_core::TableId;
    use baccarat_rules::{Bet, Money};
    use baccarat_table::{PlayerId, Spot};
    use std::sync::RwLock;

    /// A store that holds the answers under `known`, or cannot be read.
    #[derive(Debug)]
    struct Store {
        known: Vec<KeyId>,
        broken: bool,
        since: Mutex<Vec<u64>>,
    }

    impl ColdKeys for Store {
        fn find(&self, ids: &[KeyId], since_ms: u64) -> Result<Vec<AnswerRow>, crate::store::StoreError> {
            self.since.lock().unwrap().push(since_ms);
            if self.broken {
                return Err(crate::store::StoreError::Unreachable("disk on fire".into()));
            }
            Ok(ids
                .iter()
                .filter(|id| self.known.contains(id))
                .map(|&key_id| AnswerRow {
                    seq: 1,
                    key: String::new(),
                    key_id,
                    request: [0; 32],
                    answer: String::new(),
                    cause: crate::ledger::Cause::None,
                    at_ms: since_ms,
                })
                .collect())
        }
    }

    const NOW: u64 = 10_000_000_000;
    const RETENTION: u64 = 72 * 3600 * 1000;

    fn early(known: &[&Request], broken: bool) -> (Arc<Early>, Arc<Store>) {
        let known = known.iter().flat_map(|r| key_ids(r)).collect();
        let store = Arc::new(Store { known, broken, since: Mutex::new(Vec::new()) });
        (Arc::new(Early::new(store.clone(), false, RETENTION, Arc::new(|| NOW))), store)
    }

    fn views(closed: bool) -> RwLock<Views> {
        let refusal = Reply::by_rule("NSW 6.3".to_string(), "betting is not open".to_string());
        let t = TableView { id: TableId(1), wagers_closed: closed.then_some(refusal), ..TableView::default() };
        let mut v = Views { tables: vec![t], ..Views::default() };
        v.balances.insert(PlayerId(7), (Money(5000), Money(4000)));
        RwLock::new(v)
    }

    fn wager(key: &str) -> Request {
        Request::Wager {
            table: TableId(1),
            player: PlayerId(7),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(1000),
            ante: Money::ZERO,
            key: key.parse().unwrap(),
        }
    }

    async fn refuse(e: &Arc<Early>, v: &RwLock<Views>, r: &Request) -> Option<Reply> {
        e.refuse(v, r, &key_ids(r)).await
    }

    #[tokio::test]
    async fn a_key_the_complete_filter_proves_new_is_refused_without_the_store() {
        let answered_before = wager("k-answered");
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
        let shown = recorder.handle();
        let (e, store) = early(&[&answered_before], false);
        let filter = Arc::new(Answered::new(RETENTION + MARGIN_MS));
        filter.insert(key_ids(&answered_before)[0], NOW - 1_000, NOW);
        let certain = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let c = certain.clone();
        let e = Arc::try_unwrap(e).ok().unwrap();
        let e = metrics::with_local_recorder(&recorder, || {
            Arc::new(e.with_answered(filter.clone(), Arc::new(move || c.load(Ordering::Relaxed))))
        });
        let v = views(true);
        // Incomplete: the store is asked, as without a filter.
        assert_eq!(e.filter_state(), Some((1, false)));
        assert!(refuse(&e, &v, &wager("k-new")).await.is_some());
        assert_eq!(store.since.lock().unwrap().len(), 1);
        filter.completed(0);
        assert_eq!(e.filter_state(), Some((1, true)));
        // Complete: a new key is refused without asking the store.
        assert!(refuse(&e, &v, &wager("k-new-2")).await.is_some());
        assert_eq!(store.since.lock().unwrap().len(), 1, "the store was asked for a key the filter proves new");
        // A key answered before is never refused here: the filter may hold
        // it, so the store is asked, and finds it; the writer answers.
        assert!(refuse(&e, &v, &answered_before).await.is_none());
        assert_eq!(store.since.lock().unwrap().len(), 2);
        // The lease not certain (paused past it: another server may have
        // answered keys this one never saw): the store is asked again.
        certain.store(false, Ordering::Relaxed);
        assert!(refuse(&e, &v, &wager("k-new-3")).await.is_some());
        assert_eq!(store.since.lock().unwrap().len(), 3, "the filter was trusted without the lease");
        assert_eq!(e.filter_state(), Some((1, false)), "not in use while the lease is not certain");
        // One refusal of the four was proved by the filter alone.
        let text = shown.render();
        assert!(text.lines().any(|l| l == "baccarat_key_filter_proved_total 1"), "{text}");
    }

    #[tokio::test]
    async fn only_a_new_key_at_a_closed_table_is_refused_here() {
        let (old, new) = (wager("answered"), wager("new"));
        let (e, store) = early(&[&old], false);
        // Open, or another table: the writer decides.
        assert_eq!(refuse(&e, &views(false), &new).await, None);
        let mut other = wager("new");
        if let Request::Wager { table, .. } = &mut other {
            *table = TableId(2);
        }
        assert_eq!(refuse(&e, &views(true), &other).await, None);
        // A retry of an answered key gets its first answer from the writer.
        assert_eq!(refuse(&e, &views(true), &old).await, None);
        // A new key is refused with the table's refusal, and counted.
        let r = refuse(&e, &views(true), &new).await.expect("refused here");
        assert!(matches!(&r, Reply::Refused { rule: Some(rule), .. } if rule == "NSW 6.3"), "{r:?}");
        assert_eq!(e.refused(), 1);
        // The store is searched a minute beyond the writer's window.
        assert!(store.since.lock().unwrap().iter().all(|&s| s == NOW - RETENTION - MARGIN_MS));
    }

    #[tokio::test]
    async fn a_key_on_its_way_to_the_writer_is_left_to_it_until_answered() {
        let (e, _) = early(&[], false);
        let (v, r) = (views(true), wager("k"));
        let first = e.on_way(key_ids(&r));
        let second = e.on_way(key_ids(&r));
        assert_eq!(refuse(&e, &v, &r).await, None);
        drop(first);
        assert_eq!(refuse(&e, &v, &r).await, None, "one request under the key is still on its way");
        drop(second);
        assert!(refuse(&e, &v, &r).await.is_some());
        assert!(e.in_flight.shards.iter().all(|s| s.lock().unwrap().is_empty()), "nothing left behind");
    }

    #[tokio::test]
    async fn a_store_that_cannot_be_read_leaves_every_request_to_the_writer() {
        let (e, _) = early(&[], true);
        assert_eq!(refuse(&e, &views(true), &wager("k")).await, None);
        assert_eq!(e.refused(), 0);
    }

    #[tokio::test]
    async fn a_slip_is_refused_line_by_line_with_the_players_available_balance() {
        use crate::casino::SlipLine;
        let line = SlipLine { spot: Spot::Box(1), bet: Bet::Tie, amount: Money(1000), ante: Money::ZERO };
        let slip = Request::Wagers {
            table: TableId(1),
            player: PlayerId(7),
            slip: vec![line, line],
            key: "s".parse().unwrap(),
        };
        let (e, _) = early(&[], false);
        let r = refuse(&e, &views(true), &slip).await.expect("refused here");
        let Reply::Wagers { results, balance } = r else { panic!("{r:?}") };
        assert_eq!((results.len(), balance), (2, Money(4000)));
        // A line key answered before (a slip's retry) sends it to the writer.
        let (e, _) = early(&[&slip], false);
        assert_eq!(refuse(&e, &views(true), &slip).await, None);
        // Not a wager: never refused here.
        let deposit = Request::Deposit { player: PlayerId(7), amount: Money(1), key: "d".parse().unwrap() };
        assert_eq!(refuse(&e, &views(true), &deposit).await, None);
    }
}
