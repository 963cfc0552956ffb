//! The effect of removal is exact: it sums to zero over the shoe, as theory
//! says (a card burned unseen changes nothing on average), and a value equals
//! the difference of two enumerated reports.

use baccarat_math::{effect_of_removal, report_by_enumeration, Eor, Ratio, Shoe};
use baccarat_rules::{profiles, Bet};

fn zero() -> Ratio {
    Ratio::new(0, 1)
}

/// `Σ_r n_r · EoR(r)` over ranks, and over cards where given.
fn weighted_sums(e: &Eor, shoe: &Shoe) -> (Ratio, Option<Ratio>) {
    let ranks = shoe.rank_counts();
    let by_rank = e
        .by_rank
        .iter()
        .zip(ranks)
        .filter_map(|(x, n)| x.map(|x| Ratio::new(x.num * n as i128, x.den)))
        .fold(zero(), |a, b| a + b);
    let by_card = e.by_card.map(|cards| {
        cards
            .iter()
            .zip(shoe.card_counts())
            .filter_map(|(x, &n)| x.map(|x| Ratio::new(x.num * n as i128, x.den)))
            .fold(zero(), |a, b| a + b)
    });
    (by_rank, by_card)
}

fn depleted() -> Shoe {
    let mut counts = [6u32; 52];
    for i in 0..90usize {
        let c = (i * 29 + i / 5) % 52;
        counts[c] = counts[c].saturating_sub(1);
    }
    Shoe::from_card_counts(counts, 8).unwrap()
}

#[test]
fn removal_effects_weighted_by_the_counts_sum_to_zero() {
    let ranks_only = Shoe::from_rank_counts([20, 24, 17, 24, 22, 24, 19, 24, 24, 21, 24, 15, 23], 6).unwrap();
    for shoe in [depleted(), ranks_only, Shoe::decks(8).unwrap()] {
        for rb in profiles::all() {
            let (_, eors) = effect_of_removal(&rb, &shoe, None).unwrap();
            assert!(!eors.is_empty());
            for e in &eors {
                let (by_rank, by_card) = weighted_sums(e, &shoe);
                assert_eq!(by_rank, zero(), "{} {} {}", rb.id, e.bet, e.pay_table);
                if let Some(c) = by_card {
                    assert_eq!(c, zero(), "{} {} {} by card", rb.id, e.bet, e.pay_table);
                }
                assert_eq!(
                    e.by_card.is_some(),
                    shoe.suits_known()
                        && matches!(
                            e.bet,
                            Bet::PerfectPairPlayer
                                | Bet::PerfectPairBanker
                                | Bet::LuckyMatchPlayer
                                | Bet::LuckyMatchBanker
                        )
                );
            }
        }
    }
}

/// Removing a five from 8 decks, Banker (commission) and Dragon Bonus Player:
/// the change equals the difference of the two enumerated reports' exact EVs.
#[test]
fn one_removal_equals_the_enumerated_difference() {
    let rb = profiles::builtin("au-casino").unwrap();
    let shoe = Shoe::decks(8).unwrap();
    let less = shoe.without_rank(4).unwrap();
    assert_eq!(less.rank_counts()[4], 31);
    let (_, eors) = effect_of_removal(&rb, &shoe, None).unwrap();
    let (before, after) = (report_by_enumeration(&rb, &shoe, None), report_by_enumeration(&rb, &less, None));
    for (bet, table) in [(Bet::Banker, "commission"), (Bet::DragonBonusPlayer, "table_1")] {
        let ev = |r: &baccarat_math::Report| {
            let b = r.bets.iter().find(|b| b.bet == bet && b.pay_table == table).unwrap();
            Ratio::new(b.ev_num, b.ev_den)
        };
        let want = ev(&after) - ev(&before);
        let e = eors.iter().find(|e| e.bet == bet && e.pay_table == table).unwrap();
        assert_eq!(e.by_rank[4], Some(want), "{bet} {table}");
        assert_ne!(want, Ratio::new(0, 1));
    }
}

#[test]
fn too_small_a_shoe_is_refused_with_the_field() {
    let rb = profiles::builtin("nsw-2021").unwrap();
    let shoe = Shoe::from_rank_counts([1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], 8).unwrap();
    let e = effect_of_removal(&rb, &shoe, None).unwrap_err();
    assert!(e.contains("--shoe"), "{e}");
}
