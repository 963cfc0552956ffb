//! One server per SQLite casino: an exclusive lock on a file beside the
//! database (`<db>.lock`), taken before a start reads or writes anything.
//!
//! Two servers on one file each recover the other's live coups and both
//! write: the committer then fails on a UNIQUE constraint, the chains fork
//! and so does the anchor file (issue 45, finding 9). SQLite's own locks
//! serialise transactions, not servers, so the lock is the server's own.
//!
//! * **`flock(2)`, exclusive, not waiting.** A second start is refused at
//!   once, naming the holder: its PID and host, which the holder writes into
//!   the file after taking the lock (a file shared over NFS may be locked
//!   from another host, where the PID alone says nothing).
//! * **A stale lock is no lock.** The kernel releases an `flock` when the
//!   last descriptor of the open file is closed, so a server that dies
//!   (even by `kill -9`) releases it with its process; the next start takes
//!   it and writes its own PID over the dead one's. Nothing is deleted: a
//!   lock file removed while held would let a second server lock a new file
//!   of the same name. (Rust opens files close-on-exec, so no child process
//!   inherits the lock.)
//! * **Who takes it:** every start that opens the casino as the server does
//!   (`serve::open_leased`: `serve`, and tools and examples that open through
//!   it), held for as long as the [`DbLock`] lives; and `migrate --from`,
//!   whose copy would not match a source still being written. Not `verify`
//!   (it only reads, from one snapshot, and is meant for a live casino) nor
//!   `archive` (it deletes in short transactions beside a serving server, by
//!   design: docs/operating.md, "Retention and archives"). A casino on PostgreSQL has
//!   its lease instead (`lease.rs`).

use std::path::{Path, PathBuf};

/// Why the lock on a SQLite casino was not taken. Each message names the
/// file (`path`: the lock file; `db`: the database as given).
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file could not be opened (or is a symlink).
    #[error("{}: cannot open the casino's lock file (it must be a plain file): {source}", .path.display())]
    Open { path: PathBuf, source: std::io::Error },
    /// The lock file is not a plain file.
    #[error("{}: the casino's lock file is not a plain file", .path.display())]
    NotPlain { path: PathBuf },
    /// Another server holds the lock (`holder`: what it wrote).
    #[error(
        "{}: another server holds this casino ({holder}, in {}): two servers on one SQLite file corrupt it; \
         stop that one first (its lock is released when its process ends)",
        .db.display(),
        .path.display()
    )]
    Held { db: PathBuf, path: PathBuf, holder: String },
    /// `flock` failed for another reason than a holder.
    #[cfg(unix)]
    #[error("{}: cannot lock the casino's lock file: {source}", .path.display())]
    Lock { path: PathBuf, source: nix::errno::Errno },
    /// The holder's line could not be written.
    #[error("{}: cannot write the lock file: {source}", .path.display())]
    Write { path: PathBuf, source: std::io::Error },
    /// A SQLite URI given as the database.
    #[error("{}: a SQLite URI is not accepted as --db: give the file's path", .db.display())]
    Uri { db: PathBuf },
    /// The database file has more than one hard link.
    #[error(
        "{}: the database file has {links} hard links; a casino has one name (each name would have a \
         lock and a WAL of its own): remove the other links",
        .db.display()
    )]
    HardLinks { db: PathBuf, links: u64 },
    /// The database's true name could not be found.
    #[error("{}: {source}", .db.display())]
    Canonical { db: PathBuf, source: std::io::Error },
    /// The database path ends in no file name.
    #[error("{}: names no file", .db.display())]
    NoFile { db: PathBuf },
    /// The database's folder's true name could not be found.
    #[error("{}: its folder: {source}", .db.display())]
    Folder { db: PathBuf, source: std::io::Error },
}

/// The lock on one SQLite casino, held until dropped (or the process ends).
#[derive(Debug)]
pub struct DbLock {
    /// The lock file, locked (unix).
    #[cfg(unix)]
    _held: nix::fcntl::Flock<std::fs::File>,
    path: PathBuf,
}

impl DbLock {
    /// The lock file of database `db`: `<db>.lock`.
    pub fn path_of(db: &Path) -> PathBuf {
        let mut s = db.as_os_str().to_owned();
        s.push(".lock");
        PathBuf::from(s)
    }

    /// Take the lock on `db`'s casino, or refuse, naming the server that
    /// holds it. Creates the lock file if need be; writes nothing else.
    ///
    /// The lock is named after the database's one true name
    /// ([`canonical`]): a symlink or another spelling of the same file meets
    /// the same lock, a hard link (a second true name, with a WAL of its
    /// own) and a SQLite URI (`file:…`, which the lock would read as a path)
    /// are refused. The lock file is opened without following a symlink, so
    /// a link planted in its place cannot have the server overwrite another
    /// file.
    #[cfg(unix)]
    pub fn take(db: &Path) -> Result<DbLock, LockError> {
        use nix::fcntl::{Flock, FlockArg};
        use std::io::Write;
        use std::os::unix::fs::OpenOptionsExt;
        let path = DbLock::path_of(&canonical(db)?);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .custom_flags(nix::fcntl::OFlag::O_NOFOLLOW.bits())
            .open(&path)
            .map_err(|source| LockError::Open { path: path.clone(), source })?;
        if !file.metadata().is_ok_and(|m| m.is_file()) {
            return Err(LockError::NotPlain { path });
        }
        let mut held = match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
            Ok(held) => held,
            Err((_, nix::errno::Errno::EWOULDBLOCK)) => return Err(refusal(db, &path)),
            Err((_, source)) => return Err(LockError::Lock { path, source }),
        };
        // Who holds it, for a second start's refusal (over a dead holder's).
        let me = format!("pid {} on host {}\n", std::process::id(), host_name());
        held.set_len(0)
            .and_then(|()| held.write_all(me.as_bytes()))
            .map_err(|source| LockError::Write { path: path.clone(), source })?;
        Ok(DbLock { _held: held, path })
    }

    /// Elsewhere than unix there is no `flock`: no lock is taken.
    #[cfg(not(unix))]
    pub fn take(db: &Path) -> Result<DbLock, LockError> {
        Ok(DbLock { path: DbLock::path_of(db) })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The one true name of the database `db` names, for its lock: the file
/// with every symlink resolved (or, for a file not made yet, its folder's
/// true name and the file's). Refused: a SQLite URI (`file:…`: SQLite opens
/// the file it names, the lock would take the text for a path), and a file
/// with more than one hard link (each name would have a lock, and a WAL, of
/// its own).
#[cfg(unix)]
fn canonical(db: &Path) -> Result<PathBuf, LockError> {
    use std::os::unix::fs::MetadataExt;
    let db_ = || db.to_path_buf();
    if db.as_os_str().as_encoded_bytes().starts_with(b"file:") {
        return Err(LockError::Uri { db: db_() });
    }
    if let Ok(m) = std::fs::metadata(db) {
        if m.nlink() > 1 {
            return Err(LockError::HardLinks { db: db_(), links: m.nlink() });
        }
        return std::fs::canonicalize(db).map_err(|source| LockError::Canonical { db: db_(), source });
    }
    let name = db.file_name().ok_or_else(|| LockError::NoFile { db: db_() })?;
    let folder = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let folder = std::fs::canonicalize(folder).map_err(|source| LockError::Folder { db: db_(), source })?;
    Ok(folder.join(name))
}

/// A second start's refusal: whose lock it met, as the holder wrote it
/// (nothing yet if it is between taking the lock and writing its PID).
fn refusal(db: &Path, path: &Path) -> LockError {
    let holder = std::fs::read_to_string(path).unwrap_or_default();
    let holder = match holder.trim() {
        "" => "a server that has not yet written its PID".to_string(),
        who => who.to_string(),
    };
    LockError::Held { db: db.to_path_buf(), path: path.to_path_buf(), holder }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A second lock on the same casino is refused, naming this process's
    /// PID and host; once the first is dropped (as at a process's end) the
    /// next takes it and its own PID replaces the old.
    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_a_released_one_is_taken() {
        let dir = std::env::temp_dir().join(format!("baccarat-db-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let db = dir.join("casino.db");
        let first = DbLock::take(&db).unwrap();
        let me = format!("pid {} on host {}", std::process::id(), host_name());
        let err = DbLock::take(&db).unwrap_err().to_string();
        assert!(err.contains(&me) && err.contains("another server holds this casino"), "{err}");
        drop(first);
        // A stale holder's line is overwritten by the next holder's.
        std::fs::write(DbLock::path_of(&db), "pid 999999999 on host gone\n").unwrap();
        let again = DbLock::take(&db).unwrap();
        assert_eq!(std::fs::read_to_string(again.path()).unwrap().trim(), me);
        drop(again);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The refusals read as the strings they replaced, byte for byte
    /// (operators and tests match on them).
    #[test]
    fn the_refusals_read_as_before() {
        let db = PathBuf::from("/x/casino.db");
        let e = LockError::HardLinks { db: db.clone(), links: 2 };
        assert_eq!(
            e.to_string(),
            "/x/casino.db: the database file has 2 hard links; a casino has one name (each name would have a lock \
             and a WAL of its own): remove the other links"
        );
        assert_eq!(
            LockError::Uri { db }.to_string(),
            "/x/casino.db: a SQLite URI is not accepted as --db: give the file's path"
        );
    }
}
/// The host's name, the default `--instance`.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "baccarat".into())
}
