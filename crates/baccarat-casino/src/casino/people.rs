//! A person's account changed (issue 47, people): the record in the casino's
//! chain. The people themselves (names, roles, password hashes, who is
//! disabled) are the server's `users` table, not the casino's state; the
//! chain is where each change is signed for, naming the admin who made it.
//!
//! The rulebooks say nothing of the casino's own accounts; recording every
//! change in the anchored chain is this server's choice, as a casino's
//! surveillance log keeps who was given which access and by whom.

use baccarat_core::UserId;

use super::{Casino, Reply};
use crate::audit::{CasinoEvent, UserChange};
use crate::store::Commit;
use crate::trust::Role;

impl Casino {
    /// Record `change` of person `user` (named `name`) by admin `by`. A
    /// player created gets their wallet now (empty), as a deposit would open
    /// it, so that the ledger knows every player from their first day. Nothing
    /// here refuses: the server checked the change before asking (and the
    /// chain records what it was asked, never a password).
    pub(super) fn user_changed(
        &mut self,
        user: UserId,
        name: String,
        change: UserChange,
        by: UserId,
        commit: &mut Commit,
    ) -> Reply {
        self.casino_event(CasinoEvent::UserChanged { user, name, change, by }, commit);
        if let UserChange::Created { role: Role::Player } = change {
            self.wallet(user.as_player());
        }
        Reply::Events { count: 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Body, CASINO_CHAIN};
    use crate::casino::Request;
    use crate::ledger::AccountKind;
    use baccarat_table::PlayerId;

    fn changed(user: UserId, change: UserChange) -> Request {
        Request::UserChanged { user, name: format!("p{user}"), change, by: UserId(1) }
    }

    /// Each change is one record of the casino's chain, in order, naming the
    /// admin; a player's creation opens their wallet, staff's opens none.
    #[test]
    fn every_change_is_a_record_of_the_casinos_chain() {
        let mut c = Casino::new();
        let mut commit = Commit::default();
        let changes = [
            (UserId(5), UserChange::Created { role: Role::Player }),
            (UserId(6), UserChange::Created { role: Role::Dealer }),
            (UserId(6), UserChange::RoleChanged { from: Role::Dealer, to: Role::Supervisor }),
            (UserId(5), UserChange::Disabled),
            (UserId(5), UserChange::Enabled),
            (UserId(6), UserChange::PasswordReset),
        ];
        for (user, change) in changes {
            assert_eq!(c.handle(changed(user, change), &mut commit), Reply::Events { count: 1 });
        }
        let recorded: Vec<_> = commit
            .records
            .iter()
            .filter(|(chain, _)| *chain == CASINO_CHAIN)
            .filter_map(|(_, r)| Body::decode(&r.body).ok()?.casino)
            .collect();
        let expected: Vec<_> = changes
            .iter()
            .map(|(user, change)| CasinoEvent::UserChanged {
                user: *user,
                name: format!("p{user}"),
                change: *change,
                by: UserId(1),
            })
            .collect();
        assert_eq!(recorded, expected);
        assert_eq!(c.chain.len(), changes.len() as u64);
        assert!(c.ledger.find(&AccountKind::Wallet { player: PlayerId(5) }).is_some(), "the player's wallet");
        assert!(c.ledger.find(&AccountKind::Wallet { player: PlayerId(6) }).is_none(), "staff have none");
        assert_eq!(c.balance(PlayerId(5)), Some((baccarat_rules::Money::ZERO, baccarat_rules::Money::ZERO)));
        // The wallet goes to the store with the batch, before any transfer.
        let wallet = AccountKind::Wallet { player: PlayerId(5) };
        assert!(commit.ledger.iter().flat_map(|ch| &ch.accounts).any(|a| a.kind == wallet));
    }

    /// The records go to the store with their batch, and a casino recovered
    /// from the whole history has them in its chain, with the player's
    /// wallet: recovery's walks of the casino's events take the new one.
    #[test]
    fn a_casino_with_person_changes_recovers_from_its_history() {
        use crate::store::{SqliteStore, Store};
        let mut store = SqliteStore::memory().unwrap();
        let mut c = Casino::new();
        let mut commit = Commit::default();
        c.handle(changed(UserId(5), UserChange::Created { role: Role::Player }), &mut commit);
        c.handle(changed(UserId(5), UserChange::Disabled), &mut commit);
        store.commit(&commit).unwrap();
        let again = Casino::recover(&store).unwrap();
        assert_eq!((again.chain.len(), again.chain.head()), (c.chain.len(), c.chain.head()));
        assert!(again.ledger.find(&AccountKind::Wallet { player: PlayerId(5) }).is_some());
    }
}
