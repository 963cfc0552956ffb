//! The signing key a start serves with (`serve::open_leased`): the key that
//! signed the casino's anchor file and checkpoints, kept private.
//!
//! * **Never a new key for a casino that exists.** A key made on the spot
//!   signs nothing the anchor file or the checkpoints can be checked
//!   against: the start then failed with a confusing key mismatch, after
//!   leaving a new key file behind (issue 45, finding 13). A missing key is
//!   made only on a first run (the database holds no casino), or when the
//!   operator has said that the anchor file is lost for good
//!   (`--new-anchor-file`, with no anchor file): the new file needs a key,
//!   and the old one cannot be extended without the old key.
//! * **Never a key other users can read.** Anyone who can read it can sign
//!   anchor lines and checkpoints as the server. A key file open to its
//!   group or to others (any of mode `0o077`) is refused, naming the
//!   `chmod` that fixes it, as `ssh` refuses a private key. The server
//!   writes its key `0600` (`AnchorKey::save_new`).
//! * **Made in memory, written at the start's first write** ([`save`]), so
//!   that a start refused by a later check leaves no key file behind.

use std::path::{Path, PathBuf};

use crate::anchor::{AnchorError, AnchorKey};

/// Why a start or a reader has no signing key. Each message names the file
/// and, where there is one, the fix (module docs).
#[derive(Debug, thiserror::Error)]
pub enum KeyFileError {
    /// The key file could not be read or made as a key.
    #[error(transparent)]
    Key(#[from] AnchorError),
    /// Missing for a casino that exists (issue 45, finding 13).
    #[error(
        "{p}: the signing key is missing, but the database holds a casino whose anchor file and checkpoints it \
         signed (a new key would sign nothing they can be checked against): restore the key file from a copy (a \
         restored backup holds it only if `baccarat backup` was given --include-key: else put the original key \
         file here), or name it with --key-file (BACCARAT_KEY_FILE); if it is lost for good, move the anchor file aside (keep \
         it) and start once with --new-anchor-file, which makes a new key and begins a new anchor file",
        p = .path.display()
    )]
    Missing { path: PathBuf },
    /// The key file's metadata could not be read at the start.
    #[error("{}: the signing key: {source}", .path.display())]
    Unreadable { path: PathBuf, source: std::io::Error },
    /// The key made by this start could not be written.
    #[error("{0} (the signing key, made by this start)")]
    Save(#[source] AnchorError),
    /// The key file's mode could not be read.
    #[error("{}: {source}", .path.display())]
    Mode { path: PathBuf, source: std::io::Error },
    /// Open to its group or others (`mode`: the permission bits).
    #[error(
        "{p}: the signing key is open to other users (mode {mode:04o}): anyone who can read it can sign as the \
         server; run `chmod 600 {p}`, then start again",
        p = .path.display()
    )]
    OpenToOthers { path: PathBuf, mode: u32 },
}

/// The key a start serves with.
pub struct StartKey {
    pub key: AnchorKey,
    /// Made by this start, not yet written: [`save`] writes it at the
    /// start's first write, so that a start refused later leaves no key file.
    pub new: bool,
}

/// The key at `path` for a start. `has_casino`: the database holds a casino;
/// `new_anchor_file`: the operator asked for a new anchor file and there is
/// none (a new key may then be made). Refused, naming the file and the fix,
/// when missing for a casino that exists or open to other users. Writes
/// nothing: a key made here is written by [`save`].
pub fn for_start(path: &Path, has_casino: bool, new_anchor_file: bool) -> Result<StartKey, KeyFileError> {
    match std::fs::metadata(path) {
        Ok(_) => {
            private(path)?;
            Ok(StartKey { key: AnchorKey::load(path)?, new: false })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if has_casino && !new_anchor_file {
                return Err(KeyFileError::Missing { path: path.to_path_buf() });
            }
            if has_casino {
                tracing::warn!(
                    key = %path.display(),
                    "--new-anchor-file: the signing key is missing; a new one is made, and the old \
                     anchor file and checkpoints cannot be checked with it"
                );
            }
            Ok(StartKey { key: AnchorKey::generate(path)?, new: true })
        }
        Err(source) => Err(KeyFileError::Unreadable { path: path.to_path_buf(), source }),
    }
}

/// The key to sign with from the start's first write on: a key
/// [`for_start`] made is written now (mode 0600). If another process wrote
/// a key at `path` meanwhile (servers of a new casino's partitions sharing
/// one key file, started together), that one is used, as
/// `AnchorKey::load_or_create` does: nothing was yet signed with this one,
/// and nothing it checked was found good.
pub fn save(key: &StartKey, path: &Path) -> Result<AnchorKey, KeyFileError> {
    if !key.new {
        return Ok(key.key.clone());
    }
    match key.key.save_new(path) {
        Ok(()) => Ok(key.key.clone()),
        Err(crate::anchor::AnchorError::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            private(path)?;
            Ok(AnchorKey::load(path)?)
        }
        Err(e) => Err(KeyFileError::Save(e)),
    }
}

/// The key at `path`, for a reader that signs with it after the start (the
/// forwarder, `forward.rs`): refused as [`for_start`] refuses it when open
/// to other users.
pub fn load_private(path: &Path) -> Result<AnchorKey, KeyFileError> {
    private(path)?;
    Ok(AnchorKey::load(path)?)
}

/// Refuse a key file that its group or others may read, write or run.
#[cfg(unix)]
fn private(path: &Path) -> Result<(), KeyFileError> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path)
        .map_err(|source| KeyFileError::Mode { path: path.to_path_buf(), source })?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        return Err(KeyFileError::OpenToOthers { path: path.to_path_buf(), mode: mode & 0o7777 });
    }
    Ok(())
}

/// Elsewhere than unix the file's access is the operating system's to keep.
#[cfg(not(unix))]
fn private(_: &Path) -> Result<(), KeyFileError> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("baccarat-signing-key-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    /// A first run makes the key, written 0600 when saved (not before); a
    /// casino that exists is refused a new one, naming the file and what to
    /// do, and no file is made.
    #[test]
    fn a_missing_key_is_made_only_for_a_new_casino() {
        let d = dir("missing");
        let path = d.join("casino.db.key");
        let err = for_start(&path, true, false).err().expect("refused").to_string();
        assert!(err.contains("casino.db.key: the signing key is missing") && err.contains("restore"), "{err}");
        assert!(!path.exists(), "no key made for a casino that exists");
        let made = for_start(&path, false, false).unwrap();
        assert!(made.new && !path.exists(), "made in memory only");
        save(&made, &path).unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        let loaded = for_start(&path, true, false).unwrap();
        assert!(!loaded.new);
        assert_eq!(loaded.key.public_hex(), made.key.public_hex());
        // Another start's key, written meanwhile, is not overwritten: used.
        let other = for_start(&d.join("other.key"), false, false).unwrap();
        assert_eq!(save(&other, &path).unwrap().public_hex(), made.key.public_hex());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// A key readable by others is refused, naming the file and the chmod.
    #[test]
    fn a_key_readable_by_others_is_refused_naming_the_chmod() {
        let d = dir("open");
        let path = d.join("casino.db.key");
        save(&for_start(&path, false, false).unwrap(), &path).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = for_start(&path, true, false).err().expect("refused").to_string();
        assert!(err.contains(&format!("run `chmod 600 {}`", path.display())) && err.contains("0644"), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(for_start(&path, true, false).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }

    /// The refusal of a key open to others reads as the string it replaced,
    /// byte for byte (operators and tests match on it).
    #[test]
    fn the_open_key_refusal_reads_as_before() {
        let e = KeyFileError::OpenToOthers { path: "/k".into(), mode: 0o644 };
        assert_eq!(
            e.to_string(),
            "/k: the signing key is open to other users (mode 0644): anyone who can read it can sign as the server; \
             run `chmod 600 /k`, then start again"
        );
    }
}
