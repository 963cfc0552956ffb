//! The audit trail: each table's events in an append-only log, each record
//! chained to the one before by SHA-256, so that changing, removing or reordering
//! any record breaks every hash after it.
//!
//! `hash(n) = SHA-256("baccarat-audit-v1" ‖ hash(n-1) ‖ n as 8 bytes LE ‖ body)`,
//! with `hash(0)` = 32 zero bytes before the first record and `body` the record's
//! canonical JSON.

use baccarat_table::shuffle::hex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// One record of a chain.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    pub seq: u64,
    pub prev: String,
    pub body: String,
    pub hash: String,
}

pub const GENESIS: [u8; 32] = [0; 32];

pub fn link(prev: &[u8; 32], seq: u64, body: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"baccarat-audit-v1");
    h.update(prev);
    h.update(seq.to_le_bytes());
    h.update(body.as_bytes());
    h.finalize().into()
}

fn unhex(s: &str) -> Option<[u8; 32]> {
    if s.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// An append-only chain in memory (the store persists the same records).
#[derive(Clone, Debug, Default)]
pub struct Chain {
    records: Vec<Record>,
    head: [u8; 32],
}

impl Chain {
    pub fn new() -> Chain {
        Chain { records: Vec::new(), head: GENESIS }
    }

    /// Append a body; returns its record.
    pub fn append(&mut self, body: String) -> &Record {
        let seq = self.records.len() as u64 + 1;
        let hash = link(&self.head, seq, &body);
        self.records.push(Record { seq, prev: hex(&self.head), body, hash: hex(&hash) });
        self.head = hash;
        self.records.last().expect("just pushed")
    }

    /// A chain from stored records, verified.
    pub fn from_records(records: Vec<Record>) -> Result<Chain, Broken> {
        let head = verify(&records)?;
        Ok(Chain { head: unhex(&head).expect("verify returns a hash"), records })
    }

    pub fn records(&self) -> &[Record] {
        &self.records
    }

    pub fn head(&self) -> String {
        hex(&self.head)
    }
}

/// Where a chain is broken.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("record {seq}: {what}")]
pub struct Broken {
    pub seq: u64,
    pub what: String,
}

/// Check a chain from its first record: numbering, links and hashes.
pub fn verify(records: &[Record]) -> Result<String, Broken> {
    let mut head = GENESIS;
    for (i, r) in records.iter().enumerate() {
        let seq = i as u64 + 1;
        if r.seq != seq {
            return Err(Broken {
                seq: r.seq,
                what: format!("expected record {seq} (a record is missing or out of order)"),
            });
        }
        if unhex(&r.prev) != Some(head) {
            return Err(Broken { seq, what: "does not link to the record before it".into() });
        }
        let h = link(&head, seq, &r.body);
        if unhex(&r.hash) != Some(h) {
            return Err(Broken { seq, what: "its hash does not match its contents (altered)".into() });
        }
        head = h;
    }
    Ok(hex(&head))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize) -> Chain {
        let mut c = Chain::new();
        for i in 0..n {
            c.append(format!("{{\"event\":{i}}}"));
        }
        c
    }

    #[test]
    fn an_intact_chain_verifies_to_its_head() {
        let c = chain(5);
        assert_eq!(verify(c.records()).unwrap(), c.head());
        assert_eq!(verify(&[]).unwrap(), hex(&GENESIS));
    }

    #[test]
    fn any_change_is_found_at_its_record() {
        let c = chain(5);
        let mut altered = c.records().to_vec();
        altered[2].body = "{\"event\":99}".into();
        assert_eq!(verify(&altered).unwrap_err().seq, 3);
        let mut removed = c.records().to_vec();
        removed.remove(1);
        assert_eq!(verify(&removed).unwrap_err().seq, 3);
        let mut swapped = c.records().to_vec();
        swapped.swap(3, 4);
        assert!(verify(&swapped).is_err());
        // Recomputing one record's hash does not help: the next link breaks.
        let mut forged = c.records().to_vec();
        forged[1].body = "{}".into();
        forged[1].hash = hex(&link(&unhex(&forged[1].prev).unwrap(), 2, "{}"));
        assert_eq!(verify(&forged).unwrap_err().seq, 3);
    }
}
