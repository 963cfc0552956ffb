//! `baccarat backup`: a consistent copy of a SQLite casino while its server
//! serves (`baccarat_core::backup`), into a directory restored by copying
//! it back; what it wrote said in words or as JSON. A PostgreSQL casino is
//! backed up with its own tools (docs/backup.md).

use baccarat_core::TableId;
use std::path::PathBuf;

use anyhow::{bail, Result};
use baccarat_core::backup::{backup, Report, Request};

#[derive(clap::Args)]
pub struct BackupArgs {
    /// The casino's database (a SQLite file; it may be serving).
    #[arg(long, env = "BACCARAT_DB", default_value = "baccarat.db")]
    db: PathBuf,
    /// Where to write the backup: a new or empty directory.
    #[arg(long)]
    to: PathBuf,
    /// The anchor file [default: the database's path with `.anchors` added].
    #[arg(long, env = "BACCARAT_ANCHOR_FILE")]
    anchor_file: Option<PathBuf>,
    /// The signing key file [default: the database's path with `.key` added];
    /// its public key is written to the backup.
    #[arg(long, env = "BACCARAT_KEY_FILE")]
    key_file: Option<PathBuf>,
    /// Copy the signing key too: whoever holds the backup can then sign
    /// anchor lines and checkpoints as the server.
    #[arg(long)]
    include_key: bool,
    /// Print what was written as one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(a: BackupArgs) -> Result<()> {
    if let Some(d) = a.db.to_str().filter(|d| d.starts_with("postgres://") || d.starts_with("postgresql://")) {
        let shown = baccarat_core::store::Db::parse(d).shown();
        bail!(
            "--db: {shown} is a PostgreSQL casino: back it up with pg_dump (or pg_basebackup) and copy its anchor \
             files and key beside it, as docs/backup.md (\"PostgreSQL\") says step by step"
        );
    }
    let (anchors, key) = baccarat_core::anchor::default_paths(&a.db);
    let anchor_file = a.anchor_file.clone().unwrap_or(anchors);
    let key_file = a.key_file.clone().unwrap_or(key);
    let req =
        Request { db: &a.db, anchor_file: &anchor_file, key_file: &key_file, to: &a.to, include_key: a.include_key };
    if a.include_key {
        eprintln!(
            "warning: --include-key: the backup holds the signing key; whoever holds the backup can sign anchor lines \
             and checkpoints as this casino's server. Keep it as you keep the key."
        );
    }
    let report = backup(&req)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print_report(&report);
    }
    Ok(())
}

fn print_report(r: &Report) {
    println!("backup written to {}:", r.dir.display());
    for f in &r.files {
        println!("  {:<14} {} ({} bytes)", f.what, f.file.display(), f.bytes);
    }
    let records: u64 = r.chains.values().sum();
    println!("the database holds {} chains, {records} records:", r.chains.len());
    for (t, n) in &r.chains {
        let signed = r.anchored.get(t).copied().unwrap_or(0);
        let name = if *t == TableId(0) { "the casino".to_string() } else { format!("table {t}") };
        println!("  {name}: {n} records, {signed} of them signed by the anchor file");
    }
    println!(
        "the anchor file is copied up to line {}; {} later lines were left out (written after the database's copy)",
        r.anchor_lines, r.lines_after
    );
    println!("public key {} (written beside the database; pin it with verify --anchor-key)", r.public_key);
    if r.key_included {
        println!("the signing key is in the backup");
    } else {
        println!("the signing key is not in the backup: a restore needs the original key file beside the database");
    }
    for p in &r.archives_elsewhere {
        println!(
            "note: archive {} is registered at an absolute path and was not copied: copy it yourself",
            p.display()
        );
    }
    println!("to restore: stop the server, copy these files back beside the database (docs/backup.md)");
}
