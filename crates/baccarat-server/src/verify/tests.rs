//! The reconciliation's rereading, in rounds and cut.

use super::{verify_with, Findings};
use crate::casino::{Casino, Request};
use crate::ledger::{Cause, TransferKind};
use crate::store::scan::Scan;
use crate::store::{Commit, Snapshot, SqliteStore, Store};
use crate::trust::{Actor, Mode};
use baccarat_core::reconcile::Reconciler;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, PlayerId, Spot};

/// Two RNG tables, 15 coups each, three wagers a coup.
fn played() -> Snapshot {
    let mut store = SqliteStore::memory().unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    let config = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n";
    for t in [TableId(1), TableId(2)] {
        c.create_table(t, "T", "au-casino", config, Mode::Rng, Money(10_000_000), &mut commit).unwrap();
    }
    for p in 1..=3 {
        let key = format!("in{p}").parse().unwrap();
        c.handle(Request::Deposit { player: PlayerId(p), amount: Money(1_000_000), key }, &mut commit);
    }
    for table in [TableId(1), TableId(2)] {
        c.handle(Request::NewShoe { table }, &mut commit);
        for coup in 0..15 {
            let command = Command::OpenBetting { no_bet: false, closes_at: None };
            c.handle(Request::Table { table, command, by: Actor::Server }, &mut commit);
            for p in 1..=3u32 {
                let bet = [Bet::Banker, Bet::Player, Bet::Tie][p as usize - 1];
                let (spot, amount, ante) = (Spot::Box(p as u8), Money(2000), Money::ZERO);
                let key = format!("{table}-{coup}-{p}").parse().unwrap();
                c.handle(Request::Wager { table, player: PlayerId(p), spot, bet, amount, key, ante }, &mut commit);
            }
            c.handle(Request::Table { table, command: Command::CloseBetting, by: Actor::Server }, &mut commit);
            while matches!(c.phase(table), Some(Phase::Closed | Phase::Dealing)) {
                c.handle(Request::Table { table, command: Command::DealNext, by: Actor::Server }, &mut commit);
            }
        }
    }
    store.commit(&commit).unwrap();
    store.load().unwrap()
}

fn run(snap: &Snapshot, round: u64, shown: usize) -> Findings {
    let store = crate::store::scan::store_snapshot(snap).unwrap();
    let scan = Scan::new(store.connection());
    scan.begin().unwrap();
    verify_with(&scan, None, |a| Reconciler::new(a).with_limits(round, shown)).unwrap()
}

/// Rereading in many small rounds names the same differences as in one,
/// and a long list is cut to the lowest causes with the number left out.
#[test]
fn differences_are_named_the_same_in_small_rounds_and_cut_to_the_lowest_causes() {
    let honest = played();
    assert!(run(&honest, 3, 2).problems.is_empty());
    // A third of table 1's postings raised (differences), and table 2's
    // rulebook unknown (its transfers unexplained).
    let mut s = honest.clone();
    let table_1 = |c: Cause| matches!(c, Cause::Wager { table: TableId(1), .. });
    for t in s.transfers.iter_mut().filter(|t| t.kind == TransferKind::Posted && table_1(t.cause) && t.id.0 % 3 == 0) {
        t.amount.0 += 1;
    }
    s.tables[1].rulebook = "no-such-rulebook".into();
    let whole = run(&s, u64::MAX, usize::MAX);
    let differences = whole.problems.iter().filter(|p| p.contains("does not match its audit event")).count();
    let unexplained = whole.problems.iter().filter(|p| p.contains("but no audit event explains it")).count();
    assert!(differences > 5 && unexplained > 5, "{:#?}", whole.problems);
    assert_eq!(run(&s, 7, usize::MAX).problems, whole.problems, "rounds of 7 transfers");
    let cut = run(&s, 7, 5).problems;
    let kept = |what: &str, p: &[String]| p.iter().filter(|p| p.contains(what)).cloned().collect::<Vec<_>>();
    let first = |what: &str| kept(what, &whole.problems)[..5].to_vec();
    assert_eq!(kept("does not match its audit event", &cut), first("does not match its audit event"));
    assert_eq!(kept("but no audit event explains it", &cut), first("but no audit event explains it"));
    assert!(cut.contains(&format!("ledger: … and {} more of table 1 do not match their audit events", differences - 5)));
    assert!(
        cut.contains(&format!("ledger: … and {} more causes of table 2 that no audit event explains", unexplained - 5))
    );
}

/// A table closed for good (`casino/closing.rs`): `verify` passes over it,
/// reconciling its money's way back to the cage; it names a close whose
/// transfer is not the one recorded, and a record written after the close.
#[test]
fn a_closed_table_verifies_and_a_record_after_its_close_is_named() {
    let mut store = SqliteStore::memory().unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    let create = |name: &str| Request::CreateTable {
        name: name.into(),
        rulebook: "nsw-2021".into(),
        config: "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n".into(),
        mode: Mode::Rng,
        float: None,
    };
    c.handle(create("Closed"), &mut commit);
    c.handle(Request::Deposit { player: PlayerId(1), amount: Money(100_000), key: "in".parse().unwrap() }, &mut commit);
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    c.handle(
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let (spot, amount, ante) = (Spot::Box(1), Money(5000), Money::ZERO);
    c.handle(
        Request::Wager {
            table: TableId(1),
            player: PlayerId(1),
            spot,
            bet: Bet::Banker,
            amount,
            key: "w".parse().unwrap(),
            ante,
        },
        &mut commit,
    );
    let admin = Actor::Person { user: UserId(1), role: crate::trust::Role::Admin };
    c.handle(Request::CloseTable { table: TableId(1), by: admin }, &mut commit);
    c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, &mut commit);
    while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
        c.handle(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server }, &mut commit);
    }
    assert_eq!(c.tables[&TableId(1)].closure, crate::casino::closing::Closure::Closed);
    store.commit(&commit).unwrap();
    let honest = store.load().unwrap();
    assert_eq!(super::verify(&honest).problems, Vec::<String>::new());
    // The float came back 1.00 short of what the record says.
    let mut short = honest.clone();
    let t = short.transfers.iter_mut().find(|t| t.cause == Cause::Closed { table: TableId(1) }).unwrap();
    t.amount.0 -= 100;
    let p = super::verify(&short).problems;
    assert!(p.iter().any(|p| p.contains("table 1's close")), "{p:#?}");
    // A record chained after the close (a coup dealt at a closed table).
    let mut more = Commit::default();
    let r = c.tables.get_mut(&TableId(1)).unwrap().chain.append(crate::audit::Body::encode_casino(
        TableId(1),
        None,
        &crate::audit::CasinoEvent::TableHalted { invariant: "forged".into() },
    ));
    more.records.push((TableId(1), r));
    store.commit(&more).unwrap();
    let p = super::verify(&store.load().unwrap()).problems;
    assert!(p.iter().any(|p| p.contains("recorded after the table was closed for good")), "{p:#?}");
}
