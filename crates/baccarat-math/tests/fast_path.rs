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
