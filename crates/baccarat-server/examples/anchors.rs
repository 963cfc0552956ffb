//! How long a start spends on the anchor file, with and without a
//! checkpoint's mark: `cargo run --release -p baccarat-server --example
//! anchors -- [LINES]`. It writes LINES signed lines (three chains' heads
//! each, as a busy batch names them) to a file in the temp dir, takes a mark
//! at the end (as a checkpoint would), appends 1,000 more, and times
//! `anchor::read` and `AnchorLog::open` over the whole file and from the mark;
//! then a month's rotation with 200 tables' heads (`anchor/segments.rs`), and
//! reading the new file alone and with its segment. One JSON line.

use baccarat_core::TableId;
use std::time::Instant;

use baccarat_core::anchor::{read, read_at, AnchorKey, AnchorLog, Head};

fn main() {
    let lines: u64 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let dir = std::env::temp_dir().join(format!("baccarat-anchors-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let (path, key) = (dir.join("db.anchors"), dir.join("db.key"));
    let mut log = AnchorLog::open(&path, AnchorKey::load_or_create(&key).unwrap()).unwrap();
    let head = |table: TableId, len: u64| Head {
        table,
        len,
        head: format!("{:064x}", u128::from(table.0) << 64 | u128::from(len)),
    };
    let t = Instant::now();
    for n in 1..=lines {
        log.append(&[
            head(TableId(0), n),
            head(TableId(1 + (n % 16) as u32), n),
            head(TableId(17 + (n % 7) as u32), n),
        ])
        .unwrap();
    }
    let write_s = t.elapsed().as_secs_f64();
    let mark = log.mark();
    for n in 1..=1000 {
        log.append(&[head(TableId(1), lines + n)]).unwrap();
    }
    let public = log.public_hex();
    drop(log);
    let size = std::fs::metadata(&path).unwrap().len();
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64()
    };
    let read_whole = time(&|| drop(read(&path, Some(&public)).unwrap()));
    let read_mark = time(&|| drop(read_at(&path, Some(&public), Some(&mark)).unwrap()));
    let open_whole = time(&|| drop(AnchorLog::open(&path, AnchorKey::load(&key).unwrap()).unwrap()));
    let open_mark = time(&|| drop(AnchorLog::open_at(&path, AnchorKey::load(&key).unwrap(), Some(&mark)).unwrap()));
    // A month's rotation on a floor of 200 tables: the carry line names
    // every head; then a start and `verify --since-checkpoint` read only it.
    let mut log = AnchorLog::open(&path, AnchorKey::load(&key).unwrap()).unwrap();
    log.begin("2026-10").unwrap();
    log.append(&(0..=200).map(|t| head(TableId(t), lines)).collect::<Vec<_>>()).unwrap();
    let t = Instant::now();
    log.rotate_for("2026-11").unwrap().expect("rotated");
    let rotate_s = t.elapsed().as_secs_f64();
    let carry_bytes = std::fs::metadata(&path).unwrap().len();
    drop(log);
    let read_live = time(&|| drop(read(&path, Some(&public)).unwrap()));
    let read_all = time(&|| drop(baccarat_core::anchor::read_all(&path, Some(&public)).unwrap()));
    println!(
        "{{\"lines\":{},\"bytes\":{size},\"write_s\":{write_s:.3},\"start_whole_s\":{:.3},\"start_from_mark_s\":{:.4},\
         \"rotate_s\":{rotate_s:.4},\"carry_bytes\":{carry_bytes},\"read_after_rotation_s\":{read_live:.4},\"read_all_s\":{read_all:.3}}}",
        lines + 1000,
        read_whole + open_whole,
        read_mark + open_mark
    );
    let _ = std::fs::remove_dir_all(&dir);
}
