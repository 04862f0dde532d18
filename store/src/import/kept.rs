//! The tables an import does not supply, taken from the branch so that the whole
//! snapshot is validated — and named, in what the planner is told, by where planners
//! keep them (`shops.xlsx (sheet ShopItem)`), not by the repository file read.

use git2::Tree;
use masterctl_schemas::{Project, Report, Table};

use std::collections::HashSet;
use std::path::Path;

use masterctl_schemas::canonical::read_table;
use masterctl_schemas::read::parallel_map;
use masterctl_schemas::schema::{GeneratedKind, GeneratedSchema};

use crate::MasterRepo;
use crate::StoreError;
use crate::import::Keep;
use crate::snapshot::{Reused, generated_path, language_path, table_path};

/// Add the tables of `project` that `tables` lacks from the branch's `tree`, each named
/// by its planners' place; returns the names of those typed, and — when the plan is
/// made under the tree's own structure ([`Keep::Around`]) — every kept file as the tree
/// holds it (the tables', and the generated masters' that the plan's tables do not
/// feed), to be kept as it is. The blobs are read in turn, the tables typed on every
/// core: all of them ([`Keep::Typed`]), or those around the plan's tables.
pub(super) fn keep_tables(
    repo: &MasterRepo,
    tree: &Tree<'_>,
    project: &Project,
    tables: &mut Vec<Table>,
    branch: &str,
    keep: &Keep,
) -> Result<(Vec<String>, Vec<Reused>), StoreError> {
    let git = &repo.git;
    let source = &project.config.source_language;
    let typed_here = match keep {
        Keep::Typed => None,
        Keep::Around { edited, rekeyed } => Some(around(project, edited, rekeyed)),
    };
    let mut read = Vec::new();
    let mut reused = Vec::new();
    for schema in &project.tables {
        if tables.iter().any(|t| t.name == schema.name) {
            continue;
        }
        let Some(data) = file_at(git, tree, &table_path(&schema.name))? else {
            continue;
        };
        let texts = file_at(git, tree, &language_path(source, &schema.name))?;
        match &typed_here {
            Some(around) if !around.contains(schema.name.as_str()) => reused.push(Reused {
                table: schema.name.clone(),
                files: std::iter::once(data).chain(texts).collect(),
            }),
            _ => read.push((schema, data, texts)),
        }
    }
    if let Keep::Around { edited, .. } = keep {
        for generated in &project.generated {
            if inputs(generated)
                .iter()
                .any(|t| edited.iter().any(|e| e == t))
            {
                continue;
            }
            if let Some(file) = file_at(git, tree, &generated_path(&generated.name))? {
                reused.push(Reused {
                    table: String::new(),
                    files: vec![file],
                });
            }
        }
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
    for (table, (schema, data, texts)) in typed.into_iter().zip(read) {
        let mut table = table?;
        table.origin.kept_in = Some(format!(
            "{}, not among the files imported: as {branch} holds it",
            schema.planners_place()
        ));
        kept.push(table.name.clone());
        tables.push(table);
        if typed_here.is_some() {
            reused.push(Reused {
                table: schema.name.clone(),
                files: std::iter::once(data).chain(texts).collect(),
            });
        }
    }
    Ok((kept, reused))
}

/// The tables an edit of `edited` can break or needs to check against: those, the
/// tables they reference, the tables referencing those of them whose referenced values
/// may have changed (`rekeyed`), and every input of a master generated from one of them.
fn around<'p>(
    project: &'p Project,
    edited: &'p [String],
    rekeyed: &'p [String],
) -> HashSet<&'p str> {
    let edited: HashSet<&str> = edited.iter().map(String::as_str).collect();
    let mut around = edited.clone();
    for schema in &project.tables {
        for field in &schema.fields {
            let Some(reference) = &field.references else {
                continue;
            };
            if edited.contains(schema.name.as_str()) {
                around.insert(reference.table.as_str());
            }
            if rekeyed.contains(&reference.table) {
                around.insert(schema.name.as_str());
            }
        }
    }
    for generated in &project.generated {
        let inputs = inputs(generated);
        if inputs.iter().any(|t| edited.contains(t)) {
            around.extend(inputs);
        }
    }
    around
}

/// The tables a generated master is made from.
fn inputs(generated: &GeneratedSchema) -> Vec<&str> {
    match &generated.kind {
        GeneratedKind::Reverse(reverse) => std::iter::once(reverse.target.as_str())
            .chain(reverse.sources.iter().map(|s| s.table.as_str()))
            .collect(),
        GeneratedKind::Custom(custom) => vec![custom.table.as_str()],
    }
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
    crate::row_keys::name_rows(project, tables, report, |t| t.origin.kept_in.is_some());
    for d in &mut report.diagnostics {
        let Some(name) = d.location.table.as_deref() else {
            continue;
        };
        let Some(schema) = project
            .table(name)
            .filter(|_| kept.iter().any(|k| k == name))
        else {
            continue;
        };
        if d.location.line.is_none() || d.location.key.is_none() {
            continue;
        }
        let hint = format!(
            "this row is {branch}'s, not among the files imported: correct it in {}",
            schema.planners_place()
        );
        *d = d.clone().hint(hint);
    }
}
