//! The checkpoint's long lists written as rows: each element an array of its
//! fields in declaration order rather than an object naming them.
//!
//! A busy floor's checkpoint is mostly two lists: the open holds (a
//! `Transfer` each) and the coups' wager lines (a `WagerLine` each), about
//! 450,000 of each after 30 s of `loadgen`. As objects, their field names
//! were a third of the bytes that a start reads, hashes and parses. serde's
//! derived `Deserialize` reads a struct from an array of its fields as well
//! as from an object, so checkpoints written before read as they did, and
//! nothing else changes: the rows are the same values in the same order.
//! (Field order is the struct's: a test writes and reads back both lists.)

use serde::Serializer;

use crate::ledger::Transfer;

/// `Transfer`s as `[id, debit, credit, amount, kind, memo, cause]`.
pub fn transfers<S: Serializer>(list: &[std::sync::Arc<Transfer>], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(list.iter().map(|t| (t.id, t.debit, t.credit, t.amount, &t.kind, &t.memo, &t.cause)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coup_feed::{CoupState, WagerLine, WagerStatus};
    use crate::ledger::{Cause, TransferKind};
    use baccarat_core::TableId;
    use baccarat_rules::{Bet, Money, Settlement};
    use baccarat_table::{PlayerId, Spot, WagerId};

    fn line(i: u64, settled: bool) -> WagerLine {
        WagerLine {
            wager: WagerId(i),
            player: PlayerId(i as u32 % 7 + 1),
            spot: if i % 3 == 0 { Spot::Standing } else { Spot::Box(i as u8 % 14 + 1) },
            bet: [Bet::Banker, Bet::Player, Bet::Tie, Bet::PlayerPair][i as usize % 4],
            amount: Money(100 * i as i64 + 100),
            ante: Money(i as i64 % 2 * 50),
            needs_approval: i % 5 == 0,
            status: if settled { WagerStatus::Settled } else { WagerStatus::Open },
            rule: (i % 4 == 1).then(|| "NSW 6.2".to_string()),
            outcome: settled.then(|| "win".to_string()),
            pays: settled.then(|| "1:1 less 5%".to_string()),
            settlement: settled.then_some(Settlement {
                stake: Money(100),
                returned: Money(100),
                lost: Money::ZERO,
                won: Money(95),
                commission: Money(5),
                void: Money::ZERO,
            }),
            net: settled.then_some(Money(95)),
        }
    }

    /// Rows read back as the structs they came from, and the objects
    /// checkpoints held before still read the same.
    #[test]
    fn rows_read_back_as_the_structs_and_objects_still_read() {
        let pending: Vec<Transfer> =
            [Cause::Wager { table: TableId(3), wager: WagerId(9) }, Cause::None, Cause::Deposit { seq: 4 }]
                .into_iter()
                .enumerate()
                .map(|(i, cause)| Transfer {
                    id: crate::ledger::TransferId(10 + i as u64),
                    debit: crate::ledger::AccountId(1 + i as u64),
                    credit: crate::ledger::AccountId(7),
                    amount: Money(250 * (i as i64 + 1)),
                    kind: if i == 2 {
                        TransferKind::PostOf(crate::ledger::TransferId(3))
                    } else {
                        TransferKind::Pending
                    },
                    memo: format!("memo {i}"),
                    cause,
                })
                .collect();
        #[derive(serde::Serialize)]
        struct Rows(#[serde(serialize_with = "transfers")] Vec<std::sync::Arc<Transfer>>);
        let rows = serde_json::to_string(&Rows(pending.iter().cloned().map(std::sync::Arc::new).collect())).unwrap();
        assert!(rows.starts_with("[[10,1,7,250,\"pending\",\"memo 0\","), "{rows}");
        assert_eq!(serde_json::from_str::<Vec<Transfer>>(&rows).unwrap(), pending);
        let objects = serde_json::to_string(&pending).unwrap();
        assert_eq!(serde_json::from_str::<Vec<Transfer>>(&objects).unwrap(), pending);

        let coup = CoupState {
            coup: 5,
            wagers: (0..12).map(|i| line(i, i % 2 == 0)).collect(),
            result: None,
            dealt: vec![],
            void: None,
        };
        let text = serde_json::to_string(&coup).unwrap();
        assert!(text.contains("\"wagers\":[[0,1,\"standing\","), "{text}");
        assert!(!text.contains("\"needs_approval\""), "rows name no fields");
        assert_eq!(serde_json::from_str::<CoupState>(&text).unwrap(), coup);
        // As the objects a checkpoint held before this change.
        let mut old = serde_json::to_value(&coup).unwrap();
        old["wagers"] = serde_json::to_value(&coup.wagers).unwrap();
        assert!(old["wagers"][0]["needs_approval"].is_boolean());
        assert_eq!(serde_json::from_value::<CoupState>(old).unwrap(), coup);
    }
}
