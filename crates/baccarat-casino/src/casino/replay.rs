//! The tables' tails replayed on two threads: one reads, one applies.
//!
//! # Why
//!
//! A start after `kill -9` under `loadgen` reads a tail of up to two million
//! records (the checkpoints are spaced by the live state: `checkpoint.rs`).
//! Read on one thread, each record was: read from the store and its block
//! decoded, its link and SHA-256 checked, its body decoded, and its event
//! applied to the engine and the read model, one after the other, while the
//! machine's second core sat idle.
//!
//! # How
//!
//! The calling thread keeps the store (a connection is not shared between
//! threads) and does the reading and the chain's checks: it alone knows where
//! each chain stands. It sends each table, then that table's records in
//! batches, down a bounded channel to a second thread that decodes each body
//! and applies it, owning the tables and the read model until the end. The
//! order is the one-thread order: a table's records in sequence, tables one
//! after another, so the result is the same casino as before (the recovery tests compare
//! a recovered casino with the one that wrote the log).
//!
//! An error stops both. Every record the second thread sees has already
//! passed the reader's checks, so its error (a body that does not decode)
//! is always on an earlier record than the reader's, and is the one named:
//! the error the one-thread replay would have named first.

use std::sync::mpsc::{sync_channel, Receiver};

use baccarat_table::Event;

use super::closing::Closure::{Closed, Closing};
use super::CasinoTable;
use crate::audit::{Body, CasinoEvent};
use crate::coup_feed::Feed;
use crate::store::{History, StoreError};

/// Why the tables' tails do not replay.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("cannot start the replay thread: {0}")]
    Thread(#[source] std::io::Error),
    /// The store could not be read, or a record is broken or unreadable.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Bodies sent before any table (a fault of the sender).
    #[error("records before their table")]
    NoTable,
}

/// Records a message carries: enough to keep both threads busy, few enough
/// that the channel holds a few megabytes at most.
const BATCH: usize = 2048;

/// What the reader sends: a table, then its records' bodies by seq.
enum Step {
    Table(Box<CasinoTable>),
    Bodies(Vec<(u64, String)>),
}

/// Replay each table's records after its chain's head (each `CasinoTable`
/// comes with its chain resumed from the checkpoint), folding their events
/// into the engines and `feed`. Returns the tables, in the order given, with
/// their chains at the end of the log, the read model, and the records read.
pub(super) fn replay_tables(
    store: &dyn History,
    tables: Vec<CasinoTable>,
    feed: Feed,
) -> Result<(Vec<CasinoTable>, Feed, u64), ReplayError> {
    std::thread::scope(|s| {
        let (tx, rx) = sync_channel::<Step>(4);
        let applier = std::thread::Builder::new()
            .name("replay".into())
            .spawn_scoped(s, move || apply(rx, feed))
            .map_err(ReplayError::Thread)?;
        let mut chains = Vec::with_capacity(tables.len());
        let mut records = 0u64;
        let read = (|| {
            for t in tables {
                let (id, mut chain) = (t.id, t.chain.clone());
                // A send fails only when the applier has stopped on an error.
                let stopped = || StoreError::Corrupt(String::new());
                tx.send(Step::Table(Box::new(t))).map_err(|_| stopped())?;
                let mut batch = Vec::with_capacity(BATCH);
                store.each_record_after(id, chain.len(), &mut |r| {
                    records += 1;
                    chain
                        .follow(&r)
                        .map_err(|b| StoreError::Corrupt(format!("table {id}: audit chain broken at {b}")))?;
                    batch.push((r.seq, r.body));
                    if batch.len() == BATCH {
                        let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                        tx.send(Step::Bodies(full)).map_err(|_| stopped())?;
                    }
                    Ok(())
                })?;
                if !batch.is_empty() {
                    tx.send(Step::Bodies(batch)).map_err(|_| stopped())?;
                }
                chains.push(chain);
            }
            Ok::<(), StoreError>(())
        })();
        drop(tx);
        // A panic there (the engine's) goes on as it did on one thread.
        let (mut tables, feed) = applier.join().unwrap_or_else(|p| std::panic::resume_unwind(p))?;
        read?;
        for (t, chain) in tables.iter_mut().zip(chains) {
            t.chain = chain;
        }
        Ok((tables, feed, records))
    })
}

/// The second thread: each body decoded and applied, in the order sent.
fn apply(rx: Receiver<Step>, mut feed: Feed) -> Result<(Vec<CasinoTable>, Feed), ReplayError> {
    let mut tables: Vec<CasinoTable> = Vec::new();
    for step in rx {
        match step {
            Step::Table(t) => tables.push(*t),
            Step::Bodies(bodies) => {
                let t = tables.last_mut().ok_or(ReplayError::NoTable)?;
                for (seq, body) in bodies {
                    let id = t.id;
                    let body = Body::decode(&body)
                        .map_err(|m| StoreError::Corrupt(format!("table {id} record {seq}: {m}")))?;
                    match (body.event, body.casino) {
                        (Some(ev), _) => {
                            t.halted = None;
                            if let Event::ShoeStarted { commitment, .. } = &ev {
                                t.commitment = commitment.clone();
                            }
                            t.engine.apply(&ev);
                            feed.absorb(id, seq, &ev);
                        }
                        (None, Some(CasinoEvent::TableHalted { invariant })) => t.halted = Some(invariant),
                        // Closing and closed for good (`closing.rs`).
                        (None, Some(CasinoEvent::TableClosing { by })) => t.closure = Closing { by },
                        (None, Some(CasinoEvent::TableClosed { .. })) => t.closure = Closed,
                        _ => {}
                    }
                }
            }
        }
    }
    Ok((tables, feed))
}

#[cfg(test)]
mod tests {
    use baccarat_core::TableId;
    use std::collections::BTreeMap;

    use super::*;
    use crate::audit::{Chain, Record};
    use crate::ledger::{Account, AnswerRow, Transfer};
    use crate::store::{StoredCheckpoint, TableRow};
    use baccarat_core::TableAccounts;

    /// Chains of records and nothing else: what the replay reads.
    struct Chains(BTreeMap<TableId, Vec<Record>>);

    impl History for Chains {
        fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
            Ok(Vec::new())
        }
        fn accounts(&self) -> Result<Vec<Account>, StoreError> {
            Ok(Vec::new())
        }
        fn each_transfer_after(
            &self,
            _: u64,
            _: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
        ) -> Result<(), StoreError> {
            Ok(())
        }
        fn each_record_after(
            &self,
            table: TableId,
            after: u64,
            f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
        ) -> Result<(), StoreError> {
            self.0.get(&table).into_iter().flatten().filter(|r| r.seq > after).try_for_each(|r| f(r.clone()))
        }
        fn answers_since(&self, _: u64) -> Result<Vec<AnswerRow>, StoreError> {
            Ok(Vec::new())
        }
        fn last_answer(&self) -> Result<u64, StoreError> {
            Ok(0)
        }
        fn last_transfer(&self) -> Result<u64, StoreError> {
            Ok(0)
        }
        fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
            Ok(None)
        }
        fn checkpoint_part(&self, _: i64, _: u64) -> Result<Option<Vec<u8>>, StoreError> {
            Ok(None)
        }
        fn head(&self, table: TableId) -> Result<Option<Record>, StoreError> {
            Ok(self.0.get(&table).and_then(|c| c.last().cloned()))
        }
        fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
            Ok(self.0.get(&table).and_then(|c| c.iter().find(|r| r.seq == seq).cloned()))
        }
    }

    fn table(id: TableId) -> CasinoTable {
        let row = TableRow {
            id,
            name: format!("t{id}"),
            rulebook: "nsw-2021".into(),
            config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n".into(),
            mode: crate::trust::Mode::Rng.id().into(),
            open: true,
        };
        let a = u64::from(id) * 10;
        use crate::ledger::AccountId;
        let accounts = TableAccounts {
            escrow: AccountId(a),
            house: AccountId(a + 1),
            commission: AccountId(a + 2),
            antes: AccountId(a + 3),
        };
        CasinoTable::new(&row, accounts, None).unwrap()
    }

    fn halted(table: TableId, why: &str) -> String {
        format!("{{\"table\":{table},\"casino\":{{\"event\":\"table_halted\",\"invariant\":\"{why}\"}}}}")
    }

    /// `n` records of table `id` (more than a batch), each halting it anew.
    fn chain(id: TableId, n: usize) -> (Chain, Vec<Record>) {
        let mut c = Chain::new();
        let records = (0..n).map(|i| c.append(halted(id, &format!("{id}-{i}")))).collect();
        (c, records)
    }

    #[test]
    fn each_table_ends_at_its_chains_head_with_its_last_record_applied() {
        let (c1, r1) = chain(TableId(1), BATCH * 2 + 5);
        let (c3, r3) = chain(TableId(3), 7);
        let store = Chains(BTreeMap::from([(TableId(1), r1), (TableId(3), r3.clone())]));
        // Table 3 resumes from its fourth record, as from a checkpoint.
        let mut t3 = table(TableId(3));
        t3.chain = Chain::from_records(&r3[..4]).unwrap();
        let (tables, _, read) =
            replay_tables(&store, vec![table(TableId(1)), table(TableId(2)), t3], Feed::default()).unwrap();
        assert_eq!(read, (BATCH * 2 + 5 + 3) as u64);
        let ids: Vec<TableId> = tables.iter().map(|t| t.id).collect();
        assert_eq!(ids, [1, 2, 3].map(TableId));
        assert_eq!((tables[0].chain.len(), tables[0].chain.head()), (c1.len(), c1.head()));
        assert_eq!(tables[0].halted.as_deref(), Some(format!("1-{}", BATCH * 2 + 4).as_str()));
        assert_eq!((tables[1].chain.len(), tables[1].halted.as_deref()), (0, None));
        assert_eq!((tables[2].chain.len(), tables[2].chain.head()), (c3.len(), c3.head()));
        assert_eq!(tables[2].halted.as_deref(), Some("3-6"));
    }

    #[test]
    fn the_first_error_in_the_logs_order_is_named() {
        // Table 1's record 3 is linked and hashed but is not a body; table 2's
        // record 2 does not link. The body comes first, and is named.
        let mut c = Chain::new();
        let mut r1: Vec<Record> = (0..2).map(|i| c.append(halted(TableId(1), &i.to_string()))).collect();
        r1.push(c.append("not a body".into()));
        let (_, mut r2) = chain(TableId(2), 3);
        r2[1].prev = r2[0].prev.clone();
        let store = Chains(BTreeMap::from([(TableId(1), r1.clone()), (TableId(2), r2.clone())]));
        let err = replay_tables(&store, vec![table(TableId(1)), table(TableId(2))], Feed::default())
            .err()
            .unwrap()
            .to_string();
        assert!(err.starts_with("stored data is unreadable: table 1 record 3:"), "{err}");
        // With table 1's body mended, the broken link is named.
        r1.truncate(2);
        let store = Chains(BTreeMap::from([(TableId(1), r1), (TableId(2), r2)]));
        let err = replay_tables(&store, vec![table(TableId(1)), table(TableId(2))], Feed::default())
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.ends_with("table 2: audit chain broken at record 2: does not link to the record before it"),
            "{err}"
        );
    }
}
