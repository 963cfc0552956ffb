//! The cage's movements the books count, and when each was made: the one
//! place that reads them off the casino's events.

use baccarat_core::TableId;
use baccarat_rules::Money;

use crate::audit::CasinoEvent;

/// Chips between the cage and a player or a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CageMove {
    /// Chips bought: into a wallet (a deposit), or at a partition's cage
    /// into the player's wallet at the bank.
    Deposit(Money),
    /// Chips cashed out of a wallet.
    CashOut(Money),
    /// Chips from the cage to a table's float.
    Fill { table: TableId, amount: Money },
    /// Chips from a table's float back to the cage.
    Credit { table: TableId, amount: Money },
}

/// What a casino event moved through the cage, if anything.
pub fn cage_move(e: &CasinoEvent) -> Option<CageMove> {
    match e {
        CasinoEvent::Deposit { amount, .. } | CasinoEvent::Caged { amount, .. } => Some(CageMove::Deposit(*amount)),
        CasinoEvent::CashedOut { amount, .. } => Some(CageMove::CashOut(*amount)),
        CasinoEvent::Filled { table, amount, .. } => Some(CageMove::Fill { table: *table, amount: *amount }),
        CasinoEvent::Credited { table, amount, .. } => Some(CageMove::Credit { table: *table, amount: *amount }),
        // In a table's own chain, the float (and commission and antes) back
        // to the cage when it closed for good: a credit of that table
        // (`DayBooks::table_record` takes it whatever `table` says).
        CasinoEvent::TableClosed { credited, .. } => Some(CageMove::Credit { table: TableId(0), amount: *credited }),
        _ => None,
    }
}

/// When a casino event was made (the writer's clock, ms), where it says.
/// Events that do not are dated by the last time their chain told before
/// them (`DayBooks`).
pub fn casino_time(e: &CasinoEvent) -> Option<u64> {
    match e {
        CasinoEvent::Deposit { at_ms, .. } | CasinoEvent::Caged { at_ms, .. } => *at_ms,
        CasinoEvent::GamingDaySet { at_ms, .. } | CasinoEvent::LimitsSet { at_ms, .. } => Some(*at_ms),
        CasinoEvent::CashedOut { at_ms, .. }
        | CasinoEvent::Filled { at_ms, .. }
        | CasinoEvent::Credited { at_ms, .. }
        | CasinoEvent::TableClosed { at_ms, .. } => Some(*at_ms).filter(|t| *t > 0),
        CasinoEvent::PlayDay { first_ms, shared: None, .. } => Some(*first_ms),
        CasinoEvent::TournamentStarted { at_ms, .. }
        | CasinoEvent::TournamentActed { at_ms, .. }
        | CasinoEvent::TournamentDealt { at_ms, .. }
        | CasinoEvent::TournamentRoundEnded { at_ms, .. } => Some(*at_ms).filter(|t| *t > 0),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_core::UserId;
    use baccarat_table::PlayerId;

    #[test]
    fn deposits_are_cash_in_and_other_events_move_nothing() {
        let d = CasinoEvent::Deposit { player: PlayerId(3), amount: Money(5_000), key: "k".into(), at_ms: Some(7) };
        assert_eq!(cage_move(&d), Some(CageMove::Deposit(Money(5_000))));
        assert_eq!(casino_time(&d), Some(7));
        let c = CasinoEvent::Caged { player: PlayerId(3), amount: Money(900), reference: "r".into(), at_ms: None };
        assert_eq!(cage_move(&c), Some(CageMove::Deposit(Money(900))));
        assert_eq!(casino_time(&c), None);
        let r = CasinoEvent::Returned { player: PlayerId(3), amount: Money(900), reference: "r".into() };
        assert_eq!(cage_move(&r), None, "money back to the bank is not cash");
        let out = CasinoEvent::CashedOut {
            player: PlayerId(3),
            amount: Money(700),
            key: "c".into(),
            by: UserId(1),
            at_ms: 9,
        };
        assert_eq!((cage_move(&out), casino_time(&out)), (Some(CageMove::CashOut(Money(700))), Some(9)));
        let fill = CasinoEvent::Filled {
            table: TableId(2),
            amount: Money(100_000),
            key: "f".into(),
            by: UserId(1),
            at_ms: 10,
        };
        assert_eq!(cage_move(&fill), Some(CageMove::Fill { table: TableId(2), amount: Money(100_000) }));
        let credit = CasinoEvent::Credited {
            table: TableId(2),
            amount: Money(40_000),
            key: "c".into(),
            by: UserId(1),
            at_ms: 11,
        };
        assert_eq!(
            (cage_move(&credit), casino_time(&credit)),
            (Some(CageMove::Credit { table: TableId(2), amount: Money(40_000) }), Some(11))
        );
        let closed = CasinoEvent::TableClosed {
            credited: Money(60_000),
            by: UserId(1),
            commission: Money::ZERO,
            antes: Money::ZERO,
            at_ms: 12,
        };
        assert_eq!(cage_move(&closed), Some(CageMove::Credit { table: TableId(0), amount: Money(60_000) }));
    }
}
