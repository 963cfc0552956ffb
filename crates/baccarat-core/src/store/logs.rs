//! The audit log and the transfers in SQLite, whichever form their rows take:
//! a row each (`audit`, `transfers`: every row written before migration 13)
//! or a batch's rows packed into one (`audit_blocks`, `transfer_blocks`:
//! everything written since; `blocks.rs` says why and how). Every reader and
//! writer of the two logs goes through here, on the live file and on archive
//! files alike, so no other code knows which form a row has.
//!
//! A chain's (or the transfers') single rows all come before its blocks:
//! a reader reads the rows first and then the blocks, in order. Positions are
//! the keys as SQLite keeps them (`i64`), so a forged row with a key below
//! every real one is still read, and named by `verify`.
//!
//! A file of a schema from before blocks (an old archive, or a database
//! `verify` opens read-only) has no block tables; it is read as rows alone.

use crate::ids::TableId;
use rusqlite::{params, Connection, OptionalExtension};

use super::blocks;
use super::StoreError;
use crate::audit::Record;
use crate::ledger::{Cause, Transfer};

/// Single rows read per query.
const ROWS: i64 = 10_000;
/// Blocks read per query (a block holds a batch's records of one chain, or a
/// batch's transfers: most are small, the largest a big settlement's chunk).
const BLOCKS: i64 = 16;

/// The block tables, created by migration 13 (and in each archive file
/// written since).
pub const SCHEMA: &str =
    "CREATE TABLE audit_blocks (tbl INTEGER NOT NULL, first INTEGER NOT NULL, last INTEGER NOT NULL,
       data BLOB NOT NULL);
     CREATE UNIQUE INDEX audit_blocks_at ON audit_blocks (tbl, last);
     CREATE TABLE transfer_blocks (last INTEGER PRIMARY KEY, first INTEGER NOT NULL, data BLOB NOT NULL);";

/// Whether a file has the block tables.
fn has_blocks(conn: &Connection) -> Result<bool, StoreError> {
    Ok(conn
        .prepare_cached("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'audit_blocks')")?
        .query_row([], |r| r.get(0))?)
}

fn record_row(r: &rusqlite::Row) -> Result<Record, rusqlite::Error> {
    Ok(Record { seq: r.get::<_, i64>(0)? as u64, prev: r.get(1)?, body: r.get(2)?, hash: r.get(3)? })
}

fn transfer_row(r: &rusqlite::Row) -> Result<Transfer, StoreError> {
    let id: i64 = r.get(0)?;
    let kind = r.get_ref(4)?.as_str().map_err(rusqlite::Error::from)?;
    let kind = match kind {
        "\"posted\"" => crate::ledger::TransferKind::Posted,
        "\"pending\"" => crate::ledger::TransferKind::Pending,
        _ => super::parse(kind)?,
    };
    let cause = r.get_ref(6)?.as_str().map_err(rusqlite::Error::from)?;
    Ok(Transfer {
        id: crate::ledger::TransferId(id as u64),
        debit: crate::ledger::AccountId(r.get::<_, i64>(1)? as u64),
        credit: crate::ledger::AccountId(r.get::<_, i64>(2)? as u64),
        amount: baccarat_rules::Money(r.get(3)?),
        kind,
        memo: r.get(5)?,
        cause: Cause::parse(cause)
            .ok_or_else(|| StoreError::Corrupt(format!("transfer {id}: unreadable cause {cause:?}")))?,
    })
}

/// Where a reader stopped: the key of the last row it passed on (its start
/// if none), and whether `f` asked it to stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Read {
    pub last: i64,
    pub stopped: bool,
}

/// Each record of chain `table` with a number above `after`, in order, until
/// `f` returns `false`.
pub fn each_record(
    conn: &Connection,
    table: TableId,
    after: i64,
    f: &mut dyn FnMut(Record) -> Result<bool, StoreError>,
) -> Result<Read, StoreError> {
    let mut at = Read { last: after, stopped: false };
    let mut q = conn
        .prepare_cached("SELECT seq, prev, body, hash FROM audit WHERE tbl = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")?;
    loop {
        let mut rows = q.query(params![table, at.last, ROWS])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            let rec = record_row(r)?;
            at.last = rec.seq as i64;
            n += 1;
            if !f(rec)? {
                at.stopped = true;
                return Ok(at);
            }
        }
        if n < ROWS {
            break;
        }
    }
    if !has_blocks(conn)? {
        return Ok(at);
    }
    let mut q = conn.prepare_cached(
        "SELECT first, last, data FROM audit_blocks WHERE tbl = ?1 AND last > ?2 ORDER BY last LIMIT ?3",
    )?;
    loop {
        let mut rows = q.query(params![table, at.last, BLOCKS])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            n += 1;
            let (first, last) = (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?);
            let from = at.last;
            at.last = last;
            for rec in blocks::decode_records(table, first as u64, last as u64, r.get_ref(2)?.as_blob()?)? {
                if (rec.seq as i64) <= from {
                    continue;
                }
                if !f(rec)? {
                    at.stopped = true;
                    return Ok(at);
                }
            }
        }
        if n < BLOCKS {
            return Ok(at);
        }
    }
}

/// [`each_record`] over several files in turn (archives oldest first, then
/// the live file), carrying the position from one to the next, so a record
/// in two of them (archived, its deletion not yet done) is read once.
pub fn each_record_in(
    sources: &[&Connection],
    table: TableId,
    mut after: i64,
    f: &mut dyn FnMut(Record) -> Result<bool, StoreError>,
) -> Result<(), StoreError> {
    for conn in sources {
        let read = each_record(conn, table, after, f)?;
        if read.stopped {
            break;
        }
        after = after.max(read.last);
    }
    Ok(())
}

/// Each transfer with an id above `after`, in order, until `f` returns
/// `false`.
pub fn each_transfer(
    conn: &Connection,
    after: i64,
    f: &mut dyn FnMut(Transfer) -> Result<bool, StoreError>,
) -> Result<Read, StoreError> {
    let mut at = Read { last: after, stopped: false };
    let mut q = conn.prepare_cached(
        "SELECT id, debit, credit, amount, kind, memo, cause FROM transfers WHERE id > ?1 ORDER BY id LIMIT ?2",
    )?;
    loop {
        let mut rows = q.query(params![at.last, ROWS])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            let t = transfer_row(r)?;
            at.last = t.id.0 as i64;
            n += 1;
            if !f(t)? {
                at.stopped = true;
                return Ok(at);
            }
        }
        if n < ROWS {
            break;
        }
    }
    if !has_blocks(conn)? {
        return Ok(at);
    }
    let mut q =
        conn.prepare_cached("SELECT first, last, data FROM transfer_blocks WHERE last > ?1 ORDER BY last LIMIT ?2")?;
    loop {
        let mut rows = q.query(params![at.last, BLOCKS])?;
        let mut n = 0;
        while let Some(r) = rows.next()? {
            n += 1;
            let (first, last) = (r.get::<_, i64>(0)?, r.get::<_, i64>(1)?);
            let from = at.last;
            at.last = last;
            for t in blocks::decode_transfers(first as u64, last as u64, r.get_ref(2)?.as_blob()?)? {
                if (t.id.0 as i64) <= from {
                    continue;
                }
                if !f(t)? {
                    at.stopped = true;
                    return Ok(at);
                }
            }
        }
        if n < BLOCKS {
            return Ok(at);
        }
    }
}

/// [`each_transfer`] over several files in turn, as [`each_record_in`].
pub fn each_transfer_in(
    sources: &[&Connection],
    mut after: i64,
    f: &mut dyn FnMut(Transfer) -> Result<bool, StoreError>,
) -> Result<(), StoreError> {
    for conn in sources {
        let read = each_transfer(conn, after, f)?;
        if read.stopped {
            break;
        }
        after = after.max(read.last);
    }
    Ok(())
}

/// Record `seq` of chain `table`, if this file has it.
pub fn record_at(conn: &Connection, table: TableId, seq: u64) -> Result<Option<Record>, StoreError> {
    let row = conn
        .prepare_cached("SELECT seq, prev, body, hash FROM audit WHERE tbl = ?1 AND seq = ?2")?
        .query_row(params![table, seq as i64], record_row)
        .optional()?;
    if row.is_some() || !has_blocks(conn)? {
        return Ok(row);
    }
    let block = conn
        .prepare_cached(
            "SELECT first, last, data FROM audit_blocks WHERE tbl = ?1 AND last >= ?2 ORDER BY last LIMIT 1",
        )?
        .query_row(params![table, seq as i64], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get(2)?)))
        .optional()?;
    match block {
        Some((first, last, data)) if first as u64 <= seq => {
            let data: Vec<u8> = data;
            Ok(blocks::decode_records(table, first as u64, last as u64, &data)?.into_iter().find(|r| r.seq == seq))
        }
        _ => Ok(None),
    }
}

/// The last record of chain `table` in this file, if any.
pub fn head(conn: &Connection, table: TableId) -> Result<Option<Record>, StoreError> {
    if has_blocks(conn)? {
        let block = conn
            .prepare_cached("SELECT first, last, data FROM audit_blocks WHERE tbl = ?1 ORDER BY last DESC LIMIT 1")?
            .query_row([table], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Vec<u8>>(2)?)))
            .optional()?;
        if let Some((first, last, data)) = block {
            return Ok(blocks::decode_records(table, first as u64, last as u64, &data)?.pop());
        }
    }
    Ok(conn
        .prepare_cached("SELECT seq, prev, body, hash FROM audit WHERE tbl = ?1 ORDER BY seq DESC LIMIT 1")?
        .query_row([table], record_row)
        .optional()?)
}

/// The largest transfer id in this file (0 if none).
pub fn last_transfer(conn: &Connection) -> Result<u64, StoreError> {
    let rows: i64 = conn.query_row("SELECT COALESCE(MAX(id), 0) FROM transfers", [], |r| r.get(0))?;
    let blocks: i64 = if has_blocks(conn)? {
        conn.query_row("SELECT COALESCE(MAX(last), 0) FROM transfer_blocks", [], |r| r.get(0))?
    } else {
        0
    };
    Ok(rows.max(blocks).max(0) as u64)
}

/// How many records of chain `table` numbered above `after` this file holds,
/// and the largest number, from the keys alone (no block is read).
pub fn count_records(conn: &Connection, table: TableId, after: i64) -> Result<(u64, Option<i64>), StoreError> {
    let (mut n, mut max): (i64, Option<i64>) = conn.query_row(
        "SELECT count(*), MAX(seq) FROM audit WHERE tbl = ?1 AND seq > ?2",
        params![table, after],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if has_blocks(conn)? {
        let (m, top): (i64, Option<i64>) = conn.query_row(
            "SELECT COALESCE(SUM(last - max(first - 1, ?2)), 0), MAX(last) FROM audit_blocks WHERE tbl = ?1 AND last > ?2",
            params![table, after],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        n += m;
        max = max.max(top);
    }
    Ok((n.max(0) as u64, max))
}

/// The chains this file holds records of, in order.
pub fn chains(conn: &Connection) -> Result<Vec<TableId>, StoreError> {
    let sql = if has_blocks(conn)? {
        "SELECT DISTINCT tbl FROM audit UNION SELECT DISTINCT tbl FROM audit_blocks ORDER BY 1"
    } else {
        "SELECT DISTINCT tbl FROM audit ORDER BY 1"
    };
    let mut q = conn.prepare(sql)?;
    let rows = q.query_map([], |r| r.get(0))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// How many audit records and transfers this file holds, from the keys
/// alone: single rows counted, blocks by the range each spans (a block's
/// records are numbered without gaps; its transfers' ids have none either,
/// as the ledger hands them out).
pub fn counts(conn: &Connection) -> Result<(u64, u64), StoreError> {
    let rows = |sql: &str| -> Result<i64, StoreError> { Ok(conn.query_row(sql, [], |r| r.get(0))?) };
    let (mut records, mut transfers) = (rows("SELECT count(*) FROM audit")?, rows("SELECT count(*) FROM transfers")?);
    if has_blocks(conn)? {
        records += rows("SELECT COALESCE(SUM(last - first + 1), 0) FROM audit_blocks")?;
        transfers += rows("SELECT COALESCE(SUM(last - first + 1), 0) FROM transfer_blocks")?;
    }
    Ok((records.max(0) as u64, transfers.max(0) as u64))
}

/// Whether this file holds any record.
pub fn has_records(conn: &Connection) -> Result<bool, StoreError> {
    let rows: bool = conn.query_row("SELECT EXISTS (SELECT 1 FROM audit)", [], |r| r.get(0))?;
    Ok(rows || (has_blocks(conn)? && conn.query_row("SELECT EXISTS (SELECT 1 FROM audit_blocks)", [], |r| r.get(0))?))
}

/// Write consecutive records of chain `table` as one block (in the caller's
/// transaction). `schema` names the database (`main`, or an attached archive).
pub fn insert_records(conn: &Connection, schema: &str, table: TableId, records: &[&Record]) -> Result<(), StoreError> {
    let (Some(first), Some(last)) = (records.first(), records.last()) else { return Ok(()) };
    let data = blocks::encode_records(records)?;
    conn.prepare_cached(&format!(
        "INSERT INTO {schema}.audit_blocks (tbl, first, last, data) VALUES (?1, ?2, ?3, ?4)"
    ))?
    .execute(params![table, first.seq as i64, last.seq as i64, data])?;
    Ok(())
}

/// Write transfers (rising ids) as one block (in the caller's transaction).
pub fn insert_transfers(conn: &Connection, schema: &str, transfers: &[&Transfer]) -> Result<(), StoreError> {
    let (Some(first), Some(last)) = (transfers.first(), transfers.last()) else { return Ok(()) };
    let data = blocks::encode_transfers(transfers)?;
    conn.prepare_cached(&format!("INSERT INTO {schema}.transfer_blocks (last, first, data) VALUES (?1, ?2, ?3)"))?
        .execute(params![last.id.0 as i64, first.id.0 as i64, data])?;
    Ok(())
}

/// Records a block of those copied or split holds at most.
const RECORDS_PER_BLOCK: usize = 4_096;

/// Copy records `from + 1 ..= to` of chain `table` from the main file into
/// the attached `schema` (an archive being written), as blocks.
pub fn copy_records(conn: &Connection, schema: &str, table: TableId, from: u64, to: u64) -> Result<(), StoreError> {
    let mut part: Vec<Record> = Vec::new();
    each_record(conn, table, from as i64, &mut |r| {
        if r.seq > to {
            return Ok(false);
        }
        part.push(r);
        if part.len() == RECORDS_PER_BLOCK {
            insert_records(conn, schema, table, &part.iter().collect::<Vec<_>>())?;
            part.clear();
        }
        Ok(true)
    })?;
    insert_records(conn, schema, table, &part.iter().collect::<Vec<_>>())
}

/// Copy transfers `from + 1 ..= to` from the main file into the attached
/// `schema`, as blocks.
pub fn copy_transfers(conn: &Connection, schema: &str, from: u64, to: u64) -> Result<(), StoreError> {
    let mut part: Vec<Transfer> = Vec::new();
    each_transfer(conn, from as i64, &mut |t| {
        if t.id.0 > to {
            return Ok(false);
        }
        part.push(t);
        if part.len() == RECORDS_PER_BLOCK {
            insert_transfers(conn, schema, &part.iter().collect::<Vec<_>>())?;
            part.clear();
        }
        Ok(true)
    })?;
    insert_transfers(conn, schema, &part.iter().collect::<Vec<_>>())
}

/// Delete records `from + 1 ..= to` of chain `table` from this file, `chunk`
/// rows (or a 64th as many blocks) per transaction; a block that runs past
/// `to` keeps its records after `to`.
pub fn delete_records(conn: &Connection, table: TableId, from: u64, to: u64, chunk: i64) -> Result<(), StoreError> {
    let mut q = conn.prepare(
        "DELETE FROM audit WHERE rowid IN (SELECT rowid FROM audit WHERE tbl = ?1 AND seq > ?2 AND seq <= ?3 LIMIT ?4)",
    )?;
    while q.execute(params![table, from as i64, to as i64, chunk])? > 0 {}
    if !has_blocks(conn)? {
        return Ok(());
    }
    let mut q = conn.prepare(
        "DELETE FROM audit_blocks WHERE rowid IN
           (SELECT rowid FROM audit_blocks WHERE tbl = ?1 AND first > ?2 AND last <= ?3 LIMIT ?4)",
    )?;
    while q.execute(params![table, from as i64, to as i64, (chunk / 64).max(1)])? > 0 {}
    let across = conn
        .query_row(
            "SELECT rowid, first, last, data FROM audit_blocks WHERE tbl = ?1 AND first <= ?2 AND last > ?2",
            params![table, to as i64],
            |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, Vec<u8>>(3)?)),
        )
        .optional()?;
    if let Some((rowid, first, last, data)) = across {
        let keep: Vec<Record> = blocks::decode_records(table, first as u64, last as u64, &data)?
            .into_iter()
            .filter(|r| r.seq > to)
            .collect();
        let tx = conn.unchecked_transaction()?;
        tx.execute("DELETE FROM audit_blocks WHERE rowid = ?1", [rowid])?;
        insert_records(&tx, "main", table, &keep.iter().collect::<Vec<_>>())?;
        tx.commit()?;
    }
    Ok(())
}

/// Delete transfers `from + 1 ..= to` from this file, as [`delete_records`].
pub fn delete_transfers(conn: &Connection, from: u64, to: u64, chunk: i64) -> Result<(), StoreError> {
    let mut q = conn
        .prepare("DELETE FROM transfers WHERE id IN (SELECT id FROM transfers WHERE id > ?1 AND id <= ?2 LIMIT ?3)")?;
    while q.execute(params![from as i64, to as i64, chunk])? > 0 {}
    if !has_blocks(conn)? {
        return Ok(());
    }
    let mut q = conn.prepare(
        "DELETE FROM transfer_blocks WHERE last IN
           (SELECT last FROM transfer_blocks WHERE first > ?1 AND last <= ?2 LIMIT ?3)",
    )?;
    while q.execute(params![from as i64, to as i64, (chunk / 64).max(1)])? > 0 {}
    let across = conn
        .query_row("SELECT first, last, data FROM transfer_blocks WHERE first <= ?1 AND last > ?1", [to as i64], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Vec<u8>>(2)?))
        })
        .optional()?;
    if let Some((first, last, data)) = across {
        let keep: Vec<Transfer> =
            blocks::decode_transfers(first as u64, last as u64, &data)?.into_iter().filter(|t| t.id.0 > to).collect();
        let tx = conn.unchecked_transaction()?;
        tx.execute("DELETE FROM transfer_blocks WHERE last = ?1", [last])?;
        insert_transfers(&tx, "main", &keep.iter().collect::<Vec<_>>())?;
        tx.commit()?;
    }
    Ok(())
}

/// Turn every block of this file back into single rows (`audit`,
/// `transfers`), in one transaction, and say how many records and transfers
/// were moved. Nothing they say changes, and every reader reads them as
/// before. For whoever wants the logs as plain SQL rows: an inspector's ad
/// hoc queries with `sqlite3`, and the tests that forge a database the way an
/// attacker with the file would.
pub fn unpack(conn: &Connection) -> Result<(u64, u64), StoreError> {
    if !has_blocks(conn)? {
        return Ok((0, 0));
    }
    let tx = conn.unchecked_transaction()?;
    let (mut records, mut transfers) = (0u64, 0u64);
    {
        let mut put = tx.prepare("INSERT INTO audit (tbl, seq, prev, body, hash) VALUES (?1, ?2, ?3, ?4, ?5)")?;
        let mut q = tx.prepare("SELECT tbl, first, last, data FROM audit_blocks ORDER BY tbl, last")?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let (tbl, first, last): (TableId, i64, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
            for rec in blocks::decode_records(tbl, first as u64, last as u64, r.get_ref(3)?.as_blob()?)? {
                put.execute(params![tbl, rec.seq as i64, rec.prev, rec.body, rec.hash])?;
                records += 1;
            }
        }
        let mut put = tx.prepare(
            "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        let mut q = tx.prepare("SELECT first, last, data FROM transfer_blocks ORDER BY last")?;
        let mut rows = q.query([])?;
        while let Some(r) = rows.next()? {
            let (first, last): (i64, i64) = (r.get(0)?, r.get(1)?);
            for t in blocks::decode_transfers(first as u64, last as u64, r.get_ref(2)?.as_blob()?)? {
                put.execute(params![
                    t.id.0 as i64,
                    t.debit.0 as i64,
                    t.credit.0 as i64,
                    t.amount.0,
                    super::json(&t.kind),
                    t.memo,
                    t.cause.encode()
                ])?;
                transfers += 1;
            }
        }
    }
    tx.execute_batch("DELETE FROM audit_blocks; DELETE FROM transfer_blocks;")?;
    tx.commit()?;
    Ok((records, transfers))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Chain;
    use crate::ledger::{TransferId, TransferKind};
    use baccarat_rules::Money;

    /// A chain of `n` records: the first `rows` as single rows (as written
    /// before blocks), the rest in blocks of `per_block`.
    fn written(conn: &Connection, table: TableId, n: u64, rows: u64, per_block: usize) -> Vec<Record> {
        let mut c = Chain::new();
        let all: Vec<Record> = (0..n).map(|i| c.append(format!("{{\"n\":{i}}}"))).collect();
        for r in &all[..rows as usize] {
            conn.execute(
                "INSERT INTO audit (tbl, seq, prev, body, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![table, r.seq as i64, r.prev, r.body, r.hash],
            )
            .unwrap();
        }
        for part in all[rows as usize..].chunks(per_block) {
            insert_records(conn, "main", table, &part.iter().collect::<Vec<_>>()).unwrap();
        }
        all
    }

    fn transfer(id: u64) -> Transfer {
        Transfer {
            id: TransferId(id),
            debit: crate::ledger::AccountId(1),
            credit: crate::ledger::AccountId(2),
            amount: Money(id as i64 * 100),
            kind: if id % 2 == 0 { TransferKind::PostOf(TransferId(id - 1)) } else { TransferKind::Pending },
            memo: "wager".into(),
            cause: Cause::Wager { table: TableId(1), wager: baccarat_table::WagerId(id) },
        }
    }

    fn records_after(conn: &Connection, table: TableId, after: i64) -> Vec<Record> {
        let mut out = Vec::new();
        each_record(conn, table, after, &mut |r| {
            out.push(r);
            Ok(true)
        })
        .unwrap();
        out
    }

    fn transfers_after(conn: &Connection, after: i64) -> Vec<Transfer> {
        let mut out = Vec::new();
        each_transfer(conn, after, &mut |t| {
            out.push(t);
            Ok(true)
        })
        .unwrap();
        out
    }

    #[test]
    fn rows_then_blocks_read_as_one_chain_from_any_point() {
        let store = crate::store::SqliteStore::memory().unwrap();
        let conn = store.connection();
        // More blocks than one query reads, and rows before them.
        let all = written(conn, TableId(4), 200, 7, 5);
        let other = written(conn, TableId(5), 3, 0, 2);
        assert_eq!(
            crate::audit::verify(&records_after(conn, TableId(4), i64::MIN)).unwrap(),
            crate::audit::verify(&all).unwrap()
        );
        for after in [0u64, 1, 6, 7, 8, 11, 12, 13, 150, 199, 200, 250] {
            let want: Vec<Record> = all.iter().filter(|r| r.seq > after).cloned().collect();
            assert_eq!(records_after(conn, TableId(4), after as i64), want, "after {after}");
        }
        assert_eq!(records_after(conn, TableId(5), 0), other);
        for seq in [1, 7, 8, 12, 200] {
            assert_eq!(record_at(conn, TableId(4), seq).unwrap().as_ref(), all.get(seq as usize - 1), "record {seq}");
        }
        assert_eq!(record_at(conn, TableId(4), 201).unwrap(), None);
        assert_eq!(record_at(conn, TableId(6), 1).unwrap(), None);
        assert_eq!(head(conn, TableId(4)).unwrap().as_ref(), all.last());
        assert_eq!(count_records(conn, TableId(4), 0).unwrap(), (200, Some(200)));
        assert_eq!(count_records(conn, TableId(4), 9).unwrap(), (191, Some(200)));
        assert_eq!(count_records(conn, TableId(4), 200).unwrap(), (0, None));
        assert_eq!(chains(conn).unwrap(), vec![TableId(4), TableId(5)]);
        assert_eq!(counts(conn).unwrap(), (203, 0));
        assert!(has_records(conn).unwrap());
        // A reader that stops says where.
        let mut seen = 0;
        let read = each_record(conn, TableId(4), 0, &mut |_| {
            seen += 1;
            Ok(seen < 10)
        })
        .unwrap();
        assert_eq!((seen, read.stopped), (10, true));
    }

    #[test]
    fn transfers_in_rows_then_blocks_read_in_order() {
        let store = crate::store::SqliteStore::memory().unwrap();
        let conn = store.connection();
        for id in 1..=3 {
            let t = transfer(id);
            conn.execute(
                "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![id as i64, 1, 2, t.amount.0, super::super::json(&t.kind), t.memo, t.cause.encode()],
            )
            .unwrap();
        }
        let blocks: Vec<Vec<Transfer>> = (0..40).map(|b| (4 + b * 3..7 + b * 3).map(transfer).collect()).collect();
        for b in &blocks {
            insert_transfers(conn, "main", &b.iter().collect::<Vec<_>>()).unwrap();
        }
        let all: Vec<Transfer> = (1..=123).map(transfer).collect();
        assert_eq!(transfers_after(conn, i64::MIN), all);
        for after in [0u64, 3, 4, 5, 60, 122, 123] {
            assert_eq!(transfers_after(conn, after as i64), all[after as usize..].to_vec(), "after {after}");
        }
        assert_eq!(last_transfer(conn).unwrap(), 123);
    }

    #[test]
    fn a_range_deleted_or_copied_may_end_inside_a_block() {
        let store = crate::store::SqliteStore::memory().unwrap();
        let conn = store.connection();
        let all = written(conn, TableId(1), 30, 4, 10); // rows 1-4; blocks 5-14, 15-24, 25-30
        for id in (1..=30).step_by(10) {
            let b: Vec<Transfer> = (id..id + 10).map(transfer).collect();
            insert_transfers(conn, "main", &b.iter().collect::<Vec<_>>()).unwrap();
        }
        conn.execute("ATTACH DATABASE ':memory:' AS arc", []).unwrap();
        conn.execute_batch(
            "CREATE TABLE arc.audit (tbl INTEGER NOT NULL, seq INTEGER NOT NULL, prev TEXT NOT NULL, body TEXT NOT NULL,
               hash TEXT NOT NULL, PRIMARY KEY (tbl, seq));
             CREATE TABLE arc.transfers (id INTEGER PRIMARY KEY, debit INTEGER NOT NULL, credit INTEGER NOT NULL,
               amount INTEGER NOT NULL, kind TEXT NOT NULL, memo TEXT NOT NULL, cause TEXT NOT NULL);",
        )
        .unwrap();
        conn.execute_batch(&SCHEMA.replace("CREATE TABLE ", "CREATE TABLE arc.").replace("INDEX ", "INDEX arc."))
            .unwrap();
        copy_records(conn, "arc", TableId(1), 2, 18).unwrap();
        copy_transfers(conn, "arc", 3, 17).unwrap();
        let archived: Vec<Record> = {
            let mut q = conn.prepare("SELECT first, last, data FROM arc.audit_blocks ORDER BY last").unwrap();
            let rows = q.query_map([], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, Vec<u8>>(2)?)));
            rows.unwrap()
                .flat_map(|b| {
                    let (f, l, d) = b.unwrap();
                    blocks::decode_records(TableId(1), f as u64, l as u64, &d).unwrap()
                })
                .collect()
        };
        assert_eq!(archived, all[2..18].to_vec(), "records 3 to 18 copied");
        let arc_transfers: i64 =
            conn.query_row("SELECT SUM(last - first + 1) FROM arc.transfer_blocks", [], |r| r.get(0)).unwrap();
        assert_eq!(arc_transfers, 14);

        delete_records(conn, TableId(1), 0, 18, 1).unwrap();
        assert_eq!(records_after(conn, TableId(1), i64::MIN), all[18..].to_vec(), "19 to 30 stay, the block split");
        delete_transfers(conn, 0, 17, 1).unwrap();
        assert_eq!(transfers_after(conn, i64::MIN), (18..=30).map(transfer).collect::<Vec<_>>());
        delete_records(conn, TableId(1), 18, 30, 1).unwrap();
        assert!(records_after(conn, TableId(1), i64::MIN).is_empty());
        assert!(!has_records(conn).unwrap());
    }

    #[test]
    fn unpacked_logs_read_the_same() {
        let store = crate::store::SqliteStore::memory().unwrap();
        let conn = store.connection();
        let all = written(conn, TableId(2), 25, 3, 4);
        let b: Vec<Transfer> = (1..=9).map(transfer).collect();
        insert_transfers(conn, "main", &b.iter().collect::<Vec<_>>()).unwrap();
        assert_eq!(unpack(conn).unwrap(), (22, 9));
        let blocks: i64 = conn.query_row("SELECT count(*) FROM audit_blocks", [], |r| r.get(0)).unwrap();
        assert_eq!(blocks, 0);
        assert_eq!(records_after(conn, TableId(2), i64::MIN), all);
        assert_eq!(transfers_after(conn, i64::MIN), b);
        assert_eq!(unpack(conn).unwrap(), (0, 0));
    }
}
