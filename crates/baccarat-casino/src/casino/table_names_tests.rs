//! Unique table names (`table_names.rs`): a create under a name taken
//! answers that table when it asks for the same one, and writes nothing;
//! another definition is refused naming each difference; two creates of one
//! name racing through the writer make one table.

use baccarat_core::{TableId, UserId};
use std::sync::{Arc, Mutex};

use super::{Actor, Casino, Code, Mode, Reply, Request};
use crate::store::{Commit, SqliteStore, TableRow};
use crate::trust::Role;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

fn create(name: &str, config: &str, mode: Mode) -> Request {
    Request::CreateTable { name: name.into(), rulebook: "nsw-2021".into(), config: config.into(), mode, float: None }
}

/// A casino with table 1, "Salon 9", made by the request the API sends.
fn salon() -> Casino {
    let mut c = Casino::new();
    let r = c.handle(create("Salon 9", CONFIG, Mode::Rng), &mut Commit::default());
    assert_eq!(r, Reply::Table { table: TableId(1) });
    c
}

/// The refusal's message, if it is one of `code`.
fn refused(r: &Reply, code: Code) -> &str {
    match r {
        Reply::Refused { code: c, message, .. } if *c == code => message,
        other => panic!("not refused as {code:?}: {other:?}"),
    }
}

#[test]
fn the_same_table_asked_again_is_answered_and_nothing_is_written() {
    let mut c = salon();
    // Another case and spaces around; the same configuration written
    // otherwise (a comment, its lines in another order, a default spelt out).
    let same = "# the salon\nmax = 100000\nrulebook = \"nsw-2021\"\nmin = 1000\nchip = 100\n";
    for (name, config) in [("Salon 9", CONFIG), ("  salon 9 ", CONFIG), ("SALON 9", same)] {
        let mut commit = Commit::default();
        let r = c.handle(create(name, config, Mode::Rng), &mut commit);
        assert_eq!(r, Reply::ExistingTable { table: TableId(1) }, "{name:?}");
        assert!(commit.records.is_empty() && commit.ledger.is_empty() && commit.tables.is_empty(), "{name:?}");
    }
    assert_eq!(c.tables.len(), 1);
    assert_eq!(c.table_named(" SALON 9").map(|t| t.id), Some(TableId(1)));
    // The API's answer is the usual one: `{"result":"table","table":1}`.
    assert_eq!(serde_json::to_value(Reply::Table { table: TableId(1) }).unwrap()["result"], "table");
}

#[test]
fn a_new_name_is_stored_trimmed() {
    let mut c = Casino::new();
    let r = c.handle(create("  Salon 10  ", CONFIG, Mode::Live), &mut Commit::default());
    assert_eq!(r, Reply::Table { table: TableId(1) });
    assert_eq!(c.tables[&TableId(1)].name, "Salon 10");
}

#[test]
fn another_definition_under_a_taken_name_is_refused_naming_each_difference() {
    let mut c = salon();
    let cases = [
        (CONFIG.replace("max = 100000", "max = 300000"), Mode::Rng, vec!["max: 100000 here, 300000 asked"]),
        (CONFIG.to_string(), Mode::Live, vec!["mode: rng here, live asked"]),
        (
            CONFIG.replace("min = 1000", "min = 2000").replace("chip = 100", "chip = 500"),
            Mode::Rng,
            vec!["chip: 100 here, 500 asked", "min: 1000 here, 2000 asked"],
        ),
        (format!("{CONFIG}[bets.tie]\nmax = 20000\n"), Mode::Rng, vec!["bets.tie.max: 100000 here, 20000 asked"]),
        (format!("{CONFIG}decks = 6\n"), Mode::Rng, vec!["decks: 8 here, 6 asked"]),
    ];
    for (config, mode, words) in cases {
        let mut commit = Commit::default();
        let r = c.handle(create("salon 9", &config, mode), &mut commit);
        let m = refused(&r, Code::TableExists);
        assert!(m.starts_with("name: table 1 is called \"Salon 9\" already"), "{m}");
        for w in words {
            assert!(m.contains(w), "{m:?} does not say {w:?}");
        }
        assert!(commit.records.is_empty() && commit.ledger.is_empty() && commit.tables.is_empty(), "{m}");
    }
    // Another rulebook is named as such.
    let au = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"8_to_1\"\n";
    let r = c.handle(
        Request::CreateTable {
            name: "Salon 9".into(),
            rulebook: "au-casino".into(),
            config: au.into(),
            mode: Mode::Rng,
            float: None,
        },
        &mut Commit::default(),
    );
    assert!(refused(&r, Code::TableExists).contains("rulebook: nsw-2021 here, au-casino asked"), "{r:?}");
    assert_eq!(c.tables.len(), 1);
}

#[test]
fn a_definition_that_makes_no_table_is_refused_as_one_even_under_a_taken_name() {
    let mut c = salon();
    let r = c.handle(
        create("Salon 9", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\n", Mode::Rng),
        &mut Commit::default(),
    );
    refused(&r, Code::Config);
    assert_eq!(c.tables.len(), 1);
}

#[test]
fn the_differences_are_named_field_by_field_from_the_parsed_configurations() {
    let parse = |t: &str| super::setup("nsw-2021", t).unwrap().0.config;
    let here = parse(CONFIG);
    assert!(super::table_names::differences(&here, &parse(CONFIG)).is_empty());
    let d = super::table_names::differences(&here, &parse(&CONFIG.replace("max = 100000", "max = 500000")));
    assert_eq!(d, ["max: 100000 here, 500000 asked"], "an offer following the table's maximum is not said again");
}

#[test]
fn a_closed_tables_name_is_not_reused() {
    let mut c = salon();
    let admin = Actor::Person { user: UserId(7), role: Role::Admin };
    let r = c.handle(Request::CloseTable { table: TableId(1), by: admin }, &mut Commit::default());
    assert!(matches!(r, Reply::TableClosed { closed: true, .. }), "{r:?}");
    for mode in [Mode::Rng, Mode::Live] {
        let mut commit = Commit::default();
        let r = c.handle(create("Salon 9", CONFIG, mode), &mut commit);
        let m = refused(&r, Code::TableExists);
        assert!(m.contains("closed for good") && m.contains("not reused"), "{m}");
        assert!(commit.records.is_empty());
    }
    // Another name makes a new table.
    assert_eq!(
        c.handle(create("Salon 11", CONFIG, Mode::Rng), &mut Commit::default()),
        Reply::Table { table: TableId(2) }
    );
}

/// Two creates of one name sent at once through the writer: one table is
/// made, and both are answered with it.
#[test]
fn two_creates_of_one_name_racing_make_one_table() {
    let tables: Arc<Mutex<Vec<TableRow>>> = Arc::default();
    let seen = tables.clone();
    let (writer, handle) = crate::writer::Writer::start(
        Casino::new(),
        SqliteStore::memory().unwrap(),
        None,
        |_, _| (),
        move |(), commit, _| {
            seen.lock().unwrap().extend(commit.tables);
            None
        },
        baccarat_core::Fatal::standing_by(),
    );
    let (tx, rx) = std::sync::mpsc::channel();
    let senders: Vec<_> = (0..8)
        .map(|i| {
            let (writer, tx) = (writer.clone(), tx.clone());
            std::thread::spawn(move || {
                let name = if i % 2 == 0 { "Salon 9" } else { " salon 9" };
                writer.send(create(name, CONFIG, Mode::Rng), move |r| tx.send(r).unwrap()).unwrap();
            })
        })
        .collect();
    senders.into_iter().for_each(|s| s.join().unwrap());
    let replies: Vec<Reply> = (0..8).map(|_| rx.recv().unwrap()).collect();
    drop(writer);
    handle.join().unwrap();
    let made: Vec<&Reply> = replies.iter().filter(|r| matches!(r, Reply::Table { .. })).collect();
    assert_eq!(made, [&Reply::Table { table: TableId(1) }], "{replies:?}");
    assert_eq!(replies.iter().filter(|r| **r == Reply::ExistingTable { table: TableId(1) }).count(), 7, "{replies:?}");
    let rows = tables.lock().unwrap();
    assert_eq!(rows.len(), 1, "one table row written: {rows:?}");
    assert_eq!(rows[0].id, TableId(1));
    assert!(["Salon 9", "salon 9"].contains(&rows[0].name.as_str()), "{rows:?}");
}

/// The next table's number is one past the highest; past `u32::MAX` there
/// is none, and the create is refused by name rather than wrapping to 0 (the
/// casino's own chain) or panicking.
#[test]
fn a_table_past_the_last_number_is_refused() {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(
        TableId::MAX,
        "Last",
        "nsw-2021",
        CONFIG,
        Mode::Rng,
        baccarat_rules::Money(100_000_000),
        &mut commit,
    )
    .unwrap();
    let mut commit = Commit::default();
    let r = c.handle(create("One more", CONFIG, Mode::Rng), &mut commit);
    assert!(refused(&r, Code::Config).contains("no table number is left"), "{r:?}");
    assert!(commit.records.is_empty() && commit.tables.is_empty(), "nothing written");
    assert_eq!(c.tables.len(), 1);
}
