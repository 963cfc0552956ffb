//! A command refused, and why: a rulebook's rule, or one of the few reasons
//! the rulebooks do not give (who asks, the kind of shoe, a settlement under
//! way, a broken invariant).
//!
//! The kind is a type so that its reader matches it exhaustively: a broken
//! invariant stops a table, and a misspelt string could once turn it into an
//! ordinary refusal without a word from the compiler. On the wire and in any
//! record a refusal keeps its old shape, `{"rule": …, "message": …}`, the
//! `rule` being the citation or the kind's old name ([`RefusalKind::rule`]).

use serde::{Deserialize, Serialize};

/// Why a command was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RefusalKind {
    /// A rulebook's rule forbids it; the citation, e.g. `"NSW 3.10"`.
    Rule(String),
    /// The one who asks holds too low a role, or is a player acting for
    /// another (the server's trust matrix). Old name `"role"`.
    Role,
    /// The command is not taken from anyone by this route or at a table of
    /// this mode (the server's trust matrix). Old name `"trust"`.
    Trust,
    /// The command needs a live shoe; this one is shuffled by the engine.
    /// Old name `"shuffled shoe"`.
    ShuffledShoe,
    /// The command needs a shuffled shoe; a live shoe's cards come from the
    /// console or the scanner. Old name `"live shoe"`.
    LiveShoe,
    /// The coup's wagers are being settled a chunk at a time; retry.
    /// Old name `"settling"`.
    Settling,
    /// What the table did would break an invariant kept outside the engine
    /// (the ledger refused its postings): the table must stop. Old name
    /// `"invariant"`.
    Invariant,
}

impl RefusalKind {
    /// Every kind other than [`RefusalKind::Rule`], for lookups by name.
    const NAMED: [RefusalKind; 6] = [
        RefusalKind::Role,
        RefusalKind::Trust,
        RefusalKind::ShuffledShoe,
        RefusalKind::LiveShoe,
        RefusalKind::Settling,
        RefusalKind::Invariant,
    ];

    /// The `rule` string a client and the record see: the citation, or the
    /// kind's name as it always was.
    pub fn rule(&self) -> &str {
        match self {
            RefusalKind::Rule(cite) => cite,
            RefusalKind::Role => "role",
            RefusalKind::Trust => "trust",
            RefusalKind::ShuffledShoe => "shuffled shoe",
            RefusalKind::LiveShoe => "live shoe",
            RefusalKind::Settling => "settling",
            RefusalKind::Invariant => "invariant",
        }
    }

    /// The kind a recorded `rule` string names (the inverse of
    /// [`RefusalKind::rule`]); anything else is a citation.
    fn from_rule(rule: String) -> RefusalKind {
        RefusalKind::NAMED.into_iter().find(|k| k.rule() == rule).unwrap_or(RefusalKind::Rule(rule))
    }
}

/// A command the rules do not allow. The table is unchanged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "Recorded", from = "Recorded")]
pub struct Refusal {
    pub kind: RefusalKind,
    pub message: String,
}

impl Refusal {
    /// A refusal under a rulebook's rule, `cite` naming it (e.g. `"NSW 3.10"`,
    /// or a citation read from the rulebook). The refusals of no rule have
    /// their own kinds: [`Refusal::of`].
    pub fn new(cite: impl Into<String>, message: impl Into<String>) -> Refusal {
        let cite = cite.into();
        debug_assert!(
            !RefusalKind::NAMED.iter().any(|k| k.rule() == cite),
            "{cite:?} is a kind of refusal, not a citation: use Refusal::of"
        );
        Refusal { kind: RefusalKind::Rule(cite), message: message.into() }
    }

    /// A refusal of a kind no rulebook rule names.
    pub fn of(kind: RefusalKind, message: impl Into<String>) -> Refusal {
        Refusal { kind, message: message.into() }
    }

    /// The `rule` string of the wire and the record ([`RefusalKind::rule`]).
    pub fn rule(&self) -> &str {
        self.kind.rule()
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.rule(), self.message)
    }
}

impl std::error::Error for Refusal {}

/// A refusal as it is serialized: the shape the derived form always had.
#[derive(Serialize, Deserialize)]
#[serde(rename = "Refusal")]
struct Recorded {
    rule: String,
    message: String,
}

impl From<Refusal> for Recorded {
    fn from(r: Refusal) -> Recorded {
        let rule = match r.kind {
            RefusalKind::Rule(cite) => cite,
            other => other.rule().to_string(),
        };
        Recorded { rule, message: r.message }
    }
}

impl From<Recorded> for Refusal {
    fn from(r: Recorded) -> Refusal {
        Refusal { kind: RefusalKind::from_rule(r.rule), message: r.message }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each kind serializes, displays and reads back as the string-ruled
    /// refusal of before did.
    #[test]
    fn every_kind_keeps_its_old_wire_form() {
        let cases = [
            (Refusal::new("NSW 3.10", "m"), r#"{"rule":"NSW 3.10","message":"m"}"#),
            (Refusal::of(RefusalKind::Role, "m"), r#"{"rule":"role","message":"m"}"#),
            (Refusal::of(RefusalKind::Trust, "m"), r#"{"rule":"trust","message":"m"}"#),
            (Refusal::of(RefusalKind::ShuffledShoe, "m"), r#"{"rule":"shuffled shoe","message":"m"}"#),
            (Refusal::of(RefusalKind::LiveShoe, "m"), r#"{"rule":"live shoe","message":"m"}"#),
            (Refusal::of(RefusalKind::Settling, "m"), r#"{"rule":"settling","message":"m"}"#),
            (Refusal::of(RefusalKind::Invariant, "m"), r#"{"rule":"invariant","message":"m"}"#),
        ];
        assert_eq!(cases.len(), RefusalKind::NAMED.len() + 1, "a kind without a case");
        for (r, json) in cases {
            assert_eq!(serde_json::to_string(&r).unwrap(), json);
            assert_eq!(serde_json::from_str::<Refusal>(json).unwrap(), r, "{json}");
            assert_eq!(r.to_string(), format!("{}: m", r.rule()));
        }
        assert_eq!(Refusal::of(RefusalKind::LiveShoe, "m").to_string(), "live shoe: m");
    }

    /// A new kind stops the build here until it has a case above and a place
    /// in `RefusalKind::NAMED`.
    #[allow(dead_code)]
    fn every_kind_has_a_case(k: RefusalKind) {
        use RefusalKind::*;
        match k {
            Rule(_) | Role | Trust | ShuffledShoe | LiveShoe | Settling | Invariant => {}
        }
    }
}
