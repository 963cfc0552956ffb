//! The citation keys: each thing the engine enforces, by the key a profile's
//! `[citations]` names its rule under. A typed key, so a misspelt one is a
//! compile error in the engine rather than a "not stated" at a table; a
//! profile's keys are parsed into it when the profile loads.

/// A citation key of a rulebook profile (see [`crate::CITATION_KEYS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cite {
    WagersClosed,
    WithdrawLosing,
    Combination,
    Limits,
    MinimumUnit,
    Differential,
    SideBetNeedsMain,
    OneSideBet,
    SupervisorRefusal,
    InvalidBetReturned,
    InsufficientCards,
    CuttingCard,
    LastCoup,
    Burn,
    Cut,
    NoBetCoup,
    UnauthorisedPlayerThird,
    ExcessCard,
    FaceUpFirst,
    FaceUpWithin,
    MissingOrForeign,
    Misdeal,
    ScannerDiscrepancy,
    Invalidated,
    ShufflerMalfunction,
    WrongHand,
    Ante,
    PersonalLimits,
    Nominee,
    LateWagers,
    CardSets,
    MinimumChange,
    PromotionalTokens,
    Shuffler,
    BankerUnpayable,
    Dealing,
    /// Tournament play (NSW 15); a rulebook without it runs no tournament.
    Tournament,
}

impl Cite {
    pub const ALL: [Cite; 37] = [
        Cite::WagersClosed,
        Cite::WithdrawLosing,
        Cite::Combination,
        Cite::Limits,
        Cite::MinimumUnit,
        Cite::Differential,
        Cite::SideBetNeedsMain,
        Cite::OneSideBet,
        Cite::SupervisorRefusal,
        Cite::InvalidBetReturned,
        Cite::InsufficientCards,
        Cite::CuttingCard,
        Cite::LastCoup,
        Cite::Burn,
        Cite::Cut,
        Cite::NoBetCoup,
        Cite::UnauthorisedPlayerThird,
        Cite::ExcessCard,
        Cite::FaceUpFirst,
        Cite::FaceUpWithin,
        Cite::MissingOrForeign,
        Cite::Misdeal,
        Cite::ScannerDiscrepancy,
        Cite::Invalidated,
        Cite::ShufflerMalfunction,
        Cite::WrongHand,
        Cite::Ante,
        Cite::PersonalLimits,
        Cite::Nominee,
        Cite::LateWagers,
        Cite::CardSets,
        Cite::MinimumChange,
        Cite::PromotionalTokens,
        Cite::Shuffler,
        Cite::BankerUnpayable,
        Cite::Dealing,
        Cite::Tournament,
    ];

    /// The key as profiles spell it.
    pub fn key(self) -> &'static str {
        match self {
            Cite::WagersClosed => "wagers_closed",
            Cite::WithdrawLosing => "withdraw_losing",
            Cite::Combination => "combination",
            Cite::Limits => "limits",
            Cite::MinimumUnit => "minimum_unit",
            Cite::Differential => "differential",
            Cite::SideBetNeedsMain => "side_bet_needs_main",
            Cite::OneSideBet => "one_side_bet",
            Cite::SupervisorRefusal => "supervisor_refusal",
            Cite::InvalidBetReturned => "invalid_bet_returned",
            Cite::InsufficientCards => "insufficient_cards",
            Cite::CuttingCard => "cutting_card",
            Cite::LastCoup => "last_coup",
            Cite::Burn => "burn",
            Cite::Cut => "cut",
            Cite::NoBetCoup => "no_bet_coup",
            Cite::UnauthorisedPlayerThird => "unauthorised_player_third",
            Cite::ExcessCard => "excess_card",
            Cite::FaceUpFirst => "face_up_first",
            Cite::FaceUpWithin => "face_up_within",
            Cite::MissingOrForeign => "missing_or_foreign",
            Cite::Misdeal => "misdeal",
            Cite::ScannerDiscrepancy => "scanner_discrepancy",
            Cite::Invalidated => "invalidated",
            Cite::ShufflerMalfunction => "shuffler_malfunction",
            Cite::WrongHand => "wrong_hand",
            Cite::Ante => "ante",
            Cite::PersonalLimits => "personal_limits",
            Cite::Nominee => "nominee",
            Cite::LateWagers => "late_wagers",
            Cite::CardSets => "card_sets",
            Cite::MinimumChange => "minimum_change",
            Cite::PromotionalTokens => "promotional_tokens",
            Cite::Shuffler => "shuffler",
            Cite::BankerUnpayable => "banker_unpayable",
            Cite::Dealing => "dealing",
            Cite::Tournament => "tournament",
        }
    }

    /// The key named `s`, if there is one.
    pub fn parse(s: &str) -> Option<Cite> {
        Cite::ALL.into_iter().find(|c| c.key() == s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_keys_are_the_profiles_keys() {
        let keys: Vec<&str> = Cite::ALL.iter().map(|c| c.key()).collect();
        assert_eq!(keys, crate::CITATION_KEYS);
        assert!(Cite::ALL.iter().all(|c| Cite::parse(c.key()) == Some(*c)));
        assert_eq!(Cite::parse("no_such_key"), None);
    }
}
