//! One value typed in the console, checked as an import would check that cell: read by
//! its column's parser, then held to the column's rules — required, enum, range,
//! length, pattern — and a reference to a row the branch's head holds (or the head of
//! the branch a rebase or merge takes from); a unique column's (or a table's one key
//! column's) value another row of the head has already is refused, naming that row.

use masterctl_schemas::cases::case_problem;
use masterctl_schemas::check::{check_value, problem};
use masterctl_schemas::diagnostic::Code;
use masterctl_schemas::parse::parse_text_in;
use masterctl_schemas::{Diagnostic, Value};
use masterctl_store::snapshot::head::head_snapshot;
use masterctl_store::{Branch, MasterRepo, StoreError};

use super::{Grids, grid_of};

/// What a value typed comes to, in words a planner reads beside the cell.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Fine,
    /// It will do, but may not be what was meant (a text ending in spaces).
    Noted(Note),
    /// It will not do, and why: the mistake an import would report for the cell (its
    /// message a sentence for the cell, its values in [`Diagnostic::said`]).
    Refused(Box<Diagnostic>),
}

/// What may not be what was meant in a value that will do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Note {
    /// It begins or ends with spaces, which are kept.
    EdgeSpaces,
}

impl std::fmt::Display for Note {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Note::EdgeSpaces => f.write_str("it begins or ends with spaces, which are kept"),
        }
    }
}

/// A value typed into a cell.
pub struct Typed<'a> {
    pub table: &'a str,
    pub column: &'a str,
    pub text: &'a str,
    /// The key of the row it goes into (none: a new row).
    pub row: Option<&'a str>,
}

/// Whether `typed.text` would do as the cell of `typed.table`'s `typed.column` on
/// `line`. A table or column the head's structure lacks is [`StoreError::NoTable`] or
/// [`StoreError::NoField`].
pub fn check_cell(
    repo: &MasterRepo,
    line: &Branch,
    typed: &Typed<'_>,
    grids: &Grids,
) -> Result<Verdict, StoreError> {
    let text = typed.text;
    Ok(match refusal(repo, line, typed, grids)? {
        Err(mut why) => {
            // Said of the cell: its table and column.
            why.location.table = Some(typed.table.to_string());
            why.location.field = Some(typed.column.to_string());
            Verdict::Refused(why)
        }
        Ok(()) if text != text.trim() && !text.trim().is_empty() => {
            Verdict::Noted(Note::EdgeSpaces)
        }
        Ok(()) => Verdict::Fine,
    })
}

/// Why the value would not do as the cell (`Ok(Err(why))`).
fn refusal(
    repo: &MasterRepo,
    line: &Branch,
    typed: &Typed<'_>,
    grids: &Grids,
) -> Result<Result<(), Box<Diagnostic>>, StoreError> {
    let (table, column, text) = (typed.table, typed.column, typed.text);
    let head = head_snapshot(repo, line)?;
    let schema = head.schema(table)?;
    let field = schema.field(column).ok_or_else(|| StoreError::NoField {
        table: table.to_string(),
        field: column.to_string(),
    })?;
    let value = match parse_text_in(&field.ty, text, Some(&field.zone)) {
        Ok(value) => value,
        Err(mismatch) => {
            let message = match &mismatch.hint {
                Some(hint) => format!("not {}: {hint}", mismatch.expected),
                None => format!("not {}", mismatch.expected),
            };
            let mut d =
                (problem(Code::TypeError, message).found(text)).arg("type", field.ty.to_string());
            d.hint = mismatch.hint;
            d.said.extend(mismatch.said);
            return Ok(Err(Box::new(d)));
        }
    };
    if let Some(case) = row_case(repo, &head, schema, field, typed.row, grids)?
        && let Some(refused) = case_problem(field, &case, &value)
    {
        return Ok(Err(refused));
    }
    if value.is_null() {
        return Ok(match !field.required() {
            true => Ok(()),
            false => Err(Box::new(
                problem(Code::Required, format!("`{column}` needs a value")).arg("case", "empty"),
            )),
        });
    }
    if let Err(problem) = check_value(field, &value) {
        return Ok(Err(problem));
    }
    if let Some(taken) = taken_by(repo, &head, schema, column, &value, typed.row, grids)? {
        let d = problem(
            Code::Unique,
            format!("row {taken} has this `{column}` already"),
        );
        return Ok(Err(Box::new(d.found(text).arg("row", taken))));
    }
    // The field's own reference, and its records' fields'.
    for (reference, values) in field.references_of(&value) {
        if let Some(refused) = dangling(repo, line, &head, reference, &values, grids)? {
            return Ok(Err(refused));
        }
    }
    Ok(Ok(()))
}

/// The first of `values` no row of `reference`'s target holds (nor the branch's a join
/// takes from), as the mistake saying so.
fn dangling(
    repo: &MasterRepo,
    line: &Branch,
    head: &masterctl_store::snapshot::head::HeadSnapshot<'_>,
    reference: &masterctl_schemas::schema::Reference,
    values: &[&Value],
    grids: &Grids,
) -> Result<Option<Box<Diagnostic>>, StoreError> {
    let Some(target) = head.project.table(&reference.table) else {
        return Ok(None);
    };
    let Some(referenced) = target.field_index(&reference.field) else {
        return Ok(None);
    };
    let grid = grid_of(repo, head, target, grids)?;
    // A join brings rows in from the branch it takes from: a row there will do too.
    let source = taken_from(repo, line, &head.project)
        .map(|source| {
            let head = head_snapshot(repo, &source)?;
            match head.project.table(&reference.table) {
                Some(target) => grid_of(repo, &head, target, grids).map(Some),
                None => Ok(None),
            }
        })
        .transpose()?
        .flatten();
    for item in values {
        let cell = item.canonical();
        let there = grid.find(referenced, &cell).is_some()
            || source
                .as_ref()
                .is_some_and(|g| g.find(referenced, &cell).is_some());
        if !there {
            let message = format!("no `{}` has {} {cell}", reference.table, reference.field);
            let d = (problem(Code::ForeignKey, message).found(cell))
                .arg("target", reference.table.to_string())
                .arg("column", reference.field.to_string());
            return Ok(Some(Box::new(d)));
        }
    }
    Ok(None)
}

/// The case of the row a value of `field` goes into, when the field is filled by some
/// cases' rows alone and the row is one the head holds (a new row's case is checked
/// with the row).
fn row_case(
    repo: &MasterRepo,
    head: &masterctl_store::snapshot::head::HeadSnapshot<'_>,
    schema: &masterctl_schemas::TableSchema,
    field: &masterctl_schemas::Field,
    row: Option<&str>,
    grids: &Grids,
) -> Result<Option<String>, StoreError> {
    let (Some(key), Some(at)) = (row, schema.case_field_index()) else {
        return Ok(None);
    };
    if field.cases.is_empty() {
        return Ok(None);
    }
    let grid = grid_of(repo, head, schema, grids)?;
    let case = super::row_of(&grid, schema, key).map(|found| grid.cell(found, at));
    Ok(case.filter(|c| !c.is_empty()).map(str::to_string))
}

/// For a unique column (or a table's one key column): the key of another row that holds
/// `value` there already.
fn taken_by(
    repo: &MasterRepo,
    head: &masterctl_store::snapshot::head::HeadSnapshot<'_>,
    schema: &masterctl_schemas::TableSchema,
    column: &str,
    value: &Value,
    row: Option<&str>,
    grids: &Grids,
) -> Result<Option<String>, StoreError> {
    let Some(at) = schema.field_index(column) else {
        return Ok(None);
    };
    if !(schema.fields[at].unique || schema.primary_key == [at]) {
        return Ok(None);
    }
    let grid = grid_of(repo, head, schema, grids)?;
    let Some(found) = grid.find(at, &value.canonical()) else {
        return Ok(None);
    };
    let key = super::key_of(&grid, schema, found);
    Ok(key.filter(|k| Some(k.as_str()) != row))
}

/// The branch `line` takes from in a rebase — its region for a work branch, its
/// upstream for a region (`Region::upstream`) — when it has one with commits.
fn taken_from(
    repo: &MasterRepo,
    line: &Branch,
    project: &masterctl_schemas::Project,
) -> Option<Branch> {
    let source = match line.work() {
        Some(_) => line.region().clone(),
        None => line.region().upstream(project)?.ok()?,
    };
    repo.head_of(&source.reference()).ok().flatten()?;
    Some(Branch::from(source))
}
