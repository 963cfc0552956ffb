//! The web pages: the lobby and table page (`/`), the pit console (`/pit`), a
//! player's tournament page (`/tournament`), the leaderboard (`/leaderboard`)
//! the provably-fair page (`/fair?table=N`) and a table's rules and odds
//! (`/help?table=N`), several tables at once (`/multi`), and the back office
//! (`/admin`).
//! They are plain HTML, CSS and JavaScript with no build step, embedded in the
//! binary so that `cargo run` serves them with nothing else installed. With
//! `--web-dir` the files are read from that folder instead (for working on them).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::AppState;

/// The embedded files: name, content type, content.
pub const FILES: &[(&str, &str, &str)] = &[
    ("index.html", "text/html; charset=utf-8", include_str!("../../web/index.html")),
    ("pit.html", "text/html; charset=utf-8", include_str!("../../web/pit.html")),
    ("style.css", "text/css; charset=utf-8", include_str!("../../web/style.css")),
    ("common.js", "text/javascript; charset=utf-8", include_str!("../../web/common.js")),
    ("table.js", "text/javascript; charset=utf-8", include_str!("../../web/table.js")),
    ("felt-net.js", "text/javascript; charset=utf-8", include_str!("../../web/felt-net.js")),
    ("delta.js", "text/javascript; charset=utf-8", include_str!("../../web/delta.js")),
    ("pit.js", "text/javascript; charset=utf-8", include_str!("../../web/pit.js")),
    ("pit-base.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-base.js")),
    ("pit-words.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-words.js")),
    ("pit-cards.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-cards.js")),
    ("pit-dialogs.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-dialogs.js")),
    ("pit-recall.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-recall.js")),
    ("pit-exposure.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-exposure.js")),
    ("tournament.html", "text/html; charset=utf-8", include_str!("../../web/tournament.html")),
    ("tournament.js", "text/javascript; charset=utf-8", include_str!("../../web/tournament.js")),
    ("leaderboard.html", "text/html; charset=utf-8", include_str!("../../web/leaderboard.html")),
    ("leaderboard.js", "text/javascript; charset=utf-8", include_str!("../../web/leaderboard.js")),
    ("fair.html", "text/html; charset=utf-8", include_str!("../../web/fair.html")),
    ("multi.html", "text/html; charset=utf-8", include_str!("../../web/multi.html")),
    ("multi.js", "text/javascript; charset=utf-8", include_str!("../../web/multi.js")),
    ("fair.js", "text/javascript; charset=utf-8", include_str!("../../web/fair.js")),
    ("help.html", "text/html; charset=utf-8", include_str!("../../web/help.html")),
    ("help.js", "text/javascript; charset=utf-8", include_str!("../../web/help.js")),
    ("sound.js", "text/javascript; charset=utf-8", include_str!("../../web/sound.js")),
    ("limits.js", "text/javascript; charset=utf-8", include_str!("../../web/limits.js")),
    ("i18n.js", "text/javascript; charset=utf-8", include_str!("../../web/i18n.js")),
    ("messages.json", "application/json", include_str!("../../web/messages.json")),
    ("admin.html", "text/html; charset=utf-8", include_str!("../../web/admin.html")),
    ("admin.css", "text/css; charset=utf-8", include_str!("../../web/admin.css")),
    ("admin.js", "text/javascript; charset=utf-8", include_str!("../../web/admin.js")),
    ("admin-base.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-base.js")),
    ("admin-people.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-people.js")),
    ("admin-tables.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-tables.js")),
    ("admin-table-form.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-table-form.js")),
    ("admin-cage.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-cage.js")),
    ("admin-books.js", "text/javascript; charset=utf-8", include_str!("../../web/admin-books.js")),
    ("surveillance.html", "text/html; charset=utf-8", include_str!("../../web/surveillance.html")),
    ("surveillance.js", "text/javascript; charset=utf-8", include_str!("../../web/surveillance.js")),
    ("ratings-view.js", "text/javascript; charset=utf-8", include_str!("../../web/ratings-view.js")),
    ("pit-ratings.js", "text/javascript; charset=utf-8", include_str!("../../web/pit-ratings.js")),
];

fn file(s: &AppState, name: &str) -> Response {
    let Some((name, kind, embedded)) = FILES.iter().find(|(n, _, _)| *n == name) else {
        return (StatusCode::NOT_FOUND, "no such page").into_response();
    };
    let body = match &s.web_dir {
        Some(dir) => match std::fs::read_to_string(dir.join(name)) {
            Ok(text) => text,
            Err(e) => return (StatusCode::NOT_FOUND, format!("{name}: {e}")).into_response(),
        },
        None => (*embedded).to_string(),
    };
    ([(header::CONTENT_TYPE, *kind), (header::CACHE_CONTROL, "no-cache")], body).into_response()
}

pub(super) async fn index(State(s): State<AppState>) -> Response {
    file(&s, "index.html")
}

/// Several tables at once (`/multi`): each table's own page in a frame.
pub(super) async fn multi(State(s): State<AppState>) -> Response {
    file(&s, "multi.html")
}

pub(super) async fn pit(State(s): State<AppState>) -> Response {
    file(&s, "pit.html")
}

pub(super) async fn tournament(State(s): State<AppState>) -> Response {
    file(&s, "tournament.html")
}

pub(super) async fn leaderboard(State(s): State<AppState>) -> Response {
    file(&s, "leaderboard.html")
}

pub(super) async fn fair(State(s): State<AppState>) -> Response {
    file(&s, "fair.html")
}

pub(super) async fn help(State(s): State<AppState>) -> Response {
    file(&s, "help.html")
}

/// The back office (`/admin`): people, tables, the cage and the day's
/// books, for the admin; the inspector reads them.
pub(super) async fn admin(State(s): State<AppState>) -> Response {
    file(&s, "admin.html")
}

/// The exposure monitor (`/surveillance`), on the back office's look.
pub(super) async fn surveillance(State(s): State<AppState>) -> Response {
    file(&s, "surveillance.html")
}

pub(super) async fn asset(State(s): State<AppState>, Path(name): Path<String>) -> Response {
    file(&s, &name)
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use super::FILES;

    fn file(name: &str) -> &'static str {
        FILES.iter().find(|f| f.0 == name).expect("a file of the pages").2
    }

    fn catalogue() -> BTreeMap<String, BTreeMap<String, String>> {
        serde_json::from_str(file("messages.json")).expect("messages.json is {language: {key: text}}")
    }

    /// The {names} a text fills in.
    fn vars(text: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut rest = text;
        while let Some(i) = rest.find('{') {
            let Some(j) = rest[i..].find('}') else { break };
            out.insert(rest[i + 1..i + j].to_string());
            rest = &rest[i + j + 1..];
        }
        out
    }

    /// Every language has every key English has, filling in the same names,
    /// and no key English lacks (its words, `w.<id>`, aside): a language
    /// added to the catalogue needs no code, and one left half done fails
    /// here.
    #[test]
    fn every_language_has_every_message() {
        let c = catalogue();
        let en = &c["en"];
        assert!(c.len() >= 3, "English and Chinese, Simplified and Traditional: {:?}", c.keys());
        for (lang, messages) in &c {
            assert!(messages.contains_key("_name"), "{lang} names itself");
            for (key, text) in en {
                let theirs = messages.get(key).unwrap_or_else(|| panic!("{lang} lacks {key:?}"));
                assert_eq!(vars(theirs), vars(text), "{lang} {key:?}: {theirs:?} fills in other names than {text:?}");
            }
            for key in messages.keys() {
                assert!(en.contains_key(key) || key.starts_with("w."), "{lang} has {key:?}, which English lacks");
            }
        }
        // Chinese uses the conventional labels of the spots and the roads.
        for lang in ["zh-Hans", "zh-Hant"] {
            assert_eq!(c[lang]["mark.T"], "和");
        }
        assert_eq!((c["zh-Hans"]["mark.B"].as_str(), c["zh-Hans"]["mark.P"].as_str()), ("庄", "闲"));
        assert_eq!((c["zh-Hant"]["mark.B"].as_str(), c["zh-Hant"]["mark.P"].as_str()), ("莊", "閒"));
    }

    /// Every key the player's page asks for is in the catalogue: the literal
    /// ones in its scripts and its HTML, and the families it builds.
    #[test]
    fn every_key_the_page_uses_is_in_the_catalogue() {
        let en = &catalogue()["en"];
        let mut used = BTreeSet::new();
        for name in ["table.js", "common.js", "limits.js", "help.js", "fair.js", "multi.js"] {
            let text = file(name);
            for call in ["tr('", "trn('"] {
                for (i, _) in text.match_indices(call) {
                    let rest = &text[i + call.len()..];
                    used.insert(rest[..rest.find('\'').expect("a closing quote")].to_string());
                }
            }
        }
        for page in ["index.html", "help.html", "fair.html", "multi.html"] {
            let html = file(page);
            for attr in ["data-i18n=\"", "data-i18n-title=\"", "data-i18n-placeholder=\"", "data-i18n-label=\""] {
                for (i, _) in html.match_indices(attr) {
                    let rest = &html[i + attr.len()..];
                    used.insert(rest[..rest.find('"').expect("a closing quote")].to_string());
                }
            }
        }
        for p in ["player1", "banker1", "player2", "banker2", "player3", "banker3"] {
            used.insert(format!("pos.{p}"));
        }
        // Every phase the table view can name (the page shows `phase.<name>`).
        for p in baccarat_casino::PhaseView::ALL {
            let name = serde_json::to_value(p).expect("a phase serializes");
            used.insert(format!("phase.{}", name.as_str().expect("a phase's name")));
        }
        for k in ["mark.B", "mark.P", "mark.T", "road.B", "road.P", "road.T", "road.eye", "road.small", "road.roach"] {
            used.insert(k.to_string());
        }
        for s in ["S", "H", "D", "C"] {
            used.insert(format!("suit.{s}"));
        }
        assert!(used.len() > 150, "the scan found the page's keys: {}", used.len());
        let missing: Vec<_> = used.iter().filter(|k| !en.contains_key(*k)).collect();
        assert!(missing.is_empty(), "keys the page uses that the catalogue lacks: {missing:?}");
    }

    /// The back office's scripts (`admin*.js`) and the surveillance page's,
    /// which is built on them.
    fn admin_scripts() -> Vec<(&'static str, &'static str)> {
        FILES
            .iter()
            .filter(|f| (f.0.starts_with("admin") || f.0.starts_with("surveillance")) && f.0.ends_with(".js"))
            .map(|f| (f.0, f.2))
            .collect()
    }

    /// Every key the back office asks for is in the catalogue: each
    /// `'admin.…'` and `tr('…')` in its scripts, each `data-i18n…` of its
    /// HTML, and each role's word.
    #[test]
    fn every_key_the_back_office_uses_is_in_the_catalogue() {
        let en = &catalogue()["en"];
        let mut used = BTreeSet::new();
        let quoted = |text: &str, start: &str, end: char, used: &mut BTreeSet<String>| {
            for (i, _) in text.match_indices(start) {
                let rest = &text[i + start.len()..];
                used.insert(rest[..rest.find(end).expect("a closing quote")].to_string());
            }
        };
        for (_, text) in admin_scripts() {
            quoted(text, "tr('", '\'', &mut used);
            for (i, _) in text.match_indices("'admin.") {
                let rest = &text[i + 1..];
                used.insert(rest[..rest.find('\'').expect("a closing quote")].to_string());
            }
        }
        for attr in ["data-i18n=\"", "data-i18n-label=\""] {
            quoted(file("admin.html"), attr, '"', &mut used);
            quoted(file("surveillance.html"), attr, '"', &mut used);
        }
        for r in crate::auth::Role::ALL {
            used.insert(format!("admin.role.{}", r.name()));
        }
        assert!(used.len() > 100, "the scan found the back office's keys: {}", used.len());
        let missing: Vec<_> = used.iter().filter(|k| !en.contains_key(*k)).collect();
        assert!(missing.is_empty(), "keys the back office uses that the catalogue lacks: {missing:?}");
    }

    /// The back office writes no markup from data (every text is a text
    /// node: `textContent`, `el()`), and its page runs no inline script and
    /// no inline handler (the CSP would refuse them anyway).
    #[test]
    fn the_back_office_writes_no_markup_and_has_no_inline_script() {
        let scripts = admin_scripts();
        assert!(
            scripts.len() >= 7,
            "the back office's scripts are served: {:?}",
            scripts.iter().map(|s| s.0).collect::<Vec<_>>()
        );
        for (name, text) in scripts {
            for sink in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"] {
                assert!(!text.contains(sink), "{name} uses {sink}");
            }
        }
        for name in ["admin.html", "surveillance.html"] {
            let page = file(name);
            for (i, _) in page.match_indices("<script") {
                let tag = &page[i..i + page[i..].find('>').expect("a tag's end")];
                assert!(tag.contains(" src=\"/assets/"), "an inline script in {name}: {tag}");
            }
            let lower = page.to_ascii_lowercase();
            for handler in [" onclick=", " onload=", " onsubmit=", " oninput=", " onchange=", "javascript:"] {
                assert!(!lower.contains(handler), "{name} has {handler}");
            }
        }
    }
}
