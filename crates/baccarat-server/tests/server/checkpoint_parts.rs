//! Checkpoints in parts: written in parts and read only once complete, checked
//! a part at a time without the read model, streamed a part at a time as the
//! one sealed whole, and the checkpointer's gate freed after each one.

use baccarat_casino::casino::checkpoint;
use baccarat_core::store::Store;
use baccarat_core::TableId;
use baccarat_rules::Money;
use baccarat_server::serve::{open, write_checkpoint};

use super::checkpoint::{config, deposits, play};

/// A checkpoint larger than one part is written in parts and read back whole;
/// one cut short by a crash (never marked complete) is never read, and the next
/// checkpoint written removes it.
#[test]
fn a_checkpoint_is_written_in_parts_and_read_only_once_complete() {
    use baccarat_core::store::{History, SqliteStore, CHECKPOINT_PART_BYTES};
    let (_dir, cfg) = config("parts");
    let mut store = SqliteStore::open(&cfg.db).unwrap();
    let sealed = |at_ms: u64, len: usize| checkpoint::Sealed {
        at_ms,
        mark: baccarat_core::store::archive::Mark { at_ms, last_transfer: 0, heads: Default::default() },
        body: (0..len).map(|i| (i * 7 + at_ms as usize) as u8).collect(),
        sha256: format!("sha-{at_ms}"),
        signature: "sig".into(),
        public_key: "key".into(),
    };
    let big = sealed(1, CHECKPOINT_PART_BYTES * 2 + 12_345);
    store.write_checkpoint(&big).unwrap();
    let parts: i64 = store.connection().query_row("SELECT COUNT(*) FROM checkpoint_parts", [], |r| r.get(0)).unwrap();
    assert_eq!(parts, 3, "two whole parts and the rest");
    let read = store.latest_checkpoint().unwrap().unwrap();
    assert_eq!(read.body, big.body, "read back whole, in order");
    assert_eq!(read.sha256, "sha-1");

    // A crash part way through the next: its row and a part are there, but
    // it was never marked complete.
    let conn = store.connection();
    conn.execute(
        "INSERT INTO checkpoints (at_ms, body, sha256, signature, public_key, complete) VALUES (2, X'', 'sha-2', 's', 'k', 0)",
        [],
    )
    .unwrap();
    let cut = conn.last_insert_rowid();
    conn.execute("INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, 0, X'00')", [cut]).unwrap();
    assert_eq!(store.latest_checkpoint().unwrap().unwrap().sha256, "sha-1", "the incomplete one is not read");

    let small = sealed(3, 10);
    store.write_checkpoint(&small).unwrap();
    assert_eq!(store.latest_checkpoint().unwrap().unwrap().body, small.body);
    let left: i64 =
        store.connection().query_row("SELECT COUNT(*) FROM checkpoints WHERE complete = 0", [], |r| r.get(0)).unwrap();
    assert_eq!(left, 0, "the cut-short checkpoint is gone");
    let orphans: i64 = store
        .connection()
        .query_row(
            "SELECT COUNT(*) FROM checkpoint_parts WHERE checkpoint NOT IN (SELECT id FROM checkpoints)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(orphans, 0, "and so are its parts");
}

/// A check reads the latest checkpoint a part at a time, hashing every byte
/// (the read model too, which it skips rather than keeps), and gets what
/// `checkpoint::open` gets, less the read model: from small parts, from a
/// body partly in the row (older checkpoints) and partly in parts, and it
/// refuses a byte altered inside the skipped read model, or another key.
#[test]
fn a_check_reads_the_checkpoint_a_part_at_a_time_without_its_read_model() {
    use baccarat_casino::latest_without_read_model;
    let (_dir, cfg) = config("check-read");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 3, 0, true);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    let public = o.anchors.public_hex();
    let store = o.store;
    let stored = baccarat_core::store::History::latest_checkpoint(&store).unwrap().unwrap();
    let whole = checkpoint::open(&stored, &public).unwrap();
    assert!(whole.feed.as_ref().is_some_and(|f| !f.history.is_empty()), "the read model is in the checkpoint");
    let expected = serde_json::to_value(checkpoint::Checkpoint { feed: None, ..whole }).unwrap();
    let streamed = |public: &str| latest_without_read_model(&store, public).unwrap().expect("a checkpoint");

    let (id, got) = streamed(&public);
    assert_eq!(id, stored.id);
    assert_eq!(serde_json::to_value(got.unwrap()).unwrap(), expected, "one part");

    // The same body cut into parts of 997 bytes, then with its first 5,000
    // bytes in the row itself, as an older checkpoint keeps its body.
    let conn = store.sqlite().unwrap().connection();
    let body = stored.body.clone();
    let write_parts = |from: usize, size: usize| {
        conn.execute("DELETE FROM checkpoint_parts WHERE checkpoint = ?1", [id]).unwrap();
        conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![&body[..from], id]).unwrap();
        for (n, part) in body[from..].chunks(size).enumerate() {
            conn.execute(
                "INSERT INTO checkpoint_parts (checkpoint, n, data) VALUES (?1, ?2, ?3)",
                rusqlite::params![id, n as i64, part],
            )
            .unwrap();
        }
    };
    write_parts(0, 997);
    let parts: i64 = conn.query_row("SELECT COUNT(*) FROM checkpoint_parts", [], |r| r.get(0)).unwrap();
    assert!(parts > 20, "{parts} parts");
    assert_eq!(serde_json::to_value(streamed(&public).1.unwrap()).unwrap(), expected, "many parts");
    write_parts(5_000, 997);
    assert_eq!(serde_json::to_value(streamed(&public).1.unwrap()).unwrap(), expected, "the row's body, then parts");

    // One byte altered inside the read model, which the parser skips.
    let text = String::from_utf8(body.clone()).unwrap();
    let at = text.find("\"history\"").expect("the read model's history") + 40;
    let mut altered = body.clone();
    altered[at] = if altered[at] == b'1' { b'2' } else { b'1' };
    conn.execute("DELETE FROM checkpoint_parts WHERE checkpoint = ?1", [id]).unwrap();
    conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![altered, id]).unwrap();
    let why = streamed(&public).1.unwrap_err().to_string();
    assert!(why.contains("SHA-256"), "{why}");
    // And a body that no longer parses is named as altered too.
    conn.execute("UPDATE checkpoints SET body = ?1 WHERE id = ?2", rusqlite::params![&body[..body.len() / 2], id])
        .unwrap();
    let why = streamed(&public).1.unwrap_err().to_string();
    assert!(why.contains("SHA-256"), "{why}");
    let why = streamed(&"ab".repeat(32)).1.unwrap_err().to_string();
    assert!(why.contains("signed by key"), "{why}");
}

/// The checkpointer streams a checkpoint into the store a part at a time,
/// hashing as it goes, so the body is never whole in memory: what it stores
/// is, byte for byte, the checkpoint sealed whole (the same hash and
/// signature), in parts, and it opens to the same state. A part the store
/// refuses stops it with the store's own error, and leaves no complete
/// checkpoint behind.
#[test]
fn a_checkpoint_streamed_a_part_at_a_time_is_the_one_sealed_whole() {
    use baccarat_core::ledger::{Cause, Transfer, TransferKind};
    use baccarat_core::store::{History, CHECKPOINT_PART_BYTES};
    let (_dir, cfg) = config("streamed");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 1, 0, false);
    let mut cp = o.casino.checkpoint();
    cp.feed = Some(o.feed.state());
    // Bulk it past two parts (only its bytes matter here).
    cp.pending.extend((0..40_000u64).map(|i| {
        std::sync::Arc::new(Transfer {
            id: baccarat_core::ledger::TransferId(1_000_000 + i),
            debit: baccarat_core::ledger::AccountId(1),
            credit: baccarat_core::ledger::AccountId(2),
            amount: Money(100),
            kind: TransferKind::Pending,
            memo: format!("table 1 wager {i}"),
            cause: Cause::Wager { table: TableId(1), wager: baccarat_table::WagerId(i) },
        })
    }));
    let key = baccarat_core::anchor::AnchorKey::load(&baccarat_core::anchor::default_paths(&cfg.db).1).unwrap();
    let whole = checkpoint::seal_with(&cp, &key);
    let parts = whole.body.len().div_ceil(CHECKPOINT_PART_BYTES);
    assert!(parts >= 3, "{} bytes", whole.body.len());

    checkpoint::write_streamed(&mut o.store, &cp, &key).unwrap();
    let read = o.store.latest_checkpoint().unwrap().unwrap();
    assert_eq!((read.sha256.as_str(), read.signature.as_str()), (whole.sha256.as_str(), whole.signature.as_str()));
    assert!(read.body == whole.body, "the same bytes");
    assert_eq!(checkpoint::open(&read, &key.public_hex()).unwrap(), cp);
    let conn = rusqlite::Connection::open(&cfg.db).unwrap();
    let stored: i64 =
        conn.query_row("SELECT COUNT(*) FROM checkpoint_parts WHERE checkpoint = ?1", [read.id], |r| r.get(0)).unwrap();
    assert_eq!(stored as usize, parts);

    // The store refuses the second part of the next one.
    conn.execute_batch(
        "CREATE TRIGGER full BEFORE INSERT ON checkpoint_parts WHEN NEW.n = 1 BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    )
    .unwrap();
    cp.at_ms += 1;
    let err = checkpoint::write_streamed(&mut o.store, &cp, &key).unwrap_err();
    assert!(err.to_string().contains("disk full"), "{err}");
    assert_eq!(o.store.latest_checkpoint().unwrap().unwrap().id, read.id, "the last complete one is still the latest");
}

/// The background checkpointer frees the writer's gate (`checkpoint::Busy`)
/// once each checkpoint is written, and also when one fails: a gate left shut
/// would stop every later checkpoint, silently. One is not written when the
/// anchor file cannot be made durable first.
#[test]
fn the_checkpointer_frees_the_gate_after_each_checkpoint_written_or_failed() {
    use baccarat_core::store::History;
    let (_dir, cfg) = config("gate");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    let busy = o.casino.checkpointer_busy.clone();
    let key_path = baccarat_core::anchor::default_paths(&cfg.db).1;
    let cp = baccarat_cluster::start_checkpointer(
        &cfg.database(),
        baccarat_core::anchor::AnchorKey::load(&key_path).unwrap(),
        &cfg.anchor_paths().0,
        None,
        busy.clone(),
    )
    .unwrap();
    let wait_free = |what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while busy.get() {
            assert!(std::time::Instant::now() < deadline, "the gate stayed shut after {what}");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    };
    let before = o.store.latest_checkpoint().unwrap().map(|c| c.id);
    busy.set(true);
    let mut taken = o.casino.checkpoint();
    taken.feed = Some(o.feed.state());
    cp.offer(Box::new(taken.clone()));
    wait_free("a checkpoint written");
    let written = o.store.latest_checkpoint().unwrap().expect("written").id;
    assert!(Some(written) > before, "a new checkpoint: {written} after {before:?}");

    // The store refuses every part: the checkpoint fails, the gate opens.
    let conn = rusqlite::Connection::open(&cfg.db).unwrap();
    conn.execute_batch(
        "CREATE TRIGGER full BEFORE INSERT ON checkpoint_parts BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    )
    .unwrap();
    busy.set(true);
    cp.offer(Box::new(taken.clone()));
    wait_free("a checkpoint that failed");
    assert_eq!(o.store.latest_checkpoint().unwrap().unwrap().id, written, "the failed one is not the latest");

    // The anchor file cannot be made durable first: no checkpoint keeps a
    // mark of lines a power cut could take back (`checkpoint::sync_anchors`).
    conn.execute_batch("DROP TRIGGER full").unwrap();
    let gone = cfg.db.with_extension("gone");
    let cp = baccarat_cluster::start_checkpointer(
        &cfg.database(),
        baccarat_core::anchor::AnchorKey::load(&key_path).unwrap(),
        &gone,
        None,
        busy.clone(),
    )
    .unwrap();
    busy.set(true);
    cp.offer(Box::new(taken));
    wait_free("a checkpoint whose anchor file could not be synced");
    assert_eq!(o.store.latest_checkpoint().unwrap().unwrap().id, written, "not written");
}

/// A start that had no usable checkpoint serves first and writes its own in
/// the background: the checkpoint that then appears is whole, signed with the
/// anchor key, and describes the casino as the start recovered it (every
/// chain's head and every balance), not some later state.
#[tokio::test]
async fn serve_writes_the_starts_checkpoint_in_the_background() {
    use baccarat_core::store::{History, SqliteStore};
    use std::time::Duration;
    let (_dir, cfg) = config("start-in-background");
    let (public, heads, balances) = {
        // The first run makes the demo casino and no checkpoint.
        let mut o = open(&cfg).unwrap();
        deposits(&mut o);
        play(&mut o, 2, 0, false);
        let heads: Vec<(TableId, u64, String)> =
            o.casino.tables.values().map(|t| (t.id, t.chain.len(), t.chain.head())).collect();
        let balances: Vec<(u64, i64)> = o.casino.ledger.accounts().map(|a| (a.id.0, a.balance)).collect();
        (o.anchors.public_hex(), heads, balances)
    };
    let store = SqliteStore::open(&cfg.db).unwrap();
    assert!(store.latest_checkpoint_seal().unwrap().is_none(), "none before the start");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/api/tables", listener.local_addr().unwrap());
    tokio::spawn(baccarat_server::serve::run(cfg.clone(), listener));
    let client = reqwest::Client::new();
    let mut serving = false;
    for _ in 0..3000 {
        if client.get(&url).send().await.is_ok_and(|r| r.status().is_success()) {
            serving = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(serving, "the server serves");
    let mut stored = None;
    for _ in 0..3000 {
        stored = store.latest_checkpoint().unwrap();
        if stored.is_some() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let cp = checkpoint::open(&stored.expect("the start's checkpoint is written"), &public).unwrap();
    let cp_heads: Vec<(TableId, u64, String)> =
        cp.tables.iter().map(|t| (t.id, t.chain.len, t.chain.head.clone())).collect();
    assert_eq!(cp_heads, heads, "each chain as the start recovered it");
    let cp_balances: Vec<(u64, i64)> = cp.accounts.iter().map(|a| (a.id.0, a.balance)).collect();
    assert_eq!(cp_balances, balances);
}
