//! Bet slips: several wagers under one key, placed line by line, answered
//! once (`Cause::Slip`), and answered again from that one answer on a retry.

use baccarat_core::TableId;
use baccarat_rules::Money;
use baccarat_table::{PlayerId, WagerId};

use super::into_play::IntoPlay;
use super::protocol::{line_key, request_digest, wager_key};
use super::{no_table, Casino, Code, Reply, SlipLine, MAX_SLIP};
use crate::ledger::{Cause, LedgerError};
use crate::store::Commit;

impl Casino {
    /// A bet slip: each line is placed or refused on its own, and then, if
    /// any was placed, the client's key is bound to the whole slip (under the
    /// same key a single wager would use, so one key cannot mean both) with
    /// one answer: the lines' holds, and what each line did (`Cause::Slip`). A retry is
    /// answered from that alone: the placed lines with their wagers, the
    /// others as refused when first sent (not tried again under this key).
    /// (Each line once had an answer of its own as well: on a 4-line slip,
    /// their index inserts cost a third of the committer's time, and loadgen's
    /// accepted bets/s rose from 25 k to 35 k without them.)
    pub(super) fn slip(
        &mut self,
        table: TableId,
        player: PlayerId,
        slip: Vec<SlipLine>,
        key: &str,
        commit: &mut Commit,
    ) -> Reply {
        if slip.is_empty() || slip.len() > MAX_SLIP {
            return Reply::refused(Code::Slip, format!("wagers: a slip holds 1 to {MAX_SLIP} wagers"));
        }
        let request = request_digest("slip", table, &slip);
        if !self.tables.contains_key(&table) {
            return no_table(table);
        }
        let slip_key = wager_key(player, key);
        match self.ledger.bound(&slip_key) {
            Ok(Some((seen, _, _))) if seen != request => return LedgerError::KeyReused(key.to_string()).into(),
            Ok(Some((_, _, cause))) => return self.slip_again(table, player, slip, key, request, cause, commit),
            Ok(None) => {}
            Err(e) => return e.into(),
        }
        // A new slip when wagers are closed places nothing: each line is
        // refused for the time, and the key is not recorded (as for a single
        // wager), so it costs no write. So is one at a table closing or
        // closed for good (`closing.rs`), as its view says (`http/early.rs`).
        let t = &self.tables[&table];
        let closed = t.closure.wager_refusal(table);
        if let Some(refusal) = closed.or_else(|| t.engine.wagers_closed(Some((self.clock)())).map(Reply::from)) {
            let results = slip.iter().map(|_| refusal.clone()).collect();
            return Reply::Wagers { results, balance: self.balance(player).map_or(Money::ZERO, |b| b.1) };
        }
        let next = self.tables[&table].engine.state().next_wager;
        let (mut holds, mut first, mut accepted) = (Vec::new(), None, 0u32);
        let mut results = Vec::with_capacity(slip.len());
        for (i, line) in slip.into_iter().enumerate() {
            let r = self.wager(table, player, line, None, request, IntoPlay::SlipLine, commit);
            if let Reply::Wager { wager, .. } = &r {
                let placed = first.get_or_insert(*wager).0 + holds.len() as u64;
                let hold = self.tables[&table].holds.get(wager).map(|h| h.0);
                match hold {
                    // Lines placed one after another at one table are wagers
                    // in a row; if that ever failed, the answer could not say
                    // which wager a line is, so the table stops, named.
                    Some(h) if wager.0 == placed => holds.push(h),
                    _ => {
                        let t = self.tables.get_mut(&table).expect("table");
                        return t.halt(format!("slip {key:?}: wager {wager} is not the next of its slip"), commit);
                    }
                }
                accepted |= 1 << i;
            }
            results.push(r);
        }
        // A slip none of whose lines was placed had no effect, and binds
        // nothing, as a request refused outright does: sent again, it is a
        // new request. (Bound, each wrote an answer and its key's index
        // entry: a full coup hammered with slips wrote one for every
        // request, and filled the log with them.)
        if accepted != 0 {
            let cause = Cause::Slip { table, first: first.unwrap_or(next), accepted };
            commit.ledger.push(self.ledger.bind(&slip_key, request, &Ok(holds), cause));
        }
        Reply::Wagers { results, balance: self.balance(player).map_or(Money::ZERO, |b| b.1) }
    }

    /// A slip sent again under its key: each line as it was first answered.
    #[allow(clippy::too_many_arguments)]
    fn slip_again(
        &mut self,
        table: TableId,
        player: PlayerId,
        slip: Vec<SlipLine>,
        key: &str,
        request: [u8; 32],
        cause: Cause,
        commit: &mut Commit,
    ) -> Reply {
        let refused = |i: usize| {
            Reply::refused(
                Code::Idempotency,
                format!("wagers[{i}] was refused when slip {key:?} was first sent; send it under a new key"),
            )
        };
        let balance = self.balance(player).map_or(Money::ZERO, |b| b.1);
        let results = match cause {
            Cause::Slip { first, accepted, .. } => {
                let mut placed = 0u64;
                (0..slip.len())
                    .map(|i| {
                        if accepted & (1 << i) == 0 {
                            return refused(i);
                        }
                        placed += 1;
                        // Saturating: a forged answer (which `verify` names) must not
                        // overflow in a request.
                        Reply::Wager { wager: WagerId(first.0.saturating_add(placed - 1)), balance }
                    })
                    .collect()
            }
            // A slip answered before slips said what their lines did: each
            // line has an answer of its own, under a line key no client key
            // can spell (`slip:{player}:{line}:{key}`).
            _ => slip
                .into_iter()
                .enumerate()
                .map(|(i, line)| {
                    let line_key = line_key(player, i, key);
                    if matches!(self.ledger.bound(&line_key), Ok(None)) {
                        return refused(i);
                    }
                    self.wager(table, player, line, Some(&line_key), request, IntoPlay::SlipLine, commit)
                })
                .collect(),
        };
        Reply::Wagers { results, balance }
    }
}
