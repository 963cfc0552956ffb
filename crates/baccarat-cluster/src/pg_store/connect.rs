//! A connection to PostgreSQL, bounded in time whatever the database's
//! machine does (issue 51).
//!
//! The `postgres` crate bounds `connect_timeout` over the TCP connect alone
//! (libpq bounds the whole start). A database whose machine is paused
//! (SIGSTOP, a frozen virtual machine) still completes the TCP handshake:
//! the kernel accepts into the listen backlog and acknowledges what is
//! sent, and then nothing answers. The start-up waits forever, and with a
//! multi-host URL so does every host after the paused one, though one of
//! them is the new primary: a standby never took the casino while the old
//! primary was paused (`tests/cli/pg_ha.rs`, the paused primary).
//!
//! So each TCP host is first asked, on a plain socket with a deadline
//! ([`PROBE`]), the one question a PostgreSQL server answers before any
//! login: an SSLRequest (8 bytes), answered with one byte, `N` or `S`. The
//! hosts are asked at once, and each that answers is connected to alone as
//! it answers (so the URL's order is a preference among hosts that answer
//! alike, not a promise); the first that accepts (and, under
//! `target_session_attrs=read-write`, allows writes) is the connection.
//! (PostgreSQL logs nothing for a client that leaves after that answer.) A
//! host that pauses in the instant between its answer and the start-up is
//! not caught here: a holder's renewal is watched (`lease.rs`), and a
//! standby checks its connection with a deadline before each try for the
//! lease. The single-host copy keeps the URL's user, password, database,
//! options, application name, timeouts, TLS mode, session attributes,
//! channel binding and keepalive idle time; not the keepalive interval and
//! retries, nor `load_balance_hosts` (the hosts are already asked at once).

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use postgres::config::Host;
use postgres::{Client, Config, NoTls};

/// How long a host has to answer the SSLRequest (and to accept its TCP
/// connection): a live server answers in well under a millisecond.
pub const PROBE: Duration = Duration::from_secs(2);

/// Why no connection was made.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// The URL does not parse, or every host that answered refused (or, for
    /// a read-write session, was read-only): the last host's error.
    #[error(transparent)]
    Pg(#[from] postgres::Error),
    /// No host answered within [`PROBE`]: down, cut off, or paused.
    #[error("no answer from {hosts} within {} ms", PROBE.as_millis())]
    NoAnswer { hosts: String },
}

impl ConnectError {
    /// Whether the database is out of reach (no answer, a refused or broken
    /// connection, no host that allows writes), rather than refusing this
    /// server (a password, a missing database): a wait outlasts the first.
    pub fn unreached(&self) -> bool {
        match self {
            ConnectError::NoAnswer { .. } => true,
            ConnectError::Pg(e) => super::unreached(e),
        }
    }
}

impl From<ConnectError> for crate::store::StoreError {
    fn from(e: ConnectError) -> Self {
        match e {
            ConnectError::Pg(e) => super::pg_error(e),
            e @ ConnectError::NoAnswer { .. } => crate::store::StoreError::Unreachable(e.to_string()),
        }
    }
}

/// A connection to `url`, bounded where the URL does not say otherwise: a
/// TCP connect gives up after 5 s, and a connection whose sent data goes
/// unacknowledged for 10 s is closed (TCP's user timeout), so a network cut
/// that drops packets fails a call within seconds rather than after the
/// system's minutes of retries. (A slow database is not affected: TCP
/// acknowledges data at once, whatever the query's time.) Hosts that do not
/// answer within [`PROBE`] are passed over (the module's note).
pub fn connect_client(url: &str) -> Result<Client, ConnectError> {
    let mut config: Config = url.parse()?;
    if config.get_connect_timeout().is_none() {
        config.connect_timeout(Duration::from_secs(5));
    }
    if config.get_tcp_user_timeout().is_none() {
        config.tcp_user_timeout(Duration::from_secs(10));
    }
    let hosts = config.get_hosts().len();
    if hosts == 0 {
        // None named: libpq's defaults, which the crate's own connect knows.
        return Ok(config.connect(NoTls)?);
    }
    // Every host is asked at once; each that answers is tried as it
    // answers, so a paused host costs nothing while another answers.
    let config = std::sync::Arc::new(config);
    let (tx, rx) = std::sync::mpsc::channel();
    for i in 0..hosts {
        let (config, tx) = (config.clone(), tx.clone());
        let _ = std::thread::Builder::new().name("postgres-probe".into()).spawn(move || {
            let _ = tx.send((i, answers(&config, i)));
        });
    }
    drop(tx);
    let mut last = None;
    // Each probe ends within its socket's timeouts, so the channel closes.
    while let Ok((i, answered)) = rx.recv() {
        if !answered {
            continue;
        }
        match one_host(&config, i).connect(NoTls) {
            Ok(c) => return Ok(c),
            Err(e) => last = Some(e),
        }
    }
    match last {
        Some(e) => Err(ConnectError::Pg(e)),
        None => Err(ConnectError::NoAnswer {
            hosts: (0..hosts).map(|i| host_port(&config, i)).collect::<Vec<_>>().join(", "),
        }),
    }
}

/// Host `i`'s port: its own, or the one port given for all, or 5432.
fn port(c: &Config, i: usize) -> u16 {
    let ports = c.get_ports();
    ports.get(i).or(ports.first()).copied().unwrap_or(5432)
}

/// Host `i` as the URL names it, with its port.
fn host_port(c: &Config, i: usize) -> String {
    match &c.get_hosts()[i] {
        Host::Tcp(h) => format!("{h}:{}", port(c, i)),
        Host::Unix(p) => format!("{}:{}", p.display(), port(c, i)),
    }
}

/// Whether host `i` answers an SSLRequest within [`PROBE`] at any of its
/// addresses. A Unix socket is not asked (a local server: its machine is
/// this one).
fn answers(c: &Config, i: usize) -> bool {
    let name = match &c.get_hosts()[i] {
        Host::Tcp(h) => h.clone(),
        Host::Unix(_) => return true,
    };
    let addrs = match c.get_hostaddrs().get(i) {
        Some(ip) => vec![std::net::SocketAddr::new(*ip, port(c, i))],
        None => (name.as_str(), port(c, i)).to_socket_addrs().map(|a| a.collect()).unwrap_or_default(),
    };
    addrs.iter().any(|a| ssl_answer(a, PROBE))
}

/// The SSLRequest: its length (8) and the code 1234·65536 + 5679.
const SSL_REQUEST: [u8; 8] = [0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f];

/// Whether the server at `a` answers the SSLRequest with `N` or `S` within
/// `within` (connect, write and read each).
fn ssl_answer(a: &std::net::SocketAddr, within: Duration) -> bool {
    let Ok(mut s) = TcpStream::connect_timeout(a, within) else {
        return false;
    };
    let _ = s.set_write_timeout(Some(within));
    let _ = s.set_read_timeout(Some(within));
    let mut b = [0u8; 1];
    s.write_all(&SSL_REQUEST).is_ok() && s.read_exact(&mut b).is_ok() && matches!(b[0], b'N' | b'S')
}

/// `c` with host `i` alone (its address and port), everything else as `c`
/// says it.
fn one_host(c: &Config, i: usize) -> Config {
    let mut one = Config::new();
    match &c.get_hosts()[i] {
        Host::Tcp(h) => one.host(h),
        Host::Unix(p) => one.host_path(p),
    };
    if let Some(ip) = c.get_hostaddrs().get(i) {
        one.hostaddr(*ip);
    }
    one.port(port(c, i));
    if let Some(u) = c.get_user() {
        one.user(u);
    }
    if let Some(p) = c.get_password() {
        one.password(p);
    }
    if let Some(d) = c.get_dbname() {
        one.dbname(d);
    }
    if let Some(o) = c.get_options() {
        one.options(o);
    }
    if let Some(a) = c.get_application_name() {
        one.application_name(a);
    }
    if let Some(t) = c.get_connect_timeout() {
        one.connect_timeout(*t);
    }
    if let Some(t) = c.get_tcp_user_timeout() {
        one.tcp_user_timeout(*t);
    }
    one.ssl_mode(c.get_ssl_mode())
        .target_session_attrs(c.get_target_session_attrs())
        .channel_binding(c.get_channel_binding())
        .keepalives(c.get_keepalives())
        .keepalives_idle(c.get_keepalives_idle());
    one
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A host that accepts the TCP connection and then answers nothing (a
    /// paused server) is passed over within the probe's time; one that
    /// answers `N` is asked.
    #[test]
    fn a_silent_host_is_passed_over_and_a_live_one_asked() {
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let live = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let (s, l) = (silent.local_addr().unwrap(), live.local_addr().unwrap());
        let answering = std::thread::spawn(move || {
            let (mut c, _) = live.accept().unwrap();
            let mut req = [0u8; 8];
            c.read_exact(&mut req).unwrap();
            c.write_all(b"N").unwrap();
            req
        });
        assert!(!ssl_answer(&s, Duration::from_millis(200)), "the silent host accepted but never answered");
        assert!(ssl_answer(&l, PROBE));
        assert_eq!(answering.join().unwrap(), SSL_REQUEST);
        drop(silent);
    }

    /// Nothing answers: the error names every host, and reads as a
    /// database out of reach (a standby waits it out, rather than stopping).
    #[test]
    fn no_answer_names_the_hosts_and_is_unreachable() {
        let a = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = a.local_addr().unwrap().port();
        drop(a);
        let url = format!("postgres://u@127.0.0.1:{port},127.0.0.1:{port}/db?connect_timeout=1");
        let e = connect_client(&url).err().expect("nothing answers");
        assert!(matches!(e, ConnectError::NoAnswer { .. }), "{e}");
        assert!(e.to_string().contains(&format!("127.0.0.1:{port}, 127.0.0.1:{port}")), "{e}");
        assert!(matches!(crate::store::StoreError::from(e), crate::store::StoreError::Unreachable(_)));
    }

    /// One host of several, with the rest of the URL kept.
    #[test]
    fn one_host_keeps_the_rest_of_the_url() {
        let c: Config =
            "postgres://bob:pw@a:1,b:2/casino?target_session_attrs=read-write&application_name=x&connect_timeout=3"
                .parse()
                .unwrap();
        let one = one_host(&c, 1);
        assert_eq!(one.get_hosts(), &[Host::Tcp("b".into())]);
        assert_eq!(one.get_ports(), &[2]);
        assert_eq!(
            (one.get_user(), one.get_dbname(), one.get_application_name()),
            (Some("bob"), Some("casino"), Some("x"))
        );
        assert_eq!(one.get_password(), Some(&b"pw"[..]));
        assert_eq!(one.get_target_session_attrs(), postgres::config::TargetSessionAttrs::ReadWrite);
        assert_eq!(one.get_connect_timeout(), Some(&Duration::from_secs(3)));
        let single: Config = "postgres://u@a:7,b/db".parse().unwrap();
        assert_eq!((port(&single, 0), port(&single, 1)), (7, 5432), "each its own port, else the default");
    }
}
