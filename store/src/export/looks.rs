//! What an exported sheet gives the planner besides its cells: each column's width, a
//! note on its header (the field's description, type and rules), a drop-down list
//! where the field takes one of a few values (an enum's, or the keys of a referenced
//! table: a range of its sheet in the same workbook, its keys written out when it is
//! in another), and whole numbers shown as such. None of it
//! is data: import reads the cells alone.

use masterctl_schemas::schema::Field;
use masterctl_schemas::{FieldType, TableSchema, Value};
use rust_xlsxwriter::{DataValidation, Formula, Note, Worksheet, XlsxError};

use super::{Cell, Sheet, Workbook};

/// One column's looks.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Look {
    /// The field the column holds (none: a comment column).
    pub field: Option<String>,
    /// The header's note.
    pub note: Option<String>,
    pub choices: Choices,
    /// Whole numbers: shown without decimals.
    pub whole: bool,
    /// The column's width, in characters.
    pub width: f64,
}

/// Where a column's drop-down list comes from.
#[derive(Debug, Clone, Default, PartialEq)]
pub enum Choices {
    #[default]
    None,
    /// These values.
    Values(Vec<String>),
    /// The keys of `table`'s `field`, resolved to a range of another sheet of the same
    /// workbook, or to their values from another workbook ([`resolve`]).
    Reference { table: String, field: String },
    /// A range: `'Category'!$A$2:$A$41`.
    Range(String),
}

/// The widest a column is made, in characters.
const WIDEST: f64 = 48.0;

/// Rows looked at to size a column.
const SIZED_BY: usize = 200;

/// The looks of a field's column (and of each comment column after it: none).
pub(super) fn look_of(schema: &TableSchema, field: &Field) -> Look {
    let mut about = Vec::new();
    if let Some(description) = &field.description {
        about.push(description.clone());
    }
    let mut rules = field.ty.to_string();
    if schema
        .primary_key
        .iter()
        .any(|&k| schema.fields[k].name == field.name)
    {
        rules.push_str(", key");
    }
    match (&field.min, &field.max) {
        (None, None) => {}
        (min, max) => rules.push_str(&format!(
            ", {}–{}",
            min.as_ref().map_or_else(String::new, Value::canonical),
            max.as_ref().map_or_else(String::new, Value::canonical)
        )),
    }
    if field.required() {
        rules.push_str(", needed");
    }
    if !field.cases.is_empty() {
        let cases: Vec<&str> = field.cases.iter().map(|c| &**c).collect();
        rules.push_str(&format!(", rows of {} only", cases.join(" or ")));
        if !field.optional {
            rules.push_str(", needed there");
        }
    }
    if let Some(reference) = &field.references {
        rules.push_str(&format!(", a row of {}", reference.table));
    }
    about.push(rules);
    let choices = match (&field.ty, &field.references) {
        (FieldType::Enum, _) => {
            Choices::Values(field.values.iter().map(|v| v.to_string()).collect())
        }
        (FieldType::Int | FieldType::String | FieldType::Text, Some(reference)) => {
            Choices::Reference {
                table: reference.table.clone(),
                field: reference.field.clone(),
            }
        }
        _ => Choices::None,
    };
    Look {
        field: Some(field.name.clone()),
        note: Some(about.join("\n")),
        choices,
        whole: field.ty == FieldType::Int,
        width: 0.0,
    }
}

/// Each column's width from its header and its first rows: wide characters (CJK)
/// count twice.
pub(super) fn size(sheet: &mut Sheet) {
    let shown = |text: &str| -> f64 {
        text.chars()
            .map(|c| if (c as u32) < 0x1100 { 1.0 } else { 2.0 })
            .sum()
    };
    for (column, look) in sheet.looks.iter_mut().enumerate() {
        let mut widest = shown(&sheet.header[column]);
        for row in sheet.rows.iter().take(SIZED_BY) {
            let text = match row.get(column).unwrap_or(Cell::Empty) {
                Cell::Empty => 0.0,
                Cell::Number(x) => x.to_string().len() as f64,
                Cell::Bool(_) => 5.0,
                Cell::Digits(t) | Cell::Text(t) => shown(t.lines().next().unwrap_or_default()),
            };
            widest = widest.max(text);
        }
        look.width = (widest + 2.0).clamp(6.0, WIDEST);
    }
}

/// Turn each reference's choices into a drop-down: the range of the referenced table's
/// keys when that table is a sheet of the same workbook; when it is a sheet of another
/// workbook (a range across workbooks is not one a spreadsheet keeps), its keys as a
/// list when they fit one ([`LIST_LONGEST`]); otherwise the column has none.
pub(super) fn resolve(workbooks: &mut [Workbook]) {
    let resolved: Vec<Vec<Vec<Choices>>> = (workbooks.iter())
        .map(|workbook| {
            (workbook.sheets.iter())
                .map(|sheet| {
                    (sheet.looks.iter())
                        .map(|look| match &look.choices {
                            Choices::Reference { table, field } => range_of(workbook, table, field)
                                .unwrap_or_else(|| listed(workbooks, table, field)),
                            other => other.clone(),
                        })
                        .collect()
                })
                .collect()
        })
        .collect();
    for (workbook, sheets) in workbooks.iter_mut().zip(resolved) {
        for (sheet, choices) in workbook.sheets.iter_mut().zip(sheets) {
            for (look, choices) in sheet.looks.iter_mut().zip(choices) {
                look.choices = choices;
            }
        }
    }
}

/// The longest list a drop-down holds written out (a spreadsheet's limit: 255
/// characters, the commas between the values counted).
const LIST_LONGEST: usize = 255;

/// The column of `table`'s `field` in its sheet, when `sheets` hold it.
fn column_of<'a>(
    mut sheets: impl Iterator<Item = &'a Sheet>,
    table: &str,
    field: &str,
) -> Option<(&'a Sheet, Option<usize>)> {
    let sheet = sheets.find(|s| s.table == table)?;
    let column = (sheet.looks.iter()).position(|l| l.field.as_deref() == Some(field));
    Some((sheet, column))
}

/// The range of `table`'s `field` when it is a sheet of `workbook` (`Some(None)`: a
/// sheet there without the column or rows). A table over several sheets has no one
/// range: its values are listed.
fn range_of(workbook: &Workbook, table: &str, field: &str) -> Option<Choices> {
    if workbook.sheets.iter().filter(|s| s.table == table).count() > 1 {
        return None;
    }
    let (sheet, column) = column_of(workbook.sheets.iter(), table, field)?;
    let Some(column) = column.filter(|_| !sheet.rows.is_empty()) else {
        return Some(Choices::None);
    };
    let name = sheet.name.replace('\'', "''");
    let records = sheet.rows.len();
    // A vertical sheet holds the field on a row of its own (after its marker's), a
    // record a column from B.
    if sheet.turns() {
        let (row, last) = (column + 2, column_letters(records));
        return Some(Choices::Range(format!("'{name}'!$B${row}:${last}${row}")));
    }
    let letter = column_letters(column);
    Some(Choices::Range(format!(
        "'{name}'!${letter}$2:${letter}${}",
        records + 1
    )))
}

/// The values of `table`'s `field` in another workbook, as a list when they fit one
/// and none holds a comma or a quote (which a written-out list cannot).
fn listed(workbooks: &[Workbook], table: &str, field: &str) -> Choices {
    // Every sheet of the table (several, for a table over several sheets).
    let sheets = workbooks.iter().flat_map(|w| w.sheets.iter());
    let rows = sheets.filter(|s| s.table == table).flat_map(|sheet| {
        let column = column_of(std::iter::once(sheet), table, field).and_then(|(_, c)| c);
        sheet
            .rows
            .iter()
            .map(move |row| column.and_then(|c| row.get(c)))
    });
    let mut values = Vec::new();
    let mut length = 0;
    for cell in rows {
        let text = match cell {
            Some(Cell::Number(x)) => x.to_string(),
            Some(Cell::Text(t) | Cell::Digits(t)) => t.to_owned(),
            Some(Cell::Bool(b)) => b.to_string(),
            Some(Cell::Empty) | None => continue,
        };
        length += text.chars().count() + usize::from(!values.is_empty());
        if length > LIST_LONGEST || text.contains([',', '"']) {
            return Choices::None;
        }
        values.push(text);
    }
    if values.is_empty() {
        return Choices::None;
    }
    Choices::Values(values)
}

/// `A`, `B`, … `Z`, `AA`, …
pub(super) fn column_letters(mut column: usize) -> String {
    let mut letters = Vec::new();
    loop {
        letters.push(b'A' + (column % 26) as u8);
        if column < 26 {
            break;
        }
        column = column / 26 - 1;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// Give `page` the sheet's looks: the header frozen, widths, notes, drop-downs and
/// formats over the rows written.
pub(super) fn apply(page: &mut Worksheet, sheet: &Sheet) -> Result<(), XlsxError> {
    page.set_freeze_panes(1, 0)?;
    let last = u32::try_from(sheet.rows.len().max(1)).unwrap_or(u32::MAX);
    let whole = rust_xlsxwriter::Format::new().set_num_format("0");
    for (column, look) in sheet.looks.iter().enumerate() {
        let Ok(c) = u16::try_from(column) else {
            break;
        };
        page.set_column_width(c, look.width)?;
        if look.whole {
            page.set_column_format(c, &whole)?;
        }
        if let Some(note) = &look.note {
            page.insert_note(0, c, &Note::new(note).add_author_prefix(false))?;
        }
        if let Some(validation) = drop_down(look) {
            page.add_data_validation(1, c, last, c, &validation)?;
        }
    }
    // A sheet turned down a column: each row's note on its name, its drop-down over
    // its records.
    let records = u16::try_from(sheet.header.len().saturating_sub(1)).unwrap_or(u16::MAX);
    for (row, look) in sheet.row_looks.iter().enumerate() {
        let Ok(r) = u32::try_from(row + 1) else {
            break;
        };
        if let Some(note) = &look.note {
            page.insert_note(r, 0, &Note::new(note).add_author_prefix(false))?;
        }
        if let Some(validation) = drop_down(look).filter(|_| records > 0) {
            page.add_data_validation(r, 1, r, records, &validation)?;
        }
    }
    Ok(())
}

/// A look's drop-down list, empty cells allowed; none when it has none, or its values
/// are longer than a spreadsheet's list keeps (255 characters).
fn drop_down(look: &Look) -> Option<DataValidation> {
    let validation = match &look.choices {
        Choices::Values(values) => DataValidation::new().allow_list_strings(values).ok()?,
        Choices::Range(range) => DataValidation::new().allow_list_formula(Formula::new(range)),
        Choices::None | Choices::Reference { .. } => return None,
    };
    Some(validation.ignore_blank(true))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A drop-down of a table's keys ranges over its column; over its row, when its
    /// sheet is written down a column.
    #[test]
    fn a_range_of_keys_follows_the_sheets_layout() {
        use super::super::Rows;
        use masterctl_schemas::schema::Layout;
        let guild = |layout| Sheet {
            table: "guild".into(),
            name: "Guild's".into(),
            header: vec!["id".into(), "max_members".into()],
            rows: Rows::of(
                2,
                (1..=3).map(|id| [Cell::Number(id as f64), Cell::Number(9.0)]),
            )
            .unwrap(),
            looks: ["id", "max_members"]
                .map(|f| Look {
                    field: Some(f.into()),
                    ..Look::default()
                })
                .to_vec(),
            layout,
            row_looks: Vec::new(),
        };
        let workbook = |layout| Workbook {
            path: "guild.xlsx".into(),
            sourced: true,
            sheets: vec![guild(layout)],
        };
        assert_eq!(
            range_of(&workbook(Layout::Rows), "guild", "id"),
            Some(Choices::Range("'Guild''s'!$A$2:$A$4".into()))
        );
        assert_eq!(
            range_of(&workbook(Layout::Vertical), "guild", "max_members"),
            Some(Choices::Range("'Guild''s'!$B$3:$D$3".into()))
        );
    }

    #[test]
    fn columns_are_lettered_as_spreadsheets_do() {
        for (column, letters) in [
            (0, "A"),
            (25, "Z"),
            (26, "AA"),
            (27, "AB"),
            (701, "ZZ"),
            (702, "AAA"),
        ] {
            assert_eq!(column_letters(column), letters);
        }
    }
}
