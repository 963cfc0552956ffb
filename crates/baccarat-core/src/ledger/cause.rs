//! What caused a batch of transfers, and how the store keeps it.

use crate::ids::TableId;
use serde::{Deserialize, Serialize};

/// What caused a batch of transfers: the audit record that explains it. Every
/// transfer the server makes names one, so `verify` can reconcile the ledger
/// with the audit log both ways (DESIGN 12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "cause", rename_all = "snake_case")]
pub enum Cause {
    /// No cause recorded (the ledger's own tests; a transfer the server made
    /// never has this, and `verify` reports one that does).
    #[default]
    None,
    /// Chips from the cage, recorded as record `seq` of the casino's own chain.
    Deposit { seq: u64 },
    /// A table's float from the cage, recorded when the table was configured.
    Float { table: TableId },
    /// A wager's hold, and later its settlement or release.
    Wager { table: TableId, wager: baccarat_table::WagerId },
    /// A tournament's money (an entry fee, its refund, a prize), recorded as
    /// record `seq` of the casino's own chain.
    Tournament { seq: u64 },
    /// A promotional prize paid (NSW 16), recorded as record `seq` of the
    /// casino's own chain.
    Promotion { seq: u64 },
    /// What a bet slip placed, kept with its idempotency answer (never on a
    /// transfer): bit `i` of `accepted` is set if line `i` was placed, and
    /// the placed lines are wagers `first`, `first + 1`, … in line order (one
    /// writer places a slip's lines one after another at one table, and a
    /// table numbers its wagers in order). A retry is answered from it alone,
    /// so a slip writes one answer, not one per line as well (their index
    /// inserts cost a third of the committer's time: `casino::slip`).
    Slip { table: TableId, first: baccarat_table::WagerId, accepted: u32 },
    /// Money from the bank to a player's wallet here, or back (a partition
    /// of a PostgreSQL casino: `bank/`), recorded as record `seq` of the
    /// casino's own chain.
    Bank { seq: u64 },
    /// Chips between the cage and a wallet or a table's float (a cash-out,
    /// a fill, a credit), recorded as record `seq` of the casino's own
    /// chain (`CashedOut`, `Filled`, `Credited`).
    Cage { seq: u64 },
    /// A table closed for good: the money its house, commission and antes
    /// accounts held, back to the cage, recorded by the `table_closed`
    /// record of its own chain (a table closes once).
    Closed { table: TableId },
}

impl Cause {
    /// The cause as the store keeps it: `deposit:SEQ`, `float:TABLE`,
    /// `wager:TABLE:WAGER`, `tournament:SEQ`, `promotion:SEQ`, `bank:SEQ`,
    /// `cage:SEQ`, or empty.
    /// `closed:TABLE`, or empty.
    pub fn encode(self) -> String {
        let mut out = String::new();
        self.encode_into(&mut out);
        out
    }

    /// [`Cause::encode`] appended to `out`, with no allocation of its own:
    /// the committer encodes one for every transfer it stores
    /// (`store/blocks.rs`), and `format!` there was 5% of its time.
    pub fn encode_into(self, out: &mut String) {
        let mut n = itoa::Buffer::new();
        let mut put = |tag: &str, numbers: &[u64]| {
            out.push_str(tag);
            for &x in numbers {
                out.push(':');
                out.push_str(n.format(x));
            }
        };
        match self {
            Cause::None => {}
            Cause::Deposit { seq } => put("deposit", &[seq]),
            Cause::Float { table } => put("float", &[table.into()]),
            Cause::Wager { table, wager } => put("wager", &[table.into(), wager.0]),
            Cause::Tournament { seq } => put("tournament", &[seq]),
            Cause::Promotion { seq } => put("promotion", &[seq]),
            Cause::Slip { table, first, accepted } => put("slip", &[table.into(), first.0, accepted.into()]),
            Cause::Bank { seq } => put("bank", &[seq]),
            Cause::Cage { seq } => put("cage", &[seq]),
            Cause::Closed { table } => put("closed", &[table.into()]),
        }
    }

    /// Parse what [`Cause::encode`] wrote.
    pub fn parse(s: &str) -> Option<Cause> {
        use baccarat_table::WagerId;
        let mut p = s.split(':');
        let c = match (p.next()?, p.next(), p.next(), p.next()) {
            ("", None, None, None) => Cause::None,
            ("deposit", Some(n), None, None) => Cause::Deposit { seq: n.parse().ok()? },
            ("float", Some(t), None, None) => Cause::Float { table: t.parse().ok()? },
            ("tournament", Some(n), None, None) => Cause::Tournament { seq: n.parse().ok()? },
            ("promotion", Some(n), None, None) => Cause::Promotion { seq: n.parse().ok()? },
            ("bank", Some(n), None, None) => Cause::Bank { seq: n.parse().ok()? },
            ("cage", Some(n), None, None) => Cause::Cage { seq: n.parse().ok()? },
            ("closed", Some(t), None, None) => Cause::Closed { table: t.parse().ok()? },
            ("wager", Some(t), Some(w), None) => {
                Cause::Wager { table: t.parse().ok()?, wager: WagerId(w.parse().ok()?) }
            }
            ("slip", Some(t), Some(w), Some(a)) => {
                Cause::Slip { table: t.parse().ok()?, first: WagerId(w.parse().ok()?), accepted: a.parse().ok()? }
            }
            _ => return None,
        };
        p.next().is_none().then_some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use baccarat_table::WagerId;

    /// Every cause is spelt as the store has always kept it, appended to what
    /// is already there, and reads back as itself, at the ends of its ranges.
    #[test]
    fn causes_are_spelt_as_stored_and_read_back() {
        let m = u64::MAX;
        let cases = [
            (Cause::None, String::new()),
            (Cause::Deposit { seq: 0 }, "deposit:0".to_string()),
            (Cause::Float { table: TableId::MAX }, format!("float:{}", u32::MAX)),
            (Cause::Wager { table: TableId(7), wager: WagerId(m) }, format!("wager:7:{m}")),
            (Cause::Tournament { seq: 12 }, "tournament:12".to_string()),
            (Cause::Promotion { seq: m }, format!("promotion:{m}")),
            (Cause::Slip { table: TableId(3), first: WagerId(40), accepted: 0b1101 }, "slip:3:40:13".to_string()),
            (Cause::Bank { seq: 1_000_000 }, "bank:1000000".to_string()),
            (Cause::Cage { seq: m }, format!("cage:{m}")),
            (Cause::Closed { table: TableId::MAX }, format!("closed:{}", u32::MAX)),
        ];
        let mut out = String::from("x");
        for (cause, spelt) in cases {
            assert_eq!(cause.encode(), spelt);
            out.truncate(1);
            cause.encode_into(&mut out);
            assert_eq!(out, format!("x{spelt}"), "appended");
            assert_eq!(Cause::parse(&spelt), Some(cause), "{spelt:?}");
        }
    }
}
