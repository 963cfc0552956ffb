//! The books against the ledger: a casino plays two gaming days at two
//! tables of different rulebooks, and the report of the second day says the
//! house won exactly what its tables' house, commission and antes accounts
//! gained from that day's wagers' transfers, to the cent.

use baccarat_core::TableId;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Phase, PlayerId, Spot, WagerId};

use super::{day_report, parse_date};
use crate::audit::Body;
use crate::casino::{Casino, Reply, Request};
use crate::ledger::{AccountKind, Cause, Transfer, TransferKind};
use crate::store::Commit;
use crate::trust::{Actor, Mode};

/// 2026-03-10 06:00 UTC: gaming day 2026-03-10 begins (UTC 06:00).
const T: u64 = 1_773_122_400_000;
const NSW: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n";
const AU: &str = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n";

struct Floor {
    casino: Casino,
    now: Arc<AtomicU64>,
    commit: Commit,
}

impl Floor {
    fn new() -> Floor {
        let now = Arc::new(AtomicU64::new(T - 3_600_000));
        let mut casino = Casino::new();
        let clock = now.clone();
        casino.clock = Arc::new(move || clock.load(Ordering::SeqCst));
        let mut commit = Commit::default();
        casino.create_table(TableId(1), "Sydney", "nsw-2021", NSW, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
        casino
            .create_table(TableId(2), "Melbourne", "au-casino", AU, Mode::Rng, Money(100_000_000), &mut commit)
            .unwrap();
        let mut f = Floor { casino, now, commit };
        for p in 1..=3 {
            f.send(Request::Deposit {
                player: PlayerId(p),
                amount: Money(1_000_000),
                key: format!("p{p}").parse().unwrap(),
            });
        }
        f
    }

    fn send(&mut self, r: Request) -> Reply {
        self.casino.handle(r, &mut self.commit)
    }

    fn server(&mut self, table: TableId, command: Command) -> Reply {
        self.send(Request::Table { table, command, by: Actor::Server })
    }

    /// One coup at `table`: betting opens, each `(player, bet, amount)` is
    /// wagered, then the server deals and settles it. The wagers placed.
    fn coup(&mut self, table: TableId, wagers: &[(u32, Bet, i64)]) -> Vec<WagerId> {
        if matches!(self.casino.tables[&table].engine.phase(), Phase::NoShoe | Phase::ShoeOver) {
            self.send(Request::NewShoe { table });
        }
        self.server(table, Command::OpenBetting { no_bet: false, closes_at: None });
        let mut placed = Vec::new();
        for (i, &(p, bet, amount)) in wagers.iter().enumerate() {
            let spot = Spot::Box(1 + i as u8 % 5);
            let (player, key) = (PlayerId(p), format!("{table}-{}-{i}", self.commit.records.len()).parse().unwrap());
            match self.send(Request::Wager { table, player, spot, bet, amount: Money(amount), ante: Money::ZERO, key })
            {
                Reply::Wager { wager, .. } => placed.push(wager),
                other => panic!("{other:?}"),
            }
        }
        self.server(table, Command::CloseBetting);
        for _ in 0..20 {
            if self.casino.tables[&table].engine.phase() == Phase::Ready && !self.casino.settling() {
                return placed;
            }
            self.server(table, Command::DealNext);
            self.casino.settle_all(&mut self.commit);
        }
        panic!("coup at table {table} not over: {:?}", self.casino.tables[&table].engine.phase());
    }

    fn at(&self, ms: u64) {
        self.now.store(ms, Ordering::SeqCst);
    }
}

fn play(f: &mut Floor) -> Vec<(TableId, WagerId)> {
    let round = [(1, Bet::Banker, 10_000), (2, Bet::Player, 5_000), (3, Bet::Tie, 1_000)];
    // The day before: these are not the day's.
    f.at(T - 600_000);
    f.coup(TableId(1), &round);
    f.coup(TableId(2), &round);
    // The day: twelve coups at each table, a minute apart.
    let mut day = Vec::new();
    for i in 0..12u64 {
        f.at(T + 60_000 * (i + 1));
        let side = [(1, Bet::PlayerPair, 1_000), (2, Bet::Banker, 2_500), (3, Bet::Player, 7_000)];
        day.extend(f.coup(TableId(1), &round).into_iter().map(|w| (TableId(1), w)));
        day.extend(f.coup(TableId(1), &side[..1 + (i as usize % 3)]).into_iter().map(|w| (TableId(1), w)));
        day.extend(f.coup(TableId(2), &round).into_iter().map(|w| (TableId(2), w)));
    }
    day
}

/// What the house's accounts of each table gained from `wagers`' posted
/// transfers.
fn house_gain(f: &Floor, transfers: &[Transfer], wagers: &[(TableId, WagerId)]) -> i64 {
    let house = |id| {
        f.casino.ledger.account(id).is_some_and(|a| {
            matches!(a.kind, AccountKind::House { .. } | AccountKind::Commission { .. } | AccountKind::Antes { .. })
        })
    };
    let mut gain = 0;
    for t in transfers {
        let Cause::Wager { table, wager } = t.cause else { continue };
        if !wagers.contains(&(table, wager)) || matches!(t.kind, TransferKind::Pending | TransferKind::VoidOf(_)) {
            continue;
        }
        gain += if house(t.credit) { t.amount.0 } else { 0 } - if house(t.debit) { t.amount.0 } else { 0 };
    }
    gain
}

#[test]
fn the_days_win_is_what_the_house_accounts_gained_to_the_cent() {
    let mut f = Floor::new();
    let day = play(&mut f);
    let transfers: Vec<Transfer> = f.commit.ledger.iter().flat_map(|c| c.transfers.clone()).collect();
    let (casino, tables) = chains(&f);
    let r = day_report(parse_date("2026-03-10").unwrap(), &casino, &tables, &|_| None);
    let gain = house_gain(&f, &transfers, &day);
    assert_ne!(gain, 0, "the house won or lost something");
    assert_eq!(r.casino.win.0, gain, "the report's win against the ledger");
    assert_eq!(r.casino.coups, 36);
    let wagers = 12 * 3 + (1 + 2 + 3) * 4 + 12 * 3;
    assert_eq!(r.casino.wagers, wagers);
    assert_eq!(r.casino.drop.0, 12 * 16_000 * 2 + 4 * (1_000 + 3_500 + 10_500));
    for t in &r.tables {
        let own: Vec<_> = day.iter().copied().filter(|(id, _)| *id == t.table).collect();
        assert_eq!(t.figures.win.0, house_gain(&f, &transfers, &own), "table {}", t.table);
    }
    // The players' nets are the house's win, negated.
    assert_eq!(r.players.iter().map(|p| p.won.0).sum::<i64>(), -r.casino.win.0);
    // The day before holds only its two coups.
    let before = day_report(parse_date("2026-03-09").unwrap(), &casino, &tables, &|_| None);
    assert_eq!((before.casino.coups, before.casino.drop), (2, Money(32_000)));
    assert_eq!(before.cash.deposits, Money(3_000_000), "the deposits were made the day before");
}

/// The ratings (issue 50, part 5) of the same day: each player's net is
/// what the ledger moved for their wagers, to the cent; a player's theo is
/// each stake times its bet's exact edge; each wager's EV when placed is
/// the Player Pair's closed form from the cards then unseen.
#[test]
fn the_ratings_reconcile_with_the_ledger_and_price_each_wager() {
    let mut f = Floor::new();
    let day = play(&mut f);
    let transfers: Vec<Transfer> = f.commit.ledger.iter().flat_map(|c| c.transfers.clone()).collect();
    let (casino, tables) = chains(&f);
    let date = parse_date("2026-03-10").unwrap();
    let r = super::ratings(date, &casino, &tables, &|_| None);
    for p in 1..=3u32 {
        let mine: Vec<_> = day.iter().copied().filter(|(t, w)| owner(&f, *t, *w) == PlayerId(p)).collect();
        let won: i64 = r.players.iter().filter(|l| l.player == p).map(|l| l.won.0).sum();
        assert_eq!(won, -house_gain(&f, &transfers, &mine), "player {p}'s net against the ledger");
    }
    // Player 1 at table 1: Banker 100.00 at 12 coups and the Player Pair
    // 10.00 at 12 more: 24 decisions over 11 minutes (a coup a minute).
    let one = r.players.iter().find(|l| (l.player, l.table) == (1, TableId(1))).unwrap();
    assert_eq!((one.wagers, one.decisions, one.wagered), (24, 24, Money(132_000)));
    assert_eq!((one.minutes, one.average_bet), (11, Money(5_500)));
    let nsw = baccarat_rules::profiles::builtin("nsw-2021").unwrap();
    let config = baccarat_rules::TableConfig::from_toml(&nsw, NSW).unwrap();
    let odds = baccarat_math::report(&nsw, &baccarat_math::Shoe::decks(8).unwrap(), Some(8));
    let edge = |bet: Bet| {
        let table = &config.offer(bet).unwrap().pay_table.name;
        odds.bets.iter().find(|b| b.bet == bet && &b.pay_table == table).unwrap().house_edge_exact()
    };
    let ((bn, bd), (pn, pd)) = (edge(Bet::Banker), edge(Bet::PlayerPair));
    let exact = super::theo::round(12 * 10_000 * bn * pd + 12 * 1_000 * pn * bd, bd * pd);
    assert_eq!(i128::from(one.theo.0), exact, "theo = Σ stake × the exact edge");
    let pair = r.taking.iter().find(|l| (l.player, l.table, l.bet) == (1, TableId(1), Bet::PlayerPair)).unwrap();
    assert_eq!((pair.wagers, pair.wagers_seen.len()), (12, 10), "{:?} {one:?}", r.taking);
    // A wager a player made at both tables is also tested across them
    // (`taking::across`); one made at a single table is not.
    let mut across: Vec<(u32, Bet)> = r.across.iter().map(|a| (a.player, a.bet)).collect();
    across.sort();
    assert_eq!(across, vec![(1, Bet::Banker), (2, Bet::Player), (3, Bet::Tie)], "{:?}", r.across);
    for a in &r.across {
        let lines: Vec<_> = r.taking.iter().filter(|l| (l.player, l.bet) == (a.player, a.bet)).collect();
        assert_eq!(a.tables, vec![TableId(1), TableId(2)]);
        assert_eq!(a.found.wagers, lines.iter().map(|l| l.wagers).sum::<u64>());
        assert_eq!(a.found.z, lines.iter().map(|l| l.z).sum::<f64>() / 2f64.sqrt());
    }
    for w in &pair.wagers_seen {
        let n: i128 = w.unseen.iter().map(|&k| i128::from(k)).sum();
        let same: i128 = w.unseen.iter().map(|&k| i128::from(k) * (i128::from(k) - 1)).sum();
        let closed = baccarat_math::Ratio::new(12 * same - n * (n - 1), n * (n - 1));
        assert_eq!(w.ev, format!("{}/{}", closed.num, closed.den), "{w:?}");
    }
}

fn chains(f: &Floor) -> (Vec<crate::audit::CasinoEvent>, Vec<(TableId, Vec<Body>)>) {
    let mut casino = Vec::new();
    let mut tables: Vec<(TableId, Vec<Body>)> = vec![(TableId(1), Vec::new()), (TableId(2), Vec::new())];
    for (chain, r) in &f.commit.records {
        let b = Body::decode(&r.body).unwrap();
        match *chain {
            TableId(0) => casino.push(b.casino.unwrap()),
            t => tables[t.0 as usize - 1].1.push(b),
        }
    }
    (casino, tables)
}

fn owner(f: &Floor, table: TableId, wager: WagerId) -> PlayerId {
    f.commit
        .records
        .iter()
        .filter(|(c, _)| *c == table)
        .find_map(|(_, r)| match Body::decode(&r.body).ok()?.event? {
            baccarat_table::Event::WagerPlaced { wager: w } if w.id == wager => Some(w.player),
            _ => None,
        })
        .unwrap()
}
