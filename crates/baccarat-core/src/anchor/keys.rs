//! The chain of keys: a signing key rotated (`baccarat key rotate`) by a
//! *rotation line* in the anchor file, and how a reader follows it.
//!
//! A rotation line is an ordinary line (its `seq` and `prev` continue the
//! file, its `heads` empty) with `"rotate":"<new public key>"` after
//! `public`, signed by the key it retires (`sig`, as every line) and
//! countersigned by the new key (`cosig`: the same bytes under
//! [`ROTATE_DOMAIN`]). Every line after it must be signed by the new key.
//!
//! What follows for a reader:
//! * **A line signed by a retired key after its rotation is a forgery**
//!   (whoever holds a retired key, it signs nothing any more), named at its line.
//! * **A rotation must be signed by the key in force**, like any line.
//! * **Pinning any key of the chain verifies the whole file**: the
//!   countersignature binds the new key to the rotation line, whose `prev`
//!   binds every line before it; so a chain that reaches the pinned key
//!   (the first, or one rotated to) was written by its holders, in order.
//!   A verifier pins the first key the operator published ([`Trust::Pinned`]);
//!   a server opening its file requires the chain to *end* in its own key
//!   ([`Trust::Signer`]): a server given a retired key back would otherwise
//!   sign lines after the rotation that retired it.
//! * What it cannot tell: a holder of a retired key can write a whole other
//!   file that never rotates; an inspector who pinned the first key checks
//!   that the current key `verify` names is the one the operator published.

use baccarat_table::hex;
use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

use super::{signed_bytes, unhex, Line};

/// Domain tag of a rotation line's countersignature (by the new key), so it
/// is never mistaken for a line's own signature.
pub(super) const ROTATE_DOMAIN: &[u8] = b"baccarat-anchor-rotate-v1";

/// One rotation: at anchor line `line`, key `from` gave way to `to` (hex).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rotation {
    pub line: u64,
    pub from: String,
    pub to: String,
}

/// What a reader requires of the chain of keys it read.
#[derive(Clone, Copy)]
pub(super) enum Trust {
    /// Nothing: the first line's key is trusted (and should be reported).
    Any,
    /// The verifier's key: the first key read, or one rotated to.
    Pinned(VerifyingKey),
    /// The server's own key: the chain must end in it.
    Signer(VerifyingKey),
}

impl Trust {
    /// The key required, if any.
    pub(super) fn key(self) -> Option<VerifyingKey> {
        match self {
            Trust::Any => None,
            Trust::Pinned(k) | Trust::Signer(k) => Some(k),
        }
    }
}

/// The keys met so far in a scan: the one in force, and the rotations.
#[derive(Clone, Default)]
pub(super) struct KeyChain {
    pub(super) first: Option<VerifyingKey>,
    pub(super) current: Option<VerifyingKey>,
    pub(super) rotations: Vec<Rotation>,
}

impl KeyChain {
    /// A line is signed by `public`: the key in force (the first line's
    /// sets it), else why not.
    pub(super) fn accept(&mut self, public: VerifyingKey) -> Result<VerifyingKey, String> {
        let key = *self.current.get_or_insert(public);
        self.first.get_or_insert(public);
        if public == key {
            return Ok(key);
        }
        let shown = hex(public.as_bytes());
        match self.rotations.iter().find(|r| r.from == shown) {
            Some(r) => Err(format!(
                "signed by key {shown}, which line {} retired (rotated to {}): a line signed by a retired key after \
                 its rotation is a forgery",
                r.line, r.to
            )),
            None => Err(format!("signed by key {shown}, not the trusted key {}", hex(key.as_bytes()))),
        }
    }

    /// Line `n` (`line`, its signature checked; `unsigned`: the bytes it
    /// signs, `cosig` taken out of it) rotates to `line.rotate`: its
    /// countersignature checked, the new key in force. A line that rotates
    /// nothing may carry no countersignature.
    pub(super) fn rotate(&mut self, line: &Line, cosig: &str, unsigned: &str, n: u64) -> Result<(), String> {
        let Some(to) = line.rotate.clone() else {
            return if cosig.is_empty() { Ok(()) } else { Err("`cosig` on a line that rotates no key".into()) };
        };
        let new = unhex::<32>(&to).and_then(|b| VerifyingKey::from_bytes(&b).ok());
        let new = new.ok_or("`rotate` is not an Ed25519 public key")?;
        if !line.heads.is_empty() || line.carry.is_some() {
            return Err("a rotation line names no heads and carries nothing".into());
        }
        let cosig = unhex::<64>(cosig).map(|b| Signature::from_bytes(&b));
        let message = [ROTATE_DOMAIN, unsigned.as_bytes()].concat();
        if cosig.is_none_or(|s| new.verify_strict(&message, &s).is_err()) {
            return Err("bad countersignature: the new key did not sign its rotation".into());
        }
        let from = self.current.map(|k| hex(k.as_bytes())).unwrap_or_default();
        self.rotations.push(Rotation { line: n, from, to });
        self.current = Some(new);
        Ok(())
    }

    /// Whether the chain read meets `trust`: `Err((line, why))` naming the
    /// line to blame (`first`: the first line read) when it does not. A scan
    /// that read no line meets any trust (a start from a checkpoint's mark at
    /// the file's end: the checkpoint's signature vouches for it).
    pub(super) fn meets(&self, trust: Trust, first: u64) -> Result<(), (u64, String)> {
        let (Some(current), Some(start)) = (self.current, self.first) else { return Ok(()) };
        let last_rotation = self.rotations.last().map_or(first, |r| r.line);
        match trust {
            Trust::Any => Ok(()),
            Trust::Pinned(p) => {
                let hp = hex(p.as_bytes());
                if start == p || self.rotations.iter().any(|r| r.to == hp) {
                    return Ok(());
                }
                let nor = if self.rotations.is_empty() { "" } else { ", nor rotated to it" };
                Err((first, format!("signed by key {}, not the trusted key {hp}{nor}", hex(start.as_bytes()))))
            }
            Trust::Signer(s) if s == current => Ok(()),
            Trust::Signer(s) => {
                let hs = hex(s.as_bytes());
                let why = match self.rotations.iter().find(|r| r.from == hs) {
                    Some(r) => format!(
                        "this key was retired by the rotation at line {} (to {}): put the current key in its place",
                        r.line, r.to
                    ),
                    None => format!("signed by key {}, not the trusted key {hs}", hex(current.as_bytes())),
                };
                Err((last_rotation, why))
            }
        }
    }

    /// The key in force, hex (empty before any line).
    pub(super) fn current_hex(&self) -> String {
        self.current.map(|k| hex(k.as_bytes())).unwrap_or_default()
    }
}

/// A rotation line: line `seq` after a line hashing to `prev`, signed by
/// `old` and countersigned by `new`.
pub(super) fn render_rotation(old: &SigningKey, new: &SigningKey, seq: u64, prev: &[u8; 32]) -> String {
    let mut line = Line {
        seq,
        prev: hex(prev),
        public: hex(old.verifying_key().as_bytes()),
        carry: None,
        rotate: Some(hex(new.verifying_key().as_bytes())),
        heads: Vec::new(),
        sig: String::new(),
        cosig: String::new(),
    };
    let unsigned = line.json();
    line.sig = hex(&old.sign(&signed_bytes(&unsigned)).to_bytes());
    line.cosig = hex(&new.sign(&[ROTATE_DOMAIN, unsigned.as_bytes()].concat()).to_bytes());
    line.json()
}

#[cfg(test)]
mod tests {
    use super::super::tests::{head, Tmp};
    use super::super::{read, read_all, read_signed_at, render, AnchorError, AnchorLog};
    use super::*;
    use crate::ids::TableId;
    use sha2::{Digest, Sha256};

    fn lines(path: &std::path::Path) -> Vec<String> {
        std::fs::read_to_string(path).unwrap().lines().map(String::from).collect()
    }

    fn write_lines(path: &std::path::Path, lines: &[String]) {
        std::fs::write(path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    }

    /// Lines under k1, a rotation to k2, lines, a rotation to k3, a line:
    /// (the path, the three keys' public hex).
    fn rotated_twice(tmp: &Tmp) -> (std::path::PathBuf, [String; 3]) {
        let path = tmp.0.join("db.anchors");
        let (k1, k2, k3) = (tmp.key("1.key"), tmp.key("2.key"), tmp.key("3.key"));
        let mut log = AnchorLog::open(&path, k1.clone()).unwrap();
        log.append(&[head(TableId(1), 1)]).unwrap();
        log.rotate_key(k2.clone()).unwrap();
        log.append(&[head(TableId(1), 2)]).unwrap();
        drop(log);
        let mut log = AnchorLog::open(&path, k2.clone()).unwrap();
        log.stage(&[head(TableId(2), 1)]);
        log.rotate_key(k3.clone()).unwrap();
        log.append(&[head(TableId(1), 3)]).unwrap();
        (path, [k1.public_hex(), k2.public_hex(), k3.public_hex()])
    }

    /// Pinning the first key (or any key of the chain) verifies across the
    /// rotations; the chain's end is the key in force; a server opens the
    /// file only with that key.
    #[test]
    fn pinning_any_key_of_the_chain_verifies_across_rotations() {
        let tmp = Tmp::new();
        let (path, [k1, k2, k3]) = rotated_twice(&tmp);
        for pinned in [None, Some(&k1), Some(&k2), Some(&k3)] {
            let a = read(&path, pinned.map(String::as_str)).unwrap();
            assert_eq!((a.lines, a.public.as_str(), a.heads.len()), (6, k3.as_str(), 2));
            let r: Vec<_> = a.rotations.iter().map(|r| (r.line, r.from.as_str(), r.to.as_str())).collect();
            assert_eq!(r, [(2, k1.as_str(), k2.as_str()), (5, k2.as_str(), k3.as_str())], "the staged line went first");
        }
        assert_eq!(read_all(&path, Some(&k1)).unwrap().0.public, k3);
        let other = tmp.key("other.key").public_hex();
        let err = read(&path, Some(&other)).unwrap_err().to_string();
        assert!(err.contains("line 1: signed by key") && err.contains("nor rotated to it"), "{err}");
        // A server given a retired key back is refused, naming the rotation.
        let err = AnchorLog::open(&path, tmp.key("1.key")).err().unwrap().to_string();
        assert!(err.contains("line 5: this key was retired by the rotation at line 2"), "{err}");
        let err = read_signed_at(&path, &k2, None).unwrap_err().to_string();
        assert!(err.contains("retired by the rotation at line 5"), "{err}");
        let mut log = AnchorLog::open(&path, tmp.key("3.key")).unwrap();
        log.append(&[head(TableId(1), 4)]).unwrap();
        assert_eq!(read_signed_at(&path, &k3, None).unwrap().lines, 7);
    }

    /// The attack: a line signed by a retired key after its rotation, with
    /// the right seq and prev, is named as a forgery at its line; so is a
    /// rotation signed by a key not in force, or one the new key did not
    /// countersign.
    #[test]
    fn a_retired_key_signs_nothing_after_its_rotation() {
        let tmp = Tmp::new();
        let (path, [k1, ..]) = rotated_twice(&tmp);
        let orig = lines(&path);
        let prev = |l: &str| -> [u8; 32] { Sha256::digest(l).into() };
        let k1_key = tmp.key("1.key");
        let mut forged = orig.clone();
        forged.push(render(&k1_key.key, 7, &prev(&orig[5]), &[head(TableId(1), 99)], None));
        write_lines(&path, &forged);
        for err in [read(&path, Some(&k1)).unwrap_err(), read_all(&path, Some(&k1)).unwrap_err()] {
            let msg = err.to_string();
            assert!(matches!(err, AnchorError::BadLine { line: 7, .. }), "{msg}");
            assert!(msg.contains("which line 2 retired") && msg.contains("is a forgery"), "{msg}");
        }
        // A rotation signed by the retired key k1, after k1 was retired.
        let mut forged = orig.clone();
        let k9 = tmp.key("9.key");
        forged.push(render_rotation(&k1_key.key, &k9.key, 7, &prev(&orig[5])));
        write_lines(&path, &forged);
        let msg = read(&path, None).unwrap_err().to_string();
        assert!(msg.contains("line 7: signed by key") && msg.contains("which line 2 retired"), "{msg}");
        // A rotation by the key in force to a key that did not countersign.
        let k3_key = tmp.key("3.key");
        let mut forged = orig.clone();
        let good = render_rotation(&k3_key.key, &k9.key, 7, &prev(&orig[5]));
        let other = tmp.key("other.key").public_hex();
        let mut line: Line = serde_json::from_str(&good).unwrap();
        line.rotate = Some(other);
        line.sig = String::new();
        line.cosig = String::new();
        line.sig = hex(&k3_key.key.sign(&signed_bytes(&line.json())).to_bytes());
        let bad_cosig = render_rotation(&k3_key.key, &k9.key, 7, &prev(&orig[5]));
        line.cosig = serde_json::from_str::<Line>(&bad_cosig).unwrap().cosig;
        forged.push(line.json());
        write_lines(&path, &forged);
        let msg = read(&path, None).unwrap_err().to_string();
        assert!(msg.contains("line 7: bad countersignature"), "{msg}");
        // The genuine rotation passes.
        let mut fine = orig;
        fine.push(good);
        write_lines(&path, &fine);
        assert_eq!(read(&path, Some(&k1)).unwrap().public, k9.public_hex());
    }

    /// A rotation carried across a monthly segment: `read_all` follows the
    /// chain through the files; the live file alone, pinned to a key retired
    /// in a segment before it, is refused (its chain begins later).
    #[test]
    fn the_chain_continues_across_segments() {
        let tmp = Tmp::new();
        let path = tmp.0.join("db.anchors");
        let (k1, k2) = (tmp.key("1.key"), tmp.key("2.key"));
        let mut log = AnchorLog::open(&path, k1.clone()).unwrap();
        log.begin("2026-10").unwrap();
        log.append(&[head(TableId(1), 1)]).unwrap();
        log.rotate_key(k2.clone()).unwrap();
        log.append(&[head(TableId(1), 2)]).unwrap();
        log.rotate_for("2026-11").unwrap().unwrap();
        log.append(&[head(TableId(1), 3)]).unwrap();
        drop(log);
        let (all, span) = read_all(&path, Some(&k1.public_hex())).unwrap();
        assert_eq!((all.lines, span.files.len(), all.public.clone(), all.rotations.len()), (6, 2, k2.public_hex(), 1));
        assert!(read(&path, Some(&k2.public_hex())).is_ok());
        let msg = read(&path, Some(&k1.public_hex())).unwrap_err().to_string();
        assert!(msg.contains("line 5: signed by key"), "{msg}");
    }
}
