//! The PostgreSQL store against a real PostgreSQL, started by
//! `scripts/postgres.sh` (installed from Debian's packages if missing) in a
//! throwaway cluster on a Unix socket (`pg_cluster.rs`); each test
//! has a database of its own. `BACCARAT_TEST_PG` points the tests at another
//! server instead.
//!
//! The same commits go to SQLite and to PostgreSQL: every recovery read gives
//! the same answer from both, recovery from a checkpoint on PostgreSQL gives
//! the casino a whole replay gives, and the schema is partitioned by month.

use baccarat_core::TableId;
use std::collections::BTreeSet;

use baccarat_casino::casino::checkpoint;
use baccarat_casino::casino::{recover, Casino, Keys, Mode, Reply, Request};
use baccarat_casino::Feed;
use baccarat_cluster::pg_store::PgStore;
use baccarat_core::store::{Commit, History, SqliteStore, Store};
use baccarat_core::trust::Actor;
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, PlayerId, Spot};

use super::checkpoint::{fingerprint, same};

/// A new, empty database on the test cluster, named for the test.
pub fn database(name: &str) -> String {
    super::pg_cluster::database(&format!("t{}_{name}", std::process::id()))
}

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n";

/// A casino whose every commit goes to both stores.
pub(super) struct Both {
    pub(super) casino: Casino,
    pub(super) feed: Feed,
    pub(super) sqlite: SqliteStore,
    pub(super) pg: PgStore,
    /// The PostgreSQL database's URL.
    pub(super) url: String,
}

impl Both {
    fn step(&mut self, r: Request) -> Reply {
        let mut commit = Commit::default();
        let reply = self.casino.handle(r, &mut commit);
        self.apply(commit);
        reply
    }

    fn apply(&mut self, commit: Commit) {
        self.sqlite.commit(&commit).unwrap();
        self.pg.commit(&commit).unwrap();
        for (t, seq, e) in &commit.events {
            self.feed.absorb(*t, *seq, e);
        }
    }

    /// The casino's checkpoint now, sealed with a key of the test's own.
    pub(super) fn sealed(&self, name: &str) -> (checkpoint::Sealed, baccarat_core::anchor::AnchorKey) {
        let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("pg-{name}.key"));
        let key = baccarat_core::anchor::AnchorKey::load_or_create(&file).unwrap();
        let mut cp = self.casino.checkpoint();
        cp.feed = Some(self.feed.state());
        (checkpoint::seal_with(&cp, &key), key)
    }

    fn table(&mut self, command: Command) -> Reply {
        self.step(Request::Table { table: TableId(1), command, by: Actor::Server })
    }

    /// One coup at table 1 with a wager from each of players 1–3.
    pub(super) fn coup(&mut self, n: usize) {
        if matches!(self.casino.phase(TableId(1)), Some(Phase::NoShoe | Phase::ShoeOver)) {
            self.step(Request::NewShoe { table: TableId(1) });
        }
        self.table(Command::OpenBetting { no_bet: false, closes_at: None });
        for p in 1..=3u32 {
            let bet = [Bet::Banker, Bet::Player, Bet::PlayerPair][(p as usize + n) % 3];
            let r = self.step(Request::Wager {
                table: TableId(1),
                player: PlayerId(p),
                spot: Spot::Box(p as u8),
                bet,
                amount: Money(1000 * p as i64),
                key: format!("c{n}p{p}").parse().unwrap(),
                ante: Money::ZERO,
            });
            assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
        }
        self.table(Command::CloseBetting);
        while matches!(self.casino.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
            self.table(Command::DealNext);
        }
    }
}

pub(super) fn both(name: &str) -> Both {
    both_at(database(name))
}

/// [`both`] on the database (or partition) at `url`.
pub(super) fn both_at(url: String) -> Both {
    let mut b = Both {
        casino: Casino::new(),
        feed: Feed::default(),
        sqlite: SqliteStore::memory().unwrap(),
        pg: PgStore::connect(&url).unwrap(),
        url,
    };
    let mut commit = Commit::default();
    b.casino.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    b.apply(commit);
    for p in 1..=3 {
        b.step(Request::Deposit {
            player: PlayerId(p),
            amount: Money(100_000),
            key: format!("start{p}").parse().unwrap(),
        });
    }
    b
}

/// Every read recovery makes, from one store, as comparable values.
pub(super) fn reads(h: &dyn History) -> serde_json::Value {
    let mut transfers = Vec::new();
    h.each_transfer_after(0, &mut |t| {
        transfers.push(format!("{t:?}"));
        Ok(())
    })
    .unwrap();
    let mut chains = Vec::new();
    for table in [0, 1].map(TableId) {
        let mut records = Vec::new();
        h.each_record_after(table, 0, &mut |r| {
            records.push(format!("{r:?}"));
            Ok(())
        })
        .unwrap();
        chains.push(
            serde_json::json!({ "table": table, "records": records, "head": format!("{:?}", h.head(table).unwrap()) }),
        );
    }
    let answers: Vec<String> = h
        .answers_since(0)
        .unwrap()
        .into_iter()
        .map(|a| format!("{} {:x} {:?} {} {} {:?}", a.seq, a.key_id, a.request, a.answer, a.at_ms, a.cause))
        .collect();
    let checkpoint = h.latest_checkpoint().unwrap().map(|c| (c.body, c.sha256, c.signature, c.public_key));
    serde_json::json!({
        "tables": format!("{:?}", h.tables().unwrap()),
        "accounts": format!("{:?}", h.accounts().unwrap()),
        "transfers": transfers,
        "chains": chains,
        "answers": answers,
        "last_answer": h.last_answer().unwrap(),
        "last_transfer": h.last_transfer().unwrap(),
        "checkpoint": format!("{checkpoint:?}"),
    })
}

/// The same commits give the same reads from SQLite and from PostgreSQL,
/// checkpoint (in parts) included; and a retried wager's answer comes back
/// from either.
#[test]
fn the_same_commits_read_back_alike_from_sqlite_and_postgres() {
    let mut b = both("alike");
    for n in 0..3 {
        b.coup(n);
    }
    let (sealed, _) = b.sealed("alike");
    b.sqlite.write_checkpoint(&sealed).unwrap();
    b.pg.write_checkpoint(&sealed).unwrap();
    b.coup(3);
    let (s, p) = (reads(&b.sqlite), reads(&b.pg));
    same(&s, &p, "SQLite and PostgreSQL");
    assert!(s["transfers"].as_array().unwrap().len() > 12, "the coups moved money: {s}");
    assert!(s["answers"].as_array().unwrap().len() >= 15, "every wager and deposit answered");
    assert_ne!(s["checkpoint"], "None");
}

/// Two partitions of one database (each its own schema, `partition_url`)
/// are two casinos: the same table and player numbers in each, every read
/// of each back as its own commits made it, a lease of each, and nothing
/// in the database's own schema. A partition's name is checked.
#[test]
fn the_partitions_of_one_database_keep_apart() {
    use baccarat_cluster::pg_store::partition_url;
    let url = database("partitions");
    // The casino's own schema first, with its months: a partition's must
    // still be its own.
    let public = PgStore::connect(&url).unwrap();
    let mut east = both_at(partition_url(&url, "east").unwrap());
    let mut west = both_at(partition_url(&url, "west_2").unwrap());
    for n in 0..3 {
        east.coup(n);
    }
    west.coup(0);
    for (b, name) in [(&east, "east"), (&west, "west")] {
        same(&reads(&b.sqlite), &reads(&b.pg), name);
    }
    assert_ne!(reads(&east.pg)["chains"], reads(&west.pg)["chains"], "each its own chains");
    assert!(east.pg.take_casino("e", "http://e", 60_000).unwrap().is_ok());
    assert!(west.pg.take_casino("w", "http://w", 60_000).unwrap().is_ok(), "a lease of its own");
    for b in [&east, &west] {
        assert_eq!(b.pg.version().unwrap(), PgStore::SCHEMA_VERSION);
        assert!(b.pg.partitions("audit").unwrap().iter().any(|p| p.starts_with("audit_2")), "its own months");
    }
    assert_eq!(public.occupied().unwrap(), vec![], "nothing written outside the partitions");
    // People are the casino's: one made through a partition is known to the
    // other, under one id (a wallet at the bank is keyed by it).
    use baccarat_core::store::Db;
    use baccarat_server::auth::{Role, SessionPolicy, Users};
    let users = |u: &str| {
        Users::open_db(&Db::Postgres(u.to_string()), SessionPolicy::default(), baccarat_casino::casino::system_clock())
            .unwrap()
    };
    let made = users(&east.url).create("shared", Role::Player, "secret").unwrap();
    let (token, at_west) = users(&west.url).login("shared", "secret").unwrap();
    assert_eq!((at_west.user, users(&east.url).session(&token).unwrap().user), (made, made));
    assert_eq!(public.occupied().unwrap(), vec![("users", 1), ("sessions", 1)], "kept in the casino's own schema");
    assert!(public.partitions("audit").unwrap().iter().any(|p| p.starts_with("audit_2")), "its own months too");
    for bad in ["", "East", "1st", "a-b", "a b", &"x".repeat(41)] {
        let e = partition_url(&url, bad).unwrap_err().to_string();
        assert!(e.starts_with(&format!("partition {bad:?}")), "{e}");
    }
    assert!(partition_url(&format!("{url}?options=-c%20x%3Dy"), "east").unwrap_err().to_string().contains("options"));
}

/// Recovery from PostgreSQL, from the checkpoint plus its tail and from the
/// whole history, gives the casino that was in memory.
#[test]
fn recovery_from_postgres_equals_the_live_casino() {
    let mut b = both("recover");
    for n in 0..2 {
        b.coup(n);
    }
    let (sealed, key) = b.sealed("recover");
    b.pg.write_checkpoint(&sealed).unwrap();
    b.coup(2);
    // Leave a coup open, with wagers held.
    b.table(Command::OpenBetting { no_bet: false, closes_at: None });
    b.step(Request::Wager {
        table: TableId(1),
        player: PlayerId(2),
        spot: Spot::Box(2),
        bet: Bet::Banker,
        amount: Money(5000),
        key: "open".parse().unwrap(),
        ante: Money::ZERO,
    });
    let live = fingerprint(&b.casino, &b.feed);

    let stored = b.pg.latest_checkpoint().unwrap().expect("a checkpoint");
    let opened = checkpoint::open(&stored, &key.public_hex()).unwrap();
    let none = BTreeSet::new();
    let from_cp = recover(&b.pg, Some(opened), Keys::Since(0), &none).unwrap();
    let whole = recover(&b.pg, None, Keys::Since(0), &none).unwrap();
    assert!(from_cp.tail_records > 0 && from_cp.tail_records < whole.tail_records);
    same(&fingerprint(&from_cp.casino, &from_cp.feed), &live, "from the checkpoint");
    same(&fingerprint(&whole.casino, &whole.feed), &live, "from the whole history");
}

/// A forger who edits a checkpoint's part in PostgreSQL is caught by its hash.
#[test]
fn a_checkpoint_altered_in_postgres_is_refused() {
    let mut b = both("forged");
    b.coup(0);
    let (sealed, key) = b.sealed("forged");
    b.pg.write_checkpoint(&sealed).unwrap();
    let n = b.pg.with_client(|c| {
        c.execute(
            "UPDATE checkpoint_parts SET data = convert_to(replace(convert_from(data, 'UTF8'), '\"balance\":1', '\"balance\":9'), 'UTF8')
             WHERE convert_from(data, 'UTF8') LIKE '%\"balance\":1%'",
            &[],
        )
        .unwrap()
    });
    assert!(n > 0, "the forgery changed a part");
    let stored = b.pg.latest_checkpoint().unwrap().unwrap();
    let why = checkpoint::open(&stored, &key.public_hex()).unwrap_err().to_string();
    assert!(why.contains("SHA-256"), "{why}");
}

/// The logs are partitioned by month, around now, with a default partition;
/// migrations apply once, and a second store on the same database (another
/// server starting) finds the schema in place.
#[test]
fn the_logs_are_partitioned_by_month_and_migrations_apply_once() {
    let url = database("schema");
    let s = PgStore::connect(&url).unwrap();
    assert_eq!(s.version().unwrap(), PgStore::SCHEMA_VERSION);
    for t in ["transfers", "audit", "answer_log"] {
        let parts = s.partitions(t).unwrap();
        assert!(parts.contains(&format!("{t}_default")), "{parts:?}");
        assert!(parts.len() >= 5, "{t}: the default and four months: {parts:?}");
    }
    // 2031-06-15: its months are made when asked, once.
    s.ensure_months(1_939_248_000_000).unwrap();
    s.ensure_months(1_939_248_000_000).unwrap();
    let parts = s.partitions("audit").unwrap();
    for m in ["audit_2031_05", "audit_2031_06", "audit_2031_07", "audit_2031_08"] {
        assert!(parts.contains(&m.to_string()), "{m} in {parts:?}");
    }
    let again = PgStore::connect(&url).unwrap();
    assert_eq!(again.version().unwrap(), PgStore::SCHEMA_VERSION);
}

/// A partitioned table's keys include its month, so PostgreSQL alone would
/// take a chain's record 1 again in another month: the store refuses a
/// repeated or skipped record, and a batch out of order, whole; a record
/// altered in place is named by the chain's own check.
#[test]
fn a_chain_only_moves_forward_and_a_batch_is_all_or_nothing() {
    use baccarat_core::audit::{verify, Chain};
    use baccarat_core::store::StoreError;
    let mut store = PgStore::connect(&database("chain")).unwrap();
    let mut chain = Chain::new();
    let r1 = chain.append("{}".into());
    let one = |r: &baccarat_core::audit::Record| Commit { records: vec![(TableId(1), r.clone())], ..Commit::default() };
    store.commit(&one(&r1)).unwrap();
    let again = store.commit(&one(&r1)).unwrap_err();
    assert!(matches!(&again, StoreError::Corrupt(m) if m.contains("audit:1") && m.contains("its end (1)")), "{again}");
    let r2 = chain.append("{\"b\":1}".into());
    let r3 = chain.append("{\"c\":1}".into());
    let skipped = store.commit(&one(&r3)).unwrap_err();
    assert!(skipped.to_string().contains("rows 3 to 3"), "{skipped}");
    let backwards = Commit { records: vec![(TableId(1), r3.clone()), (TableId(1), r2.clone())], ..Commit::default() };
    assert!(store.commit(&backwards).unwrap_err().to_string().contains("record 2 follows record 3"));
    assert_eq!(store.head(TableId(1)).unwrap().unwrap().seq, 1, "nothing of the refused batches landed");
    store.commit(&Commit { records: vec![(TableId(1), r2), (TableId(1), r3)], ..Commit::default() }).unwrap();
    assert_eq!(store.head(TableId(1)).unwrap().unwrap().seq, 3);

    // Every log's end moves in one statement: a batch in which one chain
    // follows on and another skips its first record is refused whole, the
    // chain that followed on included; sent right, both move.
    let mut other = Chain::new();
    let (o1, o2) = (other.append("{}".into()), other.append("{\"o\":2}".into()));
    let r4 = chain.append("{\"d\":1}".into());
    let mixed = Commit { records: vec![(TableId(1), r4.clone()), (TableId(2), o2.clone())], ..Commit::default() };
    let refused = store.commit(&mixed).unwrap_err();
    assert!(refused.to_string().contains("audit:2: rows 2 to 2 do not follow its end (none)"), "{refused}");
    assert_eq!(store.head(TableId(1)).unwrap().unwrap().seq, 3, "chain 1 did not move with the refused batch");
    assert!(store.head(TableId(2)).unwrap().is_none());
    store
        .commit(&Commit { records: vec![(TableId(1), r4), (TableId(2), o1), (TableId(2), o2)], ..Commit::default() })
        .unwrap();
    assert_eq!((store.head(TableId(1)).unwrap().unwrap().seq, store.head(TableId(2)).unwrap().unwrap().seq), (4, 2));

    // A forger rewrites record 2 in place: the chain names it.
    store.with_client(|c| c.execute("UPDATE audit SET body = '{\"b\":1000}' WHERE tbl = 1 AND seq = 2", &[]).unwrap());
    let mut records = Vec::new();
    store
        .each_record_after(TableId(1), 0, &mut |r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
    assert_eq!(verify(&records).unwrap_err().seq, 2);
}

/// `serve` on PostgreSQL: the demo casino is created there, people sign in
/// (users and sessions live there), a wager is placed and settled by the
/// pacer, the inspector's ledger check, recall and verify read PostgreSQL,
/// and a second start recovers the same balances from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_runs_on_postgresql_and_a_start_recovers_from_it() {
    use crate::common::spawn_app_with;
    use serde_json::json;
    let url = tokio::task::spawn_blocking(|| database("serve")).await.unwrap();
    let pg = url.clone();
    let mut cfg = None;
    let app = spawn_app_with(|c| {
        c.postgres = Some(pg);
        cfg = Some(c.clone());
    })
    .await;
    let cfg = cfg.unwrap();
    let p = app.login("player1", "demo").await;
    let available = |v: &serde_json::Value| v["available"].as_i64().unwrap();
    let before = available(&app.get("/api/me", Some(&p)).await.1);
    app.until_phase(1, "betting").await;
    let slip = json!({"wagers": [{"bet": "banker", "amount": 1000}], "key": "pg-1"});
    let (s, r) = app.post("/api/tables/1/wagers", Some(&p), slip).await;
    assert_eq!(s, reqwest::StatusCode::OK, "{r}");
    assert_eq!(r["results"][0]["result"], "wager", "{r}");
    assert_eq!(available(&app.get("/api/me", Some(&p)).await.1), before - 1000);
    // The coup is dealt and settled; betting opens on the next.
    app.until_phase(1, "dealing").await;
    app.until_phase(1, "betting").await;
    let after = available(&app.get("/api/me", Some(&p)).await.1);
    // The demo NSW table offers Super Six: the Banker pays even money, and
    // half on a winning six.
    let outcomes = [before - 1000, before, before + 500, before + 1000];
    assert!(outcomes.contains(&after), "lost, pushed or won: {before} -> {after}");
    let inspector = app.login("inspector", "demo").await;
    let (s, l) = app.get("/api/ledger/check", Some(&inspector)).await;
    assert_eq!((s, &l["ok"]), (reqwest::StatusCode::OK, &json!(true)), "{l}");
    let (s, a) = app.get("/api/tables/1/audit?last=2", Some(&inspector)).await;
    assert_eq!(s, reqwest::StatusCode::OK, "{a}");
    assert!(a.to_string().contains("wager_placed"), "recall reads the records from PostgreSQL: {a}");
    let (s, v) = app.get("/api/verify", Some(&inspector)).await;
    assert_eq!((s, &v["ok"]), (reqwest::StatusCode::OK, &json!(true)), "{v}");
    // Nothing of it is in a SQLite file.
    assert!(!cfg.db.exists(), "no SQLite database beside the anchors");
    assert!(baccarat_core::anchor::default_paths(&cfg.db).0.exists(), "the anchors are signed beside it");
    // A second start on the same database recovers the same wallet.
    let recovered = tokio::task::spawn_blocking(move || {
        let again = baccarat_server::serve::open(&cfg).unwrap();
        let player = again.users.credentials("player1").unwrap().unwrap().id.as_player();
        again.casino.balance(player).unwrap().1
    })
    .await
    .unwrap();
    let now = available(&app.get("/api/me", Some(&p)).await.1);
    assert_eq!(recovered.0, now, "PostgreSQL holds what the server acknowledged");
}

/// A store dropped on the async runtime's thread (a start that failed after
/// opening it) closes its client without the "runtime within a runtime"
/// panic the `postgres` client would otherwise raise.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_dropped_on_the_runtime_closes_quietly() {
    let url = tokio::task::spawn_blocking(|| database("dropped")).await.unwrap();
    let store = tokio::task::spawn_blocking(move || PgStore::connect(&url).unwrap()).await.unwrap();
    drop(store);
}

/// A connection thread that died (a statement panicked there) answers every
/// later call with `None`, which people and sessions turn into an error
/// (`AuthError::Gone`, a 401 to the request), never a panic in the handler.
#[test]
fn a_dead_connection_thread_answers_none_not_a_panic() {
    let url = database("thread");
    let t = baccarat_cluster::PgThread::connect(&url).unwrap();
    assert_eq!(t.run(|c| c.query_one("SELECT 1::int", &[]).unwrap().get::<_, i32>(0)), Some(1));
    assert_eq!(t.run(|_| -> i32 { panic!("a statement went wrong on the connection's thread") }), None);
    assert_eq!(t.run(|c| c.query_one("SELECT 1::int", &[]).unwrap().get::<_, i32>(0)), None, "the thread is gone");
}

/// Issue 45 finding 14: the tests' cluster lived inside the checkout
/// (`target/tmp/pg`), and as root it runs as the `postgres` user, who cannot
/// enter a checkout under a private directory (root's home, `mktemp -d`):
/// every PostgreSQL test failed there with "could not change directory …
/// Permission denied". Its directory (the socket's: the URL's host) is now
/// outside the checkout, and when the cluster runs as another user, every
/// directory above it lets that user through.
#[test]
fn the_test_cluster_lives_outside_the_checkout_where_its_user_can_reach_it() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if std::env::var_os("BACCARAT_TEST_PG").is_some() {
        return; // a server of the tester's own, not the script's
    }
    let url = super::pg_cluster::cluster();
    let host = url.split_once('@').and_then(|(_, r)| r.split_once('/')).map(|(h, _)| h.replace("%2F", "/"));
    let dir = std::path::Path::new(&host.expect("a socket directory in the URL")).canonicalize().unwrap();
    let checkout = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap();
    assert!(!dir.starts_with(&checkout), "the cluster {} is inside the checkout {}", dir.display(), checkout.display());
    // `/proc/self` belongs to this process's user.
    let me = std::fs::metadata("/proc/self").unwrap().uid();
    if std::fs::metadata(&dir).unwrap().uid() != me {
        for up in dir.ancestors().skip(1) {
            let mode = std::fs::metadata(up).unwrap().permissions().mode();
            assert!(mode & 0o001 != 0, "{} (mode {mode:o}) is closed to the cluster's user", up.display());
        }
    }
}

/// The key lookup cannot read its window through `answer_log_at_ms`
/// (`key_reader::LOOKUP`: planned generically under `loadgen`, it sometimes
/// did, reading every answer of the window for each lookup). With the key's
/// index gone and sequential scans made dear, a lookup whose window an index
/// could serve would be planned through it; this one is not.
#[test]
fn the_key_lookup_cannot_read_its_window_by_the_time_index() {
    let url = database("lookup_plan");
    drop(PgStore::connect(&url).unwrap());
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    c.batch_execute("DROP INDEX answer_log_key_id; SET enable_seqscan = off; SET plan_cache_mode = force_generic_plan")
        .unwrap();
    c.batch_execute(&format!("PREPARE lookup(bytea[], bigint) AS {}", baccarat_cluster::key_reader::LOOKUP)).unwrap();
    let plan: Vec<String> =
        c.query("EXPLAIN EXECUTE lookup('{}', 0)", &[]).unwrap().iter().map(|r| r.get::<_, String>(0)).collect();
    let plan = plan.join("\n");
    assert!(plan.contains("Scan on answer_log"), "a plan of the lookup: {plan}");
    assert!(!plan.contains("at_ms_idx") && !plan.contains("answer_log_at_ms"), "read by the window's index: {plan}");
}

/// The key reader's lookups go by the key's index even where the planner
/// would rather read the whole log (`key_reader::READER`; under `loadgen` it
/// sometimes did, a generic plan made from early statistics): here index
/// reads are costed dear for the database, ten lookups run on an empty log
/// (the plan cached), 20,000 answers are written, and ten more run; no
/// sequential scan of the log, and the key's index read by each.
#[test]
fn the_key_readers_lookups_go_by_the_key_index_where_the_planner_would_scan() {
    use baccarat_core::ledger::keys::{ColdKeys, KeyId};
    let url = database("lookup_scans");
    drop(PgStore::connect(&url).unwrap());
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let db: String = c.query_one("SELECT current_database()", &[]).unwrap().get(0);
    c.batch_execute(&format!("ALTER DATABASE \"{db}\" SET random_page_cost = 100000")).unwrap();
    let reader = baccarat_cluster::key_reader::PgKeyReader::connect(&url).unwrap();
    let ids = [KeyId(1), KeyId(2), KeyId(3)];
    for _ in 0..10 {
        assert!(reader.find(&ids, 0).unwrap().is_empty());
    }
    c.batch_execute(
        "INSERT INTO answer_log (seq, key, key_id, digest, answer, at_ms, cause)
           SELECT g, 'k' || g, decode(lpad(to_hex(g), 32, '0'), 'hex'), decode(repeat('00', 32), 'hex'), '{}', g, ''
           FROM generate_series(1, 20000) g",
    )
    .unwrap();
    let scans = |c: &mut postgres::Client| -> (i64, i64) {
        // The statistics collector's counts, as this moment's snapshot.
        c.batch_execute("SELECT pg_stat_clear_snapshot()").unwrap();
        let r = c
            .query_one(
                "SELECT (SELECT coalesce(sum(seq_scan), 0)::bigint FROM pg_stat_user_tables WHERE relname LIKE 'answer_log_%'),
                        (SELECT coalesce(sum(idx_scan), 0)::bigint FROM pg_stat_user_indexes
                          WHERE relname LIKE 'answer_log_%' AND indexrelname LIKE '%key_id%')",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1))
    };
    let before = scans(&mut c);
    let kid = |n: u32| {
        let mut b = [0u8; 16];
        b[12..].copy_from_slice(&n.to_be_bytes());
        KeyId::from_le_bytes(b)
    };
    for n in 1..=10u32 {
        let found = reader.find(&[kid(n * 1000)], 0).unwrap();
        assert_eq!(found.iter().map(|r| r.seq).collect::<Vec<_>>(), [u64::from(n) * 1000]);
    }
    // The counts reach the collector when the reader's transactions end,
    // within a second or so: waited for, bounded.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let after = loop {
        let now = scans(&mut c);
        if now.1 >= before.1 + 10 || std::time::Instant::now() > deadline {
            break now;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert_eq!(after.0, before.0, "no sequential scan of the log: {before:?} then {after:?}");
    assert!(after.1 >= before.1 + 10, "each lookup read the key's index: {before:?} then {after:?}");
}
