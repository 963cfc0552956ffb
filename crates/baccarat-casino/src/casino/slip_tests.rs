//! Bet slips answered before a slip's answer said what its lines did: each
//! line had an answer of its own (a line key), and the slip's own answer named
//! nothing. A retry of such a slip, within the keys' window after an upgrade,
//! is still answered as it was first: the placed line with its wager, the
//! other refused as when first sent, and nothing placed again.

use baccarat_core::TableId;
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Spot};

use super::protocol::{line_key, request_digest, wager_key};
use super::{Casino, Code, Mode, Reply, Request, SlipLine};
use crate::ledger::Cause;
use crate::store::Commit;
use crate::trust::Actor;

const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

#[test]
fn a_slip_answered_line_by_line_before_is_answered_the_same_way_again() {
    let mut c = Casino::new();
    let mut commit = Commit::default();
    c.create_table(TableId(1), "NSW", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
    let p = PlayerId(1);
    c.handle(Request::Deposit { player: p, amount: Money(100_000), key: "start".parse().unwrap() }, &mut commit);
    c.handle(Request::NewShoe { table: TableId(1) }, &mut commit);
    let open = Command::OpenBetting { no_bet: false, closes_at: None };
    c.handle(Request::Table { table: TableId(1), command: open, by: Actor::Server }, &mut commit);

    // The older way: the slip's key bound first, naming nothing; line 0
    // placed under its line key; line 1 refused, so never bound.
    let line = |amount| SlipLine { spot: Spot::Box(1), bet: Bet::Banker, amount: Money(amount), ante: Money::ZERO };
    let slip = vec![line(5000), line(50)];
    let request = request_digest("slip", TableId(1), &slip);
    let (bound, _) = c.ledger.apply_bound(&wager_key(p, "old"), request, &[], Cause::None);
    assert!(bound.is_ok());
    let first =
        c.wager(TableId(1), p, slip[0], Some(&line_key(p, 0, "old")), request, super::IntoPlay::SlipLine, &mut commit);
    let Reply::Wager { wager, balance } = first else { panic!("{first:?}") };
    assert_eq!(balance, Money(95_000));

    let again = c.handle(
        Request::Wagers { table: TableId(1), player: p, slip: slip.clone(), key: "old".parse().unwrap() },
        &mut commit,
    );
    let Reply::Wagers { results, balance } = again else { panic!("{again:?}") };
    assert_eq!(balance, Money(95_000), "nothing placed again");
    assert!(matches!(results[0], Reply::Wager { wager: w, .. } if w == wager), "{results:?}");
    assert!(matches!(&results[1], Reply::Refused { code: Code::Idempotency, .. }), "{results:?}");
    // The same key for another slip is refused, naming it.
    let other = vec![line(6000)];
    let r = c.handle(
        Request::Wagers { table: TableId(1), player: p, slip: other, key: "old".parse().unwrap() },
        &mut commit,
    );
    assert!(matches!(&r, Reply::Refused { code: Code::Idempotency, .. }), "{r:?}");
    assert_eq!(c.balance(p).unwrap().1, Money(95_000));
}
