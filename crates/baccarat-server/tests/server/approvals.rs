//! A wager that needs a person (issue 45 §5): NSW 5.6.6 takes Banker and
//! Player together only "with the approval of a Casino Supervisor". At an RNG
//! table it was accepted, then waited for a supervisor that no RNG table has.
//! Now an RNG table refuses it when it is placed, naming the rule, unless its
//! configuration chose to wait (`approvals = "supervisor"`: held until "no more
//! bets", the deadline, and returned then); a live table, with its supervisor
//! in the pit, waits as the rule says.

use baccarat_casino::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_core::store::Commit;
use baccarat_core::trust::Actor;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, Event, PlayerId, Spot};

const NSW: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\n";

/// Table 1 of `mode` with `config`, betting open, player 1's Banker wager of
/// 5,000 on it; and player 1's Player wager of 5,000 sent after it.
fn banker_then_player(mode: Mode, config: &str) -> (Casino, Commit, Reply) {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "T", "nsw-2021", config, mode, Money(100_000_000), &mut commit).unwrap();
    c.handle(
        Request::Deposit { player: PlayerId(1), amount: Money(1_000_000), key: "in".parse().unwrap() },
        &mut commit,
    );
    let by = match mode {
        Mode::Rng => Actor::Server,
        Mode::Live => Actor::Person { user: UserId(101), role: baccarat_server::auth::Role::Dealer },
    };
    let shoe = match mode {
        Mode::Rng => c.handle(Request::NewShoe { table: TableId(1) }, &mut commit),
        Mode::Live => {
            let source = baccarat_table::ShoeSource::Live { decks: 8 };
            let start = Command::StartShoe { source, cut: None, burn: None, show_burn: false };
            c.handle(Request::Table { table: TableId(1), command: start, by }, &mut commit)
        }
    };
    assert!(matches!(shoe, Reply::Events { .. }), "{shoe:?}");
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    assert!(matches!(
        c.handle(Request::Table { table: TableId(1), command: open, by }, &mut commit),
        Reply::Events { .. }
    ));
    let wager = |bet, key: &str| Request::Wager {
        table: TableId(1),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet,
        amount: Money(5000),
        key: key.parse().unwrap(),
        ante: Money::ZERO,
    };
    assert!(matches!(c.handle(wager(Bet::Banker, "b"), &mut commit), Reply::Wager { .. }));
    let r = c.handle(wager(Bet::Player, "p"), &mut commit);
    (c, commit, r)
}

fn waiting(c: &Casino) -> usize {
    c.tables[&TableId(1)].engine.state().coup.wagers.iter().filter(|w| w.needs_approval).count()
}

/// NSW 5.6.6 at an RNG table: refused at placement, naming the rule; only the
/// Banker wager is held, and nothing waits.
#[test]
fn nsw_5_6_6_an_rng_table_refuses_banker_and_player_together_at_placement() {
    let (c, _, r) = banker_then_player(Mode::Rng, NSW);
    assert!(
        matches!(&r, Reply::Refused { code: Code::Rule, rule: Some(rule), message } if rule == "NSW 5.6.6" && message.contains("supervisor")),
        "{r:?}"
    );
    assert_eq!(waiting(&c), 0);
    assert_eq!(c.tables[&TableId(1)].engine.state().coup.wagers.len(), 1);
    assert_eq!(c.balance(PlayerId(1)).map(|b| b.1), Some(Money(995_000)), "only the Banker stake is held");
}

/// The configuration's other policy at an RNG table: the wager waits with a
/// deadline, "no more bets", and an unapproved one is returned then.
#[test]
fn nsw_5_6_6_an_rng_table_configured_to_wait_returns_the_wager_at_no_more_bets() {
    let config = format!("{NSW}approvals = \"supervisor\"\n");
    let (mut c, mut commit, r) = banker_then_player(Mode::Rng, &config);
    assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    assert_eq!(waiting(&c), 1);
    let from = commit.events.len();
    let close = Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server };
    assert!(matches!(c.handle(close, &mut commit), Reply::Events { .. }));
    assert!(commit.events[from..]
        .iter()
        .any(|(_, _, e)| matches!(e, Event::WagerReturned { rule, .. } if rule.contains("NSW 5.6"))));
    assert_eq!(c.balance(PlayerId(1)).map(|b| b.1), Some(Money(995_000)), "the Player stake is back");
}

/// A live table has its supervisor in the pit: the combination waits for them.
#[test]
fn nsw_5_6_6_a_live_table_holds_the_combination_for_its_supervisor() {
    let (c, _, r) = banker_then_player(Mode::Live, NSW);
    assert!(matches!(r, Reply::Wager { .. }), "{r:?}");
    assert_eq!(waiting(&c), 1);
}
