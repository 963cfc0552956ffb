//! Rotating the server's signing key (`baccarat key rotate`), with the
//! server stopped.
//!
//! * **Offline.** A SQLite casino's lock (`db_lock.rs`) is taken first: a
//!   serving server holds the key in memory and appends to the anchor file,
//!   so a rotation beside it would be followed by lines signed with the key
//!   it retired (a forgery, to `verify`). Stop the server, rotate, start it.
//!   A PostgreSQL casino is refused: its partitions' servers share one key
//!   file and each has an anchor file of its own, and their lease is not a
//!   lock this command can hold (docs/keys.md says what to do instead).
//! * **One line, signed by both.** The anchor file gets a rotation line
//!   signed by the old key and countersigned by the new (`anchor/keys.rs`);
//!   every line after it is signed by the new key.
//! * **Every signature moves.** The latest checkpoint, checked under the old
//!   key, is sealed again under the new one (a start opens it under the key
//!   it serves with, and `verify --since-checkpoint` under the key in force);
//!   its anchor mark is before the rotation line, so a start reads that line
//!   and follows it. Everything else a server signs (new anchor lines, new
//!   checkpoints, the forwarded clients' claims: `forward.rs`) is signed with
//!   the key file's key, read at the start.
//! * **Crash-safe, and nothing lost.** The new key is written first as
//!   `<key>.new` (0600); then the rotation line is appended and fsynced; then
//!   the checkpoint sealed anew; then the old key is kept as
//!   `<key>.retired-N` (a hard link: the same private file) and the new one
//!   renamed into place. A run that finds `<key>.new` finishes the rotation
//!   it began, whichever step it stopped at.

use std::path::{Path, PathBuf};

use crate::anchor::{AnchorError, AnchorKey, AnchorLog};
use crate::store::{History, Store, StoreError};
use baccarat_core::signing_key::KeyFileError;

/// Why a rotation was refused or failed; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum RotateError {
    #[error("--db: {} does not exist", .0.display())]
    NoDb(PathBuf),
    #[error(
        "--db: key rotate rotates a SQLite casino's key; a PostgreSQL casino's partitions share one key and each \
         has an anchor file, and this command does not rotate them yet (docs/keys.md)"
    )]
    Postgres,
    #[error("{0} (key rotate is offline: stop the server, rotate, then start it again)")]
    Held(#[source] baccarat_core::LockError),
    #[error(
        "{}: the signing key is missing: there is nothing to rotate from (restore it, or name it with --key-file)",
        .0.display()
    )]
    MissingKey(PathBuf),
    #[error(transparent)]
    Key(#[from] KeyFileError),
    #[error(
        "{}: the anchor file is missing or empty: a rotation line must follow the lines the old key signed \
         (name it with --anchor-file)",
        .0.display()
    )]
    NoAnchors(PathBuf),
    #[error(transparent)]
    Anchors(#[from] AnchorError),
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the latest checkpoint: {0}")]
    Store(#[from] StoreError),
}

/// What a rotation did.
#[derive(Debug)]
pub struct Rotated {
    pub old: String,
    pub new: String,
    /// The anchor line that rotates (its `seq`).
    pub line: u64,
    /// Where the old key is kept.
    pub retired: PathBuf,
    /// The checkpoint sealed anew under the new key, if there was one.
    pub checkpoint: Option<i64>,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Rotate the key of the SQLite casino `db` (see the module doc).
pub fn rotate(db: &Path, key_path: &Path, anchor_path: &Path) -> Result<Rotated, RotateError> {
    if matches!(crate::store::Db::parse(&db.to_string_lossy()), crate::store::Db::Postgres(_)) {
        return Err(RotateError::Postgres);
    }
    if !db.exists() {
        return Err(RotateError::NoDb(db.into()));
    }
    let _lock = baccarat_core::DbLock::take(db).map_err(RotateError::Held)?;
    if !key_path.exists() {
        return Err(RotateError::MissingKey(key_path.into()));
    }
    let old = baccarat_core::signing_key::load_private(key_path)?;
    if std::fs::metadata(anchor_path).map_or(true, |m| m.len() == 0) {
        return Err(RotateError::NoAnchors(anchor_path.into()));
    }
    let new = new_key(key_path)?;
    // Rotated already (a run stopped after its line): finish the rest.
    let line = match crate::anchor::read_signed_at(anchor_path, &new.public_hex(), None) {
        Ok(a) => a.rotations.last().map_or(0, |r| r.line),
        Err(_) => {
            let mut log = AnchorLog::open(anchor_path, old.clone())?;
            log.rotate_key(new.clone())?;
            log.mark().seq
        }
    };
    let checkpoint = reseal(db, &old, &new)?;
    let retired = install(key_path, &with_suffix(key_path, ".new"))?;
    Ok(Rotated { old: old.public_hex(), new: new.public_hex(), line, retired, checkpoint })
}

/// The new key: `<key>.new` if a rotation left one, else made and written
/// there (0600) before anything signs with it.
fn new_key(key_path: &Path) -> Result<AnchorKey, RotateError> {
    let path = with_suffix(key_path, ".new");
    if path.exists() {
        return Ok(baccarat_core::signing_key::load_private(&path)?);
    }
    let key = AnchorKey::generate(&path)?;
    key.save_new(&path)?;
    Ok(key)
}

/// The latest checkpoint, if the old key signed it, sealed anew by the new.
fn reseal(db: &Path, old: &AnchorKey, new: &AnchorKey) -> Result<Option<i64>, RotateError> {
    let mut store = crate::store::SqliteStore::open(db)?;
    let Some(stored) = store.latest_checkpoint()? else { return Ok(None) };
    if stored.public_key != old.public_hex() {
        return Ok(None);
    }
    let Ok(c) = crate::checkpoint::open(&stored, &old.public_hex()) else {
        // Refused under the old key too: a start replays, as it would have.
        return Ok(None);
    };
    store.write_checkpoint(&crate::checkpoint::seal_with(&c, new))?;
    Ok(store.latest_checkpoint_seal()?.map(|s| s.id))
}

/// Keep the old key as the first free `<key>.retired-N` (a hard link to the
/// same 0600 file), then rename `new` over `key` (atomic: the key file is
/// always one key or the other), and make both durable.
fn install(key: &Path, new: &Path) -> Result<PathBuf, RotateError> {
    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> RotateError + '_ {
        move |source| RotateError::Io { path: path.into(), source }
    }
    let mut n = 1;
    let retired = loop {
        let p = with_suffix(key, &format!(".retired-{n}"));
        if !p.exists() {
            break p;
        }
        n += 1;
    };
    std::fs::hard_link(key, &retired).map_err(io(&retired))?;
    std::fs::rename(new, key).map_err(io(key))?;
    #[cfg(unix)]
    {
        let dir = key.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        std::fs::File::open(dir).and_then(|d| d.sync_all()).map_err(io(dir))?;
    }
    Ok(retired)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// The files move as the module doc says: the old key kept beside,
    /// private, the new one in place, `.new` gone; names are never reused.
    #[test]
    fn install_keeps_the_old_key_and_puts_the_new_in_place() {
        use std::os::unix::fs::PermissionsExt;
        let d = std::env::temp_dir().join(format!("baccarat-key-rotation-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        let key = d.join("casino.db.key");
        let old = AnchorKey::load_or_create(&key).unwrap();
        std::fs::write(d.join("casino.db.key.retired-1"), "taken").unwrap();
        let new = new_key(&key).unwrap();
        assert_eq!(new_key(&key).unwrap().public_hex(), new.public_hex(), "a key left by a run is taken again");
        let retired = install(&key, &with_suffix(&key, ".new")).unwrap();
        assert_eq!(retired, d.join("casino.db.key.retired-2"));
        assert_eq!(AnchorKey::load(&retired).unwrap().public_hex(), old.public_hex());
        assert_eq!(AnchorKey::load(&key).unwrap().public_hex(), new.public_hex());
        assert!(!with_suffix(&key, ".new").exists());
        for p in [&key, &retired] {
            assert_eq!(std::fs::metadata(p).unwrap().permissions().mode() & 0o777, 0o600);
        }
        let _ = std::fs::remove_dir_all(&d);
    }
}
