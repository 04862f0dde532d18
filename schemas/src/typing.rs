//! From a sheet to a typed table: the spreadsheet conventions of DESIGN §3.
//!
//! The first row that is neither empty nor a comment is the header; its cells name
//! fields (`#` columns are comments). Below it, empty rows and rows whose first cell
//! starts with `#` are skipped. Every other cell is converted to its field's type and
//! checked (required, enum, range, length, pattern); each mistake becomes a diagnostic
//! with its cell, and the table is still built so that later checks see every row.

use std::path::Path;

use crate::diagnostic::{Code, Diagnostic};
use crate::load::did_you_mean;
use crate::read::{Cell, Grid};
use crate::schema::{Field, FieldType, TableSchema};
use crate::table::{Origin, SourceFormat, Table};
use crate::validate::{Problem, check_value};
use crate::value::{self, Value, float_to_int, format_float, parse_text};

/// Build the table for `schema` from a grid. Returns the table (whenever a header was
/// found, even with errors, so that later checks see every row) and the diagnostics.
pub fn build_table(
    schema: &TableSchema,
    grid: &dyn Grid,
    path: &Path,
    format: SourceFormat,
) -> (Option<Table>, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    let origin_for = |columns: Vec<Option<u32>>| Origin {
        file: path.to_path_buf(),
        format: format.clone(),
        columns,
        rows: Vec::new(),
    };
    let is_skipped = |row: usize| {
        let width = grid.width(row);
        (0..width).all(|c| grid.cell(row, c).is_empty()) || grid.cell(row, 0).is_comment()
    };
    let Some(header_row) = (0..grid.height()).find(|&r| !is_skipped(r)) else {
        let mut location = origin_for(Vec::new()).location(0, None);
        location.table = Some(schema.name.clone());
        diagnostics.push(
            Diagnostic::new(
                Code::MissingHeader,
                location,
                format!(
                    "no header row: the sheet for table `{}` is empty",
                    schema.name
                ),
            )
            .expected(format!(
                "a header row naming the fields: {}",
                field_names(schema)
            )),
        );
        return (None, diagnostics);
    };

    let header = Header::read(
        schema,
        grid,
        header_row,
        &origin_for(Vec::new()),
        &mut diagnostics,
    );
    let mut origin = origin_for(
        header
            .field_columns
            .iter()
            .map(|c| c.map(|c| grid.column_position(c)))
            .collect(),
    );
    let mut columns: Vec<Vec<Value>> = vec![Vec::new(); schema.fields.len()];
    let mut reported_stray_columns = std::collections::HashSet::new();
    for row in header_row + 1..grid.height() {
        if is_skipped(row) {
            continue;
        }
        let position = grid.row_position(row);
        let row_index = origin.rows.len();
        origin.rows.push(position);
        for (field_index, field) in schema.fields.iter().enumerate() {
            let value = match header.field_columns[field_index] {
                Some(column) => {
                    let cell = grid.cell(row, column);
                    match convert(field, cell) {
                        Ok(value) => value,
                        Err(problem) => {
                            let location =
                                origin.location(position, Some(grid.column_position(column)));
                            diagnostics.push(problem.into_diagnostic(
                                location,
                                &schema.name,
                                field,
                            ));
                            Value::Null
                        }
                    }
                }
                // A missing column was reported once, at the header.
                None => field.default.clone().unwrap_or(Value::Null),
            };
            columns[field_index].push(value);
        }
        // Values under no header are data nobody will see: an error, once per column.
        for column in 0..grid.width(row) {
            if header.is_data_column(column) || grid.cell(row, column).is_empty() {
                continue;
            }
            if reported_stray_columns.insert(column) {
                let mut location = origin.location(position, Some(grid.column_position(column)));
                location.table = Some(schema.name.clone());
                diagnostics.push(
                    Diagnostic::new(
                        Code::UnknownColumn,
                        location,
                        "this column has values but no header",
                    )
                    .found(grid.cell(row, column).display())
                    .hint("name the column after a field, or start its header with `#` to mark it as a comment"),
                );
            }
        }
        debug_assert_eq!(columns[0].len(), row_index + 1);
    }
    let table = Table {
        name: schema.name.clone(),
        columns,
        origin,
    };
    (Some(table), diagnostics)
}

fn field_names(schema: &TableSchema) -> String {
    schema
        .fields
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The header row, mapped: which grid column holds each field.
struct Header {
    field_columns: Vec<Option<usize>>,
    /// Grid columns that are comments (`#...` headers) and so may hold anything.
    comment_columns: Vec<usize>,
}

impl Header {
    fn read(
        schema: &TableSchema,
        grid: &dyn Grid,
        row: usize,
        origin: &Origin,
        diagnostics: &mut Vec<Diagnostic>,
    ) -> Header {
        let mut header = Header {
            field_columns: vec![None; schema.fields.len()],
            comment_columns: Vec::new(),
        };
        let position = grid.row_position(row);
        let located = |column: usize| {
            let mut location = origin.location(position, Some(grid.column_position(column)));
            location.table = Some(schema.name.clone());
            location
        };
        for column in 0..grid.width(row) {
            let cell = grid.cell(row, column);
            if cell.is_empty() {
                continue;
            }
            if cell.is_comment() {
                header.comment_columns.push(column);
                continue;
            }
            let text = cell.display();
            let name = text.trim();
            match schema.field_index(name) {
                Some(field) if header.field_columns[field].is_some() => {
                    let first = header.field_columns[field].unwrap_or_default();
                    let mut location = located(column);
                    location.field = Some(name.to_string());
                    diagnostics.push(
                        Diagnostic::new(
                            Code::DuplicateColumn,
                            location,
                            format!("column `{name}` appears twice in the header"),
                        )
                        .hint(format!(
                            "it is also in column {}; keep one",
                            crate::diagnostic::column_letters(grid.column_position(first))
                        )),
                    );
                    header.comment_columns.push(column);
                }
                Some(field) => header.field_columns[field] = Some(column),
                None => {
                    let mut d = Diagnostic::new(
                        Code::UnknownColumn,
                        located(column),
                        format!("column `{name}` is not a field of table `{}`", schema.name),
                    )
                    .found(name.to_string())
                    .expected(format!("one of: {}", field_names(schema)));
                    let free = schema
                        .fields
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| header.field_columns[*i].is_none())
                        .map(|(_, f)| f.name.as_str());
                    if let Some(similar) = did_you_mean(name, free) {
                        d = d.hint(format!("did you mean `{similar}`?"));
                    } else {
                        d = d.hint("start the header with `#` to keep the column as a comment");
                    }
                    diagnostics.push(d);
                    // Its values are reported with the header; not again per row.
                    header.comment_columns.push(column);
                }
            }
        }
        let first_column = (0..grid.width(row))
            .find(|&c| !grid.cell(row, c).is_empty())
            .unwrap_or(0);
        for (field, column) in schema.fields.iter().zip(&header.field_columns) {
            if column.is_none() {
                let mut location = located(first_column);
                location.field = Some(field.name.clone());
                let mut d = Diagnostic::new(
                    Code::MissingColumn,
                    location,
                    format!("the header has no column `{}`", field.name),
                )
                .expected(format!("a `{}` column ({})", field.name, field.ty));
                if !field.required() {
                    d = d.hint("add the column; its cells may stay empty (the field is optional or has a default)");
                }
                diagnostics.push(d);
            }
        }
        header
    }

    fn is_data_column(&self, column: usize) -> bool {
        self.field_columns.contains(&Some(column)) || self.comment_columns.contains(&column)
    }
}

/// Convert one cell to a checked value of the field.
fn convert(field: &Field, cell: Cell) -> Result<Value, Problem> {
    let value = typed(&field.ty, cell)?;
    if value.is_null() {
        return match &field.default {
            Some(default) => Ok(default.clone()),
            None if field.optional => Ok(Value::Null),
            None => Err(Problem::new(
                Code::Required,
                format!("`{}` is required but the cell is empty", field.name),
            )
            .expected(value::describe(&field.ty))),
        };
    }
    check_value(field, &value)?;
    Ok(value)
}

/// The cell's value in the field's type, before the field's other checks.
fn typed(ty: &FieldType, cell: Cell) -> Result<Value, Problem> {
    let mismatch = |hint: Option<String>| {
        let mut p = Problem::new(
            Code::TypeError,
            format!(
                "expected {}, found `{}`",
                value::describe(ty),
                cell.display()
            ),
        )
        .found(cell.display())
        .expected(value::describe(ty));
        p.hint = hint;
        p
    };
    let from_text = |text: &str| {
        parse_text(ty, text).map_err(|m| {
            let mut p = mismatch(m.hint);
            p.expected = Some(m.expected);
            p
        })
    };
    match cell {
        Cell::Empty => Ok(Value::Null),
        Cell::Error(error) => Err(Problem::new(
            Code::ErrorCell,
            format!("the cell holds the error value {error}"),
        )
        .found(error)
        .expected(value::describe(ty))
        .hint("fix the formula (or the cell it refers to) so that it gives a value")),
        Cell::FormulaWithoutValue(formula) => Err(Problem::new(
            Code::FormulaWithoutValue,
            format!(
                "the formula `{}` has no calculated value saved in the file",
                cell.display()
            ),
        )
        .found(format!("={}", formula.trim_start_matches('=')))
        .hint(
            "open the workbook in a spreadsheet application, let it recalculate, and save it again",
        )),
        Cell::Text(text) => from_text(text),
        Cell::IsoDateTime(text) => match ty {
            FieldType::Date => value::parse_date(text)
                .or_else(|| {
                    value::parse_datetime(text)
                        .filter(|dt| dt.time_of_day() == 0)
                        .map(|dt| dt.date())
                })
                .map(Value::Date)
                .ok_or_else(|| mismatch(None)),
            _ => from_text(text),
        },
        Cell::Int(i) => match ty {
            FieldType::Int => Ok(Value::Int(i)),
            FieldType::Float => Ok(Value::Float(i as f64)),
            FieldType::Date | FieldType::DateTime => Err(mismatch(Some(
                "the cell holds a number; type the date, or format the cell as a date".into(),
            ))),
            _ => from_text(&i.to_string()),
        },
        Cell::Float(x) => match ty {
            FieldType::Int => float_to_int(x).map(Value::Int).ok_or_else(|| {
                mismatch(Some(format!(
                    "{} has a fractional part; the field is an int",
                    format_float(x)
                )))
            }),
            FieldType::Float if x.is_finite() => Ok(Value::Float(if x == 0.0 { 0.0 } else { x })),
            FieldType::Date | FieldType::DateTime => Err(mismatch(Some(
                "the cell holds a number; type the date, or format the cell as a date".into(),
            ))),
            _ => from_text(&format_float(x)),
        },
        Cell::Bool(b) => match ty {
            FieldType::Bool => Ok(Value::Bool(b)),
            FieldType::String | FieldType::Text | FieldType::Enum => from_text(&cell.display()),
            _ => Err(mismatch(None)),
        },
        Cell::DateTime(dt) => match ty {
            FieldType::DateTime => Ok(Value::DateTime(dt)),
            FieldType::Date if dt.time_of_day() == 0 => Ok(Value::Date(dt.date())),
            FieldType::Date => Err(mismatch(Some(
                "the cell holds a time of day too; the field is a date".into(),
            ))),
            FieldType::String | FieldType::Text => Ok(Value::Str(cell.display().into())),
            _ => Err(mismatch(Some(
                "the cell is formatted as a date; format it as a number or as text".into(),
            ))),
        },
        Cell::Duration(_) => match ty {
            FieldType::String | FieldType::Text => Ok(Value::Str(cell.display().into())),
            _ => Err(mismatch(Some("the cell is formatted as a duration".into()))),
        },
    }
}
