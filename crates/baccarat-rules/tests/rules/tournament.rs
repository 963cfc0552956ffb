//! Tournament conditions (NSW 15.4): the examples check, every item of
//! 15.4.2 is published, prize shares pay the pool to the cent, and each kind
//! of mistake is named by its field.

use baccarat_rules::tournament::Conditions;
use baccarat_rules::Money;

fn example(name: &str) -> String {
    let path = format!("{}/../../tournaments/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_example_conditions_check_and_publish_every_item_of_nsw_15_4_2() {
    for name in ["eight.toml", "freeroll.toml"] {
        let c = Conditions::from_toml(&example(name)).unwrap_or_else(|p| panic!("{name}: {p}"));
        let text = c.published();
        for item in [
            "15.4.2(a)",
            "15.4.2(b)",
            "15.4.2(c)",
            "15.4.2(e)",
            "15.4.2(f)",
            "15.4.2(g)",
            "15.4.2(h)",
            "15.4.2(j)",
            "15.4.2(k)",
        ] {
            assert!(text.contains(item), "{name}: {item} is not published:\n{text}");
        }
        assert!(text.contains("Only persons entitled to enter the casino and gamble are eligible"), "{text}");
        assert!(text.contains("the rules prevail"), "{text}");
        assert!(text.contains("withdraw without financial penalty"), "{text}");
    }
    let eight = Conditions::from_toml(&example("eight.toml")).unwrap();
    let text = eight.published();
    assert!(text.contains("marker"), "{text}");
    assert!(text.contains("The casino operator may refuse any application."), "{text}");
    assert!(text.contains("within 60 seconds"), "{text}");
}

/// Shares are whole percentages of an integer pool; the remainder of the
/// division goes to first place, so exactly the pool is paid, for every
/// number of entrants.
#[test]
fn prize_shares_pay_exactly_the_pool() {
    let text = example("eight.toml").replace("fee = 0", "fee = 33333").replace("added = 800000000", "added = 7");
    let c = Conditions::from_toml(&text).unwrap();
    for entrants in 24..=36 {
        let pool = c.pool(entrants);
        assert_eq!(pool, Money(33333 * entrants as i64 + 7));
        let shares = c.shares(pool);
        assert_eq!(shares.iter().map(|m| m.0).sum::<i64>(), pool.0, "{entrants} entrants");
        // Each share is its percentage rounded down, first place takes the rest.
        for (i, (s, pct)) in shares.iter().zip([50i64, 25, 12, 8, 5]).enumerate().skip(1) {
            assert_eq!(s.0, pool.0 * pct / 100, "place {}", i + 1);
        }
        assert!(shares[0].0 >= pool.0 / 2 && shares[0].0 - pool.0 / 2 < 5);
    }
    // A guarantee lifts the pool once enough enter (NSW 15.3.3).
    let g = text.replace("[prizes]", "[prizes]\nguarantee = { amount = 1000000000, min_entries = 30 }");
    let c = Conditions::from_toml(&g).unwrap();
    assert_eq!(c.pool(29), Money(33333 * 29 + 7));
    assert_eq!(c.pool(30), Money(1_000_000_000));
}

/// Change one line of the EIGHT conditions; the problem is named by its field.
fn refused(from: &str, to: &str, field: &str, says: &str) {
    let text = example("eight.toml");
    assert!(text.contains(from), "the example lacks {from:?}");
    let e = Conditions::from_toml(&text.replacen(from, to, 1)).expect_err(to).to_string();
    assert!(e.contains(field) && e.contains(says), "{to:?}: {e}");
}

#[test]
fn each_mistake_is_named_by_its_field() {
    refused("rulebook = \"nsw-2021\"", "rulebook = \"au-casino\"", "rulebook", "no rules for tournament play");
    refused("rulebook = \"nsw-2021\"", "rulebook = \"nope\"", "rulebook", "nope");
    refused("fee = 0", "fee = -1", "entry.fee", "below");
    refused("max_players = 36", "max_players = 12", "entry.max_players", "below entry.min_players");
    refused("max_players = 36", "max_players = 40", "structure.rounds[0].tables", "40 players do not fit 6 tables");
    refused("application = \"by invitation", "application = \"   \"\nx = \"", "unknown field", "x");
    refused("min = 500000             # 5,000.00", "min = 300000", "wagers.max", "whole number of minimums");
    refused("max = 10000000           # 100,000.00", "max = 100000", "wagers.max", "below the minimum");
    refused("min = 500000             # 5,000.00", "min = 60000000", "wagers.min", "NSW 15.6.13");
    refused("from_coup = 13", "from_coup = 1", "wagers.changes[0].from_coup", "after coup 1");
    refused("time_limit_seconds = 60", "time_limit_seconds = 0", "wagers.time_limit_seconds", "between 1");
    refused("dealing = \"method_a\"", "dealing = \"style_a\"", "structure.dealing", "not a dealing method");
    refused("seats_per_table = 6", "seats_per_table = 15", "structure.seats_per_table", "14 boxes");
    refused(
        "coups = 18, advance_per_table = 3 },\n  { name = \"Preliminary round 2\"",
        "coups = 18, minutes = 30, advance_per_table = 3 },\n  { name = \"Preliminary round 2\"",
        "structure.rounds[0].coups",
        "one of them",
    );
    refused(
        "tables = 6, coups = 18, advance_per_table = 3",
        "tables = 6, coups = 18, advance_per_table = 6",
        "structure.rounds[0].advance_per_table",
        "eliminates nobody",
    );
    refused(
        "{ name = \"Final\", tables = 1, coups = 18 }",
        "{ name = \"Final\", tables = 1, coups = 18, advance_per_table = 1 }",
        "structure.rounds[3].advance_per_table",
        "final",
    );
    refused("pass_cards = 1", "pass_cards = 18", "play.pass_cards", "sit out");
    refused("{ percent = 5 }", "{ percent = 6 }", "prizes.places", "101%");
    refused("{ percent = 5 }", "{ percent = 4 }", "prizes.places", "NSW 15.3.2");
    refused("{ percent = 5 }", "{ percent = 5, prize = \"a car\" }", "prizes.places[4]", "one of them");
    refused(
        "[prizes]",
        "[buy_back]\ntimes = 1\nprice = 0\nuntil_round = 4\n\n[prizes]",
        "buy_back.until_round",
        "before the last",
    );
    refused("payment = \"cash", "payment = \"\"\nnotes2 = \"", "unknown field", "notes2");
}

#[test]
fn every_problem_is_reported_at_once() {
    let text = example("eight.toml")
        .replace("fee = 0", "fee = -5")
        .replace("time_limit_seconds = 60", "time_limit_seconds = 0");
    let e = Conditions::from_toml(&text).unwrap_err();
    let fields: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    assert!(fields.contains(&"entry.fee") && fields.contains(&"wagers.time_limit_seconds"), "{e}");
}

/// Counts and amounts at their type's limits are refused by name, never
/// overflowing (a conditions file is input: an admin's, or an attacker's).
#[test]
fn huge_numbers_are_refused_without_overflow() {
    let text = example("eight.toml")
        .replace("max_players = 36", "max_players = 4294967295")
        .replace(
            "tables = 6, coups = 18, advance_per_table = 3",
            "tables = 4294967295, coups = 18, advance_per_table = 4294967295, wildcards = 4294967295",
        )
        .replace("added = 800000000", "added = 1000000000000");
    let e = Conditions::from_toml(&text).unwrap_err().to_string();
    for field in ["entry.max_players", "structure.rounds[0].tables", "structure.rounds[0].wildcards"] {
        assert!(e.contains(field), "{field}: {e}");
    }
    // A pool at the largest fee, for any count of entrants, is split without
    // overflow and paid to the cent (it saturates at the largest amount).
    let text = example("eight.toml").replace("fee = 0", "fee = 1000000000000");
    let c = Conditions::from_toml(&text).unwrap();
    for entrants in [36, 100_000, u32::MAX] {
        let pool = c.pool(entrants);
        assert!(pool.0 > 0);
        assert_eq!(c.shares(pool).iter().map(|m| m.0 as i128).sum::<i128>(), pool.0 as i128, "{entrants}");
    }
}

/// NSW 15.6.15: limits are changed by giving notice before the start; the
/// amended conditions are checked again and their text reads back the same.
#[test]
fn nsw_15_6_15_amended_limits_are_checked_and_published() {
    use baccarat_rules::tournament::{Conditions, LimitChange};
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tournaments/eight.toml")).unwrap();
    let c = Conditions::from_toml(&text).unwrap();
    let (amended, published) = c
        .with_limits(1_000_000, 20_000_000, vec![LimitChange { from_coup: 10, min: 2_000_000, max: 40_000_000 }])
        .unwrap();
    let again = Conditions::from_toml(&published).unwrap();
    assert_eq!((again.spec.wagers.min, again.spec.wagers.max), (1_000_000, 20_000_000));
    assert_eq!(again.spec.wagers.changes.len(), 1);
    assert_eq!(again.published(), amended.published());
    // Limits that break the rules are refused, naming the field.
    let bad = c.with_limits(1_000_000, 1_500_000, Vec::new()).unwrap_err().to_string();
    assert!(bad.contains("wagers.max"), "{bad}");
}
