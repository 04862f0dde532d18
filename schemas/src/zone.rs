//! Time zones: what a datetime written without an offset means, and how an instant is
//! shown to people.
//!
//! A `datetime` is an instant. A workbook cell or CSV text may carry an offset
//! (`2025-02-01T12:00:00+09:00`, `…Z`); one without is a wall-clock time in the
//! project's `timezone` (an IANA name, `Asia/Tokyo`; UTC when none is set), as is an
//! Excel date cell. Canonical files and builds hold the instant in UTC. The zone rules
//! come from the time zone database compiled into masterctl, never the machine's, so
//! every clone reads the same workbook as the same instants.

use masterctl_runtime::calendar::{Date, DateTime, parse_date, parse_datetime_parts};

/// The instant a datetime text names: its offset applied, or, without one, read as a
/// wall-clock time in `zone` (`None`: UTC). A date alone (`2024-04-01`) is that day's
/// midnight, as Excel and Luban read one.
pub fn read_datetime(text: &str, zone: Option<&Zone>) -> Option<DateTime> {
    let midnight = || Some((DateTime::new(parse_date(text)?, 0, 0, 0, 0)?, None));
    let (wall, offset) = parse_datetime_parts(text).or_else(midnight)?;
    match (offset, zone) {
        (Some(offset), _) => Some(wall.at_offset(offset)),
        (None, Some(zone)) => zone.instant(wall),
        (None, None) => Some(wall),
    }
}

/// A project's time zone (UTC unless `timezone` names another).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Zone {
    name: String,
    tz: jiff::tz::TimeZone,
}

impl Default for Zone {
    fn default() -> Zone {
        Zone::utc()
    }
}

impl Zone {
    pub fn utc() -> Zone {
        Zone {
            name: "UTC".to_string(),
            tz: jiff::tz::TimeZone::UTC,
        }
    }

    /// The zone an IANA name (`Asia/Tokyo`, `UTC`) names, or why it names none.
    pub fn named(name: &str) -> Result<Zone, String> {
        let tz = jiff::tz::TimeZone::get(name).map_err(|e| e.to_string())?;
        let name = tz.iana_name().unwrap_or(name).to_string();
        Ok(Zone { name, tz })
    }

    /// Its IANA name (`UTC` by default).
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn is_utc(&self) -> bool {
        self.tz == jiff::tz::TimeZone::UTC
    }

    /// The instant a wall-clock time here names (`wall` in milliseconds as if it were
    /// UTC). A time a daylight-saving change skips is read as the same length after the
    /// change; a time it repeats, as its first occurrence (RFC 5545, Temporal's
    /// "compatible"). `None` outside the range a timestamp holds.
    pub fn instant(&self, wall: DateTime) -> Option<DateTime> {
        if self.is_utc() {
            return Some(wall);
        }
        let civil = civil(wall)?;
        let timestamp = self.tz.to_timestamp(civil).ok()?;
        Some(DateTime(timestamp.as_millisecond()))
    }

    /// The offset from UTC here at `instant`, in seconds east.
    pub fn offset(&self, instant: DateTime) -> i32 {
        if self.is_utc() {
            return 0;
        }
        match jiff::Timestamp::from_millisecond(instant.0) {
            Ok(timestamp) => self.tz.to_offset(timestamp).seconds(),
            Err(_) => 0,
        }
    }

    /// The wall-clock time here at `instant` (milliseconds as if it were UTC).
    pub fn wall(&self, instant: DateTime) -> DateTime {
        DateTime(instant.0 + i64::from(self.offset(instant)) * 1000)
    }

    /// `instant` as people here read it, with its offset: `2025-02-01T12:00:00+09:00`
    /// (`…Z` in UTC).
    pub fn show(&self, instant: DateTime) -> String {
        self.wall(instant).with_offset(self.offset(instant))
    }
}

/// A wall-clock time (milliseconds as if UTC) as jiff's civil time.
fn civil(wall: DateTime) -> Option<jiff::civil::DateTime> {
    let (year, month, day) = wall.date().ymd();
    let ms = wall.time_of_day();
    let date = Date::from_ymd(year, month, day)?;
    debug_assert_eq!(date, wall.date());
    jiff::civil::DateTime::new(
        i16::try_from(year).ok()?,
        month as i8,
        day as i8,
        (ms / 3_600_000) as i8,
        (ms / 60_000 % 60) as i8,
        (ms / 1000 % 60) as i8,
        (ms % 1000) as i32 * 1_000_000,
    )
    .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_runtime::calendar::parse_datetime;

    fn at(text: &str) -> DateTime {
        parse_datetime(text).unwrap()
    }

    #[test]
    fn a_wall_clock_time_in_tokyo_is_nine_hours_ahead_of_utc() {
        let tokyo = Zone::named("Asia/Tokyo").unwrap();
        assert_eq!(tokyo.name(), "Asia/Tokyo");
        let instant = tokyo.instant(at("2025-02-01T12:00:00")).unwrap();
        assert_eq!(instant.to_string(), "2025-02-01T03:00:00Z");
        assert_eq!(tokyo.show(instant), "2025-02-01T12:00:00+09:00");
        assert_eq!(tokyo.wall(instant), at("2025-02-01T12:00:00"));
        assert_eq!(Zone::utc().show(instant), "2025-02-01T03:00:00Z");
    }

    #[test]
    fn daylight_saving_gaps_and_folds_have_one_reading() {
        let new_york = Zone::named("America/New_York").unwrap();
        // 02:30 does not exist on 2025-03-09: read as 03:30 EDT.
        let gap = new_york.instant(at("2025-03-09T02:30:00")).unwrap();
        assert_eq!(gap.to_string(), "2025-03-09T07:30:00Z");
        assert_eq!(new_york.show(gap), "2025-03-09T03:30:00-04:00");
        // 01:30 happens twice on 2025-11-02: the first, EDT.
        let fold = new_york.instant(at("2025-11-02T01:30:00")).unwrap();
        assert_eq!(fold.to_string(), "2025-11-02T05:30:00Z");
        // Summer and winter offsets.
        assert_eq!(new_york.offset(at("2025-07-01T00:00:00")), -4 * 3600);
        assert_eq!(new_york.offset(at("2025-01-01T00:00:00")), -5 * 3600);
    }

    #[test]
    fn names_that_are_no_zone_are_refused() {
        assert!(Zone::named("Asia/Tokio").is_err());
        assert!(Zone::named("JST").is_err());
        assert!(Zone::named("../../etc/passwd").is_err());
        assert_eq!(Zone::named("UTC").unwrap(), Zone::utc());
    }
}
