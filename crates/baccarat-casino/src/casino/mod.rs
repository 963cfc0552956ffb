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
//!
//! The module's parts: the request and reply protocol (`protocol.rs`), one
//! table's lifecycle and audit encoding (`table.rs`), seeding a shoe
//! (`shoe.rs`), recovery and checkpoints (`recover.rs`), a deposit and a
//! wager placed (`wager.rs`), commands on a table's engine with their money
//! (`commands.rs`), a settlement recorded in chunks (`settle.rs`); here, the
//! requests' dispatch and the casino's own chain.

pub mod bank_side;
pub mod cage;
#[cfg(test)]
mod cage_tests;
pub mod checkpoint;
pub mod checkpoint_rows;
pub mod closing;
#[cfg(test)]
mod closing_tests;
mod commands;
mod funding;
pub mod into_play;
mod people;
pub mod promotions;
mod protocol;
mod recover;
mod replay;
pub mod self_limits;
pub mod settle;
mod shoe;
mod slip;
#[cfg(test)]
mod slip_tests;
mod table;
mod table_names;
#[cfg(test)]
mod table_names_tests;
pub mod tournament_manager;
pub mod tournament_play;
pub mod tournament_view;
pub mod tournaments;
mod wager;

use baccarat_core::{TableId, TournamentId, UserId};
use std::collections::BTreeMap;

use baccarat_rules::Money;
use baccarat_table::{Command, Phase, PlayerId};

use crate::audit::{Body, CasinoEvent, Chain, CASINO_CHAIN};
use crate::ledger::{AccountId, AccountKind, Cause, Ledger, Op};
use crate::store::{Commit, TableRow};
pub use crate::trust::{Actor, Mode};
use baccarat_core::TableAccounts;
use into_play::IntoPlay;
use protocol::{request_digest, wager_key};
pub use protocol::{Code, Reply, Request, SelfLimitsChange, SlipLine};
pub use recover::{recover, Keys, RecoverError, Recovered};
pub use table::{setup, CasinoTable, CreateTableError, TableError};

/// The engine version written into every audit record.
pub const ENGINE_VERSION: &str = concat!("baccarat-table ", env!("CARGO_PKG_VERSION"));

/// Most tables one casino runs (a bound on what an admin can create).
pub const MAX_TABLES: usize = 256;

/// Most wagers on one table in one coup (a bound on memory and on a coup's
/// settlement transaction).
pub const MAX_WAGERS_PER_COUP: usize = 100_000;

/// Most wagers in one bet slip.
pub const MAX_SLIP: usize = 32;

pub use baccarat_core::{system_clock, Clock};

/// The largest table maximum (and personal maximum) a casino accepts unless
/// configured otherwise: 100 million in minor units.
pub const DEFAULT_CEILING: Money = Money(10_000_000_000);

pub struct Casino {
    pub ledger: Ledger,
    pub tables: BTreeMap<TableId, CasinoTable>,
    cage: AccountId,
    /// The casino's own chain: deposits from the cage, cash-outs, fills and
    /// credits (`cage.rs`), and the casino's other records.
    pub chain: Chain,
    pub clock: Clock,
    /// No table maximum or personal maximum may exceed this.
    pub ceiling: Money,
    /// Records written since the last checkpoint, and whether a shoe started
    /// or ended since (`checkpoint.rs`).
    since_checkpoint: u64,
    shoe_boundary: bool,
    /// Set while the background checkpointer writes the last one taken: no
    /// other is taken until it is done (`checkpoint::Busy`).
    pub checkpointer_busy: crate::casino::checkpoint::Busy,
    /// Tournaments, by id (`tournaments.rs`).
    pub tournaments: BTreeMap<TournamentId, tournaments::Tournament>,
    /// Promotions, by id (`promotions.rs`).
    pub promotions: BTreeMap<u32, promotions::Promotion>,
    /// Players' own limits (`self_limits.rs`).
    pub self_limits: BTreeMap<PlayerId, self_limits::SelfLimits>,
    /// Whether this casino is a partition, whose wallets the shared bank
    /// fills (`bank_side.rs`), and what it has recorded of the bank.
    pub bank: bank_side::BankSide,
    /// The tables closing once their coup settles (`closing.rs`).
    closing: std::collections::BTreeSet<TableId>,
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
            since_checkpoint: 0,
            shoe_boundary: false,
            checkpointer_busy: crate::casino::checkpoint::Busy::default(),
            tournaments: BTreeMap::new(),
            promotions: BTreeMap::new(),
            self_limits: BTreeMap::new(),
            bank: bank_side::BankSide::default(),
            closing: std::collections::BTreeSet::new(),
        }
        // The cage is written with the first commit (see `opened`).
    }

    /// A player's wallet (opened on first use).
    pub fn wallet(&mut self, player: PlayerId) -> AccountId {
        // At a partition, money that comes into a wallet by any way (a
        // payout, a prize, a refund) goes back to the bank in its turn.
        let clock = &self.clock;
        self.bank.may_give_back(player, || clock());
        self.ledger.open(AccountKind::Wallet { player })
    }

    /// A player's promotional tokens, with the wallet their winnings go to
    /// and the issuer lost tokens go back to opened beside it.
    pub fn tokens(&mut self, player: PlayerId) -> AccountId {
        self.wallet(player);
        self.ledger.open(AccountKind::TokenIssuer);
        self.ledger.open(AccountKind::Tokens { player })
    }

    /// A player's promotional tokens: (balance, available).
    pub fn token_balance(&self, player: PlayerId) -> Option<(Money, Money)> {
        let a = self.ledger.account(self.ledger.find(&AccountKind::Tokens { player })?)?;
        Some((Money(a.balance), Money(a.available())))
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
        id: TableId,
        name: &str,
        rulebook: &str,
        config: &str,
        mode: Mode,
        float: Money,
        commit: &mut Commit,
    ) -> Result<(), CreateTableError> {
        self.ledger.set_time((self.clock)());
        if self.tables.contains_key(&id) || id == CASINO_CHAIN {
            return Err(CreateTableError::Exists { id });
        }
        if self.tables.len() >= MAX_TABLES {
            return Err(CreateTableError::TooMany);
        }
        let (setup, _) = setup(rulebook, config)?;
        if let Some(o) = setup.config.offers.iter().find(|o| o.max > self.ceiling) {
            return Err(CreateTableError::Ceiling { bet: o.bet.id().to_string(), max: o.max, ceiling: self.ceiling });
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
        a?;
        self.opened(commit);
        commit.ledger.push(ch);
        let row = TableRow {
            id,
            name: name.to_string(),
            rulebook: rulebook.into(),
            config: config.into(),
            mode: mode.id().into(),
            open: true,
        };
        let mut t = CasinoTable::new(&row, accounts, None)?;
        t.configured(float, None, commit);
        self.tables.insert(id, t);
        Ok(())
    }

    /// Handle one request, adding what it changed to `commit`.
    pub fn handle(&mut self, req: Request, commit: &mut Commit) -> Reply {
        self.ledger.set_time((self.clock)());
        let reply = self.handle_inner(req, commit);
        self.close_settled(commit);
        self.opened(commit);
        reply
    }

    /// Start a take of `requests` (a batch, or part of one: `writer/batching.rs`):
    /// the idempotency keys they name that left memory are read from the store
    /// together (`keys.rs`). If the store
    /// cannot be read, each request that needs a key is refused on its own.
    pub fn begin_batch<'a>(&mut self, requests: impl Iterator<Item = &'a Request>) {
        let ids: Vec<crate::ledger::keys::KeyId> =
            requests.flat_map(|r| r.ledger_keys()).map(|k| crate::ledger::keys::key_id(&k)).collect();
        if let Err(e) = self.ledger.keys.begin_batch((self.clock)(), &ids) {
            tracing::warn!(error = %e, "writer: the batch's idempotency keys were not read; each request that needs one is refused");
        }
    }

    /// New accounts go to the store before the transfers that use them.
    /// A server took the casino's lease (several servers on PostgreSQL):
    /// recorded in the casino's chain, naming it and the lease's epoch.
    pub fn served(&mut self, instance: &str, epoch: i64, commit: &mut Commit) {
        self.casino_event(CasinoEvent::Served { instance: instance.to_string(), epoch }, commit);
    }

    /// The casino's founding (`serve` on a fresh database): the first record
    /// of its chain, so that an empty casino is a casino on its next start.
    /// Its ledger's first account, the cage, is written with it: an empty
    /// casino has no other, and recovery needs the cage.
    pub fn founded(&mut self, kind: crate::audit::Founding, admin: &str, commit: &mut Commit) {
        self.casino_event(CasinoEvent::Founded { kind, admin: admin.to_string() }, commit);
        self.opened(commit);
    }

    /// A start found these records unanchored (`serve::open`): recorded in
    /// the casino's chain before they are signed.
    pub fn found_unanchored(&mut self, chains: Vec<crate::audit::Unanchored>, commit: &mut Commit) {
        self.casino_event(CasinoEvent::FoundUnanchored { chains }, commit);
    }

    /// Each chain's records past the head `anchored` signed for it.
    pub fn past_anchors(&self, anchored: &crate::anchor::Anchored) -> Vec<crate::audit::Unanchored> {
        let chains = std::iter::once((CASINO_CHAIN, self.chain.len()));
        let chains = chains.chain(self.tables.values().map(|t| (t.id, t.chain.len())));
        chains
            .filter_map(|(table, len)| {
                let signed = anchored.heads.get(&table).map_or(0, |(l, _)| *l);
                (len > signed).then_some(crate::audit::Unanchored { table, from: signed + 1, to: len })
            })
            .collect()
    }

    /// Fold a record into the players' limits and append it to the casino's
    /// chain; its sequence number.
    fn casino_event(&mut self, e: CasinoEvent, commit: &mut Commit) -> u64 {
        self_limits::apply(&mut self.self_limits, &e);
        let r = self.chain.append(Body::encode_casino(CASINO_CHAIN, None, &e));
        let seq = r.seq;
        commit.records.push((CASINO_CHAIN, r));
        seq
    }

    /// A player's own limits: set them (the whole setting), start a cool-off,
    /// or only read them.
    fn self_limits(&mut self, player: PlayerId, change: SelfLimitsChange, commit: &mut Commit) -> Reply {
        match self.limits_event(player, &change) {
            Ok(Some(e)) => {
                self.casino_event(e, commit);
            }
            Ok(None) => {}
            Err(refused) => return refused,
        }
        let available = self.balance(player).map_or(Money::ZERO, |b| b.1);
        Reply::SelfLimits { view: Box::new(self_limits::view_of(&self.self_limits, player, (self.clock)(), available)) }
    }

    /// The record a change of `player`'s own limits makes, its fields
    /// checked (a refusal names the field); none for a read.
    pub fn limits_event(&self, player: PlayerId, change: &SelfLimitsChange) -> Result<Option<CasinoEvent>, Reply> {
        let now = (self.clock)();
        match *change {
            SelfLimitsChange::Read => Ok(None),
            SelfLimitsChange::Set { loss_per_day, minutes_per_day } => {
                self.limits_fields(loss_per_day, minutes_per_day)?;
                Ok(Some(CasinoEvent::LimitsSet { player, loss_per_day, minutes_per_day, at_ms: now, shared: None }))
            }
            SelfLimitsChange::CoolOff { hours } => {
                if !(1..=self_limits::MAX_COOL_OFF_HOURS).contains(&hours) {
                    return Err(Reply::refused(
                        Code::SelfLimit,
                        format!("hours: {hours} is not between 1 and {}", self_limits::MAX_COOL_OFF_HOURS),
                    ));
                }
                Ok(Some(CasinoEvent::CoolOff { player, until: now + hours * 3_600_000, shared: None }))
            }
        }
    }

    /// A limits setting's fields, against the casino's bounds.
    pub(crate) fn limits_fields(&self, loss_per_day: Option<Money>, minutes_per_day: Option<u32>) -> Result<(), Reply> {
        if let Some(m) = loss_per_day.filter(|m| *m <= Money::ZERO || *m > self.ceiling) {
            return Err(Reply::refused(
                Code::SelfLimit,
                format!("loss_per_day: {m} is not between 0.01 and the casino's ceiling of {}", self.ceiling),
            ));
        }
        if let Some(m) = minutes_per_day.filter(|m| !(1..=self_limits::MAX_MINUTES).contains(m)) {
            return Err(Reply::refused(
                Code::SelfLimit,
                format!("minutes_per_day: {m} is not between 1 and {}", self_limits::MAX_MINUTES),
            ));
        }
        Ok(())
    }

    fn opened(&mut self, commit: &mut Commit) {
        let o = self.ledger.take_opened();
        if !o.accounts.is_empty() {
            commit.ledger.insert(0, o);
        }
    }

    fn handle_inner(&mut self, req: Request, commit: &mut Commit) -> Reply {
        // Which way into play a wager is (`into_play.rs`): one list decides.
        let into_play = IntoPlay::of(&req);
        match req {
            Request::Deposit { player, amount, key } => self.deposit(player, amount, key, commit),
            Request::Wager { table, player, spot, bet, amount, ante, key } => {
                let line = SlipLine { spot, bet, amount, ante };
                let request = request_digest("wager", table, &[line]);
                let what = into_play.unwrap_or(IntoPlay::Wager);
                self.wager(table, player, line, Some(&wager_key(player, key.as_str())), request, what, commit)
            }
            Request::TokenWager { table, player, spot, bet, amount, key } => {
                let line = SlipLine { spot, bet, amount, ante: Money::ZERO };
                let request = request_digest("token-wager", table, &[line]);
                let what = into_play.unwrap_or(IntoPlay::TokenWager);
                self.wager(table, player, line, Some(&wager_key(player, key.as_str())), request, what, commit)
            }
            Request::Wagers { table, player, slip, key } => self.slip(table, player, slip, key.as_str(), commit),
            Request::Withdraw { table, player, wager } => {
                let by = Actor::Person { user: UserId::from(player), role: crate::trust::Role::Player };
                self.command(table, Command::WithdrawWager { player, wager }, by, commit)
            }
            Request::SetOpen { table, open } => match self.tables.get_mut(&table) {
                // A table closed for good is not reopened, nor one closing.
                Some(t) if !t.closure.is_open() => Reply::refused(
                    Code::Closed,
                    format!("table {table} is closed for good, or closing: it is not opened or closed again"),
                ),
                Some(t) => {
                    t.open = open;
                    t.configured(Money::ZERO, None, commit);
                    Reply::Table { table }
                }
                None => no_table(table),
            },
            Request::CreateTable { name, rulebook, config, mode, float } => {
                self.create_named(&name, &rulebook, &config, mode, float.unwrap_or(DEFAULT_FLOAT), commit)
            }
            Request::Table { table, command, by } => self.staff_command(table, command, by, commit),
            Request::VoidHalted { table, by } => self.void_halted(table, by, commit),
            // A clean stop's checkpoint waits for a settlement being recorded
            // in chunks to end, so that the next start finishes none: ask
            // again shortly. (Background checkpoints do not wait: `recover.rs`.)
            Request::Checkpoint if self.settling() => {
                Reply::refused(Code::Settling, "a coup's settlement is being recorded; ask again shortly")
            }
            Request::Checkpoint => Reply::Events { count: 0 },
            Request::CheckLedger => {
                let problem = self.ledger.check().err().map(|e| e.to_string()).or_else(|| self.holds_problem());
                Reply::Ledger {
                    ok: problem.is_none(),
                    problem,
                    accounts: self.ledger.accounts().count(),
                    transfers: self.ledger.transfer_count() as usize,
                }
            }
            Request::CreateTournament { conditions } => self.create_tournament(conditions, commit),
            Request::EnterTournament { tournament, player } => self.enter_tournament(tournament, player, commit),
            Request::WithdrawFromTournament { tournament, player } => {
                self.withdraw_from_tournament(tournament, player, commit)
            }
            Request::CancelTournament { tournament } => self.cancel_tournament(tournament, commit),
            Request::AmendTournamentLimits { tournament, min, max, changes, by } => {
                self.amend_limits(tournament, min, max, changes, by, commit)
            }
            Request::CreatePromotion { terms } => self.create_promotion(terms, commit),
            Request::DrawPromotion { promotion, entries, scrutineer } => {
                self.draw_promotion(promotion, entries, scrutineer, commit)
            }
            Request::RefuseClaim { promotion, claim } => self.refuse_claim(promotion, claim, commit),
            Request::ClaimPrize { promotion, prize, cash_alternative } => {
                self.claim_prize(promotion, prize, cash_alternative, commit)
            }
            Request::TournamentPlay { tournament, step, by } => self.tournament_play(tournament, step, by, commit),
            Request::SelfLimits { player, change } => self.self_limits(player, change, commit),
            Request::NewShoe { table } => match self.new_shoe_command(table) {
                Ok(cmd) => self.command(table, cmd, Actor::Server, commit),
                Err(r) => r,
            },
            Request::CashOut { player, amount, key, by } => self.cash_out(player, amount, key, by, commit),
            Request::Fill { table, amount, key, by } => {
                self.fill_or_credit(cage::CageMove::Fill, table, amount, key, by, commit)
            }
            Request::Credit { table, amount, key, by } => {
                self.fill_or_credit(cage::CageMove::Credit, table, amount, key, by, commit)
            }
            Request::CloseTable { table, by } => self.close_table(table, by, commit),
            Request::SetGamingDay { zone, cutoff_hour, by } => self.set_gaming_day(&zone, cutoff_hour, by, commit),
            Request::UserChanged { user, name, change, by } => self.user_changed(user, name, change, by, commit),
        }
    }

    /// Record the casino's gaming day (the route checked it already; checked
    /// again here, so no record names a zone this build cannot read). The
    /// zone is recorded as the time zone database spells it.
    fn set_gaming_day(&mut self, zone: &str, cutoff_hour: u8, by: UserId, commit: &mut Commit) -> Reply {
        let day = match crate::books::GamingDay::parse(zone, i64::from(cutoff_hour)) {
            Ok(d) => d,
            Err(e) => return Reply::refused(Code::Config, e.to_string()),
        };
        let at_ms = (self.clock)();
        let (zone, cutoff_hour) = (day.zone().to_string(), day.cutoff_hour());
        self.casino_event(CasinoEvent::GamingDaySet { zone: zone.clone(), cutoff_hour, by, at_ms }, commit);
        Reply::GamingDay { zone, cutoff_hour, at_ms }
    }

    /// Money held must be for a wager still on its table's coup: every
    /// pending hold caused by a wager is one the table holds, and the wager is
    /// on the engine's coup. (A wager the engine dropped without settling or
    /// returning it would otherwise keep a player's stake forever, with the
    /// ledger itself balanced; the fuzzer found such a case.) A wager settled
    /// by a settlement still being recorded in chunks is accounted for.
    pub fn holds_problem(&self) -> Option<String> {
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

    /// The table's phase, for pacing.
    pub fn phase(&self, table: TableId) -> Option<Phase> {
        self.tables.get(&table).map(|t| t.engine.phase())
    }
}

fn no_table(table: TableId) -> Reply {
    Reply::refused(Code::NoTable, format!("no table {table}"))
}

/// The refusal of a new wager at a table still recording its last coup's
/// settlement (`settle.rs`); the HTTP threads give it too (`http/early.rs`).
pub fn settling(table: TableId) -> Reply {
    Reply::refused(
        Code::Settling,
        format!("table {table} is still recording its last coup's settlement; retry shortly"),
    )
}

fn halted(table: TableId, why: &str) -> Reply {
    Reply::refused(Code::Halted, format!("table {table} is stopped ({why}); a supervisor may void its coup"))
}

/// The float a new table's house account receives from the cage.
pub const DEFAULT_FLOAT: Money = Money(100_000_000_000);

impl Default for Casino {
    fn default() -> Self {
        Casino::new()
    }
}
