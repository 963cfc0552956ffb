//! The shipped profiles say what their rulebooks say, and bad profiles are refused
//! with every problem and where it is.

use baccarat_rules::{profiles, Bet, Outcome, Pays, Rulebook};

fn pays(rb: &Rulebook, bet: Bet, table: &str, outcome: Outcome) -> String {
    rb.bet(bet).unwrap().pay_table(table).unwrap_or_else(|| panic!("{} {bet} {table}", rb.id)).pays(outcome).to_string()
}

#[test]
fn every_builtin_profile_is_valid_and_lists_its_wagers() {
    let ids = |id: &str| {
        let mut v: Vec<&str> = profiles::builtin(id).unwrap().bets.iter().map(|b| b.bet.id()).collect();
        v.sort();
        v
    };
    let mut nsw = vec![
        "player",
        "banker",
        "tie",
        "player_pair",
        "banker_pair",
        "super_six",
        "tiger",
        "big_tiger",
        "small_tiger",
        "tiger_tie",
        "tiger_pair",
    ];
    nsw.sort();
    assert_eq!(ids("nsw-2021"), nsw);
    let mut au = vec![
        "player",
        "banker",
        "tie",
        "player_pair",
        "banker_pair",
        "perfect_pair_player",
        "perfect_pair_banker",
        "dragon_bonus_player",
        "dragon_bonus_banker",
        "lucky_match_player",
        "lucky_match_banker",
    ];
    au.sort();
    assert_eq!(ids("au-casino"), au);
    let mut small = vec!["player", "banker", "tie", "player_pair", "banker_pair"];
    small.sort();
    assert_eq!(ids("resort-house"), small);
    assert_eq!(ids("european-casino"), small);
    // Every wager of the list is in some profile.
    let all: std::collections::HashSet<Bet> =
        profiles::all().iter().flat_map(|r| r.bets.iter().map(|b| b.bet)).collect();
    assert_eq!(all.len(), Bet::ALL.len());
}

#[test]
fn nsw_numbers_are_the_rulebook_text() {
    let r = profiles::builtin("nsw-2021").unwrap();
    assert_eq!(r.decks, [3, 4, 6, 8]); // NSW 3.1
    assert_eq!(pays(&r, Bet::Banker, "commission", Outcome::Win), "19:20"); // 11.1.3
    assert_eq!(pays(&r, Bet::Banker, "even_money", Outcome::WinOnSix), "1:2"); // 11.2.2
    assert_eq!(pays(&r, Bet::Banker, "even_money", Outcome::Win), "1:1");
    assert_eq!(pays(&r, Bet::Tie, "8_to_1", Outcome::Win), "8:1"); // 11.1.5
    assert_eq!(pays(&r, Bet::PlayerPair, "baccarat_pairs", Outcome::Pair), "11:1"); // 11.1.4
    assert_eq!(pays(&r, Bet::SuperSix, "super_six", Outcome::Win), "15:1"); // 11.1.6
    assert_eq!(pays(&r, Bet::TigerTie, "tiger_tie", Outcome::Win), "45:1"); // 11.1.7
    assert_eq!(pays(&r, Bet::TigerPair, "tiger_pair", Outcome::Single), "4:1"); // 11.1.8.1
    assert_eq!(pays(&r, Bet::TigerPair, "tiger_pair", Outcome::Double), "25:1");
    assert_eq!(pays(&r, Bet::TigerPair, "tiger_pair", Outcome::Twin), "100:1");
    assert_eq!(pays(&r, Bet::Tiger, "tiger", Outcome::TwoCard), "12:1"); // 11.1.9
    assert_eq!(pays(&r, Bet::Tiger, "tiger", Outcome::ThreeCard), "22:1");
    assert_eq!(pays(&r, Bet::BigTiger, "big_tiger", Outcome::Win), "55:1"); // 11.1.10
    assert_eq!(pays(&r, Bet::SmallTiger, "small_tiger", Outcome::Win), "22:1"); // 11.1.11
                                                                                // NSW 3.1: Pairs and the Tiger wagers only with 6 or 8 decks; Super Six is not listed.
    for b in
        [Bet::PlayerPair, Bet::BankerPair, Bet::TigerTie, Bet::TigerPair, Bet::Tiger, Bet::BigTiger, Bet::SmallTiger]
    {
        assert!(!r.bet(b).unwrap().allows_decks(4) && r.bet(b).unwrap().allows_decks(6), "{b}");
    }
    assert!(r.bet(Bet::SuperSix).unwrap().allows_decks(3));
    assert_eq!(r.variants[0].id, "standard", "the first variant written is the default");
}

#[test]
fn au_numbers_are_the_rulebook_text() {
    let r = profiles::builtin("au-casino").unwrap();
    assert_eq!(r.decks, [4, 5, 6, 7, 8]); // AU 3.4(a)
    assert_eq!(pays(&r, Bet::Banker, "commission", Outcome::Win), "1:1 less 5%"); // 5.10(b)
    assert_eq!(pays(&r, Bet::Tie, "9_to_1", Outcome::Win), "9:1"); // 5.10(c)
    assert_eq!(pays(&r, Bet::Player, "two_to_one", Outcome::Tie), "lose"); // 13.2(b)
    assert_eq!(pays(&r, Bet::Player, "two_to_one", Outcome::WinThreeCardEightNine), "2:1"); // 13.3
    assert_eq!(pays(&r, Bet::Banker, "two_to_one_six_pays_half", Outcome::WinOnSix), "1:2"); // 13.4
    let pp = |t: &str| {
        [Outcome::MixedPair, Outcome::ColouredPair, Outcome::PerfectPair]
            .map(|o| pays(&r, Bet::PerfectPairBanker, t, o))
    };
    assert_eq!(pp("scale_one"), ["5:1", "10:1", "30:1"]); // 11A.7
    assert_eq!(pp("scale_two"), ["6:1", "12:1", "25:1"]);
    assert_eq!(pp("scale_three"), ["5:1", "12:1", "25:1"]);
    let db = |t: &str| {
        [
            Outcome::WinBy(9),
            Outcome::WinBy(8),
            Outcome::WinBy(7),
            Outcome::WinBy(6),
            Outcome::WinBy(5),
            Outcome::WinBy(4),
            Outcome::NaturalWin,
            Outcome::NaturalTie,
        ]
        .map(|o| pays(&r, Bet::DragonBonusPlayer, t, o))
    };
    assert_eq!(db("table_1"), ["30:1", "10:1", "6:1", "4:1", "2:1", "1:1", "1:1", "push"]); // 11B.8
    assert_eq!(db("table_2"), ["20:1", "8:1", "7:1", "4:1", "3:1", "1:1", "1:1", "push"]);
    assert_eq!(db("table_3"), ["30:1", "10:1", "4:1", "4:1", "2:1", "2:1", "1:1", "push"]);
    assert_eq!(pays(&r, Bet::PlayerPair, "scale_two", Outcome::Pair), "10:1"); // 11C.8
    let lm = |t: &str| {
        [Outcome::MixedMatch, Outcome::ColouredMatch, Outcome::LuckyMatch, Outcome::LuckyTripleMatch]
            .map(|o| pays(&r, Bet::LuckyMatchBanker, t, o))
    };
    assert_eq!(lm("scale_one"), ["5:1", "10:1", "25:1", "100:1"]); // 11D.8
    assert_eq!(lm("scale_two"), ["5:1", "10:1", "20:1", "500:1"]);
    assert_eq!(r.exclusions.len(), 3); // 11A.1A, 11C.2, 11D.2
    let ante = r.ante.as_ref().unwrap();
    assert_eq!((ante.max_num, ante.max_den), (1, 8)); // 12.5%
}

#[test]
fn resort_and_eu_numbers() {
    let r = profiles::builtin("resort-house").unwrap();
    assert_eq!(r.decks, (1..=8).collect::<Vec<_>>());
    assert_eq!(pays(&r, Bet::Tie, "8_to_1", Outcome::Win), "8:1");
    assert_eq!(pays(&r, Bet::BankerPair, "11_to_1", Outcome::Pair), "11:1");
    let e = profiles::builtin("european-casino").unwrap();
    assert_eq!(e.decks, [8]); // EU 1.3
    assert_eq!(pays(&e, Bet::Tie, "8_to_1", Outcome::Win), "8:1"); // 6.2
    assert_eq!(pays(&e, Bet::PlayerPair, "11_to_1", Outcome::Pair), "11:1"); // 6.3
    assert_eq!(pays(&e, Bet::Banker, "no_house_edge", Outcome::WinOnSix), "1:2");
    assert_eq!(
        e.bet(Bet::Banker).unwrap().pay_table("commission").unwrap().pays(Outcome::Win),
        "1:1 less 5%".parse::<Pays>().unwrap()
    );
}

#[test]
fn a_malformed_profile_lists_every_problem_with_its_place() {
    let mut text = profiles::builtin_text("nsw-2021").unwrap().to_string();
    text = text.replace("decks = [3, 4, 6, 8]", "decks = [3, 4, 6, 9]");
    text = text.replace("pays = { win = \"45:1\" }", "pays = { win = \"45-1\" }");
    text = text.replace("pays = { single = \"4:1\",", "pays = { singel = \"4:1\",");
    text = text.replace("banker = \"even_money\"\n", "banker = \"evens\"\n");
    text.push_str(
        "\n[bets.roulette]\nrule = \"x\"\n[bets.roulette.pay_tables.a]\nrule = \"x\"\npays = { win = \"1:1\" }\n",
    );
    let e = Rulebook::from_toml(&text).unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    for want in [
        "shoe.decks",
        "bets.tiger_tie.pay_tables.tiger_tie.pays.win",
        "bets.tiger_pair.pay_tables.tiger_pair.pays.singel",
        "bets.tiger_pair.pay_tables.tiger_pair.pays",
        "variants.even_money.banker",
        "bets.roulette",
    ] {
        assert!(paths.contains(&want), "missing {want} in {e}");
    }
    let shown = e.to_string();
    assert!(shown.starts_with("profile nsw-2021 is invalid ("), "{shown}");
    assert!(shown.contains("9 decks is outside 1 to 8"), "{shown}");
    assert!(shown.contains("no line for outcome \"single\""), "{shown}");
}

#[test]
fn malformed_toml_says_where() {
    let e = Rulebook::from_toml("id = \"x\"\ntitle = \n").unwrap_err();
    assert_eq!(e.problems.len(), 1);
    assert!(e.problems[0].path.starts_with("line 2"), "{e}");
    assert!(!e.to_string().contains('\n'), "one problem is one line: {e}");
    let e = Rulebook::from_toml("id = \"x\"\nsurprise = 1\n").unwrap_err();
    assert!(e.to_string().contains("surprise") || e.to_string().contains("missing"), "{e}");
}

/// A feature is a profile setting and its citation is its reference (issue 10
/// item 11): switched on without its rule, the profile is refused, naming both.
#[test]
fn a_feature_switched_on_needs_its_citation() {
    let text = profiles::builtin_text("nsw-2021").unwrap();
    let cut: String =
        text.lines().filter(|l| !l.starts_with("promotional_tokens = \"")).map(|l| format!("{l}\n")).collect();
    let e = Rulebook::from_toml(&cut).unwrap_err();
    assert!(e.problems.iter().any(|p| p.path == "conduct.promotional_tokens"), "{e}");
    let rb = profiles::builtin("nsw-2021").unwrap();
    assert!(rb.config.conduct.promotional_tokens && !rb.config.procedures.card_sets);
    let au = profiles::builtin("au-casino").unwrap();
    assert!(au.config.procedures.card_sets && !au.config.conduct.promotional_tokens);
}

/// A table chooses its version of the game (AU 2.2) by its layout's name, so
/// a profile may not give two layouts one name.
#[test]
fn au_2_2_each_version_has_a_name_of_its_own() {
    let text = profiles::builtin_text("au-casino").unwrap().replace("name = \"midi\"", "name = \"mini\"");
    let e = Rulebook::from_toml(&text).unwrap_err();
    assert!(e.problems.iter().any(|p| p.path == "layouts[1].name" && p.message.contains("\"mini\"")), "{e}");
}
