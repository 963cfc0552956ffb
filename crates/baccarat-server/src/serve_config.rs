//! How to run the server ([`ServeConfig`]): what `baccarat serve` builds from
//! its flags, environment and file, and every part of a start reads. A module
//! of its own, below `serve.rs`, so that the start's parts (`start_checks`,
//! `front`, `demo`, `serve_turn`) read it without naming `serve`.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use baccarat_rules::Money;

use crate::store::Db;
use baccarat_core::Clock;

/// How often at most the anchor file gains a line: a quarter of a second.
pub const DEFAULT_ANCHOR_EVERY: Duration = Duration::from_millis(250);

/// How to run the server.
#[derive(Clone)]
pub struct ServeConfig {
    /// The SQLite file (the embedded default). With `postgres`, only the
    /// anchor and key files' default paths are made from it.
    pub db: PathBuf,
    /// A PostgreSQL URL (`--db postgres://…`): the casino is kept there.
    pub postgres: Option<String>,
    pub addr: SocketAddr,
    /// How long betting stays open on RNG tables.
    pub betting: Duration,
    /// Pause between cards on RNG tables.
    pub deal: Duration,
    /// How long the result stays on an RNG table before betting reopens.
    pub result_pause: Duration,
    /// How long a player may hold a hand to squeeze on an RNG table before the
    /// dealer exposes it.
    pub squeeze: Duration,
    /// Demo players' password (printed on the first run).
    pub demo_password: String,
    /// How a fresh database's casino is founded: empty with one admin (the
    /// default), or the demo (`serve --demo`). A casino that exists is
    /// served as it is.
    pub founding: crate::audit::Founding,
    /// The first admin's password on a fresh database (`--admin-password-file`
    /// or `BACCARAT_ADMIN_PASSWORD`); without it one is made and written to
    /// `<db>.admin-password` (`first_admin.rs`). Ignored by a casino that exists.
    pub admin_password: Option<crate::first_admin::PasswordSource>,
    /// Requests per second each signed-in session may make to money and
    /// command routes (a burst of this many is allowed).
    pub rate_per_second: u32,
    /// Serve the web pages from this folder instead of the embedded copies
    /// (for working on the pages without rebuilding).
    pub web_dir: Option<PathBuf>,
    /// The anchor file (default: beside the database, `<db>.anchors`).
    pub anchor_file: Option<PathBuf>,
    /// The Ed25519 signing key (default: beside the database, `<db>.key`;
    /// keep it on another volume or in an HSM in production).
    pub key_file: Option<PathBuf>,
    /// No table maximum or personal maximum may exceed this.
    pub ceiling: Money,
    /// How long a session lasts idle, and in all.
    pub sessions: crate::auth::SessionPolicy,
    /// The time (ms since the epoch): the system clock, or a test's.
    pub clock: Clock,
    /// How long an idempotency key is remembered (default 72 hours).
    pub key_retention: Duration,
    /// This server's name in the audit records and the casino's lease
    /// (default: the host's name).
    pub instance: String,
    /// The URL other servers send clients to while this one holds the
    /// casino's lease (default: `http://` and the address it listens on).
    pub advertise: Option<String>,
    /// Origins (`scheme://host[:port]`) whose pages may open a table's
    /// WebSocket signed in by the session cookie, beside the server's own
    /// (the request's host, and `advertise`'s): a site served under several
    /// names (`http/origin.rs`).
    pub allowed_origins: Vec<String>,
    /// Proxies (a TLS front) whose `X-Forwarded-For` and
    /// `X-Forwarded-Proto` are believed (`proxy.rs`); none by default.
    pub trusted_proxies: Vec<std::net::IpAddr>,
    /// Serve HTTPS with this certificate chain and key (`tls.rs`); plain
    /// HTTP without.
    pub tls: Option<crate::tls::TlsFiles>,
    /// Addresses beside loopback whose connections may read `/metrics`
    /// (`metrics.rs`); none by default.
    pub metrics_from: Vec<std::net::IpAddr>,
    /// The exposure monitor's alert thresholds: a default and any table's
    /// own (`--exposure-alert`; default: an offer alerts once its EV is
    /// above 0, in the player's favour).
    pub exposure: baccarat_casino::Thresholds,
    /// How long the casino's lease lasts unrenewed (PostgreSQL): a standby
    /// takes over this long after the holder dies.
    pub lease: Duration,
    /// How often at most a line is added to the anchor file: the heads of
    /// the batches committed since are signed together (`anchor::Anchoring`).
    /// Zero: a line per batch, as under a lease (PostgreSQL) whatever this says.
    pub anchor_every: Duration,
    /// Begin a new anchor file although the database holds a casino (the
    /// old file is lost for good): `serve --new-anchor-file`, for one start.
    /// Without it such a start is refused, lest a forger who deleted the
    /// file have the server sign whatever the database now says.
    pub new_anchor_file: bool,
    /// The partition of a PostgreSQL casino this server serves (`postgres`
    /// is then the partition's URL: `pg_store::partition_url`): its own
    /// tables, its players' money from the shared bank (`bank/`).
    pub partition: Option<String>,
    /// On a fatal condition (a lost lease, a failed commit: `fatal.rs`),
    /// stop serving and stand by for the lease again, rather than end the
    /// process: set for each partition of a process serving several
    /// (`standby_for.rs`), so that one's failure is not all of theirs.
    pub stand_by_on_fatal: bool,
    /// This server serves the partition only as another partition's server
    /// standing by for it (`--standby-for`): it leaves the partition's lease
    /// to the partition's own server, and hands the partition back when that
    /// one asks (`pg_store::Claim`).
    pub guest: bool,
}

impl std::fmt::Debug for ServeConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeConfig")
            .field("db", &self.db)
            .field("postgres", &self.postgres.as_deref().map(crate::store::redact))
            .field("addr", &self.addr)
            .field("betting", &self.betting)
            .field("deal", &self.deal)
            .field("result_pause", &self.result_pause)
            .field("squeeze", &self.squeeze)
            .field("founding", &self.founding)
            .field("admin_password", &self.admin_password)
            .field("rate_per_second", &self.rate_per_second)
            .field("web_dir", &self.web_dir)
            .field("anchor_file", &self.anchor_file)
            .field("key_file", &self.key_file)
            .field("ceiling", &self.ceiling)
            .field("sessions", &self.sessions)
            .field("key_retention", &self.key_retention)
            .field("instance", &self.instance)
            .field("advertise", &self.advertise)
            .field("allowed_origins", &self.allowed_origins)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("tls", &self.tls)
            .field("metrics_from", &self.metrics_from)
            .field("exposure", &self.exposure)
            .field("lease", &self.lease)
            .field("anchor_every", &self.anchor_every)
            .field("new_anchor_file", &self.new_anchor_file)
            .field("partition", &self.partition)
            .field("stand_by_on_fatal", &self.stand_by_on_fatal)
            .field("guest", &self.guest)
            .finish_non_exhaustive()
    }
}

impl ServeConfig {
    /// The defaults, on a database file.
    pub fn new(db: PathBuf, addr: SocketAddr) -> ServeConfig {
        ServeConfig {
            db,
            postgres: None,
            addr,
            betting: Duration::from_secs(15),
            deal: Duration::from_millis(700),
            squeeze: Duration::from_secs(12),
            result_pause: Duration::from_secs(3),
            demo_password: "demo".into(),
            founding: crate::audit::Founding::Empty,
            admin_password: None,
            rate_per_second: 200,
            web_dir: None,
            anchor_file: None,
            key_file: None,
            ceiling: crate::casino::DEFAULT_CEILING,
            sessions: crate::auth::SessionPolicy::default(),
            clock: crate::casino::system_clock(),
            key_retention: Duration::from_millis(crate::ledger::DEFAULT_KEY_RETENTION_MS),
            instance: crate::lease::host_name(),
            advertise: None,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            tls: None,
            metrics_from: Vec::new(),
            exposure: Default::default(),
            lease: Duration::from_secs(5),
            anchor_every: DEFAULT_ANCHOR_EVERY,
            new_anchor_file: false,
            partition: None,
            stand_by_on_fatal: false,
            guest: false,
        }
    }

    /// Where the casino is kept.
    pub fn database(&self) -> Db {
        match &self.postgres {
            Some(url) => Db::Postgres(url.clone()),
            None => Db::Sqlite(self.db.clone()),
        }
    }

    /// How this server claims its lease: as a guest, as a partition's own
    /// server, or as any server of a casino without partitions.
    pub fn claim(&self) -> crate::pg_store::Claim {
        use crate::pg_store::Claim;
        match (self.guest, &self.partition) {
            (true, _) => Claim::Guest,
            (false, Some(_)) => Claim::Home,
            (false, None) => Claim::Any,
        }
    }

    /// The anchor file and the key file in force.
    pub fn anchor_paths(&self) -> (PathBuf, PathBuf) {
        let (a, k) = crate::anchor::default_paths(&self.db);
        (self.anchor_file.clone().unwrap_or(a), self.key_file.clone().unwrap_or(k))
    }
}
