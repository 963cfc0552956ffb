//! Random command sequences, legal and illegal, through the engine: refused
//! commands change nothing, the state always equals the replay of its events,
//! and every wager's money is accounted for.

use baccarat_table::PlayerId;
use std::collections::HashMap;

use baccarat_rules::{profiles, Bet, Money, TableConfig, TableConfigSpec};
use baccarat_table::Cut;
use baccarat_table::Seed;
use baccarat_table::{Command, Event, ShoeSource, Spot, State, Table, TableSetup, WagerId};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn setup(rulebook: &str, extra: &str) -> TableSetup {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 500\nmax = 20000\ndifferential = 10000\n{extra}");
    let spec: TableConfigSpec = toml::from_str(&text).unwrap();
    TableSetup::new(rb.clone(), TableConfig::new(&rb, &spec).unwrap(), None).unwrap()
}

#[derive(Clone, Debug)]
enum Op {
    Start(u64, usize),
    Open(bool),
    Place(u32, usize, i64),
    Withdraw(u32, usize),
    Approve(usize),
    Refuse(usize),
    Close,
    Deal,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => (any::<u64>(), 52usize..365).prop_map(|(s, at)| Op::Start(s, at)),
        5 => Just(Op::Open(false)),
        1 => Just(Op::Open(true)),
        8 => (1u32..5, 0usize..6, prop_oneof![4 => (5i64..200).prop_map(|a| a * 100), 1 => 0i64..30_000]).prop_map(|(p, b, a)| Op::Place(p, b, a)),
        2 => (1u32..5, 0usize..12).prop_map(|(p, i)| Op::Withdraw(p, i)),
        1 => (0usize..12).prop_map(Op::Approve),
        1 => (0usize..12).prop_map(Op::Refuse),
        5 => Just(Op::Close),
        20 => Just(Op::Deal),
    ]
}

const BETS: [Bet; 6] = [Bet::Player, Bet::Banker, Bet::Tie, Bet::PlayerPair, Bet::BankerPair, Bet::SuperSix];

fn command(o: &Op, placed: &[WagerId]) -> Command {
    let id = |i: &usize| placed.get(*i).copied().unwrap_or(WagerId(9_999));
    match o {
        Op::Start(s, at) => Command::StartShoe {
            source: ShoeSource::Shuffle { seed: Seed::from_u64(*s) },
            cut: Some(Cut { at: *at, from_back: 20 }),
            burn: None,
            show_burn: false,
        },
        Op::Open(nb) => Command::OpenBetting { no_bet: *nb, closes_at: None },
        Op::Place(p, b, a) => Command::PlaceWager {
            player: PlayerId(*p),
            spot: Spot::Box(*p as u8),
            bet: BETS[*b],
            amount: Money(*a),
            ante: Money(0),
            token: *p == 4,
            at_ms: None,
        },
        Op::Withdraw(p, i) => Command::WithdrawWager { player: PlayerId(*p), wager: id(i) },
        Op::Approve(i) => Command::ApproveWager { wager: id(i) },
        Op::Refuse(i) => Command::RefuseWager { wager: id(i) },
        Op::Close => Command::CloseBetting,
        Op::Deal => Command::DealNext,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn random_commands_keep_every_invariant(ops in prop::collection::vec(op(), 1..400), rulebook in prop_oneof![Just("nsw-2021"), Just("european-casino")]) {
        let extra = "[bets.player_pair]\n[bets.banker_pair]\n" .to_string() + if rulebook == "nsw-2021" { "[bets.super_six]\n" } else { "" };
        let mut t = Table::new(setup(rulebook, &extra));
        let mut log: Vec<Event> = Vec::new();
        let mut placed: Vec<WagerId> = Vec::new();
        // Money on the layout per wager, and what came back to the players.
        let mut stake: HashMap<WagerId, Money> = HashMap::new();
        let mut settled = 0usize;
        let start = [Op::Start(1, 200)];
        for (i, o) in start.iter().chain(&ops).enumerate() {
            // A checkpoint of the state at any point restores to an equal
            // table, which then decides every later command the same way.
            if i % 37 == 0 {
                let json = serde_json::to_string(t.state()).expect("state serialises");
                let state: State = serde_json::from_str(&json).expect("state reads back");
                let restored = Table::restore(setup(rulebook, &extra), state);
                prop_assert!(restored == t, "a checkpoint restored to another state");
                t = restored;
            }
            let before = t.clone();
            match t.execute(command(o, &placed)) {
                Err(_) => prop_assert!(t == before, "a refused command changed the table: {:?}", o),
                Ok(events) => {
                    for e in &events {
                        match e {
                            Event::WagerPlaced { wager } => {
                                placed.push(wager.id);
                                stake.insert(wager.id, wager.amount);
                            }
                            Event::WagerWithdrawn { wager } | Event::WagerReturned { wager, .. } => {
                                prop_assert!(stake.remove(wager).is_some());
                            }
                            Event::WagerReduced { wager, to, .. } => {
                                let s = stake.get_mut(wager).expect("reduced wager exists");
                                prop_assert!(*to < *s && to.0 > 0);
                                *s = *to;
                            }
                            Event::WagerSettled { wager, settlement, .. } => {
                                settled += 1;
                                let s = stake.remove(wager).expect("settled once");
                                prop_assert_eq!(settlement.stake, s);
                                prop_assert_eq!(settlement.returned + settlement.lost, s);
                                prop_assert!(settlement.won.0 >= 0 && settlement.commission <= settlement.won);
                            }
                            _ => {}
                        }
                    }
                    log.extend(events);
                }
            }
        }
        // Wagers still held are exactly those on the coup in progress.
        let open: Vec<WagerId> = t.state().coup.wagers.iter().map(|w| w.id).collect();
        let mut held: Vec<WagerId> = stake.keys().copied().collect();
        held.sort();
        let mut open_sorted = open.clone();
        open_sorted.sort();
        prop_assert_eq!(held, open_sorted);
        prop_assert!(Table::replay(setup(rulebook, &extra), &log) == t);
        let _ = settled;
    }
}

/// The generator reaches settlement often, so the property exercises it.
#[test]
fn z_the_random_sequences_settle_wagers() {
    // Run the property's generator directly so this test does not depend on order.
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let mut total = 0;
    for _ in 0..100 {
        let ops = prop::collection::vec(op(), 1..400).new_tree(&mut runner).unwrap().current();
        let mut t = Table::new(setup("nsw-2021", "[bets.player_pair]\n"));
        let mut placed = Vec::new();
        for o in [Op::Start(1, 200)].iter().chain(&ops) {
            if let Ok(ev) = t.execute(command(o, &placed)) {
                for e in ev {
                    match e {
                        Event::WagerPlaced { wager } => placed.push(wager.id),
                        Event::WagerSettled { .. } => total += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    assert!(total > 300, "only {total} wagers settled in 100 random sequences");
}
