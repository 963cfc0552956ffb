//! Commands on a table's engine, and their money: a staff command checked
//! against the trust matrix and the casino's ceiling, the engine's events
//! booked in the ledger in the same step (a table whose postings the ledger
//! refuses stops alone), a halted table's coup voided, and the coups a
//! restart interrupted resumed under their profile's policy.

use baccarat_core::TableId;
use std::collections::BTreeMap;

use baccarat_rules::{Cite, Money};
use baccarat_table::{Command, Event, Phase, Refusal, RefusalKind, WagerId};

use super::{halted, no_table, settling, Actor, Casino, Code, Reply, Request};
use crate::ledger::{AccountId, AccountKind, Cause, Ledger, Op, TransferId};
use crate::store::Commit;
use baccarat_core::{settlement_ops, settlement_ops_with, TableAccounts, TokenAccounts};

impl Casino {
    /// A staff command (or the server's own): the trust matrix first, then the
    /// casino's ceiling for a personal maximum, then the engine.
    pub(super) fn staff_command(
        &mut self,
        table: TableId,
        mut command: Command,
        by: Actor,
        commit: &mut Commit,
    ) -> Reply {
        let Some(t) = self.tables.get(&table) else {
            return no_table(table);
        };
        // The time on a person's command is the server's, never theirs: a
        // back-dated `at_ms` would let a minimum's notice (NSW 6.7) seem served.
        if matches!(by, Actor::Person { .. }) {
            let now = (self.clock)();
            match &mut command {
                Command::AnnounceMinimum { at_ms, .. } | Command::ChangeMinimum { at_ms, .. } => *at_ms = now,
                Command::PlaceWager { at_ms, .. } => *at_ms = Some(now),
                _ => {}
            }
        }
        // A table closed for good takes no command from anyone (`closing.rs`).
        if let Some(r) = t.closure.command_refusal(table, &command) {
            return r;
        }
        if let Err(r) = crate::trust::admit(t.mode, by, &command, &t.engine) {
            return r.into();
        }
        if let Command::ChangeLimits { max, .. } = &command {
            if *max > self.ceiling {
                return Reply::by_rule(
                    t.engine.rb().cite(Cite::MinimumChange),
                    format!("max: {max} is above the casino's ceiling of {}", self.ceiling),
                );
            }
        }
        if let Command::SetPersonalLimits { max, .. } = &command {
            if *max > self.ceiling {
                return Reply::by_rule(
                    t.engine.rb().cite(Cite::PersonalLimits),
                    format!("max: {max} is above the casino's ceiling of {}", self.ceiling),
                );
            }
        }
        self.command(table, command, by, commit)
    }

    /// Run a command on a table's engine and book its money in the same step:
    /// returned wagers release their holds, settled ones post. The engine keeps
    /// the command's events only if the ledger takes every posting, all at once;
    /// if it cannot (a broken invariant: the float was checked at placement),
    /// this table stops, named, and every other table goes on.
    pub(super) fn command(&mut self, table: TableId, command: Command, by: Actor, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get_mut(&table) else {
            return no_table(table);
        };
        // Closed for good: nothing; closing: only what finishes its coup.
        if let Some(r) = t.closure.command_refusal(table, &command) {
            return r;
        }
        if let Some(why) = &t.halted {
            return halted(table, why);
        }
        if t.engine.settling() {
            return settling(table);
        }
        let ledger = &mut self.ledger;
        let holds = &t.holds;
        let accounts = t.accounts;
        let mut booked = None;
        let result = t.engine.execute_checked(command, |events| {
            // A large settlement is made a chunk at a time (`settle.rs`).
            let batches = money_of(table, events, holds, &accounts, ledger);
            if batches.is_empty() {
                return Ok(());
            }
            let (a, ch) = ledger.apply_caused(&batches);
            match a {
                Ok(_) => {
                    booked = Some(ch);
                    Ok(())
                }
                Err(e) => Err(Refusal::of(RefusalKind::Invariant, format!("the ledger refused the postings: {e}"))),
            }
        });
        let events = match result {
            Ok(ev) => ev,
            Err(Refusal { kind: RefusalKind::Invariant, message }) => return t.halt(message, commit),
            Err(r) => return r.into(),
        };
        if let Some(ch) = booked {
            commit.ledger.push(ch);
        }
        t.release(&events);
        t.record(&events, by, commit);
        t.settled_by = by;
        Reply::Events { count: events.len() }
    }

    /// A supervisor voids a halted table's coup: the interruption is recorded
    /// under the profile's rule, every stake goes back, and the table serves again.
    pub(super) fn void_halted(&mut self, table: TableId, by: Actor, commit: &mut Commit) -> Reply {
        let Some(t) = self.tables.get_mut(&table) else {
            return no_table(table);
        };
        let supervisor =
            matches!(by, Actor::Person { role: crate::trust::Role::Supervisor | crate::trust::Role::Admin, .. });
        if !supervisor {
            return Reply::refused(Code::Role, "only a supervisor voids a halted table's coup");
        }
        if t.halted.is_none() {
            return Reply::refused(Code::Halted, format!("table {table} is not halted"));
        }
        t.halted = None;
        let reply = self.command(table, Command::VoidInterrupted, by, commit);
        if let (Reply::Refused { message, .. }, Some(t)) = (&reply, self.tables.get_mut(&table)) {
            t.halted = Some(message.clone());
        }
        reply
    }

    /// After a restart: every table that was mid-coup records the interruption
    /// and, by its profile's interrupted-coup policy, completes the coup from
    /// the recorded shoe or voids it and returns every wager. A table that was
    /// halted stays halted. Returns the tables.
    ///
    /// A table whose log stops inside a coup's settlement is not interrupted:
    /// its result is recorded, and the rest of its settlement is recorded in
    /// chunks by the writer's batches once the server serves, as it would
    /// have been without the stop (`settle.rs`; a tool with no writer calls
    /// [`Casino::finish_settlements`]). Settling it here, before serving, was
    /// most of a start after a crash under a load of big coups: 610 k
    /// settlements, 1.0 s, and 0.4 s more to commit them, of a 4.4 s start.
    pub fn resume_interrupted(&mut self, commit: &mut Commit) -> Vec<TableId> {
        let mid: Vec<TableId> = self
            .tables
            .iter()
            .filter(|(_, t)| t.halted.is_none() && !t.engine.settling())
            // A table closed for good mid-coup (with no wager in it) stays as it closed.
            .filter(|(_, t)| t.closure != super::closing::Closure::Closed)
            .filter(|(_, t)| matches!(t.engine.phase(), Phase::Closed | Phase::Dealing | Phase::Reconstruction))
            .map(|(id, _)| *id)
            .collect();
        for &table in &mid {
            self.handle(Request::Table { table, command: Command::Interrupted, by: Actor::Server }, commit);
        }
        mid
    }
}

/// The ledger postings a command's events call for, each batch with its cause.
/// A wager held from a player's tokens settles through them (`postings.rs`).
pub(super) fn money_of(
    table: TableId,
    events: &[Event],
    holds: &BTreeMap<WagerId, (TransferId, AccountId, Money)>,
    accounts: &TableAccounts,
    ledger: &Ledger,
) -> Vec<(Cause, Vec<Op>)> {
    let mut out = Vec::new();
    for e in events {
        match e {
            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                if let Some((hold, _, _)) = holds.get(wager) {
                    out.push((Cause::Wager { table, wager: *wager }, vec![Op::Void { hold: *hold }]));
                }
            }
            Event::WagerSettled { wager, settlement, ante, .. } => {
                if let Some((hold, stake, _)) = holds.get(wager) {
                    let tokens = match ledger.account(*stake).map(|a| &a.kind) {
                        Some(AccountKind::Tokens { player }) => {
                            let wallet = ledger.find(&AccountKind::Wallet { player: *player });
                            let issuer = ledger.find(&AccountKind::TokenIssuer);
                            wallet.zip(issuer).map(|(w, i)| (w, TokenAccounts { tokens: *stake, issuer: i }))
                        }
                        _ => None,
                    };
                    let ops = match tokens {
                        Some((wallet, k)) => settlement_ops_with(*hold, wallet, accounts, settlement, *ante, Some(k)),
                        None => settlement_ops(*hold, *stake, accounts, settlement, *ante),
                    };
                    out.push((Cause::Wager { table, wager: *wager }, ops));
                }
            }
            _ => {}
        }
    }
    out
}
