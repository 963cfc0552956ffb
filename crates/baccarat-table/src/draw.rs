//! A promotional prize draw anyone can recompute (NSW 16; `baccarat_rules::
//! promotion` holds the terms).
//!
//! # Procedure (`promotion-draw-chacha20-v1`)
//!
//! 1. Before entries close, the operator publishes the SHA-256 of a secret
//!    32-byte seed (the same commitment a shoe's seed has: `shuffle::Seed`).
//! 2. After they close, the entries are listed canonically: one line
//!    `player:entries` per player, in ascending player id; the list's SHA-256
//!    is published with it.
//! 3. At the draw the seed is revealed. The draw's stream is ChaCha20 keyed by
//!    SHA-256(`promotion-draw-chacha20-v1` | seed | list digest), so neither
//!    side can steer it: the seed was fixed before the entries were known, and
//!    the entries cannot change after the list is published.
//! 4. Each prize in the terms' order draws one entry uniformly (without bias:
//!    `Stream::below`) from those left; the winner's entries leave the draw
//!    when a player may win one prize only, else the one entry does.
//!
//! Anyone with the seed, the list and the terms gets the same winners.

use sha2::{Digest, Sha256};

use crate::engine::PlayerId;
use crate::shuffle::{Seed, Stream};

/// The procedure's name, bound into the stream's key.
pub const PROCEDURE: &str = "promotion-draw-chacha20-v1";

/// The canonical entries list: players in ascending id, those with no entry
/// left out.
pub fn canonical(entries: &[(PlayerId, u64)]) -> Vec<(PlayerId, u64)> {
    let mut by: std::collections::BTreeMap<u32, u64> = std::collections::BTreeMap::new();
    for (p, n) in entries {
        *by.entry(p.0).or_default() += n;
    }
    by.into_iter().filter(|(_, n)| *n > 0).map(|(p, n)| (PlayerId(p), n)).collect()
}

/// The list's text and its SHA-256, as published.
pub fn listing(entries: &[(PlayerId, u64)]) -> (String, [u8; 32]) {
    let text: String = canonical(entries).iter().map(|(p, n)| format!("{}:{n}\n", p.0)).collect();
    let digest = Sha256::digest(text.as_bytes()).into();
    (text, digest)
}

/// Draw `prizes` winners (in prize order) from `entries` with the revealed
/// `seed`. Fewer winners than prizes when the entries run out.
pub fn draw(entries: &[(PlayerId, u64)], seed: &Seed, prizes: usize, one_per_player: bool) -> Vec<PlayerId> {
    let list = canonical(entries);
    let (_, digest) = listing(&list);
    let key: [u8; 32] = Sha256::new()
        .chain_update(PROCEDURE.as_bytes())
        .chain_update(b"|")
        .chain_update(seed.0)
        .chain_update(b"|")
        .chain_update(digest)
        .finalize()
        .into();
    let mut stream = Stream::new(&Seed(key));
    let mut left: Vec<(PlayerId, u64)> = list;
    let mut winners = Vec::new();
    for _ in 0..prizes {
        let total: u64 = left.iter().map(|(_, n)| n).sum();
        if total == 0 {
            break;
        }
        let mut pick = below_u64(&mut stream, total);
        let i = left
            .iter()
            .position(|(_, n)| {
                if pick < *n {
                    true
                } else {
                    pick -= n;
                    false
                }
            })
            .expect("pick < total");
        winners.push(left[i].0);
        if one_per_player {
            left.remove(i);
        } else {
            left[i].1 -= 1;
        }
    }
    winners
}

/// Uniform in `0..bound` for a 64-bit bound, from 32-bit draws: below 2^32
/// the stream's own unbiased `below`; above it, two words with rejection.
fn below_u64(s: &mut Stream, bound: u64) -> u64 {
    if bound <= u32::MAX as u64 {
        return s.below(bound as u32) as u64;
    }
    // 2^64 mod bound: the values at the top that would bias `v % bound`.
    let r = (u64::MAX % bound + 1) % bound;
    loop {
        let v = ((s.next_u32() as u64) << 32) | s.next_u32() as u64;
        if r == 0 || v < r.wrapping_neg() {
            return v % bound;
        }
    }
}
