//! Fuzzing on stable Rust: a small mutation fuzzer with structure-aware
//! generators, one test per target, each a fixed number of executions from a
//! seed corpus kept in the repository (`fuzz/corpus/<target>/`).
//!
//! ```sh
//! cargo test -p baccarat-server --test fuzz -- --nocapture      # every target
//! FUZZ_EXECS=200000 cargo test -p baccarat-server --test fuzz card_input -- --nocapture
//! FUZZ_SEED=0x1234 FUZZ_ONLY=17 cargo test -p baccarat-server --test fuzz profile_toml
//! ```
//!
//! `FUZZ_EXECS` sets every target's count (`FUZZ_EXECS_<TARGET>` one target's),
//! `FUZZ_SEED` the base seed (each target has a fixed default), `FUZZ_ONLY` one
//! iteration. A failure prints the target, seed and iteration and writes the
//! input to `<target dir>/fuzz-failures/`, to be added to the corpus once
//! fixed. Each target prints its executions and time, and appends them to
//! `<target dir>/fuzz-stats.txt`.

#[path = "../server/common.rs"]
mod common;

mod audit;
mod corpus;
mod engine;
mod gen;
mod harness;
mod http;
mod mutate;
mod regressions;
mod rules;

/// Target 1: a rulebook profile's TOML (`Rulebook::from_toml`).
#[test]
fn profile_toml() {
    rules::profile_toml();
}

/// Target 2: a table configuration's TOML against every built-in profile.
#[test]
fn table_config_toml() {
    rules::table_config_toml();
}

/// Target 3: the command JSON of every route, through the real router.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_routes() {
    http::http_routes().await;
}

/// Target 4: card-input streams, garbage tokens included, to a live table.
#[test]
fn card_input() {
    engine::card_input();
}

/// Target 5: the audit record decoder and the chain check.
#[test]
fn audit_record() {
    audit::audit_record();
}

/// Regenerate the generated corpus (commands, audit records).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "writes fuzz/corpus; run by hand when the commands or records change"]
async fn write_corpus() {
    corpus::write().await;
}
