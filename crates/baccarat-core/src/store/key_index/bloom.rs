//! A split-block Bloom filter over key ids: each key sets one bit in each of
//! the eight 64-bit words of one 512-bit block (one cache line), so a probe
//! costs one cache miss, whatever the filter's size.
//!
//! A key id is already 128 bits of SHA-256 ([`crate::ledger::keys::key_id`]): its low
//! half picks the block and its high half the eight bits, with no hashing of
//! its own. A client chooses its keys, not their hashes, so it cannot aim at
//! a block; a false positive only costs a page read.

use crate::ledger::keys::KeyId;

/// Bits per key: about 0.5% false positives for a split-block filter.
pub const BITS_PER_KEY: usize = 12;

/// Words in a block.
const WORDS: usize = 8;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bloom {
    /// `WORDS` words a block.
    words: Vec<u64>,
}

impl Bloom {
    /// An empty filter sized for `keys` keys.
    pub fn with_keys(keys: usize) -> Bloom {
        let blocks = (keys.max(1) * BITS_PER_KEY).div_ceil(WORDS * 64);
        Bloom { words: vec![0; blocks * WORDS] }
    }

    fn blocks(&self) -> usize {
        self.words.len() / WORDS
    }

    /// The block of `id`: its low 64 bits scaled to the number of blocks.
    fn block(&self, id: KeyId) -> usize {
        ((u128::from(id.0 as u64) * self.blocks() as u128) >> 64) as usize
    }

    /// One bit in each word, six bits of the id's high half each.
    fn masks(id: KeyId) -> [u64; WORDS] {
        let h = (id.0 >> 64) as u64;
        std::array::from_fn(|i| 1u64 << ((h >> (i * 6)) & 63))
    }

    pub fn insert(&mut self, id: KeyId) {
        let b = self.block(id) * WORDS;
        for (w, m) in self.words[b..b + WORDS].iter_mut().zip(Self::masks(id)) {
            *w |= m;
        }
    }

    /// False only if `id` was never inserted.
    pub fn may_contain(&self, id: KeyId) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let b = self.block(id) * WORDS;
        self.words[b..b + WORDS].iter().zip(Self::masks(id)).all(|(w, m)| w & m == m)
    }

    /// Its bytes as stored (little-endian words).
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Read back [`Bloom::to_bytes`]; `None` if the length is not whole blocks.
    pub fn from_bytes(b: &[u8]) -> Option<Bloom> {
        if b.is_empty() || b.len() % (WORDS * 8) != 0 {
            return None;
        }
        let words = b.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))).collect();
        Some(Bloom { words })
    }

    /// Bytes held in memory.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn id(n: u64) -> KeyId {
        crate::ledger::keys::key_id(&format!("key-{n}"))
    }

    proptest! {
        /// Never a false negative, for any set of keys.
        #[test]
        fn every_key_inserted_is_found(keys in proptest::collection::vec(any::<u128>(), 1..2000)) {
            let mut b = Bloom::with_keys(keys.len());
            for k in &keys {
                b.insert(KeyId(*k));
            }
            for k in &keys {
                prop_assert!(b.may_contain(KeyId(*k)));
            }
            let back = Bloom::from_bytes(&b.to_bytes()).unwrap();
            prop_assert_eq!(back, b);
        }
    }

    #[test]
    fn false_positives_stay_near_the_design_rate() {
        let n = 200_000;
        let mut b = Bloom::with_keys(n);
        for i in 0..n as u64 {
            b.insert(id(i));
        }
        let probes = 200_000u64;
        let fp = (0..probes).filter(|i| b.may_contain(id(1_000_000_000 + i))).count();
        let rate = fp as f64 / probes as f64;
        assert!(rate < 0.01, "false positive rate {rate}");
        assert!(rate > 0.0001, "a filter this small has some false positives: {rate}");
        assert_eq!(b.bytes(), (n * BITS_PER_KEY).div_ceil(512) * 64);
    }

    #[test]
    fn an_empty_filter_holds_nothing_and_bad_bytes_are_refused() {
        let b = Bloom::with_keys(0);
        assert!(!b.may_contain(id(1)));
        assert!(Bloom::from_bytes(&[0; 63]).is_none());
        assert!(Bloom::from_bytes(&[]).is_none());
    }
}
