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
use baccarat_table::engine::{Event, PlayerId, WagerId};

use crate::audit::Body;
use crate::store::scan::Chains;
use crate::store::Db;

/// Each player's entries (players without any are left out), in ascending id.
pub fn entries(db: &Path, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, String> {
    entries_of(&Db::Sqlite(db.into()), terms)
}

/// The same, on either back end (PostgreSQL reads from one snapshot).
pub fn entries_of(db: &Db, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, String> {
    match db {
        Db::Sqlite(path) => {
            let conn = crate::store::scan::open_read_only(path).map_err(|e| format!("{}: {e}", path.display()))?;
            let scan = crate::store::scan::Scan::with_archives(&conn, path).map_err(|e| e.to_string())?;
            scan.begin().map_err(|e| e.to_string())?;
            let list = entries_in(&scan, terms)?;
            scan.end().map_err(|e| e.to_string())?;
            Ok(list)
        }
        Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url).map_err(|e| e.to_string())?;
            store
                .in_snapshot(|s| entries_in(&crate::store::scan::HistoryChains(s), terms))
                .map_err(|e| e.to_string())?
        }
    }
}

/// The same, from chains already being read (`verify`'s scan).
pub fn entries_in(scan: &dyn Chains, terms: &Terms) -> Result<Vec<(PlayerId, u64)>, String> {
    let mut earned: HashMap<u32, u64> = HashMap::new();
    let tables = scan.chain_tables().map_err(|e| e.to_string())?;
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
        })
        .map_err(|e| e.to_string())?;
    }
    let list: Vec<(PlayerId, u64)> = earned.into_iter().map(|(p, n)| (PlayerId(p), n)).collect();
    Ok(baccarat_table::draw::canonical(&list))
}
