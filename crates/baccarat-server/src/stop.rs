//! The signals that stop the server cleanly: SIGINT (Ctrl-C), SIGTERM (a
//! service manager), SIGHUP (the terminal it ran in was closed) and SIGQUIT
//! (Ctrl-\). Each stops it as SIGTERM does: the last checkpoint, every
//! committed batch anchored, the lease given up (`serve/turn.rs`).
//!
//! SIGHUP and SIGQUIT killed the server by their default action (exit 129,
//! or a core dump), skipping the checkpoint and the last anchor line (issue
//! 45, finding 11). SIGHUP is not ignored instead: a server whose terminal is
//! gone would go on with nowhere to print, and nothing asks it to reload.
//!
//! Two exceptions keep the usual contract of a Unix service:
//!
//! * **`nohup`.** A SIGHUP that the server was started with ignored
//!   (`nohup baccarat serve &`) stays ignored: listening for it would undo
//!   `nohup`, and the server would stop when its operator logged out. Read
//!   from `/proc/self/status` (`SigIgn`), since asking the kernel's signal
//!   table directly is `unsafe` here.
//! * **A second signal ends it at once.** A stop that hangs (a disk gone, a
//!   database out of reach) is ended by a second Ctrl-C, SIGTERM, SIGHUP or
//!   Ctrl-\, exit status 128 + the signal, as a crash would be: the store
//!   is crash-safe, and the next start recovers.
//!
//! After SIGHUP the terminal is gone, and a write to it fails: stdout and
//! stderr, where they are a terminal, are pointed at `/dev/null` then, once,
//! so that no `println!` on any thread panics in the middle of the stop. A
//! pipe or a file (a service manager's journal) is left as it is: it still
//! takes the stop's lines.
//!
//! The service manager is told as the first signal arrives (STOPPING=1,
//! `notify.rs`).
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
        let mut signals = signals;
        if let Some(first) = signals.received().await {
            if first == HANGUP {
                quiet_the_terminal();
            }
            crate::notify::stopping();
            tx.send_replace(true);
            if let Some(second) = signals.received().await {
                warn(&format!("a second stop signal ({second}): exiting now, without finishing the stop"));
                baccarat_core::exit::exit(128 + second);
            }
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

/// A status line on stdout that cannot panic (after SIGHUP the terminal may
/// be gone, and `println!` would then panic before the stop is finished),
/// and logged (`status.rs`).
pub fn say(line: &str) {
    baccarat_core::status::say(line);
}

/// A warning, logged (the log's writer passes over a failed write).
pub fn warn(line: &str) {
    tracing::warn!("{line}");
}

/// SIGHUP's number.
const HANGUP: i32 = 1;

/// Point stdout and stderr, where each is a terminal, at `/dev/null`: the
/// terminal hung up, and a write to it would fail (and `println!` panic).
fn quiet_the_terminal() {
    use std::io::IsTerminal;
    #[cfg(unix)]
    if let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") {
        if std::io::stdout().is_terminal() {
            let _ = nix::unistd::dup2_stdout(&null);
        }
        if std::io::stderr().is_terminal() {
            let _ = nix::unistd::dup2_stderr(&null);
        }
    }
}

/// Whether the process was started with `signal` ignored (`nohup` ignores
/// SIGHUP): bit `signal - 1` of `SigIgn` in `/proc/self/status`. Where that
/// cannot be read, not ignored.
fn ignored_at_start(signal: i32) -> bool {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).map(str::trim);
    mask.and_then(|m| u64::from_str_radix(m, 16).ok()).is_some_and(|m| m & (1 << (signal - 1)) != 0)
}

/// The signals listened for, registered (unix: each replaces its default
/// action for the rest of the process's life), with their numbers.
struct Signals {
    #[cfg(unix)]
    each: Vec<(i32, tokio::signal::unix::Signal)>,
}

impl Signals {
    fn register() -> Signals {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let kinds = [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup(), SignalKind::quit()];
            let each = kinds
                .into_iter()
                // `nohup`'s ignored SIGHUP stays ignored (see the module's notes).
                .filter(|k| !(k.as_raw_value() == HANGUP && ignored_at_start(HANGUP)))
                .filter_map(|k| {
                    let listening =
                        signal(k).map_err(|e| warn(&format!("warning: cannot listen for a stop signal: {e}")));
                    listening.ok().map(|s| (k.as_raw_value(), s))
                })
                .collect();
            Signals { each }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// The next signal's number (none: none can arrive).
    async fn received(&mut self) -> Option<i32> {
        #[cfg(unix)]
        {
            if self.each.is_empty() {
                return None;
            }
            std::future::poll_fn(|cx| {
                for (n, s) in self.each.iter_mut() {
                    if let std::task::Poll::Ready(got) = s.poll_recv(cx) {
                        return std::task::Poll::Ready(got.map(|()| *n));
                    }
                }
                std::task::Poll::Pending
            })
            .await
        }
        #[cfg(not(unix))]
        {
            tokio::signal::ctrl_c().await.ok().map(|()| 2)
        }
    }
}

#[cfg(test)]
mod tests {
    /// `nohup`'s mark is read from the kernel's own account of the process:
    /// this test process ignores no SIGHUP unless its runner does, and the
    /// mask agrees with a signal no runner ignores (SIGTERM, 15).
    #[test]
    fn an_ignored_signal_is_read_from_the_process_status() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let mask = status.lines().find_map(|l| l.strip_prefix("SigIgn:")).unwrap().trim();
        let mask = u64::from_str_radix(mask, 16).unwrap();
        assert_eq!(super::ignored_at_start(1), mask & 1 != 0);
        assert!(!super::ignored_at_start(15));
    }
}
