//! The casino core: wagers held, coups settled into the ledger, every event in the
//! audit chain, retries answered once, and everything durable in the store.

use baccarat_casino::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_core::audit::verify;
use baccarat_core::store::{Commit, SqliteStore, Store};
use baccarat_core::trust::Actor;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Bet, Money};
use baccarat_server::auth::Role;
use baccarat_table::PlayerId;
use baccarat_table::{Command, Phase, Spot};

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.player_pair]\n";

fn casino() -> (Casino, Commit) {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    for p in 1..=3 {
        c.handle(
            Request::Deposit { player: PlayerId(p), amount: Money(100_000), key: "start".parse().unwrap() },
            &mut commit,
        );
    }
    (c, commit)
}

fn wager(player: u32, bet: Bet, amount: i64, key: &str) -> Request {
    Request::Wager {
        table: TableId(1),
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        key: key.parse().unwrap(),
        ante: Money::ZERO,
    }
}

#[test]
fn a_coup_end_to_end_through_the_ledger_and_the_audit_chain() {
    let (mut c, mut commit) = casino();
    assert!(matches!(c.handle(Request::NewShoe { table: TableId(1) }, &mut commit), Reply::Events { .. }));
    c.handle(
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let first = c.handle(wager(1, Bet::Banker, 5000, "a"), &mut commit);
    let Reply::Wager { balance, .. } = first.clone() else { panic!("{first:?}") };
    assert_eq!(balance, Money(95_000));
    // A retry with the same key returns the first answer and holds nothing more.
    assert_eq!(c.handle(wager(1, Bet::Banker, 5000, "a"), &mut commit), first);
    assert_eq!(c.balance(PlayerId(1)).unwrap().1, Money(95_000));
    c.handle(wager(2, Bet::Player, 3000, "b"), &mut commit);
    c.handle(wager(3, Bet::PlayerPair, 1000, "c"), &mut commit);
    // Refused by the rules: nothing held.
    let r = c.handle(wager(3, Bet::Tie, 50, "d"), &mut commit);
    assert!(matches!(&r, Reply::Refused { rule: Some(rule), .. } if rule.contains("NSW 6.1")), "{r:?}");
    let r = c.handle(wager(2, Bet::Tie, 200_000, "e"), &mut commit);
    assert!(
        matches!(&r, Reply::Refused { rule: Some(rule), .. } if rule.contains("NSW 6.1")),
        "over the maximum: {r:?}"
    );
    let r = c.handle(wager(2, Bet::Tie, 100_000, "e2"), &mut commit);
    assert!(r.code() == Some(Code::Wallet), "{r:?}");
    c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, &mut commit);
    while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
        c.handle(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server }, &mut commit);
    }
    assert_eq!(c.phase(TableId(1)), Some(Phase::Ready));
    c.ledger.check().unwrap();
    let total: i64 = (1..=3).map(|p| c.balance(PlayerId(p)).unwrap().0 .0).sum();
    let nets: i64 = (1..=3).map(|p| c.balance(PlayerId(p)).unwrap().0 .0 - 100_000).sum();
    assert_eq!(total, 300_000 + nets);
    for p in 1..=3 {
        let (bal, avail) = c.balance(PlayerId(p)).unwrap();
        assert_eq!(bal, avail, "no hold is left after settlement");
    }

    // Every event is in the chain, with its rulebook and engine.
    let records: Vec<_> = commit.records.iter().filter(|(t, _)| *t == TableId(1)).map(|(_, r)| r.clone()).collect();
    verify(&records).unwrap();
    // The first record is the table's configuration; the first engine event names its rulebook.
    assert!(records[0].body.contains("table_configured"));
    assert!(records[1].body.contains("\"rulebook\":\"nsw-2021\"") && records[1].body.contains("rulebook_sha256"));
    assert!(records.iter().any(|r| r.body.contains("wager_settled")));
    // The coup's opening record names the rulebook, its version hash and the
    // engine; its wager records lean on it through the chain.
    for r in records.iter().filter(|r| r.body.contains("\"event\":{")) {
        let header = r.body.contains("\"rulebook_sha256\"") && r.body.contains("\"engine\"");
        let wager = r.body.contains("\"wager_placed\"") || r.body.contains("\"wager_settled\"");
        assert_eq!(header, !wager, "{}", r.body);
    }

    // The store takes it all in one transaction and gives back the same books.
    let mut store = SqliteStore::memory().unwrap();
    store.commit(&commit).unwrap();
    let snap = store.load().unwrap();
    baccarat_core::ledger::check_log(&snap.accounts, &snap.transfers).unwrap();
    let l = Casino::recover(&store).unwrap().ledger;
    for p in 1..=3 {
        let id = l.find(&baccarat_core::ledger::AccountKind::Wallet { player: PlayerId(p) }).unwrap();
        assert_eq!(Money(l.account(id).unwrap().balance), c.balance(PlayerId(p)).unwrap().0);
    }
}

#[test]
fn withdrawn_and_refused_wagers_release_their_holds() {
    let (mut c, mut commit) = casino();
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    c.handle(
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let Reply::Wager { wager: w1, .. } = c.handle(wager(1, Bet::Player, 5000, "x"), &mut commit) else { panic!() };
    let Reply::Wager { wager: w2, .. } = c.handle(wager(2, Bet::Banker, 5000, "y"), &mut commit) else { panic!() };
    c.handle(Request::Withdraw { table: TableId(1), player: PlayerId(1), wager: w1 }, &mut commit);
    let supervisor = Actor::Person { user: UserId(90), role: Role::Supervisor };
    c.handle(
        Request::Table { table: TableId(1), command: Command::RefuseWager { wager: w2 }, by: supervisor },
        &mut commit,
    );
    assert_eq!(c.balance(PlayerId(1)).unwrap(), (Money(100_000), Money(100_000)));
    assert_eq!(c.balance(PlayerId(2)).unwrap(), (Money(100_000), Money(100_000)));
    c.ledger.check().unwrap();
}

/// DESIGN 9, "a limit on everything": a casino runs at most `MAX_TABLES` tables
/// and a coup takes at most `MAX_WAGERS_PER_COUP` wagers; past either, the
/// request is refused and nothing changes.
#[test]
fn tables_and_wagers_per_coup_are_bounded() {
    use baccarat_casino::casino::{MAX_TABLES, MAX_WAGERS_PER_COUP};
    let mut c = Casino::new();
    let mut commit = Commit::default();
    let config = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 100\nmax = 10000000000\n";
    for id in (1..=MAX_TABLES as u32).map(TableId) {
        c.create_table(id, "T", "nsw-2021", config, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    }
    let r = c.handle(
        Request::CreateTable {
            name: "one more".into(),
            rulebook: "nsw-2021".into(),
            config: config.into(),
            mode: Mode::Rng,
            float: None,
        },
        &mut commit,
    );
    assert!(matches!(&r, Reply::Refused { message, .. } if message.contains("at most")), "{r:?}");
    assert_eq!(c.tables.len(), MAX_TABLES);

    c.handle(
        Request::Deposit { player: PlayerId(1), amount: Money(1_000_000_000_000), key: "in".parse().unwrap() },
        &mut commit,
    );
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    c.handle(
        Request::Table {
            table: TableId(1),
            command: Command::OpenBetting { no_bet: false, closes_at: None },
            by: Actor::Server,
        },
        &mut commit,
    );
    let mut commit = Commit::default();
    for i in 0..MAX_WAGERS_PER_COUP {
        let r = c.handle(wager(1, Bet::Banker, 100, &format!("w{i}")), &mut commit);
        assert!(matches!(r, Reply::Wager { .. }), "wager {i}: {r:?}");
    }
    let before = c.balance(PlayerId(1)).unwrap();
    let r = c.handle(wager(1, Bet::Banker, 100, "over"), &mut commit);
    assert!(r.code() == Some(Code::Bounds), "{r:?}");
    assert_eq!(c.balance(PlayerId(1)).unwrap(), before, "nothing held for the refused wager");
}

/// Idempotency keys under random reuse (issue 11): singles, slips and deposits
/// from two players, keys drawn from a small set (with `K#0`, which an old slip
/// line key spelled), bodies from a small set, and coups passing between them.
/// Every key has exactly one effect: its first request that took effect; a
/// retry with the same body answers the same wagers and holds nothing more;
/// another body under the key is refused (idempotency) and changes nothing.
mod keys {
    use super::*;
    use baccarat_casino::casino::SlipLine;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[derive(Clone, Debug)]
    enum Op {
        Single { player: u32, key: usize, body: usize },
        Slip { player: u32, key: usize, body: usize },
        Deposit { player: u32, key: usize, amount: i64 },
        NextCoup,
    }

    const KEYS: [&str; 4] = ["K", "K#0", "L", "slip:1:0:K"];
    const SINGLES: [(Bet, i64); 3] = [(Bet::Banker, 1000), (Bet::Player, 2000), (Bet::Banker, 1050)];
    const SLIPS: [&[(Bet, i64)]; 2] = [&[(Bet::Banker, 1000), (Bet::PlayerPair, 1000)], &[(Bet::Player, 1000)]];

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (1..=2u32, 0..KEYS.len(), 0..SINGLES.len()).prop_map(|(player, key, body)| Op::Single { player, key, body }),
            3 => (1..=2u32, 0..KEYS.len(), 0..SLIPS.len()).prop_map(|(player, key, body)| Op::Slip { player, key, body }),
            1 => (1..=2u32, 0..KEYS.len(), prop_oneof![Just(500i64), Just(700)]).prop_map(|(player, key, amount)| Op::Deposit { player, key, amount }),
            1 => Just(Op::NextCoup),
        ]
    }

    fn open(c: &mut Casino, commit: &mut Commit) {
        if c.phase(TableId(1)) != Some(Phase::Ready) {
            c.handle(Request::NewShoe { table: TableId(1) }, commit);
        }
        let open = Command::OpenBetting { no_bet: false, closes_at: None };
        c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, commit);
    }

    fn next_coup(c: &mut Casino, commit: &mut Commit) {
        c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, commit);
        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
            c.handle(Request::Table { table: TableId(1), command: Command::DealNext, by: Actor::Server }, commit);
        }
        open(c, commit);
    }

    /// The wagers a reply placed or answered, line by line.
    fn wagers(r: &Reply) -> Vec<Option<u64>> {
        match r {
            Reply::Wager { wager, .. } => vec![Some(wager.0)],
            Reply::Wagers { results, .. } => results.iter().flat_map(wagers).collect(),
            _ => vec![None],
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
        #[test]
        fn every_key_has_exactly_one_effect(ops in proptest::collection::vec(op(), 1..40)) {
            let (mut c, mut commit) = casino();
            open(&mut c, &mut commit);
            // (player, route, key) -> (body, the reply that took effect)
            let mut bound: HashMap<(u32, &str, usize), (String, Reply)> = HashMap::new();
            let mut effects = 0usize;
            for op in ops {
                let transfers = c.ledger.transfer_count() as usize;
                let (slot, body, req) = match &op {
                    Op::NextCoup => { next_coup(&mut c, &mut commit); continue; }
                    Op::Single { player, key, body } => {
                        let (bet, amount) = SINGLES[*body];
                        ((*player, "wager", *key), format!("single{body}"), wager(*player, bet, amount, KEYS[*key]))
                    }
                    Op::Slip { player, key, body } => {
                        let slip = SLIPS[*body].iter().map(|&(bet, amount)| SlipLine { spot: Spot::Box(*player as u8), bet, amount: Money(amount), ante: Money::ZERO }).collect();
                        ((*player, "wager", *key), format!("slip{body}"), Request::Wagers { table: TableId(1), player: PlayerId(*player), slip, key: KEYS[*key].parse().unwrap() })
                    }
                    Op::Deposit { player, key, amount } => {
                        ((*player, "deposit", *key), format!("deposit{amount}"), Request::Deposit { player: PlayerId(*player), amount: Money(*amount), key: KEYS[*key].parse().unwrap() })
                    }
                };
                let r = c.handle(req, &mut commit);
                match bound.get(&slot) {
                    Some((first, _)) if *first != body => {
                        prop_assert_eq!(r.code(), Some(Code::Idempotency), "{:?} after {}: {:?}", op, first, r);
                        prop_assert_eq!(c.ledger.transfer_count() as usize, transfers, "a refused reuse changes nothing");
                    }
                    Some((_, answer)) => {
                        prop_assert_eq!(wagers(&r), wagers(answer), "a retry answers the same wagers: {:?}", op);
                        prop_assert_eq!(c.ledger.transfer_count() as usize, transfers, "a retry holds nothing more");
                    }
                    None => {
                        let placed = wagers(&r).iter().filter(|w| w.is_some()).count();
                        let took_effect = match &op {
                            // A slip none of whose lines was placed binds
                            // nothing (`casino/slip.rs`): at this RNG table a
                            // Player line after the player's Banker wager is
                            // refused (NSW 5.6.6: no supervisor to approve).
                            Op::Slip { .. } => placed > 0,
                            Op::Deposit { .. } => matches!(r, Reply::Deposit { .. }),
                            _ => placed > 0,
                        };
                        if matches!(op, Op::Deposit { .. }) {
                            prop_assert!(took_effect, "{:?}", r);
                        } else {
                            effects += placed;
                        }
                        if took_effect {
                            bound.insert(slot, (body, r.clone()));
                        } else {
                            prop_assert_eq!(c.ledger.transfer_count() as usize, transfers, "a refusal holds nothing");
                        }
                    }
                }
            }
            // Exactly one hold per effect: every wager hold in the ledger is one
            // the model counted.
            let holds = commit
                .ledger
                .iter()
                .flat_map(|ch| &ch.transfers)
                .filter(|t| t.kind == baccarat_core::ledger::TransferKind::Pending)
                .count();
            prop_assert_eq!(holds, effects);
            c.ledger.check().unwrap();
        }
    }
}

/// A new slip while wagers are closed is refused line by line for the time,
/// citing the rule, and its key is not recorded: sent again once betting is
/// open it is placed. A slip placed while betting was open and retried after
/// it closed gets its first answers, not the refusal.
#[test]
fn a_slip_refused_for_closed_betting_records_nothing_and_a_retry_still_gets_its_answers() {
    use baccarat_casino::casino::SlipLine;
    let (mut c, mut commit) = casino();
    let slip = |key: &str| Request::Wagers {
        table: TableId(1),
        player: PlayerId(1),
        slip: vec![
            SlipLine { spot: Spot::Box(1), bet: Bet::Banker, amount: Money(1000), ante: Money::ZERO },
            SlipLine { spot: Spot::Box(1), bet: Bet::Tie, amount: Money(1000), ante: Money::ZERO },
        ],
        key: key.parse().unwrap(),
    };
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    let answers = commit.ledger.iter().filter(|ch| ch.answer.is_some()).count();
    let r = c.handle(slip("early"), &mut commit);
    let Reply::Wagers { results, .. } = &r else { panic!("{r:?}") };
    for line in results {
        let Reply::Refused { code, rule, message } = line else { panic!("{r:?}") };
        assert_eq!(*code, Code::Rule, "{r:?}");
        assert!(rule.as_deref().is_some_and(|c| c.starts_with("NSW")), "{r:?}");
        assert!(message.contains("not open"), "{r:?}");
    }
    assert_eq!(commit.ledger.iter().filter(|ch| ch.answer.is_some()).count(), answers, "no key was recorded");
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, &mut commit);
    let placed = c.handle(slip("early"), &mut commit);
    let Reply::Wagers { results, .. } = &placed else { panic!("{placed:?}") };
    assert!(results.iter().all(|l| matches!(l, Reply::Wager { .. })), "{placed:?}");
    c.handle(Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server }, &mut commit);
    assert_eq!(c.phase(TableId(1)), Some(Phase::Closed));
    let again = c.handle(slip("early"), &mut commit);
    let (Reply::Wagers { results: a, .. }, Reply::Wagers { results: b, .. }) = (&again, &placed) else {
        panic!("{again:?}")
    };
    let ids = |r: &[Reply]| {
        r.iter().map(|l| if let Reply::Wager { wager, .. } = l { Some(*wager) } else { None }).collect::<Vec<_>>()
    };
    assert_eq!(ids(a), ids(b), "the retry after the close is answered with the same wagers");
}

/// A slip none of whose lines is placed (here: the wallet holds too little)
/// had no effect and records nothing, as a refused single wager does: sent
/// again under its key once the wallet can hold it, it is placed. A slip with
/// one line placed is bound: sent again, it gets its first answers.
#[test]
fn a_slip_with_no_line_placed_records_nothing_and_may_be_sent_again() {
    use baccarat_casino::casino::SlipLine;
    let (mut c, mut commit) = casino();
    let p = PlayerId(77);
    let slip = |amounts: &[i64]| Request::Wagers {
        table: TableId(1),
        player: p,
        slip: amounts
            .iter()
            .map(|&a| SlipLine { spot: Spot::Box(1), bet: Bet::Banker, amount: Money(a), ante: Money::ZERO })
            .collect(),
        key: "full".parse().unwrap(),
    };
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, &mut commit);
    let answers = |commit: &Commit| commit.ledger.iter().filter(|ch| ch.answer.is_some()).count();
    let before = answers(&commit);
    let r = c.handle(slip(&[1000, 2000]), &mut commit);
    let Reply::Wagers { results, .. } = &r else { panic!("{r:?}") };
    assert!(results.iter().all(|l| matches!(l, Reply::Refused { code: Code::Wallet, .. })), "{r:?}");
    assert_eq!(answers(&commit), before, "no key was recorded");
    c.handle(Request::Deposit { player: p, amount: Money(2500), key: "d".parse().unwrap() }, &mut commit);
    let before = answers(&commit);
    let placed = c.handle(slip(&[1000, 2000]), &mut commit);
    let Reply::Wagers { results, balance } = &placed else { panic!("{placed:?}") };
    assert!(matches!(results[0], Reply::Wager { .. }), "{placed:?}");
    assert!(matches!(results[1], Reply::Refused { code: Code::Wallet, .. }), "{placed:?}");
    assert_eq!(*balance, Money(1500));
    assert_eq!(answers(&commit), before + 1, "one line placed: the slip is bound");
    let again = c.handle(slip(&[1000, 2000]), &mut commit);
    let Reply::Wagers { results: a, balance: b } = &again else { panic!("{again:?}") };
    assert_eq!(*b, Money(1500), "nothing placed again");
    assert!(matches!((&a[0], &results[0]), (Reply::Wager { wager: x, .. }, Reply::Wager { wager: y, .. }) if x == y));
    assert!(matches!(a[1], Reply::Refused { code: Code::Idempotency, .. }), "{again:?}");
}

/// The refusal the HTTP threads give without the writer (`http/early.rs`) is
/// the writer's own, for a new key, at every step of three coups and a new
/// shoe (one of them settled in chunks): a single wager, a token wager and a
/// slip, compared whole (rule, message, and a slip's balance). It is given
/// only while the table takes no wagers, and then it writes nothing.
#[test]
fn the_refusal_without_the_writer_is_the_writers_own_at_every_step() {
    use baccarat_casino::casino::SlipLine;
    use baccarat_casino::Views;
    use baccarat_server::http::early::closed_reply;
    let (mut c, mut commit) = casino();
    let requests = |n: usize| {
        let key = format!("probe-{n}");
        let typed: baccarat_core::ledger::keys::IdempotencyKey = key.parse().unwrap();
        vec![
            wager(1, Bet::Banker, 1000, &key),
            Request::TokenWager {
                table: TableId(1),
                player: PlayerId(2),
                spot: Spot::Box(2),
                bet: Bet::Player,
                amount: Money(1000),
                key: typed.clone(),
            },
            Request::Wagers {
                table: TableId(1),
                player: PlayerId(3),
                slip: vec![
                    SlipLine { spot: Spot::Box(3), bet: Bet::Banker, amount: Money(1000), ante: Money::ZERO },
                    SlipLine { spot: Spot::Box(3), bet: Bet::Tie, amount: Money(1000), ante: Money::ZERO },
                ],
                key: typed,
            },
        ]
    };
    use baccarat_casino::casino::settle::FIRST_CHUNK;
    let (mut steps, mut compared, mut open_seen, mut settling_seen) = (0, 0, 0, 0);
    let mut step = |c: &mut Casino, commit: &mut Commit| {
        steps += 1;
        let mut views = Views::default();
        views.rebuild(c);
        for req in requests(steps) {
            let early = closed_reply(&views, &req);
            if c.phase(TableId(1)) == Some(Phase::Betting) {
                assert_eq!(early, None, "never while the table takes wagers");
                open_seen += 1;
                continue;
            }
            let early = early.unwrap_or_else(|| panic!("closed in {:?}, and no refusal", c.phase(TableId(1))));
            let (records, ledger) = (commit.records.len(), commit.ledger.len());
            assert_eq!(c.handle(req, commit), early, "in {:?}", c.phase(TableId(1)));
            assert_eq!((commit.records.len(), commit.ledger.len()), (records, ledger), "the refusal wrote nothing");
            compared += 1;
        }
    };
    let table = |command| Request::Table { table: TableId(1), command, by: Actor::Server };
    for coup in 0..4 {
        if coup == 0 || coup == 3 {
            step(&mut c, &mut commit);
            c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
        }
        step(&mut c, &mut commit);
        c.handle(table(Command::OpenBetting { no_bet: false, closes_at: None }), &mut commit);
        step(&mut c, &mut commit);
        assert!(matches!(
            c.handle(wager(1, Bet::Banker, 2000, &format!("real-{coup}")), &mut commit),
            Reply::Wager { .. }
        ));
        // One coup too big to settle in the command that completes it: the
        // table is settling for some batches (`casino/settle.rs`).
        if coup == 1 {
            for i in 0..FIRST_CHUNK * 2 / 10 {
                let player = 2 + i as u32 % 2;
                let line = |n: usize| SlipLine {
                    spot: Spot::Box(player as u8),
                    bet: if n % 2 == 0 { Bet::Banker } else { Bet::Tie },
                    amount: Money(1000),
                    ante: Money::ZERO,
                };
                let slip = (0..10).map(line).collect();
                let r = c.handle(
                    Request::Wagers {
                        table: TableId(1),
                        player: PlayerId(player),
                        slip,
                        key: format!("big-{i}").parse().unwrap(),
                    },
                    &mut commit,
                );
                assert!(
                    matches!(&r, Reply::Wagers { results, .. } if results.iter().all(|r| matches!(r, Reply::Wager { .. }))),
                    "{r:?}"
                );
            }
        }
        c.handle(table(Command::CloseBetting), &mut commit);
        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) || c.settling() {
            step(&mut c, &mut commit);
            if c.settling() {
                settling_seen += 1;
                c.settle_some(&mut commit);
            } else {
                c.handle(table(Command::DealNext), &mut commit);
            }
        }
    }
    step(&mut c, &mut commit);
    assert!(compared >= 3 * 20 && open_seen == 3 * 4, "{compared} compared, {open_seen} open");
    assert!(settling_seen > 0, "the big coup settled in chunks");
}

const AU: &str = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"8_to_1\"\n";

/// Open betting on a new shoe at `table`.
fn betting(c: &mut Casino, commit: &mut Commit, table: TableId) {
    assert!(matches!(c.handle(Request::NewShoe { table }, commit), Reply::Events { .. }));
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    assert!(matches!(
        c.handle(Request::Table { table, command: open, by: Actor::Server }, commit),
        Reply::Events { .. }
    ));
}

/// Player 1's wager of 20.00 on the Player at `spot` of `table`.
fn at(table: TableId, spot: Spot, key: &str) -> Request {
    Request::Wager {
        table,
        player: PlayerId(1),
        spot,
        bet: Bet::Player,
        amount: Money(2000),
        key: key.parse().unwrap(),
        ante: Money::ZERO,
    }
}

/// AU 2.2, 3.1: the version of the game is the table's configuration. A
/// table that names none is Mini Baccarat and refuses box 8 (AU 3.1(a)); one
/// configured for full Baccarat takes box 14 and standing players (AU 3.1(c),
/// 5.6(a)), and keeps its version across a restart (the configuration is what
/// the store keeps).
#[test]
fn au_3_1_c_a_full_baccarat_table_keeps_its_fourteen_boxes_across_a_restart() {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "Mini", "au-casino", AU, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    let full = format!("layout = \"full\"\n{AU}");
    c.create_table(TableId(2), "Full", "au-casino", &full, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    c.handle(Request::Deposit { player: PlayerId(1), amount: Money(100_000), key: "in".parse().unwrap() }, &mut commit);
    for t in [1, 2].map(TableId) {
        betting(&mut c, &mut commit, t);
    }
    let mini = |r: &Reply| matches!(r, Reply::Refused { rule: Some(rule), .. } if rule.contains("AU 3.1(a)"));
    let r = c.handle(at(TableId(1), Spot::Box(8), "mini-8"), &mut commit);
    assert!(mini(&r), "{r:?}");
    for (spot, key) in [(Spot::Box(14), "full-14"), (Spot::Standing, "full-standing")] {
        let r = c.handle(at(TableId(2), spot, key), &mut commit);
        assert!(matches!(r, Reply::Wager { .. }), "{spot:?}: {r:?}");
    }
    let mut store = SqliteStore::memory().unwrap();
    store.commit(&commit).unwrap();
    let mut c = Casino::recover(&store).unwrap();
    let mut commit = Commit::default();
    let r = c.handle(at(TableId(1), Spot::Box(9), "mini-9"), &mut commit);
    assert!(mini(&r), "after the restart: {r:?}");
    let r = c.handle(at(TableId(2), Spot::Box(12), "full-12"), &mut commit);
    assert!(matches!(r, Reply::Wager { .. }), "after the restart: {r:?}");
}
