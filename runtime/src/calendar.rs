//! Dates and date-times without a calendar crate: days and milliseconds since
//! 1970-01-01 (proleptic Gregorian), their text forms, and parsing them.

use std::fmt;

/// A calendar date, as days since 1970-01-01 (proleptic Gregorian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

impl Date {
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        Some(Date(days_from_civil(year, month, day)))
    }

    pub fn ymd(self) -> (i32, u32, u32) {
        civil_from_days(self.0)
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

/// A date and time without time zone, in milliseconds since 1970-01-01T00:00:00.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub i64);

const MS_PER_DAY: i64 = 86_400_000;

impl DateTime {
    pub fn new(date: Date, hour: u32, minute: u32, second: u32, milli: u32) -> Option<DateTime> {
        if hour > 23 || minute > 59 || second > 59 || milli > 999 {
            return None;
        }
        let ms = i64::from(((hour * 60 + minute) * 60 + second) * 1000 + milli);
        Some(DateTime(i64::from(date.0) * MS_PER_DAY + ms))
    }

    pub fn date(self) -> Date {
        Date(self.0.div_euclid(MS_PER_DAY) as i32)
    }

    /// Milliseconds since midnight.
    pub fn time_of_day(self) -> i64 {
        self.0.rem_euclid(MS_PER_DAY)
    }
}

impl fmt::Display for DateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ms = self.time_of_day();
        let (h, rest) = (ms / 3_600_000, ms % 3_600_000);
        let (m, rest) = (rest / 60_000, rest % 60_000);
        let (s, milli) = (rest / 1000, rest % 1000);
        write!(f, "{}T{h:02}:{m:02}:{s:02}", self.date())?;
        if milli != 0 {
            write!(f, ".{milli:03}")?;
        }
        Ok(())
    }
}

fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        _ => 28,
    }
}

// Howard Hinnant's civil calendar algorithms.
fn days_from_civil(year: i32, month: u32, day: u32) -> i32 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy as i32;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i32) -> (i32, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i32::from(month <= 2);
    (year, month, day)
}

/// `2024-04-01` or `2024/04/01` (as Japanese spreadsheets write dates); the month and day
/// may have one digit.
pub fn parse_date(text: &str) -> Option<Date> {
    let sep = if text.contains('/') { '/' } else { '-' };
    let mut parts = text.splitn(3, sep);
    let year = parts.next()?;
    let month = parts.next()?;
    let day = parts.next()?;
    let all_digits = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.bytes().all(|b| b.is_ascii_digit())
    };
    if year.len() != 4 || !all_digits(year, 4) || !all_digits(month, 2) || !all_digits(day, 2) {
        return None;
    }
    Date::from_ymd(year.parse().ok()?, month.parse().ok()?, day.parse().ok()?)
}

/// A date, then `T` or a space, then `HH:MM`, optionally `:SS` and `.fff`.
pub fn parse_datetime(text: &str) -> Option<DateTime> {
    let split = text.find(['T', ' '])?;
    let date = parse_date(&text[..split])?;
    let time = text[split + 1..].trim();
    let (hms, fraction) = match time.split_once('.') {
        Some((hms, fraction)) => (hms, Some(fraction)),
        None => (time, None),
    };
    let mut parts = hms.split(':');
    let number = |s: Option<&str>| -> Option<u32> {
        let s = s?;
        (!s.is_empty() && s.len() <= 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let hour = number(parts.next())?;
    let minute = number(parts.next())?;
    let second = match parts.next() {
        Some(s) => number(Some(s))?,
        None => 0,
    };
    if parts.next().is_some() {
        return None;
    }
    let milli = match fraction {
        None => 0,
        Some(f) if !f.is_empty() && f.len() <= 3 && f.bytes().all(|b| b.is_ascii_digit()) => {
            format!("{f:0<3}").parse().ok()?
        }
        Some(_) => return None,
    };
    DateTime::new(date, hour, minute, second, milli)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_through_days() {
        for (y, m, d) in [
            (1970, 1, 1),
            (2000, 2, 29),
            (1899, 12, 30),
            (2024, 12, 31),
            (9999, 12, 31),
        ] {
            let date = Date::from_ymd(y, m, d).unwrap();
            assert_eq!(date.ymd(), (y, m, d));
        }
        assert_eq!(Date::from_ymd(1970, 1, 1), Some(Date(0)));
        assert_eq!(Date::from_ymd(2023, 2, 29), None);
    }
}
