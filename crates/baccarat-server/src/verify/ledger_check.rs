//! The ledger as the database holds it now, from the latest checkpoint and
//! the tail after it (the `/api/ledger/check` route).

use super::VerifyError;
use crate::store::StoreError;

/// The ledger's invariants as the database holds them now, checked on a
/// connection of its own (the `/api/ledger/check` route: not in the writer).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LedgerCheck {
    pub problem: Option<String>,
    pub accounts: usize,
    pub transfers: u64,
}

/// Check the ledger of the database at `db` from one snapshot: the latest
/// checkpoint (its hash and signature under `public`) and the tail after it
/// rebuild the live ledger and tables, as a start does; their balances must be
/// the stored ones, the holds must match, and every hold must be for a wager
/// its table still holds. It costs the tail since the checkpoint, not the
/// history.
pub fn check_ledger(db: &std::path::Path, public: &str) -> Result<LedgerCheck, VerifyError> {
    check_ledger_of(&crate::store::Db::Sqlite(db.into()), public)
}

/// The same, on either back end: one snapshot either way.
pub fn check_ledger_of(db: &crate::store::Db, public: &str) -> Result<LedgerCheck, VerifyError> {
    match db {
        crate::store::Db::Sqlite(path) => {
            let store = crate::store::SqliteStore::open(path)
                .map_err(|source| VerifyError::Open { db: path.display().to_string(), source })?;
            Ok(store.in_snapshot(|s| ledger_in(s, public))??)
        }
        crate::store::Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url)?;
            Ok(store.in_snapshot(|s| ledger_in(s, public))??)
        }
    }
}

/// The ledger's check, reading `store` (already in one snapshot).
fn ledger_in(store: &dyn crate::store::History, public: &str) -> Result<LedgerCheck, StoreError> {
    let cp = match baccarat_casino::latest_without_read_model(store, public)? {
        None => None,
        Some((_, opened)) => match opened {
            Ok(cp) => Some(cp),
            Err(why) => return Ok(LedgerCheck { problem: Some(why.to_string()), accounts: 0, transfers: 0 }),
        },
    };
    let none = std::collections::BTreeSet::new();
    Ok(match crate::casino::recover(store, cp, crate::casino::Keys::None, &none) {
        Err(why) => LedgerCheck { problem: Some(why.to_string()), accounts: 0, transfers: 0 },
        Ok(r) => {
            let l = &r.casino.ledger;
            let problem = l.check().err().map(|e| e.to_string()).or_else(|| r.casino.holds_problem());
            LedgerCheck { problem, accounts: l.accounts().count(), transfers: l.transfer_count() }
        }
    })
}
