//! The settings of `baccarat serve`, read back from their clap definitions
//! (`ServeArgs`): the one list from which `serve --help`, `--print-config`
//! and the reference (docs/configuration.md) are all made, so that no second
//! list is kept by hand. A setting's `--config` key is its field's name; the
//! keys the file takes are `FileSettings`' fields, read from its serde
//! derive, and a test checks the two agree.

use clap::{Arg, ArgAction, Args, Command};

use super::ServeArgs;

/// Arguments of `serve` that are commands, not settings.
const COMMANDS: &[&str] = &["help", "print_config", "config_reference"];

/// Settings that are never a `--config` key: the file itself, and what is
/// for one start only.
pub const NOT_IN_FILE: &[&str] = &["config", "new_anchor_file"];

/// The environment variable that holds the first admin's password: read by
/// `plan`, never a flag or a key, and never printed.
pub const ADMIN_PASSWORD_ENV: &str = "BACCARAT_ADMIN_PASSWORD";

/// One setting as `serve --help` defines it.
pub struct Setting {
    /// Its name, which is also its `--config` key (if it has one).
    pub key: String,
    /// `--flag <VALUE>`, or `--flag` for a switch.
    pub flag: String,
    pub env: Option<String>,
    /// Whether the `--config` file may set it.
    pub in_file: bool,
    /// Its help without the closing `[default: …]`.
    pub help: String,
    /// What `[default: …]` says, or `None` when the help has none.
    pub default: Option<String>,
    /// The numbers the help says it must lie between (`1 to 3600`, `up to 1000`).
    pub range: Option<(u64, u64)>,
    /// A switch (no value), or a list (comma-separated, or the flag again).
    pub switch: bool,
    pub list: bool,
}

/// `serve`'s command as clap builds it.
pub fn command() -> Command {
    ServeArgs::augment_args(Command::new("serve"))
}

/// Every setting, in the order `serve --help` lists them.
pub fn all() -> Vec<Setting> {
    command().get_arguments().filter(|a| !COMMANDS.contains(&a.get_id().as_str())).map(setting).collect()
}

fn setting(a: &Arg) -> Setting {
    let key = a.get_id().as_str().to_string();
    let long = a.get_long().unwrap_or(&key).to_string();
    let switch = matches!(a.get_action(), ArgAction::SetTrue);
    let list = matches!(a.get_action(), ArgAction::Append);
    let value = a.get_value_names().and_then(|v| v.first()).map(|v| v.to_string()).unwrap_or_default();
    let flag = if switch { format!("--{long}") } else { format!("--{long} <{value}>") };
    let text = a.get_long_help().or(a.get_help()).map(|h| h.to_string()).unwrap_or_default();
    let (help, default) = split_default(&text);
    let integer = is_integer(a);
    Setting {
        env: a.get_env().map(|e| e.to_string_lossy().into_owned()),
        in_file: !NOT_IN_FILE.contains(&key.as_str()),
        range: if integer { range_in(&help) } else { None },
        key,
        flag,
        help,
        default,
        switch,
        list,
    }
}

/// Whether the setting's value is a whole number.
fn is_integer(a: &Arg) -> bool {
    use clap::builder::ValueParser;
    let t = a.get_value_parser().type_id();
    [
        ValueParser::new(clap::value_parser!(u64)).type_id(),
        ValueParser::new(clap::value_parser!(u32)).type_id(),
        ValueParser::new(clap::value_parser!(i64)).type_id(),
    ]
    .contains(&t)
}

/// The help's text and its closing `[default: …]`.
fn split_default(text: &str) -> (String, Option<String>) {
    let t = text.trim_end().trim_end_matches('.');
    match t.rfind("[default: ") {
        Some(i) if t.ends_with(']') => {
            let d = t[i + "[default: ".len()..t.len() - 1].trim().to_string();
            let mut help = t[..i].trim_end().to_string();
            if !help.is_empty() && !help.ends_with(['.', '?', '!']) {
                help.push('.');
            }
            (help, Some(d))
        }
        _ => (text.trim_end().to_string(), None),
    }
}

/// The bounds the help states: `LO to HI` or `up to HI` (numbers as digits
/// or `10^N`), the first such phrase.
pub fn range_in(help: &str) -> Option<(u64, u64)> {
    let words: Vec<&str> = help
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| matches!(c, ',' | ';' | '.' | '(' | ')' | '[')))
        .collect();
    words.windows(3).find_map(|w| match w {
        ["up", "to", hi] => Some((0, number(hi)?)),
        [lo, "to", hi] => Some((number(lo)?, number(hi)?)),
        _ => None,
    })
}

fn number(w: &str) -> Option<u64> {
    match w.split_once('^') {
        Some((b, e)) => b.parse::<u64>().ok()?.checked_pow(e.parse().ok()?),
        None => w.parse().ok(),
    }
}

/// The keys a `--config` file takes: the fields of `FileSettings` as its
/// serde derive names them (read by asking it to deserialize a struct).
#[cfg(test)]
pub fn file_keys() -> &'static [&'static str] {
    let mut keys: &'static [&'static str] = &[];
    let _ = <super::file::FileSettings as serde::Deserialize>::deserialize(Keys(&mut keys));
    keys
}

/// A deserializer that records the fields a struct asks for, and then fails.
#[cfg(test)]
struct Keys<'k>(&'k mut &'static [&'static str]);

#[cfg(test)]
impl<'de> serde::Deserializer<'de> for Keys<'_> {
    type Error = serde::de::value::Error;

    fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(serde::de::Error::custom("only a struct's keys are read"))
    }

    fn deserialize_struct<V: serde::de::Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Self::Error> {
        *self.0 = fields;
        Err(serde::de::Error::custom("keys read"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option unit
        unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every setting of `serve` but the one-start ones has a `--config` key,
    /// and every key is a setting: a setting added to `ServeArgs` without
    /// its `FileSettings` field (or the reverse) fails here, naming it.
    #[test]
    fn every_setting_has_a_config_key_and_every_key_is_a_setting() {
        let settings: Vec<String> = all().iter().filter(|s| s.in_file).map(|s| s.key.clone()).collect();
        let keys = file_keys();
        assert!(keys.len() > 20, "FileSettings' keys were not read: {keys:?}");
        for s in &settings {
            assert!(
                keys.contains(&s.as_str()),
                "setting {s} has no `--config` key: add a field {s} to FileSettings, or name it in NOT_IN_FILE if it is \
                 for one start only"
            );
        }
        for k in keys {
            assert!(settings.iter().any(|s| s == k), "`--config` key {k} is not a setting of ServeArgs");
        }
        for one_start in NOT_IN_FILE {
            assert!(all().iter().any(|s| s.key == *one_start), "{one_start} is not a setting any more");
        }
    }

    /// Each setting's help names its default, the reference's column; a
    /// new setting without `[default: …]` fails here.
    #[test]
    fn every_setting_says_its_default() {
        for s in all() {
            assert!(s.default.is_some(), "--{}: its help must end with [default: …]", s.key);
            assert!(!s.help.is_empty(), "--{}: no help", s.key);
        }
    }

    #[test]
    fn ranges_are_read_from_the_help() {
        assert_eq!(range_in("Seconds betting stays open, 1 to 3600."), Some((1, 3600)));
        assert_eq!(range_in("between cards, up to 60000 [default"), Some((0, 60_000)));
        assert_eq!(range_in("in minor units, 1 to 10^12 [default"), Some((1, 1_000_000_000_000)));
        assert_eq!(range_in("from the cage to the table"), None);
        assert_eq!(split_default("Text [default: 15]."), ("Text.".to_string(), Some("15".to_string())));
    }
}
