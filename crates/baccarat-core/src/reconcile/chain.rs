//! Reading one chain's records into the transfers they call for
//! ([`ChainExpect`]): the audit log's side of the reconciliation (`mod.rs`
//! says how both sides are summed and compared).

use crate::ids::{TableId, TournamentId};
use std::collections::HashMap;

use baccarat_rules::Money;
use baccarat_table::{Event, WagerId};

use super::Expected;
use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
use crate::ledger::{AccountId, AccountKind, Cause, Op, TransferId, TransferKind};
use crate::postings::{settlement_ops, settlement_ops_with, TableAccounts, TokenAccounts};

/// The accounts by what they are for.
pub(super) struct Books {
    pub(super) by_kind: HashMap<AccountKind, AccountId>,
}

impl Books {
    pub(super) fn acct(&self, k: AccountKind) -> Option<AccountId> {
        self.by_kind.get(&k).copied()
    }
}

/// The transfers one chain's records call for, read record by record: the
/// wallets of the current coup's wagers are all it keeps (the engine's coup
/// holds its wagers from `BettingOpened` on, and settles, withdraws or
/// returns only those).
pub struct ChainExpect<'a> {
    books: &'a Books,
    table: TableId,
    cage: Option<AccountId>,
    /// A partition's account at the bank.
    bank: Option<AccountId>,
    /// The table's accounts (none for the casino's chain, or when missing).
    accounts: Option<TableAccounts>,
    float_seen: bool,
    /// Each wager's stake account (a wallet, or a player's tokens), and for
    /// a wager made with tokens where its winnings and lost stake go.
    wallets: HashMap<WagerId, (AccountId, Option<(AccountId, TokenAccounts)>)>,
    /// Problems found while reading (a wager or deposit with no wallet).
    problems: Vec<String>,
    /// Whether the chain's transfers can be compared at all.
    usable: bool,
}

impl<'a> ChainExpect<'a> {
    /// Start reading chain `table`'s records, with the ledger's accounts.
    pub(super) fn new(books: &'a Books, table: TableId) -> ChainExpect<'a> {
        let cage = books.acct(AccountKind::Cage);
        let mut problems = Vec::new();
        let accounts = (table != CASINO_CHAIN)
            .then(|| {
                Some(TableAccounts {
                    escrow: books.acct(AccountKind::Escrow { table })?,
                    house: books.acct(AccountKind::House { table })?,
                    commission: books.acct(AccountKind::Commission { table })?,
                    antes: books.acct(AccountKind::Antes { table })?,
                })
            })
            .flatten();
        let usable = table == CASINO_CHAIN || accounts.is_some();
        if !usable {
            problems.push(format!("table {table}: its ledger accounts are missing"));
        }
        ChainExpect {
            books,
            table,
            cage,
            bank: books.acct(AccountKind::Bank),
            accounts,
            float_seen: false,
            wallets: HashMap::new(),
            problems,
            usable,
        }
    }

    /// Take the next record; `out` receives each transfer it calls for, with
    /// its place among its cause's transfers (a wager's hold is its first; its
    /// release, or its settlement's postings in order, follow it).
    pub fn feed(&mut self, seq: u64, b: &Body, out: &mut dyn FnMut(Cause, u32, Expected)) {
        if !self.usable {
            return;
        }
        let table = self.table;
        if table == CASINO_CHAIN {
            if let Some(e) = &b.casino {
                self.casino_record(seq, e, out);
            }
            return;
        }
        let Some(accounts) = self.accounts else { return };
        if let Some(CasinoEvent::TableConfigured { float, .. }) = &b.casino {
            // The float comes with the table's first configuration.
            if !std::mem::replace(&mut self.float_seen, true) && float.0 > 0 {
                if let Some(c) = self.cage {
                    out(Cause::Float { table }, 0, Expected::new(TransferKind::Posted, c, accounts.house, *float));
                }
            }
        }
        if let Some(CasinoEvent::TableClosed { credited, commission, antes, .. }) = &b.casino {
            self.table_closed(seq, *credited, [*commission, *antes], &accounts, out);
        }
        let Some(e) = &b.event else { return };
        match e {
            Event::BettingOpened { .. } => self.wallets.clear(),
            Event::WagerPlaced { wager } => self.wager_placed(seq, wager, &accounts, out),
            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                let w = self.wallets.get(wager).map(|x| x.0).unwrap_or_default();
                let e = Expected::new(TransferKind::VoidOf(TransferId(0)), w, accounts.escrow, Money::ZERO);
                out(Cause::Wager { table, wager: *wager }, 1, e);
            }
            Event::WagerSettled { wager, settlement, ante, .. } => {
                let (stake, tokens) = self.wallets.get(wager).copied().unwrap_or_default();
                let cause = Cause::Wager { table, wager: *wager };
                let ops = match tokens {
                    Some((w, k)) => settlement_ops_with(TransferId(0), w, &accounts, settlement, *ante, Some(k)),
                    None => settlement_ops(TransferId(0), stake, &accounts, settlement, *ante),
                };
                for (i, op) in ops.iter().enumerate() {
                    out(cause, 1 + i as u32, expect(op, stake, accounts.escrow));
                }
            }
            _ => {}
        }
    }

    /// A table closed for good (`casino/closing.rs`): its house account's
    /// part of `credited` (what the commission and antes accounts gave is
    /// named apart), then the commission's and the antes', each from its
    /// account to the cage, in that order, those above zero.
    fn table_closed(
        &mut self,
        seq: u64,
        credited: Money,
        [commission, antes]: [Money; 2],
        accounts: &TableAccounts,
        out: &mut dyn FnMut(Cause, u32, Expected),
    ) {
        let table = self.table;
        let house = credited - commission - antes;
        let (Some(cage), false) = (self.cage, house.0 < 0 || commission.0 < 0 || antes.0 < 0) else {
            self.problems.push(format!(
                "table {table} record {seq}: a close crediting {credited} to the cage, of which {commission} commission \
                 and {antes} antes, with no cage or a part below zero"
            ));
            return;
        };
        let parts = [(accounts.house, house), (accounts.commission, commission), (accounts.antes, antes)];
        for (i, (from, amount)) in parts.into_iter().filter(|(_, m)| m.0 > 0).enumerate() {
            out(Cause::Closed { table }, i as u32, Expected::new(TransferKind::Posted, from, cage, amount));
        }
    }

    /// A record of the casino's chain: a deposit's chips, a partition's
    /// money from and to the bank, a tournament's fees, prizes and refunds,
    /// and promotional prizes.
    fn casino_record(&mut self, seq: u64, e: &CasinoEvent, out: &mut dyn FnMut(Cause, u32, Expected)) {
        let wallet = |p: baccarat_table::PlayerId| self.books.acct(AccountKind::Wallet { player: p });
        let pool = |t: TournamentId| self.books.acct(AccountKind::PrizePool { tournament: t });
        match e {
            CasinoEvent::Deposit { player, amount, .. } => match (self.cage, wallet(*player)) {
                (Some(c), Some(w)) => out(Cause::Deposit { seq }, 0, Expected::new(TransferKind::Posted, c, w, *amount)),
                _ => self
                    .problems
                    .push(format!("the casino's chain record {seq}: a deposit to player {player}, who has no wallet")),
            },
            // A partition's money from the bank, and back (`bank/`).
            CasinoEvent::Allotted { player, amount, .. } => match (self.bank, wallet(*player)) {
                (Some(b), Some(w)) => out(Cause::Bank { seq }, 0, Expected::new(TransferKind::Posted, b, w, *amount)),
                _ => self.problems.push(format!(
                    "the casino's chain record {seq}: money from the bank to player {player}, with no bank account or wallet"
                )),
            },
            CasinoEvent::Returned { player, amount, .. } => match (self.bank, wallet(*player)) {
                (Some(b), Some(w)) => out(Cause::Bank { seq }, 0, Expected::new(TransferKind::Posted, w, b, *amount)),
                _ => self.problems.push(format!(
                    "the casino's chain record {seq}: money to the bank from player {player}, with no bank account or wallet"
                )),
            },
            // An entry fee into the pool (NSW 15.3.2), and its refund.
            CasinoEvent::TournamentEntered { tournament, player, fee } if fee.0 > 0 => {
                match (wallet(*player), pool(*tournament)) {
                    (Some(w), Some(p)) => out(Cause::Tournament { seq }, 0, Expected::new(TransferKind::Posted, w, p, *fee)),
                    _ => self
                        .problems
                        .push(format!("the casino's chain record {seq}: an entry fee with no wallet or no prize pool")),
                }
            }
            CasinoEvent::PromotionDrawn { winners, .. } => self.promotion_drawn(seq, winners, out),
            // A cash alternative claimed (NSW 16.3): cage to wallet.
            CasinoEvent::PromotionClaimed { player, paid, .. } if paid.0 > 0 => match (self.cage, wallet(*player)) {
                (Some(c), Some(w)) => out(Cause::Promotion { seq }, 0, Expected::new(TransferKind::Posted, c, w, *paid)),
                _ => self.problems.push(format!(
                    "the casino's chain record {seq}: a cash alternative to player {player}, who has no wallet"
                )),
            },
            CasinoEvent::TournamentPaid { tournament, top_up, prizes } => {
                self.tournament_paid(seq, *tournament, *top_up, prizes, out)
            }
            CasinoEvent::TournamentRefunded { tournament, player, fee, .. } if fee.0 > 0 => {
                match (wallet(*player), pool(*tournament)) {
                    (Some(w), Some(p)) => out(Cause::Tournament { seq }, 0, Expected::new(TransferKind::Posted, p, w, *fee)),
                    _ => self
                        .problems
                        .push(format!("the casino's chain record {seq}: a refund with no wallet or no prize pool")),
                }
            }
            CasinoEvent::CashedOut { .. } | CasinoEvent::Filled { .. } | CasinoEvent::Credited { .. } => {
                self.cage_record(seq, e, out)
            }
            _ => {}
        }
    }

    /// A movement of the cage (issue 47): a cash-out from the wallet, a
    /// fill to a table's float (its house account), a credit from it; each
    /// one transfer, which names this record.
    fn cage_record(&mut self, seq: u64, e: &CasinoEvent, out: &mut dyn FnMut(Cause, u32, Expected)) {
        let (from, to, amount, what) = match e {
            CasinoEvent::CashedOut { player, amount, .. } => {
                let w = self.books.acct(AccountKind::Wallet { player: *player });
                (w, self.cage, *amount, format!("a cash-out by player {player}, who has no wallet"))
            }
            CasinoEvent::Filled { table, amount, .. } => {
                let h = self.books.acct(AccountKind::House { table: *table });
                (self.cage, h, *amount, format!("a fill to table {table}, which has no float"))
            }
            CasinoEvent::Credited { table, amount, .. } => {
                let h = self.books.acct(AccountKind::House { table: *table });
                (h, self.cage, *amount, format!("a credit from table {table}, which has no float"))
            }
            _ => return,
        };
        match from.zip(to) {
            Some((f, t)) => out(Cause::Cage { seq }, 0, Expected::new(TransferKind::Posted, f, t, amount)),
            None => self.problems.push(format!("the casino's chain record {seq}: {what}")),
        }
    }

    /// Promotional cash prizes (NSW 16): from the cage to each winner's
    /// wallet, and tokens from the issuer, in the draw's order.
    fn promotion_drawn(
        &mut self,
        seq: u64,
        winners: &[crate::audit::PromotionWinner],
        out: &mut dyn FnMut(Cause, u32, Expected),
    ) {
        let wallet = |p: baccarat_table::PlayerId| self.books.acct(AccountKind::Wallet { player: p });
        let issuer = self.books.acct(AccountKind::TokenIssuer);
        let tokens = |p| self.books.acct(AccountKind::Tokens { player: p });
        let mut i = 0u32;
        for w in winners {
            let mut want = |from: Option<AccountId>, to: Option<AccountId>, amount: Money| {
                if amount.0 <= 0 {
                    return;
                }
                match from.zip(to) {
                    Some((f, t)) => out(Cause::Promotion { seq }, i, Expected::new(TransferKind::Posted, f, t, amount)),
                    None => self.problems.push(format!(
                        "the casino's chain record {seq}: a prize to player {}, who has no account for it",
                        w.player
                    )),
                }
                i += 1;
            };
            want(self.cage, wallet(w.player), w.paid);
            want(issuer, tokens(w.player), w.tokens);
        }
    }

    /// The prizes (NSW 15.3.2): the pool topped up from the cage, then each
    /// placegetter's share, in placing order.
    fn tournament_paid(
        &mut self,
        seq: u64,
        tournament: TournamentId,
        top_up: Money,
        prizes: &[(baccarat_table::PlayerId, Money)],
        out: &mut dyn FnMut(Cause, u32, Expected),
    ) {
        let Some(p) = self.books.acct(AccountKind::PrizePool { tournament }) else {
            self.problems.push(format!("the casino's chain record {seq}: prizes with no prize pool"));
            return;
        };
        let mut i = 0;
        if top_up.0 > 0 {
            match self.cage {
                Some(c) => out(Cause::Tournament { seq }, i, Expected::new(TransferKind::Posted, c, p, top_up)),
                None => self.problems.push(format!("the casino's chain record {seq}: no cage")),
            }
            i += 1;
        }
        for (player, prize) in prizes.iter().filter(|(_, m)| m.0 > 0) {
            match self.books.acct(AccountKind::Wallet { player: *player }) {
                Some(w) => out(Cause::Tournament { seq }, i, Expected::new(TransferKind::Posted, p, w, *prize)),
                None => self
                    .problems
                    .push(format!("the casino's chain record {seq}: a prize to player {player}, who has no wallet")),
            }
            i += 1;
        }
    }

    /// A wager placed: its hold from the player's wallet, or from their
    /// promotional tokens, to the table's escrow; its stake account kept
    /// until the coup ends.
    fn wager_placed(
        &mut self,
        seq: u64,
        wager: &baccarat_table::Wager,
        accounts: &TableAccounts,
        out: &mut dyn FnMut(Cause, u32, Expected),
    ) {
        let table = self.table;
        let Some(w) = self.books.acct(AccountKind::Wallet { player: wager.player }) else {
            self.problems.push(format!("table {table} record {seq}: wager {} by a player with no wallet", wager.id));
            return;
        };
        // A wager made with promotional tokens is held from them.
        let tokens = if wager.token {
            let k = self.books.acct(AccountKind::Tokens { player: wager.player });
            let i = self.books.acct(AccountKind::TokenIssuer);
            match k.zip(i) {
                Some((k, i)) => Some((w, TokenAccounts { tokens: k, issuer: i })),
                None => {
                    self.problems.push(format!(
                        "table {table} record {seq}: wager {} made with tokens the player never had",
                        wager.id
                    ));
                    return;
                }
            }
        } else {
            None
        };
        let stake = tokens.map_or(w, |(_, k)| k.tokens);
        self.wallets.insert(wager.id, (stake, tokens));
        let cause = Cause::Wager { table, wager: wager.id };
        out(cause, 0, Expected::new(TransferKind::Pending, stake, accounts.escrow, wager.amount + wager.ante));
    }

    /// The chain is read: what was found reading it, for
    /// [`Reconciler::close`].
    pub fn finish(self) -> ChainRead {
        ChainRead { problems: self.problems, usable: self.usable }
    }
}

/// What reading a chain found, besides its expected transfers.
pub struct ChainRead {
    pub(super) problems: Vec<String>,
    pub(super) usable: bool,
}

fn expect(op: &Op, wallet: AccountId, escrow: AccountId) -> Expected {
    match op {
        Op::Transfer { debit, credit, amount, .. } => Expected::new(TransferKind::Posted, *debit, *credit, *amount),
        Op::Hold { debit, credit, amount, .. } => Expected::new(TransferKind::Pending, *debit, *credit, *amount),
        Op::Post { amount, .. } => Expected::new(TransferKind::PostOf(TransferId(0)), wallet, escrow, *amount),
        Op::Void { .. } => Expected::new(TransferKind::VoidOf(TransferId(0)), wallet, escrow, Money::ZERO),
    }
}
