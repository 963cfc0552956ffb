//! How a shoe is made and seen: the procedure, the shoe as the evidence sees
//! it, and the makers of shoes.

use baccarat_rules::{Card, Rulebook};
use baccarat_table::{shuffle_with, Seed, Stream};
use baccarat_table::{Cut, CutRules};

use super::{KEYSTREAM_WORDS, SERVER_MIN_FROM_BACK};

/// How an RNG table makes a shoe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Procedure {
    pub decks: u32,
    pub cut: CutRules,
    /// Cards behind the cutting card: fixed by the table, not drawn.
    pub cutting_card_from_back: usize,
}

impl Procedure {
    /// The procedure of the server's RNG tables for a rulebook.
    pub fn for_rulebook(rb: &Rulebook, decks: u32) -> Procedure {
        let cut = CutRules::from_profile(&rb.config);
        Procedure { decks, cut, cutting_card_from_back: cut.cutting_card_min_from_back.max(SERVER_MIN_FROM_BACK) }
    }

    pub fn cards(&self) -> usize {
        52 * self.decks as usize
    }

    /// The cut's allowed range, both ends included (NSW 4.5; AU 7.6).
    pub fn cut_range(&self) -> (usize, usize) {
        let min = self.cut.min_from_either_end;
        (min, self.cards().saturating_sub(min))
    }
}

/// One shoe as the evidence sees it.
#[derive(Clone, Debug)]
pub struct ShoeDraw {
    /// The physical card (`52 · deck + Card::index`) at each position of the
    /// shuffled stack, before the cut.
    pub stack: Vec<u16>,
    pub cut: Cut,
    /// The first keystream words of the shoe's stream, as 32-bit words.
    pub words: [u32; KEYSTREAM_WORDS],
}

impl ShoeDraw {
    pub fn new(cards: usize) -> ShoeDraw {
        ShoeDraw { stack: vec![0; cards], cut: Cut { at: 0, from_back: 0 }, words: [0; KEYSTREAM_WORDS] }
    }

    /// The physical card dealt at position `p` (after the cut: `Shoe::cut`
    /// moves the `at` cards in front of the cutting card to the back).
    #[inline]
    pub fn dealt(&self, p: usize) -> u16 {
        let n = self.stack.len();
        self.stack[(p + self.cut.at % n) % n]
    }

    /// The dealing order, physical cards.
    pub fn dealing_order(&self) -> Vec<u16> {
        (0..self.stack.len()).map(|p| self.dealt(p)).collect()
    }
}

/// The playing card of a physical card number.
pub fn card_of(physical: u16) -> Card {
    Card::from_index(physical as usize % 52).expect("physical % 52 < 52")
}

/// A maker of shoes: the table's procedure, or in the tests a broken one to
/// show that the suite rejects it.
pub trait ShoeSource: Sync {
    /// Shoe `index` of the run with master seed `master`.
    fn draw(&self, master: &Seed, index: u64, out: &mut ShoeDraw);
}

/// Shoes as an RNG table makes them.
#[derive(Clone, Copy, Debug)]
pub struct TableShoes(pub Procedure);

impl TableShoes {
    /// Shuffle and cut from `seed` exactly as the server does, leaving the
    /// stream after the cut's draw.
    fn shuffle_and_cut(&self, seed: &Seed, stack: &mut [u16]) -> (Cut, Stream) {
        let mut s = Stream::new(seed);
        for (i, x) in stack.iter_mut().enumerate() {
            *x = i as u16;
        }
        shuffle_with(stack, &mut s);
        let cut = self.0.cut.random(&mut s, stack.len(), self.0.cutting_card_from_back);
        (cut, s)
    }

    /// The 16-bit keystream words shoe `index` consumed (shuffle, then cut),
    /// rejected draws included, appended to `out`: what `baccarat rng stream`
    /// writes.
    pub fn consumed_words(&self, master: &Seed, index: u64, stack: &mut [u16], out: &mut Vec<u16>) {
        let seed = Seed::derive(master, index);
        let (_, s) = self.shuffle_and_cut(&seed, stack);
        let mut again = Stream::new(&seed);
        out.extend((0..s.words_read()).map(|_| again.next_u16()));
    }
}

impl ShoeSource for TableShoes {
    fn draw(&self, master: &Seed, index: u64, out: &mut ShoeDraw) {
        let seed = Seed::derive(master, index);
        let (cut, _) = self.shuffle_and_cut(&seed, &mut out.stack);
        out.cut = cut;
        let mut s = Stream::new(&seed);
        for w in out.words.iter_mut() {
            *w = s.next_u32();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words the stream command writes are the words the shoe used: the
    /// next word after them is the stream's next word after the cut.
    #[test]
    fn consumed_words_are_the_shoes_prefix_of_the_keystream() {
        let rb = baccarat_rules::profiles::builtin("nsw-2021").unwrap();
        let src = TableShoes(Procedure::for_rulebook(&rb, 8));
        let master = Seed::from_u64(9);
        let mut stack = vec![0u16; 416];
        let mut words = Vec::new();
        src.consumed_words(&master, 3, &mut stack, &mut words);
        // 415 draws for the shuffle, one for the cut, a few rejections.
        assert!((416..440).contains(&words.len()), "{}", words.len());
        let seed = Seed::derive(&master, 3);
        let (_, mut after) = src.shuffle_and_cut(&seed, &mut stack);
        let mut s = Stream::new(&seed);
        for &w in &words {
            assert_eq!(s.next_u16(), w);
        }
        assert_eq!(s.next_u16(), after.next_u16());
    }
}
