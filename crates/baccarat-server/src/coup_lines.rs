//! A coup's wager lines for the read model (`coup_feed.rs`), shared with the
//! checkpoints that copy them a chunk at a time.
//!
//! A checkpoint takes the read model's lines by sharing them (copying half a
//! million lines on the committer once held every request back for up to 270
//! ms). When the lines were one `Arc<Vec<_>>`, the first change to a coup after
//! a checkpoint copied all of that coup's lines: with sixteen tables of about
//! 30,000 wagers each under `loadgen`, the batch after a checkpoint spent
//! 40–290 ms copying them on the committer, while every request waited. In
//! chunks of [`CHUNK`] lines, a change copies only the chunk it touches.

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::coup_feed::WagerLine;

/// Lines in a chunk: a change after a checkpoint copies at most this many.
pub const CHUNK: usize = 1024;

/// A coup's wager lines, in order, in chunks shared copy-on-write.
#[derive(Clone, Debug, Default)]
pub struct Lines {
    chunks: Vec<Arc<Vec<WagerLine>>>,
    len: usize,
}

impl Lines {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&WagerLine> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// Line `i` to change: its chunk is copied first if a checkpoint shares it.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut WagerLine> {
        Arc::make_mut(self.chunks.get_mut(i / CHUNK)?).get_mut(i % CHUNK)
    }

    pub fn push(&mut self, line: WagerLine) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => Arc::make_mut(last).push(line),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(line);
                self.chunks.push(Arc::new(chunk));
            }
        }
        self.len += 1;
    }

    /// Where wager `w` stands, by binary search: the lines must be in
    /// increasing order of wager (as a table places them).
    pub fn find_in_order(&self, w: baccarat_table::engine::WagerId) -> Option<usize> {
        let c = self.chunks.partition_point(|c| c.last().is_some_and(|l| l.wager < w));
        let i = self.chunks.get(c)?.binary_search_by_key(&w, |l| l.wager).ok()?;
        Some(c * CHUNK + i)
    }

    pub fn iter(&self) -> impl Iterator<Item = &WagerLine> {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// Whether every chunk is the same memory as `other`'s (nothing copied).
    #[cfg(test)]
    pub(crate) fn shares_all_with(&self, other: &Lines) -> bool {
        self.len == other.len && self.chunks.iter().zip(&other.chunks).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// How many chunks are the same memory as `other`'s.
    #[cfg(test)]
    pub(crate) fn chunks_shared_with(&self, other: &Lines) -> usize {
        self.chunks.iter().zip(&other.chunks).filter(|(a, b)| Arc::ptr_eq(a, b)).count()
    }
}

impl std::ops::Index<usize> for Lines {
    type Output = WagerLine;
    fn index(&self, i: usize) -> &WagerLine {
        self.get(i).unwrap_or_else(|| panic!("line {i} of {}", self.len))
    }
}

impl PartialEq for Lines {
    fn eq(&self, other: &Lines) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl FromIterator<WagerLine> for Lines {
    fn from_iter<I: IntoIterator<Item = WagerLine>>(lines: I) -> Lines {
        let mut out = Lines::default();
        for l in lines {
            out.push(l);
        }
        out
    }
}

/// As a list, as the lines were before they came in chunks.
impl Serialize for Lines {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Lines {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Lines, D::Error> {
        Ok(Vec::<WagerLine>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coup_feed::WagerStatus;
    use baccarat_rules::{Bet, Money};
    use baccarat_table::engine::{PlayerId, Spot, WagerId};

    fn line(i: u64) -> WagerLine {
        WagerLine {
            wager: WagerId(i),
            player: PlayerId(i as u32 % 7),
            spot: Spot::Box(1),
            bet: Bet::Banker,
            amount: Money(100 + i as i64),
            ante: Money::ZERO,
            needs_approval: false,
            status: WagerStatus::Open,
            rule: None,
            outcome: None,
            pays: None,
            settlement: None,
            net: None,
        }
    }

    #[test]
    fn lines_in_chunks_behave_as_a_list_and_a_change_copies_only_its_chunk() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let list: Vec<WagerLine> = (0..n as u64).map(line).collect();
            let mut lines: Lines = list.iter().cloned().collect();
            assert_eq!((lines.len(), lines.is_empty()), (n, n == 0));
            assert!(lines.iter().eq(list.iter()));
            assert!((0..n).all(|i| lines[i] == list[i]) && lines.get(n).is_none());
            // Found by wager, in every chunk; a wager not there is not found.
            assert!((0..n).all(|i| lines.find_in_order(list[i].wager) == Some(i)));
            assert_eq!(lines.find_in_order(WagerId(n as u64)), None);
            // The same JSON as the list, both ways.
            let json = serde_json::to_string(&lines).unwrap();
            assert_eq!(json, serde_json::to_string(&list).unwrap());
            assert_eq!(serde_json::from_str::<Lines>(&json).unwrap(), lines);
            if n == 0 {
                continue;
            }
            // A checkpoint's copy shares everything; one change copies one chunk,
            // and the copy keeps what it took.
            let taken = lines.clone();
            assert!(taken.shares_all_with(&lines));
            let i = n / 2;
            lines.get_mut(i).unwrap().status = WagerStatus::Settled;
            let chunks = n.div_ceil(CHUNK);
            assert_eq!(lines.chunks_shared_with(&taken), chunks - 1, "only the changed chunk is copied");
            assert_eq!((taken[i].status, lines[i].status), (WagerStatus::Open, WagerStatus::Settled));
            lines.push(line(n as u64));
            assert_eq!((lines.len(), taken.len()), (n + 1, n));
            assert_eq!(lines[n], line(n as u64));
            assert!(taken.iter().eq(list.iter()), "the copy is the list it took");
        }
    }
}
