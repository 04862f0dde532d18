//! A worksheet's cells (`<sheetData>`), one at a time: where each is, its value as
//! its type (`t`) and number format (`s`) say, and its formula.

use std::collections::HashMap;

use calamine::{CellErrorType, DataRef, ExcelDateTime, ExcelDateTimeType};

use super::styles::Format;
use super::text::{SharedStrings, content, item, unescape_excel};
use super::tokens::{Token, Tokens, attribute, attributes, decoded, shown};
use crate::diagnostic::cell_name;

/// A cell as read: its position (0-based row, column), value and formula (the text
/// of its `<f>`, a shared formula's as its first cell writes it).
pub(in crate::read) struct Record<'a> {
    pub pos: (u32, u32),
    pub value: DataRef<'a>,
    pub formula: Option<String>,
}

/// The cells of one worksheet's XML, in the order it writes them: of the whole part, or
/// of one piece of it after another ([`Cells::resume`]).
pub(in crate::read) struct Cells<'a> {
    tokens: Tokens<'a>,
    strings: &'a SharedStrings,
    formats: &'a [Format],
    is_1904: bool,
    place: Place,
    /// Where this piece begins in the part (a byte offset), for messages.
    offset: usize,
}

/// Where the reading of a sheet's XML is, carried from one piece of it to the next.
#[derive(Default)]
pub(in crate::read) struct Place {
    /// Where a cell written without `r` is: the row of the current `<row>` (or the one
    /// after the last), and the column after the last cell's.
    row: u32,
    column: u32,
    /// Shared formulas' text, by their index (`si`).
    shared: HashMap<String, String>,
    /// Whether the sheet's data (`<sheetData>`) has begun, and whether it is read to its
    /// end.
    begun: bool,
    done: bool,
}

impl Place {
    /// Whether the sheet's data is read to its end.
    pub(in crate::read) fn is_done(&self) -> bool {
        self.done
    }

    /// Once the part's last piece is read: a sheet whose data begins and does not end
    /// is cut short.
    pub(in crate::read) fn end(&self) -> Result<(), String> {
        match self.begun && !self.done {
            true => Err("the sheet ends inside its data (`<sheetData>`)".into()),
            false => Ok(()),
        }
    }
}

impl<'a> Cells<'a> {
    pub(super) fn new(
        xml: &'a [u8],
        strings: &'a SharedStrings,
        formats: &'a [Format],
        is_1904: bool,
    ) -> Result<Cells<'a>, String> {
        Cells::resume(xml, strings, formats, is_1904, Place::default(), 0)
    }

    /// The cells of `xml`, a piece of a sheet's part beginning at byte `offset` that
    /// ends between two elements, read on from `place` (where the piece before it left
    /// off; [`Cells::place`]).
    pub(super) fn resume(
        xml: &'a [u8],
        strings: &'a SharedStrings,
        formats: &'a [Format],
        is_1904: bool,
        place: Place,
        offset: usize,
    ) -> Result<Cells<'a>, String> {
        let mut cells = Cells {
            // A piece was checked as UTF-8 where it lies in the part (`pieces`).
            tokens: Tokens::new(xml)?,
            strings,
            formats,
            is_1904,
            place,
            offset,
        };
        if cells.place.begun || cells.place.done {
            return Ok(cells);
        }
        // Up to the sheet's data; a part without any (a chart sheet's) has no cells.
        loop {
            match cells.tokens.next().map_err(|e| cells.at(e))? {
                Some(Token::Start {
                    name: "sheetData", ..
                }) => {
                    cells.place.begun = true;
                    break;
                }
                // Not in this piece: perhaps in the next (a whole part's has none).
                None => break,
                _ => {}
            }
        }
        Ok(cells)
    }

    /// Where the reading is, for the next piece of the part.
    pub(in crate::read) fn place(self) -> Place {
        self.place
    }

    /// The next cell; `None` after the last.
    pub(in crate::read) fn next_cell(&mut self) -> Result<Option<Record<'a>>, String> {
        while self.place.begun && !self.place.done {
            match self.tokens.next().map_err(|e| self.at(e))? {
                Some(Token::Start {
                    name: "c",
                    attributes,
                }) => return self.cell(attributes).map(Some),
                Some(Token::Start {
                    name: "row",
                    attributes,
                }) => {
                    if let Some(r) = attribute(attributes, "r").map_err(|e| self.at(e))? {
                        self.place.row = crate::diagnostic::row_index(&r).ok_or_else(|| {
                            format!("a row is numbered `{}`, which is no row number", shown(&r))
                        })?;
                    }
                }
                Some(Token::End("row")) => {
                    self.place.row = self.place.row.saturating_add(1);
                    self.place.column = 0;
                }
                Some(Token::End("sheetData")) => self.place.done = true,
                Some(_) => {}
                // The piece ends; the next goes on (the part's end: [`Place::end`]).
                None => return Ok(None),
            }
        }
        Ok(None)
    }

    /// The cell whose start (`<c>`, with `written` attributes) was just read, up to its
    /// end.
    fn cell(&mut self, written: &'a str) -> Result<Record<'a>, String> {
        let (mut position, mut style, mut kind) = (None, None, None);
        for (key, value) in attributes(written) {
            match key {
                "r" => position = Some(value),
                "s" => style = Some(value),
                "t" => kind = Some(value),
                _ => {}
            }
        }
        let pos = match position {
            Some(r) => crate::diagnostic::parse_a1(r).ok_or_else(|| {
                format!("a cell is named `{}`, which is no cell reference", shown(r))
            })?,
            None => (self.place.row, self.place.column),
        };
        self.place.column = pos.1.saturating_add(1);
        let at = || cell_name(u64::from(pos.0), u64::from(pos.1));
        let inline = matches!(kind, Some("inlineStr" | "is"));
        if !inline && let Some(text) = self.tokens.plain_value_then_end("c") {
            let text = decoded(text).map_err(|e| self.at(e))?;
            let value = self.value(&text, kind, style, pos)?;
            return Ok(Record {
                pos,
                value,
                formula: None,
            });
        }
        let (mut value, mut formula) = (DataRef::Empty, None);
        loop {
            let token = self.tokens.next().map_err(|e| self.at(e))?;
            match token {
                Some(Token::Start {
                    name: "f",
                    attributes,
                }) => {
                    formula = self.formula(attributes).map_err(|e| self.at(e))?;
                }
                Some(Token::Start { name: "v", .. }) => {
                    let text = content(&mut self.tokens, "v").map_err(|e| self.at(e))?;
                    if !inline {
                        value = self.value(&text, kind, style, pos)?;
                    }
                }
                Some(Token::Start { name: "is", .. }) => {
                    value = DataRef::String(item(&mut self.tokens, "is").map_err(|e| self.at(e))?);
                }
                Some(Token::End("c")) => break,
                Some(_) => {}
                None => return Err(format!("the sheet ends inside cell {}", at())),
            }
        }
        Ok(Record {
            pos,
            value,
            formula,
        })
    }

    /// A cell's formula, whose start (`<f>`, with `written` attributes) was just read:
    /// its text, or for a cell of a shared formula that writes none, the text of the
    /// cell that does.
    fn formula(&mut self, written: &str) -> Result<Option<String>, String> {
        let text = content(&mut self.tokens, "f")?.into_owned();
        let shared = attribute(written, "t")?.as_deref() == Some("shared");
        match (shared, attribute(written, "si")?) {
            (true, Some(index)) if text.is_empty() => Ok(self.place.shared.get(&*index).cloned()),
            (true, Some(index)) => {
                self.place.shared.insert(index.into_owned(), text.clone());
                Ok(Some(text))
            }
            _ => Ok(Some(text)),
        }
    }

    /// A problem with the sheet's XML, and where it is.
    fn at(&self, problem: String) -> String {
        let at = self.offset + self.tokens.position();
        format!("at byte {at} of its XML: {problem}")
    }

    /// The value the cell at `pos` holds in its `<v>` (`text`), as the cell's type and
    /// number format say; why not, after the cell's name.
    fn value(
        &self,
        text: &str,
        kind: Option<&str>,
        style: Option<&str>,
        pos: (u32, u32),
    ) -> Result<DataRef<'a>, String> {
        self.typed(text, kind, style).map_err(|why| {
            format!(
                "cell {} {why}",
                cell_name(u64::from(pos.0), u64::from(pos.1))
            )
        })
    }

    /// [`Self::value`] before the cell is named.
    fn typed(
        &self,
        text: &str,
        kind: Option<&str>,
        style: Option<&str>,
    ) -> Result<DataRef<'a>, String> {
        match kind {
            None | Some("n") => {
                if text.is_empty() {
                    return Ok(DataRef::Empty);
                }
                match text.parse::<f64>() {
                    Ok(number) => Ok(self.number(number, style)),
                    // Without a type, text that is no number is text.
                    Err(_) if kind.is_none() => Ok(DataRef::String(text.to_string())),
                    Err(_) => Err(format!("holds `{}`, which is no number", shown(text))),
                }
            }
            Some("s") => {
                if text.is_empty() {
                    return Ok(DataRef::Empty);
                }
                let index = text
                    .bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| text.parse::<usize>().ok())
                    .flatten()
                    .ok_or_else(|| {
                        format!(
                            "refers to shared string `{}`, which is not an index",
                            shown(text)
                        )
                    })?;
                self.strings
                    .get(index)
                    .map(DataRef::SharedString)
                    .ok_or_else(|| {
                        format!(
                            "refers to shared string {index}, but the workbook has {}",
                            self.strings.len()
                        )
                    })
            }
            Some("b") => match text.trim() {
                "" => Ok(DataRef::Empty),
                "0" => Ok(DataRef::Bool(false)),
                "1" => Ok(DataRef::Bool(true)),
                t if t.eq_ignore_ascii_case("false") => Ok(DataRef::Bool(false)),
                t if t.eq_ignore_ascii_case("true") => Ok(DataRef::Bool(true)),
                _ => Err(format!("holds `{}`, which is no boolean", shown(text))),
            },
            Some("e") => error_value(text)
                .map(DataRef::Error)
                .ok_or_else(|| format!("holds `{}`, which is no error value", shown(text))),
            Some("str") => Ok(DataRef::String(unescape_excel(text).into_owned())),
            Some("d") => Ok(DataRef::DateTimeIso(text.to_string())),
            Some(other) => Err(format!(
                "has type `{}`, which is no cell type",
                shown(other)
            )),
        }
    }

    /// A number as its cell's format shows it: a date, a duration, or a number. A
    /// cell without a format (`s`) shows a number.
    fn number(&self, number: f64, style: Option<&str>) -> DataRef<'a> {
        let format = match style {
            None => Format::Number,
            // An index that is none counts as the first format (as calamine reads).
            Some(s) => self
                .formats
                .get(s.parse::<usize>().unwrap_or(0))
                .copied()
                .unwrap_or(Format::Number),
        };
        match format {
            Format::Number => DataRef::Float(number),
            Format::DateTime { .. } => DataRef::DateTime(ExcelDateTime::new(
                format.shown(number),
                ExcelDateTimeType::DateTime,
                self.is_1904,
            )),
            Format::Duration => DataRef::DateTime(ExcelDateTime::new(
                number,
                ExcelDateTimeType::TimeDelta,
                self.is_1904,
            )),
        }
    }
}

/// An error value as Excel writes it.
fn error_value(text: &str) -> Option<CellErrorType> {
    Some(match text {
        "#DIV/0!" => CellErrorType::Div0,
        "#N/A" => CellErrorType::NA,
        "#NAME?" => CellErrorType::Name,
        "#NULL!" => CellErrorType::Null,
        "#NUM!" => CellErrorType::Num,
        "#REF!" => CellErrorType::Ref,
        "#VALUE!" => CellErrorType::Value,
        "#GETTING_DATA" => CellErrorType::GettingData,
        _ => return None,
    })
}
