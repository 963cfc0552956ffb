//! The throwaway PostgreSQL cluster the tests run against, started once per
//! test process by `scripts/postgres.sh` (which installs PostgreSQL from
//! Debian's packages if it is missing) on a Unix socket, in the directory the
//! script picks: `BACCARAT_PG_DIR`, else one under `/tmp` named for the
//! checkout. Not inside the checkout: as root the cluster runs as the
//! `postgres` user, who cannot enter a checkout under a private directory
//! (issue 45 finding 14). `BACCARAT_TEST_PG` points the tests at another
//! server instead. Shared by the server crate's tests and the command's
//! (`#[path]`).

use std::sync::OnceLock;

/// The cluster's URL (its `postgres` database).
pub fn cluster() -> &'static str {
    static URL: OnceLock<String> = OnceLock::new();
    URL.get_or_init(|| {
        if let Ok(url) = std::env::var("BACCARAT_TEST_PG") {
            return url;
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        // No directory: the script's own (and `.ci/run`'s `stop`), the same
        // for both crates' tests.
        let out = std::process::Command::new("bash")
            .arg(root.join("scripts/postgres.sh"))
            .arg("start")
            .output()
            .expect("run scripts/postgres.sh");
        assert!(out.status.success(), "scripts/postgres.sh start: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    })
}

/// A new, empty database `name` on the cluster (dropped first if a run
/// before left it); its URL.
pub fn database(name: &str) -> String {
    let base = cluster();
    let mut c = postgres::Client::connect(base, postgres::NoTls).expect("connect to the test cluster");
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}")).unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let (server, _) = base.rsplit_once('/').expect("a URL ending in its database");
    format!("{server}/{name}")
}
