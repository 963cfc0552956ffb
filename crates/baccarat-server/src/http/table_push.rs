//! What a table's socket sends after each wake-up, and how it is framed.
//!
//! **Plain** (`GET /api/tables/{id}/ws`, as before): the viewer's whole
//! message whenever it changed (leaving `now_ms` out of the comparison).
//!
//! **Deltas** (`…/ws?deltas=1`, what the pages ask for): numbered frames,
//! `{"seq": n, "committed_ms": t, "full": {message}}` or
//! `{"seq": n, "committed_ms": t, "delta": {patch}}` (`delta.rs`'s format:
//! the patch applied to message `n - 1` gives message `n` exactly). A full
//! message comes first, then deltas, and a full one again whenever a delta
//! would not be smaller, the viewer asks (`{"resync": true}`: a client that
//! sees a gap in `seq` asks), signs in, or fell too far behind. Each frame
//! resets nothing else: a client keeps the last message and applies.
//! `committed_ms` is when the batch whose change the frame shows was
//! published (the server's clock, `publish/wakes.rs`), so that a client on
//! the same machine can time the push.
//!
//! **Shared among the viewers signed in as no one.** They all see the same
//! message at a table, so it is built, compared, diffed and framed once per
//! table and batch ([`Casts`]), by whichever of its sockets wakes first, and
//! every other socket sends the same bytes. A socket that fell behind
//! catches up with the frames it missed, from the last [`KEEP`] kept, or
//! with the full message. A player's or staff's socket builds its own (their
//! balance, wagers and pit are theirs).

use baccarat_core::TableId;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::extract::ws::Utf8Bytes;
use serde_json::Value;

use super::delta::diff;
use super::AppState;
use crate::auth::Session;
use crate::publish::TableWake;

/// Deltas kept per table for the sockets behind (shared messages).
pub const KEEP: usize = 32;

/// A run of messages as framed: the last one, its number, its full frame,
/// and the frames of the recent deltas (`None`: that message went whole).
#[derive(Default)]
pub struct Chain {
    seq: u64,
    last: Option<Value>,
    full: Option<Utf8Bytes>,
    deltas: VecDeque<(u64, Option<Utf8Bytes>)>,
}

impl Chain {
    /// Take `next` (a message with `now_ms`), published at `at_ms`: whether it
    /// is a new message (it differs from the last in more than `now_ms`).
    pub fn push(&mut self, next: Value, at_ms: u64, keep: usize) -> bool {
        if self.last.as_ref().is_some_and(|l| same_but_now(l, &next)) {
            return false;
        }
        self.seq += 1;
        let full = frame(self.seq, at_ms, "full", &next);
        let delta = self.last.as_ref().and_then(|l| diff(l, &next));
        let delta = delta.map(|d| frame(self.seq, at_ms, "delta", &d)).filter(|d| d.len() < full.len());
        self.deltas.push_back((self.seq, delta));
        while self.deltas.len() > keep.max(1) {
            self.deltas.pop_front();
        }
        self.full = Some(full);
        self.last = Some(next);
        true
    }

    /// The frames that take a client holding message `have` (none: nothing
    /// yet, or it asked for the whole) to the latest, and the latest's number.
    pub fn catch_up(&self, have: Option<u64>) -> (Vec<Utf8Bytes>, u64) {
        let Some(full) = &self.full else { return (Vec::new(), self.seq) };
        let whole = || (vec![full.clone()], self.seq);
        match have {
            Some(h) if h == self.seq => (Vec::new(), self.seq),
            Some(h) if h < self.seq => {
                let missed: Vec<Option<Utf8Bytes>> =
                    self.deltas.iter().filter(|(n, _)| *n > h).map(|(_, d)| d.clone()).collect();
                match missed.len() as u64 == self.seq - h && missed.iter().all(Option::is_some) {
                    true => (missed.into_iter().flatten().collect(), self.seq),
                    false => whole(),
                }
            }
            _ => whole(),
        }
    }

    /// The last message (the pit's pacing reads it).
    pub fn last(&self) -> Option<&Value> {
        self.last.as_ref()
    }
}

/// Whether two messages differ in `now_ms` at most (the clock moves every
/// time; a message is sent when the rest changed).
fn same_but_now(a: &Value, b: &Value) -> bool {
    match (a.as_object(), b.as_object()) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| k == "now_ms" || b.get(k).is_some_and(|w| w == v))
        }
        _ => a == b,
    }
}

/// A numbered frame: `{"seq", "committed_ms", kind: body}`.
fn frame(seq: u64, at_ms: u64, kind: &str, body: &Value) -> Utf8Bytes {
    format!("{{\"seq\":{seq},\"committed_ms\":{at_ms},\"{kind}\":{body}}}").into()
}

/// One table's shared message (see the module's notes): its run, and the
/// wake-up count its state is at least as new as.
#[derive(Default)]
struct Cast {
    version: u64,
    chain: Chain,
}

/// Every table's shared message for the viewers signed in as no one.
#[derive(Default)]
pub struct Casts(Mutex<HashMap<TableId, Arc<Mutex<Cast>>>>);

impl Casts {
    /// The frames that take a no one's socket holding message `have` to the
    /// latest message of `table`, whose latest wake-up it took was `woken`;
    /// the message is built again only if no socket did since that batch.
    fn catch_up(
        &self,
        s: &AppState,
        table: TableId,
        woken: crate::publish::Woken,
        have: Option<u64>,
    ) -> (Vec<Utf8Bytes>, u64) {
        let cast = self.0.lock().expect("casts lock").entry(table).or_default().clone();
        let mut c = cast.lock().expect("cast lock");
        if c.chain.full.is_none() || woken.version > c.version {
            // The count read before the views: the views are at least as new.
            c.version = woken.version;
            c.chain.push(super::play::message(s, table, None).tree(), woken.at_ms, KEEP);
        }
        c.chain.catch_up(have)
    }
}

/// What one socket sends (see the module's notes).
pub enum Sending {
    /// Whole messages; the last sent, without `now_ms`, and the wagers its
    /// pit shows.
    Plain(String, usize),
    /// A viewer's own numbered messages (a player's or staff's), and
    /// whether the next goes whole (asked for: it keeps its number).
    Own(Chain, bool),
    /// The table's shared messages; the number of the last one sent.
    Shared(Option<u64>),
}

impl Sending {
    /// For a socket asking for `deltas` or not, whose viewer is `signed` in.
    pub fn new(deltas: bool, signed: bool) -> Sending {
        match (deltas, signed) {
            (false, _) => Sending::Plain(String::new(), 0),
            (true, true) => Sending::Own(Chain::default(), false),
            (true, false) => Sending::Shared(None),
        }
    }

    /// Send the whole message next (a client asked).
    pub fn resync(&mut self) {
        match self {
            Sending::Plain(last, _) => last.clear(),
            Sending::Own(_, whole) => *whole = true,
            Sending::Shared(have) => *have = None,
        }
    }

    /// The frames to send now (none if nothing changed).
    pub fn next(
        &mut self,
        s: &AppState,
        id: TableId,
        viewer: Option<&Session>,
        wake: &mut TableWake,
    ) -> Vec<Utf8Bytes> {
        let (woken, at_ms) = wake.seen();
        match self {
            Sending::Plain(last, wagers) => {
                let mut value = super::play::message(s, id, viewer).tree();
                let now = value.as_object_mut().and_then(|m| m.remove("now_ms"));
                let body = value.to_string();
                if body == *last {
                    return Vec::new();
                }
                if let (Some(m), Some(now)) = (value.as_object_mut(), now) {
                    m.insert("now_ms".into(), now);
                }
                *last = body;
                *wagers = pit_wagers(&value);
                vec![value.to_string().into()]
            }
            Sending::Own(chain, whole) => {
                let have = chain.last().filter(|_| !std::mem::take(whole)).map(|_| chain.seq);
                chain.push(super::play::message(s, id, viewer).tree(), at_ms, 1);
                chain.catch_up(have).0
            }
            Sending::Shared(have) => {
                let (frames, now) = s.casts.catch_up(s, id, woken, *have);
                *have = Some(now);
                frames
            }
        }
    }

    /// How many wagers the last message's pit shows (a staff viewer's).
    pub fn pit_wagers(&self) -> usize {
        match self {
            Sending::Plain(_, wagers) => *wagers,
            Sending::Own(chain, _) => chain.last().map_or(0, pit_wagers),
            Sending::Shared(_) => 0,
        }
    }
}

/// How many wagers a message's pit shows (none but a staff viewer's has one).
fn pit_wagers(v: &Value) -> usize {
    v["pit"]["coup"]["wagers"].as_array().map_or(0, Vec::len)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(f: &Utf8Bytes) -> Value {
        serde_json::from_str(f.as_str()).unwrap()
    }

    /// A client: the full message, then each delta applied in turn.
    fn follow(have: &mut Option<(u64, Value)>, frames: &[Utf8Bytes]) {
        for f in frames {
            let v = read(f);
            let seq = v["seq"].as_u64().unwrap();
            if !v["full"].is_null() {
                *have = Some((seq, v["full"].clone()));
                continue;
            }
            let (n, msg) = have.as_mut().expect("a delta after a full message");
            assert_eq!(seq, *n + 1, "no gap");
            super::super::delta::apply(msg, &v["delta"]);
            *n = seq;
        }
    }

    fn message(coup: u64, roads: usize, now: u64) -> Value {
        let road: Vec<Value> = (0..roads).map(|i| json!({"col": i / 6, "row": i % 6, "result": "B"})).collect();
        json!({"table": {"coup": coup, "roads": {"bead_plate": road}}, "now_ms": now, "result": null})
    }

    #[test]
    fn a_client_follows_full_then_deltas_and_a_late_one_catches_up() {
        let mut c = Chain::default();
        assert!(c.push(message(1, 40, 5), 100, KEEP));
        let (first, seq) = c.catch_up(None);
        assert_eq!((first.len(), seq), (1, 1));
        assert!(!read(&first[0])["full"].is_null());
        let mut on_time = None;
        follow(&mut on_time, &first);
        // The clock alone moved: nothing new.
        assert!(!c.push(message(1, 40, 6), 101, KEEP));
        assert_eq!(c.catch_up(Some(1)).0.len(), 0);
        let mut late = on_time.clone();
        for coup in 2..6 {
            assert!(c.push(message(coup, 38 + coup as usize, 7 + coup), 100 + coup, KEEP));
            let (frames, _) = c.catch_up(on_time.as_ref().map(|h| h.0));
            assert_eq!(frames.len(), 1);
            let d = read(&frames[0]);
            assert_eq!(d["committed_ms"], 100 + coup);
            assert!(frames[0].len() < 200, "a road cell, not the road: {}", frames[0].as_str());
            follow(&mut on_time, &frames);
        }
        assert_eq!(on_time.as_ref().unwrap().1, message(5, 43, 12));
        // A socket four messages behind gets the four deltas.
        let (frames, _) = c.catch_up(late.as_ref().map(|h| h.0));
        assert_eq!(frames.len(), 4);
        follow(&mut late, &frames);
        assert_eq!(late, on_time);
    }

    #[test]
    fn a_socket_too_far_behind_or_asking_gets_the_whole_message() {
        let mut c = Chain::default();
        for coup in 1..=(KEEP as u64 + 3) {
            c.push(message(coup, 10, coup), coup, KEEP);
        }
        let (frames, seq) = c.catch_up(Some(1));
        assert_eq!((frames.len(), seq), (1, KEEP as u64 + 3));
        assert!(!read(&frames[0])["full"].is_null());
        assert!(!read(&c.catch_up(None).0[0])["full"].is_null());
        // A number from another run (ahead of this one): the whole.
        assert!(!read(&c.catch_up(Some(seq + 9)).0[0])["full"].is_null());
    }

    #[test]
    fn a_message_that_lost_a_member_goes_whole() {
        let mut c = Chain::default();
        c.push(json!({"pit": {"a": 1}, "table": 1}), 1, KEEP);
        c.push(json!({"table": 2}), 2, KEEP);
        let (frames, _) = c.catch_up(Some(1));
        assert_eq!(read(&frames[0])["full"], json!({"table": 2}));
    }
}
