//! A pre-shuffled deck at a live table (issue 45 §1; NSW 1.1 "Casino
//! Pre-shuffled Cards", 4.3; EU 2.1.1 "this set may be used on any Baccarat table
//! without additional shuffling"): `start_shoe {pre_shuffled}` was accepted,
//! then `card_in` answered "use deal_next" and `deal_next` was refused to
//! everyone at a live table, so the coup stopped with its wagers held once
//! betting closed, and NSW 12.6's remedy for a shoe that runs out could not be
//! reached. The dealer deals the stack with `deal_next`: each card is the next
//! of the order recorded when the shoe started, which `verify` checks.

use baccarat_casino::casino::{Casino, Code, Mode, Reply, Request};
use baccarat_core::store::{Commit, SqliteStore, Store};
use baccarat_core::trust::Actor;
use baccarat_core::{TableId, UserId};
use baccarat_rules::{Bet, Card, Money};
use baccarat_server::auth::Role;
use baccarat_server::verify::verify;
use baccarat_table::shuffled;
use baccarat_table::Seed;
use baccarat_table::{Command, Event, IrregularityKind, Phase, PlayerId, ShoeSource, Spot};

const NSW3: &str = "rulebook = \"nsw-2021\"\ndecks = 3\nchip = 100\nmin = 1000\nmax = 500000\n";
const DEALER: Actor = Actor::Person { user: UserId(101), role: Role::Dealer };
const SUPERVISOR: Actor = Actor::Person { user: UserId(102), role: Role::Supervisor };

/// A live NSW table of 3 decks with a pre-shuffled stack recorded by a
/// supervisor (no cut, no burn: the stack is dealt from its first card), and
/// player 1 holding chips. The dealer who deals the stack may not record
/// it: a dealer who chose the order would know every card to come.
fn live_pre_shuffled() -> (Casino, Commit, Vec<Card>) {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "Live", "nsw-2021", NSW3, Mode::Live, Money(100_000_000), &mut commit).unwrap();
    c.handle(
        Request::Deposit { player: PlayerId(1), amount: Money(10_000_000), key: "in".parse().unwrap() },
        &mut commit,
    );
    let (stack, _) = shuffled(3, &Seed::from_u64(45));
    let start = Command::StartShoe {
        source: ShoeSource::PreShuffled { cards: stack.clone() },
        cut: None,
        burn: None,
        show_burn: false,
    };
    let r = c.handle(Request::Table { table: TableId(1), command: start.clone(), by: DEALER }, &mut commit);
    assert_eq!(r.code(), Some(Code::Role), "the dealer does not record the stack: {r:?}");
    let r = c.handle(Request::Table { table: TableId(1), command: start, by: SUPERVISOR }, &mut commit);
    assert!(matches!(r, Reply::Events { .. }), "{r:?}");
    (c, commit, stack)
}

fn send(c: &mut Casino, commit: &mut Commit, command: Command, by: Actor) -> Reply {
    c.handle(Request::Table { table: TableId(1), command, by }, commit)
}

/// Open betting, wager 5,000 on the Player, close: the coup waits for its cards.
fn bet_and_close(c: &mut Casino, commit: &mut Commit, key: &str) {
    let r = send(c, commit, Command::OpenBetting { no_bet: false, closes_at: None }, DEALER);
    assert!(matches!(r, Reply::Events { .. }), "{r:?}");
    let wager = Request::Wager {
        table: TableId(1),
        player: PlayerId(1),
        spot: Spot::Box(1),
        bet: Bet::Player,
        amount: Money(5000),
        key: key.parse().unwrap(),
        ante: Money::ZERO,
    };
    assert!(matches!(c.handle(wager, commit), Reply::Wager { .. }));
    assert!(matches!(send(c, commit, Command::CloseBetting, DEALER), Reply::Events { .. }));
}

fn verified(commit: &Commit) {
    let mut store = SqliteStore::memory().unwrap();
    store.commit(commit).unwrap();
    let f = verify(&store.load().unwrap());
    assert!(f.problems.is_empty(), "verify: {:?}", f.problems);
}

/// NSW 1.1, 4.3 / EU 2.1.1: the dealer deals a pre-shuffled stack at a live table
/// with `deal_next`, card by card in the recorded order, to the result. No one
/// names a card (`card_in` is refused, naming `deal_next`), and the server,
/// which paces only RNG tables, does not deal here.
#[test]
fn nsw_4_3_a_pre_shuffled_deck_at_a_live_table_is_dealt_by_its_dealer() {
    let (mut c, mut commit, stack) = live_pre_shuffled();
    bet_and_close(&mut c, &mut commit, "w1");
    let named = Command::CardIn { card: stack[5], to: None, face_up: true };
    let r = send(&mut c, &mut commit, named, DEALER);
    assert!(matches!(&r, Reply::Refused { code: Code::Mode, message, .. } if message.contains("deal_next")), "{r:?}");
    let r = send(&mut c, &mut commit, Command::DealNext, Actor::Server);
    assert_eq!(r.code(), Some(Code::Role), "the server paces RNG tables only: {r:?}");
    let r = send(&mut c, &mut commit, Command::DealNext, Actor::Person { user: UserId(1), role: Role::Player });
    assert_eq!(r.code(), Some(Code::Role), "{r:?}");
    let from = commit.events.len();
    while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
        let r = send(&mut c, &mut commit, Command::DealNext, DEALER);
        assert!(matches!(r, Reply::Events { .. }), "the dealer deals the stack: {r:?}");
    }
    assert_eq!(c.phase(TableId(1)), Some(Phase::Ready), "the coup came to its result");
    let dealt: Vec<Card> = commit.events[from..]
        .iter()
        .filter_map(|(_, _, e)| if let Event::CardDealt { card, .. } = e { Some(*card) } else { None })
        .collect();
    assert!(dealt.len() >= 4 && dealt[..] == stack[..dealt.len()], "the stack's order: {dealt:?}");
    assert!(commit.events[from..].iter().any(|(_, _, e)| matches!(e, Event::WagerSettled { outcome: Some(_), .. })));
    let by_dealer = commit
        .records
        .iter()
        .filter(|(_, r)| r.body.contains("card_dealt"))
        .all(|(_, r)| r.body.contains("\"by\":{\"kind\":\"person\",\"user\":101,\"role\":\"dealer\"}"));
    assert!(by_dealer, "each card's record names the dealer who dealt it");
    verified(&commit);
}

/// NSW 12.6: "If there are found to be insufficient cards in the card shoe to
/// complete a hand that coup shall be void." An uncut pre-shuffled stack at a
/// live table is dealt to its last card; the coup it cannot complete is void,
/// its stake returned, and the shoe is over.
#[test]
fn nsw_12_6_a_pre_shuffled_shoe_at_a_live_table_runs_out_and_the_coup_is_void() {
    let (mut c, mut commit, _) = live_pre_shuffled();
    let mut coups = 0;
    while c.phase(TableId(1)) == Some(Phase::Ready) {
        coups += 1;
        assert!(coups < 100, "3 decks make fewer than 100 coups");
        bet_and_close(&mut c, &mut commit, &format!("w{coups}"));
        while matches!(c.phase(TableId(1)), Some(Phase::Closed | Phase::Dealing)) {
            let r = send(&mut c, &mut commit, Command::DealNext, DEALER);
            assert!(matches!(r, Reply::Events { .. }), "{r:?}");
        }
    }
    assert_eq!(c.phase(TableId(1)), Some(Phase::ShoeOver));
    let events: Vec<&Event> = commit.events.iter().map(|(_, _, e)| e).collect();
    let short = events.iter().position(|e| {
        matches!(e, Event::Irregularity { kind: IrregularityKind::InsufficientCards, rule, .. } if rule.contains("NSW 12.6"))
    });
    let short = short.expect("NSW 12.6: the shoe ran out in a coup");
    assert!(
        events[short..].iter().any(
            |e| matches!(e, Event::WagerSettled { outcome: None, settlement, .. } if settlement.returned == Money(5000))
        ),
        "the void coup's stake is returned"
    );
    assert!(matches!(c.handle(Request::CheckLedger, &mut commit), Reply::Ledger { ok: true, .. }));
    verified(&commit);
}

/// The attack: a dealer (or anyone watching the pit or the recall) reads the
/// pre-shuffled stack's recorded order while the shoe is in play, and so
/// knows every card to come (NSW 4.13). What the pit's notices and the
/// recall show is the record blanked (`audit::blank`): the stack is withheld
/// as the seed is, and only the record itself, which `verify` reads, keeps it.
#[test]
fn nsw_4_13_no_view_shows_a_pre_shuffled_stacks_order_while_the_shoe_is_in_play() {
    let (_, commit, stack) = live_pre_shuffled();
    let started = commit
        .records
        .iter()
        .map(|(_, r)| baccarat_core::audit::Body::decode(&r.body).unwrap())
        .find(|b| matches!(b.event, Some(Event::ShoeStarted { .. })))
        .expect("the shoe's start is recorded");
    let Some(Event::ShoeStarted { preshuffled: Some(kept), .. }) = &started.event else { panic!("pre-shuffled") };
    assert_eq!(kept, &stack, "the record keeps the order, for verify");
    let shown = started.blanked();
    let Some(Event::ShoeStarted { preshuffled: Some(cards), seed, .. }) = &shown.event else {
        panic!("still pre-shuffled")
    };
    assert!(cards.is_empty() && seed.is_none(), "the order is withheld from every view: {cards:?}");
}
