//! A settled wager as ledger operations.
//!
//! The stake was held from the wallet to the table's escrow when the wager was
//! placed. Settlement posts the valid part of the hold (the void part of an AU 5.13
//! wager is released), returns stake from escrow, sends a lost stake to the house,
//! pays winnings from the house, and takes commission into its own account
//! (AU 5.10(b)). An ante was held with its stake (AU 14.5) and is collected
//! from escrow into the antes account (AU 14.6); one not collected is released
//! with the hold. A void wager's hold is voided whole, ante and all. The wallet
//! moves by exactly [`Settlement::player_net`] less the ante collected.
//!
//! A wager made with promotional tokens (NSW 1.1 "Casino Promotional Token")
//! was held from the player's token account: its stake comes back as tokens,
//! a lost stake is retired to the token issuer (tokens are not the house's
//! money), and winnings are paid in chips, into the wallet.

use baccarat_rules::{Money, Settlement};

use crate::ledger::{AccountId, Op, TransferId};

/// The accounts a table settles through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TableAccounts {
    pub escrow: AccountId,
    pub house: AccountId,
    pub commission: AccountId,
    pub antes: AccountId,
}

/// Where a wager made with promotional tokens came from and goes back to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenAccounts {
    /// The player's tokens (the hold's debit).
    pub tokens: AccountId,
    /// The issuer a lost token is retired to.
    pub issuer: AccountId,
}

/// The operations that settle one wager held by `hold` from `wallet`.
pub fn settlement_ops(hold: TransferId, wallet: AccountId, t: &TableAccounts, s: &Settlement, ante: Money) -> Vec<Op> {
    settlement_ops_with(hold, wallet, t, s, ante, None)
}

/// The same, for a wager made with tokens when `tokens` is given.
pub fn settlement_ops_with(
    hold: TransferId,
    wallet: AccountId,
    t: &TableAccounts,
    s: &Settlement,
    ante: Money,
    tokens: Option<TokenAccounts>,
) -> Vec<Op> {
    if s.void == s.stake && s.lost == Money::ZERO && s.won == Money::ZERO {
        return vec![Op::Void { hold }];
    }
    let valid = s.stake - s.void;
    let mut ops = vec![Op::Post { hold, amount: valid + ante }];
    let mut push = |debit: AccountId, credit: AccountId, amount: Money, memo: &str| {
        if amount.0 > 0 {
            ops.push(Op::Transfer { debit, credit, amount, memo: memo.to_string() });
        }
    };
    let (stake_back, lost_to) = match tokens {
        Some(k) => (k.tokens, k.issuer),
        None => (wallet, t.house),
    };
    push(t.escrow, stake_back, s.returned - s.void, "stake returned");
    push(t.escrow, lost_to, s.lost, "stake lost");
    push(t.house, wallet, s.won, "winnings");
    push(wallet, t.commission, s.commission, "commission");
    push(t.escrow, t.antes, ante, "ante");
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::TableId;
    use crate::ledger::{AccountKind, Ledger};
    use baccarat_rules::{profiles, settle_wager, Bet, Coup};
    use baccarat_table::PlayerId;
    use proptest::prelude::*;

    fn ledger() -> (Ledger, AccountId, TableAccounts) {
        let mut l = Ledger::new();
        let cage = l.open(AccountKind::Cage);
        let wallet = l.open(AccountKind::Wallet { player: PlayerId(1) });
        let t = TableAccounts {
            escrow: l.open(AccountKind::Escrow { table: TableId(1) }),
            house: l.open(AccountKind::House { table: TableId(1) }),
            commission: l.open(AccountKind::Commission { table: TableId(1) }),
            antes: l.open(AccountKind::Antes { table: TableId(1) }),
        };
        l.apply(
            "chips",
            &[Op::Transfer { debit: cage, credit: wallet, amount: Money(1_000_000), memo: String::new() }],
        )
        .unwrap();
        l.apply(
            "float",
            &[Op::Transfer { debit: cage, credit: t.house, amount: Money(1_000_000_000), memo: String::new() }],
        )
        .unwrap();
        (l, wallet, t)
    }

    proptest! {
        /// For random coups, wagers and stakes under every rulebook's tables, the
        /// wallet moves by exactly the settlement's net, escrow ends empty, and the
        /// ledger's invariants hold.
        #[test]
        fn the_wallet_moves_by_the_settlement(cards in prop::collection::vec(0usize..52, 6), bet in 0usize..17, chips in 1i64..200, rb in 0usize..4) {
            let rb = profiles::all().swap_remove(rb);
            let bet = Bet::ALL[bet];
            let Some(rules) = rb.bet(bet) else { return Ok(()) };
            let cs: Vec<_> = cards.iter().map(|&i| baccarat_rules::Card::from_index(i).unwrap()).collect();
            let (coup, _) = Coup::from_cards(&cs).unwrap();
            let settle = baccarat_rules::SettleRules { chip: Money(100), fractional: rb.fractional_payout, unpayable: rb.unpayable_stake };
            for table in &rules.pay_tables {
                let (mut l, wallet, t) = ledger();
                let stake = Money(chips * 100);
                let hold = l.apply("hold", &[Op::Hold { debit: wallet, credit: t.escrow, amount: stake, memo: String::new() }]).unwrap()[0];
                let s = settle_wager(stake, table, bet.classify(&coup), &settle);
                let before = l.account(wallet).unwrap().balance;
                l.apply("settle", &settlement_ops(hold, wallet, &t, &s, Money::ZERO)).unwrap();
                prop_assert_eq!(l.account(wallet).unwrap().balance - before, s.player_net().0);
                prop_assert_eq!(l.account(wallet).unwrap().held, 0);
                prop_assert_eq!(l.account(t.escrow).unwrap().balance, 0);
                prop_assert!(l.check().is_ok());
            }
        }
    }

    #[test]
    fn void_and_partly_void_wagers() {
        let (mut l, wallet, t) = ledger();
        let hold = l
            .apply("h", &[Op::Hold { debit: wallet, credit: t.escrow, amount: Money(2500), memo: String::new() }])
            .unwrap()[0];
        l.apply("v", &settlement_ops(hold, wallet, &t, &Settlement::void(Money(2500)), Money::ZERO)).unwrap();
        assert_eq!(l.account(wallet).unwrap().available(), 1_000_000);
        // AU 5.13: $25 on Banker with $1 chips; $20 valid wins $19 net, $5 void.
        let hold = l
            .apply("h2", &[Op::Hold { debit: wallet, credit: t.escrow, amount: Money(2600), memo: String::new() }])
            .unwrap()[0];
        let au = profiles::builtin("au-casino").unwrap();
        let settle = baccarat_rules::SettleRules {
            chip: Money(100),
            fractional: au.fractional_payout,
            unpayable: au.unpayable_stake,
        };
        let s =
            settle_wager(Money(2500), &au.variant("standard").unwrap().banker, baccarat_rules::Outcome::Win, &settle);
        l.apply("s2", &settlement_ops(hold, wallet, &t, &s, Money(100))).unwrap();
        assert_eq!(l.account(wallet).unwrap().balance, 1_000_000 + 1900 - 100);
        assert_eq!(l.account(t.commission).unwrap().balance, 100);
        assert_eq!(l.account(t.antes).unwrap().balance, 100);
        l.check().unwrap();
    }
}
