//! Promotional prize terms (NSW 16): the example checks, each exclusion and
//! payment rule is named, and entries are earned only as the terms say.

use baccarat_rules::promotion::{utc_ms, Terms};
use baccarat_rules::{Bet, Money};

fn example() -> String {
    let path = format!("{}/../../promotions/friday-draw.toml", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_example_terms_check() {
    let t = Terms::from_toml(&example()).unwrap_or_else(|p| panic!("{p}"));
    assert_eq!(t.draws().len(), 5, "one cash prize, one trip, three dinners");
    assert_eq!(t.closes_ms, utc_ms("2026-12-04T08:00:00Z").unwrap());
}

/// Change one piece of the example; the problem is named by field and rule.
fn refused(from: &str, to: &str, field: &str, says: &str) {
    let text = example();
    assert!(text.contains(from), "the example lacks {from:?}");
    let e = Terms::from_toml(&text.replacen(from, to, 1)).expect_err(to).to_string();
    assert!(e.contains(field) && e.contains(says), "{to:?}: {e}");
}

#[test]
fn each_excluded_prize_and_payment_rule_is_named() {
    refused("includes = [\"liquor\"]", "includes = [\"liquor\", \"tobacco\"]", "prizes[2].includes", "NSW 16.5.1");
    refused(
        "description = \"Cash\"",
        "description = \"Cash and a box of cigars\"",
        "prizes[0].description",
        "NSW 16.5.1",
    );
    refused(
        "includes = [\"liquor\"]",
        "includes = [\"liquor\", \"imitation_firearm\"]",
        "prizes[2].includes",
        "NSW 16.5.2",
    );
    refused(
        "includes = [\"liquor\"]",
        "includes = [\"liquor\", \"prohibited_weapon\"]",
        "prizes[2].includes",
        "NSW 16.5.3",
    );
    refused("liquor_litres = 1", "liquor_litres = 21", "prizes[2].liquor_litres", "NSW 16.5.4");
    refused("liquor_litres = 1", "liquor_litres = 0", "prizes[2].liquor_litres", "exactly when");
    refused(
        "kind = \"service\"",
        "kind = \"casino_dollars\"\ncash_alternative = true",
        "prizes[2].cash_alternative",
        "NSW 16.3",
    );
    refused(
        "payment = [\"cash\", \"crossed_cheque\", \"eft\"]",
        "payment = [\"cash\"]",
        "prizes[0].payment",
        "NSW 16.4",
    );
    refused("scrutineer = \"J. Citizen, independent scrutineer\"", "", "scrutineer", "NSW 16.2");
    refused("spending_money = \"none\" ", "", "prizes[1].details.spending_money", "NSW 16.7.11.3");
    refused("kind = \"travel\"", "kind = \"motor_vehicle\"", "prizes[1].details.make", "NSW 16.7.11.2");
    refused("closes = \"2026-12-04T08:00:00Z\"", "closes = \"2026-12-04T10:00:00Z\"", "closes", "after the draw");
    refused("closes = \"2026-12-04T08:00:00Z\"", "closes = \"4 Dec 2026\"", "closes", "NSW 16.7.6");
    refused("results = \"published", "results = \"\"\nreservations2 = \"", "unknown field", "reservations2");
    refused("notify = \"by telephone", "notify = \"  \"\nx = \"", "unknown field", "x");
}

#[test]
fn a_missing_statement_is_named_with_its_rule() {
    let text = example().replace(
        "results = \"published on the casino's website and at the rewards desk for 30 days\"",
        "results = \"\"",
    );
    let e = Terms::from_toml(&text).unwrap_err().to_string();
    assert!(e.contains("results") && e.contains("NSW 16.7.10"), "{e}");
}

#[test]
fn entries_are_earned_only_by_qualifying_wagers_before_the_close() {
    let t = Terms::from_toml(&example()).unwrap();
    let before = t.closes_ms - 1;
    assert_eq!(t.entries_for(Bet::Banker, Money(10_000), before), 1);
    assert_eq!(t.entries_for(Bet::Banker, Money(10_000), t.closes_ms), 1, "at the closing time");
    assert_eq!(t.entries_for(Bet::Banker, Money(10_000), t.closes_ms + 1), 0, "after it (NSW 16.7.6)");
    assert_eq!(t.entries_for(Bet::Banker, Money(9_999), before), 0, "under the minimum (NSW 16.7.4)");
    assert_eq!(t.entries_for(Bet::PlayerPair, Money(50_000), before), 0, "not a qualifying wager");
}
