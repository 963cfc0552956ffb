//! The wagers of the coup in progress, with the indexes the limit checks need.
//!
//! A table can take tens of thousands of wagers in one coup (a busy server's
//! bursts before "no more bets"). Every new wager is checked against the
//! player's own wagers (NSW 6.1, 5.6.6; AU 5.8-5.9), the box's players (AU 3.1)
//! and the area's total (AU 5.8(b)); scanning every wager of the coup for each
//! would make a coup quadratic. So the list keeps, beside the wagers in order:
//! each (player, wager) pair's total and count, each box's players, each
//! (spot, wager) area's total and each wager's total. The indexes are derived
//! data: they are rebuilt from the list on the rare removal, so they cannot
//! drift from it, and two lists with equal wagers compare equal.
//!
//! A wager is found by its id with a binary search of the list: ids are
//! handed out in increasing order, so the list is sorted by id. (A map from
//! id to place, grown afresh each coup, cost the single writer its rehashes
//! and the fresh pages they touched: a fifth of its time under `loadgen`.)
//! Should a list ever arrive out of order, lookups scan it instead.
//!
//! The list is shared, copy on write, in chunks (`chunks.rs`), and the
//! indexes (a few entries per player and box, never one per wager) behind one
//! `Arc` of their own. Every command but a wager command runs on a copy of the
//! table (so a refused one leaves nothing half done), and a checkpoint copies
//! every table: a copy costs a pointer per chunk, and the first change after
//! one copies one chunk and the small indexes. (One `Arc` over the whole list
//! made the first wager at each table after a checkpoint copy its coup: 5-11
//! ms per table of 36,000 wagers under `loadgen`, on the single writer.)

use std::collections::HashMap;
use std::sync::Arc;

use baccarat_rules::{Bet, Money};

use super::{PlayerId, Spot, Wager, WagerId};
use crate::chunks::Chunks;

/// Serialised as its list alone, each wager a row of its fields in order
/// (see the `Serialize` impl); the indexes are rebuilt when it is read.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(from = "Vec<Wager>")]
pub struct CoupWagers {
    list: Chunks<Wager>,
    idx: Arc<Indexes>,
}

/// What the limit checks ask of the list, kept as it grows.
#[derive(Clone, Debug, Default)]
struct Indexes {
    /// Whether the list is in increasing order of id (so binary search finds).
    unsorted: bool,
    box_players: HashMap<u8, Vec<PlayerId>>,
    area: HashMap<(Spot, Bet), Money>,
    /// Each player's total and count of wagers on each bet.
    mine: HashMap<(PlayerId, Bet), (Money, u32)>,
    /// Every player's wagers on each bet together (a table-wide maximum, EU 6.1.3).
    on_bet: HashMap<Bet, Money>,
}

impl PartialEq for CoupWagers {
    fn eq(&self, o: &CoupWagers) -> bool {
        self.list == o.list
    }
}

impl Eq for CoupWagers {}

impl From<Vec<Wager>> for CoupWagers {
    fn from(list: Vec<Wager>) -> CoupWagers {
        let mut w = CoupWagers::default();
        for x in list {
            w.push(x);
        }
        w
    }
}

/// Each wager as `[id, player, spot, bet, amount, ante, needs_approval,
/// token, at_ms]`, written from the list in place. A busy coup holds tens of
/// thousands of wagers: as objects their field names were a third of a
/// server checkpoint's bytes, and the list was copied to be written. The
/// derived `Deserialize` of [`Wager`] reads a row as well as an object, so
/// states written before read as they did.
impl serde::Serialize for CoupWagers {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.list
                .iter()
                .map(|w| (w.id, w.player, w.spot, w.bet, w.amount, w.ante, w.needs_approval, w.token, w.at_ms)),
        )
    }
}

impl From<CoupWagers> for Vec<Wager> {
    fn from(w: CoupWagers) -> Vec<Wager> {
        w.list.iter().cloned().collect()
    }
}

impl CoupWagers {
    pub fn push(&mut self, w: Wager) {
        let idx = Arc::make_mut(&mut self.idx);
        if self.list.last().is_some_and(|l| l.id >= w.id) {
            idx.unsorted = true;
        }
        idx.index(&w);
        self.list.push(w);
    }

    /// Take a wager off the coup (withdrawn or returned).
    pub fn remove(&mut self, id: WagerId) {
        if self.position(id).is_some() {
            self.list.retain(|w| w.id != id);
            self.rebuild();
        }
    }

    /// Where a wager stands in placement order.
    pub fn position(&self, id: WagerId) -> Option<usize> {
        if self.idx.unsorted {
            return self.list.iter().position(|w| w.id == id);
        }
        self.list.find_sorted(&id, |w| w.id)
    }

    pub fn get(&self, id: WagerId) -> Option<&Wager> {
        self.position(id).and_then(|i| self.list.get(i))
    }

    /// The wager placed `i`-th this coup.
    pub fn nth(&self, i: usize) -> Option<&Wager> {
        self.list.get(i)
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// The wagers in the order placed.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &Wager> + Clone {
        self.list.iter()
    }

    /// The wagers placed from the `i`-th on.
    pub fn iter_from(&self, i: usize) -> impl Iterator<Item = &Wager> + Clone {
        self.list.iter_from(i)
    }

    pub fn approve(&mut self, id: WagerId) {
        if let Some(w) = self.position(id).and_then(|i| self.list.get_mut(i)) {
            w.needs_approval = false;
        }
    }

    /// A wager reduced (NSW 6.2; AU 5.18).
    pub fn reduce(&mut self, id: WagerId, to: Money) {
        let Some(w) = self.position(id).and_then(|i| self.list.get_mut(i)) else { return };
        let (key, mine) = ((w.spot, w.bet), (w.player, w.bet));
        let from = std::mem::replace(&mut w.amount, to);
        let idx = Arc::make_mut(&mut self.idx);
        if let Some(a) = idx.area.get_mut(&key) {
            *a = *a - from + to;
        }
        if let Some(m) = idx.mine.get_mut(&mine) {
            m.0 = m.0 - from + to;
        }
        if let Some(b) = idx.on_bet.get_mut(&mine.1) {
            *b = *b - from + to;
        }
    }

    pub fn clear(&mut self) {
        *self = CoupWagers::default();
    }

    /// A player's total on one bet this coup.
    pub fn total_of(&self, player: PlayerId, bet: Bet) -> Money {
        self.idx.mine.get(&(player, bet)).map_or(Money::ZERO, |m| m.0)
    }

    /// Every player's total on one bet this coup.
    pub fn total_on(&self, bet: Bet) -> Money {
        self.idx.on_bet.get(&bet).copied().unwrap_or(Money::ZERO)
    }

    /// Whether a player has a wager on one of `bets` this coup.
    pub fn has(&self, player: PlayerId, bets: &[Bet]) -> bool {
        bets.iter().any(|&b| self.idx.mine.get(&(player, b)).is_some_and(|m| m.1 > 0))
    }

    /// Whether a player has a main wager (Player, Banker or Tie) this coup.
    pub fn has_main(&self, player: PlayerId) -> bool {
        self.has(player, &[Bet::Player, Bet::Banker, Bet::Tie])
    }

    /// The players with a wager in a box.
    pub fn box_players(&self, b: u8) -> &[PlayerId] {
        self.idx.box_players.get(&b).map_or(&[], Vec::as_slice)
    }

    /// All wagers on one bet in one spot.
    pub fn area(&self, spot: Spot, bet: Bet) -> Money {
        self.idx.area.get(&(spot, bet)).copied().unwrap_or(Money::ZERO)
    }

    fn rebuild(&mut self) {
        let mut idx = Indexes { unsorted: !self.list.is_sorted_by_key(|w| w.id), ..Indexes::default() };
        for w in self.list.iter() {
            idx.index(w);
        }
        self.idx = Arc::new(idx);
    }

    /// Whether this list and `other` share every chunk and the indexes
    /// (nothing copied): for the tests of what a change copies.
    pub fn shares_all_with(&self, other: &CoupWagers) -> bool {
        self.list.shares_all_with(&other.list) && Arc::ptr_eq(&self.idx, &other.idx)
    }

    /// How many chunks of the list are the same memory as `other`'s.
    pub fn chunks_shared_with(&self, other: &CoupWagers) -> usize {
        self.list.chunks_shared_with(&other.list)
    }
}

impl Indexes {
    fn index(&mut self, w: &Wager) {
        if let Spot::Box(b) = w.spot {
            let p = self.box_players.entry(b).or_default();
            if !p.contains(&w.player) {
                p.push(w.player);
            }
        }
        let a = self.area.entry((w.spot, w.bet)).or_insert(Money::ZERO);
        *a = *a + w.amount;
        let m = self.mine.entry((w.player, w.bet)).or_insert((Money::ZERO, 0));
        *m = (m.0 + w.amount, m.1 + 1);
        let b = self.on_bet.entry(w.bet).or_insert(Money::ZERO);
        *b = *b + w.amount;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn wager(id: u64, player: u32, b: u8, bet: Bet, amount: i64) -> Wager {
        let (id, player) = (WagerId(id), PlayerId(player));
        let spot = if b == 0 { Spot::Standing } else { Spot::Box(b) };
        Wager {
            id,
            player,
            spot,
            bet,
            amount: Money(amount),
            ante: Money::ZERO,
            needs_approval: true,
            token: false,
            at_ms: None,
        }
    }

    /// Written as rows, read back equal with its indexes; the objects written
    /// before read the same.
    #[test]
    fn wagers_are_written_as_rows_and_read_from_rows_or_objects() {
        let mut list = vec![wager(1, 7, 0, Bet::Banker, 500), wager(2, 8, 3, Bet::Tie, 100)];
        list[1].token = true;
        list[1].at_ms = Some(1_795_000_000_000);
        list[0].needs_approval = false;
        let w = CoupWagers::from(list.clone());
        let rows = serde_json::to_string(&w).unwrap();
        assert_eq!(
            rows,
            r#"[[1,7,"standing","banker",500,0,false,false,null],[2,8,{"box":3},"tie",100,0,true,true,1795000000000]]"#
        );
        let back: CoupWagers = serde_json::from_str(&rows).unwrap();
        assert_eq!(back, w);
        assert!(back.has(PlayerId(8), &[Bet::Tie]) && back.box_players(3) == [PlayerId(8)], "indexes rebuilt");
        let objects: CoupWagers = serde_json::from_str(&serde_json::to_string(&list).unwrap()).unwrap();
        assert_eq!(objects, w);
    }

    /// A copy shares the list until one of them changes; a change to either
    /// never shows in the other (a refused command's scratch table, a
    /// checkpoint's copy).
    #[test]
    fn a_copy_shares_the_list_until_one_changes() {
        let mut a = CoupWagers::default();
        a.push(wager(0, 1, 1, Bet::Banker, 100));
        let mut b = a.clone();
        assert!(a.shares_all_with(&b), "the copy shares the list");
        b.push(wager(1, 2, 2, Bet::Player, 200));
        b.reduce(WagerId(0), Money(50));
        assert_eq!(a.len(), 1);
        assert_eq!(a.total_of(PlayerId(1), Bet::Banker), Money(100), "the original is untouched");
        assert_eq!(b.len(), 2);
        assert_eq!(b.total_of(PlayerId(1), Bet::Banker), Money(50));
        a.remove(WagerId(0));
        assert!(a.is_empty());
        assert_eq!(b.get(WagerId(0)).map(|w| w.amount), Some(Money(50)));
        let back: Vec<Wager> = b.clone().into();
        assert_eq!(back.len(), 2, "a shared list converts by copying");
    }

    /// A checkpoint's copy of a big coup shares it; the next wager copies one
    /// chunk of the list (and the small indexes), not the coup, and neither
    /// side sees the other's change.
    #[test]
    fn a_wager_after_a_copy_of_a_big_coup_copies_one_chunk() {
        let n = 5 * crate::chunks::CHUNK + 100;
        let mut live = CoupWagers::default();
        for i in 0..n as u64 {
            live.push(wager(i, (i % 7) as u32, 1 + (i % 5) as u8, Bet::Banker, 100));
        }
        let taken = live.clone();
        assert!(taken.shares_all_with(&live));
        live.push(wager(n as u64, 3, 2, Bet::Tie, 500));
        assert_eq!(live.chunks_shared_with(&taken), 5, "the five full chunks are still shared");
        assert_eq!((live.len(), taken.len()), (n + 1, n));
        assert_eq!((live.total_on(Bet::Tie), taken.total_on(Bet::Tie)), (Money(500), Money::ZERO));
        live.approve(WagerId(7));
        assert_eq!(live.chunks_shared_with(&taken), 4, "approving wager 7 copies its chunk");
        assert!(taken.get(WagerId(7)).unwrap().needs_approval && !live.get(WagerId(7)).unwrap().needs_approval);
    }

    proptest! {
        /// After any pushes, removals, reductions and approvals, every index
        /// answers what a scan of the list answers: with ids in increasing
        /// order (as the engine hands them out, found by binary search) and,
        /// should a list ever come out of order, in decreasing order.
        #[test]
        fn indexes_agree_with_a_scan(
            descending in any::<bool>(),
            ops in proptest::collection::vec((0u8..4, 0u32..5, 0u8..4, 0usize..3, 1i64..50), 0..120),
        ) {
            let bets = [Bet::Banker, Bet::Player, Bet::Tie];
            let id_of = |n: u64| if descending { 10_000 - n } else { n };
            let mut w = CoupWagers::default();
            let mut next = 0;
            for (op, player, b, bet, amount) in ops {
                match op {
                    0 | 1 => {
                        w.push(wager(id_of(next), player, b, bets[bet], amount * 100));
                        next += 1;
                    }
                    2 => w.remove(WagerId(id_of(amount as u64 % (next + 1)))),
                    _ => {
                        let id = WagerId(id_of(amount as u64 % (next + 1)));
                        w.reduce(id, Money(amount));
                        w.approve(id);
                    }
                }
            }
            for p in (0..5).map(PlayerId) {
                for bet in bets {
                    let scan = w.iter().filter(|x| x.player == p && x.bet == bet).fold(Money::ZERO, |a, x| a + x.amount);
                    prop_assert_eq!(w.total_of(p, bet), scan);
                    prop_assert_eq!(w.has(p, &[bet]), w.iter().any(|x| x.player == p && x.bet == bet));
                }
                prop_assert_eq!(w.has_main(p), w.iter().any(|x| x.player == p && x.bet.is_main()));
            }
            for bet in bets {
                let scan = w.iter().filter(|x| x.bet == bet).fold(Money::ZERO, |a, x| a + x.amount);
                prop_assert_eq!(w.total_on(bet), scan);
            }
            for b in 0..4u8 {
                let mut scan: Vec<PlayerId> = w.iter().filter(|x| x.spot == Spot::Box(b)).map(|x| x.player).collect();
                scan.sort();
                scan.dedup();
                let mut idx = w.box_players(b).to_vec();
                idx.sort();
                prop_assert_eq!(idx, scan);
                for bet in bets {
                    let spot = if b == 0 { Spot::Standing } else { Spot::Box(b) };
                    let scan = w.iter().filter(|x| x.spot == spot && x.bet == bet).fold(Money::ZERO, |a, x| a + x.amount);
                    prop_assert_eq!(w.area(spot, bet), scan);
                }
            }
            for (i, x) in w.iter().enumerate() {
                prop_assert_eq!(w.get(x.id), Some(x));
                prop_assert_eq!(w.position(x.id), Some(i));
            }
            for n in 0..=next {
                let id = WagerId(id_of(n));
                prop_assert_eq!(w.position(id), w.iter().position(|x| x.id == id));
            }
            let back: CoupWagers = serde_json::from_str(&serde_json::to_string(&w).unwrap()).unwrap();
            for (i, x) in w.iter().enumerate() {
                prop_assert_eq!(back.position(x.id), Some(i), "found again once read back");
            }
        }
    }
}
