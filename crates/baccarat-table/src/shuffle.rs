//! The shuffle: our own versioned Fisher–Yates over a ChaCha20 stream.
//!
//! DESIGN principle 8: randomness is auditable. The algorithm is written here, not
//! borrowed, so that its output depends only on the seed and this version:
//!
//! * `fisher-yates-chacha20-v1`: ChaCha20 (RFC 8439: 20 rounds, the seed as the
//!   256-bit key, nonce 0, block counter from 0) yields its keystream read as
//!   little-endian 16-bit words in order. For i = n-1 down to 1, draw j uniform in
//!   0..=i by Lemire's multiply-and-reject: with bound = i + 1, take a word x and
//!   m = x · bound; if m mod 2^16 < 2^16 mod bound, reject x and take the next
//!   word; else j = ⌊m / 2^16⌋. Swap items i and j. (A bound above 2^16, for a
//!   stack of more than 65,536 cards, uses 32-bit values made of two words, the
//!   first the low half, with 2^32 in place of 2^16.) Sixteen-bit words halve the
//!   keystream a shoe needs, and no division is done on the common path; fewer
//!   than 0.7% of draws are rejected for an eight-deck shoe.
//!
//! Streams for simulation take the shoe's number as the ChaCha20 nonce (its 96
//! bits little-endian) under the run's master seed, so shoe `i` of a run is fixed
//! by the seed and `i` alone.
//!
//! Golden vectors in the tests pin the output, so a dependency upgrade that changed
//! the stream would fail the build rather than silently change replayed shoes.
//! The seed's SHA-256 is the commitment published before the shoe starts.

use chacha20::cipher::{KeyIvInit, StreamCipher};
use chacha20::ChaCha20;
use sha2::{Digest, Sha256};

/// The name and version recorded with every shoe.
pub const SHUFFLE_ALGORITHM: &str = "fisher-yates-chacha20-v1";

/// A 256-bit shuffle seed.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Seed(pub [u8; 32]);

/// A seed is written as its 64 hex digits (the record reveals it when the shoe
/// ends) and parsed from them at the edge: a malformed seed is refused where it
/// arrives, never found inside the engine.
impl serde::Serialize for Seed {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.hex())
    }
}

impl<'de> serde::Deserialize<'de> for Seed {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Seed, D::Error> {
        let text = String::deserialize(d)?;
        Seed::from_hex(&text).ok_or_else(|| serde::de::Error::custom("seed: 64 hex digits"))
    }
}

/// Its schema, for the server's API document: the 64 hex digits it is written as.
#[cfg(feature = "schemars")]
impl schemars::JsonSchema for Seed {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Seed".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": "^[0-9a-f]{64}$" })
    }
}

impl std::fmt::Debug for Seed {
    /// Seeds are secrets until the shoe ends; debug output shows only the commitment.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Seed(commitment {})", self.commitment_hex())
    }
}

impl Seed {
    /// A seed from 32 bytes. Fresh entropy is drawn at the edge (the server's
    /// `entropy::os_seed`, the CLI), so this crate stays deterministic: every
    /// seed enters through a command.
    pub fn from_bytes(bytes: [u8; 32]) -> Seed {
        Seed(bytes)
    }

    /// A seed derived from a master seed and an index (simulation: one seed per
    /// shoe, so results do not depend on how shoes are spread over threads).
    pub fn derive(master: &Seed, index: u64) -> Seed {
        let mut h = Sha256::new();
        h.update(b"baccarat shoe seed v1");
        h.update(master.0);
        h.update(index.to_le_bytes());
        Seed(h.finalize().into())
    }

    /// A seed from a number, for reproducible simulations and tests.
    pub fn from_u64(n: u64) -> Seed {
        Seed::derive(&Seed([0; 32]), n)
    }

    /// SHA-256 of the seed: published when the shoe starts.
    pub fn commitment(&self) -> [u8; 32] {
        Sha256::digest(self.0).into()
    }

    pub fn commitment_hex(&self) -> String {
        hex(&self.commitment())
    }

    pub fn hex(&self) -> String {
        hex(&self.0)
    }

    /// Parse 64 hex digits.
    pub fn from_hex(s: &str) -> Option<Seed> {
        let s = s.trim();
        // Hex digits only (`from_str_radix` alone would take "+f").
        if s.len() != 64 || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let mut out = [0u8; 32];
        for (i, b) in out.iter_mut().enumerate() {
            *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
        }
        Some(Seed(out))
    }
}

pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[usize::from(b >> 4)] as char);
        s.push(DIGITS[usize::from(b & 15)] as char);
    }
    s
}

/// Keystream bytes generated at a time (eight ChaCha blocks).
const BUFFER: usize = 512;

/// The word stream of a seed.
pub struct Stream {
    cipher: ChaCha20,
    buf: [u8; BUFFER],
    pos: usize,
}

impl Stream {
    pub fn new(seed: &Seed) -> Stream {
        Stream::with_nonce(seed, 0)
    }

    /// The stream of shoe `index` under a master seed (the nonce is `index`).
    pub fn with_nonce(seed: &Seed, index: u64) -> Stream {
        let mut nonce = [0u8; 12];
        nonce[..8].copy_from_slice(&index.to_le_bytes());
        let cipher = ChaCha20::new(&seed.0.into(), &nonce.into());
        Stream { cipher, buf: [0; BUFFER], pos: BUFFER }
    }

    /// The next 16-bit little-endian word of the keystream.
    #[inline(always)]
    pub fn next_u16(&mut self) -> u16 {
        if self.pos == BUFFER {
            self.refill();
        }
        let w = u16::from_le_bytes([self.buf[self.pos], self.buf[self.pos + 1]]);
        self.pos += 2;
        w
    }

    /// The next [`BUFFER`] bytes of keystream (once every 256 words: kept out
    /// of the callers' loops).
    #[cold]
    #[inline(never)]
    fn refill(&mut self) {
        self.buf = [0; BUFFER];
        self.cipher.apply_keystream(&mut self.buf);
        self.pos = 0;
    }

    /// Words taken so far, rejected draws included: the RNG evidence
    /// (`baccarat rng stream`) emits exactly the words a shoe consumed.
    pub fn words_read(&self) -> u64 {
        use chacha20::cipher::StreamCipherSeek;
        let generated: u64 = self.cipher.current_pos();
        (generated - (BUFFER - self.pos) as u64) / 2
    }

    /// Two words, the first the low half: the keystream's next 32-bit
    /// little-endian word.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        let lo = self.next_u16() as u32;
        lo | (self.next_u16() as u32) << 16
    }

    /// Uniform in `0..bound` without bias (Lemire's multiply-and-reject, see the
    /// module docs). `bound` ≥ 1.
    ///
    /// Inlined into the shuffle's loop (the simulator's hottest call, issue
    /// 50 part 6): one word and one multiplication; the rare word that may
    /// be rejected (under `bound` in 2^16) and bounds above 2^16 go to
    /// functions of their own.
    #[inline(always)]
    pub fn below(&mut self, bound: u32) -> u32 {
        debug_assert!(bound >= 1);
        if bound <= 1 << 16 {
            let m = self.next_u16() as u32 * bound;
            if (m & 0xffff) >= bound {
                return m >> 16;
            }
            return self.below_16_rejecting(m, bound);
        }
        self.below_32(bound)
    }

    /// The shuffle's swaps for `items[..left]` (`left` ≤ 2^16): from the
    /// last, each with a uniform index below `left` drawn as [`Stream::below`]
    /// draws it, using the words left in the buffer (refilled first if it is
    /// spent); stops when they run out, after a word that may be rejected
    /// (finished by [`Stream::below`]'s own path), or when one item is left.
    /// How many items are left to shuffle.
    #[inline(always)]
    fn swaps_from_buffer<T>(&mut self, items: &mut [T], mut left: usize) -> usize {
        debug_assert!(left <= 1 << 16, "a word times a bound above 2^16 would not fit 32 bits");
        if self.pos == BUFFER {
            self.refill();
        }
        let mut rejecting = None;
        let mut read = 0;
        for w in self.buf[self.pos..].chunks_exact(2) {
            if left <= 1 {
                break;
            }
            read += 2;
            let bound = left as u32;
            let m = u16::from_le_bytes([w[0], w[1]]) as u32 * bound;
            if (m & 0xffff) < bound {
                rejecting = Some(m);
                break;
            }
            items.swap(left - 1, (m >> 16) as usize);
            left -= 1;
        }
        self.pos += read;
        if let Some(m) = rejecting {
            let j = self.below_16_rejecting(m, left as u32) as usize;
            items.swap(left - 1, j);
            left -= 1;
        }
        left
    }

    /// [`Stream::below`] for a word `m` (already multiplied by `bound`) that
    /// may be rejected: drawn again while under the threshold.
    #[cold]
    #[inline(never)]
    fn below_16_rejecting(&mut self, mut m: u32, bound: u32) -> u32 {
        let threshold = (0x1_0000 - bound) % bound;
        while (m & 0xffff) < threshold {
            m = self.next_u16() as u32 * bound;
        }
        m >> 16
    }

    /// [`Stream::below`] for bounds above 2^16, from 32-bit words.
    #[inline(never)]
    fn below_32(&mut self, bound: u32) -> u32 {
        let mut m = self.next_u32() as u64 * bound as u64;
        if (m as u32) < bound {
            let threshold = bound.wrapping_neg() % bound;
            while (m as u32) < threshold {
                m = self.next_u32() as u64 * bound as u64;
            }
        }
        (m >> 32) as u32
    }
}

/// Shuffle `items` in place by `fisher-yates-chacha20-v1` from `seed`.
pub fn shuffle<T>(items: &mut [T], seed: &Seed) {
    let mut s = Stream::new(seed);
    shuffle_with(items, &mut s);
}

/// The same shuffle drawing from an existing stream (so a cut can follow it).
///
/// For `i` from the last index down to 1, `items[i]` is swapped with
/// `items[j]`, `j = below(i + 1)`. Up to 2^16 items (every shoe) the words
/// are read straight from the stream's buffer, a buffer at a time
/// ([`Stream::swaps_from_buffer`]): the same words and the same draws as
/// [`Stream::below`], without its per-word bookkeeping (the simulator's
/// hottest loop, issue 50 part 6).
pub fn shuffle_with<T>(items: &mut [T], s: &mut Stream) {
    if items.len() > 1 << 16 {
        for i in (1..items.len()).rev() {
            let j = s.below(i as u32 + 1) as usize;
            items.swap(i, j);
        }
        return;
    }
    let mut left = items.len();
    while left > 1 {
        left = s.swaps_from_buffer(items, left);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shuffle as specified, written out on its own (not through
    /// [`Stream::below`], which the buffered shuffle shares code with): for
    /// each index from the last down to 1, a 16-bit word `w` (32-bit above
    /// 2^16 items), `m = w · bound`, drawn again while the low half of `m`
    /// is under `(2^16 − bound) mod bound`; the swap with `m >> 16`.
    fn shuffle_as_specified<T>(items: &mut [T], s: &mut Stream) {
        for i in (1..items.len()).rev() {
            let bound = i as u64 + 1;
            let (bits, word): (u32, &mut dyn FnMut(&mut Stream) -> u64) = if bound <= 1 << 16 {
                (16, &mut |s: &mut Stream| s.next_u16() as u64)
            } else {
                (32, &mut |s: &mut Stream| s.next_u32() as u64)
            };
            let low = (1u64 << bits) - 1;
            let threshold = ((1u64 << bits) - bound) % bound;
            let mut m = word(s) * bound;
            while m & low < threshold {
                m = word(s) * bound;
            }
            items.swap(i, (m >> bits) as usize);
        }
    }

    /// The buffered shuffle deals what the specified one deals and leaves the
    /// stream where it leaves it (the cut, the RNG evidence's word count),
    /// from a fresh stream and from one part-way through its buffer, across
    /// buffer boundaries and for sizes whose bounds reject a word; above 2^16
    /// items both take the plain path.
    #[test]
    fn the_buffered_shuffle_is_the_specified_one() {
        let mut rejected_somewhere = false;
        for seed in 0..120u64 {
            for n in [0usize, 1, 2, 3, 52, 255, 256, 257, 416, 1000, 5000, 65_536, 65_537] {
                if n > 5000 && seed % 20 != 0 {
                    continue;
                }
                let (mut a, mut b): (Vec<u32>, Vec<u32>) = ((0..n as u32).collect(), (0..n as u32).collect());
                let (mut sa, mut sb) = (Stream::new(&Seed::from_u64(seed)), Stream::new(&Seed::from_u64(seed)));
                // Part-way through the buffer: 0 to 255 words already taken.
                for _ in 0..(seed * 37) % 256 {
                    assert_eq!(sa.next_u16(), sb.next_u16());
                }
                let before = sa.words_read();
                shuffle_with(&mut a, &mut sa);
                shuffle_as_specified(&mut b, &mut sb);
                assert_eq!(a, b, "seed {seed}, {n} items");
                assert_eq!(sa.words_read(), sb.words_read(), "seed {seed}, {n} items");
                assert_eq!(sa.next_u32(), sb.next_u32(), "seed {seed}, {n} items");
                rejected_somewhere |= n <= 1 << 16 && sa.words_read() - before > n.max(1) as u64 - 1;
            }
        }
        assert!(rejected_somewhere, "some draw was rejected and drawn again");
    }

    /// Every 16-bit word maps to a value below the bound, and the accepted words
    /// split evenly: exactly ⌊2^16 / bound⌋ words give each value.
    #[test]
    fn multiply_and_reject_is_exactly_uniform_over_all_words() {
        for bound in [1u32, 2, 3, 7, 52, 415, 416, 1000, 65_535, 1 << 16] {
            let threshold = (0x1_0000 - bound) % bound;
            let mut per_value = vec![0u32; bound as usize];
            for x in 0..=0xffffu32 {
                let m = x * bound;
                if (m & 0xffff) >= threshold {
                    per_value[(m >> 16) as usize] += 1;
                }
            }
            assert!(per_value.iter().all(|&c| c == 0x1_0000 / bound), "bound {bound}");
        }
    }

    #[test]
    fn large_bounds_use_32_bit_values() {
        let mut s = Stream::new(&Seed::from_u64(4));
        for _ in 0..1000 {
            assert!(s.below(100_000) < 100_000);
            assert!(s.below(u32::MAX) < u32::MAX);
        }
    }

    #[test]
    fn below_is_unbiased_on_a_small_bound() {
        let mut s = Stream::new(&Seed::from_u64(1));
        let mut counts = [0u32; 3];
        for _ in 0..300_000 {
            counts[s.below(3) as usize] += 1;
        }
        for c in counts {
            assert!((c as i64 - 100_000).abs() < 1_500, "{counts:?}");
        }
    }

    #[test]
    fn seeds_round_trip_through_hex_and_hide_in_debug() {
        let s = Seed::from_u64(7);
        assert_eq!(Seed::from_hex(&s.hex()), Some(s));
        assert!(Seed::from_hex("zz").is_none());
        assert!(Seed::from_hex(&"+f".repeat(32)).is_none(), "a sign is not a hex digit");
        assert!(!format!("{s:?}").contains(&s.hex()));
    }
}
