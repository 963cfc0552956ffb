//! Helpers shared by the engine's test files.
#![allow(dead_code, unused_imports)]

pub use baccarat_rules::{profiles, Bet, Card, Money, TableConfig, TableConfigSpec};
pub use baccarat_table::Seed;
pub use baccarat_table::{shuffled, Cut, CutRules};
pub use baccarat_table::{
    Command, Event, IrregularityKind, Phase, PlayerId, Position, ShoeSource, Spot, Table, TableSetup, WagerId,
};

pub fn setup(rulebook: &str, extra: &str) -> TableSetup {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 100000\n{extra}");
    let spec: TableConfigSpec = toml::from_str(&text).unwrap();
    let cfg = TableConfig::new(&rb, &spec).unwrap();
    TableSetup::new(rb, cfg, None).unwrap()
}

/// A table with a shoe shuffled from `seed` and cut as a simulation would.
pub fn rng_table(rulebook: &str, extra: &str, seed: u64) -> (Table, Vec<Event>) {
    let s = setup(rulebook, extra);
    let decks = s.config.decks;
    let rules = CutRules::from_profile(&s.rulebook.config);
    let seed = Seed::from_u64(seed);
    let (_, mut stream) = shuffled(decks, &seed);
    let cut = rules.random(&mut stream, 52 * decks as usize, 20);
    let burn = s.rulebook.procedures.burn.first().copied();
    let mut t = Table::new(s);
    let ev = t
        .execute(Command::StartShoe { source: ShoeSource::Shuffle { seed }, cut: Some(cut), burn, show_burn: false })
        .unwrap();
    (t, ev)
}

pub fn run(t: &mut Table, log: &mut Vec<Event>, cmd: Command) -> Vec<Event> {
    let ev = t.execute(cmd.clone()).unwrap_or_else(|r| panic!("{cmd:?} refused: {r}"));
    log.extend(ev.clone());
    ev
}

pub fn refused(t: &mut Table, cmd: Command, rule: &str) {
    let before = t.clone();
    let r = t.execute(cmd.clone()).expect_err("should be refused");
    assert!(r.to_string().contains(rule), "{cmd:?}: {r} lacks {rule:?}");
    assert!(*t == before, "a refused command changed the table");
}

pub fn wager(player: u32, bet: Bet, amount: i64) -> Command {
    Command::PlaceWager {
        player: PlayerId(player),
        spot: Spot::Box(player as u8),
        bet,
        amount: Money(amount),
        ante: Money(0),
        token: false,
        at_ms: None,
    }
}

pub fn deal_out(t: &mut Table, log: &mut Vec<Event>) -> Vec<Event> {
    let mut all = Vec::new();
    while t.phase() == Phase::Closed || t.phase() == Phase::Dealing {
        all.extend(run(t, log, Command::DealNext));
    }
    all
}

pub fn live_table(rulebook: &str, extra: &str) -> (Table, Vec<Event>) {
    let s = setup(rulebook, extra);
    let decks = s.config.decks;
    let mut t = Table::new(s);
    let ev = t
        .execute(Command::StartShoe { source: ShoeSource::Live { decks }, cut: None, burn: None, show_burn: false })
        .unwrap();
    (t, ev)
}

pub fn card(t: &mut Table, log: &mut Vec<Event>, c: &str) -> Vec<Event> {
    run(t, log, Command::CardIn { card: c.parse().unwrap(), to: None, face_up: true })
}

pub fn kinds(ev: &[Event]) -> Vec<IrregularityKind> {
    ev.iter().filter_map(|e| if let Event::Irregularity { kind, .. } = e { Some(*kind) } else { None }).collect()
}

pub fn dealing_table(rulebook: &str, extra: &str, stake: i64) -> (Table, Vec<Event>) {
    let (mut t, mut log) = live_table(rulebook, extra);
    run(&mut t, &mut log, Command::OpenBetting { no_bet: false, closes_at: None });
    run(&mut t, &mut log, wager(1, Bet::Player, stake));
    run(&mut t, &mut log, wager(2, Bet::Banker, stake));
    card(&mut t, &mut log, "2H");
    card(&mut t, &mut log, "3S");
    (t, log)
}

pub fn seat_wager(player: u32, seat: u8, bet: Bet, amount: i64) -> Command {
    Command::PlaceWager {
        player: PlayerId(player),
        spot: Spot::Box(seat),
        bet,
        amount: Money(amount),
        ante: Money(0),
        token: false,
        at_ms: None,
    }
}

pub fn shown(t: &Table, viewer: Option<u32>) -> Vec<Option<String>> {
    t.view(viewer.map(PlayerId)).into_iter().map(|(_, c)| c.map(|c| c.to_string())).collect()
}
