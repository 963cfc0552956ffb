//! One table of the casino: its engine, its audit chain and its money, made by
//! one constructor (a new table and a recovered one alike), and the audit
//! encoding of what it does.

use baccarat_core::TableId;
use std::collections::BTreeMap;

use baccarat_rules::{Money, TableConfig};
use baccarat_table::hex;
use baccarat_table::{Event, State, Table, TableSetup, WagerId};
use sha2::{Digest, Sha256};

use super::{Code, Commit, Reply, ENGINE_VERSION};
use crate::audit::{Body, CasinoEvent, Chain, Header};
use crate::ledger::{AccountId, TransferId};
use crate::store::TableRow;
use crate::trust::{Actor, Mode};
use baccarat_core::TableAccounts;

/// Why a table's definition (rulebook, configuration, mode) does not make a
/// table: each as the rules or the engine name it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TableError {
    /// No built-in rulebook of that id.
    #[error(transparent)]
    Rulebook(#[from] baccarat_rules::profiles::UnknownRulebook),
    /// The configuration does not check against the rulebook.
    #[error(transparent)]
    Config(#[from] baccarat_rules::Problems),
    /// The engine refuses the setup.
    #[error(transparent)]
    Setup(#[from] baccarat_table::Refusal),
    /// The stored mode is none this server knows.
    #[error("table {table}: unknown mode {mode:?}")]
    Mode { table: TableId, mode: String },
}

/// Why a new table is refused (`Casino::create_table`), as the staff's
/// request is answered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CreateTableError {
    #[error("table {id} exists")]
    Exists { id: TableId },
    #[error("a casino runs at most {max} tables", max = super::MAX_TABLES)]
    TooMany,
    /// The rulebook or configuration does not make a table.
    #[error(transparent)]
    Table(#[from] TableError),
    /// A bet's table maximum above the casino's ceiling.
    #[error("bets.{bet}.max: {max} is above the casino's ceiling of {ceiling} for any table maximum")]
    Ceiling { bet: String, max: Money, ceiling: Money },
    /// The ledger refused the table's float.
    #[error(transparent)]
    Ledger(#[from] crate::ledger::LedgerError),
}

/// One table of the casino.
pub struct CasinoTable {
    pub id: TableId,
    pub name: String,
    pub mode: Mode,
    /// A closed table finishes its coup and deals no more until reopened.
    pub open: bool,
    rulebook_id: String,
    config_toml: String,
    pub engine: Table,
    pub chain: Chain,
    pub accounts: TableAccounts,
    /// SHA-256 of the rulebook profile's TOML: its version.
    pub rulebook_hash: String,
    /// Open wagers: wager -> (hold, wallet, the most it can win).
    /// In wager order: wagers come in order, so the B-tree only appends (it
    /// never rehashes, as a hash map did while a coup grew), and a checkpoint
    /// reads it in order without sorting.
    pub(super) holds: BTreeMap<WagerId, (TransferId, AccountId, Money)>,
    /// The most the open wagers can win together: the house float must cover
    /// it before another wager is accepted (`float.rs`).
    pub(super) liability: Money,
    /// Why the table stopped, if an invariant broke: it takes no command but a
    /// supervisor's `void_interrupted` until then.
    pub halted: Option<String>,
    /// Where the next shoe's cutting card goes (NSW 4.6).
    pub cutting_card_from_back: usize,
    /// The published SHA-256 of the current shoe's seed.
    pub commitment: Option<String>,
    /// Who made the command that completed the coup being settled in chunks
    /// (`settle.rs`): each chunk's records name them.
    pub(super) settled_by: Actor,
    /// Whether the table is closed for good, or closing (`closing.rs`).
    pub closure: super::closing::Closure,
}

impl CasinoTable {
    /// A table from its definition: a new one (no engine state) or one being
    /// recovered (the state of its checkpoint, or none to replay from the
    /// start). Its chain, holds and liability start empty; recovery fills them.
    pub fn new(row: &TableRow, accounts: TableAccounts, state: Option<State>) -> Result<CasinoTable, TableError> {
        let (setup, toml) = setup(&row.rulebook, &row.config)?;
        let mode =
            Mode::from_id(&row.mode).ok_or_else(|| TableError::Mode { table: row.id, mode: row.mode.clone() })?;
        // No supervisor watches an RNG table: a wager that needs one's
        // approval (NSW 5.6.6) is refused when placed, unless the table's
        // configuration chose to wait (`approvals`).
        let setup = if mode == Mode::Rng { setup.unattended() } else { setup };
        let cutting = setup.rulebook.procedures.cutting_card_min_from_back as usize;
        Ok(CasinoTable {
            id: row.id,
            name: row.name.clone(),
            mode,
            open: row.open,
            rulebook_id: row.rulebook.clone(),
            config_toml: row.config.clone(),
            cutting_card_from_back: cutting.max(20),
            engine: {
                let mut e = match state {
                    Some(s) => Table::restore(setup, s),
                    None => Table::new(setup),
                };
                e.settle_in_chunks(super::settle::FIRST_CHUNK);
                e
            },
            chain: Chain::new(),
            accounts,
            rulebook_hash: hex(&Sha256::digest(toml.as_bytes())),
            holds: BTreeMap::new(),
            liability: Money::ZERO,
            halted: None,
            commitment: None,
            settled_by: Actor::Server,
            closure: super::closing::Closure::Open,
        })
    }

    /// Whether a coup is in play for closing's sake (`closing.rs`): a wager
    /// held, or a settlement still being recorded.
    pub fn coup_in_play(&self) -> bool {
        !self.holds.is_empty() || self.engine.settling()
    }

    /// The open wagers' holds (wager, hold, wallet, most it can win), in
    /// wager order, and their liability together.
    pub fn open_wagers(&self) -> (Vec<(WagerId, TransferId, AccountId, Money)>, Money) {
        let v = self.holds.iter().map(|(w, (h, a, m))| (*w, *h, *a, *m)).collect();
        (v, self.liability)
    }

    /// The table's definition as the store keeps it.
    pub fn row(&self) -> TableRow {
        TableRow {
            id: self.id,
            name: self.name.clone(),
            rulebook: self.rulebook_id.clone(),
            config: self.config_toml.clone(),
            mode: self.mode.id().into(),
            open: self.open,
        }
    }

    /// The definition changed (or was made): its row for the store, and the
    /// same definition as a record of the table's chain.
    pub(super) fn configured(&mut self, float: Money, by: Option<Actor>, commit: &mut Commit) {
        let e = CasinoEvent::TableConfigured {
            name: self.name.clone(),
            rulebook: self.rulebook_id.clone(),
            config: self.config_toml.clone(),
            mode: self.mode,
            open: self.open,
            float,
        };
        let r = self.chain.append(Body::encode_casino(self.id, by, &e));
        commit.records.push((self.id, r));
        commit.tables.push(self.row());
    }

    /// Stop this table: an invariant broke. The reason is recorded in its chain
    /// and named in the reply; other tables are untouched.
    pub(super) fn halt(&mut self, why: String, commit: &mut Commit) -> Reply {
        let invariant = format!("table {}: {why}", self.id);
        let r = self.chain.append(Body::encode_casino(
            self.id,
            None,
            &CasinoEvent::TableHalted { invariant: invariant.clone() },
        ));
        commit.records.push((self.id, r));
        tracing::error!(table = self.id.0, "{invariant}: the table is stopped; a supervisor may void its coup");
        self.halted = Some(invariant.clone());
        Reply::refused(Code::Halted, invariant)
    }

    /// Wagers these events end (withdrawn, returned, settled) hold nothing more.
    pub(super) fn release(&mut self, events: &[Event]) {
        for e in events {
            if let Event::WagerWithdrawn { wager }
            | Event::WagerReturned { wager, .. }
            | Event::WagerSettled { wager, .. } = e
            {
                if let Some((_, _, most)) = self.holds.remove(wager) {
                    self.liability = self.liability - most;
                }
            }
        }
    }

    /// Append the engine's events to the chain, for the store and the feed.
    /// Every record names who acted; all but a wager placed or settled (the
    /// bulk of a busy coup) name the rulebook, its profile's hash and the engine.
    pub(super) fn record(&mut self, events: &[Event], by: Actor, commit: &mut Commit) {
        for e in events {
            if let Event::ShoeStarted { commitment, .. } = e {
                self.commitment = commitment.clone();
            }
            let header = !matches!(e, Event::WagerPlaced { .. } | Event::WagerSettled { .. });
            let h = header.then_some(Header {
                rulebook: self.engine.setup().rulebook.id.as_str(),
                rulebook_sha256: self.rulebook_hash.as_str(),
                engine: ENGINE_VERSION,
            });
            let r = self.chain.append(Body::encode_event(self.id, h, Some(by), e));
            commit.events.push((self.id, r.seq, e.clone()));
            commit.records.push((self.id, r));
        }
    }
}

/// A table setup from a built-in rulebook and a configuration in TOML.
pub fn setup(rulebook: &str, config_toml: &str) -> Result<(TableSetup, &'static str), TableError> {
    let text = baccarat_rules::profiles::builtin_text(rulebook)?;
    let rb = baccarat_rules::profiles::builtin(rulebook)?;
    let cfg = TableConfig::from_toml(&rb, config_toml)?;
    let s = TableSetup::new(rb, cfg, None)?;
    Ok((s, text))
}

#[cfg(test)]
mod error_tests {
    use super::TableError;
    use baccarat_core::TableId;

    /// The refusals read as the strings they replaced, byte for byte: an
    /// unknown mode as before, the rules' own problems as they say them.
    #[test]
    fn refusals_read_as_before() {
        assert_eq!(TableError::Mode { table: TableId(3), mode: "x".into() }.to_string(), "table 3: unknown mode \"x\"");
        let unknown = baccarat_rules::profiles::builtin("no-such-book").unwrap_err();
        assert_eq!(TableError::from(unknown.clone()).to_string(), unknown.to_string());
        assert_eq!(super::setup("no-such-book", "").err().map(|e| e.to_string()), Some(unknown.to_string()));
        assert_eq!(super::CreateTableError::TooMany.to_string(), "a casino runs at most 256 tables");
        let e = super::CreateTableError::Ceiling {
            bet: "tie".into(),
            max: baccarat_rules::Money(5),
            ceiling: baccarat_rules::Money(4),
        };
        let (max, ceiling) = (baccarat_rules::Money(5), baccarat_rules::Money(4));
        assert_eq!(
            e.to_string(),
            format!("bets.tie.max: {max} is above the casino's ceiling of {ceiling} for any table maximum")
        );
    }
}
