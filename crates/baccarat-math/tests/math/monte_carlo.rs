//! An independent Monte Carlo cross-check. It shares nothing with the enumerators
//! but the rules: it deals real cards from ChaCha-shuffled 8-deck shoes through
//! `Coup::from_cards`, classifies with `Bet::classify`, and checks that every
//! outcome's frequency is within 5 standard errors of the exact probability.

use baccarat_math::{report, reported_outcome, Shoe};
use baccarat_rules::{deck, profiles, Card, Coup};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

#[test]
fn sampled_frequencies_match_exact_odds() {
    const SAMPLES: usize = 2_000_000;
    let shoe: Vec<Card> = (0..8).flat_map(|_| deck()).collect();
    let mut rng = ChaCha20Rng::seed_from_u64(20261122);
    for id in ["nsw-2021", "au-casino"] {
        let rb = profiles::builtin(id).unwrap();
        let exact = report(&rb, &Shoe::decks(8).unwrap(), Some(8));
        let mut hits = vec![vec![0u64; 0]; exact.bets.len()];
        for (h, b) in hits.iter_mut().zip(&exact.bets) {
            *h = vec![0; b.outcomes.len()];
        }
        let mut cards = shoe.clone();
        for _ in 0..SAMPLES {
            // The first six cards of a fresh shuffle: a partial Fisher-Yates.
            for i in 0..6 {
                let j = rng.random_range(i..cards.len());
                cards.swap(i, j);
            }
            let (coup, _) = Coup::from_cards(&cards[..6]).unwrap();
            for (bi, b) in exact.bets.iter().enumerate() {
                let table = rb.bet(b.bet).unwrap().pay_table(&b.pay_table).unwrap();
                let shown = reported_outcome(table, b.bet.classify(&coup));
                let idx =
                    b.outcomes.iter().position(|x| x.outcome == shown).expect("every sampled outcome is possible");
                hits[bi][idx] += 1;
            }
        }
        for (bi, b) in exact.bets.iter().enumerate() {
            for (oi, o) in b.outcomes.iter().enumerate() {
                let p = b.probability(o);
                let se = (p * (1.0 - p) / SAMPLES as f64).sqrt().max(1e-9);
                let f = hits[bi][oi] as f64 / SAMPLES as f64;
                assert!(
                    (f - p).abs() < 5.0 * se + 1e-7,
                    "{id} {} {} {}: sampled {f:.6} vs exact {p:.6}",
                    b.bet,
                    b.pay_table,
                    o.outcome
                );
            }
        }
    }
}
