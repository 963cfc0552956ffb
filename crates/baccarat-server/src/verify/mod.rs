//! `baccarat verify`: check a database as an inspector would, trusting nothing
//! but the rules, the records and the signed anchors.
//!
//! For every table: the SHA-256 chain is intact and reaches at least the head
//! the anchor file last signed for it (so a cut, deleted or rewritten chain is
//! found); its configuration is the one its own chain last recorded; each
//! shoe's seed matches its published commitment and, reshuffled with the
//! recorded algorithm and cut, gives exactly the cards recorded as burned and
//! dealt; each coup's result is what the rules make of its cards; each wager's
//! outcome and settlement is what its pay table and the table's rounding give,
//! and no wager was accepted after its coup's recorded betting deadline. On an
//! RNG table no person supplied a card, an order or a seed (the trust matrix's
//! promise, checked from the record), and every void after the cards were out
//! is listed for the inspector. Then the ledger: balances sum to zero and
//! equal the sum of their transfers, and every transfer reconciles with the
//! audit event that caused it (`reconcile.rs`).
//!
//! # Streaming, in bounded memory (DESIGN 11)
//!
//! A database of any size is verified in memory that depends on what is live
//! (the accounts, the holds open, a coup, a shoe), never on how much happened.
//! It is read through a read-only connection (`scan.rs`), inside one read
//! transaction, in pages along each table's primary key:
//!
//! 1. Each chain, record by record in sequence order (the casino's first, then
//!    the tables by id). Every record goes to folds that keep only what the
//!    next record needs: the chain's head ([`Chain::follow`]), the last
//!    configuration recorded, the RNG trust check and the voids (the current
//!    shoe and coup numbers), the rules (`TableRules`: the shoe as reshuffled
//!    and cut, and the current coup's wagers and cards), and the transfers the
//!    record calls for, summed into the reconciliation's digest. A chain found
//!    broken is not read further: its table is then not checked against the
//!    rules or the ledger, and its transfers are unexplained.
//!
//!    A coup's wagers are forgotten when the next coup opens, as the engine
//!    forgets them (it settles, reduces, withdraws and returns only the
//!    wagers of its coup). So a record that settles a wager of an earlier coup
//!    is reported as settling an unknown wager; an in-memory check of the
//!    whole table, which remembered every wager, compared it with that old
//!    wager instead.
//! 2. The idempotency answers, in the order given: the transfer ids they name
//!    go to a temporary table in SQLite (which spills to disk), read back in id
//!    order. A bet slip's one answer names its holds with what it says each
//!    is (its table, first wager and placed lines: `slip_answers.rs`).
//! 3. The transfers, in id order: each account's replayed balance and the holds
//!    still open (for the ledger's invariants), the found side of the
//!    reconciliation's digest, and a merge with the answered ids for keyed
//!    transfers without an answer, and for slip holds that are not what their
//!    slip's answer says.
//! 4. Only where a chain's digest differs, the differing part of it again, to
//!    name each difference (`reconcile.rs`).
//!
//! The anchor file is read before the read transaction starts: the server
//! signs a head only after its records are committed, so every head signed is
//! in the snapshot read, and a live database verifies without false cuts (its
//! newest records show as unanchored). A PostgreSQL casino is read the same
//! way: its anchor file before the export's snapshot (`migrate::verify_pg`;
//! read after it, a serving casino's newest lines looked like a cut). It is
//! read with every segment of it still beside it (`anchor::read_all`): the
//! one part read here that grows with the history kept, a month of it in
//! each segment.
//!
//! What grows with the differences found is the list of them: the
//! reconciliation lists at most `reconcile::SHOWN` of each kind per chain.
//!
//! [`verify`] and [`verify_anchored`] check a [`Snapshot`] held in memory: it is
//! written to an in-memory database and verified by the same code.
//!
//! # Files
//!
//! * `mod.rs`: [`Findings`], [`Void`] and the entry points ([`verify`],
//!   [`verify_anchored`], [`verify_file`], [`verify_file_read`]), which read
//!   the chains, the answers and the transfers in the order above.
//! * `anchors_read.rs`: the anchor file, read before the snapshot
//!   ([`AnchorsRead`]).
//! * `walk.rs`: one chain, record by record, through every check that applies
//!   to it, and against the head the anchor file signed for it.
//! * `checks.rs`: a table's definition against the configuration its chain
//!   last recorded, and an RNG table's promise that no person decided a card.
//! * `voids.rs`: the coups voided after their cards were out ([`voids_of`],
//!   [`voids_in`], [`voids_in_db`]).
//! * `promotions.rs`: the casino's promotion draws, counted and drawn again.
//! * `table_rules.rs`: a table's events against its rules (`TableRules`).
//! * `ledger_sums.rs`: the ledger's invariants over the whole log, from its
//!   transfers in id order.
//! * `ledger_check.rs`: the ledger as the database holds it now, from the
//!   latest checkpoint and its tail ([`check_ledger`]).
//! * `since_checkpoint.rs`: `verify --since-checkpoint`
//!   ([`verify_since_checkpoint`]).
//! * `tests.rs`: the reconciliation's rereading, in rounds and cut.
//! * `books.rs`: a gaming day's books read off the store (the report route,
//!   `verify --day` and `verify --report`).
//!
//! [`Chain::follow`]: crate::audit::Chain::follow

use crate::anchor::Anchored;
use crate::audit::{Body, CASINO_CHAIN};
use crate::ledger::{Account, LedgerError};
use crate::store::scan::Scan;
use crate::store::{Snapshot, StoreError};
use crate::trust::Actor;
use baccarat_core::reconcile::{answered_ids, keyed, Detail, Reconciler};
use baccarat_core::TableId;

mod anchor_copy;
mod anchors_read;
mod books;
mod checks;
mod error;
mod ledger_check;
mod ledger_sums;
mod promotions;
mod since_checkpoint;
mod table_rules;
#[cfg(test)]
mod tests;
mod voids;
mod walk;

pub use anchors_read::AnchorsRead;
pub use books::{calendar_in, check_report, day_in, ratings_in};
pub use error::VerifyError;
pub use ledger_check::{check_ledger, check_ledger_of, LedgerCheck};
pub use since_checkpoint::{verify_since_checkpoint, SinceCheckpoint};
pub use voids::{voids_in, voids_in_db, voids_of};

use ledger_sums::LedgerSums;
use walk::walk;

/// What verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub tables: usize,
    pub records: usize,
    pub shoes: usize,
    pub coups: usize,
    pub settlements: usize,
    /// Ledger transfers read.
    pub transfers: usize,
    /// Idempotency answers read.
    pub answers: usize,
    pub problems: Vec<String>,
    /// Coups voided after their cards were out, for the inspector: each with its
    /// table, shoe, coup, who voided it and the rule given.
    pub voids: Vec<Void>,
    /// Records past the last head the anchor file signed, for the inspector: a
    /// server that stops cleanly leaves none, so these come from a crash
    /// between a commit and its anchor line — or were added outside the server.
    pub unanchored: Vec<String>,
    /// What the inspector should know that is not a difference: the anchor
    /// lines whose segments are not here (moved to cold storage, or destroyed
    /// after their retention: `anchor/segments.rs`).
    pub notes: Vec<String>,
}

/// A coup voided once its cards were out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Void {
    pub table: TableId,
    pub shoe: u64,
    pub coup: u64,
    pub by: Option<Actor>,
    pub rule: String,
}

/// Verify everything in `snap`, without anchors (a database alone).
pub fn verify(snap: &Snapshot) -> Findings {
    verify_anchored(snap, None)
}

/// Verify everything in `snap`, and every chain against the heads the anchor
/// file signed.
pub fn verify_anchored(snap: &Snapshot, anchors: Option<&Anchored>) -> Findings {
    let run = || -> Result<Findings, StoreError> {
        let store = crate::store::scan::store_snapshot(snap)?;
        let scan = Scan::new(store.connection());
        scan.begin()?;
        let f = verify_scan(&scan, anchors)?;
        scan.end()?;
        Ok(f)
    };
    run().unwrap_or_else(|e| Findings {
        problems: vec![format!("the snapshot cannot be verified: {e}")],
        ..Findings::default()
    })
}

/// Verify a database file with its anchor file (`anchors`; default beside
/// it). `pinned`: the public key the verifier trusts; without it the key named
/// in the anchor file is used, and reported. A database with records and no
/// anchor file is a finding: the file may have been removed. The file is
/// opened read-only and nothing in it is changed.
pub fn verify_file(
    db: &std::path::Path,
    anchors: Option<&std::path::Path>,
    pinned: Option<&str>,
) -> Result<(Findings, Option<String>), VerifyError> {
    let path = anchors.map(Into::into).unwrap_or_else(|| crate::anchor::default_paths(db).0);
    // The anchors first, then the database as it is now (see the module doc).
    verify_file_read(db, AnchorsRead::now(&path, pinned))
}

/// [`verify_file`], with its anchor file read already: before the snapshot
/// the database at `db` holds was taken (`migrate::verify_pg` reads them
/// before it exports a live PostgreSQL casino).
pub fn verify_file_read(db: &std::path::Path, anchors: AnchorsRead) -> Result<(Findings, Option<String>), VerifyError> {
    let conn = crate::store::scan::open_read_only(db)
        .map_err(|source| VerifyError::Open { db: db.display().to_string(), source })?;
    let AnchorsRead { path, anchored, unread, span, copied, problems, notes } = anchors;
    // Archived history is read with the live rows (`archive.rs`); each
    // archive file must be the one registered. A missing one is named, and the
    // chains then show what is missing.
    let mut archive_problems = crate::store::archive::check_files(&conn, db)?;
    let scan = match Scan::with_archives(&conn, db) {
        Ok(s) => s,
        Err(e) => {
            archive_problems.push(e.to_string());
            Scan::new(&conn)
        }
    };
    let run = || -> Result<Findings, StoreError> {
        scan.begin()?;
        let missing = (!copied && !path.exists() && scan.has_records()?)
            .then(|| format!("anchors: no anchor file at {}", path.display()));
        let mut f = verify_scan(&scan, anchored.as_ref())?;
        scan.end()?;
        f.problems.extend(unread.clone().or(missing));
        f.problems.extend(archive_problems.iter().cloned());
        f.problems.extend(problems.iter().cloned());
        f.notes.extend(notes.iter().cloned());
        for r in anchored.iter().flat_map(|a| &a.rotations) {
            f.notes.push(format!(
                "anchor line {}: the signing key was rotated from {} to {} (signed by both); every line after it is \
                 signed by the new key",
                r.line, r.from, r.to
            ));
        }
        if let Some(s) = span.as_ref().filter(|s| s.first > 1) {
            f.notes.push(format!(
                "anchor lines 1 to {} were not read: their segments are not beside {} (moved or destroyed); line {} carries every head they signed",
                s.first - 1,
                path.display(),
                s.first
            ));
        }
        Ok(f)
    };
    let f = run()?;
    Ok((f, anchored.map(|a| a.public)))
}

/// Everything, read through `scan` (inside its read transaction).
fn verify_scan(scan: &Scan, anchors: Option<&Anchored>) -> Result<Findings, StoreError> {
    verify_with(scan, anchors, Reconciler::new)
}

/// [`verify_scan`], the reconciliation made by `reconciler` from the accounts.
fn verify_with(
    scan: &Scan,
    anchors: Option<&Anchored>,
    reconciler: impl FnOnce(&[Account]) -> Reconciler,
) -> Result<Findings, StoreError> {
    let mut f = Findings::default();
    let tables = scan.tables()?;
    let accounts = scan.accounts()?;
    if let Some(a) = anchors {
        for (table, (len, _)) in &a.heads {
            if *table != CASINO_CHAIN && !tables.iter().any(|r| r.id == *table) {
                f.problems.push(format!(
                    "table {table}: the anchor file signed its chain at {len} records, but the database has no such table (deleted)"
                ));
            }
        }
    }
    let mut books = reconciler(&accounts);
    walk(scan, CASINO_CHAIN, None, anchors, &mut books, &mut f)?;
    for row in &tables {
        f.tables += 1;
        walk(scan, row.id, Some(row), anchors, &mut books, &mut f)?;
    }

    let mut answered = scan.answered()?;
    let mut unreadable = None;
    let mut slips = baccarat_core::slip_answers::Problems::default();
    scan.each_answer(|key, json, cause| {
        f.answers += 1;
        match answered_ids(json) {
            Ok(ids) => match baccarat_core::slip_answers::holds(key, cause, &ids) {
                Ok(Some(holds)) => answered.add_slip(&holds).map(|_| true),
                Ok(None) => answered.add(&ids).map(|_| true),
                Err(why) => {
                    slips.push(why.to_string());
                    answered.add(&ids).map(|_| true)
                }
            },
            Err(e) => {
                // The ledger and the check of keyed transfers stop at the
                // first unreadable answer, as restoring the ledger would.
                books.unreadable_answer(key, &e);
                unreadable = Some(format!("stored answer {key}: {e}"));
                Ok(false)
            }
        }
    })?;

    let mut ledger = LedgerSums::default();
    let wallets = baccarat_core::slip_answers::wallets(&accounts);
    scan.each_transfer(|t| {
        f.transfers += 1;
        let hold = ledger.feed(&t);
        books.transfer(&t, hold);
        if unreadable.is_none() {
            match answered.next(t.id)? {
                None if keyed(&t) => books.unanswered(t.id),
                Some(Some(said)) => slips.extend(baccarat_core::slip_answers::check(&said, &t, &wallets)),
                _ => {}
            }
        }
        Ok(())
    })?;
    drop(answered);
    f.problems.extend(slips.into_problems());

    // Reread only where the digests differ, to name each difference.
    for round in books.rounds() {
        let mut d = Detail::new(&round);
        for &table in round.parts.keys() {
            if !books.reconciled(table) {
                continue;
            }
            let mut reading = books.chain(table);
            scan.each_record(table, |r| {
                // An unreadable record was reported on the first pass.
                if let Ok(b) = Body::decode(&r.body) {
                    reading.feed(r.seq, &b, &mut |c, _, e| d.expect(c, e));
                }
                Ok(true)
            })?;
        }
        scan.each_transfer(|t| {
            d.transfer(t);
            Ok(())
        })?;
        books.settle(d);
    }

    let ledger = match unreadable {
        Some(why) => Err(LedgerError::Invariant(why)),
        None => ledger.check(&accounts),
    };
    if let Err(e) = ledger {
        f.problems.push(format!("ledger: {e}"));
    }
    f.problems.extend(books.finish());
    Ok(f)
}
