//! The live exposure monitor (issue 50, part 3): the exact EV of every
//! offered wager at a table from what the table has *shown* of its shoe.
//!
//! # Design
//!
//! **What is known.** [`ShownCards`] is a fold of the table's events: the
//! shoe's starting composition (its decks) less every card shown this shoe:
//! cards dealt face up, a hand's cards when it is exposed (NSW 8.15, 8.24;
//! AU 8.14) and every card of a completed coup (its result is called from
//! them), a burned card turned face up (NSW 4.7.3; AU 7.7(a); EU 3.1.1) or
//! shown on request (NSW 4.7.2; AU 7.7(b)), and a card an irregularity turns
//! face up (NSW 12.3; AU 12.1(b), 12.2(b), 12.3). An RNG table knows its whole
//! stack; the monitor never reads it, since a counter at the table cannot.
//!
//! **Unseen burns stay unknown.** A card burned face down (NSW 4.7.1, 4.7.3.1;
//! AU 7.7(b); EU 3.1.1's cards "face down"), a card dealt face down to a void
//! coup, and a card carried face down to the next coup are left in the
//! unknown pool with the undealt cards. This is exact, not an approximation:
//! given what was shown, the unseen cards are a uniformly random ordering of
//! the unseen composition (the shuffle is exchangeable), so the next coup's
//! six cards have the law of six cards drawn from that composition whichever
//! of the unseen cards went to the discard rack. `baccarat-math`'s `eor.rs`
//! states the same fact (`Σ n_c · EoR(c) = 0`). The resort-house rulebook is
//! silent on burning; the engine burns only by the procedures a rulebook
//! provides, so a resort table shows nothing at the start of a shoe.
//!
//! **A continuous shuffler** (AU 7.2) takes each coup's cards back: what was
//! shown is forgotten when the coup closes, and the pool is the full decks
//! less the coup in progress.
//!
//! **Pricing.** Only the offered (bet, pay table) pairs are priced: one count
//! of the pool's classes ([`ShoeOdds`], the costly step), then one
//! distribution per offered bet and its price under the offer's pay table —
//! the same figures as [`baccarat_math::report`] (a test compares them). The
//! EV is the exact [`Ratio`]; the `f64` beside it is for display only.
//!
//! **Exposure at the current limits** is the offer's largest stake (its
//! maximum as a supervisor may have altered it, NSW 6.7, or for a main
//! wager a player's higher personal maximum, NSW 6.8: [`largest_stake`])
//! times the EV: the player's
//! expected gain on a maximum wager, kept as an exact [`Ratio`] of minor
//! units for any money path, and rounded once to whole minor units *toward the
//! house* (down: a player's expected gain is never overstated in the house's
//! books, and the house's expected win is rounded up to whole units it is
//! owed) for display. The alert does not use the rounded figure: it compares
//! the exact EV with the table's threshold.
//!
//! **Cost** (`benches/exposure.rs`, release, one core of this 2-core machine,
//! 8 decks mid-shoe): about 20 µs per table per card shown (19.6 µs for the
//! three main wagers, 21.0 µs with five NSW side bets, 21.5 µs for AU with
//! Dragon Bonus and Lucky Match). Some 16-17 µs of it is the one class count
//! of the pool ([`ShoeOdds::counted`]); each offer's distribution and price
//! is 0.13-0.27 µs. [`ShownCards::observe`] says whether an event changed
//! what is known, so a card dealt face down costs no repricing.

use baccarat_math::{price, BetOdds, Ratio, Shoe, ShoeOdds, MIN_CARDS};
use baccarat_rules::{Basis, Bet, Card, Money, Offer, Side};
use baccarat_table::{Event, IrregularityKind, Position, Table};
use serde::{Deserialize, Serialize};

/// The cards a table has shown this shoe, as a fold of its events. It does
/// not hold the shoe's size (no event carries it): [`ShownCards::unseen`]
/// takes the table's decks. The coup feed keeps one per table, so that a
/// checkpoint carries it and a restart replays the tail into it
/// (`coup_feed.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShownCards {
    /// Shown this shoe, by card index (rank-major, suit-minor).
    #[serde(with = "counts")]
    shown: [u32; 52],
    /// A continuous shuffler's table (AU 7.2): each coup's cards go back.
    continuous: bool,
    /// The coup in progress, in dealing order.
    coup: Vec<Dealt>,
    /// A card carried to the next coup (NSW 12.2; AU 12.2(a)), and whether it
    /// was shown already.
    carried: Option<(Card, bool)>,
    /// The event folded before was a scanner discrepancy (NSW 12.13): a
    /// reconstruction now is the actual cards confirmed, not a misdeal laid
    /// out again. Cleared by the next event folded; the engine follows the
    /// discrepancy with the reconstruction or the void in the same command,
    /// so a checkpoint does not hold it set (and one that did would keep it).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    scanner: bool,
}

/// A card of the coup in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Dealt {
    card: Card,
    /// Dealt to the Player's hand (else the Banker's).
    player: bool,
    /// Whether it has been shown (counted in `shown`).
    shown: bool,
}

/// `[u32; 52]` as a list (serde's arrays stop at 32).
mod counts {
    use serde::{de::Error, Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(c: &[u32; 52], s: S) -> Result<S::Ok, S::Error> {
        c.as_slice().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u32; 52], D::Error> {
        let v = Vec::<u32>::deserialize(d)?;
        let n = v.len();
        v.try_into().map_err(|_| D::Error::custom(format!("52 counts, one per card, not {n}")))
    }
}

impl Default for ShownCards {
    /// Nothing shown.
    fn default() -> Self {
        ShownCards { shown: [0; 52], continuous: false, coup: Vec::new(), carried: None, scanner: false }
    }
}

impl ShownCards {
    /// The fold of `events`.
    pub fn replay<'a>(events: impl IntoIterator<Item = &'a Event>) -> ShownCards {
        let mut s = ShownCards::default();
        for e in events {
            s.observe(e);
        }
        s
    }

    /// Fold one event in; whether it changed what is known (a new shoe, a
    /// card shown, a continuous shuffler's cards going back): the EVs need
    /// pricing again only then, not for a card dealt face down.
    pub fn observe(&mut self, e: &Event) -> bool {
        let before = self.shown;
        self.fold(e);
        self.shown != before || matches!(e, Event::ShoeStarted { .. })
    }

    fn fold(&mut self, e: &Event) {
        let scanner = std::mem::take(&mut self.scanner);
        match e {
            Event::ShoeStarted { continuous, .. } => {
                *self = ShownCards { continuous: *continuous, ..ShownCards::default() };
            }
            // Only a burned card turned face up or shown is known (NSW 4.7).
            Event::Burned { shown: Some(c), .. } => self.show(*c),
            Event::CardDealt { position, card, face_up } => self.dealt(*position, *card, *face_up),
            Event::HandExposed { side, .. } => self.expose(|player| player == (*side == Side::Player)),
            // The result is called from every card of the coup, face up.
            Event::CoupCompleted { .. } => self.expose(|_| true),
            Event::Irregularity { kind, card: Some(c), .. } => self.irregular(*kind, *c),
            Event::Irregularity { kind: IrregularityKind::ScannerDiscrepancy, .. } => self.scanner = true,
            Event::Reconstructed { cards, .. } if scanner => self.confirmed(cards),
            Event::Reconstructed { cards, .. } => self.reconstructed(cards),
            Event::CoupClosed { .. } => {
                if self.continuous {
                    // AU 7.2: the coup's cards go back and are mixed in.
                    self.shown = [0; 52];
                }
                self.coup.clear();
            }
            _ => {}
        }
    }

    fn show(&mut self, c: Card) {
        self.shown[c.index()] += 1;
    }

    /// A card dealt: the carried card if it is the coup's first and the same
    /// card (the engine's rule), else a new one from the shoe.
    fn dealt(&mut self, position: Position, card: Card, face_up: bool) {
        let mut shown = false;
        if self.coup.is_empty() {
            if let Some((c, was)) = self.carried.take() {
                if c == card {
                    shown = was;
                } else {
                    self.carried = Some((c, was));
                }
            }
        }
        if face_up && !shown {
            self.show(card);
            shown = true;
        }
        self.coup.push(Dealt { card, player: position.is_player(), shown });
    }

    /// Show the coup's cards of the hands `which` selects (by "is Player").
    fn expose(&mut self, which: impl Fn(bool) -> bool) {
        let mut newly = Vec::new();
        for d in self.coup.iter_mut().filter(|d| which(d.player)) {
            if !d.shown {
                d.shown = true;
                newly.push(d.card);
            }
        }
        for c in newly {
            self.show(c);
        }
    }

    /// A card an irregularity carries on: shown where it was found or left
    /// face up (NSW 12.3; AU 12.1(b), 12.2(b), 12.3), not where it is kept
    /// face down for the next coup (NSW 12.2; AU 12.2(a)).
    fn irregular(&mut self, kind: IrregularityKind, c: Card) {
        let shown = match kind {
            IrregularityKind::PlayerThirdToNoBetCoup
            | IrregularityKind::ExcessCardToNoBetCoup
            | IrregularityKind::FirstCardFaceUp => true,
            IrregularityKind::PlayerThirdToNextCoup | IrregularityKind::ExcessCardToNextCoup => false,
            _ => return,
        };
        // The card is not dealt into this coup (the engine counts it as a
        // card newly out of a live shoe): it is shown here or not at all.
        if shown {
            self.show(c);
        }
        self.carried = Some((c, shown));
    }

    /// The actual cards confirmed after the scanner misread some (NSW
    /// 12.13). They lie where they were dealt, so each place keeps whether
    /// it was shown: what the players saw there was the actual card,
    /// whatever the scanner read. The cards the scanner reported are taken
    /// back (a misread card never left the shoe) and the actual ones counted
    /// in their places. (Matched by card instead, an actual card that equals
    /// one misread at another place would take that place's shown.)
    fn confirmed(&mut self, cards: &[Card]) {
        let read = std::mem::take(&mut self.coup);
        for d in read.iter().filter(|d| d.shown) {
            self.unshow(d.card);
        }
        for (i, (position, card)) in baccarat_table::positions_of(cards).into_iter().enumerate() {
            let shown = read.get(i).is_some_and(|d| d.shown);
            if shown {
                self.show(card);
            }
            self.coup.push(Dealt { card, player: position.is_player(), shown });
        }
    }

    /// The coup laid out again: a misdeal reconstructed from exactly the
    /// cards dealt (NSW 12.1; AU 12.6). The cards are the same, in other
    /// places: each keeps whether it was shown. (The engine refuses any
    /// other card; should one come, it is counted as a misread one is, in
    /// the order of the places left.)
    fn reconstructed(&mut self, cards: &[Card]) {
        let mut old = std::mem::take(&mut self.coup);
        let kept: Vec<Option<bool>> =
            cards.iter().map(|c| old.iter().position(|d| d.card == *c).map(|k| old.remove(k).shown)).collect();
        let mut misread = old.into_iter();
        for ((position, card), kept) in baccarat_table::positions_of(cards).into_iter().zip(kept) {
            let shown = kept.unwrap_or_else(|| {
                let was = misread.next().is_some_and(|d| d.shown && self.unshow(d.card));
                if was {
                    self.show(card);
                }
                was
            });
            self.coup.push(Dealt { card, player: position.is_player(), shown });
        }
        for d in misread.filter(|d| d.shown) {
            self.unshow(d.card);
        }
    }

    /// Take back a card counted as shown (a misread card); true.
    fn unshow(&mut self, c: Card) -> bool {
        let n = &mut self.shown[c.index()];
        *n = n.saturating_sub(1);
        true
    }

    /// How many of each card have been shown this shoe.
    pub fn shown(&self) -> &[u32; 52] {
        &self.shown
    }

    /// The unseen cards of a shoe of `decks` decks, by card index: the decks
    /// less what was shown (a card shown more often than the decks hold, a
    /// foreign card, counts as none).
    pub fn unseen(&self, decks: u32) -> [u32; 52] {
        std::array::from_fn(|i| decks.saturating_sub(self.shown[i]))
    }
}

/// One offered wager priced from the unseen cards.
#[derive(Clone, Debug, PartialEq)]
pub struct OfferExposure {
    pub bet: Bet,
    pub pay_table: String,
    /// The player's expected net return per unit staked, exactly.
    pub ev: Ratio,
    /// `ev` as a float, for display only.
    pub ev_display: f64,
    /// Whether `ev` is above the table's threshold (default: 0, the
    /// player's favour).
    pub alert: bool,
    /// The offer's maximum stake at the table's current limits.
    pub max: Money,
    /// `max × ev`, exactly, in minor units: the player's expected gain on a
    /// maximum wager (negative: the house's expected win).
    pub exposure: Ratio,
    /// `exposure` rounded down to whole minor units (toward the house).
    pub exposure_minor: i64,
}

/// Every offered wager of a table priced from what it has shown.
#[derive(Clone, Debug, PartialEq)]
pub struct TableExposure {
    /// Cards not yet shown this shoe: the pool the EVs are over.
    pub unseen: u32,
    /// In the table's offer order; empty when the pool cannot be priced.
    pub offers: Vec<OfferExposure>,
    /// Why nothing is priced, if so (fewer unseen cards than a coup needs).
    pub unpriced: Option<String>,
    /// Whether any offer's alert is raised.
    pub alert: bool,
}

/// The default threshold: an offer turns in the player's favour (EV > 0).
pub const DEFAULT_THRESHOLD: Ratio = Ratio { num: 0, den: 1 };

/// The exposure of `engine`'s offers at its current limits, from `shown`;
/// an offer alerts when its EV is above `threshold`.
pub fn table_exposure(engine: &Table, shown: &ShownCards, threshold: Ratio) -> TableExposure {
    let offers = &engine.setup().config.offers;
    let decks = engine.setup().config.decks;
    exposure_of(offers, |o| largest_stake(engine, o), &shown.unseen(decks), threshold)
}

/// The largest stake `o` may take at `engine` now: its maximum at the
/// table's current limits (as a supervisor may have altered it, NSW 6.7),
/// or, for a main wager, the highest personal maximum a supervisor has
/// allowed a player above it (NSW 6.8: personal limits apply to the main
/// wagers), whichever is larger. The exposure at the maximum is the
/// house's worst case at the table.
pub fn largest_stake(engine: &Table, o: &Offer) -> Money {
    let table = engine.offer_limits(o.bet).map_or(o.max, |l| l.1);
    let personal = o.bet.is_main().then(|| engine.state().personal.iter().map(|p| p.2).max()).flatten();
    personal.map_or(table, |p| p.max(table))
}

/// The exposure of `offers` (each at the maximum `max` gives) for the unseen
/// cards `unseen` (by card index).
pub fn exposure_of(
    offers: &[Offer],
    max: impl Fn(&Offer) -> Money,
    unseen: &[u32; 52],
    threshold: Ratio,
) -> TableExposure {
    let n: u32 = unseen.iter().sum();
    let priced = match price_offers(offers, unseen) {
        Ok(p) => p,
        Err(why) => return TableExposure { unseen: n, offers: Vec::new(), unpriced: Some(why), alert: false },
    };
    let mut out = Vec::with_capacity(priced.len());
    for (o, b) in priced {
        let ev = Ratio::new(b.ev_num, b.ev_den);
        let max = max(o);
        let exposure = Ratio::new(i128::from(max.0) * ev.num, ev.den);
        out.push(OfferExposure {
            bet: o.bet,
            pay_table: o.pay_table.name.clone(),
            ev,
            ev_display: ev.to_f64(),
            alert: above(ev, threshold),
            max,
            exposure,
            exposure_minor: exposure.num.div_euclid(exposure.den) as i64,
        });
    }
    let alert = out.iter().any(|o| o.alert);
    TableExposure { unseen: n, offers: out, unpriced: None, alert }
}

/// Each of `offers` priced from the unseen cards `unseen` (by card index):
/// one class count of the pool, then each offer's distribution and price, in
/// the offers' order (an offer the pool cannot price is left out). `Err`
/// says why nothing can be priced (too few cards for a coup).
pub fn price_offers<'a>(offers: &'a [Offer], unseen: &[u32; 52]) -> Result<Vec<(&'a Offer, BetOdds)>, String> {
    let n: u32 = unseen.iter().sum();
    if n < MIN_CARDS {
        return Err(format!("{n} unseen cards; a coup can need {MIN_CARDS} (NSW 9.6, NSW 12.6)"));
    }
    let limit = unseen.iter().copied().max().unwrap_or(0).max(1);
    let shoe = Shoe::from_card_counts(*unseen, limit).map_err(|e| e.to_string())?;
    let triples = offers.iter().any(|o| matches!(o.bet.basis(), Basis::HandCards(_)));
    let odds = ShoeOdds::counted(&shoe, triples);
    Ok(offers.iter().filter_map(|o| Some((o, price(&odds.distribution(o.bet).ok()?, &o.pay_table)))).collect())
}

/// Whether `a > b`, exactly (denominators positive), without overflow: by
/// the integer parts, then the reciprocals of the fractional parts.
pub fn above(a: Ratio, b: Ratio) -> bool {
    let (qa, ra) = (a.num.div_euclid(a.den), a.num.rem_euclid(a.den));
    let (qb, rb) = (b.num.div_euclid(b.den), b.num.rem_euclid(b.den));
    if qa != qb {
        return qa > qb;
    }
    match (ra == 0, rb == 0) {
        (true, _) => false,
        (false, true) => true,
        // ra/a.den > rb/b.den  <=>  a.den/ra < b.den/rb.
        (false, false) => above(Ratio { num: b.den, den: rb }, Ratio { num: a.den, den: ra }),
    }
}

#[cfg(test)]
#[path = "exposure_tests.rs"]
mod tests;
