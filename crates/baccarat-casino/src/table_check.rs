//! A table's configuration checked without making the table: every problem
//! [`Casino::create_table`](crate::casino::Casino::create_table) would refuse
//! it for, listed at once (DESIGN principle 2), and nothing changed. The
//! back-office page calls it as the admin types (`POST /api/tables/check`),
//! as `baccarat table check` does for a file.
//!
//! The same steps as a creation, in its order: the rulebook named in the
//! TOML (the HTTP route reads it first, `staff.rs`), the configuration
//! against that rulebook's profile (`casino::setup`: the rules' own
//! [`TableConfig::new`](baccarat_rules::TableConfig::new) and the engine's
//! setup), then the casino's ceiling on any table maximum. A creation stops
//! at the first offer over the ceiling; the check names every one. A table's
//! name and mode are not part of its configuration and are not checked
//! here: the rulebooks are silent on both (the creation's own checks of the
//! name stay with the creation).

use baccarat_rules::{Money, Problem};
use serde::Deserialize;

use crate::casino::{setup, TableError};

/// Every problem of `config` (a table configuration in TOML, naming its
/// `rulebook`) for a casino whose ceiling on any table maximum is `ceiling`;
/// empty when a table can be made from it.
pub fn problems(config: &str, ceiling: Money) -> Vec<Problem> {
    let rulebook = match rulebook_of(config) {
        Ok(r) => r,
        Err(p) => return vec![p],
    };
    match setup(&rulebook, config) {
        Ok((s, _)) => s
            .config
            .offers
            .iter()
            .filter(|o| o.max > ceiling)
            .map(|o| {
                problem(
                    format!("bets.{}.max", o.bet.id()),
                    format!("{} is above the casino's ceiling of {ceiling} for any table maximum", o.max),
                )
            })
            .collect(),
        Err(TableError::Config(p)) => p.problems,
        Err(TableError::Rulebook(e)) => vec![problem("rulebook", e.to_string())],
        Err(e) => vec![problem("", e.to_string())],
    }
}

/// The rulebook a configuration names, as a creation reads it: a TOML that
/// does not parse, or names none, is one problem at `config` with where.
fn rulebook_of(config: &str) -> Result<String, Problem> {
    #[derive(Deserialize)]
    struct Head {
        rulebook: String,
    }
    toml::from_str::<Head>(config).map(|h| h.rulebook).map_err(|e| {
        let at = e.span().map(|s| where_in(config, s.start)).unwrap_or_default();
        problem("config", format!("{at}{}", e.message().trim()))
    })
}

/// "line L, column C: " of byte `at` in `text` (columns in characters).
fn where_in(text: &str, at: usize) -> String {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    format!("line {line}, column {col}: ")
}

fn problem(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem { path: path.into(), message: message.into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::casino::DEFAULT_CEILING;
    use baccarat_core::TableId;

    const GOOD: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

    fn paths(config: &str, ceiling: Money) -> Vec<String> {
        problems(config, ceiling).into_iter().map(|p| p.path).collect()
    }

    #[test]
    fn a_configuration_a_table_can_be_made_from_has_no_problem() {
        assert_eq!(problems(GOOD, DEFAULT_CEILING), vec![]);
        // And the casino makes it: the check and the creation agree.
        let mut c = crate::casino::Casino::new();
        let mut commit = crate::store::Commit::default();
        let made =
            c.create_table(TableId(1), "t", "nsw-2021", GOOD, crate::trust::Mode::Rng, Money(1_000_000), &mut commit);
        assert!(made.is_ok(), "{made:?}");
    }

    /// A maximum below the minimum is named at `max`, the rules' words.
    #[test]
    fn a_maximum_below_the_minimum_is_named_at_max() {
        let bad = GOOD.replace("max = 100000", "max = 500");
        let p = problems(&bad, DEFAULT_CEILING);
        assert!(p.iter().any(|p| p.path == "max" && p.message.contains("below minimum")), "{p:?}");
    }

    /// Every problem at once, not the first: a bad deck count, a limit off
    /// the chip and an unknown side bet in one configuration.
    #[test]
    fn every_problem_is_listed_at_once() {
        let bad = "rulebook = \"nsw-2021\"\ndecks = 5\nchip = 100\nmin = 1050\nmax = 100000\n[bets.no_such_bet]\n";
        let p = paths(bad, DEFAULT_CEILING);
        for want in ["decks", "min", "bets.no_such_bet"] {
            assert!(p.iter().any(|x| x == want), "{want} in {p:?}");
        }
    }

    /// Over the casino's ceiling: every offer over it is named, where a
    /// creation refuses at the first.
    #[test]
    fn every_offer_over_the_ceiling_is_named() {
        let p = paths(GOOD, Money(50_000));
        assert!(p.contains(&"bets.player.max".to_string()) && p.contains(&"bets.banker.max".to_string()), "{p:?}");
        let mut c = crate::casino::Casino::new();
        c.ceiling = Money(50_000);
        let mut commit = crate::store::Commit::default();
        let made =
            c.create_table(TableId(1), "t", "nsw-2021", GOOD, crate::trust::Mode::Rng, Money(1_000_000), &mut commit);
        assert!(made.is_err(), "the creation refuses what the check names");
    }

    #[test]
    fn an_unknown_rulebook_is_named_at_rulebook() {
        let p = problems("rulebook = \"no-such-book\"\nchip = 1\nmin = 1\nmax = 1\n", DEFAULT_CEILING);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].path, "rulebook");
        assert!(p[0].message.contains("nsw-2021"), "the rulebooks are listed: {}", p[0].message);
    }

    /// Text that is not TOML, or names no rulebook, is one problem at
    /// `config` saying where; never a panic (hostile text included).
    #[test]
    fn text_that_is_not_a_configuration_is_one_problem_at_config() {
        let p = problems("rulebook = \"nsw-2021\"\nchip = = 1\n", DEFAULT_CEILING);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].path, "config");
        assert!(p[0].message.starts_with("line 2, column "), "{}", p[0].message);
        let p = problems("chip = 1\n", DEFAULT_CEILING);
        assert!(p[0].path == "config" && p[0].message.contains("rulebook"), "{p:?}");
        // Nesting as deep as a request body allows (16 KB) is refused, not
        // a stack overflow.
        let deep_array = format!("rulebook = \"nsw-2021\"\nchip = {}", "[".repeat(16_000));
        let deep_table = format!("rulebook = \"nsw-2021\"\nchip = {}1{}", "{a=".repeat(4_000), "}".repeat(4_000));
        let hostile = [
            "",
            "\u{0}",
            "[[[[",
            "rulebook = 5",
            "é = \"ü\"\n\u{1F0A1}",
            &"[a]\n".repeat(1000),
            &deep_array,
            &deep_table,
        ];
        for text in hostile {
            assert!(!problems(text, DEFAULT_CEILING).is_empty(), "{:?}", &text[..text.len().min(40)]);
        }
    }

    /// The back office's form starts every rulebook at its defaults (the
    /// largest deck count, the first variant, layout and dealing style, the
    /// first Tie pay table where there are several) with a chip of 1.00 and
    /// limits of 10.00 to 1,000.00: each checks, so the form opens on a
    /// table that can be made.
    #[test]
    fn every_rulebook_at_the_forms_start_makes_a_table() {
        for rb in baccarat_rules::profiles::all() {
            let mut toml =
                format!("rulebook = {:?}\ndecks = {}\nvariant = {:?}\n", rb.id, rb.default_decks(), rb.variants[0].id);
            if !rb.layouts.is_empty() {
                toml += &format!("layout = {:?}\n", rb.default_layout().name);
            }
            let dealing = serde_json::to_value(rb.procedures.dealing[0]).unwrap();
            toml += &format!("dealing = {}\nchip = 100\nmin = 1000\nmax = 100000\n", dealing);
            if let Some(tie) = rb.bet(baccarat_rules::Bet::Tie).filter(|t| t.pay_tables.len() > 1) {
                toml += &format!("\n[bets.\"tie\"]\npay_table = {:?}\n", tie.pay_tables[0].name);
            }
            assert_eq!(problems(&toml, DEFAULT_CEILING), vec![], "{}:\n{toml}", rb.id);
        }
    }

    #[test]
    fn where_counts_lines_and_characters() {
        assert_eq!(where_in("ab\ncé d", 6), "line 2, column 3: ");
        assert_eq!(where_in("ab", 99), "line 1, column 3: ");
        assert_eq!(where_in("é", 1), "line 1, column 1: ");
    }
}
