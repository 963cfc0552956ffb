//! `baccarat serve`.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Context, Result};
use baccarat_server::serve::ServeConfig;
use baccarat_server::standby_for::serve_with_standbys;

mod print_config;
mod reference;
mod settings;

/// Settings come from flags, then environment variables, then the `--config`
/// file, then the defaults, in that order of precedence.
///
/// Each field is one setting, and its doc comment is its help: `serve --help`,
/// `serve --print-config` and the reference docs/configuration.md
/// (`serve --config-reference`) are all made from these definitions
/// (`serve/settings.rs`). To add a setting: a field here with its help
/// ending in `[default: …]`, a field of the same name in [`FileSettings`]
/// (its `--config` key; a setting for one start only is named in
/// `settings::NOT_IN_FILE` instead), its line in [`plan`], and a range its
/// help states (`1 to 3600`, `up to 1000`) refused by `in_range`; then
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

/// With PostgreSQL, the anchor and key files' default name (beside it:
/// `.anchors`, `.key`), in the working directory.
const POSTGRES_LOCAL: &str = "baccarat-postgres";

/// The longest `--anchor-every-ms` (docs/design.md: "Anchors, reconciliation and what `verify` proves").
const MAX_ANCHOR_EVERY_MS: u64 = 1_000;

/// The `--config` file.
#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSettings {
    db: Option<PathBuf>,
    demo: Option<bool>,
    admin_password_file: Option<PathBuf>,
    addr: Option<String>,
    betting_seconds: Option<u64>,
    deal_ms: Option<u64>,
    squeeze_seconds: Option<u64>,
    result_ms: Option<u64>,
    rate: Option<u32>,
    web_dir: Option<PathBuf>,
    anchor_file: Option<PathBuf>,
    key_file: Option<PathBuf>,
    ceiling: Option<i64>,
    session_idle_seconds: Option<u64>,
    session_max_seconds: Option<u64>,
    key_retention_hours: Option<u64>,
    instance: Option<String>,
    advertise: Option<String>,
    allowed_origins: Option<Vec<String>>,
    trusted_proxies: Option<Vec<String>>,
    tls_cert: Option<PathBuf>,
    tls_key: Option<PathBuf>,
    metrics_from: Option<Vec<String>>,
    lease_ms: Option<u64>,
    anchor_every_ms: Option<u64>,
    partition: Option<String>,
    standby_for: Option<Vec<String>>,
    log_format: Option<crate::cmd::logging::LogFormat>,
    log_level: Option<String>,
}

fn in_range(name: &str, v: u64, lo: u64, hi: u64) -> Result<u64> {
    if !(lo..=hi).contains(&v) {
        bail!("{name}: {v} is outside {lo} to {hi}");
    }
    Ok(v)
}

/// The server's settings from the arguments, the file and the defaults, and
/// those of each partition it stands by for
/// (`--standby-for`: as its own, but for the partition's URL, files and port).
pub fn plan(a: ServeArgs) -> Result<(ServeConfig, Vec<ServeConfig>)> {
    let file = file_settings(&a)?;
    let addr = match (a.addr, &file.addr) {
        (Some(a), _) => a,
        (None, Some(s)) => {
            s.parse().map_err(|_| anyhow::anyhow!("addr: {s:?} is not an address like 127.0.0.1:8080"))?
        }
        (None, None) => "127.0.0.1:8080".parse().expect("default address"),
    };
    let standby_for =
        if a.standby_for.is_empty() { file.standby_for.clone().unwrap_or_default() } else { a.standby_for.clone() };
    let (mut cfg, casino_url) = store_config(&a, &file, addr)?;
    set_pacing(&mut cfg, &a, &file)?;
    set_founding(&mut cfg, &a, &file, std::env::var("BACCARAT_ADMIN_PASSWORD").ok())?;
    cfg.web_dir = a.web_dir.clone().or(file.web_dir.clone());
    cfg.anchor_file = a.anchor_file.clone().or(file.anchor_file.clone());
    cfg.key_file = a.key_file.clone().or(file.key_file.clone());
    set_limits(&mut cfg, &a, &file)?;
    set_identity(&mut cfg, &a, &file)?;
    cfg.tls = tls_files(&a, &file)?;
    cfg.lease =
        Duration::from_millis(in_range("lease_ms", a.lease_ms.or(file.lease_ms).unwrap_or(5000), 1000, 600_000)?);
    let every = a.anchor_every_ms.or(file.anchor_every_ms);
    let every = every.unwrap_or(baccarat_server::serve::DEFAULT_ANCHOR_EVERY.as_millis() as u64);
    // At most a second: what a crash leaves unanchored, a forger who can
    // edit the database may delete unseen (`anchor.rs`), so an operator's
    // setting may not widen that to a minute (it could, up to 60,000).
    cfg.anchor_every = Duration::from_millis(in_range("anchor_every_ms", every, 0, MAX_ANCHOR_EVERY_MS)?);
    cfg.new_anchor_file = a.new_anchor_file;
    if let Some(d) = &cfg.web_dir {
        if !d.join("index.html").is_file() {
            bail!("web_dir: {} has no index.html", d.display());
        }
    }
    let others = standbys(&cfg, casino_url.as_deref(), &standby_for)?;
    if let Some(p) = cfg.partition.clone() {
        (cfg.anchor_file, cfg.key_file) = (of_partition(&cfg.anchor_file, &p), of_partition(&cfg.key_file, &p));
    }
    Ok((cfg, others))
}

/// The `--config` file's settings, or none.
fn file_settings(a: &ServeArgs) -> Result<FileSettings> {
    Ok(match &a.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("--config: cannot read {}", p.display()))?;
            toml::from_str::<FileSettings>(&text)
                .map_err(|e| anyhow::anyhow!("--config {}: {}", p.display(), e.message()))?
        }
        None => FileSettings::default(),
    })
}

/// The store and the files beside it: a SQLite file, a whole PostgreSQL
/// casino, or one partition of it (its own schema and files); with a
/// partition, also the casino's URL, which its standbys share.
fn store_config(
    a: &ServeArgs,
    file: &FileSettings,
    addr: std::net::SocketAddr,
) -> Result<(ServeConfig, Option<String>)> {
    let db = a.db.clone().or(file.db.clone()).unwrap_or_else(|| PathBuf::from("baccarat.db"));
    let db = baccarat_server::store::Db::parse(&db.to_string_lossy());
    let partition = a.partition.clone().or(file.partition.clone());
    let mut casino_url = None;
    let cfg = match (db, partition) {
        (baccarat_server::store::Db::Sqlite(path), None) => ServeConfig::new(path, addr),
        (baccarat_server::store::Db::Sqlite(_), Some(_)) => {
            bail!("partition: a partition is of a PostgreSQL casino (--db postgres://…)")
        }
        (baccarat_server::store::Db::Postgres(url), None) => {
            ServeConfig { postgres: Some(url), ..ServeConfig::new(PathBuf::from(POSTGRES_LOCAL), addr) }
        }
        // Its anchor and key files are its own by default, beside the others.
        (baccarat_server::store::Db::Postgres(url), Some(p)) => {
            casino_url = Some(url.clone());
            ServeConfig {
                postgres: Some(baccarat_server::pg_store::partition_url(&url, &p).map_err(anyhow::Error::msg)?),
                partition: Some(p.clone()),
                ..ServeConfig::new(PathBuf::from(format!("{POSTGRES_LOCAL}-{p}")), addr)
            }
        }
    };
    Ok((cfg, casino_url))
}

/// How a new casino is founded: the demo or empty, and where its first
/// admin's password is (read only if the casino is new: `first_admin.rs`).
/// The password itself is never a flag or a `--config` key: a flag is seen
/// by every user of the machine, a config file is copied about.
fn set_founding(cfg: &mut ServeConfig, a: &ServeArgs, file: &FileSettings, env: Option<String>) -> Result<()> {
    use baccarat_server::first_admin::PasswordSource;
    if a.demo || file.demo == Some(true) {
        cfg.founding = baccarat_server::audit::Founding::Demo;
    }
    let path = a.admin_password_file.clone().or(file.admin_password_file.clone());
    cfg.admin_password = match (path, env) {
        (Some(_), Some(_)) => {
            bail!("admin_password_file: give the first admin's password once, by the file or BACCARAT_ADMIN_PASSWORD")
        }
        (Some(p), None) => Some(PasswordSource::File(p)),
        (None, Some(s)) => Some(PasswordSource::Env(s)),
        (None, None) => None,
    };
    Ok(())
}

/// The RNG tables' pace (betting, dealing, squeezing, the result's pause) and
/// the rate each user may change things at.
fn set_pacing(cfg: &mut ServeConfig, a: &ServeArgs, file: &FileSettings) -> Result<()> {
    cfg.betting = Duration::from_secs(in_range(
        "betting_seconds",
        a.betting_seconds.or(file.betting_seconds).unwrap_or(15),
        1,
        3600,
    )?);
    cfg.deal = Duration::from_millis(in_range("deal_ms", a.deal_ms.or(file.deal_ms).unwrap_or(700), 0, 60_000)?);
    cfg.squeeze = Duration::from_secs(in_range(
        "squeeze_seconds",
        a.squeeze_seconds.or(file.squeeze_seconds).unwrap_or(12),
        1,
        600,
    )?);
    cfg.result_pause =
        Duration::from_millis(in_range("result_ms", a.result_ms.or(file.result_ms).unwrap_or(3000), 0, 60_000)?);
    cfg.rate_per_second = in_range("rate", u64::from(a.rate.or(file.rate).unwrap_or(200)), 1, 1_000_000)? as u32;
    Ok(())
}

/// The casino's ceiling on any maximum, how long a session lasts (idle and
/// at most), and how long an idempotency key is remembered.
fn set_limits(cfg: &mut ServeConfig, a: &ServeArgs, file: &FileSettings) -> Result<()> {
    let ceiling = a.ceiling.or(file.ceiling).unwrap_or(baccarat_server::casino::DEFAULT_CEILING.0);
    cfg.ceiling =
        baccarat_rules::Money(in_range("ceiling", ceiling.max(0) as u64, 1, baccarat_rules::MAX_LIMIT as u64)? as i64);
    let idle = in_range(
        "session_idle_seconds",
        a.session_idle_seconds.or(file.session_idle_seconds).unwrap_or(cfg.sessions.idle_ms / 1000),
        60,
        86_400,
    )?;
    let max = in_range(
        "session_max_seconds",
        a.session_max_seconds.or(file.session_max_seconds).unwrap_or(cfg.sessions.max_ms / 1000),
        60,
        30 * 86_400,
    )?;
    if idle > max {
        bail!("session_idle_seconds: {idle} is longer than session_max_seconds {max}");
    }
    cfg.sessions = baccarat_server::auth::SessionPolicy { idle_ms: idle * 1000, max_ms: max * 1000 };
    let hours =
        in_range("key_retention_hours", a.key_retention_hours.or(file.key_retention_hours).unwrap_or(72), 1, 8760)?;
    cfg.key_retention = Duration::from_secs(hours * 3600);
    Ok(())
}

/// How the server names itself and is reached: its instance name, the URL
/// it advertises, and the other origins whose pages may open a WebSocket.
fn set_identity(cfg: &mut ServeConfig, a: &ServeArgs, file: &FileSettings) -> Result<()> {
    if let Some(name) = a.instance.clone().or(file.instance.clone()) {
        let ok = (1..=64).contains(&name.len())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if !ok {
            bail!("instance: {name:?} must be 1 to 64 letters, digits, '-', '_' or '.'");
        }
        cfg.instance = name;
    }
    if let Some(url) = a.advertise.clone().or(file.advertise.clone()) {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            bail!("advertise: {url:?} is not an http:// or https:// URL");
        }
        cfg.advertise = Some(url);
    }
    let origins = if a.allowed_origins.is_empty() {
        file.allowed_origins.clone().unwrap_or_default()
    } else {
        a.allowed_origins.clone()
    };
    cfg.trusted_proxies = if a.trusted_proxies.is_empty() {
        let listed = file.trusted_proxies.clone().unwrap_or_default();
        listed
            .iter()
            .map(|p| p.parse().map_err(|_| anyhow::anyhow!("trusted_proxies: {p:?} is not an IP address")))
            .collect::<Result<_>>()?
    } else {
        a.trusted_proxies.clone()
    };
    cfg.metrics_from = if a.metrics_from.is_empty() {
        let listed = file.metrics_from.clone().unwrap_or_default();
        listed
            .iter()
            .map(|p| p.parse().map_err(|_| anyhow::anyhow!("metrics_from: {p:?} is not an IP address")))
            .collect::<Result<_>>()?
    } else {
        a.metrics_from.clone()
    };
    cfg.allowed_origins = origins
        .iter()
        .map(|o| baccarat_server::http::origin::origin_of(o).map_err(|e| anyhow::anyhow!("allowed_origins: {e}")))
        .collect::<Result<_>>()?;
    Ok(())
}

/// `--tls-cert` and `--tls-key`: both or neither (the files themselves are
/// read and checked when the server starts: `baccarat_server::tls`).
fn tls_files(a: &ServeArgs, file: &FileSettings) -> Result<Option<baccarat_server::tls::TlsFiles>> {
    let cert = a.tls_cert.clone().or(file.tls_cert.clone());
    let key = a.tls_key.clone().or(file.tls_key.clone());
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(Some(baccarat_server::tls::TlsFiles { cert, key })),
        (None, None) => Ok(None),
        (Some(_), None) => bail!("tls_key: tls_cert is given without its key; give both, or neither for plain HTTP"),
        (None, Some(_)) => bail!("tls_cert: tls_key is given without its certificate; give both, or neither"),
    }
}

/// `path` with `{partition}` replaced by `name`.
fn of_partition(path: &Option<PathBuf>, name: &str) -> Option<PathBuf> {
    path.as_ref().map(|p| PathBuf::from(p.to_string_lossy().replace("{partition}", name)))
}

/// The configuration of each partition `own` stands by for: its own but for
/// the partition, its URL and its files (`standby_for.rs`).
fn standbys(own: &ServeConfig, casino_url: Option<&str>, names: &[String]) -> Result<Vec<ServeConfig>> {
    if names.is_empty() {
        return Ok(Vec::new());
    }
    let (Some(url), Some(mine)) = (casino_url, own.partition.as_deref()) else {
        bail!("standby_for: a server stands by for other partitions beside one of its own (--partition)");
    };
    if own.anchor_file.as_ref().is_some_and(|f| !f.to_string_lossy().contains("{partition}")) {
        bail!(
            "anchor_file: each partition keeps its own anchor file, so with standby_for name it with {{partition}} \
             (as /shared/{{partition}}.anchors)"
        );
    }
    let mut seen = std::collections::BTreeSet::from([mine.to_string()]);
    let mut ports = std::collections::BTreeSet::from([own.addr.port()]);
    let mut out = Vec::new();
    for given in names {
        let (name, port) = match given.split_once(':') {
            None => (given.as_str(), 0),
            Some((name, port)) => match port.parse::<u16>() {
                Ok(p) if p > 0 => (name, p),
                _ => bail!("standby_for: {given:?}: the port after ':' must be 1 to 65535"),
            },
        };
        let postgres =
            baccarat_server::pg_store::partition_url(url, name).map_err(|e| anyhow::anyhow!("standby_for: {e}"))?;
        if !seen.insert(name.to_string()) {
            bail!("standby_for: partition {name} is named twice, or is this server's own");
        }
        if port > 0 && !ports.insert(port) {
            bail!("standby_for: port {port} is given twice, or is --addr's own");
        }
        out.push(ServeConfig {
            addr: std::net::SocketAddr::new(own.addr.ip(), port),
            db: PathBuf::from(format!("{POSTGRES_LOCAL}-{name}")),
            postgres: Some(postgres),
            partition: Some(name.to_string()),
            anchor_file: of_partition(&own.anchor_file, name),
            key_file: of_partition(&own.key_file, name),
            // A start of this server with a new anchor file is its own
            // partition's: another partition's file is never begun here.
            new_anchor_file: false,
            ..own.clone()
        });
    }
    Ok(out)
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
    served.map_err(anyhow::Error::msg)
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(a: ServeArgs) -> Result<ServeConfig> {
        Ok(plan(a)?.0)
    }

    /// `--standby-for`: beside a partition of its own, each other partition
    /// named once, with an anchor file of its own (`{partition}`); the key
    /// may be shared. Each partition's URL, files and name are its own.
    #[test]
    fn a_server_stands_by_for_other_partitions_with_files_of_their_own() {
        let url = "postgres://u@localhost/casino";
        let with = |partition: Option<&str>, anchors: Option<&str>, standby: &[&str]| ServeArgs {
            db: Some(PathBuf::from(url)),
            partition: partition.map(str::to_string),
            anchor_file: anchors.map(PathBuf::from),
            key_file: Some(PathBuf::from("/shared/casino.key")),
            standby_for: standby.iter().map(|s| s.to_string()).collect(),
            ..args(None)
        };
        let (own, others) = plan(with(Some("west"), Some("/shared/{partition}.anchors"), &["east", "north"])).unwrap();
        assert_eq!(own.anchor_file, Some(PathBuf::from("/shared/west.anchors")));
        let got: Vec<_> = others
            .iter()
            .map(|c| (c.partition.clone().unwrap(), c.anchor_file.clone().unwrap(), c.key_file.clone().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("east".into(), PathBuf::from("/shared/east.anchors"), PathBuf::from("/shared/casino.key")),
                ("north".into(), PathBuf::from("/shared/north.anchors"), PathBuf::from("/shared/casino.key")),
            ]
        );
        assert_eq!(others[0].postgres, Some(baccarat_server::pg_store::partition_url(url, "east").unwrap()));
        assert_eq!((others[0].instance.as_str(), others[0].lease), (own.instance.as_str(), own.lease));
        // By default each partition's files are its own already.
        let (_, others) = plan(ServeArgs { key_file: None, ..with(Some("west"), None, &["east"]) }).unwrap();
        assert_eq!(others[0].anchor_paths().0, PathBuf::from("baccarat-postgres-east.anchors"));

        let refused = |a: ServeArgs| plan(a).unwrap_err().to_string();
        assert!(refused(with(None, None, &["east"])).starts_with("standby_for: a server stands by"));
        assert!(refused(with(Some("west"), Some("/shared/a.anchors"), &["east"])).starts_with("anchor_file:"));
        assert!(refused(with(Some("west"), None, &["west"])).contains("named twice, or is this server's own"));
        assert!(refused(with(Some("west"), None, &["east", "east"])).contains("named twice"));
        assert!(refused(with(Some("west"), None, &["East"])).starts_with("standby_for: partition \"East\""));
        // A port of its own for each, on --addr's IP; else the system's pick.
        let at = |standby: &[&str]| {
            let a = ServeArgs { addr: Some("10.0.0.2:8081".parse().unwrap()), ..with(Some("west"), None, standby) };
            plan(a).map(|(_, o)| o.iter().map(|c| c.addr.to_string()).collect::<Vec<_>>())
        };
        assert_eq!(at(&["east:8082", "north"]).unwrap(), ["10.0.0.2:8082", "10.0.0.2:0"]);
        for (bad, why) in [
            (&["east:0"][..], "must be 1 to 65535"),
            (&["east:x"], "must be 1 to 65535"),
            (&["east:70000"], "must be 1 to 65535"),
            (&["east:8081"], "port 8081 is given twice, or is --addr's own"),
            (&["east:8082", "north:8082"], "port 8082 is given twice"),
        ] {
            let e = at(bad).unwrap_err().to_string();
            assert!(e.starts_with("standby_for:") && e.contains(why), "{bad:?}: {e}");
        }
        let f = file("standby", &format!("db = \"{url}\"\npartition = \"west\"\nstandby_for = [\"east\"]\n"));
        assert_eq!(plan(args(Some(f.clone()))).unwrap().1[0].partition.as_deref(), Some("east"));
        let _ = std::fs::remove_file(f);
    }

    fn args(config: Option<PathBuf>) -> ServeArgs {
        ServeArgs {
            config,
            db: None,
            demo: false,
            admin_password_file: None,
            addr: None,
            betting_seconds: None,
            deal_ms: None,
            squeeze_seconds: None,
            result_ms: None,
            rate: None,
            web_dir: None,
            anchor_file: None,
            key_file: None,
            ceiling: None,
            session_idle_seconds: None,
            session_max_seconds: None,
            key_retention_hours: None,
            instance: None,
            advertise: None,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            tls_cert: None,
            tls_key: None,
            metrics_from: Vec::new(),
            lease_ms: None,
            anchor_every_ms: None,
            new_anchor_file: false,
            print_config: false,
            config_reference: false,
            partition: None,
            standby_for: Vec::new(),
            log_format: None,
            log_level: None,
        }
    }

    /// A new casino is empty unless `--demo` (or `demo = true`) says the
    /// demo; its first admin's password comes from one place, never two.
    #[test]
    fn a_new_casino_is_empty_unless_the_demo_is_asked_for() {
        use baccarat_server::audit::Founding;
        let plain = |a: ServeArgs| {
            let file = file_settings(&a).unwrap();
            let mut cfg = ServeConfig::new("x.db".into(), "127.0.0.1:0".parse().unwrap());
            set_founding(&mut cfg, &a, &file, None).map(|_| cfg)
        };
        assert_eq!(plain(args(None)).unwrap().founding, Founding::Empty);
        assert_eq!(plain(ServeArgs { demo: true, ..args(None) }).unwrap().founding, Founding::Demo);
        let f = file("demo", "demo = true\nadmin_password_file = \"/etc/baccarat/admin\"\n");
        let cfg = plain(args(Some(f.clone()))).unwrap();
        assert_eq!(cfg.founding, Founding::Demo);
        assert_eq!(cfg.admin_password.unwrap().from(), "--admin-password-file /etc/baccarat/admin");
        let mut cfg = ServeConfig::new("x.db".into(), "127.0.0.1:0".parse().unwrap());
        let a = args(Some(f.clone()));
        let both = set_founding(&mut cfg, &a, &file_settings(&a).unwrap(), Some("from-the-env-123".into()));
        assert!(both.unwrap_err().to_string().starts_with("admin_password_file: "));
        let a = args(None);
        set_founding(&mut cfg, &a, &file_settings(&a).unwrap(), Some("from-the-env-123".into())).unwrap();
        assert_eq!(cfg.admin_password.unwrap().from(), "BACCARAT_ADMIN_PASSWORD");
        std::fs::remove_file(f).unwrap();
    }

    /// TLS takes both files, from the flags or the file, or neither; one
    /// alone is refused naming the other.
    #[test]
    fn tls_takes_a_certificate_and_its_key_or_neither() {
        assert_eq!(settings(args(None)).unwrap().tls, None, "plain HTTP by default");
        let f = file("tls", "tls_cert = \"/etc/baccarat/cert.pem\"\ntls_key = \"/etc/baccarat/key.pem\"\n");
        let tls = settings(args(Some(f.clone()))).unwrap().tls.unwrap();
        assert_eq!(
            (tls.cert.to_str(), tls.key.to_str()),
            (Some("/etc/baccarat/cert.pem"), Some("/etc/baccarat/key.pem"))
        );
        let a = ServeArgs { tls_cert: Some("/c.pem".into()), ..args(Some(f.clone())) };
        assert_eq!(settings(a).unwrap().tls.unwrap().cert, PathBuf::from("/c.pem"), "the flag wins");
        let e = settings(ServeArgs { tls_cert: Some("/c.pem".into()), ..args(None) }).unwrap_err().to_string();
        assert!(e.starts_with("tls_key: "), "{e}");
        let e = settings(ServeArgs { tls_key: Some("/k.pem".into()), ..args(None) }).unwrap_err().to_string();
        assert!(e.starts_with("tls_cert: "), "{e}");
        let _ = std::fs::remove_file(f);
    }

    /// The production example that ships beside the service unit
    /// (`packaging/`) is a settings file `serve` takes as it is.
    #[test]
    fn the_packaged_example_settings_are_taken() {
        let f = file("packaged", include_str!("../../../../packaging/baccarat.toml.example"));
        let cfg = settings(args(Some(f.clone()))).unwrap();
        assert_eq!(cfg.db, PathBuf::from("/var/lib/baccarat/casino.db"));
        assert_eq!(cfg.instance, "tables-1");
        assert_eq!(cfg.allowed_origins, ["https://tables.example-casino.com"]);
        std::fs::remove_file(f).unwrap();
    }

    /// A settings file in the temp dir; the test removes it once it has passed.
    fn file(name: &str, text: &str) -> PathBuf {
        let p = std::env::temp_dir().join(format!("baccarat-serve-{}-{name}.toml", std::process::id()));
        std::fs::write(&p, text).unwrap();
        p
    }

    #[test]
    fn defaults_then_the_file_then_flags() {
        let d = settings(args(None)).unwrap();
        assert_eq!((d.db, d.addr.to_string()), (PathBuf::from("baccarat.db"), "127.0.0.1:8080".to_string()));
        assert_eq!((d.betting.as_secs(), d.deal.as_millis(), d.rate_per_second), (15, 700, 200));
        let f = file("ok", "db = \"casino.db\"\naddr = \"127.0.0.1:9000\"\nbetting_seconds = 7\nrate = 9\n");
        let from_file = settings(args(Some(f.clone()))).unwrap();
        assert_eq!(from_file.db, PathBuf::from("casino.db"));
        assert_eq!(from_file.addr.to_string(), "127.0.0.1:9000");
        assert_eq!((from_file.betting.as_secs(), from_file.rate_per_second), (7, 9));
        // A flag (or its environment variable, which clap puts in the same field) wins.
        let mut a = args(Some(f.clone()));
        a.betting_seconds = Some(3);
        a.db = Some(PathBuf::from("other.db"));
        let flagged = settings(a).unwrap();
        assert_eq!((flagged.betting.as_secs(), flagged.db), (3, PathBuf::from("other.db")));
        assert_eq!(flagged.rate_per_second, 9, "what the flags leave comes from the file");
        let _ = std::fs::remove_file(f);
    }

    /// A partition is of a PostgreSQL casino: its URL puts its schema first,
    /// its anchor and key files are its own; a bad name or a SQLite file is
    /// refused, naming the setting.
    #[test]
    fn a_partition_of_a_postgresql_casino_and_nothing_else() {
        let url = "postgres://u@h/casino";
        let a = ServeArgs { db: Some(PathBuf::from(url)), partition: Some("east".into()), ..args(None) };
        let c = settings(a).unwrap();
        assert_eq!(c.partition.as_deref(), Some("east"));
        assert_eq!(
            c.postgres.as_deref(),
            Some("postgres://u@h/casino?options=-c%20search_path%3Dbaccarat_p_east%2Cpublic")
        );
        assert_eq!(c.anchor_paths().0, PathBuf::from("baccarat-postgres-east.anchors"));
        let f = file("partition", &format!("db = \"{url}\"\npartition = \"west\"\n"));
        assert_eq!(settings(args(Some(f.clone()))).unwrap().partition.as_deref(), Some("west"));
        let _ = std::fs::remove_file(f);
        let a = ServeArgs { db: Some(PathBuf::from(url)), partition: Some("East".into()), ..args(None) };
        assert!(settings(a).unwrap_err().to_string().starts_with("partition \"East\""));
        let a = ServeArgs { partition: Some("east".into()), ..args(None) };
        assert!(settings(a).unwrap_err().to_string().starts_with("partition: a partition is of a PostgreSQL casino"));
    }

    /// Issue 45, finding 7: the origins a cookie WebSocket may also come
    /// from, from the flag (or its variable) or the file, written one way;
    /// anything that is not an origin is refused, naming the setting.
    #[test]
    fn allowed_origins_from_the_flag_or_the_file_and_refused_when_not_an_origin() {
        assert!(settings(args(None)).unwrap().allowed_origins.is_empty(), "none by default");
        let f = file("origins", "allowed_origins = [\"https://Casino.Example:443\", \"http://casino.lan:8080\"]\n");
        let from_file = settings(args(Some(f.clone()))).unwrap();
        assert_eq!(from_file.allowed_origins, ["https://casino.example", "http://casino.lan:8080"]);
        let a = ServeArgs { allowed_origins: vec!["http://other.example".into()], ..args(Some(f.clone())) };
        assert_eq!(settings(a).unwrap().allowed_origins, ["http://other.example"], "the flag wins");
        let _ = std::fs::remove_file(f);
        for bad in ["casino.example", "http://casino.example/page", "ftp://casino.example", "null"] {
            let a = ServeArgs { allowed_origins: vec![bad.into()], ..args(None) };
            let e = settings(a).unwrap_err().to_string();
            assert!(e.starts_with("allowed_origins:"), "{bad}: {e}");
        }
    }

    #[test]
    fn session_times_from_the_file_and_flags_and_refused_when_they_make_no_sense() {
        let d = settings(args(None)).unwrap();
        assert_eq!(d.sessions, baccarat_server::auth::SessionPolicy::default());
        let f = file("sessions", "session_idle_seconds = 600\nsession_max_seconds = 3600\n");
        let s = settings(args(Some(f.clone()))).unwrap();
        assert_eq!((s.sessions.idle_ms, s.sessions.max_ms), (600_000, 3_600_000));
        let a = ServeArgs { session_idle_seconds: Some(120), ..args(None) };
        assert_eq!(settings(a).unwrap().sessions.idle_ms, 120_000);
        let a = ServeArgs { session_idle_seconds: Some(5), ..args(None) };
        assert!(settings(a).unwrap_err().to_string().contains("session_idle_seconds"));
        let a = ServeArgs { session_idle_seconds: Some(7200), session_max_seconds: Some(3600), ..args(None) };
        let e = settings(a).unwrap_err().to_string();
        assert!(e.contains("session_idle_seconds") && e.contains("session_max_seconds"), "{e}");
        let _ = std::fs::remove_file(f);
    }

    #[test]
    fn key_retention_from_the_file_and_flags_and_refused_out_of_range() {
        assert_eq!(settings(args(None)).unwrap().key_retention, Duration::from_secs(72 * 3600));
        let f = file("keys", "key_retention_hours = 24\n");
        let s = settings(args(Some(f.clone()))).unwrap();
        assert_eq!(s.key_retention, Duration::from_secs(24 * 3600));
        let a = ServeArgs { key_retention_hours: Some(1), ..args(None) };
        assert_eq!(settings(a).unwrap().key_retention, Duration::from_secs(3600));
        let a = ServeArgs { key_retention_hours: Some(0), ..args(None) };
        assert!(settings(a).unwrap_err().to_string().contains("key_retention_hours"));
        let _ = std::fs::remove_file(f);
    }

    #[test]
    fn anchor_spacing_from_the_file_and_flags_and_refused_out_of_range() {
        assert_eq!(settings(args(None)).unwrap().anchor_every, Duration::from_millis(250));
        let f = file("anchors", "anchor_every_ms = 1000\n");
        assert_eq!(settings(args(Some(f.clone()))).unwrap().anchor_every, Duration::from_secs(1));
        let a = ServeArgs { anchor_every_ms: Some(0), ..args(Some(f.clone())) };
        assert_eq!(settings(a).unwrap().anchor_every, Duration::ZERO, "a flag over the file; 0: a line a batch");
        let a = ServeArgs { anchor_every_ms: Some(MAX_ANCHOR_EVERY_MS), ..args(None) };
        assert_eq!(settings(a).unwrap().anchor_every, Duration::from_millis(MAX_ANCHOR_EVERY_MS));
        for too_long in [MAX_ANCHOR_EVERY_MS + 1, 60_000] {
            let a = ServeArgs { anchor_every_ms: Some(too_long), ..args(None) };
            let e = settings(a).unwrap_err().to_string();
            assert!(e.contains("anchor_every_ms") && e.contains("1000"), "{e}");
        }
        let _ = std::fs::remove_file(f);
    }

    /// The bounds each setting's help states (`1 to 3600`, `up to 1000`) are
    /// the ones a start enforces: one past either is refused, naming the
    /// setting, and the bounds themselves are not out of range.
    #[test]
    fn the_ranges_the_help_states_are_the_ones_enforced() {
        let mut checked = 0;
        for s in settings::all().into_iter().filter(|s| s.in_file) {
            let Some((lo, hi)) = s.range else { continue };
            let start = |v: u64| {
                let f = file(&format!("range-{}-{v}", s.key), &format!("{} = {v}\n", s.key));
                let r = plan(args(Some(f.clone()))).map(|_| ()).map_err(|e| e.to_string());
                let _ = std::fs::remove_file(f);
                r
            };
            let e = start(hi + 1).expect_err(&s.key);
            assert!(e.starts_with(&format!("{}: ", s.key)) && e.contains("outside"), "{}: {e}", s.key);
            if lo > 0 {
                let e = start(lo - 1).expect_err(&s.key);
                assert!(e.starts_with(&format!("{}: ", s.key)) && e.contains("outside"), "{}: {e}", s.key);
            }
            for v in [lo, hi] {
                if let Err(e) = start(v) {
                    assert!(!e.contains("outside"), "{} = {v} is within the help's range: {e}", s.key);
                }
            }
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} settings state a range");
    }

    #[test]
    fn bad_settings_name_the_key() {
        let unknown = file("unknown", "bettingseconds = 3\n");
        let e = settings(args(Some(unknown.clone()))).unwrap_err().to_string();
        assert!(e.contains("bettingseconds"), "{e}");
        let range = file("range", "betting_seconds = 0\n");
        let e = settings(args(Some(range.clone()))).unwrap_err().to_string();
        assert!(e.contains("betting_seconds"), "{e}");
        let addr = file("addr", "addr = \"nowhere\"\n");
        let e = settings(args(Some(addr.clone()))).unwrap_err().to_string();
        assert!(e.contains("addr"), "{e}");
        let e = settings(args(Some(PathBuf::from("/no/such/file.toml")))).unwrap_err().to_string();
        assert!(e.contains("--config"), "{e}");
        for f in [unknown, range, addr] {
            let _ = std::fs::remove_file(f);
        }
    }
}
