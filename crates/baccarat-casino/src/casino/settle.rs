//! Settling a large coup without making the other tables wait.
//!
//! # The design, and why
//!
//! A coup's result settles every wager on it. With tens of thousands of
//! wagers that was one engine step of 17 ms on a quiet machine (86–188 ms
//! under load), then hundreds of milliseconds of ledger postings and audit
//! records on the single writer, and as long again in one transaction on the
//! committer, while every request of every table waited behind it (1.0 s
//! measured at 87,000 wagers).
//!
//! Per-table writers would not remove the second half: SQLite has one write
//! lock, so the big transaction would still hold every other table's commit.
//! So the settlement is made in chunks instead, by the engine itself
//! (`Table::settle_in_chunks`): the command that completes a coup settles its
//! first [`FIRST_CHUNK`] wagers (a usual coup, all of them), and the writer
//! asks the engines for more once per batch ([`Casino::settle_some`]),
//! between the other tables' requests, and books and records them: [`CHUNK`]
//! settlements a batch, shared among the tables settling. (Each table took a
//! whole chunk a batch at first; sixteen tables under `loadgen` complete
//! their coups together, so a batch then carried 16,000 settlements, and a
//! probe player at a quiet table waited behind it.) Each chunk is a whole number of
//! wagers, each wager's postings balance on their own, and the engine makes
//! exactly the events, in the order, of a settlement made at once (a test
//! compares them), so at every chunk boundary the ledger and the log agree.
//! Until the coup's close is recorded its engine refuses commands and the table
//! refuses wagers with `settling` (retry). A background checkpoint may be
//! taken between chunks (it is the state the log gives there); a clean stop's
//! waits for the close (`Casino::checkpoint_due`).
//!
//! If the server stops between chunks, the log ends inside the coup's
//! settlement: the replayed engine is in the same state (`State::completed`),
//! the table is still settling when the server starts serving, and the
//! writer's batches record the rest a chunk at a time, as they would have
//! without the stop (a tool with no writer records it at once:
//! [`Casino::finish_settlements`]). Nothing is settled twice: the engine
//! resumes after the last wager recorded as settled, whose holds are the only
//! ones released.

use super::commands::money_of;
use super::{Casino, Commit};

/// Settlements booked and recorded in one writer batch: about 1 ms of writer
/// time and 2 ms of commit on this machine. (2,000 gave a probe player at a
/// quiet table p99 36 ms while a coup of 87,760 wagers settled; 1,000 gave
/// 22-28 ms, max 45-79 ms over two runs.)
pub const CHUNK: usize = 1_000;

/// Settlements made by the command that completes a coup: sixteen tables
/// completing theirs in one batch settle about one [`CHUNK`] between them.
pub const FIRST_CHUNK: usize = 64;

impl Casino {
    /// Whether any table has settlements still to record (a halted table
    /// records nothing more until a supervisor voids its coup).
    pub fn settling(&self) -> bool {
        self.tables.values().any(|t| t.engine.settling() && t.halted.is_none())
    }

    /// Settle, book and record the next part of every settling table's coup:
    /// [`CHUNK`] settlements in all, an equal share each (at least one each,
    /// so every table goes on however many settle at once). A posting the
    /// ledger refuses is a broken invariant (the float was checked as each
    /// wager was placed): that table stops, named.
    pub fn settle_some(&mut self, commit: &mut Commit) {
        self.ledger.set_time((self.clock)());
        let settling = self.tables.values().filter(|t| t.engine.settling() && t.halted.is_none()).count();
        let share = CHUNK.checked_div(settling).unwrap_or(CHUNK).max(1);
        for (&id, t) in self.tables.iter_mut().filter(|(_, t)| t.engine.settling() && t.halted.is_none()) {
            let chunk = t.engine.settle_next(share);
            let batches = money_of(id, &chunk, &t.holds, &t.accounts, &self.ledger);
            if !batches.is_empty() {
                let (a, ch) = self.ledger.apply_caused(&batches);
                if let Err(e) = a {
                    t.halt(format!("the ledger refused a settlement's postings: {e}"), commit);
                    continue;
                }
                commit.ledger.push(ch);
            }
            t.release(&chunk);
            let by = t.settled_by;
            t.record(&chunk, by, commit);
        }
        // A table closing for good closes once its coup's last chunk is in.
        self.close_settled(commit);
    }

    /// Record every settlement still to make now (a tool with no writer).
    pub fn settle_all(&mut self, commit: &mut Commit) {
        while self.settling() {
            self.settle_some(commit);
        }
    }

    /// After a restart, for a caller with no writer (`serve::open`): a table
    /// whose log stops inside a coup's settlement (its engine, replayed, is
    /// part-way through it) settles, books and records the rest at once.
    pub fn finish_settlements(&mut self, commit: &mut Commit) {
        for t in self.tables.values().filter(|t| t.engine.settling() && t.halted.is_none()) {
            tracing::info!(
                table = t.id.0,
                coup = t.engine.state().coup_number,
                "finishing the settlement of a coup cut short"
            );
        }
        self.settle_all(commit);
    }
}
