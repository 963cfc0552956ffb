//! The writer's protocol: what a request asks for, and the typed answer
//! (accepted, or refused with a kind the HTTP layer maps to a status), with
//! the idempotency keys' scoping and the digest a key is bound to.

use baccarat_core::{TableId, TournamentId, UserId};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Refusal, RefusalKind, Spot, WagerId};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::cage::CageMove;
use crate::ledger::keys::IdempotencyKey;
use crate::ledger::LedgerError;
use crate::trust::{Actor, Mode};

/// What a request asked for. A client's idempotency key arrives here
/// already checked ([`IdempotencyKey::parse`], at the edge), so no keyed
/// request can carry an empty or oversized key.
#[derive(Clone, Debug)]
pub enum Request {
    /// Chips into a wallet from the cage.
    Deposit { player: PlayerId, amount: Money, key: IdempotencyKey },
    Wager {
        table: TableId,
        player: PlayerId,
        spot: Spot,
        bet: Bet,
        amount: Money,
        /// The ante paid with an initial wager at an Ante Up table (AU 14.5);
        /// held with the stake, collected at settlement (AU 14.6).
        ante: Money,
        key: IdempotencyKey,
    },
    /// A wager made with the player's promotional tokens (NSW 1.1 "Casino
    /// Promotional Token"): held from their tokens, winnings paid in chips.
    TokenWager { table: TableId, player: PlayerId, spot: Spot, bet: Bet, amount: Money, key: IdempotencyKey },
    /// Several wagers from one player at once (a bet slip: chips on several
    /// spots). Each is placed or refused on its own, as chips on a layout are;
    /// wager `i` carries the idempotency key `key#i`.
    Wagers { table: TableId, player: PlayerId, slip: Vec<SlipLine>, key: IdempotencyKey },
    /// A player withdraws their own wager while betting is open (NSW 5.4).
    Withdraw { table: TableId, player: PlayerId, wager: WagerId },
    /// Open or close a table (a closed table finishes its coup and stops).
    SetOpen { table: TableId, open: bool },
    /// Define a new table (admin).
    /// Create a table: its float (the house's chips at it) from the cage,
    /// `float` or, if none, [`DEFAULT_FLOAT`](super::DEFAULT_FLOAT).
    CreateTable { name: String, rulebook: String, config: String, mode: Mode, float: Option<Money> },
    /// A command to a table's engine from staff, or from the server itself (its
    /// pace, its recovery): admitted by the trust matrix (`trust.rs`).
    Table { table: TableId, command: Command, by: Actor },
    /// A supervisor voids the coup of a halted table under its profile's
    /// interrupted-coup rule, returning every stake.
    VoidHalted { table: TableId, by: Actor },
    /// Start a fresh shoe with a seed from the OS (RNG tables).
    NewShoe { table: TableId },
    /// Check the ledger's invariants in full (read side).
    CheckLedger,
    /// Take a checkpoint with this batch (a clean shutdown asks for one); it is
    /// answered once the checkpoint is written.
    Checkpoint,
    /// Publish a tournament from its conditions file (admin; NSW 15.4.1).
    CreateTournament { conditions: String },
    /// A player enters, paying the fee (NSW 15.3.2, 15.4.2(i)).
    EnterTournament { tournament: TournamentId, player: PlayerId },
    /// A player withdraws within the terms, the fee refunded (NSW 15.4.2(i)).
    WithdrawFromTournament { tournament: TournamentId, player: PlayerId },
    /// Cancel, refunding every fee (admin; NSW 15.3.4).
    CancelTournament { tournament: TournamentId },
    /// The Tournament Manager changes the limits, before the start (NSW
    /// 15.6.15).
    AmendTournamentLimits {
        tournament: TournamentId,
        min: Money,
        max: Money,
        changes: Vec<baccarat_rules::tournament::LimitChange>,
        by: Actor,
    },
    /// Publish a promotion from its terms, with its draw's commitment
    /// (admin; NSW 16.6-16.7).
    CreatePromotion { terms: String },
    /// Draw a promotion from the entries the audit log gives, paying its cash
    /// prizes (admin; NSW 16.2, 16.7).
    DrawPromotion { promotion: u32, entries: Vec<(PlayerId, u64)>, scrutineer: Option<String> },
    /// A winner's claim of a prize that is not cash, or of its cash
    /// alternative (admin, at the desk; NSW 16.3, 16.7.8).
    ClaimPrize { promotion: u32, prize: u32, cash_alternative: bool },
    /// Keep a refused claim (admin; NSW 16.9.1).
    RefuseClaim { promotion: u32, claim: super::promotions::RefusedClaim },
    /// A step of a tournament's play (NSW 15.5-15.11), by the Tournament
    /// Manager or a player.
    TournamentPlay { tournament: TournamentId, step: super::tournament_manager::PlayStep, by: Actor },
    /// A player's own limits: read, set or a cool-off (`self_limits.rs`).
    SelfLimits { player: PlayerId, change: SelfLimitsChange },
    /// Chips from a player's wallet to the cage, by admin `by` (`cage.rs`).
    CashOut { player: PlayerId, amount: Money, key: IdempotencyKey, by: UserId },
    /// Chips from the cage to a table's float, by admin `by` (`cage.rs`).
    Fill { table: TableId, amount: Money, key: IdempotencyKey, by: UserId },
    /// Chips from a table's float to the cage, by admin `by` (`cage.rs`).
    Credit { table: TableId, amount: Money, key: IdempotencyKey, by: UserId },
    /// Close a table for good (admin; `closing.rs`): now, or once its coup
    /// in play settles.
    CloseTable { table: TableId, by: Actor },
    /// The casino's gaming day (`books/gaming_day.rs`), set by admin `by`:
    /// recorded with the writer's clock, in force from the next gaming day
    /// not yet begun.
    SetGamingDay { zone: String, cutoff_hour: u8, by: UserId },
    /// An admin changed a person's account (`people.rs`): recorded in the
    /// casino's chain before the people's table changes (`baccarat-server`'s
    /// `http/users.rs` says why in that order).
    UserChanged { user: UserId, name: String, change: crate::audit::UserChange, by: UserId },
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

/// What a player asks of their own limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SelfLimitsChange {
    Read,
    /// The whole setting: `None` is no limit.
    Set {
        loss_per_day: Option<Money>,
        minutes_per_day: Option<u32>,
    },
    CoolOff {
        hours: u64,
    },
}

/// The answer to a request: one of these, told apart by its `result`.
// Its JSON Schema is derived (`schemars`) for the API document's replies
// (the server's `openapi/replies.rs`), doc comments and all; ids and amounts
// are described as the bare integers they serialise as.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Reply {
    Wager {
        #[schemars(with = "u64")]
        wager: WagerId,
        #[schemars(with = "i64")]
        balance: Money,
    },
    Wagers {
        results: Vec<Reply>,
        #[schemars(with = "i64")]
        balance: Money,
    },
    Table {
        #[schemars(with = "u32")]
        table: TableId,
    },
    Deposit {
        #[schemars(with = "i64")]
        balance: Money,
    },
    /// A promotion.
    Promotion {
        promotion: u32,
    },
    /// A tournament, and how many have entered it.
    Tournament {
        #[schemars(with = "u32")]
        tournament: TournamentId,
        entrants: usize,
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
    /// A player's own limits as they now stand.
    SelfLimits {
        view: Box<super::self_limits::SelfLimitsView>,
    },
    /// The gaming day as set, and when (the writer's clock).
    GamingDay {
        zone: String,
        cutoff_hour: u8,
        at_ms: u64,
    },
    /// Refused: `code` says what kind of refusal (the HTTP layer maps each to
    /// its status), `rule` names the rulebook's rule where one refused.
    Refused {
        code: Code,
        #[serde(skip_serializing_if = "Option::is_none")]
        rule: Option<String>,
        message: String,
    },
    /// A cash-out: the wallet's balance after it, and the amount.
    CashOut {
        #[schemars(with = "i64")]
        balance: Money,
        #[schemars(with = "i64")]
        cashed_out: Money,
    },
    /// A fill or a credit: the table's float (its house account) after it.
    Float {
        #[schemars(with = "u32")]
        table: TableId,
        #[schemars(with = "i64")]
        float: Money,
    },
    /// A create under the name of a table that is the one asked for
    /// (`table_names.rs`): nothing was made. The API answers it as
    /// [`Reply::Table`], the usual reply; the server starts no pacer for it.
    ExistingTable {
        #[schemars(with = "u32")]
        table: TableId,
    },
    /// A table closed for good, with what went back to the cage; or closing,
    /// once its coup in play settles (`closing.rs`).
    TableClosed {
        #[schemars(with = "u32")]
        table: TableId,
        closed: bool,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        closing: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[schemars(with = "Option<i64>")]
        credited: Option<Money>,
    },
}

/// What kind of refusal: a rulebook's rule, or one of the server's own
/// conditions. Typed, so that the HTTP status and the words a page shows follow
/// from the kind, never from matching strings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, schemars::JsonSchema)]
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
    /// The table is still recording its last coup's settlement (in chunks, so
    /// that other tables need not wait): retry in a moment.
    Settling,
    /// The store could not be read to answer it (an idempotency key's past
    /// answer): retry with the same key.
    Unavailable,
    /// No such tournament.
    NoTournament,
    /// No such promotion.
    NoPromotion,
    /// The player's own limit (or cool-off) refused it, or a limit asked
    /// for is out of range (`casino/self_limits.rs`).
    SelfLimit,
    /// The table is closed for good, or closing (`closing.rs`).
    Closed,
    /// A table of that name exists with another definition
    /// (`table_names.rs`).
    TableExists,
}

impl Code {
    /// Every kind (the error contract's tests and the OpenAPI document list
    /// them).
    pub const ALL: [Code; 22] = [
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
        Code::Settling,
        Code::Unavailable,
        Code::NoTournament,
        Code::NoPromotion,
        Code::SelfLimit,
        Code::Closed,
        Code::TableExists,
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
            Code::Settling => "settling",
            Code::Unavailable => "unavailable",
            Code::NoTournament => "no_tournament",
            Code::NoPromotion => "no_promotion",
            Code::SelfLimit => "self_limit",
            Code::Closed => "closed",
            Code::TableExists => "table_exists",
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
    /// who asks (the trust matrix) or the kind of shoe, and a broken invariant.
    fn from(r: Refusal) -> Reply {
        match r.kind {
            RefusalKind::Rule(cite) => Reply::by_rule(cite, r.message),
            RefusalKind::Role | RefusalKind::Trust => Reply::refused(Code::Role, r.message),
            RefusalKind::ShuffledShoe | RefusalKind::LiveShoe => Reply::refused(Code::Mode, r.message),
            RefusalKind::Invariant => Reply::refused(Code::Halted, r.message),
            // As it always went out: under the rule "settling". (The writer
            // answers `Code::Settling` itself before the engine is asked.)
            RefusalKind::Settling => Reply::by_rule(RefusalKind::Settling.rule(), r.message),
        }
    }
}

impl From<LedgerError> for Reply {
    fn from(e: LedgerError) -> Reply {
        let code = match e {
            LedgerError::KeyReused(_) => Code::Idempotency,
            LedgerError::Unavailable(_) => Code::Unavailable,
            _ => Code::Ledger,
        };
        Reply::refused(code, e.to_string())
    }
}

impl Request {
    /// The ledger's idempotency keys this request may look up (the HTTP layer
    /// reads them from the store before the writer sees it: `keys.rs`).
    pub fn ledger_keys(&self) -> Vec<String> {
        match self {
            Request::Deposit { player, key, .. } => vec![deposit_key(*player, key.as_str())],
            Request::Wager { player, key, .. } | Request::TokenWager { player, key, .. } => {
                vec![wager_key(*player, key.as_str())]
            }
            // A slip's answer says what each line did (`Cause::Slip`). (Slips
            // answered before it did have line keys too; a retry of one looks
            // them up when it comes to them.)
            Request::Wagers { player, key, .. } => vec![wager_key(*player, key.as_str())],
            Request::CashOut { player, key, .. } => vec![cage_key(CageMove::CashOut, player.0, key.as_str())],
            Request::Fill { table, key, .. } => vec![cage_key(CageMove::Fill, table.0, key.as_str())],
            Request::Credit { table, key, .. } => vec![cage_key(CageMove::Credit, table.0, key.as_str())],
            _ => Vec::new(),
        }
    }
}

/// The ledger key of a deposit.
pub(super) fn deposit_key(player: PlayerId, key: &str) -> String {
    format!("deposit:{player}:{key}")
}

/// The ledger key of a movement at the cage: scoped to the route and the
/// player (a cash-out) or table (a fill, a credit), as a deposit's is.
pub(super) fn cage_key(way: CageMove, id: u32, key: &str) -> String {
    format!("{}:{id}:{key}", way.name())
}

/// The ledger key of line `i` of a bet slip (no client key can spell it).
pub(super) fn line_key(player: PlayerId, i: usize, key: &str) -> String {
    format!("slip:{player}:{i}:{key}")
}

/// The ledger key of a client's wager key: scoped to the player and the route.
pub(super) fn wager_key(player: PlayerId, key: &str) -> String {
    format!("wager:{player}:{key}")
}

/// The client's key inside a ledger key (`wager:{player}:{key}` or
/// `slip:{player}:{line}:{key}`), for naming it in a refusal.
pub(super) fn client_key(ledger_key: &str) -> &str {
    let parts = if ledger_key.starts_with("slip:") { 4 } else { 3 };
    ledger_key.splitn(parts, ':').last().unwrap_or(ledger_key)
}

/// What a wager key is bound to: the request as the client sent it (its kind,
/// table and every line), so that a retry is recognised and another request
/// under the same key is not.
pub(super) fn request_digest(kind: &str, table: TableId, lines: &[SlipLine]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(format!("{kind}|{table}|{}", lines.len()));
    for l in lines {
        h.update(format!("|{:?},{},{},{}", l.spot, l.bet.id(), l.amount.0, l.ante.0));
    }
    h.finalize().into()
}
