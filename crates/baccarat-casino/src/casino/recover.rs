//! Recovery: the casino rebuilt from the store, from its latest checkpoint and
//! the tail written after it — or, with no checkpoint (or one that fails its
//! checks), from the first record. It is one path: no checkpoint is the empty
//! one, and its tail is the whole history.
//!
//! * The ledger: the checkpoint's balances and open holds, then every transfer
//!   after the last it covers, streamed. The result must equal the balances
//!   the store holds, account by account (so a forged balance, or a checkpoint
//!   that does not match the log, is found), and the holds must match.
//! * Idempotency keys: the answers within the retention window, read from the
//!   answer log directly.
//! * Each table: the checkpoint's engine state and chain head, then each
//!   record after it, streamed — its link and hash checked, its event applied
//!   to the engine and folded into the read model (`coup_feed.rs`).
//! * The open wagers: each pending hold names its wager; with the engine's
//!   coup they give the table's holds and liability.

use baccarat_core::TableId;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use baccarat_rules::Money;
use baccarat_table::Event;

use super::{Casino, CasinoTable};
use crate::audit::{Body, Chain, CASINO_CHAIN};
use crate::casino::checkpoint::{ChainHead, Checkpoint, TableState, FORMAT};
use crate::casino::closing::Closure::Closing;
use crate::coup_feed::Feed;
use crate::float::max_win;
use crate::ledger::keys::ColdKeys;
use crate::ledger::{Account, AccountId, AccountKind, Cause, KeyMemory, Ledger, Transfer, TransferId, TransferKind};
use crate::store::{History, StoreError};
use baccarat_core::TableAccounts;

/// What recovery rebuilt, and how much it read to do it.
pub struct Recovered {
    pub casino: Casino,
    /// The read model, as of the same point.
    pub feed: Feed,
    /// Audit records and transfers read after the checkpoint (the whole
    /// history, without one).
    pub tail_records: u64,
    pub tail_transfers: u64,
}

/// Which idempotency answers a recovery reads into memory.
#[derive(Clone, Debug)]
pub enum Keys {
    /// Those answered at or after this time (ms since the epoch), and no
    /// others: with no store to find the rest in, a key not read is new
    /// (tests, and `Casino::recover`, read them all with `Since(0)`).
    Since(u64),
    /// None: every key is found in this store when a request names it
    /// (`keys.rs`), as a running server finds every key that left memory. A
    /// start then reads no answers, however many the window holds: reading
    /// the last two minutes' (a million keys after a busy spell) took 1.3–2.5 s
    /// of a 2.0–3.2 s start, to save reads the writer makes for every new
    /// key anyway.
    OnDisk(Arc<dyn ColdKeys>),
    /// None, and none looked up: for a check that answers no request (verify,
    /// the inspector's ledger check), so that it reads no answer at all.
    None,
}

/// Why the casino could not be rebuilt from a checkpoint and the store's
/// tail: each names what disagrees (a start then replays the whole history,
/// or refuses to serve).
#[derive(Debug, thiserror::Error)]
pub enum RecoverError {
    /// The store could not be read (or a chain record is corrupt).
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The ledger (or its idempotency keys) refused the restored state.
    #[error(transparent)]
    Ledger(#[from] crate::ledger::LedgerError),
    #[error("the ledger has no cage account")]
    NoCage,
    #[error("the checkpoint's casino chain head is not a hash")]
    CasinoHead,
    /// A table's own account of `kind` is missing.
    #[error("table {table} has no {kind:?} account")]
    NoAccount { table: TableId, kind: AccountKind },
    #[error("table {table}: the checkpoint's chain head is not a hash")]
    TableHead { table: TableId },
    /// An account's stored row disagrees with its transfers.
    #[error(
        "account {account}: the store holds balance {balance} (held {held}), but the transfers give {transfers} \
         (held {holds})"
    )]
    Balance { account: AccountId, balance: i64, held: i64, transfers: i64, holds: i64 },
    #[error("account {account} has transfers but no row in the store")]
    NoRow { account: AccountId },
    /// A saved or recorded tournament does not restore.
    #[error(transparent)]
    Tournament(#[from] super::tournaments::TournamentStateError),
    /// A saved promotion's terms no longer check.
    #[error(transparent)]
    Promotion(#[from] super::promotions::PromotionStateError),
    /// A table's definition does not make a table.
    #[error(transparent)]
    Table(#[from] super::table::TableError),
    /// The tables' tails do not replay.
    #[error(transparent)]
    Replay(#[from] super::replay::ReplayError),
}

/// Rebuild the casino from `checkpoint` (already checked: `checkpoint::open`)
/// and what the store holds after it, with the idempotency keys `keys` says.
/// Tables in `skip` (their chains were cut) are not served.
pub fn recover(
    store: &dyn History,
    checkpoint: Option<Checkpoint>,
    keys: Keys,
    skip: &BTreeSet<TableId>,
) -> Result<Recovered, RecoverError> {
    let cp = checkpoint.unwrap_or_else(empty);
    let (ledger, tail_transfers) = ledger(store, &cp, keys)?;
    let cage = ledger.find(&AccountKind::Cage).ok_or(RecoverError::NoCage)?;
    let mut c = Casino { ledger, cage, ..Casino::new() };
    let mut tail_records = 0u64;
    c.chain = resume(&cp.casino).ok_or(RecoverError::CasinoHead)?;
    for s in cp.tournaments {
        let t = super::tournaments::Tournament::of(s)?;
        c.tournaments.insert(t.state.id, t);
    }
    for s in cp.promotions {
        let p = super::promotions::Promotion::of(s)?;
        c.promotions.insert(p.state.id, p);
    }
    c.self_limits = cp.self_limits.into_iter().map(|s| (s.player, s)).collect();
    c.bank.last_seq = cp.bank_seq;
    c.bank.limits_seq = cp.limits_seq;
    let mut tournament_events = Vec::new();
    store.each_record_after(CASINO_CHAIN, c.chain.len(), &mut |r| {
        tail_records += 1;
        c.chain.follow(&r).map_err(|b| StoreError::Corrupt(format!("the casino's chain is broken at {b}")))?;
        let body = Body::decode(&r.body)
            .map_err(|m| StoreError::Corrupt(format!("the casino's chain record {}: {m}", r.seq)))?;
        tournament_events.extend(body.casino);
        Ok(())
    })?;
    for ev in &tournament_events {
        super::tournaments::apply_strict(&mut c.tournaments, ev)?;
        super::promotions::apply(&mut c.promotions, ev);
        super::self_limits::apply(&mut c.self_limits, ev);
        c.bank.replay(ev);
    }
    let feed = cp.feed.map(Feed::from_state).unwrap_or_default();
    let tables = tables_as_saved(store, &c.ledger, cp.tables, skip)?;
    let (tables, feed, read) = super::replay::replay_tables(store, tables, feed)?;
    tail_records += read;
    c.tables.extend(tables.into_iter().map(|t| (t.id, t)));
    c.closing = c.tables.values().filter(|t| matches!(t.closure, Closing { .. })).map(|t| t.id).collect();
    c.restore_holds();
    Ok(Recovered { casino: c, feed, tail_records, tail_transfers })
}

/// The tables the store defines (but those in `skip`), each with its
/// accounts and as the checkpoint saved it (its engine, chain head, halt and
/// shoe commitment), before the tail is replayed.
fn tables_as_saved(
    store: &dyn History,
    ledger: &Ledger,
    saved: Vec<TableState>,
    skip: &BTreeSet<TableId>,
) -> Result<Vec<CasinoTable>, RecoverError> {
    let mut states: HashMap<TableId, TableState> = saved.into_iter().map(|t| (t.id, t)).collect();
    let mut tables = Vec::new();
    for row in store.tables()? {
        if skip.contains(&row.id) {
            continue;
        }
        let find = |kind: AccountKind| ledger.find(&kind).ok_or(RecoverError::NoAccount { table: row.id, kind });
        let accounts = TableAccounts {
            escrow: find(AccountKind::Escrow { table: row.id })?,
            house: find(AccountKind::House { table: row.id })?,
            commission: find(AccountKind::Commission { table: row.id })?,
            antes: find(AccountKind::Antes { table: row.id })?,
        };
        let saved = states.remove(&row.id);
        let mut t = CasinoTable::new(&row, accounts, saved.as_ref().map(|s| s.engine.clone()))?;
        if let Some(s) = saved {
            t.chain = resume(&s.chain).ok_or(RecoverError::TableHead { table: row.id })?;
            t.halted = s.halted;
            t.commitment = s.commitment;
            t.closure = s.closure;
        }
        tables.push(t);
    }
    Ok(tables)
}

impl Casino {
    /// Each wager's hold, from the ledger's pending transfers, on its table
    /// with what it could win added to the table's liability (`float.rs`).
    fn restore_holds(&mut self) {
        for h in self.ledger.pending() {
            let Cause::Wager { table, wager } = h.cause else { continue };
            if let Some(t) = self.tables.get_mut(&table) {
                let most = t.engine.state().coup.wagers.get(wager).map_or(Money::ZERO, |w| {
                    max_win(&t.engine.setup().config, w.bet, w.amount, w.ante).unwrap_or(Money::ZERO)
                });
                t.liability = t.liability + most;
                t.holds.insert(wager, (h.id, h.debit, most));
            }
        }
    }
}

/// The checkpoint before anything happened.
fn empty() -> Checkpoint {
    Checkpoint {
        format: FORMAT,
        at_ms: 0,
        last_transfer: TransferId(0),
        accounts: Vec::new(),
        pending: Vec::new(),
        casino: head_of(&Chain::new()),
        tables: Vec::new(),
        feed: None,
        tournaments: Vec::new(),
        promotions: Vec::new(),
        self_limits: Vec::new(),
        anchor: None,
        bank_seq: 0,
        limits_seq: 0,
    }
}

fn resume(h: &ChainHead) -> Option<Chain> {
    Chain::resume(h.len, &h.head)
}

pub(super) fn head_of(c: &Chain) -> ChainHead {
    ChainHead { len: c.len(), head: c.head() }
}

/// The ledger: the checkpoint's balances and holds, the tail's transfers on
/// top, checked against the balances the store holds.
fn ledger(store: &dyn History, cp: &Checkpoint, keys: Keys) -> Result<(Ledger, u64), RecoverError> {
    let mut balance: BTreeMap<AccountId, i64> = cp.accounts.iter().map(|a| (a.id, a.balance)).collect();
    let mut pending: BTreeMap<TransferId, Arc<Transfer>> = cp.pending.iter().map(|t| (t.id, t.clone())).collect();
    let mut last = cp.last_transfer;
    let mut n = 0u64;
    store.each_transfer_after(cp.last_transfer.0, &mut |t| {
        n += 1;
        last = t.id;
        match t.kind {
            TransferKind::Posted | TransferKind::PostOf(_) => {
                *balance.entry(t.debit).or_default() -= t.amount.0;
                *balance.entry(t.credit).or_default() += t.amount.0;
            }
            TransferKind::Pending | TransferKind::VoidOf(_) => {}
        }
        match t.kind {
            TransferKind::Pending => {
                pending.insert(t.id, Arc::new(t));
            }
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => {
                pending.remove(&h);
            }
            TransferKind::Posted => {}
        }
        Ok(())
    })?;
    let accounts: Vec<Account> = store.accounts()?;
    let mut held: BTreeMap<AccountId, i64> = BTreeMap::new();
    for t in pending.values() {
        *held.entry(t.debit).or_default() += t.amount.0;
    }
    for a in &accounts {
        let b = balance.remove(&a.id).unwrap_or(0);
        let h = held.get(&a.id).copied().unwrap_or(0);
        if (a.balance, a.held) != (b, h) {
            return Err(RecoverError::Balance {
                account: a.id,
                balance: a.balance,
                held: a.held,
                transfers: b,
                holds: h,
            });
        }
    }
    if let Some((id, _)) = balance.iter().find(|(_, b)| **b != 0) {
        return Err(RecoverError::NoRow { account: *id });
    }
    let last_answer = store.last_answer()?;
    let keys = match keys {
        Keys::Since(ms) => {
            let answers = store.answers_since(ms)?;
            KeyMemory::restore(answers, last_answer)?
        }
        Keys::None => KeyMemory::restore(Vec::new(), last_answer)?,
        Keys::OnDisk(cold) => {
            let mut k = KeyMemory::restore(Vec::new(), last_answer)?;
            k.set_cold(cold, crate::ledger::keys::DEFAULT_HOT_MS);
            k
        }
    };
    let l = Ledger::restore(accounts, pending.into_values().collect(), last, keys)?;
    Ok((l, n))
}

impl Casino {
    /// Rebuild the casino from the whole history in the store (tests; `serve`
    /// recovers from its latest checkpoint). Every idempotency key the store
    /// keeps live is kept (`answers_since`: archived answers, past the keys'
    /// window, are not).
    pub fn recover(store: &dyn History) -> Result<Casino, RecoverError> {
        Ok(recover(store, None, Keys::Since(0), &BTreeSet::new())?.casino)
    }

    /// The live state, for a checkpoint (the read model is added by the
    /// committer). Cloning it is all the writer does.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            format: FORMAT,
            at_ms: (self.clock)(),
            last_transfer: self.ledger.last_transfer(),
            accounts: self.ledger.accounts().cloned().collect(),
            pending: self.ledger.pending_shared().cloned().collect(),
            casino: head_of(&self.chain),
            tables: self
                .tables
                .values()
                .map(|t| TableState {
                    id: t.id,
                    chain: head_of(&t.chain),
                    engine: t.engine.state().clone(),
                    halted: t.halted.clone(),
                    commitment: t.commitment.clone(),
                    closure: t.closure,
                })
                .collect(),
            feed: None,
            tournaments: self.tournaments.values().map(|t| t.checkpoint_state()).collect(),
            promotions: self.promotions.values().map(|p| p.state.clone()).collect(),
            self_limits: self.self_limits.values().cloned().collect(),
            anchor: None,
            bank_seq: self.bank.last_seq,
            limits_seq: self.bank.limits_seq,
        }
    }

    /// Whether a checkpoint is due after this batch (`checkpoint.rs` says
    /// when); `asked`: a request asked for one (a clean stop's, written by the
    /// committer itself). One taken for the background checkpointer marks it
    /// busy, and none is due for it until it is free again.
    pub fn checkpoint_due(&mut self, commit: &crate::store::Commit, asked: bool) -> bool {
        use crate::casino::checkpoint::{shoe_gap, MAX_GAP_RECORDS};
        self.since_checkpoint += commit.records.len() as u64;
        if commit.events.iter().any(|(_, _, e)| matches!(e, Event::ShoeStarted { .. } | Event::ShoeEnded { .. })) {
            self.shoe_boundary = true;
        }
        let background = !self.checkpointer_busy.get()
            && (self.since_checkpoint >= MAX_GAP_RECORDS
                || (self.shoe_boundary && self.since_checkpoint >= shoe_gap(self.ledger.live_items())));
        // A background one is taken while a coup's settlement is recorded in
        // chunks: at every batch's end the engine, the holds and the log
        // agree (`settle.rs`), so the checkpoint is the state a crash there
        // would replay to, and a start from it finishes the settlement. (It
        // once waited for no table to be settling; under a load of big coups
        // some table always was, and a due checkpoint waited in 372 batches
        // of 373, past its longest gap.) A clean stop's waits for the
        // settlement to be recorded (`Request::Checkpoint` is refused
        // meanwhile), so that the next start has nothing to finish.
        let due = if asked { !self.settling() } else { background };
        if due {
            self.since_checkpoint = 0;
            self.shoe_boundary = false;
            if !asked {
                self.checkpointer_busy.set(true);
            }
        }
        due
    }
}

#[cfg(test)]
mod checkpoint_due_tests {
    use crate::audit::Record;
    use crate::casino::checkpoint::{MAX_GAP_RECORDS, MIN_GAP_RECORDS};
    use crate::casino::Casino;
    use crate::store::Commit;
    use baccarat_core::TableId;
    use baccarat_table::Event;

    /// A batch of `n` records, ending a shoe when `shoe_ended`.
    fn batch(n: u64, shoe_ended: bool) -> Commit {
        let r = Record { seq: 1, prev: String::new(), body: String::new(), hash: String::new() };
        let mut c = Commit { records: vec![(TableId(1), r); n as usize], ..Commit::default() };
        if shoe_ended {
            c.events.push((TableId(1), 1, Event::ShoeEnded { shoe: 1, seed: None, reason: "test".into() }));
        }
        c
    }

    #[test]
    fn none_is_taken_for_the_checkpointer_while_it_writes_the_last() {
        let mut c = Casino::new();
        // Not due before the gap, whatever the boundary.
        assert!(!c.checkpoint_due(&batch(MIN_GAP_RECORDS - 1, true), false));
        // Due at the first boundary past the gap, and then the thread is busy.
        assert!(c.checkpoint_due(&batch(1, true), false));
        assert!(c.checkpointer_busy.get());
        // While it is busy: no boundary, and not even the longest gap, makes one due...
        assert!(!c.checkpoint_due(&batch(MIN_GAP_RECORDS, true), false));
        assert!(!c.checkpoint_due(&batch(MAX_GAP_RECORDS, false), false));
        // ...but a clean stop's is written by the committer itself.
        assert!(c.checkpoint_due(&batch(0, false), true));
        assert!(c.checkpointer_busy.get(), "the stop's does not free the thread");
        // Once it is free, the records since and the boundary seen count.
        assert!(!c.checkpoint_due(&batch(MIN_GAP_RECORDS, true), false));
        c.checkpointer_busy.set(false);
        assert!(c.checkpoint_due(&batch(0, false), false), "the boundary and the gap seen while busy");
        assert!(c.checkpointer_busy.get());
        c.checkpointer_busy.set(false);
        assert!(!c.checkpoint_due(&batch(MAX_GAP_RECORDS - 1, false), false));
        assert!(c.checkpoint_due(&batch(1, false), false), "the longest gap, without a boundary");
    }

    #[test]
    fn the_gap_a_shoe_boundary_needs_grows_with_the_live_state() {
        use crate::casino::checkpoint::shoe_gap;
        use crate::ledger::AccountKind;
        assert_eq!(shoe_gap(0), MIN_GAP_RECORDS);
        assert_eq!(shoe_gap(MIN_GAP_RECORDS / 2), MIN_GAP_RECORDS);
        assert_eq!(shoe_gap(MIN_GAP_RECORDS), 2 * MIN_GAP_RECORDS);
        assert_eq!(shoe_gap(MAX_GAP_RECORDS), MAX_GAP_RECORDS);
        assert_eq!(shoe_gap(u64::MAX), MAX_GAP_RECORDS);
        // A casino of 30,000 accounts: a boundary after 10,000 records is
        // not enough, one after 60,000 is; the longest gap needs none.
        let mut c = Casino::new();
        for player in 0..30_000u32 {
            c.ledger.open(AccountKind::Wallet { player: baccarat_table::PlayerId(player) });
        }
        let live = c.ledger.live_items();
        assert!((30_000..30_100).contains(&live), "{live}");
        assert!(!c.checkpoint_due(&batch(MIN_GAP_RECORDS, true), false));
        assert!(!c.checkpoint_due(&batch(2 * live - MIN_GAP_RECORDS - 1, true), false));
        assert!(c.checkpoint_due(&batch(1, true), false), "twice the live state");
        c.checkpointer_busy.set(false);
        assert!(!c.checkpoint_due(&batch(2 * live - 1, false), false), "no boundary");
        assert!(c.checkpoint_due(&batch(MAX_GAP_RECORDS - 2 * live + 1, false), false));
    }

    /// A disagreement reads as the string it replaced, byte for byte (a
    /// start prints it; verify lists it).
    #[test]
    fn refusals_read_as_before() {
        let e = super::RecoverError::Balance {
            account: crate::ledger::AccountId(3),
            balance: 10,
            held: 2,
            transfers: 9,
            holds: 1,
        };
        assert_eq!(e.to_string(), "account 3: the store holds balance 10 (held 2), but the transfers give 9 (held 1)");
        let e = super::RecoverError::NoAccount {
            table: TableId(4),
            kind: super::AccountKind::Escrow { table: TableId(4) },
        };
        assert_eq!(e.to_string(), "table 4 has no Escrow { table: 4 } account");
    }
}
