//! Which cell formats show a number as a date or a duration: a cell's `s` indexes the
//! workbook's cell formats (`<cellXfs>` in `styles.xml`), each naming a number format,
//! built in (by id) or the workbook's own (by its code).

use std::collections::HashMap;

use super::tokens::{Token, Tokens, attribute};

/// What a number format makes of a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Number,
    /// A date, a time of day, or both.
    DateTime,
    /// Elapsed time (`[h]:mm:ss`).
    Duration,
}

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
/// 45 and 47, and the East Asian ones (27–36, 50–58); 46 is elapsed time.
fn built_in(id: &str) -> Format {
    match id {
        "14" | "15" | "16" | "17" | "18" | "19" | "20" | "21" | "22" | "45" | "47" | "27"
        | "28" | "29" | "30" | "31" | "32" | "33" | "34" | "35" | "36" | "50" | "51" | "52"
        | "53" | "54" | "55" | "56" | "57" | "58" => Format::DateTime,
        "46" => Format::Duration,
        _ => Format::Number,
    }
}

/// What a format code shows, from its first section (up to `;`): a date or time when a
/// date or time part (`y`, `m`, `d`, `h`, `s`, `AM/PM`, `A/P`) stands outside quotes,
/// brackets and escaped characters; a duration when an elapsed part (`[h]`, `[mm]`,
/// `[ss]`) comes first.
pub(super) fn of_code(code: &str) -> Format {
    let mut chars = code.chars().peekable();
    // Since an `a`: the `A/P` or `AM/PM` it may begin (the next `/`, `m` or `p` shows
    // a time); letters of dates no longer count.
    let mut after_a = false;
    while let Some(c) = chars.next() {
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
            ';' => return Format::Number,
            '[' => {
                let mut inside = String::new();
                for c in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    inside.push(c);
                }
                if elapsed(&inside) {
                    return Format::Duration;
                }
            }
            'a' | 'A' if !after_a => after_a = true,
            'p' | 'P' | 'm' | 'M' | '/' if after_a => return Format::DateTime,
            'd' | 'D' | 'm' | 'M' | 'y' | 'Y' | 'h' | 'H' | 's' | 'S' if !after_a => {
                return Format::DateTime;
            }
            _ => {}
        }
    }
    Format::Number
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
            assert_eq!(of_code(code), Format::DateTime, "{code}");
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
            [Number, DateTime, DateTime, Number, Duration, Number]
        );
    }
}
