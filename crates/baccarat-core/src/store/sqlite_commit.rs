//! [`SqliteStore`]'s writes: its [`Store`] (a batch in one transaction, a
//! checkpoint in parts), and the WAL checkpoints moved to a thread of their
//! own.

use crate::ids::TableId;
use std::path::Path;

use rusqlite::{params, Connection};

use super::{
    json, logs, CheckpointBody, CheckpointSeal, Commit, Snapshot, SqliteStore, Store, StoreError, CHECKPOINTS_KEPT,
    WAL_RESTART_BYTES,
};
use crate::audit::Record;
use crate::ledger::{Account, AccountId};

/// Passive checkpoints run to catch up before a RESTART, the first
/// [`CATCH_UP_SYNCS`] of them after a sync of the database file (each pass
/// copies what came in during the one before, so the last leaves little).
const CATCH_UP_PASSES: usize = 4;
const CATCH_UP_SYNCS: usize = 2;

impl SqliteStore {
    /// Move WAL checkpoints off the committing thread: this connection stops
    /// checkpointing on commit, and a thread of its own copies the log into the
    /// database every `every` (PASSIVE: it never blocks the writer). Commits stay
    /// durable as before — a committed transaction is in the fsynced log.
    ///
    /// Under a steady stream of commits a passive checkpoint never catches the
    /// log's end, and the log grew without bound (6.3 GB in a ten-minute
    /// soak). So once it holds more than [`WAL_RESTART_BYTES`], the thread
    /// runs a RESTART checkpoint: it holds new commits back while it copies
    /// the last frames and syncs the database file, so the next commit writes
    /// the log from its start, and the file is cut back to that size.
    ///
    /// A passive checkpoint does not sync the database file (its pages are
    /// safe in the log until the log restarts), so the RESTART's sync had
    /// every page copied since the last restart to write, and held every
    /// commit back for 20-100 ms (and up to 300 ms) while it did, timed under
    /// `loadgen`. Before it, the thread now syncs the file itself, holding no
    /// lock, and catches up with passive checkpoints, so that the RESTART
    /// has only the last moment's frames to copy and to sync.
    pub fn checkpoint_in_background(&mut self, path: &Path, every: std::time::Duration) -> Result<(), StoreError> {
        let conn = Connection::open(path)?;
        let db = std::fs::File::open(path).map_err(|e| StoreError::Corrupt(format!("{}: {e}", path.display())))?;
        // No waiting: a RESTART that waits for readers holds every commit
        // back while it waits (it stalled all tables for up to 0.9 s). Without
        // a busy handler it gives up at once if a commit or a reader is in
        // the way, having copied what it could, and is tried again next time.
        conn.busy_timeout(std::time::Duration::ZERO)?;
        self.conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        self.conn.pragma_update(None, "journal_size_limit", WAL_RESTART_BYTES)?;
        let page: i64 = conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        std::thread::Builder::new()
            .name("checkpoint".into())
            .spawn(move || loop {
                std::thread::sleep(every);
                let passive = || {
                    conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| {
                        Ok((r.get::<_, i64>(1)?, r.get::<_, i64>(2)?))
                    })
                };
                let r = passive().and_then(|(log, _)| {
                    if log * page <= WAL_RESTART_BYTES {
                        return Ok(());
                    }
                    for pass in 0..CATCH_UP_PASSES {
                        if pass < CATCH_UP_SYNCS {
                            // Errors surface at the RESTART's own sync.
                            let _ = db.sync_data();
                        }
                        passive()?;
                    }
                    conn.query_row("PRAGMA wal_checkpoint(RESTART)", [], |_| Ok(()))
                });
                match r {
                    Err(rusqlite::Error::SqliteFailure(e, _)) if e.code == rusqlite::ErrorCode::DatabaseBusy => {}
                    Err(e) => tracing::warn!(error = %e, "the WAL checkpoint failed; tried again later"),
                    Ok(()) => {}
                }
            })
            .map_err(|e| StoreError::Corrupt(format!("cannot start the checkpoint thread: {e}")))?;
        Ok(())
    }

    /// Commit without waiting for the disk (the write-ahead log keeps the
    /// order of commits, so nothing is torn; the last few may be lost to a
    /// power cut). For the checkpoint thread only: a checkpoint lost that way
    /// leaves the one before it, and a longer replay.
    pub fn relax_sync(&self) -> Result<(), StoreError> {
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(())
    }
}

impl Store for SqliteStore {
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        if !c.bank.is_empty() {
            // Only a partition of a PostgreSQL casino has a bank.
            return Err(StoreError::Corrupt("a batch moves money at the bank, which SQLite has not".into()));
        }
        let tx = self.conn.transaction()?;
        {
            let mut tbl = tx.prepare_cached(
                "INSERT INTO tables (id, name, rulebook, config, mode, open) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                 ON CONFLICT(id) DO UPDATE SET name = excluded.name, mode = excluded.mode, open = excluded.open",
            )?;
            for t in &c.tables {
                tbl.execute(params![t.id, t.name, t.rulebook, t.config, t.mode, t.open])?;
            }
            let mut acct = tx.prepare_cached(
                "INSERT INTO accounts (id, kind, balance, held) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT(id) DO UPDATE SET balance = excluded.balance, held = excluded.held",
            )?;
            let mut ans = tx.prepare_cached(
                "INSERT INTO answer_log (rowid, key, digest, answer, at_ms, cause, key_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            // An account touched many times in one batch (a table's escrow and
            // house at a settlement) is written once, as it ends the batch.
            let mut last: std::collections::BTreeMap<AccountId, &Account> = std::collections::BTreeMap::new();
            let mut transfers = Vec::new();
            for ch in &c.ledger {
                transfers.extend(ch.transfers.iter());
                for a in &ch.accounts {
                    last.insert(a.id, a);
                }
                if let Some(a) = &ch.answer {
                    ans.execute(params![
                        a.seq as i64,
                        a.key,
                        &a.request[..],
                        a.answer,
                        a.at_ms as i64,
                        a.cause.encode(),
                        &a.key_id.to_le_bytes()[..]
                    ])?;
                }
            }
            for a in last.values() {
                acct.execute(params![a.id.0 as i64, json(&a.kind), a.balance, a.held])?;
            }
            // The batch's transfers in one row, and each chain's records in
            // one row (`blocks.rs`).
            logs::insert_transfers(&tx, "main", &transfers)?;
            let mut chains: std::collections::BTreeMap<TableId, Vec<&Record>> = std::collections::BTreeMap::new();
            for (tbl, r) in &c.records {
                chains.entry(*tbl).or_default().push(r);
            }
            for (tbl, records) in &chains {
                logs::insert_records(&tx, "main", *tbl, records)?;
            }
        }
        tx.commit()?;
        if let Some(k) = &self.keys {
            k.push(c.ledger.iter().filter_map(|ch| ch.answer.as_ref()).map(|a| crate::store::key_index::Pending {
                id: a.key_id,
                seq: a.seq,
                at_ms: a.at_ms,
            }));
        }
        Ok(())
    }

    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot { tables: self.tables()?, accounts: self.accounts()?, ..Snapshot::default() };
        self.each_transfer_after(0, |t| {
            snap.transfers.push(t);
            Ok(())
        })?;
        let mut q = self.conn.prepare("SELECT key, digest, answer FROM answer_log ORDER BY rowid")?;
        let rows =
            q.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, Vec<u8>>(1)?, r.get::<_, String>(2)?)))?;
        for row in rows {
            let (k, d, a) = row?;
            let d: [u8; 32] = d.try_into().map_err(|_| StoreError::Corrupt(format!("digest of answer {k}")))?;
            snap.answers.push((k, d, a));
        }
        for id in logs::chains(&self.conn)? {
            self.each_record_after(id, 0, |r| {
                snap.records.push((id, r));
                Ok(())
            })?;
        }
        Ok(snap)
    }

    /// Written in parts of [`CHECKPOINT_PART_BYTES`](super::CHECKPOINT_PART_BYTES), each in its own short
    /// transaction, and marked complete last: one transaction holding a busy
    /// floor's 125 MB body held SQLite's write lock for half a second, and
    /// every commit (so every table) waited for it. A crash part way leaves an
    /// incomplete checkpoint that no reader takes, removed by the next write.
    fn write_checkpoint_parts(
        &mut self,
        c: &crate::store::Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        use sha2::Digest;
        self.conn.execute(
            "INSERT INTO checkpoints (at_ms, body, sha256, signature, public_key, complete) VALUES (?1, X'', '', '', ?2, 0)",
            params![c.at_ms as i64, c.public_key],
        )?;
        let id = self.conn.last_insert_rowid();
        let (mut n, mut hash) = (0i64, sha2::Sha256::new());
        body(&mut |part: &[u8]| {
            hash.update(part);
            self.conn.execute(
                "INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, ?2, ?3)",
                params![id, n, part],
            )?;
            n += 1;
            Ok(())
        })?;
        let (sha256, signature) = seal(&baccarat_table::hex(&hash.finalize()))?;
        let tx = self.conn.transaction()?;
        tx.execute(
            "UPDATE checkpoints SET sha256 = ?2, signature = ?3, complete = 1 WHERE id = ?1",
            params![id, sha256, signature],
        )?;
        let superseded = "id <= ?1 - ?2 OR (complete = 0 AND id < ?1)";
        tx.execute(
            &format!(
                "DELETE FROM checkpoint_parts WHERE checkpoint IN (SELECT id FROM checkpoints WHERE {superseded})"
            ),
            [id, CHECKPOINTS_KEPT],
        )?;
        tx.execute(&format!("DELETE FROM checkpoints WHERE {superseded}"), [id, CHECKPOINTS_KEPT])?;
        crate::store::archive::write_mark(&tx, &c.mark)?;
        tx.commit()?;
        Ok(())
    }
}
