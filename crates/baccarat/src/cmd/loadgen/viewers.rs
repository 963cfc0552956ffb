//! `--viewers N`: N sockets watching one load table, signed in as no one, as
//! the table's page watches it (`…/ws?deltas=1`: the whole message once, then
//! numbered deltas), while the table deals its coups and the load players
//! bet there.
//!
//! What is measured, over the run once every socket has its first message:
//! - **Push latency**: each frame carries `committed_ms`, when the server
//!   published the batch whose change it shows (its injected clock, ms since
//!   the epoch); a socket's receipt is timed by loadgen's own clock on the
//!   same machine, so the latency is receipt minus commit, to the
//!   millisecond, and it includes loadgen's own wait to read the socket
//!   (its tasks share the machine with the server).
//! - **Bytes per viewer per coup**: the frames' text received by all the
//!   sockets, divided by the sockets and by the coups begun at the table
//!   while counting (a sentinel socket follows the messages whole, applying
//!   every delta, and reads the coup's number).
//! - **Gaps and whole messages**: a delta whose number does not follow the
//!   last would be a gap (a client then asks for the whole message); the
//!   count of whole messages shows how often a delta was not sent.
//! - **The sentinel's check**: at the end it asks for the whole message and
//!   compares it with the one it rebuilt from the deltas.
//!
//! One task per socket; connections are opened 128 at a time. The process's
//! open-file limit is raised (setrlimit) when N sockets need it.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::task::JoinHandle;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use super::hist::Hist;

/// At most this many viewers.
pub(super) const MAX_VIEWERS: u32 = 20_000;
/// Connections opened at once.
const CONNECTING: usize = 128;

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// What one socket saw while counting.
#[derive(Default)]
struct Seen {
    bytes: u64,
    frames: u64,
    whole: u64,
    gaps: u64,
    /// Receipt minus commit, ms, per frame.
    latencies: Vec<u32>,
    closed: bool,
}

/// The viewers of a run: their tasks, and what they share.
pub(super) struct Viewers {
    table: u32,
    tasks: Vec<JoinHandle<Seen>>,
    sentinel: JoinHandle<Result<Value>>,
    counting: Arc<AtomicBool>,
    /// The coup the sentinel last saw.
    coup: Arc<AtomicU64>,
    coup_at_start: u64,
    stop: watch::Sender<bool>,
    first_bytes: u64,
}

/// The time by this machine's clock, ms since the epoch (the server's
/// `committed_ms` is by the same clock when it runs here).
fn now_ms() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis() as u64)
}

/// Raise the open-file limit to fit `n` sockets and some, if it is lower
/// (up to the hard limit); the limit in effect.
#[cfg(target_os = "linux")]
pub(super) fn raise_fd_limit(n: u32) -> Result<u64> {
    use nix::sys::resource::{getrlimit, setrlimit, Resource};
    let need = u64::from(n) + 256;
    let (soft, hard) = getrlimit(Resource::RLIMIT_NOFILE).context("getrlimit")?;
    if soft >= need {
        return Ok(soft);
    }
    if hard < need {
        bail!("--viewers {n}: needs {need} open files, and the hard limit is {hard} (ulimit -Hn)");
    }
    setrlimit(Resource::RLIMIT_NOFILE, need, hard).context("setrlimit")?;
    Ok(need)
}

/// Elsewhere the limit is left as it is.
#[cfg(not(target_os = "linux"))]
pub(super) fn raise_fd_limit(_n: u32) -> Result<u64> {
    Ok(0)
}

/// Open `n` sockets (and the sentinel) at `table` of `url`, each having read
/// its first (whole) message, and count from then on.
async fn connect(url: &str, table: u32, n: u32) -> Result<Viewers> {
    let ws = format!("{}/api/tables/{table}/ws?deltas=1", url.replacen("http://", "ws://", 1));
    let (stop, stop_rx) = watch::channel(false);
    let counting = Arc::new(AtomicBool::new(false));
    let coup = Arc::new(AtomicU64::new(0));
    let (mut sentinel_sock, _) = tokio_tungstenite::connect_async_with_config(ws.as_str(), Some(config()), false)
        .await
        .context("the sentinel's socket")?;
    let first = next_text(&mut sentinel_sock).await.context("the sentinel's first message")?;
    let sentinel = tokio::spawn(sentinel(sentinel_sock, first, coup.clone(), stop_rx.clone()));
    let (mut tasks, mut first_bytes) = (Vec::new(), 0);
    let ids: Vec<u32> = (0..n).collect();
    for chunk in ids.chunks(CONNECTING) {
        let opened = futures_util::future::join_all(chunk.iter().map(|_| open(&ws))).await;
        for o in opened {
            let (sock, bytes) = o?;
            first_bytes += bytes;
            tasks.push(tokio::spawn(watch_table(sock, counting.clone(), stop_rx.clone())));
        }
    }
    let mut v = Viewers { table, tasks, sentinel, counting, coup, coup_at_start: 0, stop, first_bytes };
    v.count_from_now();
    Ok(v)
}

/// `--viewers N`'s sockets at `table`, if asked for.
pub(super) async fn start(n: Option<u32>, url: &str, table: u32) -> Result<Option<Viewers>> {
    match n {
        Some(n) => Ok(Some(connect(url, table, n).await?)),
        None => Ok(None),
    }
}

/// The viewers' report, if there are viewers (see [`Viewers::finish`]).
pub(super) async fn finish(v: Option<Viewers>, server_pid: Option<u32>) -> Result<Option<Value>> {
    match v {
        Some(v) => Ok(Some(v.finish(server_pid).await?)),
        None => Ok(None),
    }
}

/// One socket open, its first message read: its size.
async fn open(ws: &str) -> Result<(Socket, u64)> {
    let connecting = tokio_tungstenite::connect_async_with_config(ws, Some(config()), false);
    let (mut sock, _) = tokio::time::timeout(Duration::from_secs(30), connecting)
        .await
        .context("a viewer's socket: no answer in 30 s")?
        .context("a viewer's socket")?;
    let first = next_text(&mut sock).await?;
    Ok((sock, first.len() as u64))
}

/// A viewer's socket reads into a 4 KiB buffer (the frames are small), as
/// the server's do: tungstenite's default of 128 KiB is zeroed again before
/// every read, which cost loadgen a 128 KiB `memset` per frame received, on
/// the cores it shares with the server it measures (and 1.3 GB at 10,000).
fn config() -> WebSocketConfig {
    WebSocketConfig::default().read_buffer_size(READ_BUFFER)
}

/// The read buffer of a viewer's socket (see [`config`]).
const READ_BUFFER: usize = 4 * 1024;

/// The next text message of a socket.
async fn next_text(sock: &mut Socket) -> Result<String> {
    loop {
        match tokio::time::timeout(Duration::from_secs(30), sock.next()).await.context("no message in 30 s")? {
            Some(Ok(Message::Text(t))) => return Ok(t.as_str().to_string()),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.into()),
            None => bail!("the socket closed"),
        }
    }
}

/// A frame's number, commit time, and whether it is whole, read from its
/// start (`{"seq":n,"committed_ms":t,"full"|"delta":…`) without parsing
/// the rest: ten thousand sockets' frames are read on the server's machine.
fn head(t: &str) -> Option<(u64, u64, bool)> {
    let rest = t.strip_prefix("{\"seq\":")?;
    let (seq, rest) = rest.split_once(",\"committed_ms\":")?;
    let (at, rest) = rest.split_once(",\"")?;
    Some((seq.parse().ok()?, at.parse().ok()?, rest.starts_with("full\"")))
}

/// One viewer: counts and times every frame while counting, until stopped.
async fn watch_table(mut sock: Socket, counting: Arc<AtomicBool>, mut stop: watch::Receiver<bool>) -> Seen {
    let mut seen = Seen::default();
    let mut last: Option<u64> = None;
    loop {
        let m = tokio::select! {
            m = sock.next() => m,
            _ = stop.wait_for(|s| *s) => break,
        };
        let t = match m {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(_)) => continue,
            _ => {
                seen.closed = true;
                break;
            }
        };
        let received = now_ms();
        let Some((seq, at, whole)) = head(t.as_str()) else { continue };
        if counting.load(Ordering::Relaxed) {
            seen.bytes += t.as_str().len() as u64;
            seen.frames += 1;
            seen.whole += u64::from(whole);
            seen.gaps += u64::from(!whole && last.is_some_and(|l| seq != l + 1));
            seen.latencies.push(received.saturating_sub(at).min(u64::from(u32::MAX)) as u32);
        }
        last = Some(seq);
    }
    let _ = sock.close(None).await;
    seen
}

/// The sentinel's message as rebuilt: its number, the message, and the
/// deltas applied and gaps seen so far.
struct Rebuilt {
    seq: u64,
    msg: Value,
    applied: u64,
    gaps: u64,
}

impl Rebuilt {
    /// Take one frame: a whole message replaces, a delta in turn is applied.
    fn take(&mut self, text: &str) -> Result<bool> {
        let f: Value = serde_json::from_str(text)?;
        let n = f["seq"].as_u64().context("a frame without seq")?;
        let whole = !f["full"].is_null();
        if whole {
            self.msg = f["full"].clone();
        } else if n == self.seq + 1 {
            baccarat_server::http::delta::apply(&mut self.msg, &f["delta"]);
            self.applied += 1;
        } else {
            self.gaps += 1;
        }
        self.seq = n;
        Ok(whole)
    }
}

/// The sentinel: follows the messages whole (every delta applied), keeps the
/// coup's number, and at the end checks its message against a whole one.
async fn sentinel(
    mut sock: Socket,
    first: String,
    coup: Arc<AtomicU64>,
    mut stop: watch::Receiver<bool>,
) -> Result<Value> {
    let mut r = Rebuilt { seq: 0, msg: Value::Null, applied: 0, gaps: 0 };
    r.take(&first)?;
    loop {
        coup.store(r.msg["table"]["coup"].as_u64().unwrap_or(0), Ordering::Relaxed);
        let m = tokio::select! {
            m = sock.next() => m,
            _ = stop.wait_for(|s| *s) => break,
        };
        match m {
            Some(Ok(Message::Text(t))) => {
                r.take(t.as_str())?;
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => return Err(e.into()),
            None => bail!("the sentinel's socket closed"),
        }
    }
    // Ask for the whole message; deltas sent before it are applied first.
    sock.send(Message::Text(json!({"resync": true}).to_string().into())).await?;
    let mut whole = None;
    for _ in 0..1000 {
        let t = next_text(&mut sock).await?;
        let f: Value = serde_json::from_str(&t)?;
        if !f["full"].is_null() {
            whole = Some((f["seq"].as_u64(), f["full"].clone()));
            break;
        }
        r.take(&t)?;
    }
    let check = match whole {
        Some((seq, full)) if seq == Some(r.seq) && full == r.msg => "the rebuilt message is the whole one, exactly",
        Some((seq, _)) if seq == Some(r.seq) => "DIFFERENT: the rebuilt message is not the whole one",
        _ => "skipped: a newer message came first",
    };
    let _ = sock.close(None).await;
    Ok(json!({"deltas_applied": r.applied, "gaps": r.gaps, "check": check, "exact": check.starts_with("the rebuilt")}))
}

impl Viewers {
    /// Start counting (every socket has its first message).
    fn count_from_now(&mut self) {
        self.coup_at_start = self.coup.load(Ordering::Relaxed);
        self.counting.store(true, Ordering::Relaxed);
    }

    /// Stop counting, close the sockets, and report (with the server's
    /// memory if its pid is known).
    pub(super) async fn finish(self, server_pid: Option<u32>) -> Result<Value> {
        self.counting.store(false, Ordering::Relaxed);
        let coups = self.coup.load(Ordering::Relaxed).saturating_sub(self.coup_at_start);
        let memory = server_pid.map(|pid| {
            json!({
                "pid": pid,
                "rss_mb": super::rss::status_mb(pid, "VmRSS:").ok(),
                "hwm_mb": super::rss::status_mb(pid, "VmHWM:").ok(),
            })
        });
        let _ = self.stop.send(true);
        let n = self.tasks.len() as u64;
        let (mut seen, mut latency) = (Seen::default(), Hist::default());
        for t in self.tasks {
            let s = t.await.context("a viewer")?;
            seen.bytes += s.bytes;
            seen.frames += s.frames;
            seen.whole += s.whole;
            seen.gaps += s.gaps;
            seen.closed |= s.closed;
            for ms in s.latencies {
                latency.record(u64::from(ms) * 1000);
            }
        }
        let sentinel = self.sentinel.await.context("the sentinel")??;
        let per_coup = |x: u64| (coups > 0 && n > 0).then(|| x as f64 / n as f64 / coups as f64);
        Ok(json!({
            "table": self.table,
            "viewers": n,
            "coups": coups,
            "push_latency_ms": latency.summary(),
            "bytes_per_viewer_per_coup": per_coup(seen.bytes),
            "kb_per_viewer_per_coup": per_coup(seen.bytes).map(|b| b / 1000.0),
            "frames_per_viewer_per_coup": per_coup(seen.frames),
            "first_message_bytes": self.first_bytes.checked_div(n).unwrap_or(0),
            "frames": seen.frames,
            "whole_frames": seen.whole,
            "gaps": seen.gaps,
            "closed_by_server": seen.closed,
            "sentinel": sentinel,
            "server_memory": memory,
            "how": "latency: receipt by loadgen's clock minus the frame's committed_ms (the server's clock, same \
                    machine), ms; bytes: frames' text after each socket's first message, over sockets and coups begun",
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frames_head_is_read_without_parsing_the_rest() {
        assert_eq!(
            head(r#"{"seq":12,"committed_ms":1700000000123,"delta":{"now_ms":5}}"#),
            Some((12, 1700000000123, false))
        );
        assert_eq!(head(r#"{"seq":1,"committed_ms":0,"full":{"table":null}}"#), Some((1, 0, true)));
        assert_eq!(head(r#"{"table":{}}"#), None, "a whole message of a socket without deltas");
        assert_eq!(head(r#"{"seq":x,"committed_ms":0,"full":{}}"#), None);
    }
}
