//! A diagnostic on a row of a table read from a canonical file names the row by its
//! key as well as its line: the line of a file in the repository means nothing to a
//! planner, who finds the row by its key (and a join's resolution is keyed so).

use std::collections::HashMap;

use masterctl_schemas::{Project, Report, Table};

/// Give each diagnostic on a row of one of `tables` (those `named` picks) by its line in
/// the table's file the row's key as well (`1|5`): what a planner finds it by.
pub(crate) fn name_rows(
    project: &Project,
    tables: &[Table],
    report: &mut Report,
    named: impl Fn(&Table) -> bool,
) {
    let mut lines: HashMap<&str, HashMap<u64, usize>> = HashMap::new();
    for d in &mut report.diagnostics {
        let (Some(name), Some(line)) = (d.location.table.clone(), d.location.line) else {
            continue;
        };
        let name = name.as_str();
        let (Some(schema), Some(table)) =
            (project.table(name), tables.iter().find(|t| t.name == name))
        else {
            continue;
        };
        if !named(table)
            || d.location.key.is_some()
            || d.location.file.as_deref() != Some(table.origin.file.as_path())
        {
            continue;
        }
        let rows = lines.entry(schema.name.as_str()).or_insert_with(|| {
            (table.origin.rows.iter().enumerate())
                .map(|(row, &line)| (line, row))
                .collect()
        });
        if let Some(&row) = rows.get(&line) {
            let key: Vec<String> = crate::merge::row_key(schema, table, row)
                .iter()
                .map(|v| v.canonical())
                .collect();
            d.location.key = Some(key.join("|"));
        }
    }
}
