//! The key index checked against the answer log at a start, and rebuilt
//! from it when they disagree.
//!
//! The index is derived data, and a lookup reads each answer it finds from
//! the log, its key id checked, so a forged run cannot make a key answer
//! for another. What a forger (or a lost write) *can* do is hide a key: a
//! run deleted, or a chunk of one, and a retry under that key would be
//! taken as new, a second wager. So before the server serves, the live
//! runs are checked to hold every answer they should:
//!
//! * each loads (its filter and fences agree with its header) and has every
//!   chunk its header counts;
//! * no answer with a key id lies in a gap between the runs' seq ranges, or
//!   between the last of them and `covered`;
//! * the latest answer before the first run is past the retention window
//!   (with the margin a run is dropped after): an older run was dropped by
//!   expiry, not removed.
//!
//! On any disagreement every live run is dropped and the whole log is
//! indexed again ([`super::catch_up`] from seq 0), with a warning: slower
//! (a start of an 8 M-row database, 877 k answers, took 0.96 s rebuilding
//! against 0.52-0.60 s checking), never wrong. Not checked: a chunk
//! whose entries were rewritten in place (it hides keys as a deleted chunk
//! does, and only `verify`-style reading of every entry would see it); a
//! run deleted whose seq range lies inside another live run's (a catch-up
//! run can start a level above older runs, so ranges may nest); and a
//! run's header rewritten to widen its seq range over a deleted one (the
//! check trusts the headers' ranges). Each of these hides keys, as
//! deleting answer-log rows always could; none makes a key answer for
//! another.

use rusqlite::{params, Connection, OptionalExtension};

use super::maintain::DROP_MARGIN_MS;
use super::run::{part, Run, BLOOM, CHUNK, DROPPED, LIVE};
use super::{covered, set_covered};
use crate::store::StoreError;

/// What is wrong with the live runs, if anything.
pub fn check(conn: &Connection, retention_ms: u64) -> Result<Option<String>, StoreError> {
    let covered = covered(conn)?;
    let ids: Vec<i64> = conn
        .prepare("SELECT id FROM key_runs WHERE state = ?1 ORDER BY first_seq, id")?
        .query_map([LIVE], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let mut runs = Vec::with_capacity(ids.len());
    for id in ids {
        let r = match Run::load(conn, id) {
            Ok(r) => r,
            Err(StoreError::Corrupt(why)) => return Ok(Some(why)),
            Err(e) => return Err(e),
        };
        let chunks: i64 = conn.query_row(
            "SELECT count(*) FROM key_parts WHERE id >= ?1 AND id < ?2",
            params![part(id, CHUNK, 0), part(id, BLOOM, 0)],
            |r| r.get(0),
        )?;
        if chunks != r.chunks as i64 {
            return Ok(Some(format!("key index run {id} has {chunks} of its {} chunks", r.chunks)));
        }
        if r.first_seq > r.last_seq || r.last_seq > covered {
            return Ok(Some(format!(
                "key index run {id} covers seqs {}..={} beyond the {covered} indexed",
                r.first_seq, r.last_seq
            )));
        }
        runs.push(r);
    }
    // Before the first run: only answers past the window (dropped by expiry).
    let front = runs.first().map_or(covered + 1, |r| r.first_seq);
    let before: Option<(i64, i64)> = conn
        .query_row(
            "SELECT rowid, at_ms FROM answer_log WHERE rowid < ?1 AND key_id IS NOT NULL ORDER BY rowid DESC LIMIT 1",
            [front as i64],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    // The clock expiry ran on: the newest answer's time (the log is in time
    // order; a clock stepped back costs at worst a needless rebuild).
    let newest: i64 = conn.query_row(
        "SELECT max(coalesce((SELECT at_ms FROM answer_log ORDER BY rowid DESC LIMIT 1), 0),
                    coalesce((SELECT max(newest_ms) FROM key_runs), 0))",
        [],
        |r| r.get(0),
    )?;
    if let Some((seq, at_ms)) = before {
        if (at_ms as u64).saturating_add(retention_ms).saturating_add(DROP_MARGIN_MS) >= newest as u64 {
            return Ok(Some(format!("the answer at seq {seq} is within the keys' window but in no key index run")));
        }
    }
    unindexed_between(conn, &runs, front, covered)
}

/// An answer with a key between the runs (which start at `front`, in
/// order), or after the last up to `covered`: indexed by no run.
fn unindexed_between(conn: &Connection, runs: &[Run], front: u64, covered: u64) -> Result<Option<String>, StoreError> {
    let mut reach = front.saturating_sub(1);
    let ends = runs.iter().map(|r| (r.first_seq, r.last_seq)).chain(std::iter::once((covered + 1, covered)));
    for (first, last) in ends {
        if first > reach + 1 {
            let missed: Option<i64> = conn
                .query_row(
                    "SELECT rowid FROM answer_log WHERE rowid > ?1 AND rowid < ?2 AND key_id IS NOT NULL LIMIT 1",
                    params![reach as i64, first as i64],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(seq) = missed {
                return Ok(Some(format!("the answer at seq {seq} is indexed by no key index run")));
            }
        }
        reach = reach.max(last);
    }
    Ok(None)
}

/// Drop every live run and index the log again from its start (the next
/// [`super::catch_up`] does; the maintainer removes the dropped rows).
pub fn drop_all(conn: &mut Connection) -> Result<(), StoreError> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute("UPDATE key_runs SET state = ?1 WHERE state = ?2", params![DROPPED, LIVE])?;
    set_covered(&tx, 0)?;
    tx.commit()?;
    Ok(())
}
