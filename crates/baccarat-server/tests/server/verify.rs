//! `verify` passes on an honest database and finds every kind of tampering: a
//! broken chain, and — even with the chain recomputed — a changed card or payout.

use baccarat_casino::casino::{Casino, Mode, Request};
use baccarat_core::audit::Chain;
use baccarat_core::store::{Commit, Snapshot, SqliteStore, Store};
use baccarat_core::trust::Actor;
use baccarat_core::TableId;
use baccarat_rules::{Bet, Money};
use baccarat_server::verify::verify;
use baccarat_table::PlayerId;
use baccarat_table::{Command, Phase, Spot};

use super::common::TempDir;

fn played() -> Snapshot {
    let mut store = SqliteStore::memory().unwrap();
    play(&mut store);
    store.load().unwrap()
}

/// One RNG table, 20 coups of five wagers by four players, committed to `store`.
fn play(store: &mut SqliteStore) {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "AU", "au-casino", "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n", Mode::Rng, Money(10_000_000), &mut commit).unwrap();
    for p in 1..=4 {
        c.handle(
            Request::Deposit { player: PlayerId(p), amount: Money(1_000_000), key: "in".parse().unwrap() },
            &mut commit,
        );
    }
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    for coup in 0..20 {
        c.handle(
            Request::Table {
                table: TableId(1),
                command: Command::OpenBetting { no_bet: false, closes_at: None },
                by: Actor::Server,
            },
            &mut commit,
        );
        for p in 1..=4u32 {
            let bet = [Bet::Banker, Bet::Player, Bet::Tie, Bet::Banker][p as usize - 1];
            c.handle(
                Request::Wager {
                    table: TableId(1),
                    player: PlayerId(p),
                    spot: Spot::Box(p as u8),
                    bet,
                    amount: Money(2000),
                    key: format!("{coup}-{p}").parse().unwrap(),
                    ante: Money::ZERO,
                },
                &mut commit,
            );
        }
        c.handle(
            Request::Wager {
                table: TableId(1),
                player: PlayerId(4),
                spot: Spot::Box(4),
                bet: Bet::DragonBonusBanker,
                amount: Money(1000),
                key: format!("{coup}-d").parse().unwrap(),
                ante: Money::ZERO,
            },
            &mut commit,
        );
        c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, &mut commit);
        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
            c.handle(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server }, &mut commit);
        }
    }
    store.commit(&commit).unwrap();
}

/// Rewrite table 1's chain after `edit` changes a body, as a forger would.
fn forge(snap: &mut Snapshot, edit: impl Fn(&str) -> Option<String>) {
    let mut chain = Chain::new();
    let mut changed = false;
    for (_, r) in snap.records.iter_mut().filter(|(t, _)| *t == TableId(1)) {
        let body = if changed {
            r.body.clone()
        } else {
            edit(&r.body).inspect(|_| changed = true).unwrap_or_else(|| r.body.clone())
        };
        *r = chain.append(body);
    }
    assert!(changed, "the forgery found something to change");
}

#[test]
fn an_honest_database_verifies() {
    let f = verify(&played());
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.tables, f.shoes, f.coups), (1, 1, 20));
    assert_eq!(f.settlements, 100);
}

#[test]
fn a_broken_chain_is_found() {
    let mut s = played();
    let i = s.records.iter().position(|(t, r)| *t == TableId(1) && r.seq == 6).unwrap();
    s.records[i].1.body = s.records[i].1.body.replace("\"event\"", "\"event\" ");
    let f = verify(&s);
    assert!(f.problems.iter().any(|p| p.contains("audit chain broken at record 6")), "{:?}", f.problems);
}

#[test]
fn a_recomputed_chain_still_cannot_hide_a_changed_payout_or_card() {
    let mut s = played();
    forge(&mut s, |b| b.contains("\"won\":2000").then(|| b.replacen("\"won\":2000", "\"won\":9000", 1)));
    let f = verify(&s);
    assert!(f.problems.iter().any(|p| p.contains("settlement")), "{:?}", f.problems);

    let mut s = played();
    forge(&mut s, |b| {
        if !b.contains("card_dealt") {
            return None;
        }
        let v: serde_json::Value = serde_json::from_str(b).unwrap();
        let card = v["event"]["card"].as_str().unwrap().to_string();
        let other = if card == "AS" { "KD" } else { "AS" };
        Some(b.replacen(&format!("\"card\":\"{card}\""), &format!("\"card\":\"{other}\""), 1))
    });
    let f = verify(&s);
    assert!(f.problems.iter().any(|p| p.contains("where the shuffled shoe holds")), "{:?}", f.problems);
}

#[test]
fn a_ledger_that_does_not_balance_is_found() {
    let mut s = played();
    s.accounts[1].balance += 100;
    let f = verify(&s);
    assert!(f.problems.iter().any(|p| p.starts_with("ledger")), "{:?}", f.problems);
}

/// A wager recorded as accepted after its coup's recorded close is found, even
/// with the chain recomputed (here the forger moved the deadline before the
/// wagers' recorded times).
#[test]
fn a_wager_accepted_after_the_close_is_found() {
    let mut s = played();
    forge(&mut s, |b| {
        b.contains("betting_opened").then(|| b.replacen("\"rule\":null", "\"rule\":null,\"closes_at\":10", 1))
    });
    let f = verify(&s);
    assert!(f.problems.iter().any(|p| p.contains("after betting closed")), "{:?}", f.problems);
}

/// A database file in a directory of its own (removed on drop, unless the test failed).
struct File {
    _dir: TempDir,
    db: std::path::PathBuf,
}

impl File {
    fn played() -> File {
        let mut r = [0u8; 8];
        getrandom::fill(&mut r).unwrap();
        let name: String = r.iter().map(|b| format!("{b:02x}")).collect();
        let dir = TempDir::new(&format!("baccarat-verify-{name}"));
        let db = dir.join("casino.db");
        play(&mut SqliteStore::open(&db).unwrap());
        File { _dir: dir, db }
    }

    /// The file as a forger opens it, its logs unpacked into rows
    /// (`store::logs::unpack`) so that each forgery is plain SQL.
    fn sql(&self) -> rusqlite::Connection {
        let c = rusqlite::Connection::open(&self.db).unwrap();
        baccarat_core::store::logs::unpack(&c).unwrap();
        c
    }
}

/// Every account's balance set to the sum of its transfers, and its holds to
/// its open pending transfers (the forger's tidying, as in `forgery.rs`).
fn rebalance(c: &rusqlite::Connection) {
    c.execute_batch(
        r#"UPDATE accounts SET
             balance = (SELECT coalesce(sum(CASE WHEN t.credit = accounts.id THEN t.amount ELSE -t.amount END), 0)
                        FROM transfers t
                        WHERE (t.credit = accounts.id OR t.debit = accounts.id)
                          AND (t.kind = '"posted"' OR t.kind LIKE '{"post_of":%')),
             held = (SELECT coalesce(sum(t.amount), 0) FROM transfers t
                     WHERE t.debit = accounts.id AND t.kind = '"pending"'
                       AND NOT EXISTS (SELECT 1 FROM transfers c
                                       WHERE c.kind IN ('{"post_of":' || t.id || '}', '{"void_of":' || t.id || '}')));"#,
    )
    .unwrap();
}

fn one<T: rusqlite::types::FromSql>(c: &rusqlite::Connection, sql: &str) -> T {
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Streaming `verify` over a file names exactly these differences, in this
/// order, and nothing else: a transfer with no cause, two postings of one
/// settlement swapped (the same money, in another order: a digest of the
/// transfers as a set would miss it; the postings are compared in order), a
/// hold whose idempotency answer is gone, and the missing anchor file. The
/// same database held in memory as a snapshot verifies alike.
#[test]
fn streaming_verify_names_exactly_the_differences_and_agrees_with_the_snapshot() {
    let file = File::played();
    let (honest, _) = baccarat_server::verify::verify_file(&file.db, None, None).unwrap();
    let no_anchors = format!("anchors: no anchor file at {}.anchors", file.db.display());
    assert_eq!(honest.problems, vec![no_anchors.clone()]);
    assert_eq!((honest.tables, honest.shoes, honest.coups, honest.settlements), (1, 1, 20, 100));
    let c = file.sql();
    // A payment from the cage with no cause, the balances made to match.
    let cage: i64 = one(&c, r#"SELECT id FROM accounts WHERE kind = '{"kind":"cage"}'"#);
    let wallet: i64 = one(&c, r#"SELECT id FROM accounts WHERE kind = '{"kind":"wallet","player":1}'"#);
    let forged: i64 = one(&c, "SELECT max(id) + 1 FROM transfers");
    c.execute(
        r#"INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
           VALUES (?1, ?2, ?3, 5000000, '"posted"', 'chips', '')"#,
        [forged, cage, wallet],
    )
    .unwrap();
    // A winning wager's stake returned (from escrow) and its winnings (from
    // the house) swapped: the same amount, so nothing but their order moves.
    let (a, b, cause): (i64, i64, String) = c
        .query_row(
            r#"SELECT s.id, w.id, s.cause FROM transfers s JOIN transfers w
                 ON w.cause = s.cause AND w.id = s.id + 1 AND w.amount = s.amount AND w.debit <> s.debit
               WHERE s.kind = '"posted"' AND w.kind = '"posted"' AND s.cause LIKE 'wager:%'
               ORDER BY s.id LIMIT 1"#,
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let row = |id: i64| -> (i64, i64, i64) {
        c.query_row("SELECT debit, credit, amount FROM transfers WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
    };
    let (ra, rb) = (row(a), row(b));
    c.execute_batch(&format!(
        "UPDATE transfers SET id = -1 WHERE id = {a}; UPDATE transfers SET id = {a} WHERE id = {b};
         UPDATE transfers SET id = {b} WHERE id = -1;"
    ))
    .unwrap();
    // A hold's idempotency answer deleted.
    let hold: i64 = one(&c, r#"SELECT min(id) FROM transfers WHERE kind = '"pending"'"#);
    assert_eq!(c.execute("DELETE FROM answer_log WHERE answer = ?1", [format!("{{\"Ok\":[{hold}]}}")]).unwrap(), 1);
    rebalance(&c);
    drop(c);

    let (f, _) = baccarat_server::verify::verify_file(&file.db, None, None).unwrap();
    let money = |n: i64| Money(n).to_string();
    let wager = cause.rsplit(':').next().unwrap();
    let expected = vec![
        format!("ledger: transfer {forged} ({} from account {cage} to {wallet}) has no cause", money(5_000_000)),
        format!(
            "ledger: table 1 wager {wager} does not match its audit event: transfer {a} is Posted {} from {} to {}; \
             the record calls for Posted {} from {} to {}",
            money(rb.2),
            rb.0,
            rb.1,
            money(ra.2),
            ra.0,
            ra.1
        ),
        format!("ledger: 1 keyed transfers have no idempotency answer (deleted?): {hold}"),
        no_anchors,
    ];
    assert_eq!(f.problems, expected);
    assert_eq!(f.transfers, honest.transfers + 1);
    assert_eq!(f.answers, honest.answers - 1);

    // The same database as a snapshot in memory: the same findings (but the
    // anchor file, which a snapshot has none of).
    let snap = SqliteStore::open(&file.db).unwrap().load().unwrap();
    let from_memory = verify(&snap);
    assert_eq!(from_memory.problems, f.problems[..3].to_vec());
    assert_eq!(
        (from_memory.records, from_memory.transfers, from_memory.answers, from_memory.settlements),
        (f.records, f.transfers, f.answers, f.settlements)
    );
}

/// `verify` opens the file read-only: it changes nothing, not even the schema
/// version, and a database too old to read is refused by name.
#[test]
fn verify_changes_nothing_in_the_file() {
    let file = File::played();
    let before = std::fs::read(&file.db).unwrap();
    baccarat_server::verify::verify_file(&file.db, None, None).unwrap();
    assert_eq!(std::fs::read(&file.db).unwrap(), before);
    file.sql().pragma_update(None, "user_version", 5).unwrap();
    let e = baccarat_server::verify::verify_file(&file.db, None, None).unwrap_err().to_string();
    assert!(e.contains("schema version 5"), "{e}");
}
