//! Edits applied to a table as the branch's head holds it, each held to what the
//! planner saw when they made it: a cell changed since (by someone else) is not
//! overwritten but refused, named; so is a value its column cannot read, a row or field
//! that is not there, and a new row whose key is taken.

use std::collections::HashMap;

use masterctl_schemas::parse::parse_text_in;
use masterctl_schemas::{Table, TableSchema, Value};

use super::{Edit, Refusal, Why};

/// What the edits did to one table.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(super) struct Counted {
    pub cells: usize,
    pub added: usize,
    pub deleted: usize,
}

/// The table being edited: its rows by key, and the rows deleted so far (taken out
/// at the end, so that row numbers hold while edits are applied).
pub(super) struct Editing<'a> {
    schema: &'a TableSchema,
    table: &'a mut Table,
    rows: HashMap<String, usize>,
    deleted: Vec<bool>,
    counted: Counted,
}

impl<'a> Editing<'a> {
    pub(super) fn new(schema: &'a TableSchema, table: &'a mut Table) -> Editing<'a> {
        let rows = (0..table.row_count())
            .map(|row| (key_of(schema, table, row), row))
            .collect();
        let deleted = vec![false; table.row_count()];
        Editing {
            schema,
            table,
            rows,
            deleted,
            counted: Counted::default(),
        }
    }

    /// Apply edit number `at`, or say why not.
    pub(super) fn apply(&mut self, at: usize, edit: &Edit) -> Result<(), Refusal> {
        let refusal = |why: Why, key: Option<&str>, field: Option<&str>| Refusal {
            edit: at,
            table: self.schema.name.clone(),
            key: key.map(str::to_string),
            field: field.map(str::to_string),
            why,
            by: None,
        };
        match edit {
            Edit::Set {
                key,
                field,
                was,
                value,
                ..
            } => self
                .set(key, field, was, value)
                .map_err(|why| refusal(why, Some(key), Some(field))),
            Edit::Add { cells, .. } => self
                .add(cells)
                .map_err(|(why, key, field)| refusal(why, key.as_deref(), field.as_deref())),
            Edit::Delete { key, was, .. } => self
                .delete(key, was)
                .map_err(|(why, field)| refusal(why, Some(key), field.as_deref())),
        }
    }

    /// What the edits did, the deleted rows taken out.
    pub(super) fn finish(self) -> Counted {
        let Editing {
            table,
            deleted,
            counted,
            ..
        } = self;
        if deleted.iter().any(|&d| d) {
            let kept = |values: &mut Vec<Value>| {
                let mut row = 0;
                values.retain(|_| {
                    row += 1;
                    !deleted[row - 1]
                });
            };
            for column in &mut table.columns {
                kept(column);
            }
            let mut row = 0;
            table.origin.rows.retain(|_| {
                row += 1;
                !deleted[row - 1]
            });
        }
        counted
    }

    fn row(&self, key: &str) -> Option<usize> {
        self.rows
            .get(key)
            .copied()
            .filter(|&row| !self.deleted[row])
    }

    fn field(&self, name: &str) -> Result<usize, Why> {
        self.schema.field_index(name).ok_or(Why::NoField)
    }

    /// The value `text` is in `field`'s column: as the canonical file reads it, an
    /// empty cell taking the field's default.
    fn typed(&self, field: usize, text: &str) -> Result<Value, Why> {
        let field = &self.schema.fields[field];
        match parse_text_in(&field.ty, text, Some(&field.zone)) {
            Ok(Value::Null) => Ok(field.default.clone().unwrap_or(Value::Null)),
            Ok(value) => Ok(value),
            Err(mismatch) => Err(Why::Unreadable {
                text: text.to_string(),
                expected: mismatch.expected.to_string(),
            }),
        }
    }

    fn set(&mut self, key: &str, field: &str, was: &str, value: &str) -> Result<(), Why> {
        let column = self.field(field)?;
        let row = self.row(key).ok_or(Why::RowGone)?;
        let now = self.table.columns[column][row].canonical();
        let typed = self.typed(column, value)?;
        if typed.canonical() == now {
            return Ok(());
        }
        if now != was {
            return Err(Why::Changed { now: Some(now) });
        }
        let keyed = self.schema.primary_key.contains(&column);
        self.table.columns[column][row] = typed;
        if keyed {
            let new = key_of(self.schema, self.table, row);
            if self.row(&new).is_some() {
                self.table.columns[column][row] = self.typed(column, was)?;
                return Err(Why::KeyTaken { key: new });
            }
            self.rows.remove(key);
            self.rows.insert(new, row);
        }
        self.counted.cells += 1;
        Ok(())
    }

    #[allow(clippy::type_complexity)]
    fn add(
        &mut self,
        cells: &[(String, String)],
    ) -> Result<(), (Why, Option<String>, Option<String>)> {
        let mut values: Vec<Value> = self
            .schema
            .fields
            .iter()
            .map(|f| f.default.clone().unwrap_or(Value::Null))
            .collect();
        for (field, text) in cells {
            let column = self
                .field(field)
                .map_err(|why| (why, None, Some(field.clone())))?;
            values[column] = self
                .typed(column, text)
                .map_err(|why| (why, None, Some(field.clone())))?;
        }
        let key = key_of_values(self.schema, &values);
        if self.row(&key).is_some() {
            return Err((Why::KeyTaken { key: key.clone() }, Some(key), None));
        }
        let line = self.table.origin.rows.iter().max().map_or(2, |l| l + 1);
        for (column, value) in self.table.columns.iter_mut().zip(values) {
            column.push(value);
        }
        self.table.origin.rows.push(line);
        let row = self.deleted.len();
        self.deleted.push(false);
        self.rows.insert(key, row);
        self.counted.added += 1;
        Ok(())
    }

    fn delete(&mut self, key: &str, was: &[(String, String)]) -> Result<(), (Why, Option<String>)> {
        // Deleted already (by someone else, or twice): nothing left to do.
        let Some(row) = self.row(key) else {
            return Ok(());
        };
        for (field, seen) in was {
            let column = self
                .field(field)
                .map_err(|why| (why, Some(field.clone())))?;
            let now = self.table.columns[column][row].canonical();
            if &now != seen {
                return Err((Why::Changed { now: Some(now) }, Some(field.clone())));
            }
        }
        self.deleted[row] = true;
        self.counted.deleted += 1;
        Ok(())
    }
}

/// A row's key: its key fields' canonical cells joined by `|`, as the console's
/// addresses and blame name it.
fn key_of(schema: &TableSchema, table: &Table, row: usize) -> String {
    (schema.primary_key.iter())
        .map(|&f| table.columns[f][row].canonical())
        .collect::<Vec<_>>()
        .join("|")
}

fn key_of_values(schema: &TableSchema, values: &[Value]) -> String {
    (schema.primary_key.iter())
        .map(|&f| values[f].canonical())
        .collect::<Vec<_>>()
        .join("|")
}
