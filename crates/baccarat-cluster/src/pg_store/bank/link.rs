//! A partition's server and the bank, on the writer (`writer.rs`): before a
//! request is handled, a wager whose wallet here is short is funded from the
//! bank, and a deposit is made at the bank (the cage of a partitioned
//! casino). See `casino/bank_side.rs` for the partition's books.
//!
//! The bank is asked synchronously, on the writer: one transaction a batch,
//! for the players whose wallets here lack money for that batch's wagers
//! (taking [`HEADROOM`] times the need more, and keeping it here until the
//! player has held nothing for a second: `casino/bank_side.rs`), and a read
//! for each deposit. Every other request is handled without it. If the bank
//! cannot be reached, or its answer cannot be recorded, the server stops, as
//! on a failed commit: a start takes from the bank whatever it made.

use baccarat_rules::Money;
use baccarat_table::PlayerId;

use super::{Bank, BankError, LossDay, Move, MoveKind};
use crate::casino::{Casino, Code, Reply, Request, SelfLimitsChange};
use crate::ledger::LedgerError;
use crate::pg_store::Lease;
use crate::store::Commit;

/// Why a partition's link to the bank was not made.
#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// The bank's database could not be reached.
    #[error("the bank: {0}")]
    Connect(#[source] BankError),
    /// The bank's connection could not be set up.
    #[error("the bank: {0}")]
    Setup(#[source] postgres::Error),
}

/// An allotment takes this many times the batch's need more than it lacks
/// (what the bank holds, if less), so that a player who goes on wagering
/// here is not short again at once; what is not wagered goes back a while
/// after their last hold closes (`casino/bank_side.rs`). Exactly what was
/// lacking, each batch's allotment cost an fsync at the bank under its one
/// lock, and two partitions under `loadgen` accepted 4.6 k bets/s.
pub const HEADROOM: i64 = 3;

/// The writer's connection to the bank, for partition `partition`.
pub struct BankLink {
    bank: Bank,
    lease: Lease,
    partition: String,
    /// Allotments asked for by this server (their references).
    asked: u64,
    /// The deposits this server took lately, by reference, with their
    /// amounts: a retry that comes before the first is committed is
    /// answered from here (the bank does not have it yet).
    recent: std::collections::HashMap<String, i64>,
    /// When the bank's log of limits was last read (the casino's clock).
    polled_ms: u64,
    /// The batch's players whose allotment their loss limit stopped, with
    /// the limit.
    limited: std::collections::BTreeMap<PlayerId, Money>,
    /// What a failure that leaves memory ahead of the books does (`fatal.rs`).
    fatal: baccarat_core::Fatal,
}

/// How many deposits `recent` keeps before it starts again: far more than
/// can be in commits on their way to the bank at once.
const RECENT: usize = 100_000;

impl BankLink {
    /// Connect to the bank through the partition's URL (its search path finds
    /// the partition's lease), writing under `lease`.
    pub fn connect(url: &str, partition: &str, lease: Lease) -> Result<BankLink, LinkError> {
        let mut bank = Bank::connect(url).map_err(LinkError::Connect)?;
        // Its moves lock the partition's lease row first (`moves.rs`).
        bank.with_client(crate::pg_store::end_idle_transactions).map_err(LinkError::Setup)?;
        Ok(BankLink {
            bank,
            lease,
            partition: partition.to_string(),
            asked: 0,
            recent: Default::default(),
            polled_ms: 0,
            limited: Default::default(),
            fatal: baccarat_core::Fatal::exiting(),
        })
    }

    /// What a failure does: by default the process exits; in a process
    /// serving several partitions, only this one stops (`fatal.rs`).
    pub fn on_fatal(mut self, fatal: baccarat_core::Fatal) -> BankLink {
        self.fatal = fatal;
        self
    }

    /// The bank itself (a start reads the allotments it has not recorded).
    pub fn bank(&mut self) -> &mut Bank {
        &mut self.bank
    }

    /// Before a batch's requests are handled: take from the bank, in one
    /// transaction, what each player's wallet here lacks for all their
    /// wagers (and tournament entry fees) in the batch that the casino may
    /// take (`casino/funding.rs`), and [`HEADROOM`] times more (all the bank
    /// holds, if that is less: the casino refuses what is still short). One
    /// fsync at the bank a batch, not one a wager: asked one at a time, a
    /// partition under `loadgen` accepted 2.7 k bets/s.
    pub fn fund_batch<'a>(
        &mut self,
        casino: &mut Casino,
        requests: impl Iterator<Item = &'a Request>,
        commit: &mut Commit,
    ) {
        let (moves, needs) = self.allotments(casino, requests);
        if moves.is_empty() {
            return;
        }
        // Every allotment the bank made is recorded here, in the bank's
        // order, or the server stops: a start takes those after the last one
        // recorded (`Casino::take_missing_allotments`), so one skipped here
        // with a later one recorded would be stranded at the bank for good.
        // (A failed connection may have committed without saying: only a
        // start can tell.)
        for ((made, asked), (player, limit)) in
            self.bank.make_all(&moves, Some(&self.lease), true).into_iter().zip(&moves).zip(needs)
        {
            // Less than asked while the bank still holds more: the loss
            // limit, counted across partitions, stopped it.
            let stopped = match &made {
                Ok(m) => m.body.bank.amount < asked.amount && m.body.wallet > 0,
                Err(BankError::Limited { .. }) => true,
                Err(_) => false,
            };
            if let (true, Some(limit)) = (stopped, limit) {
                self.limited.insert(player, limit);
            }
            match made {
                Ok(m) => {
                    if let Err(e) = casino.allotted_made(&m.record, &m.body, commit) {
                        let why = format!("bank: the allotment {} cannot be recorded here: {e}", m.record.seq);
                        return self.fatal.fire(70, &why);
                    }
                }
                Err(BankError::Short { .. } | BankError::Limited { .. }) => {}
                Err(BankError::Fenced(why)) => return self.fatal.fire(75, &format!("bank: {why}")),
                Err(e) => return self.fatal.fire(70, &format!("bank: it failed ({e}); a start takes what it made")),
            }
        }
    }

    /// The allotments a batch asks the bank for (see [`BankLink::fund_batch`]),
    /// each with its player and the loss limit it is asked under.
    fn allotments<'a>(
        &mut self,
        casino: &mut Casino,
        requests: impl Iterator<Item = &'a Request>,
    ) -> (Vec<Move>, Vec<(PlayerId, Option<Money>)>) {
        let mut need: std::collections::BTreeMap<PlayerId, Money> = std::collections::BTreeMap::new();
        // Only what the casino may hold: nothing for a wager it will refuse
        // whatever the wallet holds (`casino/funding.rs`).
        for (player, amount) in requests.filter_map(|r| casino.stake_to_fund(r)) {
            let n = need.entry(player).or_insert(Money::ZERO);
            *n = *n + amount;
        }
        self.limited.clear();
        let now = (casino.clock)();
        let day = now / crate::casino::self_limits::DAY_MS;
        let mut moves = Vec::new();
        let mut needs = Vec::new();
        for (player, need) in need {
            let have = casino.balance(player).map_or(Money::ZERO, |b| b.1);
            if need > have {
                self.asked += 1;
                // A player with a loss limit is given only what the wagers
                // lack: headroom would count against their limit at every
                // other partition until it came back.
                let limit = casino.self_limits.get(&player).and_then(|s| s.loss_per_day.at(now));
                let headroom = if limit.is_some() { 0 } else { need.0.saturating_mul(HEADROOM) };
                moves.push(Move {
                    kind: MoveKind::Allot,
                    player: player.0,
                    amount: (need.0 - have.0).saturating_add(headroom),
                    partition: Some(self.partition.clone()),
                    reference: format!("{}:e{}:a{}", self.partition, self.lease.epoch, self.asked),
                    loss_day: Some(LossDay { day, limit: limit.map(|m| m.0), at_ms: Some(now) }),
                });
                needs.push((player, limit));
            }
        }
        (moves, needs)
    }

    /// Before `req` is handled: answer a deposit (paid into the bank with
    /// this batch's commit), or a change of a player's own limits (shared
    /// through the bank), in its place.
    pub fn before(&mut self, casino: &mut Casino, req: &Request, commit: &mut Commit) -> Option<Reply> {
        match req {
            Request::Deposit { player, amount, key } => {
                Some(self.deposit(casino, *player, *amount, key.as_str(), commit))
            }
            Request::SelfLimits { player, change } if *change != SelfLimitsChange::Read => {
                Some(self.share_limits(casino, *player, change, commit))
            }
            Request::Wager { player, amount, ante, .. } => self.over_limit(casino, *player, *amount + *ante),
            Request::Wagers { player, slip, .. } => {
                self.over_limit(casino, *player, slip.iter().fold(Money::ZERO, |m, l| m + l.amount + l.ante))
            }
            // A tournament's fee is money into play too (`casino/into_play.rs`).
            Request::EnterTournament { tournament, player } => {
                self.over_limit(casino, *player, casino.entry_fee(*tournament)?)
            }
            _ => None,
        }
    }

    /// A wager (or a tournament's fee) of `stake` the wallet here cannot
    /// hold because the bank would not allot more under the player's loss
    /// limit, counted across partitions: refused as the limit's, not as a
    /// short wallet.
    fn over_limit(&self, casino: &Casino, player: PlayerId, stake: Money) -> Option<Reply> {
        let limit = self.limited.get(&player)?;
        let available = casino.balance(player).map_or(Money::ZERO, |b| b.1);
        (available < stake).then(|| {
            Reply::refused(
                Code::SelfLimit,
                format!(
                    "You set a loss limit of {limit} a day, counted at every table of the casino: today's stakes \
                     and losses there have reached it, so {stake} more cannot be staked. It resets at \
                     midnight UTC."
                ),
            )
        })
    }

    /// A player's change of their own limits: checked here, appended to the
    /// bank's log of limits, and folded in here at once with whatever else
    /// the log holds that is new here (`bank/limits.rs`); the answer is the
    /// player's limits as they now stand here.
    fn share_limits(
        &mut self,
        casino: &mut Casino,
        player: PlayerId,
        change: &SelfLimitsChange,
        commit: &mut Commit,
    ) -> Reply {
        let e = match casino.limits_event(player, change) {
            Ok(Some(e)) => e,
            Ok(None) => return casino.handle(Request::SelfLimits { player, change: change.clone() }, commit),
            Err(refused) => return refused,
        };
        if let Err(e) = self.bank.with_client(|c| super::limits::share(c, &self.partition, &e)) {
            return Reply::refused(Code::Unavailable, format!("the bank could not take the change: {e}; retry"));
        }
        self.poll(casino, commit);
        casino.handle(Request::SelfLimits { player, change: SelfLimitsChange::Read }, commit)
    }

    /// After a batch's requests are handled: put the days its wagers opened
    /// here (`PlayDay`) into the bank's log of limits, so that the other
    /// partitions count the player's minutes from them (`bank/limits.rs`).
    /// Before the batch's commit: a day shared whose commit then fails
    /// counts minutes from a wager not placed, which is stricter, never
    /// looser. One the bank cannot take is named; the others then learn the
    /// day from this partition's next allotment for the player.
    pub fn share_days(&mut self, casino: &mut Casino) {
        for e in std::mem::take(&mut casino.bank.days_to_share) {
            if let Err(err) = self.bank.with_client(|c| super::limits::share(c, &self.partition, &e)) {
                tracing::warn!(error = %err, "bank: a player's day, opened here, not shared");
            }
        }
    }

    /// With each batch, at most every `limits::POLL_MS` of the casino's
    /// clock: fold in the changes of players' limits asked at any partition
    /// since the last one folded here.
    pub fn poll_due(&mut self, casino: &mut Casino, commit: &mut Commit) {
        let now = (casino.clock)();
        if now.saturating_sub(self.polled_ms) >= super::limits::POLL_MS {
            self.poll(casino, commit);
        }
    }

    /// Fold in every change of players' limits after the last one folded
    /// here. A bank that cannot be read is named and tried again with the
    /// next batch (its allotments fail then too, which stops the server).
    pub fn poll(&mut self, casino: &mut Casino, commit: &mut Commit) {
        self.polled_ms = (casino.clock)();
        loop {
            let after = casino.bank.limits_seq;
            match self.bank.with_client(|c| super::limits::shared_after(c, after, 1_000)) {
                Ok(changes) => {
                    let n = changes.len();
                    for (seq, e) in changes {
                        casino.adopt_limits(seq, e, commit);
                    }
                    if n < 1_000 {
                        return;
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "bank: players' limits not read; tried again with the next batch");
                    self.polled_ms = 0;
                    return;
                }
            }
        }
    }

    /// Chips in at this partition's cage, paid into the bank by the batch's
    /// own commit and recorded in this partition's chain
    /// ([`Casino::caged`]). The idempotency key, scoped to this partition,
    /// is the bank's reference: a retry answers the first deposit and the
    /// key with another amount is refused, whether the first is at the bank
    /// already or still in a commit on its way there (`recent`). The
    /// balance is the player's at the bank (this deposit included) and here.
    fn deposit(
        &mut self,
        casino: &mut Casino,
        player: PlayerId,
        amount: Money,
        key: &str,
        commit: &mut Commit,
    ) -> Reply {
        let reference = super::cage_reference(&self.partition, player.0, key);
        // The wallet and the move under the reference, as of one moment.
        let (at_bank, made) = match self.bank.wallet_and_move(player.0, &reference) {
            Ok((w, found)) => (w, found.map(|b| b.bank.amount)),
            Err(e) => {
                return Reply::refused(
                    Code::Unavailable,
                    format!("the bank cannot be read: {e}; retry with the same key"),
                )
            }
        };
        // What is not at the bank yet (this deposit, or its first sending
        // still in a commit on its way) is added to the bank's balance.
        let on_its_way = match made.or_else(|| self.recent.get(&reference).copied()) {
            Some(a) if a != amount.0 => return LedgerError::KeyReused(key.to_string()).into(),
            Some(_) if made.is_some() => Money::ZERO,
            Some(_) => amount,
            None => {
                if let Err(why) = casino.caged(player, amount, &reference, commit) {
                    return Reply::refused(Code::Wallet, why.to_string());
                }
                if self.recent.len() >= RECENT {
                    self.recent.clear();
                }
                self.recent.insert(reference, amount.0);
                amount
            }
        };
        let here = casino.balance(player).map_or(0, |b| b.0 .0);
        Reply::Deposit { balance: Money(at_bank + on_its_way.0 + here) }
    }
}
/// The writer's three calls (`writer::Funding`).
impl baccarat_casino::Funding for BankLink {
    fn before_batch(&mut self, casino: &mut Casino, requests: &mut dyn Iterator<Item = &Request>, commit: &mut Commit) {
        self.poll_due(casino, commit);
        self.fund_batch(casino, requests, commit);
    }
    fn before(&mut self, casino: &mut Casino, request: &Request, commit: &mut Commit) -> Option<Reply> {
        BankLink::before(self, casino, request, commit)
    }
    fn after_batch(&mut self, casino: &mut Casino) {
        self.share_days(casino);
    }
}

#[cfg(test)]
mod error_tests {
    use super::{BankError, LinkError};

    /// A failed link reads as before: `the bank: <why>`.
    #[test]
    fn a_failed_link_reads_as_before() {
        let why = BankError::Invalid { field: "partition", why: "x".into() };
        let shown = why.to_string();
        assert_eq!(LinkError::Connect(why).to_string(), format!("the bank: {shown}"));
    }
}
