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
//! newest records show as unanchored). (`anchor::read` reads that file whole,
//! a line per committed batch: the one part that still grows with history,
//! about 18 bytes a record.)
//!
//! What grows with the differences found is the list of them: the
//! reconciliation lists at most `reconcile::SHOWN` of each kind per chain.
//!
//! [`verify`] and [`verify_anchored`] check a [`Snapshot`] held in memory: it is
//! written to an in-memory database and verified by the same code.

use std::collections::HashMap;

use baccarat_rules::{settle_wager, Card, Money, TableConfig};
use baccarat_table::engine::{DealtCard, Event, Position, Wager, WagerId};
use baccarat_table::shoe::{shuffled, CutRules, Shoe};

use crate::anchor::Anchored;
use crate::audit::{Body, Broken, CasinoEvent, Chain, CASINO_CHAIN};
use crate::ledger::{Account, AccountId, Cause, LedgerError, Transfer, TransferId, TransferKind};
use crate::reconcile::{answered_ids, keyed, Detail, Reconciler, Sums};
use crate::scan::Scan;
use crate::store::{Snapshot, StoreError, TableRow};
use crate::trust::{Actor, Mode};

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
}

/// A coup voided once its cards were out.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Void {
    pub table: u32,
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
        let store = crate::scan::store_snapshot(snap)?;
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
) -> Result<(Findings, Option<String>), String> {
    let conn = crate::scan::open_read_only(db).map_err(|e| format!("{}: {e}", db.display()))?;
    let path = anchors.map(Into::into).unwrap_or_else(|| crate::anchor::default_paths(db).0);
    // The anchors first, then the database as it is now (see the module doc).
    let (anchored, unread) = if path.exists() {
        match crate::anchor::read(&path, pinned) {
            Ok(a) => (Some(a), None),
            Err(e) => (None, Some(format!("anchors: {e}"))),
        }
    } else {
        (None, None)
    };
    // Archived history is read with the live rows (`archive.rs`); each
    // archive file must be the one registered. A missing one is named, and the
    // chains then show what is missing.
    let mut archive_problems = crate::archive::check_files(&conn, db).map_err(|e| e.to_string())?;
    let scan = match Scan::with_archives(&conn, db) {
        Ok(s) => s,
        Err(e) => {
            archive_problems.push(e.to_string());
            Scan::new(&conn)
        }
    };
    let run = || -> Result<Findings, StoreError> {
        scan.begin()?;
        let missing =
            (!path.exists() && scan.has_records()?).then(|| format!("anchors: no anchor file at {}", path.display()));
        let mut f = verify_scan(&scan, anchored.as_ref())?;
        scan.end()?;
        f.problems.extend(unread.clone().or(missing));
        f.problems.extend(archive_problems.iter().cloned());
        Ok(f)
    };
    let f = run().map_err(|e| e.to_string())?;
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
    let mut slips = crate::slip_answers::Problems::default();
    scan.each_answer(|key, json, cause| {
        f.answers += 1;
        match answered_ids(json) {
            Ok(ids) => match crate::slip_answers::holds(key, cause, &ids) {
                Ok(Some(holds)) => answered.add_slip(&holds).map(|_| true),
                Ok(None) => answered.add(&ids).map(|_| true),
                Err(why) => {
                    slips.push(why);
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
    let wallets = crate::slip_answers::wallets(&accounts);
    scan.each_transfer(|t| {
        f.transfers += 1;
        let hold = ledger.feed(&t);
        books.transfer(&t, hold);
        if unreadable.is_none() {
            match answered.next(t.id)? {
                None if keyed(&t) => books.unanswered(t.id),
                Some(Some(said)) => slips.extend(crate::slip_answers::check(&said, &t, &wallets)),
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
        Some(why) => Err(why),
        None => ledger.check(&accounts),
    };
    if let Err(e) = ledger {
        f.problems.push(format!("ledger: {}", LedgerError::Invariant(e)));
    }
    f.problems.extend(books.finish());
    Ok(f)
}

/// Each promotion's draw against the entries counted again from the log and
/// the draw made again from the revealed seed (`casino/promotions.rs`).
fn check_promotions(
    scan: &Scan,
    published: &std::collections::BTreeMap<u32, (String, String)>,
    draws: &[(u64, CasinoEvent)],
) -> Vec<String> {
    let mut problems = Vec::new();
    for (seq, d) in draws {
        let CasinoEvent::PromotionDrawn { promotion, .. } = d else { continue };
        let at = format!("the casino's chain record {seq}");
        let Some((text, commitment)) = published.get(promotion) else {
            problems.push(format!("{at}: a draw of promotion {promotion}, which was never published"));
            continue;
        };
        let terms = match baccarat_rules::promotion::Terms::from_toml(text) {
            Ok(t) => t,
            Err(p) => {
                problems.push(format!("{at}: promotion {promotion}'s terms do not check: {p}"));
                continue;
            }
        };
        match crate::promotion_entries::entries_in(scan, &terms) {
            Ok(entries) => problems.extend(
                crate::casino::promotions::check_draw(&terms, commitment, d, &entries)
                    .into_iter()
                    .map(|p| format!("{at}: {p}")),
            ),
            Err(e) => problems.push(format!("{at}: the entries cannot be counted: {e}")),
        }
    }
    problems
}

fn chain_name(table: u32) -> String {
    if table == CASINO_CHAIN {
        "the casino's chain".to_string()
    } else {
        format!("table {table}")
    }
}

/// Read one chain, record by record, through every check that applies to it.
/// `row`: the table's definition (none for the casino's chain).
fn walk(
    scan: &Scan,
    table: u32,
    row: Option<&TableRow>,
    anchors: Option<&Anchored>,
    books: &mut Reconciler,
    f: &mut Findings,
) -> Result<(), StoreError> {
    let name = chain_name(table);
    // The rulebook and configuration the table's records are checked against.
    let (mut rules, mut rng, refused) = match row.map(setup) {
        None => (None, None, None),
        Some(Ok((rb, cfg))) => {
            let rng = (Mode::from_id(&row.expect("a table").mode) == Some(Mode::Rng)).then(|| RngCheck::new(table));
            (Some(TableRules::new(table, rb, cfg)), rng, None)
        }
        Some(Err(e)) => (None, None, Some(e)),
    };
    let signed = anchors.map(|a| a.heads.get(&table).map_or(0, |(len, _)| *len));
    let mut sums = Sums::default();
    let mut config = ConfigCheck::default();
    let mut tournaments = (table == CASINO_CHAIN).then(crate::casino::tournaments::Replay::default);
    let mut chain = Chain::new();
    let (mut broken, mut count, mut at_signed): (Option<Broken>, u64, Option<String>) = (None, 0, None);
    let mut unreadable = Vec::new();
    let read = {
        let books = &*books;
        let mut reading = refused.is_none().then(|| books.chain(table));
        scan.each_record(table, |r| {
            if broken.is_none() {
                if let Err(e) = chain.follow(&r) {
                    broken = Some(e);
                    // The casino's chain is still reconciled (its deposits),
                    // a table's is not read on.
                    if table != CASINO_CHAIN {
                        return Ok(false);
                    }
                }
            }
            count += 1;
            if signed == Some(r.seq) {
                at_signed = Some(r.hash.clone());
            }
            let b = match Body::decode(&r.body) {
                Ok(b) => b,
                Err(e) => {
                    unreadable.push(format!("table {table} record {}: unreadable: {e}", r.seq));
                    return Ok(true);
                }
            };
            config.feed(&b);
            if let (Some(x), Some(e)) = (tournaments.as_mut(), &b.casino) {
                x.feed(r.seq, e, b.by);
            }
            if let Some(x) = rng.as_mut() {
                x.feed(r.seq, &b);
            }
            if let (Some(x), Some(e)) = (rules.as_mut(), &b.event) {
                x.feed(r.seq, e);
            }
            if let Some(x) = reading.as_mut() {
                x.feed(r.seq, &b, &mut |c, at, e| books.expect_into(&mut sums, c, at, e));
            }
            Ok(true)
        })?;
        reading.map(|r| r.finish())
    };
    if let Some(read) = read.filter(|_| broken.is_none() || table == CASINO_CHAIN) {
        books.close(table, read, sums);
    }
    if let Some(e) = &broken {
        f.problems.push(format!("{name}: audit chain broken at {e}"));
        if table != CASINO_CHAIN {
            f.records += scan.count_records(table)? as usize;
            return Ok(());
        }
    } else if let Some(len) = signed {
        if let Some(why) = cut(len, count, at_signed.as_deref(), anchors.and_then(|a| a.heads.get(&table))) {
            f.problems.push(format!("{name}: {why}"));
        }
        if count > len {
            f.unanchored
                .push(format!("{name}: records {} to {count} are past the last head the anchor file signed", len + 1));
        }
    }
    f.records += count as usize;
    f.problems.extend(unreadable);
    if let Some(x) = tournaments {
        f.problems.extend(x.problems);
        f.problems.extend(check_promotions(scan, &x.promotions, &x.draws));
    }
    if let Some(row) = row {
        if let Some(p) = config.problem(row) {
            f.problems.push(p);
        }
        if let Some(e) = refused {
            f.problems.push(e);
            return Ok(());
        }
    }
    if let Some(x) = rng {
        f.problems.extend(x.problems);
        f.voids.extend(x.voids);
    }
    if let Some(x) = rules {
        f.shoes += x.shoes;
        f.coups += x.coups;
        f.settlements += x.settled;
        f.problems.extend(x.problems);
    }
    Ok(())
}

/// A table's rulebook and configuration, or why its definition cannot be read.
fn setup(row: &TableRow) -> Result<(baccarat_rules::Rulebook, TableConfig), String> {
    let rb = baccarat_rules::profiles::builtin(&row.rulebook).map_err(|e| format!("table {}: {e}", row.id))?;
    let cfg = TableConfig::from_toml(&rb, &row.config).map_err(|e| format!("table {}: configuration: {e}", row.id))?;
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

/// The table's definition in the database is the one its chain last recorded.
#[derive(Default)]
struct ConfigCheck {
    last: Option<(String, String, String, Mode, bool)>,
}

impl ConfigCheck {
    fn feed(&mut self, b: &Body) {
        if let Some(CasinoEvent::TableConfigured { name, rulebook, config, mode, open, .. }) = &b.casino {
            self.last = Some((name.clone(), rulebook.clone(), config.clone(), *mode, *open));
        }
    }

    fn problem(&self, row: &TableRow) -> Option<String> {
        match &self.last {
            None => Some(format!("table {}: its chain records no configuration", row.id)),
            Some((name, rulebook, config, mode, open)) => (*name != row.name
                || *rulebook != row.rulebook
                || *config != row.config
                || mode.id() != row.mode
                || *open != row.open)
                .then(|| {
                    format!(
                        "table {}: its definition in the database is not the one its chain recorded (configuration changed outside the server)",
                        row.id
                    )
                }),
        }
    }
}

/// On an RNG table the RNG alone decided every card: no shoe was started, no
/// card dealt and no coup reconstructed by a person. Voids after the cards
/// were out are listed for the inspector.
struct RngCheck {
    table: u32,
    voids_of: Voids,
    problems: Vec<String>,
    voids: Vec<Void>,
}

impl RngCheck {
    fn new(table: u32) -> RngCheck {
        RngCheck { table, voids_of: Voids::new(table), problems: Vec::new(), voids: Vec::new() }
    }

    fn feed(&mut self, seq: u64, b: &Body) {
        let table = self.table;
        self.voids.extend(self.voids_of.feed(b));
        let Some(e) = &b.event else { return };
        let person = matches!(b.by, Some(Actor::Person { .. }));
        match e {
            Event::ShoeStarted { seed, .. } if person || seed.is_none() => self.problems.push(format!(
                "table {table} record {seq}: an RNG table's shoe was not shuffled by the server from its own seed"
            )),
            Event::CardDealt { .. } if person => {
                self.problems.push(format!("table {table} record {seq}: a person dealt a card at an RNG table"))
            }
            Event::Reconstructed { .. } => self.problems.push(format!(
                "table {table} record {seq}: an RNG table's cards were replaced or reordered (a reconstruction)"
            )),
            _ => {}
        }
    }
}

/// The coups voided after their cards were out, record by record.
struct Voids {
    table: u32,
    shoe: u64,
    coup: u64,
    cards_out: bool,
}

impl Voids {
    fn new(table: u32) -> Voids {
        Voids { table, shoe: 0, coup: 0, cards_out: false }
    }

    fn feed(&mut self, b: &Body) -> Option<Void> {
        match &b.event {
            Some(Event::ShoeStarted { shoe: n, .. }) => self.shoe = *n,
            Some(Event::BettingOpened { coup: n, .. }) => {
                self.coup = *n;
                self.cards_out = false;
            }
            Some(Event::CardDealt { .. }) => self.cards_out = true,
            Some(Event::CoupVoided { rule, .. }) if self.cards_out => {
                return Some(Void { table: self.table, shoe: self.shoe, coup: self.coup, by: b.by, rule: rule.clone() })
            }
            _ => {}
        }
        None
    }
}

/// The coups of a table voided after their cards were out: with the shoe,
/// who voided them and the rule given (for recall and verify: a pattern of
/// voids that favours anyone shows here).
pub fn voids_of(table: u32, bodies: &[(u64, Body)]) -> Vec<Void> {
    let mut v = Voids::new(table);
    bodies.iter().filter_map(|(_, b)| v.feed(b)).collect()
}

/// The voids of one table read from the database file, streamed on a
/// read-only connection (the recall route: memory stays bounded whatever the
/// table's history).
pub fn voids_in(db: &std::path::Path, table: u32) -> Result<Vec<Void>, String> {
    voids_in_db(&crate::store::Db::Sqlite(db.into()), table)
}

/// The same, on either back end.
pub fn voids_in_db(db: &crate::store::Db, table: u32) -> Result<Vec<Void>, String> {
    let read = |chains: &dyn crate::scan::Chains| -> Result<Vec<Void>, String> {
        let mut v = Voids::new(table);
        let mut out = Vec::new();
        chains
            .each_in_chain(table, &mut |r| {
                if let Ok(b) = Body::decode(&r.body) {
                    out.extend(v.feed(&b));
                }
                Ok(true)
            })
            .map_err(|e| e.to_string())?;
        Ok(out)
    };
    match db {
        crate::store::Db::Sqlite(path) => {
            let conn = crate::scan::open_read_only(path).map_err(|e| e.to_string())?;
            read(&crate::scan::Scan::with_archives(&conn, path).map_err(|e| e.to_string())?)
        }
        crate::store::Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url).map_err(|e| e.to_string())?;
            read(&crate::scan::HistoryChains(&store))
        }
    }
}

/// A table's events against its rules, one at a time: the shoe as reshuffled
/// from its seed and cut, and the current coup (its wagers and cards). The
/// engine keeps a coup's wagers from its `BettingOpened` to the next, and
/// settles, reduces, withdraws and returns only those; so does this.
struct TableRules {
    id: u32,
    rb: baccarat_rules::Rulebook,
    cfg: TableConfig,
    /// The cards the shoe should deal next, for shuffled shoes.
    shoe: Option<Shoe>,
    wagers: HashMap<WagerId, Wager>,
    cards: Vec<(Position, Card)>,
    coup: Option<baccarat_rules::Coup>,
    closes_at: Option<u64>,
    shoes: usize,
    coups: usize,
    settled: usize,
    problems: Vec<String>,
}

impl TableRules {
    fn new(id: u32, rb: baccarat_rules::Rulebook, cfg: TableConfig) -> TableRules {
        TableRules {
            id,
            rb,
            cfg,
            shoe: None,
            wagers: HashMap::new(),
            cards: Vec::new(),
            coup: None,
            closes_at: None,
            shoes: 0,
            coups: 0,
            settled: 0,
            problems: Vec::new(),
        }
    }

    fn p(&mut self, seq: u64, what: String) {
        self.problems.push(format!("table {} record {seq}: {what}", self.id));
    }

    fn feed(&mut self, seq: u64, e: &Event) {
        match e {
            Event::ShoeStarted { seed, commitment, preshuffled, cut, .. } => {
                self.shoes += 1;
                self.shoe = None;
                let stack = match (seed, preshuffled) {
                    // A malformed seed does not decode: the record is reported
                    // unreadable where it is read.
                    (Some(s), _) => {
                        if commitment.as_deref() != Some(&s.commitment_hex()) {
                            self.p(seq, "the seed does not match its published commitment".into());
                        }
                        Some(shuffled(self.cfg.decks, s).0)
                    }
                    (None, Some(cards)) => Some(cards.clone()),
                    _ => None,
                };
                if let Some(stack) = stack {
                    self.shoe = match cut {
                        Some(c) => match Shoe::cut(stack, *c, &CutRules::from_profile(&self.rb.config)) {
                            Ok(s) => Some(s),
                            Err(e) => {
                                self.p(seq, format!("recorded cut is not allowed: {e}"));
                                None
                            }
                        },
                        None => Some(Shoe::uncut(stack)),
                    };
                }
            }
            Event::Burned { procedure, cards: burned, .. } => {
                if let Some(s) = self.shoe.as_mut() {
                    match s.burn(*procedure, false) {
                        Ok(b) if b.cards == *burned => {}
                        _ => self.p(seq, "the burned cards are not the shoe's".into()),
                    }
                }
            }
            Event::CuttingCardOut { .. } => {
                if let Some(s) = self.shoe.as_mut() {
                    if !s.take_cutting_card() {
                        self.p(seq, "the cutting card came out where the cut did not put it".into());
                    }
                }
            }
            Event::BettingOpened { closes_at: close, .. } => {
                self.cards.clear();
                self.wagers.clear();
                self.coup = None;
                self.closes_at = *close;
            }
            Event::WagerPlaced { wager } => {
                if let (Some(close), Some(at)) = (self.closes_at, wager.at_ms) {
                    if at > close {
                        self.p(
                            seq,
                            format!("wager {} was accepted at {at} ms, after betting closed at {close} ms", wager.id),
                        );
                    }
                }
                self.wagers.insert(wager.id, wager.clone());
            }
            Event::WagerReduced { wager, to, .. } => {
                if let Some(w) = self.wagers.get_mut(wager) {
                    w.amount = *to;
                }
            }
            Event::CardDealt { position, card, .. } => {
                if let Some(s) = self.shoe.as_mut() {
                    match s.draw() {
                        baccarat_table::shoe::Draw::Card(c) if c == *card => {}
                        baccarat_table::shoe::Draw::Card(c) => {
                            self.p(seq, format!("dealt {card} where the shuffled shoe holds {c}"))
                        }
                        baccarat_table::shoe::Draw::Empty => self.p(seq, "dealt a card from an empty shoe".into()),
                    }
                }
                self.cards.push((*position, *card));
            }
            Event::Reconstructed { cards: rc, .. } => {
                self.cards = baccarat_table::engine::positions_of(rc);
            }
            Event::CoupCompleted { summary, .. } => {
                self.coups += 1;
                let positioned: Vec<DealtCard> =
                    self.cards.iter().map(|(p, c)| DealtCard { position: *p, card: *c, exposed: true }).collect();
                match baccarat_table::engine::coup_from_positions(&positioned) {
                    Some(c) => {
                        if c.summary() != *summary {
                            self.p(seq, format!("the cards make {:?}, not the recorded {:?}", c.summary(), summary));
                        }
                        self.coup = Some(c);
                    }
                    None => {
                        self.p(seq, "the recorded cards are not a coup dealt by the tableau".into());
                        self.coup = None;
                    }
                }
            }
            Event::WagerSettled { wager, outcome, settlement, .. } => {
                self.settled += 1;
                let Some(w) = self.wagers.get(wager) else {
                    self.p(seq, format!("settles unknown wager {wager}"));
                    return;
                };
                let mut found = Vec::new();
                match (outcome, &self.coup) {
                    (Some(o), Some(c)) => {
                        let want = w.bet.classify(c);
                        if want != *o {
                            found.push(format!("wager {wager}: outcome {o}, the rules say {want}"));
                        }
                        if let Some(offer) = self.cfg.offer(w.bet) {
                            let s = settle_wager(w.amount, &offer.pay_table, want, &self.cfg.settle);
                            if self.cfg.ante.is_none() && s != *settlement {
                                found.push(format!(
                                    "wager {wager}: settlement {settlement:?}, the pay table gives {s:?}"
                                ));
                            }
                        }
                    }
                    (None, _) => {
                        if settlement.returned + settlement.lost != w.amount || settlement.won != Money::ZERO {
                            found.push(format!("void wager {wager} is not returned whole"));
                        }
                    }
                    (Some(_), None) => found.push(format!("wager {wager} settled without a result")),
                }
                for what in found {
                    self.p(seq, what);
                }
            }
            _ => {}
        }
    }
}

/// The ledger's invariants over the whole log, from its transfers in id
/// order: what is kept is per account (the replayed balance) and per open
/// hold, never per transfer.
#[derive(Default)]
struct LedgerSums {
    /// Each account's posted transfers, credits less debits (`i128`: a forged
    /// amount cannot overflow the sum).
    replayed: HashMap<AccountId, i128>,
    /// Holds still open: id -> (debit, amount, cause).
    open: HashMap<TransferId, (AccountId, i64, Cause)>,
}

impl LedgerSums {
    /// Take the next transfer; returns the cause of the open hold a posting or
    /// release closed.
    fn feed(&mut self, t: &Transfer) -> Option<Cause> {
        let mut closed = None;
        match t.kind {
            TransferKind::Pending => {
                self.open.insert(t.id, (t.debit, t.amount.0, t.cause));
            }
            TransferKind::PostOf(h) | TransferKind::VoidOf(h) => closed = self.open.remove(&h).map(|o| o.2),
            TransferKind::Posted => {}
        }
        if matches!(t.kind, TransferKind::Posted | TransferKind::PostOf(_)) {
            *self.replayed.entry(t.debit).or_default() -= i128::from(t.amount.0);
            *self.replayed.entry(t.credit).or_default() += i128::from(t.amount.0);
        }
        closed
    }

    /// The invariants: balances sum to zero; each account holds what its open
    /// holds sum to and its balance is the sum of its transfers; none but the
    /// cage is below zero available. The first broken one, as the ledger
    /// would name it.
    fn check(&self, accounts: &[Account]) -> Result<(), String> {
        let sum: i128 = accounts.iter().map(|a| i128::from(a.balance)).sum();
        if sum != 0 {
            return Err(format!("balances sum to {sum}, not 0"));
        }
        let mut held: HashMap<AccountId, i128> = HashMap::new();
        for (debit, amount, _) in self.open.values() {
            *held.entry(*debit).or_default() += i128::from(*amount);
        }
        for a in accounts {
            if i128::from(a.held) != held.get(&a.id).copied().unwrap_or(0) {
                return Err(format!("account {} holds {} but its pending transfers sum otherwise", a.id, a.held));
            }
            if i128::from(a.balance) != self.replayed.get(&a.id).copied().unwrap_or(0) {
                return Err(format!("account {} balance {} is not the sum of its transfers", a.id, a.balance));
            }
            if !a.may_go_negative() && i128::from(a.balance) - i128::from(a.held) < 0 {
                return Err(format!("account {} is negative", a.id));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casino::{Casino, Request};
    use crate::store::{Commit, SqliteStore, Store};
    use baccarat_rules::Bet;
    use baccarat_table::engine::{Command, Phase, PlayerId, Spot};

    /// Two RNG tables, 15 coups each, three wagers a coup.
    fn played() -> Snapshot {
        let mut store = SqliteStore::memory().unwrap();
        let mut c = Casino::new();
        let mut commit = Commit::default();
        let config =
            "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n";
        for t in [1, 2] {
            c.create_table(t, "T", "au-casino", config, Mode::Rng, Money(10_000_000), &mut commit).unwrap();
        }
        for p in 1..=3 {
            let key = format!("in{p}");
            c.handle(Request::Deposit { player: PlayerId(p), amount: Money(1_000_000), key }, &mut commit);
        }
        for table in [1, 2] {
            c.handle(Request::NewShoe { table }, &mut commit);
            for coup in 0..15 {
                let command = Command::OpenBetting { no_bet: false, closes_at: None };
                c.handle(Request::Table { table, command, by: Actor::Server }, &mut commit);
                for p in 1..=3u32 {
                    let bet = [Bet::Banker, Bet::Player, Bet::Tie][p as usize - 1];
                    let (spot, amount, ante) = (Spot::Box(p as u8), Money(2000), Money::ZERO);
                    let key = format!("{table}-{coup}-{p}");
                    c.handle(Request::Wager { table, player: PlayerId(p), spot, bet, amount, key, ante }, &mut commit);
                }
                c.handle(Request::Table { table, command: Command::CloseBetting, by: Actor::Server }, &mut commit);
                while matches!(c.phase(table), Some(Phase::Closed | Phase::Dealing)) {
                    c.handle(Request::Table { table, command: Command::DealNext, by: Actor::Server }, &mut commit);
                }
            }
        }
        store.commit(&commit).unwrap();
        store.load().unwrap()
    }

    fn run(snap: &Snapshot, round: u64, shown: usize) -> Findings {
        let store = crate::scan::store_snapshot(snap).unwrap();
        let scan = Scan::new(store.connection());
        scan.begin().unwrap();
        verify_with(&scan, None, |a| Reconciler::new(a).with_limits(round, shown)).unwrap()
    }

    /// Rereading in many small rounds names the same differences as in one,
    /// and a long list is cut to the lowest causes with the number left out.
    #[test]
    fn differences_are_named_the_same_in_small_rounds_and_cut_to_the_lowest_causes() {
        let honest = played();
        assert!(run(&honest, 3, 2).problems.is_empty());
        // A third of table 1's postings raised (differences), and table 2's
        // rulebook unknown (its transfers unexplained).
        let mut s = honest.clone();
        let table_1 = |c: Cause| matches!(c, Cause::Wager { table: 1, .. });
        for t in s.transfers.iter_mut().filter(|t| t.kind == TransferKind::Posted && table_1(t.cause) && t.id % 3 == 0)
        {
            t.amount.0 += 1;
        }
        s.tables[1].rulebook = "no-such-rulebook".into();
        let whole = run(&s, u64::MAX, usize::MAX);
        let differences = whole.problems.iter().filter(|p| p.contains("does not match its audit event")).count();
        let unexplained = whole.problems.iter().filter(|p| p.contains("but no audit event explains it")).count();
        assert!(differences > 5 && unexplained > 5, "{:#?}", whole.problems);
        assert_eq!(run(&s, 7, usize::MAX).problems, whole.problems, "rounds of 7 transfers");
        let cut = run(&s, 7, 5).problems;
        let kept = |what: &str, p: &[String]| p.iter().filter(|p| p.contains(what)).cloned().collect::<Vec<_>>();
        let first = |what: &str| kept(what, &whole.problems)[..5].to_vec();
        assert_eq!(kept("does not match its audit event", &cut), first("does not match its audit event"));
        assert_eq!(kept("but no audit event explains it", &cut), first("but no audit event explains it"));
        assert!(
            cut.contains(&format!("ledger: … and {} more of table 1 do not match their audit events", differences - 5))
        );
        assert!(cut.contains(&format!(
            "ledger: … and {} more causes of table 2 that no audit event explains",
            unexplained - 5
        )));
    }
}

/// What `verify --since-checkpoint` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SinceCheckpoint {
    /// The checkpoint's id in the store, its time, and the key that signed it.
    pub checkpoint: i64,
    pub at_ms: u64,
    pub public: String,
    /// Records and transfers read after it.
    pub tail_records: u64,
    pub tail_transfers: u64,
    pub problems: Vec<String>,
}

/// Verify what was written after the latest checkpoint: the checkpoint's hash,
/// signature and key (the pinned key, else the anchor file's); that every
/// anchored head is in the database; that every chain continues link by link
/// from the checkpoint's head; and that the checkpoint's balances plus every
/// later transfer give the balances the store holds. This is the check a
/// server's start makes (`casino::recover`), run by an inspector: it trusts
/// the history before the checkpoint to the signature, so `verify --full` is
/// still the check of the whole history (the rules, the shoes, the
/// reconciliation).
pub fn verify_since_checkpoint(
    db: &crate::store::Db,
    anchors: Option<&std::path::Path>,
    pinned: Option<&str>,
) -> Result<SinceCheckpoint, String> {
    use crate::store::Db;
    let path = match (anchors, db) {
        (Some(p), _) => p.to_path_buf(),
        (None, Db::Sqlite(file)) => crate::anchor::default_paths(file).0,
        (None, Db::Postgres(_)) => {
            return Err("--anchor-file: required with a PostgreSQL --db (a URL has no file beside it)".into())
        }
    };
    let anchored = crate::anchor::read(&path, pinned).map_err(|e| format!("anchors: {e}"))?;
    let public = pinned.map(str::to_string).unwrap_or_else(|| anchored.public.clone());
    match db {
        Db::Sqlite(file) => {
            let store = crate::store::SqliteStore::open(file).map_err(|e| format!("{}: {e}", file.display()))?;
            store.in_snapshot(|s| since_checkpoint_in(s, &anchored, public)).map_err(|e| e.to_string())?
        }
        // Every read from one snapshot, as a start's would be.
        Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url).map_err(|e| format!("{}: {e}", db.shown()))?;
            store.in_snapshot(|s| since_checkpoint_in(s, &anchored, public)).map_err(|e| e.to_string())?
        }
    }
}

fn since_checkpoint_in(
    store: &dyn crate::store::History,
    anchored: &crate::anchor::Anchored,
    public: String,
) -> Result<SinceCheckpoint, String> {
    // Read a part at a time, without the read model (`checkpoint_check.rs`).
    let (id, opened) = crate::checkpoint_check::latest_without_read_model(store, &public)
        .map_err(|e| e.to_string())?
        .ok_or("the database has no checkpoint: verify the whole history (--full)")?;
    let mut out = SinceCheckpoint { checkpoint: id, public: public.clone(), ..SinceCheckpoint::default() };
    let cp = match opened {
        Ok(cp) => cp,
        Err(why) => {
            out.problems.push(why);
            return Ok(out);
        }
    };
    out.at_ms = cp.at_ms;
    let cuts = crate::serve::anchor_cuts(store, anchored)?;
    for (table, why) in &cuts {
        out.problems.push(format!("table {table}: {why}"));
    }
    match crate::casino::recover(store, Some(cp), crate::casino::Keys::None, &cuts.into_keys().collect()) {
        Ok(r) => {
            out.tail_records = r.tail_records;
            out.tail_transfers = r.tail_transfers;
            if let Err(e) = r.casino.ledger.check() {
                out.problems.push(format!("ledger: {e}"));
            }
        }
        Err(why) => out.problems.push(why),
    }
    Ok(out)
}

#[cfg(test)]
mod since_checkpoint_tests {
    use super::verify_since_checkpoint;
    use crate::casino::Request;
    use crate::serve::{heads_of, open, write_checkpoint, ServeConfig};
    use crate::store::{Commit, Store};
    use baccarat_rules::Money;
    use baccarat_table::engine::PlayerId;

    /// A clean tail verifies; a transfer altered after the checkpoint (so the
    /// stored balances no longer follow from it) and a checkpoint edited in
    /// place are found.
    #[test]
    fn the_tail_after_a_checkpoint_is_checked() {
        let dir = std::env::temp_dir().join(format!("baccarat-since-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("casino.db");
        let mut o = open(&ServeConfig::new(db.clone(), "127.0.0.1:0".parse().unwrap())).unwrap();
        let deposit = |o: &mut crate::serve::Opened, p: u32| {
            let mut c = Commit::default();
            o.casino
                .handle(Request::Deposit { player: PlayerId(p), amount: Money(5000), key: format!("k{p}") }, &mut c);
            o.store.commit(&c).unwrap();
            o.anchors.append(&heads_of(&c)).unwrap();
        };
        deposit(&mut o, 100);
        write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
        deposit(&mut o, 101);
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        assert!(t.tail_records >= 1 && t.tail_transfers >= 1, "{t:?}");
        // A forger raises the later deposit and the wallet's stored balance.
        let conn = o.store.sqlite().unwrap().connection();
        let last: i64 = conn.query_row("SELECT MAX(id) FROM transfers", [], |r| r.get(0)).unwrap();
        conn.execute("UPDATE transfers SET amount = amount + 1 WHERE id = ?1", [last]).unwrap();
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.iter().any(|p| p.contains("account")), "{:?}", t.problems);
        conn.execute("UPDATE transfers SET amount = amount - 1 WHERE id = ?1", [last]).unwrap();
        conn.execute("UPDATE checkpoints SET sha256 = 'x' || substr(sha256, 2)", []).unwrap();
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.iter().any(|p| p.contains("SHA-256")), "{:?}", t.problems);
        // Passed: the directory goes (a failure keeps it, to be looked at).
        drop(o);
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The ledger's invariants as the database holds them now, checked on a
/// connection of its own (the `/api/ledger/check` route: not in the writer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerCheck {
    pub problem: Option<String>,
    pub accounts: usize,
    pub transfers: u64,
}

/// Check the ledger of the database at `db` from one snapshot: the latest
/// checkpoint (its hash and signature under `public`) and the tail after it
/// rebuild the live ledger and tables, as a start does; their balances must be
/// the stored ones, the holds must match, and every hold must be for a wager
/// its table still holds. It costs the tail since the checkpoint, not the
/// history.
pub fn check_ledger(db: &std::path::Path, public: &str) -> Result<LedgerCheck, String> {
    check_ledger_of(&crate::store::Db::Sqlite(db.into()), public)
}

/// The same, on either back end: one snapshot either way.
pub fn check_ledger_of(db: &crate::store::Db, public: &str) -> Result<LedgerCheck, String> {
    match db {
        crate::store::Db::Sqlite(path) => {
            let store = crate::store::SqliteStore::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
            store.in_snapshot(|s| ledger_in(s, public)).map_err(|e| e.to_string())?
        }
        crate::store::Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url).map_err(|e| e.to_string())?;
            store.in_snapshot(|s| ledger_in(s, public)).map_err(|e| e.to_string())?
        }
    }
}

/// The ledger's check, reading `store` (already in one snapshot).
fn ledger_in(store: &dyn crate::store::History, public: &str) -> Result<LedgerCheck, String> {
    let cp = match crate::checkpoint_check::latest_without_read_model(store, public).map_err(|e| e.to_string())? {
        None => None,
        Some((_, opened)) => match opened {
            Ok(cp) => Some(cp),
            Err(why) => return Ok(LedgerCheck { problem: Some(why), accounts: 0, transfers: 0 }),
        },
    };
    let none = std::collections::BTreeSet::new();
    Ok(match crate::casino::recover(store, cp, crate::casino::Keys::None, &none) {
        Err(why) => LedgerCheck { problem: Some(why), accounts: 0, transfers: 0 },
        Ok(r) => {
            let l = &r.casino.ledger;
            let problem = l.check().err().map(|e| e.to_string()).or_else(|| r.casino.holds_problem());
            LedgerCheck { problem, accounts: l.accounts().count(), transfers: l.transfer_count() }
        }
    })
}
