//! The casino in memory: the ledger, the tables' engines and their audit chains,
//! kept in step. One writer owns it (see `writer.rs`); every change it makes is
//! returned as a [`Commit`] for the store, and nothing is acknowledged until that
//! commit is durable.
//!
//! A wager is placed by checking the wallet, running `PlaceWager` on the engine,
//! then holding the stake from the wallet to the table's escrow; a settled or void
//! wager turns into ledger postings (`postings.rs`). Every engine event is appended
//! to the table's SHA-256 chain. Each record names the rulebook, the hash of its
//! profile and the engine version — except a wager placed or settled, the bulk of
//! a busy coup's records, which belong to the coup opened by a record that names
//! them (`betting_opened`): the chain ties them to it, and the bytes saved are
//! most of the audit log's size under load.

use std::collections::{BTreeMap, HashMap};

use baccarat_rules::{Bet, Money, TableConfig};
use baccarat_table::engine::{Command, Event, Phase, PlayerId, Refusal, ShoeSource, Spot, Table, TableSetup, WagerId};
use baccarat_table::shoe::{shuffled, CutRules};
use baccarat_table::shuffle::{hex, Seed};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::audit::{Chain, Record};
use crate::ledger::{AccountId, AccountKind, Ledger, LedgerError, Op, TransferId};
use crate::postings::{settlement_ops, TableAccounts};
use crate::store::{Commit, Snapshot, TableRow};

/// The engine version written into every audit record.
pub const ENGINE_VERSION: &str = concat!("baccarat-table ", env!("CARGO_PKG_VERSION"));

/// How a table's cards come out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// The server shuffles, and deals at a set pace with a betting countdown.
    Rng,
    /// A dealer console or a scanning shoe reports each card; the engine's
    /// irregularity rules apply.
    Live,
}

impl Mode {
    pub fn id(self) -> &'static str {
        match self {
            Mode::Rng => "rng",
            Mode::Live => "live",
        }
    }

    pub fn from_id(s: &str) -> Option<Mode> {
        match s {
            "rng" => Some(Mode::Rng),
            "live" => Some(Mode::Live),
            _ => None,
        }
    }
}

/// Most tables one casino runs (a bound on what an admin can create).
pub const MAX_TABLES: usize = 256;

/// Most wagers on one table in one coup (a bound on memory and on a coup's
/// settlement transaction).
pub const MAX_WAGERS_PER_COUP: usize = 100_000;

/// Most wagers in one bet slip.
pub const MAX_SLIP: usize = 32;

/// One table of the casino.
pub struct CasinoTable {
    pub id: u32,
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
    /// Open wagers: wager -> (hold, wallet).
    holds: HashMap<WagerId, (TransferId, AccountId)>,
    /// Hold transfer -> wager, to answer a retried wager with its first answer.
    by_hold: HashMap<TransferId, WagerId>,
    /// Where the next shoe's cutting card goes (NSW 4.6).
    pub cutting_card_from_back: usize,
    /// The published SHA-256 of the current shoe's seed.
    pub commitment: Option<String>,
}

/// What a request asked for.
#[derive(Clone, Debug)]
pub enum Request {
    /// Chips into a wallet from the cage.
    Deposit {
        player: PlayerId,
        amount: Money,
        key: String,
    },
    Wager {
        table: u32,
        player: PlayerId,
        spot: Spot,
        bet: Bet,
        amount: Money,
        key: String,
    },
    /// Several wagers from one player at once (a bet slip: chips on several
    /// spots). Each is placed or refused on its own, as chips on a layout are;
    /// wager `i` carries the idempotency key `key#i`.
    Wagers {
        table: u32,
        player: PlayerId,
        slip: Vec<(Spot, Bet, Money)>,
        key: String,
    },
    /// A player withdraws their own wager while betting is open (NSW 5.4).
    Withdraw {
        table: u32,
        player: PlayerId,
        wager: WagerId,
    },
    /// Open or close a table (a closed table finishes its coup and stops).
    SetOpen {
        table: u32,
        open: bool,
    },
    /// Define a new table (admin).
    CreateTable {
        name: String,
        rulebook: String,
        config: String,
        mode: Mode,
    },
    /// A command to a table's engine from staff (or the table's own pace).
    Table {
        table: u32,
        command: Command,
    },
    /// Start a fresh shoe with a seed from the OS (RNG tables).
    NewShoe {
        table: u32,
    },
    /// Check the ledger's invariants in full (read side).
    CheckLedger,
}

/// The answer to a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    Wager { wager: WagerId, balance: Money },
    Wagers { results: Vec<Reply>, balance: Money },
    Table { table: u32 },
    Deposit { balance: Money },
    Events { count: usize },
    Ledger { ok: bool, problem: Option<String>, accounts: usize, transfers: usize },
    Refused { rule: String, message: String },
}

impl From<Refusal> for Reply {
    fn from(r: Refusal) -> Reply {
        Reply::Refused { rule: r.rule, message: r.message }
    }
}

impl From<LedgerError> for Reply {
    fn from(e: LedgerError) -> Reply {
        Reply::Refused { rule: "ledger".into(), message: e.to_string() }
    }
}

/// An event as the audit log keeps it.
#[derive(Serialize)]
struct AuditBody<'a> {
    table: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    rulebook: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rulebook_sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<&'a str>,
    event: &'a Event,
}

pub struct Casino {
    pub ledger: Ledger,
    pub tables: BTreeMap<u32, CasinoTable>,
    cage: AccountId,
}

impl Casino {
    pub fn new() -> Casino {
        let mut ledger = Ledger::new();
        let cage = ledger.open(AccountKind::Cage);
        Casino { ledger, tables: BTreeMap::new(), cage }
        // The cage is written with the first commit (see `opened`).
    }

    /// A player's wallet (opened on first use).
    pub fn wallet(&mut self, player: PlayerId) -> AccountId {
        self.ledger.open(AccountKind::Wallet { player })
    }

    pub fn balance(&self, player: PlayerId) -> Option<(Money, Money)> {
        let id = self.ledger.find(&AccountKind::Wallet { player })?;
        let a = self.ledger.account(id)?;
        Some((Money(a.balance), Money(a.available())))
    }

    /// Define a new table: its row for the store, and its float.
    #[allow(clippy::too_many_arguments)]
    pub fn create_table(
        &mut self,
        id: u32,
        name: &str,
        rulebook: &str,
        config: &str,
        mode: Mode,
        float: Money,
        commit: &mut Commit,
    ) -> Result<(), String> {
        if self.tables.contains_key(&id) {
            return Err(format!("table {id} exists"));
        }
        if self.tables.len() >= MAX_TABLES {
            return Err(format!("a casino runs at most {MAX_TABLES} tables"));
        }
        let (s, toml) = setup(rulebook, config)?;
        self.add_table(id, name, s, toml, float, commit).map_err(|e| e.to_string())?;
        let t = self.tables.get_mut(&id).expect("just added");
        t.mode = mode;
        t.rulebook_id = rulebook.into();
        t.config_toml = config.into();
        commit.tables.push(t.row());
        Ok(())
    }

    /// Rebuild the casino from the store: the ledger from its rows, each table by
    /// replaying its audited events through the engine, its open wagers from the
    /// ledger's holds. Chains are verified on the way.
    pub fn recover(snap: Snapshot) -> Result<Casino, String> {
        let ledger = Ledger::restore(snap.accounts, snap.transfers, snap.answers).map_err(|e| e.to_string())?;
        let cage = ledger.find(&AccountKind::Cage).ok_or("the ledger has no cage account")?;
        let mut c = Casino { ledger, tables: BTreeMap::new(), cage };
        for row in snap.tables {
            let (s, toml) = setup(&row.rulebook, &row.config)?;
            let records: Vec<Record> =
                snap.records.iter().filter(|(t, _)| *t == row.id).map(|(_, r)| r.clone()).collect();
            let chain =
                Chain::from_records(&records).map_err(|e| format!("table {}: audit chain broken at {e}", row.id))?;
            let mut events = Vec::with_capacity(records.len());
            for r in &records {
                let body: StoredBody =
                    serde_json::from_str(&r.body).map_err(|e| format!("table {} record {}: {e}", row.id, r.seq))?;
                events.push(body.event);
            }
            let engine = Table::replay(s, &events);
            let find = |k: AccountKind| c.ledger.find(&k).ok_or(format!("table {} has no {k:?} account", row.id));
            let accounts = TableAccounts {
                escrow: find(AccountKind::Escrow { table: row.id })?,
                house: find(AccountKind::House { table: row.id })?,
                commission: find(AccountKind::Commission { table: row.id })?,
                antes: find(AccountKind::Antes { table: row.id })?,
            };
            let mode = Mode::from_id(&row.mode).ok_or(format!("table {}: unknown mode {:?}", row.id, row.mode))?;
            let mut t = CasinoTable {
                id: row.id,
                name: row.name,
                mode,
                open: row.open,
                rulebook_id: row.rulebook.clone(),
                config_toml: row.config.clone(),
                cutting_card_from_back: (engine.setup().rulebook.procedures.cutting_card_min_from_back as usize)
                    .max(20),
                engine,
                chain,
                accounts,
                rulebook_hash: hex(&Sha256::digest(toml.as_bytes())),
                holds: HashMap::new(),
                by_hold: HashMap::new(),
                commitment: events
                    .iter()
                    .rev()
                    .find_map(|e| match e {
                        Event::ShoeStarted { commitment, .. } => Some(commitment.clone()),
                        _ => None,
                    })
                    .flatten(),
            };
            let prefix = format!("table {} wager ", row.id);
            for tr in c.ledger.pending() {
                if let Some(w) = tr.memo.strip_prefix(&prefix).and_then(|w| w.parse::<WagerId>().ok()) {
                    t.holds.insert(w, (tr.id, tr.debit));
                }
            }
            for tr in c.ledger.transfers() {
                if let Some(w) = tr.memo.strip_prefix(&prefix).and_then(|w| w.parse::<WagerId>().ok()) {
                    t.by_hold.insert(tr.id, w);
                }
            }
            c.tables.insert(row.id, t);
        }
        Ok(c)
    }

    /// Add a table, with a float for its house account from the cage.
    pub fn add_table(
        &mut self,
        id: u32,
        name: &str,
        setup: TableSetup,
        profile_toml: &str,
        float: Money,
        commit: &mut Commit,
    ) -> Result<(), LedgerError> {
        let accounts = TableAccounts {
            escrow: self.ledger.open(AccountKind::Escrow { table: id }),
            house: self.ledger.open(AccountKind::House { table: id }),
            commission: self.ledger.open(AccountKind::Commission { table: id }),
            antes: self.ledger.open(AccountKind::Antes { table: id }),
        };
        let (a, ch) = self.ledger.apply_logged(
            &format!("float:{id}"),
            &[Op::Transfer { debit: self.cage, credit: accounts.house, amount: float, memo: "table float".into() }],
        );
        a?;
        self.opened(commit);
        commit.ledger.push(ch);
        let rulebook_hash = hex(&Sha256::digest(profile_toml.as_bytes()));
        let setup_rulebook_id = setup.rulebook.id.clone();
        let cutting = setup.rulebook.procedures.cutting_card_min_from_back as usize;
        self.tables.insert(
            id,
            CasinoTable {
                id,
                name: name.to_string(),
                mode: Mode::Rng,
                open: true,
                rulebook_id: setup_rulebook_id.clone(),
                config_toml: String::new(),
                engine: Table::new(setup),
                chain: Chain::new(),
                accounts,
                rulebook_hash,
                holds: HashMap::new(),
                by_hold: HashMap::new(),
                cutting_card_from_back: cutting.max(20),
                commitment: None,
            },
        );
        Ok(())
    }

    /// Handle one request, adding what it changed to `commit`.
    pub fn handle(&mut self, req: Request, commit: &mut Commit) -> Reply {
        let reply = self.handle_inner(req, commit);
        self.opened(commit);
        reply
    }

    /// New accounts go to the store before the transfers that use them.
    fn opened(&mut self, commit: &mut Commit) {
        let o = self.ledger.take_opened();
        if !o.accounts.is_empty() {
            commit.ledger.insert(0, o);
        }
    }

    fn handle_inner(&mut self, req: Request, commit: &mut Commit) -> Reply {
        match req {
            Request::Deposit { player, amount, key } => {
                let wallet = self.wallet(player);
                let (a, ch) = self.ledger.apply_logged(
                    &format!("deposit:{player}:{key}"),
                    &[Op::Transfer { debit: self.cage, credit: wallet, amount, memo: "chips".into() }],
                );
                commit.ledger.push(ch);
                match a {
                    Ok(_) => Reply::Deposit { balance: self.balance(player).map_or(Money::ZERO, |b| b.0) },
                    Err(e) => e.into(),
                }
            }
            Request::Wager { table, player, spot, bet, amount, key } => {
                self.wager(table, player, spot, bet, amount, &key, commit)
            }
            Request::Wagers { table, player, slip, key } => {
                if slip.is_empty() || slip.len() > MAX_SLIP {
                    return Reply::Refused {
                        rule: "slip".into(),
                        message: format!("wagers: a slip holds 1 to {MAX_SLIP} wagers"),
                    };
                }
                let results: Vec<Reply> = slip
                    .into_iter()
                    .enumerate()
                    .map(|(i, (spot, bet, amount))| {
                        self.wager(table, player, spot, bet, amount, &format!("{key}#{i}"), commit)
                    })
                    .collect();
                Reply::Wagers { results, balance: self.balance(player).map_or(Money::ZERO, |b| b.1) }
            }
            Request::Withdraw { table, player, wager } => {
                self.command(table, Command::WithdrawWager { player, wager }, commit)
            }
            Request::SetOpen { table, open } => match self.tables.get_mut(&table) {
                Some(t) => {
                    t.open = open;
                    commit.tables.push(t.row());
                    Reply::Table { table }
                }
                None => Reply::Refused { rule: "table".into(), message: format!("no table {table}") },
            },
            Request::CreateTable { name, rulebook, config, mode } => {
                let id = self.tables.keys().next_back().map_or(1, |k| k + 1);
                match self.create_table(id, &name, &rulebook, &config, mode, DEFAULT_FLOAT, commit) {
                    Ok(()) => Reply::Table { table: id },
                    Err(message) => Reply::Refused { rule: "config".into(), message },
                }
            }
            Request::Table { table, command } => self.command(table, command, commit),
            Request::CheckLedger => {
                let problem = self.ledger.check().err().map(|e| e.to_string());
                Reply::Ledger {
                    ok: problem.is_none(),
                    problem,
                    accounts: self.ledger.accounts().count(),
                    transfers: self.ledger.transfers().len(),
                }
            }
            Request::NewShoe { table } => match self.new_shoe_command(table) {
                Ok(cmd) => self.command(table, cmd, commit),
                Err(r) => r,
            },
        }
    }

    fn new_shoe_command(&self, table: u32) -> Result<Command, Reply> {
        let t = self
            .tables
            .get(&table)
            .ok_or_else(|| Reply::Refused { rule: "table".into(), message: format!("no table {table}") })?;
        if t.mode == Mode::Live {
            return Err(Reply::Refused {
                rule: "mode".into(),
                message: "a live table's shoe is started from the pit console with its cards".into(),
            });
        }
        let seed = Seed::from_os().map_err(|e| Reply::Refused { rule: "entropy".into(), message: e.to_string() })?;
        let setup = t.engine.setup();
        let decks = setup.config.decks;
        let (_, mut stream) = shuffled(decks, &seed);
        let cut = CutRules::from_profile(&setup.rulebook.config).random(
            &mut stream,
            52 * decks as usize,
            t.cutting_card_from_back,
        );
        let burn = setup.rulebook.procedures.burn.first().copied();
        Ok(Command::StartShoe {
            source: ShoeSource::Shuffle { seed: seed.hex() },
            cut: Some(cut),
            burn,
            show_burn: false,
        })
    }

    #[allow(clippy::too_many_arguments)]
    fn wager(
        &mut self,
        table: u32,
        player: PlayerId,
        spot: Spot,
        bet: Bet,
        amount: Money,
        key: &str,
        commit: &mut Commit,
    ) -> Reply {
        let key = format!("wager:{player}:{key}");
        let wallet = self.wallet(player);
        let Some(t) = self.tables.get_mut(&table) else {
            return Reply::Refused { rule: "table".into(), message: format!("no table {table}") };
        };
        // A retry: the ledger knows the key; answer with the first wager.
        if let Some(prev) = self.ledger.answer(&key) {
            return match prev {
                Ok(ids) => match ids.first().and_then(|h| t.by_hold.get(h)) {
                    Some(w) => Reply::Wager {
                        wager: *w,
                        balance: Money(self.ledger.account(wallet).map_or(0, |a| a.available())),
                    },
                    None => Reply::Refused {
                        rule: "idempotency".into(),
                        message: "that key answered another request".into(),
                    },
                },
                Err(e) => e.into(),
            };
        }
        if t.engine.state().coup.wagers.len() >= MAX_WAGERS_PER_COUP {
            return Reply::Refused {
                rule: "bounds".into(),
                message: format!("this coup already holds {MAX_WAGERS_PER_COUP} wagers"),
            };
        }
        let available = self.ledger.account(wallet).map_or(0, |a| a.available());
        if available < amount.0 {
            return Reply::Refused {
                rule: "wallet".into(),
                message: format!("available {} is less than {amount}", Money(available)),
            };
        }
        let events = match t.engine.execute(Command::PlaceWager {
            player,
            spot,
            bet,
            amount,
            ante: Money::ZERO,
            token: false,
        }) {
            Ok(ev) => ev,
            Err(r) => return r.into(),
        };
        let Some(Event::WagerPlaced { wager }) = events.first() else {
            return Reply::Refused { rule: "engine".into(), message: "no wager placed".into() };
        };
        let id = wager.id;
        let escrow = t.accounts.escrow;
        let (a, ch) = self.ledger.apply_logged(
            &key,
            &[Op::Hold { debit: wallet, credit: escrow, amount, memo: format!("table {table} wager {id}") }],
        );
        let hold = a.expect("the wallet was checked in this same writer")[0];
        commit.ledger.push(ch);
        let t = self.tables.get_mut(&table).expect("table");
        t.holds.insert(id, (hold, wallet));
        t.by_hold.insert(hold, id);
        record(t, &events, commit);
        Reply::Wager { wager: id, balance: Money(self.ledger.account(wallet).map_or(0, |a| a.available())) }
    }

    fn command(&mut self, table: u32, command: Command, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get_mut(&table) else {
            return Reply::Refused { rule: "table".into(), message: format!("no table {table}") };
        };
        let events = match t.engine.execute(command) {
            Ok(ev) => ev,
            Err(r) => return r.into(),
        };
        // Money follows the events: returned wagers release their holds,
        // reduced ones are settled at their new amount, settled ones post.
        let mut ops_batches: Vec<(WagerId, Vec<Op>)> = Vec::new();
        for e in &events {
            match e {
                Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                    if let Some((hold, _)) = t.holds.remove(wager) {
                        ops_batches.push((*wager, vec![Op::Void { hold }]));
                    }
                }
                Event::WagerSettled { wager, settlement, ante, .. } => {
                    if let Some((hold, wallet)) = t.holds.remove(wager) {
                        ops_batches.push((*wager, settlement_ops(hold, wallet, &t.accounts, settlement, *ante)));
                    }
                }
                _ => {}
            }
        }
        let count = events.len();
        record(t, &events, commit);
        for (wager, ops) in ops_batches {
            let (a, ch) = self.ledger.apply_internal(&ops);
            if let Err(e) = a {
                // Settlement that the ledger cannot book is a defect: stop rather
                // than let the books and the table disagree.
                panic!("ledger refused table {table} wager {wager}'s postings: {e}");
            }
            commit.ledger.push(ch);
        }
        Reply::Events { count }
    }

    /// After a restart: every table that was mid-coup records the interruption
    /// and, by its profile's interrupted-coup policy, completes the coup from
    /// the recorded shoe or voids it and returns every wager. Returns the tables.
    pub fn resume_interrupted(&mut self, commit: &mut Commit) -> Vec<u32> {
        let mid: Vec<u32> = self
            .tables
            .iter()
            .filter(|(_, t)| matches!(t.engine.phase(), Phase::Closed | Phase::Dealing | Phase::Reconstruction))
            .map(|(id, _)| *id)
            .collect();
        for &table in &mid {
            self.handle(Request::Table { table, command: Command::Interrupted }, commit);
        }
        mid
    }

    /// The table's phase, for pacing.
    pub fn phase(&self, table: u32) -> Option<Phase> {
        self.tables.get(&table).map(|t| t.engine.phase())
    }
}

/// The float a new table's house account receives from the cage.
pub const DEFAULT_FLOAT: Money = Money(100_000_000_000);

impl CasinoTable {
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
}

impl Default for Casino {
    fn default() -> Self {
        Casino::new()
    }
}

/// An audit record's body as read back.
#[derive(serde::Deserialize)]
struct StoredBody {
    event: Event,
}

fn record(t: &mut CasinoTable, events: &[Event], commit: &mut Commit) {
    for e in events {
        if let Event::ShoeStarted { commitment, .. } = e {
            t.commitment = commitment.clone();
        }
        let header = !matches!(e, Event::WagerPlaced { .. } | Event::WagerSettled { .. });
        let body = AuditBody {
            table: t.id,
            rulebook: header.then_some(t.engine.setup().rulebook.id.as_str()),
            rulebook_sha256: header.then_some(t.rulebook_hash.as_str()),
            engine: header.then_some(ENGINE_VERSION),
            event: e,
        };
        let r = t.chain.append(serde_json::to_string(&body).expect("events serialise"));
        commit.records.push((t.id, r));
        commit.events.push(e.clone());
    }
}

/// A table setup from a built-in rulebook and a configuration in TOML.
pub fn setup(rulebook: &str, config_toml: &str) -> Result<(TableSetup, &'static str), String> {
    let text = baccarat_rules::profiles::builtin_text(rulebook).map_err(|e| e.to_string())?;
    let rb = baccarat_rules::profiles::builtin(rulebook).map_err(|e| e.to_string())?;
    let cfg = TableConfig::from_toml(&rb, config_toml).map_err(|e| e.to_string())?;
    let s = TableSetup::new(rb, cfg, None).map_err(|e| e.to_string())?;
    Ok((s, text))
}
