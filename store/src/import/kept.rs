//! The tables an import does not supply, taken from the branch so that the whole
//! snapshot is validated — and named, in what the planner is told, by where planners
//! keep them (`shops.xlsx (sheet ShopItem)`), not by the repository file read.

use std::collections::HashMap;

use git2::Tree;
use masterctl_schemas::{Project, Report, Table};

use std::path::Path;

use masterctl_schemas::canonical::read_table;
use masterctl_schemas::read::parallel_map;

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::{Reused, language_path, table_path};

/// Add the tables of `project` that `tables` lacks from the branch's `tree`, each named
/// by its planners' place; returns their names, and — with `reuse`, when the tree's
/// structure is the one the tables are written under — their files as the tree holds
/// them, to be kept as they are. The blobs are read in turn, the tables typed on every
/// core.
pub(super) fn keep_tables(
    repo: &MasterRepo,
    tree: &Tree<'_>,
    project: &Project,
    tables: &mut Vec<Table>,
    branch: &str,
    reuse: bool,
) -> Result<(Vec<String>, Vec<Reused>), StoreError> {
    let git = &repo.git;
    let source = &project.config.source_language;
    let mut read = Vec::new();
    for schema in &project.tables {
        if tables.iter().any(|t| t.name == schema.name) {
            continue;
        }
        let Some(data) = file_at(git, tree, &table_path(&schema.name))? else {
            continue;
        };
        let texts = file_at(git, tree, &language_path(source, &schema.name))?;
        read.push((schema, data, texts));
    }
    let typed = parallel_map(&read, |(schema, (path, _, data), texts)| {
        read_table(
            schema,
            data,
            Path::new(path),
            texts
                .as_ref()
                .map(|(p, _, t)| (t.as_slice(), Path::new(p.as_str()))),
        )
        .map_err(|diagnostics| StoreError::BrokenSnapshot {
            branch: branch.to_string(),
            message: diagnostics
                .first()
                .map_or_else(String::new, ToString::to_string),
        })
    });
    let mut kept = Vec::new();
    let mut reused = Vec::new();
    for (table, (schema, data, texts)) in typed.into_iter().zip(read) {
        let mut table = table?;
        table.origin.kept_in = Some(format!(
            "{}, not among the files imported: as {branch} holds it",
            schema.planners_place()
        ));
        kept.push(table.name.clone());
        tables.push(table);
        if reuse {
            reused.push(Reused {
                table: schema.name.clone(),
                files: std::iter::once(data).chain(texts).collect(),
            });
        }
    }
    Ok((kept, reused))
}

/// The file at `path` of `tree`: its path, blob id and bytes (none when not there).
fn file_at(
    git: &git2::Repository,
    tree: &Tree<'_>,
    path: &str,
) -> Result<Option<(String, git2::Oid, Vec<u8>)>, StoreError> {
    match tree.get_path(Path::new(path)) {
        Ok(entry) if entry.kind() == Some(git2::ObjectType::Blob) => {
            let bytes = git.find_blob(entry.id())?.content().to_vec();
            Ok(Some((path.to_string(), entry.id(), bytes)))
        }
        Ok(_) => Ok(None),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
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
