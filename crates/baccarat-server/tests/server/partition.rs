//! Partitions of one PostgreSQL casino on the shared bank
//! (`casino/bank_side.rs`), against a real PostgreSQL: each partition a
//! casino of its own (its schema, its lease, its ledger and chains), its
//! players' money taken from the bank as a wager needs it and given back
//! when nothing is held, so that one player's wagers at tables of two
//! partitions at once never spend more than the player has.

use baccarat_rules::{Bet, Money};
use baccarat_server::bank::verify::verify as verify_bank;
use baccarat_server::bank::{Bank, BankError, Move, MoveKind};
use baccarat_server::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_server::ledger::AccountKind;
use baccarat_server::pg_store::{partition_url, Lease, PgStore};
use baccarat_server::store::{Commit, History, Store};
use baccarat_server::trust::Actor;
use baccarat_table::engine::{Command, Phase, PlayerId, Spot};

use super::pg::database;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

/// One partition: its casino, its store and lease, and its connection to the
/// bank; what the writer does for it, by hand.
struct Part {
    name: String,
    /// The casino's clock (ms), moved by the test.
    now: std::sync::Arc<std::sync::atomic::AtomicU64>,
    casino: Casino,
    store: PgStore,
    bank: Bank,
    lease: Lease,
    allotments: u64,
}

impl Part {
    fn new(db: &str, name: &str) -> Part {
        let url = partition_url(db, name).unwrap();
        let mut store = PgStore::connect(&url).unwrap();
        let lease = store.take_casino(&format!("{name}-server"), "http://127.0.0.1:1", 60_000).unwrap().unwrap();
        let now = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(1_795_000_000_000));
        let mut casino = Casino::new();
        let clock = now.clone();
        casino.clock = std::sync::Arc::new(move || clock.load(std::sync::atomic::Ordering::Relaxed));
        casino.set_partition(name);
        let mut commit = Commit::default();
        casino.create_table(1, "T", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
        store.commit(&commit).unwrap();
        Part { name: name.into(), now, casino, store, bank: Bank::connect(&url).unwrap(), lease, allotments: 0 }
    }

    fn step(&mut self, r: Request) -> Reply {
        let mut commit = Commit::default();
        let reply = self.casino.handle(r, &mut commit);
        self.store.commit(&commit).unwrap();
        reply
    }

    fn table(&mut self, command: Command) -> Reply {
        self.step(Request::Table { table: 1, command, by: Actor::Server })
    }

    fn open_betting(&mut self) {
        if matches!(self.casino.phase(1), Some(Phase::NoShoe | Phase::ShoeOver)) {
            self.step(Request::NewShoe { table: 1 });
        }
        self.table(Command::OpenBetting { no_bet: false, closes_at: None });
    }

    /// The writer's part of a wager: the bank's money for what the wallet
    /// here lacks, then the wager, in one commit.
    fn wager(&mut self, player: u32, amount: i64, key: &str) -> Reply {
        let have = self.casino.balance(PlayerId(player)).map_or(0, |b| b.1 .0);
        let mut commit = Commit::default();
        if have < amount {
            self.allotments += 1;
            let m = Move {
                kind: MoveKind::Allot,
                player,
                amount: amount - have,
                partition: Some(self.name.clone()),
                reference: format!("{}:e{}:a{}", self.name, self.lease.epoch, self.allotments),
                loss_day: None,
            };
            match self.bank.make(&m, Some(&self.lease)) {
                Ok(made) => self
                    .casino
                    .allotted(PlayerId(player), Money(m.amount), made.record.seq, &made.record.hash, &mut commit)
                    .unwrap(),
                // The wallet here stays short: the wager is refused by it.
                Err(BankError::Short { .. }) => {}
                Err(e) => panic!("{e}"),
            }
        }
        let r = self.casino.handle(banker(player, amount, key), &mut commit);
        self.store.commit(&commit).unwrap();
        r
    }

    fn finish_coup(&mut self) {
        self.table(Command::CloseBetting);
        while matches!(self.casino.phase(1), Some(Phase::Closed | Phase::Dealing)) {
            self.table(Command::DealNext);
        }
        let mut commit = Commit::default();
        self.casino.settle_all(&mut commit);
        self.store.commit(&commit).unwrap();
    }

    /// Let `ms` pass on the casino's clock.
    fn wait(&self, ms: u64) {
        self.now.fetch_add(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// Give back what has been idle long enough; how many players.
    fn sweep(&mut self) -> usize {
        self.wait(baccarat_server::casino::bank_side::RETURN_AFTER_MS);
        let mut commit = Commit::default();
        let n = self.casino.return_idle(&mut commit);
        self.store.commit(&commit).unwrap();
        n
    }

    /// The partition's account at the bank, as its own ledger has it.
    fn at_bank(&self) -> i64 {
        let l = &self.casino.ledger;
        l.find(&AccountKind::Bank).and_then(|a| l.account(a)).map_or(0, |a| a.balance)
    }

    fn wallet(&self, player: u32) -> (i64, i64) {
        self.casino.balance(PlayerId(player)).map_or((0, 0), |b| (b.0 .0, b.1 .0))
    }
}

/// Player `player`'s wager of `amount` on Banker at table 1, from their box.
fn banker(player: u32, amount: i64, key: &str) -> Request {
    Request::Wager {
        table: 1,
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet: Bet::Banker,
        amount: Money(amount),
        ante: Money::ZERO,
        key: key.into(),
    }
}

/// An allotment to `partition` of `amount` for `player`, as a partition's
/// writer asks for one (without a day's count).
fn allot(partition: &str, player: u32, amount: i64, reference: &str) -> Move {
    Move {
        kind: MoveKind::Allot,
        player,
        amount,
        partition: Some(partition.into()),
        reference: reference.into(),
        loss_day: None,
    }
}

/// Chips bought at `part`'s cage: paid into the bank by the partition's own
/// commit, recorded in its chain (`Casino::caged`).
fn deposit(part: &mut Part, player: u32, amount: i64) {
    let reference = baccarat_server::bank::cage_reference(&part.name, player, "cash");
    let mut commit = Commit::default();
    part.casino.caged(PlayerId(player), Money(amount), &reference, &mut commit).unwrap();
    part.store.commit(&commit).unwrap();
}

/// The books of both sides agree: the partition's account at the bank is
/// minus its net position there, its ledger balances, and the bank verifies.
fn books_agree(parts: &mut [&mut Part], bank: &mut Bank) {
    let report = bank.with_client(verify_bank).unwrap();
    assert!(report.ok(), "{:?}", report.problems);
    for p in parts.iter_mut() {
        assert_eq!(p.at_bank(), -report.allotted.get(&p.name).copied().unwrap_or(0), "partition {}", p.name);
        p.casino.ledger.check().unwrap();
        assert_eq!(p.casino.holds_problem(), None);
    }
}

/// One player with 10,000 at the bank wagers at tables of two partitions at
/// once: the second partition gets only what the first left, a wager beyond
/// it is refused by the wallet, and after both coups settle and the idle
/// money goes back, every chip is at the bank (or won by a house), and the
/// two sides' books agree. A deposit at a partition is refused: money comes
/// from the bank.
#[test]
fn one_players_wagers_at_two_partitions_never_spend_more_than_the_bank_holds() {
    let db = database("partition_wagers");
    let mut east = Part::new(&db, "east");
    let mut west = Part::new(&db, "west");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    deposit(&mut east, 2, 10_000);

    match east.step(Request::Deposit { player: PlayerId(1), amount: Money(500), key: "d".into() }) {
        Reply::Refused { code: Code::Wallet, message, .. } => assert!(message.contains("partition east"), "{message}"),
        other => panic!("{other:?}"),
    }

    east.open_betting();
    west.open_betting();
    assert!(matches!(east.wager(1, 6_000, "e1"), Reply::Wager { .. }));
    assert!(matches!(east.wager(2, 2_000, "e2"), Reply::Wager { .. }));
    match west.wager(1, 6_000, "w1") {
        Reply::Refused { code: Code::Wallet, .. } => {}
        other => panic!("only 4,000 is left at the bank: {other:?}"),
    }
    assert!(matches!(west.wager(1, 4_000, "w2"), Reply::Wager { .. }), "what is left is taken");
    assert_eq!(bank.wallet(1).unwrap(), 0, "all of player 1's money is held at the two tables");
    assert_eq!((east.wallet(1), west.wallet(1)), ((6_000, 0), (4_000, 0)));
    assert_eq!(east.sweep(), 0, "nothing idle while held");
    books_agree(&mut [&mut east, &mut west], &mut bank);

    east.finish_coup();
    west.finish_coup();
    // (The shoes are the OS's: who won differs from run to run, and what
    // follows holds whoever did.)
    east.sweep();
    west.sweep();
    for p in [&east, &west] {
        for player in [1, 2] {
            assert_eq!(p.wallet(player), (0, 0), "partition {}: player {player}'s money went back", p.name);
        }
    }
    books_agree(&mut [&mut east, &mut west], &mut bank);
    // Every chip is at the bank or was won by a house: the houses' results
    // are what the players' balances at the bank moved by.
    let house = |p: &Part| {
        p.casino
            .ledger
            .accounts()
            .filter(|a| !matches!(a.kind, AccountKind::Cage | AccountKind::Bank | AccountKind::Wallet { .. }))
            .map(|a| a.balance)
            .sum::<i64>()
            - 100_000_000
    };
    let players = bank.wallet(1).unwrap() + bank.wallet(2).unwrap();
    assert_eq!(players + house(&east) + house(&west), 20_000, "nothing made or lost");

    // The partition's own audit: its ledger reconciles with its chains,
    // bank moves included.
    let snap = east.store.load().unwrap();
    let f = baccarat_server::verify::verify(&snap);
    assert!(f.problems.is_empty(), "{:?}", f.problems);
}

/// A crash between the bank's transaction and the partition's: the bank
/// gave the money, the partition's batch never committed. A start recovers
/// the partition, takes from the bank every allotment after the last it
/// recorded (once: a second look takes nothing), and gives the idle money
/// back. An allotment recorded twice, or out of order, is refused.
#[test]
fn an_allotment_the_partition_never_recorded_is_taken_at_the_next_start() {
    use baccarat_server::casino::{recover, Keys};
    let db = database("partition_orphan");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 3_000, "e1"), Reply::Wager { .. }));
    // The writer's next allotment: made at the bank, then the server dies
    // before its batch (the allotment and the wager) commits.
    let lost = allot("east", 1, 2_500, "east:e1:a99");
    let made = east.bank.make(&lost, Some(&east.lease)).unwrap();
    let mut doomed = Commit::default();
    east.casino.allotted(PlayerId(1), Money(2_500), made.record.seq, &made.record.hash, &mut doomed).unwrap();
    drop(doomed);
    assert_eq!(bank.wallet(1).unwrap(), 4_500);

    let none = std::collections::BTreeSet::new();
    let mut casino = recover(&east.store, None, Keys::Since(0), &none).unwrap().casino;
    casino.clock = east.casino.clock.clone();
    casino.set_partition("east");
    assert_eq!(casino.bank.last_seq, made.record.seq - 1, "the first allotment was recorded, the second not");
    assert_eq!(casino.balance(PlayerId(1)).map(|b| b.0 .0), Some(3_000));
    east.casino = casino;
    let moves = east.bank.moves_of("east", east.casino.bank.last_seq).unwrap();
    let mut commit = Commit::default();
    assert_eq!(east.casino.take_missing_allotments(&moves, &mut commit), Ok(1));
    assert_eq!(east.casino.take_missing_allotments(&moves, &mut commit), Ok(0), "taken once");
    east.store.commit(&commit).unwrap();
    assert_eq!(east.wallet(1), (5_500, 2_500), "the lost allotment is here, beside the wager's hold");
    let e = east.casino.allotted(PlayerId(1), Money(1), made.record.seq, &made.record.hash, &mut Commit::default());
    assert!(e.unwrap_err().contains("not after the last one recorded"));

    east.finish_coup();
    east.sweep();
    assert_eq!(east.wallet(1), (0, 0));
    books_agree(&mut [&mut east], &mut bank);
    let f = baccarat_server::verify::verify(&east.store.load().unwrap());
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    // From a checkpoint too: the last allotment recorded is kept in it.
    let cp = east.casino.checkpoint();
    assert_eq!(cp.bank_seq, made.record.seq);
    let from_cp = recover(&east.store, Some(cp), Keys::Since(0), &none).unwrap().casino;
    assert_eq!(from_cp.bank.last_seq, made.record.seq);
}

/// A partition that lost its lease gives nothing back: the batch that
/// carries a return is refused whole, at the bank and in the partition.
#[test]
fn a_stale_partition_gives_nothing_back() {
    let db = database("partition_stale");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    // 1,000 taken from the bank and not wagered: idle here.
    east.open_betting();
    let Reply::Wager { wager, .. } = east.wager(1, 1_000, "e1") else { panic!("placed") };
    let r = east.step(Request::Withdraw { table: 1, player: PlayerId(1), wager });
    assert!(!matches!(r, Reply::Refused { .. }), "{r:?}");
    assert_eq!(east.wallet(1), (1_000, 1_000));
    let held_before = east.store.head(0).unwrap().map(|r| r.seq);
    east.store.with_client(|c| c.execute("UPDATE leases SET expires_at = now() - interval '1 second'", &[]).unwrap());
    let mut standby = PgStore::connect(&partition_url(&db, "east").unwrap()).unwrap();
    standby.take_casino("east-standby", "http://127.0.0.1:2", 60_000).unwrap().unwrap();
    let mut commit = Commit::default();
    let before = bank.wallet(1).unwrap();
    east.wait(baccarat_server::casino::bank_side::RETURN_AFTER_MS);
    assert_eq!(east.casino.return_idle(&mut commit), 1);
    let e = east.store.commit(&commit).unwrap_err();
    assert!(e.to_string().starts_with("fenced:"), "{e}");
    assert_eq!(bank.wallet(1).unwrap(), before, "nothing came back from a stale server");
    assert_eq!(east.store.head(0).unwrap().map(|r| r.seq), held_before, "and its chain did not move");
}

/// A dishonest partition server (it holds the lease, so the bank takes its
/// moves) gives money "back" to the bank that its books never had, or takes
/// an allotment it never books: `verify --partition`'s check of its account
/// at the bank against its positions names the first, and notes the second
/// until the partition's next start records it.
#[test]
fn money_moved_at_the_bank_outside_the_partitions_books_is_named() {
    use baccarat_server::bank::verify::check_partition;
    let db = database("partition_forged");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 2_000, "e1"), Reply::Wager { .. }));
    let url = partition_url(&db, "east").unwrap();
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");

    let minted = Move {
        kind: MoveKind::Return,
        player: 1,
        amount: 5_000,
        partition: Some("east".into()),
        reference: "east:forged".into(),
        loss_day: None,
    };
    east.bank.make(&minted, Some(&east.lease)).unwrap();
    let (report, _, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok(), "the bank's own chain is sound: {report:?}");
    assert!(
        problems.iter().any(|p| p.contains("its account at the bank stands at -2000") && p.contains("net -3000")),
        "{problems:?}"
    );

    assert!(problems.iter().any(|p| p.contains("(Return of 5000 for player 1) is not in its books")), "{problems:?}");

    let unbooked = Move { kind: MoveKind::Allot, amount: 700, reference: "east:unbooked".into(), ..minted };
    let made = east.bank.make(&unbooked, Some(&east.lease)).unwrap();
    let (_, notes, _) = check_partition(&url, "east").unwrap();
    assert!(notes.iter().any(|n| n.contains(&format!("[{}]", made.record.seq)) && n.contains("(700)")), "{notes:?}");
}

/// A deposit sent to a partition's server is paid into the bank by the
/// partition's commit, recorded in its chain, once under its idempotency
/// key: the same key again, before the commit and after it, answers the
/// first deposit, and the key with another amount is refused, either way.
#[test]
fn a_deposit_at_a_partitions_server_is_made_once_at_the_bank() {
    use baccarat_server::bank::link::BankLink;
    use baccarat_server::bank::verify::check_partition;
    let db = database("partition_deposit");
    let mut east = Part::new(&db, "east");
    let url = partition_url(&db, "east").unwrap();
    let mut link = BankLink::connect(&url, "east", east.lease.clone()).unwrap();
    let deposit = |amount: i64| Request::Deposit { player: PlayerId(4), amount: Money(amount), key: "cash-1".into() };
    let mut commit = Commit::default();
    for round in 0..2 {
        for _ in 0..2 {
            match link.before(&mut east.casino, &deposit(2_500), &mut commit) {
                Some(Reply::Deposit { balance }) => assert_eq!(balance, Money(2_500), "round {round}"),
                other => panic!("{other:?}"),
            }
        }
        match link.before(&mut east.casino, &deposit(9_999), &mut commit) {
            Some(Reply::Refused { message, .. }) => assert!(message.contains("cash-1"), "{message}"),
            other => panic!("{other:?}"),
        }
        assert_eq!(east.bank.wallet(4).unwrap(), if round == 0 { 0 } else { 2_500 }, "made with the commit");
        east.store.commit(&std::mem::take(&mut commit)).unwrap();
    }
    assert_eq!(east.bank.wallet(4).unwrap(), 2_500);
    assert_eq!(east.casino.chain.len(), 1, "one `caged` record in the partition's chain");
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
    // A second link (a restarted server: nothing in memory) answers the
    // retry from the bank.
    let mut again = BankLink::connect(&url, "east", east.lease.clone()).unwrap();
    let mut commit = Commit::default();
    assert!(matches!(again.before(&mut east.casino, &deposit(2_500), &mut commit), Some(Reply::Deposit { .. })));
    assert!(commit.bank.is_empty() && commit.records.is_empty(), "nothing made again");
}

/// Money stays at a partition while its player goes on playing, and goes
/// back to the bank once they have held nothing there for
/// `RETURN_AFTER_MS`: a hold restarts the wait.
#[test]
fn idle_money_goes_back_a_while_after_the_last_hold_closes() {
    use baccarat_server::casino::bank_side::RETURN_AFTER_MS;
    let db = database("partition_idle");
    let mut east = Part::new(&db, "east");
    let mut bank = Bank::connect(&db).unwrap();
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    let Reply::Wager { wager, .. } = east.wager(1, 4_000, "e1") else { panic!("placed") };
    let give_back = |east: &mut Part| {
        let mut commit = Commit::default();
        let n = east.casino.return_idle(&mut commit);
        east.store.commit(&commit).unwrap();
        n
    };
    east.wait(RETURN_AFTER_MS * 5);
    assert_eq!(give_back(&mut east), 0, "held: it stays");
    assert!(!matches!(east.step(Request::Withdraw { table: 1, player: PlayerId(1), wager }), Reply::Refused { .. }));
    assert_eq!(give_back(&mut east), 0, "held a moment ago: it stays");
    east.wait(RETURN_AFTER_MS - 1);
    assert_eq!(give_back(&mut east), 0, "not yet a while");
    assert_eq!(bank.wallet(1).unwrap(), 6_000);
    east.wait(1);
    assert_eq!(give_back(&mut east), 1, "a while after the last hold closed");
    assert_eq!((bank.wallet(1).unwrap(), east.wallet(1)), (10_000, (0, 0)));
}

/// A dishonest partition books an allotment the bank made for one player
/// to another player's wallet: the totals still agree, but the record does
/// not match the bank's, and `verify --partition` names both sides.
#[test]
fn an_allotment_booked_to_another_player_is_named() {
    use baccarat_server::bank::verify::check_partition;
    let db = database("partition_misbooked");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    let alice = allot("east", 1, 3_000, "east:alice");
    let made = east.bank.make(&alice, Some(&east.lease)).unwrap();
    let mut commit = Commit::default();
    east.casino.allotted(PlayerId(2), Money(3_000), made.record.seq, &made.record.hash, &mut commit).unwrap();
    east.store.commit(&commit).unwrap();
    let (_, notes, problems) = check_partition(&partition_url(&db, "east").unwrap(), "east").unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let seq = made.record.seq;
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("to player 2 as the bank's record {seq}, which the bank has not made"))),
        "{problems:?}"
    );
    assert!(problems
        .iter()
        .any(|p| p.contains(&format!("record {seq} (Allot of 3000 for player 1) is not in its books"))));
}

/// Where each partition is served, for sending a client there: its lease's
/// instance, URL and epoch, its tables, and what it holds from the bank.
#[test]
fn the_casino_lists_its_partitions_and_where_they_are_served() {
    let db = database("partition_list");
    let mut east = Part::new(&db, "east");
    let _west = Part::new(&db, "west");
    deposit(&mut east, 1, 10_000);
    east.open_betting();
    assert!(matches!(east.wager(1, 2_500, "e1"), Reply::Wager { .. }));
    let list = baccarat_server::bank::partitions(&db).unwrap();
    let seen: Vec<_> = list
        .iter()
        .map(|p| {
            (p.name.as_str(), p.instance.as_deref(), p.url.as_deref(), p.epoch, p.live, p.tables.clone(), p.allotted)
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("east", Some("east-server"), Some("http://127.0.0.1:1"), Some(1), true, vec![1], 2_500),
            ("west", Some("west-server"), Some("http://127.0.0.1:1"), Some(1), true, vec![1], 0),
        ]
    );
}

/// A partition's server on port 0, in this process, with a betting window
/// long enough that no coup settles during a test; its URL once it serves.
async fn serve_partition(db: &str, name: &str, dir: &super::common::TempDir) -> String {
    use baccarat_server::serve::{run, ServeConfig};
    let mut cfg = ServeConfig {
        betting: std::time::Duration::from_secs(120),
        rate_per_second: 100_000,
        instance: format!("{name}-1"),
        ..ServeConfig::new(dir.join(format!("{name}.db")), "127.0.0.1:0".parse().unwrap())
    };
    cfg.postgres = Some(partition_url(db, name).unwrap());
    cfg.partition = Some(name.into());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(run(cfg, listener));
    for _ in 0..1500 {
        let r = reqwest::get(format!("{url}/api/tables")).await.unwrap();
        if r.status() == reqwest::StatusCode::OK {
            return url;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("partition {name} never served");
}

/// Any server of a partitioned casino answers for every partition
/// (`partition_route.rs`): a request under `/p/NAME/` is passed on to the
/// server holding NAME's lease, WebSocket included, and answered there as
/// its route; under its own name a server answers itself. `/api/me` shows
/// the bank's balance beside the partition's wallet, and the money adds up
/// across the two. A name that is no partition is 404, and a partition
/// whose server is out of reach a 502 naming it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn any_server_passes_a_partitions_requests_on_to_the_server_that_holds_it() {
    use super::common::{spawn_app_with, ws_request, TempDir};
    use futures_util::StreamExt;
    use reqwest::StatusCode;
    use serde_json::{json, Value};

    let db = tokio::task::spawn_blocking(|| database("partition_route")).await.unwrap();
    let east_db = partition_url(&db, "east").unwrap();
    let east = spawn_app_with(move |c| {
        c.postgres = Some(east_db);
        c.partition = Some("east".into());
        c.instance = "east-1".into();
    })
    .await;
    let dir = TempDir::new(&format!("baccarat-route-{}", std::process::id()));
    let west = serve_partition(&db, "west", &dir).await;
    // A third partition, whose server has gone: its lease names a port
    // nothing listens on.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let north_db = partition_url(&db, "north").unwrap();
    tokio::task::spawn_blocking(move || {
        let mut s = PgStore::connect(&north_db).unwrap();
        s.take_casino("north-1#00", &format!("http://127.0.0.1:{closed}"), 60_000).unwrap().unwrap();
    })
    .await
    .unwrap();

    // Where each is served, from either server.
    let (s, list) = east.get("/api/partitions", None).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(list["partition"], "east");
    let seen: Vec<(&str, &str, &str, &str)> = list["partitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or("");
            (s("name"), s("instance"), s("url"), s("path"))
        })
        .collect();
    let north_url = format!("http://127.0.0.1:{closed}");
    assert_eq!(
        seen,
        [
            ("east", "east-1", east.base.as_str(), "/p/east/"),
            ("north", "north-1", north_url.as_str(), "/p/north/"),
            ("west", "west-1", west.as_str(), "/p/west/"),
        ]
    );
    let tables = |v: &Value| v["tables"].as_array().unwrap().iter().map(|t| t["id"].clone()).collect::<Vec<_>>();
    let west_direct: Value = reqwest::get(format!("{west}/api/tables")).await.unwrap().json().await.unwrap();
    let r = reqwest::get(format!("{}/p/west/api/tables", east.base)).await.unwrap();
    assert_eq!(r.headers()["x-baccarat-instance"], "west-1", "answered by west's server");
    let via_east: Value = r.json().await.unwrap();
    assert!(!tables(&west_direct).is_empty());
    assert_eq!(tables(&via_east), tables(&west_direct));
    let r = reqwest::get(format!("{}/p/east/api/tables", east.base)).await.unwrap();
    assert!(r.headers().get("x-baccarat-instance").is_none(), "its own partition: answered here");
    let (_, own) = east.get("/api/tables", None).await;
    assert_eq!(tables(&r.json().await.unwrap()), tables(&own));

    // A player made at east, chips at the bank, bets at west through east.
    let (s, made) = east
        .post("/api/players", Some(&east.admin), json!({"name": "roamer", "password": "demo", "chips": 30_000}))
        .await;
    assert_eq!(s, StatusCode::OK, "{made}");
    let token = east.login("roamer", "demo").await;
    let (_, me) = east.get("/api/me", Some(&token)).await;
    assert_eq!((me["bank"].as_i64(), me["balance"].as_i64()), (Some(30_000), Some(0)), "{me}");
    for _ in 0..1500 {
        if east.get("/p/west/api/tables/1", None).await.1["phase"] == "betting" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let wager = json!({"bet": "banker", "amount": 5_000, "key": "roam-1"});
    let (s, placed) = east.post("/p/west/api/tables/1/wagers", Some(&token), wager).await;
    assert_eq!((s, placed["result"].as_str()), (StatusCode::OK, Some("wager")), "{placed}");
    let (_, at_west) = east.get("/p/west/api/me", Some(&token)).await;
    let (_, at_east) = east.get("/api/me", Some(&token)).await;
    let (bank, west_wallet) = (at_west["bank"].as_i64().unwrap(), at_west["balance"].as_i64().unwrap());
    assert_eq!(at_east["bank"].as_i64(), Some(bank), "one bank, whichever server reads it");
    assert_eq!(bank + west_wallet, 30_000, "the money is at the bank or at west: {at_west}");
    assert!(bank <= 25_000 && at_west["available"].as_i64() == Some(west_wallet - 5_000), "{at_west}");

    // West's table feed, through east.
    let ws_url = format!("{}/p/west/api/tables/1/ws", east.base.replace("http", "ws"));
    let (mut ws, answer) = tokio_tungstenite::connect_async(ws_request(&ws_url, &token)).await.unwrap();
    assert_eq!(answer.headers()["x-baccarat-instance"], "west-1");
    let first: Value = serde_json::from_str(&ws.next().await.unwrap().unwrap().into_text().unwrap()).unwrap();
    assert_eq!((first["table"]["id"].as_u64(), first["balance"].as_i64()), (Some(1), Some(west_wallet)), "{first}");

    // And the other way: east's wallet read through west.
    let r = reqwest::Client::new().get(format!("{west}/p/east/api/me")).bearer_auth(&token).send().await.unwrap();
    assert_eq!(r.headers()["x-baccarat-instance"], "east-1");
    let me: Value = r.json().await.unwrap();
    assert_eq!((me["bank"].as_i64(), me["balance"].as_i64()), (Some(bank), Some(0)), "{me}");

    // A cool-off asked at east stops the player's wagers at west too, once
    // west's writer has read the bank's log of limits (every 200 ms).
    let (s, v) = east.post("/api/me/cool-off", Some(&token), json!({"hours": 24})).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut refused = None;
    for i in 0..500 {
        let wager = json!({"bet": "player", "amount": 1_000, "key": format!("after-cool-off-{i}")});
        let (s, r) = east.post("/p/west/api/tables/1/wagers", Some(&token), wager).await;
        if s == StatusCode::FORBIDDEN {
            refused = Some(r);
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let refused = refused.expect("west never refused a wager during the cool-off");
    assert_eq!(refused["code"], "self_limit", "{refused}");
    let (_, limits) = east.get("/p/west/api/me/limits", Some(&token)).await;
    assert!(limits["cool_off_until_ms"].as_u64().is_some(), "west shows the cool-off: {limits}");

    // What cannot be reached is named.
    let (s, e) = east.get("/p/north/api/tables", None).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_GATEWAY, Some("elsewhere")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("partition north: instance north-1"), "{e}");
    // A lease row naming the wrong server (here, a forger's: south's names
    // east) costs one hop, not a loop. (North's 502 made east read the rows
    // again.)
    let (south_db, east_base) = (partition_url(&db, "south").unwrap(), east.base.clone());
    tokio::task::spawn_blocking(move || {
        let mut s = PgStore::connect(&south_db).unwrap();
        s.take_casino("south-1#00", &east_base, 60_000).unwrap().unwrap();
    })
    .await
    .unwrap();
    let (s, e) = east.get("/p/south/api/tables", None).await;
    assert_eq!((s, e["code"].as_str()), (StatusCode::BAD_GATEWAY, Some("elsewhere")), "{e}");
    assert!(e["error"].as_str().unwrap().contains("partition south: passed on to this server"), "{e}");
    for path in ["/p/nowhere/api/tables", "/p/West/api/tables"] {
        let (s, e) = east.get(path, None).await;
        assert_eq!((s, e["code"].as_str()), (StatusCode::NOT_FOUND, Some("no_partition")), "{path}: {e}");
    }
}

/// A forger with the database's credentials mints money at the bank: a
/// deposit appended to its chain, hashed as the bank hashes and with the
/// wallet and head rows to match, once naming no partition and once naming
/// east's cage. The bank's own chain is sound, and the
/// player could spend the money at any partition; but every deposit the
/// servers make is made at a partition's cage, in that partition's own
/// transaction and chain, so `verify --partition` names both forged ones.
#[test]
fn money_minted_at_the_bank_by_hand_is_named() {
    use baccarat_server::bank::verify::check_partition;
    let db = database("partition_minted");
    let mut east = Part::new(&db, "east");
    deposit(&mut east, 1, 10_000);
    let url = partition_url(&db, "east").unwrap();
    let (report, notes, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
    assert_eq!(report.deposited, 10_000);

    let mut forger = Bank::connect(&url).unwrap();
    let mint = |partition: Option<&str>, reference: &str| Move {
        kind: MoveKind::Deposit,
        player: 1,
        amount: 1_000_000,
        partition: partition.map(String::from),
        reference: reference.into(),
        loss_day: None,
    };
    let loose = forger.make(&mint(None, "mint-1"), None).unwrap().record.seq;
    let named = forger.make(&mint(Some("east"), "mint-2"), None).unwrap().record.seq;
    assert_eq!(forger.wallet(1).unwrap(), 2_010_000, "the forged money is there to spend");
    let (report, _, problems) = check_partition(&url, "east").unwrap();
    assert!(report.ok(), "the bank's chain alone is sound: {:?}", report.problems);
    assert!(
        problems
            .iter()
            .any(|p| p
                .contains(&format!("record {loose}: a Deposit of 1000000 for player 1 made at no partition's cage"))),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains(&format!("record {named} (Deposit of 1000000 for player 1) is not in its books"))),
        "{problems:?}"
    );
}

/// Partitions east and west of a fresh casino, player 1 with 100,000 at the
/// bank (bought at east's cage).
fn two_with_money(name: &str) -> (String, Part, Part) {
    let db = database(name);
    let mut east = Part::new(&db, "east");
    let west = Part::new(&db, "west");
    deposit(&mut east, 1, 100_000);
    (db, east, west)
}

/// The writer's link to the bank for `p`.
fn link_of(db: &str, p: &Part) -> baccarat_server::bank::link::BankLink {
    baccarat_server::bank::link::BankLink::connect(&partition_url(db, &p.name).unwrap(), &p.name, p.lease.clone())
        .unwrap()
}

/// Player 1 asks `p`'s server to change their limits: the link's answer.
fn ask_limits(
    p: &mut Part,
    l: &mut baccarat_server::bank::link::BankLink,
    change: baccarat_server::casino::SelfLimitsChange,
) -> Option<Reply> {
    let mut commit = Commit::default();
    let r = l.before(&mut p.casino, &Request::SelfLimits { player: PlayerId(1), change }, &mut commit);
    p.store.commit(&commit).unwrap();
    r
}

/// A player's own limits are theirs at every partition (`bank/limits.rs`):
/// a loss limit asked at west is in force at east once east's writer reads
/// the bank's log of limits, and a cool-off asked at east stops wagers at
/// west. A recovered partition (from its chain, or a checkpoint) keeps
/// them and folds nothing twice. A record written into the log by hand with
/// an old time cannot loosen a limit at once.
#[test]
fn a_players_own_limits_hold_at_every_partition() {
    use baccarat_server::bank::link::BankLink;
    use baccarat_server::casino::{recover, Keys, SelfLimitsChange};
    let (db, mut east, mut west) = two_with_money("partition_limits");
    let link = |p: &Part| link_of(&db, p);
    let (mut east_link, mut west_link) = (link(&east), link(&west));
    let ask = ask_limits;
    let poll = |p: &mut Part, l: &mut BankLink| {
        let mut commit = Commit::default();
        l.poll(&mut p.casino, &mut commit);
        p.store.commit(&commit).unwrap();
        commit.records.len()
    };
    let limit = SelfLimitsChange::Set { loss_per_day: Some(Money(5_000)), minutes_per_day: None };
    match ask(&mut west, &mut west_link, limit) {
        Some(Reply::SelfLimits { view }) => assert_eq!(view["loss_per_day"], 5_000, "{view}"),
        other => panic!("{other:?}"),
    }
    east.open_betting();
    west.open_betting();
    assert!(matches!(east.wager(1, 6_000, "before"), Reply::Wager { .. }), "east has not read the log yet");
    assert_eq!(poll(&mut east, &mut east_link), 1, "one change folded in");
    assert_eq!(poll(&mut east, &mut east_link), 0, "and only once");
    match east.wager(1, 6_000, "after") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains("loss limit"), "{message}"),
        other => panic!("6,000 against a limit of 5,000: {other:?}"),
    }
    assert!(matches!(east.wager(1, 5_000, "within"), Reply::Wager { .. }));

    // A cool-off asked at east stops wagers at west.
    assert!(matches!(
        ask(&mut east, &mut east_link, SelfLimitsChange::CoolOff { hours: 24 }),
        Some(Reply::SelfLimits { .. })
    ));
    assert!(matches!(west.wager(1, 1_000, "w-before"), Reply::Wager { .. }), "west has not read the log yet");
    assert_eq!(poll(&mut west, &mut west_link), 1);
    match west.wager(1, 1_000, "w-after") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => {
            assert!(message.contains("taking a break"), "{message}")
        }
        other => panic!("{other:?}"),
    }

    // A forger lifts the loss limit with a record dated two days ago: it
    // waits a day from when east reads it, as any loosening does.
    let old = CasinoEventForged::lift(1_795_000_000_000 - 2 * 86_400_000);
    Bank::connect(&partition_url(&db, "east").unwrap())
        .unwrap()
        .with_client(|c| baccarat_server::bank::limits::share(c, "east", &old))
        .unwrap();
    poll(&mut east, &mut east_link);
    let now = (east.casino.clock)();
    let s = &east.casino.self_limits[&PlayerId(1)];
    assert_eq!(s.loss_per_day.at(now), Some(Money(5_000)), "still in force");
    assert_eq!(s.loss_per_day.at(now + 86_400_000 - 60_000 - 1), Some(Money(5_000)));

    // Recovered from its chain, and from a checkpoint: the same limits, and
    // the log read again folds nothing.
    let none = std::collections::BTreeSet::new();
    let cp = east.casino.checkpoint();
    for from in [None, Some(cp)] {
        let mut casino = recover(&east.store, from, Keys::Since(0), &none).unwrap().casino;
        casino.clock = east.casino.clock.clone();
        casino.set_partition("east");
        assert_eq!(casino.bank.limits_seq, east.casino.bank.limits_seq);
        assert_eq!(casino.self_limits, east.casino.self_limits);
        let mut commit = Commit::default();
        link(&east).poll(&mut casino, &mut commit);
        assert!(commit.records.is_empty(), "nothing folded twice");
    }
}

/// What a forger writes into the bank's log of limits.
struct CasinoEventForged;

impl CasinoEventForged {
    fn lift(at_ms: u64) -> baccarat_server::audit::CasinoEvent {
        baccarat_server::audit::CasinoEvent::LimitsSet {
            player: PlayerId(1),
            loss_per_day: None,
            minutes_per_day: None,
            at_ms,
            shared: None,
        }
    }
}

/// What the writer does with one wager at a partition (`writer.rs`): the
/// players' limits read from the bank's log, the wager funded at the bank,
/// then refused by the link or handled by the casino, in one commit.
fn through_writer(
    p: &mut Part,
    l: &mut baccarat_server::bank::link::BankLink,
    player: u32,
    amount: i64,
    key: &str,
) -> Reply {
    writer_step(p, l, banker(player, amount, key))
}

/// What the writer does with one request at a partition: the players'
/// limits read from the bank's log, what the request needs funded at the
/// bank, then the request refused by the link or handled by the casino, in
/// one commit.
fn writer_step(p: &mut Part, l: &mut baccarat_server::bank::link::BankLink, req: Request) -> Reply {
    let mut commit = Commit::default();
    l.poll(&mut p.casino, &mut commit);
    l.fund_batch(&mut p.casino, std::iter::once(&req), &mut commit);
    let r = match l.before(&mut p.casino, &req, &mut commit) {
        Some(r) => r,
        None => p.casino.handle(req, &mut commit),
    };
    p.store.commit(&commit).unwrap();
    r
}

/// A player's loss limit counts their money at every partition's tables
/// (`bank/limits.rs`, the bank's count of each day): with a limit of 5,000
/// asked at west, 4,000 staked at east leaves 1,000 for west, whose wager
/// of 2,000 is refused as the limit's (not as a short wallet: 96,000 is
/// still at the bank); once east's coup is over and what is left of its
/// money is back at the bank, the day's count is what was not brought back.
#[test]
fn a_loss_limit_counts_the_money_at_every_partitions_tables() {
    use baccarat_server::bank::verify::check_partition;
    use baccarat_server::casino::SelfLimitsChange;
    let (db, mut east, mut west) = two_with_money("partition_loss_days");
    let (mut east_link, mut west_link) = (link_of(&db, &east), link_of(&db, &west));
    let change = SelfLimitsChange::Set { loss_per_day: Some(Money(5_000)), minutes_per_day: None };
    let asked = ask_limits(&mut west, &mut west_link, change);
    assert!(matches!(asked, Some(Reply::SelfLimits { .. })), "{asked:?}");
    east.open_betting();
    west.open_betting();

    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 4_000, "e1"), Reply::Wager { .. }));
    assert_eq!(east.wallet(1), (4_000, 0), "no headroom for a player with a loss limit");
    match through_writer(&mut west, &mut west_link, 1, 2_000, "w1") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => {
            assert!(message.contains("counted at every table"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(through_writer(&mut west, &mut west_link, 1, 1_000, "w2"), Reply::Wager { .. }));
    let days = || {
        let mut c = postgres::Client::connect(&db, postgres::NoTls).unwrap();
        c.query_one("SELECT net FROM baccarat_bank.days WHERE player = 1", &[]).unwrap().get::<_, i64>(0)
    };
    assert_eq!(days(), 5_000);
    let mut bank = Bank::connect(&db).unwrap();
    let before = bank.wallet(1).unwrap();
    east.finish_coup();
    east.sweep();
    let mut commit = Commit::default();
    east.casino.return_idle(&mut commit);
    east.store.commit(&commit).unwrap();
    let brought_back = bank.wallet(1).unwrap() - before;
    assert_eq!(days(), (5_000 - brought_back).max(0), "what came back from east ({brought_back}) is room again");
    books_agree(&mut [&mut east, &mut west], &mut bank);
    let (report, notes, problems) = check_partition(&partition_url(&db, "east").unwrap(), "east").unwrap();
    assert!(report.ok() && notes.is_empty() && problems.is_empty(), "{report:?} {notes:?} {problems:?}");
}

/// A cash prize paid at a partition (a promotion's draw, NSW 16.7.7) to a
/// player who never played there goes back to the bank a while later, as
/// any money in a wallet there does: it does not wait in the partition's
/// wallet for an allotment that may never come.
#[test]
fn a_prize_paid_at_a_partition_goes_back_to_the_bank() {
    use baccarat_server::casino::bank_side::RETURN_AFTER_MS;
    let db = database("partition_prize");
    let mut east = Part::new(&db, "east");
    let terms =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml")).unwrap();
    east.now.store(1_796_083_200_000, std::sync::atomic::Ordering::Relaxed); // before entries close
    assert_eq!(east.step(Request::CreatePromotion { terms }), Reply::Promotion { promotion: 1 });
    east.now.store(1_796_374_800_000, std::sync::atomic::Ordering::Relaxed); // after the draw's time
    let draw = Request::DrawPromotion { promotion: 1, entries: vec![(PlayerId(9), 1)], scrutineer: None };
    assert_eq!(east.step(draw), Reply::Promotion { promotion: 1 });
    let cash = east.wallet(9).0;
    assert_eq!(cash, 2_500_000, "the cash prize, in the wallet here");
    let mut bank = Bank::connect(&db).unwrap();
    let give_back = |east: &mut Part| {
        let mut commit = Commit::default();
        let n = east.casino.return_idle(&mut commit);
        east.store.commit(&commit).unwrap();
        n
    };
    assert_eq!(give_back(&mut east), 0, "not at once");
    east.wait(RETURN_AFTER_MS);
    assert_eq!(give_back(&mut east), 1);
    assert_eq!((east.wallet(9), bank.wallet(9).unwrap()), ((0, 0), cash));
    books_agree(&mut [&mut east], &mut bank);
}

/// A tournament's entry fee at a partition comes from the bank as a
/// wager's stake does (NSW 15.3.2: the fee into the prize pool), for a
/// player who holds nothing at that partition; a withdrawal's refund goes
/// back to the bank in its turn.
#[test]
fn a_tournament_entry_fee_at_a_partition_is_funded_from_the_bank() {
    use baccarat_server::casino::bank_side::RETURN_AFTER_MS;
    let (db, mut east, _west) = two_with_money("partition_tournament");
    let mut link = link_of(&db, &east);
    let conditions = super::tournament::cup("2026-12-05T10:00:00Z", 25_000);
    east.now.store(1_796_083_200_000, std::sync::atomic::Ordering::Relaxed); // 2026-12-01
    let created = east.step(Request::CreateTournament { conditions });
    assert!(matches!(created, Reply::Tournament { tournament: 1, .. }), "{created:?}");
    assert_eq!(east.wallet(1), (0, 0), "nothing at east");
    let entered = writer_step(&mut east, &mut link, Request::EnterTournament { tournament: 1, player: PlayerId(1) });
    assert!(matches!(entered, Reply::Tournament { tournament: 1, entrants: 1 }), "{entered:?}");
    let mut bank = Bank::connect(&db).unwrap();
    let at_bank = bank.wallet(1).unwrap();
    assert!(at_bank <= 75_000, "the fee came from the bank: {at_bank}");
    let withdrawn = east.step(Request::WithdrawFromTournament { tournament: 1, player: PlayerId(1) });
    assert!(matches!(withdrawn, Reply::Tournament { tournament: 1, entrants: 0 }), "{withdrawn:?}");
    east.wait(RETURN_AFTER_MS);
    let mut commit = Commit::default();
    east.casino.return_idle(&mut commit);
    east.store.commit(&commit).unwrap();
    assert_eq!((east.wallet(1), bank.wallet(1).unwrap()), ((0, 0), 100_000), "every chip back at the bank");
    books_agree(&mut [&mut east], &mut bank);
}

/// A play-time limit counts from the day's first wager at any partition:
/// the bank keeps each player's first allotment of the day, and a partition
/// where they start later that day counts their minutes from it. With 60
/// minutes a day, a player who began at east and moves to west 50 minutes
/// later has 10 minutes left there, not 60.
#[test]
fn a_play_time_limit_counts_from_the_first_wager_at_any_partition() {
    use baccarat_server::casino::SelfLimitsChange;
    let (db, mut east, mut west) = two_with_money("partition_minutes");
    let (mut east_link, mut west_link) = (link_of(&db, &east), link_of(&db, &west));
    let change = SelfLimitsChange::Set { loss_per_day: None, minutes_per_day: Some(60) };
    assert!(matches!(ask_limits(&mut west, &mut west_link, change), Some(Reply::SelfLimits { .. })));
    east.open_betting();
    west.open_betting();
    let both_wait = |east: &Part, west: &Part, minutes: u64| {
        east.wait(minutes * 60_000);
        west.wait(minutes * 60_000);
    };
    assert!(matches!(through_writer(&mut east, &mut east_link, 1, 1_000, "e1"), Reply::Wager { .. }));
    both_wait(&east, &west, 50);
    assert!(matches!(through_writer(&mut west, &mut west_link, 1, 1_000, "w1"), Reply::Wager { .. }));
    both_wait(&east, &west, 11);
    match through_writer(&mut west, &mut west_link, 1, 1_000, "w2") {
        Reply::Refused { code: Code::SelfLimit, message, .. } => assert!(message.contains("60 minutes"), "{message}"),
        other => panic!("61 minutes after the first wager at east: {other:?}"),
    }
}
