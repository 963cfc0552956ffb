//! What a server does when it can no longer serve safely: a commit failed
//! (memory is ahead of the disk), the lease was lost (nothing more it writes
//! is accepted), the bank refused it as fenced, or a durable batch cannot be
//! anchored.
//!
//! # Design, and why
//!
//! * **Alone in its process** (the default, [`Fatal::exiting`]) the server
//!   exits with the code given (70, or 75 for a lost lease): a supervisor
//!   starts it again, and the start recovers from what is durable. Nothing
//!   is simpler to trust than a process that is gone.
//! * **One of several partitions in a process** (`serve --standby-for`,
//!   `standby_for.rs`; [`Fatal::standing_by`]) exiting would take the
//!   process's other partitions with it, healthy as they are, and each would
//!   fail over in turn. So only the partition stops: its committer commits
//!   and answers nothing more, its writer and pacers end, its router is
//!   withdrawn, and its server stands by for its lease again, passing its
//!   requests through to whoever holds it (`serve.rs`). If no one does, it
//!   takes the lease back once it expires, under a new epoch, and recovers
//!   from the store like any start: memory is never trusted past a fatal.
//!
//! Either way the first reason is kept and named; what it cannot be is
//! ignored. A request whose batch was not answered is retried by its client
//! with the same key, and the idempotency record answers it wherever the
//! partition is served next.

use std::sync::Arc;

use tokio::sync::watch;

/// A server's fatal condition, shared by the threads that can find one (see
/// the module's notes).
#[derive(Clone)]
pub struct Fatal {
    exit: bool,
    why: Arc<watch::Sender<Option<String>>>,
}

impl Fatal {
    /// A fatal condition ends the process.
    pub fn exiting() -> Fatal {
        Fatal { exit: true, why: Arc::new(watch::Sender::new(None)) }
    }

    /// A fatal condition stops this partition only, and it stands by again.
    pub fn standing_by() -> Fatal {
        Fatal { exit: false, why: Arc::new(watch::Sender::new(None)) }
    }

    /// Say that the server cannot go on (`why`, naming what failed): the
    /// process exits with `code`, or the partition is marked stopped and this
    /// returns, for the caller to do nothing more that commits or answers.
    pub fn fire(&self, code: i32, why: &str) {
        if self.exit {
            tracing::error!("{why}; stopping so that recovery can run");
            // Through `exit.rs`: the line above is written before the end.
            crate::exit::exit(code);
        }
        tracing::error!("{why}; this partition stops here and stands by for its lease again");
        self.why.send_if_modified(|w| {
            let first = w.is_none();
            if first {
                *w = Some(why.to_string());
            }
            first
        });
    }

    /// Whether the server must stop.
    pub fn fired(&self) -> bool {
        self.why.borrow().is_some()
    }

    /// Why the server must stop, if it must (`GET /readyz` names it).
    pub fn why(&self) -> Option<String> {
        self.why.borrow().clone()
    }

    /// Once the server must stop: why.
    pub async fn wait(&self) -> String {
        let mut rx = self.why.subscribe();
        let why = rx.wait_for(Option::is_some).await.map(|w| w.clone().unwrap_or_default());
        // The sender lives in `self`, so the wait ends only when fired.
        why.unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A partition's fatal condition is kept (the first reason) and wakes
    /// every waiter, before and after it is fired.
    #[test]
    fn the_first_reason_is_kept_and_every_waiter_wakes() {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let f = Fatal::standing_by();
        assert!(!f.fired());
        let early = {
            let f = f.clone();
            rt.spawn(async move { f.wait().await })
        };
        let g = f.clone();
        std::thread::spawn(move || g.fire(75, "lease lost")).join().unwrap();
        f.fire(70, "commit failed");
        assert!(f.fired());
        assert_eq!(rt.block_on(early).unwrap(), "lease lost");
        assert_eq!(rt.block_on(f.wait()), "lease lost");
    }
}
