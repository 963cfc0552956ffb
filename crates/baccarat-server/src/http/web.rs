//! The web pages: the lobby and table page (`/`), the pit console (`/pit`), a
//! player's tournament page (`/tournament`), the leaderboard (`/leaderboard`)
//! the provably-fair page (`/fair?table=N`) and a table's rules and odds
//! (`/help?table=N`).
//! They are plain HTML, CSS and JavaScript with no build step, embedded in the
//! binary so that `cargo run` serves them with nothing else installed. With
//! `--web-dir` the files are read from that folder instead (for working on them).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::AppState;

/// The embedded files: name, content type, content.
pub const FILES: [(&str, &str, &str); 16] = [
    ("index.html", "text/html; charset=utf-8", include_str!("../../web/index.html")),
    ("pit.html", "text/html; charset=utf-8", include_str!("../../web/pit.html")),
    ("style.css", "text/css; charset=utf-8", include_str!("../../web/style.css")),
    ("common.js", "text/javascript; charset=utf-8", include_str!("../../web/common.js")),
    ("table.js", "text/javascript; charset=utf-8", include_str!("../../web/table.js")),
    ("pit.js", "text/javascript; charset=utf-8", include_str!("../../web/pit.js")),
    ("tournament.html", "text/html; charset=utf-8", include_str!("../../web/tournament.html")),
    ("tournament.js", "text/javascript; charset=utf-8", include_str!("../../web/tournament.js")),
    ("leaderboard.html", "text/html; charset=utf-8", include_str!("../../web/leaderboard.html")),
    ("leaderboard.js", "text/javascript; charset=utf-8", include_str!("../../web/leaderboard.js")),
    ("fair.html", "text/html; charset=utf-8", include_str!("../../web/fair.html")),
    ("fair.js", "text/javascript; charset=utf-8", include_str!("../../web/fair.js")),
    ("help.html", "text/html; charset=utf-8", include_str!("../../web/help.html")),
    ("help.js", "text/javascript; charset=utf-8", include_str!("../../web/help.js")),
    ("sound.js", "text/javascript; charset=utf-8", include_str!("../../web/sound.js")),
    ("limits.js", "text/javascript; charset=utf-8", include_str!("../../web/limits.js")),
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

pub(super) async fn asset(State(s): State<AppState>, Path(name): Path<String>) -> Response {
    file(&s, &name)
}
