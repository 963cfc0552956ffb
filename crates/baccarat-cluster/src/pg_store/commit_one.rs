//! A batch in one statement (issue 51 item 5: commits that carry their
//! weight).
//!
//! A batch was eight round trips to PostgreSQL: `BEGIN`, the fence, the
//! logs' ends, the transfers, the answers, the accounts, the records (with
//! the anchor lines) and `COMMIT`. Traced under `loadgen`, a commit took
//! about 3 ms, of which the WAL's flush was about 0.14 ms (`pg_test_fsync`
//! on this disk): the rest was the round trips, one after another, and the
//! backend's work between them, while the batches stayed small (15
//! requests) because each waited for them. In one statement a commit takes
//! about 2.3 ms, most of it now the backend's own work (index inserts, the
//! WAL): docs/performance.md.
//!
//! Here the same statements are the parts of one statement, data-modifying
//! `WITH` queries over the same arrays, run outside a transaction block, so
//! the statement is its own transaction: one round trip, and its commit.
//! PostgreSQL runs every part whatever the others do, so the statement's
//! last part checks that the fence held every lease and that every log's
//! end moved as asked, and raises an error if not (`baccarat_refuse`, made
//! by migration 10), which undoes the whole statement. A refused batch is
//! then sent again by the statements of `commit.rs`, which name what was
//! wrong (a lost lease, a gap in a chain) or do what this one does not (a
//! log's first row). Batches that make tables or move the bank's money go
//! that way from the start.

use postgres::Client;

use super::commit::{LedgerRows, Move, Statements};
use super::PgResult;
use crate::anchor::CopiedLine;
use crate::store::{Commit, StoreError};
use baccarat_core::TableId;

/// The message `baccarat_refuse` raises, by which a refusal is told from
/// any other error.
const REFUSED: &str = "baccarat: batch refused";

const SQL: &str = "WITH
 fenced AS (UPDATE leases l SET tbl = l.tbl
   FROM UNNEST($1::bigint[], $2::text[], $3::bigint[]) AS v(tbl, owner, epoch)
   WHERE l.tbl = v.tbl AND l.owner = v.owner AND l.epoch = v.epoch RETURNING 1),
 moved AS (UPDATE log_heads h SET last = v.last
   FROM UNNEST($4::text[], $5::bigint[], $6::bigint[], $7::bool[]) AS v(log, first, last, contiguous)
   WHERE h.log = v.log AND CASE WHEN v.contiguous THEN h.last = v.first - 1 ELSE h.last < v.first END
   RETURNING 1),
 transferred AS (INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
   SELECT * FROM UNNEST($8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::text[], $13::text[],
     $14::text[])),
 answered AS (INSERT INTO answer_log (seq, key, key_id, digest, answer, at_ms, cause)
   SELECT * FROM UNNEST($15::bigint[], $16::text[], $17::bytea[], $18::bytea[], $19::text[], $20::bigint[],
     $21::text[])),
 balanced AS (INSERT INTO accounts (id, kind, balance, held)
   SELECT * FROM UNNEST($22::bigint[], $23::text[], $24::bigint[], $25::bigint[])
   ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, held = excluded.held),
 recorded AS (INSERT INTO audit (tbl, seq, prev, body, hash)
   SELECT * FROM UNNEST($26::bigint[], $27::bigint[], $28::text[], $29::text[], $30::text[])),
 copied AS (INSERT INTO anchor_lines (seq, line) SELECT * FROM UNNEST($31::bigint[], $32::text[]))
SELECT baccarat_refuse((SELECT count(*) FROM fenced) = cardinality($1::bigint[])
                   AND (SELECT count(*) FROM moved) = cardinality($4::text[]))";

/// Commit `c` (its ledger rows `rows`, its logs' `moves`, the anchor lines
/// `lines`) in one statement: `Ok(true)` once durable, `Ok(false)` when
/// refused (nothing written: the caller sends it by the statements that
/// name why), any other error as it is.
pub(super) fn commit(
    client: &mut Client,
    cache: &mut Statements,
    fences: &std::collections::BTreeMap<TableId, super::Lease>,
    c: &Commit,
    rows: &LedgerRows<'_>,
    moves: &[Move],
    lines: &[CopiedLine],
) -> Result<bool, StoreError> {
    let st = statement(client, cache)?;
    let held = super::commit::leases_to_prove(fences, c);
    let ftbl: Vec<i64> = held.iter().map(|l| l.table.0 as i64).collect();
    let fowner: Vec<&str> = held.iter().map(|l| l.owner.as_str()).collect();
    let fepoch: Vec<i64> = held.iter().map(|l| l.epoch).collect();
    let mlog: Vec<&str> = moves.iter().map(|m| m.0.as_str()).collect();
    let mfirst: Vec<i64> = moves.iter().map(|m| m.1 as i64).collect();
    let mlast: Vec<i64> = moves.iter().map(|m| m.2 as i64).collect();
    let mcontiguous: Vec<bool> = moves.iter().map(|m| m.3).collect();
    let LedgerRows { xid, xdebit, xcredit, xamount, xkind, xmemo, xcause, .. } = rows;
    let LedgerRows { aseq, akey, akid, adigest, aanswer, aat, acause, .. } = rows;
    let (ids, kinds, balances, helds) = rows.account_columns();
    let (tbl, seq, prev, body, hash) = super::commit::record_columns(c);
    let (lseq, ltext) = super::anchor_lines::columns(lines);
    let done = client.query(
        &st,
        &[
            &ftbl,
            &fowner,
            &fepoch,
            &mlog,
            &mfirst,
            &mlast,
            &mcontiguous,
            xid,
            xdebit,
            xcredit,
            xamount,
            xkind,
            xmemo,
            xcause,
            aseq,
            akey,
            akid,
            adigest,
            aanswer,
            aat,
            acause,
            &ids,
            &kinds,
            &balances,
            &helds,
            &tbl,
            &seq,
            &prev,
            &body,
            &hash,
            &lseq,
            &ltext,
        ],
    );
    refused_or(done.map(|_| ()))
}

/// Whether the statement committed (`true`), was refused by its own check
/// (`false`), or failed otherwise (the error).
fn refused_or(done: Result<(), postgres::Error>) -> Result<bool, StoreError> {
    match done {
        Ok(()) => Ok(true),
        Err(e) if e.as_db_error().is_some_and(|d| d.message() == REFUSED) => Ok(false),
        Err(e) => Err(super::pg_error(e)),
    }
}

/// The statement, prepared on this connection the first time.
fn statement(client: &mut Client, cache: &mut Statements) -> Result<postgres::Statement, StoreError> {
    if let Some(s) = cache.get(SQL) {
        return Ok(s.clone());
    }
    let s = client.prepare(SQL).pg()?;
    cache.insert(SQL, s.clone());
    Ok(s)
}
