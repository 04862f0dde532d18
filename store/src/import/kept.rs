//! The tables an import does not supply, taken from the branch so that the whole
//! snapshot is validated — and named, in what the planner is told, by where planners
//! keep them (`shops.xlsx (sheet ShopItem)`), not by the repository file read.

use std::collections::HashMap;

use git2::Tree;
use masterctl_schemas::{Project, Report, Table};

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::read_table_at;

/// Add the tables of `project` that `tables` lacks from the branch's `tree`, each named
/// by its planners' place; returns their names.
pub(super) fn keep_tables(
    repo: &MasterRepo,
    tree: &Tree<'_>,
    project: &Project,
    tables: &mut Vec<Table>,
    branch: &str,
) -> Result<Vec<String>, StoreError> {
    let mut kept = Vec::new();
    for schema in &project.tables {
        if tables.iter().any(|t| t.name == schema.name) {
            continue;
        }
        if let Some(mut table) = read_table_at(&repo.git, tree, project, schema, branch)? {
            table.origin.kept_in = Some(format!(
                "{}, not among the files imported: as {branch} holds it",
                schema.planners_place()
            ));
            kept.push(table.name.clone());
            tables.push(table);
        }
    }
    Ok(kept)
}

/// Name each row of a table read from the branch (kept, or edited in the console) that a
/// diagnostic points at by its key — the line of the branch's file means nothing in a
/// workbook — and, for a kept table, say where the planner corrects it.
pub(super) fn name_kept_rows(
    project: &Project,
    tables: &[Table],
    kept: &[String],
    branch: &str,
    report: &mut Report,
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
        // Rows read from the branch (kept, or edited in place) are named by key.
        if table.origin.kept_in.is_none() {
            continue;
        }
        if d.location.file.as_deref() != Some(table.origin.file.as_path()) {
            continue;
        }
        let rows = lines.entry(schema.name.as_str()).or_insert_with(|| {
            (table.origin.rows.iter().enumerate())
                .map(|(row, &line)| (line, row))
                .collect()
        });
        if let Some(&row) = rows.get(&line)
            && d.location.key.is_none()
        {
            let key: Vec<String> = crate::merge::row_key(schema, table, row)
                .iter()
                .map(|v| v.canonical())
                .collect();
            d.location.key = Some(key.join("|"));
        }
        if kept.iter().any(|k| k == name) {
            let hint = format!(
                "this row is {branch}'s, not among the files imported: correct it in {}",
                schema.planners_place()
            );
            *d = d.clone().hint(hint);
        }
    }
}
