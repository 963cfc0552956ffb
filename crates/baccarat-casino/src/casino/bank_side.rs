//! A partition's side of the bank (`bank/`): the casino of one partition of a
//! PostgreSQL casino takes its players' money from the shared bank and gives
//! it back, each move recorded in its own ledger and chain.
//!
//! * **In.** The writer, finding wallets short for a batch's wagers, asks the
//!   bank for the difference and some headroom (allotments, one transaction
//!   at the bank for the batch, under the partition's lease: `bank/link.rs`). Once the bank has made it, [`Casino::allotted`]
//!   moves the money from the partition's [`AccountKind::Bank`] account to the
//!   player's wallet here and records `allotted` in the casino's chain, with
//!   the bank's record number and hash; then the wager is placed as on any
//!   casino, its hold taken here with no further round trip.
//! * **Out.** [`Casino::return_idle`] gives back what a player has here once
//!   they have held nothing for [`RETURN_AFTER_MS`]: a transfer to the bank account, a `returned` record, and
//!   the bank's move in the same commit ([`Commit::bank`]), which the
//!   PostgreSQL store makes in the batch's own transaction. So a return is in
//!   both books or in neither. (It is looked for with each writer batch: a
//!   partition whose writer has nothing to do gives back at its next batch.)
//! * **Chips bought at its cage** ([`Casino::caged`]) go into the bank in
//!   the partition's own commit, as a return does, with a `caged` record: a
//!   deposit at the bank that no partition's chain records was made by hand.
//! * **Players' own limits** are the player's at every partition: each
//!   change goes through the bank's log of limits and every partition folds
//!   it in ([`Casino::adopt_limits`], `bank/limits.rs`).
//! * **A crash between the two transactions of an allotment** (the bank's
//!   committed, the partition's batch not) leaves money at the bank's
//!   position for this partition that its ledger never received. The bank
//!   numbers its records, and this casino keeps the number of the last
//!   allotment it recorded ([`BankSide::last_seq`], in checkpoints too): a
//!   start takes every later allotment of the partition from the bank
//!   ([`Casino::take_missing_allotments`]) before it serves, so nothing the
//!   bank gave is lost, and nothing is taken twice.
//!
//! The ledger's bank account therefore always stands at minus the
//! partition's net position at the bank (allotted less returned), which
//! `verify` can check from both sides.

use std::collections::BTreeMap;

use baccarat_rules::Money;
use baccarat_table::PlayerId;

use super::Casino;
use crate::audit::{CasinoEvent, Record};
use crate::casino::self_limits::DAY_MS;
use crate::ledger::{AccountKind, Cause, Op};
use crate::store::Commit;
use baccarat_core::{LossDay, Move, MoveBody, MoveKind};

/// Why a move of the bank's money was not recorded here (nothing changed):
/// each names what is wrong, as the bank link and the tests read it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BankSideError {
    /// An allotment on a casino that is no partition.
    #[error("this casino is not a partition: its wallets are filled at its own cage")]
    NotPartitionAllot,
    /// A cage deposit for the bank on a casino that is no partition.
    #[error("this casino is not a partition: its cage fills its own wallets")]
    NotPartitionCage,
    #[error("amount: {amount} is not above zero")]
    Amount { amount: Money },
    /// An allotment recorded already, or out of order.
    #[error("the bank's record {bank_seq} is not after the last one recorded here ({last})")]
    NotAfter { bank_seq: u64, last: u64 },
    #[error("the ledger refused the bank's money: {0}")]
    Ledger(#[source] crate::ledger::LedgerError),
    /// A move of the bank's log that names another partition.
    #[error("the bank's record {seq} is another partition's")]
    OtherPartition { seq: u64 },
}

/// How long a player's money stays at a partition after their last hold
/// there closed, by default: a player who goes on playing keeps it (and
/// their next wagers need no allotment), one who stops has it back at the
/// bank a second later. (Given back at once after each batch, a partition
/// under `loadgen` accepted 4.0 k bets/s: every coup cost each player an
/// allotment and a return, and every return held the bank's lock for the
/// partition's whole commit.)
pub const RETURN_AFTER_MS: u64 = 1_000;

/// What a casino keeps of the bank.
#[derive(Clone, Debug)]
pub struct BankSide {
    /// The partition this casino is, if it is one: its players' money comes
    /// from the bank, not from its cage.
    pub partition: Option<String>,
    /// The bank's record of the last allotment recorded here.
    pub last_seq: u64,
    /// How long money stays here after the player's last hold closed (ms).
    pub return_after_ms: u64,
    /// The last record of the bank's log of players' limits folded here
    /// (`bank/limits.rs`; in checkpoints too).
    pub limits_seq: u64,
    /// Players whose wallet here may hold money to give back, with when
    /// they were last seen holding (ms, the casino's clock).
    idle: BTreeMap<PlayerId, u64>,
    /// Days opened here by a wager (`PlayDay`) since the last batch, for the
    /// bank's log of limits: the other partitions count the player's
    /// minutes from them (`bank/link.rs`).
    pub days_to_share: Vec<CasinoEvent>,
}

impl Default for BankSide {
    fn default() -> BankSide {
        BankSide {
            partition: None,
            last_seq: 0,
            return_after_ms: RETURN_AFTER_MS,
            limits_seq: 0,
            idle: BTreeMap::new(),
            days_to_share: Vec::new(),
        }
    }
}

impl BankSide {
    /// At a partition: `player`'s wallet here may hold money to give back
    /// (seen at `now()`, unless it was already a candidate). The clock is
    /// read only at a partition: this is on every wager's path.
    pub fn may_give_back(&mut self, player: PlayerId, now: impl FnOnce() -> u64) {
        if self.partition.is_some() {
            self.idle.entry(player).or_insert_with(now);
        }
    }

    /// Take a record of the casino's chain (recovery replays them).
    pub fn replay(&mut self, e: &CasinoEvent) {
        match e {
            CasinoEvent::Allotted { player, bank_seq, .. } => {
                self.last_seq = self.last_seq.max(*bank_seq);
                self.idle.insert(*player, 0);
            }
            CasinoEvent::LimitsSet { shared: Some(seq), .. }
            | CasinoEvent::CoolOff { shared: Some(seq), .. }
            | CasinoEvent::PlayDay { shared: Some(seq), .. } => {
                self.limits_seq = self.limits_seq.max(*seq);
            }
            _ => {}
        }
    }
}

impl Casino {
    /// Serve as partition `name` of a PostgreSQL casino from now on (after
    /// creation or recovery): every wallet with money here is a candidate
    /// to give back.
    pub fn set_partition(&mut self, name: &str) {
        self.bank.partition = Some(name.to_string());
        let wallets = self.ledger.accounts().filter(|a| a.balance > 0);
        self.bank.idle.extend(wallets.filter_map(|a| match a.kind {
            AccountKind::Wallet { player } => Some((player, 0)),
            _ => None,
        }));
    }

    /// Record the bank's allotment `bank_seq` (hash `bank_hash`) of `amount`
    /// to `player`, made by the bank already: refused (naming why, nothing
    /// changed) on a casino that is no partition, or for a record not after
    /// the last one recorded (twice, or out of order).
    pub fn allotted(
        &mut self,
        player: PlayerId,
        amount: Money,
        bank_seq: u64,
        bank_hash: &str,
        commit: &mut Commit,
    ) -> Result<(), BankSideError> {
        self.allotted_on_day(player, amount, bank_seq, bank_hash, None, commit)
    }

    /// As [`Casino::allotted`], for the bank's record `r` of the move `body`
    /// (with the day's first allotment it counted).
    pub fn allotted_made(&mut self, r: &Record, body: &MoveBody, commit: &mut Commit) -> Result<(), BankSideError> {
        let (player, amount) = (PlayerId(body.bank.player), Money(body.bank.amount));
        self.allotted_on_day(player, amount, r.seq, &r.hash, body.day_first_ms, commit)
    }

    fn allotted_on_day(
        &mut self,
        player: PlayerId,
        amount: Money,
        bank_seq: u64,
        bank_hash: &str,
        day_first_ms: Option<u64>,
        commit: &mut Commit,
    ) -> Result<(), BankSideError> {
        if self.bank.partition.is_none() {
            return Err(BankSideError::NotPartitionAllot);
        }
        if amount <= Money::ZERO {
            return Err(BankSideError::Amount { amount });
        }
        if bank_seq <= self.bank.last_seq {
            return Err(BankSideError::NotAfter { bank_seq, last: self.bank.last_seq });
        }
        self.ledger.set_time((self.clock)());
        let bank = self.ledger.open(AccountKind::Bank);
        let wallet = self.wallet(player);
        let seq = self.chain.len() + 1;
        let op = Op::Transfer { debit: bank, credit: wallet, amount, memo: format!("from the bank ({bank_seq})") };
        let (a, ch) = self.ledger.apply_internal(&[op], Cause::Bank { seq });
        self.opened(commit);
        a.map_err(BankSideError::Ledger)?;
        commit.ledger.push(ch);
        let e = CasinoEvent::Allotted { player, amount, bank_seq, bank_hash: bank_hash.to_string(), day_first_ms };
        let recorded = self.casino_event(e, commit);
        debug_assert_eq!(recorded, seq);
        self.bank.last_seq = bank_seq;
        self.bank.idle.insert(player, (self.clock)());
        Ok(())
    }

    /// Give back to the bank what each player has here who has held nothing
    /// for [`BankSide::return_after_ms`], in this commit: how many were
    /// given back. (Nothing on a casino that is no partition.)
    pub fn return_idle(&mut self, commit: &mut Commit) -> usize {
        let Some(partition) = self.bank.partition.clone() else { return 0 };
        if self.bank.idle.is_empty() {
            return 0;
        }
        // (A partition that never took an allotment opens its account at
        // the bank with its first return: a prize won here, say.)
        let bank = match self.ledger.find(&AccountKind::Bank) {
            Some(b) => b,
            None => {
                self.ledger.set_time((self.clock)());
                let b = self.ledger.open(AccountKind::Bank);
                self.opened(commit);
                b
            }
        };
        let (now, after) = ((self.clock)(), self.bank.return_after_ms);
        // Who is due: the others' times are brought up to date in place.
        let mut due = Vec::new();
        let ledger = &self.ledger;
        self.bank.idle.retain(|&player, seen| {
            let Some(a) = ledger.find(&AccountKind::Wallet { player }).and_then(|w| ledger.account(w)) else {
                return false;
            };
            if a.held > 0 {
                *seen = now;
            } else if now.saturating_sub(*seen) >= after {
                due.push((player, a.id, a.balance));
                return false;
            }
            true
        });
        let mut given = 0;
        for (player, wallet, balance) in due {
            let amount = Money(balance);
            if amount <= Money::ZERO {
                continue;
            }
            let seq = self.chain.len() + 1;
            let reference = format!("{partition}:c{seq}");
            let op = Op::Transfer { debit: wallet, credit: bank, amount, memo: format!("to the bank ({reference})") };
            let (a, ch) = self.ledger.apply_internal(&[op], Cause::Bank { seq });
            if a.is_err() {
                // Nothing held, the whole balance: the ledger cannot refuse it.
                continue;
            }
            commit.ledger.push(ch);
            self.casino_event(CasinoEvent::Returned { player, amount, reference: reference.clone() }, commit);
            commit.bank.push(Move {
                kind: MoveKind::Return,
                player: player.0,
                amount: amount.0,
                partition: Some(partition.clone()),
                reference,
                loss_day: Some(LossDay { day: now / super::self_limits::DAY_MS, limit: None, at_ms: None }),
            });
            given += 1;
        }
        given
    }

    /// Chips bought at this partition's cage: `amount` paid into `player`'s
    /// wallet at the bank under `reference`, by this commit's own
    /// transaction ([`Commit::bank`]), and recorded in this casino's chain
    /// (`caged`), which its anchor file signs: so no deposit at the bank is
    /// in no anchored chain (`bank::verify`). Nothing here changes: the
    /// money is at the bank until an allotment brings it. Refused (naming
    /// why, nothing changed) on a casino that is no partition, or for an
    /// amount not above zero.
    pub fn caged(
        &mut self,
        player: PlayerId,
        amount: Money,
        reference: &str,
        commit: &mut Commit,
    ) -> Result<(), BankSideError> {
        let Some(partition) = self.bank.partition.clone() else {
            return Err(BankSideError::NotPartitionCage);
        };
        if amount <= Money::ZERO {
            return Err(BankSideError::Amount { amount });
        }
        let at_ms = Some((self.clock)());
        self.casino_event(CasinoEvent::Caged { player, amount, reference: reference.to_string(), at_ms }, commit);
        commit.bank.push(Move {
            kind: MoveKind::Deposit,
            player: player.0,
            amount: amount.0,
            partition: Some(partition),
            reference: reference.to_string(),
            loss_day: None,
        });
        Ok(())
    }

    /// Fold record `seq` of the bank's log of players' limits (`e`, a
    /// `LimitsSet` or a `CoolOff`, asked at this partition or another:
    /// `bank/limits.rs`) into this partition's limits, and record it in its
    /// chain naming `seq`: whether it was folded. A record not after the
    /// last one folded is passed over (it is here already); one that is no
    /// limit, or whose fields this casino would refuse, is passed over with
    /// a warning (no server writes such a record). A change's time is taken
    /// no earlier than `SKEW_MS` before this casino's clock, so that a
    /// record written by hand with an old time cannot loosen a limit at once.
    pub fn adopt_limits(&mut self, seq: u64, e: CasinoEvent, commit: &mut Commit) -> bool {
        use baccarat_core::SKEW_MS;
        if seq <= self.bank.limits_seq || self.bank.partition.is_none() {
            return false;
        }
        self.bank.limits_seq = seq;
        let earliest = (self.clock)().saturating_sub(SKEW_MS);
        let e = match e {
            CasinoEvent::LimitsSet { player, loss_per_day, minutes_per_day, at_ms, .. } => {
                if let Err(r) = self.limits_fields(loss_per_day, minutes_per_day) {
                    tracing::warn!(seq, "the bank's limits record is passed over: {r:?}");
                    return false;
                }
                CasinoEvent::LimitsSet {
                    player,
                    loss_per_day,
                    minutes_per_day,
                    at_ms: at_ms.max(earliest),
                    shared: Some(seq),
                }
            }
            CasinoEvent::CoolOff { player, until, .. } => CasinoEvent::CoolOff { player, until, shared: Some(seq) },
            // Another partition's day opening: news only if no earlier start
            // of that day is known here (this partition's own come back so).
            // An earlier start can only shorten the player's minutes.
            CasinoEvent::PlayDay { player, day, first_ms, shared: None, .. } => {
                if first_ms / DAY_MS != day {
                    tracing::warn!(seq, day, "the bank's limits record is passed over: its time is not on its day");
                    return false;
                }
                let known = self.self_limits.get(&player);
                if known.is_some_and(|s| !s.would_learn(first_ms)) {
                    return false;
                }
                CasinoEvent::PlayDay { player, day, base: Money::ZERO, first_ms, shared: Some(seq) }
            }
            other => {
                tracing::warn!(seq, "the bank's limits record is passed over: not a player's limits ({other:?})");
                return false;
            }
        };
        self.casino_event(e, commit);
        true
    }

    /// At a start: record the partition's allotments the bank made after
    /// the last one recorded here (`moves`: the bank's moves of this
    /// partition, in order, as `Bank::moves_of` reads them); how many.
    pub fn take_missing_allotments(
        &mut self,
        moves: &[(Record, MoveBody)],
        commit: &mut Commit,
    ) -> Result<usize, BankSideError> {
        let mut taken = 0;
        for (r, body) in moves {
            if body.bank.kind != MoveKind::Allot || r.seq <= self.bank.last_seq {
                continue;
            }
            if body.bank.partition != self.bank.partition {
                return Err(BankSideError::OtherPartition { seq: r.seq });
            }
            self.allotted_made(r, body, commit)?;
            taken += 1;
        }
        Ok(taken)
    }
}

#[cfg(test)]
mod error_tests {
    use super::BankSideError;

    /// The refusals read as the strings they replaced, byte for byte (the
    /// bank link puts them in a fatal stop's message; tests match on them).
    #[test]
    fn refusals_read_as_before() {
        let e = BankSideError::NotAfter { bank_seq: 4, last: 5 };
        assert_eq!(e.to_string(), "the bank's record 4 is not after the last one recorded here (5)");
        assert_eq!(BankSideError::OtherPartition { seq: 9 }.to_string(), "the bank's record 9 is another partition's");
    }
}
