//! Settlement properties: money is conserved, rounding follows its named rule, and
//! a wager settles the same way in every rule variant where the rulebooks agree.

use baccarat_rules::{
    deck, profiles, settle, settle_wager, settle_with_ante, Ante, Bet, Card, Coup, FractionalPayout, Money, Odds, Pays,
    SettleRules, Settlement, UnpayableStake,
};
use proptest::prelude::*;

fn pays_strategy() -> impl Strategy<Value = Pays> {
    prop_oneof![
        Just(Pays::Lose),
        Just(Pays::Push),
        (1u32..600, 1u32..40).prop_map(|(a, b)| Pays::Odds(Odds::new(a, b))),
        (1u32..3, 1u32..3, 1u32..50)
            .prop_map(|(a, b, pct)| Pays::LessCommission { odds: Odds::new(a, b), percent: pct }),
    ]
}

fn rules_strategy() -> impl Strategy<Value = SettleRules> {
    (
        prop_oneof![Just(1i64), Just(5), Just(25), Just(50), Just(100), Just(500)],
        prop_oneof![Just(FractionalPayout::UpToChip), Just(FractionalPayout::DownToChip)],
        prop_oneof![Just(UnpayableStake::Accept), Just(UnpayableStake::VoidExcess)],
    )
        .prop_map(|(chip, fractional, unpayable)| SettleRules { chip: Money(chip), fractional, unpayable })
}

fn conserved(s: &Settlement) {
    assert_eq!(s.returned + s.lost, s.stake, "{s:?}");
    for m in [s.returned, s.lost, s.won, s.commission, s.void] {
        assert!(m.0 >= 0, "{s:?}");
    }
    assert!(s.commission <= s.won, "{s:?}");
    // The house's change is the player's, negated: nothing created or lost.
    let house = s.lost - s.won + s.commission;
    assert_eq!(house + s.player_net(), Money(0));
}

proptest! {
    #[test]
    fn settlement_conserves_money_and_rounds_by_its_rule(stake_chips in 0i64..100_000, pays in pays_strategy(), rules in rules_strategy()) {
        let stake = Money(stake_chips * rules.chip.0);
        let s = settle(stake, pays, &rules);
        conserved(&s);
        if let Some(odds) = pays.net_odds() {
            // Net paid is within one chip of the exact odds, on the side the rule names.
            let net = (s.won - s.commission).0 as i128;
            let exact_num = stake.0 as i128 * odds.win as i128;
            let den = odds.stake as i128;
            let chip = rules.chip.0 as i128;
            prop_assert_eq!(net % chip, 0, "paid in whole chips");
            match rules.fractional {
                FractionalPayout::UpToChip => prop_assert!(net * den >= exact_num && (net - chip) * den < exact_num),
                FractionalPayout::DownToChip => prop_assert!(net * den <= exact_num && (net + chip) * den > exact_num),
            }
        } else {
            prop_assert_eq!(s.won, Money(0));
        }
    }

    #[test]
    fn au_5_13_valid_part_is_exactly_payable(stake_chips in 0i64..10_000, win in any::<bool>()) {
        let rb = profiles::builtin("au-casino").unwrap();
        let rules = SettleRules { chip: Money(100), fractional: rb.fractional_payout, unpayable: rb.unpayable_stake };
        let table = &rb.variant("standard").unwrap().banker;
        let stake = Money(stake_chips * 100);
        let outcome = if win { baccarat_rules::Outcome::Win } else { baccarat_rules::Outcome::Lose };
        let s = settle_wager(stake, table, outcome, &rules);
        conserved(&s);
        let valid = stake - s.void;
        prop_assert!(s.void.0 < 2000, "less than one payable step ($20) is void");
        // 95% of the valid part is a whole number of $1 chips, paid without rounding.
        prop_assert_eq!((valid.0 * 19) % (20 * 100), 0);
        if win {
            prop_assert_eq!((s.won - s.commission).0 * 20, valid.0 * 19);
        }
    }
}

/// A deterministic stream of coups from shuffled 8-deck shoes (a simple LCG: the
/// test needs variety, not cryptographic randomness).
fn coups(n: usize) -> Vec<Coup> {
    let mut shoe: Vec<Card> = (0..8).flat_map(|_| deck()).collect();
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        for i in (1..shoe.len()).rev() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            shoe.swap(i, ((x >> 33) % (i as u64 + 1)) as usize);
        }
        let mut pos = 0;
        while pos + 6 <= shoe.len() && out.len() < n {
            let (c, used) = Coup::from_cards(&shoe[pos..]).unwrap();
            pos += used;
            out.push(c);
        }
    }
    out
}

/// Where the rulebooks print the same odds, settlement is identical: Player 1:1,
/// Tie 8:1, Pairs 11:1, and Banker at 1:1 with 1:2 on six, across rulebooks.
#[test]
fn same_rule_same_settlement_across_rulebooks() {
    let rules =
        SettleRules { chip: Money(1), fractional: FractionalPayout::UpToChip, unpayable: UnpayableStake::Accept };
    let nsw = profiles::builtin("nsw-2021").unwrap();
    let au = profiles::builtin("au-casino").unwrap();
    let eu = profiles::builtin("european-casino").unwrap();
    let resort = profiles::builtin("resort-house").unwrap();
    let table =
        |rb: &baccarat_rules::Rulebook, bet: Bet, name: &str| rb.bet(bet).unwrap().pay_table(name).unwrap().clone();
    let groups: Vec<(Bet, Vec<baccarat_rules::PayTable>)> = vec![
        (
            Bet::Player,
            vec![
                table(&nsw, Bet::Player, "standard"),
                table(&au, Bet::Player, "standard"),
                table(&eu, Bet::Player, "standard"),
                table(&resort, Bet::Player, "standard"),
            ],
        ),
        (
            Bet::Tie,
            vec![
                table(&nsw, Bet::Tie, "8_to_1"),
                table(&au, Bet::Tie, "8_to_1"),
                table(&eu, Bet::Tie, "8_to_1"),
                table(&resort, Bet::Tie, "8_to_1"),
            ],
        ),
        (
            Bet::PlayerPair,
            vec![
                table(&nsw, Bet::PlayerPair, "baccarat_pairs"),
                table(&au, Bet::PlayerPair, "scale_one"),
                table(&eu, Bet::PlayerPair, "11_to_1"),
                table(&resort, Bet::PlayerPair, "11_to_1"),
            ],
        ),
        // NSW 11.2.2 = AU 5.11 = EU "no house edge".
        (
            Bet::Banker,
            vec![
                table(&nsw, Bet::Banker, "even_money"),
                table(&au, Bet::Banker, "six_pays_half"),
                table(&eu, Bet::Banker, "no_house_edge"),
            ],
        ),
        // NSW 19:20 = AU 1:1 less 5% = EU 1:1 minus 5% (exact stakes).
        (
            Bet::Banker,
            vec![
                table(&nsw, Bet::Banker, "commission"),
                table(&au, Bet::Banker, "commission"),
                table(&eu, Bet::Banker, "commission"),
                table(&resort, Bet::Banker, "commission"),
            ],
        ),
    ];
    let mut compared = 0;
    for coup in coups(20_000) {
        for (bet, tables) in &groups {
            let outcome = bet.classify(&coup);
            let nets: Vec<Money> =
                tables.iter().map(|t| settle_wager(Money(2000), t, outcome, &rules).player_net()).collect();
            assert!(nets.windows(2).all(|w| w[0] == w[1]), "{bet} on {coup:?}: {nets:?}");
            compared += 1;
        }
    }
    assert_eq!(compared, 100_000);
}

/// Within AU, 2 to 1 Baccarat pays the standard game's odds except where AU 13
/// changes them: a tie (13.2), a three-card 8 or 9 (13.3), and Banker's commission.
#[test]
fn two_to_one_differs_from_standard_only_where_au_13_says() {
    let au = profiles::builtin("au-casino").unwrap();
    let rules =
        SettleRules { chip: Money(1), fractional: FractionalPayout::UpToChip, unpayable: UnpayableStake::Accept };
    let std = au.variant("banker_six_pays_half").unwrap();
    let two = au.variant("two_to_one_six_pays_half").unwrap();
    for coup in coups(20_000) {
        let s = coup.summary();
        for (bet, a, b) in [(Bet::Player, &std.player, &two.player), (Bet::Banker, &std.banker, &two.banker)] {
            let o = bet.classify(&coup);
            let (x, y) = (
                settle_wager(Money(1000), a, o, &rules).player_net(),
                settle_wager(Money(1000), b, o, &rules).player_net(),
            );
            let special = o == baccarat_rules::Outcome::Tie || o == baccarat_rules::Outcome::WinThreeCardEightNine;
            if special {
                assert_ne!(x, y, "{bet} {s:?}");
            } else {
                assert_eq!(x, y, "{bet} {s:?}");
            }
        }
    }
}

#[test]
fn ante_up_fee_and_void_wager() {
    let au = profiles::builtin("au-casino").unwrap();
    let rules = SettleRules { chip: Money(100), fractional: au.fractional_payout, unpayable: au.unpayable_stake };
    let table = &au.variant("standard").unwrap().player;
    let ante = Ante { amount: Money(100), waived_at: Some(Money(50_000)) };
    let s = settle_with_ante(Money(2000), Money(100), &ante, table, baccarat_rules::Outcome::Win, &rules);
    assert_eq!((s.wager.player_net(), s.ante_collected), (Money(2000), Money(100)));
    // AU 14.7: without the ante the wager is void and everything comes back.
    let s = settle_with_ante(Money(2000), Money(0), &ante, table, baccarat_rules::Outcome::Win, &rules);
    assert_eq!((s.wager.player_net(), s.wager.void, s.ante_collected), (Money(0), Money(2000), Money(0)));
    // AU 14.4: waived at or above the threshold.
    let s = settle_with_ante(Money(50_000), Money(0), &ante, table, baccarat_rules::Outcome::Lose, &rules);
    assert_eq!((s.wager.player_net(), s.ante_collected), (Money(-50_000), Money(0)));
}
