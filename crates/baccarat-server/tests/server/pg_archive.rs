//! Archiving on PostgreSQL (`pg_store/archive.rs`): months of the logs
//! detached from the live tables (or copied out of the default partition),
//! and still read by every reader of the whole history.
//!
//! The database's clock cannot be set back, so each test moves part of a
//! casino's history into past months by rewriting the rows' `at` (each row
//! then moves to the month's partition, as PostgreSQL moves a row whose
//! partition key changes).

use baccarat_core::TableId;
use std::collections::BTreeSet;

use baccarat_casino::casino::{recover, Keys};
use baccarat_cluster::pg_store::archive::{archive, Archived};
use baccarat_cluster::pg_store::PgStore;
use baccarat_core::store::{History, Store};

use super::checkpoint::{fingerprint, same};
use super::pg::{both, database, reads};

/// 2025-08-15 and 2025-08-20, 2025-10-01, in ms.
const AUG_15: u64 = 1_755_216_000_000;
const AUG_20: u64 = 1_755_648_000_000;
const OCT_1: u64 = 1_759_276_800_000;
const HOUR: u64 = 3_600_000;

/// Move the first third of each log (by its key) into June 2025, which has
/// no partition (its rows go to the default one), and the second third into
/// August 2025, whose partition is made first; with `answer_times`, the
/// answers' own times (`at_ms`, the server's clock) too. Returns the rows
/// moved into each month, per log.
fn age(pg: &PgStore, answer_times: bool) -> [(&'static str, u64, u64); 3] {
    pg.ensure_months(AUG_15).unwrap();
    pg.with_client(|c| {
        let mut out = [("transfers", 0, 0), ("audit", 0, 0), ("answer_log", 0, 0)];
        for (log, june, august) in out.iter_mut() {
            let (key, of) = match *log {
                "transfers" => ("id", "(SELECT max(id) FROM transfers)"),
                "audit" => ("seq", "(SELECT max(seq) FROM audit a WHERE a.tbl = audit.tbl)"),
                _ => ("seq", "(SELECT max(seq) FROM answer_log)"),
            };
            *june = c
                .execute(&format!("UPDATE {log} SET at = '2025-06-15 12:00:00+00' WHERE {key} * 3 <= {of}"), &[])
                .unwrap();
            *august = c
                .execute(
                    &format!(
                        "UPDATE {log} SET at = '2025-08-15 12:00:00+00' WHERE at > '2025-07-01' AND {key} * 3 <= {of} * 2"
                    ),
                    &[],
                )
                .unwrap();
            assert!(*june > 0 && *august > 0, "{log}: {june}, {august}");
        }
        if answer_times {
            c.batch_execute("UPDATE answer_log SET at_ms = (extract(epoch FROM at) * 1000)::bigint WHERE at < '2025-09-01'")
                .unwrap();
        }
        out
    })
}

/// Table 1's records and every transfer, counted as a full replay reads them.
fn count_records(pg: &PgStore) -> usize {
    let mut n = 0;
    pg.each_record_after(TableId(1), 0, &mut |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    n
}

fn count_transfers(pg: &PgStore) -> usize {
    let mut n = 0;
    pg.each_transfer_after(0, &mut |_| {
        n += 1;
        Ok(())
    })
    .unwrap();
    n
}

/// The months archived, as (month, log, rows, copied out of the default).
fn summary(a: &[Archived]) -> Vec<(String, String, u64, bool)> {
    a.iter().map(|m| (m.month.clone(), m.log.clone(), m.rows, m.from_default)).collect()
}

/// Archived months are detached (or copied out of the default partition)
/// and every whole-history read gives what it gave before: the chains, the
/// transfers, each head, the last transfer and answer, the checkpoint, a
/// full replay. The keys' window reads the live answers only, and the
/// answers inside it are never archived. The store goes on committing, and
/// a second run finds nothing left to archive.
#[test]
fn archiving_months_on_postgres_moves_no_row_out_of_the_history() {
    let mut b = both("archive");
    for n in 0..4 {
        b.coup(n);
    }
    let (sealed, _) = b.sealed("archive");
    b.pg.write_checkpoint(&sealed).unwrap();
    b.coup(4);
    let moved = age(&b.pg, true);
    let before = reads(&b.pg);
    let live = fingerprint(&b.casino, &b.feed);

    // Now is 2025-08-20 for the keys' window (an hour): August's answers are
    // inside it; everything before October is old enough otherwise.
    // Readers of the whole history go on meanwhile, on connections of
    // their own, and each read finds every row once.
    let (records, transfers) = (count_records(&b.pg), count_transfers(&b.pg));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (url, stop) = (b.url.clone(), stop.clone());
            std::thread::spawn(move || {
                let pg = PgStore::connect(&url).unwrap();
                let mut reads = 0;
                while !stop.load(std::sync::atomic::Ordering::SeqCst) || reads == 0 {
                    assert_eq!((count_records(&pg), count_transfers(&pg)), (records, transfers), "read {reads}");
                    reads += 1;
                }
                reads
            })
        })
        .collect();
    // A reader holding the view past LOCK_WAIT (a busy machine's pace: CI
    // saw it under a load of 6 on 2 cores) makes an archive stop and say
    // "run archive again", having archived what it had (months before the
    // lock: "archived before this: …"): run it again, as an operator would.
    // The readers check every row all along.
    let mut earlier: Vec<String> = Vec::new();
    let done = (0..5)
        .find_map(|_| match archive(&b.url, OCT_1, AUG_20, HOUR) {
            Err(e) if e.to_string().contains("run archive again") => {
                eprintln!("archive refused, run again: {e}");
                let text = e.to_string();
                if let Some((_, before)) = text.split_once("(archived before this: ") {
                    earlier.extend(before.trim_end_matches(')').split(", ").map(str::to_string));
                }
                None
            }
            other => Some(other),
        })
        .expect("archived within five runs")
        .unwrap();
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let read_counts: Vec<u32> = readers.into_iter().map(|r| r.join().unwrap()).collect();
    eprintln!("reads of the whole history during the archive: {read_counts:?}");
    let [(_, tj, ta), (_, aj, aa), (_, nj, _)] = moved;
    let m = |month: &str, log: &str, rows: u64, d: bool| (month.to_string(), log.to_string(), rows, d);
    let mut want = vec![
        m("2025-06", "transfers", tj, true),
        m("2025-08", "transfers", ta, false),
        m("2025-06", "audit", aj, true),
        m("2025-08", "audit", aa, false),
        m("2025-06", "answer_log", nj, true),
    ];
    // What an earlier, stopped run archived is not archived again.
    want.retain(|(month, log, _, _)| !earlier.contains(&format!("{month} of {log}")));
    assert_eq!(summary(&done), want, "July, September and October hold no row and stay as they are: {done:?}");
    assert!(done.iter().all(|a| a.partition.is_none() && a.sha256.len() == 64));
    let parts = b.pg.partitions("audit").unwrap();
    assert!(!parts.contains(&"audit_2025_08".to_string()) && parts.contains(&"audit_2025_07".to_string()), "{parts:?}");
    assert!(b.pg.partitions("answer_log").unwrap().contains(&"answer_log_2025_08".to_string()), "inside the window");
    let live_rows = |t: &str| {
        b.pg.with_client(|c| c.query_one(&format!("SELECT count(*) FROM {t}"), &[]).unwrap().get::<_, i64>(0))
    };
    assert_eq!(live_rows("audit_default"), 0, "June's records left the default partition");

    // Every whole-history read is as it was; the keys' window reads the live
    // answers, which are all but June's.
    let after = reads(&b.pg);
    for k in ["tables", "accounts", "transfers", "chains", "last_answer", "last_transfer", "checkpoint"] {
        same(&before[k], &after[k], k);
    }
    let answers = before["answers"].as_array().unwrap();
    same(&serde_json::json!(answers[nj as usize..]), &after["answers"], "the live answers");
    let whole = recover(&b.pg, None, Keys::Since(0), &BTreeSet::new()).unwrap();
    same(&fingerprint(&whole.casino, &whole.feed), &live, "a full replay over archived months");

    // The store goes on (its prepared statements outlive the detach), and the
    // SQLite twin still reads alike, but for the archived answers.
    b.coup(5);
    let (s, p) = (reads(&b.sqlite), reads(&b.pg));
    for k in ["tables", "accounts", "transfers", "chains", "last_answer", "last_transfer"] {
        same(&s[k], &p[k], k);
    }
    let again = archive(&b.url, OCT_1, AUG_20, HOUR).unwrap_err().to_string();
    assert!(again.starts_with("nothing to archive: no month before 2025-10"), "{again}");
    // A partition's URL is not the casino's.
    let p_url = baccarat_cluster::pg_store::partition_url(&b.url, "east").unwrap();
    assert!(archive(&p_url, OCT_1, AUG_20, HOUR).unwrap_err().to_string().contains("every partition"));
}

/// `verify` reads archived months with the live rows, and checks each
/// against the digest taken when it was archived: a row altered in an
/// archived month is named. A forger who also writes the altered month's
/// digest into the registry is still found, by the ledger (a transfer) or
/// by the chain (a record), as docs/operating.md says ("Archiving on
/// PostgreSQL"). A month dropped is named
/// (with `CASCADE`, which takes the views too: the next connection rebuilds
/// them from what is left). Every partition of the casino is archived by
/// one run.
#[test]
fn verify_checks_archived_months_and_names_one_altered_or_dropped() {
    use super::checkpoint::{config, deposits, play};
    use baccarat_server::migrate::verify_pg;
    use baccarat_server::serve::{open, write_checkpoint};
    let (_dir, cfg) = config("pg-archive");
    let mut o = open(&cfg).unwrap();
    deposits(&mut o);
    play(&mut o, 3, 0, false);
    write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
    play(&mut o, 1, 1, false);
    drop(o);
    let url = database("archiveverify");
    baccarat_server::migrate::migrate(&cfg.db, &url).unwrap();
    let anchors = cfg.anchor_paths().0;
    let pg = PgStore::connect(&url).unwrap();
    age(&pg, true);
    // A partition with history of its own, aged too.
    let east_url = baccarat_cluster::pg_store::partition_url(&url, "east").unwrap();
    let mut east = super::pg::both_at(east_url.clone());
    east.coup(0);
    east.coup(1);
    age(&east.pg, true);

    let (clean, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(clean.problems.is_empty(), "{:?}", clean.problems);
    let done = archive(&url, OCT_1, AUG_20, HOUR).unwrap();
    let east_done: Vec<_> = done.iter().filter(|a| a.partition.as_deref() == Some("east")).collect();
    assert_eq!(east_done.len(), 5, "the partition's months too: {done:?}");
    assert_eq!(done.len(), 10, "{done:?}");

    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(f.problems.is_empty(), "{:?}", f.problems);
    assert_eq!((f.records, f.transfers, f.answers), (clean.records, clean.transfers, clean.answers));
    let note = f.notes.iter().find(|n| n.starts_with("archived months read")).expect("a note of the months");
    assert!(
        note.contains("2025-06 (answer_log, audit, transfers)") && note.contains("2025-08 (audit, transfers)"),
        "{note}"
    );

    // A forger edits a transfer in an archived month.
    let forged = pg.with_client(|c| {
        c.execute(
            "UPDATE transfers_2025_08 SET amount = amount + 100 WHERE id = (SELECT min(id) FROM transfers_2025_08)",
            &[],
        )
        .unwrap()
    });
    assert_eq!(forged, 1);
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(
        f.problems.iter().any(|p| p.starts_with("archived month 2025-08 of transfers") && p.contains("altered since")),
        "{:?}",
        f.problems
    );
    // The forger also writes the altered month's digest into the registry
    // (anyone who can edit the database can compute it, as `verify` does):
    // the digest no longer objects, and the ledger's own checks still do.
    let (registered, digest) = forge_registry(&pg, &f.problems, "2025-08", "transfers");
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(!f.problems.iter().any(|p| p.starts_with("archived month")), "{:?}", f.problems);
    // The ledger's invariant, and the wager's record, which calls for the
    // amount the transfer had.
    assert!(f.problems.iter().any(|p| p.contains("ledger invariant broken")), "{:?}", f.problems);
    assert!(f.problems.iter().any(|p| p.contains("does not match its audit event")), "{:?}", f.problems);
    pg.with_client(|c| {
        c.execute(
            "UPDATE transfers_2025_08 SET amount = amount - 100 WHERE id = (SELECT min(id) FROM transfers_2025_08)",
            &[],
        )
        .unwrap();
        c.execute("UPDATE archived_months SET sha256 = $1 WHERE sha256 = $2", &[&registered, &digest]).unwrap();
    });
    assert!(verify_pg(&url, &anchors, None).unwrap().0.problems.is_empty(), "put back, clean again");

    // The same for a record of a table's chain in an archived month: its
    // amount changed, and the month's digest registered to match.
    let (tbl, seq, body): (i64, i64, String) = pg.with_client(|c| {
        let r = c
            .query_one(
                "SELECT tbl, seq, body FROM audit_2025_08 WHERE body LIKE '%\"amount\":%' ORDER BY tbl, seq LIMIT 1",
                &[],
            )
            .unwrap();
        (r.get(0), r.get(1), r.get(2))
    });
    let set_body = |b: &str| {
        pg.with_client(|c| {
            c.execute("UPDATE audit_2025_08 SET body = $3 WHERE tbl = $1 AND seq = $2", &[&tbl, &seq, &b]).unwrap()
        })
    };
    assert_eq!(set_body(&body.replacen("\"amount\":", "\"amount\":1", 1)), 1);
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    let (registered, digest) = forge_registry(&pg, &f.problems, "2025-08", "audit");
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(!f.problems.iter().any(|p| p.starts_with("archived month")), "{:?}", f.problems);
    // The chain's hash, and the transfer the record no longer matches.
    assert!(f.problems.iter().any(|p| p.contains("its hash does not match its contents")), "{:?}", f.problems);
    assert!(f.problems.iter().any(|p| p.contains("does not match its audit event")), "{:?}", f.problems);
    set_body(&body);
    pg.with_client(|c| {
        c.execute("UPDATE archived_months SET sha256 = $1 WHERE sha256 = $2", &[&registered, &digest]).unwrap()
    });
    assert!(verify_pg(&url, &anchors, None).unwrap().0.problems.is_empty(), "put back, clean again");

    // A row of the registry no archive wrote is named, not followed.
    pg.with_client(|c| {
        c.batch_execute(
            "INSERT INTO archived_months (month, log, rows, sha256, from_default) VALUES ('2025-13; DROP', 'audit', 0, '', false)",
        )
        .unwrap()
    });
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(
        f.problems.iter().any(|p| p.contains("\"2025-13; DROP\" of \"audit\", which is not a month")),
        "{:?}",
        f.problems
    );
    pg.with_client(|c| c.batch_execute("DELETE FROM archived_months WHERE month = '2025-13; DROP'").unwrap());

    // An archived month dropped: the views go with it, and come back without it.
    pg.with_client(|c| c.batch_execute("DROP TABLE audit_2025_06 CASCADE").unwrap());
    let (f, _) = verify_pg(&url, &anchors, None).unwrap();
    assert!(
        f.problems.iter().any(|p| p.starts_with("archived month 2025-06 of audit") && p.contains("missing")),
        "{:?}",
        f.problems
    );
    assert!(f.records < clean.records, "June's records are gone: {} of {}", f.records, clean.records);
}

/// Write into `archived_months` the digest that `verify` found for `log`'s
/// `month` (a forger's move once the month's rows are edited); returns the
/// digest registered before and the one written.
fn forge_registry(pg: &PgStore, problems: &[String], month: &str, log: &str) -> (String, String) {
    let named = format!("archived month {month} of {log} ");
    let p = problems.iter().find(|p| p.starts_with(&named)).unwrap_or_else(|| panic!("{named}: {problems:?}"));
    let digest = p.split("SHA-256 ").nth(1).and_then(|t| t.split(',').next()).expect("the digest found").to_string();
    let registered: String = pg.with_client(|c| {
        c.query_one("SELECT sha256 FROM archived_months WHERE month = $1 AND log = $2", &[&month, &log]).unwrap().get(0)
    });
    pg.with_client(|c| {
        c.execute("UPDATE archived_months SET sha256 = $1 WHERE month = $2 AND log = $3", &[&digest, &month, &log])
            .unwrap()
    });
    (registered, digest)
}

/// Each checkpoint makes the partitions of the two months after its own,
/// so a server that runs for months never writes into the default
/// partition, and archiving its months is detaching them. Behind a long
/// transaction on the live table it waits at most a second for the lock
/// (commits would queue behind it), writes its checkpoint all the same, and
/// the next checkpoint makes the months.
#[test]
fn a_checkpoint_makes_the_months_ahead_of_it() {
    let mut b = both("ahead");
    b.coup(0);
    let (mut sealed, _) = b.sealed("ahead");
    sealed.at_ms = 1_994_457_600_000; // 2033-03-15
    let before = b.pg.partitions("audit").unwrap();
    assert!(!before.iter().any(|p| p.starts_with("audit_2033")), "{before:?}");
    let mut reader = postgres::Client::connect(&b.url, postgres::NoTls).unwrap();
    let mut long = reader.transaction().unwrap();
    long.query_one("SELECT count(*) FROM audit", &[]).unwrap();
    b.pg.write_checkpoint(&sealed).unwrap();
    assert!(!b.pg.partitions("audit").unwrap().iter().any(|p| p.starts_with("audit_2033")), "not made behind it");
    assert!(b.pg.latest_checkpoint().unwrap().is_some(), "the checkpoint was written");
    long.commit().unwrap();
    b.pg.write_checkpoint(&sealed).unwrap();
    for log in ["transfers", "audit", "answer_log"] {
        let parts = b.pg.partitions(log).unwrap();
        let of_2033: Vec<_> = parts.iter().filter(|p| p.starts_with(&format!("{log}_2033"))).collect();
        assert_eq!(of_2033, [&format!("{log}_2033_04"), &format!("{log}_2033_05")], "{parts:?}");
    }
}

/// An archive queued behind a long transaction on a live log waits at most
/// its bound for the lock (commits queue behind it meanwhile), then stops
/// with nothing of that month archived, naming why; run again once the
/// transaction has ended, it archives the month.
#[test]
fn an_archive_behind_a_long_transaction_stops_within_its_bound() {
    let mut b = both("archivelock");
    b.coup(0);
    b.coup(1);
    age(&b.pg, false);
    let mut reader = postgres::Client::connect(&b.url, postgres::NoTls).unwrap();
    let mut long = reader.transaction().unwrap();
    long.query_one("SELECT count(*) FROM audit", &[]).unwrap();
    let e = archive(&b.url, OCT_1, AUG_20, HOUR).unwrap_err().to_string();
    assert!(e.contains("audit: a lock was not granted within 5s") && e.contains("nothing of 2025-08"), "{e}");
    assert!(e.ends_with("(archived before this: 2025-06 of transfers, 2025-08 of transfers, 2025-06 of audit)"), "{e}");
    let months = b.pg.with_client(|c| {
        c.query_one("SELECT count(*) FROM archived_months WHERE log = 'audit'", &[]).unwrap().get::<_, i64>(0)
    });
    assert_eq!(months, 1, "June's records were copied out before (no lock on the live table); August's not");
    assert!(b.pg.partitions("audit").unwrap().contains(&"audit_2025_08".to_string()));
    long.commit().unwrap();
    let done = archive(&b.url, OCT_1, AUG_20, HOUR).unwrap();
    assert!(done.iter().any(|a| a.log == "audit" && a.month == "2025-08"), "{done:?}");
    assert!(!done.iter().any(|a| a.log == "answer_log"), "the answers were given now, by the server's clock: {done:?}");
    b.coup(2);
}
