//! One turn of serving: wait for the lease (PostgreSQL), recover, serve
//! until stopped, then checkpoint and give the lease up. `serve::run` takes
//! turns on one front (its listener and the service every request meets
//! first, `front.rs`).
//!
//! A turn ends in one of two ways ([`Turn`]): a clean stop (Ctrl-C,
//! SIGTERM, SIGHUP, SIGQUIT: `stop.rs`), which ends the server; or a fatal
//! condition (`fatal.rs`) in a process serving several partitions, after
//! which the front stands by again for the next turn. Nothing of a turn
//! outlives it that could still commit or answer: its committer and writer
//! stop at the fatal condition, its pacers and sockets end with it
//! (`http::Server::until_ended`), its lease stops being renewed, and its
//! router is withdrawn from the front.
//! The next turn recovers from the store as any start does, under a new
//! epoch, so nothing the failed turn held in memory is trusted.

use crate::ledger::answered::Answered;
use baccarat_core::TableId;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use crate::casino::Request;
use crate::http::{router, AppState, Pace};
use crate::publish::{Publisher, ReadModels, StopCheckpoint};
use crate::serve::{open_leased, stop_signal, Opened};
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;
use crate::store::Commit;
use baccarat_casino::Writer;
use baccarat_cluster::AnyStore;
use baccarat_core::Fatal;

/// What every turn serves through (made once by `serve::run`).
pub struct Front {
    pub addr: SocketAddr,
    /// The URL other servers send clients to while this one serves.
    pub advertise: String,
    /// What the server's lines name: "the casino", or "partition NAME".
    pub what: String,
    pub active: crate::front::Active,
    pub holder: crate::lease::Holder,
    pub directory: Option<Arc<crate::partition_route::Directory>>,
    /// The service every connection is served by.
    pub outer: axum::Router,
    /// The listener, until it is served: a server that may stand by answers
    /// at once (it sends clients to the holder); one that need not answers
    /// once it has recovered, as a connection waits in the listener's queue
    /// meanwhile.
    pub listener: Option<tokio::net::TcpListener>,
    /// HTTPS on the listener (`tls.rs`); plain HTTP without.
    pub tls: Option<axum_server::tls_rustls::RustlsConfig>,
    pub server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Front {
    /// Serve the listener, if not yet served.
    pub fn serve(&mut self) {
        let Some(l) = self.listener.take() else { return };
        // With each connection's address: sign-in limits count by client
        // address.
        self.server = Some(match self.tls.clone() {
            None => {
                // Each frame a socket is sent goes at once (no Nagle delay
                // waiting on the client's delayed ACK, up to 40 ms when a
                // second frame follows the first), as the TLS acceptor does.
                let l = axum::serve::ListenerExt::tap_io(l, |tcp| {
                    if let Err(e) = tcp.set_nodelay(true) {
                        tracing::debug!("TCP_NODELAY not set on a connection: {e}");
                    }
                });
                let server = axum::serve(l, self.outer.clone().into_make_service_with_connect_info::<SocketAddr>());
                tokio::spawn(std::future::IntoFuture::into_future(server))
            }
            // Every request on it came over https: the cookie is `Secure`.
            Some(config) => {
                let outer = self.outer.clone().layer(axum::Extension(crate::proxy::ViaHttps));
                let acceptor = axum_server::tls_rustls::RustlsAcceptor::new(config);
                let server = axum_server::Server::<SocketAddr>::from_listener(l).acceptor(acceptor);
                tokio::spawn(server.serve(outer.into_make_service_with_connect_info::<SocketAddr>()))
            }
        });
    }

    /// `https` with TLS, else `http`: how the server's lines name it.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() {
            "https"
        } else {
            "http"
        }
    }

    /// Withdraw the router: requests pass through to the holder again.
    fn withdraw(&self) {
        *self.active.write().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

/// How a turn ended.
pub enum Turn {
    /// A clean stop: the server ends.
    Stopped,
    /// A fatal condition, named: the front stands by for the next turn.
    Fatal(String),
    /// A partition served as a guest, handed back to its own server (the
    /// instance named) with a clean stop's checkpoint: the front stands by
    /// for the next turn.
    HandedBack(String),
}

/// One turn (see the module's notes), under `fatal`: the lease held (if
/// any), the store opened and recovered, the writer started, the router
/// served; then served until stopped, handed back or failed.
pub async fn turn(cfg: &ServeConfig, front: &mut Front, fatal: &Fatal) -> Result<Turn, ServeError> {
    let (addr, what) = (front.addr, front.what.clone());
    // Who asks for this partition back, if this server serves it as a guest.
    let asked: crate::lease::Asked = Arc::default();
    let retired = crate::http::Retired::default();
    let Some(Held { lease, keeping }) = hold_lease(cfg, front, fatal, &asked).await? else {
        return Ok(Turn::Stopped);
    };
    // What `/readyz` watches besides the writer (`http/health.rs`).
    let ready = crate::http::health::Readiness {
        fatal: Some(fatal.clone()),
        lease: keeping.as_ref().map(crate::lease::Keeping::held),
    };
    let OpenedStore { mut opened, early_keys, answered, bank } = open_store(cfg, lease.clone(), fatal.clone()).await?;
    // Held to the turn's end, past the stop's checkpoint and last anchor
    // line: no second server starts on this SQLite casino meanwhile.
    let _lock = opened.lock.take();
    recovered(cfg, &mut opened)?;
    let started = start_writer(cfg, opened, bank, lease.clone(), fatal)?;
    let mut end = Ending {
        cfg,
        fatal,
        what: what.clone(),
        retired: retired.clone(),
        lease,
        keeping,
        anchoring: started.anchoring.clone(),
        writer: started.writer.clone(),
    };
    let table_ids = started.table_ids.clone();
    go_live(front, app_state(cfg, front, started, (early_keys, answered), (retired, ready)), table_ids);
    let scheme = front.scheme();
    let Some(server) = front.server.as_mut() else { return Err(ServeError::NoListener) };
    // Said only now: the store is open, recovered, and its router served.
    baccarat_core::status::say(&format!("listening on {scheme}://{addr}/ as instance {} for {what}", cfg.instance));
    baccarat_core::status::say(&format!(
        "baccarat table server on {scheme}://{addr}/ for {what}  (API: {scheme}://{addr}/api/openapi.json)"
    ));
    crate::notify::serving(&what);
    let mut handed_to = None;
    tokio::select! {
        r = server => return Ok(r.map_err(ServeError::ServerTask)?.map(|()| Turn::Stopped)?),
        _ = stop_signal() => {}
        who = asked_back(&asked) => handed_to = Some(who),
        why = fatal.wait() => return Ok(end.failed(front, why).await),
    }
    // A partition handed back to its own server: new requests go to it (once
    // it serves: `lease::wait_for` names it), and this turn's pacers and
    // sockets end; then the clean stop's checkpoint, and the lease given up.
    if let Some(who) = &handed_to {
        baccarat_core::status::say(&format!("handing {what} back to its own server, instance {who}"));
        front.withdraw();
        end.retired.now();
    }
    end.stop_cleanly(front, handed_to).await
}

/// The lease a turn serves under (PostgreSQL), and its renewal; neither on
/// SQLite.
struct Held {
    lease: Option<crate::pg_store::Lease>,
    keeping: Option<crate::lease::Keeping>,
}

/// Wait for the lease and keep it renewed (PostgreSQL; nothing to wait for
/// on SQLite). `None`: a stop came while waiting.
async fn hold_lease(
    cfg: &ServeConfig,
    front: &Front,
    fatal: &Fatal,
    asked: &crate::lease::Asked,
) -> Result<Option<Held>, ServeError> {
    let Some(url) = &cfg.postgres else { return Ok(Some(Held { lease: None, keeping: None })) };
    let (what, claim) = (&front.what, cfg.claim());
    let owner = crate::lease::owner_of(&cfg.instance);
    // The front answers by now (`serve::run`): ready, as a standby (`notify.rs`).
    crate::notify::standing_by(what);
    let waiting = crate::lease::wait_for(url, &owner, &front.advertise, cfg.lease, &front.holder, what, claim);
    let (lease, since) = tokio::select! {
        l = waiting => l.map_err(ServeError::cluster)?,
        _ = stop_signal() => return Ok(None),
    };
    let renewal =
        crate::lease::Renewal { what: what.clone(), fatal: fatal.clone(), claim, asked: asked.clone(), since };
    let keeping = crate::lease::keep(url, &lease, &front.advertise, cfg.lease, renewal).map_err(ServeError::cluster)?;
    baccarat_core::status::say(&format!("instance {} holds the lease of {what} (epoch {})", cfg.instance, lease.epoch));
    Ok(Some(Held { lease: Some(lease), keeping: Some(keeping) }))
}

/// The store opened and recovered, with what is opened beside it.
struct OpenedStore {
    opened: Opened,
    /// The key reader of wagers refused without the writer.
    early_keys: Arc<dyn crate::ledger::keys::ColdKeys>,
    /// On PostgreSQL, the keys answered within the window, for the same
    /// refusals (`ledger/answered.rs`).
    answered: Option<Arc<Answered>>,
    /// A partition's link to the bank.
    bank: Option<crate::pg_store::bank::link::BankLink>,
}

/// Open and recover the store, with the early key reader and a partition's
/// bank link. Off the runtime's threads: opening reads the store
/// synchronously, and PostgreSQL's client may not run on them.
async fn open_store(
    cfg: &ServeConfig,
    leased: Option<crate::pg_store::Lease>,
    on_fatal: Fatal,
) -> Result<OpenedStore, ServeError> {
    let opening = cfg.clone();
    tokio::task::spawn_blocking(move || {
        let mut opened = open_leased(&opening, leased.as_ref())?;
        // Its own read connection: wagers refused without the writer
        // (`http/early.rs`).
        let db = opening.database();
        let index = opened
            .store
            .key_index(opening.key_retention.as_millis() as u64)
            .map_err(|source| ServeError::KeyIndex { db: db.shown(), source })?;
        let keys = crate::key_reader::open(&db, index).map_err(|source| ServeError::Open { db: db.shown(), source })?;
        let answered = match &db {
            crate::store::Db::Postgres(url) => Some(answered_filter(url, &mut opened, &opening)),
            crate::store::Db::Sqlite(_) => None,
        };
        // A partition's writer asks the bank (connected here: PostgreSQL's
        // client may not be made on the runtime's threads).
        let bank = match (&opening.partition, &opening.postgres, &leased) {
            (Some(p), Some(url), Some(l)) => {
                let link =
                    crate::pg_store::bank::link::BankLink::connect(url, p, l.clone()).map_err(ServeError::cluster)?;
                Some(link.on_fatal(on_fatal))
            }
            _ => None,
        };
        Ok::<_, ServeError>(OpenedStore { opened, early_keys: keys, answered, bank })
    })
    .await
    .map_err(ServeError::StartFailed)?
}

/// The filter of the keys answered within the window (`ledger/answered.rs`):
/// attached to the key memory first, then filled from the store by a thread
/// of its own, so that no answer falls between the two; the refusals made
/// without the writer use it once it is complete, and ask the store until
/// then (or for good, if it cannot be read). SQLite's own key index needs
/// none: its lookups are a few microseconds' read.
fn answered_filter(url: &str, opened: &mut Opened, cfg: &ServeConfig) -> Arc<Answered> {
    // The lookups' window and their margin, and ten minutes more.
    let keep = (cfg.key_retention.as_millis() as u64).saturating_add(crate::http::early::MARGIN_MS + 600_000);
    let a = Arc::new(Answered::new(keep));
    opened.casino.ledger.keys.set_answered(a.clone());
    let since = (cfg.clock)().saturating_sub(keep);
    let (url, into) = (url.to_string(), a.clone());
    let spawned =
        std::thread::Builder::new().name("answered-keys".into()).spawn(move || match crate::key_reader::load_answered(
            &url, since, &into,
        ) {
            Ok(n) => tracing::info!(keys = n, "early refusals: the keys answered within the window are read"),
            Err(e) => {
                tracing::warn!(error = %e, "early refusals: the keys answered could not be read; each asks the store")
            }
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "early refusals: no thread to read the keys answered; each asks the store");
    }
    a
}

/// Say what was recovered, and start a SQLite store's background work
/// (its WAL checkpoints, and the key index's upkeep).
fn recovered(cfg: &ServeConfig, opened: &mut Opened) -> Result<(), ServeError> {
    let recovery = &opened.recovery;
    baccarat_core::status::say(&format!(
        "recovered {} tables from {}: {} records and {} transfers read",
        opened.casino.tables.len(),
        if recovery.from_checkpoint { "the latest checkpoint" } else { "the whole history" },
        recovery.tail_records,
        recovery.tail_transfers
    ));
    if let AnyStore::Sqlite(s) = &mut opened.store {
        s.checkpoint_in_background(&cfg.db, Duration::from_millis(200))?;
        s.maintain_keys_in_background(&cfg.db, cfg.key_retention.as_millis() as u64)?;
    }
    Ok(())
}

/// A turn's writer, started on the recovered casino, and what its handlers
/// and the stop read.
struct Started {
    writer: Writer,
    read: ReadModels,
    users: Arc<crate::auth::Users>,
    /// The server's public key (hex).
    anchor_public: String,
    /// The anchor file, as the stop flushes it.
    anchoring: baccarat_core::Anchoring,
    table_ids: Vec<TableId>,
    founding: crate::audit::Founding,
}

/// Start the anchoring, the background checkpointer (offered the start's
/// checkpoint, if one is due) and the writer, whose committer publishes
/// each durable batch (`publish.rs`).
fn start_writer(
    cfg: &ServeConfig,
    opened: Opened,
    bank: Option<crate::pg_store::bank::link::BankLink>,
    lease: Option<crate::pg_store::Lease>,
    fatal: &Fatal,
) -> Result<Started, ServeError> {
    let Opened { store, casino, feed, users, anchors, due, founding, .. } = opened;
    // The key the start checked: the key file is not read again.
    let key = anchors.key().clone();
    let table_ids: Vec<TableId> = casino.tables.keys().copied().collect();
    let read = ReadModels::recovered(&casino, feed, cfg.exposure.clone());
    let anchor_public = anchors.public_hex();
    // Under a lease (PostgreSQL) the anchor file may be shared by the
    // instances that take the casino over in turn: a line per batch, written
    // right after its commit, so that none is written after the lease has
    // passed on (a coalesced line could come up to `anchor_every` later).
    let every = if lease.is_some() { Duration::ZERO } else { cfg.anchor_every };
    let anchoring = baccarat_core::Anchoring::start(anchors, every, fatal.clone());
    let checkpointer = baccarat_cluster::start_checkpointer(
        &cfg.database(),
        key.clone(),
        &cfg.anchor_paths().0,
        lease,
        casino.checkpointer_busy.clone(),
    )
    .map_err(ServeError::cluster)?;
    // The start's checkpoint is written in the background while this server
    // serves (the writer takes no other until it is written). A crash before
    // it is durable costs the next start the same tail again, no more.
    if let Some(cp) = due {
        casino.checkpointer_busy.set(true);
        checkpointer.offer(cp);
    }
    // The key a clean stop's checkpoint is signed with: the anchors' own.
    let stop = StopCheckpoint { key: Arc::new(key), anchors: cfg.anchor_paths().0 };
    let mut publisher = Publisher::new(anchoring.clone(), read.clone(), checkpointer, stop, cfg.clock.clone());
    let (writer, _handle) = Writer::start(
        casino,
        store,
        bank.map(|b| Box::new(b) as Box<dyn baccarat_casino::Funding>),
        read.prepare(),
        // On the publisher, once durable and before the batch's answers: so a
        // client that has its answer reads its own change in every view.
        // (A batch that cannot be anchored is not answered: `writer.rs`.)
        move |changes, commit: Commit, due| publisher.committed(changes, commit, due),
        fatal.clone(),
    );
    Ok(Started { writer, read, users, anchor_public, anchoring, table_ids, founding })
}

/// The state every handler of this turn shares.
fn app_state(
    cfg: &ServeConfig,
    front: &Front,
    started: Started,
    (early_keys, answered): (Arc<dyn crate::ledger::keys::ColdKeys>, Option<Arc<Answered>>),
    (retired, ready): (crate::http::Retired, crate::http::health::Readiness),
) -> AppState {
    let early = crate::http::early::Early::new(
        early_keys,
        cfg.postgres.is_some(),
        cfg.key_retention.as_millis() as u64,
        cfg.clock.clone(),
    );
    // Only under a lease: without one, nothing says no other server answers.
    let early = match (answered, ready.lease.clone()) {
        (Some(a), Some(held)) => early.with_answered(a, Arc::new(move || held.certain())),
        _ => early,
    };
    let Started { writer, read, users, anchor_public, founding, .. } = started;
    let ReadModels { views, tournaments, feed, exposure, wakes } = read;
    AppState(Arc::new(crate::http::Server {
        writer,
        feed,
        exposure,
        users,
        views,
        wakes,
        casts: Default::default(),
        db: cfg.database(),
        anchor_file: cfg.anchor_paths().0,
        anchor_public,
        limiter: Arc::new(crate::rate_limit::Limiter::new(cfg.rate_per_second, cfg.clock.clone())),
        signin: Arc::new(crate::signin::SignIn::new(cfg.clock.clone())),
        web_dir: cfg.web_dir.clone(),
        pace: Pace { betting: cfg.betting, deal: cfg.deal, squeeze: cfg.squeeze, result_pause: cfg.result_pause },
        clock: cfg.clock.clone(),
        tournaments,
        early: Arc::new(early),
        directory: front.directory.clone(),
        retired,
        origins: crate::http::origin::Origins::new(&cfg.allowed_origins, &front.advertise).scheme(front.scheme()),
        founding,
        ceiling: cfg.ceiling,
        ready,
        folds: crate::http::folds::permits(),
    }))
}

/// Pace the RNG tables, put this turn's router on the front and serve it.
fn go_live(front: &mut Front, state: AppState, table_ids: Vec<TableId>) {
    for id in table_ids {
        crate::http::pacing::spawn(state.clone(), id);
    }
    let public = state.anchor_public.clone();
    *front.active.write().unwrap_or_else(|p| p.into_inner()) = Some((router(state), public));
    front.serve();
}

/// What ending a turn needs, past its start.
struct Ending<'a> {
    cfg: &'a ServeConfig,
    fatal: &'a Fatal,
    what: String,
    retired: crate::http::Retired,
    lease: Option<crate::pg_store::Lease>,
    keeping: Option<crate::lease::Keeping>,
    anchoring: baccarat_core::Anchoring,
    /// Asks the writer for the clean stop's checkpoint.
    writer: Writer,
}

impl Ending<'_> {
    /// A fatal condition: the router withdrawn, the lease given up if it is
    /// still this turn's (its committer commits nothing more), so that the
    /// next turn, or another server, need not wait for it to expire.
    async fn failed(&mut self, front: &Front, why: String) -> Turn {
        self.stand_down(front);
        if let (Some(url), Some(l)) = (self.cfg.postgres.clone(), self.lease.clone()) {
            let ttl = self.cfg.lease;
            let _ = tokio::task::spawn_blocking(move || crate::lease::release(&url, &l, ttl)).await;
        }
        self.standing_by(why)
    }

    /// Withdraw the router, fail the turn's sockets, renew the lease no
    /// more.
    fn stand_down(&mut self, front: &Front) {
        front.withdraw();
        self.retired.failed();
        drop(self.keeping.take());
    }

    /// Say so: the front stands by for the next turn.
    fn standing_by(&self, why: String) -> Turn {
        baccarat_core::status::say(&format!("no longer serving {} here ({why}); standing by for it again", self.what));
        Turn::Fatal(why)
    }

    /// A clean stop: a checkpoint of everything done, so the next start reads
    /// almost nothing. (Connections are dropped; anything they had sent is in
    /// the writer's queue ahead of this request, or was refused.)
    /// A settlement being recorded in chunks takes moments: wait it out.
    async fn stop_cleanly(mut self, front: &Front, handed_to: Option<String>) -> Result<Turn, ServeError> {
        for _ in 0..600 {
            let reply = match self.checkpoint().await {
                Ok(r) => r,
                // A fatal condition in the middle of a hand-back: the partition
                // stands by again, as on any fatal condition. (A clean stop
                // ends the server whatever happens.)
                Err(_) if handed_to.is_some() && self.fatal.fired() => {
                    self.stand_down(front);
                    let why = self.fatal.wait().await;
                    return Ok(self.standing_by(why));
                }
                Err(e) => return Err(e),
            };
            if reply.code() != Some(crate::casino::Code::Settling) {
                // Said without a panic if the terminal is gone (SIGHUP).
                crate::stop::say("stopped: checkpoint written");
                return Ok(self.released(handed_to).await);
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        crate::stop::warn(
            "stopped without a checkpoint: a settlement was still being recorded; the next start reads a longer tail",
        );
        Ok(self.released(handed_to).await)
    }

    /// Ask the writer for the clean stop's checkpoint; its reply.
    async fn checkpoint(&self) -> Result<crate::casino::Reply, ServeError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let sent = self.writer.send(Request::Checkpoint, move |r| {
            let _ = tx.send(r);
        });
        match sent {
            Ok(()) => rx.await.map_err(|_| ServeError::WriterStopped),
            Err(e) => Err(ServeError::Writer(e)),
        }
    }

    /// The lease's renewal stopped and the lease given up: how the turn
    /// ended.
    async fn released(mut self, handed_to: Option<String>) -> Turn {
        drop(self.keeping.take()); // no renewal after the release
        self.give_up().await;
        ended(handed_to)
    }

    /// Every batch committed is anchored before the process ends; then the
    /// lease given up (PostgreSQL).
    async fn give_up(&self) {
        if let Err(e) = self.anchoring.flush_and_go_direct() {
            self.anchoring.unanchored(&e);
            return;
        }
        if let (Some(url), Some(l)) = (self.cfg.postgres.clone(), self.lease.clone()) {
            let ttl = self.cfg.lease;
            // Off the runtime's threads: it waits up to the lease's time.
            let released = tokio::task::spawn_blocking(move || crate::lease::release(&url, &l, ttl)).await;
            let why = match released {
                Ok(Ok(())) => return,
                Ok(Err(e)) => e.to_string(),
                Err(e) => e.to_string(),
            };
            crate::stop::warn(&format!(
                "the lease of {} was not given up ({why}); a standby takes over when it expires",
                self.what
            ));
        }
    }
}

/// How a turn that stopped cleanly ended: handed back to instance `who`,
/// or stopped.
fn ended(handed_to: Option<String>) -> Turn {
    handed_to.map_or(Turn::Stopped, Turn::HandedBack)
}

/// Once this partition's own server asks for it back: its instance.
async fn asked_back(asked: &crate::lease::Asked) -> String {
    let mut rx = asked.subscribe();
    let who = rx.wait_for(Option::is_some).await.map(|w| w.clone().unwrap_or_default());
    // The sender lives in `asked`: the wait ends only when someone asks.
    who.unwrap_or_default()
}
