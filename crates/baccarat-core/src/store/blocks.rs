//! The packed form of the two logs in SQLite: a writer batch's records of one
//! chain in one row (`audit_blocks`), and its transfers in one row
//! (`transfer_blocks`).
//!
//! # Why
//!
//! A row per record and per transfer made the committer insert about five and
//! a half rows per wager (two audit records, three and a third transfers),
//! each a B-tree insert (and, for the audit log, an index insert as well) of
//! text that spelt every hash in hex twice (`prev` and `hash`). Under
//! `loadgen` that was most of the committer's CPU, and the committer was the
//! busiest thread. A batch's records of one chain, and its transfers, are
//! written together and read together (recovery, `verify` and recall read a
//! chain or the transfers in order, from a point on), so they are stored as
//! one row each: a batch writes one row per chain it touched and one row of
//! transfers, whatever its size.
//!
//! Nothing above the store changes: a block is read back into the same
//! [`Record`]s and [`Transfer`]s, each record keeps its own SHA-256 link
//! (`audit.rs`), and `verify` checks them one by one as before. Rows written
//! before blocks (`audit`, `transfers`) stay where they are and are read
//! first (`logs.rs`).
//!
//! # Formats (version 1)
//!
//! Integers are LEB128 (unsigned), amounts zig-zag LEB128; a string is its
//! length then its UTF-8 bytes.
//!
//! * An audit block (`tbl`, `first`, `last`, `data`) holds records
//!   `first..=last` of chain `tbl`: a version byte, the `prev` of record
//!   `first` (32 bytes), then for each record its hash (32 bytes) and its
//!   body. Each later record's `prev` is the hash before it, so it is not
//!   stored again.
//! * A transfer block (`first`, `last`, `data`) holds transfers by rising id
//!   from `first` to `last`: a version byte, then for each its id, debit,
//!   credit, amount, kind (a tag byte: 0 posted, 1 pending, 2 posting of the
//!   hold that follows, 3 voiding of it), memo and cause (`Cause::encode`).
//!
//! # Version 2: packed
//!
//! A block is written as version 2: the version byte, the length of the
//! version-1 data after its version byte (LEB128), then that data compressed
//! in the LZ4 block format (`lz4_flex`, safe Rust). Version 1 blocks (written
//! before) are still read. The records' JSON bodies repeat their field names
//! record after record, and the audit blocks were two thirds of what the
//! committer wrote under `loadgen` (624 MB in 30 s, about 50 MB/s with the
//! transfers and answers). Writing them to the WAL (`pwrite`) and syncing
//! them (`fsync`, which writes the pages back) were a third of the
//! committer's time, in proportion to the bytes. Compression is done on the
//! committer, which already encodes the block.
//!
//! A packed block names its unpacked length before it is unpacked, and a
//! length more than LZ4 can expand its bytes to (255 to 1) is refused before
//! anything is allocated: a forged row cannot make a reader allocate what it
//! likes.
//!
//! A block that does not decode whole, or whose contents disagree with its
//! row's `first` and `last`, is refused as corrupt, naming the block.

use crate::ids::TableId;
use baccarat_rules::Money;
use baccarat_table::hex;

use super::StoreError;
use crate::audit::{unhex, Record};
use crate::ledger::{Cause, Transfer, TransferId, TransferKind};

/// The unpacked format (read; written inside [`PACKED`]).
const VERSION: u8 = 1;
/// The format written: version 1's data, after its version byte, packed.
const PACKED: u8 = 2;
/// LZ4 expands a byte to at most 255 (plus a few bytes of its own).
const MOST_EXPANSION: usize = 255;

/// Version 1 data (its version byte first) as it is written: packed,
/// compressed straight into the block (no second buffer on the committer).
/// Should LZ4 refuse its room, the block is written as version 1, which
/// reads the same.
fn pack(v1: Vec<u8>) -> Vec<u8> {
    let body = &v1[1..];
    let mut out = vec![PACKED];
    put_u64(&mut out, body.len() as u64);
    let start = out.len();
    out.resize(start + lz4_flex::block::get_maximum_output_size(body.len()), 0);
    match lz4_flex::block::compress_into(body, &mut out[start..]) {
        Ok(n) => {
            out.truncate(start + n);
            out
        }
        Err(_) => v1,
    }
}

/// A block's version 1 data after its version byte, unpacked if packed.
fn unpack(data: &[u8]) -> Result<std::borrow::Cow<'_, [u8]>, &'static str> {
    let mut r = Reader { data, at: 0 };
    match r.byte()? {
        VERSION => Ok(std::borrow::Cow::Borrowed(&data[1..])),
        PACKED => {
            let n = usize::try_from(r.u64()?).map_err(|_| "a length is too large")?;
            let packed = &data[r.at..];
            if n > packed.len().saturating_mul(MOST_EXPANSION).saturating_add(16) {
                return Err("it names an unpacked length its bytes cannot hold");
            }
            match lz4_flex::block::decompress(packed, n) {
                Ok(body) if body.len() == n => Ok(std::borrow::Cow::Owned(body)),
                Ok(_) => Err("it unpacks to another length than it names"),
                Err(_) => Err("it does not unpack"),
            }
        }
        _ => Err("unknown format version"),
    }
}

/// Records `records` (consecutive, of one chain) as one block's data.
pub fn encode_records(records: &[&Record]) -> Result<Vec<u8>, StoreError> {
    Ok(pack(records_v1(records)?))
}

/// Records as version 1 data.
fn records_v1(records: &[&Record]) -> Result<Vec<u8>, StoreError> {
    let first = records.first().ok_or_else(|| StoreError::Corrupt("an empty audit block".into()))?;
    let size: usize = records.iter().map(|r| r.body.len() + 34).sum();
    let mut out = Vec::with_capacity(33 + size);
    out.push(VERSION);
    out.extend_from_slice(&hash_of(first.seq, "prev", &first.prev)?);
    for (i, r) in records.iter().enumerate() {
        let seq = first.seq.checked_add(i as u64);
        if Some(r.seq) != seq {
            let seq = seq.map_or("past the last".into(), |s| s.to_string());
            return Err(StoreError::Corrupt(format!("record {} is not {seq}, the next of its block", r.seq)));
        }
        if i > 0 && r.prev != records[i - 1].hash {
            return Err(StoreError::Corrupt(format!("record {}'s prev is not the hash before it", r.seq)));
        }
        out.extend_from_slice(&hash_of(r.seq, "hash", &r.hash)?);
        put_str(&mut out, &r.body);
    }
    Ok(out)
}

/// The records of block `first..=last` of chain `table`, in order.
pub fn decode_records(table: TableId, first: u64, last: u64, data: &[u8]) -> Result<Vec<Record>, StoreError> {
    let bad = |what: &str| StoreError::Corrupt(format!("audit block {first}..={last} of chain {table}: {what}"));
    if last < first {
        return Err(bad("it ends before it starts"));
    }
    let body = unpack(data).map_err(&bad)?;
    let mut r = Reader { data: &body, at: 0 };
    let mut prev = r.hash().map_err(&bad)?;
    // Records in the block, as its row says (first..=last).
    let count = (last - first).saturating_add(1);
    let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(1 << 16));
    while !r.done() {
        if out.len() as u64 == count {
            return Err(bad("it holds more records than it says"));
        }
        let hash = r.hash().map_err(&bad)?;
        let body = r.string().map_err(&bad)?;
        out.push(Record { seq: first + out.len() as u64, prev: hex(&prev), body, hash: hex(&hash) });
        prev = hash;
    }
    if (out.len() as u64) < count {
        return Err(bad("it holds fewer records than it says"));
    }
    Ok(out)
}

/// Transfers (rising ids) as one block's data.
pub fn encode_transfers(transfers: &[&Transfer]) -> Result<Vec<u8>, StoreError> {
    Ok(pack(transfers_v1(transfers)?))
}

/// Transfers as version 1 data.
fn transfers_v1(transfers: &[&Transfer]) -> Result<Vec<u8>, StoreError> {
    let mut out = Vec::with_capacity(1 + transfers.len() * 48);
    out.push(VERSION);
    let mut cause = String::new();
    for (i, t) in transfers.iter().enumerate() {
        if i > 0 && t.id <= transfers[i - 1].id {
            return Err(StoreError::Corrupt(format!(
                "transfer {} comes after {}: ids must rise",
                t.id,
                transfers[i - 1].id
            )));
        }
        put_u64(&mut out, t.id.0);
        put_u64(&mut out, t.debit.0);
        put_u64(&mut out, t.credit.0);
        put_u64(&mut out, zigzag(t.amount.0));
        match t.kind {
            TransferKind::Posted => out.push(0),
            TransferKind::Pending => out.push(1),
            TransferKind::PostOf(h) => {
                out.push(2);
                put_u64(&mut out, h.0);
            }
            TransferKind::VoidOf(h) => {
                out.push(3);
                put_u64(&mut out, h.0);
            }
        }
        put_str(&mut out, &t.memo);
        cause.clear();
        t.cause.encode_into(&mut cause);
        put_str(&mut out, &cause);
    }
    Ok(out)
}

/// The transfers of block `first..=last`, in id order.
pub fn decode_transfers(first: u64, last: u64, data: &[u8]) -> Result<Vec<Transfer>, StoreError> {
    let bad = |what: &str| StoreError::Corrupt(format!("transfer block {first}..={last}: {what}"));
    let body = unpack(data).map_err(&bad)?;
    let mut r = Reader { data: &body, at: 0 };
    let mut out: Vec<Transfer> = Vec::new();
    while !r.done() {
        let id = TransferId(r.u64().map_err(&bad)?);
        match out.last() {
            None if id.0 != first => return Err(bad("its first transfer is not the one it says")),
            Some(p) if id <= p.id => return Err(bad("its ids do not rise")),
            _ => {}
        }
        let (debit, credit) = (r.u64().map_err(&bad)?, r.u64().map_err(&bad)?);
        let amount = Money(unzigzag(r.u64().map_err(&bad)?));
        let kind = match r.byte().map_err(&bad)? {
            0 => TransferKind::Posted,
            1 => TransferKind::Pending,
            2 => TransferKind::PostOf(TransferId(r.u64().map_err(&bad)?)),
            3 => TransferKind::VoidOf(TransferId(r.u64().map_err(&bad)?)),
            _ => return Err(bad(&format!("transfer {id}: an unknown kind"))),
        };
        let memo = r.string().map_err(&bad)?;
        let cause = r.string().map_err(&bad)?;
        let cause = Cause::parse(&cause).ok_or_else(|| bad(&format!("transfer {id}: unreadable cause {cause:?}")))?;
        out.push(Transfer {
            id,
            debit: crate::ledger::AccountId(debit),
            credit: crate::ledger::AccountId(credit),
            amount,
            kind,
            memo,
            cause,
        });
    }
    match out.last() {
        None => Err(bad("it is empty")),
        Some(t) if t.id.0 != last => Err(bad("its last transfer is not the one it says")),
        Some(_) => Ok(out),
    }
}

fn hash_of(seq: u64, what: &str, h: &str) -> Result<[u8; 32], StoreError> {
    unhex(h).ok_or_else(|| StoreError::Corrupt(format!("record {seq}: its {what} is not a SHA-256 in hex")))
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

fn put_u64(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_u64(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Reads a block's data, never past its end.
struct Reader<'a> {
    data: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn done(&self) -> bool {
        self.at >= self.data.len()
    }

    fn take(&mut self, n: usize) -> Result<&[u8], &'static str> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len()).ok_or("it is cut short")?;
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn byte(&mut self) -> Result<u8, &'static str> {
        Ok(self.take(1)?[0])
    }

    fn hash(&mut self) -> Result<[u8; 32], &'static str> {
        Ok(self.take(32)?.try_into().expect("32 bytes"))
    }

    fn u64(&mut self) -> Result<u64, &'static str> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            let part = u64::from(b & 0x7f);
            if shift == 63 && part > 1 {
                return Err("a number is too large");
            }
            v |= part << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("a number is too large")
    }

    fn string(&mut self) -> Result<String, &'static str> {
        let n = usize::try_from(self.u64()?).map_err(|_| "a length is too large")?;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| "a text is not UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::Chain;
    use baccarat_table::WagerId;
    use proptest::prelude::*;

    fn chain(n: usize, bodies: &[String]) -> Vec<Record> {
        let mut c = Chain::new();
        (0..n).map(|i| c.append(bodies[i % bodies.len()].clone())).collect()
    }

    fn refs<T>(v: &[T]) -> Vec<&T> {
        v.iter().collect()
    }

    #[test]
    fn records_come_back_as_they_went_in() {
        let records = chain(40, &["{\"event\":1}".into(), String::new(), "é ✓ \"quoted\"".into()]);
        for (a, b) in [(0, 1), (0, 40), (5, 6), (17, 40)] {
            let part = &records[a..b];
            // Packed, as written; and as version 1, as written before.
            for data in [encode_records(&refs(part)).unwrap(), records_v1(&refs(part)).unwrap()] {
                let back = decode_records(TableId(3), part[0].seq, part[part.len() - 1].seq, &data).unwrap();
                assert_eq!(back, part);
            }
        }
    }

    #[test]
    fn a_block_is_refused_when_it_does_not_hold_what_its_row_says() {
        let records = chain(5, &["{\"x\":1}".into()]);
        let data = records_v1(&refs(&records)).unwrap();
        let err = |r: Result<Vec<Record>, StoreError>| r.unwrap_err().to_string();
        assert!(err(decode_records(TableId(1), 1, 4, &data)).contains("more records than it says"));
        assert!(err(decode_records(TableId(1), 1, 6, &data)).contains("fewer records than it says"));
        assert!(err(decode_records(TableId(1), 2, 1, &data)).contains("ends before it starts"));
        assert!(err(decode_records(TableId(1), 1, 5, &data[..data.len() - 1])).contains("cut short"));
        let mut other = data.clone();
        other[0] = 9;
        assert!(err(decode_records(TableId(1), 1, 5, &other)).contains("version"));
        assert!(err(decode_records(TableId(1), 1, 5, &[])).contains("cut short"));
        // Not consecutive, or not linked: refused when written.
        let gap = [&records[0], &records[2]];
        assert!(encode_records(&gap).unwrap_err().to_string().contains("not 2"));
        let mut unlinked = records[1].clone();
        unlinked.prev = records[3].hash.clone();
        assert!(encode_records(&[&records[0], &unlinked]).unwrap_err().to_string().contains("prev"));
        assert!(encode_records(&[]).is_err());
    }

    #[test]
    fn an_altered_byte_is_refused_or_changes_what_the_chain_check_sees() {
        let records = chain(4, &["{\"wager\":12}".into()]);
        for data in [encode_records(&refs(&records)).unwrap(), records_v1(&refs(&records)).unwrap()] {
            for i in 0..data.len() {
                let mut d = data.clone();
                d[i] ^= 0x20;
                if let Ok(back) = decode_records(TableId(1), 1, 4, &d) {
                    assert_ne!(back, records, "byte {i}");
                    assert!(crate::audit::verify(&back).is_err(), "byte {i} altered and the chain still verifies");
                }
            }
        }
    }

    fn transfer(id: u64, kind: TransferKind, amount: i64, cause: Cause) -> Transfer {
        Transfer {
            id: TransferId(id),
            debit: crate::ledger::AccountId(id % 7 + 1),
            credit: crate::ledger::AccountId(id.wrapping_add(300)),
            amount: Money(amount),
            kind,
            memo: "stake lost".into(),
            cause,
        }
    }

    #[test]
    fn transfers_come_back_as_they_went_in() {
        let all = vec![
            transfer(1, TransferKind::Posted, 0, Cause::None),
            transfer(2, TransferKind::Pending, 100, Cause::Wager { table: TableId(3), wager: WagerId(9) }),
            transfer(9, TransferKind::PostOf(TransferId(2)), i64::MAX, Cause::Deposit { seq: 4 }),
            transfer(
                10,
                TransferKind::VoidOf(TransferId(2)),
                -5,
                Cause::Slip { table: TableId(2), first: WagerId(1), accepted: 7 },
            ),
            transfer(u64::MAX, TransferKind::Posted, i64::MIN, Cause::Float { table: TableId::MAX }),
        ];
        assert_eq!(decode_transfers(1, u64::MAX, &encode_transfers(&refs(&all)).unwrap()).unwrap(), all);
        let data = transfers_v1(&refs(&all)).unwrap();
        assert_eq!(decode_transfers(1, u64::MAX, &data).unwrap(), all);
        let err = |r: Result<Vec<Transfer>, StoreError>| r.unwrap_err().to_string();
        assert!(err(decode_transfers(2, u64::MAX, &data)).contains("first transfer"));
        assert!(err(decode_transfers(1, 10, &data)).contains("last transfer"));
        assert!(err(decode_transfers(1, u64::MAX, &data[..data.len() - 2])).contains("cut short"));
        assert!(err(decode_transfers(1, 1, &[VERSION])).contains("empty"));
        let back = [&all[1], &all[0]];
        assert!(encode_transfers(&back).unwrap_err().to_string().contains("ids must rise"));
        // Written another way (a forger's), a block whose ids fall is refused when read.
        let mut falling = transfers_v1(&[&all[1]]).unwrap();
        falling.extend_from_slice(&transfers_v1(&[&all[0]]).unwrap()[1..]);
        assert!(err(decode_transfers(2, 1, &falling)).contains("do not rise"));
        assert!(err(decode_transfers(2, 1, &pack(falling))).contains("do not rise"));
    }

    /// A busy table's records pack to a fraction of their size, and a packed
    /// block that lies about its length, is cut short or is not LZ4 is
    /// refused, naming why: a forged length never makes the reader allocate
    /// it.
    #[test]
    fn packed_blocks_are_small_and_a_forged_one_is_refused() {
        let bodies: Vec<String> = (0..13)
            .map(|i| format!(r#"{{"table":7,"event":{{"event":"wager_placed","wager":{{"id":{i},"player":14,"spot":{{"box":4}},"bet":"tie","amount":100,"ante":0,"needs_approval":false,"token":false,"at_ms":1795868972104}}}}}}"#))
            .collect();
        let records = chain(13, &bodies);
        let (packed, v1) = (encode_records(&refs(&records)).unwrap(), records_v1(&refs(&records)).unwrap());
        assert!(packed.len() * 2 < v1.len(), "packed {} of {} bytes", packed.len(), v1.len());
        assert_eq!(decode_records(TableId(1), 1, 13, &packed).unwrap(), records);
        let err = |d: &[u8]| decode_records(TableId(1), 1, 13, d).unwrap_err().to_string();
        // The length: beyond what the bytes can hold, or not the length unpacked.
        let mut named = Vec::new();
        put_u64(&mut named, (v1.len() - 1) as u64);
        let body = &packed[1 + named.len()..];
        let mut huge = vec![PACKED];
        put_u64(&mut huge, u64::MAX >> 1);
        huge.extend_from_slice(body);
        assert!(err(&huge).contains("cannot hold"), "{}", err(&huge));
        let mut short = vec![PACKED];
        put_u64(&mut short, (v1.len() - 2) as u64);
        short.extend_from_slice(body);
        assert!(err(&short).contains("unpack"), "{}", err(&short));
        // Cut short, or bytes that are not LZ4 at all.
        assert!(err(&packed[..packed.len() - 3]).contains("unpack"), "{}", err(&packed[..packed.len() - 3]));
        assert!(err(&[PACKED]).contains("cut short"));
        let mut garbage = vec![PACKED];
        put_u64(&mut garbage, 500);
        garbage.extend_from_slice(&[0xff; 40]);
        assert!(err(&garbage).contains("unpack"), "{}", err(&garbage));
    }

    proptest! {
        #[test]
        fn any_transfers_round_trip(
            rows in proptest::collection::vec(
                (1u64..1000, any::<u64>(), any::<u64>(), any::<i64>(), 0u8..4, any::<u64>(), ".{0,20}"),
                1..30,
            )
        ) {
            let mut id = 0u64;
            let all: Vec<Transfer> = rows
                .into_iter()
                .map(|(step, debit, credit, amount, kind, hold, memo)| {
                    id = id.saturating_add(step);
                    let kind = match kind {
                        0 => TransferKind::Posted,
                        1 => TransferKind::Pending,
                        2 => TransferKind::PostOf(TransferId(hold)),
                        _ => TransferKind::VoidOf(TransferId(hold)),
                    };
                    Transfer { id: TransferId(id), debit: crate::ledger::AccountId(debit), credit: crate::ledger::AccountId(credit), amount: Money(amount), kind, memo, cause: Cause::Tournament { seq: hold } }
                })
                .collect();
            let mut all = all;
            all.dedup_by_key(|t| t.id);
            let data = encode_transfers(&refs(&all)).unwrap();
            prop_assert_eq!(decode_transfers(all[0].id.0, all[all.len() - 1].id.0, &data).unwrap(), all);
        }

        #[test]
        fn any_bytes_decode_or_are_refused_without_a_panic(data in proptest::collection::vec(any::<u8>(), 0..200), last in 0u64..8) {
            let _ = decode_records(TableId(1), 1, last, &data);
            let _ = decode_transfers(1, last, &data);
            // The same bytes as a packed block's, with a length before them.
            let mut packed = vec![PACKED];
            put_u64(&mut packed, data.len() as u64 * 3);
            packed.extend_from_slice(&data);
            let _ = decode_records(TableId(1), 1, last, &packed);
            let _ = decode_transfers(1, last, &packed);
        }
    }
}
