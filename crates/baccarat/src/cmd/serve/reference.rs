//! `baccarat serve --config-reference`: the configuration reference
//! (docs/configuration.md) in Markdown, made from the same definitions as
//! `serve --help` (`settings.rs`); a test fails when the file differs.

use super::settings::{self, Setting, ADMIN_PASSWORD_ENV};

/// The command that writes docs/configuration.md again.
pub const REGENERATE: &str = "cargo run -p baccarat -- serve --config-reference > docs/configuration.md";

/// The whole reference.
pub fn markdown() -> String {
    let all = settings::all();
    let mut out = format!(
        "# Configuration reference\n\n\
         <!-- Generated from `baccarat serve`'s definitions (crates/baccarat/src/cmd/serve.rs), the same as\n\
         `baccarat serve --help` shows; do not edit by hand. Regenerate with\n\
         {REGENERATE} -->\n\n\
         Every setting of `baccarat serve` comes from its flag, else its environment\n\
         variable, else its key in the `--config` TOML file, else its default. A key\n\
         left out of the file takes its default; a key the file does not know is\n\
         refused, naming it. `baccarat serve --print-config`, given the same flags,\n\
         environment and `--config`, prints each setting in effect and where it came\n\
         from, checks them, and exits without opening the database.\n\n\
         The first admin's password is never a flag or a key (a flag is seen by every\n\
         user of the machine, a settings file is copied about): it is read, only when a\n\
         new casino is founded, from the file `admin_password_file` names or from the\n\
         environment variable `{ADMIN_PASSWORD_ENV}`; `--print-config` shows only\n\
         whether it is set. [packaging/baccarat.toml.example](../packaging/baccarat.toml.example)\n\
         is a production settings file.\n\n\
         | setting | flag | environment variable | `--config` key | default | range |\n\
         |---|---|---|---|---|---|\n"
    );
    for s in &all {
        out.push_str(&format!(
            "| [{key}](#{key}) | `{flag}` | {env} | {file} | {default} | {range} |\n",
            key = s.key,
            flag = s.flag,
            env = s.env.as_deref().map_or("none".to_string(), |e| format!("`{e}`")),
            file = file_key(s),
            default = cell(&text(s.default.as_deref().unwrap_or(""))),
            range = range(s),
        ));
    }
    for s in &all {
        out.push('\n');
        out.push_str(&section(s));
    }
    out
}

fn file_key(s: &Setting) -> String {
    if s.in_file {
        format!("`{}`", s.key)
    } else {
        "none".to_string()
    }
}

fn range(s: &Setting) -> String {
    s.range.map_or(String::new(), |(lo, hi)| format!("{lo} to {hi}"))
}

/// A setting's own section: how it is given, then its help.
fn section(s: &Setting) -> String {
    let mut out = format!("## {}\n\n", s.key);
    out.push_str(&format!("- flag: `{}`", s.flag));
    if s.list {
        out.push_str(" (comma-separated, or the flag again; in the file, an array of strings)");
    }
    out.push('\n');
    out.push_str(&format!(
        "- environment variable: {}\n",
        s.env.as_deref().map_or("none".into(), |e| format!("`{e}`"))
    ));
    let key = if s.in_file { format!("`{}`", s.key) } else { "none (not in the file)".to_string() };
    out.push_str(&format!("- `--config` key: {key}\n"));
    out.push_str(&format!("- default: {}\n", text(s.default.as_deref().unwrap_or(""))));
    if let Some((lo, hi)) = s.range {
        out.push_str(&format!("- range: {lo} to {hi}\n"));
    }
    out.push('\n');
    for para in s.help.split("\n\n") {
        out.push_str(&text(&para.split_whitespace().collect::<Vec<_>>().join(" ")));
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// Help text as Markdown: `<` and `>` outside code spans escaped (else
/// `<db>.key` would be read as an HTML tag and vanish).
fn text(s: &str) -> String {
    let mut out = String::new();
    for (i, part) in s.split('`').enumerate() {
        if i > 0 {
            out.push('`');
        }
        if i % 2 == 1 {
            out.push_str(part);
        } else {
            out.push_str(&part.replace('<', "&lt;").replace('>', "&gt;"));
        }
    }
    out
}

/// Text for a table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// docs/configuration.md is what `--config-reference` prints.
    #[test]
    fn the_configuration_reference_is_generated_from_the_definitions() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/configuration.md");
        let on_disk = std::fs::read_to_string(path).unwrap_or_default();
        let made = markdown();
        if on_disk != made {
            let first = on_disk.lines().zip(made.lines()).position(|(a, b)| a != b);
            panic!(
                "docs/configuration.md differs from the settings' definitions (first at line {}); regenerate it with\n    {REGENERATE}",
                first.map_or(on_disk.lines().count().min(made.lines().count()) + 1, |i| i + 1)
            );
        }
    }

    #[test]
    fn every_setting_has_a_section_and_a_row() {
        let md = markdown();
        for s in settings::all() {
            assert!(md.contains(&format!("\n## {}\n", s.key)), "{}", s.key);
            assert!(md.contains(&format!("| [{0}](#{0}) |", s.key)), "{}", s.key);
        }
        assert!(md.contains("&lt;db&gt;.anchors"), "angle brackets escaped");
        assert!(!md.contains("config_reference") && !md.contains("print_config"), "commands are not settings");
    }
}
