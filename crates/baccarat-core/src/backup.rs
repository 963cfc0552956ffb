//! `baccarat backup`: a consistent copy of a SQLite casino, taken while its
//! server serves, into a directory that is restored by copying it back.
//!
//! Why each step is where it is:
//!
//! * **The database by SQLite's online backup API**, one step of every page
//!   (`sqlite3_backup_step(-1)`): one read transaction, so the copy is the
//!   database as one commit left it. The source is opened read-only and in
//!   WAL mode a reader never waits for the writer, nor the writer for it;
//!   the server's lock (`db_lock.rs`) is not taken: it guards against a
//!   second *writer*, and the backup writes nothing there.
//! * **The anchor file after the database** (`backup/anchors.rs`): the server
//!   signs a head only after its batch is committed, so every line written
//!   before the copy names heads the copy holds; lines written after it may
//!   name heads it does not, and are left out. Lines already in the file
//!   *before* the copy began must all be held: one that is not means the
//!   database is shorter than its anchor file signed (a cut), and the backup
//!   is refused rather than made to agree with the cut.
//! * **The public key, not the signing key**, unless asked: whoever holds the
//!   signing key can sign anchor lines and checkpoints as the server.
//! * **The names `serve` expects** (`<db>`, `<db>.anchors` and its segments,
//!   `<db>.key`; and `<db>.pub`, the public key, which `serve` does not read),
//!   and the archive files at the paths the database registers, so that
//!   restoring is copying the directory back.
//!
//! PostgreSQL is not copied here: its own tools do it (docs/backup.md).

use crate::ids::TableId;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use crate::anchor::{AnchorError, AnchorKey};
use crate::store::StoreError;

mod anchors;

/// What to copy, and where to.
pub struct Request<'a> {
    /// The serving casino's database (a SQLite file).
    pub db: &'a Path,
    pub anchor_file: &'a Path,
    pub key_file: &'a Path,
    /// A new or empty directory.
    pub to: &'a Path,
    /// Copy the signing key too.
    pub include_key: bool,
}

/// One file written into the backup.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Written {
    pub file: PathBuf,
    pub bytes: u64,
    /// What it is: "database", "anchors", "anchor segment", "archive",
    /// "public key", "signing key".
    pub what: &'static str,
}

/// What a backup wrote and what the copy holds.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Report {
    pub dir: PathBuf,
    pub files: Vec<Written>,
    /// Records in each chain of the copy (the casino's is 0).
    pub chains: BTreeMap<TableId, u64>,
    /// The last line the copied anchor file keeps.
    pub anchor_lines: u64,
    /// Each chain's length as the copied anchor file's last heads sign it.
    pub anchored: BTreeMap<TableId, u64>,
    /// Lines of the live file left out: written after the database's copy,
    /// they name records the copy does not hold.
    pub lines_after: u64,
    /// The public key (64 hex digits) the anchor file is signed with.
    pub public_key: String,
    pub key_included: bool,
    /// Registered archives at absolute paths: not copied (keep them yourself).
    pub archives_elsewhere: Vec<PathBuf>,
}

/// Why a backup was not made. Each names the flag or file and the fix.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error("--to: {} exists and is not an empty directory: a backup goes into a new or empty one", .0.display())]
    NotEmpty(PathBuf),
    #[error("--db: {} does not exist", .0.display())]
    NoDb(PathBuf),
    #[error("--db: {}: not a casino's database ({why})", .db.display())]
    NotCasino { db: PathBuf, why: String },
    #[error(
        "--anchor-file: {}: missing or empty, but the database holds a casino: a copy without it would not start \
         (name the file with --anchor-file)",
        .0.display()
    )]
    NoAnchors(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}: the online copy: {source}", .db.display())]
    Copy { db: PathBuf, source: rusqlite::Error },
    #[error("the copy: {0}")]
    Store(#[from] StoreError),
    #[error(transparent)]
    Anchor(#[from] AnchorError),
    /// The anchor file signs what the database does not hold (or holds
    /// otherwise) from before the copy began.
    #[error(
        "{}: {why}: the database does not match its anchor file, and a backup would hide it; run `baccarat verify` \
         on the casino",
        .path.display()
    )]
    Mismatch { path: PathBuf, why: String },
    #[error(
        "{}: the anchor file changed under the copy three times (a monthly rotation?): {last}; run the backup again",
        .path.display()
    )]
    Unsettled { path: PathBuf, last: String },
    #[error(
        "--key-file: {}: {source}; --include-key copies the signing key, which must be readable here",
        .path.display()
    )]
    Key { path: PathBuf, source: AnchorError },
    #[error(
        "--key-file: {}: signs with {key}, but the anchor file is signed with {file}: this is not the casino's key",
        .path.display()
    )]
    KeyMismatch { path: PathBuf, key: String, file: String },
}

pub(crate) fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> BackupError + '_ {
    move |source| BackupError::Io { path: path.to_path_buf(), source }
}

/// Take the backup `req` asks for (module docs). A backup that fails
/// leaves `--to` empty again: half a backup must not pass for one.
pub fn backup(req: &Request<'_>) -> Result<Report, BackupError> {
    refuse_used(req.to)?;
    let src = open_source(req.db)?;
    let before = anchors::lines_before(req.anchor_file)?;
    let (names, dst_db) = prepare(req)?;
    let made = fill(req, src, before, &names, &dst_db);
    if made.is_err() {
        if let Ok(entries) = std::fs::read_dir(req.to) {
            for e in entries.flatten() {
                let p = e.path();
                let _ = if p.is_dir() { std::fs::remove_dir_all(&p) } else { std::fs::remove_file(&p) };
            }
        }
    }
    made
}

/// The copy itself, into the prepared directory.
fn fill(req: &Request<'_>, src: Connection, before: u64, names: &Names, dst_db: &Path) -> Result<Report, BackupError> {
    let dst = copy_db(req.db, &src, dst_db)?;
    drop(src);
    let mut files = vec![written(dst_db, "database")?];
    let (archives, elsewhere) = copy_archives(req.db, &dst, dst_db)?;
    files.extend(archives);
    let got = anchors::copy(req.anchor_file, &dst, dst_db, &names.anchors, before)?;
    files.extend(got.files.iter().cloned());
    let public = public_key(req, &got.public)?;
    let pub_path = names.public.clone();
    write_private(&pub_path, format!("{public}\n").as_bytes())?;
    files.push(written(&pub_path, "public key")?);
    if req.include_key {
        let key =
            AnchorKey::load(req.key_file).map_err(|source| BackupError::Key { path: req.key_file.into(), source })?;
        key.save_new(&names.key)?;
        files.push(written(&names.key, "signing key")?);
    }
    let chains = chain_lengths(&dst)?;
    drop(dst);
    Ok(Report {
        dir: req.to.to_path_buf(),
        files,
        chains,
        anchor_lines: got.lines,
        anchored: got.anchored.heads.iter().map(|(t, (len, _))| (*t, *len)).collect(),
        lines_after: got.lines_after,
        public_key: public,
        key_included: req.include_key,
        archives_elsewhere: elsewhere,
    })
}

/// The names in the backup directory, as `serve --db <dir>/<db>` finds them.
struct Names {
    anchors: PathBuf,
    key: PathBuf,
    public: PathBuf,
}

/// Refuse a `--to` that holds anything (or is not a directory).
fn refuse_used(to: &Path) -> Result<(), BackupError> {
    match std::fs::read_dir(to).map(|mut entries| entries.next().is_none()) {
        Ok(true) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        _ => Err(BackupError::NotEmpty(to.into())),
    }
}

/// Make `--to` (mode 0700: the copy holds the staff's password hashes),
/// refused again if it was filled meanwhile, and name the files in it.
fn prepare(req: &Request<'_>) -> Result<(Names, PathBuf), BackupError> {
    let to = req.to;
    refuse_used(to)?;
    std::fs::create_dir_all(to).map_err(io_err(to))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(to, std::fs::Permissions::from_mode(0o700)).map_err(io_err(to))?;
    }
    let name = req.db.file_name().ok_or_else(|| BackupError::NoDb(req.db.into()))?;
    let db = to.join(name);
    let (anchors, key) = crate::anchor::default_paths(&db);
    let mut public = db.clone().into_os_string();
    public.push(".pub");
    Ok((Names { anchors, key, public: public.into() }, db))
}

/// The source, read-only, after checking that it is a casino's database.
fn open_source(db: &Path) -> Result<Connection, BackupError> {
    if !db.is_file() {
        return Err(BackupError::NoDb(db.into()));
    }
    let not = |why: String| BackupError::NotCasino { db: db.into(), why };
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let conn = Connection::open_with_flags(db, flags).map_err(|e| not(e.to_string()))?;
    let has = |table: &str| -> Result<bool, rusqlite::Error> {
        conn.query_row("SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1)", [table], |r| {
            r.get(0)
        })
    };
    match (has("audit"), has("accounts")) {
        (Ok(true), Ok(true)) => {}
        (Err(e), _) | (_, Err(e)) => return Err(not(e.to_string())),
        _ => return Err(not("it has no audit chains".into())),
    }
    let founded =
        crate::store::logs::record_at(&conn, crate::audit::CASINO_CHAIN, 1).map_err(|e| not(e.to_string()))?;
    let tables: i64 =
        conn.query_row("SELECT COUNT(*) FROM tables", [], |r| r.get(0)).map_err(|e| not(e.to_string()))?;
    if founded.is_none() && tables == 0 {
        return Err(not("it holds no casino yet: nothing to back up".into()));
    }
    Ok(conn)
}

/// Every page of `src` into a new database at `dst_path`, in one step (one
/// read transaction: a consistent copy). A step the source's lock refuses
/// is tried again, a little later, a bounded number of times.
fn copy_db(db: &Path, src: &Connection, dst_path: &Path) -> Result<Connection, BackupError> {
    use rusqlite::backup::{Backup, StepResult};
    let err = |source| BackupError::Copy { db: db.into(), source };
    let mut dst = Connection::open(dst_path).map_err(err)?;
    {
        let backup = Backup::new(src, &mut dst).map_err(err)?;
        let mut tries = 0;
        loop {
            match backup.step(-1).map_err(err)? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked if tries < 600 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                _ => return Err(err(rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(5), None))),
            }
        }
    }
    // A single file: no WAL beside it in the backup.
    dst.pragma_update(None, "journal_mode", "DELETE").map_err(err)?;
    make_private(dst_path)?;
    Ok(dst)
}

/// The archive files the copy registers (`store/archive.rs`), copied to the
/// same place beside it; those at absolute paths are named, not copied.
fn copy_archives(db: &Path, dst: &Connection, dst_db: &Path) -> Result<(Vec<Written>, Vec<PathBuf>), BackupError> {
    let mut files = Vec::new();
    let mut elsewhere = Vec::new();
    for a in crate::store::archive::registered(dst)? {
        if Path::new(&a.file).is_absolute() {
            elsewhere.push(PathBuf::from(&a.file));
            continue;
        }
        let (from, to) = (a.path(db), a.path(dst_db));
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        std::fs::copy(&from, &to).map_err(io_err(&from))?;
        files.push(written(&to, "archive")?);
    }
    Ok((files, elsewhere))
}

/// The public key to write: the key file's when it can be read (and then it
/// must be the anchor file's), else the anchor file's own.
fn public_key(req: &Request<'_>, of_file: &str) -> Result<String, BackupError> {
    match AnchorKey::load(req.key_file) {
        Ok(key) if key.public_hex() != of_file => {
            Err(BackupError::KeyMismatch { path: req.key_file.into(), key: key.public_hex(), file: of_file.into() })
        }
        Ok(key) => Ok(key.public_hex()),
        Err(source) if req.include_key => Err(BackupError::Key { path: req.key_file.into(), source }),
        Err(_) => Ok(of_file.to_string()),
    }
}

/// Records in each chain of the copy (live rows and compacted blocks).
fn chain_lengths(conn: &Connection) -> Result<BTreeMap<TableId, u64>, StoreError> {
    let mut out = BTreeMap::new();
    let mut q = conn.prepare("SELECT tbl, MAX(seq) FROM audit GROUP BY tbl")?;
    for row in q.query_map([], |r| Ok((r.get::<_, TableId>(0)?, r.get::<_, i64>(1)?)))? {
        let (t, n) = row?;
        out.insert(t, n as u64);
    }
    let blocks: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'audit_blocks')",
        [],
        |r| r.get(0),
    )?;
    if blocks {
        let mut q = conn.prepare("SELECT tbl, MAX(last) FROM audit_blocks GROUP BY tbl")?;
        for row in q.query_map([], |r| Ok((r.get::<_, TableId>(0)?, r.get::<_, i64>(1)?)))? {
            let (t, n) = row?;
            let e = out.entry(t).or_insert(0);
            *e = (*e).max(n as u64);
        }
    }
    Ok(out)
}

pub(crate) fn written(path: &Path, what: &'static str) -> Result<Written, BackupError> {
    let bytes = std::fs::metadata(path).map_err(io_err(path))?.len();
    Ok(Written { file: path.to_path_buf(), bytes, what })
}

/// Write `bytes` to a new file at `path`, mode 0600, synced.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<(), BackupError> {
    use std::io::Write;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut opts, 0o600);
    let mut f = opts.open(path).map_err(io_err(path))?;
    f.write_all(bytes).and_then(|()| f.sync_all()).map_err(io_err(path))
}

fn make_private(path: &Path) -> Result<(), BackupError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).map_err(io_err(path))?;
    }
    let _ = path;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::{heads_of, AnchorLog};
    use crate::store::{Commit, SqliteStore, Store};

    /// A casino's chain of `n` records, each batch anchored: (the directory,
    /// the database).
    fn casino(n: u64) -> (PathBuf, PathBuf) {
        let mut r = [0u8; 8];
        getrandom::fill(&mut r).unwrap();
        let dir = std::env::temp_dir().join(format!("backup-test-{}", baccarat_table::hex(&r)));
        std::fs::create_dir(&dir).unwrap();
        let db = dir.join("casino.db");
        let mut store = SqliteStore::open(&db).unwrap();
        let (anchors, key) = crate::anchor::default_paths(&db);
        let mut log = AnchorLog::open(&anchors, AnchorKey::load_or_create(&key).unwrap()).unwrap();
        let mut chain = crate::audit::Chain::new();
        for i in 0..n {
            let c = Commit { records: vec![(TableId(0), chain.append(format!("{{\"n\":{i}}}")))], ..Commit::default() };
            store.commit(&c).unwrap();
            log.append(&heads_of(&c)).unwrap();
        }
        (dir, db)
    }

    fn request<'a>(db: &'a Path, anchors: &'a Path, key: &'a Path, to: &'a Path) -> Request<'a> {
        Request { db, anchor_file: anchors, key_file: key, to, include_key: false }
    }

    /// The database cut after its anchor file signed it: the copy.
    fn cut_last(db: &Path, n: u64) {
        let c = Connection::open(db).unwrap();
        crate::store::logs::unpack(&c).unwrap();
        assert_eq!(c.execute("DELETE FROM audit WHERE tbl = 0 AND seq = ?1", [n as i64]).unwrap(), 1);
    }

    /// Everything held: every line kept, the public key written, no
    /// signing key; a second backup into the same directory is refused.
    #[test]
    fn a_backup_keeps_every_line_its_copy_holds() {
        let (dir, db) = casino(4);
        let (anchors, key) = crate::anchor::default_paths(&db);
        let to = dir.join("bk");
        let r = backup(&request(&db, &anchors, &key, &to)).unwrap();
        assert_eq!((r.anchor_lines, r.lines_after, r.chains[&TableId(0)], r.anchored[&TableId(0)]), (4, 0, 4, 4));
        assert_eq!(std::fs::read(to.join("casino.db.anchors")).unwrap(), std::fs::read(&anchors).unwrap());
        assert!(to.join("casino.db.pub").exists() && !to.join("casino.db.key").exists());
        let again = backup(&request(&db, &anchors, &key, &to)).unwrap_err().to_string();
        assert!(again.starts_with("--to: ") && again.contains("is not an empty directory"), "{again}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Lines written after the copy's point (not yet in the file when the
    /// copy began) name records the copy does not hold: left out, and the
    /// file read back verifies.
    #[test]
    fn lines_written_after_the_copy_are_left_out() {
        let (dir, db) = casino(5);
        let (anchors, _) = crate::anchor::default_paths(&db);
        let copy = dir.join("copy.db");
        std::fs::copy(&db, &copy).unwrap();
        cut_last(&copy, 5);
        let dst = Connection::open(&copy).unwrap();
        let live = dir.join("copy.db.anchors");
        let got = anchors::copy(&anchors, &dst, &copy, &live, 4).map_err(|e| e.to_string()).unwrap();
        assert_eq!((got.lines, got.lines_after, got.anchored.heads[&TableId(0)].0), (4, 1, 4));
        assert_eq!(crate::anchor::read_all(&live, None).unwrap().0.lines, 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Attack: a database cut below what its anchor file signed *before*
    /// the copy began. Leaving the lines out would make the backup agree
    /// with the cut; it is refused, naming the line.
    #[test]
    fn a_cut_database_is_refused_not_laundered_into_a_backup() {
        let (dir, db) = casino(5);
        cut_last(&db, 5);
        let (anchors, key) = crate::anchor::default_paths(&db);
        let to = dir.join("bk");
        let err = backup(&request(&db, &anchors, &key, &to)).unwrap_err().to_string();
        assert!(err.contains("line 5 signs chain 0 at 5 records") && err.contains("(its tail was cut)"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
