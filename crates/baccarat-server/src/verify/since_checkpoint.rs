//! `verify --since-checkpoint`: what was written after the latest checkpoint.

use super::VerifyError;

/// What `verify --since-checkpoint` found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SinceCheckpoint {
    /// The checkpoint's id in the store, its time, and the key that signed it.
    pub checkpoint: i64,
    pub at_ms: u64,
    pub public: String,
    /// Records and transfers read after it.
    pub tail_records: u64,
    pub tail_transfers: u64,
    pub problems: Vec<String>,
    /// What is worth knowing but proves nothing wrong (on PostgreSQL: how
    /// the anchor file and the database's copy of its lines compare).
    pub notes: Vec<String>,
}

/// Verify what was written after the latest checkpoint: the checkpoint's hash,
/// signature and key (the pinned key, else the anchor file's); that every
/// anchored head is in the database; that every chain continues link by link
/// from the checkpoint's head; and that the checkpoint's balances plus every
/// later transfer give the balances the store holds. This is the check a
/// server's start makes (`casino::recover`), run by an inspector: it trusts
/// the history before the checkpoint to the signature, so `verify --full` is
/// still the check of the whole history (the rules, the shoes, the
/// reconciliation).
///
/// On PostgreSQL the heads are the anchor file's and the database's copy of
/// its lines together, as `verify` puts them ([`pg_anchors`]); without a
/// file, the copy's alone, under the pinned key.
pub fn verify_since_checkpoint(
    db: &crate::store::Db,
    anchors: Option<&std::path::Path>,
    pinned: Option<&str>,
) -> Result<SinceCheckpoint, VerifyError> {
    use crate::store::Db;
    match db {
        Db::Sqlite(file) => {
            let path = anchors.map_or_else(|| crate::anchor::default_paths(file).0, std::path::Path::to_path_buf);
            let anchored = crate::anchor::read(&path, pinned).map_err(VerifyError::Anchors)?;
            let store = crate::store::SqliteStore::open(file)
                .map_err(|source| VerifyError::Open { db: file.display().to_string(), source })?;
            // The key in force at the file's end: the pinned one, or one it
            // was rotated to (`anchor/keys.rs`), which signs the latest
            // checkpoint.
            let public = anchored.public.clone();
            store.in_snapshot(|s| since_checkpoint_in(s, &anchored, public))?
        }
        // Every read from one snapshot, as a start's would be.
        Db::Postgres(_) if anchors.is_none() && pinned.is_none() => Err(VerifyError::CopyUnpinned),
        Db::Postgres(url) => {
            let store = crate::pg_store::PgStore::connect(url)
                .map_err(|source| VerifyError::Open { db: db.shown(), source })?;
            let super::AnchorsRead { anchored, unread, problems, notes, .. } = pg_anchors(&store, anchors, pinned)?;
            // Neither a readable file nor a copy: the file's own error, if
            // one was given, else the file is asked for.
            let Some(anchored) = anchored else {
                return Err(match anchors {
                    Some(p) => crate::anchor::read(p, pinned)
                        .err()
                        .map_or(VerifyError::AnchorFileRequired, VerifyError::Anchors),
                    None => VerifyError::AnchorFileRequired,
                });
            };
            let public = anchored.public.clone();
            let mut out = store.in_snapshot(|s| since_checkpoint_in(s, &anchored, public))??;
            out.problems.splice(0..0, unread.into_iter().chain(problems));
            out.notes = notes;
            Ok(out)
        }
    }
}

/// The anchors of a PostgreSQL casino: the file at `path` if given, with
/// the database's copy of its lines beside it (`anchor_copy.rs`: each chain
/// checked at the longer of the two, a fork a problem). Without a file the
/// copy alone, and only under the key the casino published (`pinned`):
/// someone who can write to the database could sign a copy of their own.
fn pg_anchors(
    store: &crate::pg_store::PgStore,
    path: Option<&std::path::Path>,
    pinned: Option<&str>,
) -> Result<super::AnchorsRead, VerifyError> {
    let read = match path {
        Some(p) if !p.exists() => {
            let source = std::io::Error::from(std::io::ErrorKind::NotFound);
            return Err(VerifyError::Anchors(crate::anchor::AnchorError::Io { path: p.to_path_buf(), source }));
        }
        Some(p) => super::AnchorsRead::now(p, pinned),
        None if pinned.is_none() => return Err(VerifyError::CopyUnpinned),
        None => super::AnchorsRead::without_file(),
    };
    let trust = pinned.map(str::to_string).or_else(|| read.first_key());
    let copy = store.read_anchor_copy(trust.as_deref())?;
    Ok(read.with_copy(copy, path.is_some()))
}

fn since_checkpoint_in(
    store: &dyn crate::store::History,
    anchored: &crate::anchor::Anchored,
    public: String,
) -> Result<SinceCheckpoint, VerifyError> {
    // Read a part at a time, without the read model (`checkpoint_check.rs`).
    let (id, opened) = baccarat_casino::latest_without_read_model(store, &public)?.ok_or(VerifyError::NoCheckpoint)?;
    let mut out = SinceCheckpoint { checkpoint: id, public: public.clone(), ..SinceCheckpoint::default() };
    let cp = match opened {
        Ok(cp) => cp,
        Err(why) => {
            out.problems.push(why.to_string());
            return Ok(out);
        }
    };
    out.at_ms = cp.at_ms;
    if let Some(why) = cp.anchor.as_ref().and_then(|m| m.behind(anchored)) {
        out.problems.push(format!("anchors: {why}"));
    }
    let cuts = crate::anchor::anchor_cuts(store, anchored).map_err(|e| VerifyError::Cuts(e.to_string()))?;
    for (table, why) in &cuts {
        out.problems.push(format!("table {table}: {why}"));
    }
    match crate::casino::recover(store, Some(cp), crate::casino::Keys::None, &cuts.into_keys().collect()) {
        Ok(r) => {
            out.tail_records = r.tail_records;
            out.tail_transfers = r.tail_transfers;
            if let Err(e) = r.casino.ledger.check() {
                out.problems.push(format!("ledger: {e}"));
            }
        }
        Err(why) => out.problems.push(why.to_string()),
    }
    Ok(out)
}

#[cfg(test)]
mod since_checkpoint_tests {
    use super::verify_since_checkpoint;
    use crate::casino::Request;
    use crate::serve::{heads_of, open, write_checkpoint, ServeConfig};
    use crate::store::{Commit, Store};
    use baccarat_rules::Money;
    use baccarat_table::PlayerId;

    /// A clean tail verifies; a transfer altered after the checkpoint (so the
    /// stored balances no longer follow from it) and a checkpoint edited in
    /// place are found.
    #[test]
    fn the_tail_after_a_checkpoint_is_checked() {
        let dir = std::env::temp_dir().join(format!("baccarat-since-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("casino.db");
        let mut o = open(&ServeConfig {
            founding: crate::audit::Founding::Demo,
            ..ServeConfig::new(db.clone(), "127.0.0.1:0".parse().unwrap())
        })
        .unwrap();
        let deposit = |o: &mut crate::serve::Opened, p: u32| {
            let mut c = Commit::default();
            o.casino.handle(
                Request::Deposit { player: PlayerId(p), amount: Money(5000), key: format!("k{p}").parse().unwrap() },
                &mut c,
            );
            o.store.commit(&c).unwrap();
            o.anchors.append(&heads_of(&c)).unwrap();
        };
        deposit(&mut o, 100);
        write_checkpoint(&mut o.store, &o.anchors, &o.casino, &o.feed).unwrap();
        deposit(&mut o, 101);
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.is_empty(), "{:?}", t.problems);
        assert!(t.tail_records >= 1 && t.tail_transfers >= 1, "{t:?}");
        // A forger raises the later deposit and the wallet's stored balance.
        let conn = o.store.sqlite().unwrap().connection();
        crate::store::logs::unpack(conn).unwrap();
        let last: i64 = conn.query_row("SELECT MAX(id) FROM transfers", [], |r| r.get(0)).unwrap();
        conn.execute("UPDATE transfers SET amount = amount + 1 WHERE id = ?1", [last]).unwrap();
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.iter().any(|p| p.contains("account")), "{:?}", t.problems);
        conn.execute("UPDATE transfers SET amount = amount - 1 WHERE id = ?1", [last]).unwrap();
        conn.execute("UPDATE checkpoints SET sha256 = 'x' || substr(sha256, 2)", []).unwrap();
        let t = verify_since_checkpoint(&crate::store::Db::Sqlite(db.clone()), None, None).unwrap();
        assert!(t.problems.iter().any(|p| p.contains("SHA-256")), "{:?}", t.problems);
        // Passed: the directory goes (a failure keeps it, to be looked at).
        drop(o);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
