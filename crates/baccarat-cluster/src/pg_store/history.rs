//! The PostgreSQL store's reads (`History`): what a start, `verify` and the
//! inspector read back, a page at a time. The design is in `pg_store.rs`.
//!
//! The whole-history reads go through the logs' views (`audit_all`, …),
//! which add the archived months to the live rows (`archive.rs`). The keys'
//! window (`answers_since`) reads the live answers only: archiving leaves
//! every answer inside it live.

use super::{record_of, transfer_of, PgStore};
use crate::audit::Record;
use crate::ledger::{Account, AnswerRow, Cause, Transfer};
use crate::pg_store::PgResult;
use crate::store::{parse, History, StoreError, StoredCheckpoint, TableRow, PAGE};
use baccarat_core::TableId;

impl History for PgStore {
    fn tables(&self) -> Result<Vec<TableRow>, StoreError> {
        let rows = self.c().query("SELECT id, name, rulebook, config, mode, open FROM tables ORDER BY id", &[]).pg()?;
        Ok(rows
            .iter()
            .map(|r| TableRow {
                id: TableId(r.get::<_, i64>(0) as u32),
                name: r.get(1),
                rulebook: r.get(2),
                config: r.get(3),
                mode: r.get(4),
                open: r.get(5),
            })
            .collect())
    }

    fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        let rows = self.c().query("SELECT id, kind, balance, held FROM accounts ORDER BY id", &[]).pg()?;
        rows.iter()
            .map(|r| {
                let kind: String = r.get(1);
                Ok(Account {
                    id: crate::ledger::AccountId(r.get::<_, i64>(0) as u64),
                    kind: parse(&kind)?,
                    balance: r.get(2),
                    held: r.get(3),
                })
            })
            .collect()
    }

    fn each_transfer_after(
        &self,
        after: u64,
        f: &mut dyn FnMut(Transfer) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut from = after as i64;
        loop {
            let rows = self.c().query(
                "SELECT id, debit, credit, amount, kind, memo, cause FROM transfers_all WHERE id > $1 ORDER BY id LIMIT $2",
                &[&from, &PAGE],
            ).pg()?;
            for r in &rows {
                let t = transfer_of(r)?;
                from = t.id.0 as i64;
                f(t)?;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(());
            }
        }
    }

    fn each_record_after(
        &self,
        table: TableId,
        after: u64,
        f: &mut dyn FnMut(Record) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut from = after as i64;
        loop {
            let rows = self
                .c()
                .query(
                    "SELECT seq, prev, body, hash FROM audit_all WHERE tbl = $3 AND seq > $1 ORDER BY seq LIMIT $2",
                    &[&from, &PAGE, &(table.0 as i64)],
                )
                .pg()?;
            for r in &rows {
                let rec = record_of(r);
                from = rec.seq as i64;
                f(rec)?;
            }
            if (rows.len() as i64) < PAGE {
                return Ok(());
            }
        }
    }

    fn answers_since(&self, since_ms: u64) -> Result<Vec<AnswerRow>, StoreError> {
        let rows = self
            .c()
            .query(
                "SELECT seq, key_id, digest, answer, at_ms, cause FROM answer_log WHERE at_ms >= $1 ORDER BY seq",
                // A time past i64 (none is) reads nothing rather than wrapping round.
                &[&(since_ms.min(i64::MAX as u64) as i64)],
            )
            .pg()?;
        rows.iter()
            .map(|r| {
                let seq = r.get::<_, i64>(0) as u64;
                let bad = |what: &str| StoreError::Corrupt(format!("answer {seq}: {what}"));
                let kid: Vec<u8> = r.get(1);
                let digest: Vec<u8> = r.get(2);
                let cause: String = r.get(5);
                Ok(AnswerRow {
                    seq,
                    key: String::new(),
                    key_id: crate::ledger::KeyId::from_le_bytes(kid.try_into().map_err(|_| bad("its key id"))?),
                    request: digest.try_into().map_err(|_| bad("its digest"))?,
                    answer: r.get(3),
                    at_ms: r.get::<_, i64>(4) as u64,
                    cause: Cause::parse(&cause).ok_or_else(|| bad("its cause"))?,
                })
            })
            .collect()
    }

    fn last_answer(&self) -> Result<u64, StoreError> {
        Ok(self.c().query_one("SELECT COALESCE(MAX(seq), 0) FROM answer_log_all", &[]).pg()?.get::<_, i64>(0) as u64)
    }

    fn last_transfer(&self) -> Result<u64, StoreError> {
        Ok(self.c().query_one("SELECT COALESCE(MAX(id), 0) FROM transfers_all", &[]).pg()?.get::<_, i64>(0) as u64)
    }

    fn latest_checkpoint_seal(&self) -> Result<Option<StoredCheckpoint>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT id, sha256, signature, public_key FROM checkpoints WHERE complete ORDER BY id DESC LIMIT 1",
                &[],
            )
            .pg()?
            .map(|r| StoredCheckpoint {
                id: r.get(0),
                body: Vec::new(),
                sha256: r.get(1),
                signature: r.get(2),
                public_key: r.get(3),
            }))
    }

    fn checkpoint_part(&self, id: i64, n: u64) -> Result<Option<Vec<u8>>, StoreError> {
        // `n` is an INTEGER column; a part past it does not exist.
        let Ok(n) = i32::try_from(n) else { return Ok(None) };
        Ok(self
            .c()
            .query_opt("SELECT data FROM checkpoint_parts WHERE checkpoint = $1 AND n = $2", &[&id, &n])
            .pg()?
            .map(|r| r.get(0)))
    }

    fn head(&self, table: TableId) -> Result<Option<Record>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT seq, prev, body, hash FROM audit_all WHERE tbl = $1 ORDER BY seq DESC LIMIT 1",
                &[&(table.0 as i64)],
            )
            .pg()?
            .map(|r| record_of(&r)))
    }

    fn record_at(&self, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
        Ok(self
            .c()
            .query_opt(
                "SELECT seq, prev, body, hash FROM audit_all WHERE tbl = $1 AND seq = $2",
                &[&(table.0 as i64), &(seq as i64)],
            )
            .pg()?
            .map(|r| record_of(&r)))
    }
}
