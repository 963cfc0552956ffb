//! The database's copy of the anchor file's lines (`anchor_lines`), as
//! `baccarat-core`'s `anchor/copy.rs` designs it: each line the serving
//! server writes to its file goes into the next commit's transaction
//! (fenced by the lease's epoch with the rest), a line the copy lacks is
//! copied at a start, and `verify` reads the copy as it reads the file.

use super::commit::{prepared, Statements};
use super::{PgResult, PgStore};
use crate::anchor::{CopiedLine, CopyRead, Outbox};
use crate::store::{Commit, StoreError};

/// Lines column by column: their numbers, their texts.
pub(super) fn columns(lines: &[CopiedLine]) -> (Vec<i64>, Vec<&str>) {
    (lines.iter().map(|l| l.seq as i64).collect(), lines.iter().map(|l| l.line.as_str()).collect())
}

/// Put `lines` into the copy, inside `tx`. A line already there is an error
/// (its number is the key): two writers of one file, which the lease's
/// fence forbids.
pub(super) fn insert(
    tx: &mut postgres::Transaction<'_>,
    cache: Option<&mut Statements>,
    lines: &[CopiedLine],
) -> Result<(), StoreError> {
    if lines.is_empty() {
        return Ok(());
    }
    const SQL: &str = "INSERT INTO anchor_lines (seq, line) SELECT * FROM UNNEST($1::bigint[], $2::text[])";
    let (seq, text) = columns(lines);
    match cache {
        Some(cache) => {
            let st = prepared(tx, cache, SQL)?;
            tx.execute(&st, &[&seq, &text]).pg()?
        }
        None => tx.execute(SQL, &[&seq, &text]).pg()?,
    };
    Ok(())
}

impl PgStore {
    /// From now on, each commit (and each checkpoint's seal) carries the
    /// lines waiting in `outbox` into the copy (the serving server's
    /// writer's store).
    pub fn copy_anchors_from(&mut self, outbox: Outbox) {
        self.anchor_copy = Some(outbox);
    }

    /// The number of the copy's last line (0 when it has none).
    pub fn anchor_lines_last(&self) -> Result<u64, StoreError> {
        let last: Option<i64> = self.c().query_one("SELECT max(seq) FROM anchor_lines", &[]).pg()?.get(0);
        Ok(last.unwrap_or(0) as u64)
    }

    /// The copy's lines numbered after `after`, in order.
    pub fn anchor_lines_after(&self, after: u64) -> Result<Vec<CopiedLine>, StoreError> {
        let rows = self
            .c()
            .query("SELECT seq, line FROM anchor_lines WHERE seq > $1 ORDER BY seq", &[&(after as i64)])
            .pg()?;
        Ok(rows.iter().map(|r| CopiedLine { seq: r.get::<_, i64>(0) as u64, line: r.get(1) }).collect())
    }

    /// Copy `lines` (numbered after the copy's last) in one transaction,
    /// fenced as a commit is.
    pub fn copy_anchor_lines(&mut self, lines: &[CopiedLine]) -> Result<(), StoreError> {
        if lines.is_empty() {
            return Ok(());
        }
        let PgStore { client, fences, prepared: cache, .. } = self;
        let client = client.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut tx = client.as_mut().expect("the client is open until the store is dropped").transaction().pg()?;
        super::commit::fence(&mut tx, cache, fences, &Commit::default())?;
        insert(&mut tx, Some(cache), lines)?;
        tx.commit().pg()?;
        Ok(())
    }

    /// Move the copy aside, kept (`anchor_lines_until_<ms>`), and begin an
    /// empty one: a start that begins a new anchor file (`--new-anchor-file`,
    /// the old one lost for good) numbers its lines from 1 again. Returns
    /// the name the old copy is kept under, if it had lines.
    pub fn set_anchor_copy_aside(&mut self, at_ms: u64) -> Result<Option<String>, StoreError> {
        if self.anchor_lines_last()? == 0 {
            return Ok(None);
        }
        let name = format!("anchor_lines_until_{at_ms}");
        let mut c = self.c();
        let mut tx = c.transaction().pg()?;
        tx.batch_execute(&format!(
            "ALTER TABLE anchor_lines RENAME TO {name};
             ALTER TABLE {name} RENAME CONSTRAINT anchor_lines_pkey TO {name}_pkey;
             {}",
            super::ANCHOR_LINES_TABLE
        ))
        .pg()?;
        tx.commit().pg()?;
        Ok(Some(name))
    }

    /// Read and verify the copy: its last unbroken run of lines (a copy
    /// begun after the file's first segments were moved aside begins at a
    /// carry line), streamed. `pinned`: the key trusted (the verifier's,
    /// else the anchor file's first); without one, the first line's.
    pub fn read_anchor_copy(&self, pinned: Option<&str>) -> Result<CopyRead, StoreError> {
        let mut c = self.c();
        // The first line of the last run: one whose number follows none.
        let first: Option<i64> = c
            .query_one(
                "SELECT max(seq) FROM anchor_lines a WHERE NOT EXISTS
                   (SELECT 1 FROM anchor_lines b WHERE b.seq = a.seq - 1)",
                &[],
            )
            .pg()?
            .get(0);
        let Some(first) = first else { return Ok(CopyRead::Empty) };
        let rows = c.query_raw("SELECT line FROM anchor_lines WHERE seq >= $1 ORDER BY seq", [first]).pg()?;
        let mut failed = None;
        let lines = postgres::fallible_iterator::FallibleIterator::iterator(rows)
            .map_while(|r| r.map_err(|e| failed = Some(e)).ok())
            .map(|row| row.get::<_, String>(0));
        let read = crate::anchor::read_copy("the database's anchor_lines", lines, pinned);
        if let Some(e) = failed {
            return Err(super::pg_error(e));
        }
        Ok(match read {
            Ok(anchored) => CopyRead::Read { first: first as u64, anchored },
            Err(e) => CopyRead::Bad(e),
        })
    }
}
