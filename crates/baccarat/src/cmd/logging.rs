//! Where the log goes and how it looks (issue 48; `docs/logging.md`).
//!
//! One subscriber for the process, on stderr (a service manager's journal
//! takes it): each line with its time (UTC, RFC 3339), level, target and
//! fields, as text for a person or one JSON object a line for a collector.
//! Which lines: `RUST_LOG` if it is set (tracing-subscriber's directives,
//! `info,baccarat_server::access=warn`), else `serve --log-level` (default
//! info). The commands that are not `serve` log their warnings only, as
//! text: their output is their own, on stdout.
//!
//! `serve`'s lines are written on a thread of their own (`tracing-appender`'s
//! non-blocking writer), so that a request does not wait for the write to
//! stderr (its access line cost a system call each on the request's path:
//! docs/performance.md). Nothing is dropped: with [`QUEUED_LINES`] waiting,
//! a request waits for room, as it waited for the write before. The lines
//! waiting are written out before the process ends, whichever way it ends
//! but a kill: at the end of `main`, and by `baccarat_core::exit::exit` (a
//! fatal condition, a second stop signal), which runs the hook [`init`]
//! registers.

use std::io::IsTerminal;

use anyhow::{bail, Result};
use tracing_subscriber::EnvFilter;

/// How the log is written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// A line for a person: time, level, target, message, fields.
    #[default]
    Text,
    /// One JSON object a line: timestamp, level, target, fields, span.
    Json,
}

/// The filter: `RUST_LOG` when set and not empty, else `level` (a level,
/// or directives as `RUST_LOG` takes them). Either is refused naming its
/// setting if it does not parse.
pub fn filter(rust_log: Option<&str>, level: &str) -> Result<EnvFilter> {
    match rust_log.filter(|v| !v.trim().is_empty()) {
        Some(v) => EnvFilter::try_new(v).or_else(|e| bail!("RUST_LOG: {v:?} does not parse: {e}")),
        None => {
            // A lone word is a level (else it would filter on a target of
            // that name, and `--log-level verbose` would log nothing).
            let word = !level.contains(['=', ',', '[']);
            if word && !LEVELS.contains(&level.trim().to_ascii_lowercase().as_str()) {
                bail!(
                    "log_level: {level:?} is not one of {}, nor directives as RUST_LOG takes them",
                    LEVELS.join(", ")
                );
            }
            EnvFilter::try_new(level).or_else(|e| bail!("log_level: {level:?} does not parse: {e}"))
        }
    }
}

/// The levels `--log-level` takes as a word.
const LEVELS: [&str; 6] = ["off", "error", "warn", "info", "debug", "trace"];

/// How many lines may wait for the log's thread before a line logged waits
/// for room (a burst of access lines, about 2 MB; lossless, see the module).
pub const QUEUED_LINES: usize = 8_192;

/// Set the process's subscriber for `serve` (once; a second call changes
/// nothing), writing on the log's own thread.
pub fn init(format: LogFormat, level: &str) -> Result<()> {
    let filter = filter(std::env::var("RUST_LOG").ok().as_deref(), level)?;
    // Buffered on the log's thread: it writes what waits in one go, and
    // flushes once nothing more waits.
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .buffered_lines_limit(QUEUED_LINES)
        .thread_name("log")
        .finish(std::io::BufWriter::new(std::io::stderr()));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(writer);
    let set = match format {
        LogFormat::Text => builder.with_ansi(std::io::stderr().is_terminal()).try_init(),
        LogFormat::Json => builder.json().with_current_span(true).with_span_list(false).try_init(),
    };
    if set.is_ok() {
        // Dropping the guard writes out every line logged before it, and
        // waits (up to a second) for the thread to have written them.
        baccarat_core::exit::on_exit(move || drop(guard));
    }
    Ok(())
}

/// The commands other than `serve`: their warnings (a key index rebuilt, a
/// checkpoint refused) as text on stderr as they happen, or as `RUST_LOG`
/// says.
pub fn init_quiet() {
    let filter = filter(std::env::var("RUST_LOG").ok().as_deref(), "warn");
    if let Ok(filter) = filter {
        let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
        let _ = builder.with_ansi(std::io::stderr().is_terminal()).try_init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_log_wins_and_either_is_refused_naming_itself() {
        assert_eq!(filter(None, "info").unwrap().to_string(), "info");
        assert_eq!(filter(Some(""), "debug").unwrap().to_string(), "debug", "an empty RUST_LOG is unset");
        let f = filter(Some("warn,baccarat_server::access=off"), "info").unwrap().to_string();
        assert!(f.contains("baccarat_server::access=off") && f.contains("warn"), "{f}");
        assert!(filter(None, "loud=[").unwrap_err().to_string().starts_with("log_level:"));
        assert!(filter(None, "verbose").unwrap_err().to_string().starts_with("log_level: \"verbose\" is not one of"));
        assert!(filter(None, "WARN").is_ok());
        assert!(filter(Some("loud=["), "info").unwrap_err().to_string().starts_with("RUST_LOG:"));
    }
}
