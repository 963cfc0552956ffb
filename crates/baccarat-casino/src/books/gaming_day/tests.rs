//! The gaming day's boundaries: at the cut-off, across daylight saving, and
//! across a change of setting.

use proptest::prelude::*;

use super::*;

const H: u64 = 3_600_000;

fn date(s: &str) -> Date {
    parse_date(s).unwrap()
}

fn calendar(zone: &str, hour: i64) -> Calendar {
    let mut c = Calendar::default();
    c.set(0, GamingDay::parse(zone, hour).unwrap());
    c
}

/// New York, cut-off 06:00. Clocks go forward on 2026-03-08 at 02:00 and
/// back on 2026-11-01 at 02:00. Day 03-07 runs from 06:00 EST (11:00 UTC)
/// to 06:00 EDT on 03-08 (10:00 UTC): 23 hours. Day 10-31 runs from 06:00
/// EDT (10:00 UTC) to 06:00 EST on 11-01 (11:00 UTC): 25 hours.
#[test]
fn a_day_across_daylight_saving_is_23_or_25_hours() {
    let c = calendar("America/New_York", 6);
    assert_eq!(c.window(date("2026-03-07")), (1_772_881_200_000, 1_772_964_000_000));
    assert_eq!(c.window(date("2026-03-08")), (1_772_964_000_000, 1_773_050_400_000));
    let (from, to) = c.window(date("2026-03-07"));
    assert_eq!(to - from, 23 * H);
    let (from, to) = c.window(date("2026-10-31"));
    assert_eq!((from, to), (1_793_440_800_000, 1_793_530_800_000));
    assert_eq!(to - from, 25 * H);
    // The cut-off itself is the new day's first instant.
    assert_eq!(c.date_of(1_772_964_000_000 - 1), date("2026-03-07"));
    assert_eq!(c.date_of(1_772_964_000_000), date("2026-03-08"));
}

/// A cut-off in the gap (02:00 on 2026-03-08 does not exist in New York):
/// the day begins when the clocks reach it, 03:00 EDT (07:00 UTC). A cut-off
/// that happens twice (01:00 on 2026-11-01): the first, 01:00 EDT (05:00 UTC).
#[test]
fn a_cut_off_in_the_gap_or_the_fold() {
    let c = calendar("America/New_York", 2);
    assert_eq!(c.window(date("2026-03-07")), (1_772_866_800_000, 1_772_953_200_000));
    assert_eq!(c.window(date("2026-03-08")).1 - c.window(date("2026-03-08")).0, 23 * H);
    let c = calendar("America/New_York", 1);
    assert_eq!(c.start(date("2026-11-01")), 1_793_509_200_000);
    assert_eq!(c.window(date("2026-11-01")).1 - c.start(date("2026-11-01")), 25 * H);
}

/// 2026-03-10 06:00 UTC.
const T: u64 = 1_773_122_400_000;

#[test]
fn a_change_applies_from_the_next_day_not_yet_begun() {
    let tokyo = || GamingDay::parse("Asia/Tokyo", 4).unwrap();
    // Set at 12:00 UTC on the 10th: Tokyo's day of the 11th begins at 04:00
    // JST = 19:00 UTC on the 10th, still to come: the 10th ends there.
    let mut c = Calendar::default();
    c.set(T + 6 * H, tokyo());
    assert_eq!(c.window(date("2026-03-10")), (T, T + 13 * H));
    assert_eq!(c.window(date("2026-03-11")), (T + 13 * H, T + 37 * H));
    assert_eq!(c.in_force(date("2026-03-10")).zone(), "UTC");
    assert_eq!(c.in_force(date("2026-03-11")).zone(), "Asia/Tokyo");
    // Set at 20:00 UTC: Tokyo's 11th has begun (19:00 UTC); the 11th keeps
    // the old setting, begins at 06:00 UTC and ends at Tokyo's 12th.
    let mut c = Calendar::default();
    c.set(T + 14 * H, tokyo());
    assert_eq!(c.window(date("2026-03-10")), (T, T + 24 * H));
    assert_eq!(c.window(date("2026-03-11")), (T + 24 * H, T + 37 * H));
    assert_eq!(c.in_force(date("2026-03-11")).zone(), "UTC");
    assert_eq!(c.in_force(date("2026-03-12")).zone(), "Asia/Tokyo");
    // Two changes before the day begins: the last one is the day's.
    c.set(T + 15 * H, GamingDay::parse("UTC", 8).unwrap());
    assert_eq!(c.in_force(date("2026-03-12")).cutoff_hour(), 8);
}

/// From UTC-12 at 23:00 (a day begins at 11:00 UTC the next date) to UTC
/// at 00:00, set at 00:00 UTC on the 12th (inside day the 10th): the 11th
/// runs on the old setting; the 12th would begin (13th 11:00 UTC, old) after
/// the 13th (13th 00:00 UTC, new), so it is empty, and no instant is lost.
#[test]
fn a_date_the_change_leaves_no_time_is_an_empty_day() {
    let mut c = calendar("Etc/GMT+12", 23);
    let at = T + 42 * H; // 2026-03-12 00:00 UTC
    assert_eq!(c.date_of(at), date("2026-03-10"));
    c.set(at, GamingDay::parse("UTC", 0).unwrap());
    let (a, b) = c.window(date("2026-03-12"));
    assert_eq!(a, b, "empty");
    assert_eq!(c.window(date("2026-03-11")).1, a);
    assert_eq!(c.window(date("2026-03-13")).0, a);
    assert_eq!(c.date_of(a), date("2026-03-13"));
}

#[test]
fn bad_settings_and_dates_name_their_field() {
    let e = |z: &str, h: i64| GamingDay::parse(z, h).unwrap_err().to_string();
    assert!(e("Mars/Olympus_Mons", 6).starts_with("zone: "), "{}", e("Mars/Olympus_Mons", 6));
    assert!(e("../../etc/passwd", 6).starts_with("zone: "));
    assert!(e("EST5EDT,M3.2.0,M11.1.0", 6).starts_with("zone: "), "a POSIX string is no IANA name");
    assert!(e("", 6).starts_with("zone: "));
    assert_eq!(e("UTC", 24), "cutoff_hour: 24 is not an hour from 0 to 23");
    assert_eq!(e("UTC", -1), "cutoff_hour: -1 is not an hour from 0 to 23");
    for d in ["2026-3-10", "2026-02-30", "1969-12-31", "1970-01-01", "10000-01-01", "2026-03-10T00:00", "", "20260310"]
    {
        let m = parse_date(d).unwrap_err().to_string();
        assert!(m.starts_with("date: "), "{d}: {m}");
    }
    assert_eq!(parse_date("2026-03-10").unwrap().to_string(), "2026-03-10");
    // Kept as the database spells it, however it was asked for.
    assert_eq!(GamingDay::parse("america/new_york", 0).unwrap().zone(), "America/New_York");
    assert_eq!(GamingDay::parse("asia/tokyo", 4).unwrap().zone(), "Asia/Tokyo");
    assert!(e("/etc/localtime", 6).starts_with("zone: "), "no file is read");
}

const ZONES: [&str; 6] =
    ["UTC", "America/New_York", "Asia/Tokyo", "Pacific/Kiritimati", "Etc/GMT+12", "Australia/Sydney"];

proptest! {
    /// Whatever changes are made, whenever: every instant is in exactly one
    /// day (the days' windows follow one another), and no instant up to a
    /// change moves to another day because of it.
    #[test]
    fn changes_never_move_what_has_happened(
        changes in prop::collection::vec((0usize..6, 0i64..24, 0u64..72 * H), 1..5),
        probes in prop::collection::vec(0u64..(30 * 24 * H), 20),
    ) {
        let base = T - 10 * 24 * H;
        let mut c = Calendar::default();
        let mut at = base;
        for (z, h, gap) in changes {
            at += gap;
            let before = c.clone();
            c.set(at, GamingDay::parse(ZONES[z], h).unwrap());
            for &p in &probes {
                let ms = base + p;
                let d = c.date_of(ms);
                let (from, to) = c.window(d);
                prop_assert!(from <= ms && ms < to, "{ms} in {d} = [{from}, {to})");
                if ms <= at {
                    prop_assert_eq!(before.date_of(ms), d, "{} moved by the change at {}", ms, at);
                }
            }
            let mut d = date("2026-02-20");
            while d < date("2026-03-30") {
                let next = d.tomorrow().unwrap();
                prop_assert_eq!(c.window(d).1, c.window(next).0);
                prop_assert!(c.window(d).0 <= c.window(d).1);
                d = next;
            }
        }
    }
}
