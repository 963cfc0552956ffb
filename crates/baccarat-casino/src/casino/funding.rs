//! What a request would hold from a player's wallet at a partition, for the
//! bank to allot before the writer handles it (`bank/link.rs`).
//!
//! Money allotted to a partition counts against the player's loss limit at
//! every partition (`bank/` `days`) and costs a transaction under the bank's
//! one lock, until it comes back a second after the player's last hold.
//! So nothing is allotted for a wager the casino will certainly refuse
//! whatever the wallet holds (about half of `loadgen`'s wagers come while
//! their table is closed): its table unknown, halted, settling or closed
//! to wagers; a retry of a key already answered (its first answer is given
//! again, nothing held); or an amount the table refuses (a bet it does not
//! offer, not whole chips, outside the player's limits with what they have
//! on the bet already: `Table::screen_wager`). Before this, a wager above
//! its table's maximum moved the player's money from the bank and counted
//! against their loss limit everywhere until it came back.

use baccarat_core::TableId;
use baccarat_rules::Money;
use baccarat_table::PlayerId;

use super::protocol::wager_key;
use super::{Casino, Request, SlipLine};

impl Casino {
    /// The player and the money `req` would hold from their wallet here, if
    /// it may hold any: a wager's stake and ante, the lines of a slip the
    /// table may take, a tournament's entry fee.
    pub fn stake_to_fund(&mut self, req: &Request) -> Option<(PlayerId, Money)> {
        match req {
            Request::Wager { table, player, bet, amount, ante, key, .. } => {
                self.may_take(*table, *player, key.as_str())?;
                let t = &self.tables[table].engine;
                t.screen_wager(*player, *bet, *amount).ok().map(|_| (*player, *amount + *ante))
            }
            Request::Wagers { table, player, slip, key } => {
                self.may_take(*table, *player, key.as_str())?;
                let t = &self.tables[table].engine;
                let fundable = |l: &&SlipLine| t.screen_wager(*player, l.bet, l.amount).is_ok();
                let stake = slip.iter().filter(fundable).fold(Money::ZERO, |m, l| m + l.amount + l.ante);
                (stake > Money::ZERO).then_some((*player, stake))
            }
            Request::EnterTournament { tournament, player } => Some((*player, self.entry_fee(*tournament)?)),
            _ => None,
        }
    }

    /// Whether `table` may take a new wager from `player` under `key` now:
    /// it exists, is neither halted nor settling nor closed to wagers, and
    /// the key has not answered (nor cannot be looked up).
    fn may_take(&mut self, table: TableId, player: PlayerId, key: &str) -> Option<()> {
        if !self.tables.contains_key(&table) || self.not_taking_wagers(table).is_some() {
            return None;
        }
        matches!(self.ledger.bound(&wager_key(player, key)), Ok(None)).then_some(())
    }
}
