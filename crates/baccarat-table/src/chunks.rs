//! A list kept in chunks, each shared copy-on-write: a copy of the list costs
//! a pointer per chunk, and a change to a copy copies only the chunk it
//! touches.
//!
//! A busy coup holds tens of thousands of wagers, and a checkpoint takes every
//! table's coup by sharing it (copying them on the single writer stalled every
//! table). Shared as one `Arc<Vec<_>>`, the first wager at each table after a
//! checkpoint copied that table's whole coup: 5-11 ms per table of about
//! 36,000 wagers under `loadgen`, on the writer, while every request waited.
//! In chunks of [`CHUNK`], the first change copies at most one chunk. (The
//! server's read model keeps its coup lines the same way.)

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Items in a chunk: a change to a shared list copies at most this many.
pub const CHUNK: usize = 1024;

/// A list in chunks of [`CHUNK`], each shared copy-on-write.
#[derive(Clone, Debug)]
pub struct Chunks<T> {
    chunks: Vec<Arc<Vec<T>>>,
    len: usize,
}

impl<T> Default for Chunks<T> {
    fn default() -> Chunks<T> {
        Chunks { chunks: Vec::new(), len: 0 }
    }
}

impl<T: Clone> Chunks<T> {
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / CHUNK)?.get(i % CHUNK)
    }

    /// Item `i` to change: its chunk is copied first if a copy shares it.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        Arc::make_mut(self.chunks.get_mut(i / CHUNK)?).get_mut(i % CHUNK)
    }

    pub fn last(&self) -> Option<&T> {
        self.chunks.last()?.last()
    }

    pub fn push(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(last) if last.len() < CHUNK => Arc::make_mut(last).push(item),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(item);
                self.chunks.push(Arc::new(chunk));
            }
        }
        self.len += 1;
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + Clone {
        self.chunks.iter().flat_map(|c| c.iter())
    }

    /// The items from the `i`-th on, reached without stepping through those
    /// before it.
    pub fn iter_from(&self, i: usize) -> impl Iterator<Item = &T> + Clone {
        let (c, at) = (i / CHUNK, i % CHUNK);
        let first = self.chunks.get(c).map_or(&[][..], |x| x.get(at..).unwrap_or(&[]));
        first.iter().chain(self.chunks.iter().skip(c + 1).flat_map(|x| x.iter()))
    }

    /// Keep the items `keep` says to keep, in order (the list is rebuilt:
    /// for the rare removal).
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let kept: Vec<T> = self.iter().filter(|x| keep(x)).cloned().collect();
        *self = kept.into_iter().collect();
    }

    /// Where the item with key `k` stands, by binary search: the items must
    /// be in increasing order of `key`.
    pub fn find_sorted<K: Ord>(&self, k: &K, key: impl Fn(&T) -> K) -> Option<usize> {
        let c = self.chunks.partition_point(|c| c.last().is_some_and(|x| key(x) < *k));
        let i = self.chunks.get(c)?.binary_search_by(|x| key(x).cmp(k)).ok()?;
        Some(c * CHUNK + i)
    }

    /// Whether the items are in strictly increasing order of `key`.
    pub fn is_sorted_by_key<K: Ord>(&self, key: impl Fn(&T) -> K) -> bool {
        let mut it = self.iter().map(key);
        let Some(mut prev) = it.next() else { return true };
        for k in it {
            if k <= prev {
                return false;
            }
            prev = k;
        }
        true
    }

    /// How many chunks are the same memory as `other`'s (nothing copied):
    /// for the tests of what a change copies.
    pub fn chunks_shared_with(&self, other: &Chunks<T>) -> usize {
        self.chunks.iter().zip(&other.chunks).filter(|(a, b)| Arc::ptr_eq(a, b)).count()
    }

    /// Whether every chunk is the same memory as `other`'s.
    pub fn shares_all_with(&self, other: &Chunks<T>) -> bool {
        self.len == other.len && self.chunks_shared_with(other) == self.chunks.len()
    }

    /// The chunks the list is in.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
}

impl<T: Clone> std::ops::Index<usize> for Chunks<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        self.get(i).unwrap_or_else(|| panic!("item {i} of {}", self.len))
    }
}

impl<T: Clone + PartialEq> PartialEq for Chunks<T> {
    fn eq(&self, other: &Chunks<T>) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl<T: Clone + Eq> Eq for Chunks<T> {}

impl<T: Clone> FromIterator<T> for Chunks<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Chunks<T> {
        let mut out = Chunks::default();
        for x in items {
            out.push(x);
        }
        out
    }
}

/// As a list: the same JSON as a `Vec`.
impl<T: Clone + Serialize> Serialize for Chunks<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de, T: Clone + Deserialize<'de>> Deserialize<'de> for Chunks<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Chunks<T>, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_in_chunks_behaves_as_a_list_and_a_change_copies_only_its_chunk() {
        for n in [0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 17] {
            let list: Vec<u64> = (0..n as u64).map(|i| i * 3).collect();
            let mut c: Chunks<u64> = list.iter().copied().collect();
            assert_eq!((c.len(), c.is_empty(), c.chunk_count()), (n, n == 0, n.div_ceil(CHUNK)));
            assert!(c.iter().eq(list.iter()));
            assert!(c.iter().rev().eq(list.iter().rev()));
            for from in [0, 1, CHUNK - 1, CHUNK, n / 2, n, n + 5] {
                assert!(c.iter_from(from).eq(list.iter().skip(from)), "from {from}");
            }
            assert!((0..n).all(|i| c[i] == list[i]) && c.get(n).is_none());
            assert_eq!(c.last(), list.last());
            assert!((0..n).all(|i| c.find_sorted(&list[i], |&x| x) == Some(i)));
            assert_eq!(c.find_sorted(&1, |&x| x), None, "not there");
            assert!(c.is_sorted_by_key(|&x| x));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, serde_json::to_string(&list).unwrap());
            assert_eq!(serde_json::from_str::<Chunks<u64>>(&json).unwrap(), c);
            if n == 0 {
                continue;
            }
            let taken = c.clone();
            assert!(taken.shares_all_with(&c));
            let i = n / 2;
            *c.get_mut(i).unwrap() = 1;
            assert_eq!(c.chunks_shared_with(&taken), n.div_ceil(CHUNK) - 1, "only the changed chunk is copied");
            assert_eq!((taken[i], c[i]), (list[i], 1));
            assert!(!c.is_sorted_by_key(|&x| x) || n == 1);
            c.push(7);
            assert_eq!((c.len(), taken.len(), c[n]), (n + 1, n, 7));
            assert!(taken.iter().eq(list.iter()), "the copy is the list it took");
            c.retain(|&x| x % 2 == 0);
            let want: Vec<u64> = list
                .iter()
                .copied()
                .enumerate()
                .map(|(j, x)| if j == i { 1 } else { x })
                .chain([7])
                .filter(|x| x % 2 == 0)
                .collect();
            assert!(c.iter().eq(want.iter()));
        }
    }
}
