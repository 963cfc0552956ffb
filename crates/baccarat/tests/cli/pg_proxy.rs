//! A loopback TCP proxy in front of the test cluster's Unix socket, which a
//! test cuts as a network would be cut between a server and its database:
//!
//! * [`Cut::Stall`]: every byte is held, in both directions, on the
//!   connections open and on new ones (a network dropping packets, which
//!   TCP sends again once it heals): calls neither fail nor return;
//! * [`Cut::Reset`]: every connection is closed, and new ones are closed at
//!   once (a router resetting them, or the database's host restarting).
//!
//! [`Cut::Open`] heals it: what was held is delivered.

use std::io::{ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The state of the network between the servers and the database.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Cut {
    Open = 0,
    Stall = 1,
    Reset = 2,
}

pub struct Proxy {
    pub port: u16,
    state: Arc<AtomicU8>,
    stop: Arc<AtomicBool>,
    held: Arc<AtomicU64>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Proxy {
    /// A proxy on a free loopback port to the cluster whose URL is
    /// `cluster` (a Unix socket's directory as its host, percent-encoded).
    pub fn start(cluster: &str) -> Proxy {
        let host = cluster.split('@').nth(1).and_then(|r| r.split('/').next()).expect("a URL with a host");
        let socket = PathBuf::from(host.replace("%2F", "/")).join(".s.PGSQL.5432");
        assert!(socket.exists(), "the cluster's socket {}", socket.display());
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let (state, stop) = (Arc::new(AtomicU8::new(Cut::Open as u8)), Arc::new(AtomicBool::new(false)));
        let held = Arc::new(AtomicU64::new(0));
        let (st, sp, hd) = (state.clone(), stop.clone(), held.clone());
        std::thread::spawn(move || {
            while !sp.load(Ordering::Relaxed) {
                let tcp = match listener.accept() {
                    Ok((tcp, _)) => tcp,
                    Err(e) if e.kind() == ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(2));
                        continue;
                    }
                    Err(_) => continue,
                };
                if st.load(Ordering::Relaxed) == Cut::Reset as u8 {
                    let _ = tcp.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(db) = UnixStream::connect(&socket) else {
                    let _ = tcp.shutdown(Shutdown::Both);
                    continue;
                };
                let _ = tcp.set_nonblocking(false);
                let _ = tcp.set_nodelay(true);
                let (t2, d2) = (tcp.try_clone().unwrap(), db.try_clone().unwrap());
                let ends = Ends { tcp: tcp.try_clone().unwrap(), db: db.try_clone().unwrap() };
                let ends2 = Ends { tcp: t2.try_clone().unwrap(), db: d2.try_clone().unwrap() };
                let (s1, s2, p1, p2) = (st.clone(), st.clone(), sp.clone(), sp.clone());
                let h1 = hd.clone();
                std::thread::spawn(move || pump(tcp, db, ends, (s1, p1), Some(h1)));
                std::thread::spawn(move || pump(d2, t2, ends2, (s2, p2), None));
            }
        });
        Proxy { port, state, stop, held }
    }

    /// Bytes the servers sent towards the database that a stall held and
    /// delivered late (statements sent while the network was stalled).
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::Relaxed)
    }

    /// The URL of database `db` (a URL on the cluster) through the proxy.
    pub fn url(&self, db: &str) -> String {
        let name = db.rsplit('/').next().expect("a URL ending in its database");
        let user = db.split("://").nth(1).and_then(|r| r.split('@').next()).expect("a URL with a user");
        format!("postgres://{user}@127.0.0.1:{}/{name}", self.port)
    }

    pub fn set(&self, cut: Cut) {
        self.state.store(cut as u8, Ordering::Relaxed);
    }
}

/// Both sockets of one connection, to close when it is reset.
struct Ends {
    tcp: TcpStream,
    db: UnixStream,
}

impl Ends {
    fn close(&self) {
        let _ = self.tcp.shutdown(Shutdown::Both);
        let _ = self.db.shutdown(Shutdown::Both);
    }
}

/// Copy `from` to `to` as the network's state allows (its state and the
/// proxy's stop), until either closes; the bytes a stall held are added to
/// `held` (the servers' way towards the database only).
fn pump(
    mut from: impl Read + Timed,
    mut to: impl Write,
    ends: Ends,
    (state, stop): (Arc<AtomicU8>, Arc<AtomicBool>),
    held: Option<Arc<AtomicU64>>,
) {
    from.timeout(Duration::from_millis(20));
    let mut buf = vec![0u8; 64 * 1024];
    let cut = || state.load(Ordering::Relaxed);
    loop {
        if stop.load(Ordering::Relaxed) || cut() == Cut::Reset as u8 {
            return ends.close();
        }
        let n = match from.read(&mut buf) {
            Ok(0) => return ends.close(),
            Ok(n) => n,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => continue,
            Err(_) => return ends.close(),
        };
        // Held while stalled; lost if reset meanwhile.
        let stalled = cut() == Cut::Stall as u8;
        while cut() == Cut::Stall as u8 && !stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(5));
        }
        if cut() == Cut::Reset as u8 || to.write_all(&buf[..n]).is_err() {
            return ends.close();
        }
        if let Some(held) = held.as_ref().filter(|_| stalled) {
            held.fetch_add(n as u64, Ordering::Relaxed);
        }
    }
}

/// A socket whose reads time out.
trait Timed {
    fn timeout(&mut self, d: Duration);
}

impl Timed for TcpStream {
    fn timeout(&mut self, d: Duration) {
        let _ = self.set_read_timeout(Some(d));
    }
}

impl Timed for UnixStream {
    fn timeout(&mut self, d: Duration) {
        let _ = self.set_read_timeout(Some(d));
    }
}
