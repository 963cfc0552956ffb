//! The odds engine against brute force: every ordered six-card sequence of a small
//! shoe of physical cards, dealt by the rules crate's own `Coup::from_cards` and
//! classified by `Bet::classify`, must give exactly the engine's counts for every
//! wager, Lucky Triple Match and Tiger Pair included.

use baccarat_math::{distribution, summary_table, Shoe, ShoeOdds};
use baccarat_rules::{Bet, Card, Coup, Outcome};
use std::collections::HashMap;

fn physical(counts: &[u32; 52]) -> Vec<Card> {
    (0..52).flat_map(|i| std::iter::repeat_n(Card::from_index(i).unwrap(), counts[i] as usize)).collect()
}

/// Visit every ordered selection of 6 distinct physical cards.
fn sequences(cards: &[Card], f: &mut impl FnMut(&[Card; 6])) {
    fn rec(cards: &[Card], used: &mut Vec<bool>, seq: &mut [Card; 6], depth: usize, f: &mut impl FnMut(&[Card; 6])) {
        if depth == 6 {
            f(seq);
            return;
        }
        for i in 0..cards.len() {
            if !used[i] {
                used[i] = true;
                seq[depth] = cards[i];
                rec(cards, used, seq, depth + 1, f);
                used[i] = false;
            }
        }
    }
    let mut used = vec![false; cards.len()];
    let mut seq = [cards[0]; 6];
    rec(cards, &mut used, &mut seq, 0, f);
}

fn check(spec: &[(&str, u32)]) -> HashMap<(Bet, Outcome), u64> {
    let mut counts = [0u32; 52];
    for (c, n) in spec {
        counts[c.parse::<Card>().unwrap().index()] += n;
    }
    let shoe = Shoe::from_card_counts(counts, 8).unwrap();
    let cards = physical(&counts);
    let mut brute: HashMap<(Bet, Outcome), u64> = HashMap::new();
    let mut total = 0u64;
    sequences(&cards, &mut |seq| {
        total += 1;
        let (coup, _) = Coup::from_cards(seq).unwrap();
        for bet in Bet::ALL {
            *brute.entry((bet, bet.classify(&coup))).or_default() += 1;
        }
    });
    let table = summary_table(&shoe.value_counts());
    assert_eq!(table.total, total);
    for bet in Bet::ALL {
        let d = distribution(bet, &shoe, &table).unwrap();
        assert_eq!(d.counts.iter().map(|(_, c)| c).sum::<u64>(), total, "{bet}");
        for (o, c) in &d.counts {
            assert_eq!(brute.get(&(bet, *o)).copied().unwrap_or(0), *c, "{bet} {o} in {spec:?}");
        }
        let brute_outcomes = brute.keys().filter(|(b, _)| *b == bet).count();
        assert_eq!(brute_outcomes, d.counts.len(), "{bet}: outcomes seen by brute force vs engine");
        // The fast path (class table and closed forms) gives the same counts.
        let fast = ShoeOdds::new(&shoe).distribution(bet).unwrap();
        for (o, c) in &fast.counts {
            assert_eq!(brute.get(&(bet, *o)).copied().unwrap_or(0), *c, "fast {bet} {o} in {spec:?}");
        }
        assert_eq!(brute_outcomes, fast.counts.len(), "{bet}: outcomes seen by brute force vs fast path");
    }
    brute
}

#[test]
fn small_shoe_with_triples_and_pairs() {
    // Three identical 2D (Lucky Triple Match on either hand), pairs of several
    // kinds, tens and pictures, a natural-maker.
    let seen = check(&[("2D", 3), ("2H", 1), ("KS", 2), ("QS", 1), ("7H", 2), ("AC", 1), ("6S", 1)]);
    for key in [
        (Bet::LuckyMatchPlayer, Outcome::LuckyTripleMatch),
        (Bet::LuckyMatchBanker, Outcome::LuckyTripleMatch),
        (Bet::PerfectPairPlayer, Outcome::ColouredPair),
        (Bet::TigerPair, Outcome::Double),
        (Bet::DragonBonusBanker, Outcome::NaturalWin),
    ] {
        assert!(seen.contains_key(&key), "the shoe should exercise {key:?}");
    }
}

#[test]
fn small_shoe_of_sixes_and_draws() {
    // Sixes for Tiger and Super Six, threes and fours for Banker draws, a triple 3H.
    let seen = check(&[("6C", 2), ("6D", 1), ("6H", 1), ("3H", 3), ("4S", 1), ("10D", 2), ("9C", 1), ("5H", 1)]);
    for key in [
        (Bet::Tiger, Outcome::TwoCard),
        (Bet::Tiger, Outcome::ThreeCard),
        (Bet::TigerTie, Outcome::Win),
        (Bet::TigerPair, Outcome::Twin),
    ] {
        assert!(seen.contains_key(&key), "the shoe should exercise {key:?}");
    }
}
