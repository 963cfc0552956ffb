//! Every way a player's money goes into play passes their own limits and
//! cool-off (`casino/into_play.rs`). Issue 45, finding 6: a cool-off did not
//! stop a tournament entry (the fee was taken), and a loss or time limit let
//! it through too; only a table wager checked them.

use baccarat_core::{TableId, TournamentId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use baccarat_casino::casino::into_play::IntoPlay;
use baccarat_casino::casino::{Casino, Code, Reply, Request, SelfLimitsChange, SlipLine};
use baccarat_core::store::Commit;
use baccarat_core::trust::{Actor, Mode};
use baccarat_rules::{Bet, Money};
use baccarat_table::{Command, PlayerId, Spot};

/// 2026-12-01T00:00:00Z: the promotion and the tournament are published.
const PUBLISHED: u64 = 1_796_083_200_000;
/// 2026-12-04T09:00:00Z: the promotion's draw, and the test's time after it.
const DRAWN: u64 = 1_796_374_800_000;
const P: PlayerId = PlayerId(100);
const NSW: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";
/// An Ante Up table (AU 14): an ante of 1.00 with a wager below 50.00.
const AU_ANTE: &str = "rulebook = \"au-casino\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\n\
                       pay_table = \"8_to_1\"\n[ante]\namount = 100\nwaived_at = 5000\n";
/// The tournament's entry fee.
const FEE: i64 = 5_000;

/// The limit a case sets before the request.
#[derive(Clone, Copy, Debug)]
enum Limit {
    None,
    CoolOff,
    /// A loss limit one cent below the request's stake.
    Loss,
    /// 30 minutes a day, used up by a wager half an hour before.
    Minutes,
}

/// A casino in memory with the clock the test moves: an NSW table (1) and
/// an Ante Up table (2) taking wagers, player P with 1,000.00 in the wallet
/// and 500.00 of promotional tokens (won in a draw), and a tournament (1)
/// taking entries.
struct World {
    c: Casino,
    clock: Arc<AtomicU64>,
    commit: Commit,
}

impl World {
    fn new() -> World {
        let clock = Arc::new(AtomicU64::new(PUBLISHED));
        let n = clock.clone();
        let mut c = Casino::new();
        c.clock = Arc::new(move || n.load(Ordering::SeqCst));
        let mut w = World { c, clock, commit: Commit::default() };
        let float = Money(1_000_000_000);
        w.c.create_table(TableId(1), "NSW", "nsw-2021", NSW, Mode::Rng, float, &mut w.commit).unwrap();
        w.c.create_table(TableId(2), "Ante Up", "au-casino", AU_ANTE, Mode::Rng, float, &mut w.commit).unwrap();
        w.ok(Request::Deposit { player: P, amount: Money(100_000), key: "in".parse().unwrap() });
        let friday = include_str!("../../../../promotions/friday-draw.toml");
        let head = friday.split("[[prizes]]").next().unwrap();
        let terms = format!(
            "{head}[[prizes]]\ndescription = \"Tokens\"\nkind = \"promotional_tokens\"\nvalue = 50000\ncount = 1\n"
        );
        w.ok(Request::CreatePromotion { terms });
        w.ok(Request::CreateTournament { conditions: super::tournament::cup("2026-12-10T10:00:00Z", FEE) });
        w.clock.store(DRAWN, Ordering::SeqCst);
        w.ok(Request::DrawPromotion { promotion: 1, entries: vec![(P, 1)], scrutineer: None });
        assert_eq!(w.c.token_balance(P), Some((Money(50_000), Money(50_000))), "the tokens were won");
        for table in [1, 2].map(TableId) {
            w.ok(Request::NewShoe { table });
            let open = Command::OpenBetting { no_bet: false, closes_at: None };
            w.ok(Request::Table { table, command: open, by: Actor::Server });
        }
        w
    }

    fn handle(&mut self, r: Request) -> Reply {
        self.c.handle(r, &mut self.commit)
    }

    fn ok(&mut self, r: Request) {
        let what = format!("{r:?}");
        let got = self.handle(r);
        assert!(outcome(&got).is_ok(), "{what}: {got:?}");
    }

    fn limits(&mut self, change: SelfLimitsChange) {
        let got = self.handle(Request::SelfLimits { player: P, change });
        assert!(matches!(got, Reply::SelfLimits { .. }), "{got:?}");
    }

    /// Set `limit` before `what`'s request.
    fn set(&mut self, limit: Limit, what: IntoPlay) {
        match limit {
            Limit::None => {}
            Limit::CoolOff => self.limits(SelfLimitsChange::CoolOff { hours: 1 }),
            Limit::Loss => {
                let loss = Some(stake(what) - Money(1));
                self.limits(SelfLimitsChange::Set { loss_per_day: loss, minutes_per_day: None });
            }
            Limit::Minutes => {
                self.limits(SelfLimitsChange::Set { loss_per_day: None, minutes_per_day: Some(30) });
                // The day's first wager, then half an hour.
                self.ok(wager(TableId(1), 1_000, Money::ZERO, "the day's first"));
                self.clock.fetch_add(30 * 60_000, Ordering::SeqCst);
            }
        }
    }

    /// Everything a request could have written: the casino's chain, the
    /// tables', the ledger, the player's money and the tournament's entrants.
    fn written(&self) -> Written {
        let c = &self.c;
        (
            c.chain.len(),
            c.tables[&TableId(1)].chain.len(),
            c.tables[&TableId(2)].chain.len(),
            c.ledger.transfer_count(),
            c.balance(P),
            c.token_balance(P),
            c.tournaments[&TournamentId(1)].state.entrants.len(),
        )
    }
}

/// What [`World::written`] reads: chain lengths (casino, table 1, table 2),
/// transfers, the wallet, the tokens and the tournament's entrants.
type Written = (u64, u64, u64, u64, Option<(Money, Money)>, Option<(Money, Money)>, usize);

fn wager(table: TableId, amount: i64, ante: Money, key: &str) -> Request {
    let (spot, bet, amount) = (Spot::Box(1), Bet::Banker, Money(amount));
    Request::Wager { table, player: P, spot, bet, amount, ante, key: key.parse().unwrap() }
}

/// One request of each way into play (a new way does not compile here
/// until it has one).
fn sample(what: IntoPlay) -> Request {
    match what {
        IntoPlay::Wager => wager(TableId(1), 2_000, Money::ZERO, "w"),
        // Below the waiver the ante goes with the wager (AU 14.5); 20.00 on
        // the Banker, whose 19.00 win is payable in 1.00 chips (AU 5.12).
        IntoPlay::Ante => wager(TableId(2), 2_000, Money(100), "a"),
        IntoPlay::SlipLine => {
            let line = SlipLine { spot: Spot::Box(1), bet: Bet::Banker, amount: Money(2_000), ante: Money::ZERO };
            Request::Wagers { table: TableId(1), player: P, slip: vec![line], key: "s".parse().unwrap() }
        }
        IntoPlay::TokenWager => Request::TokenWager {
            table: TableId(1),
            player: P,
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(2_000),
            key: "t".parse().unwrap(),
        },
        IntoPlay::TournamentEntry => Request::EnterTournament { tournament: TournamentId(1), player: P },
    }
}

/// What `sample(what)` puts into play: stake and ante, or the fee.
fn stake(what: IntoPlay) -> Money {
    match what {
        IntoPlay::Wager | IntoPlay::SlipLine | IntoPlay::TokenWager => Money(2_000),
        IntoPlay::Ante => Money(2_100),
        IntoPlay::TournamentEntry => Money(FEE),
    }
}

/// Accepted, or refused with its kind and words (a slip's one line's).
fn outcome(r: &Reply) -> Result<(), (Code, String)> {
    match r {
        Reply::Wagers { results, .. } => results.iter().try_for_each(outcome),
        Reply::Refused { code, message, .. } => Err((*code, message.clone())),
        _ => Ok(()),
    }
}

/// Issue 45, finding 6, for every way in: under a cool-off, a loss limit
/// one cent below the stake (the ante counted with the stake: AU 14.5), or
/// the day's minutes used up, the writer refuses the request as the
/// player's own limit, in their words, and writes nothing; with no limit
/// the same request is accepted. Promotional tokens are not the player's
/// money (NSW 1.1): the loss limit lets their wager through, the cool-off
/// and the minutes do not.
#[test]
fn a_cool_off_a_loss_limit_and_a_time_limit_stop_every_way_into_play() {
    for what in IntoPlay::ALL {
        assert_eq!(IntoPlay::of(&sample(what)), Some(what), "the sample is the entry's");
        for limit in [Limit::None, Limit::CoolOff, Limit::Loss, Limit::Minutes] {
            let mut w = World::new();
            w.set(limit, what);
            let before = w.written();
            let got = w.handle(sample(what));
            let words = match (limit, what.players_money()) {
                (Limit::None, _) | (Limit::Loss, false) => None,
                (Limit::CoolOff, _) => Some("taking a break"),
                (Limit::Loss, true) => Some("loss limit of"),
                (Limit::Minutes, _) => Some("30 minutes"),
            };
            match (words, outcome(&got)) {
                (None, Ok(())) => assert_ne!(w.written(), before, "{what:?} with {limit:?}: accepted, it wrote"),
                (Some(words), Err((Code::SelfLimit, message))) => {
                    assert!(message.contains(words), "{what:?} with {limit:?}: {message}");
                    assert_eq!(w.written(), before, "{what:?} with {limit:?}: refused, it wrote nothing");
                }
                (words, _) => panic!("{what:?} with {limit:?}: expected {words:?}, got {got:?}"),
            }
        }
    }
}

/// The fee is counted in the day's loss as a stake is: after an entry of
/// 50.00 under a loss limit of 60.00, a wager of 11.00 is refused and one of
/// 10.00 taken; and an entry that opens the day starts its minutes.
#[test]
fn a_tournament_fee_counts_toward_the_days_loss_and_opens_the_day() {
    let mut w = World::new();
    let change = SelfLimitsChange::Set { loss_per_day: Some(Money(6_000)), minutes_per_day: Some(30) };
    w.limits(change);
    w.ok(sample(IntoPlay::TournamentEntry));
    let day = w.c.self_limits[&P].day.expect("the entry opened the day");
    assert_eq!((day.base, day.first_ms), (Money(100_000), DRAWN), "measured from the wallet before the fee");
    let got = w.handle(wager(TableId(1), 1_100, Money::ZERO, "over"));
    assert!(matches!(outcome(&got), Err((Code::SelfLimit, m)) if m.contains("loss limit of 60.00")), "{got:?}");
    w.ok(wager(TableId(1), 1_000, Money::ZERO, "at the limit"));
    w.clock.store(DRAWN + 30 * 60_000, Ordering::SeqCst);
    let got = w.handle(wager(TableId(1), 1_000, Money::ZERO, "late"));
    assert!(matches!(outcome(&got), Err((Code::SelfLimit, m)) if m.contains("30 minutes")), "{got:?}");
}

/// Found on the way: a token wager that opened the day recorded the tokens'
/// balance (500.00) as the day's base, so the wallet's 1,000.00 looked like
/// 500.00 won, and a loss limit of 60.00 let 560.00 be staked. The day's
/// loss is measured from the wallet whatever opened it.
#[test]
fn a_token_wager_opening_the_day_does_not_widen_the_loss_limit() {
    let mut w = World::new();
    w.limits(SelfLimitsChange::Set { loss_per_day: Some(Money(6_000)), minutes_per_day: None });
    w.ok(sample(IntoPlay::TokenWager));
    assert_eq!(w.c.self_limits[&P].day.map(|d| d.base), Some(Money(100_000)), "the wallet's, not the tokens'");
    let got = w.handle(wager(TableId(1), 6_100, Money::ZERO, "over"));
    assert!(matches!(outcome(&got), Err((Code::SelfLimit, m)) if m.contains("loss limit of 60.00")), "{got:?}");
    w.ok(wager(TableId(1), 6_000, Money::ZERO, "at the limit"));
}
