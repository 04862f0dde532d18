//! Which cell formats show a number as a date or a duration, and how finely a date's
//! time: a cell's `s` indexes the workbook's cell formats (`<cellXfs>` in `styles.xml`),
//! each naming a number format, built in (by id) or the workbook's own (by its code).

use std::collections::HashMap;

use super::tokens::{Token, Tokens, attribute};

/// What a number format makes of a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Number,
    /// A date, a time of day, or both, its seconds shown with `fraction` digits after
    /// the point (0 to 3: `ss`, `ss.0`, `ss.00`, `ss.000`) — what the cell says, and so
    /// what it is read as ([`Format::shown`]).
    DateTime {
        fraction: u8,
    },
    /// Elapsed time (`[h]:mm:ss`).
    Duration,
}

impl Format {
    /// A serial as this format shows it: a date-time rounded to the fraction of a
    /// second it shows, as Excel rounds what it displays (`36528.0034721644` under
    /// `yyyy-mm-dd hh:mm:ss` is 2000-01-03 00:05:00, not 00:04:59.995); anything else
    /// as it is.
    pub(super) fn shown(self, serial: f64) -> f64 {
        match self {
            Format::DateTime { fraction } => {
                let units = 86_400.0 * 10f64.powi(i32::from(fraction.min(3)));
                (serial * units).round() / units
            }
            Format::Number | Format::Duration => serial,
        }
    }
}

/// The date-time format that shows whole seconds (or none).
const DATE_TIME: Format = Format::DateTime { fraction: 0 };

/// The number format of each cell format, in order.
pub(super) fn cell_formats(tokens: &mut Tokens<'_>) -> Result<Vec<Format>, String> {
    let mut codes: HashMap<String, String> = HashMap::new();
    let mut formats = Vec::new();
    let mut in_cell_formats = false;
    while let Some(token) = tokens.next()? {
        match token {
            Token::Start {
                name: "numFmt",
                attributes,
            } => {
                if let (Some(id), Some(code)) = (
                    attribute(attributes, "numFmtId")?,
                    attribute(attributes, "formatCode")?,
                ) {
                    codes.insert(id.into_owned(), code.into_owned());
                }
            }
            Token::Start {
                name: "cellXfs", ..
            } => in_cell_formats = true,
            Token::End("cellXfs") => in_cell_formats = false,
            Token::Start {
                name: "xf",
                attributes,
            } if in_cell_formats => {
                formats.push(match attribute(attributes, "numFmtId")? {
                    None => Format::Number,
                    Some(id) => match codes.get(&*id) {
                        Some(code) => of_code(code),
                        None => built_in(&id),
                    },
                });
            }
            _ => {}
        }
    }
    Ok(formats)
}

/// The built-in number formats (ECMA-376 18.8.30) that show dates and times: 14–22,
/// 45 and 47 (`mmss.0`, tenths of a second), and the East Asian ones (27–36, 50–58);
/// 46 is elapsed time.
fn built_in(id: &str) -> Format {
    match id {
        "47" => Format::DateTime { fraction: 1 },
        "14" | "15" | "16" | "17" | "18" | "19" | "20" | "21" | "22" | "45" | "27" | "28"
        | "29" | "30" | "31" | "32" | "33" | "34" | "35" | "36" | "50" | "51" | "52" | "53"
        | "54" | "55" | "56" | "57" | "58" => DATE_TIME,
        "46" => Format::Duration,
        _ => Format::Number,
    }
}

/// What a format code shows, from its first section (up to `;`): a date or time when a
/// date or time part (`y`, `m`, `d`, `h`, `s`, `AM/PM`, `A/P`) stands outside quotes,
/// brackets and escaped characters — with the digits of a second after its seconds
/// (`ss.000`) — ; a duration when an elapsed part (`[h]`, `[mm]`, `[ss]`) comes first.
pub(super) fn of_code(code: &str) -> Format {
    let mut chars = code.chars().peekable();
    // Since an `a`: the `A/P` or `AM/PM` it may begin (the next `/`, `m` or `p` shows
    // a time); letters of dates no longer count.
    let mut after_a = false;
    // Whether a date or time part was met, and whether the last thing was seconds.
    let (mut dated, mut after_seconds, mut fraction) = (false, false, 0u8);
    while let Some(c) = chars.next() {
        let seconds = after_seconds;
        after_seconds = false;
        match c {
            // The next character is written as it is (`\`), a space as wide as it
            // (`_`), or repeated to fill the cell (`*`).
            '\\' | '_' | '*' => {
                chars.next();
            }
            '"' => {
                for quoted in chars.by_ref() {
                    if quoted == '"' {
                        break;
                    }
                }
            }
            ';' => break,
            '[' => {
                let mut inside = String::new();
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    inside.push(c);
                }
                if !dated && elapsed(&inside) {
                    return Format::Duration;
                }
            }
            'a' | 'A' if !after_a => after_a = true,
            'p' | 'P' | 'm' | 'M' | '/' if after_a => dated = true,
            's' | 'S' if !after_a => (dated, after_seconds) = (true, true),
            'd' | 'D' | 'm' | 'M' | 'y' | 'Y' | 'h' | 'H' if !after_a => dated = true,
            '.' if seconds => {
                let mut digits = 0u8;
                while chars.next_if_eq(&'0').is_some() {
                    digits = digits.saturating_add(1);
                }
                fraction = fraction.max(digits.min(3));
            }
            _ => {}
        }
    }
    match dated {
        true => Format::DateTime { fraction },
        false => Format::Number,
    }
}

/// Whether a bracket's inside is an elapsed part: one of `h`, `m`, `s` (either case),
/// written once or more.
fn elapsed(inside: &str) -> bool {
    let mut chars = inside.chars();
    match chars.next() {
        Some(first @ ('h' | 'H' | 'm' | 'M' | 's' | 'S')) => {
            chars.all(|c| c.eq_ignore_ascii_case(&first))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_codes_show_dates_durations_or_numbers() {
        for code in [
            "yyyy-mm-dd",
            "m/d/yy h:mm",
            "h:mm AM/PM",
            "[$-409]mmmm d",
            "mm:ss",
            "A/P",
            "dd\"日\"",
        ] {
            assert_eq!(of_code(code), DATE_TIME, "{code}");
        }
        for (code, fraction) in [
            ("hh:mm:ss.0", 1),
            ("yyyy-mm-dd hh:mm:ss.000", 3),
            ("[$-409]h:mm:ss.00 AM/PM", 2),
            ("mm:ss.0000", 3),
            (r"hh:mm:ss\.000", 0),
            (r"hh:mm:ss \0.000", 0),
        ] {
            assert_eq!(of_code(code), Format::DateTime { fraction }, "{code}");
        }
        for code in ["[h]:mm:ss", "[mm]:ss", "[SS]"] {
            assert_eq!(of_code(code), Format::Duration, "{code}");
        }
        for code in [
            "General",
            "0.00",
            "#,##0;[Red]-#,##0",
            "\"day\" 0",
            "0\\d",
            "[Red]0",
            "0_m",
            "*s0",
            "0;yyyy",
        ] {
            assert_eq!(of_code(code), Format::Number, "{code}");
        }
    }

    #[test]
    fn cells_take_their_number_format_built_in_or_the_workbooks() {
        let xml = br#"<styleSheet><numFmts><numFmt numFmtId="164" formatCode="yyyy/mm/dd"/><numFmt numFmtId="165" formatCode="0.0&quot;m&quot;"/></numFmts>
            <cellStyleXfs><xf numFmtId="14"/></cellStyleXfs>
            <cellXfs><xf numFmtId="0"/><xf numFmtId="14"/><xf numFmtId="164"/><xf numFmtId="165"/><xf numFmtId="46"/><xf/></cellXfs></styleSheet>"#;
        let formats =
            cell_formats(&mut Tokens::new(xml).unwrap()).unwrap_or_else(|e| panic!("{e}"));
        use Format::*;
        assert_eq!(
            formats,
            [Number, DATE_TIME, DATE_TIME, Number, Duration, Number]
        );
        assert_eq!(built_in("47"), DateTime { fraction: 1 });
    }

    #[test]
    fn a_date_time_is_what_its_format_shows() {
        let seconds = |format: Format, serial: f64| format.shown(serial.fract()) * 86_400.0;
        // 00:04:59.995004: shown as 00:05:00, or as 00:04:59.995 with milliseconds.
        let near = (seconds(DATE_TIME, 36528.0034721644) - 300.0).abs();
        assert!(near < 1e-6, "{near}");
        let shown = seconds(Format::DateTime { fraction: 3 }, 36528.0034721644);
        assert!((shown - 299.995).abs() < 1e-6, "{shown}");
        let tenths = seconds(Format::DateTime { fraction: 1 }, 36528.0034721644);
        assert!((tenths - 300.0).abs() < 1e-6, "{tenths}");
        // A number or a duration is never rounded.
        assert_eq!(Format::Number.shown(0.123456789), 0.123456789);
        assert_eq!(Format::Duration.shown(1.000001), 1.000001);
    }
}
