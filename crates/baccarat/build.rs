//! The commit the binary was built from and its build date, for
//! `baccarat --version` (issue 48: an operator and an inspector can tell
//! which code runs, and since when). Read from git when the source is a git
//! checkout; the commit is "unknown" otherwise (a source tarball). Nothing
//! is downloaded.
//!
//! The date is the same for the same source, so that a build can be
//! reproduced: `SOURCE_DATE_EPOCH` when set (the reproducible-builds
//! convention, which Debian's tools set), else the commit's own date from
//! git, else (no git) the day the build ran. Always a UTC day, YYYY-MM-DD.

use std::path::Path;
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BACCARAT_COMMIT={commit}");
    println!("cargo:rustc-env=BACCARAT_BUILD_DATE={}", build_date());
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    // Run again when HEAD moves. Only paths that exist are named: a path
    // that does not would run this script, and rebuild the crate, every time.
    for p in ["../../.git/HEAD", "../../.git/refs/heads", "../../.git/packed-refs"] {
        if Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}

/// What `git ARGS` prints, trimmed; none if git is absent, fails or prints
/// nothing.
fn git(args: &[&str]) -> Option<String> {
    let o = Command::new("git").args(args).output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&o.stdout).trim().to_string()).filter(|s| !s.is_empty())
}

/// The build's date (see the module's notes), in seconds since the epoch,
/// as a UTC day.
fn build_date() -> String {
    let from_env = std::env::var("SOURCE_DATE_EPOCH").ok().and_then(|s| s.trim().parse::<i64>().ok());
    let from_git = || git(&["log", "-1", "--format=%ct", "HEAD"]).and_then(|s| s.parse::<i64>().ok());
    let now = || SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let secs = from_env.or_else(from_git).unwrap_or_else(now);
    let (y, m, d) = civil(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard
/// Hinnant's `civil_from_days`).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}
