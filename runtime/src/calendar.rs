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
        // Years 0 to 9999, nearly every date, spelled digit by digit: a table's dates
        // are written by the hundred thousand, and the formatting machinery was most of
        // it.
        match u32::try_from(y).ok().filter(|&y| y <= 9999) {
            Some(y) => {
                let digit = |n: u32| b'0' + (n % 10) as u8;
                let text = [
                    digit(y / 1000),
                    digit(y / 100),
                    digit(y / 10),
                    digit(y),
                    b'-',
                    digit(m / 10),
                    digit(m),
                    b'-',
                    digit(d / 10),
                    digit(d),
                ];
                f.write_str(std::str::from_utf8(&text).map_err(|_| fmt::Error)?)
            }
            None => write!(f, "{y:04}-{m:02}-{d:02}"),
        }
    }
}

/// An instant, in milliseconds since 1970-01-01T00:00:00Z (UTC). Its text form is UTC
/// with `Z` (`2025-02-01T03:00:00Z`). (The same type holds a wall-clock time — what a
/// clock in some zone shows — where a function says so.)
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
        f.write_str("Z")
    }
}

impl DateTime {
    /// The instant this wall-clock time names at `offset` (seconds east of UTC).
    pub fn at_offset(self, offset: i32) -> DateTime {
        DateTime(self.0 - i64::from(offset) * 1000)
    }

    /// This value read as a wall-clock time, shown with `offset` (seconds east of UTC):
    /// `2025-02-01T12:00:00+09:00`; `Z` for a zero offset.
    pub fn with_offset(self, offset: i32) -> String {
        let text = self.to_string();
        if offset == 0 {
            return text;
        }
        let wall = text.strip_suffix('Z').unwrap_or(&text);
        let sign = if offset < 0 { '-' } else { '+' };
        let minutes = offset.unsigned_abs() / 60;
        format!("{wall}{sign}{:02}:{:02}", minutes / 60, minutes % 60)
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
/// may have one digit; or `20240401`, eight digits (as tableau and many studios write
/// them).
pub fn parse_date(text: &str) -> Option<Date> {
    if text.len() == 8 && text.bytes().all(|b| b.is_ascii_digit()) {
        return compact_date(text.parse().ok()?);
    }
    // As most dates are written, read without splitting.
    if let &[y0, y1, y2, y3, b'-', m0, m1, b'-', d0, d1] = text.as_bytes()
        && [y0, y1, y2, y3, m0, m1, d0, d1]
            .iter()
            .all(u8::is_ascii_digit)
    {
        let number = |digits: &[u8]| digits.iter().fold(0, |n, d| n * 10 + u32::from(d - b'0'));
        let year = i32::try_from(number(&[y0, y1, y2, y3])).ok()?;
        return Date::from_ymd(year, number(&[m0, m1]), number(&[d0, d1]));
    }
    parse_date_parts(text)
}

/// `20240401` written as a number: the date of its eight digits (a year from 1000).
pub fn compact_date(number: i64) -> Option<Date> {
    if !(10_000_101..=99_991_231).contains(&number) {
        return None;
    }
    let year = i32::try_from(number / 10_000).ok()?;
    let (month, day) = ((number / 100 % 100) as u32, (number % 100) as u32);
    Date::from_ymd(year, month, day)
}

/// [`parse_date`] of any spelling, its parts split at the separator.
fn parse_date_parts(text: &str) -> Option<Date> {
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

/// An instant: [`parse_datetime_parts`], its offset applied (none: UTC).
pub fn parse_datetime(text: &str) -> Option<DateTime> {
    let (wall, offset) = parse_datetime_parts(text)?;
    Some(wall.at_offset(offset.unwrap_or(0)))
}

/// A date, then `T` or a space, then `HH:MM`, optionally `:SS` and `.fff`, optionally
/// an offset: `Z`, `+09:00`, `+0900`, `+09` (a space before it allowed). Returns the
/// wall-clock time as written and the offset in seconds east of UTC, if one was given.
pub fn parse_datetime_parts(text: &str) -> Option<(DateTime, Option<i32>)> {
    let split = text.find(['T', ' '])?;
    let date = parse_date(&text[..split])?;
    let (time, offset) = split_offset(text[split + 1..].trim())?;
    let wall = parse_time(date, time.trim_end())?;
    Some((wall, offset))
}

/// A time of day and what follows it: the offset, when the text ends in one.
fn split_offset(time: &str) -> Option<(&str, Option<i32>)> {
    if let Some(rest) = time.strip_suffix(['Z', 'z']) {
        return Some((rest, Some(0)));
    }
    let Some(at) = time.rfind(['+', '-']) else {
        return Some((time, None));
    };
    let (rest, offset) = time.split_at(at);
    let sign = if offset.starts_with('-') { -1 } else { 1 };
    let body = &offset[1..];
    if !body.is_ascii() {
        return None;
    }
    let (hours, minutes) = match body.len() {
        2 => (body, "00"),
        4 => body.split_at(2),
        5 if body.as_bytes()[2] == b':' => (&body[..2], &body[3..]),
        _ => return None,
    };
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if !digits(hours) || !digits(minutes) {
        return None;
    }
    let (hours, minutes): (i32, i32) = (hours.parse().ok()?, minutes.parse().ok()?);
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some((rest, Some(sign * (hours * 3600 + minutes * 60))))
}

/// `HH:MM`, optionally `:SS` and `.fff`, on `date`.
fn parse_time(date: Date, time: &str) -> Option<DateTime> {
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

    /// A date written `YYYY-MM-DD` is read without splitting, as split: every month and
    /// day from 00 to 39 of leap and common years, the ends of the range, and near
    /// misses.
    #[test]
    fn a_date_read_whole_is_the_date_read_in_parts() {
        let mut texts: Vec<String> = ["2024", "2023", "1900", "2000", "0000", "9999"]
            .iter()
            .flat_map(|y| {
                (0..40).flat_map(move |m| (0..40).map(move |d| format!("{y}-{m:02}-{d:02}")))
            })
            .collect();
        texts.extend(
            [
                "2024-1-01",
                "2024-01-1",
                "2024/01/01",
                "2024-01-0a",
                "+024-01-01",
                "２０２４-01-01",
            ]
            .map(String::from),
        );
        for text in &texts {
            assert_eq!(parse_date(text), parse_date_parts(text), "{text}");
        }
        assert!(parse_date("2024-02-29").is_some() && parse_date("2023-02-29").is_none());
        assert_eq!(parse_date("20221010"), parse_date("2022-10-10"));
        for not_a_date in ["20221310", "20220230", "00001010", "2022101", "202210100"] {
            assert!(parse_date(not_a_date).is_none(), "{not_a_date}");
        }
    }

    /// A date's text is `{year:04}-{month:02}-{day:02}` whichever way it is written:
    /// every day of years 0 to 9999 sampled, their ends, and years outside them.
    #[test]
    fn a_date_is_shown_as_its_year_month_and_day_padded() {
        let first = Date::from_ymd(-12, 1, 1).unwrap().0;
        let last = Date::from_ymd(10_001, 12, 31).unwrap().0;
        let days = (first..=last).step_by(97).chain([
            Date::from_ymd(0, 1, 1).unwrap().0,
            Date::from_ymd(9999, 12, 31).unwrap().0,
            Date::from_ymd(10_000, 1, 1).unwrap().0,
            Date::from_ymd(-1, 12, 31).unwrap().0,
        ]);
        for day in days {
            let date = Date(day);
            let (y, m, d) = date.ymd();
            assert_eq!(
                date.to_string(),
                format!("{y:04}-{m:02}-{d:02}"),
                "day {day}"
            );
        }
    }

    #[test]
    fn datetimes_take_an_offset_and_show_utc() {
        let noon_tokyo = parse_datetime("2025-02-01T12:00:00+09:00").unwrap();
        assert_eq!(noon_tokyo.to_string(), "2025-02-01T03:00:00Z");
        for same in [
            "2025-02-01T03:00:00Z",
            "2025-02-01 03:00z",
            "2025-02-01T03:00:00",
            "2025-02-01T12:00+0900",
            "2025-02-01T12:00:00 +09",
            "2025-01-31T22:00:00-05:00",
        ] {
            assert_eq!(parse_datetime(same), Some(noon_tokyo), "{same}");
        }
        assert_eq!(
            parse_datetime_parts("2025-02-01T12:00:00+09:30"),
            Some((
                parse_datetime("2025-02-01T12:00:00").unwrap(),
                Some(9 * 3600 + 1800)
            ))
        );
        for wrong in [
            "2025-02-01T12:00:00+9",
            "2025-02-01T12:00:00+24:00",
            "2025-02-01T12:00:00+09:0",
            "2025-02-01T12:00:00+0:900",
            "2025-02-01T12:00:00 JST",
            "2025-02-01T12:00:00+1é2",
            "2025-02-01T12:00:00+09:",
        ] {
            assert_eq!(parse_datetime(wrong), None, "{wrong}");
        }
        assert_eq!(
            parse_datetime("2025-02-01T12:00:00")
                .unwrap()
                .with_offset(9 * 3600),
            "2025-02-01T12:00:00+09:00"
        );
        assert_eq!(
            parse_datetime("2025-02-01T12:00:00.5")
                .unwrap()
                .with_offset(-(3 * 3600 + 1800)),
            "2025-02-01T12:00:00.500-03:30"
        );
    }

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
