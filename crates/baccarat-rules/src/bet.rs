//! The wagers of the four rulebooks, their stable ids, and what each one's
//! outcome is for a given coup.
//!
//! Each wager has a fixed list of outcome classes ([`Bet::outcomes`]). A pay table
//! (data, from a rulebook profile) says what each class pays. A class may name a
//! parent class: a pay table that does not price the finer class pays it as the
//! parent. So a standard Banker table prices `win` and `tie`, and Even Money
//! Baccarat adds `win_on_six` (NSW 11.2.2).

use std::fmt;

use crate::card::Card;
use crate::coup::{Coup, CoupSummary, Side, Winner};

/// A wager, by its stable id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Bet {
    Player,
    Banker,
    Tie,
    PlayerPair,
    BankerPair,
    PerfectPairPlayer,
    PerfectPairBanker,
    SuperSix,
    Tiger,
    BigTiger,
    SmallTiger,
    TigerTie,
    TigerPair,
    DragonBonusPlayer,
    DragonBonusBanker,
    LuckyMatchPlayer,
    LuckyMatchBanker,
}

/// The class of result a wager sees. `Lose` is the class of every result that a
/// wager's rule does not name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    Lose,
    Win,
    WinOnSix,
    WinThreeCardEightNine,
    Tie,
    Pair,
    MixedPair,
    ColouredPair,
    PerfectPair,
    TwoCard,
    ThreeCard,
    Single,
    Double,
    Twin,
    NaturalWin,
    NaturalTie,
    /// Dragon Bonus: a non-natural win by this many points (4..=9).
    WinBy(u8),
    MixedMatch,
    ColouredMatch,
    LuckyMatch,
    LuckyTripleMatch,
}

/// One outcome class of a wager.
#[derive(Clone, Copy, Debug)]
pub struct OutcomeDef {
    pub outcome: Outcome,
    /// Paid as this class when a pay table does not price `outcome` itself.
    pub parent: Option<Outcome>,
    /// Where the rulebooks define it.
    pub rule: &'static str,
}

macro_rules! def {
    ($o:expr, $rule:expr) => {
        OutcomeDef { outcome: $o, parent: None, rule: $rule }
    };
}

macro_rules! sub {
    ($o:expr, $parent:expr, $rule:expr) => {
        OutcomeDef { outcome: $o, parent: Some($parent), rule: $rule }
    };
}

/// What part of the coup a wager looks at. The odds engine uses this to pick the
/// right enumeration; the rules are the same functions either way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Final totals and card counts only ([`CoupSummary`]).
    Summary,
    /// The first two cards of one hand.
    Initial(Side),
    /// The first two cards of one hand and its third card, if any.
    HandCards(Side),
    /// The first two cards of both hands.
    BothInitial,
}

impl Bet {
    pub const ALL: [Bet; 17] = [
        Bet::Player,
        Bet::Banker,
        Bet::Tie,
        Bet::PlayerPair,
        Bet::BankerPair,
        Bet::PerfectPairPlayer,
        Bet::PerfectPairBanker,
        Bet::SuperSix,
        Bet::Tiger,
        Bet::BigTiger,
        Bet::SmallTiger,
        Bet::TigerTie,
        Bet::TigerPair,
        Bet::DragonBonusPlayer,
        Bet::DragonBonusBanker,
        Bet::LuckyMatchPlayer,
        Bet::LuckyMatchBanker,
    ];

    /// The stable id used in profiles, configurations, the CLI and the API.
    pub fn id(self) -> &'static str {
        match self {
            Bet::Player => "player",
            Bet::Banker => "banker",
            Bet::Tie => "tie",
            Bet::PlayerPair => "player_pair",
            Bet::BankerPair => "banker_pair",
            Bet::PerfectPairPlayer => "perfect_pair_player",
            Bet::PerfectPairBanker => "perfect_pair_banker",
            Bet::SuperSix => "super_six",
            Bet::Tiger => "tiger",
            Bet::BigTiger => "big_tiger",
            Bet::SmallTiger => "small_tiger",
            Bet::TigerTie => "tiger_tie",
            Bet::TigerPair => "tiger_pair",
            Bet::DragonBonusPlayer => "dragon_bonus_player",
            Bet::DragonBonusBanker => "dragon_bonus_banker",
            Bet::LuckyMatchPlayer => "lucky_match_player",
            Bet::LuckyMatchBanker => "lucky_match_banker",
        }
    }

    pub fn from_id(id: &str) -> Option<Bet> {
        Bet::ALL.into_iter().find(|b| b.id() == id)
    }

    /// Player, Banker and Tie (NSW 5.1; AU 5.1). Everything else is a side bet.
    pub fn is_main(self) -> bool {
        matches!(self, Bet::Player | Bet::Banker | Bet::Tie)
    }

    pub fn basis(self) -> Basis {
        match self {
            Bet::PlayerPair | Bet::PerfectPairPlayer => Basis::Initial(Side::Player),
            Bet::BankerPair | Bet::PerfectPairBanker => Basis::Initial(Side::Banker),
            Bet::LuckyMatchPlayer => Basis::HandCards(Side::Player),
            Bet::LuckyMatchBanker => Basis::HandCards(Side::Banker),
            Bet::TigerPair => Basis::BothInitial,
            _ => Basis::Summary,
        }
    }

    /// The outcome classes this wager distinguishes, other than `lose`.
    pub fn outcomes(self) -> &'static [OutcomeDef] {
        use Outcome::*;
        match self {
            Bet::Player => &[
                def!(Win, "NSW 5.1.1.1, 11.1.2; AU 5.1(b), 5.10(a)"),
                sub!(WinThreeCardEightNine, Win, "AU 13.3"),
                def!(Tie, "NSW 5.1.1.3 standoff; AU 5.1(b); AU 13.2(b) loses"),
            ],
            Bet::Banker => &[
                def!(Win, "NSW 5.1.2.1, 11.1.3; AU 5.1(a), 5.10(b)"),
                sub!(WinOnSix, Win, "NSW 11.2.2; AU 5.11, 13.4; EU no house edge"),
                sub!(WinThreeCardEightNine, Win, "AU 13.3"),
                def!(Tie, "NSW 5.1.2.3 standoff; AU 5.1(a); AU 13.2(a) loses"),
            ],
            Bet::Tie => &[def!(Win, "NSW 5.1.3, 11.1.5; AU 5.1(c), 5.10(c); EU 6.2")],
            Bet::PlayerPair | Bet::BankerPair => {
                &[def!(Pair, "NSW 10.6-10.7; AU 11C.6; EU 6.3; resort Player's/Banker's Pair")]
            }
            Bet::PerfectPairPlayer | Bet::PerfectPairBanker => &[
                def!(MixedPair, "AU 1.0 Mixed Pair; 11A.7"),
                def!(ColouredPair, "AU 1.0 Coloured Pair; 11A.7"),
                def!(PerfectPair, "AU 1.0 Perfect Pair; 11A.7"),
            ],
            Bet::SuperSix => &[def!(Win, "NSW 10.13, 11.1.6")],
            Bet::Tiger => &[def!(TwoCard, "NSW 10.29.1, 11.1.9.1"), def!(ThreeCard, "NSW 10.29.2, 11.1.9.2")],
            Bet::BigTiger => &[def!(Win, "NSW 10.34, 11.1.10")],
            Bet::SmallTiger => &[def!(Win, "NSW 10.39, 11.1.11")],
            Bet::TigerTie => &[def!(Win, "NSW 10.18, 11.1.7")],
            Bet::TigerPair => &[
                def!(Single, "NSW 10.23.1, 11.1.8.1"),
                def!(Double, "NSW 10.23.2, 11.1.8.2"),
                def!(Twin, "NSW 10.23.3, 11.1.8.3"),
            ],
            Bet::DragonBonusPlayer | Bet::DragonBonusBanker => &[
                def!(NaturalWin, "AU 11B.6, 11B.8 Natural Winner"),
                def!(NaturalTie, "AU 11B.8 Natural Tie"),
                def!(WinBy(9), "AU 11B.8 Win by 9 Points"),
                def!(WinBy(8), "AU 11B.8 Win by 8 Points"),
                def!(WinBy(7), "AU 11B.8 Win by 7 Points"),
                def!(WinBy(6), "AU 11B.8 Win by 6 Points"),
                def!(WinBy(5), "AU 11B.8 Win by 5 Points"),
                def!(WinBy(4), "AU 11B.8 Win by 4 Points"),
            ],
            Bet::LuckyMatchPlayer | Bet::LuckyMatchBanker => &[
                def!(MixedMatch, "AU 1.0 Mixed Match; 11D.8"),
                def!(ColouredMatch, "AU 1.0 Coloured Match; 11D.8"),
                def!(LuckyMatch, "AU 1.0 Lucky Match; 11D.8"),
                def!(LuckyTripleMatch, "AU 1.0 Lucky Triple Match; 11D.8, 11D.9"),
            ],
        }
    }

    /// The outcome of this wager in a coup.
    pub fn classify(self, coup: &Coup) -> Outcome {
        match self.basis() {
            Basis::Summary => self.classify_summary(&coup.summary()),
            Basis::Initial(side) => self.classify_initial(coup.hand(side).initial()),
            Basis::HandCards(side) => self.classify_hand_cards(coup.hand(side).cards()),
            Basis::BothInitial => self.classify_both_initial(coup.player.initial(), coup.banker.initial()),
        }
    }

    /// The outcome of a [`Basis::Summary`] wager. Other wagers give `Lose`.
    pub fn classify_summary(self, s: &CoupSummary) -> Outcome {
        use Outcome::*;
        let w = s.winner();
        let banker_six = w == Winner::Banker && s.banker_total == 6;
        match self {
            Bet::Player | Bet::Banker => {
                let side = if self == Bet::Player { Side::Player } else { Side::Banker };
                let wins = w == if side == Side::Player { Winner::Player } else { Winner::Banker };
                if w == Winner::Tie {
                    Tie
                } else if !wins {
                    Lose
                } else if side == Side::Banker && s.banker_total == 6 {
                    WinOnSix
                } else if s.cards(side) == 3 && s.total(side) >= 8 {
                    // AU 13.3: "a three card Point Count of 8 or 9 (i.e. not a Natural)".
                    WinThreeCardEightNine
                } else {
                    Win
                }
            }
            Bet::Tie => win_if(w == Winner::Tie),
            Bet::SuperSix => win_if(banker_six),
            Bet::Tiger if banker_six => {
                if s.banker_cards == 2 {
                    TwoCard
                } else {
                    ThreeCard
                }
            }
            Bet::BigTiger => win_if(banker_six && s.banker_cards == 3),
            Bet::SmallTiger => win_if(banker_six && s.banker_cards == 2),
            Bet::TigerTie => win_if(w == Winner::Tie && s.player_total == 6),
            Bet::DragonBonusPlayer => dragon(s, Side::Player),
            Bet::DragonBonusBanker => dragon(s, Side::Banker),
            _ => Lose,
        }
    }

    /// The outcome of a [`Basis::Initial`] wager from that hand's first two cards.
    pub fn classify_initial(self, [a, b]: [Card; 2]) -> Outcome {
        use Outcome::*;
        if a.rank != b.rank {
            return Lose;
        }
        match self {
            Bet::PlayerPair | Bet::BankerPair => Pair,
            Bet::PerfectPairPlayer | Bet::PerfectPairBanker => {
                if a.suit == b.suit {
                    PerfectPair
                } else if a.suit.colour() == b.suit.colour() {
                    ColouredPair
                } else {
                    MixedPair
                }
            }
            _ => Lose,
        }
    }

    /// The outcome of a [`Basis::HandCards`] wager (Lucky Match) from a hand's
    /// cards in dealing order. AU 11D.6: the first two cards of the same Face Value
    /// win; AU 11D.9: a Lucky Triple Match is paid instead of the Lucky Match.
    pub fn classify_hand_cards(self, cards: &[Card]) -> Outcome {
        use Outcome::*;
        if !matches!(self, Bet::LuckyMatchPlayer | Bet::LuckyMatchBanker) || cards.len() < 2 {
            return Lose;
        }
        let (a, b) = (cards[0], cards[1]);
        if a.rank != b.rank {
            Lose
        } else if a.suit == b.suit {
            if cards.get(2) == Some(&a) {
                LuckyTripleMatch
            } else {
                LuckyMatch
            }
        } else if a.suit.colour() == b.suit.colour() {
            ColouredMatch
        } else {
            MixedMatch
        }
    }

    /// The outcome of Tiger Pair from both hands' first two cards (NSW 10.23).
    /// A pair is two cards of the same number or the same picture (NSW 10.24), so
    /// "the same face value" of two pairs is read as the same rank.
    pub fn classify_both_initial(self, player: [Card; 2], banker: [Card; 2]) -> Outcome {
        use Outcome::*;
        if self != Bet::TigerPair {
            return Lose;
        }
        let pp = player[0].rank == player[1].rank;
        let bp = banker[0].rank == banker[1].rank;
        match (pp, bp) {
            (true, true) if player[0].rank == banker[0].rank => Twin,
            (true, true) => Double,
            (true, false) | (false, true) => Single,
            (false, false) => Lose,
        }
    }
}

fn win_if(b: bool) -> Outcome {
    if b {
        Outcome::Win
    } else {
        Outcome::Lose
    }
}

/// AU 11B.6 and 11B.8: a natural winner pays, a natural tie pushes, and a
/// non-natural win by four points or more pays by its margin.
fn dragon(s: &CoupSummary, side: Side) -> Outcome {
    let other = if side == Side::Player { Side::Banker } else { Side::Player };
    let (mine, theirs) = (s.total(side), s.total(other));
    if s.is_natural(side) {
        if mine > theirs {
            Outcome::NaturalWin
        } else if mine == theirs {
            Outcome::NaturalTie
        } else {
            Outcome::Lose
        }
    } else if mine >= theirs + 4 {
        Outcome::WinBy(mine - theirs)
    } else {
        Outcome::Lose
    }
}

impl Outcome {
    /// The outcome's name in pay tables and reports.
    pub fn id(self) -> String {
        use Outcome::*;
        match self {
            WinBy(n) => format!("win_by_{n}"),
            o => match o {
                Lose => "lose",
                Win => "win",
                WinOnSix => "win_on_six",
                WinThreeCardEightNine => "win_three_card_eight_nine",
                Tie => "tie",
                Pair => "pair",
                MixedPair => "mixed_pair",
                ColouredPair => "coloured_pair",
                PerfectPair => "perfect_pair",
                TwoCard => "two_card",
                ThreeCard => "three_card",
                Single => "single",
                Double => "double",
                Twin => "twin",
                NaturalWin => "natural_win",
                NaturalTie => "natural_tie",
                MixedMatch => "mixed_match",
                ColouredMatch => "coloured_match",
                LuckyMatch => "lucky_match",
                LuckyTripleMatch => "lucky_triple_match",
                WinBy(_) => unreachable!(),
            }
            .to_string(),
        }
    }
}

impl fmt::Display for Bet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.id())
    }
}
