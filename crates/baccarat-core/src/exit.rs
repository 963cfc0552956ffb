//! The one way out of the process before `main` returns: [`exit`].
//!
//! The log is written on a thread of its own (`baccarat`'s
//! `cmd/logging.rs`), so a line logged just before `std::process::exit`
//! could be lost with the process: the line saying why a server stopped
//! (`fatal.rs`) above all. So whatever must be done before the process ends
//! is registered here ([`on_exit`]), and every exit runs it first: [`exit`]
//! for an early one, [`flush`] at the end of `main`. `std::process::exit`
//! itself is refused elsewhere by clippy (`clippy.toml`,
//! `disallowed-methods`).

use std::sync::{Mutex, MutexGuard};

type Hook = Box<dyn FnOnce() + Send>;

/// What runs before the process ends, in the order registered.
static HOOKS: Mutex<Vec<Hook>> = Mutex::new(Vec::new());

fn hooks() -> MutexGuard<'static, Vec<Hook>> {
    HOOKS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Run `hook` before the process exits (once: by [`exit`] or [`flush`]).
pub fn on_exit(hook: impl FnOnce() + Send + 'static) {
    hooks().push(Box::new(hook));
}

/// Run the registered hooks, each once. They run under the lock, so that a
/// second thread exiting meanwhile (two fatal conditions at once) waits for
/// the first's flush rather than ending the process in the middle of it.
pub fn flush() {
    let mut hooks = hooks();
    for hook in hooks.drain(..) {
        hook();
    }
}

/// End the process with `code`, once the hooks have run.
pub fn exit(code: i32) -> ! {
    flush();
    #[allow(clippy::disallowed_methods)] // The one place it is called.
    std::process::exit(code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    /// Each hook runs once, in order, however many times the hooks are run.
    #[test]
    fn each_hook_runs_once_in_order() {
        let ran = Arc::new(Mutex::new(Vec::new()));
        let count = Arc::new(AtomicUsize::new(0));
        for n in [1, 2] {
            let (ran, count) = (ran.clone(), count.clone());
            on_exit(move || {
                ran.lock().unwrap().push(n);
                count.fetch_add(1, Ordering::Relaxed);
            });
        }
        flush();
        flush();
        assert_eq!(*ran.lock().unwrap(), [1, 2]);
        assert_eq!(count.load(Ordering::Relaxed), 2);
    }
}
