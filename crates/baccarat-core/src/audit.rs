//! The audit trail: each table's events in an append-only log, each record
//! chained to the one before by SHA-256, so that changing, removing or reordering
//! any record breaks every hash after it.
//!
//! `hash(n) = SHA-256("baccarat-audit-v1" ‖ hash(n-1) ‖ n as 8 bytes LE ‖ body)`,
//! with `hash(0)` = 32 zero bytes before the first record and `body` the record's
//! canonical JSON.

use crate::ids::{TableId, TournamentId, UserId};
use baccarat_rules::{Card, Money};
use baccarat_table::{hex, Seed};
use baccarat_table::{Event, PlayerId};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::trust::{Actor, Mode};
use baccarat_table::tournament::{PlayAction, Stake};

mod fast;

/// The casino's own chain (deposits from the cage), beside the tables' chains.
pub const CASINO_CHAIN: TableId = TableId(0);

/// Records `from ..= to` of a chain (the casino's is 0), unanchored.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unanchored {
    pub table: TableId,
    pub from: u64,
    pub to: u64,
}

/// What the server records that is not a table engine's event.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum CasinoEvent {
    /// A table's definition as it now stands: at creation (with the float its
    /// house account received from the cage) and again at every change, so a
    /// configuration edited in the database disagrees with its own chain.
    TableConfigured {
        name: String,
        rulebook: String,
        config: String,
        mode: Mode,
        open: bool,
        #[serde(default)]
        float: Money,
    },
    /// Chips into a wallet from the cage (the casino's chain), and when
    /// (the writer's clock, ms): the gaming day's books count the cash by it
    /// (`baccarat-casino`'s `books/`). Deposits recorded before it have none.
    Deposit {
        player: baccarat_table::PlayerId,
        amount: Money,
        key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_ms: Option<u64>,
    },
    /// A partition of a PostgreSQL casino took a player's money from the
    /// bank (`bank/`): the bank's record of it, by number and hash, so that
    /// this chain, which the anchor file signs, pins the bank's chain too.
    Allotted {
        player: baccarat_table::PlayerId,
        amount: Money,
        bank_seq: u64,
        bank_hash: String,
        /// The player's first allotment that day at any partition (ms), as
        /// the bank counted it: their play-time limit counts from it here
        /// too (`casino/self_limits.rs`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        day_first_ms: Option<u64>,
    },
    /// A partition gave a player's idle money back to the bank, in the same
    /// transaction as this record, under the bank reference `reference`.
    Returned { player: baccarat_table::PlayerId, amount: Money, reference: String },
    /// Chips bought at a partition's cage: paid into the player's wallet at
    /// the bank (not here), in the same transaction as this record, under
    /// the bank reference `reference`. So every deposit at the bank is in a
    /// partition's anchored chain, and one that is not was made by hand.
    /// When, as a deposit's `at_ms`.
    Caged {
        player: baccarat_table::PlayerId,
        amount: Money,
        reference: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at_ms: Option<u64>,
    },
    /// The table stopped because an invariant broke; it is named here.
    TableHalted { invariant: String },
    /// A server took the casino's lease (PostgreSQL, several servers) and
    /// serves it from this record on: its `--instance` name and the lease's
    /// epoch, which every later write proves.
    Served { instance: String, epoch: i64 },
    /// A start found records past the last head the anchor file signed for
    /// their chains (a crash between a commit and its anchor line, or records
    /// added outside the server). They are named here before the server signs
    /// them, so that `verify` still shows them once they are anchored.
    FoundUnanchored { chains: Vec<Unanchored> },
    /// A player asked for their own limits (`casino/self_limits.rs`): the
    /// whole setting, and when it was asked for (a looser limit is in force a
    /// day later).
    LimitsSet {
        player: baccarat_table::PlayerId,
        loss_per_day: Option<Money>,
        minutes_per_day: Option<u32>,
        at_ms: u64,
        /// At a partition: the record of the bank's log of limits it came
        /// from (asked at this partition or another: `bank/limits.rs`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared: Option<u64>,
    },
    /// A player's cool-off: no wagers before `until` (ms).
    CoolOff {
        player: baccarat_table::PlayerId,
        until: u64,
        /// As `LimitsSet`'s.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared: Option<u64>,
    },
    /// A player with a limit placed the day's first wager: the day's loss is
    /// measured from `base`, its minutes from `first_ms`.
    PlayDay {
        player: baccarat_table::PlayerId,
        day: u64,
        base: Money,
        first_ms: u64,
        /// At a partition: another partition's day opening, record `shared`
        /// of the bank's log of limits (`bank/limits.rs`). Its minutes count
        /// here from `first_ms` if that is earlier; its `base` is that
        /// partition's wallet and is not used here.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shared: Option<u64>,
    },
    /// A tournament published from its conditions file (NSW 15.4.1), whole.
    TournamentCreated { tournament: TournamentId, conditions: String },
    /// A player entered, paying the fee from their wallet into the pool
    /// (NSW 15.3.2).
    TournamentEntered { tournament: TournamentId, player: baccarat_table::PlayerId, fee: Money },
    /// A player withdrew within the terms, or the tournament was cancelled:
    /// the fee back from the pool (NSW 15.4.2(i), 15.3.4).
    TournamentRefunded { tournament: TournamentId, player: baccarat_table::PlayerId, fee: Money, why: String },
    /// The tournament was cancelled (NSW 15.3.4); its refunds follow.
    TournamentCancelled { tournament: TournamentId },
    /// The Tournament Manager changed the limits before the start: the
    /// amended conditions, whole, as now published (NSW 15.6.15).
    TournamentAmended { tournament: TournamentId, conditions: String },
    /// The Tournament Manager started play (NSW 15.5): the first round seated
    /// by a draw from `seating` (NSW 15.5.4), its cards from `shoe_seed`,
    /// which only the writer and `verify` see until the round is over
    /// (`shoe_commitment` is public at once).
    TournamentStarted {
        tournament: TournamentId,
        /// When (the writer's clock, ms): a round timed by the clock and the
        /// time to wager run from the records' times (NSW 15.5.5, 15.6.11).
        #[serde(default)]
        at_ms: u64,
        seating: Seed,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shoe_seed: Option<Seed>,
        shoe_commitment: String,
    },
    /// A player's action for the coup from their box, or the Tournament
    /// Manager's for a late or absent player (NSW 15.5.6, 15.6-15.9).
    TournamentActed {
        tournament: TournamentId,
        player: PlayerId,
        action: PlayAction,
        #[serde(default)]
        at_ms: u64,
    },
    /// "No more bets" at a tournament table (NSW 15.6.4, 15.8.2.6).
    TournamentNoMoreBets { tournament: TournamentId, table: u32 },
    /// An undisclosed wager's form and secret, shown after "no more bets"
    /// (NSW 15.8.2.6); no secret: the form was not shown (NSW 15.8.3.4).
    TournamentRevealed {
        tournament: TournamentId,
        player: PlayerId,
        form: Option<Stake>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        salt: Option<String>,
    },
    /// A coup dealt at a tournament table from its shoe, and settled in
    /// tournament chips (NSW 15.2.1, 15.6.8).
    TournamentDealt {
        tournament: TournamentId,
        table: u32,
        cards: Vec<Card>,
        #[serde(default)]
        at_ms: u64,
    },
    /// The Tournament Manager moved a player to another table of the round
    /// (NSW 15.5.1, 15.5.4), between coups.
    TournamentMoved { tournament: TournamentId, player: PlayerId, table: u32 },
    /// The Tournament Manager disqualified a player under `rule` (NSW
    /// 15.5.6.2, 15.5.7, 15.6.5, 15.6.7, 15.11.4).
    TournamentDisqualified { tournament: TournamentId, player: PlayerId, rule: String, why: String },
    /// The Tournament Manager ended the round (NSW 15.5.5, 15.10): who goes on,
    /// or a play-off, or the final's placings follow from the records before.
    /// A next round or a play-off is seated by a draw from `seating`; a next
    /// round deals from `shoe_seed`, withheld as at the start.
    TournamentRoundEnded {
        tournament: TournamentId,
        #[serde(default)]
        at_ms: u64,
        seating: Seed,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shoe_seed: Option<Seed>,
        shoe_commitment: String,
    },
    /// The prizes, paid from the pool to the placegetters' wallets (NSW
    /// 15.3.2), after `top_up` from the cage: what the operator adds or
    /// guarantees (NSW 15.3.1, 15.3.3).
    TournamentPaid { tournament: TournamentId, top_up: Money, prizes: Vec<(PlayerId, Money)> },
    /// A promotion published from its terms (NSW 16.6-16.7), with the
    /// commitment to its draw's seed; the seed is withheld from every viewer
    /// until the draw.
    PromotionPublished {
        promotion: u32,
        terms: String,
        commitment: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seed: Option<Seed>,
    },
    /// The draw (`baccarat_table::draw`): the entries counted from the audit
    /// log, their listing's SHA-256, the seed revealed, the scrutineer present
    /// (NSW 16.2), and each prize's winner with the cash paid to their wallet.
    PromotionDrawn {
        promotion: u32,
        entries: u64,
        entries_sha256: String,
        seed: Seed,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        scrutineer: Option<String>,
        winners: Vec<PromotionWinner>,
    },
    /// A winner claimed a prize that is not cash (NSW 16.7.8): the prize
    /// itself, or its cash alternative where the terms offer one (NSW 16.3),
    /// paid from the cage into the wallet.
    PromotionClaimed { promotion: u32, prize: u32, player: PlayerId, cash_alternative: bool, paid: Money },
    /// A claim for a promotional prize the casino refused, with the
    /// claimant's name and address and the reasons (NSW 16.9.1: kept for a
    /// prize over $100).
    PromotionClaimRefused { promotion: u32, claimant: String, address: String, value: Money, reasons: String },
    /// The casino was founded: the first record of its chain, naming how
    /// (an empty casino with one admin, or the demo: `serve --demo`) and the
    /// first admin's name (never a password). A casino whose chain begins
    /// otherwise was made before this record existed, always as the demo.
    Founded { kind: Founding, admin: String },
    /// Chips from a player's wallet back to the cage: a cash-out (issue 47;
    /// the rulebooks are silent on the cage, so this is the casino's own
    /// record, as a cage's ticket is). `key` is the client's idempotency
    /// key, `by` the admin who made it. Its transfer (wallet to cage) names
    /// this record (`Cause::Cage`).
    CashedOut {
        player: PlayerId,
        amount: Money,
        key: String,
        by: UserId,
        /// When (the writer's clock, ms): the books date it by this.
        #[serde(default)]
        at_ms: u64,
    },
    /// Chips from the cage to table `table`'s float (its house account): a
    /// fill, with its transfer naming this record (`Cause::Cage`).
    Filled {
        table: TableId,
        amount: Money,
        key: String,
        by: UserId,
        /// As `CashedOut`'s.
        #[serde(default)]
        at_ms: u64,
    },
    /// Chips from table `table`'s float back to the cage: a credit, with its
    /// transfer naming this record (`Cause::Cage`).
    Credited {
        table: TableId,
        amount: Money,
        key: String,
        by: UserId,
        /// As `CashedOut`'s.
        #[serde(default)]
        at_ms: u64,
    },
    /// An admin asked to close the table for good while its coup held wagers
    /// (`casino/closing.rs`): it takes no new wager from here, and closes
    /// when that coup settles, with a [`CasinoEvent::TableClosed`] of its
    /// own. `by`: the admin's user id. (The rulebooks say nothing of closing
    /// a table for good; the casino chose to let the coup in play finish,
    /// as a table closed by a supervisor does.)
    TableClosing { by: UserId },
    /// The table closed for good (`casino/closing.rs`): every chip it held
    /// went back to the cage, `credited` in all, of which `commission` and
    /// `antes` from those accounts (AU 5.10(b), 14.6) and the rest, its
    /// float, from its house account; each a transfer with
    /// `Cause::Closed`, which `verify` reconciles. It takes no wager or
    /// command after this record. `by`: the admin who asked (the one who
    /// asked while its coup was in play, if it waited for it).
    TableClosed {
        credited: Money,
        by: UserId,
        #[serde(default, skip_serializing_if = "no_money")]
        commission: Money,
        #[serde(default, skip_serializing_if = "no_money")]
        antes: Money,
        /// When (the writer's clock, ms): the books date the float's
        /// return to the cage by this.
        #[serde(default)]
        at_ms: u64,
    },
    /// The casino's gaming day as an admin (user `by`) set it at `at_ms` (the
    /// writer's clock): the IANA time zone and the local hour at which one
    /// gaming day ends and the next begins. The rulebooks are silent on the
    /// gaming day; it applies from the next gaming day not yet begun
    /// (`baccarat-casino`'s `books/gaming_day.rs` says exactly which).
    GamingDaySet { zone: String, cutoff_hour: u8, by: UserId, at_ms: u64 },
    /// An admin changed a person's account (`baccarat-server`'s
    /// `http/users.rs`): who (`user`, their name as it then was), what, and
    /// the admin who did (`by`, a user id). The rulebooks are silent on the
    /// casino's own staff accounts; the record is this server's choice, so
    /// that who could do what, and since when, is in the anchored chain.
    /// Never a password or its hash.
    UserChanged { user: UserId, name: String, change: UserChange, by: UserId },
}

/// What changed of a person's account ([`CasinoEvent::UserChanged`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum UserChange {
    /// Created with this role (a player with a wallet).
    Created { role: crate::trust::Role },
    /// May no longer sign in; every session ended.
    Disabled,
    /// May sign in again.
    Enabled,
    /// A new password set by an admin; every session ended.
    PasswordReset,
    /// The role changed; every session ended.
    RoleChanged { from: crate::trust::Role, to: crate::trust::Role },
}

/// How a casino was founded (`serve` on a fresh database).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Founding {
    /// One admin and nothing else: a real casino, set up by its staff.
    #[default]
    Empty,
    /// The demo: a table per rulebook, staff and players with play chips.
    Demo,
}

impl Founding {
    /// What the casino's first record says of it: a chain whose first record
    /// is not [`CasinoEvent::Founded`] was made before that record existed,
    /// when every casino was born as the demo.
    pub fn of_first(first: Option<&CasinoEvent>) -> Founding {
        match first {
            Some(CasinoEvent::Founded { kind, .. }) => *kind,
            _ => Founding::Demo,
        }
    }
}

/// One prize of a promotion's draw and who won it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PromotionWinner {
    /// The prize's place in the terms' list (each of a prize's `count`).
    pub prize: u32,
    pub description: String,
    #[schemars(with = "u32")]
    pub player: PlayerId,
    #[schemars(with = "i64")]
    pub value: Money,
    /// Cash paid to the wallet (a cash prize); 0 for a prize claimed at the
    /// desk (NSW 16.7.8).
    #[schemars(with = "i64")]
    pub paid: Money,
    /// Promotional tokens issued to the player (a prize of tokens, NSW 1.1).
    #[serde(default, skip_serializing_if = "no_money")]
    #[schemars(with = "i64")]
    pub tokens: Money,
}

fn no_money(m: &Money) -> bool {
    m.0 == 0
}

/// One audit record's body, the one type that encodes it, decodes it and
/// blanks what a viewer may not see. A record holds an engine [`Event`] or a
/// [`CasinoEvent`]; the opening records of a coup name the rulebook, its
/// profile's SHA-256 and the engine version; a person's command names them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Body {
    pub table: TableId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rulebook: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rulebook_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engine: Option<String>,
    /// Who issued the command (absent: the server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<Actor>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<Event>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub casino: Option<CasinoEvent>,
}

/// The header a coup's opening records carry.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    pub rulebook: &'a str,
    pub rulebook_sha256: &'a str,
    pub engine: &'a str,
}

/// The body as written: borrowed, so the hot path clones no event.
#[derive(Serialize)]
struct BodyRef<'a> {
    table: TableId,
    #[serde(skip_serializing_if = "Option::is_none")]
    rulebook: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    rulebook_sha256: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engine: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by: Option<Actor>,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<&'a Event>,
    #[serde(skip_serializing_if = "Option::is_none")]
    casino: Option<&'a CasinoEvent>,
}

impl Body {
    /// Encode an engine event's record.
    pub fn encode_event(table: TableId, header: Option<Header>, by: Option<Actor>, e: &Event) -> String {
        encode(table, header, by, Some(e), None)
    }

    /// Encode a casino event's record.
    pub fn encode_casino(table: TableId, by: Option<Actor>, e: &CasinoEvent) -> String {
        encode(table, None, by, None, Some(e))
    }

    /// Decode a stored body: a wager placed or settled by the fast path
    /// (`fast.rs`), any other the general way.
    pub fn decode(body: &str) -> Result<Body, serde_json::Error> {
        match fast::decode(body) {
            Some(b) => Ok(b),
            None => serde_json::from_str(body),
        }
    }

    /// The body as a viewer who may not see secrets sees it: a shoe's seed is
    /// withheld (only its commitment is public until the shoe ends).
    pub fn blanked(mut self) -> Body {
        if let Some(e) = self.event.as_mut() {
            blank(e);
        }
        match self.casino.as_mut() {
            Some(
                CasinoEvent::TournamentStarted { shoe_seed, .. } | CasinoEvent::TournamentRoundEnded { shoe_seed, .. },
            ) => *shoe_seed = None,
            Some(CasinoEvent::PromotionPublished { seed, .. }) => *seed = None,
            _ => {}
        }
        self
    }
}

/// Withhold a shoe's seed, and a pre-shuffled stack's recorded order, from
/// an event shown before the shoe is over: either tells every card to come
/// (NSW 4.13 voids a shoe whose sequence was revealed). The stack shows as
/// an empty list, so a reader still sees that the shoe was pre-shuffled.
pub fn blank(e: &mut Event) {
    if let Event::ShoeStarted { seed, preshuffled, .. } = e {
        *seed = None;
        if let Some(cards) = preshuffled {
            cards.clear();
        }
    }
}

fn encode(
    table: TableId,
    h: Option<Header>,
    by: Option<Actor>,
    event: Option<&Event>,
    casino: Option<&CasinoEvent>,
) -> String {
    let b = BodyRef {
        table,
        rulebook: h.map(|h| h.rulebook),
        rulebook_sha256: h.map(|h| h.rulebook_sha256),
        engine: h.map(|h| h.engine),
        by: by.filter(|a| *a != Actor::Server),
        event,
        casino,
    };
    serde_json::to_string(&b).expect("records serialise")
}

/// One record of a chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub seq: u64,
    pub prev: String,
    pub body: String,
    pub hash: String,
}

pub const GENESIS: [u8; 32] = [0; 32];

pub fn link(prev: &[u8; 32], seq: u64, body: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"baccarat-audit-v1");
    h.update(prev);
    h.update(seq.to_le_bytes());
    h.update(body.as_bytes());
    h.finalize().into()
}

/// 64 lower-case hex digits as 32 bytes. Lower case only, as `hex` writes
/// them: a record whose hash or link is written another way (upper case, a
/// sign) is not the record that was made. Digit by digit, not through
/// `from_str_radix` on each pair: every record read is checked with two of
/// these, and that parsing was most of `Chain::follow`'s own time in a start
/// after `kill -9` (7% of the start).
pub(crate) fn unhex(s: &str) -> Option<[u8; 32]> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            _ => None,
        }
    }
    let s: &[u8; 64] = s.as_bytes().try_into().ok()?;
    let mut out = [0u8; 32];
    for (b, pair) in out.iter_mut().zip(s.chunks_exact(2)) {
        *b = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

/// The end of an append-only chain: its head and length. The records
/// themselves go to the store (and are read back from it); keeping every one in
/// memory as well would grow without bound on a busy table.
#[derive(Clone, Debug)]
pub struct Chain {
    len: u64,
    head: [u8; 32],
}

impl Default for Chain {
    fn default() -> Chain {
        Chain::new()
    }
}

impl Chain {
    pub fn new() -> Chain {
        Chain { len: 0, head: GENESIS }
    }

    /// Append a body; returns its record, for the store.
    pub fn append(&mut self, body: String) -> Record {
        let seq = self.len + 1;
        let hash = link(&self.head, seq, &body);
        let r = Record { seq, prev: hex(&self.head), body, hash: hex(&hash) };
        self.head = hash;
        self.len = seq;
        r
    }

    /// The end of a chain of stored records, verified.
    pub fn from_records(records: &[Record]) -> Result<Chain, Broken> {
        let head = verify(records)?;
        Ok(Chain { head: unhex(&head).expect("verify returns a hash"), len: records.len() as u64 })
    }

    /// A chain's end as a checkpoint recorded it (`None` if the head is not a
    /// hash).
    pub fn resume(len: u64, head: &str) -> Option<Chain> {
        Some(Chain { len, head: unhex(head)? })
    }

    /// Take the next stored record, checking that it is the next one, links
    /// to this head and hashes to what it says.
    pub fn follow(&mut self, r: &Record) -> Result<(), Broken> {
        let seq = self.len + 1;
        if r.seq != seq {
            return Err(Broken {
                seq: r.seq,
                what: format!("expected record {seq} (a record is missing or out of order)"),
            });
        }
        if unhex(&r.prev) != Some(self.head) {
            return Err(Broken { seq, what: "does not link to the record before it".into() });
        }
        let h = link(&self.head, seq, &r.body);
        if unhex(&r.hash) != Some(h) {
            return Err(Broken { seq, what: "its hash does not match its contents (altered)".into() });
        }
        self.head = h;
        self.len = seq;
        Ok(())
    }

    /// Records in the chain.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn head(&self) -> String {
        hex(&self.head)
    }
}

/// Where a chain is broken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("record {seq}: {what}")]
pub struct Broken {
    pub seq: u64,
    pub what: String,
}

/// Check a chain from its first record: numbering, links and hashes.
pub fn verify(records: &[Record]) -> Result<String, Broken> {
    let mut c = Chain::new();
    for r in records {
        c.follow(r)?;
    }
    Ok(c.head())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> (Chain, Vec<Record>) {
        let mut c = Chain::new();
        let records = (0..n).map(|i| c.append(format!("{{\"event\":{i}}}"))).collect();
        (c, records)
    }

    #[test]
    fn an_intact_chain_verifies_to_its_head() {
        let (c, records) = chain(5);
        assert_eq!(verify(&records).unwrap(), c.head());
        assert_eq!(verify(&[]).unwrap(), hex(&GENESIS));
        let again = Chain::from_records(&records).unwrap();
        assert_eq!((again.head(), again.len()), (c.head(), 5));
    }

    /// `unhex` as it was: the check it must agree with.
    fn unhex_by_pairs(s: &str) -> Option<[u8; 32]> {
        if s.len() != 64 || !s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')) {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(out)
    }

    /// Every byte value reads back at every place; every byte put in any
    /// place of a digest's hex (and a shorter or longer one, and a character
    /// of two bytes) is taken or refused exactly as before.
    #[test]
    fn unhex_takes_exactly_what_hex_writes() {
        for v in 0..=255u8 {
            let bytes: [u8; 32] = std::array::from_fn(|i| v.wrapping_add((i as u8).wrapping_mul(37)));
            assert_eq!(unhex(&hex(&bytes)), Some(bytes));
        }
        let good = hex(&link(&GENESIS, 1, "x"));
        for at in 0..64 {
            for c in 0..=255u8 {
                let mut b = good.clone().into_bytes();
                b[at] = c;
                let Ok(s) = String::from_utf8(b) else { continue };
                assert_eq!(unhex(&s), unhex_by_pairs(&s), "{s:?}");
            }
            // Two bytes of one character in place of two digits: 64 bytes still.
            let mut wide = good.clone();
            wide.replace_range(at.min(62)..at.min(62) + 2, "é");
            assert_eq!(wide.len(), 64);
            assert_eq!((unhex(&wide), unhex_by_pairs(&wide)), (None, None));
        }
        for s in ["", &good[..63], &format!("{good}0"), &good.to_uppercase(), &format!("+{}", &good[1..])] {
            assert_eq!((unhex(s), unhex_by_pairs(s)), (None, None), "{s:?}");
        }
    }

    #[test]
    fn any_change_is_found_at_its_record() {
        let (_, records) = chain(5);
        let mut altered = records.clone();
        altered[2].body = "{\"event\":99}".into();
        assert_eq!(verify(&altered).unwrap_err().seq, 3);
        let mut removed = records.clone();
        removed.remove(1);
        assert_eq!(verify(&removed).unwrap_err().seq, 3);
        let mut swapped = records.clone();
        swapped.swap(3, 4);
        assert!(verify(&swapped).is_err());
        // Recomputing one record's hash does not help: the next link breaks.
        let mut forged = records.clone();
        forged[1].body = "{}".into();
        forged[1].hash = hex(&link(&unhex(&forged[1].prev).unwrap(), 2, "{}"));
        assert_eq!(verify(&forged).unwrap_err().seq, 3);
    }

    /// A person's change is recorded in the words of the contract (issue
    /// 47): the event's tag, then the change's own tag, and no password.
    #[test]
    fn a_user_change_is_written_and_read_back_in_the_contracts_words() {
        use crate::trust::Role;
        let e = CasinoEvent::UserChanged {
            user: UserId(7),
            name: "ana".into(),
            change: UserChange::RoleChanged { from: Role::Dealer, to: Role::Supervisor },
            by: UserId(1),
        };
        let body = Body::encode_casino(CASINO_CHAIN, None, &e);
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(v["casino"]["event"], "user_changed");
        assert_eq!(
            v["casino"]["change"],
            serde_json::json!({"change": "role_changed", "from": "dealer", "to": "supervisor"})
        );
        assert_eq!(Body::decode(&body).unwrap().casino, Some(e));
        let created = CasinoEvent::UserChanged {
            user: UserId(8),
            name: "bo".into(),
            change: UserChange::Created { role: Role::TournamentManager },
            by: UserId(1),
        };
        let v = serde_json::to_value(&created).unwrap();
        assert_eq!(v["change"], serde_json::json!({"change": "created", "role": "tournament_manager"}));
        for c in [UserChange::Disabled, UserChange::Enabled, UserChange::PasswordReset] {
            let e = CasinoEvent::UserChanged { user: UserId(9), name: "cy".into(), change: c, by: UserId(2) };
            let back: CasinoEvent = serde_json::from_value(serde_json::to_value(&e).unwrap()).unwrap();
            assert_eq!(back, e);
        }
    }
}
