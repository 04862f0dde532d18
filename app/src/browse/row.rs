//! One row as a form a planner edits: each field with the input its type wants (a
//! list of an enum's values, a number's bounds, a date-time in the project's zone, the
//! rows a reference may name, a box for a long text), holding the row's cells — and
//! the edits a filled form makes (only the fields whose value changed, compared as
//! values: `10:00` in the zone and `01:00Z` are one time).

use masterctl_schemas::parse::parse_text_in;
use masterctl_schemas::{FieldType, Value};
use masterctl_store::edit::Edit;
use masterctl_store::snapshot::head::head_snapshot;
use masterctl_store::{Branch, MasterRepo, StoreError};

use super::{Column, Grids, columns, grid_of, key_of, labelling, row_of};

/// At most this many rows a reference may name are offered (typing checks the rest).
pub const OFFERED: usize = 2_000;

/// A text longer than this, or of more than one line, is edited in a box.
const LONG: usize = 60;

/// A row as a form.
pub struct RowForm {
    pub commit: String,
    pub table: String,
    /// The row's key (`None`: a new row, empty or copied from another).
    pub key: Option<String>,
    pub fields: Vec<FieldInput>,
}

/// One field of the form.
pub struct FieldInput {
    pub column: Column,
    pub input: Input,
    /// The value the input holds (a date-time as the zone's wall clock).
    pub value: String,
    /// The cell as the branch holds it (canonical; empty for a new row).
    pub was: String,
    /// A value is needed (not optional, no default; of the row's case, for a field of
    /// some cases).
    pub required: bool,
    /// The cases whose rows alone fill it (a table's `case_field` values); empty: every
    /// row's field.
    pub cases: Vec<String>,
}

/// The input that fits a field's type.
pub enum Input {
    /// One of the enum's values.
    Choice(Vec<String>),
    /// A number, within bounds (empty: none).
    Number {
        min: String,
        max: String,
        step: &'static str,
    },
    Bool,
    /// A wall-clock time in the project's zone.
    DateTime {
        zone: String,
    },
    Date,
    /// A text of several lines or a long one.
    Long,
    Text,
    /// A row of the referenced table: (its key, its label), at most [`OFFERED`].
    Reference {
        table: String,
        options: Vec<(String, String)>,
    },
    /// A list or a map (`map`), written as canonical files write it: items joined by
    /// `|`, a map's keys and values by `:`.
    Listed {
        example: String,
        map: bool,
    },
    /// A record, written as its cells write it: its fields' values in `layout`'s order
    /// and separators (`item_id,count`).
    Parts {
        layout: String,
    },
}

impl Input {
    /// A number's bounds in words (`0–99`, `from 1`, `up to 10`), when it has any.
    pub fn bounds(&self) -> Option<String> {
        match self {
            Input::Number { min, max, .. } => match (min.is_empty(), max.is_empty()) {
                (true, true) => None,
                (false, false) => Some(format!("{min}–{max}")),
                (false, true) => Some(format!("from {min}")),
                (true, false) => Some(format!("up to {max}")),
            },
            _ => None,
        }
    }

    /// The input's name in the page (`choice`, `number`…), for its markup.
    pub fn kind(&self) -> &'static str {
        match self {
            Input::Choice(_) => "choice",
            Input::Number { .. } => "number",
            Input::Bool => "bool",
            Input::DateTime { .. } => "datetime",
            Input::Date => "date",
            Input::Long => "long",
            Input::Text => "text",
            Input::Reference { .. } => "reference",
            Input::Listed { .. } => "listed",
            Input::Parts { .. } => "parts",
        }
    }
}

/// The form of `table`'s row `key` on `line` (none: a new row; `copy`: a new row
/// holding `key`'s cells).
pub fn row_form(
    repo: &MasterRepo,
    line: &Branch,
    table: &str,
    key: Option<&str>,
    copy: bool,
    grids: &Grids,
) -> Result<RowForm, StoreError> {
    let head = head_snapshot(repo, line)?;
    let schema = head.schema(table)?;
    if schema.primary_key.is_empty() {
        return Err(StoreError::NoKeyToEdit {
            table: schema.name.clone(),
        });
    }
    let grid = grid_of(repo, &head, schema, grids)?;
    let row = match key {
        Some(key) => Some(row_of(&grid, schema, key).ok_or_else(|| StoreError::NoRow {
            table: schema.name.clone(),
            key: key.split('|').map(str::to_string).collect(),
            at: line.branch().to_string(),
        })?),
        None => None,
    };
    // The row's case, in a table of several cases: its fields are required in it alone.
    let case = (schema.case_field_index())
        .zip(row)
        .map(|(at, row)| grid.cell(row, at))
        .filter(|case| !case.is_empty());
    let mut fields = Vec::new();
    for ((at, field), column) in
        (schema.fields.iter().enumerate()).zip(columns(&head.project, schema))
    {
        let cell = row.map_or("", |row| grid.cell(row, at));
        let input = input_of(repo, &head, field, grids)?;
        let value = match (&input, cell.is_empty()) {
            (Input::DateTime { .. }, false) => wall_clock(field, cell),
            _ => cell.to_string(),
        };
        let input = match (input, value.contains('\n') || value.chars().count() > LONG) {
            (Input::Text, true) => Input::Long,
            (input, _) => input,
        };
        fields.push(FieldInput {
            column,
            input,
            value,
            was: if copy {
                String::new()
            } else {
                cell.to_string()
            },
            required: match case {
                Some(case) => field.required_in(case),
                None => field.required(),
            },
            cases: field.cases.iter().map(|c| c.to_string()).collect(),
        });
    }
    Ok(RowForm {
        commit: head.commit.to_string(),
        table: schema.name.clone(),
        key: match copy {
            true => None,
            false => row.and_then(|row| key_of(&grid, schema, row)),
        },
        fields,
    })
}

fn input_of(
    repo: &MasterRepo,
    head: &masterctl_store::snapshot::head::HeadSnapshot<'_>,
    field: &masterctl_schemas::Field,
    grids: &Grids,
) -> Result<Input, StoreError> {
    if let Some(reference) = &field.references
        && let Some(target) = head.project.table(&reference.table)
        && let Some(referenced) = target.field_index(&reference.field)
        && !matches!(field.ty, FieldType::List(_) | FieldType::Map(..))
    {
        let grid = grid_of(repo, head, target, grids)?;
        let label = labelling(target);
        let options = (0..grid.rows().min(OFFERED))
            .map(|row| {
                let shown = label.map_or("", |l| grid.cell(row, l));
                (grid.cell(row, referenced).to_string(), shown.to_string())
            })
            .collect();
        return Ok(Input::Reference {
            table: target.name.clone(),
            options,
        });
    }
    let bound = |value: &Option<Value>| value.as_ref().map_or_else(String::new, Value::canonical);
    Ok(match &field.ty {
        FieldType::Enum => Input::Choice(field.values.iter().map(|v| v.to_string()).collect()),
        FieldType::Int => Input::Number {
            min: bound(&field.min),
            max: bound(&field.max),
            step: "1",
        },
        FieldType::Float => Input::Number {
            min: bound(&field.min),
            max: bound(&field.max),
            step: "any",
        },
        FieldType::Bool => Input::Bool,
        FieldType::DateTime => Input::DateTime {
            zone: field.zone.name().to_string(),
        },
        FieldType::Date => Input::Date,
        FieldType::Text | FieldType::String => Input::Text,
        FieldType::List(inner) => Input::Listed {
            example: match &**inner {
                FieldType::Record(record) => format!("{0}|{0}", record.layout()),
                FieldType::Union(union) => union.layout().replace(" or ", "|"),
                _ => "1|2|3".into(),
            },
            map: false,
        },
        FieldType::Map(_, value) => Input::Listed {
            example: match &**value {
                FieldType::Record(record) => format!("1:{0}|2:{0}", record.layout()),
                _ => "1:100|2:250".into(),
            },
            map: true,
        },
        FieldType::Record(record) => Input::Parts {
            layout: record.layout(),
        },
        FieldType::Union(union) => Input::Parts {
            layout: union.layout(),
        },
    })
}

/// A canonical date-time as the zone's wall clock (`2026-12-01T19:00:00`), which a
/// date-time picker shows and gives back.
fn wall_clock(field: &masterctl_schemas::Field, cell: &str) -> String {
    match parse_text_in(&field.ty, cell, Some(&field.zone)) {
        Ok(Value::DateTime(instant)) => {
            let wall = field.zone.wall(instant).to_string();
            wall.trim_end_matches('Z').to_string()
        }
        _ => cell.to_string(),
    }
}

/// The edits a filled form of `table`'s row makes on `line`: for a row (`key`), each
/// field whose value is not the value it held (`was`, as the form showed it); for a
/// new row (no key), the row with every field given. A value its column cannot read is
/// an edit too: the review names it.
pub fn row_edits(
    repo: &MasterRepo,
    line: &Branch,
    table: &str,
    key: Option<&str>,
    was: &[(String, String)],
    values: &[(String, String)],
) -> Result<Vec<Edit>, StoreError> {
    let head = head_snapshot(repo, line)?;
    let schema = head.schema(table)?;
    let Some(key) = key else {
        let cells: Vec<(String, String)> = (values.iter())
            .filter(|(_, text)| !text.is_empty())
            .cloned()
            .collect();
        return Ok(match cells.is_empty() {
            true => Vec::new(),
            false => vec![Edit::Add {
                table: schema.name.clone(),
                cells,
            }],
        });
    };
    let mut edits = Vec::new();
    for (name, text) in values {
        let Some(field) = schema.field(name) else {
            return Err(StoreError::NoField {
                table: schema.name.clone(),
                field: name.clone(),
            });
        };
        let before = (was.iter())
            .find(|(f, _)| f == name)
            .map_or("", |(_, w)| w.as_str());
        if !same_value(field, before, text) {
            edits.push(Edit::Set {
                table: schema.name.clone(),
                key: key.to_string(),
                field: name.clone(),
                was: before.to_string(),
                value: text.clone(),
            });
        }
    }
    Ok(edits)
}

/// Whether two texts are one value of `field` (texts as written when either does not
/// read).
pub fn same_value(field: &masterctl_schemas::Field, a: &str, b: &str) -> bool {
    if a == b {
        return true;
    }
    let read = |text: &str| parse_text_in(&field.ty, text, Some(&field.zone)).ok();
    matches!((read(a), read(b)), (Some(a), Some(b)) if a.canonical() == b.canonical())
}
