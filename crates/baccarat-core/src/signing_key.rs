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

use std::path::Path;

use crate::anchor::AnchorKey;

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
pub fn for_start(path: &Path, has_casino: bool, new_anchor_file: bool) -> Result<StartKey, String> {
    match std::fs::metadata(path) {
        Ok(_) => {
            private(path)?;
            Ok(StartKey { key: AnchorKey::load(path).map_err(|e| e.to_string())?, new: false })
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if has_casino && !new_anchor_file {
                return Err(missing(path));
            }
            if has_casino {
                eprintln!(
                    "warning: --new-anchor-file: the signing key {} is missing; a new one is made, and the old \
                     anchor file and checkpoints cannot be checked with it",
                    path.display()
                );
            }
            Ok(StartKey { key: AnchorKey::generate(path).map_err(|e| e.to_string())?, new: true })
        }
        Err(e) => Err(format!("{}: the signing key: {e}", path.display())),
    }
}

/// The key to sign with from the start's first write on: a key
/// [`for_start`] made is written now (mode 0600). If another process wrote
/// a key at `path` meanwhile (servers of a new casino's partitions sharing
/// one key file, started together), that one is used, as
/// `AnchorKey::load_or_create` does: nothing was yet signed with this one,
/// and nothing it checked was found good.
pub fn save(key: &StartKey, path: &Path) -> Result<AnchorKey, String> {
    if !key.new {
        return Ok(key.key.clone());
    }
    match key.key.save_new(path) {
        Ok(()) => Ok(key.key.clone()),
        Err(crate::anchor::AnchorError::Io { source, .. }) if source.kind() == std::io::ErrorKind::AlreadyExists => {
            private(path)?;
            AnchorKey::load(path).map_err(|e| e.to_string())
        }
        Err(e) => Err(format!("{e} (the signing key, made by this start)")),
    }
}

/// The key at `path`, for a reader that signs with it after the start (the
/// forwarder, `forward.rs`): refused as [`for_start`] refuses it when open
/// to other users.
pub fn load_private(path: &Path) -> Result<AnchorKey, String> {
    private(path)?;
    AnchorKey::load(path).map_err(|e| e.to_string())
}

/// The refusal of a start whose casino exists and whose key is missing.
fn missing(path: &Path) -> String {
    format!(
        "{0}: the signing key is missing, but the database holds a casino whose anchor file and checkpoints it \
         signed (a new key would sign nothing they can be checked against): restore the key file from a copy, or \
         name it with --key-file (BACCARAT_KEY_FILE); if it is lost for good, move the anchor file aside (keep \
         it) and start once with --new-anchor-file, which makes a new key and begins a new anchor file",
        path.display()
    )
}

/// Refuse a key file that its group or others may read, write or run.
#[cfg(unix)]
fn private(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?.permissions().mode();
    if mode & 0o077 != 0 {
        return Err(format!(
            "{0}: the signing key is open to other users (mode {1:04o}): anyone who can read it can sign as the \
             server; run `chmod 600 {0}`, then start again",
            path.display(),
            mode & 0o7777
        ));
    }
    Ok(())
}

/// Elsewhere than unix the file's access is the operating system's to keep.
#[cfg(not(unix))]
fn private(_: &Path) -> Result<(), String> {
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
        let err = for_start(&path, true, false).err().expect("refused");
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
        let err = for_start(&path, true, false).err().expect("refused");
        assert!(err.contains(&format!("run `chmod 600 {}`", path.display())) && err.contains("0644"), "{err}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        assert!(for_start(&path, true, false).is_ok());
        let _ = std::fs::remove_dir_all(&d);
    }
}
