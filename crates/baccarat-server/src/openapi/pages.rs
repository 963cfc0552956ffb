//! The pages' part of the API document (`http/web.rs`): the HTML pages and
//! their assets, which answer files, not JSON.

use serde_json::json;

use super::*;

/// The pages: `web.rs`.
pub(super) fn operations() -> Vec<Operation> {
    let asset = Op::new(
        "A file of the pages: index.html, pit.html, tournament.html, leaderboard.html, fair.html, help.html, multi.html, \
         style.css, common.js (with delta.js), table.js (with felt-net.js), pit.js (with pit-base.js, pit-words.js, pit-cards.js, pit-dialogs.js and \
         pit-recall.js), tournament.js, leaderboard.js, fair.js, help.js, multi.js, sound.js, limits.js, \
         i18n.js, the pages' message catalogue messages.json, and the back office's admin.js (with admin-base.js, \
         admin-people.js, admin-tables.js, admin-table-form.js, admin-cage.js and admin-books.js) and admin.css",
    )
    .param(json!({ "name": "name", "in": "path", "required": true, "schema": string(), "example": "style.css" }))
    .page("the file", &["text/html", "text/css", "text/javascript", "application/json"]);
    vec![
        ("get", "/", Op::new("The lobby and table page (HTML)").page("the page", &["text/html"])),
        ("get", "/pit", Op::new("The pit console and the inspector's recall (HTML)").page("the page", &["text/html"])),
        (
            "get",
            "/multi",
            Op::new("Several tables at once: up to four tables' pages side by side, `#tables=<id>,<id>` (HTML)")
                .page("the page", &["text/html"]),
        ),
        (
            "get",
            "/tournament",
            Op::new("A player's tournament page, `?t=<id>` (HTML)").page("the page", &["text/html"]),
        ),
        (
            "get",
            "/leaderboard",
            Op::new("A tournament's public leaderboard, `?t=<id>` (HTML)").page("the page", &["text/html"]),
        ),
        (
            "get",
            "/fair",
            Op::new("A table's shoes, provably fair: commitments, seeds, the check, `?table=<id>` (HTML)")
                .page("the page", &["text/html"]),
        ),
        (
            "get",
            "/help",
            Op::new("A table's rules, pay tables and house edges, `?table=<id>` (HTML)")
                .page("the page", &["text/html"]),
        ),
        ("get", "/assets/{name}", asset),
        (
            "get",
            "/admin",
            Op::new("The back office: people, tables, the cage and the day's books, for the admin (the inspector reads) (HTML)")
                .page("the page", &["text/html"]),
        ),
        (
            "get",
            "/surveillance",
            Op::new("The exposure monitor: every table's wagers priced from the cards shown, and the alerts, for surveillance and the pit (HTML)")
                .page("the page", &["text/html"]),
        ),
    ]
}
