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

use std::net::SocketAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use tokio::sync::broadcast;

use crate::backend::AnyStore;
use crate::casino::Request;
use crate::fatal::Fatal;
use crate::http::{router, AppState, Pace};
use crate::serve::{heads_of, open_leased, stop_signal, Opened, ServeConfig};
use crate::store::Commit;
use crate::table_view::Views;
use crate::writer::Writer;

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
    pub server: Option<tokio::task::JoinHandle<std::io::Result<()>>>,
}

impl Front {
    /// Serve the listener, if not yet served.
    pub fn serve(&mut self) {
        if let Some(l) = self.listener.take() {
            // With each connection's address: sign-in limits count by client
            // address.
            let server = axum::serve(l, self.outer.clone().into_make_service_with_connect_info::<SocketAddr>());
            self.server = Some(tokio::spawn(std::future::IntoFuture::into_future(server)));
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

/// One turn (see the module's notes), under `fatal`.
pub async fn turn(cfg: &ServeConfig, front: &mut Front, fatal: &Fatal) -> Result<Turn, String> {
    let (addr, what) = (front.addr, front.what.clone());
    let claim = cfg.claim();
    // Who asks for this partition back, if this server serves it as a guest.
    let asked: crate::lease::Asked = Arc::default();
    let retired = crate::http::Retired::default();
    let (lease, mut keeping) = match &cfg.postgres {
        None => (None, None),
        Some(url) => {
            let owner = crate::lease::owner_of(&cfg.instance);
            let (lease, since) = tokio::select! {
                l = crate::lease::wait_for(url, &owner, &front.advertise, cfg.lease, &front.holder, &what, claim) => l?,
                _ = stop_signal() => return Ok(Turn::Stopped),
            };
            let renewal =
                crate::lease::Renewal { what: what.clone(), fatal: fatal.clone(), claim, asked: asked.clone(), since };
            let keeping = crate::lease::keep(url, &lease, &front.advertise, cfg.lease, renewal)?;
            println!("instance {} holds the lease of {what} (epoch {})", cfg.instance, lease.epoch);
            (Some(lease), Some(keeping))
        }
    };
    // Opening reads the store synchronously (PostgreSQL's client may not run
    // on the runtime's own threads).
    let opening = cfg.clone();
    let leased = lease.clone();
    let on_fatal = fatal.clone();
    let (opened, early_keys, bank) = tokio::task::spawn_blocking(move || {
        let mut opened = open_leased(&opening, leased.as_ref())?;
        // Its own read connection: wagers refused without the writer
        // (`http/early.rs`).
        let db = opening.database();
        let index = opened
            .store
            .key_index(opening.key_retention.as_millis() as u64)
            .map_err(|e| format!("{}: the key index: {e}", db.shown()))?;
        let keys = crate::key_reader::open(&db, index).map_err(|e| format!("{}: {e}", db.shown()))?;
        // A partition's writer asks the bank (connected here: PostgreSQL's
        // client may not be made on the runtime's threads).
        let bank = match (&opening.partition, &opening.postgres, &leased) {
            (Some(p), Some(url), Some(l)) => {
                Some(crate::bank::link::BankLink::connect(url, p, l.clone())?.on_fatal(on_fatal))
            }
            _ => None,
        };
        Ok::<_, String>((opened, keys, bank))
    })
    .await
    .map_err(|e| format!("the start failed: {e}"))??;
    let Opened { mut store, casino, feed, users, anchors, recovery, due, lock } = opened;
    // Held to the turn's end, past the stop's checkpoint and last anchor
    // line: no second server starts on this SQLite casino meanwhile.
    let _lock = lock;
    // The key the start checked: the key file is not read again.
    let key = anchors.key().clone();
    println!(
        "recovered {} tables from {}: {} records and {} transfers read",
        casino.tables.len(),
        if recovery.from_checkpoint { "the latest checkpoint" } else { "the whole history" },
        recovery.tail_records,
        recovery.tail_transfers
    );
    if let AnyStore::Sqlite(s) = &mut store {
        s.checkpoint_in_background(&cfg.db, Duration::from_millis(200)).map_err(|e| e.to_string())?;
        s.maintain_keys_in_background(&cfg.db, cfg.key_retention.as_millis() as u64).map_err(|e| e.to_string())?;
    }
    let table_ids: Vec<u32> = casino.tables.keys().copied().collect();
    let views = Arc::new(RwLock::new(Views::default()));
    views.write().expect("views").rebuild(&casino);
    let tournaments = Arc::new(RwLock::new(crate::casino::tournaments::TournamentViews::of(&casino)));
    let tv = tournaments.clone();
    let (changed, _) = broadcast::channel(1024);
    let feed = Arc::new(RwLock::new(feed));
    let anchor_public = anchors.public_hex();
    // Under a lease (PostgreSQL) the anchor file may be shared by the
    // instances that take the casino over in turn: a line per batch, written
    // right after its commit, so that none is written after the lease has
    // passed on (a coalesced line could come up to `anchor_every` later).
    let every = if lease.is_some() { Duration::ZERO } else { cfg.anchor_every };
    let anchoring = crate::anchoring::Anchoring::start(anchors, every, fatal.clone());
    let anchoring_at_stop = anchoring.clone();
    let checkpointer = crate::backend::start_checkpointer(
        &cfg.database(),
        key.clone(),
        &cfg.anchor_paths().0,
        lease.clone(),
        casino.checkpointer_busy.clone(),
    )?;
    // The start's checkpoint is written in the background while this server
    // serves (the writer takes no other until it is written). A crash before
    // it is durable costs the next start the same tail again, no more.
    if let Some(cp) = due {
        casino.checkpointer_busy.set(true);
        checkpointer.offer(cp);
    }
    // The key a clean stop's checkpoint is signed with: the anchors' own.
    let stop_key = Arc::new(key);
    let stop_anchors = cfg.anchor_paths().0;
    let v = views.clone();
    let v2 = views.clone();
    let (fd, ch) = (feed.clone(), changed.clone());
    let mut version = 0u64;
    let (writer, _handle) = Writer::start(
        casino,
        store,
        bank.map(|b| Box::new(b) as Box<dyn crate::writer::Funding>),
        move |c, commit| v.read().expect("views").changes(c, commit),
        // On the committer, once durable and before the batch's answers: so a
        // client that has its answer reads its own change in every view.
        // (A batch that cannot be anchored is not answered: `writer.rs`.)
        move |changes, commit: Commit, due: Option<crate::writer::DueCheckpoint>| {
            // The batch is durable: its chains' heads go to the anchor file
            // (in the next line, at most `anchor_every` from now).
            if let Err(e) = anchoring.committed(&heads_of(&commit)) {
                anchoring.unanchored(&e);
                return None;
            }
            v2.write().expect("views").apply(changes);
            tv.write().expect("tournaments").absorb(&commit.records);
            let mut f = fd.write().expect("feed");
            f.absorb_all(&commit.events);
            // A checkpoint of this batch takes the read model as of it; a
            // clean stop's is written now, any other in the background.
            let mut now = None;
            if let Some(crate::writer::DueCheckpoint { checkpoint: mut cp, asked }) = due {
                cp.feed = Some(f.state());
                match anchoring.mark_at(cp.at_ms) {
                    Ok(mark) => cp.anchor = Some(mark),
                    Err(e) => {
                        anchoring.unanchored(&e);
                        return None;
                    }
                }
                if asked {
                    now = Some(crate::checkpoint::WriteNow {
                        checkpoint: cp,
                        key: stop_key.clone(),
                        anchors: stop_anchors.clone(),
                    });
                } else {
                    checkpointer.offer(cp);
                }
            }
            drop(f);
            version += 1;
            let _ = ch.send(version);
            now
        },
        fatal.clone(),
    );
    let stopper = writer.clone();
    let state = AppState(Arc::new(crate::http::Server {
        writer,
        feed,
        users,
        views,
        changed,
        db: cfg.database(),
        anchor_file: cfg.anchor_paths().0,
        anchor_public,
        limiter: Arc::new(crate::rate_limit::Limiter::new(cfg.rate_per_second, cfg.clock.clone())),
        signin: Arc::new(crate::signin::SignIn::new(cfg.clock.clone())),
        web_dir: cfg.web_dir.clone(),
        pace: Pace { betting: cfg.betting, deal: cfg.deal, squeeze: cfg.squeeze, result_pause: cfg.result_pause },
        clock: cfg.clock.clone(),
        tournaments,
        early: Arc::new(crate::http::early::Early::new(
            early_keys,
            cfg.postgres.is_some(),
            cfg.key_retention.as_millis() as u64,
            cfg.clock.clone(),
        )),
        directory: front.directory.clone(),
        retired: retired.clone(),
        origins: crate::http::origin::Origins::new(&cfg.allowed_origins, &front.advertise),
    }));
    for id in table_ids {
        tokio::spawn(crate::pacer::pace(state.clone(), id));
    }
    let public = state.anchor_public.clone();
    *front.active.write().unwrap_or_else(|p| p.into_inner()) = Some((router(state), public));
    front.serve();
    let Some(server) = front.server.as_mut() else { return Err("no listener".into()) };
    println!("baccarat table server on http://{addr}/ for {what}  (API: http://{addr}/api/openapi.json)");
    let mut handed_to = None;
    tokio::select! {
        r = server => return r.map_err(|e| e.to_string())?.map_err(|e| e.to_string()).map(|()| Turn::Stopped),
        _ = stop_signal() => {}
        who = asked_back(&asked) => handed_to = Some(who),
        why = fatal.wait() => {
            front.withdraw();
            retired.failed();
            // No renewal, and the lease given up if it is still this turn's
            // (its committer commits nothing more), so that the next turn,
            // or another server, need not wait for it to expire.
            drop(keeping.take());
            if let (Some(url), Some(l)) = (cfg.postgres.clone(), lease.clone()) {
                let ttl = cfg.lease;
                let _ = tokio::task::spawn_blocking(move || crate::lease::release(&url, &l, ttl)).await;
            }
            println!("no longer serving {what} here ({why}); standing by for it again");
            return Ok(Turn::Fatal(why));
        }
    }
    // A partition handed back to its own server: new requests go to it (once
    // it serves: `lease::wait_for` names it), and this turn's pacers and
    // sockets end; then the clean stop's checkpoint, and the lease given up.
    if let Some(who) = &handed_to {
        println!("handing {what} back to its own server, instance {who}");
        front.withdraw();
        retired.now();
    }
    let give_up = |lease: Option<crate::pg_store::Lease>| {
        let (anchoring, url, ttl, what) = (anchoring_at_stop.clone(), cfg.postgres.clone(), cfg.lease, what.clone());
        async move {
            // Every batch committed is anchored before the process ends.
            if let Err(e) = anchoring.flush_and_go_direct() {
                anchoring.unanchored(&e);
                return;
            }
            if let (Some(url), Some(l)) = (url, lease) {
                // Off the runtime's threads: it waits up to the lease's time.
                let released = tokio::task::spawn_blocking(move || crate::lease::release(&url, &l, ttl)).await;
                if let Err(e) = released.map_err(|e| e.to_string()).and_then(|r| r) {
                    crate::stop::warn(&format!(
                        "the lease of {what} was not given up ({e}); a standby takes over when it expires"
                    ));
                }
            }
        }
    };
    // A clean stop: a checkpoint of everything done, so the next start reads
    // almost nothing. (Connections are dropped; anything they had sent is in
    // the writer's queue ahead of this request, or was refused.)
    // A settlement being recorded in chunks takes moments: wait it out.
    for _ in 0..600 {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let sent = stopper.send(Request::Checkpoint, move |r| {
            let _ = tx.send(r);
        });
        let reply = match sent {
            Ok(()) => rx.await.map_err(|_| "the writer stopped before the checkpoint".to_string()),
            Err(e) => Err(e.to_string()),
        };
        let reply = match reply {
            Ok(r) => r,
            // A fatal condition in the middle of a hand-back: the partition
            // stands by again, as on any fatal condition. (A clean stop
            // ends the server whatever happens.)
            Err(_) if handed_to.is_some() && fatal.fired() => {
                front.withdraw();
                retired.failed();
                drop(keeping.take());
                let why = fatal.wait().await;
                println!("no longer serving {what} here ({why}); standing by for it again");
                return Ok(Turn::Fatal(why));
            }
            Err(e) => return Err(e),
        };
        if reply.code() != Some(crate::casino::Code::Settling) {
            // Said without a panic if the terminal is gone (SIGHUP).
            crate::stop::say("stopped: checkpoint written");
            drop(keeping.take()); // no renewal after the release
            give_up(lease.clone()).await;
            return Ok(ended(handed_to));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    crate::stop::warn(
        "stopped without a checkpoint: a settlement was still being recorded; the next start reads a longer tail",
    );
    drop(keeping.take());
    give_up(lease.clone()).await;
    Ok(ended(handed_to))
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
