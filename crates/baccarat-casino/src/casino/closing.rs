//! Closing a table for good (issue 47).
//!
//! The rulebooks say nothing of taking a table off the floor for good; the
//! casino chose what a pit does. An admin asks; a table with no coup in play
//! (no wager held, no settlement being recorded) closes at once, and every
//! chip it held goes back to the cage: the float in its house account, and
//! the commission (AU 5.10(b)) and antes (AU 14.6) its own accounts
//! collected, which are the house's money too and would otherwise sit
//! forever at a table that deals no more. A table whose coup holds wagers
//! takes no new wager from the request on (`closed`), deals that coup out,
//! and closes when it settles (or, halted, when a supervisor voids it): no
//! player's wager is cut short. The request is recorded then as
//! `table_closing`, so that a restart in between still closes it.
//!
//! A closed table takes no wager and no command (409 `closed`), is not paced,
//! and stays: its view (`"closed": true`), its chain, its accounts (empty)
//! and its name, which no new table takes (`table_names.rs`).

use baccarat_core::{TableId, UserId};
use baccarat_rules::Money;
use baccarat_table::Command;
use serde::{Deserialize, Serialize};

use super::{no_table, Actor, Casino, Code, Reply};
use crate::audit::{Body, CasinoEvent};
use crate::ledger::{Cause, Op};
use crate::store::Commit;
use crate::trust::Role;

/// Where a table stands on being closed for good.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Closure {
    /// In service (every table until an admin closes it).
    #[default]
    Open,
    /// Asked by admin `by` while a coup held wagers: no new wager, and
    /// closed once that coup settles.
    Closing { by: UserId },
    /// Closed for good.
    Closed,
}

impl Closure {
    pub fn is_open(&self) -> bool {
        *self == Closure::Open
    }

    /// The refusal a new wager gets at a table closing or closed: the
    /// writer's (`wager.rs`) and, through the view, the HTTP threads'
    /// (`http/early.rs`).
    pub fn wager_refusal(&self, table: TableId) -> Option<Reply> {
        match self {
            Closure::Open => None,
            Closure::Closing { .. } => Some(Reply::refused(
                Code::Closed,
                format!("table {table} is closing: it takes no new wager, and closes when its coup settles"),
            )),
            Closure::Closed => Some(closed(table)),
        }
    }

    /// Whether a command may run at the table: none at a closed table; at a
    /// closing one, only what finishes the coup in play (no new shoe, no
    /// betting opened, no wager placed by staff).
    pub fn command_refusal(&self, table: TableId, command: &Command) -> Option<Reply> {
        match (self, command) {
            (Closure::Open, _) => None,
            (Closure::Closing { .. }, Command::StartShoe { .. } | Command::OpenBetting { .. }) => {
                Some(Reply::refused(Code::Closed, format!("table {table} is closing: it deals no coup after this one")))
            }
            (Closure::Closing { .. }, Command::PlaceWager { .. }) => self.wager_refusal(table),
            (Closure::Closing { .. }, _) => None,
            (Closure::Closed, _) => Some(closed(table)),
        }
    }
}

/// The refusal of anything at a table closed for good.
pub fn closed(table: TableId) -> Reply {
    Reply::refused(Code::Closed, format!("table {table} is closed for good"))
}

impl Casino {
    /// An admin closes `table` for good: now if no coup is in play (the
    /// money back to the cage), else once that coup settles.
    pub(super) fn close_table(&mut self, table: TableId, by: Actor, commit: &mut Commit) -> Reply {
        let Actor::Person { user, role: Role::Admin } = by else {
            return Reply::refused(Code::Role, "only an admin closes a table for good");
        };
        let Some(t) = self.tables.get_mut(&table) else { return no_table(table) };
        match t.closure {
            Closure::Closed => return closed(table),
            // Asked again while it waits: the same answer, nothing recorded.
            Closure::Closing { .. } => return closing(table),
            Closure::Open => {}
        }
        if t.coup_in_play() {
            t.closure = Closure::Closing { by: user };
            let r = t.chain.append(Body::encode_casino(table, Some(by), &CasinoEvent::TableClosing { by: user }));
            commit.records.push((table, r));
            self.closing.insert(table);
            return closing(table);
        }
        match self.close_now(table, user, commit) {
            Ok(credited) => Reply::TableClosed { table, closed: true, closing: false, credited: Some(credited) },
            Err(refused) => refused,
        }
    }

    /// Close `table` now: the money of its house, commission and antes
    /// accounts to the cage in one batch (`Cause::Closed`), then the record
    /// that says so. What went back to the cage.
    fn close_now(&mut self, table: TableId, by: UserId, commit: &mut Commit) -> Result<Money, Reply> {
        let t = &self.tables[&table];
        let held = |a| Money(self.ledger.account(a).map_or(0, |a| a.balance));
        let parts = [
            (t.accounts.house, held(t.accounts.house), "table closed: its float back to the cage"),
            (t.accounts.commission, held(t.accounts.commission), "table closed: its commission to the cage"),
            (t.accounts.antes, held(t.accounts.antes), "table closed: its antes to the cage"),
        ];
        let ops: Vec<Op> = parts
            .iter()
            .filter(|(_, m, _)| m.0 > 0)
            .map(|(a, m, memo)| Op::Transfer { debit: *a, credit: self.cage, amount: *m, memo: memo.to_string() })
            .collect();
        if !ops.is_empty() {
            let (a, ch) = self.ledger.apply_internal(&ops, Cause::Closed { table });
            a.map_err(Reply::from)?;
            commit.ledger.push(ch);
        }
        let [(_, house, _), (_, commission, _), (_, antes, _)] = parts;
        let credited = house + commission + antes;
        let e = CasinoEvent::TableClosed { credited, by, commission, antes, at_ms: (self.clock)() };
        let t = self.tables.get_mut(&table).expect("checked");
        let r = t.chain.append(Body::encode_casino(table, Some(admin(by)), &e));
        commit.records.push((table, r));
        t.closure = Closure::Closed;
        self.closing.remove(&table);
        Ok(credited)
    }

    /// After each request and each batch's settlements: a closing table
    /// whose coup has settled (or been voided) closes now. Nothing to do on
    /// a floor with no table closing, the usual case.
    pub(super) fn close_settled(&mut self, commit: &mut Commit) {
        if self.closing.is_empty() {
            return;
        }
        let due: Vec<(TableId, UserId)> = self
            .closing
            .iter()
            .filter_map(|id| self.tables.get(id).map(|t| (id, t)))
            .filter_map(|(id, t)| match t.closure {
                Closure::Closing { by } if !t.coup_in_play() => Some((*id, by)),
                _ => None,
            })
            .collect();
        for (table, by) in due {
            if let Err(refused) = self.close_now(table, by, commit) {
                // The ledger refused to move a balance it holds: an
                // invariant broke. The table stops, named; it stays closing.
                let why = format!("its close for good was refused: {refused:?}");
                self.tables.get_mut(&table).expect("closing").halt(why, commit);
            }
        }
    }
}

/// The answer while a table waits for its coup to close.
fn closing(table: TableId) -> Reply {
    Reply::TableClosed { table, closed: false, closing: true, credited: None }
}

/// Who closed a table, as its records name them: only an admin may.
fn admin(user: UserId) -> Actor {
    Actor::Person { user, role: Role::Admin }
}
