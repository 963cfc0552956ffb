//! What a start checks before it writes anything (`serve::open_leased`).
//!
//! A start that will be refused writes nothing of the casino's (issue 45,
//! finding 8): every check that can refuse it runs first, in this order, and
//! the first write (a new key saved, the anchor file opened for appending,
//! the key index caught up, the interrupted coups completed) comes after the
//! last of them. The one exception is the schema's: opening the store brings
//! an older schema up to this binary's (item 2) before items 3-6, as any
//! start of this binary would; it adds tables and columns, and no record.
//!
//! 1. the casino's lock (SQLite: `db_lock.rs`), before anything is read;
//! 2. the schema: one newer than this binary is refused as the store opens,
//!    before it writes (`store/migrations.rs`; PostgreSQL likewise). Opening
//!    then applies this binary's pending migrations, as every start has;
//! 3. the signing key: missing for a casino that exists, or open to other
//!    users (`signing_key.rs`);
//! 4. the anchor file: missing or empty for a casino that exists (or beside
//!    segments of it), behind the latest checkpoint's mark, or failing its
//!    signatures; or there, not empty, under `--new-anchor-file`;
//! 5. the chains against the anchor file (under `--new-anchor-file`, against
//!    the database's copy of the lost file's lines, on PostgreSQL): a cut in
//!    the casino's own chain (a table's cut is named, and the table is not
//!    served);
//! 6. recovery itself: a chain that does not link, a balance its transfers
//!    do not give (`casino/recover.rs`: it only reads).
//!
//! Items 3-5 are here; `serve::open_leased` takes the lock and opens the
//! store before them, and runs item 6 after them and before its first
//! write (a key this start made, then the anchor file opened for
//! appending). What can fail after that is the machine (a file, a
//! connection), not a check. Finishing an anchor rotation that a crash cut
//! between its two renames (`anchor/segments.rs`) is done before item 4
//! reads the file: it renames a file into place, and changes no line. On
//! PostgreSQL, lines the database's copy has past the file's end are
//! written back to the file before item 4 reads it
//! (`anchor_copy::restore_file`): only lines that verify as the file's own
//! continuation, signed by its key, which any start would write back; a
//! copy whose lines do not continue the file refuses the start, unwritten.
//!
//! A PostgreSQL start checks alike, after the lease (`lease.rs`) instead of
//! the lock; a partition also reads the bank before its first write.

use baccarat_core::TableId;
use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::anchor::{AnchorMark, Anchored};
use crate::casino::checkpoint::Checkpoint;
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;
use crate::store::History;
use baccarat_cluster::AnyStore;
use baccarat_core::signing_key::StartKey;

/// What the checks found, for the start to go on with.
pub struct Checked {
    /// Whether the database holds a casino (else this is a first run).
    pub has_casino: bool,
    /// The signing key (made by this start and not yet written, on a first
    /// run: `signing_key::save` writes it at the first write).
    pub key: StartKey,
    pub anchor_path: PathBuf,
    pub key_path: PathBuf,
    /// The latest checkpoint, checked and opened, if usable.
    pub checkpoint: Option<Checkpoint>,
    /// Why the latest checkpoint was not used, if it was not.
    pub refused_checkpoint: Option<String>,
    /// Where the checkpoint saw the anchor file.
    pub mark: Option<AnchorMark>,
    /// The anchor file is missing or empty (`--new-anchor-file` begins one).
    pub lost: bool,
    /// What the anchor file signed, if there is one.
    pub anchored: Option<Anchored>,
    /// Tables whose chains were cut or rewritten: not served.
    pub skip: BTreeSet<TableId>,
}

/// Run checks 3-5 (see the module's notes) on the opened `store`.
pub fn check(cfg: &ServeConfig, store: &AnyStore) -> Result<Checked, ServeError> {
    // A casino has tables, or at least its own chain (an empty casino: its
    // founding, `founding.rs`).
    let has_casino =
        !History::tables(store)?.is_empty() || History::record_at(store, crate::audit::CASINO_CHAIN, 1)?.is_some();
    let (anchor_path, key_path) = cfg.anchor_paths();
    // (A rotation a crash cut between its renames is finished first.)
    crate::anchor::finish_rotation(&anchor_path)
        .map_err(|source| ServeError::AnchorRotation { path: anchor_path.clone(), source })?;
    let lost = std::fs::metadata(&anchor_path).map_or(true, |m| m.len() == 0);
    let key = baccarat_core::signing_key::for_start(&key_path, has_casino, lost && cfg.new_anchor_file)
        .map_err(ServeError::key)?;
    // `--new-anchor-file` begins a file only where the old one is lost: it
    // was ignored beside a file that exists (issue 48), and the start then
    // went on with the old file as if the flag had not been given.
    if cfg.new_anchor_file && !lost {
        return Err(ServeError::NewAnchorFileExists(anchor_path));
    }
    let public = key.key.public_hex();
    // The latest checkpoint, checked, first: it says where the anchor file
    // stood, so only the anchor lines after it are verified now.
    let mut refused_checkpoint = None;
    let checkpoint = match store.latest_checkpoint()? {
        None => None,
        Some(stored) => match crate::casino::checkpoint::open(&stored, &public) {
            Ok(cp) => Some(cp),
            Err(why) => {
                tracing::warn!("the latest checkpoint is not used ({why}); replaying the whole history instead");
                refused_checkpoint = Some(why.to_string());
                None
            }
        },
    };
    let mark = checkpoint.as_ref().and_then(|c| c.anchor.clone());
    // A casino with no anchor file (or an empty one) is not signed anew
    // silently: a forger who cut its chains and deleted the file would have
    // the server sign the cut as if nothing had been there.
    if lost && has_casino && !cfg.new_anchor_file {
        return Err(ServeError::AnchorFileLost(anchor_path));
    }
    // Nor is a new casino begun under an anchor file that signs another: a
    // forger who deleted (or swapped) the database would have the new
    // casino's heads follow the old ones in the file, and the wipe pass as
    // a casino that was always there.
    if !lost && !has_casino {
        return Err(ServeError::AnchorFileOfAnother(anchor_path));
    }
    // Nor is one begun anew beside segments of the old (`anchor/segments.rs`).
    crate::anchor::refuse_orphaned(&anchor_path)?;
    if has_casino && !lost {
        crate::anchor_copy::restore_file(store, &anchor_path, &key.key, mark.as_ref())?;
    }
    let anchored = anchored(store, (lost, has_casino), &anchor_path, &public, mark.as_ref())?;
    if let (Some(m), Some(a), false) = (&mark, &anchored, lost) {
        if let Some(why) = m.behind(a) {
            return Err(ServeError::AnchorBehind { path: anchor_path, why });
        }
    }
    let skip = match (&anchored, has_casino) {
        (Some(a), true) => cut_tables(store, a)?,
        _ => BTreeSet::new(),
    };
    Ok(Checked { has_casino, key, anchor_path, key_path, checkpoint, refused_checkpoint, mark, lost, anchored, skip })
}

/// What the chains are checked against: the anchor file, read under the
/// server's key `public` from the checkpoint's `mark`; or, when it is
/// `lost` for a casino that exists (`--new-anchor-file`, which signs the
/// chains as they stand), the database's copy of its lines on PostgreSQL,
/// so that a cut made before the file was deleted is found, not signed.
fn anchored(
    store: &AnyStore,
    (lost, has_casino): (bool, bool),
    path: &std::path::Path,
    public: &str,
    mark: Option<&AnchorMark>,
) -> Result<Option<Anchored>, ServeError> {
    if lost && has_casino {
        crate::anchor_copy::read_for_start(store, public)
    } else if path.exists() {
        Ok(Some(crate::anchor::read_signed_at(path, public, mark)?))
    } else {
        Ok(None)
    }
}

/// What a cut says to an operator who restored a backup beside a newer
/// anchor file (docs/backup.md): the likeliest cause, and its fix.
const RESTORED: &str = "; if this database was restored from a backup, the anchor file beside it is newer than \
     the backup (it signs records the backup does not hold): move it aside (keep it: it proves what the restore \
     lost) and put the backup's own anchor file (and its segments) in its place";

/// The tables whose chains fall short of (or differ from) what `anchored`
/// signed, named on stderr; a cut in the casino's own chain refuses the start.
fn cut_tables(store: &AnyStore, anchored: &Anchored) -> Result<BTreeSet<TableId>, ServeError> {
    let cut = crate::anchor::anchor_cuts(store, anchored).map_err(ServeError::cuts)?;
    if let Some(why) = cut.get(&crate::audit::CASINO_CHAIN) {
        return Err(ServeError::CasinoChainCut(format!("the casino's chain: {why}{RESTORED}")));
    }
    for (table, why) in &cut {
        tracing::error!(table = table.0, "table {table} is not served: {why}{RESTORED}");
    }
    Ok(cut.into_keys().collect())
}
