//! From the flags, the environment, the `--config` file and the defaults to
//! the server's settings: one group of settings a function.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{bail, Result};
use baccarat_server::serve::ServeConfig;

use super::file::{file_settings, in_range, FileSettings};
use super::ServeArgs;

/// With PostgreSQL, the anchor and key files' default name (beside it:
/// `.anchors`, `.key`), in the working directory.
const POSTGRES_LOCAL: &str = "baccarat-postgres";

/// The longest `--anchor-every-ms` (docs/design.md: "Anchors, reconciliation and what `verify` proves").
pub(super) const MAX_ANCHOR_EVERY_MS: u64 = 1_000;

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

/// The store and the files beside it: a SQLite file, a whole PostgreSQL
/// casino, or one partition of it (its own schema and files); with a
/// partition, also the casino's URL, which its standbys share.
fn store_config(
    a: &ServeArgs,
    file: &FileSettings,
    addr: std::net::SocketAddr,
) -> Result<(ServeConfig, Option<String>)> {
    let db = a.db.clone().or(file.db.clone()).unwrap_or_else(|| PathBuf::from("baccarat.db"));
    let db = baccarat_core::store::Db::parse(&db.to_string_lossy());
    let partition = a.partition.clone().or(file.partition.clone());
    let mut casino_url = None;
    let cfg = match (db, partition) {
        (baccarat_core::store::Db::Sqlite(path), None) => ServeConfig::new(path, addr),
        (baccarat_core::store::Db::Sqlite(_), Some(_)) => {
            bail!("partition: a partition is of a PostgreSQL casino (--db postgres://…)")
        }
        (baccarat_core::store::Db::Postgres(url), None) => {
            ServeConfig { postgres: Some(url), ..ServeConfig::new(PathBuf::from(POSTGRES_LOCAL), addr) }
        }
        // Its anchor and key files are its own by default, beside the others.
        (baccarat_core::store::Db::Postgres(url), Some(p)) => {
            casino_url = Some(url.clone());
            ServeConfig {
                postgres: Some(baccarat_cluster::pg_store::partition_url(&url, &p).map_err(anyhow::Error::msg)?),
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
pub(super) fn set_founding(
    cfg: &mut ServeConfig,
    a: &ServeArgs,
    file: &FileSettings,
    env: Option<String>,
) -> Result<()> {
    use baccarat_server::PasswordSource;
    if a.demo || file.demo == Some(true) {
        cfg.founding = baccarat_core::audit::Founding::Demo;
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
    let ceiling = a.ceiling.or(file.ceiling).unwrap_or(baccarat_casino::casino::DEFAULT_CEILING.0);
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
    let alerts = if a.exposure_alert.is_empty() {
        file.exposure_alert.clone().unwrap_or_default()
    } else {
        a.exposure_alert.clone()
    };
    cfg.exposure = thresholds(&alerts)?;
    cfg.allowed_origins = origins
        .iter()
        .map(|o| baccarat_server::http::origin::origin_of(o).map_err(|e| anyhow::anyhow!("allowed_origins: {e}")))
        .collect::<Result<_>>()?;
    Ok(())
}

/// `--exposure-alert`: `EV` for every table, `TABLE=EV` for one (the last
/// given wins).
fn thresholds(given: &[String]) -> Result<baccarat_casino::Thresholds> {
    let mut t = baccarat_casino::Thresholds::default();
    for g in given {
        let bad = |e: String| anyhow::anyhow!("exposure_alert: {e}");
        match g.split_once('=') {
            None => t.default = baccarat_casino::parse_threshold(g).map_err(bad)?,
            Some((table, ev)) => {
                let id: u32 = table
                    .trim()
                    .parse()
                    .map_err(|_| anyhow::anyhow!("exposure_alert: {table:?} is not a table number (TABLE=EV)"))?;
                t.tables.insert(baccarat_core::TableId(id), baccarat_casino::parse_threshold(ev).map_err(bad)?);
            }
        }
    }
    Ok(t)
}

/// `--tls-cert` and `--tls-key`: both or neither (the files themselves are
/// read and checked when the server starts: `baccarat_server::tls`).
fn tls_files(a: &ServeArgs, file: &FileSettings) -> Result<Option<baccarat_server::TlsFiles>> {
    let cert = a.tls_cert.clone().or(file.tls_cert.clone());
    let key = a.tls_key.clone().or(file.tls_key.clone());
    match (cert, key) {
        (Some(cert), Some(key)) => Ok(Some(baccarat_server::TlsFiles { cert, key })),
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
            baccarat_cluster::pg_store::partition_url(url, name).map_err(|e| anyhow::anyhow!("standby_for: {e}"))?;
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
