//! `baccarat serve`: its settings ([`ServeArgs`]) and the start.
//!
//! - `serve/file.rs`: the `--config` file and the range check;
//! - `serve/plan.rs`: flags, environment, file and defaults to a
//!   `ServeConfig`, a function a group of settings;
//! - `serve/settings.rs`, `print_config.rs`, `reference.rs`: the settings'
//!   list, `--print-config` and `--config-reference`;
//! - `serve/tests.rs`: precedence, ranges and refusals.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use baccarat_server::standby_for::serve_with_standbys;

mod file;
mod plan;
mod print_config;
mod reference;
mod settings;
#[cfg(test)]
mod tests;

use file::file_settings;
pub use plan::plan;

/// Settings come from flags, then environment variables, then the `--config`
/// file, then the defaults, in that order of precedence.
///
/// Each field is one setting, and its doc comment is its help: `serve --help`,
/// `serve --print-config` and the reference docs/configuration.md
/// (`serve --config-reference`) are all made from these definitions
/// (`serve/settings.rs`). To add a setting: a field here with its help
/// ending in `[default: …]`, a field of the same name in `FileSettings`
/// (`serve/file.rs`: its `--config` key; a setting for one start only is named in
/// `settings::NOT_IN_FILE` instead), its line in [`plan`] (`serve/plan.rs`), and a
/// range its help states (`1 to 3600`, `up to 1000`) refused by `in_range`; then
/// regenerate docs/configuration.md (`serve --config-reference`). Tests
/// check each of these.
#[derive(clap::Args)]
pub struct ServeArgs {
    /// A TOML file of settings: each setting's key is its field's name (the
    /// flag's, with _ for -; docs/configuration.md lists them all) [default:
    /// none].
    #[arg(long, env = "BACCARAT_CONFIG")]
    config: Option<PathBuf>,
    /// The database: a SQLite file, or a PostgreSQL URL (`postgres://…`);
    /// a new one holds an empty casino with one admin, or with --demo the
    /// demo casino [default: baccarat.db].
    #[arg(long, env = "BACCARAT_DB")]
    db: Option<PathBuf>,
    /// Found a new casino as the demo: a table per rulebook, staff and
    /// players with play chips (password "demo"). Without it a new casino is
    /// empty but for its first admin. Ignored by a casino that exists
    /// [default: off].
    #[arg(long, env = "BACCARAT_DEMO")]
    demo: bool,
    /// A file whose first line is the first admin's password (12 characters
    /// or more), read only when a new casino is founded. The password may
    /// instead be in BACCARAT_ADMIN_PASSWORD; with neither, one is made and
    /// written to <db>.admin-password, readable only by its owner [default:
    /// none].
    #[arg(long, env = "BACCARAT_ADMIN_PASSWORD_FILE")]
    admin_password_file: Option<PathBuf>,
    /// Address to listen on [default: 127.0.0.1:8080].
    #[arg(long, env = "BACCARAT_ADDR")]
    addr: Option<std::net::SocketAddr>,
    /// Seconds betting stays open on RNG tables, 1 to 3600 [default: 15].
    #[arg(long, env = "BACCARAT_BETTING_SECONDS")]
    betting_seconds: Option<u64>,
    /// Milliseconds between cards on RNG tables, up to 60000 [default: 700].
    #[arg(long, env = "BACCARAT_DEAL_MS")]
    deal_ms: Option<u64>,
    /// Seconds a player may squeeze a hand on an RNG table before the dealer
    /// exposes it, 1 to 600 [default: 12].
    #[arg(long, env = "BACCARAT_SQUEEZE_SECONDS")]
    squeeze_seconds: Option<u64>,
    /// Milliseconds the result stays on an RNG table before betting reopens,
    /// up to 60000 [default: 3000].
    #[arg(long, env = "BACCARAT_RESULT_MS")]
    result_ms: Option<u64>,
    /// Requests a second each signed-in user may make to routes that change
    /// something, 1 to 1000000 [default: 200].
    #[arg(long, env = "BACCARAT_RATE")]
    rate: Option<u32>,
    /// Serve the web pages from this folder instead of the embedded copies
    /// [default: the pages embedded in the binary].
    #[arg(long, env = "BACCARAT_WEB_DIR")]
    web_dir: Option<PathBuf>,
    /// The append-only file of signed chain heads [default: <db>.anchors;
    /// with PostgreSQL, baccarat-postgres.anchors in the working directory,
    /// with --partition NAME baccarat-postgres-NAME.anchors].
    #[arg(long, env = "BACCARAT_ANCHOR_FILE")]
    anchor_file: Option<PathBuf>,
    /// The server's Ed25519 signing key, created on first use (mode 0600; a
    /// start refuses one its group or others can read); keep it off the
    /// database's volume in production [default: <db>.key; with PostgreSQL,
    /// baccarat-postgres.key in the working directory, with --partition NAME
    /// baccarat-postgres-NAME.key].
    #[arg(long, env = "BACCARAT_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// The largest table (or personal) maximum the casino accepts, in minor
    /// units, 1 to 10^12 [default: 10^10].
    #[arg(long, env = "BACCARAT_CEILING")]
    ceiling: Option<i64>,
    /// Seconds a session may go unused before it ends, 60 to 86400 [default:
    /// 1800].
    #[arg(long, env = "BACCARAT_SESSION_IDLE_SECONDS")]
    session_idle_seconds: Option<u64>,
    /// Seconds a session lasts at most, however used, 60 to 2592000 [default:
    /// 43200].
    #[arg(long, env = "BACCARAT_SESSION_MAX_SECONDS")]
    session_max_seconds: Option<u64>,
    /// Hours an idempotency key is remembered: a request sent again within
    /// them is answered as it was first, after them it is a new request; 1 to
    /// 8760 [default: 72].
    #[arg(long, env = "BACCARAT_KEY_RETENTION_HOURS")]
    key_retention_hours: Option<u64>,
    /// This server's name in the audit records and the casino's lease
    /// [default: the host's name].
    #[arg(long, env = "BACCARAT_INSTANCE")]
    instance: Option<String>,
    /// With PostgreSQL: the URL other servers send clients to while this one
    /// serves the casino [default: http:// and --addr].
    #[arg(long, env = "BACCARAT_ADVERTISE")]
    advertise: Option<String>,
    /// Another origin (http[s]://host[:port], comma-separated or the flag
    /// again) whose pages may open a table's WebSocket signed in by the
    /// session cookie: a site served under several names, or over https://
    /// by a TLS front; the server's own (http:// and the host a page asked,
    /// and --advertise's) always may, others are refused 403 [default: none].
    #[arg(long = "allowed-origin", env = "BACCARAT_ALLOWED_ORIGINS", value_delimiter = ',')]
    allowed_origins: Vec<String>,
    /// The address of a proxy in front (a TLS front; comma-separated or the
    /// flag again) whose X-Forwarded-For and X-Forwarded-Proto are believed:
    /// sign-in limits count its clients, not it, and a session cookie sent
    /// over https is Secure. Only its connections' headers are believed
    /// [default: none].
    #[arg(long = "trusted-proxy", env = "BACCARAT_TRUSTED_PROXIES", value_delimiter = ',')]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// Serve HTTPS (only) with this PEM certificate chain, the server's own
    /// certificate first; with --tls-key. Read at the start: a renewed
    /// certificate takes effect at the next start [default: plain HTTP].
    #[arg(long, env = "BACCARAT_TLS_CERT")]
    tls_cert: Option<PathBuf>,
    /// The PEM private key of --tls-cert's certificate (keep it readable by
    /// the server's user only) [default: none; one of the two without the
    /// other is refused].
    #[arg(long, env = "BACCARAT_TLS_KEY")]
    tls_key: Option<PathBuf>,
    /// Addresses beside loopback that may read /metrics (a Prometheus
    /// server; comma-separated or the flag again), judged by the
    /// connection's own address, never a forwarded one; anyone else gets
    /// 403 [default: loopback only].
    #[arg(long = "metrics-from", env = "BACCARAT_METRICS_FROM", value_delimiter = ',')]
    metrics_from: Vec<std::net::IpAddr>,
    /// The exposure monitor's alert thresholds (GET /api/exposure, the pit,
    /// /surveillance): an offered wager alerts when its exact expected
    /// return to the player, from the cards not yet shown, is above its
    /// table's threshold. `EV` sets every table's, `TABLE=EV` one table's
    /// (comma-separated or the flag again); EV per unit staked as a decimal
    /// or a percentage, such as 0, -0.005 or 1.5% [default: 0, a wager in
    /// the player's favour].
    #[arg(long = "exposure-alert", env = "BACCARAT_EXPOSURE_ALERT", value_delimiter = ',')]
    exposure_alert: Vec<String>,
    /// With PostgreSQL: milliseconds the casino's lease lasts unrenewed (a
    /// standby takes over this long after the server dies), 1000 to 600000
    /// [default: 5000].
    #[arg(long, env = "BACCARAT_LEASE_MS")]
    lease_ms: Option<u64>,
    /// Milliseconds at most between lines of the anchor file: the heads of
    /// every batch committed since are signed into one line; 0 writes a line
    /// per batch (always, with PostgreSQL); up to 1000 [default: 250].
    #[arg(long, env = "BACCARAT_ANCHOR_EVERY_MS")]
    anchor_every_ms: Option<u64>,
    /// With PostgreSQL: serve partition NAME of the casino (its own tables,
    /// lease, logs and anchor file, in schema baccarat_p_NAME), its players'
    /// money taken from the casino's shared bank as their wagers need it;
    /// 1 to 40 lower-case letters, digits or _ [default: the whole casino].
    #[arg(long, env = "BACCARAT_PARTITION")]
    partition: Option<String>,
    /// With --partition: also stand by for these other partitions
    /// (comma-separated NAME or NAME:PORT), in this process: when one's
    /// server dies and its lease expires, this server takes it over and
    /// serves it beside its own, on --addr's IP and the PORT given (else one
    /// the system picks), until the partition's own server asks for it back.
    /// Each partition keeps its own anchor file, so --anchor-file must then
    /// name it with {partition} (`/shared/{partition}.anchors`)
    /// [default: none].
    #[arg(long, env = "BACCARAT_STANDBY_FOR", value_delimiter = ',')]
    standby_for: Vec<String>,
    /// Begin a new anchor file although the database holds a casino: only
    /// when the old file is lost for good (a start without the file is
    /// otherwise refused). Every chain is signed as it now stands; what the
    /// old file signed is not checked. For one start: not an environment
    /// variable or a `--config` key.
    /// [default: off]
    #[arg(long)]
    new_anchor_file: bool,
    /// Print every setting in effect and where it came from (a flag, an
    /// environment variable, the --config file, or the default), check them,
    /// and exit without opening the database. Secrets are never printed.
    #[arg(long)]
    print_config: bool,
    /// Print the configuration reference (docs/configuration.md) as Markdown.
    #[arg(long, hide = true)]
    config_reference: bool,
    /// How the log on stderr is written: text (a line for a person) or json
    /// (an object a line, for a collector) [default: text].
    #[arg(long, env = "BACCARAT_LOG_FORMAT")]
    log_format: Option<crate::cmd::logging::LogFormat>,
    /// The least level logged (error, warn, info, debug, trace), or
    /// directives as RUST_LOG takes them; RUST_LOG, when set, wins
    /// [default: info].
    #[arg(long, env = "BACCARAT_LOG_LEVEL")]
    log_level: Option<String>,
}

/// `serve`: the reference, or the settings in effect, or the server. `m`
/// is `serve`'s own matches (where each value came from).
pub fn run_serve(a: ServeArgs, m: &clap::ArgMatches) -> Result<()> {
    if a.config_reference {
        print!("{}", reference::markdown());
        return Ok(());
    }
    if a.print_config {
        return show_config(a, m);
    }
    start_log(&a)?;
    let (cfg, others) = plan(a)?;
    no_huge_pages();
    let rt = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    let served = rt.block_on(serve_with_standbys(cfg, others));
    // In the log too (`main` says it on stderr as every command's error).
    if let Err(e) = &served {
        tracing::error!(error = %e, "the server stopped on an error");
    }
    // Everything the stop must finish (the checkpoint, the last anchor
    // line, the lease given up) is done by now; a blocking task still
    // running (a database call with no answer) may not hold the exit for
    // ever, as dropping the runtime would (it waits for them all).
    rt.shutdown_timeout(EXIT_GRACE);
    served.map_err(anyhow::Error::msg)
}

/// How long the exit waits for blocking tasks still running after the stop.
const EXIT_GRACE: Duration = Duration::from_secs(10);

/// The log's format and level, from the flag (or its variable), the file
/// or the default (`logging.rs`), set up before anything is said.
fn start_log(a: &ServeArgs) -> Result<()> {
    let file = file_settings(a)?;
    let format = a.log_format.or(file.log_format).unwrap_or_default();
    let level = a.log_level.clone().or(file.log_level).unwrap_or_else(|| "info".to_string());
    crate::cmd::logging::init(format, &level)
}

/// `--print-config`: the settings in effect and where each came from; then
/// they are checked as a start would check them, and the anchor and key
/// files they name are printed, without opening the database.
fn show_config(a: ServeArgs, m: &clap::ArgMatches) -> Result<()> {
    let table = match &a.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("--config: cannot read {}", p.display()))?;
            Some((p.display().to_string(), text.parse::<toml::Table>().unwrap_or_default()))
        }
        None => None,
    };
    let admin_password = std::env::var_os(settings::ADMIN_PASSWORD_ENV).is_some();
    print!("{}", print_config::report(m, table.as_ref().map(|(p, t)| (p.as_str(), t)), admin_password));
    let (cfg, others) = plan(a)?;
    for c in std::iter::once(&cfg).chain(&others) {
        let (anchors, key) = c.anchor_paths();
        let whose = c.partition.as_deref().map_or(String::new(), |p| format!(" of partition {p}"));
        println!("# the files{whose}: anchor file {}, signing key {}", anchors.display(), key.display());
    }
    Ok(())
}

/// Turn transparent huge pages off for the server's process.
///
/// mimalloc asks for huge pages on its arenas (`madvise(MADV_HUGEPAGE)`), and
/// the kernel then zeroes two megabytes at the first touch of each. Under
/// `loadgen` that zeroing was 9% of the committer's time and about 10% of the
/// writer's (3.2% of the whole server's samples; `perf`: `clear_page_erms`
/// under `do_huge_pmd_anonymous_page`),
/// in faults long enough to show in every request's p99: four alternated
/// 30 s runs each gave p99 10.0–12.5 ms and 40.7–52.1 k bets/s (mean 46.1)
/// with them off, against 14.6–18.9 ms and 42.8–46.6 k (mean 43.9) with
/// them on. (On this machine a first touch of fresh memory cost six times
/// as much in huge pages as in small ones, in a C `memset` of 1 GiB the
/// session before: 3.5 s against 0.6 s.) A
/// refusal leaves the server as it was, so it is only reported.
fn no_huge_pages() {
    #[cfg(target_os = "linux")]
    if let Err(e) = nix::sys::prctl::set_thp_disable(true) {
        tracing::warn!(error = %e, "cannot turn transparent huge pages off; serving with them");
    }
}
