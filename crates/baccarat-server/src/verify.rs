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

use std::collections::HashMap;

use baccarat_rules::{settle_wager, Card, Money, TableConfig};
use baccarat_table::engine::{DealtCard, Event, Position, Wager, WagerId};
use baccarat_table::shoe::{shuffled, CutRules, Shoe};

use crate::anchor::Anchored;
use crate::audit::{verify as verify_chain, Body, CasinoEvent, Record, CASINO_CHAIN};
use crate::store::{Snapshot, TableRow};
use crate::trust::{Actor, Mode};

/// What verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub tables: usize,
    pub records: usize,
    pub shoes: usize,
    pub coups: usize,
    pub settlements: usize,
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
    let mut f = Findings::default();
    let records_of = |table: u32| -> Vec<Record> {
        snap.records.iter().filter(|(t, _)| *t == table).map(|(_, r)| r.clone()).collect()
    };
    if let Some(a) = anchors {
        for (table, (len, _)) in &a.heads {
            if *table != CASINO_CHAIN && !snap.tables.iter().any(|r| r.id == *table) {
                f.problems.push(format!(
                    "table {table}: the anchor file signed its chain at {len} records, but the database has no such table (deleted)"
                ));
            }
        }
    }
    let casino = records_of(CASINO_CHAIN);
    f.records += casino.len();
    check_chain(CASINO_CHAIN, &casino, anchors, &mut f);
    // The ledger is reconciled chain by chain, so each chain's decoded records
    // are dropped once read.
    let mut books = crate::reconcile::Reconciler::new(snap);
    books.chain(CASINO_CHAIN, &decode_all(CASINO_CHAIN, &casino, &mut f));
    for row in &snap.tables {
        f.tables += 1;
        let records = records_of(row.id);
        f.records += records.len();
        if !check_chain(row.id, &records, anchors, &mut f) {
            continue;
        }
        let decoded = decode_all(row.id, &records, &mut f);
        check_configuration(row, &decoded, &mut f);
        let rb = match baccarat_rules::profiles::builtin(&row.rulebook) {
            Ok(rb) => rb,
            Err(e) => {
                f.problems.push(format!("table {}: {e}", row.id));
                continue;
            }
        };
        let cfg = match TableConfig::from_toml(&rb, &row.config) {
            Ok(c) => c,
            Err(e) => {
                f.problems.push(format!("table {}: configuration: {e}", row.id));
                continue;
            }
        };
        let mode = Mode::from_id(&row.mode);
        if mode == Some(Mode::Rng) {
            check_rng(row.id, &decoded, &mut f);
        }
        let events: Vec<(u64, Event)> =
            decoded.iter().filter_map(|(seq, b)| b.event.clone().map(|e| (*seq, e))).collect();
        check_table(row.id, &rb, &cfg, &events, &mut f);
        books.chain(row.id, &decoded);
    }
    if let Err(e) = crate::ledger::check_log(&snap.accounts, &snap.transfers) {
        f.problems.push(format!("ledger: {e}"));
    }
    f.problems.extend(books.finish());
    f
}

/// The chain is intact and reaches the anchored head. Returns whether it is
/// intact enough to read on.
fn check_chain(table: u32, records: &[Record], anchors: Option<&Anchored>, f: &mut Findings) -> bool {
    let name = if table == CASINO_CHAIN { "the casino's chain".to_string() } else { format!("table {table}") };
    if let Err(e) = verify_chain(records) {
        f.problems.push(format!("{name}: audit chain broken at {e}"));
        return false;
    }
    if let Some(a) = anchors {
        let len = match a.heads.get(&table) {
            Some((len, head)) => {
                if let Some(why) = cut(records, *len, head) {
                    f.problems.push(format!("{name}: {why}"));
                }
                *len
            }
            None => 0,
        };
        if records.len() as u64 > len {
            f.unanchored.push(format!(
                "{name}: records {} to {} are past the last head the anchor file signed",
                len + 1,
                records.len()
            ));
        }
    }
    true
}

/// Whether a chain falls short of the head the anchor file signed for it.
fn cut(records: &[Record], len: u64, head: &str) -> Option<String> {
    match records.get((len as usize).wrapping_sub(1)) {
        None if len > 0 => {
            Some(format!("the anchor file signed {len} records, the chain has {} (its tail was cut)", records.len()))
        }
        Some(r) if r.hash != head => {
            Some(format!("record {len} is not the one the anchor file signed (the chain was rewritten)"))
        }
        _ => None,
    }
}

/// The chains (by table; the casino's is 0) that fall short of their anchored
/// heads, or are gone: the start-up check.
pub fn anchor_problems(snap: &Snapshot, anchors: &Anchored) -> std::collections::BTreeMap<u32, String> {
    let mut out = std::collections::BTreeMap::new();
    for (table, (len, head)) in &anchors.heads {
        let records: Vec<Record> = snap.records.iter().filter(|(t, _)| t == table).map(|(_, r)| r.clone()).collect();
        let known = *table == CASINO_CHAIN || snap.tables.iter().any(|r| r.id == *table);
        let why = if !known {
            Some(format!("the anchor file signed {len} records, but the table is gone from the database"))
        } else if let Err(e) = verify_chain(&records) {
            Some(format!("audit chain broken at {e}"))
        } else {
            cut(&records, *len, head)
        };
        if let Some(w) = why {
            out.insert(*table, w);
        }
    }
    out
}

/// Verify a database file with its anchor file (`anchors`; default beside
/// it). `pinned`: the public key the verifier trusts; without it the key named
/// in the anchor file is used, and reported. A database with records and no
/// anchor file is a finding: the file may have been removed.
pub fn verify_file(
    db: &std::path::Path,
    anchors: Option<&std::path::Path>,
    pinned: Option<&str>,
) -> Result<(Findings, Option<String>), String> {
    let mut store = crate::store::SqliteStore::open(db).map_err(|e| format!("{}: {e}", db.display()))?;
    let snap = crate::store::Store::load(&mut store).map_err(|e| e.to_string())?;
    let path = anchors.map(Into::into).unwrap_or_else(|| crate::anchor::default_paths(db).0);
    let (anchored, missing) = if path.exists() {
        match crate::anchor::read(&path, pinned) {
            Ok(a) => (Some(a), None),
            Err(e) => (None, Some(format!("anchors: {e}"))),
        }
    } else {
        (None, (!snap.records.is_empty()).then(|| format!("anchors: no anchor file at {}", path.display())))
    };
    let mut f = verify_anchored(&snap, anchored.as_ref());
    f.problems.extend(missing);
    Ok((f, anchored.map(|a| a.public)))
}

fn decode_all(table: u32, records: &[Record], f: &mut Findings) -> Vec<(u64, Body)> {
    let mut out = Vec::with_capacity(records.len());
    for r in records {
        match Body::decode(&r.body) {
            Ok(b) => out.push((r.seq, b)),
            Err(e) => f.problems.push(format!("table {table} record {}: unreadable: {e}", r.seq)),
        }
    }
    out
}

/// The table's definition in the database is the one its chain last recorded.
fn check_configuration(row: &TableRow, bodies: &[(u64, Body)], f: &mut Findings) {
    let last = bodies.iter().rev().find_map(|(_, b)| match &b.casino {
        Some(CasinoEvent::TableConfigured { name, rulebook, config, mode, open, .. }) => {
            Some((name, rulebook, config, *mode, *open))
        }
        _ => None,
    });
    match last {
        None => f.problems.push(format!("table {}: its chain records no configuration", row.id)),
        Some((name, rulebook, config, mode, open)) => {
            if *name != row.name
                || *rulebook != row.rulebook
                || *config != row.config
                || mode.id() != row.mode
                || open != row.open
            {
                f.problems.push(format!(
                    "table {}: its definition in the database is not the one its chain recorded (configuration changed outside the server)",
                    row.id
                ));
            }
        }
    }
}

/// On an RNG table the RNG alone decided every card: no shoe was started, no
/// card dealt and no coup reconstructed by a person. Voids after the cards
/// were out are listed for the inspector.
fn check_rng(table: u32, bodies: &[(u64, Body)], f: &mut Findings) {
    for (seq, b) in bodies {
        let Some(e) = &b.event else { continue };
        let person = matches!(b.by, Some(Actor::Person { .. }));
        match e {
            Event::ShoeStarted { seed, .. } if person || seed.is_none() => f.problems.push(format!(
                "table {table} record {seq}: an RNG table's shoe was not shuffled by the server from its own seed"
            )),
            Event::CardDealt { .. } if person => {
                f.problems.push(format!("table {table} record {seq}: a person dealt a card at an RNG table"))
            }
            Event::Reconstructed { .. } => f.problems.push(format!(
                "table {table} record {seq}: an RNG table's cards were replaced or reordered (a reconstruction)"
            )),
            _ => {}
        }
    }
    f.voids.extend(voids_of(table, bodies));
}

/// The coups of a table voided after their cards were out: with the shoe,
/// who voided them and the rule given (for recall and verify: a pattern of
/// voids that favours anyone shows here).
pub fn voids_of(table: u32, bodies: &[(u64, Body)]) -> Vec<Void> {
    let (mut shoe, mut coup, mut cards_out) = (0, 0, false);
    let mut out = Vec::new();
    for (_, b) in bodies {
        match &b.event {
            Some(Event::ShoeStarted { shoe: n, .. }) => shoe = *n,
            Some(Event::BettingOpened { coup: n, .. }) => {
                coup = *n;
                cards_out = false;
            }
            Some(Event::CardDealt { .. }) => cards_out = true,
            Some(Event::CoupVoided { rule, .. }) if cards_out => {
                out.push(Void { table, shoe, coup, by: b.by, rule: rule.clone() })
            }
            _ => {}
        }
    }
    out
}

fn check_table(id: u32, rb: &baccarat_rules::Rulebook, cfg: &TableConfig, events: &[(u64, Event)], f: &mut Findings) {
    let mut p = |seq: u64, what: String| f.problems.push(format!("table {id} record {seq}: {what}"));
    // The cards the shoe should deal next, for shuffled shoes.
    let mut shoe: Option<Shoe> = None;
    let mut wagers: HashMap<WagerId, Wager> = HashMap::new();
    let mut cards: Vec<(Position, Card)> = Vec::new();
    let mut coup: Option<baccarat_rules::Coup> = None;
    let mut closes_at: Option<u64> = None;
    let (mut shoes, mut coups, mut settled) = (0, 0, 0);
    for (seq, e) in events {
        let seq = *seq;
        match e {
            Event::ShoeStarted { seed, commitment, preshuffled, cut, .. } => {
                shoes += 1;
                shoe = None;
                let stack = match (seed, preshuffled) {
                    // A malformed seed does not decode: the record is reported
                    // unreadable where it is read.
                    (Some(s), _) => {
                        if commitment.as_deref() != Some(&s.commitment_hex()) {
                            p(seq, "the seed does not match its published commitment".into());
                        }
                        Some(shuffled(cfg.decks, s).0)
                    }
                    (None, Some(cards)) => Some(cards.clone()),
                    _ => None,
                };
                if let Some(stack) = stack {
                    shoe = Some(match cut {
                        Some(c) => match Shoe::cut(stack, *c, &CutRules::from_profile(&rb.config)) {
                            Ok(s) => s,
                            Err(e) => {
                                p(seq, format!("recorded cut is not allowed: {e}"));
                                continue;
                            }
                        },
                        None => Shoe::uncut(stack),
                    });
                }
            }
            Event::Burned { procedure, cards: burned, .. } => {
                if let Some(s) = shoe.as_mut() {
                    match s.burn(*procedure, false) {
                        Ok(b) if b.cards == *burned => {}
                        _ => p(seq, "the burned cards are not the shoe's".into()),
                    }
                }
            }
            Event::CuttingCardOut { .. } => {
                if let Some(s) = shoe.as_mut() {
                    if !s.take_cutting_card() {
                        p(seq, "the cutting card came out where the cut did not put it".into());
                    }
                }
            }
            Event::BettingOpened { closes_at: close, .. } => {
                cards.clear();
                coup = None;
                closes_at = *close;
            }
            Event::WagerPlaced { wager } => {
                if let (Some(close), Some(at)) = (closes_at, wager.at_ms) {
                    if at > close {
                        p(
                            seq,
                            format!("wager {} was accepted at {at} ms, after betting closed at {close} ms", wager.id),
                        );
                    }
                }
                wagers.insert(wager.id, wager.clone());
            }
            Event::WagerReduced { wager, to, .. } => {
                if let Some(w) = wagers.get_mut(wager) {
                    w.amount = *to;
                }
            }
            Event::CardDealt { position, card, .. } => {
                if let Some(s) = shoe.as_mut() {
                    match s.draw() {
                        baccarat_table::shoe::Draw::Card(c) if c == *card => {}
                        baccarat_table::shoe::Draw::Card(c) => {
                            p(seq, format!("dealt {card} where the shuffled shoe holds {c}"))
                        }
                        baccarat_table::shoe::Draw::Empty => p(seq, "dealt a card from an empty shoe".into()),
                    }
                }
                cards.push((*position, *card));
            }
            Event::Reconstructed { cards: rc, .. } => {
                cards = baccarat_table::engine::positions_of(rc);
            }
            Event::CoupCompleted { summary, .. } => {
                coups += 1;
                let positioned: Vec<DealtCard> =
                    cards.iter().map(|(p, c)| DealtCard { position: *p, card: *c, exposed: true }).collect();
                match baccarat_table::engine::coup_from_positions(&positioned) {
                    Some(c) => {
                        if c.summary() != *summary {
                            p(seq, format!("the cards make {:?}, not the recorded {:?}", c.summary(), summary));
                        }
                        coup = Some(c);
                    }
                    None => {
                        p(seq, "the recorded cards are not a coup dealt by the tableau".into());
                        coup = None;
                    }
                }
            }
            Event::WagerSettled { wager, outcome, settlement, .. } => {
                settled += 1;
                let Some(w) = wagers.get(wager) else {
                    p(seq, format!("settles unknown wager {wager}"));
                    continue;
                };
                match (outcome, &coup) {
                    (Some(o), Some(c)) => {
                        let want = w.bet.classify(c);
                        if want != *o {
                            p(seq, format!("wager {wager}: outcome {o}, the rules say {want}"));
                        }
                        if let Some(offer) = cfg.offer(w.bet) {
                            let s = settle_wager(w.amount, &offer.pay_table, want, &cfg.settle);
                            if cfg.ante.is_none() && s != *settlement {
                                p(seq, format!("wager {wager}: settlement {settlement:?}, the pay table gives {s:?}"));
                            }
                        }
                    }
                    (None, _) => {
                        if settlement.returned + settlement.lost != w.amount || settlement.won != Money::ZERO {
                            p(seq, format!("void wager {wager} is not returned whole"));
                        }
                    }
                    (Some(_), None) => p(seq, format!("wager {wager} settled without a result")),
                }
            }
            _ => {}
        }
    }
    f.shoes += shoes;
    f.coups += coups;
    f.settlements += settled;
}
