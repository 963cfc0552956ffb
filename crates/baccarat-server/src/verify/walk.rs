//! One chain read record by record through every check that applies to it,
//! and how it compares with the head the anchor file signed for it.

use crate::anchor::Anchored;
use crate::audit::{Body, Broken, CasinoEvent, Chain, CASINO_CHAIN};
use crate::store::scan::Scan;
use crate::store::{StoreError, TableRow};
use crate::trust::Mode;
use baccarat_core::reconcile::{Reconciler, Sums};
use baccarat_core::TableId;
use baccarat_rules::TableConfig;

use super::checks::{ClosedCheck, ConfigCheck, RngCheck};
use super::promotions::check_promotions;
use super::table_rules::TableRules;
use super::{Findings, VerifyError};

fn chain_name(table: TableId) -> String {
    if table == CASINO_CHAIN {
        "the casino's chain".to_string()
    } else {
        format!("table {table}")
    }
}

/// Read one chain, record by record, through every check that applies to it.
/// `row`: the table's definition (none for the casino's chain).
pub(super) fn walk(
    scan: &Scan,
    table: TableId,
    row: Option<&TableRow>,
    anchors: Option<&Anchored>,
    books: &mut Reconciler,
    f: &mut Findings,
) -> Result<(), StoreError> {
    let name = chain_name(table);
    // The rulebook and configuration the table's records are checked against.
    let (rules, rng, refused) = match row.map(setup) {
        None => (None, None, None),
        Some(Ok((rb, cfg))) => {
            let rng = (Mode::from_id(&row.expect("a table").mode) == Some(Mode::Rng)).then(|| RngCheck::new(table));
            (Some(TableRules::new(table, rb, cfg)), rng, None)
        }
        Some(Err(e)) => (None, None, Some(e.to_string())),
    };
    let signed = anchors.map(|a| a.heads.get(&table).map_or(0, |(len, _)| *len));
    let mut sums = Sums::default();
    let mut w = Walked {
        table,
        signed,
        rules,
        rng,
        config: ConfigCheck::default(),
        tournaments: (table == CASINO_CHAIN).then(crate::casino::tournaments::Replay::default),
        chain: Chain::new(),
        broken: None,
        count: 0,
        at_signed: None,
        unreadable: Vec::new(),
        found_at_start: Vec::new(),
        closed: ClosedCheck::default(),
    };
    let read = {
        let books = &*books;
        let mut reading = refused.is_none().then(|| books.chain(table));
        scan.each_record(table, |r| Ok(w.record(r, reading.as_mut(), books, &mut sums)))?;
        reading.map(|r| r.finish())
    };
    if let Some(read) = read.filter(|_| w.broken.is_none() || table == CASINO_CHAIN) {
        books.close(table, read, sums);
    }
    if let Some(e) = &w.broken {
        f.problems.push(format!("{name}: audit chain broken at {e}"));
        if table != CASINO_CHAIN {
            f.records += scan.count_records(table)? as usize;
            return Ok(());
        }
    } else if let Some(len) = signed {
        if let Some(why) = cut(len, w.count, w.at_signed.as_deref(), anchors.and_then(|a| a.heads.get(&table))) {
            f.problems.push(format!("{name}: {why}"));
        }
        if w.count > len {
            f.unanchored.push(format!(
                "{name}: records {} to {} are past the last head the anchor file signed",
                len + 1,
                w.count
            ));
        }
    }
    w.report(scan, row, refused, f);
    Ok(())
}

/// One chain as read so far: its links, and the checks its records go
/// through (each only where it applies).
struct Walked {
    table: TableId,
    /// The records the anchor file signed for the chain, if it is read.
    signed: Option<u64>,
    rules: Option<TableRules>,
    rng: Option<RngCheck>,
    config: ConfigCheck,
    tournaments: Option<crate::casino::tournaments::Replay>,
    chain: Chain,
    broken: Option<Broken>,
    count: u64,
    /// The hash of the record the anchor file signed as the chain's head.
    at_signed: Option<String>,
    unreadable: Vec<String>,
    /// Records a start found past the anchor file's heads, and signed then.
    found_at_start: Vec<String>,
    /// Nothing after a close for good.
    closed: ClosedCheck,
}

impl Walked {
    /// One record: its link, then every check that applies to it, the
    /// ledger's expected transfers into `sums`. `false`: read no further
    /// (a table's chain broken).
    fn record(
        &mut self,
        r: crate::audit::Record,
        reading: Option<&mut baccarat_core::reconcile::ChainExpect<'_>>,
        books: &Reconciler,
        sums: &mut Sums,
    ) -> bool {
        let table = self.table;
        if self.broken.is_none() {
            if let Err(e) = self.chain.follow(&r) {
                self.broken = Some(e);
                // The casino's chain is still reconciled (its deposits),
                // a table's is not read on.
                if table != CASINO_CHAIN {
                    return false;
                }
            }
        }
        self.count += 1;
        if self.signed == Some(r.seq) {
            self.at_signed = Some(r.hash.clone());
        }
        let b = match Body::decode(&r.body) {
            Ok(b) => b,
            Err(e) => {
                self.unreadable.push(format!("table {table} record {}: unreadable: {e}", r.seq));
                return true;
            }
        };
        self.config.feed(&b);
        if let Some(CasinoEvent::FoundUnanchored { chains }) = &b.casino {
            self.found_at_start.extend(chains.iter().map(|u| {
                format!(
                    "{}: records {} to {} were past the last head the anchor file signed when the server started (the casino's record {}), and were signed then",
                    chain_name(u.table), u.from, u.to, r.seq
                )
            }));
        }
        if let (Some(x), Some(e)) = (self.tournaments.as_mut(), &b.casino) {
            x.feed(r.seq, e, b.by);
        }
        if let Some(x) = self.rng.as_mut() {
            x.feed(r.seq, &b);
        }
        if let (Some(x), Some(e)) = (self.rules.as_mut(), &b.event) {
            x.feed(r.seq, e);
        }
        if let Some(x) = reading {
            x.feed(r.seq, &b, &mut |c, at, e| books.expect_into(sums, c, at, e));
        }
        if table != CASINO_CHAIN {
            self.closed.feed(table, r.seq, &b);
        }
        true
    }

    /// What the checks found, once the chain is read (its links and anchors
    /// reported before): the records counted, then each check's problems.
    fn report(self, scan: &Scan, row: Option<&TableRow>, refused: Option<String>, f: &mut Findings) {
        f.records += self.count as usize;
        f.problems.extend(self.unreadable);
        f.unanchored.extend(self.found_at_start);
        f.problems.extend(self.closed.problems);
        if let Some(x) = self.tournaments {
            f.problems.extend(x.problems);
            f.problems.extend(check_promotions(scan, &x.promotions, &x.draws));
        }
        if let Some(row) = row {
            if let Some(p) = self.config.problem(row) {
                f.problems.push(p);
            }
            if let Some(e) = refused {
                f.problems.push(e);
                return;
            }
        }
        if let Some(x) = self.rng {
            f.problems.extend(x.problems);
            f.voids.extend(x.voids);
        }
        if let Some(x) = self.rules {
            f.shoes += x.shoes;
            f.coups += x.coups;
            f.settlements += x.settled;
            f.problems.extend(x.problems);
        }
    }
}

/// A table's rulebook and configuration, or why its definition cannot be read.
fn setup(row: &TableRow) -> Result<(baccarat_rules::Rulebook, TableConfig), VerifyError> {
    let table = row.id;
    let rb =
        baccarat_rules::profiles::builtin(&row.rulebook).map_err(|source| VerifyError::Rulebook { table, source })?;
    let cfg =
        TableConfig::from_toml(&rb, &row.config).map_err(|source| VerifyError::Configuration { table, source })?;
    Ok((rb, cfg))
}

/// Whether a chain of `count` records falls short of the head the anchor file
/// signed for it (`len` records, `signed`), given the hash of its record
/// `len` (`at_len`).
fn cut(len: u64, count: u64, at_len: Option<&str>, signed: Option<&(u64, String)>) -> Option<String> {
    let (_, head) = signed?;
    if len == 0 {
        None
    } else if count < len {
        Some(format!("the anchor file signed {len} records, the chain has {count} (its tail was cut)"))
    } else if at_len != Some(head.as_str()) {
        Some(format!("record {len} is not the one the anchor file signed (the chain was rewritten)"))
    } else {
        None
    }
}
