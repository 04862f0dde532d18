//! The rule of a table whose rows are of several cases (its `case_field`): a field of
//! some cases (`cases = ["item"]`) is filled by those cases' rows alone — required in
//! them unless optional (or defaulted there), empty in every other row. One rule for whatever reads rows:
//! a sheet typed ([`crate::typing`], [`settle_cases`]), rows kept or edited checked
//! again ([`crate::validate::check_rows`], [`check_cases`]), and a value typed in the
//! console ([`case_problem`]).

use std::collections::HashSet;
use std::sync::Arc;

use crate::check::{Problem, problem};
use crate::diagnostic::{Code, Diagnostic};
use crate::schema::{Field, TableSchema};
use crate::table::Table;
use crate::value::Value;

/// What is wrong with `value`, `field`'s value in a row of `case`: a value in a field
/// the case does not fill, or none in one it must.
pub fn case_problem(field: &Field, case: &str, value: &Value) -> Option<Problem> {
    match value {
        Value::Null if field.required_in(case) => Some(Box::new(
            problem(
                Code::Required,
                format!(
                    "`{}` is required in a row of case `{case}`, and it has no value",
                    field.name
                ),
            )
            .hint(format!(
                "fill in `{}`, or give the row another case",
                field.name
            ))
            .arg("case", "in-case")
            .arg("row_case", case.to_string())
            .arg("hint", "case-fill"),
        )),
        Value::Null => None,
        _ if field.in_case(case) => None,
        value => Some(Box::new(
            problem(
                Code::OtherCase,
                format!(
                    "`{}` is filled by rows of case {} alone, and this row is of case `{case}`",
                    field.name,
                    cases_list(field)
                ),
            )
            .found(value.to_string())
            .hint(format!(
                "empty the cell, or make the row of case {}",
                cases_list(field)
            ))
            .arg("cases", field.cases.join(", "))
            .arg("row_case", case.to_string()),
        )),
    }
}

/// A table just read settled by its rows' cases: a field of some cases empty in a row
/// of one of them takes its default; then every row checked ([`check_cases`]).
pub fn settle_cases(
    schema: &TableSchema,
    table: &mut Table,
    wrong: &HashSet<(usize, usize)>,
) -> Vec<Diagnostic> {
    if let Some(at) = schema.case_field_index() {
        let cases: Vec<Option<Arc<str>>> = (table.columns.get(at).into_iter().flatten())
            .map(|case| match case {
                Value::Str(case) => Some(case.clone()),
                _ => None,
            })
            .collect();
        for (index, field) in schema.fields.iter().enumerate() {
            let Some(default) = field.default.as_ref().filter(|_| !field.cases.is_empty()) else {
                continue;
            };
            let Some(column) = table.columns.get_mut(index) else {
                continue;
            };
            for (row, (value, case)) in column.iter_mut().zip(&cases).enumerate() {
                let in_case = case.as_deref().is_some_and(|c| field.in_case(c));
                if value.is_null() && in_case && !wrong.contains(&(row, index)) {
                    *value = default.clone();
                }
            }
        }
    }
    check_cases(schema, table, wrong)
}

/// Every row's values checked against its case. Rows whose case is missing or wrong
/// were reported at their case field, and cells in `wrong` (row, field) at themselves:
/// both are passed over.
pub fn check_cases(
    schema: &TableSchema,
    table: &Table,
    wrong: &HashSet<(usize, usize)>,
) -> Vec<Diagnostic> {
    let Some(at) = schema.case_field_index() else {
        return Vec::new();
    };
    let Some(case_column) = table.columns.get(at) else {
        return Vec::new();
    };
    let mut diagnostics = Vec::new();
    for (index, field) in schema.fields.iter().enumerate() {
        if field.cases.is_empty() {
            continue;
        }
        let Some(column) = table.columns.get(index) else {
            continue;
        };
        for (row, (case, value)) in case_column.iter().zip(column.iter()).enumerate() {
            let Value::Str(case) = case else { continue };
            if wrong.contains(&(row, index)) {
                continue;
            }
            if let Some(mut d) = case_problem(field, case, value) {
                d.location = table.cell_location(row, index, &field.name);
                diagnostics.push(*d);
            }
        }
    }
    diagnostics
}

/// A field's cases as a sentence lists them: `` `item` `` or `` `item` or `gem` ``.
fn cases_list(field: &Field) -> String {
    let named: Vec<String> = field.cases.iter().map(|c| format!("`{c}`")).collect();
    named.join(" or ")
}
