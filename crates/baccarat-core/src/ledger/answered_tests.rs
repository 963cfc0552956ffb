use super::*;
use crate::ledger::keys::key_id;

fn ids(prefix: &str, n: usize) -> Vec<KeyId> {
    (0..n).map(|i| key_id(&format!("{prefix}-{i}"))).collect()
}

#[test]
fn an_incomplete_filter_proves_nothing() {
    let a = Answered::new(1_000);
    assert!(!a.none_answered(&ids("new", 3), 0), "before the loader is done the store must be asked");
    a.completed(0);
    assert!(a.none_answered(&ids("new", 3), 0));
}

#[test]
fn no_key_put_in_is_ever_reported_absent() {
    let a = Answered::new(u64::MAX);
    a.completed(0);
    let put = ids("answered", 200_000);
    for (i, &id) in put.iter().enumerate() {
        a.insert(id, i as u64, i as u64);
    }
    for &id in &put {
        assert!(!a.none_answered(&[id], 0), "a key answered was reported never answered");
    }
    // A slip with one answered key among new ones is not refused here.
    let mut slip = ids("fresh", 3);
    slip.push(put[7]);
    assert!(!a.none_answered(&slip, 0));
}

#[test]
fn about_one_new_key_in_a_hundred_is_sent_to_the_store() {
    let a = Answered::new(u64::MAX);
    a.completed(0);
    for id in ids("answered", 100_000) {
        a.insert(id, 0, 0);
    }
    let fresh = ids("fresh", 100_000);
    let proved = fresh.iter().filter(|&&id| a.none_answered(&[id], 0)).count();
    // Ten bits a key and seven probes, in a bucket a tenth full: far fewer
    // than 1% false "present"; a filter that proved nothing would fail here.
    assert!(proved > 99_000, "only {proved} of 100000 new keys proved new");
}

#[test]
fn buckets_past_the_window_are_dropped_and_the_open_one_kept() {
    let a = Answered::new(1_000);
    a.completed(0);
    let old = ids("old", BUCKET_KEYS as usize + 1);
    for &id in &old {
        a.insert(id, 0, 0);
    }
    assert_eq!(a.buckets(), 2, "a full bucket closes and a new one opens");
    let late = key_id("late");
    a.insert(late, 5_000, 5_000);
    // The full bucket's newest answer (0) is past the window (5,000 - 1,000):
    // dropped; the open one, which held a key at 0, still takes this key.
    assert_eq!(a.buckets(), 1);
    assert!(!a.none_answered(&[late], 4_000));
    assert!(!a.none_answered(&[old[BUCKET_KEYS as usize]], 4_000), "the open bucket's keys are kept");
    // A window reaching back to what was dropped (the clock set back) is
    // not proved here: the store is asked.
    assert!(!a.none_answered(&[key_id("fresh")], 0));
    assert!(a.none_answered(&[key_id("fresh")], 4_000));
}

#[test]
fn a_window_that_begins_before_the_loader_read_asks_the_store() {
    let a = Answered::new(u64::MAX);
    a.completed(10_000);
    assert!(a.none_answered(&[key_id("fresh")], 10_000));
    // The clock set back: the lookup's window begins before the answers the
    // loader read, so the filter cannot say.
    assert!(!a.none_answered(&[key_id("fresh")], 9_999));
}

#[test]
fn past_the_most_buckets_the_oldest_goes_early_and_its_window_asks_the_store() {
    let a = Answered::sized(u64::MAX, 100, 3);
    a.completed(0);
    let keys = ids("k", 301);
    for (i, &id) in keys.iter().enumerate() {
        a.insert(id, 1_000 + i as u64, 1_000 + i as u64);
    }
    // Four buckets' worth: the first (answers at 1,000-1,099) was dropped.
    assert_eq!(a.buckets(), 3);
    assert!(!a.none_answered(&[key_id("fresh")], 1_099), "a window reaching the dropped bucket asks the store");
    assert!(a.none_answered(&[key_id("fresh")], 1_100));
    for &id in &keys[100..] {
        assert!(!a.none_answered(&[id], 1_100), "a key in a kept bucket was reported never answered");
    }
}

/// Only the oldest bucket is looked at: one past the window behind a younger
/// one (the loader's old keys filled it after a live answer opened the one
/// before) is kept, its keys still held, until the younger goes too.
#[test]
fn a_bucket_behind_a_younger_one_waits_its_turn_and_keeps_its_keys() {
    let a = Answered::sized(1_000, 10, 10);
    a.completed(0);
    let (live, loaded) = (ids("live", 10), ids("loaded", 10));
    // Filled while the clock read 0, so that no bucket was past the window
    // when the next opened.
    for &id in &live {
        a.insert(id, 5_000, 0);
    }
    for &id in &loaded {
        a.insert(id, 0, 0);
    }
    a.insert(key_id("open"), 5_000, 0);
    assert_eq!(a.buckets(), 3);
    // At 5,500 the window reaches 4,500: the first bucket (newest 5,000) is
    // kept, and the loader's behind it (newest 0) with it.
    a.insert(key_id("later"), 5_500, 5_500);
    assert_eq!(a.buckets(), 3);
    all_held(&a, &loaded, 4_500);
    // Nothing was dropped, so the window is proved.
    let fresh = proved_new(&a, 4_500);
    // At 7,000 both are past it: dropped, oldest first; the open one stays.
    a.insert(key_id("last"), 7_000, 7_000);
    assert_eq!(a.buckets(), 1);
    assert!(!a.none_answered(&[fresh], 5_000), "a window reaching the dropped buckets asks the store");
    assert!(a.none_answered(&[fresh], 5_001));
}

/// When a bucket opens, a closed bucket past the window goes even behind a
/// younger one, so that it does not count towards the most kept; the window
/// reaching back to it then asks the store.
#[test]
fn a_new_bucket_clears_every_bucket_past_the_window() {
    let a = Answered::sized(1_000, 10, 10);
    a.completed(0);
    for (prefix, at) in [("live", 5_000), ("loaded", 0), ("more", 5_000)] {
        for id in ids(prefix, 10) {
            a.insert(id, at, 0);
        }
    }
    assert_eq!(a.buckets(), 3, "three full buckets, the loader's in the middle");
    // A fourth opens at 5,500 (window from 4,500): the loader's goes.
    let kept = ids("live", 10);
    a.insert(key_id("opens"), 5_500, 5_500);
    assert_eq!(a.buckets(), 3);
    all_held(&a, &kept, 4_500);
    let fresh = proved_new(&a, 1);
    assert!(!a.none_answered(&[fresh], 0), "a window reaching the dropped bucket asks the store");
}

/// Every one of `keys` may be held: none is reported never answered.
fn all_held(a: &Answered, keys: &[KeyId], since_ms: u64) {
    for &id in keys {
        assert!(!a.none_answered(&[id], since_ms), "a kept bucket's key was reported never answered");
    }
}

/// A new key the filter proves never answered from `since_ms` on (one that
/// none of the tests' small buckets happens to match: under 1 in 100 do).
fn proved_new(a: &Answered, since_ms: u64) -> KeyId {
    ids("fresh", 20).into_iter().find(|&id| a.none_answered(&[id], since_ms)).expect("no new key proved new")
}
