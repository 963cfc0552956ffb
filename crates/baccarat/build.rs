//! The commit the binary was built from, for `baccarat --version` (issue 48:
//! an operator and an inspector can tell which code runs). Read from git
//! when the source is a git checkout; "unknown" otherwise (a source
//! tarball). Nothing is downloaded.

use std::path::Path;
use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=BACCARAT_COMMIT={commit}");
    // Run again when HEAD moves. Only paths that exist are named: a path
    // that does not would run this script, and rebuild the crate, every time.
    for p in ["../../.git/HEAD", "../../.git/refs/heads", "../../.git/packed-refs"] {
        if Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
