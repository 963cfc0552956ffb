//! The PostgreSQL store's writes (`Store`): one transaction a batch, fenced
//! by the lease's epoch, each log's end moved forward in one statement, the
//! rows sent as arrays; checkpoints in parts. The design is in `pg_store.rs`.

use super::{PgResult, PgStore, CASINO_LEASE};
use crate::audit::Record;
use crate::ledger::{Account, AccountId};
use crate::store::Head;
use crate::store::{
    json, CheckpointBody, CheckpointSeal, Commit, History, Snapshot, Store, StoreError, CHECKPOINTS_KEPT,
};
use baccarat_core::TableId;

/// `sql` prepared on this connection, from `cache` after the first time.
pub(super) fn prepared(
    tx: &mut postgres::Transaction<'_>,
    cache: &mut std::collections::HashMap<&'static str, postgres::Statement>,
    sql: &'static str,
) -> Result<postgres::Statement, StoreError> {
    if let Some(s) = cache.get(sql) {
        return Ok(s.clone());
    }
    let s = tx.prepare(sql).pg()?;
    cache.insert(sql, s.clone());
    Ok(s)
}

impl Store for PgStore {
    /// One batch in one transaction, in this order: the fence, the tables,
    /// the logs' ends, the ledger's rows, the bank's moves, the records.
    fn commit(&mut self, c: &Commit) -> Result<(), StoreError> {
        // The anchor lines written since the last commit go in with this
        // one (`anchor_lines.rs`); back in the outbox if it fails.
        let lines = self.anchor_copy.as_ref().map(|o| o.take()).unwrap_or_default();
        let done = self.commit_with(c, &lines);
        if let (Err(_), Some(o)) = (&done, &self.anchor_copy) {
            o.put_back(lines);
        }
        done
    }
    fn load(&mut self) -> Result<Snapshot, StoreError> {
        let mut snap = Snapshot { tables: self.tables()?, accounts: self.accounts()?, ..Snapshot::default() };
        self.each_transfer_after(0, &mut |t| {
            snap.transfers.push(t);
            Ok(())
        })?;
        let mut c = self.c();
        for r in c.query("SELECT key, digest, answer FROM answer_log_all ORDER BY seq", &[]).pg()? {
            let k: String = r.get(0);
            let d: Vec<u8> = r.get(1);
            let d: [u8; 32] = d.try_into().map_err(|_| StoreError::Corrupt(format!("digest of answer {k}")))?;
            snap.answers.push((k, d, r.get(2)));
        }
        for r in c.query("SELECT tbl, seq, prev, body, hash FROM audit_all ORDER BY tbl, seq", &[]).pg()? {
            let tbl: i64 = r.get(0);
            let rec = Record { seq: r.get::<_, i64>(1) as u64, prev: r.get(2), body: r.get(3), hash: r.get(4) };
            snap.records.push((TableId(tbl as u32), rec));
        }
        Ok(snap)
    }

    /// In parts, each its own transaction, marked complete last, as in
    /// SQLite (`store.rs`): a long transaction would hold back the vacuum of
    /// every row the writer updates meanwhile.
    fn write_checkpoint_parts(
        &mut self,
        s: &Head,
        body: &mut CheckpointBody<'_>,
        seal: &mut CheckpointSeal<'_>,
    ) -> Result<(), StoreError> {
        use sha2::Digest;
        self.ensure_months_ahead(s.at_ms)?;
        let fence = self.fences.get(&CASINO_LEASE).cloned();
        let copy = self.anchor_copy.clone();
        let mut c = self.c();
        let id: i64 = c
            .query_one(
                "INSERT INTO checkpoints (at_ms, sha256, signature, public_key, complete) VALUES ($1, '', '', $2, false)
                 RETURNING id",
                &[&(s.at_ms as i64), &s.public_key],
            ).pg()?
            .get(0);
        let (mut n, mut hash) = (0i32, sha2::Sha256::new());
        body(&mut |part: &[u8]| {
            hash.update(part);
            c.execute("INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES ($1, $2, $3)", &[&id, &n, &part])
                .pg()?;
            n += 1;
            Ok(())
        })?;
        let (sha256, signature) = seal(&baccarat_table::hex(&hash.finalize()))?;
        // The anchor lines that wait go in with the seal: a clean stop's
        // checkpoint follows its last batch, whose line would wait else.
        let lines = copy.as_ref().map(|o| o.take()).unwrap_or_default();
        let sealed = complete(&mut c, fence.as_ref(), (id, &sha256, &signature), s, &lines);
        if let (Err(_), Some(o)) = (&sealed, &copy) {
            o.put_back(lines);
        }
        sealed
    }
}

impl PgStore {
    /// [`Store::commit`], with the anchor lines `lines` in the same
    /// transaction.
    fn commit_with(&mut self, c: &Commit, lines: &[crate::anchor::CopiedLine]) -> Result<(), StoreError> {
        let PgStore { client, fences, prepared: cache, one_statement, .. } = self;
        let client = client.get_mut().unwrap_or_else(|p| p.into_inner());
        let client = client.as_mut().expect("the client is open until the store is dropped");
        // The usual batch in one statement (`commit_one.rs`); a batch it
        // refuses, or one that makes tables or moves the bank's money, by
        // the statements below, which name what is wrong.
        let rows = LedgerRows::of(c);
        let moves = moves_of(c, &rows)?;
        if c.tables.is_empty() && c.bank.is_empty() {
            if super::commit_one::commit(client, cache, fences, c, &rows, &moves, lines)? {
                one_statement.0 += 1;
                return Ok(());
            }
            one_statement.1 += 1;
        }
        let mut tx = client.transaction().pg()?;
        fence(&mut tx, cache, fences, c)?;
        for t in &c.tables {
            let st = prepared(
                &mut tx,
                cache,
                "INSERT INTO tables (id, name, rulebook, config, mode, open) VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (id) DO UPDATE SET name = excluded.name, mode = excluded.mode, open = excluded.open",
            )?;
            tx.execute(&st, &[&(t.id.0 as i64), &t.name, &t.rulebook, &t.config, &t.mode, &t.open]).pg()?;
        }
        advance_all(&mut tx, cache, &moves)?;
        rows.insert(&mut tx, cache)?;
        // A partition's returns to the shared bank, and deposits at its cage,
        // in this transaction: in both books or in neither
        // (`casino/bank_side.rs`).
        for m in &c.bank {
            bank_move(&mut tx, m, fences)?;
        }
        insert_records(&mut tx, cache, c)?;
        super::anchor_lines::insert(&mut tx, Some(cache), lines)?;
        tx.commit().pg()?;
        Ok(())
    }
}

/// A checkpoint's seal, in one transaction: the fence, the checkpoint
/// marked complete (`id`, its SHA-256 and signature), the superseded ones
/// deleted, its mark kept, and the anchor lines that wait.
fn complete(
    c: &mut postgres::Client,
    fence: Option<&super::Lease>,
    (id, sha256, signature): (i64, &str, &str),
    s: &Head,
    lines: &[crate::anchor::CopiedLine],
) -> Result<(), StoreError> {
    let mut tx = c.transaction().pg()?;
    // A checkpoint is marked complete only under the casino's lease, if
    // this store writes under one: a server that lost it writes none.
    if let Some(l) = fence {
        let held = tx
            .execute(
                "UPDATE leases SET tbl = tbl WHERE tbl = $1 AND owner = $2 AND epoch = $3",
                &[&(CASINO_LEASE.0 as i64), &l.owner, &l.epoch],
            )
            .pg()?;
        if held == 0 {
            return Err(StoreError::Fenced(format!(
                "checkpoint: this server ({}) lost the casino's lease (epoch {})",
                l.owner, l.epoch
            )));
        }
    }
    super::anchor_lines::insert(&mut tx, None, lines)?;
    tx.execute(
        "UPDATE checkpoints SET sha256 = $2, signature = $3, complete = true WHERE id = $1",
        &[&id, &sha256, &signature],
    )
    .pg()?;
    let superseded = "id <= $1::bigint - $2::bigint OR (NOT complete AND id < $1::bigint)";
    tx.execute(
        &format!("DELETE FROM checkpoint_parts WHERE checkpoint IN (SELECT id FROM checkpoints WHERE {superseded})"),
        &[&id, &CHECKPOINTS_KEPT],
    )
    .pg()?;
    tx.execute(&format!("DELETE FROM checkpoints WHERE {superseded}"), &[&id, &CHECKPOINTS_KEPT]).pg()?;
    let heads = serde_json::to_string(&s.mark.heads).expect("heads serialise");
    tx.execute(
        "INSERT INTO marks (at_ms, last_transfer, heads) VALUES ($1, $2, $3)",
        &[&(s.mark.at_ms as i64), &(s.mark.last_transfer as i64), &heads],
    )
    .pg()?;
    tx.commit().pg()?;
    Ok(())
}

/// Move log `log`'s end to `last`, for rows starting at `first`: the end must
/// be `first - 1` exactly (`contiguous`: a chain), or below `first`; refused
/// otherwise, naming where the log ends. A log with no end yet starts at 1
/// (a chain) or anywhere (the others).
/// A log's end to move: `(log, first, last, contiguous)` as [`advance`] takes them.
pub(super) type Move = (String, u64, u64, bool);

/// The commit's prepared statements, by their text.
pub(super) type Statements = std::collections::HashMap<&'static str, postgres::Statement>;

/// The fence: each leased table this batch writes must still be under this
/// server's epoch. The update also locks the lease's row until the commit,
/// so a new owner's `acquire` waits for this batch and then raises the epoch
/// past it.
pub(super) fn fence(
    tx: &mut postgres::Transaction<'_>,
    cache: &mut Statements,
    fences: &std::collections::BTreeMap<TableId, super::Lease>,
    c: &Commit,
) -> Result<(), StoreError> {
    for l in leases_to_prove(fences, c) {
        let t = l.table;
        let st = prepared(tx, cache, "UPDATE leases SET tbl = tbl WHERE tbl = $1 AND owner = $2 AND epoch = $3")?;
        let held = tx.execute(&st, &[&(t.0 as i64), &l.owner, &l.epoch]).pg()?;
        if held == 0 {
            let now: Option<(String, i64)> = tx
                .query_opt("SELECT owner, epoch FROM leases WHERE tbl = $1", &[&(t.0 as i64)])
                .pg()?
                .map(|r| (r.get(0), r.get(1)));
            return Err(StoreError::Fenced(format!(
                "table {t}: this server ({}) writes under epoch {}, but the lease is now {}; nothing of this batch was written",
                l.owner,
                l.epoch,
                now.map_or("gone".to_string(), |(o, e)| format!("{o}'s, epoch {e}"))
            )));
        }
    }
    Ok(())
}

/// The leases a batch must prove: each leased table it writes, and the
/// casino's under the casino's lease (every batch proves it, whatever it
/// holds).
pub(super) fn leases_to_prove<'a>(
    fences: &'a std::collections::BTreeMap<TableId, super::Lease>,
    c: &Commit,
) -> Vec<&'a super::Lease> {
    let mut touched: std::collections::BTreeSet<TableId> =
        c.records.iter().map(|(t, _)| *t).chain(c.tables.iter().map(|t| t.id)).collect();
    if fences.contains_key(&CASINO_LEASE) {
        touched.insert(CASINO_LEASE);
    }
    touched.iter().filter_map(|t| fences.get(t)).collect()
}

/// A batch's ledger rows, column by column: each column is sent as one
/// array. The accounts are each one's last state in the batch.
#[derive(Default)]
pub(super) struct LedgerRows<'a> {
    pub(super) xid: Vec<i64>,
    pub(super) xdebit: Vec<i64>,
    pub(super) xcredit: Vec<i64>,
    pub(super) xamount: Vec<i64>,
    pub(super) xkind: Vec<String>,
    pub(super) xmemo: Vec<String>,
    pub(super) xcause: Vec<String>,
    pub(super) aseq: Vec<i64>,
    pub(super) akey: Vec<String>,
    pub(super) akid: Vec<Vec<u8>>,
    pub(super) adigest: Vec<Vec<u8>>,
    pub(super) aanswer: Vec<String>,
    pub(super) aat: Vec<i64>,
    pub(super) acause: Vec<String>,
    pub(super) last: std::collections::BTreeMap<AccountId, &'a Account>,
}

impl<'a> LedgerRows<'a> {
    pub(super) fn of(c: &'a Commit) -> LedgerRows<'a> {
        let mut r = LedgerRows::default();
        for ch in &c.ledger {
            for t in &ch.transfers {
                r.xid.push(t.id.0 as i64);
                r.xdebit.push(t.debit.0 as i64);
                r.xcredit.push(t.credit.0 as i64);
                r.xamount.push(t.amount.0);
                r.xkind.push(json(&t.kind));
                r.xmemo.push(t.memo.clone());
                r.xcause.push(t.cause.encode());
            }
            for a in &ch.accounts {
                r.last.insert(a.id, a);
            }
            if let Some(a) = &ch.answer {
                r.aseq.push(a.seq as i64);
                r.akey.push(a.key.clone());
                r.akid.push(a.key_id.to_le_bytes().to_vec());
                r.adigest.push(a.request.to_vec());
                r.aanswer.push(a.answer.clone());
                r.aat.push(a.at_ms as i64);
                r.acause.push(a.cause.encode());
            }
        }
        r
    }

    /// The transfers, the answers, then the accounts' new states.
    fn insert(&self, tx: &mut postgres::Transaction<'_>, cache: &mut Statements) -> Result<(), StoreError> {
        let LedgerRows { xid, xdebit, xcredit, xamount, xkind, xmemo, xcause, .. } = self;
        let LedgerRows { aseq, akey, akid, adigest, aanswer, aat, acause, last, .. } = self;
        if !xid.is_empty() {
            let st = prepared(tx, cache, "INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[], $7::text[])")?;
            tx.execute(&st, &[xid, xdebit, xcredit, xamount, xkind, xmemo, xcause]).pg()?;
        }
        if !aseq.is_empty() {
            let st = prepared(tx, cache, "INSERT INTO answer_log (seq, key, key_id, digest, answer, at_ms, cause)
                 SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::bytea[], $4::bytea[], $5::text[], $6::bigint[], $7::text[])")?;
            tx.execute(&st, &[aseq, akey, akid, adigest, aanswer, aat, acause]).pg()?;
        }
        if !last.is_empty() {
            let (ids, kinds, balances, helds) = self.account_columns();
            let st = prepared(
                tx,
                cache,
                "INSERT INTO accounts (id, kind, balance, held)
                 SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::bigint[], $4::bigint[])
                 ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, held = excluded.held",
            )?;
            tx.execute(&st, &[&ids, &kinds, &balances, &helds]).pg()?;
        }
        Ok(())
    }
}

impl LedgerRows<'_> {
    /// The accounts' new states, column by column: ids, kinds, balances, held.
    pub(super) fn account_columns(&self) -> (Vec<i64>, Vec<String>, Vec<i64>, Vec<i64>) {
        let last = &self.last;
        (
            last.keys().map(|&id| id.0 as i64).collect(),
            last.values().map(|a| json(&a.kind)).collect(),
            last.values().map(|a| a.balance).collect(),
            last.values().map(|a| a.held).collect(),
        )
    }
}

/// A batch's audit records, column by column: table, seq, prev, body, hash.
pub(super) type RecordColumns<'a> = (Vec<i64>, Vec<i64>, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>);

/// The batch's audit records, column by column.
pub(super) fn record_columns(c: &Commit) -> RecordColumns<'_> {
    (
        c.records.iter().map(|(t, _)| t.0 as i64).collect(),
        c.records.iter().map(|(_, r)| r.seq as i64).collect(),
        c.records.iter().map(|(_, r)| r.prev.as_str()).collect(),
        c.records.iter().map(|(_, r)| r.body.as_str()).collect(),
        c.records.iter().map(|(_, r)| r.hash.as_str()).collect(),
    )
}

/// The logs' ends a batch moves, forward only: each chain by exactly its new
/// records (no gap, no repeat), transfers and answers to higher ids.
pub(super) fn moves_of(c: &Commit, rows: &LedgerRows<'_>) -> Result<Vec<Move>, StoreError> {
    let mut moves = chain_moves(c)?;
    if let (Some(first), Some(last)) = (rows.xid.iter().min(), rows.xid.iter().max()) {
        moves.push(("transfers".into(), *first as u64, *last as u64, false));
    }
    if let (Some(first), Some(last)) = (rows.aseq.iter().min(), rows.aseq.iter().max()) {
        moves.push(("answers".into(), *first as u64, *last as u64, false));
    }
    Ok(moves)
}

/// Each chain's end to move: by exactly the batch's new records of it, which
/// must follow one another.
fn chain_moves(c: &Commit) -> Result<Vec<Move>, StoreError> {
    let mut chains: std::collections::BTreeMap<TableId, (u64, u64)> = std::collections::BTreeMap::new();
    for (t, r) in &c.records {
        match chains.get_mut(t) {
            Some((_, last)) if r.seq == *last + 1 => *last = r.seq,
            Some((_, last)) => {
                return Err(StoreError::Corrupt(format!(
                    "table {t}: record {} follows record {last} in one batch",
                    r.seq
                )))
            }
            None => {
                chains.insert(*t, (r.seq, r.seq));
            }
        }
    }
    Ok(chains.into_iter().map(|(t, (first, last))| (format!("audit:{t}"), first, last, true)).collect())
}

/// One of a partition's moves at the shared bank, made in the batch's
/// transaction.
fn bank_move(
    tx: &mut postgres::Transaction<'_>,
    m: &crate::pg_store::bank::Move,
    fences: &std::collections::BTreeMap<TableId, super::Lease>,
) -> Result<(), StoreError> {
    let made = crate::pg_store::bank::make_in(tx, m, fences.get(&CASINO_LEASE)).map_err(|e| match e {
        crate::pg_store::bank::BankError::Store(e) => e,
        crate::pg_store::bank::BankError::Fenced(why) => StoreError::Fenced(why),
        other => StoreError::Corrupt(format!("the bank refused a move: {other}")),
    })?;
    // A reference the bank already has is a move it already made (a
    // partition's schema restored behind the bank's): recorded again
    // here it would move nothing there (a return would lose the
    // money here). (A deposit's retry is answered before it comes
    // here: `bank/link.rs`.)
    if made.replayed {
        return Err(StoreError::Corrupt(format!(
            "the bank already has a move under {}: this partition's books are behind the bank's",
            m.reference
        )));
    }
    Ok(())
}

/// The batch's audit records, sent as arrays.
fn insert_records(tx: &mut postgres::Transaction<'_>, cache: &mut Statements, c: &Commit) -> Result<(), StoreError> {
    if !c.records.is_empty() {
        let (tbl, seq, prev, body, hash) = record_columns(c);
        let st = prepared(
            tx,
            cache,
            "INSERT INTO audit (tbl, seq, prev, body, hash)
                 SELECT * FROM UNNEST($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])",
        )?;
        tx.execute(&st, &[&tbl, &seq, &prev, &body, &hash]).pg()?;
    }
    Ok(())
}

/// Move every log's end in one statement (a batch touches a log per busy
/// table: one round trip each cost the committer more than the rows did).
/// A log that did not move as asked — its first row, or a gap or repeat —
/// is then tried alone by [`advance`], which names what is wrong.
fn advance_all(
    tx: &mut postgres::Transaction<'_>,
    cache: &mut std::collections::HashMap<&'static str, postgres::Statement>,
    moves: &[Move],
) -> Result<(), StoreError> {
    if moves.is_empty() {
        return Ok(());
    }
    let logs: Vec<&str> = moves.iter().map(|m| m.0.as_str()).collect();
    let firsts: Vec<i64> = moves.iter().map(|m| m.1 as i64).collect();
    let lasts: Vec<i64> = moves.iter().map(|m| m.2 as i64).collect();
    let contiguous: Vec<bool> = moves.iter().map(|m| m.3).collect();
    let update = prepared(
        tx,
        cache,
        "UPDATE log_heads h SET last = v.last
         FROM UNNEST($1::text[], $2::bigint[], $3::bigint[], $4::bool[]) AS v(log, first, last, contiguous)
         WHERE h.log = v.log AND CASE WHEN v.contiguous THEN h.last = v.first - 1 ELSE h.last < v.first END
         RETURNING h.log",
    )?;
    let moved: std::collections::BTreeSet<String> =
        tx.query(&update, &[&logs, &firsts, &lasts, &contiguous]).pg()?.iter().map(|r| r.get(0)).collect();
    for (log, first, last, contiguous) in moves.iter().filter(|m| !moved.contains(&m.0)) {
        advance(tx, log, *first, *last, *contiguous)?;
    }
    Ok(())
}

fn advance(
    tx: &mut postgres::Transaction<'_>,
    log: &str,
    first: u64,
    last: u64,
    contiguous: bool,
) -> Result<(), StoreError> {
    let (first, last) = (first as i64, last as i64);
    let moved = if contiguous {
        tx.execute(
            "UPDATE log_heads SET last = $3::bigint WHERE log = $1 AND last = $2::bigint - 1",
            &[&log, &first, &last],
        )
        .pg()?
    } else {
        tx.execute(
            "UPDATE log_heads SET last = $3::bigint WHERE log = $1 AND last < $2::bigint",
            &[&log, &first, &last],
        )
        .pg()?
    };
    if moved == 1 {
        return Ok(());
    }
    let end: Option<i64> = tx.query_opt("SELECT last FROM log_heads WHERE log = $1", &[&log]).pg()?.map(|r| r.get(0));
    if end.is_none() && (!contiguous || first == 1) {
        tx.execute("INSERT INTO log_heads (log, last) VALUES ($1, $2)", &[&log, &last]).pg()?;
        return Ok(());
    }
    Err(StoreError::Corrupt(format!(
        "{log}: rows {first} to {last} do not follow its end ({}); nothing of this batch was written",
        end.map_or("none".to_string(), |e| e.to_string())
    )))
}
