//! `report` (class table and closed forms) equals `report_by_enumeration`
//! exactly — every count, every exact moment — for a thousand random depleted
//! shoes under every rulebook, and for every small shoe of a few card kinds.

use baccarat_math::{report, report_by_enumeration, Shoe};
use baccarat_rules::profiles;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A shoe of 1 to 8 decks less a random number of random cards (at least six
/// left); one in four given by rank only.
fn random_shoe(rng: &mut ChaCha8Rng) -> Shoe {
    let decks = rng.random_range(1..=8u32);
    let mut counts = [decks; 52];
    let mut left = 52 * decks;
    let remove = rng.random_range(0..=left - 6);
    for _ in 0..remove {
        let mut pick = rng.random_range(0..left);
        let i = counts.iter().position(|&c| {
            if pick < c {
                return true;
            }
            pick -= c;
            false
        });
        counts[i.expect("pick < left")] -= 1;
        left -= 1;
    }
    if rng.random_range(0..4) == 0 {
        let ranks = std::array::from_fn(|r| counts[r * 4..r * 4 + 4].iter().sum());
        Shoe::from_rank_counts(ranks, 8).unwrap()
    } else {
        Shoe::from_card_counts(counts, 8).unwrap()
    }
}

fn assert_same(shoe: &Shoe) {
    for rb in profiles::all() {
        let fast = report(&rb, shoe, None);
        let slow = report_by_enumeration(&rb, shoe, None);
        assert_eq!(fast, slow, "{} for {:?}", rb.id, shoe.card_counts());
    }
}

#[test]
fn fast_report_equals_enumeration_for_1000_random_shoes() {
    let mut rng = ChaCha8Rng::seed_from_u64(50);
    let mut priced = 0;
    for _ in 0..1000 {
        let shoe = random_shoe(&mut rng);
        assert_same(&shoe);
        priced += 1;
    }
    assert_eq!(priced, 1000);
}

#[test]
fn fast_report_equals_enumeration_for_every_small_shoe() {
    // Every shoe of 6 to 12 cards with 0-2 of each of six card kinds: two aces of
    // one colour and one of the other (pairs of each kind), a king and a queen
    // (ten-valued, different ranks), and a six (Super Six, Tiger).
    let kinds = ["AC", "AS", "AH", "KD", "QD", "6C"];
    let mut shoes = 0;
    for code in 0..3usize.pow(kinds.len() as u32) {
        let mut counts = [0u32; 52];
        let mut c = code;
        for k in kinds {
            counts[k.parse::<baccarat_rules::Card>().unwrap().index()] = (c % 3) as u32;
            c /= 3;
        }
        if counts.iter().sum::<u32>() < 6 {
            continue;
        }
        assert_same(&Shoe::from_card_counts(counts, 8).unwrap());
        shoes += 1;
    }
    assert!(shoes > 100, "{shoes}");
}

#[test]
fn fast_report_equals_enumeration_for_full_shoes() {
    for decks in 1..=8 {
        assert_same(&Shoe::decks(decks).unwrap());
    }
}

/// Lucky Match priced from counts made without the triple features (they are
/// then counted on first need) equals it priced with them.
#[test]
fn triples_counted_late_equal_triples_counted_at_once() {
    let mut rng = ChaCha8Rng::seed_from_u64(51);
    for _ in 0..50 {
        let shoe = random_shoe(&mut rng);
        if !shoe.suits_known() {
            continue;
        }
        for bet in [baccarat_rules::Bet::LuckyMatchPlayer, baccarat_rules::Bet::LuckyMatchBanker] {
            let late = baccarat_math::ShoeOdds::counted(&shoe, false).distribution(bet).unwrap();
            assert_eq!(late, baccarat_math::ShoeOdds::new(&shoe).distribution(bet).unwrap());
        }
    }
}
