//! `baccarat serve`: open (or create) the database, recover every table, start the
//! writer, pace the RNG tables, and serve HTTP and WebSocket.
//!
//! Recovery starts from the latest signed checkpoint and reads only what was
//! written after it (`casino/recover.rs`); a checkpoint that fails its checks
//! is named, and the whole history is replayed instead. A clean shutdown
//! (Ctrl-C, SIGTERM, SIGHUP or SIGQUIT: `stop.rs`) takes a checkpoint before
//! the process ends, so the next start reads almost nothing.
//!
//! On the first run the database is created, migrated, and the casino
//! founded (`founding.rs`): empty with one admin, whose password is the
//! operator's or written to a file only its owner reads (`first_admin.rs`),
//! or with `--demo` the demo casino: a table per rulebook profile, staff
//! accounts and demo players holding play chips.

use baccarat_core::TableId;
use std::sync::Arc;

use crate::anchor::{AnchorLog, Head};
use crate::auth::Users;

use crate::casino::{recover, Casino, Keys};
use baccarat_casino::Feed;
use baccarat_cluster::{AnyStore, OpenDb};
use baccarat_core::Fatal;
pub mod turn;
use crate::store::{Commit, Db, Store};
use baccarat_core::status::say;
use turn::{Front, Turn};

pub use crate::serve_config::{ServeConfig, DEFAULT_ANCHOR_EVERY};
pub use crate::serve_error::ServeError;

pub use crate::demo::DEMO_TABLES;

/// What [`open`] gives back: the store, the recovered (or new) casino and its
/// read model, the people, the anchor file (open for appending), and what
/// recovery read.
pub struct Opened {
    pub store: AnyStore,
    pub casino: Casino,
    pub feed: Feed,
    pub users: Arc<Users>,
    pub anchors: AnchorLog,
    pub recovery: Recovery,
    /// The start's own checkpoint, taken and not yet written (after a long
    /// tail, or none usable: the next start begins here). [`open`] writes it
    /// before it returns; `serve` hands it to the background checkpointer
    /// and serves meanwhile: written on the start's path it was a sixth of a
    /// start after `kill -9` under `loadgen` (1.1 s of 6.2-7.4 s).
    pub due: Option<Box<crate::casino::checkpoint::Checkpoint>>,
    /// The lock on a SQLite casino (`db_lock.rs`): no other server starts on
    /// it while this is held. Keep it for as long as the casino is served.
    pub lock: Option<baccarat_core::DbLock>,
    /// How the casino was founded: empty, or the demo (its chain's first
    /// record, `founding.rs`).
    pub founding: crate::audit::Founding,
}

impl Opened {
    /// Seal and write the start's checkpoint, if one is due, here and now.
    pub fn write_due(&mut self) -> Result<(), ServeError> {
        let Some(cp) = self.due.take() else { return Ok(()) };
        seal_and_write(&mut self.store, &self.anchors, &cp)
    }

    /// Record the rest of every settlement a crash left part-way, in one
    /// batch: committed, anchored and folded into the read model
    /// (`casino/settle.rs`). For a caller that runs no writer, whose batches
    /// would otherwise record it a chunk at a time.
    pub fn finish_settlements(&mut self) -> Result<(), ServeError> {
        if !self.casino.settling() {
            return Ok(());
        }
        let mut commit = Commit::default();
        self.casino.finish_settlements(&mut commit);
        commit_anchored(&mut self.store, &mut self.anchors, &commit)?;
        self.feed.absorb_all(&commit.events);
        Ok(())
    }
}

/// What a start read to recover.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Whether it started from a checkpoint.
    pub from_checkpoint: bool,
    /// Why the latest checkpoint was not used, if it was not.
    pub refused_checkpoint: Option<String>,
    /// Audit records and transfers read after the checkpoint.
    pub tail_records: u64,
    pub tail_transfers: u64,
}

/// Seal and write a checkpoint of `casino` with its read model `feed`.
pub fn write_checkpoint(
    store: &mut impl Store,
    anchors: &AnchorLog,
    casino: &Casino,
    feed: &Feed,
) -> Result<(), ServeError> {
    seal_and_write(store, anchors, &checkpoint_of(anchors, casino, feed))
}

/// Make the anchor file durable, then seal `cp` with its key and write it.
fn seal_and_write(
    store: &mut impl Store,
    anchors: &AnchorLog,
    cp: &crate::casino::checkpoint::Checkpoint,
) -> Result<(), ServeError> {
    anchors.sync()?;
    store.write_checkpoint(&crate::casino::checkpoint::seal(cp, anchors))?;
    crate::casino::checkpoint::note_written(cp.at_ms);
    Ok(())
}

/// A checkpoint of `casino` with its read model `feed` and where the anchor
/// file stands, to be sealed and written (the file synced first).
fn checkpoint_of(anchors: &AnchorLog, casino: &Casino, feed: &Feed) -> Box<crate::casino::checkpoint::Checkpoint> {
    let mut cp = casino.checkpoint();
    cp.feed = Some(feed.state());
    cp.anchor = Some(anchors.mark());
    Box::new(cp)
}

pub use crate::anchor::anchor_cuts;

pub use crate::anchor::heads_of;

/// Commit, then anchor what was committed (the anchor never runs ahead of the
/// database).
fn commit_anchored(store: &mut impl Store, anchors: &mut AnchorLog, commit: &Commit) -> Result<(), ServeError> {
    store.commit(commit)?;
    Ok(anchors.append(&heads_of(commit))?)
}

/// Open the store, seeding it on the first run; check every chain against the
/// signed anchors before serving it. A table whose chain was cut or rewritten
/// is not served (it is named on stderr); a cut in the casino's own chain
/// stops the start.
///
/// For a caller with no writer (tools, tests): a settlement a crash left
/// part-way is recorded to its end first, in one batch, where `serve`'s
/// writer records it in chunks while it serves ([`open_leased`]).
///
pub fn open(cfg: &ServeConfig) -> Result<Opened, ServeError> {
    let mut o = open_leased(cfg, None)?;
    o.finish_settlements()?;
    o.write_due()?;
    Ok(o)
}

/// As [`open`], writing under the casino's lease (PostgreSQL): every write,
/// from the first, proves it, and the start is recorded as served by this
/// instance under the lease's epoch. The start's checkpoint is left in
/// [`Opened::due`] for the caller to write.
///
/// A start that will be refused writes nothing: the casino's lock (SQLite),
/// the schema, the key, the anchor file, the chains and recovery are all
/// checked before the first write (`start_checks.rs`).
pub fn open_leased(cfg: &ServeConfig, lease: Option<&crate::pg_store::Lease>) -> Result<Opened, ServeError> {
    let db = cfg.database();
    // One server per SQLite casino, before anything is read or written.
    let lock = match &db {
        Db::Sqlite(path) => Some(baccarat_core::DbLock::take(path).map_err(ServeError::locked)?),
        Db::Postgres(_) => None,
    };
    // A schema newer than this binary is refused here, before any write.
    let mut store = db.open().map_err(|source| ServeError::Open { db: db.shown(), source })?;
    if let (AnyStore::Postgres(s), Some(l)) = (&mut store, lease) {
        s.fence(l.clone());
    }
    let checked = crate::start_checks::check(cfg, &store)?;
    if !checked.has_casino {
        return first_run(cfg, lease, store, checked, lock);
    }
    ignored_on_a_casino(cfg);
    let founding = founding_of(&store)?;
    let (mut c, feed, recovery) = recovered(cfg, &store, &checked)?;
    let mut commit = Commit::default();
    // Named in the casino's chain before this start signs them (with a new
    // anchor file, every record: none was checked against a signature).
    if let Some(a) = checked.anchored.clone().or_else(|| checked.lost.then(Default::default)) {
        let found = c.past_anchors(&a);
        for u in &found {
            tracing::warn!(
                chain = u.table.0,
                from = u.from,
                to = u.to,
                "records not anchored (a crash between a commit and its anchor line, or records added outside the server); recorded, then signed"
            );
        }
        if !found.is_empty() {
            c.found_unanchored(found, &mut commit);
        }
    }
    if let Some(l) = lease {
        c.served(&cfg.instance, l.epoch, &mut commit);
    }
    if let (Some(p), Some(url)) = (&cfg.partition, &cfg.postgres) {
        c.set_partition(p);
        from_the_bank(&mut c, p, url, &mut commit)?;
    }
    // Every check has passed: from here on the start writes.
    let mut anchors = open_anchors(cfg, &checked)?;
    crate::anchor_copy::begin(&mut store, &mut anchors, &checked.anchor_path, checked.lost, (cfg.clock)())?;
    let (keys, users) = keys_and_users(cfg, &db, &mut store)?;
    c.ledger.keys.set_cold(keys, crate::ledger::keys::DEFAULT_HOT_MS);
    let resumed = c.resume_interrupted(&mut commit);
    commit_anchored(&mut store, &mut anchors, &commit)?;
    if checked.lost {
        // The new file's first heads: every chain, as recovered.
        let chains = std::iter::once((crate::audit::CASINO_CHAIN, &c.chain));
        let chains = chains.chain(c.tables.values().map(|t| (t.id, &t.chain)));
        let heads: Vec<Head> = chains
            .filter(|(_, ch)| !ch.is_empty())
            .map(|(table, ch)| Head { table, len: ch.len(), head: ch.head() })
            .collect();
        anchors.append(&heads)?;
    }
    let mut feed = feed;
    feed.absorb_all(&commit.events);
    tell_tables(&c, &resumed);
    // A long tail (or none usable) is read once: the next start begins here.
    let due = (!recovery.from_checkpoint || recovery.tail_records >= crate::casino::checkpoint::MIN_GAP_RECORDS)
        .then(|| checkpoint_of(&anchors, &c, &feed));
    Ok(Opened { store, casino: c, feed, users, anchors, recovery, due, lock, founding })
}

/// The idempotency keys that left memory, read on this (`keys.rs`) through
/// SQLite's key index, caught up first (`key_index.rs`: a write), and the
/// people.
fn keys_and_users(
    cfg: &ServeConfig,
    db: &Db,
    store: &mut AnyStore,
) -> Result<(Arc<dyn crate::ledger::keys::ColdKeys>, Arc<Users>), ServeError> {
    let index = store
        .key_index(cfg.key_retention.as_millis() as u64)
        .map_err(|source| ServeError::KeyIndex { db: db.shown(), source })?;
    let keys = crate::key_reader::open(db, index).map_err(|source| ServeError::Open { db: db.shown(), source })?;
    let users = Arc::new(Users::open_db(db, cfg.sessions, cfg.clock.clone())?);
    Ok((keys, users))
}

/// The anchor file, open for appending (a torn last line cut off), a new one
/// begun with a carry line naming its month (`anchor/segments.rs`), after
/// the key file if this start made the key: a start's first write.
fn open_anchors(cfg: &ServeConfig, checked: &crate::start_checks::Checked) -> Result<AnchorLog, ServeError> {
    let path = &checked.anchor_path;
    // A key this start made is written first (`signing_key.rs`).
    let key = baccarat_core::signing_key::save(&checked.key, &checked.key_path).map_err(ServeError::key)?;
    let mut anchors = AnchorLog::open_at(path, key, checked.mark.as_ref())?;
    anchors.begin(&baccarat_core::year_month((cfg.clock)()))?;
    Ok(anchors)
}

/// The first run: the casino founded (empty, or the demo), committed and
/// anchored.
fn first_run(
    cfg: &ServeConfig,
    lease: Option<&crate::pg_store::Lease>,
    mut store: AnyStore,
    checked: crate::start_checks::Checked,
    lock: Option<baccarat_core::DbLock>,
) -> Result<Opened, ServeError> {
    let db = cfg.database();
    let mut anchors = open_anchors(cfg, &checked)?;
    crate::anchor_copy::begin(&mut store, &mut anchors, &checked.anchor_path, true, (cfg.clock)())?;
    let (keys, users) = keys_and_users(cfg, &db, &mut store)?;
    let mut commit = Commit::default();
    let (c, admin) = crate::founding::casino(cfg, &users, keys, lease, &mut commit)?;
    commit_anchored(&mut store, &mut anchors, &commit)?;
    tell_founding(cfg, &db, admin.as_ref());
    say(&format!(
        "  anchors: {} signed by {} (public key {})",
        checked.anchor_path.display(),
        checked.key_path.display(),
        anchors.public_hex()
    ));
    let mut feed = Feed::default();
    feed.absorb_all(&commit.events);
    let founding = cfg.founding;
    Ok(Opened { store, casino: c, feed, users, anchors, recovery: Recovery::default(), due: None, lock, founding })
}

/// How a casino that exists was founded, from its chain's first record.
fn founding_of(store: &AnyStore) -> Result<crate::audit::Founding, ServeError> {
    use crate::store::History;
    let first = History::record_at(store, crate::audit::CASINO_CHAIN, 1)?;
    let event = first.and_then(|r| crate::audit::Body::decode(&r.body).ok()).and_then(|b| b.casino);
    Ok(crate::audit::Founding::of_first(event.as_ref()))
}

/// A casino that exists is served as it is: a founding's settings are
/// named as ignored, lest an operator think they took effect.
fn ignored_on_a_casino(cfg: &ServeConfig) {
    if cfg.founding == crate::audit::Founding::Demo {
        tracing::warn!("--demo is ignored: the database holds a casino (it only founds a new one)");
    }
    if let Some(g) = &cfg.admin_password {
        tracing::warn!(
            "{} is ignored: the database holds a casino (its admins change passwords at /api/users)",
            g.from()
        );
    }
}

/// What a first run prints: how the casino was founded and where the
/// first admin's password is (never the password: `first_admin.rs`).
fn tell_founding(cfg: &ServeConfig, db: &Db, admin: Option<&crate::first_admin::FirstPassword>) {
    match cfg.founding {
        crate::audit::Founding::Empty => say(&format!("first run: created {} with an empty casino", db.shown())),
        crate::audit::Founding::Demo => say(&format!("first run: created {} with a demo casino", db.shown())),
    }
    // Where the password is, never the password (`first_admin.rs`).
    if let Some(a) = admin {
        say(&format!("  sign in as \"{}\" with {}", crate::first_admin::ADMIN_NAME, a.told()));
    }
    if cfg.founding == crate::audit::Founding::Demo {
        say(&format!(
            "  staff: dealer, supervisor, inspector, surveillance, manager (tournaments); players: player1..player5; password {:?}",
            cfg.demo_password
        ));
    }
}

/// The casino recovered from the latest checkpoint and the log after it (or,
/// if that fails, from the whole history): read only, so a refusal here
/// comes before the start's first write. Its idempotency keys are found on
/// disk, once the key index is caught up (`keys_and_users`).
fn recovered(
    cfg: &ServeConfig,
    store: &AnyStore,
    checked: &crate::start_checks::Checked,
) -> Result<(Casino, Feed, Recovery), ServeError> {
    if checked.anchored.is_none() && checked.lost {
        tracing::warn!(
            anchor_file = %checked.anchor_path.display(),
            "--new-anchor-file: a new anchor file is begun once the casino has recovered; every chain is signed as it then stands"
        );
    }
    let skip = &checked.skip;
    let mut recovery = Recovery { refused_checkpoint: checked.refused_checkpoint.clone(), ..Recovery::default() };
    recovery.from_checkpoint = checked.checkpoint.is_some();
    let rec = match recover(store, checked.checkpoint.clone(), Keys::None, skip) {
        Ok(r) => r,
        Err(why) if recovery.from_checkpoint => {
            tracing::warn!("the checkpoint does not match the log ({why}); replaying the whole history instead");
            recovery.from_checkpoint = false;
            recovery.refused_checkpoint = Some(why.to_string());
            recover(store, None, Keys::None, skip).map_err(ServeError::recovery)?
        }
        Err(why) => return Err(ServeError::recovery(why)),
    };
    recovery.tail_records = rec.tail_records;
    recovery.tail_transfers = rec.tail_transfers;
    let mut c = rec.casino;
    c.ceiling = cfg.ceiling;
    c.clock = cfg.clock.clone();
    c.ledger.set_retention(cfg.key_retention.as_millis() as u64);
    Ok((c, rec.feed, recovery))
}

/// A partition takes what the bank gave it that a crash kept out of its
/// books (`casino/bank_side.rs`), after the records found unanchored are
/// named, since these are this start's own; and players' limits changed at
/// any partition since it last looked. Reads only; recorded in `commit`.
fn from_the_bank(c: &mut Casino, p: &str, url: &str, commit: &mut Commit) -> Result<(), ServeError> {
    let mut bank = crate::pg_store::bank::Bank::connect(url).map_err(ServeError::Bank)?;
    let moves = bank.moves_of(p, c.bank.last_seq).map_err(ServeError::Bank)?;
    let taken = c.take_missing_allotments(&moves, commit).map_err(ServeError::casino)?;
    if taken > 0 {
        say(&format!("partition {p}: recorded {taken} allotments the bank made before the last stop"));
    }
    let mut folded = 0;
    loop {
        let after = c.bank.limits_seq;
        let changes = bank
            .with_client(|b| crate::pg_store::bank::limits::shared_after(b, after, 10_000))
            .map_err(ServeError::BankLimits)?;
        let n = changes.len();
        for (seq, e) in changes {
            folded += usize::from(c.adopt_limits(seq, e, commit));
        }
        if n < 10_000 {
            break;
        }
    }
    if folded > 0 {
        say(&format!("partition {p}: folded in {folded} changes of players' limits made at other partitions"));
    }
    Ok(())
}

/// What the start says of each table it left other than ready.
fn tell_tables(c: &Casino, resumed: &[TableId]) {
    for t in resumed {
        tracing::warn!(table = t.0, "the coup in progress was interrupted; its profile's policy applied");
    }
    for t in c.tables.values().filter(|t| t.engine.settling() && t.halted.is_none()) {
        tracing::warn!(
            table = t.id.0,
            coup = t.engine.state().coup_number,
            "the settlement of a coup was cut short; the rest is recorded after the start"
        );
    }
    for t in c.tables.values().filter(|t| t.halted.is_some()) {
        tracing::error!(table = t.id.0, "table {} is stopped: {}", t.id, t.halted.as_deref().unwrap_or_default());
    }
}

/// Run the server until it is stopped.
pub async fn serve(cfg: ServeConfig) -> Result<(), ServeError> {
    let listener = tokio::net::TcpListener::bind(cfg.addr)
        .await
        .map_err(|source| ServeError::Listen { addr: cfg.addr, source })?;
    run(cfg, listener).await
}

/// Run the server on a bound listener (tests bind port 0).
///
/// The listener answers at once: while this server waits for the casino's
/// lease (PostgreSQL) it sends clients to the holder, and while it recovers
/// it answers 503 (`lease.rs`); then every request goes to the router. It
/// serves in turns (`serve/turn.rs`): one, unless a fatal condition stops a
/// partition of a process serving several (`stand_by_on_fatal`), which then
/// stands by for its lease again.
pub async fn run(cfg: ServeConfig, listener: tokio::net::TcpListener) -> Result<(), ServeError> {
    let addr = listener.local_addr()?;
    // The TLS files are checked before anything is opened (`tls.rs`).
    let (tls, advertise) = match &cfg.tls {
        Some(files) => {
            (Some(crate::tls::acceptor_config(files)?), crate::tls::advertised(cfg.advertise.as_deref(), addr)?)
        }
        None => (None, cfg.advertise.clone().unwrap_or_else(|| format!("http://{addr}"))),
    };
    // From now on a stop signal is kept until the server can stop cleanly.
    crate::stop::listen();
    // The process's metrics recorder, before any writer records (`metrics.rs`).
    crate::metrics::install();
    // The router while this server serves, with its key (a forwarded
    // client's address is trusted under it: `forward.rs`).
    let active: crate::front::Active = Arc::default();
    let holder: crate::lease::Holder = Arc::default();
    let directory = crate::front::directory(&cfg).await?;
    let outer = crate::front::service(
        active.clone(),
        holder.clone(),
        crate::forward::Forwarder::new(cfg.anchor_paths().1),
        cfg.clock.clone(),
        directory.clone(),
        crate::proxy::Proxies::new(&cfg.trusted_proxies),
        crate::metrics::Scrapers::new(&cfg.metrics_from),
    );
    // In a process serving several partitions (`standby_for.rs`), each line
    // says which.
    let what = cfg.partition.as_ref().map_or("the casino".to_string(), |p| format!("partition {p}"));
    let mut front =
        Front { addr, advertise, what, active, holder, directory, outer, listener: Some(listener), tls, server: None };
    // Answering at once, it stands by ("listening on": once it serves, `turn.rs`).
    if cfg.postgres.is_some() {
        front.serve();
        say(&format!(
            "standing by on http://{addr}/ as instance {} for {} until it holds the lease",
            cfg.instance, front.what
        ));
    }
    // Starts that failed in a row with the database reachable.
    let mut failed = 0;
    loop {
        let fatal = if cfg.stand_by_on_fatal { Fatal::standing_by() } else { Fatal::exiting() };
        match turn::turn(&cfg, &mut front, &fatal).await {
            Ok(Turn::Stopped) => return Ok(()),
            Ok(Turn::Fatal(_)) => failed = 0,
            Ok(Turn::HandedBack(who)) => {
                failed = 0;
                say(&format!("{}: handed back to instance {who}; standing by for it", front.what))
            }
            // A start that failed as the network was cut (after the lease
            // was taken) stands by again, as a fatal condition does. One
            // that fails START_TRIES times in a row with the database
            // reachable may be permanent, and ends: trying again for ever
            // would hide it. (A network that comes back between the failure
            // and the look costs one of those tries.)
            Err(e) if cfg.stand_by_on_fatal => {
                let out_of_reach = !reachable(&cfg).await;
                failed += usize::from(!out_of_reach);
                if failed >= START_TRIES {
                    return Err(e);
                }
                let why = if out_of_reach { ": the database is out of reach" } else { "" };
                tracing::error!("{} did not start ({e}){why}; standing by for it again", front.what);
            }
            Err(e) => return Err(e),
        }
    }
}

/// How many starts in a row may fail, with the database reachable, before
/// a partition of a process serving several is given up.
const START_TRIES: usize = 3;

/// Whether the database answers within the lease's time (PostgreSQL; a
/// file is always reached).
async fn reachable(cfg: &ServeConfig) -> bool {
    let Some(url) = cfg.postgres.clone() else { return true };
    let asked = tokio::task::spawn_blocking(move || {
        crate::pg_store::connect_client(&url).is_ok_and(|mut c| c.simple_query("SELECT 1").is_ok())
    });
    matches!(tokio::time::timeout(cfg.lease, asked).await, Ok(Ok(true)))
}

/// A stop signal: Ctrl-C, SIGTERM (how a service manager stops a server),
/// SIGHUP or SIGQUIT (`stop.rs`); at once if one has arrived already.
pub(crate) async fn stop_signal() {
    crate::stop::stopped().await
}
