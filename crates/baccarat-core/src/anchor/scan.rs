//! Reading the anchor file: each line verified in turn (signature, key,
//! `seq`, `prev` link, canonical form, carry lines), in memory of one line
//! whatever the file's size, from its start, from its first line when it
//! begins with a carry line, or from a checkpoint's mark.

use crate::ids::TableId;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};

use super::keys::{KeyChain, Trust};
use super::{io_err, signed_bytes, unhex, AnchorError, AnchorMark, Anchored, Line};

/// Where a scan starts: line `seq + 1`, after a line hashing to `last`, with
/// these heads anchored before it.
pub(super) struct From {
    pub(super) seq: u64,
    pub(super) last: [u8; 32],
    pub(super) heads: BTreeMap<TableId, (u64, String)>,
    /// Whether `heads` are all the heads anchored before line `seq + 1` (not
    /// so at a file that begins with a carry line, read without the files
    /// before it: the carry line says what they are).
    pub(super) whole: bool,
    /// The byte offset of `bytes` in the file.
    pub(super) offset: u64,
}

impl From {
    pub(super) fn start() -> From {
        From { seq: 0, last: [0u8; 32], heads: BTreeMap::new(), whole: true, offset: 0 }
    }
}

/// `YYYY-MM`, as a carry line names its month.
pub(super) fn is_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7 && b[4] == b'-' && b.iter().enumerate().all(|(i, c)| i == 4 || c.is_ascii_digit())
}

/// How a file begins: where a scan of it from its start begins, and the
/// month its carry line names (none for a file begun before segments).
pub(super) struct FileStart {
    pub(super) from: From,
    pub(super) month: Option<String>,
}

/// Read the first line of `file` (seeking to its start; the position after
/// is unspecified). A file that begins at line 1 is scanned from nothing; one
/// that begins later must begin with a carry line, which names every head
/// anchored before it. A first line that cannot be read as a line is left
/// for the scan to name.
pub(super) fn first_line(path: &Path, file: &mut File) -> Result<FileStart, AnchorError> {
    use std::io::{BufRead, Seek, SeekFrom};
    file.seek(SeekFrom::Start(0)).map_err(|e| io_err(path, e))?;
    let mut buf = Vec::new();
    io::BufReader::new(&*file).read_until(b'\n', &mut buf).map_err(|e| io_err(path, e))?;
    if buf.pop() != Some(b'\n') {
        return Ok(FileStart { from: From::start(), month: None });
    }
    start_of(path, &buf)
}

/// How lines that begin with `first` (without its newline) begin, as
/// [`first_line`] says of a file; a copy of the lines kept elsewhere is
/// read from its first line the same way (`copy.rs`).
pub(super) fn start_of(path: &Path, first: &[u8]) -> Result<FileStart, AnchorError> {
    let start = FileStart { from: From::start(), month: None };
    let Ok(line) = serde_json::from_slice::<Line>(first) else { return Ok(start) };
    match (line.seq, line.carry, unhex::<32>(&line.prev)) {
        (0 | 1, month, _) => Ok(FileStart { month, ..start }),
        (seq, Some(month), Some(last)) => Ok(FileStart {
            from: From { seq: seq - 1, last, heads: BTreeMap::new(), whole: false, offset: 0 },
            month: Some(month),
        }),
        (seq, None, _) => Err(AnchorError::BadLine {
            path: path.into(),
            line: seq,
            what: format!(
                "the file begins at line {seq}, not at a carry line: the lines before it are gone, or in another file"
            ),
        }),
        (_, Some(_), None) => Ok(start),
    }
}

pub(super) struct Scan {
    pub(super) anchored: Anchored,
    /// The month the file began, from its carry line (none for a file begun
    /// before segments).
    pub(super) month: Option<String>,
    /// Where the last complete line starts.
    pub(super) start: u64,
    /// SHA-256 of the last complete line.
    pub(super) last: [u8; 32],
    /// Bytes up to the end of the last complete line.
    pub(super) complete: u64,
    /// The keys met, and the one in force after the last line.
    pub(super) chain: KeyChain,
}

/// Verify line by line what `reader` gives, from `from` on, in memory of one
/// line whatever the file's size; a torn last line (no newline) is left out
/// of `complete`. `chain`: the keys met before (a segment's), or none (the
/// first line's key is taken, and the caller checks the chain it returns:
/// [`KeyChain::meets`]).
pub(super) fn scan_lines(
    path: &Path,
    mut reader: impl io::BufRead,
    mut chain: KeyChain,
    from: From,
) -> Result<Scan, AnchorError> {
    let mut anchored = Anchored { heads: from.heads, lines: from.seq, ..Anchored::default() };
    let mut whole = from.whole;
    let mut month = None;
    let mut last = from.last;
    let mut at = from.offset;
    let mut start = from.offset;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader.read_until(b'\n', &mut buf).map_err(|e| io_err(path, e))?;
        if read == 0 || buf.last() != Some(&b'\n') {
            break;
        }
        buf.pop();
        let raw = &buf[..];
        let n = anchored.lines + 1;
        let bad = |what: &str| AnchorError::BadLine { path: path.into(), line: n, what: what.into() };
        let line = checked_line(raw, n, last, &mut chain, &bad)?;
        let heads = line.heads.into_iter().map(|h| (h.table, (h.len, h.head)));
        if let Some(m) = line.carry {
            if !is_month(&m) {
                return Err(bad("`carry` is not a month (YYYY-MM)"));
            }
            let carried: BTreeMap<TableId, (u64, String)> = heads.collect();
            if whole && carried != anchored.heads {
                return Err(bad("a carry line must name every head anchored before it, as it stood"));
            }
            anchored.heads = carried;
            (whole, month) = (true, Some(m));
        } else {
            anchored.heads.extend(heads);
        }
        last = Sha256::digest(raw).into();
        anchored.lines = n;
        start = at;
        at += raw.len() as u64 + 1;
    }
    anchored.public = chain.current_hex();
    anchored.rotations = chain.rotations.clone();
    Ok(Scan { anchored, month, start, last, complete: at, chain })
}

/// Line `n` (`raw`, without its newline) parsed and checked: signed by the
/// key in force (the first line's, if none yet) with a good signature,
/// numbered `n`, chained to the line before (SHA-256 `last`), in canonical
/// form, naming each head as a hash, and a rotation countersigned by its new
/// key (`keys.rs`). (Its signatures are taken out.)
fn checked_line(
    raw: &[u8],
    n: u64,
    last: [u8; 32],
    chain: &mut KeyChain,
    bad: &dyn Fn(&str) -> AnchorError,
) -> Result<Line, AnchorError> {
    let text = std::str::from_utf8(raw).map_err(|_| bad("not UTF-8"))?;
    let mut line: Line = serde_json::from_str(text).map_err(|e| bad(&format!("unparsable: {e}")))?;
    let public = unhex::<32>(&line.public).and_then(|b| VerifyingKey::from_bytes(&b).ok());
    let public = public.ok_or_else(|| bad("`public` is not an Ed25519 public key"))?;
    let key = chain.accept(public).map_err(|why| bad(&why))?;
    if line.seq != n {
        return Err(bad(&format!("seq {} where {n} was expected (a line is missing or out of order)", line.seq)));
    }
    if unhex::<32>(&line.prev) != Some(last) {
        return Err(bad("`prev` is not the SHA-256 of the line before (a line is missing, altered or moved)"));
    }
    if line.json() != text {
        return Err(bad("not in canonical form"));
    }
    let sig = unhex::<64>(&std::mem::take(&mut line.sig)).map(|b| Signature::from_bytes(&b));
    let cosig = std::mem::take(&mut line.cosig);
    let unsigned = line.json();
    if sig.is_none_or(|sig| key.verify_strict(&signed_bytes(&unsigned), &sig).is_err()) {
        return Err(bad("bad signature (the line was altered)"));
    }
    chain.rotate(&line, &cosig, &unsigned, n).map_err(|why| bad(&why))?;
    for h in &line.heads {
        if unhex::<32>(&h.head).is_none() {
            return Err(bad(&format!("table {}: head is not 64 hex digits", h.table)));
        }
    }
    Ok(line)
}

/// Whether a mark describes this file (its last line where it says, with its
/// hash): then the file is left positioned after it and the scan's start is
/// returned; `None` when it does not (the caller reads the whole file).
pub(super) fn after_mark(file: &mut File, mark: &AnchorMark) -> io::Result<Option<From>> {
    use std::io::{Seek, SeekFrom};
    let Some(last) = unhex::<32>(&mark.last) else { return Ok(None) };
    let size = file.metadata()?.len();
    if mark.seq == 0 || mark.len > size || mark.start >= mark.len {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(mark.start))?;
    let mut line = vec![0u8; (mark.len - mark.start) as usize];
    file.read_exact(&mut line)?;
    if line.pop() != Some(b'\n') || <[u8; 32]>::from(Sha256::digest(&line)) != last {
        return Ok(None);
    }
    Ok(Some(From { seq: mark.seq, last, heads: mark.heads.clone(), whole: true, offset: mark.len }))
}

/// Scan `file` from `mark` if it describes the file, else from the start;
/// the chain of keys read must meet `trust`.
pub(super) fn scan_file(
    path: &Path,
    file: &mut File,
    trust: Trust,
    mark: Option<&AnchorMark>,
) -> Result<Scan, AnchorError> {
    use std::io::{Seek, SeekFrom};
    let io = |e| io_err(path, e);
    let start = first_line(path, file)?;
    let from = match mark {
        Some(m) => after_mark(file, m).map_err(io)?,
        None => None,
    };
    let from = match from {
        Some(f) => f,
        None => {
            file.seek(SeekFrom::Start(0)).map_err(io)?;
            start.from
        }
    };
    let first = from.seq + 1;
    let scan = scan_lines(path, io::BufReader::new(&*file), KeyChain::default(), from)?;
    if let Err((line, what)) = scan.chain.meets(trust, first) {
        return Err(AnchorError::BadLine { path: path.into(), line, what });
    }
    let mut scan = Scan { month: scan.month.clone().or(start.month), ..scan };
    if scan.anchored.public.is_empty() {
        // No line read (a mark at the file's end): the key trusted is the one.
        scan.anchored.public = trust.key().map(|k| baccarat_table::hex(k.as_bytes())).unwrap_or_default();
    }
    Ok(scan)
}
