//! A table configuration that the rulebook forbids cannot be constructed.

use baccarat_rules::{profiles, Bet, Money, TableConfig};

fn config(rulebook: &str, body: &str) -> Result<TableConfig, baccarat_rules::Problems> {
    let rb = profiles::builtin(rulebook).unwrap();
    TableConfig::from_toml(&rb, &format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 500000\n{body}"))
}

fn messages(e: &baccarat_rules::Problems) -> String {
    e.to_string()
}

#[test]
fn defaults_are_the_largest_decks_and_first_variant() {
    let t = config("nsw-2021", "").unwrap();
    assert_eq!(t.decks, 8);
    assert_eq!(t.variant.id, "standard");
    assert_eq!(t.offers.iter().map(|o| o.bet).collect::<Vec<_>>(), [Bet::Player, Bet::Banker, Bet::Tie]);
    assert_eq!(t.offer(Bet::Banker).unwrap().pay_table.name, "commission");
    assert_eq!(t.min, Money(1000));
}

#[test]
fn nsw_3_1_side_bets_need_six_or_eight_decks() {
    let e = config("nsw-2021", "decks = 4\n[bets.tiger]\n[bets.player_pair]\n[bets.super_six]\n").unwrap_err();
    let m = messages(&e);
    assert!(m.contains("bets.tiger: tiger needs [6, 8] decks, not 4 (NSW 3.1)"), "{m}");
    assert!(m.contains("bets.player_pair: player_pair needs [6, 8] decks"), "{m}");
    assert!(!m.contains("super_six"), "Super Six is allowed with 4 decks: {m}");
    assert!(config("nsw-2021", "decks = 6\n[bets.tiger]\n[bets.player_pair]\n").is_ok());
}

#[test]
fn au_exclusions_are_refused_with_their_rules() {
    let e = config(
        "au-casino",
        "[bets.perfect_pair_player]\npay_table = \"scale_one\"\n[bets.player_pair]\npay_table = \"scale_one\"\n",
    )
    .unwrap_err();
    let m = messages(&e);
    assert!(m.contains("AU 11A.1A"), "{m}");
    assert!(m.contains("AU 11C.2"), "{m}");
    let ok = config("au-casino", "variant = \"two_to_one\"\n[bets.tie]\npay_table = \"9_to_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_2\"\n[bets.lucky_match_player]\npay_table = \"scale_two\"\n").unwrap();
    assert_eq!(ok.offer(Bet::Player).unwrap().pay_table.name, "two_to_one");
    assert_eq!(ok.offer(Bet::Tie).unwrap().pay_table.name, "9_to_1");
}

#[test]
fn every_reason_is_listed_at_once() {
    let e = config(
        "nsw-2021",
        "decks = 5\nvariant = \"punto\"\ndifferential = 150\n[bets.roulette]\n[bets.super_six]\npay_table = \"30_to_1\"\nmin = 50\n[bets.tie]\nmin = 9000\nmax = 1000\n[ante]\namount = 100\n",
    )
    .unwrap_err();
    let m = messages(&e);
    for want in [
        "decks: nsw-2021 allows [3, 4, 6, 8] decks, not 5 (NSW 3.1)",
        "variant: nsw-2021 has no variant \"punto\"",
        "differential: 1.50 is not a whole number of 1.00 chips",
        "bets.roulette: unknown wager id",
        "bets.super_six.pay_table: nsw-2021 has no super_six pay table \"30_to_1\"",
        "bets.super_six.min: 0.50 is not a whole number",
        "bets.tie.max: maximum 10.00 is below minimum 90.00",
        "ante: nsw-2021 has no Ante Up Baccarat",
    ] {
        assert!(m.contains(want), "missing {want:?} in\n{m}");
    }
}

#[test]
fn au_ante_is_at_most_an_eighth_of_the_minimum() {
    let tie = "[bets.tie]\npay_table = \"8_to_1\"\n";
    let e = config("au-casino", &format!("{tie}[ante]\namount = 200\n")).unwrap_err();
    assert!(messages(&e).contains("more than 1/8 of the table minimum"), "{e}");
    let t = config("au-casino", &format!("{tie}[ante]\namount = 100\nwaived_at = 10000\n")).unwrap();
    let a = t.ante.unwrap();
    assert_eq!(a.due(Money(5000)), Money(100));
    assert_eq!(a.due(Money(10000)), Money(0)); // AU 14.4
}

#[test]
fn variant_fixes_the_main_pay_tables() {
    let e = config("nsw-2021", "variant = \"even_money\"\n[bets.banker]\npay_table = \"commission\"\n").unwrap_err();
    assert!(messages(&e).contains("variant \"even_money\" pays banker by table \"even_money\""), "{e}");
    let e = config("au-casino", "").unwrap_err();
    assert!(messages(&e).contains("bets.tie.pay_table: choose one of 8_to_1, 9_to_1"), "{e}");
    let e = config("resort-house", "differential = 100000\n").unwrap_err();
    assert!(messages(&e).contains("does not provide a table differential"), "{e}");
}

#[test]
fn wrong_rulebook_and_bad_toml() {
    let rb = profiles::builtin("nsw-2021").unwrap();
    let e = TableConfig::from_toml(&rb, "rulebook = \"au-casino\"\nchip = 100\nmin = 100\nmax = 1000\n").unwrap_err();
    assert!(messages(&e).contains("rulebook: names \"au-casino\""), "{e}");
    let e = TableConfig::from_toml(&rb, "rulebook = \"nsw-2021\"\nchip = \"one\"\n").unwrap_err();
    assert!(messages(&e).contains("line 2"), "{e}");
}

const AU_TIE: &str = "[bets.tie]\npay_table = \"8_to_1\"\n";

/// AU 2.2: "Baccarat must be played in accordance with one of the following
/// versions: (a) Mini Baccarat; (b) Midi Baccarat; or (c) full Baccarat." The
/// version is the table's `layout`; a configuration that names none keeps
/// the Mini Baccarat every AU table had before the setting existed.
#[test]
fn au_2_2_a_table_plays_one_of_the_three_versions() {
    let t = config("au-casino", AU_TIE).unwrap();
    assert_eq!((t.layout.name.as_str(), t.layout.boxes), ("mini", 7), "the default is Mini Baccarat");
    for (name, boxes, per_box, standing) in [("mini", 7, 3, false), ("midi", 9, 3, false), ("full", 14, 1, true)] {
        let t = config("au-casino", &format!("layout = \"{name}\"\n{AU_TIE}")).unwrap();
        let l = &t.layout;
        assert_eq!((l.name.as_str(), l.boxes, l.players_per_box, l.standing_players), (name, boxes, per_box, standing));
    }
    let e = config("au-casino", &format!("layout = \"grand\"\n{AU_TIE}")).unwrap_err();
    let m = messages(&e);
    assert!(m.contains("layout: au-casino has no layout \"grand\""), "{m}");
    for want in ["mini (7 boxes, AU 3.1(a)", "midi (9 boxes, AU 3.1(b)", "full (14 boxes, AU 3.1(c)"] {
        assert!(m.contains(want), "missing {want:?} in\n{m}");
    }
}

/// AU 3.1(b): Midi Baccarat "has on one side up to 9 numbered sets of
/// wagering areas for the players".
#[test]
fn au_3_1_b_midi_has_up_to_nine_boxes() {
    let t = config("au-casino", &format!("layout = \"midi\"\n{AU_TIE}")).unwrap();
    assert_eq!(t.layout.boxes, 9);
    assert!(t.layout.rule.contains("AU 3.1(b)"), "{}", t.layout.rule);
    assert!(!t.layout.standing_players, "AU 5.6(a): standing players' areas are full Baccarat's");
}

/// AU 3.1(c): full Baccarat "has up to 14 numbered sets of wagering areas for
/// the seated players, wagering areas for standing players"; AU 5.7: one
/// player on each numbered area.
#[test]
fn au_3_1_c_full_baccarat_has_fourteen_boxes_and_standing_players() {
    let t = config("au-casino", &format!("layout = \"full\"\n{AU_TIE}")).unwrap();
    assert_eq!((t.layout.boxes, t.layout.players_per_box, t.layout.standing_players), (14, 1, true));
    assert!(t.layout.rule.contains("AU 3.1(c)"), "{}", t.layout.rule);
}

/// The other rulebooks print one layout each and keep it: NSW 2.1's 14
/// boxes, EU 1.1's ten seats, the resort's 14; AU's versions are not theirs.
#[test]
fn other_rulebooks_keep_their_box_limits() {
    for (rb, boxes) in [("nsw-2021", 14), ("european-casino", 10), ("resort-house", 14)] {
        let t = config(rb, "").unwrap();
        assert_eq!((t.layout.name.as_str(), t.layout.boxes, t.layout.standing_players), ("standard", boxes, false));
        let named = config(rb, "layout = \"standard\"\n").unwrap();
        assert_eq!(named.layout.boxes, boxes);
        let e = config(rb, "layout = \"full\"\n").unwrap_err();
        assert!(
            messages(&e).contains(&format!("layout: {rb} has no layout \"full\"; its layouts are standard")),
            "{e}"
        );
    }
}
