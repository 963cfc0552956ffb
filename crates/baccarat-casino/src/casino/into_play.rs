//! One list of what moves a player's money into play, and the one check
//! every entry on it passes: the player's own limits and cool-off
//! (`self_limits.rs`).
//!
//! Before this list, only a table wager checked them (`wager.rs`): a player
//! on a cool-off could still enter a tournament and pay its fee (issue 45,
//! finding 6), and a loss or time limit let the fee through the same way.
//! Now each way in names its entry ([`IntoPlay`]) and calls
//! [`Casino::admit_into_play`], and [`IntoPlay::of`] classifies every
//! request the writer takes, with no catch-all arm: a new request does not
//! compile until it says whether it moves money into play. The server's
//! tests (`tests/server/into_play.rs`) place one request of each entry in
//! [`IntoPlay::ALL`] under a cool-off, a loss limit and a time limit, through
//! [`Casino::handle`].
//!
//! The rulebooks set no self-limits (see `self_limits.rs`); what is on the
//! list, and what is not, is this server's choice:
//!
//! * On it: a wager (`Request::Wager`), its ante at an Ante Up table (AU
//!   14.5: held with the stake, so it counts toward the loss limit), a line
//!   of a bet slip (`Request::Wagers`), a wager of promotional tokens
//!   (`Request::TokenWager`; NSW 1.1: the tokens are the casino's, not the
//!   player's money, so the loss limit does not count them, but the cool-off
//!   and the minutes do), and a tournament's entry fee
//!   (`Request::EnterTournament`; NSW 15.3.2: paid from the wallet into the
//!   prize pool).
//! * Not on it: a wager in a tournament's play, made with tournament chips,
//!   which "have no cash value" (NSW 15.1.1); a deposit (money into the
//!   wallet, not into play); a withdrawal, refund or prize (money out of
//!   play). There is no re-buy or buy-back: the conditions may publish one
//!   (NSW 15.4.2(g), `buy_back`), but no request takes its price, so it has
//!   no entry; the request that does will have to name one in
//!   [`IntoPlay::of`].
//!
//! A tournament entry opens the player's day as a first wager would (its
//! minutes count from it, and its loss is measured from the wallet before
//! the fee), since the rulebooks say nothing of it: the stricter reading, as
//! the fee leaves the wallet as a stake does.

use baccarat_rules::Money;
use baccarat_table::PlayerId;

use super::self_limits::PlayDay;
use super::{Casino, Code, Reply, Request};
use crate::audit::CasinoEvent;
use crate::store::Commit;

/// A way a player's money goes into play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntoPlay {
    /// A wager from the wallet, without an ante.
    Wager,
    /// A wager from the wallet with its ante (AU 14.5).
    Ante,
    /// A line of a bet slip.
    SlipLine,
    /// A wager of promotional tokens (NSW 1.1).
    TokenWager,
    /// A tournament's entry fee (NSW 15.3.2).
    TournamentEntry,
}

impl IntoPlay {
    /// Every entry (the tests place one of each; the match in
    /// [`IntoPlay::players_money`] stops compiling when one is added, as a
    /// reminder to list it here).
    pub const ALL: [IntoPlay; 5] =
        [IntoPlay::Wager, IntoPlay::Ante, IntoPlay::SlipLine, IntoPlay::TokenWager, IntoPlay::TournamentEntry];

    /// Whether the stake is the player's own money, which their loss limit
    /// counts (promotional tokens are not: NSW 1.1).
    pub fn players_money(self) -> bool {
        match self {
            IntoPlay::Wager | IntoPlay::Ante | IntoPlay::SlipLine | IntoPlay::TournamentEntry => true,
            IntoPlay::TokenWager => false,
        }
    }

    /// The entry a request moves money into play by, if it does. Every
    /// request is named here, so that a new one must say.
    pub fn of(req: &Request) -> Option<IntoPlay> {
        match req {
            Request::Wager { ante, .. } if *ante != Money::ZERO => Some(IntoPlay::Ante),
            Request::Wager { .. } => Some(IntoPlay::Wager),
            Request::Wagers { .. } => Some(IntoPlay::SlipLine),
            Request::TokenWager { .. } => Some(IntoPlay::TokenWager),
            Request::EnterTournament { .. } => Some(IntoPlay::TournamentEntry),
            // Tournament chips have no cash value (NSW 15.1.1).
            Request::TournamentPlay { .. } => None,
            // Money into the wallet, or out of play, or no money at all.
            Request::Deposit { .. }
            | Request::Withdraw { .. }
            | Request::WithdrawFromTournament { .. }
            | Request::CancelTournament { .. }
            | Request::DrawPromotion { .. }
            | Request::ClaimPrize { .. }
            | Request::RefuseClaim { .. }
            | Request::SetOpen { .. }
            | Request::CreateTable { .. }
            | Request::Table { .. }
            | Request::VoidHalted { .. }
            | Request::NewShoe { .. }
            | Request::CheckLedger
            | Request::Checkpoint
            | Request::CreateTournament { .. }
            | Request::AmendTournamentLimits { .. }
            | Request::CreatePromotion { .. }
            | Request::SelfLimits { .. }
            | Request::CashOut { .. }
            | Request::Fill { .. }
            | Request::Credit { .. } => None,
            Request::CloseTable { .. } => None,
            Request::SetGamingDay { .. } => None,
            // A person's account changed: no money moves.
            Request::UserChanged { .. } => None,
        }
    }
}

impl Casino {
    /// The one check of the player's own limits that every entry of the
    /// list passes before it holds `held`: refused (`self_limit`, in the
    /// player's words) on a cool-off, past the day's minutes, or, for the
    /// player's own money, past the day's loss limit. On success, the day to
    /// record if this opens one ([`Casino::open_play_day`], once the money
    /// is held).
    ///
    /// The day's loss is measured from the wallet whatever the entry: a
    /// token wager that opened the day once recorded the tokens' balance as
    /// the day's base, and a wallet holding more than the tokens could then
    /// lose that difference past the limit.
    pub(super) fn admit_into_play(
        &self,
        what: IntoPlay,
        player: PlayerId,
        held: Money,
    ) -> Result<Option<PlayDay>, Reply> {
        let Some(s) = self.self_limits.get(&player) else { return Ok(None) };
        let wallet = self.balance(player).map_or(Money::ZERO, |b| b.1);
        s.admit((self.clock)(), wallet, held, !what.players_money())
            .map_err(|why| Reply::refused(Code::SelfLimit, why.to_string()))
    }

    /// Record the day a stake just placed opened (from
    /// [`Casino::admit_into_play`]); at a partition the other partitions
    /// learn it through the bank.
    pub(super) fn open_play_day(&mut self, player: PlayerId, day: Option<PlayDay>, commit: &mut Commit) {
        let Some(d) = day else { return };
        let e = CasinoEvent::PlayDay { player, day: d.day, base: d.base, first_ms: d.first_ms, shared: None };
        if self.bank.partition.is_some() {
            self.bank.days_to_share.push(e.clone());
        }
        self.casino_event(e, commit);
    }
}
