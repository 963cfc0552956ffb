//! Target 5: the audit record decoder (`audit::Body::decode`) on mutated real
//! record bodies, and the chain check on records carrying them.
//!
//! Invariants: no panic; a body that decodes re-encodes to a body that decodes
//! to the same value (through serde, and through the writer's own
//! `encode_event` / `encode_casino` where the body is one they write); the real
//! bodies of the corpus are canonical (decode then encode gives them back byte
//! for byte); blanking and the void report never panic; a chain with a changed
//! body, hash, link or number is refused (never accepted, never a panic).

use baccarat_core::audit::{self, Body, Chain, Header, Record};
use serde_json::Value;

use super::harness::{corpus, run, Report};
use super::mutate::{self, dictionary, Rng};

/// Encode `b` the way the writer does, if it is a body the writer writes.
fn writer_encoding(b: &Body) -> Option<String> {
    let header = match (&b.rulebook, &b.rulebook_sha256, &b.engine) {
        (Some(r), Some(s), Some(e)) => Some(Header { rulebook: r, rulebook_sha256: s, engine: e }),
        (None, None, None) => None,
        _ => return None,
    };
    if b.by == Some(baccarat_core::trust::Actor::Server) {
        return None;
    }
    match (&b.event, &b.casino) {
        (Some(e), None) => Some(Body::encode_event(b.table, header, b.by, e)),
        (None, Some(c)) if header.is_none() => Some(Body::encode_casino(b.table, b.by, c)),
        _ => None,
    }
}

fn check(text: &str, seeds: &[String], rng_byte: u8, report: &mut Report) -> Result<(), String> {
    match Body::decode(text) {
        Err(e) => {
            report.count("refused");
            if e.to_string().is_empty() {
                return Err("refused with an empty reason".into());
            }
        }
        Ok(b) => {
            report.count("decoded");
            let again = serde_json::to_string(&b).map_err(|e| format!("decoded but does not encode: {e}"))?;
            match Body::decode(&again) {
                Ok(b2) if b2 == b => {}
                other => return Err(format!("decoded, encoded as {again}, decoded again as {other:?}")),
            }
            if let Some(w) = writer_encoding(&b) {
                match Body::decode(&w) {
                    Ok(b2) if b2 == b => {}
                    other => return Err(format!("the writer encodes it as {w}, which decodes as {other:?}")),
                }
            }
            let blanked = b.clone().blanked();
            if let Some(baccarat_table::Event::ShoeStarted { seed: Some(_), .. }) = blanked.event {
                return Err("blanked, the shoe's seed is still there".into());
            }
            let _ = baccarat_server::verify::voids_of(b.table, &[(1, b.clone())]);
        }
    }
    // The chain: three real records, the middle one's body replaced by this
    // text. Unless the text is the body it replaced, the chain is broken at 2.
    let i = rng_byte as usize % seeds.len();
    let mut c = Chain::new();
    let mut records: Vec<Record> = (0..3).map(|k| c.append(seeds[(i + k) % seeds.len()].clone())).collect();
    let original = std::mem::replace(&mut records[1].body, text.to_string());
    match audit::verify(&records) {
        Ok(_) if original == text => {}
        Ok(head) => return Err(format!("a chain with a changed body verified (head {head})")),
        Err(b) if original != text && b.seq == 2 => {}
        Err(b) => return Err(format!("the chain broke in the wrong place: {b}")),
    }
    // The hash, the link and the number changed in the text's image: refused.
    let mut r = records.clone();
    r[1].body = original;
    for (k, field) in [(0, "hash"), (1, "prev"), (2, "seq")] {
        let mut bad = r.clone();
        match field {
            "hash" => bad[1].hash = text.chars().take(80).collect(),
            "prev" => bad[1].prev = text.chars().take(80).collect(),
            _ => bad[1].seq = u64::from(rng_byte) + 3,
        }
        if audit::verify(&bad).is_ok() && bad != r {
            return Err(format!("a chain with record 2's {field} changed ({k}) verified"));
        }
    }
    if Chain::from_records(&r).is_err() {
        return Err("the real chain does not verify".into());
    }
    // The same hash or link written another way (a sign before a digit pair,
    // upper case): not the record that was made.
    for field in ["hash", "prev"] {
        let mut bad = r.clone();
        let text = if field == "hash" { &mut bad[1].hash } else { &mut bad[1].prev };
        let k = (usize::from(rng_byte) % 32) * 2;
        let variant = if rng_byte % 2 == 0 { "+" } else { "" };
        let pair = text[k..k + 2].to_string();
        let respelled = match (variant, pair.as_bytes()[0]) {
            ("+", b'0') => format!("+{}", &pair[1..]),
            _ => pair.to_uppercase(),
        };
        if respelled != pair {
            text.replace_range(k..k + 2, &respelled);
            if audit::verify(&bad).is_ok() {
                return Err(format!(
                    "a chain with record 2's {field} respelled verified\n({respelled:?} for {pair:?})"
                ));
            }
        }
    }
    Ok(())
}

pub fn audit_record() {
    let seeds: Vec<String> =
        corpus("audit_record").into_iter().map(|b| String::from_utf8(b).expect("bodies are text")).collect();
    // The real bodies are canonical: decoded and encoded again, byte for byte.
    for s in &seeds {
        let b = Body::decode(s).unwrap_or_else(|e| panic!("corpus body does not decode: {e}\n{s}"));
        let w = writer_encoding(&b).unwrap_or_else(|| panic!("corpus body the writer does not write: {s}"));
        assert_eq!(&w, s, "a real body is not canonical");
    }
    let bytes_corpus: Vec<Vec<u8>> = seeds.iter().map(|s| s.clone().into_bytes()).collect();
    let dict = dictionary(&bytes_corpus);
    let values: Vec<Value> = seeds.iter().map(|s| serde_json::from_str(s).expect("json")).collect();
    run(
        "audit_record",
        100_000,
        "json",
        |rng: &mut Rng, _| {
            let k = rng.below(seeds.len());
            let other = rng.below(seeds.len());
            match rng.below(10) {
                0..=4 => {
                    let v = mutate::json(rng, &values[k], &values[other], 3);
                    mutate::json_text(rng, &v)
                }
                5..=6 => mutate::bytes(rng, &bytes_corpus[k], &bytes_corpus[other], &dict, 4),
                7..=8 => {
                    let mut t = seeds[k].clone();
                    for _ in 0..rng.range(1, 3) {
                        t = mutate::replace_word(rng, &t, &dict);
                    }
                    t.into_bytes()
                }
                _ => bytes_corpus[k].clone(),
            }
        },
        |input, report| {
            // Which real records surround it in the chain check: from the input itself.
            let pick = input.iter().fold(0u8, |h, b| h.wrapping_mul(31).wrapping_add(*b));
            check(&String::from_utf8_lossy(input), &seeds, pick, report)
        },
    );
}
