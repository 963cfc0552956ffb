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

use baccarat_rules::Cite;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use baccarat_rules::{Bet, Money, TableConfig};
use baccarat_table::engine::{Command, Event, Phase, PlayerId, Refusal, ShoeSource, Spot, Table, TableSetup, WagerId};
use baccarat_table::shoe::{shuffled, CutRules};
use baccarat_table::shuffle::hex;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::audit::{Body, CasinoEvent, Chain, Header, Record, CASINO_CHAIN};
use crate::float::max_win;
use crate::ledger::{AccountId, AccountKind, Cause, Ledger, LedgerError, Op, TransferId};
use crate::postings::{settlement_ops, TableAccounts};
use crate::store::{Commit, Snapshot, TableRow};
pub use crate::trust::{Actor, Mode};

/// The engine version written into every audit record.
pub const ENGINE_VERSION: &str = concat!("baccarat-table ", env!("CARGO_PKG_VERSION"));

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
    /// Open wagers: wager -> (hold, wallet, the most it can win).
    holds: HashMap<WagerId, (TransferId, AccountId, Money)>,
    /// The most the open wagers can win together: the house float must cover
    /// it before another wager is accepted (`float.rs`).
    liability: Money,
    /// Why the table stopped, if an invariant broke: it takes no command but a
    /// supervisor's `void_interrupted` until then.
    pub halted: Option<String>,
    /// Where the next shoe's cutting card goes (NSW 4.6).
    pub cutting_card_from_back: usize,
    /// The published SHA-256 of the current shoe's seed.
    pub commitment: Option<String>,
}

/// What a request asked for.
#[derive(Clone, Debug)]
pub enum Request {
    /// Chips into a wallet from the cage.
    Deposit { player: PlayerId, amount: Money, key: String },
    Wager {
        table: u32,
        player: PlayerId,
        spot: Spot,
        bet: Bet,
        amount: Money,
        /// The ante paid with an initial wager at an Ante Up table (AU 14.5);
        /// held with the stake, collected at settlement (AU 14.6).
        ante: Money,
        key: String,
    },
    /// Several wagers from one player at once (a bet slip: chips on several
    /// spots). Each is placed or refused on its own, as chips on a layout are;
    /// wager `i` carries the idempotency key `key#i`.
    Wagers { table: u32, player: PlayerId, slip: Vec<SlipLine>, key: String },
    /// A player withdraws their own wager while betting is open (NSW 5.4).
    Withdraw { table: u32, player: PlayerId, wager: WagerId },
    /// Open or close a table (a closed table finishes its coup and stops).
    SetOpen { table: u32, open: bool },
    /// Define a new table (admin).
    CreateTable { name: String, rulebook: String, config: String, mode: Mode },
    /// A command to a table's engine from staff, or from the server itself (its
    /// pace, its recovery): admitted by the trust matrix (`trust.rs`).
    Table { table: u32, command: Command, by: Actor },
    /// A supervisor voids the coup of a halted table under its profile's
    /// interrupted-coup rule, returning every stake.
    VoidHalted { table: u32, by: Actor },
    /// Start a fresh shoe with a seed from the OS (RNG tables).
    NewShoe { table: u32 },
    /// Check the ledger's invariants in full (read side).
    CheckLedger,
}

/// One wager of a bet slip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlipLine {
    pub spot: Spot,
    pub bet: Bet,
    pub amount: Money,
    /// The ante with it, at an Ante Up table (AU 14.5).
    pub ante: Money,
}

/// The answer to a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    Wager {
        wager: WagerId,
        balance: Money,
    },
    Wagers {
        results: Vec<Reply>,
        balance: Money,
    },
    Table {
        table: u32,
    },
    Deposit {
        balance: Money,
    },
    Events {
        count: usize,
    },
    Ledger {
        ok: bool,
        problem: Option<String>,
        accounts: usize,
        transfers: usize,
    },
    /// Refused: `code` says what kind of refusal (the HTTP layer maps each to
    /// its status), `rule` names the rulebook's rule where one refused.
    Refused {
        code: Code,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
        message: String,
    },
}

/// What kind of refusal: a rulebook's rule, or one of the server's own
/// conditions. Typed, so that the HTTP status and the words a page shows follow
/// from the kind, never from matching strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Code {
    /// A rulebook's rule refused it; `rule` cites it.
    Rule,
    /// No such table.
    NoTable,
    /// No such player wallet (deposits go only to players).
    NoPlayer,
    /// The wallet cannot hold the stake.
    Wallet,
    /// The table's float cannot cover the wager's largest win (`float.rs`).
    Float,
    /// The ledger refused (an invariant held).
    Ledger,
    /// A malformed bet slip.
    Slip,
    /// A server bound (wagers per coup, tables).
    Bounds,
    /// Not for this kind of table (RNG or live).
    Mode,
    /// A table configuration against its profile.
    Config,
    /// An idempotency key reused for a different request.
    Idempotency,
    /// The table is stopped until a supervisor voids its coup.
    Halted,
    /// The trust matrix: this person's role may not do this here.
    Role,
    /// The OS could not supply a seed.
    Entropy,
    /// The engine answered unexpectedly.
    Engine,
}

impl Code {
    /// Every kind (the error contract's tests and the OpenAPI document list
    /// them).
    pub const ALL: [Code; 15] = [
        Code::Rule,
        Code::NoTable,
        Code::NoPlayer,
        Code::Wallet,
        Code::Float,
        Code::Ledger,
        Code::Slip,
        Code::Bounds,
        Code::Mode,
        Code::Config,
        Code::Idempotency,
        Code::Halted,
        Code::Role,
        Code::Entropy,
        Code::Engine,
    ];

    /// The kind's wire name, as a reply serialises it.
    pub fn name(self) -> &'static str {
        match self {
            Code::Rule => "rule",
            Code::NoTable => "no_table",
            Code::NoPlayer => "no_player",
            Code::Wallet => "wallet",
            Code::Float => "float",
            Code::Ledger => "ledger",
            Code::Slip => "slip",
            Code::Bounds => "bounds",
            Code::Mode => "mode",
            Code::Config => "config",
            Code::Idempotency => "idempotency",
            Code::Halted => "halted",
            Code::Role => "role",
            Code::Entropy => "entropy",
            Code::Engine => "engine",
        }
    }
}

impl Reply {
    /// A refusal of the server's own (no rulebook rule).
    pub fn refused(code: Code, message: impl Into<String>) -> Reply {
        Reply::Refused { code, rule: None, message: message.into() }
    }

    /// A refusal by a rulebook's rule.
    pub fn by_rule(rule: impl Into<String>, message: impl Into<String>) -> Reply {
        Reply::Refused { code: Code::Rule, rule: Some(rule.into()), message: message.into() }
    }

    /// The kind of refusal, if this is one.
    pub fn code(&self) -> Option<Code> {
        match self {
            Reply::Refused { code, .. } => Some(*code),
            _ => None,
        }
    }
}

impl From<Refusal> for Reply {
    /// The engine's refusals cite their rule, except the few that are about
    /// who asks (the trust matrix) or the kind of shoe.
    fn from(r: Refusal) -> Reply {
        match r.rule.as_str() {
            "role" | "trust" => Reply::refused(Code::Role, r.message),
            "shuffled shoe" | "live shoe" => Reply::refused(Code::Mode, r.message),
            "invariant" => Reply::refused(Code::Halted, r.message),
            _ => Reply::by_rule(r.rule, r.message),
        }
    }
}

impl From<LedgerError> for Reply {
    fn from(e: LedgerError) -> Reply {
        let code = match e {
            LedgerError::KeyReused(_) => Code::Idempotency,
            _ => Code::Ledger,
        };
        Reply::refused(code, e.to_string())
    }
}

/// The clock the writer stamps wagers with (ms since the epoch); injected, so
/// tests decide what time it is.
pub type Clock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// The system clock.
pub fn system_clock() -> Clock {
    Arc::new(|| std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64))
}

/// The largest table maximum (and personal maximum) a casino accepts unless
/// configured otherwise: 100 million in minor units.
pub const DEFAULT_CEILING: Money = Money(10_000_000_000);

pub struct Casino {
    pub ledger: Ledger,
    pub tables: BTreeMap<u32, CasinoTable>,
    cage: AccountId,
    /// The casino's own chain: deposits from the cage.
    pub chain: Chain,
    pub clock: Clock,
    /// No table maximum or personal maximum may exceed this.
    pub ceiling: Money,
}

impl Casino {
    pub fn new() -> Casino {
        let mut ledger = Ledger::new();
        let cage = ledger.open(AccountKind::Cage);
        Casino {
            ledger,
            tables: BTreeMap::new(),
            cage,
            chain: Chain::new(),
            clock: system_clock(),
            ceiling: DEFAULT_CEILING,
        }
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

    /// Define a new table: its row for the store, its float from the cage, and
    /// its configuration as the first record of its chain. A table maximum
    /// above the casino's ceiling is refused here.
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
        if self.tables.contains_key(&id) || id == CASINO_CHAIN {
            return Err(format!("table {id} exists"));
        }
        if self.tables.len() >= MAX_TABLES {
            return Err(format!("a casino runs at most {MAX_TABLES} tables"));
        }
        let (setup, toml) = setup(rulebook, config)?;
        if let Some(o) = setup.config.offers.iter().find(|o| o.max > self.ceiling) {
            return Err(format!(
                "bets.{}.max: {} is above the casino's ceiling of {} for any table maximum",
                o.bet.id(),
                o.max,
                self.ceiling
            ));
        }
        let accounts = TableAccounts {
            escrow: self.ledger.open(AccountKind::Escrow { table: id }),
            house: self.ledger.open(AccountKind::House { table: id }),
            commission: self.ledger.open(AccountKind::Commission { table: id }),
            antes: self.ledger.open(AccountKind::Antes { table: id }),
        };
        let (a, ch) = self.ledger.apply_logged(
            &format!("float:{id}"),
            &[Op::Transfer { debit: self.cage, credit: accounts.house, amount: float, memo: "table float".into() }],
            Cause::Float { table: id },
        );
        a.map_err(|e| e.to_string())?;
        self.opened(commit);
        commit.ledger.push(ch);
        let cutting = setup.rulebook.procedures.cutting_card_min_from_back as usize;
        let mut t = CasinoTable {
            id,
            name: name.to_string(),
            mode,
            open: true,
            rulebook_id: rulebook.into(),
            config_toml: config.into(),
            engine: Table::new(setup),
            chain: Chain::new(),
            accounts,
            rulebook_hash: hex(&Sha256::digest(toml.as_bytes())),
            holds: HashMap::new(),
            liability: Money::ZERO,
            halted: None,
            cutting_card_from_back: cutting.max(20),
            commitment: None,
        };
        t.configured(float, None, commit);
        self.tables.insert(id, t);
        Ok(())
    }

    /// Rebuild the casino from the store: the ledger from its rows, each table by
    /// replaying its audited events through the engine, its open wagers from the
    /// ledger's holds (each names its wager). Chains are verified on the way.
    pub fn recover(snap: Snapshot) -> Result<Casino, String> {
        let ledger = Ledger::restore(snap.accounts, snap.transfers, snap.answers).map_err(|e| e.to_string())?;
        let cage = ledger.find(&AccountKind::Cage).ok_or("the ledger has no cage account")?;
        let mut c = Casino { ledger, tables: BTreeMap::new(), cage, ..Casino::new() };
        let records_of = |table: u32| -> Vec<Record> {
            snap.records.iter().filter(|(t, _)| *t == table).map(|(_, r)| r.clone()).collect()
        };
        c.chain = Chain::from_records(&records_of(CASINO_CHAIN))
            .map_err(|e| format!("the casino's chain is broken at {e}"))?;
        let mut holds: HashMap<u32, Vec<(WagerId, TransferId, AccountId)>> = HashMap::new();
        for tr in c.ledger.pending() {
            if let Cause::Wager { table, wager } = tr.cause {
                holds.entry(table).or_default().push((wager, tr.id, tr.debit));
            }
        }
        for row in snap.tables {
            let (s, toml) = setup(&row.rulebook, &row.config)?;
            let records = records_of(row.id);
            let chain =
                Chain::from_records(&records).map_err(|e| format!("table {}: audit chain broken at {e}", row.id))?;
            let mut events = Vec::with_capacity(records.len());
            let mut halted = None;
            for r in &records {
                let body = Body::decode(&r.body).map_err(|e| format!("table {} record {}: {e}", row.id, r.seq))?;
                match (body.event, body.casino) {
                    (Some(e), _) => {
                        halted = None;
                        events.push(e)
                    }
                    (None, Some(CasinoEvent::TableHalted { invariant })) => halted = Some(invariant),
                    _ => {}
                }
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
                liability: Money::ZERO,
                halted,
                commitment: events
                    .iter()
                    .rev()
                    .find_map(|e| match e {
                        Event::ShoeStarted { commitment, .. } => Some(commitment.clone()),
                        _ => None,
                    })
                    .flatten(),
            };
            for (wager, hold, wallet) in holds.remove(&row.id).unwrap_or_default() {
                let most = t.engine.state().coup.wagers.get(wager).map_or(Money::ZERO, |w| {
                    max_win(&t.engine.setup().config, w.bet, w.amount, w.ante).unwrap_or(Money::ZERO)
                });
                t.liability = t.liability + most;
                t.holds.insert(wager, (hold, wallet, most));
            }
            c.tables.insert(row.id, t);
        }
        Ok(c)
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
            Request::Deposit { player, amount, key } => self.deposit(player, amount, key, commit),
            Request::Wager { table, player, spot, bet, amount, ante, key } => {
                let line = SlipLine { spot, bet, amount, ante };
                let request = request_digest("wager", table, &[line]);
                self.wager(table, player, line, &wager_key(player, &key), request, commit)
            }
            Request::Wagers { table, player, slip, key } => self.slip(table, player, slip, &key, commit),
            Request::Withdraw { table, player, wager } => {
                let by = Actor::Person { user: player.0, role: crate::auth::Role::Player };
                self.command(table, Command::WithdrawWager { player, wager }, by, commit)
            }
            Request::SetOpen { table, open } => match self.tables.get_mut(&table) {
                Some(t) => {
                    t.open = open;
                    t.configured(Money::ZERO, None, commit);
                    Reply::Table { table }
                }
                None => no_table(table),
            },
            Request::CreateTable { name, rulebook, config, mode } => {
                let id = self.tables.keys().next_back().map_or(1, |k| k + 1);
                match self.create_table(id, &name, &rulebook, &config, mode, DEFAULT_FLOAT, commit) {
                    Ok(()) => Reply::Table { table: id },
                    Err(message) => Reply::refused(Code::Config, message),
                }
            }
            Request::Table { table, command, by } => self.staff_command(table, command, by, commit),
            Request::VoidHalted { table, by } => self.void_halted(table, by, commit),
            Request::CheckLedger => {
                let problem = self.ledger.check().err().map(|e| e.to_string()).or_else(|| self.holds_problem());
                Reply::Ledger {
                    ok: problem.is_none(),
                    problem,
                    accounts: self.ledger.accounts().count(),
                    transfers: self.ledger.transfers().len(),
                }
            }
            Request::NewShoe { table } => match self.new_shoe_command(table) {
                Ok(cmd) => self.command(table, cmd, Actor::Server, commit),
                Err(r) => r,
            },
        }
    }

    /// Money held must be for a wager still on its table's coup: every
    /// pending hold caused by a wager is one the table holds, and the wager is
    /// on the engine's coup. (A wager the engine dropped without settling or
    /// returning it would otherwise keep a player's stake forever, with the
    /// ledger itself balanced; the fuzzer found such a case.)
    fn holds_problem(&self) -> Option<String> {
        for h in self.ledger.pending() {
            let Cause::Wager { table, wager } = h.cause else { continue };
            let Some(t) = self.tables.get(&table) else {
                return Some(format!("hold {} is for wager {wager} of table {table}, which does not exist", h.id));
            };
            if t.holds.get(&wager).map(|x| x.0) != Some(h.id) {
                return Some(format!(
                    "hold {} of table {table} is for wager {wager}, which the table does not hold",
                    h.id
                ));
            }
            if t.engine.state().coup.wagers.get(wager).is_none() {
                return Some(format!("hold {} of table {table} is for wager {wager}, which is on no open coup", h.id));
            }
        }
        None
    }

    /// Chips from the cage, recorded in the casino's chain first: the record's
    /// sequence number is the transfer's cause. A retried key answers again and
    /// records nothing.
    fn deposit(&mut self, player: PlayerId, amount: Money, key: String, commit: &mut Commit) -> Reply {
        let ledger_key = format!("deposit:{player}:{key}");
        let wallet = self.wallet(player);
        let fresh = self.ledger.answer(&ledger_key).is_none();
        let seq = self.chain.len() + 1;
        let request: [u8; 32] = Sha256::digest(format!("deposit|{player}|{}", amount.0)).into();
        let (a, ch) = self.ledger.apply_bound(
            &ledger_key,
            request,
            &[Op::Transfer { debit: self.cage, credit: wallet, amount, memo: "chips".into() }],
            Cause::Deposit { seq },
        );
        commit.ledger.push(ch);
        match a {
            Ok(_) => {
                if fresh {
                    let e = CasinoEvent::Deposit { player, amount, key };
                    let r = self.chain.append(Body::encode_casino(CASINO_CHAIN, None, &e));
                    debug_assert_eq!(r.seq, seq);
                    commit.records.push((CASINO_CHAIN, r));
                }
                Reply::Deposit { balance: self.balance(player).map_or(Money::ZERO, |b| b.0) }
            }
            Err(LedgerError::KeyReused(_)) => LedgerError::KeyReused(key).into(),
            Err(e) => e.into(),
        }
    }

    fn new_shoe_command(&self, table: u32) -> Result<Command, Reply> {
        let t = self.tables.get(&table).ok_or_else(|| no_table(table))?;
        if t.mode == Mode::Live {
            return Err(Reply::refused(
                Code::Mode,
                "a live table's shoe is started from the pit console with its cards",
            ));
        }
        let seed = crate::entropy::os_seed().map_err(|message| Reply::refused(Code::Entropy, message))?;
        let setup = t.engine.setup();
        let decks = setup.config.decks;
        let (_, mut stream) = shuffled(decks, &seed);
        let cut = CutRules::from_profile(&setup.rulebook.config).random(
            &mut stream,
            52 * decks as usize,
            t.cutting_card_from_back,
        );
        let burn = setup.rulebook.procedures.burn.first().copied();
        Ok(Command::StartShoe { source: ShoeSource::Shuffle { seed }, cut: Some(cut), burn, show_burn: false })
    }

    /// A bet slip: the client's key is bound to the whole slip (recorded once,
    /// under the same key a single wager would use, so one key cannot mean both),
    /// and each line is placed or refused on its own under a line key that no
    /// client key can spell (`slip:{player}:{line}:{key}`).
    fn slip(&mut self, table: u32, player: PlayerId, slip: Vec<SlipLine>, key: &str, commit: &mut Commit) -> Reply {
        if slip.is_empty() || slip.len() > MAX_SLIP {
            return Reply::refused(Code::Slip, format!("wagers: a slip holds 1 to {MAX_SLIP} wagers"));
        }
        let request = request_digest("slip", table, &slip);
        if !self.tables.contains_key(&table) {
            return no_table(table);
        }
        let slip_key = wager_key(player, key);
        let retry = self.ledger.bound(&slip_key).is_some();
        let (bound, ch) = self.ledger.apply_bound(&slip_key, request, &[], Cause::None);
        if let Err(e) = bound {
            return match e {
                LedgerError::KeyReused(_) => LedgerError::KeyReused(key.to_string()).into(),
                e => e.into(),
            };
        }
        commit.ledger.push(ch);
        // A retry answers each line as it was first answered and places
        // nothing new: a line refused then is not tried again under this key.
        let results: Vec<Reply> = slip
            .into_iter()
            .enumerate()
            .map(|(i, line)| {
                let line_key = format!("slip:{player}:{i}:{key}");
                if retry && self.ledger.bound(&line_key).is_none() {
                    return Reply::refused(
                        Code::Idempotency,
                        format!("wagers[{i}] was refused when slip {key:?} was first sent; send it under a new key"),
                    );
                }
                self.wager(table, player, line, &line_key, request, commit)
            })
            .collect();
        Reply::Wagers { results, balance: self.balance(player).map_or(Money::ZERO, |b| b.1) }
    }

    /// Place one wager: the wallet holds the stake and any ante (AU 14.5), the
    /// float covers what it could win, then the engine decides. `key` (the
    /// ledger's) is bound to `request`: a retry of the same request answers the
    /// first wager, and the key with another request is refused, naming it.
    fn wager(
        &mut self,
        table: u32,
        player: PlayerId,
        line: SlipLine,
        key: &str,
        request: [u8; 32],
        commit: &mut Commit,
    ) -> Reply {
        let SlipLine { spot, bet, amount, ante } = line;
        let wallet = self.wallet(player);
        let Some(t) = self.tables.get_mut(&table) else {
            return no_table(table);
        };
        let available = |l: &Ledger| Money(l.account(wallet).map_or(0, |a| a.available()));
        // A retry: the ledger knows the key; answer with the first wager.
        if let Some((seen, prev)) = self.ledger.bound(key) {
            if seen != request {
                return LedgerError::KeyReused(client_key(key).to_string()).into();
            }
            return match prev {
                Ok(ids) => match ids.first().and_then(|h| self.ledger.transfer(*h)).map(|t| t.cause) {
                    Some(Cause::Wager { table: tb, wager }) if tb == table => {
                        Reply::Wager { wager, balance: available(&self.ledger) }
                    }
                    _ => {
                        Reply::refused(Code::Idempotency, format!("key {:?} answered another request", client_key(key)))
                    }
                },
                Err(e) => e.into(),
            };
        }
        if let Some(why) = &t.halted {
            return halted(table, why);
        }
        if t.engine.state().coup.wagers.len() >= MAX_WAGERS_PER_COUP {
            return Reply::refused(Code::Bounds, format!("this coup already holds {MAX_WAGERS_PER_COUP} wagers"));
        }
        let held = amount + ante;
        if ante < Money::ZERO || available(&self.ledger) < held {
            return Reply::refused(Code::Wallet, format!("available {} is less than {held}", available(&self.ledger)));
        }
        // The float covers everything the coup's wagers could win (`float.rs`).
        let most = max_win(&t.engine.setup().config, bet, amount, ante).unwrap_or(Money::ZERO);
        let float = Money(self.ledger.account(t.accounts.house).map_or(0, |a| a.available()));
        if t.liability + most > float {
            return Reply::refused(Code::Float, format!(
                    "table {table}'s float of {float} cannot cover this wager's largest win of {most} with the {} the coup's wagers could already win",
                    t.liability
                ));
        }
        let at_ms = Some((self.clock)());
        let cmd = Command::PlaceWager { player, spot, bet, amount, ante, token: false, at_ms };
        let events = match t.engine.execute(cmd) {
            Ok(ev) => ev,
            Err(r) => return r.into(),
        };
        let Some(Event::WagerPlaced { wager }) = events.first() else {
            return Reply::refused(Code::Engine, "no wager placed");
        };
        let id = wager.id;
        let escrow = t.accounts.escrow;
        let (a, ch) = self.ledger.apply_bound(
            key,
            request,
            &[Op::Hold { debit: wallet, credit: escrow, amount: held, memo: format!("table {table} wager {id}") }],
            Cause::Wager { table, wager: id },
        );
        let t = self.tables.get_mut(&table).expect("table");
        let hold = match a {
            Ok(ids) => ids[0],
            Err(e) => {
                // The wallet was checked in this same writer: a refusal here is a
                // broken invariant. Stop this table, name it, go on with the rest.
                return t.halt(format!("the ledger refused wager {id}'s hold: {e}"), commit);
            }
        };
        commit.ledger.push(ch);
        t.holds.insert(id, (hold, wallet, most));
        t.liability = t.liability + most;
        record(t, &events, Actor::Server, commit);
        Reply::Wager { wager: id, balance: available(&self.ledger) }
    }

    /// A staff command (or the server's own): the trust matrix first, then the
    /// casino's ceiling for a personal maximum, then the engine.
    fn staff_command(&mut self, table: u32, mut command: Command, by: Actor, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get(&table) else {
            return no_table(table);
        };
        // The time on a person's command is the server's, never theirs: a
        // back-dated `at_ms` would let a minimum's notice (NSW 6.7) seem served.
        if matches!(by, Actor::Person { .. }) {
            let now = (self.clock)();
            match &mut command {
                Command::AnnounceMinimum { at_ms, .. } | Command::ChangeMinimum { at_ms, .. } => *at_ms = now,
                Command::PlaceWager { at_ms, .. } => *at_ms = Some(now),
                _ => {}
            }
        }
        if let Err(r) = crate::trust::admit(t.mode, by, &command, &t.engine) {
            return r.into();
        }
        if let Command::SetPersonalLimits { max, .. } = &command {
            if *max > self.ceiling {
                return Reply::by_rule(
                    t.engine.rb().cite(Cite::PersonalLimits),
                    format!("max: {max} is above the casino's ceiling of {}", self.ceiling),
                );
            }
        }
        self.command(table, command, by, commit)
    }

    /// Run a command on a table's engine and book its money in the same step:
    /// returned wagers release their holds, settled ones post. The engine keeps
    /// the command's events only if the ledger takes every posting, all at once;
    /// if it cannot (a broken invariant: the float was checked at placement),
    /// this table stops, named, and every other table goes on.
    fn command(&mut self, table: u32, command: Command, by: Actor, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get_mut(&table) else {
            return no_table(table);
        };
        if let Some(why) = &t.halted {
            return halted(table, why);
        }
        let ledger = &mut self.ledger;
        let holds = &t.holds;
        let accounts = t.accounts;
        let mut booked = None;
        let result = t.engine.execute_checked(command, |events| {
            let batches = money_of(table, events, holds, &accounts);
            if batches.is_empty() {
                return Ok(());
            }
            let (a, ch) = ledger.apply_caused(&batches);
            match a {
                Ok(_) => {
                    booked = Some(ch);
                    Ok(())
                }
                Err(e) => Err(Refusal::new("invariant", format!("the ledger refused the postings: {e}"))),
            }
        });
        let events = match result {
            Ok(ev) => ev,
            Err(r) if r.rule == "invariant" => return t.halt(r.message, commit),
            Err(r) => return r.into(),
        };
        if let Some(ch) = booked {
            commit.ledger.push(ch);
        }
        for e in &events {
            if let Event::WagerWithdrawn { wager }
            | Event::WagerReturned { wager, .. }
            | Event::WagerSettled { wager, .. } = e
            {
                if let Some((_, _, most)) = t.holds.remove(wager) {
                    t.liability = t.liability - most;
                }
            }
        }
        let count = events.len();
        record(t, &events, by, commit);
        Reply::Events { count }
    }

    /// A supervisor voids a halted table's coup: the interruption is recorded
    /// under the profile's rule, every stake goes back, and the table serves again.
    fn void_halted(&mut self, table: u32, by: Actor, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get_mut(&table) else {
            return no_table(table);
        };
        let supervisor =
            matches!(by, Actor::Person { role: crate::auth::Role::Supervisor | crate::auth::Role::Admin, .. });
        if !supervisor {
            return Reply::refused(Code::Role, "only a supervisor voids a halted table's coup");
        }
        if t.halted.is_none() {
            return Reply::refused(Code::Halted, format!("table {table} is not halted"));
        }
        t.halted = None;
        let reply = self.command(table, Command::VoidInterrupted, by, commit);
        if let (Reply::Refused { message, .. }, Some(t)) = (&reply, self.tables.get_mut(&table)) {
            t.halted = Some(message.clone());
        }
        reply
    }

    /// After a restart: every table that was mid-coup records the interruption
    /// and, by its profile's interrupted-coup policy, completes the coup from
    /// the recorded shoe or voids it and returns every wager. A table that was
    /// halted stays halted. Returns the tables.
    pub fn resume_interrupted(&mut self, commit: &mut Commit) -> Vec<u32> {
        let mid: Vec<u32> = self
            .tables
            .iter()
            .filter(|(_, t)| t.halted.is_none())
            .filter(|(_, t)| matches!(t.engine.phase(), Phase::Closed | Phase::Dealing | Phase::Reconstruction))
            .map(|(id, _)| *id)
            .collect();
        for &table in &mid {
            self.handle(Request::Table { table, command: Command::Interrupted, by: Actor::Server }, commit);
        }
        mid
    }

    /// The table's phase, for pacing.
    pub fn phase(&self, table: u32) -> Option<Phase> {
        self.tables.get(&table).map(|t| t.engine.phase())
    }
}

/// The ledger postings a command's events call for, each batch with its cause.
fn money_of(
    table: u32,
    events: &[Event],
    holds: &HashMap<WagerId, (TransferId, AccountId, Money)>,
    accounts: &TableAccounts,
) -> Vec<(Cause, Vec<Op>)> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                if let Some((hold, _, _)) = holds.get(wager) {
                    out.push((Cause::Wager { table, wager: *wager }, vec![Op::Void { hold: *hold }]));
                }
            }
            Event::WagerSettled { wager, settlement, ante, .. } => {
                if let Some((hold, wallet, _)) = holds.get(wager) {
                    let ops = settlement_ops(*hold, *wallet, accounts, settlement, *ante);
                    out.push((Cause::Wager { table, wager: *wager }, ops));
                }
            }
            _ => {}
        }
    }
    out
}

/// The ledger key of a client's wager key: scoped to the player and the route.
fn wager_key(player: PlayerId, key: &str) -> String {
    format!("wager:{player}:{key}")
}

/// The client's key inside a ledger key (`wager:{player}:{key}` or
/// `slip:{player}:{line}:{key}`), for naming it in a refusal.
fn client_key(ledger_key: &str) -> &str {
    let parts = if ledger_key.starts_with("slip:") { 4 } else { 3 };
    ledger_key.splitn(parts, ':').last().unwrap_or(ledger_key)
}

/// What a wager key is bound to: the request as the client sent it (its kind,
/// table and every line), so that a retry is recognised and another request
/// under the same key is not.
fn request_digest(kind: &str, table: u32, lines: &[SlipLine]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(format!("{kind}|{table}|{}", lines.len()));
    for l in lines {
        h.update(format!("|{:?},{},{},{}", l.spot, l.bet.id(), l.amount.0, l.ante.0));
    }
    h.finalize().into()
}

fn no_table(table: u32) -> Reply {
    Reply::refused(Code::NoTable, format!("no table {table}"))
}

fn halted(table: u32, why: &str) -> Reply {
    Reply::refused(Code::Halted, format!("table {table} is stopped ({why}); a supervisor may void its coup"))
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

    /// The definition changed (or was made): its row for the store, and the
    /// same definition as a record of the table's chain.
    fn configured(&mut self, float: Money, by: Option<Actor>, commit: &mut Commit) {
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
    fn halt(&mut self, why: String, commit: &mut Commit) -> Reply {
        let invariant = format!("table {}: {why}", self.id);
        let r = self.chain.append(Body::encode_casino(
            self.id,
            None,
            &CasinoEvent::TableHalted { invariant: invariant.clone() },
        ));
        commit.records.push((self.id, r));
        eprintln!("{invariant}: the table is stopped; a supervisor may void its coup");
        self.halted = Some(invariant.clone());
        Reply::refused(Code::Halted, invariant)
    }
}

impl Default for Casino {
    fn default() -> Self {
        Casino::new()
    }
}

fn record(t: &mut CasinoTable, events: &[Event], by: Actor, commit: &mut Commit) {
    for e in events {
        if let Event::ShoeStarted { commitment, .. } = e {
            t.commitment = commitment.clone();
        }
        let header = !matches!(e, Event::WagerPlaced { .. } | Event::WagerSettled { .. });
        let h = header.then_some(Header {
            rulebook: t.engine.setup().rulebook.id.as_str(),
            rulebook_sha256: t.rulebook_hash.as_str(),
            engine: ENGINE_VERSION,
        });
        let r = t.chain.append(Body::encode_event(t.id, h, Some(by), e));
        commit.events.push((t.id, r.seq, e.clone()));
        commit.records.push((t.id, r));
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
