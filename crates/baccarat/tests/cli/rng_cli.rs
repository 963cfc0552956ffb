//! `baccarat rng` end to end (issue 11 §5): the report's JSON, the raw stream
//! and the positions are the table's shoes, and bad flags are refused by name.

use std::process::{Command, Output};

use baccarat_math::rng_evidence::{Procedure, ShoeDraw, ShoeSource, TableShoes};
use baccarat_rules::profiles;
use baccarat_table::Seed;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baccarat")).args(args).output().expect("run baccarat")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn table() -> TableShoes {
    TableShoes(Procedure::for_rulebook(&profiles::builtin("nsw-2021").unwrap(), 8))
}

#[test]
fn report_json_names_the_seed_and_every_verdict() {
    let o = run(&["rng", "report", "--seed", "1", "--shoes", "3000", "--threads", "2", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["master_seed"], Seed::from_u64(1).hex());
    assert_eq!(v["shoes"], 3000);
    assert_eq!(v["cut_range"], serde_json::json!([52, 364]));
    assert_eq!(v["cutting_card_from_back"], 20);
    assert_eq!(v["passed"], true);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 9);
    for t in tests {
        let p = t["p_value"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&p), "{t}");
        assert_eq!(t["passed"], p >= 0.01, "{t}");
        assert!(t["rule"].as_str().unwrap().contains("11VAC20") || t["id"] == "cut", "{t}");
    }
    let fam = &tests.iter().find(|t| t["id"] == "positions-dealt").unwrap()["family"];
    assert_eq!(fam["tests"], 416);
    let checks = v["checks"].as_array().unwrap();
    assert!(checks.iter().any(|c| c["id"] == "table-shoes" && c["passed"] == true), "{checks:?}");
    assert!(v["shoes_per_second"].as_f64().unwrap() > 0.0);
}

/// The stream is the words shoe 0, 1, … consumed, in order, cut at --bytes.
#[test]
fn stream_writes_the_words_the_shoes_consumed() {
    let o = run(&["rng", "stream", "--seed", "5", "--bytes", "5001"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(o.stdout.len(), 5001);
    let mut words = Vec::new();
    let mut stack = vec![0u16; 416];
    for shoe in 0..8 {
        table().consumed_words(&Seed::from_u64(5), shoe, &mut stack, &mut words);
    }
    let want: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).take(5001).collect();
    assert_eq!(o.stdout, want);
}

/// Each line: shoe, cut, cutting card, then the dealing order, a permutation
/// of the 416 physical cards, equal to the evidence's shoe.
#[test]
fn positions_are_the_dealing_order() {
    let o = run(&["rng", "positions", "--seed", "2", "--shoes", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8(o.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3);
    let mut d = ShoeDraw::new(416);
    for (i, line) in lines.iter().enumerate() {
        let f: Vec<usize> = line.split(' ').map(|x| x.parse().unwrap()).collect();
        assert_eq!(f.len(), 3 + 416);
        table().draw(&Seed::from_u64(2), i as u64, &mut d);
        assert_eq!((f[0], f[1], f[2]), (i, d.cut.at, 20));
        let order: Vec<usize> = d.dealing_order().iter().map(|&c| c as usize).collect();
        assert_eq!(f[3..], order[..]);
        let mut sorted = f[3..].to_vec();
        sorted.sort();
        assert_eq!(sorted, (0..416).collect::<Vec<_>>());
    }
    let b = run(&["rng", "positions", "--seed", "2", "--shoes", "3", "--binary"]);
    assert_eq!(b.stdout.len(), 3 * 416 * 2);
}

#[test]
fn bad_flags_are_refused_by_name() {
    for (args, needle) in [
        (&["rng", "report", "--seed", "xyz"][..], "--seed"),
        (&["rng", "report", "--shoes", "1", "--seed", "1"], "--shoes"),
        (&["rng", "report", "--threads", "0", "--seed", "1"], "--threads"),
        (&["rng", "report", "--decks", "5", "--seed", "1"], "--decks"),
        (&["rng", "report", "--rulebook", "nope", "--seed", "1"], "--rulebook"),
        (&["rng", "stream", "--bytes", "0", "--seed", "1"], "--bytes"),
        (&["rng", "positions", "--shoes", "0", "--seed", "1"], "--shoes"),
    ] {
        let o = run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error: ") && err.contains(needle), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}
