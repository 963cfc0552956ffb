//! Telling systemd how the server stands (`Type=notify`, issue 48), so that
//! `systemctl start` returns, and units ordered after this one start, only
//! once the server answers, and `systemctl status` says what it does.
//!
//! * **READY=1** once the server answers for the casino: on SQLite (or a
//!   server that may not stand by) once it listens, its store is open and
//!   recovered, its writer runs and its router is live: `/ready` answers
//!   200 by then ([`serving`]). A server of a PostgreSQL casino is ready once
//!   it **stands by** for the lease ([`standing_by`]): it listens and sends
//!   every client to the server that holds the lease, and `/ready` says 503
//!   until it serves. A standby may wait for days; were it ready only once
//!   it served, systemd would kill it at `TimeoutStartSec`. A balancer
//!   reads `/ready`, not systemd, to send players where wagers are taken.
//! * **STATUS=** what it does: serving, or standing by.
//! * **STOPPING=1** as soon as a stop signal arrives (`stop.rs`): the stop
//!   then takes a checkpoint, within the unit's `TimeoutStopSec`.
//!
//! No watchdog (`WatchdogSec`): the writer may rightly be busy for longer
//! than any small interval (a settlement recorded in chunks, a checkpoint, a
//! slow disk), and a watchdog's kill is a `kill -9` in the middle of it;
//! `/ready` and the server's own fatal conditions (`fatal.rs`) judge the
//! writer instead.
//!
//! Every call is a no-op without `NOTIFY_SOCKET` (not started by systemd, or
//! not as `Type=notify`); a message that cannot be sent is named once on
//! stderr and the server goes on: systemd then ends it at its start's
//! timeout, which says more than a server that refused to run would.

use std::sync::atomic::{AtomicBool, Ordering};

use sd_notify::NotifyState;

/// The server answers, serving `what` ("the casino", "partition NAME").
pub fn serving(what: &str) {
    send(&[NotifyState::Ready, NotifyState::Status(&format!("serving {what}"))]);
}

/// The server answers, standing by for the lease of `what`: it sends clients
/// to the holder until it serves.
pub fn standing_by(what: &str) {
    send(&[NotifyState::Ready, NotifyState::Status(&format!("standing by for the lease of {what}"))]);
}

/// A stop has begun.
pub fn stopping() {
    send(&[NotifyState::Stopping, NotifyState::Status("stopping: writing the checkpoint")]);
}

/// Whether a failure to send has been named already.
static FAILED: AtomicBool = AtomicBool::new(false);

/// Send `states` to the service manager, if there is one.
fn send(states: &[NotifyState]) {
    if let Err(e) = sd_notify::notify(states) {
        if !FAILED.swap(true, Ordering::Relaxed) {
            // Never a panic, even with the terminal gone (as `stop::warn`,
            // which is not called: `stop.rs` calls this module).
            use std::io::Write;
            let _ =
                writeln!(std::io::stderr().lock(), "warning: cannot notify the service manager (NOTIFY_SOCKET): {e}");
        }
    }
}
