//! No table can wait for no one (issue 45): at every table mode × shoe source
//! × dealing style, from any state that players, the dealer, a supervisor and
//! the server can reach, the commands the trust matrix lets the table's own
//! operators send — the server at an RNG table (its pace, and a supervisor to
//! resume), the dealer at a live table (and a supervisor to record a
//! pre-shuffled stack's order when a shoe starts) — bring the coup to a
//! result or a void, and then deal another. And no wager at an RNG table waits for a person who
//! is not there (NSW 5.6.6's supervisor).
//!
//! The sources: an RNG table's shoe is the server's own shuffle; a live
//! table's is a live shoe (each card entered, `card_in`) or a pre-shuffled
//! stack in a recorded order (NSW 1.1, 4.3; EU 2.1.1), dealt by the dealer with
//! `deal_next`. The engine alone has the same property per source
//! (`baccarat-table`'s `engine_liveness.rs`); this one runs it through
//! [`Casino::handle`], so that the trust matrix and the table's setup (its
//! approvals) are part of it.
//!
//! It fails without either fix of issue 45: with `deal_next` refused to a
//! live table's dealer (§1), the pre-shuffled source never deals a card
//! (`finish` answers "a dealer may not send deal_next"); with Banker and
//! Player together held for a supervisor at an RNG table (§5), the RNG
//! source's wagers wait ("waits for a supervisor at an RNG table").

use baccarat_casino::casino::{Casino, Mode, Reply, Request};
use baccarat_core::store::Commit;
use baccarat_core::trust::Actor;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{profiles, Bet, Card, Money, Side};
use baccarat_server::auth::Role;
use baccarat_table::{shuffled, CutRules};
use baccarat_table::{Command, Phase, PlayerId, ShoeSource, Spot, WagerId};
use baccarat_table::{Seed, Stream};
use proptest::prelude::*;

/// Where a table's shoe comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// The server's shuffle, at an RNG table.
    Rng,
    /// A live shoe at a live table: each card entered at the console.
    Live,
    /// A pre-shuffled stack at a live table, dealt by its dealer.
    PreShuffled,
}

/// Every table mode with each shoe source it takes.
const KINDS: [(Mode, Source); 3] =
    [(Mode::Rng, Source::Rng), (Mode::Live, Source::Live), (Mode::Live, Source::PreShuffled)];

const DEALER: Actor = Actor::Person { user: UserId(101), role: Role::Dealer };
const SUPERVISOR: Actor = Actor::Person { user: UserId(102), role: Role::Supervisor };

fn player(p: u32) -> Actor {
    Actor::Person { user: UserId(p), role: Role::Player }
}

/// Every (rulebook, dealing style) the profiles permit.
fn styles() -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    for rb in ["nsw-2021", "au-casino", "resort-house", "european-casino"] {
        for d in &profiles::builtin(rb).unwrap().procedures.dealing {
            out.push((rb, serde_json::to_value(d).unwrap().as_str().unwrap().to_string()));
        }
    }
    out
}

/// A casino with table 1, its shoe started, and the physical cards a live
/// shoe would give, in order.
struct Game {
    c: Casino,
    commit: Commit,
    mode: Mode,
    source: Source,
    seed: Seed,
    stack: Vec<Card>,
    next: usize,
    keys: u32,
}

/// What the table's operators do next.
#[derive(Debug)]
enum Step {
    /// Start the next shoe.
    NewShoe,
    /// Send a command, as this actor.
    Send(Command, Actor),
}

impl Game {
    fn new(rb: &str, dealing: &str, (mode, source): (Mode, Source), seed: u64) -> Game {
        // AU needs its tie's pay table chosen (AU 5.1(c)).
        let tie = if rb == "au-casino" { "[bets.tie]\npay_table = \"8_to_1\"\n" } else { "" };
        let config =
            format!("rulebook = \"{rb}\"\nchip = 100\nmin = 1000\nmax = 100000\ndealing = \"{dealing}\"\n{tie}");
        let mut c = Casino::new();
        let mut commit = Commit::default();
        c.create_table(TableId(1), "T", rb, &config, mode, Money(100_000_000), &mut commit).unwrap();
        for p in 1..=4 {
            c.handle(
                Request::Deposit { player: PlayerId(p), amount: Money(10_000_000), key: "in".parse().unwrap() },
                &mut commit,
            );
        }
        let decks = c.tables[&TableId(1)].engine.setup().config.decks;
        let seed = Seed::from_u64(seed);
        let (stack, _) = shuffled(decks, &seed);
        let mut g = Game { c, commit, mode, source, seed, stack, next: 0, keys: 0 };
        let r = g.new_shoe();
        assert!(matches!(r, Reply::Events { .. }), "{rb} {dealing} {source:?}: the shoe: {r:?}");
        g
    }

    fn handle(&mut self, req: Request) -> Reply {
        self.c.handle(req, &mut self.commit)
    }

    fn table(&mut self, command: Command, by: Actor) -> Reply {
        let card_in = matches!(command, Command::CardIn { .. });
        let r = self.handle(Request::Table { table: TableId(1), command, by });
        if card_in && matches!(r, Reply::Events { .. }) {
            self.next += 1;
        }
        r
    }

    /// Who paces the table: the server at an RNG table, its dealer at a live one.
    fn operator(&self) -> Actor {
        if self.mode == Mode::Rng {
            Actor::Server
        } else {
            DEALER
        }
    }

    /// Who resumes a coup after a reconstruction: a supervisor at an RNG
    /// table (the server never does), the dealer at a live one.
    fn resumer(&self) -> Actor {
        if self.mode == Mode::Rng {
            SUPERVISOR
        } else {
            DEALER
        }
    }

    /// The next shoe, as the table's operator starts it: the server's shuffle
    /// (from the test's seed, so that a failing case replays; the pacer's
    /// `new_shoe` draws it from the OS), a live shoe, or the stack in order;
    /// cut and burnt as the profile says where the order is recorded.
    fn new_shoe(&mut self) -> Reply {
        let setup = self.c.tables[&TableId(1)].engine.setup();
        let decks = setup.config.decks;
        let mut stream = Stream::new(&self.seed);
        let cut = Some(CutRules::from_profile(&setup.rulebook.config).random(&mut stream, self.stack.len(), 20));
        let burn = setup.rulebook.procedures.burn.first().copied();
        let (source, cut, burn, by) = match self.source {
            Source::Rng => (ShoeSource::Shuffle { seed: self.seed }, cut, burn, Actor::Server),
            Source::Live => (ShoeSource::Live { decks }, None, None, DEALER),
            Source::PreShuffled => (ShoeSource::PreShuffled { cards: self.stack.clone() }, cut, burn, SUPERVISOR),
        };
        self.table(Command::StartShoe { source, cut, burn, show_burn: false }, by)
    }

    /// Deal the card due: the next of the recorded order, or the next
    /// physical card entered at the console.
    fn deal(&self) -> Command {
        match self.source {
            Source::Live => Command::CardIn { card: self.stack[self.next % self.stack.len()], to: None, face_up: true },
            Source::Rng | Source::PreShuffled => Command::DealNext,
        }
    }

    fn wager(&mut self, p: u32, bet: Bet, amount: i64) -> Reply {
        self.keys += 1;
        let key = format!("w{}", self.keys);
        self.handle(Request::Wager {
            table: TableId(1),
            player: PlayerId(p),
            spot: Spot::Box(p as u8),
            bet,
            amount: Money(amount),
            key: key.parse().unwrap(),
            ante: Money::ZERO,
        })
    }

    /// The operators' next step while a coup is in progress or the shoe is
    /// over; `None` once the table is ready for a coup.
    fn next_step(&self) -> Option<Step> {
        let t = &self.c.tables[&TableId(1)].engine;
        let op = self.operator();
        Some(match t.phase() {
            Phase::Ready => return None,
            Phase::NoShoe | Phase::ShoeOver => Step::NewShoe,
            Phase::Betting => Step::Send(Command::CloseBetting, op),
            Phase::Reconstruction => Step::Send(Command::ResumeCoup, self.resumer()),
            Phase::Closed | Phase::Dealing => match t.state().out {
                Some(side) => Step::Send(Command::Expose { side, player: None }, op),
                None => Step::Send(self.deal(), op),
            },
        })
    }

    fn step(&mut self, step: Step) -> Reply {
        match step {
            Step::NewShoe => self.new_shoe(),
            Step::Send(cmd, by) => self.table(cmd, by),
        }
    }

    /// The operators finish the coup in progress (and start a shoe where the
    /// last one is over); where they cannot, what was refused.
    fn finish(&mut self) -> Result<(), String> {
        for _ in 0..40 {
            let Some(step) = self.next_step() else { return Ok(()) };
            let (phase, what) = (self.c.phase(TableId(1)), format!("{step:?}"));
            let r = self.step(step);
            if !matches!(r, Reply::Events { .. }) {
                return Err(format!("{phase:?}: {what}: {r:?}"));
            }
        }
        Err(format!("still {:?} after 40 of the operators' steps", self.c.phase(TableId(1))))
    }

    /// One whole coup more, from `Ready`, with a Banker wager (a no-bet coup
    /// where one is due): a table that finished a coup can deal the next.
    fn another_coup(&mut self) -> Result<(), String> {
        let no_bet = self.c.tables[&TableId(1)].engine.state().no_bet_coups_due > 0;
        let op = self.operator();
        let r = self.table(Command::OpenBetting { no_bet, closes_at: None }, op);
        if !matches!(r, Reply::Events { .. }) {
            return Err(format!("open_betting: {r:?}"));
        }
        if !self.c.tables[&TableId(1)].engine.state().coup.no_bet {
            let r = self.wager(4, Bet::Banker, 2000);
            if !matches!(r, Reply::Wager { .. }) {
                return Err(format!("the next coup's wager: {r:?}"));
            }
        }
        self.finish()?;
        match self.c.phase(TableId(1)) {
            Some(Phase::Ready | Phase::ShoeOver) => Ok(()),
            p => Err(format!("the next coup stopped at {p:?}")),
        }
    }

    /// A wager waiting for a person: at an RNG table, no one comes.
    fn waiting(&self) -> Option<WagerId> {
        self.c.tables[&TableId(1)].engine.state().coup.wagers.iter().find(|w| w.needs_approval).map(|w| w.id)
    }
}

#[derive(Clone, Debug)]
enum Op {
    Open,
    /// A player wagers: Player, Banker or Tie.
    Place(u32, u8, i64),
    /// A player wagers on Banker and Player together (NSW 5.6.6).
    Both(u32, i64),
    Close,
    Deal,
    /// A player exposes or passes the hand they hold.
    Expose(u32, bool),
    Decline(u32),
    DealerExposes(bool),
    TakeMarker(u32),
    PassMarker(u32),
    /// A supervisor approves or refuses a wager (NSW 5.6.6; 14.12).
    Approve(u64),
    Refuse(u64),
    /// A supervisor reports a shuffler fault with no other device (NSW 13.5.1).
    Malfunction,
    /// The operator's natural next step.
    Step,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        2 => Just(Op::Open),
        8 => (1u32..4, 0u8..3, 1i64..40).prop_map(|(p, b, a)| Op::Place(p, b, a * 500)),
        2 => (1u32..4, 1i64..20).prop_map(|(p, a)| Op::Both(p, a * 1000)),
        2 => Just(Op::Close),
        6 => Just(Op::Deal),
        3 => (1u32..4, any::<bool>()).prop_map(|(p, s)| Op::Expose(p, s)),
        3 => (1u32..4).prop_map(Op::Decline),
        1 => any::<bool>().prop_map(Op::DealerExposes),
        1 => (1u32..4).prop_map(Op::TakeMarker),
        1 => (1u32..4).prop_map(Op::PassMarker),
        1 => (1u64..12).prop_map(Op::Approve),
        1 => (1u64..12).prop_map(Op::Refuse),
        1 => Just(Op::Malfunction),
        8 => Just(Op::Step),
    ]
}

fn side(player: bool) -> Side {
    if player {
        Side::Player
    } else {
        Side::Banker
    }
}

/// Send `op` as whoever would send it; refusals are part of the game.
fn apply(g: &mut Game, op: &Op) {
    let by = g.operator();
    let _ = match op {
        Op::Open => g.table(Command::OpenBetting { no_bet: false, closes_at: None }, by),
        Op::Place(p, b, amount) => g.wager(*p, [Bet::Player, Bet::Banker, Bet::Tie][*b as usize % 3], *amount),
        Op::Both(p, amount) => {
            g.wager(*p, Bet::Banker, *amount);
            g.wager(*p, Bet::Player, *amount)
        }
        Op::Close => g.table(Command::CloseBetting, by),
        Op::Deal => g.table(g.deal(), by),
        Op::Expose(p, s) => g.table(Command::Expose { side: side(*s), player: Some(PlayerId(*p)) }, player(*p)),
        Op::Decline(p) => g.table(Command::DeclineCards { player: PlayerId(*p) }, player(*p)),
        Op::DealerExposes(s) => g.table(Command::Expose { side: side(*s), player: None }, by),
        Op::TakeMarker(p) => g.table(Command::TakeMarker { player: PlayerId(*p), seat: *p as u8 }, DEALER),
        Op::PassMarker(p) => g.table(Command::PassMarker { player: PlayerId(*p) }, DEALER),
        Op::Approve(w) => g.table(Command::ApproveWager { wager: WagerId(*w) }, SUPERVISOR),
        Op::Refuse(w) => g.table(Command::RefuseWager { wager: WagerId(*w) }, SUPERVISOR),
        Op::Malfunction => {
            g.table(Command::ShufflerMalfunction { disadvantage: false, other_device: false }, SUPERVISOR)
        }
        Op::Step => match g.next_step() {
            Some(step) => g.step(step),
            None => g.table(Command::OpenBetting { no_bet: false, closes_at: None }, by),
        },
    };
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Every mode × source × style, each with the same sequence of requests.
    #[test]
    fn no_table_waits_for_no_one(seed in any::<u64>(), ops in prop::collection::vec(op(), 0..40)) {
        for (rb, dealing) in styles() {
            for kind in KINDS {
                let mut g = Game::new(rb, &dealing, kind, seed);
                let at = format!("{rb} {dealing} {kind:?}");
                for op in &ops {
                    apply(&mut g, op);
                    if g.mode == Mode::Rng {
                        prop_assert!(g.waiting().is_none(), "{at}: wager {:?} waits for a supervisor at an RNG table after {op:?}", g.waiting());
                    }
                }
                let done = g.finish().and_then(|()| g.another_coup());
                prop_assert!(done.is_ok(), "{at}: {:?}", done);
                match g.handle(Request::CheckLedger) {
                    Reply::Ledger { ok, problem, .. } => prop_assert!(ok, "{at}: {problem:?}"),
                    r => return Err(TestCaseError::fail(format!("{at}: {r:?}"))),
                }
            }
        }
    }
}
