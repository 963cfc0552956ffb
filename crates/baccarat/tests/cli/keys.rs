//! `baccarat key show` and `key rotate` (docs/keys.md): the key `show`
//! prints is the one `verify` pins; two rotations with play between, and
//! the first key pinned still verifies the whole history; a line signed by
//! a retired key after its rotation is caught; a rotation beside a serving
//! server, or without its key file, is refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use sha2::{Digest, Sha256};

use crate::common::TempDir;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_baccarat")
}

fn run(args: &[&str]) -> Output {
    Command::new(bin()).args(args).env_remove("BACCARAT_DB").env_remove("BACCARAT_KEY_FILE").output().unwrap()
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

/// `key show`'s stdout: the public key alone.
fn show(db: &Path) -> String {
    let o = run(&["key", "show", "--db", db.to_str().unwrap()]);
    assert!(o.status.success(), "key show: {}", text(&o));
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().count(), 1, "the key alone on stdout: {out}");
    out.trim().to_string()
}

fn verify(db: &Path, args: &[&str]) -> (bool, String) {
    let mut all = vec!["verify", "--db", db.to_str().unwrap()];
    all.extend_from_slice(args);
    let o = run(&all);
    (o.status.success(), text(&o))
}

/// Serve `db`, play a second of `loadgen` on it, and stop it cleanly (the
/// stop's checkpoint written). `first`: a first run (else the start must
/// read the latest checkpoint, sealed anew by a rotation).
fn serve_and_play(db: &Path, first: bool) {
    let serve = ["serve", "--db", db.to_str().unwrap(), "--addr", "127.0.0.1:0", "--betting-seconds", "1"];
    let serve: Vec<&str> = serve.into_iter().chain(["--deal-ms", "150", "--result-ms", "100"]).collect();
    let (server, rx) = crate::common::spawn(&serve);
    if !first {
        let from = crate::common::until_line(&rx, 30, |l| l.strip_prefix("recovered ").map(str::to_string));
        assert!(from.contains("from the latest checkpoint"), "the resealed checkpoint is read: {from}");
    }
    let url = crate::common::until_line(&rx, 30, |l| {
        l.strip_prefix("baccarat table server on ")
            .map(|r| r.split_whitespace().next().unwrap().trim_end_matches('/').to_string())
    });
    let o = run(&[
        "loadgen",
        "--url",
        &url,
        "--admin-password",
        crate::common::ADMIN_PASSWORD,
        "--seconds",
        "1",
        "--tables",
        "1",
    ]);
    assert!(o.status.success(), "loadgen: {}", text(&o));
    let status = server.terminate();
    assert!(status.success(), "a clean stop: {status}");
}

fn rotate(db: &Path) -> Output {
    run(&["key", "rotate", "--db", db.to_str().unwrap()])
}

fn path_with(db: &Path, suffix: &str) -> PathBuf {
    PathBuf::from(format!("{}{suffix}", db.display()))
}

/// The attack: a line signed by `key` (a retired key, read from its kept
/// file) appended after the file's last line, with the right seq and prev
/// and the heads of the last line that named any. Returns its line number.
fn forge_line(anchors: &Path, key: &Path) -> u64 {
    let body = std::fs::read_to_string(anchors).unwrap();
    let lines: Vec<&str> = body.lines().collect();
    let last = lines.last().unwrap();
    let seq =
        lines.len() as u64 + serde_json::from_str::<serde_json::Value>(lines[0]).unwrap()["seq"].as_u64().unwrap();
    let heads = lines
        .iter()
        .rev()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["heads"].clone())
        .find(|h| h.as_array().is_some_and(|a| !a.is_empty()))
        .unwrap();
    let heads: Vec<String> = heads
        .as_array()
        .unwrap()
        .iter()
        .map(|h| format!("{{\"table\":{},\"len\":{},\"head\":{}}}", h["table"], h["len"], h["head"]))
        .collect();
    let key = baccarat_core::anchor::AnchorKey::load(key).unwrap();
    let prev = baccarat_table::hex(&Sha256::digest(last.as_bytes()));
    let unsigned = format!(
        "{{\"seq\":{seq},\"prev\":\"{prev}\",\"public\":\"{}\",\"heads\":[{}]}}",
        key.public_hex(),
        heads.join(",")
    );
    let sig = key.sign(&[b"baccarat-anchor-v1".as_slice(), unsigned.as_bytes()].concat());
    let line = format!("{},\"sig\":\"{sig}\"}}\n", &unsigned[..unsigned.len() - 1]);
    std::fs::write(anchors, format!("{body}{line}")).unwrap();
    seq
}

#[test]
fn two_rotations_verify_under_the_first_key_and_a_retired_key_cannot_forge() {
    let dir = TempDir::new(&format!("baccarat-keys-{}", std::process::id()));
    let db = dir.join("casino.db");
    serve_and_play(&db, true);
    let k1 = show(&db);
    assert_eq!(k1.len(), 64, "{k1}");
    let (ok, out) = verify(&db, &["--anchor-key", &k1]);
    assert!(ok && out.contains(&format!("anchors signed by the pinned key {k1}")), "{out}");

    let o = rotate(&db);
    assert!(o.status.success(), "key rotate: {}", text(&o));
    let k2 = show(&db);
    assert_ne!(k1, k2);
    let retired = path_with(&db, ".key.retired-1");
    assert!(text(&o).contains(&retired.display().to_string()), "{}", text(&o));
    assert_eq!(baccarat_core::anchor::AnchorKey::load(&retired).unwrap().public_hex(), k1);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&retired).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "the retired key is readable by its owner only: {mode:o}");
    }
    serve_and_play(&db, false);
    assert!(rotate(&db).status.success());
    let k3 = show(&db);
    serve_and_play(&db, false);

    let (ok, out) = verify(&db, &["--full", "--anchor-key", &k1]);
    assert!(ok, "the first key pinned verifies across two rotations: {out}");
    for (from, to) in [(&k1, &k2), (&k2, &k3)] {
        assert!(out.contains(&format!("rotated from {from} to {to}")), "{out}");
    }
    assert!(out.contains(&format!("the key in force is {k3}")), "{out}");
    let (ok, out) = verify(&db, &["--since-checkpoint", "--anchor-key", &k1]);
    assert!(ok, "since the checkpoint, sealed by the key in force: {out}");
    let other = baccarat_core::anchor::AnchorKey::load_or_create(&dir.join("other.key")).unwrap().public_hex();
    let (ok, out) = verify(&db, &["--anchor-key", &other]);
    assert!(!ok && out.contains("not the trusted key"), "a key not in the chain: {out}");

    // The attack: the second key, retired, signs a line after its rotation.
    let anchors = path_with(&db, ".anchors");
    let line = forge_line(&anchors, &path_with(&db, ".key.retired-2"));
    let (ok, out) = verify(&db, &["--full", "--anchor-key", &k1]);
    assert!(!ok, "the forgery fails verify: {out}");
    assert!(out.contains(&format!("line {line}: signed by key {k2}")) && out.contains("is a forgery"), "{out}");
}

#[test]
fn a_rotation_beside_a_serving_server_or_without_its_key_is_refused() {
    let dir = TempDir::new(&format!("baccarat-keys-refused-{}", std::process::id()));
    let db = dir.join("casino.db");
    let (server, _url, _) = crate::common::start(&db, &[]);
    let k1 = show(&db);
    let o = rotate(&db);
    assert!(!o.status.success(), "refused while serving");
    let out = text(&o);
    assert!(out.contains("another server holds this casino") && out.contains("key rotate is offline"), "{out}");
    assert_eq!(show(&db), k1, "nothing rotated");
    assert!(!path_with(&db, ".key.new").exists());
    drop(server); // killed and waited for: its lock goes with its process

    let key = path_with(&db, ".key");
    std::fs::rename(&key, path_with(&db, ".key.aside")).unwrap();
    let o = rotate(&db);
    let out = text(&o);
    assert!(!o.status.success(), "{out}");
    assert!(out.contains(&format!("{}: the signing key is missing", key.display())), "{out}");
    assert!(!key.exists() && !path_with(&db, ".key.new").exists(), "no key made: {out}");
}
