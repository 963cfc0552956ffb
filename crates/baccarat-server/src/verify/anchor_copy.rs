//! The database's copy of the anchor lines (PostgreSQL; `baccarat-core`'s
//! `anchor/copy.rs`), as `verify` puts it beside the anchor file.
//!
//! Both verified, the chains are checked against the longer of the two
//! for each chain, and every difference is named:
//!
//! * the copy reaching further than the file: a note (the file is older
//!   than the database, as a backup that copies the files first leaves it,
//!   or it lost lines; a start writes them back to it);
//! * the copy ending before the file: a note (the last line of a server
//!   that crashed waits in the file for the next start to copy it; more
//!   than that means lines were deleted from the database);
//! * the two signing different heads for one chain at one length: a
//!   problem (two writers of one file, or a key used elsewhere).
//!
//! With the copy alone (the file lost with its machine), the note says what
//! the copy cannot prove.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::AnchorsRead;
use crate::anchor::{Anchored, CopyRead};
use baccarat_core::TableId;

impl AnchorsRead {
    /// The key a copy must be signed by when the verifier pins none: the
    /// first the file was signed with.
    pub fn first_key(&self) -> Option<String> {
        let a = self.anchored.as_ref()?;
        Some(a.rotations.first().map_or_else(|| a.public.clone(), |r| r.from.clone()))
    }

    /// No anchor file: the copy alone (named as such by [`Self::with_copy`]).
    pub fn without_file() -> AnchorsRead {
        AnchorsRead {
            path: PathBuf::from("(no anchor file)"),
            anchored: None,
            unread: None,
            span: None,
            copied: false,
            problems: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// This file's reading with the database's `copy` put beside it.
    pub fn with_copy(mut self, copy: CopyRead, file_given: bool) -> AnchorsRead {
        match copy {
            CopyRead::Empty => {}
            CopyRead::Bad(why) => {
                self.problems.push(format!("anchors: the database's copy of the anchor lines: {why}"))
            }
            CopyRead::Read { first, anchored } => {
                self.copied = true;
                match self.anchored.take() {
                    Some(file) => {
                        let merged = merge(file, anchored, &mut self.problems, &mut self.notes);
                        self.anchored = Some(merged);
                    }
                    None => {
                        let why =
                            if file_given { "the anchor file could not be read" } else { "no anchor file was given" };
                        self.notes.push(copy_alone(why, first, anchored.lines));
                        self.anchored = Some(anchored);
                    }
                }
            }
        }
        self
    }
}

/// The note for a verification against the copy alone.
fn copy_alone(why: &str, first: u64, last: u64) -> String {
    format!(
        "anchors: {why}: the chains were checked against the database's copy of the anchor lines ({first} to \
         {last}). It proves that no record it signs was altered, reordered or removed from the middle; it cannot \
         show that a chain's tail was not cut together with the lines that sign it by someone who can write to the \
         database. The anchor file, kept on another machine, can: verify with it when a copy of it survives."
    )
}

/// The file's heads and the copy's, each chain at the longer of the two.
fn merge(file: Anchored, copy: Anchored, problems: &mut Vec<String>, notes: &mut Vec<String>) -> Anchored {
    if copy.lines > file.lines {
        notes.push(format!(
            "anchors: the database's copy of the anchor lines reaches line {}, the anchor file only line {}: the \
             file is older than the database (a backup copies the files first), or lost lines; the copy's heads \
             are the ones checked, and the next start writes its lines back to the file",
            copy.lines, file.lines
        ));
    } else if copy.lines < file.lines {
        notes.push(format!(
            "anchors: the database's copy of the anchor lines ends at line {}, the anchor file at line {} (a server \
             that crashed leaves its last line to the next start to copy; more lines than the servers that crashed \
             means lines were deleted from the database)",
            copy.lines, file.lines
        ));
    }
    let mut heads: BTreeMap<TableId, (u64, String)> = file.heads.clone();
    for (table, (len, head)) in copy.heads {
        match heads.get(&table) {
            Some((l, h)) if *l == len && *h != head => problems.push(format!(
                "table {table}: the anchor file and the database's copy of its lines sign different records at \
                 {len} (two writers of one anchor file, or its key used elsewhere)"
            )),
            Some((l, _)) if *l >= len => {}
            _ => {
                heads.insert(table, (len, head));
            }
        }
    }
    Anchored { heads, lines: file.lines.max(copy.lines), ..file }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn anchored(lines: u64, heads: &[(u32, u64, &str)]) -> Anchored {
        let heads = heads.iter().map(|(t, l, h)| (TableId(*t), (*l, h.to_string()))).collect();
        Anchored { heads, lines, public: "k".into(), rotations: Vec::new() }
    }

    fn read(file: Option<Anchored>) -> AnchorsRead {
        AnchorsRead { anchored: file, ..AnchorsRead::without_file() }
    }

    /// Every case of the comparison: the longer head of each chain is the one
    /// checked, a copy ahead of the file or behind it is a note, a
    /// fork a problem; the copy alone says what it cannot prove.
    #[test]
    fn the_longer_copy_is_checked_and_each_difference_named() {
        let file = anchored(5, &[(0, 3, "a"), (1, 7, "b"), (2, 2, "c")]);
        let copy = anchored(4, &[(0, 3, "a"), (1, 6, "x"), (3, 1, "d")]);
        let r = read(Some(file.clone())).with_copy(CopyRead::Read { first: 1, anchored: copy }, true);
        let got = r.anchored.clone().unwrap();
        assert_eq!(got.heads, anchored(0, &[(0, 3, "a"), (1, 7, "b"), (2, 2, "c"), (3, 1, "d")]).heads);
        assert_eq!((got.lines, r.problems.len(), r.notes.len(), r.copied), (5, 0, 1, true), "{:?}", r.notes);
        assert!(r.notes[0].contains("ends at line 4, the anchor file at line 5"));

        let ahead = anchored(6, &[(1, 9, "y")]);
        let r = read(Some(file.clone())).with_copy(CopyRead::Read { first: 1, anchored: ahead }, true);
        assert_eq!(r.anchored.unwrap().heads[&TableId(1)], (9, "y".into()), "the copy's longer head is checked");
        assert!(r.problems.is_empty() && r.notes[0].contains("reaches line 6, the anchor file only line 5"));

        let fork = anchored(5, &[(2, 2, "z")]);
        let r = read(Some(file.clone())).with_copy(CopyRead::Read { first: 1, anchored: fork }, true);
        assert!(r.problems[0].contains("table 2:") && r.problems[0].contains("different records at 2"));

        let alone = read(None).with_copy(CopyRead::Read { first: 3, anchored: file.clone() }, false);
        assert_eq!(alone.anchored.as_ref(), Some(&file));
        assert!(alone.notes[0].contains("no anchor file was given") && alone.notes[0].contains("(3 to 5)"));
        assert!(alone.copied && alone.problems.is_empty());

        let bad_line = crate::anchor::AnchorError::BadLine {
            path: "the database's anchor_lines".into(),
            line: 4,
            what: "bad signature".into(),
        };
        let bad = read(Some(file.clone())).with_copy(CopyRead::Bad(bad_line), true);
        assert_eq!(bad.anchored.as_ref(), Some(&file), "a bad copy leaves the file's heads");
        assert!(!bad.copied && bad.problems[0].contains("line 4: bad signature"));
        let empty = read(Some(file.clone())).with_copy(CopyRead::Empty, true);
        assert!(!empty.copied && empty.problems.is_empty() && empty.notes.is_empty());
    }
}
