//! A test's own temporary directory, removed when the test passes and kept
//! when it fails. One file for both crates' integration tests (the server's
//! in-process tests and the `baccarat` command's), included by path.

use std::path::{Path, PathBuf};

/// A test's own directory under the system temp dir, `name` (unique among the
/// tests that run at once), created empty. Dropped, it is removed, unless the
/// test is failing (a panic): then it stays, to be looked at. Declare it before
/// a server process that uses it, so that the server is killed first.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}
