//! Golden vectors for `fisher-yates-chacha20-v1`. If any of these change, replayed
//! shoes would change: that must be a new algorithm version, never an upgrade.

use baccarat_rules::Card;
use baccarat_table::{fresh, shuffled};
use baccarat_table::{hex, shuffle, Seed, Stream, SHUFFLE_ALGORITHM};
use sha2::{Digest, Sha256};

#[test]
fn the_stream_is_rfc_7539_chacha20() {
    // RFC 7539 A.1, test vector 1: all-zero key and nonce, block 0. Keystream bytes
    // 76 b8 e0 ad a0 f1 3d 90 ... read as little-endian 32-bit words.
    let mut s = Stream::new(&Seed([0; 32]));
    assert_eq!(s.next_u32(), 0xade0_b876);
    assert_eq!(s.next_u32(), 0x903d_f1a0);
    assert_eq!(s.next_u32(), 0xe56a_5d40);
    assert_eq!(s.next_u32(), 0x28bd_8653);
}

fn order(cards: &[Card]) -> String {
    cards.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
}

#[test]
fn one_deck_golden_orders() {
    assert_eq!(SHUFFLE_ALGORITHM, "fisher-yates-chacha20-v1");
    let mut d = fresh(1);
    shuffle(&mut d, &Seed([0; 32]));
    let got = order(&d);
    let want = include_str!("golden/shuffle_zero_seed.txt").trim();
    assert_eq!(got, want);
    let mut n: Vec<u32> = (0..10).collect();
    shuffle(&mut n, &Seed::from_u64(1));
    assert_eq!(
        n,
        include_str!("golden/shuffle_ten_seed1.txt")
            .trim()
            .split(',')
            .map(|x| x.parse().unwrap())
            .collect::<Vec<u32>>()
    );
}

#[test]
fn eight_deck_golden_digest() {
    let (cards, _) = shuffled(8, &Seed::from_u64(2026));
    let digest = hex(&Sha256::digest(order(&cards).as_bytes()));
    assert_eq!(digest, include_str!("golden/shuffle_8_decks_2026.sha256").trim());
    // A permutation: every card eight times.
    let mut sorted = cards.clone();
    sorted.sort();
    assert_eq!(sorted, {
        let mut f = fresh(8);
        f.sort();
        f
    });
}

#[test]
fn commitment_is_sha256_of_the_seed() {
    // SHA-256 of 32 zero bytes.
    assert_eq!(Seed([0; 32]).commitment_hex(), "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
}

/// Worked by hand from the RFC keystream 76 b8 e0 ad a0 f1 …, read as 16-bit
/// words 0xb876 = 47222, 0xade0 = 44512, 0xf1a0 = 61856:
/// i=3, bound 4: m = 188888, m mod 2^16 = 57816 ≥ 0, j = 2: swap 3,2 -> [0,1,3,2];
/// i=2, bound 3: m = 133536, m mod 2^16 = 2464 ≥ 1, j = 2: no change;
/// i=1, bound 2: m = 123712, j = 1: no change.
#[test]
fn four_items_by_hand() {
    let mut v = [0, 1, 2, 3];
    shuffle(&mut v, &Seed([0; 32]));
    assert_eq!(v, [0, 1, 3, 2]);
}
