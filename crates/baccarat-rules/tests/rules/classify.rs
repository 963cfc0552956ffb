//! Golden coups for every wager's outcome classes, each checked against the rule
//! that defines it.

use baccarat_rules::{Bet, Card, Coup, Outcome};

fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(|c| c.parse().unwrap()).collect()
}

/// Deal a coup from cards in shoe order (P1 B1 P2 B2 …).
fn coup(s: &str) -> Coup {
    let cs = cards(s);
    let (c, used) = Coup::from_cards(&cs).unwrap();
    assert_eq!(used, cs.len(), "golden coup {s:?} should use exactly its cards");
    c
}

fn check(bet: Bet, shoe_order: &str, want: Outcome) {
    assert_eq!(bet.classify(&coup(shoe_order)), want, "{bet} on {shoe_order}");
}

/// For wagers decided by the initial four cards: deal them followed by two
/// tens, whatever the hands then draw.
fn check_initial(bet: Bet, initial: &str, want: Outcome) {
    let cs = cards(&format!("{initial} 10S 10H"));
    let (c, _) = Coup::from_cards(&cs).unwrap();
    assert_eq!(bet.classify(&c), want, "{bet} on {initial}");
}

#[test]
fn main_wagers() {
    use Outcome::*;
    // Player 9 natural beats Banker 7 (NSW 5.1.1.1).
    check(Bet::Player, "9S 7H KD KC", Win);
    check(Bet::Banker, "9S 7H KD KC", Lose);
    check(Bet::Tie, "9S 7H KD KC", Lose);
    // Standoff: both 6 (NSW 5.1.1.3, 5.1.2.3).
    check(Bet::Player, "6H 3S KD 3C", Tie);
    check(Bet::Banker, "6H 3S KD 3C", Tie);
    check(Bet::Tie, "6H 3S KD 3C", Win);
}

#[test]
fn banker_win_on_six_and_three_card_eight_nine() {
    use Outcome::*;
    // Player A+3 = 4 draws 10 (0) -> 4; Banker 3+3 = 6 stands on a 0 (Table 2) -> Banker 6 wins.
    check(Bet::Banker, "AS 3H 3D 3C 10S", WinOnSix);
    // Banker 2+K = 2 draws after Player 7 stands; draws 6 -> 8 with three cards.
    check(Bet::Banker, "7S 2H KD KC 6S", WinThreeCardEightNine);
    check(Bet::Player, "7S 2H KD KC 6S", Lose);
    // Player 3+K = 3 draws 5 -> 8 with three cards; Banker 4+3 = 7 stands.
    check(Bet::Player, "3S 4H KD 3C 5S", WinThreeCardEightNine);
    // A natural 8 is not a three-card win (AU 13.3 "i.e. not a Natural").
    check(Bet::Player, "8S 4H KD 3C", Win);
}

#[test]
fn nsw_pairs_are_same_rank_10_10_yes_k_q_no() {
    use Outcome::*;
    // NSW 10.6: same number (A..10) or same picture.
    check_initial(Bet::PlayerPair, "10S 2H 10D 5C", Pair);
    check_initial(Bet::PlayerPair, "KS 2H QD 5C", Lose);
    check_initial(Bet::PlayerPair, "KS 2H KD 5C", Pair);
    check_initial(Bet::PlayerPair, "10S 2H KD 5C", Lose);
    check_initial(Bet::BankerPair, "2H 10S 5C 10D", Pair);
    check_initial(Bet::BankerPair, "2H JS 5C QD", Lose);
}

#[test]
fn au_perfect_pair_classes() {
    use Outcome::*;
    // AU 1.0: Perfect Pair = same suit; Coloured Pair = same colour, different
    // suits; Mixed Pair = one red one black. Pair = same Face Value (rank).
    check_initial(Bet::PerfectPairPlayer, "QH 2S QH 5C", PerfectPair);
    check_initial(Bet::PerfectPairPlayer, "QH 2S QD 5C", ColouredPair);
    check_initial(Bet::PerfectPairPlayer, "QC 2S QS 5C", ColouredPair);
    check_initial(Bet::PerfectPairPlayer, "QH 2S QS 5C", MixedPair);
    check_initial(Bet::PerfectPairPlayer, "QH 2S KH 5C", Lose);
    check_initial(Bet::PerfectPairBanker, "2S AD 5C AD", PerfectPair);
}

#[test]
fn au_lucky_match_and_triple() {
    use Outcome::*;
    // Player 7H 7H = 4 draws another 7H -> Lucky Triple Match (AU 11D.9); Banker
    // K+K = 0 draws... Banker 0 always draws on a 7: give it a card.
    check(Bet::LuckyMatchPlayer, "7H KS 7H KD 7H 2C", LuckyTripleMatch);
    // Same suit and value, third card different: Lucky Match.
    check(Bet::LuckyMatchPlayer, "7H KS 7H KD 7S 2C", LuckyMatch);
    // Lucky pair that stands (6+6 = 2? no: 3+3 = 6 stands): Lucky Match, no third card.
    check(Bet::LuckyMatchPlayer, "3H KS 3H 7D", LuckyMatch);
    check(Bet::LuckyMatchPlayer, "3H KS 3D 7D", ColouredMatch);
    check(Bet::LuckyMatchPlayer, "3H KS 3S 7D", MixedMatch);
    check(Bet::LuckyMatchPlayer, "3H KS 4H 7D", Lose);
    // Banker: 2D 2D = 4 draws on the Player's 2 -> third 2D is a triple.
    check(Bet::LuckyMatchBanker, "AS 2D 2C 2D 2H 2D", LuckyTripleMatch);
}

#[test]
fn nsw_tiger_family() {
    use Outcome::*;
    // Banker 2-card 6 wins: Small Tiger, Tiger 2-card, Super Six.
    let two = "AS 3H 3D 3C 10S";
    check(Bet::Tiger, two, TwoCard);
    check(Bet::SmallTiger, two, Win);
    check(Bet::BigTiger, two, Lose);
    check(Bet::SuperSix, two, Win);
    // Banker 3-card 6: Player 7 stands; Banker 2+K = 2 draws 4 -> 6... loses to 7.
    // Player A+4 = 5 draws K -> 5; Banker 2+K = 2 draws 4 -> 6 wins with three cards.
    let three = "AS 2H 4D KC KS 4H";
    check(Bet::Tiger, three, ThreeCard);
    check(Bet::BigTiger, three, Win);
    check(Bet::SmallTiger, three, Lose);
    // Tie on 6 (NSW 10.18); tie on 7 is not.
    check(Bet::TigerTie, "6H 3S KD 3C", Win);
    check(Bet::TigerTie, "7H 4S KD 3C", Lose);
}

#[test]
fn nsw_tiger_pair() {
    use Outcome::*;
    check_initial(Bet::TigerPair, "5S 9H 5D 2C", Single);
    check_initial(Bet::TigerPair, "5S 9H 4D 9C", Single);
    check_initial(Bet::TigerPair, "5S 9H 5D 9C", Double);
    check_initial(Bet::TigerPair, "9S 9H 9D 9C", Twin);
    check_initial(Bet::TigerPair, "KS JH KD JC", Double);
    check_initial(Bet::TigerPair, "5S 9H 4D 2C", Lose);
}

#[test]
fn au_dragon_bonus() {
    use Outcome::*;
    // Natural win, natural tie (AU 11B.8).
    check(Bet::DragonBonusPlayer, "9S 7H KD KC", NaturalWin);
    check(Bet::DragonBonusBanker, "9S 7H KD KC", Lose);
    check(Bet::DragonBonusPlayer, "9S 9H KD KC", NaturalTie);
    check(Bet::DragonBonusBanker, "8S 8H KD KC", NaturalTie);
    // Player 7 stands, Banker K+K = 0 draws K -> 0: Player wins by 7, not natural.
    check(Bet::DragonBonusPlayer, "7S KH KD KC KS", WinBy(7));
    // Win by 3 loses (AU 11B.6: four or more points).
    check(Bet::DragonBonusPlayer, "7S 4H KD 10C 10S", Lose);
    // Player 7 stands vs Banker 3+K = 3 draws 10 -> 3: win by 4.
    check(Bet::DragonBonusPlayer, "7S 3H KD KC 10S", WinBy(4));
    // Non-natural tie loses.
    check(Bet::DragonBonusPlayer, "6H 3S KD 3C", Lose);
}
