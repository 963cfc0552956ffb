//! The engine's vocabulary: positions, wagers, commands, events, refusals.

use baccarat_rules::{Bet, BurnProcedure, Card, CoupSummary, Money, Outcome, Settlement, Side};
use serde::{Deserialize, Serialize};

use crate::shoe::Cut;
use crate::shuffle::Seed;

/// A player, as the server identifies them (a newtype: a player's number is
/// never mistaken for a wager's, a seat's or an amount).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct PlayerId(pub u32);

/// A wager's number within the table, unique for the table's life.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(transparent)]
pub struct WagerId(pub u64);

impl std::fmt::Display for PlayerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::fmt::Display for WagerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl WagerId {
    /// The wager numbered after this one.
    pub fn next(self) -> WagerId {
        WagerId(self.0 + 1)
    }
}

/// Where a card goes in the coup: the deal order P1 B1 P2 B2 (NSW 7.3; AU 8.4),
/// then the third cards (NSW 9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Position {
    Player1,
    Banker1,
    Player2,
    Banker2,
    Player3,
    Banker3,
}

impl Position {
    pub const INITIAL: [Position; 4] = [Position::Player1, Position::Banker1, Position::Player2, Position::Banker2];

    pub fn is_player(self) -> bool {
        matches!(self, Position::Player1 | Position::Player2 | Position::Player3)
    }
}

/// Where a wager is placed: a numbered box (AU 3.1: up to 7, 9 or 14) or the
/// standing players' area (AU 5.6(a)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schemars", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Spot {
    Box(u8),
    Standing,
}

/// A card of the coup: where it went, which card, and whether it is face up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DealtCard {
    pub position: Position,
    pub card: Card,
    pub exposed: bool,
}

/// A wager on the layout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wager {
    pub id: WagerId,
    pub player: PlayerId,
    pub spot: Spot,
    pub bet: Bet,
    pub amount: Money,
    /// Ante paid with it (AU 14.5).
    pub ante: Money,
    /// Banker and Player together waiting for a supervisor (NSW 5.6.6).
    pub needs_approval: bool,
    /// Placed with promotional tokens: winnings are paid in chips (NSW 1.1
    /// "Casino Promotional Token"; 5.2).
    #[serde(default)]
    pub token: bool,
    /// When the table accepted it (the server's clock, ms since the epoch), on a
    /// table whose betting closes at a recorded time: `verify` checks it is not
    /// after the close.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_ms: Option<u64>,
}

/// Where the shoe's cards come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShoeSource {
    /// Shuffled here from a seed the caller drew from OS entropy.
    Shuffle { seed: Seed },
    /// Pre-shuffled decks in the order given (NSW 4.2; AU 6.5-6.6; EU 2.1.1).
    PreShuffled { cards: Vec<Card> },
    /// A physical shoe: cards arrive one at a time from a dealer console or a
    /// scanning shoe.
    Live { decks: u32 },
    /// One of two sets of cards used in turn with a non-continuous shuffler
    /// (AU 3.4(a)): shuffled here like `Shuffle`; `set` is 1 or 2, and a shoe uses
    /// the other set from the one before.
    ShufflerSet { seed: Seed, set: u8 },
    /// A continuous shuffler (AU 7.2): no cut and no cutting card (AU 7.8); each
    /// coup's cards go back in and are mixed into the stack from the seed's
    /// stream for that coup.
    Continuous { seed: Seed },
}

/// A command to the table. Each is refused whole, or applied as events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum Command {
    /// Shuffle (or take) the cards, cut, place the cutting card and burn.
    StartShoe {
        source: ShoeSource,
        cut: Option<Cut>,
        burn: Option<BurnProcedure>,
        show_burn: bool,
    },
    /// "Place your bets" (NSW 7.1). A no-bet coup takes no wagers (NSW 12.4).
    OpenBetting {
        no_bet: bool,
        /// When betting closes (ms since the epoch), where the table has a
        /// betting clock: the deadline is then part of the record, and a wager
        /// stamped after it is refused whatever the pace of the close.
        #[serde(default)]
        closes_at: Option<u64>,
    },
    PlaceWager {
        player: PlayerId,
        spot: Spot,
        bet: Bet,
        amount: Money,
        ante: Money,
        token: bool,
        /// The clock when the wager arrived (ms since the epoch).
        #[serde(default)]
        at_ms: Option<u64>,
    },
    /// Let wagers be changed after the first card is drawn while none is exposed
    /// (NSW 12.12, not in Method A; AU 15.10).
    ReopenWagers,
    /// A bet found invalid after the first card is returned (NSW 12.17).
    InvalidBet {
        wager: WagerId,
    },
    /// A player's own limits, shown on a sign for them (NSW 6.8).
    SetPersonalLimits {
        player: PlayerId,
        min: Money,
        max: Money,
    },
    /// Put up the sign for a higher table minimum (NSW 6.7); `at_ms` is the clock.
    AnnounceMinimum {
        minimum: Money,
        at_ms: u64,
    },
    /// Change the table minimum for the main wagers. A raise before its notice has
    /// run lets the players `present` keep the old minimum (NSW 6.7.1).
    ChangeMinimum {
        minimum: Money,
        at_ms: u64,
        present: Vec<PlayerId>,
    },
    /// A supervisor alters one wager's limits (NSW 6.7): its maximum, and a
    /// side bet's minimum (the main wagers' minimum changes only by
    /// `ChangeMinimum`, with its notice). Between coups, so that no wager on
    /// the layout stands outside them.
    ChangeLimits {
        bet: Bet,
        #[serde(default)]
        min: Option<Money>,
        max: Money,
    },
    WithdrawWager {
        player: PlayerId,
        wager: WagerId,
    },
    /// A supervisor approves Banker and Player together (NSW 5.6.6-5.6.7).
    ApproveWager {
        wager: WagerId,
    },
    /// A supervisor refuses a wager before the first card (NSW 14.12).
    RefuseWager {
        wager: WagerId,
    },
    /// "No more bets" (NSW 7.1; AU 8.2); the table differential is applied
    /// (NSW 6.2; AU 5.18).
    CloseBetting,
    /// Shuffled shoe: deal the card that is due.
    DealNext,
    /// Live shoe: a card as the dealer or scanner reports it. `to` is where it
    /// was put, if the console says; `face_up` whether it was exposed.
    CardIn {
        card: Card,
        to: Option<Position>,
        face_up: bool,
    },
    /// Live shoe: a card found face up in the shoe (NSW 12.3, 12.5; AU 12.3-12.4).
    FaceUpInShoe {
        card: Card,
    },
    /// Live shoe: the cutting card came out (NSW 4.9-4.10; AU 11.2).
    CuttingCardOut,
    /// A card found missing, or a foreign card (NSW 12.11): the coup is void.
    MissingOrForeign {
        card: Option<Card>,
    },
    /// A dealing error (NSW 12.1; AU 12.6). With the cards in their proper order
    /// the coup is reconstructed and each player may withdraw; without, it is void.
    Misdeal {
        reconstructed: Option<Vec<Card>>,
    },
    /// The player holding a hand exposes it, or the dealer (`player: None`) does
    /// (NSW 8.15, 8.24; AU 8.14).
    Expose {
        side: Side,
        player: Option<PlayerId>,
    },
    /// The player offered a hand's cards declines them; they pass on (NSW 8.9,
    /// 8.11; AU 8.9(b)-(c)).
    DeclineCards {
        player: PlayerId,
    },
    /// A player appoints a nominee to handle their cards, or ends the
    /// appointment (`nominee: None`) (AU 2.3, 15.4). Sent by the Game or
    /// Casino Supervisor who approves and announces it (AU 2.3(a), (b), (e):
    /// the server's trust matrix), so the record names them.
    AppointNominee {
        player: PlayerId,
        nominee: Option<PlayerId>,
    },
    /// Method C: a seated player accepts the Banker marker (NSW 8.17-8.18).
    TakeMarker {
        player: PlayerId,
        seat: u8,
    },
    /// Method C: the designated player passes the role on (NSW 8.19).
    PassMarker {
        player: PlayerId,
    },
    /// After a reconstruction (or NSW 13.5's offer of returns): withdrawals are
    /// over and play resumes.
    ResumeCoup,
    /// The scanning shoe disagrees with the cards (NSW 12.13): the supervisor
    /// confirms the actual cards (in dealing order) and the coup completes with
    /// them, or cannot, and the coup is void. Raised before the coup is settled.
    ScannerDiscrepancy {
        confirmed: Option<Vec<Card>>,
    },
    /// The game is invalidated (NSW 14.4): wagers refunded, except those of the
    /// players named, which are forfeited (NSW 14.5).
    Invalidate {
        forfeit: Vec<PlayerId>,
        /// The rule that gives the reason (a citation key of the profile, e.g.
        /// `invalidated` for NSW 14.4 or `shuffler_malfunction` for NSW 13.4);
        /// `invalidated` when not given.
        #[serde(default)]
        reason: Option<String>,
    },
    /// The shuffling device failed during a coup (NSW 13).
    ShufflerMalfunction {
        disadvantage: bool,
        other_device: bool,
    },
    /// The table system failed during the coup and has restarted from its
    /// durable record: the coup completes or is void, by the profile's
    /// interrupted-coup policy. Recorded either way.
    Interrupted,
    /// A supervisor voids the coup of a table the server stopped (an invariant
    /// broke): the interruption is recorded under the profile's interrupted-coup
    /// rule and every stake goes back, whatever that rule's usual policy.
    VoidInterrupted,
    /// A hand's cards went to the wrong player (NSW 12.15; EU 5.1.7-5.1.8; AU
    /// 15.9). `void_hand`: under AU 15.9 the operator voids it at a player's request.
    WrongHand {
        void_hand: bool,
    },
}

/// A change of table state. The state is a fold of these.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    ShoeStarted {
        shoe: u64,
        /// The seed (hex in the record); secret until the shoe ends (the
        /// commitment is public).
        seed: Option<Seed>,
        commitment: Option<String>,
        algorithm: Option<String>,
        preshuffled: Option<Vec<Card>>,
        live_decks: Option<u32>,
        #[serde(default)]
        continuous: bool,
        /// The card set in use (AU 3.4(a)), where two are used in turn.
        #[serde(default)]
        set: Option<u8>,
        cut: Option<Cut>,
        rule: String,
    },
    Burned {
        procedure: BurnProcedure,
        cards: Vec<Card>,
        shown: Option<Card>,
        rule: String,
    },
    BettingOpened {
        coup: u64,
        no_bet: bool,
        first_card: Option<Card>,
        rule: Option<String>,
        /// The betting deadline, where the table keeps one (ms since the epoch).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        closes_at: Option<u64>,
    },
    WagerPlaced {
        wager: Wager,
    },
    WagerWithdrawn {
        wager: WagerId,
    },
    WagerApproved {
        wager: WagerId,
    },
    /// Refused or returned whole (NSW 14.12, 5.6.6, 12.17).
    WagerReturned {
        wager: WagerId,
        rule: String,
    },
    /// Reduced pro rata to the table differential (NSW 6.2; AU 5.18).
    WagerReduced {
        wager: WagerId,
        to: Money,
        rule: String,
    },
    BettingClosed {
        coup: u64,
    },
    PersonalLimitsSet {
        player: PlayerId,
        min: Money,
        max: Money,
        rule: String,
    },
    /// Wagers may be changed again until a card is exposed (NSW 12.12; AU 15.10).
    WagersReopened {
        rule: String,
    },
    MinimumAnnounced {
        minimum: Money,
        effective_ms: u64,
        rule: String,
    },
    /// The new minimum, and the players who keep their old one (NSW 6.7.1).
    MinimumChanged {
        minimum: Money,
        grandfathered: Vec<(PlayerId, Money)>,
        rule: String,
    },
    /// A wager's limits as altered (NSW 6.7), in force from the next coup.
    LimitsChanged {
        bet: Bet,
        min: Money,
        max: Money,
        rule: String,
    },
    CuttingCardOut {
        coups_left: u8,
        rule: String,
    },
    CardDealt {
        position: Position,
        card: Card,
        face_up: bool,
    },
    /// An irregularity and what the rulebook made of it.
    Irregularity {
        kind: IrregularityKind,
        card: Option<Card>,
        rule: String,
    },
    CoupCompleted {
        coup: u64,
        summary: CoupSummary,
    },
    /// A wager settled: its outcome (none when void) and the money.
    WagerSettled {
        wager: WagerId,
        outcome: Option<Outcome>,
        pays: String,
        settlement: Settlement,
        ante: Money,
    },
    CoupVoided {
        coup: u64,
        rule: String,
    },
    /// The coup is over (settled or void); the table is between coups.
    CoupClosed {
        coup: u64,
    },
    /// A misdeal was reconstructed; players may withdraw until play resumes.
    Reconstructed {
        cards: Vec<Card>,
        rule: String,
    },
    Resumed,
    /// A hand's cards passed face down to a player to squeeze and expose, or kept
    /// by the dealer (`to: None`: NSW 8.14; AU 8.18).
    HandPassed {
        side: Side,
        to: Option<PlayerId>,
        rule: String,
    },
    /// The player offered a hand's cards declined them (NSW 8.9, 8.11).
    CardsDeclined {
        side: Side,
        player: PlayerId,
        rule: String,
    },
    /// A hand's cards turned face up.
    HandExposed {
        side: Side,
        by: Option<PlayerId>,
    },
    /// A nominee acts for a player, or no longer does (AU 2.3(b), (e)).
    NomineeAppointed {
        player: PlayerId,
        nominee: Option<PlayerId>,
        rule: String,
    },
    /// Method C: a player holds the Banker marker (NSW 8.17).
    MarkerTaken {
        player: PlayerId,
        seat: u8,
        rule: String,
    },
    /// Method C: the marker is free; it is offered counter-clockwise from the
    /// seat to the right of `from_seat` (NSW 8.19, 8.26).
    MarkerReleased {
        from_seat: u8,
        rule: String,
    },
    /// Players may take their wagers back before play resumes (NSW 13.5.1).
    WithdrawalsOffered {
        rule: String,
    },
    ShoeEnded {
        shoe: u64,
        seed: Option<Seed>,
        reason: String,
    },
}

/// The irregularities the engine recognises.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IrregularityKind {
    /// A third card to the Player that the tableau did not allow, used as the
    /// Banker's third card (NSW 12.2; AU 12.1(a)).
    PlayerThirdToBanker,
    /// … or kept as the first card of the next coup (NSW 12.2; AU 12.1(b)).
    PlayerThirdToNextCoup,
    /// … or, exposed, the first card of a no-bet coup (AU 12.1(b)).
    PlayerThirdToNoBetCoup,
    /// An excess or exposed card: the first card of a no-bet coup (NSW 12.3;
    /// AU 12.2(b)), or if not exposed the next coup's first card (AU 12.2(a)).
    ExcessCardToNoBetCoup,
    ExcessCardToNextCoup,
    /// The first card of a coup found face up: a no-bet coup starts with it
    /// (NSW 12.3; AU 12.3).
    FirstCardFaceUp,
    /// A card face up in the shoe within a coup plays as dealt (NSW 12.5; AU 12.4).
    FaceUpWithinCoup,
    /// Too few cards to complete the coup (NSW 12.6; AU 12.5).
    InsufficientCards,
    MissingCard,
    ForeignCard,
    Misdeal,
    ScannerDiscrepancy,
    Invalidated,
    ShufflerMalfunction,
    WrongHand,
    /// The table system failed mid-coup and restarted from its record.
    Interrupted,
}
