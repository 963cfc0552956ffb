//! A table socket's deltas (`GET /api/tables/{id}/ws?deltas=1`): what changed
//! between the last message sent and the next, so that a coup costs a viewer
//! its changes (a card, a phase, a result, a road cell) rather than the whole
//! table view with its roads ten times over (issue 49, finding 10).
//!
//! **The format** is a JSON merge patch (RFC 7386) with two differences, both
//! so that applying the patch to the last message gives the next one
//! *exactly*:
//! - **`null` sets a member to `null`**; it never deletes one. The messages
//!   carry `null` members that mean something (`"result": null`, a
//!   differential of `null`), which RFC 7386 could not express. A message
//!   whose objects lost a member is sent whole instead ([`diff`] says so).
//! - **An array that kept its start** is sent as `{"$tail": [k, [items…]]}`:
//!   keep the first `k` items of the array, then the items. A road grows at
//!   its end (a bead, a big-road cell, or its last cell's tie count), so a
//!   coup sends the road's new end, not the road. Any other array is
//!   replaced whole, as in RFC 7386.
//!
//! Otherwise as RFC 7386: an object merges key by key into the target (into
//! `{}` if the target is not an object), anything else replaces the target.
//! A `{"$tail": …}` object means a tail only where the target is an array;
//! [`diff`] never sends one where that could be read two ways (an array
//! becoming an object: the message goes whole).

use serde_json::{Map, Value};

/// The key of an array's tail (see the module's notes).
pub const TAIL: &str = "$tail";

/// The patch that takes message `old` to `new` (both objects), or `None` if
/// the format cannot say it exactly (a member removed, an array become an
/// object, a message not an object): then the message is sent whole.
pub fn diff(old: &Value, new: &Value) -> Option<Value> {
    match (old, new) {
        (Value::Object(o), Value::Object(n)) => objects(o, n).map(Value::Object),
        _ => None,
    }
}

/// The members of `n` that differ from `o`'s, each as its own patch.
fn objects(o: &Map<String, Value>, n: &Map<String, Value>) -> Option<Map<String, Value>> {
    if o.keys().any(|k| !n.contains_key(k)) {
        return None;
    }
    let mut patch = Map::new();
    for (k, nv) in n {
        match o.get(k) {
            Some(ov) if ov == nv => {}
            Some(ov) => {
                patch.insert(k.clone(), member(ov, nv)?);
            }
            // A new member: the value itself, merged into nothing, is itself.
            None => {
                patch.insert(k.clone(), nv.clone());
            }
        }
    }
    Some(patch)
}

/// The patch of one member that changed from `o` to `n`.
fn member(o: &Value, n: &Value) -> Option<Value> {
    match (o, n) {
        (Value::Object(o), Value::Object(n)) => objects(o, n).map(Value::Object),
        (Value::Array(o), Value::Array(n)) => Some(tail(o, n)),
        // An object patch on an array could read as a tail: sent whole.
        (Value::Array(_), Value::Object(_)) => None,
        // Anything else replaces; an object merged into a non-object target
        // starts from `{}`, so the object itself is its own patch.
        _ => Some(n.clone()),
    }
}

/// An array that changed: its tail after the items it shares with `o` at
/// the start, or the whole array if it shares none.
fn tail(o: &[Value], n: &[Value]) -> Value {
    let kept = o.iter().zip(n).take_while(|(a, b)| a == b).count();
    if kept == 0 {
        return Value::Array(n.to_vec());
    }
    let mut m = Map::new();
    m.insert(TAIL.into(), Value::Array(vec![Value::from(kept), Value::Array(n[kept..].to_vec())]));
    Value::Object(m)
}

/// Apply `patch` to `target` (the format in the module's notes); what a
/// client does with each delta (the pages' `common.js` does the same).
pub fn apply(target: &mut Value, patch: &Value) {
    let Value::Object(p) = patch else {
        *target = patch.clone();
        return;
    };
    if let Value::Array(t) = target {
        if let Some((kept, items)) = as_tail(p) {
            t.truncate(kept);
            t.extend(items.iter().cloned());
            return;
        }
    }
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(t) = target else { unreachable!("made an object above") };
    for (k, v) in p {
        apply(t.entry(k.clone()).or_insert(Value::Null), v);
    }
}

/// A tail patch's `(kept, items)`, if `p` is one.
fn as_tail(p: &Map<String, Value>) -> Option<(usize, &Vec<Value>)> {
    if p.len() != 1 {
        return None;
    }
    match p.get(TAIL)?.as_array()?.as_slice() {
        [k, Value::Array(items)] => Some((usize::try_from(k.as_u64()?).ok()?, items)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// Exactness: applying the delta to the old message gives the new one.
    fn round_trip(old: &Value, new: &Value) -> bool {
        match diff(old, new) {
            Some(d) => {
                let mut got = old.clone();
                apply(&mut got, &d);
                assert_eq!(&got, new, "delta {d} of {old}");
                true
            }
            None => false,
        }
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (-3i64..1000).prop_map(Value::from),
            "[a-c]{0,3}".prop_map(Value::from),
        ]
    }

    /// JSON values over few keys (so that two values share structure),
    /// `$tail` among them to try to confuse the format.
    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::btree_map(prop::sample::select(vec!["a", "b", "c", "$tail", "roads"]), inner, 0..5)
                    .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_string(), v)).collect())),
            ]
        })
    }

    /// A change to `v` as a table's message changes: a leaf replaced, an
    /// array grown at its end or its last item changed, a member added.
    fn mutate(v: &mut Value, seed: &mut u64) {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        let pick = *seed;
        match v {
            Value::Object(m) if !m.is_empty() && pick % 5 != 0 => {
                let k = m.keys().nth((pick as usize / 5) % m.len()).cloned().expect("a key");
                mutate(m.get_mut(&k).expect("its value"), seed);
            }
            Value::Object(m) => {
                m.insert(format!("k{}", pick % 7), json!(pick % 100));
            }
            Value::Array(a) if !a.is_empty() && pick % 3 == 0 => mutate(a.last_mut().expect("an item"), seed),
            Value::Array(a) => a.push(json!({"col": pick % 9, "row": pick % 6, "ties": [pick % 2]})),
            _ => *v = json!(pick % 50),
        }
    }

    proptest! {
        /// Any two messages: the delta, when there is one, is exact.
        #[test]
        fn a_delta_applied_to_the_last_message_gives_the_next_exactly(
            a in prop::collection::btree_map("[a-d]", value(), 0..6),
            b in prop::collection::btree_map("[a-d]", value(), 0..6),
        ) {
            let (a, b) = (json!(a), json!(b));
            round_trip(&a, &b);
            // Same keys at the top: a delta is always possible unless a
            // nested member went or an array became an object.
            prop_assert!(round_trip(&a, &a));
        }

        /// A message changing as a table's does, many times over: every
        /// delta is exact, and every one exists (no member is removed).
        #[test]
        fn a_chain_of_changing_messages_is_followed_exactly(start in value(), mut seed in 1u64..u64::MAX) {
            let mut old = json!({"table": start, "roads": [[1, 2], [3]], "now_ms": 0});
            for _ in 0..40 {
                let mut new = old.clone();
                mutate(&mut new, &mut seed);
                prop_assert!(round_trip(&old, &new), "no delta from {} to {}", old, new);
                old = new;
            }
        }
    }

    #[test]
    fn a_grown_road_sends_its_new_end_only() {
        let cells: Vec<Value> = (0..60).map(|i| json!({"col": i / 6, "row": i % 6, "result": "B"})).collect();
        let old = json!({"roads": {"big_road": cells.clone()}, "phase": "dealing"});
        let mut more = cells.clone();
        more.push(json!({"col": 10, "row": 0, "result": "P"}));
        let new = json!({"roads": {"big_road": more}, "phase": "ready"});
        let d = diff(&old, &new).expect("a delta");
        assert_eq!(
            d,
            json!({"phase": "ready", "roads": {"big_road": {"$tail": [60, [{"col": 10, "row": 0, "result": "P"}]]}}})
        );
        assert!(round_trip(&old, &new));
    }

    #[test]
    fn null_is_a_value_and_a_removed_member_sends_the_message_whole() {
        let old = json!({"result": {"winner": "banker"}, "void": null});
        let new = json!({"result": null, "void": null});
        assert_eq!(diff(&old, &new), Some(json!({"result": null})));
        assert!(round_trip(&old, &new));
        assert_eq!(diff(&json!({"pit": 1, "a": 2}), &json!({"a": 2})), None, "pit gone: sent whole");
        // An array become an object that reads as a tail: sent whole.
        assert_eq!(diff(&json!({"a": [1]}), &json!({"a": {"$tail": [0, [2]]}})), None);
        // An object `{"$tail": …}` where there was none is an object.
        assert!(round_trip(&json!({"a": null}), &json!({"a": {"$tail": [0, [2]]}})));
        // Equal messages: an empty delta.
        assert_eq!(diff(&old, &old), Some(json!({})));
    }
}
