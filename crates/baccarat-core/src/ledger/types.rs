//! What the ledger is made of: accounts, the operations of a batch, the
//! transfers they record, why a batch is refused, and what a batch changed.

use crate::ids::{TableId, TournamentId};
use baccarat_rules::Money;
use serde::{Deserialize, Serialize};

use super::{AnswerRow, Cause};

/// An account's id (a row of the ledger's accounts, numbered from 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AccountId(pub u64);

impl std::fmt::Display for AccountId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

pub use crate::ids::TransferId;

/// What a batch returned: its transfers' ids, or why it was refused.
pub type Answer = Result<Vec<TransferId>, LedgerError>;

/// What an account is for.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum AccountKind {
    /// Money outside the system (chips bought, cashed out); may go negative.
    Cage,
    Wallet {
        player: baccarat_table::PlayerId,
    },
    /// Stakes in play at a table.
    Escrow {
        table: TableId,
    },
    /// The house's side of a table's wagers.
    House {
        table: TableId,
    },
    /// Commission taken on Banker wins (AU 5.10(b)).
    Commission {
        table: TableId,
    },
    /// Antes collected (AU 14.6).
    Antes {
        table: TableId,
    },
    /// A tournament's prize pool: every entry fee goes in (NSW 15.3.2).
    PrizePool {
        tournament: TournamentId,
    },
    /// A player's casino promotional tokens (NSW 1.1): wagered like chips,
    /// never cashed; a winning wager's winnings are paid in chips.
    Tokens {
        player: baccarat_table::PlayerId,
    },
    /// Where promotional tokens are issued from and retired to: its balance
    /// is minus the tokens outstanding, so it may go negative, as the cage.
    TokenIssuer,
    /// The bank a partition of a PostgreSQL casino draws its players' money
    /// from and gives it back to (`bank/`): its balance is minus the
    /// partition's net position there, so it may go negative, as the cage.
    Bank,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Account {
    pub id: AccountId,
    pub kind: AccountKind,
    /// Credits less debits, posted.
    pub balance: i64,
    /// Sum of this account's pending (held) debits.
    pub held: i64,
}

impl Account {
    pub fn available(&self) -> i64 {
        self.balance - self.held
    }

    /// The accounts money is issued from: the cage (chips), the issuer of
    /// promotional tokens, and a partition's bank. Every other account's available balance stays at
    /// or above zero.
    pub fn may_go_negative(&self) -> bool {
        matches!(self.kind, AccountKind::Cage | AccountKind::TokenIssuer | AccountKind::Bank)
    }
}

/// One operation of a batch.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// Move money now.
    Transfer { debit: AccountId, credit: AccountId, amount: Money, memo: String },
    /// Reserve money on the debit account (a wager).
    Hold { debit: AccountId, credit: AccountId, amount: Money, memo: String },
    /// Complete a hold, for at most its amount; the rest is released.
    Post { hold: TransferId, amount: Money },
    /// Release a hold.
    Void { hold: TransferId },
}

/// A transfer as recorded; immutable once written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Transfer {
    pub id: TransferId,
    pub debit: AccountId,
    pub credit: AccountId,
    pub amount: Money,
    pub kind: TransferKind,
    pub memo: String,
    /// The audit event that explains this transfer (reconciled by `verify`).
    #[serde(default)]
    pub cause: Cause,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferKind {
    Posted,
    Pending,
    /// Posting of the hold with this id.
    PostOf(TransferId),
    /// Voiding of the hold with this id.
    VoidOf(TransferId),
}

/// Why a batch was refused; nothing of it was applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
pub enum LedgerError {
    #[error("account {0} does not exist")]
    NoAccount(AccountId),
    #[error("amount {0} must be positive")]
    Amount(Money),
    #[error("a transfer needs two different accounts")]
    SameAccount,
    #[error("account {account} has {available} available, {needed} needed: balances may not go negative")]
    Insufficient { account: AccountId, available: Money, needed: Money },
    #[error("hold {0} is not pending (unknown, posted or voided)")]
    NotPending(TransferId),
    #[error("posting {amount} exceeds hold {hold} of {held}")]
    PostTooLarge { hold: TransferId, amount: Money, held: Money },
    #[error("idempotency key {0:?} was used for a different request")]
    KeyReused(String),
    #[error("ledger invariant broken: {0}")]
    Invariant(String),
    /// The store could not be read to find a key (retry later).
    #[error("{0}")]
    Unavailable(String),
}

/// What one batch changed, for the store to write in the same transaction as the
/// events it belongs to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    pub transfers: Vec<Transfer>,
    /// The touched accounts as they are after the batch.
    pub accounts: Vec<Account>,
    /// The idempotency key's answer, for the store's answer log.
    pub answer: Option<AnswerRow>,
}
