//! The four rulebook profiles that ship inside the binary (`profiles/*.toml`).

use crate::rulebook::Rulebook;

/// `(id, TOML text)` of every built-in profile, in the order they are listed.
pub const BUILTIN: [(&str, &str); 4] = [
    ("nsw-2021", include_str!("../../../profiles/nsw-2021.toml")),
    ("au-casino", include_str!("../../../profiles/au-casino.toml")),
    ("resort-house", include_str!("../../../profiles/resort-house.toml")),
    ("european-casino", include_str!("../../../profiles/european-casino.toml")),
];

/// A rulebook name that is not built in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown rulebook {name:?}; the rulebooks are: {known}", name = .0, known = BUILTIN.map(|(id, _)| id).join(", "))]
pub struct UnknownRulebook(pub String);

/// The TOML text of a built-in profile.
pub fn builtin_text(id: &str) -> Result<&'static str, UnknownRulebook> {
    BUILTIN.iter().find(|(k, _)| *k == id).map(|(_, t)| *t).ok_or_else(|| UnknownRulebook(id.to_string()))
}

/// A built-in profile, parsed and validated. The shipped profiles are checked by
/// tests, so a failure here is a build defect and says so.
pub fn builtin(id: &str) -> Result<Rulebook, UnknownRulebook> {
    let text = builtin_text(id)?;
    Ok(Rulebook::from_toml(text).unwrap_or_else(|e| panic!("built-in profile {id} is invalid: {e}")))
}

/// Every built-in profile.
pub fn all() -> Vec<Rulebook> {
    BUILTIN.iter().map(|(id, _)| builtin(id).expect("listed")).collect()
}
