//! The coups voided after their cards were out, for the inspector.

use baccarat_core::TableId;
use baccarat_table::Event;

use crate::audit::Body;
use crate::store::StoreError;

use super::Void;

/// The coups voided after their cards were out, record by record.
pub(super) struct Voids {
    table: TableId,
    shoe: u64,
    coup: u64,
    cards_out: bool,
}

impl Voids {
    pub(super) fn new(table: TableId) -> Voids {
        Voids { table, shoe: 0, coup: 0, cards_out: false }
    }

    pub(super) fn feed(&mut self, b: &Body) -> Option<Void> {
        match &b.event {
            Some(Event::ShoeStarted { shoe: n, .. }) => self.shoe = *n,
            Some(Event::BettingOpened { coup: n, .. }) => {
                self.coup = *n;
                self.cards_out = false;
            }
            Some(Event::CardDealt { .. }) => self.cards_out = true,
            Some(Event::CoupVoided { rule, .. }) if self.cards_out => {
                return Some(Void { table: self.table, shoe: self.shoe, coup: self.coup, by: b.by, rule: rule.clone() })
            }
            _ => {}
        }
        None
    }
}

/// The coups of a table voided after their cards were out: with the shoe,
/// who voided them and the rule given (for recall and verify: a pattern of
/// voids that favours anyone shows here).
pub fn voids_of(table: TableId, bodies: &[(u64, Body)]) -> Vec<Void> {
    let mut v = Voids::new(table);
    bodies.iter().filter_map(|(_, b)| v.feed(b)).collect()
}

/// The voids of one table read from the database file, streamed on a
/// read-only connection (the recall route: memory stays bounded whatever the
/// table's history).
pub fn voids_in(db: &std::path::Path, table: TableId) -> Result<Vec<Void>, StoreError> {
    voids_in_db(&crate::store::Db::Sqlite(db.into()), table)
}

/// The same, on either back end.
pub fn voids_in_db(db: &crate::store::Db, table: TableId) -> Result<Vec<Void>, StoreError> {
    let read = |chains: &dyn crate::store::scan::Chains| -> Result<Vec<Void>, StoreError> {
        let mut v = Voids::new(table);
        let mut out = Vec::new();
        chains.each_in_chain(table, &mut |r| {
            if let Ok(b) = Body::decode(&r.body) {
                out.extend(v.feed(&b));
            }
            Ok(true)
        })?;
        Ok(out)
    };
    match db {
        crate::store::Db::Sqlite(path) => {
            let conn = crate::store::scan::open_read_only(path)?;
            read(&crate::store::scan::Scan::with_archives(&conn, path)?)
        }
        crate::store::Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url)?;
            read(&crate::store::scan::HistoryChains(&store))
        }
    }
}
