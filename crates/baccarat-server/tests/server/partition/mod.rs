//! Partitions of one PostgreSQL casino on the shared bank
//! (`casino/bank_side.rs`), against a real PostgreSQL: each partition a
//! casino of its own (its schema, its lease, its ledger and chains), its
//! players' money taken from the bank as a wager needs it and given back
//! when nothing is held, so that one player's wagers at tables of two
//! partitions at once never spend more than the player has.
//!
//! Here: a partition driven by hand ([`Part`]) and what a test does with it;
//! the tests by area in the modules below.

mod books;
mod funding;
mod limits;
mod routing;
mod standby;

use baccarat_casino::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_cluster::pg_store::bank::verify::verify as verify_bank;
use baccarat_cluster::pg_store::bank::{Bank, BankError, Move, MoveKind};
use baccarat_cluster::pg_store::{partition_url, Lease, PgStore};
use baccarat_core::ledger::AccountKind;
use baccarat_core::store::{Commit, History, Store};
use baccarat_core::trust::Actor;
use baccarat_core::TableId;
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, PlayerId, Spot};

use crate::bank::allot;
use crate::pg::database;

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
        casino.create_table(TableId(1), "T", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
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
        self.step(Request::Table { table: TableId(1), command, by: Actor::Server })
    }

    fn open_betting(&mut self) {
        if matches!(self.casino.phase(TableId(1)), Some(Phase::NoShoe | Phase::ShoeOver)) {
            self.step(Request::NewShoe { table: TableId(1) });
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
        while matches!(self.casino.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
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
        self.wait(baccarat_casino::casino::bank_side::RETURN_AFTER_MS);
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
        table: TableId(1),
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet: Bet::Banker,
        amount: Money(amount),
        ante: Money::ZERO,
        key: key.parse().unwrap(),
    }
}

/// Chips bought at `part`'s cage: paid into the bank by the partition's own
/// commit, recorded in its chain (`Casino::caged`).
fn deposit(part: &mut Part, player: u32, amount: i64) {
    let reference = baccarat_cluster::pg_store::bank::cage_reference(&part.name, player, "cash");
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
fn link_of(db: &str, p: &Part) -> baccarat_cluster::pg_store::bank::link::BankLink {
    baccarat_cluster::pg_store::bank::link::BankLink::connect(
        &partition_url(db, &p.name).unwrap(),
        &p.name,
        p.lease.clone(),
    )
    .unwrap()
}

/// Player 1 asks `p`'s server to change their limits: the link's answer.
fn ask_limits(
    p: &mut Part,
    l: &mut baccarat_cluster::pg_store::bank::link::BankLink,
    change: baccarat_casino::casino::SelfLimitsChange,
) -> Option<Reply> {
    let mut commit = Commit::default();
    let r = l.before(&mut p.casino, &Request::SelfLimits { player: PlayerId(1), change }, &mut commit);
    p.store.commit(&commit).unwrap();
    r
}

/// What the writer does with one wager at a partition (`writer.rs`): the
/// players' limits read from the bank's log, the wager funded at the bank,
/// then refused by the link or handled by the casino, in one commit.
fn through_writer(
    p: &mut Part,
    l: &mut baccarat_cluster::pg_store::bank::link::BankLink,
    player: u32,
    amount: i64,
    key: &str,
) -> Reply {
    writer_step(p, l, banker(player, amount, key))
}

/// What the writer does with one request at a partition: the players'
/// limits read from the bank's log, what the request needs funded at the
/// bank, then the request refused by the link or handled by the casino, and
/// the days it opened put in the bank's log, in one commit.
fn writer_step(p: &mut Part, l: &mut baccarat_cluster::pg_store::bank::link::BankLink, req: Request) -> Reply {
    let mut commit = Commit::default();
    l.poll(&mut p.casino, &mut commit);
    l.fund_batch(&mut p.casino, std::iter::once(&req), &mut commit);
    let r = match l.before(&mut p.casino, &req, &mut commit) {
        Some(r) => r,
        None => p.casino.handle(req, &mut commit),
    };
    l.share_days(&mut p.casino);
    p.store.commit(&commit).unwrap();
    r
}
