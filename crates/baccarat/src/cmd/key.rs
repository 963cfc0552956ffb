//! `baccarat key`: the server's signing key. `show` prints its public key,
//! for the operator to publish and an inspector to pin (`verify
//! --anchor-key`); the private key is never printed. `rotate` makes a new
//! key, with the server stopped (`baccarat_server::key_rotation`), and the
//! anchor file's rotation line hands the old key's trust to it, so that the
//! key first published still verifies the whole file (docs/keys.md).

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};

#[derive(clap::Subcommand)]
pub enum KeyCommand {
    /// Print the server's public key (64 hex digits, as `verify --anchor-key`
    /// takes it) to publish and pin; never the private key. Notes on stderr
    /// say which file it is and any rotation in the anchor file.
    Show(ShowArgs),
    /// Make a new signing key, with the server stopped: a rotation line in
    /// the anchor file signed by the old key and countersigned by the new;
    /// the latest checkpoint sealed anew; the old key kept as
    /// `<key>.retired-N`; the new one put in place. SQLite only.
    Rotate(RotateArgs),
}

#[derive(clap::Args)]
pub struct Paths {
    /// The casino's database (a SQLite file); the key and anchor files
    /// default to its path with `.key` and `.anchors` added.
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// The signing key's file [default: the database's path with `.key` added].
    #[arg(long, env = "BACCARAT_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// The anchor file [default: the database's path with `.anchors` added].
    #[arg(long)]
    anchor_file: Option<PathBuf>,
}

impl Paths {
    /// (anchor file, key file). A PostgreSQL URL has no file beside it.
    fn resolve(&self) -> Result<(Option<PathBuf>, PathBuf)> {
        let db = self.db.to_string_lossy();
        if db.starts_with("postgres://") || db.starts_with("postgresql://") {
            let Some(key) = self.key_file.clone() else {
                bail!("--key-file: required with a PostgreSQL --db (a URL has no file beside it)");
            };
            return Ok((self.anchor_file.clone(), key));
        }
        let (anchors, key) = baccarat_core::anchor::default_paths(&self.db);
        Ok((Some(self.anchor_file.clone().unwrap_or(anchors)), self.key_file.clone().unwrap_or(key)))
    }
}

#[derive(clap::Args)]
pub struct ShowArgs {
    #[command(flatten)]
    paths: Paths,
    /// Print one JSON object: the key, its file, and the rotations the
    /// anchor file names.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args)]
pub struct RotateArgs {
    #[command(flatten)]
    paths: Paths,
}

pub fn run(c: KeyCommand) -> Result<()> {
    match c {
        KeyCommand::Show(a) => show(a),
        KeyCommand::Rotate(a) => rotate(a),
    }
}

fn show(a: ShowArgs) -> Result<()> {
    let (anchors, key_path) = a.paths.resolve()?;
    if !key_path.exists() {
        bail!("{}: the signing key is missing (name it with --key-file)", key_path.display());
    }
    let public = baccarat_core::anchor::AnchorKey::load(&key_path)?.public_hex();
    // The anchor file's rotations, when it can be read: the key to pin is
    // the first, and a server's key that is not the key in force is named.
    let read = anchors.as_deref().filter(|p| p.exists()).map(|p| baccarat_core::anchor::read(p, None));
    let (rotations, in_force) = match &read {
        Some(Ok(a)) => (a.rotations.clone(), Some(a.public.clone())),
        _ => (Vec::new(), None),
    };
    let first = rotations.first().map_or(public.clone(), |r| r.from.clone());
    if a.json {
        let rotations: Vec<_> =
            rotations.iter().map(|r| serde_json::json!({ "line": r.line, "from": r.from, "to": r.to })).collect();
        println!(
            "{}",
            serde_json::json!({
                "public_key": public,
                "key_file": key_path.display().to_string(),
                "anchor_file": anchors.as_ref().map(|p| p.display().to_string()),
                "first_key": first,
                "rotations": rotations,
                "anchor_key_in_force": in_force,
            })
        );
    } else {
        println!("{public}");
        notes(&key_path, anchors.as_deref(), &public, &first, &rotations);
    }
    if let (Some(Err(e)), false) = (&read, a.json) {
        eprintln!("note: the anchor file could not be read: {e}");
    }
    if in_force.as_ref().is_some_and(|k| *k != public) {
        bail!("{}: this key is not the one the anchor file's lines are signed by now", key_path.display());
    }
    Ok(())
}

/// What `show` says about the key on stderr, for a person.
fn notes(key: &Path, anchors: Option<&Path>, public: &str, first: &str, rotations: &[baccarat_core::anchor::Rotation]) {
    eprintln!("the public key of {} (publish it; an inspector pins it: verify --anchor-key {public})", key.display());
    if let (Some(p), false) = (anchors, rotations.is_empty()) {
        eprintln!("{} was begun under {first}, which verifies it across its rotations:", p.display());
        for r in rotations {
            eprintln!("  line {}: rotated from {} to {}", r.line, r.from, r.to);
        }
    }
}

fn rotate(a: RotateArgs) -> Result<()> {
    let (anchors, key_path) = a.paths.resolve()?;
    let Some(anchors) = anchors else {
        bail!("{}", baccarat_server::key_rotation::RotateError::Postgres);
    };
    let r = baccarat_server::key_rotation::rotate(&a.paths.db, &key_path, &anchors)?;
    println!("rotated the signing key of {}: {} -> {}", a.paths.db.display(), r.old, r.new);
    println!("{}: line {} hands over to the new key (signed by both)", anchors.display(), r.line);
    println!("the old key is kept in {} (private: move it offline, do not delete it yet)", r.retired.display());
    match r.checkpoint {
        Some(id) => println!("the latest checkpoint is sealed anew under the new key (checkpoint {id})"),
        None => println!("no checkpoint to seal anew"),
    }
    println!("publish the new public key beside the first; a pin of the first still verifies: start the server again");
    Ok(())
}
