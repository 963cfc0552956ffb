//! A partition's server that also stands by for other partitions
//! (`serve --partition west --standby-for east`): when the server of `east`
//! dies and its lease expires, this process takes `east` over and serves it
//! beside `west`, until either is stopped (issue 14: "other instances take
//! its tables").
//!
//! # Design, and why
//!
//! A standby for a partition is already a whole server: it waits for the
//! lease, passing requests through to the holder meanwhile, then recovers
//! and serves (`lease.rs`, [`crate::serve::run`]). So standing by for
//! another partition is running that server in this process too, on a port
//! of its own (the same IP as `--addr`; a port given, or one the system picks), with its
//! own writer, bank link and anchors: one process, two casinos, sharing
//! nothing but the runtime. N servers can cover N partitions, each the
//! others' standby, rather than one idle standby per partition.
//!
//! * **Where it is reached.** A partition's clients reach it through any
//!   server under `/p/NAME/` (`partition_route.rs`), so its own port needs no
//!   fixed number: the system picks one unless one is given
//!   (`--standby-for east:8082`, for a firewall's sake). Its lease row
//!   advertises `http://HOST:PORT` (`https://` with `--tls-cert`, whose
//!   certificate then serves that port too): HOST is
//!   `--advertise`'s host if given, else `--addr`'s IP (which must then not
//!   be `0.0.0.0`, which other servers could not reach).
//! * **Its files.** Each partition keeps its own anchor file: the path
//!   given with `--anchor-file` names it with `{partition}` (the command line
//!   checks this). `--key-file` may name each partition's key the same way,
//!   or one key for all.
//! * **Whose partition it is.** A standby takes a lease no one holds, so a
//!   process standing by for `east` at a start of the whole floor could take
//!   `east` from its own server, or make it anew. So it stands by only for a
//!   partition that has been served (it never makes one), and one it finds
//!   unserved when it starts it leaves to its own server for [`GRACE`] times
//!   the lease's time first. A partition whose server stops cleanly (its
//!   lease given up) is taken over at once, as by any standby.
//! * **Giving it back.** It serves the partition as a guest
//!   (`pg_store::Claim::Guest`): when the partition's own server starts
//!   again and asks for its lease, this process hands the partition back
//!   with a clean stop's checkpoint and the lease given up, and stands by
//!   for it again (`serve/turn.rs`); while the own server asks, no guest
//!   takes the lease. So a floor returns to one partition per server after
//!   a failover without anyone restarting the server that took over.
//! * **Failure.** A partition taken over that cannot start is named, and
//!   the process goes on serving its own. A fatal condition of one
//!   partition (its lease lost, a commit that fails, the bank refusing it
//!   as fenced: `fatal.rs`) stops that partition only, which stands by for
//!   its lease again (`serve/turn.rs`); a process serving one partition
//!   exits instead. Exiting here would take the process's healthy
//!   partitions down with the failed one, each failing over in turn.
//! * **A clean stop** (Ctrl-C, SIGTERM) reaches every partition: each writes
//!   its checkpoint and gives its lease up before the process ends.

use std::net::SocketAddr;

use crate::serve::run;
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;

/// The host other servers reach this process's partitions at.
fn reachable_host(own: &ServeConfig) -> Result<String, String> {
    if let Some(url) = &own.advertise {
        let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or(rest);
        let host = match authority.strip_prefix('[') {
            Some(v6) => format!("[{}]", v6.split(']').next().unwrap_or(v6)),
            None => authority.split(':').next().unwrap_or(authority).to_string(),
        };
        if !host.is_empty() {
            return Ok(host);
        }
    }
    let ip = own.addr.ip();
    if ip.is_unspecified() {
        return Err(format!(
            "standby_for: this server listens on {ip}, which other servers cannot reach a partition it takes over \
             at; give --advertise with the host they reach it by"
        ));
    }
    Ok(match ip {
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        v4 => v4.to_string(),
    })
}

/// How many lease times a partition found unserved at this server's start
/// is left to its own server before this one takes it over.
pub const GRACE: u32 = 3;

/// Where partition `name` stands now: `None` if no server has served it
/// (not made, or never leased), else whether its lease is live.
async fn standing(url: &str, name: &str) -> Result<Option<bool>, ServeError> {
    let (url, name) = (url.to_string(), name.to_string());
    tokio::task::spawn_blocking(move || {
        let mut c = crate::pg_store::connect_client(&url).map_err(ServeError::cluster)?;
        let all = crate::pg_store::bank::list(&mut c, false).map_err(ServeError::cluster)?;
        Ok(all.into_iter().find(|p| p.name == name && p.instance.is_some()).map(|p| p.live))
    })
    .await
    .map_err(ServeError::cluster)?
}

/// Wait until this process may stand by for `cfg`'s partition (see the
/// module's notes): it has been served, and is served now or has been
/// unserved for [`GRACE`] lease times since `started`.
pub async fn until_ours_to_stand_by(cfg: &ServeConfig, started: tokio::time::Instant) {
    let (Some(url), Some(name)) = (&cfg.postgres, &cfg.partition) else { return };
    let mut told = None;
    loop {
        let now = standing(url, name).await;
        let say = match now {
            Ok(Some(true)) => return,
            Ok(Some(false)) if started.elapsed() >= cfg.lease * GRACE => return,
            Ok(Some(false)) => "unserved: left to its own server a while before this one takes it over",
            Ok(None) => "not served yet by its own server: this one stands by for it once it has been",
            Err(_) => "not readable from the database yet",
        };
        if told != Some(say) {
            baccarat_core::status::say(&format!("standby for partition {name}: {say}"));
            told = Some(say);
        }
        tokio::time::sleep(cfg.lease / 3).await;
    }
}

/// Serve `own`, and stand by for each of `others` in this process (each a
/// partition's configuration, as `own`'s but for its partition, URL and
/// files); until stopped.
pub async fn serve_with_standbys(mut own: ServeConfig, others: Vec<ServeConfig>) -> Result<(), ServeError> {
    if others.is_empty() {
        return crate::serve::serve(own).await;
    }
    own.stand_by_on_fatal = true;
    let host = reachable_host(&own).map_err(ServeError::Unreachable)?;
    let listener = tokio::net::TcpListener::bind(own.addr)
        .await
        .map_err(|source| ServeError::Listen { addr: own.addr, source })?;
    let mut standbys = Vec::new();
    for mut cfg in others {
        // On this server's IP, at the port given for the partition, if any.
        let at = SocketAddr::new(own.addr.ip(), cfg.addr.port());
        let l = tokio::net::TcpListener::bind(at).await.map_err(|source| ServeError::Listen { addr: at, source })?;
        let port = l.local_addr()?.port();
        cfg.addr = SocketAddr::new(own.addr.ip(), port);
        // Served as its own server is: over https with its TLS (`tls.rs`).
        let scheme = if cfg.tls.is_some() { "https" } else { "http" };
        cfg.advertise = Some(format!("{scheme}://{host}:{port}"));
        cfg.stand_by_on_fatal = true;
        cfg.guest = true;
        let name = cfg.partition.clone().unwrap_or_default();
        let started = tokio::time::Instant::now();
        standbys.push(tokio::spawn(async move {
            tokio::select! {
                _ = until_ours_to_stand_by(&cfg, started) => {}
                _ = crate::serve::stop_signal() => return,
            }
            if let Err(e) = run(cfg, l).await {
                tracing::error!(partition = %name, "partition {name}, taken over or stood by for here, stopped: {e}");
            }
        }));
    }
    let own_end = run(own, listener).await;
    // A clean stop reached them too: let each write its checkpoint.
    for s in standbys {
        let _ = s.await;
    }
    own_end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host a taken-over partition advertises: `--advertise`'s, or the
    /// listening IP; never an address others cannot reach.
    #[test]
    fn a_partition_taken_over_is_advertised_at_a_host_others_reach() {
        let at = |addr: &str, advertise: Option<&str>| {
            let mut c = ServeConfig::new("x.db".into(), addr.parse().unwrap());
            c.advertise = advertise.map(str::to_string);
            reachable_host(&c)
        };
        assert_eq!(at("10.0.0.5:8080", None), Ok("10.0.0.5".into()));
        assert_eq!(at("[::1]:8080", None), Ok("[::1]".into()));
        assert_eq!(at("0.0.0.0:8080", Some("http://casino-a.internal:8080/")), Ok("casino-a.internal".into()));
        assert_eq!(at("0.0.0.0:8080", Some("https://[2001:db8::1]:443")), Ok("[2001:db8::1]".into()));
        assert_eq!(at("10.0.0.5:8080", Some("http://edge")), Ok("edge".into()));
        let e = at("0.0.0.0:8080", None).unwrap_err();
        assert!(e.starts_with("standby_for:") && e.contains("--advertise"), "{e}");
    }
}
