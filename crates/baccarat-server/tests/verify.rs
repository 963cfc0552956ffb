//! `verify` passes on an honest database and finds every kind of tampering: a
//! broken chain, and — even with the chain recomputed — a changed card or payout.

use baccarat_rules::{Bet, Money};
use baccarat_server::audit::Chain;
use baccarat_server::casino::{Casino, Mode, Request};
use baccarat_server::store::{Commit, Snapshot, SqliteStore, Store};
use baccarat_server::trust::Actor;
use baccarat_server::verify::verify;
use baccarat_table::engine::PlayerId;
use baccarat_table::engine::{Command, Phase, Spot};

fn played() -> Snapshot {
    let mut store = SqliteStore::memory().unwrap();
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(1, "AU", "au-casino", "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n", Mode::Rng, Money(10_000_000), &mut commit).unwrap();
    for p in 1..=4 {
        c.handle(Request::Deposit { player: PlayerId(p), amount: Money(1_000_000), key: "in".into() }, &mut commit);
    }
    c.handle(Request::NewShoe { table: 1 }, &mut commit);
    for coup in 0..20 {
        c.handle(
            Request::Table {
                table: 1,
                command: Command::OpenBetting { no_bet: false, closes_at: None },
                by: Actor::Server,
            },
            &mut commit,
        );
        for p in 1..=4u32 {
            let bet = [Bet::Banker, Bet::Player, Bet::Tie, Bet::Banker][p as usize - 1];
            c.handle(
                Request::Wager {
                    table: 1,
                    player: PlayerId(p),
                    spot: Spot::Box(p as u8),
                    bet,
                    amount: Money(2000),
                    key: format!("{coup}-{p}"),
                    ante: Money::ZERO,
                },
                &mut commit,
            );
        }
        c.handle(
            Request::Wager {
                table: 1,
                player: PlayerId(4),
                spot: Spot::Box(4),
                bet: Bet::DragonBonusBanker,
                amount: Money(1000),
                key: format!("{coup}-d"),
                ante: Money::ZERO,
            },
            &mut commit,
        );
        c.handle(Request::Table { table: 1, command: Command::CloseBetting, by: Actor::Server }, &mut commit);
        while matches!(c.phase(1), Some(Phase::Closed | Phase::Dealing)) {
            c.handle(Request::Table { table: 1, command: Command::DealNext, by: Actor::Server }, &mut commit);
        }
    }
    store.commit(&commit).unwrap();
    store.load().unwrap()
}

/// Rewrite table 1's chain after `edit` changes a body, as a forger would.
fn forge(snap: &mut Snapshot, edit: impl Fn(&str) -> Option<String>) {
    let mut chain = Chain::new();
    let mut changed = false;
    for (_, r) in snap.records.iter_mut().filter(|(t, _)| *t == 1) {
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
    let i = s.records.iter().position(|(t, r)| *t == 1 && r.seq == 6).unwrap();
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
