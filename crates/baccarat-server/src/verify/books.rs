//! The gaming day's books read off the store (`baccarat-casino`'s `books`
//! is the fold; this feeds it): the casino's chain for its gaming-day
//! settings, then again for its cash, then each table's chain, a record at a
//! time, on a connection of its own (read-only for SQLite, with its archived
//! months), so the writer waits for none of it. The report route, `verify
//! --day` and `verify --report` all read it here, and the ratings
//! (`GET /api/ratings`, `GET /api/protection`).

use baccarat_casino::books::{self, differences, Calendar, Date, DayBooks, DayReport, Ratings};
use baccarat_core::TableId;
use baccarat_table::PlayerId;

use crate::audit::{Body, Record, CASINO_CHAIN};
use crate::pg_store::PgStore;
use crate::store::scan::{open_read_only, Scan};
use crate::store::{Db, History, StoreError};

/// The chains of either back end, a record at a time.
trait Chains {
    fn tables(&self) -> Result<Vec<TableId>, StoreError>;
    fn each(&self, chain: TableId, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError>;
}

impl Chains for Scan<'_> {
    fn tables(&self) -> Result<Vec<TableId>, StoreError> {
        Ok(Scan::tables(self)?.iter().map(|t| t.id).collect())
    }
    fn each(&self, chain: TableId, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError> {
        self.each_record(chain, |r| {
            f(&r);
            Ok(true)
        })
    }
}

impl Chains for PgStore {
    fn tables(&self) -> Result<Vec<TableId>, StoreError> {
        Ok(History::tables(self)?.iter().map(|t| t.id).collect())
    }
    fn each(&self, chain: TableId, f: &mut dyn FnMut(&Record)) -> Result<(), StoreError> {
        self.each_record_after(chain, 0, &mut |r| {
            f(&r);
            Ok(())
        })
    }
}

/// Run `read` over `db`'s chains: SQLite read-only inside one read
/// transaction (one snapshot for every chain), PostgreSQL on a connection of
/// its own.
fn on_db<T>(db: &Db, read: impl FnOnce(&dyn Chains) -> Result<T, StoreError>) -> Result<T, StoreError> {
    match db {
        Db::Sqlite(path) => {
            let conn = open_read_only(path)?;
            let scan = Scan::with_archives(&conn, path)?;
            scan.begin()?;
            let out = read(&scan);
            scan.end()?;
            out
        }
        Db::Postgres(url) => read(&PgStore::connect(url)?),
    }
}

/// The casino's gaming-day settings, from its chain (only the records that
/// name one are decoded). A record that does not decode is `verify`'s to
/// report; here it is passed over.
fn calendar_of(c: &dyn Chains) -> Result<Calendar, StoreError> {
    let mut calendar = Calendar::default();
    c.each(CASINO_CHAIN, &mut |r| {
        if r.body.contains("\"gaming_day_set\"") {
            if let Ok(Body { casino: Some(e), .. }) = Body::decode(&r.body) {
                calendar.record(&e);
            }
        }
    })?;
    Ok(calendar)
}

/// The casino's gaming-day settings as the store holds them now.
pub fn calendar_in(db: &Db) -> Result<Calendar, StoreError> {
    on_db(db, calendar_of)
}

/// Gaming day `date`'s report from the records, players named by `names`.
pub fn day_in(db: &Db, date: Date, names: &dyn Fn(PlayerId) -> Option<String>) -> Result<DayReport, StoreError> {
    on_db(db, |c| {
        let (books, head) = fold_day(c, date, DayBooks::new)?;
        Ok(books.finish(head, names))
    })
}

/// Gaming day `date`'s ratings and surveillance report from the records
/// (`books::Ratings`): the same fold, pricing each wager from the cards its
/// table had shown.
pub fn ratings_in(db: &Db, date: Date, names: &dyn Fn(PlayerId) -> Option<String>) -> Result<Ratings, StoreError> {
    on_db(db, |c| {
        let (books, head) = fold_day(c, date, DayBooks::rating)?;
        Ok(books.ratings(&head, names))
    })
}

/// Every chain folded into books for `date`'s window (`make` chooses the
/// books), with the report's head.
fn fold_day(c: &dyn Chains, date: Date, make: fn((u64, u64)) -> DayBooks) -> Result<(DayBooks, DayReport), StoreError> {
    let head = books::head(&calendar_of(c)?, date);
    let mut b = make((head.from_ms, head.to_ms));
    c.each(CASINO_CHAIN, &mut |r| {
        if let Ok(Body { casino: Some(e), .. }) = Body::decode(&r.body) {
            b.casino_record(&e);
        }
    })?;
    for table in c.tables()? {
        c.each(table, &mut |r| {
            if let Ok(body) = Body::decode(&r.body) {
                b.table_record(table, &body);
            }
        })?;
    }
    Ok((b, head))
}

/// A saved report (`GET /api/reports/day`'s JSON) against the records: each
/// figure that differs, named (`books::differences`); empty if it agrees.
/// Players' names are not compared (they are the people file's).
pub fn check_report(db: &Db, saved: &DayReport) -> Result<Vec<String>, StoreError> {
    let date = match books::parse_date(&saved.date) {
        Ok(d) => d,
        Err(e) => return Ok(vec![format!("report.{e}")]),
    };
    let found = day_in(db, date, &|_| None)?;
    Ok(differences(saved, &found))
}
