//! The signals that stop the server cleanly: SIGINT (Ctrl-C), SIGTERM (a
//! service manager), SIGHUP (the terminal it ran in was closed) and SIGQUIT
//! (Ctrl-\). Each stops it as SIGTERM does: the last checkpoint, every
//! committed batch anchored, the lease given up (`serve_turn.rs`).
//!
//! SIGHUP and SIGQUIT killed the server by their default action (exit 129,
//! or a core dump), skipping the checkpoint and the last anchor line (issue
//! 45, finding 11). SIGHUP is not ignored instead: a server whose terminal is
//! gone would go on with nowhere to print, and nothing asks it to reload.
//!
//! Listened for once, from the first call on, and latched: a signal that
//! arrives while the server recovers is kept, and stops it as soon as it
//! serves, rather than being lost between one listener and the next (tokio
//! tells a listener only of the signals after it was made). Every wait,
//! present and future, then ends.

use std::sync::Mutex;

use tokio::sync::watch;

/// The latch: `true` once a stop signal has arrived. Its sender lives in the
/// listening task, on the runtime that first asked; a later runtime (tests
/// make several in one process) listens anew once that one is gone.
static LATCH: Mutex<Option<watch::Receiver<bool>>> = Mutex::new(None);

/// Listen for the stop signals from now on, if not already: call before
/// anything that a signal should not interrupt uncleanly. Within a tokio
/// runtime.
pub fn listen() -> watch::Receiver<bool> {
    let mut latch = LATCH.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(rx) = latch.as_ref().filter(|rx| *rx.borrow() || rx.has_changed().is_ok()) {
        return rx.clone();
    }
    let (tx, rx) = watch::channel(false);
    let signals = Signals::register();
    tokio::spawn(async move {
        if signals.received().await {
            tx.send_replace(true);
        }
        // Kept open: a closed latch means a runtime that is gone.
        std::future::pending::<()>().await;
    });
    *latch = Some(rx.clone());
    rx
}

/// Until a stop signal has arrived (at once if one already has).
pub async fn stopped() {
    let mut rx = listen();
    if rx.wait_for(|stop| *stop).await.is_err() {
        // The runtime that listened is ending: nothing more arrives here.
        std::future::pending::<()>().await;
    }
}

/// A line on stdout that cannot panic: after SIGHUP the terminal may be
/// gone, and `println!` would then panic before the stop is finished.
pub fn say(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{line}");
}

/// The same on stderr.
pub fn warn(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The signals listened for, registered (unix: each replaces its default
/// action for the rest of the process's life).
struct Signals {
    #[cfg(unix)]
    each: Vec<tokio::signal::unix::Signal>,
}

impl Signals {
    fn register() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let kinds = [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup(), SignalKind::quit()];
            let each = kinds
                .into_iter()
                .filter_map(|k| signal(k).map_err(|e| eprintln!("warning: cannot listen for a stop signal: {e}")).ok())
                .collect();
            Signals { each }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// Whether one arrived (false: none can).
    async fn received(mut self) -> bool {
        #[cfg(unix)]
        {
            if self.each.is_empty() {
                return false;
            }
            std::future::poll_fn(|cx| {
                for s in self.each.iter_mut() {
                    if let std::task::Poll::Ready(got) = s.poll_recv(cx) {
                        return std::task::Poll::Ready(got.is_some());
                    }
                }
                std::task::Poll::Pending
            })
            .await
        }
        #[cfg(not(unix))]
        {
            let _ = &mut self;
            tokio::signal::ctrl_c().await.is_ok()
        }
    }
}
