//! The anchor file moved aside by month (`anchor/segments.rs`), end to end: a
//! casino whose checkpoint falls in a new month starts, verifies in full and
//! since its checkpoint, with last month's lines in a segment; the segment
//! may go to cold storage and the rest still verifies; an edit to it is found
//! by `verify`, which reads it, and not by a start, which does not need it.

use baccarat_core::store::Db;
use baccarat_core::year_month;
use baccarat_server::serve::{open, write_checkpoint};
use baccarat_server::verify::{verify_file, verify_since_checkpoint};

use super::checkpoint::{clocked, deposits, fingerprint, play, same};

/// 2026-10-31 23:59:59 UTC.
const OCT_31: u64 = 1_793_491_199_000;

#[test]
fn last_months_anchor_lines_go_to_a_segment_that_verify_reads_and_a_start_does_not_need() {
    use std::sync::atomic::Ordering;
    let (dir, now, cfg) = clocked("segments", OCT_31);
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 2, 0, false);
    // A checkpoint in November: October's lines are moved aside first, as
    // the server's committer does before each checkpoint's mark.
    now.store(OCT_31 + 2_000, Ordering::SeqCst);
    let segment = o.anchors.rotate_for(&year_month(now.load(Ordering::SeqCst))).unwrap().expect("rotated");
    assert_eq!(segment, dir.join("casino.db.anchors.2026-10"));
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    let live = fingerprint(&o.casino, &o.feed);
    drop(o);
    let (anchor_path, _) = cfg.anchor_paths();
    let live_file = std::fs::read_to_string(&anchor_path).unwrap();
    assert!(live_file.lines().next().unwrap().contains("\"carry\":\"2026-11\""), "{live_file}");

    // A crash between the rotation's two renames: the new file still
    // `.next`, no live file. The start finishes the rotation, not refusing
    // a missing file.
    let mut next = anchor_path.clone().into_os_string();
    next.push(".next");
    std::fs::rename(&anchor_path, &next).unwrap();
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint, "{:?}", again.recovery);
    same(&fingerprint(&again.casino, &again.feed), &live, "the restarted casino");
    drop(again);
    assert!(anchor_path.exists() && !std::path::Path::new(&next).exists());
    let full = |what: &str| {
        let (f, _) = verify_file(&cfg.db, None, None).unwrap();
        assert!(f.problems.is_empty(), "{what}: {:?}", f.problems);
        f
    };
    assert!(full("with the segment").notes.is_empty());
    let since = verify_since_checkpoint(&Db::Sqlite(cfg.db.clone()), None, None).unwrap();
    assert!(since.problems.is_empty(), "{:?}", since.problems);

    // To cold storage: the rest verifies, and says what it did not read.
    let october = std::fs::read_to_string(&segment).unwrap();
    std::fs::remove_file(&segment).unwrap();
    let f = full("without it");
    let lines = october.lines().count();
    assert_eq!(f.notes.len(), 1, "{:?}", f.notes);
    assert!(f.notes[0].starts_with(&format!("anchor lines 1 to {lines} were not read")), "{:?}", f.notes);

    // Back, with one of its heads altered (same length): `verify` finds it;
    // a start does not read it, and need not.
    let at = october.rfind("\"len\":").unwrap() + 6;
    let mut forged = october.clone().into_bytes();
    forged[at] = if forged[at] == b'9' { b'8' } else { b'9' };
    std::fs::write(&segment, &forged).unwrap();
    let (f, _) = verify_file(&cfg.db, None, None).unwrap();
    assert!(
        f.problems.iter().any(|p| p.contains("casino.db.anchors.2026-10: line") && p.contains("bad signature")),
        "{:?}",
        f.problems
    );
    let again = open(&cfg).unwrap();
    assert!(again.recovery.from_checkpoint);
}
