//! The gaming day: the period a casino's books are closed over.
//!
//! The rulebooks are silent on it (none of NSW, AU, EU or the resort house's
//! mentions a gaming day, a business day or a cut-off). Casinos close their
//! day at a fixed local hour, early in the morning when play is thinnest, so
//! that a night's play falls in one day. So here: a time zone (an IANA name,
//! from the database bundled into the binary by `jiff`, never read from the
//! machine, so every server and every `verify` dates a record alike) and a
//! cut-off hour 0 to 23. Gaming day `D` runs from `D` at the cut-off, local
//! time, to `D + 1` at the cut-off. Until a casino sets its own, UTC at 06:00.
//!
//! Where the cut-off falls in a spring-forward gap, the day begins when the
//! clocks reach it (02:00 that does not exist begins at 03:00); where it falls
//! twice (fall back), at the first (`jiff`'s "compatible" rule). A day is then
//! 23 or 25 hours long.
//!
//! A change applies from the next gaming day that has not begun: the first
//! date after the day in progress whose start under the new setting is still
//! to come. Should the new setting make a day begin before the one in
//! progress would have ended under the old (a zone far to the east), the day
//! in progress ends there; should the new setting's next start come only
//! after a date's old start, that date runs on to it. Every instant belongs
//! to exactly one gaming day, no record is counted twice or not at all, and
//! no day that has begun is changed back past the moment of the change.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::Timestamp;

/// The setting recorded when none is: UTC, cut-off 06:00.
pub const DEFAULT_ZONE: &str = "UTC";
pub const DEFAULT_CUTOFF_HOUR: u8 = 6;

/// The first and last dates a report may ask for: the books count time from
/// the epoch on, and the bundled calendar ends with the year 9999.
pub const FIRST_DATE: Date = Date::constant(1970, 1, 2);
pub const LAST_DATE: Date = Date::constant(9999, 12, 30);

/// Why a setting or a date is refused, naming the field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GamingDayError {
    #[error("zone: {0:?} is not an IANA time zone name (e.g. \"Australia/Sydney\", \"UTC\")")]
    Zone(String),
    #[error("cutoff_hour: {0} is not an hour from 0 to 23")]
    Hour(i64),
    #[error("date: {0:?} is not a date written YYYY-MM-DD from 1970-01-02 to 9999-12-30")]
    Date(String),
}

/// One setting: a zone and the local hour a gaming day begins.
#[derive(Clone, Debug)]
pub struct GamingDay {
    zone: TimeZone,
    name: String,
    cutoff_hour: u8,
}

impl PartialEq for GamingDay {
    fn eq(&self, o: &GamingDay) -> bool {
        self.name == o.name && self.cutoff_hour == o.cutoff_hour
    }
}

impl Default for GamingDay {
    fn default() -> GamingDay {
        GamingDay::parse(DEFAULT_ZONE, i64::from(DEFAULT_CUTOFF_HOUR)).expect("UTC is in every database")
    }
}

impl GamingDay {
    /// A setting from a zone's IANA name and an hour, each checked. The name
    /// is kept as the database spells it (`america/new_york` is kept as
    /// `America/New_York`).
    pub fn parse(zone: &str, cutoff_hour: i64) -> Result<GamingDay, GamingDayError> {
        let hour = u8::try_from(cutoff_hour).ok().filter(|h| *h < 24).ok_or(GamingDayError::Hour(cutoff_hour))?;
        // `TimeZone::get` also takes a POSIX TZ string or a path on some
        // builds; only a name the bundled database lists is a casino's zone.
        if zone.is_empty()
            || zone.len() > 64
            || !zone.bytes().all(|b| b.is_ascii_alphanumeric() || b"/_-+".contains(&b))
        {
            return Err(GamingDayError::Zone(zone.to_string()));
        }
        let tz = TimeZone::get(zone).map_err(|_| GamingDayError::Zone(zone.to_string()))?;
        let name = tz.iana_name().unwrap_or(zone).to_string();
        Ok(GamingDay { zone: tz, name, cutoff_hour: hour })
    }

    pub fn zone(&self) -> &str {
        &self.name
    }

    pub fn cutoff_hour(&self) -> u8 {
        self.cutoff_hour
    }

    /// When gaming day `date` begins under this setting alone (ms since the
    /// epoch; before 1970 it is 0).
    pub fn start(&self, date: Date) -> u64 {
        let local = date.at(self.cutoff_hour as i8, 0, 0, 0);
        // Every date from FIRST_DATE to LAST_DATE + 1 at any hour is in range.
        let ts =
            self.zone.to_timestamp(local).unwrap_or(if date.year() < 1970 { Timestamp::MIN } else { Timestamp::MAX });
        u64::try_from(ts.as_millisecond()).unwrap_or(0)
    }

    /// The gaming day holding `ms` under this setting alone (a first guess
    /// for [`Calendar::date_of`]).
    fn guess(&self, ms: u64) -> Date {
        let ts = Timestamp::from_millisecond(i64::try_from(ms).unwrap_or(i64::MAX)).unwrap_or(Timestamp::MAX);
        let local = self.zone.to_datetime(ts);
        let date = local.date();
        if local.hour() < self.cutoff_hour as i8 {
            date.yesterday().unwrap_or(date)
        } else {
            date
        }
    }
}

/// Parse a report's date, `YYYY-MM-DD`, naming the field.
pub fn parse_date(text: &str) -> Result<Date, GamingDayError> {
    let bad = || GamingDayError::Date(text.to_string());
    // `jiff` also reads other ISO 8601 forms; a report's date is this one.
    let b = text.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return Err(bad());
    }
    let d: Date = text.parse().map_err(|_| bad())?;
    if d < FIRST_DATE || d > LAST_DATE {
        return Err(bad());
    }
    Ok(d)
}

fn next(d: Date) -> Date {
    d.tomorrow().unwrap_or(d)
}

fn prev(d: Date) -> Date {
    d.yesterday().unwrap_or(d)
}

/// The casino's settings over time: each in force from its first date.
#[derive(Clone, Debug)]
pub struct Calendar {
    /// `(from, setting)`, by `from`; the first from the beginning of time.
    segments: Vec<(Date, GamingDay)>,
}

impl Default for Calendar {
    fn default() -> Calendar {
        Calendar { segments: vec![(Date::MIN, GamingDay::default())] }
    }
}

impl Calendar {
    /// A setting made at `at_ms`: in force from the first date after the
    /// gaming day in progress then whose start under it is after `at_ms`.
    /// A later change before that date replaces it (the last setting made
    /// before a day begins is the one it runs under).
    pub fn set(&mut self, at_ms: u64, day: GamingDay) {
        let mut from = next(self.date_of(at_ms));
        while day.start(from) <= at_ms && from < LAST_DATE {
            from = next(from);
        }
        self.segments.retain(|(f, _)| *f < from);
        self.segments.push((from, day));
    }

    /// The setting made last and the first gaming day it runs (`None`: the
    /// default, never set).
    pub fn latest(&self) -> (Option<Date>, &GamingDay) {
        let (from, day) = &self.segments[self.segments.len() - 1];
        ((*from != Date::MIN).then_some(*from), day)
    }

    /// The setting gaming day `date` runs under.
    pub fn in_force(&self, date: Date) -> &GamingDay {
        let i = self.segments.partition_point(|(f, _)| *f <= date);
        &self.segments[i.max(1) - 1].1
    }

    /// When gaming day `date` begins: the latest start any setting in force
    /// up to it gives (so the days never run backwards, see the module doc).
    pub fn start(&self, date: Date) -> u64 {
        let mut start = 0;
        for (i, (from, day)) in self.segments.iter().enumerate() {
            if *from > date {
                break;
            }
            let last = self.segments.get(i + 1).map_or(date, |(f, _)| date.min(prev(*f)));
            start = start.max(day.start(last));
        }
        start
    }

    /// Gaming day `date` as `[from_ms, to_ms)`.
    pub fn window(&self, date: Date) -> (u64, u64) {
        (self.start(date), self.start(next(date)))
    }

    /// The gaming day holding `ms`.
    pub fn date_of(&self, ms: u64) -> Date {
        let last = &self.segments[self.segments.len() - 1].1;
        let mut d = last.guess(ms).clamp(FIRST_DATE, LAST_DATE);
        while d > FIRST_DATE && self.start(d) > ms {
            d = prev(d);
        }
        while d < LAST_DATE && self.start(next(d)) <= ms {
            d = next(d);
        }
        d
    }
}

#[cfg(test)]
mod tests;
