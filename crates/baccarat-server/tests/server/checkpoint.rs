//! Checkpoints: recovery from the latest one plus the tail equals the replay of
//! the whole history; a checkpoint that is corrupt, signed by another key, or
//! disagrees with the log is refused, named, and the whole history replayed;
//! and a start reads only the anchor lines after it. The helpers here are
//! shared by the other checkpoint files and by other areas.

use baccarat_core::TableId;
use std::collections::BTreeSet;

use baccarat_casino::casino::checkpoint;
use baccarat_casino::casino::{recover, Casino, Keys, Reply, Request};
use baccarat_casino::Feed;
use baccarat_core::store::{Commit, Store};
use baccarat_core::trust::Actor;
use baccarat_rules::{Bet, Money};
use baccarat_server::serve::{heads_of, open, write_checkpoint, Opened, ServeConfig};
use baccarat_table::{Command, Phase, PlayerId, Spot};
use serde_json::{json, Value};

use super::common::TempDir;

/// A config with a fresh database in a directory of its own: (the directory,
/// removed when the test passes; the config).
pub(super) fn config(name: &str) -> (TempDir, ServeConfig) {
    let dir = TempDir::new(&format!("baccarat-checkpoint-{}-{name}", std::process::id()));
    let cfg = ServeConfig {
        founding: baccarat_core::audit::Founding::Demo,
        ..ServeConfig::new(dir.join("casino.db"), "127.0.0.1:0".parse().unwrap())
    };
    (dir, cfg)
}

/// A config whose clock the test sets, starting at `t0`: (the directory, the
/// clock, the config).
pub(super) fn clocked(name: &str, t0: u64) -> (TempDir, std::sync::Arc<std::sync::atomic::AtomicU64>, ServeConfig) {
    use std::sync::atomic::{AtomicU64, Ordering};
    let now = std::sync::Arc::new(AtomicU64::new(t0));
    let n = now.clone();
    let (dir, mut cfg) = config(name);
    cfg.clock = std::sync::Arc::new(move || n.load(Ordering::SeqCst));
    (dir, now, cfg)
}

/// Apply one request as the server does: commit, anchor, fold into the feed.
pub(super) fn step(o: &mut Opened, r: Request) -> Reply {
    let mut commit = Commit::default();
    let reply = o.casino.handle(r, &mut commit);
    o.store.commit(&commit).unwrap();
    o.anchors.append(&heads_of(&commit)).unwrap();
    for (t, seq, e) in &commit.events {
        o.feed.absorb(*t, *seq, e);
    }
    reply
}

pub(super) fn server(table: TableId, command: Command) -> Request {
    Request::Table { table, command, by: Actor::Server }
}

/// Play `coups` coups at the RNG tables 1, 2 and 4, each with wagers from
/// players 100..105; `leave_open`: end with betting open and wagers held.
pub(super) fn play(o: &mut Opened, coups: usize, round: usize, leave_open: bool) {
    for c in 0..coups {
        for table in [1, 2, 4].map(TableId) {
            if matches!(o.casino.phase(table), Some(Phase::NoShoe | Phase::ShoeOver)) {
                step(o, Request::NewShoe { table });
            }
            step(o, server(table, Command::OpenBetting { no_bet: false, closes_at: None }));
            for p in 100..105u32 {
                let bet = [Bet::Banker, Bet::Player, Bet::Tie][(p as usize + c) % 3];
                let r = step(
                    o,
                    Request::Wager {
                        table,
                        player: PlayerId(p),
                        spot: Spot::Box((p - 99) as u8),
                        bet,
                        amount: Money(2000 * (p as i64 - 99)),
                        ante: Money::ZERO,
                        key: format!("r{round}c{c}t{table}p{p}").parse().unwrap(),
                    },
                );
                assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
            }
            if leave_open && c + 1 == coups {
                continue;
            }
            step(o, server(table, Command::CloseBetting));
            while matches!(o.casino.phase(table), Some(Phase::Closed | Phase::Dealing)) {
                step(o, server(table, Command::DealNext));
            }
        }
    }
}

/// Everything recovery must get right, as one value to compare.
pub(super) fn fingerprint(c: &Casino, feed: &Feed) -> Value {
    let tables: Vec<Value> = c
        .tables
        .values()
        .map(|t| {
            let (holds, liability) = t.open_wagers();
            json!({
                "id": t.id,
                "chain": [t.chain.len(), t.chain.head()],
                "engine": serde_json::to_value(t.engine.state()).unwrap(),
                "halted": t.halted,
                "commitment": t.commitment,
                "holds": format!("{holds:?}"),
                "liability": liability.0,
                "open": t.open,
                "closure": t.closure,
            })
        })
        .collect();
    json!({
        "accounts": serde_json::to_value(c.ledger.accounts().collect::<Vec<_>>()).unwrap(),
        "pending": serde_json::to_value(c.ledger.pending().collect::<Vec<_>>()).unwrap(),
        "transfers": c.ledger.transfer_count(),
        "answer_seq": c.ledger.keys.last_seq(),
        "casino_chain": [c.chain.len(), c.chain.head()],
        "self_limits": serde_json::to_value(c.self_limits.values().collect::<Vec<_>>()).unwrap(),
        "tables": tables,
        "feed": feed_value(feed),
    })
}

/// The read model, each player's history in (table, coup, wager) order: a
/// whole replay reads the chains table by table, so a player's lines from
/// several tables interleave otherwise than they were settled (coup_feed.rs).
fn feed_value(feed: &Feed) -> Value {
    let mut s = feed.state();
    for (_, h) in &mut s.history {
        h.sort_by_key(|l| (l.table, l.coup, l.line.wager));
    }
    serde_json::to_value(s).unwrap()
}

/// The first place two values differ, or None.
fn differ(a: &Value, b: &Value, at: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (u, v) = (x.get(k).unwrap_or(&Value::Null), y.get(k).unwrap_or(&Value::Null));
                if let Some(d) = differ(u, v, format!("{at}.{k}")) {
                    return Some(d);
                }
            }
            None
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (u, v))| differ(u, v, format!("{at}[{i}]")))
        }
        _ => (a != b).then(|| format!("{at}: {a} vs {b}")),
    }
}

pub(super) fn same(a: &Value, b: &Value, what: &str) {
    if let Some(d) = differ(a, b, String::new()) {
        panic!("{what}: {d}");
    }
}

pub(super) fn deposits(o: &mut Opened) {
    for p in 100..105u32 {
        step(
            o,
            Request::Deposit { player: PlayerId(p), amount: Money(10_000_000), key: format!("in{p}").parse().unwrap() },
        );
    }
}

#[test]
fn recovery_from_a_checkpoint_equals_the_whole_replay() {
    let (_dir, cfg) = config("equal");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 4, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    // The tail: more coups, a table made after the checkpoint, and a coup
    // left with its wagers held (a crash in betting).
    play(&mut o, 3, 1, false);
    let r = step(
        &mut o,
        Request::CreateTable {
            name: "Late".into(),
            rulebook: "nsw-2021".into(),
            config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n".into(),
            mode: baccarat_core::trust::Mode::Rng,
            float: None,
        },
    );
    assert!(matches!(r, Reply::Table { table: TableId(6) }), "{r:?}");
    play(&mut o, 1, 2, true);
    // The feed compared below carries the exposure monitor's cards shown.
    assert!(o.feed.shown.values().any(|s| s.shown().iter().sum::<u32>() > 0), "cards were shown");
    let live = fingerprint(&o.casino, &o.feed);
    let public = o.anchors.public_hex();
    let store = o.store;
    drop(o.casino);

    let stored = baccarat_core::store::History::latest_checkpoint(&store).unwrap().expect("a checkpoint");
    let cp = checkpoint::open(&stored, &public).unwrap();
    let none = BTreeSet::new();
    let from_cp = recover(&store, Some(cp), Keys::Since(0), &none).unwrap();
    let full = recover(&store, None, Keys::Since(0), &none).unwrap();
    assert!(from_cp.tail_records > 0 && from_cp.tail_records < full.tail_records);
    assert!(from_cp.tail_transfers < full.tail_transfers);
    let a = fingerprint(&from_cp.casino, &from_cp.feed);
    let b = fingerprint(&full.casino, &full.feed);
    same(&a, &b, "the checkpoint and its tail give what the whole history gives");
    same(&a, &live, "and what the server had in memory");
    // Both go on the same way: the open coup settles alike.
    let (mut x, mut y) = (from_cp.casino, full.casino);
    for c in [&mut x, &mut y] {
        let mut commit = Commit::default();
        c.handle(server(TableId(1), Command::CloseBetting), &mut commit);
        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
            c.handle(server(TableId(1), Command::DealNext), &mut commit);
        }
    }
    same(&fingerprint(&x, &Feed::default()), &fingerprint(&y, &Feed::default()), "the same coup settles alike");
}

/// The server's own start uses the checkpoint, and reads only the tail.
#[test]
fn a_start_reads_the_checkpoint_and_the_tail_only() {
    let (_dir, cfg) = config("start");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 3, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    let live = fingerprint(&o.casino, &o.feed);
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint, "{:?}", again.recovery);
    assert!(again.recovery.refused_checkpoint.is_none());
    // One coup at three tables: a few dozen records, not the history.
    assert!(again.recovery.tail_records > 0 && again.recovery.tail_records < 200, "{:?}", again.recovery);
    same(&fingerprint(&again.casino, &again.feed), &live, "the restarted casino");
}

/// Corrupt one byte of the checkpoint: it is named and not used, the whole
/// history is replayed, and the result is the same casino.
#[test]
fn a_corrupt_checkpoint_is_refused_and_the_history_replayed() {
    let (_dir, cfg) = config("corrupt");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    let live = fingerprint(&o.casino, &o.feed);
    // A forger raises a balance inside the checkpoint's body (its parts).
    let altered = o
        .store
        .sqlite()
        .unwrap()
        .connection()
        .execute(
            "UPDATE checkpoint_parts SET data = CAST(replace(CAST(data AS TEXT), '\"balance\":1', '\"balance\":9') AS BLOB)
             WHERE CAST(data AS TEXT) LIKE '%\"balance\":1%'",
            [],
        )
        .unwrap();
    assert!(altered > 0, "the forgery changed a part");
    drop(o);
    let again = open(&cfg).unwrap();
    assert!(!again.recovery.from_checkpoint);
    let why = again.recovery.refused_checkpoint.clone().unwrap();
    assert!(why.contains("SHA-256"), "{why}");
    same(&fingerprint(&again.casino, &again.feed), &live, "the restarted casino");
    // Having replayed the whole history, the start wrote a fresh checkpoint.
    drop(again);
    assert!(open(&cfg).unwrap().recovery.from_checkpoint);
}

/// A checkpoint rehashed and signed by another key is refused too.
#[test]
fn a_checkpoint_signed_by_another_key_is_refused() {
    let (_dir, cfg) = config("forged");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    let (_other_dir, other_cfg) = config("forged-other");
    let other = open(&other_cfg).unwrap();
    let mut cp = o.casino.checkpoint();
    cp.feed = Some(o.feed.state());
    o.store.write_checkpoint(&checkpoint::seal(&cp, &other.anchors)).unwrap();
    drop(o);
    let again = open(&cfg).unwrap();
    let why = again.recovery.refused_checkpoint.clone().unwrap();
    assert!(why.contains("not the server's"), "{why}");
}

/// A balance forged in the accounts table (with the cage adjusted so the sum
/// stays zero) disagrees with the checkpoint and its tail, and with the whole
/// history: the server refuses to start, naming the account.
#[test]
fn a_forged_balance_stops_the_start() {
    let (_dir, cfg) = config("balance");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let wallet = o.casino.ledger.find(&baccarat_core::ledger::AccountKind::Wallet { player: PlayerId(100) }).unwrap();
    let cage = o.casino.ledger.find(&baccarat_core::ledger::AccountKind::Cage).unwrap();
    let conn = o.store.sqlite().unwrap().connection();
    conn.execute("UPDATE accounts SET balance = balance + 500000 WHERE id = ?1", [wallet.0 as i64]).unwrap();
    conn.execute("UPDATE accounts SET balance = balance - 500000 WHERE id = ?1", [cage.0 as i64]).unwrap();
    drop(o);
    let err = open(&cfg).err().expect("refused").to_string();
    assert!(err.contains(&format!("account {wallet}")) || err.contains(&format!("account {cage}")), "{err}");
}

/// An older copy of the anchor file put back (or its last lines removed):
/// the checkpoint, signed, saw more lines than the file now has, so the start
/// is refused and `verify --since-checkpoint` names it. Without the check a
/// forger who also cut the database's tail to match went unseen.
#[test]
fn an_anchor_file_behind_the_checkpoints_mark_stops_the_start() {
    let (_dir, cfg) = config("anchor-behind");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let (anchor_path, _) = cfg.anchor_paths();
    let older = std::fs::read(&anchor_path).unwrap();
    play(&mut o, 1, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let seen = o.anchors.mark().seq;
    drop(o);
    let whole = std::fs::read(&anchor_path).unwrap();
    std::fs::write(&anchor_path, &older).unwrap();
    let lines = older.iter().filter(|&&b| b == b'\n').count();
    let err = open(&cfg).err().expect("refused").to_string();
    let why = format!("the anchor file has {lines} lines, but the latest checkpoint (signed) saw it at line {seen}");
    assert!(err.contains(&why), "{err}");
    let db = baccarat_core::store::Db::Sqlite(cfg.db.clone());
    let t = baccarat_server::verify::verify_since_checkpoint(&db, None, None).unwrap();
    assert!(t.problems.iter().any(|p| p.contains(&why)), "{:?}", t.problems);
    std::fs::write(&anchor_path, &whole).unwrap();
    assert!(open(&cfg).unwrap().recovery.from_checkpoint);
}

/// A start from a checkpoint verifies only the anchor lines written after it
/// (the checkpoint, signed, says where the file stood): the file grows with
/// every batch, and a start must not slow with its age. `verify` still reads
/// every line, so an old line altered is found there.
#[test]
fn a_start_from_a_checkpoint_reads_only_the_anchor_lines_after_it() {
    let (_dir, cfg) = config("anchor-mark");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    baccarat_server::serve::write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    drop(o);
    let (anchor_path, _) = cfg.anchor_paths();
    let text = std::fs::read_to_string(&anchor_path).unwrap();
    // Alter the first line that names a head (a forger's edit of old history,
    // same length; the file's first line is its carry line, naming none yet).
    assert!(text.starts_with("{\"seq\":1,") && text.lines().next().unwrap().contains("\"carry\":"));
    let at = text.find("\"len\":").unwrap() + 6;
    assert!(at < text.find("\"seq\":3,").unwrap(), "on line 2");
    let mut altered = text.clone().into_bytes();
    altered[at] = if altered[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&anchor_path, &altered).unwrap();
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint);
    drop(again);
    let (f, _) = baccarat_server::verify::verify_file(&cfg.db, None, None).unwrap();
    assert!(f.problems.iter().any(|p| p.contains("anchors")), "{:?}", f.problems);
    // Without a checkpoint the whole file is read, and the start refuses it.
    rusqlite::Connection::open(&cfg.db).unwrap().execute("DELETE FROM checkpoints", []).unwrap();
    assert!(open(&cfg).is_err());
}
