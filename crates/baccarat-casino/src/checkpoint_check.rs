//! Reading the latest checkpoint for a check (`verify --since-checkpoint`,
//! the inspector's ledger check), in bounded memory.
//!
//! A start needs the whole checkpoint, read model included. A check does not:
//! it rebuilds the ledger and the chains' heads and compares them with the
//! logs. And the read model is most of a busy casino's checkpoint (each
//! player's last 200 settled wagers: 121 MB of 121 MB for 2,000 players on the
//! 8 M-row database of docs/performance.md), so reading the body whole and parsing it
//! whole took `verify --since-checkpoint` to 312 MB there, and would grow with
//! the players. Here the body is read a part (1 MB) at a time, hashed as it is
//! parsed, and parsed into every field but the read model, which is skipped
//! as it streams past; the hash and the signature are checked once the last
//! byte is read, before the checkpoint is used.

use std::io::Read;

use serde::Deserialize;
use sha2::{Digest, Sha256};

use baccarat_table::hex;

use crate::casino::checkpoint::{
    check_format, check_key, check_seal, ChainHead, Checkpoint, CheckpointError, TableState,
};
use crate::ledger::{Account, Transfer, TransferId};
use crate::store::{History, StoreError, StoredCheckpoint};

/// Every field of a [`Checkpoint`] but its read model (`feed`), which the
/// parser skips without keeping.
#[derive(Deserialize)]
struct WithoutReadModel {
    format: u32,
    at_ms: u64,
    last_transfer: TransferId,
    accounts: Vec<Account>,
    pending: Vec<std::sync::Arc<Transfer>>,
    casino: ChainHead,
    tables: Vec<TableState>,
    #[serde(default)]
    tournaments: Vec<crate::casino::tournaments::TournamentState>,
    #[serde(default)]
    promotions: Vec<crate::casino::promotions::PromotionState>,
    #[serde(default)]
    self_limits: Vec<crate::casino::self_limits::SelfLimits>,
    #[serde(default)]
    anchor: Option<crate::anchor::AnchorMark>,
    #[serde(default)]
    bank_seq: u64,
    #[serde(default)]
    limits_seq: u64,
}

impl From<WithoutReadModel> for Checkpoint {
    fn from(w: WithoutReadModel) -> Checkpoint {
        Checkpoint {
            format: w.format,
            at_ms: w.at_ms,
            last_transfer: w.last_transfer,
            accounts: w.accounts,
            pending: w.pending,
            casino: w.casino,
            tables: w.tables,
            feed: None,
            tournaments: w.tournaments,
            promotions: w.promotions,
            self_limits: w.self_limits,
            anchor: w.anchor,
            bank_seq: w.bank_seq,
            limits_seq: w.limits_seq,
        }
    }
}

/// A checkpoint's body as a reader: the row's own bytes (older checkpoints),
/// then each part in turn, fetched when the one before is used up, and
/// hashed as it is handed out.
struct Body<'a> {
    store: &'a dyn History,
    id: i64,
    next_part: u64,
    buf: Vec<u8>,
    at: usize,
    sha: Sha256,
}

impl Read for Body<'_> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.at == self.buf.len() {
            match self.store.checkpoint_part(self.id, self.next_part) {
                Ok(Some(part)) => {
                    self.buf = part;
                    self.at = 0;
                    self.next_part += 1;
                }
                Ok(None) => return Ok(0),
                Err(e) => return Err(std::io::Error::other(e.to_string())),
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.sha.update(&out[..n]);
        self.at += n;
        Ok(n)
    }
}

/// The latest complete checkpoint without its read model, checked as
/// `checkpoint::open` checks one (key, SHA-256, signature, format): `None`
/// if there is none, else its id and either the checkpoint or why it is
/// refused.
#[allow(clippy::type_complexity)]
pub fn latest_without_read_model(
    store: &dyn History,
    public: &str,
) -> Result<Option<(i64, Result<Checkpoint, CheckpointError>)>, StoreError> {
    let Some(mut seal) = store.latest_checkpoint_seal()? else { return Ok(None) };
    let id = seal.id;
    if let Err(why) = check_key(&seal, public) {
        return Ok(Some((id, Err(why))));
    }
    let own = std::mem::take(&mut seal.body);
    let mut body = Body { store, id, next_part: 0, buf: own, at: 0, sha: Sha256::new() };
    let parsed = {
        let mut reader = std::io::BufReader::with_capacity(1 << 16, &mut body);
        let parsed: Result<WithoutReadModel, CheckpointError> =
            serde_json::from_reader(&mut reader).map_err(|source| CheckpointError::Unreadable { id, source });
        // Whatever the parser left (or did not reach) is hashed too.
        std::io::copy(&mut reader, &mut std::io::sink()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        parsed
    };
    let sha256 = hex(&body.sha.finalize());
    Ok(Some((id, seal_then_parse(&seal, public, &sha256, parsed))))
}

/// The seal is checked first: a body altered so that it no longer parses is
/// named as altered, as `checkpoint::open` names it.
fn seal_then_parse(
    seal: &StoredCheckpoint,
    public: &str,
    sha256: &str,
    parsed: Result<WithoutReadModel, CheckpointError>,
) -> Result<Checkpoint, CheckpointError> {
    check_seal(seal, public, sha256)?;
    let c = parsed?;
    check_format(seal.id, c.format)?;
    Ok(c.into())
}
