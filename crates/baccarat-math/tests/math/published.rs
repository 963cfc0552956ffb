//! The published figures that any correct engine must reproduce.

use baccarat_math::{report, BetOdds, Shoe};
use baccarat_rules::{profiles, Bet};

fn odds(rulebook: &str, decks: u32) -> Vec<BetOdds> {
    report(&profiles::builtin(rulebook).unwrap(), &Shoe::decks(decks).unwrap(), Some(decks)).bets
}

fn edge(bets: &[BetOdds], bet: Bet, table: &str) -> f64 {
    bets.iter().find(|b| b.bet == bet && b.pay_table == table).unwrap_or_else(|| panic!("{bet} {table}")).house_edge()
        * 100.0
}

/// House edges to the four decimals they are published to.
fn assert_pct(got: f64, want: f64) {
    assert!((got - want).abs() < 0.00005, "{got:.6}% vs published {want}%");
}

#[test]
fn issue_figures_at_eight_and_six_decks() {
    let au8 = odds("au-casino", 8);
    assert_pct(edge(&au8, Bet::Banker, "commission"), 1.0579);
    assert_pct(edge(&au8, Bet::Player, "standard"), 1.2351);
    assert_pct(edge(&au8, Bet::Tie, "8_to_1"), 14.3596);
    assert_pct(edge(&au8, Bet::Tie, "9_to_1"), 4.8440);
    let nsw6 = odds("nsw-2021", 6);
    assert_pct(edge(&nsw6, Bet::Banker, "commission"), 1.0558);
    assert_eq!(au8[0].total, 4_998_398_275_503_360);
}

#[test]
fn commonly_published_side_bet_figures() {
    let au8 = odds("au-casino", 8);
    // Banker with a 1-to-2 win on six ("no commission" games): 1.458%.
    assert!((edge(&au8, Bet::Banker, "six_pays_half") - 1.458).abs() < 0.0005);
    // Pairs at 11:1, 8 decks: 10.36%; at 10:1: 17.83%.
    assert!((edge(&au8, Bet::PlayerPair, "scale_one") - 10.36).abs() < 0.005);
    assert!((edge(&au8, Bet::BankerPair, "scale_two") - 17.83).abs() < 0.005);
    // Dragon Bonus, pay table 1 (1:1 natural, 30/10/6/4/2/1): Player 2.65%, Banker 9.37%.
    assert!((edge(&au8, Bet::DragonBonusPlayer, "table_1") - 2.65).abs() < 0.005);
    assert!((edge(&au8, Bet::DragonBonusBanker, "table_1") - 9.37).abs() < 0.005);
    // Pairs probability at 8 decks: 31/415 exactly (same rank).
    let pair = au8.iter().find(|b| b.bet == Bet::PlayerPair).unwrap();
    let p = pair.outcomes[0].count as f64 / pair.total as f64;
    assert!((p - 31.0 / 415.0).abs() < 1e-15);
}

/// Exact fractions pinned: a change anywhere in the rules or the engine shows here.
#[test]
fn exact_house_edges_are_pinned() {
    let au8 = odds("au-casino", 8);
    let exact = |bet: Bet, table: &str| {
        let (n, d) = au8.iter().find(|b| b.bet == bet && b.pay_table == table).unwrap().house_edge_exact();
        format!("{n}/{d}")
    };
    let got = [exact(Bet::Player, "standard"), exact(Bet::Banker, "commission"), exact(Bet::Tie, "8_to_1")];
    // Cross-check the pinned fractions against the published decimals, then pin them.
    for (f, want) in got.iter().zip([1.2351, 1.0579, 14.3596]) {
        let (n, d) = f.split_once('/').unwrap();
        let v = n.parse::<f64>().unwrap() / d.parse::<f64>().unwrap() * 100.0;
        assert!((v - want).abs() < 0.00005, "{f}");
    }
    insta_like("au8_main_exact", &got.join("\n"));
}

/// A tiny golden-file check: `tests/math/golden/NAME.txt` must equal `text`; set
/// `UPDATE_GOLDEN=1` to write it.
fn insta_like(name: &str, text: &str) {
    let path = format!("{}/tests/math/golden/{name}.txt", env!("CARGO_MANIFEST_DIR"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let want =
        std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("missing golden {path}; run with UPDATE_GOLDEN=1"));
    assert_eq!(text, want.trim_end(), "golden {name} differs");
}

#[test]
fn full_reports_are_pinned_for_every_rulebook() {
    for (id, _) in profiles::BUILTIN {
        let rb = profiles::builtin(id).unwrap();
        let d = rb.default_decks();
        let mut lines = Vec::new();
        for b in odds(id, d) {
            let (n, den) = b.house_edge_exact();
            lines.push(format!("{} {} edge={n}/{den}", b.bet, b.pay_table));
            for o in &b.outcomes {
                lines.push(format!("  {} {} {}", o.outcome, o.pays.report(), o.count));
            }
        }
        insta_like(&format!("report_{id}_{d}_decks"), &lines.join("\n"));
    }
}

/// The change in the probability that the Player wins, 8 decks, when one card
/// of a rank is removed, as published to ten decimals by Excel Punks,
/// "Concepts 16: Baccarat – Effects of Card Removal"
/// (excelpunks.com/concepts-16-baccarat-effects-of-card-removal/): 4
/// −0.0000435175; 10, J, Q, K −0.0000373810; A −0.0000295798; 3 −0.0000217068.
#[test]
fn removal_effects_on_the_player_win_match_the_published_table() {
    let rb = profiles::builtin("nsw-2021").unwrap();
    let full = Shoe::decks(8).unwrap();
    let p_win = |s: &Shoe| {
        let r = report(&rb, s, None);
        let b = r.bets.iter().find(|b| b.bet == Bet::Player).unwrap();
        let w = b.outcomes.iter().find(|o| o.outcome == baccarat_rules::Outcome::Win).unwrap();
        w.count as f64 / b.total as f64 // printed figures only
    };
    let base = p_win(&full);
    for (rank, want) in
        [(4, -0.0000435175), (10, -0.0000373810), (13, -0.0000373810), (1, -0.0000295798), (3, -0.0000217068)]
    {
        let got = p_win(&full.without_rank(rank - 1).unwrap()) - base;
        assert!((got - want).abs() < 0.6e-10, "rank {rank}: {got:.10} vs published {want}");
    }
}
