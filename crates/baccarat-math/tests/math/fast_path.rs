//! The fast main-wager path equals full enumeration for any composition, and every
//! wager's distribution counts every sequence exactly once.

use baccarat_math::{distribution, main_odds, main_odds_reference, summary_table, Shoe};
use baccarat_rules::Bet;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn fast_equals_reference(ranks in prop::array::uniform13(0u32..=32)) {
        let total: u32 = ranks.iter().sum();
        prop_assume!(total >= 6);
        let shoe = Shoe::from_rank_counts(ranks, 8).unwrap();
        let v = shoe.value_counts();
        prop_assert_eq!(main_odds(&v, &ranks), main_odds_reference(&v, &ranks));
    }

    #[test]
    fn every_distribution_sums_to_the_sequence_count(cards in prop::array::uniform32(0u32..=3), more in prop::array::uniform20(0u32..=3)) {
        let mut counts = [0u32; 52];
        counts[..32].copy_from_slice(&cards);
        counts[32..].copy_from_slice(&more);
        prop_assume!(counts.iter().sum::<u32>() >= 6);
        let shoe = Shoe::from_card_counts(counts, 8).unwrap();
        let t = summary_table(&shoe.value_counts());
        prop_assert_eq!(t.counts.iter().sum::<u64>(), t.total);
        for bet in Bet::ALL {
            let d = distribution(bet, &shoe, &t).unwrap();
            prop_assert_eq!(d.counts.iter().map(|(_, c)| c).sum::<u64>(), t.total, "{}", bet);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// `odds --main-only` gives the full report's figures for every wager it covers.
    #[test]
    fn main_only_report_equals_full_report(ranks in prop::array::uniform13(0u32..=24)) {
        prop_assume!(ranks.iter().sum::<u32>() >= 6);
        let shoe = Shoe::from_rank_counts(ranks, 6).unwrap();
        for rb in baccarat_rules::profiles::all() {
            let full = baccarat_math::report(&rb, &shoe, Some(rb.default_decks()));
            let fast = baccarat_math::report_main(&rb, &shoe, Some(rb.default_decks()));
            prop_assert!(!fast.bets.is_empty());
            for b in &fast.bets {
                let f = full.bets.iter().find(|x| x.bet == b.bet && x.pay_table == b.pay_table).unwrap();
                prop_assert_eq!(f, b);
            }
        }
    }
}

#[test]
fn sparse_and_extreme_shoes() {
    // Only tens: every coup is 0-0 with both hands drawing; all ties.
    let mut ranks = [0u32; 13];
    ranks[9] = 32;
    let m = main_odds(&Shoe::from_rank_counts(ranks, 8).unwrap().value_counts(), &ranks);
    assert_eq!(m.classes[5], m.total);
    assert_eq!(m, main_odds_reference(&Shoe::from_rank_counts(ranks, 8).unwrap().value_counts(), &ranks));
    // Exactly six cards.
    let ranks = [1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0];
    let v = Shoe::from_rank_counts(ranks, 8).unwrap().value_counts();
    assert_eq!(main_odds(&v, &ranks), main_odds_reference(&v, &ranks));
    assert_eq!(main_odds(&v, &ranks).total, 720);
}
