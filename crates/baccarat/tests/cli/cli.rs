//! The `baccarat` command end to end: JSON shape and figures, and bad input
//! refused with one clear line and exit status 2, never a panic.

use std::path::Path;
use std::process::{Command, Output};

use crate::common::TempDir;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_baccarat")).args(args).output().expect("run baccarat")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Refused: status 2, stderr one line starting "error:" that contains `needle`.
fn refused(args: &[&str], needle: &str) {
    let o = run(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
    assert!(err.starts_with("error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: one line: {err}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(!err.contains("panicked"), "{err}");
}

/// A directory of the test's own for the files it writes with [`tmp`].
fn scratch(test: &str) -> TempDir {
    TempDir::new(&format!("baccarat-cli-{}-{test}", std::process::id()))
}

/// Write `text` to `dir/name`; the path.
fn tmp(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_string_lossy().into_owned()
}

#[test]
fn odds_json_has_the_documented_shape_and_figures() {
    let o = run(&["odds", "--rulebook", "au-casino", "--decks", "8", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["rulebook"], "au-casino");
    assert_eq!(v["decks"], 8);
    let bets = v["bets"].as_array().unwrap();
    let find = |bet: &str, table: &str| {
        bets.iter().find(|b| b["bet"] == bet && b["pay_table"] == table).unwrap_or_else(|| panic!("{bet} {table}"))
    };
    let banker = find("banker", "commission");
    assert!((banker["house_edge"].as_f64().unwrap() - 0.010579).abs() < 5e-7);
    assert!(banker["std_dev"].as_f64().unwrap() > 0.9);
    let lines = banker["outcomes"].as_array().unwrap();
    assert_eq!(lines[0]["outcome"], "win");
    assert_eq!(lines[0]["pays"], "19:20");
    let total: f64 = lines.iter().map(|l| l["probability"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-12);
    assert_eq!(find("tie", "9_to_1")["outcomes"][0]["pays"], "9:1");
    assert_eq!(
        find("player", "two_to_one")["outcomes"].as_array().unwrap().iter().find(|l| l["outcome"] == "tie").unwrap()
            ["pays"],
        "lose"
    );
    // Every wager of the rulebook, once per pay table: 2+4+2 main, 2+2 any pair,
    // 3+3 perfect pair, 3+3 dragon, 2+2 lucky match.
    assert_eq!(bets.len(), 28);
}

#[test]
fn odds_for_a_remaining_shoe_and_main_only_agree() {
    let shoe = "28,32,32,31,32,30,32,32,29,32,31,32,32";
    let full: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["odds", "--rulebook", "nsw-2021", "--shoe", shoe, "--json"]))).unwrap();
    let fast: serde_json::Value = serde_json::from_str(&stdout(&run(&[
        "odds",
        "--rulebook",
        "nsw-2021",
        "--shoe",
        shoe,
        "--main-only",
        "--json",
    ])))
    .unwrap();
    assert_eq!(full["cards"], 405);
    for b in fast["bets"].as_array().unwrap() {
        let f = full["bets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["bet"] == b["bet"] && x["pay_table"] == b["pay_table"])
            .unwrap();
        assert_eq!(f["house_edge_exact"], b["house_edge_exact"], "{}", b["bet"]);
    }
}

/// `n/d` of an exact figure in the JSON.
fn exact(v: &serde_json::Value) -> (i128, i128) {
    let s = v["exact"].as_str().unwrap();
    let (n, d) = s.split_once('/').unwrap();
    (n.parse().unwrap(), d.parse().unwrap())
}

#[test]
fn odds_eor_is_exact_and_sums_to_zero_over_the_shoe() {
    // 8 decks by rank and suit less a few cards: 52 counts.
    let mut counts = [8u32; 52];
    for c in [0usize, 5, 9, 13, 17, 22, 30, 31, 40, 51] {
        counts[c] -= 1 + (c % 3) as u32;
    }
    let shoe = counts.map(|n| n.to_string()).join(",");
    let o = run(&["odds", "--rulebook", "au-casino", "--shoe", &shoe, "--eor", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let eor = v["eor"].as_array().unwrap();
    assert_eq!(eor.len(), 28, "every wager once per pay table (as the report)");
    let ranks: Vec<u32> = (0..13).map(|r| counts[r * 4..r * 4 + 4].iter().sum()).collect();
    for e in eor {
        let by_rank = e["by_rank"].as_array().unwrap();
        assert_eq!(by_rank.len(), 13, "{}", e["bet"]);
        // Σ_r n_r · EoR(r) = 0 exactly: a card burned unseen changes nothing on
        // average. Summed over the common denominator of the fractions.
        let fr: Vec<(i128, i128)> = by_rank.iter().map(|x| exact(&x["eor"])).collect();
        let lcm = fr.iter().fold(1i128, |l, &(_, d)| l / gcd(l, d) * d);
        let sum: i128 = fr.iter().zip(&ranks).map(|(&(n, d), &k)| n * (lcm / d) * k as i128).sum();
        assert_eq!(sum, 0, "{} {}", e["bet"], e["pay_table"]);
        let sees_suits = e["bet"].as_str().unwrap().starts_with("perfect_pair")
            || e["bet"].as_str().unwrap().starts_with("lucky_match");
        assert_eq!(e["by_card"].as_array().map(|c| c.len()), sees_suits.then_some(52), "{}", e["bet"]);
    }
    let text = run(&["odds", "--rulebook", "au-casino", "--shoe", &shoe, "--eor"]);
    assert!(text.status.success(), "{}", stderr(&text));
    assert!(stdout(&text).contains("effect of removing one card"), "{}", stdout(&text));
    refused(&["odds", "--shoe", "1,1,1,1,1,1,0,0,0,0,0,0,0", "--eor"], "removing one would leave fewer");
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

#[test]
fn nsw_four_decks_leaves_out_the_six_or_eight_deck_wagers() {
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&run(&["odds", "--rulebook", "nsw-2021", "--decks", "4", "--json"]))).unwrap();
    let skipped: Vec<&str> = v["skipped"].as_array().unwrap().iter().map(|s| s["bet"].as_str().unwrap()).collect();
    assert!(skipped.contains(&"tiger") && skipped.contains(&"player_pair"), "{skipped:?}");
    assert!(v["bets"].as_array().unwrap().iter().any(|b| b["bet"] == "super_six"));
}

#[test]
fn text_report_and_profiles() {
    let o = run(&["odds"]);
    assert!(o.status.success());
    assert!(stdout(&o).contains("4,998,398,275,503,360"), "{}", stdout(&o));
    let o = run(&["profiles"]);
    let out = stdout(&o);
    for id in ["nsw-2021", "au-casino", "resort-house", "european-casino"] {
        assert!(out.contains(id), "{out}");
    }
    let o = run(&["profile", "show", "au-casino"]);
    assert!(stdout(&o).contains("AU 11A.1A"), "{}", stdout(&o));
    let o = run(&["profile", "show", "nsw-2021", "--toml"]);
    assert!(stdout(&o).contains("tiger_tie"));
    let o = run(&["profile", "show", "european-casino", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["shoe"]["decks"][0], 8);
}

#[test]
fn bad_input_is_refused_in_one_line() {
    let dir = scratch("refused");
    refused(&["odds", "--rulebook", "macau"], "unknown rulebook \"macau\"");
    refused(
        &["odds", "--rulebook", "european-casino", "--decks", "6"],
        "european-casino allows [8] decks, not 6 (EU 1.3)",
    );
    refused(&["odds", "--shoe", "4,4,4"], "give 13 counts by rank");
    refused(&["odds", "--shoe", "4,-4,4,4,4,4,4,4,4,4,4,4,4"], "count 2 (2) is \"-4\"");
    refused(&["odds", "--shoe", "1,1,1,1,1,0,0,0,0,0,0,0,0"], "5 cards is too few");
    refused(&["odds", "--decks", "6", "--shoe", "25,4,4,4,4,4,4,4,4,4,4,4,4"], "25 As is more than 6 decks hold (24)");
    refused(&["odds", "--rulebook", "no/such/file.toml"], "cannot read profile");
    let bad = tmp(&dir, "bad.toml", "id = \"x\"\ntitle = [\n");
    refused(&["odds", "--rulebook", &bad], "line 2");
    refused(&["profile", "check", &bad], "line 2");
    refused(&["profile", "show", "macau"], "unknown rulebook");
}

#[test]
fn checks_list_every_problem() {
    let dir = scratch("checks");
    let text = baccarat_rules::profiles::builtin_text("au-casino")
        .unwrap()
        .replace("\"9:1\"", "\"9-1\"")
        .replace("decks = [4, 5, 6, 7, 8]", "decks = [4, 5, 6, 7, 12]");
    let p = tmp(&dir, "au-bad.toml", &text);
    let o = run(&["profile", "check", &p]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("(2 problems)")
            && err.contains("shoe.decks")
            && err.contains("bets.tie.pay_tables.9_to_1.pays.win"),
        "{err}"
    );
    let good = tmp(&dir, "au-good.toml", baccarat_rules::profiles::builtin_text("au-casino").unwrap());
    assert!(run(&["profile", "check", &good]).status.success());

    let t = tmp(&dir, "table.toml", "rulebook = \"au-casino\"\ndecks = 8\nchip = 100\nmin = 1000\nmax = 100000\n[bets.tie]\npay_table = \"9_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_two\"\n[bets.lucky_match_banker]\npay_table = \"scale_one\"\n");
    let o = run(&["table", "check", &t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("AU 11A.1A") && stderr(&o).contains("AU 11D.2"), "{}", stderr(&o));
    let ok = tmp(&dir, "table-ok.toml", "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\ndifferential = 200000\n[bets.tiger]\n[bets.tiger_pair]\n");
    let o = run(&["table", "check", &ok]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("tiger_pair"));
}

fn run_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_baccarat"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn roads_json_from_stdin() {
    let o = run_stdin(&["roads", "--json"], "TBBPPPB\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["leading_ties"], 1);
    assert_eq!(v["big_eye_boy"], "RBB");
    assert_eq!(v["small_road"], "");
    assert_eq!(v["big_road"].as_array().unwrap().len(), 3);
    assert_eq!(v["big_road"][1][2]["row"], 2);
    assert_eq!(v["bead_plate"][0][0], "T");
    assert_eq!(v["ask"]["banker"]["big_eye_boy"], "R");
    assert!(v["ask"]["player"]["cockroach_pig"].is_null());
    let o = run_stdin(&["roads"], "BP?B");
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).starts_with("error: results: character 3 is '?'"), "{}", stderr(&o));
}

#[test]
fn simulate_json_is_reproducible_across_threads() {
    let a = run(&[
        "simulate",
        "--rulebook",
        "european-casino",
        "--shoes",
        "300",
        "--threads",
        "1",
        "--seed",
        "42",
        "--json",
    ]);
    let b = run(&[
        "simulate",
        "--rulebook",
        "european-casino",
        "--shoes",
        "300",
        "--threads",
        "2",
        "--seed",
        "42",
        "--json",
    ]);
    assert!(a.status.success(), "{}", stderr(&a));
    assert!(stderr(&a).is_empty(), "no progress bar when not on a terminal: {}", stderr(&a));
    let (va, vb): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&stdout(&a)).unwrap(), serde_json::from_str(&stdout(&b)).unwrap());
    assert_eq!(va["coups"], vb["coups"]);
    assert_eq!(va["bets"], vb["bets"]);
    assert_eq!(va["burn"], "TurnAndBurn");
    let bets = va["bets"].as_array().unwrap();
    assert_eq!(bets.len(), 6); // player, banker (two tables), tie, player pair, banker pair
    for b in bets {
        let ci = b["ci95"].as_array().unwrap();
        assert!(
            ci[0].as_f64().unwrap() <= b["return"].as_f64().unwrap()
                && b["return"].as_f64().unwrap() <= ci[1].as_f64().unwrap()
        );
    }
    assert!(va["coups_per_second"].as_f64().unwrap() > 0.0);
}

#[test]
fn simulate_with_a_table_config_plays_its_offers() {
    let dir = scratch("simulate");
    let t = tmp(&dir, "sim-table.toml", "rulebook = \"nsw-2021\"\ndecks = 6\nvariant = \"even_money\"\nchip = 100\nmin = 1000\nmax = 100000\n[bets.super_six]\n");
    let o = run(&["simulate", "--table", &t, "--shoes", "50", "--seed", "1", "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["decks"], 6);
    let ids: Vec<String> = v["bets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| format!("{}/{}", b["bet"].as_str().unwrap(), b["pay_table"].as_str().unwrap()))
        .collect();
    assert_eq!(ids, ["player/standard", "banker/even_money", "tie/8_to_1", "super_six/super_six"]);
}

#[test]
fn simulate_refuses_bad_input() {
    refused(&["simulate", "--shoes", "0"], "--shoes: 0 is outside");
    refused(&["simulate", "--seed", "xyz"], "--seed: \"xyz\" is neither a number nor 64 hex digits");
    refused(
        &["simulate", "--cutting-card", "5", "--shoes", "1"],
        "--cutting-card: 5 cards from the back is outside 20 to 364",
    );
    refused(
        &["simulate", "--rulebook", "european-casino", "--burn", "burn_one", "--shoes", "1"],
        "--burn: european-casino does not name BurnOne",
    );
    refused(&["simulate", "--threads", "0", "--shoes", "1"], "--threads: 0 is outside 1 to 256");
}

const DRAGON_7_COUNT: &str = "rulebook = \"au-casino\"\ndecks = 8\ncut_card = 14\nwager = \"dragon_7\"\n[count]\ntags = [0, 0, 0, -1, -1, -1, -1, 2, 2, 0]\n[bet]\ntrigger = 4\n";

#[test]
fn simulate_count_reports_each_figure_with_its_interval() {
    let dir = scratch("count");
    let f = tmp(&dir, "d7.toml", DRAGON_7_COUNT);
    let args = |threads: &'static str| {
        ["simulate", "--count", &f, "--shoes", "400", "--seed", "9", "--threads", threads, "--json"].map(String::from)
    };
    let a = Command::new(env!("CARGO_BIN_EXE_baccarat")).args(args("1")).output().unwrap();
    let b = Command::new(env!("CARGO_BIN_EXE_baccarat")).args(args("2")).output().unwrap();
    assert!(a.status.success(), "{}", stderr(&a));
    let (va, vb): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&stdout(&a)).unwrap(), serde_json::from_str(&stdout(&b)).unwrap());
    for k in ["advantage", "share_of_coups_bet", "win_per_shoe", "win_per_hour", "flat_return", "bets_per_shoe"] {
        assert_eq!(va[k], vb[k], "{k}: the thread count changes nothing");
        let (v, ci) = (va[k]["value"].as_f64().unwrap(), va[k]["ci95"].as_array().unwrap());
        assert!(ci[0].as_f64().unwrap() <= v && v <= ci[1].as_f64().unwrap(), "{k}: {}", va[k]);
    }
    assert_eq!(va["wager"], "dragon_7 (40 to 1)");
    assert_eq!(va["burn"], "turn_and_burn");
    assert_eq!(va["decisions_per_hour"], 60);
    assert_eq!(va["cutting_card_below_rulebook_minimum"], true);
    assert!(va["shoes_per_second"].as_f64().unwrap() > 0.0);
    let json = tmp(
        &dir,
        "d7.json",
        r#"{"rulebook": "au-casino", "decks": 8, "cut_card": 20, "wager": "player_pair", "pay_table": "scale_one", "count": {"tags": [0,0,0,0,0,0,0,0,0,0,0,0,0]}, "bet": {"trigger": 0}}"#,
    );
    let o = run(&["simulate", "--count", &json, "--shoes", "50", "--seed", "1", "--decisions-per-hour", "80"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("win per hour (units, 80/h)"), "{}", stdout(&o));
}

#[test]
fn simulate_count_refuses_bad_files_naming_the_field() {
    let dir = scratch("count-bad");
    let bad = |name: &str, from: &str, to: &str| tmp(&dir, name, &DRAGON_7_COUNT.replace(from, to));
    refused(
        &["simulate", "--count", &bad("a.toml", "trigger = 4", "trigger = \"x\""), "--shoes", "1"],
        "`trigger = \"x\"`",
    );
    refused(
        &["simulate", "--count", &bad("b.toml", "decks = 8", "decks = 9"), "--shoes", "1"],
        "decks: au-casino allows",
    );
    refused(
        &["simulate", "--count", &bad("c.toml", "tags = [0, 0, 0,", "tags = ["), "--shoes", "1"],
        "count.tags: 7 tags",
    );
    refused(&["simulate", "--count", &bad("d.toml", "dragon_7", "dragon"), "--shoes", "1"], "wager: \"dragon\"");
    refused(&["simulate", "--count", "/nonexistent/s.toml"], "cannot read strategy file");
    refused(&["simulate", "--count", &bad("e.toml", "", ""), "--decisions-per-hour", "0"], "--decisions-per-hour: 0");
}

#[test]
fn archive_refuses_bad_input_and_a_database_with_nothing_to_cut() {
    let dir = scratch("archive");
    refused(&["archive", "--db", "/nonexistent/casino.db"], "--db");
    refused(&["archive", "--db", "postgres://nobody@%2Fnonexistent/db", "--dir", "x"], "--dir: on PostgreSQL");
    refused(&["archive", "--db", "postgres://nobody@%2Fnonexistent/db"], "--db: ");
    let empty = tmp(&dir, "archive-empty.db", "");
    refused(&["archive", "--db", &empty, "--older-than-days", "0"], "--older-than-days");
    refused(&["archive", "--db", &empty, "--key-retention-hours", "9000"], "--key-retention-hours");
    refused(&["archive", "--db", &empty], "no checkpoint was taken");
}

#[test]
fn migrate_refuses_a_target_that_is_not_postgres_and_a_missing_source() {
    let dir = scratch("migrate");
    let empty = tmp(&dir, "migrate-empty.db", "");
    refused(&["migrate", "--from", &empty, "--to", "mysql://db"], "--to: \"mysql://db\" is not a postgres:// URL");
    refused(
        &["migrate", "--from", "/nonexistent/casino.db", "--to", "postgres://nobody@%2Fnonexistent/db"],
        "--from: /nonexistent/casino.db does not exist",
    );
    // Without --anchor-file, the database's copy of the lines is read, and
    // only under the key the casino published; then the database must answer.
    refused(&["verify", "--db", "postgres://nobody@%2Fnonexistent/db"], "--anchor-key: required without --anchor-file");
    refused(
        &["verify", "--db", "postgres://nobody@%2Fnonexistent/db", "--anchor-key", &"a".repeat(64)],
        "database out of reach",
    );
    refused(
        &["verify", "--db", "postgres://nobody@%2Fnonexistent/db", "--since-checkpoint"],
        "--anchor-file: required with a PostgreSQL --db",
    );
}

#[test]
fn tournament_conditions_are_checked_and_shown_as_players_read_them() {
    let dir = scratch("tournament");
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tournaments/");
    for name in ["eight.toml", "freeroll.toml"] {
        let o = run(&["tournament", "check", &format!("{root}{name}")]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("valid under nsw-2021"), "{}", stdout(&o));
    }
    let o = run(&["tournament", "show", &format!("{root}eight.toml")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("Dealing: Method A (NSW 8)") && text.contains("the rules prevail"), "{text}");
    let eight = std::fs::read_to_string(format!("{root}eight.toml")).unwrap();
    let bad = tmp(
        &dir,
        "tournament-au.toml",
        &eight.replace("rulebook = \"nsw-2021\"", "rulebook = \"au-casino\"").replace("method_a", "style_a"),
    );
    refused(&["tournament", "check", &bad], "rulebook: au-casino has no rules for tournament play");
    refused(&["tournament", "show", "/nonexistent.toml"], "cannot read");
}

#[test]
fn a_promotion_is_checked_and_its_draw_recomputed_from_the_seed_and_the_list() {
    let dir = scratch("promotion");
    let terms = concat!(env!("CARGO_MANIFEST_DIR"), "/../../promotions/friday-draw.toml");
    let o = run(&["promotion", "check", terms]);
    assert!(o.status.success(), "{}", stderr(&o));
    let seed = baccarat_table::Seed::from_u64(2026);
    let (s, c) = (seed.hex(), seed.commitment_hex());
    let entries = tmp(&dir, "entries.txt", "4:5\n2:2\n7:3\n11:1\n");
    let args =
        ["promotion", "draw", "--terms", terms, "--entries", &entries, "--seed", &s, "--commitment", &c, "--json"];
    let a = run(&args);
    assert!(a.status.success(), "{}", stderr(&a));
    let v: serde_json::Value = serde_json::from_str(&stdout(&a)).unwrap();
    assert_eq!(v["winners"].as_array().unwrap().len(), 4, "four players, one prize each: {v}");
    assert_eq!(v["undrawn"], 1);
    assert_eq!(stdout(&run(&args)), stdout(&a), "the same seed and list, the same winners");
    let wrong = baccarat_table::Seed::from_u64(1).commitment_hex();
    refused(
        &["promotion", "draw", "--terms", terms, "--entries", &entries, "--seed", &s, "--commitment", &wrong],
        "not the committed seed",
    );
    let bad = tmp(&dir, "entries-bad.txt", "4:5\nseven:3\n");
    refused(
        &["promotion", "draw", "--terms", terms, "--entries", &bad, "--seed", &s, "--commitment", &c],
        "--entries: line 2",
    );
}

/// `baccarat shoe` deals a published shoe again: the seed's SHA-256 against
/// the published commitment, and the cards as the library's shuffle makes
/// them, cut as recorded; a seed that is not the committed one fails, naming
/// both; bad input is refused, naming the flag.
#[test]
fn shoe_deals_a_published_shoe_again_and_checks_its_commitment() {
    use baccarat_table::Seed;
    let seed = Seed::from_u64(42);
    let hex = seed.hex();
    let commitment = seed.commitment_hex();
    let o = run(&[
        "shoe",
        "--seed",
        &hex,
        "--decks",
        "8",
        "--cut-at",
        "100",
        "--cutting-card",
        "16",
        "--commitment",
        &commitment,
        "--json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let doc: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(doc["matches_published"], true, "{doc}");
    assert_eq!(doc["commitment"], commitment.as_str());
    let mut want: Vec<String> = baccarat_table::shuffled(8, &seed).0.iter().map(|c| c.to_string()).collect();
    want.rotate_left(100);
    let got: Vec<String> = doc["cards"].as_array().unwrap().iter().map(|c| c.as_str().unwrap().to_string()).collect();
    assert_eq!(got, want);
    assert_eq!(doc["cutting_card_before"], 416 - 16);
    // Another seed is not the promised shoe.
    let other = Seed::from_u64(43).hex();
    let o = run(&["shoe", "--seed", &other, "--decks", "8", "--commitment", &commitment]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("is not the published commitment"), "{}", stderr(&o));
    refused(&["shoe", "--seed", "12ab", "--decks", "8"], "--seed: 64 hex digits");
    refused(&["shoe", "--seed", &hex, "--decks", "0"], "--decks: 1 to 16");
    refused(
        &["shoe", "--seed", &hex, "--decks", "1", "--cut-at", "60", "--cutting-card", "5"],
        "--cut-at and --cutting-card",
    );
}

/// `--version` names the commit the binary was built from and its build
/// date (issue 48): 12 hex digits from git, or "unknown" outside a
/// checkout; the date is SOURCE_DATE_EPOCH's day when the build had it,
/// else the commit's own day (UTC) from git, so that a build can be
/// reproduced.
#[test]
fn the_version_names_its_commit_and_build_date() {
    let o = run(&["--version"]);
    let out = stdout(&o);
    let (commit, date) = out
        .trim()
        .strip_prefix(concat!("baccarat ", env!("CARGO_PKG_VERSION"), " (commit "))
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|r| r.split_once(", built "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(commit == "unknown" || (commit.len() == 12 && commit.chars().all(|c| c.is_ascii_hexdigit())), "{out}");
    let digits = date.bytes().enumerate().all(|(i, b)| if i == 4 || i == 7 { b == b'-' } else { b.is_ascii_digit() });
    assert!(date.len() == 10 && digits, "{out}");
    let said = |cmd: &str, args: &[&str]| {
        let o = Command::new(cmd).env("TZ", "UTC").args(args).output().ok().filter(|o| o.status.success())?;
        Some(String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let want = match option_env!("SOURCE_DATE_EPOCH") {
        Some(epoch) => said("date", &["-u", "-d", &format!("@{}", epoch.trim()), "+%F"]),
        // Only when the checkout's HEAD is the commit the binary names.
        None => said("git", &["rev-parse", "--short=12", "HEAD"])
            .filter(|head| head == commit)
            .and_then(|_| said("git", &["log", "-1", "--format=%cd", "--date=format-local:%Y-%m-%d"])),
    };
    if let Some(want) = want {
        assert_eq!(date, want, "{out}");
    }
}
