//! The wagers of the coup in progress, with the indexes the limit checks need.
//!
//! A table can take tens of thousands of wagers in one coup (a busy server's
//! bursts before "no more bets"). Every new wager is checked against the
//! player's own wagers (NSW 6.1, 5.6.6; AU 5.8-5.9), the box's players (AU 3.1)
//! and the area's total (AU 5.8(b)); scanning every wager of the coup for each
//! would make a coup quadratic. So the list keeps, beside the wagers in order:
//! each wager's place, each player's wagers, each box's players and each
//! (spot, wager) area's total. The indexes are derived data: they are rebuilt
//! from the list on the rare removal, so they cannot drift from it, and two
//! lists with equal wagers compare equal.
//!
//! A wager is found by its id with a binary search of the list: ids are
//! handed out in increasing order, so the list is sorted by id. (A map from
//! id to place, grown afresh each coup, cost the single writer its rehashes
//! and the fresh pages they touched: a fifth of its time under `loadgen`.)
//! Should a list ever arrive out of order, lookups scan it instead.
//!
//! The list is shared, copy on write. Every command but a wager command runs
//! on a copy of the table (so a refused one leaves nothing half done), and a
//! checkpoint copies every table: copying a coup of 24,000 wagers cost the
//! single writer 20–56 ms per card dealt, during which no table was served
//! (`loadgen`, 16 tables). Now a copy shares the list, and only the first
//! change after a copy pays for one.

use std::collections::HashMap;
use std::ops::Deref;
use std::sync::Arc;

use baccarat_rules::{Bet, Money};

use super::{PlayerId, Spot, Wager, WagerId};

/// Serialised as its list alone, each wager a row of its fields in order
/// (see the `Serialize` impl); the indexes are rebuilt when it is read.
#[derive(Clone, Debug, Default, serde::Deserialize)]
#[serde(from = "Vec<Wager>")]
pub struct CoupWagers {
    inner: Arc<Indexed>,
}

/// The list and its indexes.
#[derive(Clone, Debug, Default)]
struct Indexed {
    list: Vec<Wager>,
    /// Whether the list is in increasing order of id (so binary search finds).
    unsorted: bool,
    by_player: HashMap<PlayerId, Vec<usize>>,
    box_players: HashMap<u8, Vec<PlayerId>>,
    area: HashMap<(Spot, Bet), Money>,
    /// Each player's total and count of wagers on each bet.
    mine: HashMap<(PlayerId, Bet), (Money, u32)>,
    /// Every player's wagers on each bet together (a table-wide maximum, EU 6.1.3).
    on_bet: HashMap<Bet, Money>,
}

impl PartialEq for CoupWagers {
    fn eq(&self, o: &CoupWagers) -> bool {
        self.inner.list == o.inner.list
    }
}

impl Eq for CoupWagers {}

impl Deref for CoupWagers {
    type Target = [Wager];
    fn deref(&self) -> &[Wager] {
        &self.inner.list
    }
}

impl From<Vec<Wager>> for CoupWagers {
    fn from(list: Vec<Wager>) -> CoupWagers {
        let mut w = Indexed::default();
        for x in list {
            w.push(x);
        }
        CoupWagers { inner: Arc::new(w) }
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
            self.inner
                .list
                .iter()
                .map(|w| (w.id, w.player, w.spot, w.bet, w.amount, w.ante, w.needs_approval, w.token, w.at_ms)),
        )
    }
}

impl From<CoupWagers> for Vec<Wager> {
    fn from(w: CoupWagers) -> Vec<Wager> {
        Arc::try_unwrap(w.inner).map_or_else(|shared| shared.list.clone(), |i| i.list)
    }
}

impl CoupWagers {
    /// The list to change: copied first if a copy of the table shares it.
    fn changed(&mut self) -> &mut Indexed {
        Arc::make_mut(&mut self.inner)
    }

    pub fn push(&mut self, w: Wager) {
        self.changed().push(w);
    }

    /// Take a wager off the coup (withdrawn or returned).
    pub fn remove(&mut self, id: WagerId) {
        if self.inner.at(id).is_some() {
            self.changed().remove(id);
        }
    }

    /// Where a wager stands in placement order.
    pub fn position(&self, id: WagerId) -> Option<usize> {
        self.inner.at(id)
    }

    pub fn get(&self, id: WagerId) -> Option<&Wager> {
        self.inner.at(id).map(|i| &self.inner.list[i])
    }

    pub fn approve(&mut self, id: WagerId) {
        if self.inner.at(id).is_some() {
            self.changed().approve(id);
        }
    }

    /// A wager reduced (NSW 6.2; AU 5.18).
    pub fn reduce(&mut self, id: WagerId, to: Money) {
        if self.inner.at(id).is_some() {
            self.changed().reduce(id, to);
        }
    }

    pub fn clear(&mut self) {
        *self = CoupWagers::default();
    }

    /// One player's wagers, in the order placed.
    pub fn of(&self, player: PlayerId) -> impl Iterator<Item = &Wager> {
        let i = &*self.inner;
        i.by_player.get(&player).into_iter().flatten().map(|&n| &i.list[n])
    }

    /// A player's total on one bet this coup.
    pub fn total_of(&self, player: PlayerId, bet: Bet) -> Money {
        self.inner.mine.get(&(player, bet)).map_or(Money::ZERO, |m| m.0)
    }

    /// Every player's total on one bet this coup.
    pub fn total_on(&self, bet: Bet) -> Money {
        self.inner.on_bet.get(&bet).copied().unwrap_or(Money::ZERO)
    }

    /// Whether a player has a wager on one of `bets` this coup.
    pub fn has(&self, player: PlayerId, bets: &[Bet]) -> bool {
        bets.iter().any(|&b| self.inner.mine.get(&(player, b)).is_some_and(|m| m.1 > 0))
    }

    /// The players with a wager in a box.
    pub fn box_players(&self, b: u8) -> &[PlayerId] {
        self.inner.box_players.get(&b).map_or(&[], Vec::as_slice)
    }

    /// All wagers on one bet in one spot.
    pub fn area(&self, spot: Spot, bet: Bet) -> Money {
        self.inner.area.get(&(spot, bet)).copied().unwrap_or(Money::ZERO)
    }
}

impl Indexed {
    fn push(&mut self, w: Wager) {
        let i = self.list.len();
        if self.list.last().is_some_and(|l| l.id >= w.id) {
            self.unsorted = true;
        }
        self.index(i, &w);
        self.list.push(w);
    }

    /// Where wager `id` stands in the list.
    fn at(&self, id: WagerId) -> Option<usize> {
        if self.unsorted {
            return self.list.iter().position(|w| w.id == id);
        }
        self.list.binary_search_by_key(&id, |w| w.id).ok()
    }

    fn index(&mut self, i: usize, w: &Wager) {
        self.by_player.entry(w.player).or_default().push(i);
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

    fn rebuild(&mut self) {
        self.unsorted = !self.list.windows(2).all(|p| p[0].id < p[1].id);
        self.by_player.clear();
        self.box_players.clear();
        self.area.clear();
        self.mine.clear();
        self.on_bet.clear();
        let list = std::mem::take(&mut self.list);
        for (i, w) in list.iter().enumerate() {
            self.index(i, w);
        }
        self.list = list;
    }

    fn remove(&mut self, id: WagerId) {
        self.list.retain(|w| w.id != id);
        self.rebuild();
    }

    fn approve(&mut self, id: WagerId) {
        if let Some(i) = self.at(id) {
            self.list[i].needs_approval = false;
        }
    }

    fn reduce(&mut self, id: WagerId, to: Money) {
        if let Some(i) = self.at(id) {
            let w = &mut self.list[i];
            let (key, mine) = ((w.spot, w.bet), (w.player, w.bet));
            let from = std::mem::replace(&mut w.amount, to);
            if let Some(a) = self.area.get_mut(&key) {
                *a = *a - from + to;
            }
            if let Some(m) = self.mine.get_mut(&mine) {
                m.0 = m.0 - from + to;
            }
            if let Some(b) = self.on_bet.get_mut(&mine.1) {
                *b = *b - from + to;
            }
        }
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
        assert_eq!(back.of(PlayerId(8)).count(), 1, "indexes rebuilt");
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
        assert!(Arc::ptr_eq(&a.inner, &b.inner), "the copy shares the list");
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
                let scan: Vec<WagerId> = w.iter().filter(|x| x.player == p).map(|x| x.id).collect();
                let idx: Vec<WagerId> = w.of(p).map(|x| x.id).collect();
                prop_assert_eq!(idx, scan);
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
