//! The first admin's password, on a fresh database only (issue 47).
//!
//! A real casino is born with one admin and nothing else. Their password is
//! the operator's, given by `--admin-password-file` or
//! `BACCARAT_ADMIN_PASSWORD`; without either it is made here and written
//! once to a file only its owner may read (`<db>.admin-password`), whose
//! path is printed. It is never printed itself: a start's output goes to
//! journals and terminals that others read. A casino that exists ignores
//! both (its admins change passwords through the API).
//!
//! The rulebooks say nothing of the system's accounts; the rule chosen is
//! the common one for a service's root credential: at least 12 characters
//! when the operator gives it, 128 random bits when made here.

use std::io::Write;
use std::path::{Path, PathBuf};

/// The first admin's user name.
pub const ADMIN_NAME: &str = "admin";

/// The fewest characters an operator's first admin password may have.
pub const MIN_ADMIN_PASSWORD: usize = 12;

/// Where the operator's password for the first admin is: read only by a
/// first run, so that a casino that exists starts without it (an operator
/// may remove the file once the casino is made).
#[derive(Clone)]
pub enum PasswordSource {
    /// `--admin-password-file`: its first line.
    File(PathBuf),
    /// `BACCARAT_ADMIN_PASSWORD`, as text.
    Env(String),
}

impl std::fmt::Debug for PasswordSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PasswordSource({}, redacted)", self.from())
    }
}

/// Why the first admin's password could not be had.
#[derive(Debug, thiserror::Error)]
pub enum FirstAdminError {
    #[error(
        "{from}: the first admin's password must have at least {MIN_ADMIN_PASSWORD} characters and at most 128 bytes"
    )]
    Weak { from: String },
    #[error("--admin-password-file {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: could not write the first admin's password: {source}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl PasswordSource {
    /// Where it comes from, as an operator named it (never the password).
    pub fn from(&self) -> String {
        match self {
            PasswordSource::File(p) => format!("--admin-password-file {}", p.display()),
            PasswordSource::Env(_) => "BACCARAT_ADMIN_PASSWORD".to_string(),
        }
    }

    /// The password: a file's first line without its line ending; refused
    /// if too short or too long.
    pub fn read(&self) -> Result<String, FirstAdminError> {
        let secret = match self {
            PasswordSource::Env(s) => s.clone(),
            PasswordSource::File(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|source| FirstAdminError::Read { path: path.clone(), source })?;
                let line = text.strip_suffix('\n').unwrap_or(&text);
                line.strip_suffix('\r').unwrap_or(line).to_string()
            }
        };
        if secret.chars().count() < MIN_ADMIN_PASSWORD || secret.len() > 128 {
            return Err(FirstAdminError::Weak { from: self.from() });
        }
        Ok(secret)
    }
}

/// The first admin's password as a start has it.
pub enum FirstPassword {
    /// The operator's, and where it came from.
    Given { secret: String, from: String },
    /// Made by this start and written to this file.
    Made { secret: String, file: PathBuf },
}

impl FirstPassword {
    /// The password.
    pub fn secret(&self) -> &str {
        match self {
            FirstPassword::Given { secret, .. } => secret,
            FirstPassword::Made { secret, .. } => secret,
        }
    }

    /// Where the operator finds it, for the start's output.
    pub fn told(&self) -> String {
        match self {
            FirstPassword::Given { from, .. } => format!("the password from {from}"),
            FirstPassword::Made { file, .. } => {
                format!("the password written to {} (readable only by you; shown nowhere else)", file.display())
            }
        }
    }

    /// Undo [`first_password`]'s file (another server made the admin first).
    pub fn discard(&self) {
        if let FirstPassword::Made { file, .. } = self {
            let _ = std::fs::remove_file(file);
        }
    }
}

/// Where a made password is written: beside the database.
pub fn password_path(db: &Path) -> PathBuf {
    PathBuf::from(format!("{}.admin-password", db.display()))
}

/// The given password, or one made (128 random bits) and written to
/// [`password_path`] before any admin holds it: a start that fails later
/// leaves a file nobody's password, never an admin nobody can sign in as.
pub fn first_password(given: Option<&PasswordSource>, db: &Path) -> Result<FirstPassword, FirstAdminError> {
    if let Some(g) = given {
        return Ok(FirstPassword::Given { secret: g.read()?, from: g.from() });
    }
    let secret = baccarat_core::random_hex(16);
    let file = password_path(db);
    write_private(&file, &secret).map_err(|source| FirstAdminError::Write { path: file.clone(), source })?;
    Ok(FirstPassword::Made { secret, file })
}

/// Write `secret` to `path`, readable and writable by its owner only: made
/// beside it under another name and renamed over it, so that no reader sees
/// it half written and a link left at `path` is replaced, not followed.
fn write_private(path: &Path, secret: &str) -> std::io::Result<()> {
    let tmp = PathBuf::from(format!("{}.tmp", path.display()));
    let _ = std::fs::remove_file(&tmp);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut f = options.open(&tmp)?;
    f.write_all(secret.as_bytes())?;
    f.write_all(b"\n")?;
    f.sync_all()?;
    std::fs::rename(&tmp, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir() -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("first-admin-{}-{}", std::process::id(), baccarat_core::random_hex(4)));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_short_password_is_refused_naming_its_source_not_itself() {
        let e = PasswordSource::Env("short-pass".into()).read().unwrap_err().to_string();
        assert!(e.starts_with("BACCARAT_ADMIN_PASSWORD: "), "{e}");
        assert!(!e.contains("short-pass"), "{e}");
        assert_eq!(PasswordSource::Env("twelve-chars".into()).read().unwrap(), "twelve-chars");
        assert!(PasswordSource::Env("x".repeat(129)).read().is_err());
    }

    #[test]
    fn a_file_gives_its_first_line_without_the_line_ending() {
        let d = dir();
        let p = d.join("pw");
        std::fs::write(&p, "correct horse battery\r\n").unwrap();
        let g = PasswordSource::File(p.clone());
        assert_eq!(g.read().unwrap(), "correct horse battery");
        let shown = format!("{:?}", PasswordSource::Env("correct horse".into()));
        assert!(shown.contains("redacted") && !shown.contains("horse"), "{shown}");
        let missing = PasswordSource::File(d.join("none")).read().unwrap_err().to_string();
        assert!(missing.starts_with("--admin-password-file "), "{missing}");
        let given = first_password(Some(&g), &d.join("casino.db")).unwrap();
        assert_eq!(given.secret(), "correct horse battery");
        assert!(!password_path(&d.join("casino.db")).exists(), "a given password is written nowhere");
        std::fs::remove_dir_all(d).unwrap();
    }

    #[test]
    fn a_made_password_is_written_for_its_owner_alone() {
        let d = dir();
        let db = d.join("casino.db");
        // A link left where the file goes is replaced, not followed.
        #[cfg(unix)]
        std::os::unix::fs::symlink(d.join("elsewhere"), password_path(&db)).unwrap();
        let made = first_password(None, &db).unwrap();
        let FirstPassword::Made { secret, file } = &made else { panic!("made") };
        assert_eq!(secret.len(), 32);
        assert_eq!(std::fs::read_to_string(file).unwrap(), format!("{secret}\n"));
        assert!(!d.join("elsewhere").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(file).unwrap().permissions().mode() & 0o777, 0o600);
        }
        assert!(made.told().contains(&file.display().to_string()) && !made.told().contains(secret.as_str()));
        made.discard();
        assert!(!file.exists());
        std::fs::remove_dir_all(d).unwrap();
    }
}
