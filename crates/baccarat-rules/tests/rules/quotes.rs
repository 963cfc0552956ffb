//! The `[quotes]` of the shipped profiles: the pit console shows staff the text
//! of the rule at an irregularity or refusal, so every such citation has its
//! text, and the text is the clause the citation names. (That each quote is
//! verbatim from `shared/rulebooks/` is checked against those texts outside the
//! repository.)

use baccarat_rules::Cite;
use baccarat_rules::{profiles, Rulebook, CITATION_KEYS};

/// The citation keys of irregularities and refusals: the ones staff need the
/// rule's words for.
const IRREGULARITY_KEYS: [&str; 16] = [
    "unauthorised_player_third",
    "excess_card",
    "face_up_first",
    "face_up_within",
    "missing_or_foreign",
    "misdeal",
    "scanner_discrepancy",
    "invalidated",
    "wrong_hand",
    "no_bet_coup",
    "insufficient_cards",
    "supervisor_refusal",
    "combination",
    "differential",
    "wagers_closed",
    "late_wagers",
];

/// The clause numbers a citation names, in order: "NSW 12.4, 7.4-7.5" gives
/// 12.4, 7.4 and 7.5; "AU 12.1(b), 12.3 (Void Hand)" gives 12.1 and 12.3; a
/// paraphrase after a colon is not part of it.
fn cited_clauses(citation: &str) -> Vec<&str> {
    let refs = citation.split_once(' ').map_or("", |(_, rest)| rest);
    let refs = refs.split_once(':').map_or(refs, |(r, _)| r);
    refs.split([',', ';', '-'])
        .map(|r| r.trim().split([' ', '(']).next().unwrap_or(""))
        .filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
        .collect()
}

/// Whether `text` begins with clause `number` itself: "12.2" and "12.2." but not
/// "12.20" or "12.2.1".
fn begins_with_clause(text: &str, number: &str) -> bool {
    let Some(rest) = text.strip_prefix(number) else { return false };
    let rest = rest.strip_prefix('.').unwrap_or(rest);
    rest.starts_with(char::is_whitespace)
}

#[test]
fn cited_clauses_reads_the_citation_forms() {
    assert_eq!(cited_clauses("NSW 12.4, 7.4-7.5"), ["12.4", "7.4", "7.5"]);
    assert_eq!(cited_clauses("AU 12.1(b), 12.2(b), 12.3 (Void Hand)"), ["12.1", "12.2", "12.3"]);
    assert_eq!(cited_clauses("EU 6.1.4: when the dealer has announced no more bets"), ["6.1.4"]);
    assert_eq!(cited_clauses("AU 11A.2, 11B.2"), ["11A.2", "11B.2"]);
    assert!(begins_with_clause("12.2. A third card", "12.2"));
    assert!(begins_with_clause("12.2 Subject to rule 12.1", "12.2"));
    assert!(!begins_with_clause("12.20. Something", "12.2"));
    assert!(!begins_with_clause("12.2.1. Something", "12.2"));
}

#[test]
fn every_irregularity_and_refusal_citation_has_its_rule_text() {
    let mut checked = Vec::new();
    for rb in profiles::all() {
        let mut n = 0;
        for key in IRREGULARITY_KEYS {
            let Some(citation) = rb.config.citations.get(key) else { continue };
            let quote = rb
                .quote(baccarat_rules::Cite::parse(key).unwrap())
                .unwrap_or_else(|| panic!("{} cites {key} ({citation}) but quotes none", rb.id));
            let clauses = cited_clauses(citation);
            assert!(!clauses.is_empty(), "{} {key}: no clause number in {citation:?}", rb.id);
            assert!(
                begins_with_clause(quote, clauses[0]),
                "{} {key}: the quote for {citation:?} begins {:?}",
                rb.id,
                quote.chars().take(40).collect::<String>()
            );
            // Several clauses are joined by a blank line; each one named is there.
            for c in &clauses {
                assert!(
                    quote.split("\n\n").any(|para| begins_with_clause(para, c)),
                    "{} {key}: no paragraph of the quote for {citation:?} is clause {c}",
                    rb.id
                );
            }
            n += 1;
        }
        checked.push((rb.id.clone(), n));
    }
    let count = |id: &str| checked.iter().find(|(i, _)| i == id).map(|(_, n)| *n);
    assert_eq!(count("nsw-2021"), Some(16), "NSW cites every one of them");
    assert_eq!(count("au-casino"), Some(12));
    assert_eq!(count("european-casino"), Some(7), "EU 4.3 for cards dealt out of turn");
}

#[test]
fn quotes_exist_only_for_cited_keys() {
    for rb in profiles::all() {
        for key in rb.config.quotes.keys() {
            assert!(rb.config.citations.contains_key(key), "{}: quote for uncited {key}", rb.id);
        }
        for key in CITATION_KEYS {
            assert_eq!(
                rb.quote(baccarat_rules::Cite::parse(key).unwrap()).is_some(),
                rb.config.quotes.contains_key(*key)
            );
        }
    }
    let nsw = profiles::builtin("nsw-2021").unwrap();
    assert!(nsw.quote(Cite::WrongHand).unwrap().starts_with("12.15. In the event that cards are passed out"));
    let resort = profiles::builtin("resort-house").unwrap();
    assert_eq!(resort.quote(Cite::Misdeal), None, "the resort's house rules are silent on misdeals");
}

#[test]
fn an_unknown_uncited_or_empty_quote_is_refused_with_its_place() {
    let text = profiles::builtin_text("resort-house").unwrap();
    assert!(text.contains("\n[quotes]\n"), "the resort profile has a [quotes] table");
    let bad = text
        .replace("\n[quotes]\n", "\n[quotes]\nno_such_key = \"1.1 Some rule.\"\nmisdeal = \"4.2 Not cited here.\"\n");
    let e = Rulebook::from_toml(&bad).unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["quotes.no_such_key", "quotes.misdeal"], "{e}");
    assert!(e.to_string().contains("unknown key"), "{e}");

    let quoted = "limits = '''\nThe betting limits are displayed at the gaming table.'''";
    assert!(text.contains(quoted));
    let e = Rulebook::from_toml(&text.replace(quoted, "limits = \" \"")).unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["quotes.limits"], "{e}");
}

#[test]
fn a_profile_without_quotes_is_valid_and_quotes_nothing() {
    let text = profiles::builtin_text("european-casino").unwrap();
    let (head, _) = text.split_once("\n[quotes]\n").expect("the profile has a [quotes] table");
    let rb = Rulebook::from_toml(head).unwrap();
    assert!(rb.config.quotes.is_empty());
    assert_eq!(rb.quote(Cite::Misdeal), None);
    assert_eq!(rb.cite(Cite::Misdeal), "EU 4.2-4.3");
}
