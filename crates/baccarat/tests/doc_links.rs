//! Every relative link in the README, the changelog and the manual (`docs/*.md`)
//! resolves: the file (or folder) it names exists, and a `#fragment` is a
//! heading of that file (as GitHub makes a heading's anchor). The files are
//! read as they are, so a chapter added later is checked as soon as it is
//! there, and a link to a chapter not yet written fails, naming both.
//!
//! Alone in its binary: it reads files only, and builds in seconds.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The Markdown files checked: README.md, CHANGELOG.md and every docs/*.md.
fn manual() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = ["README.md", "CHANGELOG.md"].iter().map(|f| root().join(f)).collect();
    let docs = std::fs::read_dir(root().join("docs")).expect("docs/");
    let mut chapters: Vec<PathBuf> =
        docs.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "md")).collect();
    chapters.sort();
    files.extend(chapters);
    files.into_iter().filter(|p| p.is_file()).collect()
}

/// The lines of `text` outside fenced code blocks, with their numbers.
fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push((i + 1, line));
        }
    }
    out
}

/// The targets of the inline links `[text](target)` on `line`, outside code spans.
fn links(line: &str) -> Vec<String> {
    let plain: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut rest = plain.as_str();
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        match after.find(')') {
            Some(j) => {
                out.push(after[..j].split_whitespace().next().unwrap_or_default().to_string());
                rest = &after[j + 1..];
            }
            None => break,
        }
    }
    out
}

/// A heading's anchor as GitHub makes it: lower case, punctuation dropped
/// (but `-` and `_`), spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file: its headings' (a repeated one also with
/// `-1`, `-2`, …) and any `id="…"` or `name="…"` of its HTML.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, line) in prose(text) {
        if let Some(h) = line.strip_prefix('#') {
            let s = slug(h.trim_start_matches('#'));
            let mut n = 0;
            let mut name = s.clone();
            while !out.insert(name.clone()) {
                n += 1;
                name = format!("{s}-{n}");
            }
        }
        for attr in ["id=\"", "name=\""] {
            for part in line.split(attr).skip(1) {
                out.insert(part.split('"').next().unwrap_or_default().to_string());
            }
        }
    }
    out
}

fn dead_links(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let here = file.parent().unwrap();
    let name = file.strip_prefix(root()).unwrap_or(file).display().to_string();
    let mut dead = Vec::new();
    for (n, line) in prose(&text) {
        for target in links(line) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, fragment) = target.split_once('#').map_or((target.as_str(), None), |(p, f)| (p, Some(f)));
            let resolved = if path.is_empty() { file.to_path_buf() } else { here.join(path) };
            if !resolved.exists() {
                dead.push(format!("{name}:{n}: {target}: no such file"));
                continue;
            }
            let Some(fragment) = fragment.filter(|_| resolved.extension().is_some_and(|e| e == "md")) else {
                continue;
            };
            if !anchors(&std::fs::read_to_string(&resolved).unwrap()).contains(fragment) {
                dead.push(format!("{name}:{n}: {target}: no heading #{fragment} there"));
            }
        }
    }
    dead
}

#[test]
fn every_relative_link_in_the_readme_and_the_manual_resolves() {
    let files = manual();
    assert!(files.len() > 10, "the manual was not found: {files:?}");
    let dead: Vec<String> = files.iter().flat_map(|f| dead_links(f)).collect();
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn links_and_anchors_are_read_as_github_reads_them() {
    assert_eq!(links("see [a](b.md#c) and `[x](y)` and [d](../e)"), ["b.md#c", "../e"]);
    assert_eq!(
        slug(" A year on one machine: checkpoints, memory, settlement and retention"),
        "a-year-on-one-machine-checkpoints-memory-settlement-and-retention"
    );
    assert_eq!(slug("`baccarat serve`"), "baccarat-serve");
    assert_eq!(
        slug("Anchors, reconciliation and what `verify` proves"),
        "anchors-reconciliation-and-what-verify-proves"
    );
    let a = anchors("# Title\n## Same\n## Same\n```\n# not a heading\n```\n<a id=\"here\"></a>\n");
    assert_eq!(a.into_iter().collect::<Vec<_>>(), ["here", "same", "same-1", "title"]);
}
