//! A PostgreSQL connection on a thread of its own, for callers that run on
//! the async runtime's threads.
//!
//! The `postgres` crate is synchronous: each call drives a small runtime of
//! its own, which tokio forbids on a thread already driving one ("cannot
//! start a runtime from within a runtime"). The writer, the committer, the
//! checkpointer and `spawn_blocking` tasks are plain threads and use
//! `postgres::Client` directly; what the HTTP handlers call inline (sessions,
//! sign-in) goes through this instead: the closure runs on the connection's
//! thread, and the caller waits for its answer, as it waits for SQLite.
//!
//! A connection the database closes (it restarted, or its backend was
//! terminated) fails the calls that find it closed (one or two: the client
//! learns it from the database's message, then from the closed socket), and
//! is made again for the next: a server outlives a database restart without
//! a restart of its own.

use std::sync::mpsc::{channel, sync_channel, Sender};
use std::sync::Mutex;

type Job = Box<dyn FnOnce(&mut postgres::Client) + Send>;

/// A connection owned by its own thread.
pub struct PgThread {
    tx: Mutex<Sender<Job>>,
}

impl PgThread {
    /// Connect on a new thread; the connection's error if it cannot.
    pub fn connect(url: &str) -> Result<PgThread, crate::pg_store::ConnectError> {
        let (tx, rx) = channel::<Job>();
        let (ready, started) = sync_channel(1);
        let url = url.to_string();
        std::thread::Builder::new()
            .name("postgres".into())
            .spawn(move || {
                let mut client = match crate::pg_store::connect_client(&url) {
                    Ok(c) => {
                        let _ = ready.send(Ok(()));
                        c
                    }
                    Err(e) => {
                        let _ = ready.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = rx.recv() {
                    // A connection the database closed (a restart, a
                    // terminated backend) is made again for the next job:
                    // the job that found it closed has failed, this one
                    // need not. (If it cannot be made, the job fails on the
                    // closed one, naming why.)
                    if client.is_closed() {
                        if let Ok(c) = crate::pg_store::connect_client(&url) {
                            client = c;
                        }
                    }
                    job(&mut client);
                }
            })
            .expect("spawn a PostgreSQL connection thread");
        started.recv().expect("the connection thread answers")?;
        Ok(PgThread { tx: Mutex::new(tx) })
    }

    /// Run `f` on the connection and wait for its result; `None` if the
    /// connection's thread is gone (it ended, or `f` panicked there): the
    /// caller answers with an error, never a panic of its own.
    pub fn run<T: Send + 'static>(&self, f: impl FnOnce(&mut postgres::Client) -> T + Send + 'static) -> Option<T> {
        let (tx, rx) = sync_channel(1);
        let job: Job = Box::new(move |c| {
            let _ = tx.send(f(c));
        });
        self.tx.lock().unwrap_or_else(|p| p.into_inner()).send(job).ok()?;
        rx.recv().ok()
    }
}
