//! `verify` catches what a forger with write access to the database can do.
//!
//! One database is made by a real run: `serve::open` creates the demo casino,
//! its key and its anchor file, then coups are played on tables 1 and 2 and
//! every batch is committed and anchored exactly as the server's writer and
//! committer do. Each test forges a copy of it with SQL, as an attacker with
//! the file would, and checks that `verify_file` names the forgery. The last
//! tests document what the anchors cannot catch: a forger who also truncates
//! the anchor file (keep a copy of it elsewhere), or who only appends.

use baccarat_core::TableId;
use baccarat_table::PlayerId;
use std::path::PathBuf;
use std::sync::OnceLock;

use baccarat_casino::casino::{Reply, Request, SlipLine};
use baccarat_core::audit::Chain;
use baccarat_core::store::{Commit, Store};
use baccarat_core::trust::Actor;
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{heads_of, open, Opened, ServeConfig};
use baccarat_server::verify::verify_file;
use baccarat_table::{Command, Phase, Spot};
use rusqlite::{params, Connection};

use super::common::TempDir;

/// The files an honest run left, kept in memory; each test forges a copy.
struct Honest {
    db: Vec<u8>,
    anchors: Vec<u8>,
    key: Vec<u8>,
    /// Lines of the anchor file before table 1's last coup began.
    lines_before_last_coup: usize,
    /// Two demo players' ids (from the `users` table).
    players: [u32; 2],
}

/// A fresh directory under the system temp dir, removed when the test passes.
fn scratch(what: &str) -> TempDir {
    TempDir::new(&format!("baccarat-forgery-{}-{what}-{}", std::process::id(), baccarat_server::auth::random_hex(4)))
}

fn cfg(db: PathBuf) -> ServeConfig {
    ServeConfig {
        founding: baccarat_core::audit::Founding::Demo,
        ..ServeConfig::new(db, "127.0.0.1:0".parse().unwrap())
    }
}

/// One batch, as the writer and its committer handle it: the requests, one
/// commit, then the committed chains' heads signed into the anchor file.
fn step(o: &mut Opened, requests: Vec<Request>) -> Vec<Reply> {
    let mut commit = Commit::default();
    let replies = requests.into_iter().map(|r| o.casino.handle(r, &mut commit)).collect();
    o.store.commit(&commit).unwrap();
    o.anchors.append(&heads_of(&commit)).unwrap();
    replies
}

fn command(table: TableId, command: Command) -> Request {
    Request::Table { table, command, by: Actor::Server }
}

/// A complete coup on an RNG table with a Banker and a Player wager.
fn coup(o: &mut Opened, table: TableId, n: usize, [p1, p2]: [u32; 2]) {
    step(o, vec![command(table, Command::OpenBetting { no_bet: false, closes_at: None })]);
    let wager = |player: u32, bx: u8, bet: Bet, amount: i64| Request::Wager {
        table,
        player: PlayerId(player),
        spot: Spot::Box(bx),
        bet,
        amount: Money(amount),
        key: format!("t{table}-c{n}-{player}").parse().unwrap(),
        ante: Money::ZERO,
    };
    for r in step(o, vec![wager(p1, 1, Bet::Banker, 2000), wager(p2, 2, Bet::Player, 5000)]) {
        assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    }
    step(o, vec![command(table, Command::CloseBetting)]);
    while matches!(o.casino.phase(table), Some(Phase::Closed | Phase::Dealing)) {
        step(o, vec![command(table, Command::DealNext)]);
    }
    assert_eq!(o.casino.phase(table), Some(Phase::Ready));
}

/// A coup on `table` with one 3-line bet slip, under key `slip`: Banker and
/// Player placed, and a Tie beyond the wallet refused (mask `0b011`).
fn slip_coup(o: &mut Opened, table: TableId, player: u32) {
    step(o, vec![command(table, Command::OpenBetting { no_bet: false, closes_at: None })]);
    let line = |bet: Bet, amount: i64| SlipLine { spot: Spot::Box(1), bet, amount: Money(amount), ante: Money::ZERO };
    let slip = vec![line(Bet::Banker, 2000), line(Bet::Player, 3000), line(Bet::Tie, 90_000_000)];
    let r = step(o, vec![Request::Wagers { table, player: PlayerId(player), slip, key: "slip".parse().unwrap() }]);
    let Reply::Wagers { results, .. } = &r[0] else { panic!("{r:?}") };
    assert!(matches!(results[..], [Reply::Wager { .. }, Reply::Wager { .. }, Reply::Refused { .. }]), "{results:?}");
    step(o, vec![command(table, Command::CloseBetting)]);
    while matches!(o.casino.phase(table), Some(Phase::Closed | Phase::Dealing)) {
        step(o, vec![command(table, Command::DealNext)]);
    }
}

fn honest() -> &'static Honest {
    static HONEST: OnceLock<Honest> = OnceLock::new();
    HONEST.get_or_init(|| {
        let dir = scratch("honest");
        let db = dir.join("casino.db");
        let mut o = open(&cfg(db.clone())).unwrap();
        let users = Connection::open(&db).unwrap();
        let id = |name: &str| -> u32 {
            users.query_row("SELECT id FROM users WHERE name = ?1", [name], |r| r.get(0)).unwrap()
        };
        let players = [id("player1"), id("player2")];
        drop(users);
        for table in [1, 2].map(TableId) {
            assert!(matches!(step(&mut o, vec![Request::NewShoe { table }])[0], Reply::Events { .. }));
        }
        for n in 0..3 {
            coup(&mut o, TableId(1), n, players);
            coup(&mut o, TableId(2), n, players);
        }
        slip_coup(&mut o, TableId(2), players[0]);
        let anchors = baccarat_core::anchor::default_paths(&db).0;
        let lines_before_last_coup = std::fs::read_to_string(anchors).unwrap().lines().count();
        coup(&mut o, TableId(1), 3, players);
        o.store.sqlite().unwrap().connection().query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())).unwrap();
        drop(o);
        let read = |p: PathBuf| std::fs::read(p).unwrap();
        let (anchor_path, key_path) = baccarat_core::anchor::default_paths(&db);
        Honest {
            db: read(db.clone()),
            anchors: read(anchor_path),
            key: read(key_path),
            lines_before_last_coup,
            players,
        }
    })
}

/// A copy of the honest database, its anchor file and its key, in a directory
/// of its own (removed on drop, unless the test failed).
struct Forged {
    dir: TempDir,
    db: PathBuf,
}

impl Forged {
    fn new() -> Forged {
        let h = honest();
        let dir = scratch("copy");
        let db = dir.join("casino.db");
        let (anchors, key) = baccarat_core::anchor::default_paths(&db);
        std::fs::write(&db, &h.db).unwrap();
        std::fs::write(anchors, &h.anchors).unwrap();
        std::fs::write(&key, &h.key).unwrap();
        // Private, as the server keeps it: a key others can read is refused.
        std::fs::set_permissions(&key, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
        Forged { dir, db }
    }

    /// The file, open as a forger opens it, its logs unpacked into a row
    /// per record and per transfer (`store::logs::unpack`), so each forgery
    /// is plain SQL: `verify` reads the same history either way.
    fn sql(&self) -> Connection {
        let c = Connection::open(&self.db).unwrap();
        baccarat_core::store::logs::unpack(&c).unwrap();
        c
    }

    fn anchors(&self) -> PathBuf {
        baccarat_core::anchor::default_paths(&self.db).0
    }

    /// What `verify` finds, the anchor file read from beside the database.
    fn problems(&self) -> Vec<String> {
        let (f, public) = verify_file(&self.db, None, None).unwrap();
        assert!(public.is_some(), "the anchor file was read");
        f.problems
    }
}

/// Assert some problem names the forgery.
#[track_caller]
fn caught(problems: &[String], what: &str) {
    assert!(problems.iter().any(|p| p.contains(what)), "no problem says {what:?}: {problems:#?}");
}

/// The forger's tidying: every account's balance set to the sum of its
/// transfers and its holds to its open pending transfers, so that the ledger
/// sums to zero and each balance equals its transfers again.
fn rebalance(c: &Connection) {
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

fn last_seq(c: &Connection, table: TableId) -> u64 {
    c.query_row("SELECT max(seq) FROM audit WHERE tbl = ?1", [table], |r| r.get(0)).unwrap()
}

/// A table's record bodies, in order.
fn bodies(c: &Connection, table: TableId) -> Vec<String> {
    let mut q = c.prepare("SELECT body FROM audit WHERE tbl = ?1 ORDER BY seq").unwrap();
    let rows = q.query_map([table], |r| r.get(0)).unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

/// Replace a table's chain by `bodies`, every link and hash recomputed.
fn rechain(c: &Connection, table: TableId, bodies: Vec<String>) {
    c.execute("DELETE FROM audit WHERE tbl = ?1", [table]).unwrap();
    let mut chain = Chain::new();
    for body in bodies {
        let r = chain.append(body);
        c.execute(
            "INSERT INTO audit (tbl, seq, prev, body, hash) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![table, r.seq as i64, r.prev, r.body, r.hash],
        )
        .unwrap();
    }
}

/// Delete table 1's last coup as a careful forger would: its records from its
/// `betting_opened` on, the transfers its wagers caused, the balances made to
/// match, and (if `answers`) the idempotency answers of its holds. Returns the
/// number of transfers deleted.
fn delete_last_coup(c: &Connection, answers: bool) -> usize {
    let from: u64 = c
        .query_row(r#"SELECT max(seq) FROM audit WHERE tbl = 1 AND body LIKE '%"event":"betting_opened"%'"#, [], |r| {
            r.get(0)
        })
        .unwrap();
    let wagers: Vec<u64> = bodies(c, TableId(1))
        .iter()
        .skip(from as usize - 1)
        .filter_map(|b| {
            let v: serde_json::Value = serde_json::from_str(b).unwrap();
            (v["event"]["event"] == "wager_placed").then(|| v["event"]["wager"]["id"].as_u64().unwrap())
        })
        .collect();
    assert_eq!(wagers.len(), 2, "the last coup's two wagers");
    c.execute("DELETE FROM audit WHERE tbl = 1 AND seq >= ?1", [from]).unwrap();
    let mut deleted = 0;
    for w in wagers {
        let cause = format!("wager:1:{w}");
        if answers {
            let holds: Vec<u64> = {
                let mut q = c.prepare(r#"SELECT id FROM transfers WHERE cause = ?1 AND kind = '"pending"'"#).unwrap();
                let rows = q.query_map([&cause], |r| r.get(0)).unwrap();
                rows.collect::<Result<_, _>>().unwrap()
            };
            for h in holds {
                assert_eq!(
                    c.execute("DELETE FROM answer_log WHERE answer = ?1", [format!("{{\"Ok\":[{h}]}}")]).unwrap(),
                    1
                );
            }
        }
        deleted += c.execute("DELETE FROM transfers WHERE cause = ?1", [&cause]).unwrap();
    }
    rebalance(c);
    deleted
}

/// Cut the anchor file back to its first `keep` lines.
fn truncate_anchors(copy: &Forged, keep: usize) {
    let text = std::fs::read_to_string(copy.anchors()).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(keep < lines.len());
    std::fs::write(copy.anchors(), lines[..keep].iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
}

#[test]
fn an_honest_run_verifies_clean() {
    let copy = Forged::new();
    let (f, _) = verify_file(&copy.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:#?}", f.problems);
    assert!(f.unanchored.is_empty(), "every record of an honest run is anchored: {:?}", f.unanchored);
    assert_eq!((f.tables, f.shoes, f.coups, f.settlements), (5, 2, 8, 16));
    // The forger's rebalancing changes nothing on an honest ledger.
    rebalance(&copy.sql());
    assert!(copy.problems().is_empty());
}

#[test]
fn deleting_the_last_record_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    let n = c.execute("DELETE FROM audit WHERE tbl = 1 AND seq = (SELECT max(seq) FROM audit WHERE tbl = 1)", []);
    assert_eq!(n.unwrap(), 1);
    drop(c);
    let p = copy.problems();
    caught(&p, "table 1: the anchor file signed");
    caught(&p, "(its tail was cut)");
}

#[test]
fn deleting_the_last_coup_with_its_transfers_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    assert!(delete_last_coup(&c, false) >= 4, "two holds and their settlements");
    drop(c);
    let p = copy.problems();
    caught(&p, "table 1: the anchor file signed");
    caught(&p, "(its tail was cut)");
}

#[test]
fn deleting_a_tables_chain_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    assert!(c.execute("DELETE FROM audit WHERE tbl = 2", []).unwrap() > 0);
    drop(c);
    let p = copy.problems();
    caught(&p, "table 2: the anchor file signed");
    caught(&p, "the chain has 0 (its tail was cut)");
    caught(&p, "table 2: its chain records no configuration");
    caught(&p, "names table 2's float but no audit event explains it");
    caught(&p, "names table 2 wager 0 but no audit event explains it");
}

#[test]
fn deleting_a_table_and_its_chain_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    assert!(c.execute("DELETE FROM audit WHERE tbl = 2", []).unwrap() > 0);
    assert_eq!(c.execute("DELETE FROM tables WHERE id = 2", []).unwrap(), 1);
    drop(c);
    let p = copy.problems();
    caught(&p, "table 2: the anchor file signed");
    caught(&p, "the database has no such table (deleted)");
    caught(&p, "names table 2's float but no audit event explains it");
}

/// A packed block's LEB128 length and LZ4 data (`store/blocks.rs`, version 2),
/// unpacked as a forger would: the format is public.
fn unpack_block(data: &[u8]) -> Vec<u8> {
    assert_eq!(data[0], 2, "blocks are written packed");
    let (mut n, mut at) = (0usize, 1);
    while data[at] & 0x80 != 0 {
        n |= usize::from(data[at] & 0x7f) << (7 * (at - 1));
        at += 1;
    }
    n |= usize::from(data[at]) << (7 * (at - 1));
    lz4_flex::block::decompress(&data[at + 1..], n).unwrap()
}

/// Packed again, as the server packs it.
fn pack_block(body: &[u8]) -> Vec<u8> {
    let mut out = vec![2u8];
    let mut n = body.len();
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
    out.extend_from_slice(&lz4_flex::block::compress(body));
    out
}

/// The logs as the server writes them, a batch's records of a chain in one
/// row (`store/blocks.rs`), packed: unpacked, forged and packed again, a
/// stake changed inside a block is named at its record, as in a row of its
/// own; written back unpacked (version 1, which is still read), the same;
/// and a block cut short stops `verify` with an error naming the block.
#[test]
fn a_block_forged_in_place_is_caught() {
    for repack in [true, false] {
        a_block_forged(repack);
    }
}

fn a_block_forged(repack: bool) {
    let copy = Forged::new();
    let c = Connection::open(&copy.db).unwrap();
    let blocks: Vec<(i64, i64, Vec<u8>)> = c
        .prepare("SELECT rowid, first, data FROM audit_blocks WHERE tbl = 1 ORDER BY last")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let (rowid, first, mut data) = blocks
        .into_iter()
        .map(|(rowid, first, data)| (rowid, first, unpack_block(&data)))
        .find(|(_, _, data)| data.windows(8).any(|w| w == b"\"stake\":"))
        .unwrap();
    let at = data.windows(8).position(|w| w == b"\"stake\":").unwrap() + 8;
    assert!(data[at].is_ascii_digit() && data[at] != b'9');
    data[at] += 1;
    let forged = if repack { pack_block(&data) } else { [&[1u8][..], &data].concat() };
    c.execute("UPDATE audit_blocks SET data = ?1 WHERE rowid = ?2", params![forged, rowid]).unwrap();
    drop(c);
    let p = copy.problems();
    caught(&p, "table 1: audit chain broken at record");
    caught(&p, "its hash does not match its contents (altered)");
    let records = baccarat_core::store::read_records(&copy.db, TableId(1), 1).unwrap();
    let altered =
        records.iter().find(|r| r.seq >= first as u64 && r.body.as_bytes().windows(8).any(|w| w == b"\"stake\":"));
    assert!(altered.is_some(), "the block still reads, altered");

    let c = Connection::open(&copy.db).unwrap();
    c.execute("UPDATE audit_blocks SET data = substr(data, 1, length(data) - 3) WHERE rowid = ?1", [rowid]).unwrap();
    drop(c);
    let e = verify_file(&copy.db, None, None).unwrap_err().to_string();
    assert!(e.contains(&format!("audit block {first}..=")) && e.contains("of chain 1"), "{e}");
}

#[test]
fn swapping_two_records_and_rehashing_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    // Two wagers placed one after the other: nothing but the order changes, so
    // the rules and the ledger have nothing to object to; only the anchor can.
    let mut b = bodies(&c, TableId(1));
    let placed = |s: &String| s.contains(r#""event":"wager_placed""#);
    let i = (0..b.len() - 1).find(|&i| placed(&b[i]) && placed(&b[i + 1])).unwrap();
    b.swap(i, i + 1);
    rechain(&c, TableId(1), b);
    drop(c);
    let p = copy.problems();
    caught(&p, "table 1: record");
    caught(&p, "is not the one the anchor file signed (the chain was rewritten)");
    assert_eq!(p.len(), 1, "the anchor alone catches a reordering: {p:#?}");
}

#[test]
fn a_forged_payment_from_the_cage_is_caught() {
    for (cause, what) in [
        ("", "has no cause"),
        ("deposit:999", "names the deposit of the casino's chain record 999 but no audit event explains it"),
        // A real deposit's cause (record 1 is the casino's founding, the
        // demo's first deposit record 2): that deposit now has two transfers.
        ("deposit:2", "the deposit of the casino's chain record 2 does not match its audit event"),
    ] {
        let copy = Forged::new();
        let c = copy.sql();
        let kind =
            |k: &str| -> u64 { c.query_row("SELECT id FROM accounts WHERE kind = ?1", [k], |r| r.get(0)).unwrap() };
        let cage = kind(r#"{"kind":"cage"}"#);
        let wallet = kind(&format!(r#"{{"kind":"wallet","player":{}}}"#, honest().players[0]));
        c.execute(
            r#"INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
               VALUES ((SELECT max(id) + 1 FROM transfers), ?1, ?2, 5000000, '"posted"', 'chips', ?3)"#,
            params![cage as i64, wallet as i64, cause],
        )
        .unwrap();
        rebalance(&c);
        drop(c);
        let p = copy.problems();
        assert!(!p.iter().any(|p| p.starts_with("ledger: ledger")), "the balances were made to match: {p:#?}");
        caught(&p, what);
    }
}

#[test]
fn a_raised_payout_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    let id: u64 = c
        .query_row(
            r#"SELECT t.id FROM transfers t JOIN accounts h ON h.id = t.debit JOIN accounts w ON w.id = t.credit
               WHERE t.kind = '"posted"' AND h.kind LIKE '{"kind":"house",%' AND w.kind LIKE '{"kind":"wallet",%'
               ORDER BY t.id LIMIT 1"#,
            [],
            |r| r.get(0),
        )
        .unwrap();
    c.execute("UPDATE transfers SET amount = amount + 100000 WHERE id = ?1", [id as i64]).unwrap();
    rebalance(&c);
    drop(c);
    let p = copy.problems();
    assert!(!p.iter().any(|p| p.starts_with("ledger: ledger")), "the balances were made to match: {p:#?}");
    caught(&p, "does not match its audit event");
    caught(&p, &format!("transfer {id} is Posted"));
}

#[test]
fn an_edited_configuration_is_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    let n = c.execute("UPDATE tables SET config = replace(config, 'max = 500000', 'max = 900000') WHERE id = 1", []);
    assert_eq!(n.unwrap(), 1);
    drop(c);
    let p = copy.problems();
    caught(&p, "table 1: its definition in the database is not the one its chain recorded");
    caught(&p, "(configuration changed outside the server)");
}

#[test]
fn deleted_idempotency_answers_are_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    assert!(c.execute("DELETE FROM answer_log", []).unwrap() > 0);
    drop(c);
    let p = copy.problems();
    caught(&p, "keyed transfers have no idempotency answer (deleted?)");
}

/// A slip's one answer says which lines were placed and the wager the first
/// became (`Cause::Slip`); a retry is told that alone. A forger who edits it
/// (another first wager, another table, more or fewer lines) is caught by
/// its holds, which the chain explains (`slip_answers.rs`).
#[test]
fn a_forged_slip_answer_is_caught() {
    let slip = |c: &Connection| -> String {
        c.query_row("SELECT cause FROM answer_log WHERE cause LIKE 'slip:%'", [], |r| r.get(0)).unwrap()
    };
    let cause = slip(&Forged::new().sql());
    let [_, table, first, mask] = cause.split(':').collect::<Vec<_>>()[..] else { panic!("{cause}") };
    assert_eq!((table, mask), ("2", "3"), "{cause}");
    let first: u64 = first.parse().unwrap();
    for (forged, what) in [
        (format!("slip:2:{}:3", first + 1), format!("as the hold of wager:2:{}", first + 1)),
        (format!("slip:1:{first}:3"), format!("as the hold of wager:1:{first}")),
        (format!("slip:2:{first}:7"), "says 3 lines were placed (slip:2:".to_string()),
        (format!("slip:2:{first}:1"), "says 1 lines were placed".to_string()),
    ] {
        let copy = Forged::new();
        let c = copy.sql();
        assert_eq!(c.execute("UPDATE answer_log SET cause = ?1 WHERE cause = ?2", [&forged, &cause]).unwrap(), 1);
        drop(c);
        caught(&copy.problems(), &what);
    }
    // The answer moved to another player's key.
    let copy = Forged::new();
    let c = copy.sql();
    let other = honest().players[1];
    let n = c.execute("UPDATE answer_log SET key = 'wager:' || ?1 || ':slip' WHERE cause = ?2", params![other, cause]);
    assert_eq!(n.unwrap(), 1);
    drop(c);
    caught(&copy.problems(), &format!("from player {other}'s wallet, but it is a pending transfer"));
}

/// The server will not serve a table whose chain falls short of its anchor,
/// and serves the others.
#[test]
fn a_cut_table_is_not_served() {
    let copy = Forged::new();
    let c = copy.sql();
    c.execute("DELETE FROM audit WHERE tbl = 1 AND seq = (SELECT max(seq) FROM audit WHERE tbl = 1)", []).unwrap();
    drop(c);
    let o = open(&cfg(copy.db.clone())).unwrap();
    assert_eq!(o.casino.tables.keys().copied().collect::<Vec<_>>(), [2, 3, 4, 5].map(TableId));
}

/// Cut table 1's chain back by its last `n` records, and the anchor file by
/// its last line. The last anchor line signed the last batch (the coup's last
/// card: the card, the result, both wagers' settlements and the coup's close);
/// the line before it ends where that batch began, so the anchor check passes
/// as long as no more than that batch is cut.
fn cut_within_the_last_batch(copy: &Forged, n: usize) -> Vec<String> {
    let c = copy.sql();
    let b = bodies(&c, TableId(1));
    let last = last_seq(&c, TableId(1));
    c.execute("DELETE FROM audit WHERE tbl = 1 AND seq > ?1", [last - n as u64]).unwrap();
    drop(c);
    let lines = std::fs::read_to_string(copy.anchors()).unwrap().lines().count();
    truncate_anchors(copy, lines - 1);
    b[b.len() - n..].to_vec()
}

/// Cutting records that carry money within the last batch, and the anchor
/// file's last line: the anchor check passes, but the reconciliation does not,
/// since the settlements cut are still posted in the ledger.
#[test]
fn cutting_a_settlement_and_the_last_anchor_line_is_caught_by_the_ledger() {
    let copy = Forged::new();
    let cut = cut_within_the_last_batch(&copy, 2);
    assert!(cut[0].contains(r#""event":"wager_settled""#), "{cut:#?}");
    let p = copy.problems();
    assert!(!p.iter().any(|p| p.contains("anchor")), "the anchor check passes: {p:#?}");
    caught(&p, "does not match its audit event: 1 transfers expected");
}

/// LIMITATION (anchor.rs: "that the file is complete"). Cutting the chain's
/// last record (the coup's close, which moves no money) and the anchor file's
/// last line is not caught: the chain still reaches the head the anchor file
/// now ends with, and the ledger has nothing the log does not explain. It looks
/// like a server that crashed before it closed the coup. Only an anchor file
/// (or its last line) kept elsewhere catches it.
#[test]
fn limitation_cutting_the_last_record_and_the_last_anchor_line_is_not_caught() {
    let copy = Forged::new();
    let cut = cut_within_the_last_batch(&copy, 1);
    assert!(cut[0].contains(r#""event":"coup_closed""#), "{cut:#?}");
    let p = copy.problems();
    assert!(p.is_empty(), "this forgery is now caught; update the test and anchor.rs: {p:#?}");
    let kept = copy.dir.join("kept.anchors");
    std::fs::write(&kept, &honest().anchors).unwrap();
    let (f, _) = verify_file(&copy.db, Some(&kept), None).unwrap();
    caught(&f.problems, "(its tail was cut)");
}

/// LIMITATION (anchor.rs: "that the file is complete"). A forger who deletes
/// table 1's last coup — records, transfers, its holds' idempotency answers,
/// balances made to match — and cuts the anchor file back to the line before
/// that coup leaves a database that looks like a server that stopped there:
/// every chain reaches its last anchored head, and the ledger and the log agree.
/// `verify` cannot catch this from the files alone; it is caught only if the
/// anchor file (or its last line) is also kept elsewhere, out of the forger's
/// reach, and verified against (here: the original anchor file).
#[test]
fn limitation_a_cut_coup_with_a_cut_anchor_file_is_not_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    delete_last_coup(&c, true);
    drop(c);
    truncate_anchors(&copy, honest().lines_before_last_coup);
    let p = copy.problems();
    assert!(p.is_empty(), "this forgery is now caught; update the test and anchor.rs: {p:#?}");
    // The anchor file kept elsewhere catches it.
    let kept = copy.dir.join("kept.anchors");
    std::fs::write(&kept, &honest().anchors).unwrap();
    let (f, _) = verify_file(&copy.db, Some(&kept), None).unwrap();
    caught(&f.problems, "(its tail was cut)");
}

/// LIMITATION: anchors may lag the database (a crash between a commit and its
/// anchor line), so records past a chain's last anchored head are accepted.
/// A forger can therefore *append*: here a deposit record on the casino's
/// chain, its transfer from the cage, its idempotency answer, and the balances
/// made to match. Every check agrees with the forged record, so `verify` finds
/// nothing — and an anchor file kept elsewhere does not help either, since the
/// forged record lies past every head it signed. A server stopped cleanly
/// leaves no record unanchored, so `verify` lists records past the last
/// anchored head for the inspector (`unanchored`): the forgery is not a
/// difference, but it is in plain view, and stays so after a restart has
/// signed it (the start names it in the casino's chain first).
#[test]
fn limitation_a_deposit_appended_past_the_last_anchor_is_not_caught() {
    let copy = Forged::new();
    let c = copy.sql();
    let player = honest().players[0];
    let mut b = bodies(&c, TableId(0));
    let seq = b.len() as u64 + 1;
    let event = baccarat_core::audit::CasinoEvent::Deposit {
        player: PlayerId(player),
        amount: Money(5_000_000),
        key: "f".into(),
        at_ms: None,
    };
    b.push(baccarat_core::audit::Body::encode_casino(TableId(0), None, &event));
    rechain(&c, TableId(0), b);
    let kind = |k: &str| -> u64 { c.query_row("SELECT id FROM accounts WHERE kind = ?1", [k], |r| r.get(0)).unwrap() };
    let (cage, wallet) = (kind(r#"{"kind":"cage"}"#), kind(&format!(r#"{{"kind":"wallet","player":{player}}}"#)));
    let id: u64 = c.query_row("SELECT max(id) + 1 FROM transfers", [], |r| r.get(0)).unwrap();
    c.execute(
        r#"INSERT INTO transfers (id, debit, credit, amount, kind, memo, cause)
           VALUES (?1, ?2, ?3, 5000000, '"posted"', 'chips', ?4)"#,
        params![id as i64, cage as i64, wallet as i64, format!("deposit:{seq}")],
    )
    .unwrap();
    c.execute(
        "INSERT INTO answer_log (key, digest, answer) VALUES (?1, ?2, ?3)",
        params![format!("deposit:{player}:f"), vec![0u8; 32], format!("{{\"Ok\":[{id}]}}")],
    )
    .unwrap();
    rebalance(&c);
    drop(c);
    let p = copy.problems();
    assert!(p.is_empty(), "this forgery is now caught; update the test: {p:#?}");
    let (f, _) = verify_file(&copy.db, None, None).unwrap();
    assert_eq!(f.unanchored.len(), 1, "{:?}", f.unanchored);
    let past = format!("the casino's chain: records {seq} to {seq}");
    assert!(f.unanchored[0].starts_with(&format!("{past} are past the last head")), "{:?}", f.unanchored);
    // A restart signs every chain as it stands, the forged record with it;
    // it names what it found unanchored in the casino's chain first, so the
    // record stays in plain view (it dropped out of `unanchored` before).
    drop(open(&cfg(copy.db.clone())).unwrap());
    let (f, _) = verify_file(&copy.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.unanchored.len(), 1, "{:?}", f.unanchored);
    assert!(
        f.unanchored[0].starts_with(&format!(
            "{past} were past the last head the anchor file signed when the server started (the casino's record {})",
            seq + 1
        )),
        "{:?}",
        f.unanchored
    );
}

/// A forger who deletes table 1's last coup (records, transfers, answers,
/// balances made to match) and the anchor file, then waits for a restart:
/// the server used to begin a new anchor file with a warning, signing the
/// cut chains as if nothing had been there, and `verify` then passed. A
/// database that holds a casino with no anchor file (or an empty one) now
/// stops the start, naming it; an operator whose file is truly lost begins
/// a new one knowingly (`new_anchor_file`): it signs every chain's head as
/// the start found it, at once, after the casino's chain has named every
/// record as found unanchored (none was checked against a signature).
#[test]
fn a_deleted_anchor_file_stops_the_start_instead_of_laundering_a_cut() {
    let copy = Forged::new();
    let c = copy.sql();
    delete_last_coup(&c, true);
    drop(c);
    std::fs::remove_file(copy.anchors()).unwrap();
    let err = open(&cfg(copy.db.clone())).err().expect("refused").to_string();
    assert!(
        err.contains("casino.db.anchors: the anchor file is missing or empty") && err.contains("--new-anchor-file"),
        "{err}"
    );
    assert!(!copy.anchors().exists(), "no file begun");
    std::fs::write(copy.anchors(), "").unwrap();
    assert!(open(&cfg(copy.db.clone())).err().expect("refused").to_string().contains("missing or empty"));
    let knowingly = ServeConfig { new_anchor_file: true, ..cfg(copy.db.clone()) };
    let o = open(&knowingly).unwrap();
    let tables: Vec<TableId> = o.casino.tables.keys().copied().collect();
    drop(o);
    let (f, _) = verify_file(&copy.db, None, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!(f.unanchored.len(), tables.len() + 1, "{:?}", f.unanchored);
    assert!(f.unanchored.iter().all(|u| u.contains("records 1 to ") && u.contains("when the server started")));
    let anchored = baccarat_core::anchor::read(&copy.anchors(), None).unwrap();
    let mut want = vec![TableId(0)];
    want.extend(tables);
    assert_eq!(anchored.heads.keys().copied().collect::<Vec<_>>(), want);
}
