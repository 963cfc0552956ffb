//! `baccarat verify`: check a database as an inspector would, trusting nothing
//! but the rules and the records.
//!
//! For every table: the SHA-256 chain is intact; each shoe's seed matches its
//! published commitment and, reshuffled with the recorded algorithm and cut,
//! gives exactly the cards recorded as burned and dealt; each coup's result is
//! what the rules make of its cards; each wager's outcome and settlement is what
//! its pay table and the table's rounding give. Then the ledger: balances sum to
//! zero and equal the sum of their transfers, no hold is inconsistent.

use std::collections::HashMap;

use baccarat_rules::{settle_wager, Card, Money, TableConfig};
use baccarat_table::engine::{Event, Position, Wager, WagerId};
use baccarat_table::shoe::{shuffled, CutRules, Shoe};
use baccarat_table::shuffle::Seed;

use crate::audit::{verify as verify_chain, Record};
use crate::ledger::Ledger;
use crate::store::Snapshot;

/// What verification found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Findings {
    pub tables: usize,
    pub records: usize,
    pub shoes: usize,
    pub coups: usize,
    pub settlements: usize,
    pub problems: Vec<String>,
}

#[derive(serde::Deserialize)]
struct Body {
    event: Event,
}

/// Verify everything in `snap`.
pub fn verify(snap: &Snapshot) -> Findings {
    let mut f = Findings::default();
    for row in &snap.tables {
        f.tables += 1;
        let records: Vec<Record> = snap.records.iter().filter(|(t, _)| *t == row.id).map(|(_, r)| r.clone()).collect();
        f.records += records.len();
        if let Err(e) = verify_chain(&records) {
            f.problems.push(format!("table {}: audit chain broken at {e}", row.id));
            continue;
        }
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
        let mut events = Vec::new();
        for r in &records {
            match serde_json::from_str::<Body>(&r.body) {
                Ok(b) => events.push((r.seq, b.event)),
                Err(e) => f.problems.push(format!("table {} record {}: unreadable: {e}", row.id, r.seq)),
            }
        }
        check_table(row.id, &rb, &cfg, &events, &mut f);
    }
    match Ledger::restore(snap.accounts.clone(), snap.transfers.clone(), snap.answers.clone()) {
        Ok(l) => {
            if let Err(e) = l.check() {
                f.problems.push(format!("ledger: {e}"));
            }
        }
        Err(e) => f.problems.push(format!("ledger: {e}")),
    }
    f
}

fn check_table(id: u32, rb: &baccarat_rules::Rulebook, cfg: &TableConfig, events: &[(u64, Event)], f: &mut Findings) {
    let mut p = |seq: u64, what: String| f.problems.push(format!("table {id} record {seq}: {what}"));
    // The cards the shoe should deal next, for shuffled shoes.
    let mut shoe: Option<Shoe> = None;
    let mut wagers: HashMap<WagerId, Wager> = HashMap::new();
    let mut cards: Vec<(Position, Card)> = Vec::new();
    let mut coup: Option<baccarat_rules::Coup> = None;
    let (mut shoes, mut coups, mut settled) = (0, 0, 0);
    for (seq, e) in events {
        let seq = *seq;
        match e {
            Event::ShoeStarted { seed, commitment, preshuffled, cut, .. } => {
                shoes += 1;
                shoe = None;
                let stack = match (seed, preshuffled) {
                    (Some(hex), _) => match Seed::from_hex(hex) {
                        Some(s) => {
                            if commitment.as_deref() != Some(&s.commitment_hex()) {
                                p(seq, "the seed does not match its published commitment".into());
                            }
                            Some(shuffled(cfg.decks, &s).0)
                        }
                        None => {
                            p(seq, "the seed is not 64 hex digits".into());
                            None
                        }
                    },
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
            Event::BettingOpened { .. } => {
                cards.clear();
                coup = None;
            }
            Event::WagerPlaced { wager } => {
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
                let positioned: Vec<(Position, Card, bool)> = cards.iter().map(|(p, c)| (*p, *c, true)).collect();
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
