//! UTC calendar dates of times in milliseconds since the epoch, for what is
//! kept by month: archive files (`store/archive.rs`) and PostgreSQL's monthly
//! partitions (`pg_store.rs`). Howard Hinnant's `civil_from_days` and
//! `days_from_civil`, in integers: no time-zone database is needed, since
//! every period here is a UTC month.

const DAY_MS: u64 = 86_400_000;

/// The (year, month, day) of a time in ms since the epoch, in UTC.
pub fn civil_date(ms: u64) -> (i64, i64, i64) {
    let z = (ms / DAY_MS) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Days since 1970-01-01 of a (year, month, day) in the proleptic Gregorian
/// calendar.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The first millisecond of the UTC month holding `ms`.
pub fn month_start(ms: u64) -> u64 {
    let (y, m, _) = civil_date(ms);
    days_from_civil(y, m, 1).max(0) as u64 * DAY_MS
}

/// The first millisecond of the UTC month after the one holding `ms`.
pub fn next_month_start(ms: u64) -> u64 {
    let (y, m, _) = civil_date(ms);
    let (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
    days_from_civil(y, m, 1).max(0) as u64 * DAY_MS
}

/// `YYYY-MM` of the UTC month holding `ms`.
pub fn year_month(ms: u64) -> String {
    let (y, m, _) = civil_date(ms);
    format!("{y:04}-{m:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_civil() {
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(951_782_400_000), (2000, 2, 29));
        assert_eq!(civil_date(1_795_478_400_000), (2026, 11, 24));
        assert_eq!(year_month(1_795_478_400_000), "2026-11");
    }

    /// Every day from 1970 to 2200 goes there and back, and each month's
    /// start is a first of the month with the previous day in the month before.
    #[test]
    fn every_day_round_trips_and_months_start_on_the_first() {
        for day in 0..(230 * 366) {
            let ms = day as u64 * DAY_MS + 12_345;
            let (y, m, d) = civil_date(ms);
            assert_eq!(days_from_civil(y, m, d), day, "{y}-{m}-{d}");
            let start = month_start(ms);
            assert!(start <= ms && ms < next_month_start(ms));
            assert_eq!(civil_date(start), (y, m, 1));
            assert_eq!(civil_date(next_month_start(ms)).2, 1);
            if start > 0 {
                assert_ne!(civil_date(start - 1).1, m, "the millisecond before a month is in the month before");
            }
        }
    }
}
