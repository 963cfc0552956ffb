//! The HTTP suites (`http.rs`, `http_play.rs`, `attack.rs`) again, with the
//! server keeping its casino in PostgreSQL: the same routes, answers,
//! refusals and attacks on both back ends. Each server gets a database of
//! its own on the test cluster (`pg.rs`). The files are compiled twice on
//! purpose (each reaches its server through `super::common`), hence
//! `duplicate_mod`.
#![allow(clippy::duplicate_mod)]

mod common {
    pub use crate::common::*;
    use baccarat_server::serve::ServeConfig;

    pub async fn spawn_app() -> App {
        spawn_app_with(|_| {}).await
    }

    /// As the SQLite suite's, on a fresh PostgreSQL database.
    pub async fn spawn_app_with(tweak: impl FnOnce(&mut ServeConfig)) -> App {
        let name = baccarat_server::auth::random_hex(6);
        let url = tokio::task::spawn_blocking(move || crate::pg::database(&name)).await.unwrap();
        crate::common::spawn_app_with(move |c| {
            c.postgres = Some(url);
            tweak(c);
        })
        .await
    }
}

#[path = "attack.rs"]
mod attack;
#[path = "http.rs"]
mod http;
#[path = "http_play.rs"]
mod http_play;
