//! Simulation: whole shoes through the real procedures, every offered wager
//! settled at a flat stake.
//!
//! # What one shoe is
//!
//! Shoe `i` of a run with master seed `S` is shuffled by the table's
//! `fisher-yates-chacha20-v1` from the ChaCha20 stream of `S` with nonce `i`; the same stream then gives a uniform cut
//! within the profile's bounds (NSW 4.5; AU 7.6), the cutting card goes
//! `cutting_card_from_back` cards from the back (NSW 4.6), the profile's burn is
//! made (NSW 4.7; AU 7.7; EU 3.1 — three no-bet coups for EU 3.1.2), and coups
//! are dealt until the cutting card ends the shoe: when it comes out during a coup,
//! one more coup follows (NSW 4.9; AU 11.2(b)); when it comes out as a coup's first
//! card, that coup is the last (NSW 4.10; AU 11.2(a)). A coup that runs out of
//! cards is void (NSW 12.6) and ends the shoe.
//!
//! Because shoe `i`'s cards depend only on `S` and `i`, and shoes are summed with
//! integers, the results are identical whatever the thread count.
//!
//! # The fast path
//!
//! Each coup is reduced to two keys: its [`CoupSummary`] index (400) and a pair
//! key (each hand's pair class, a Lucky Triple Match, and whether both pairs share
//! a rank: 50). For every offered wager, the net return of each key is computed
//! once from the rules crate's classifiers and the wager's pay table, scaled to an
//! integer (a common denominator of 20 covers every pay line in the profiles).
//! A coup then costs its deal and two row additions. The tests check, coup for
//! coup, that this equals dealing with `Coup::from_cards` and settling each wager
//! with `settle_wager`.
//!
//! # Confidence intervals
//!
//! Coups of one shoe are not independent, so the 95% interval is computed from
//! per-shoe totals (a ratio estimator over shoes), not per coup.

use std::sync::atomic::{AtomicU64, Ordering};

use baccarat_rules::{
    banker_draws, player_action, BurnProcedure, Card, CoupSummary, PayTable, Pays, PlayerAction, Rank, Side, Suit,
};
use baccarat_table::CutRules;
use baccarat_table::{shuffle_with, Seed, Stream};

/// The common denominator of the built-in profiles' pay lines (`19:20`, `1:2`,
/// `a:1`); a table's own is computed from its lines ([`Rows::scale`]).
pub const SCALE: i64 = 20;

/// The largest common denominator the simulator takes: a shoe's scaled sums
/// stay within `i32` (under 100 coups of at most 500:1 each).
pub const MAX_SCALE: i64 = 40_000;

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Number of pair keys (see [`pair_key`]).
pub const PAIR_KEYS: usize = 50;

/// A wager as simulated: its pay table.
#[derive(Clone, Debug)]
pub struct SimWager {
    pub table: PayTable,
}

impl SimWager {
    /// Every wager and pay table rulebook `rb` permits at `decks` decks, in
    /// the rulebook's order.
    pub fn every(rb: &baccarat_rules::Rulebook, decks: u32) -> Vec<SimWager> {
        rb.bets
            .iter()
            .filter(|b| b.allows_decks(decks))
            .flat_map(|b| b.pay_tables.iter().map(|t| SimWager { table: t.clone() }))
            .collect()
    }
}

/// How shoes are dealt.
#[derive(Clone, Debug)]
pub struct Procedure {
    pub decks: u32,
    pub cut: CutRules,
    pub cutting_card_from_back: usize,
    pub burn: Option<BurnProcedure>,
}

/// Integer net returns (× [`SCALE`]) of each wager, by summary index and pair key.
pub struct Rows {
    pub wagers: usize,
    /// The common denominator of every pay line's net return: the unit the
    /// integer sums count in (20 for 19:20 and 1:2; 100 with a 24:25 line).
    pub scale: i64,
    /// Distinct rows of the summary wagers, and each summary index's row: many
    /// results settle every offered wager alike, and a shoe touches fewer rows.
    summary: Vec<i32>,
    summary_row: Vec<u16>,
    pairs: Vec<i32>,
}

fn net_scaled(p: Pays, scale: i64) -> i32 {
    let (a, b) = p.net_return();
    assert_eq!(scale % b, 0, "pay line {p} does not divide the scale {scale}");
    (a * (scale / b)) as i32
}

/// Representative initial cards of a hand's pair class (0 none, 1 mixed, 2
/// coloured, 3 identical, 4 identical with an identical third card).
fn hand_rep(class: usize, rank: Rank) -> Vec<Card> {
    let c = |s| Card::new(rank, s);
    let two = |r2: Rank| Card::new(r2, Suit::Hearts);
    match class {
        0 => vec![c(Suit::Hearts), two(if rank == Rank::King { Rank::Queen } else { Rank::King })],
        1 => vec![c(Suit::Hearts), c(Suit::Spades)],
        2 => vec![c(Suit::Hearts), c(Suit::Diamonds)],
        3 => vec![c(Suit::Hearts), c(Suit::Hearts)],
        _ => vec![c(Suit::Hearts), c(Suit::Hearts), c(Suit::Hearts)],
    }
}

impl Rows {
    /// Build the rows for `wagers` from the rules' classifiers, counting in
    /// the common denominator of their pay lines; refused if that exceeds
    /// [`MAX_SCALE`] (a fixed scale would silently skew a line it does not divide).
    pub fn new(wagers: &[SimWager]) -> Result<Rows, String> {
        let mut scale = 1i64;
        for wg in wagers {
            for (_, p) in &wg.table.lines {
                let b = p.net_return().1;
                scale = scale / gcd(scale, b) * b;
                if scale > MAX_SCALE {
                    return Err(format!(
                        "{} {}: pay line {p} needs a common denominator above {MAX_SCALE}, which the simulator cannot count in",
                        wg.table.bet, wg.table.name
                    ));
                }
            }
        }
        let w = wagers.len();
        let mut summary = vec![0i32; CoupSummary::COUNT * w];
        let mut pairs = vec![0i32; PAIR_KEYS * w];
        for (j, wg) in wagers.iter().enumerate() {
            let bet = wg.table.bet;
            match bet.basis() {
                baccarat_rules::Basis::Summary => {
                    for i in 0..CoupSummary::COUNT {
                        summary[i * w + j] =
                            net_scaled(wg.table.pays(bet.classify_summary(&CoupSummary::from_index(i))), scale);
                    }
                }
                _ => {
                    for key in 0..PAIR_KEYS {
                        let (pc, bc, twin) = (key / 10, (key / 2) % 5, key % 2 == 1);
                        let player = hand_rep(pc, Rank::Ace);
                        let banker = hand_rep(bc, if twin { Rank::Ace } else { Rank::Two });
                        let hand = |s: Side| if s == Side::Player { &player } else { &banker };
                        let o = match bet.basis() {
                            baccarat_rules::Basis::Initial(s) => bet.classify_initial([hand(s)[0], hand(s)[1]]),
                            baccarat_rules::Basis::HandCards(s) => bet.classify_hand_cards(hand(s)),
                            _ => bet.classify_both_initial([player[0], player[1]], [banker[0], banker[1]]),
                        };
                        pairs[key * w + j] = net_scaled(wg.table.pays(o), scale);
                    }
                }
            }
        }
        let mut distinct: Vec<&[i32]> = Vec::new();
        let mut summary_row = Vec::with_capacity(CoupSummary::COUNT);
        for i in 0..CoupSummary::COUNT {
            let row = &summary[i * w..i * w + w];
            let id = distinct.iter().position(|r| *r == row).unwrap_or_else(|| {
                distinct.push(row);
                distinct.len() - 1
            });
            summary_row.push(id as u16);
        }
        let compact: Vec<i32> = distinct.concat();
        Ok(Rows { wagers: w, scale, summary: compact, summary_row, pairs })
    }
}

impl Rows {
    /// The scaled net return of wager `j` for a coup.
    #[inline]
    pub fn net(&self, k: CoupKeys, j: usize) -> i64 {
        let row = self.summary_row[k.summary] as usize;
        (self.summary[row * self.wagers + j] + self.pairs[k.pairs * self.wagers + j]) as i64
    }

    /// The part of wager `j`'s scaled net return that comes from the coup's
    /// summary index (zero for a wager settled on the pairs), and the part from
    /// its pair key (zero for a summary wager): [`Rows::net`] is their sum.
    pub fn parts(&self, j: usize) -> (Vec<i32>, Vec<i32>) {
        let summary =
            (0..CoupSummary::COUNT).map(|i| self.summary[self.summary_row[i] as usize * self.wagers + j]).collect();
        let pairs = (0..PAIR_KEYS).map(|p| self.pairs[p * self.wagers + j]).collect();
        (summary, pairs)
    }
}

/// A hand's pair class from its cards (0 none … 4 Lucky Triple Match).
fn hand_class(a: u8, b: u8, third: Option<u8>) -> usize {
    if a / 4 != b / 4 {
        0
    } else if a == b {
        if third == Some(a) {
            4
        } else {
            3
        }
    } else if SUIT_RED[(a % 4) as usize] == SUIT_RED[(b % 4) as usize] {
        2
    } else {
        1
    }
}

/// Red suits in [`Suit::ALL`] order (clubs, diamonds, hearts, spades).
const SUIT_RED: [bool; 4] = [false, true, true, false];

/// The pair key of a coup: player class × 10 + banker class × 2 + twin.
pub fn pair_key(p: (u8, u8, Option<u8>), b: (u8, u8, Option<u8>)) -> usize {
    let pc = hand_class(p.0, p.1, p.2);
    let bc = hand_class(b.0, b.1, b.2);
    let twin = pc > 0 && bc > 0 && p.0 / 4 == b.0 / 4;
    pc * 10 + bc * 2 + usize::from(twin)
}

/// One coup as the fast path sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CoupKeys {
    pub summary: usize,
    pub pairs: usize,
    /// Cards used.
    pub used: usize,
}

/// The tableau and card facts, read once from the rules crate into lookup tables
/// so that a coup is dealt without unpredictable branches.
///
/// Every table is indexed by values masked to its size (a card index `& 63`,
/// a total `& 15`), so that the dealing loop carries no bounds checks: a
/// card index is below 52 and a total below 10, so the masks change nothing.
struct Tableau {
    /// `player_action(pt, bt)` at `pt << 4 | bt`: 0 natural, 1 stand, 2 draw.
    player: [u8; 256],
    /// `banker_draws(bt, third)` at `bt << 4 | column`, column 0 = no third
    /// card, `1 + point` otherwise.
    banker: [bool; 256],
    /// A card's point, by card index.
    point: [u8; 64],
    /// Two initial cards at `a << 6 | b`: their total (low four bits) and
    /// their pair class (0 none, 1 mixed, 2 coloured, 3 identical) above it.
    two: [u8; 64 * 64],
}

/// A card index as the tables take it.
#[inline(always)]
fn ix(c: u8) -> usize {
    (c & 63) as usize
}

/// `(a + b) % 10` for `a + b < 20`.
#[inline(always)]
fn mod10(x: u8) -> u8 {
    x - 10 * u8::from(x >= 10)
}

impl Tableau {
    fn new() -> Tableau {
        let mut t = Tableau { player: [0; 256], banker: [false; 256], point: [0; 64], two: [0; 64 * 64] };
        for pt in 0..10u8 {
            for bt in 0..10u8 {
                t.player[(pt << 4 | bt) as usize] = match player_action(pt, bt) {
                    PlayerAction::Natural => 0,
                    PlayerAction::Stand => 1,
                    PlayerAction::Draw => 2,
                };
            }
            t.banker[(pt << 4) as usize] = banker_draws(pt, None);
            for p in 0..10u8 {
                t.banker[(pt << 4 | (1 + p)) as usize] = banker_draws(pt, Some(p));
            }
        }
        for i in 0..52 {
            t.point[i] = Card::from_index(i).expect("<52").point();
        }
        for i in 0..52u8 {
            for j in 0..52u8 {
                let total = (t.point[ix(i)] + t.point[ix(j)]) % 10;
                t.two[ix(i) << 6 | ix(j)] = total | (hand_class(i, j, None) as u8) << 4;
            }
        }
        t
    }

    /// Deal one coup from `c` (card indices; six readable, the ones past
    /// `avail` being padding). `None` if the coup needs more than `avail` cards.
    #[inline(always)]
    fn coup(&self, c: &[u8; 6], avail: usize) -> Option<CoupKeys> {
        let p2 = self.two[ix(c[0]) << 6 | ix(c[2])];
        let b2 = self.two[ix(c[1]) << 6 | ix(c[3])];
        let (pt, bt) = (p2 & 15, b2 & 15);
        let action = self.player[((pt << 4) | bt) as usize];
        let p_draws = action == 2;
        let x4 = self.point[ix(c[4])];
        let col = if p_draws { 1 + x4 } else { 0 };
        let b_draws = action != 0 && self.banker[((bt << 4) | col) as usize];
        let b_card = if p_draws { c[5] } else { c[4] };
        let fp = mod10(pt + u8::from(p_draws) * x4);
        let fb = mod10(bt + u8::from(b_draws) * self.point[ix(b_card)]);
        let used = 4 + p_draws as usize + b_draws as usize;
        if used > avail {
            return None;
        }
        let summary = CoupSummary {
            player_total: fp,
            banker_total: fb,
            player_cards: 2 + p_draws as u8,
            banker_cards: 2 + b_draws as u8,
        }
        .index();
        // Pair classes; class 3 becomes 4 (Lucky Triple Match) with an identical third card.
        let (pc, bc) = ((p2 >> 4) as usize, (b2 >> 4) as usize);
        let pc = pc + (pc == 3 && p_draws && c[4] == c[0]) as usize;
        let bc = bc + (bc == 3 && b_draws && b_card == c[1]) as usize;
        let twin = pc > 0 && bc > 0 && c[0] / 4 == c[1] / 4;
        Some(CoupKeys { summary, pairs: pc * 10 + bc * 2 + twin as usize, used })
    }
}

impl Procedure {
    /// The procedure a rulebook's table uses: its first listed burn, its cut
    /// bounds, and the cutting card `cutting_card_from_back` from the back.
    pub fn for_rulebook(rb: &baccarat_rules::Rulebook, decks: u32, cutting_card_from_back: usize) -> Procedure {
        Procedure {
            decks,
            cut: CutRules::from_profile(&rb.config),
            cutting_card_from_back,
            burn: rb.procedures.burn.first().copied(),
        }
    }
}

/// What a watcher at the table sees of a shoe, in dealing order ([`watch_shoe`]).
#[derive(Clone, Copy, Debug)]
pub enum Seen<'a> {
    /// The burn before the first coup: the card turned face up, if any (NSW
    /// 4.7.2-4.7.3; AU 7.7; EU 3.1.1), and how many more went out face down.
    Burn { shown: Option<u8>, hidden: usize },
    /// A coup: its keys, its cards (card indices, `keys.used` of them), and
    /// whether it carries wagers (not an EU 3.1.2 no-bet coup).
    Coup { keys: CoupKeys, cards: &'a [u8], bets: bool },
}

/// Play shoe `index` of master seed `master` by `proc`, calling `on_coup` for
/// every coup that carries wagers (not burns or no-bet coups).
pub fn play_shoe(proc: &Procedure, master: &Seed, index: u64, on_coup: impl FnMut(CoupKeys)) {
    deal_shoe(proc, master, index, &mut Wagered(on_coup));
}

/// Play shoe `index` as [`play_shoe`] does (the same cards), telling `on_seen`
/// everything a player at the table sees: the burn and each coup's cards. A
/// counting strategy is played from this (`count.rs`).
pub fn watch_shoe(proc: &Procedure, master: &Seed, index: u64, on_seen: impl FnMut(Seen<'_>)) {
    deal_shoe(proc, master, index, &mut Watched(on_seen));
}

/// Who is told of a shoe's burn and coups as they are dealt.
///
/// A trait rather than one closure taking [`Seen`]: the simulator's own
/// hand-off ([`Wagered`]) then builds no `Seen` per coup and inlines into
/// the dealing loop (issue 50 part 6: building it and calling the closure
/// took about a third of a shoe's time).
trait Dealt {
    fn burn(&mut self, shown: Option<u8>, hidden: usize);
    fn coup(&mut self, keys: CoupKeys, cards: &[u8], bets: bool);
}

/// The coups that carry wagers, by their keys ([`play_shoe`]).
struct Wagered<F>(F);

impl<F: FnMut(CoupKeys)> Dealt for Wagered<F> {
    #[inline(always)]
    fn burn(&mut self, _: Option<u8>, _: usize) {}

    #[inline(always)]
    fn coup(&mut self, keys: CoupKeys, _: &[u8], bets: bool) {
        if bets {
            (self.0)(keys)
        }
    }
}

/// Everything a watcher sees, as [`Seen`] ([`watch_shoe`]).
struct Watched<F>(F);

impl<F: FnMut(Seen<'_>)> Dealt for Watched<F> {
    fn burn(&mut self, shown: Option<u8>, hidden: usize) {
        (self.0)(Seen::Burn { shown, hidden })
    }

    fn coup(&mut self, keys: CoupKeys, cards: &[u8], bets: bool) {
        (self.0)(Seen::Coup { keys, cards, bets })
    }
}

/// Card indices deck after deck: a shoe's cards before its shuffle.
static ORDERED: [u8; 52 * baccarat_rules::MAX_DECKS as usize] = {
    let mut a = [0u8; 52 * baccarat_rules::MAX_DECKS as usize];
    let mut i = 0;
    while i < a.len() {
        a[i] = (i % 52) as u8;
        i += 1;
    }
    a
};

fn deal_shoe(proc: &Procedure, master: &Seed, index: u64, to: &mut impl Dealt) {
    thread_local! {
        static TABLEAU: Tableau = Tableau::new();
    }
    TABLEAU.with(|t| play_shoe_with(t, proc, Stream::with_nonce(master, index), to));
}

#[inline(always)]
fn play_shoe_with(t: &Tableau, proc: &Procedure, mut s: Stream, to: &mut impl Dealt) {
    let n = 52 * proc.decks as usize;
    // Six cards of padding so that a coup can always read six; `avail` decides.
    let mut buf = [0u8; 52 * baccarat_rules::MAX_DECKS as usize + 6];
    let cards = &mut buf[..n];
    cards.copy_from_slice(&ORDERED[..n]);
    shuffle_with(cards, &mut s);
    let cut = proc.cut.random(&mut s, n, proc.cutting_card_from_back);
    cards.rotate_left(cut.at);
    let cutting = n - cut.from_back;
    let mut pos = 0usize;
    let mut no_bet = 0;
    match proc.burn {
        Some(BurnProcedure::BurnOne) => {
            pos = 1;
            to.burn(None, 1);
        }
        Some(BurnProcedure::BurnOneShown) => {
            pos = 1;
            to.burn(Some(buf[0]), 0);
        }
        Some(BurnProcedure::TurnAndBurn) => {
            let hidden = Card::from_index(buf[0] as usize).expect("<52").rank.burn_count() as usize;
            pos = 1 + hidden;
            to.burn(Some(buf[0]), hidden);
        }
        Some(BurnProcedure::ThreeNoBetCoups) => no_bet = 3,
        None => {}
    }
    // Coups left once the cutting card has come out (None: not yet).
    let mut left: Option<u32> = None;
    loop {
        if left == Some(0) {
            return;
        }
        let first_is_cut = left.is_none() && pos == cutting;
        let six: &[u8; 6] = buf[pos..pos + 6].try_into().expect("six cards of padding");
        let Some(k) = t.coup(six, n - pos) else {
            return; // NSW 12.6: too few cards; the coup is void
        };
        if left.is_none() {
            if first_is_cut {
                left = Some(1); // NSW 4.10: this coup is the last
            } else if pos < cutting && cutting < pos + k.used {
                left = Some(2); // NSW 4.9: complete it, then one more
            }
        }
        to.coup(k, &buf[pos..pos + k.used], no_bet == 0);
        pos += k.used;
        no_bet -= (no_bet > 0) as u32;
        if let Some(l) = left.as_mut() {
            *l -= 1;
        }
    }
}

/// Totals of a run (or part of one): integers, so parts add up exactly.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Totals {
    pub shoes: u64,
    pub coups: u64,
    /// Σ coups per shoe squared.
    pub coups_sq: u128,
    /// Per wager: Σ scaled net, Σ (shoe sum)², Σ shoe sum × shoe coups.
    pub sum: Vec<i64>,
    pub sum_sq: Vec<i128>,
    pub sum_n: Vec<i128>,
    /// The unit of the sums ([`Rows::scale`]).
    pub scale: i64,
}

impl Totals {
    fn new(w: usize, scale: i64) -> Totals {
        Totals { sum: vec![0; w], sum_sq: vec![0; w], sum_n: vec![0; w], scale, ..Default::default() }
    }

    fn add(&mut self, o: &Totals) {
        self.shoes += o.shoes;
        self.coups += o.coups;
        self.coups_sq += o.coups_sq;
        for j in 0..self.sum.len() {
            self.sum[j] += o.sum[j];
            self.sum_sq[j] += o.sum_sq[j];
            self.sum_n[j] += o.sum_n[j];
        }
    }
}

/// Play shoes `range` of master seed `master`, summing into totals.
pub fn run_shoes(
    proc: &Procedure,
    rows: &Rows,
    master: &Seed,
    range: std::ops::Range<u64>,
    done: &AtomicU64,
) -> Totals {
    let w = rows.wagers;
    let mut t = Totals::new(w, rows.scale);
    // A shoe's sums fit i32: under 100 coups at most 10,000 (500:1 × 20) each.
    let mut shoe = vec![0i32; w];
    // Coups are counted by key during the shoe and settled by key at its end:
    // a shoe touches few keys, so this is fewer additions than a row per coup.
    let mut by_summary = [0u16; CoupSummary::COUNT];
    let mut by_pairs = [0u16; PAIR_KEYS];
    let mut touched = [0u16; CoupSummary::COUNT + 1];
    let mut touched_pairs = [0u8; PAIR_KEYS + 1];
    for i in range {
        shoe.iter_mut().for_each(|x| *x = 0);
        let mut coups = 0u64;
        let (mut n_touched, mut n_pairs) = (0usize, 0usize);
        play_shoe(proc, master, i, |k| {
            coups += 1;
            // Branch-free: note the key, keep it only if it is new.
            let row = rows.summary_row[k.summary];
            touched[n_touched] = row;
            n_touched += (by_summary[row as usize] == 0) as usize;
            by_summary[row as usize] += 1;
            touched_pairs[n_pairs] = k.pairs as u8;
            n_pairs += (by_pairs[k.pairs] == 0) as usize;
            by_pairs[k.pairs] += 1;
        });
        for &key in &touched[..n_touched] {
            let n = std::mem::take(&mut by_summary[key as usize]) as i32;
            let row = &rows.summary[key as usize * w..key as usize * w + w];
            shoe.iter_mut().zip(row).for_each(|(s, x)| *s += n * x);
        }
        for &key in &touched_pairs[..n_pairs] {
            let n = std::mem::take(&mut by_pairs[key as usize]) as i32;
            let row = &rows.pairs[key as usize * w..key as usize * w + w];
            shoe.iter_mut().zip(row).for_each(|(s, x)| *s += n * x);
        }
        t.shoes += 1;
        t.coups += coups;
        t.coups_sq += (coups as u128) * (coups as u128);
        for j in 0..w {
            // |x| < 2^31 and coups < 2^16: the products fit i64.
            let x = shoe[j] as i64;
            t.sum[j] += x;
            t.sum_sq[j] += (x * x) as i128;
            t.sum_n[j] += (x * coups as i64) as i128;
        }
        done.fetch_add(1, Ordering::Relaxed);
    }
    t
}

/// Run `shoes` shoes on `threads` threads. The result does not depend on
/// `threads`.
pub fn run(proc: &Procedure, rows: &Rows, master: &Seed, shoes: u64, threads: usize, done: &AtomicU64) -> Totals {
    let threads = threads.clamp(1, 256) as u64;
    let mut total = Totals::new(rows.wagers, rows.scale);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|k| {
                let range = shoes * k / threads..shoes * (k + 1) / threads;
                scope.spawn(move || run_shoes(proc, rows, master, range, done))
            })
            .collect();
        for h in handles {
            total.add(&h.join().expect("simulation thread"));
        }
    });
    total
}

/// Mean net return per coup of wager `j`, and its 95% confidence interval.
pub fn estimate(t: &Totals, j: usize) -> (f64, f64, f64) {
    if t.coups == 0 {
        return (0.0, 0.0, 0.0);
    }
    let scale = t.scale as f64;
    let n = t.shoes as f64;
    let r = t.sum[j] as f64 / t.coups as f64; // scaled units per coup
    let nbar = t.coups as f64 / n;
    let ss = t.sum_sq[j] as f64 - 2.0 * r * t.sum_n[j] as f64 + r * r * t.coups_sq as f64;
    let var = if n > 1.0 { (ss / (n - 1.0)).max(0.0) / (n * nbar * nbar) } else { f64::INFINITY };
    let half = 1.959964 * var.sqrt();
    (r / scale, (r - half) / scale, (r + half) / scale)
}
