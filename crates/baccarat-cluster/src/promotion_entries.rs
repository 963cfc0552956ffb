//! A promotion's entries computed from what was wagered (NSW 16.7.3-16.7.4,
//! 16.7.6), never from what a client claims: every table's audit chain
//! (archives included) is read, and each wager that was placed and then
//! settled on a result earns the entries the terms give it. A wager withdrawn,
//! returned or voided played nothing and earns nothing; so does one placed
//! after the closing time, under the minimum, or on a wager the terms do not
//! name. The list is `baccarat_table::draw`'s canonical one, ready to publish.

use std::collections::HashMap;
use std::path::Path;

use baccarat_rules::promotion::Terms;
use baccarat_table::{Event, PlayerId, WagerId};

use crate::audit::Body;
use crate::store::scan::Chains;
use crate::store::{Db, StoreError};

/// Why the entries could not be counted: the store could not be read.
#[derive(Debug, thiserror::Error)]
pub enum EntriesError {
    /// The SQLite file at `path` could not be opened to read.
    #[error("{}: {source}", .path.display())]
    Open { path: std::path::PathBuf, source: StoreError },
    /// The chains could not be read.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Each player's entries (players without any are left out), in ascending id.
pub fn entries(db: &Path, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, EntriesError> {
    entries_of(&Db::Sqlite(db.into()), terms)
}

/// The same, on either back end (PostgreSQL reads from one snapshot).
pub fn entries_of(db: &Db, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, EntriesError> {
    match db {
        Db::Sqlite(path) => {
            let conn = crate::store::scan::open_read_only(path)
                .map_err(|source| EntriesError::Open { path: path.clone(), source })?;
            let scan = crate::store::scan::Scan::with_archives(&conn, path)?;
            scan.begin()?;
            let list = entries_in(&scan, terms)?;
            scan.end()?;
            Ok(list)
        }
        Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url)?;
            Ok(store.in_snapshot(|s| entries_in(&crate::store::scan::HistoryChains(s), terms))??)
        }
    }
}

/// The same, from chains already being read (`verify`'s scan).
pub fn entries_in(scan: &dyn Chains, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, StoreError> {
    let mut earned: HashMap<u32, u64> = HashMap::new();
    let tables = scan.chain_tables()?;
    for t in tables {
        // The wagers of the coup in play: what each would earn if it plays.
        let mut open: HashMap<WagerId, (PlayerId, u32)> = HashMap::new();
        scan.each_in_chain(t.id, &mut |r| {
            let Ok(Body { event: Some(e), .. }) = Body::decode(&r.body) else { return Ok(true) };
            match e {
                Event::BettingOpened { .. } => open.clear(),
                Event::WagerPlaced { wager } => {
                    // A wager without a recorded time is from before the
                    // clock was recorded: it cannot be shown to be in time.
                    let n = wager.at_ms.map_or(0, |at| terms.entries_for(wager.bet, wager.amount, at));
                    if n > 0 {
                        open.insert(wager.id, (wager.player, n));
                    }
                }
                Event::WagerSettled { wager, outcome: Some(_), .. } => {
                    if let Some((p, n)) = open.remove(&wager) {
                        *earned.entry(p.0).or_default() += u64::from(n);
                    }
                }
                Event::WagerSettled { wager, outcome: None, .. }
                | Event::WagerWithdrawn { wager }
                | Event::WagerReturned { wager, .. } => {
                    open.remove(&wager);
                }
                _ => {}
            }
            Ok(true)
        })?;
    }
    let list: Vec<(PlayerId, u64)> = earned.into_iter().map(|(p, n)| (PlayerId(p), n)).collect();
    Ok(baccarat_table::draw::canonical(&list))
}

#[cfg(test)]
mod error_tests {
    use super::{EntriesError, StoreError};

    /// A file that cannot be opened is named as before: `<path>: <why>`.
    #[test]
    fn an_unopened_file_is_named_as_before() {
        let source = StoreError::Corrupt("x".into());
        let why = source.to_string();
        let e = EntriesError::Open { path: "/x/casino.db".into(), source };
        assert_eq!(e.to_string(), format!("/x/casino.db: {why}"));
    }
}
