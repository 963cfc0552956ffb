//! A coup's wager lines for the read model (`coup_feed.rs`), shared with the
//! checkpoints that copy them a chunk at a time.
//!
//! A checkpoint takes the read model's lines by sharing them (copying half a
//! million lines on the committer once held every request back for up to 270
//! ms). When the lines were one `Arc<Vec<_>>`, the first change to a coup after
//! a checkpoint copied all of that coup's lines: with sixteen tables of about
//! 30,000 wagers each under `loadgen`, the batch after a checkpoint spent
//! 40–290 ms copying them on the committer, while every request waited. In
//! chunks of [`baccarat_table::CHUNK`] lines, a change copies only the chunk it touches.

use crate::coup_feed::WagerLine;

/// A coup's wager lines, in order, in chunks shared copy-on-write (the
/// engine keeps a coup's wagers the same way: `baccarat_table::chunks`).
pub type Lines = baccarat_table::Chunks<WagerLine>;

/// Where wager `w` stands among `lines`, by binary search: the lines must be
/// in increasing order of wager (as a table places them).
pub fn find_in_order(lines: &Lines, w: baccarat_table::WagerId) -> Option<usize> {
    lines.find_sorted(&w, |l| l.wager)
}

/// (The checkpoint's rows, `casino/checkpoint_rows.rs`, say why rows.)
/// `WagerLine`s as `[wager, player, spot, bet, amount, ante, needs_approval,
/// status, rule, outcome, pays, settlement, net]`.
pub fn wager_lines<S: serde::Serializer>(list: &Lines, s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(list.iter().map(|w| {
        (
            w.wager,
            w.player,
            w.spot,
            w.bet,
            w.amount,
            w.ante,
            w.needs_approval,
            w.status,
            &w.rule,
            &w.outcome,
            &w.pays,
            &w.settlement,
            w.net,
        )
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coup_feed::WagerStatus;
    use baccarat_rules::{Bet, Money};
    use baccarat_table::CHUNK;
    use baccarat_table::{PlayerId, Spot, WagerId};

    fn line(i: u64) -> WagerLine {
        WagerLine {
            wager: WagerId(i),
            player: PlayerId(i as u32 % 7),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(100 + i as i64),
            ante: Money::ZERO,
            needs_approval: false,
            status: WagerStatus::Open,
            rule: None,
            outcome: None,
            pays: None,
            settlement: None,
            net: None,
        }
    }

    #[test]
    fn lines_in_chunks_behave_as_a_list_and_a_change_copies_only_its_chunk() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let list: Vec<WagerLine> = (0..n as u64).map(line).collect();
            let mut lines: Lines = list.iter().cloned().collect();
            assert_eq!((lines.len(), lines.is_empty()), (n, n == 0));
            assert!(lines.iter().eq(list.iter()));
            assert!((0..n).all(|i| lines[i] == list[i]) && lines.get(n).is_none());
            // Found by wager, in every chunk; a wager not there is not found.
            assert!((0..n).all(|i| find_in_order(&lines, list[i].wager) == Some(i)));
            assert_eq!(find_in_order(&lines, WagerId(n as u64)), None);
            // The same JSON as the list, both ways.
            let json = serde_json::to_string(&lines).unwrap();
            assert_eq!(json, serde_json::to_string(&list).unwrap());
            assert_eq!(serde_json::from_str::<Lines>(&json).unwrap(), lines);
            if n == 0 {
                continue;
            }
            // A checkpoint's copy shares everything; one change copies one chunk,
            // and the copy keeps what it took.
            let taken = lines.clone();
            assert!(taken.shares_all_with(&lines));
            let i = n / 2;
            lines.get_mut(i).unwrap().status = WagerStatus::Settled;
            let chunks = n.div_ceil(CHUNK);
            assert_eq!(lines.chunks_shared_with(&taken), chunks - 1, "only the changed chunk is copied");
            assert_eq!((taken[i].status, lines[i].status), (WagerStatus::Open, WagerStatus::Settled));
            lines.push(line(n as u64));
            assert_eq!((lines.len(), taken.len()), (n + 1, n));
            assert_eq!(lines[n], line(n as u64));
            assert!(taken.iter().eq(list.iter()), "the copy is the list it took");
        }
    }
}
