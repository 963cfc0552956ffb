//! `verify`'s check of a bet slip's one idempotency answer (`Cause::Slip`)
//! against the holds it names.
//!
//! A retry of a slip is answered from its answer alone (`casino::slip`): the
//! answer's cause says which lines were placed (its mask) and the wager the
//! first of them became, and the others follow in a row. So a forger who
//! changed that cause would change what a retry is told, though no money
//! moves. The answer is not in any chain, but the holds it names are
//! transfers, and each transfer is reconciled with the chain record that
//! caused it. So each named hold must be, in order, the hold of wager
//! `first`, `first + 1`, … at the slip's table, one per placed line, taken
//! from the wallet of the player the key belongs to (`wager:{player}:{key}`).
//!
//! What this cannot see: which lines were placed, when the count is right.
//! Swapping two bits of the mask (line 1 placed, line 2 refused, told the
//! other way round) leaves the same holds; the chain does not record a
//! wager's line on its slip.

use std::collections::HashMap;

use crate::ledger::{AccountId, AccountKind, Cause, Transfer, TransferId, TransferKind};

/// What a slip's answer says one of its holds is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlipHold {
    /// The answer's key, for naming it.
    pub key: String,
    /// The hold's cause: `wager:TABLE:WAGER`.
    pub cause: String,
    pub player: u32,
}

/// Why a slip's answer is refused: each names the answer's key.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SlipError {
    /// The key is not under a player's wager key (`wager:PLAYER:…`).
    #[error("ledger: slip answer {key:?} is not under a player's wager key")]
    NoPlayer { key: String },
    /// The count of holds is not the count of placed lines (`cause`).
    #[error("ledger: slip answer {key:?} says {placed} lines were placed ({cause}) but names {holds} holds")]
    Count { key: String, placed: u32, cause: String, holds: usize },
    /// The first wager plus the lines overflows.
    #[error("ledger: slip answer {key:?} names wagers past the last possible ({cause})")]
    PastLast { key: String, cause: String },
}

/// The holds a slip's answer names, each with what it must be; `None` if the
/// answer is not a slip's (`cause` is not `slip:…`). An answer whose count
/// of holds is not its count of placed lines, or whose key names no player,
/// is refused, named.
pub fn holds(key: &str, cause: &str, ids: &[TransferId]) -> Result<Option<Vec<(TransferId, SlipHold)>>, SlipError> {
    let Some(Cause::Slip { table, first, accepted }) = Cause::parse(cause) else {
        return Ok(None);
    };
    let player = key
        .strip_prefix("wager:")
        .and_then(|k| k.split_once(':'))
        .and_then(|(p, _)| p.parse::<u32>().ok())
        .ok_or_else(|| SlipError::NoPlayer { key: key.to_string() })?;
    if ids.len() != accepted.count_ones() as usize {
        return Err(SlipError::Count {
            key: key.to_string(),
            placed: accepted.count_ones(),
            cause: cause.to_string(),
            holds: ids.len(),
        });
    }
    // A forged first wager near the top of the range must be named, not
    // overflow.
    ids.iter()
        .enumerate()
        .map(|(i, id)| {
            let w = first
                .0
                .checked_add(i as u64)
                .ok_or_else(|| SlipError::PastLast { key: key.to_string(), cause: cause.to_string() })?;
            let wager = Cause::Wager { table, wager: baccarat_table::WagerId(w) };
            Ok((*id, SlipHold { key: key.to_string(), cause: wager.encode(), player }))
        })
        .collect::<Result<Vec<_>, SlipError>>()
        .map(Some)
}

/// The players' wallets, by account.
pub fn wallets<'a>(accounts: impl IntoIterator<Item = &'a crate::ledger::Account>) -> HashMap<AccountId, u32> {
    accounts
        .into_iter()
        .filter_map(|a| match a.kind {
            AccountKind::Wallet { player } => Some((a.id, player.0)),
            _ => None,
        })
        .collect()
}

/// Whether `t` is the hold a slip's answer says it is; if not, the problem.
pub fn check(expected: &SlipHold, t: &Transfer, wallets: &HashMap<AccountId, u32>) -> Option<String> {
    let found = t.cause.encode();
    let from = wallets.get(&t.debit).copied();
    if t.kind == TransferKind::Pending && found == expected.cause && from == Some(expected.player) {
        return None;
    }
    Some(format!(
        "ledger: slip answer {:?} names transfer {} as the hold of {} from player {}'s wallet, but it is a {} transfer{} from {}",
        expected.key,
        t.id,
        expected.cause,
        expected.player,
        match t.kind {
            TransferKind::Pending => "pending",
            _ => "non-pending",
        },
        if found.is_empty() { String::new() } else { format!(" of {found}") },
        from.map_or_else(|| format!("account {}", t.debit), |p| format!("player {p}'s wallet")),
    ))
}

/// The first [`SHOWN`] problems found, and how many there were.
#[derive(Default)]
pub struct Problems {
    shown: Vec<String>,
    total: usize,
}

/// How many slip problems are listed; the rest are counted.
pub const SHOWN: usize = 100;

impl Problems {
    pub fn push(&mut self, why: String) {
        self.total += 1;
        if self.shown.len() < SHOWN {
            self.shown.push(why);
        }
    }

    pub fn extend(&mut self, why: Option<String>) {
        if let Some(w) = why {
            self.push(w);
        }
    }

    /// The problems listed, and a line for those left out.
    pub fn into_problems(self) -> Vec<String> {
        let left = self.total - self.shown.len();
        let mut out = self.shown;
        if left > 0 {
            out.push(format!("ledger: {left} more slip answers do not match their holds"));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TableId;
    use baccarat_rules::Money;
    use baccarat_table::WagerId;

    fn hold(id: u64, debit: u64, table: TableId, wager: u64) -> Transfer {
        Transfer {
            id: TransferId(id),
            debit: crate::ledger::AccountId(debit),
            credit: crate::ledger::AccountId(99),
            amount: Money(100),
            kind: TransferKind::Pending,
            memo: String::new(),
            cause: Cause::Wager { table, wager: WagerId(wager) },
        }
    }

    fn ids(ns: &[u64]) -> Vec<TransferId> {
        ns.iter().map(|&n| TransferId(n)).collect()
    }

    #[test]
    fn a_slips_holds_are_its_placed_lines_in_a_row_from_the_keys_wallet() {
        let cause = Cause::Slip { table: TableId(3), first: WagerId(40), accepted: 0b1101 }.encode();
        let named = holds("wager:7:k1", &cause, &ids(&[11, 12, 15])).unwrap().unwrap();
        let wallets = HashMap::from([(crate::ledger::AccountId(5), 7), (crate::ledger::AccountId(6), 8)]);
        let ts = [hold(11, 5, TableId(3), 40), hold(12, 5, TableId(3), 41), hold(15, 5, TableId(3), 42)];
        for ((id, e), t) in named.iter().zip(&ts) {
            assert_eq!(*id, t.id);
            assert_eq!(check(e, t, &wallets), None);
        }
        // Another wager, table, wallet or kind is named.
        let e = &named[1].1;
        assert!(check(e, &hold(12, 5, TableId(3), 42), &wallets).unwrap().contains("of wager:3:42"));
        assert!(check(e, &hold(12, 5, TableId(4), 41), &wallets).unwrap().contains("wager:4:41"));
        assert!(check(e, &hold(12, 6, TableId(3), 41), &wallets).unwrap().contains("player 8's wallet"));
        let posted = Transfer { kind: TransferKind::Posted, ..hold(12, 5, TableId(3), 41) };
        assert!(check(e, &posted, &wallets).unwrap().contains("non-pending"));
        // A count of holds other than the placed lines', and a key of no player.
        assert!(holds("wager:7:k1", &cause, &ids(&[11, 12]))
            .unwrap_err()
            .to_string()
            .contains("says 3 lines were placed"));
        assert!(holds("tournament:7", &cause, &ids(&[11, 12, 15]))
            .unwrap_err()
            .to_string()
            .contains("not under a player's"));
        let top = Cause::Slip { table: TableId(3), first: WagerId(u64::MAX), accepted: 0b11 }.encode();
        assert!(holds("wager:7:k1", &top, &ids(&[11, 12])).unwrap_err().to_string().contains("past the last possible"));
        // Other answers are not a slip's.
        assert_eq!(holds("wager:7:k2", "wager:3:40", &ids(&[11])).unwrap(), None);
        assert_eq!(holds("wager:7:k2", "", &ids(&[11])).unwrap(), None);
    }
}

#[cfg(test)]
mod error_tests {
    use super::SlipError;

    /// A refused slip answer reads as the string it replaced, byte for byte
    /// (verify lists it).
    #[test]
    fn refusals_read_as_before() {
        let e = SlipError::Count { key: "wager:7:k1".into(), placed: 3, cause: "slip:3:40:7".into(), holds: 2 };
        assert_eq!(
            e.to_string(),
            "ledger: slip answer \"wager:7:k1\" says 3 lines were placed (slip:3:40:7) but names 2 holds"
        );
    }
}
