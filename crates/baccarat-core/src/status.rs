//! A server's status lines ("listening on …", "standing by: …", "recovered
//! …", "stopped: checkpoint written"): said on stdout, as they always were,
//! for the scripts, tests and people that read them there; and logged, at
//! info under the target `baccarat::status`, so that the log on stderr
//! (text or JSON, `docs/logging.md`) tells the whole story by itself.
//!
//! Written without a panic: after SIGHUP the terminal may be gone
//! (`stop.rs`), and `println!` would then panic in the middle of a stop.

use std::io::Write;

/// Say `line` on stdout and log it (see the module's notes).
pub fn say(line: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{line}");
    tracing::info!(target: "baccarat::status", "{line}");
}
