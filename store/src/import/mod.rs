//! Import: exports in, one commit on the region branch out — or nothing at all.
//!
//! [`plan_import`] reads and validates the exports, takes the tables the exports do not
//! supply from the branch's current snapshot, validates the whole resulting snapshot
//! (foreign keys across supplied and kept tables included), builds the snapshot in
//! memory and counts the rows added, changed and removed per table. It writes nothing.
//! [`commit_import`] writes the objects and moves the branch only if it still points
//! where the plan started. [`run`] is the whole command: plan, review, guard, commit.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::{Commit, Oid, Tree};
use masterctl_schemas::canonical::key_order;
use masterctl_schemas::validate::{check_rows, validate_tables};
use masterctl_schemas::{Project, Report, Table, TableSchema, read};

use crate::MasterRepo;
use crate::StoreError;
use crate::cache;
use crate::git::repo::blob_at;
use crate::names::{Branch, one_line, short_id};
use crate::snapshot::commit::{CommitSpec, SOURCE_TRAILER, STRUCTURE_TRAILER, WORK_TOOK_TRAILER};
use crate::snapshot::structure::Structure;
use crate::snapshot::{Snapshot, language_path, read_table_at, table_path, tree_blobs};
use crate::source::{SourceFile, source_file};
use masterctl_git::Error as GitError;

/// Rows added, changed and removed in one table by an import.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TableChange {
    pub table: String,
    pub added: usize,
    pub changed: usize,
    pub removed: usize,
}

impl TableChange {
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.changed == 0 && self.removed == 0
    }
}

/// What an import would take away that a planner must confirm (`--allow-removal`): a
/// table or generated master the branch holds and the structure no longer declares, or
/// most rows of a table — what an out-of-date clone or a partial export does.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Removal {
    pub table: String,
    /// A generated master rather than a table.
    pub generated: bool,
    /// Rows removed.
    pub rows: usize,
    /// Rows the branch holds now (equal to `rows` when the whole table goes).
    pub of: usize,
}

impl Removal {
    /// Whether the whole table (or master) goes.
    pub fn whole(&self) -> bool {
        self.rows == self.of
    }
}

/// An import removing more than half the rows of a table of at least this many rows
/// needs confirming.
pub const MASS_REMOVAL_ROWS: usize = 20;

/// Everything an import would do, computed without writing.
pub struct ImportPlan {
    pub region: String,
    /// `refs/heads/...` of the region.
    pub reference: String,
    /// Where the branch pointed when the plan was made (`None`: it does not exist yet).
    pub parent: Option<Oid>,
    pub snapshot: Snapshot,
    /// The commit the structure was read from (`None`: the working tree's, for a diff).
    pub structure: Option<Oid>,
    /// The structure commit the branch's head was imported with, when this import's
    /// structure neither is it nor descends from it: a clone whose `main` is behind.
    pub newer_structure: Option<Oid>,
    /// Per table with any change, in schema order.
    pub changes: Vec<TableChange>,
    /// Tables and generated masters it would remove, or most rows of (see [`Removal`]).
    pub removals: Vec<Removal>,
    /// What the last rebase or merge brought in that an old workbook would take back.
    pub reverts: Vec<Revert>,
    /// True when the snapshot equals the branch's current tree: nothing to commit.
    pub unchanged: bool,
    pub sources: Vec<SourceFile>,
    /// Warnings met on the way (unmapped sheets...).
    pub report: Report,
    /// What each source gave, remembered once the import is done.
    pub cache_entries: Vec<cache::Entry>,
    /// For a work branch's first commit of its own: the region commit it took
    /// (`Masterctl-Work-Took`).
    pub took: Option<Oid>,
}

mod error;
mod exported;
mod kept;
mod run;

pub use error::ImportError;
pub(crate) use run::review_plan;
pub use run::{ImportOutcome, Request, Summary, run};

/// What a plan turned into.
pub enum Planning {
    /// The data was rejected: every diagnostic, nothing written.
    Rejected(Report),
    /// Planned: commit it (or show it, for a dry run).
    Planned(Box<ImportPlan>),
}

/// What an import reads, and how it takes an exported workbook's change.
pub struct Reading<'a> {
    /// Files or folders.
    pub paths: &'a [PathBuf],
    /// Called as files are read: `(done, total)`.
    pub progress: &'a (dyn Fn(usize, usize) + Sync),
    /// A cell an exported workbook and the branch both changed since the export keeps
    /// the branch's value, said as a warning ([`Request::keep_branch`]).
    pub keep_branch: bool,
}

impl<'a> Reading<'a> {
    /// Read `paths`, nothing reported, a cell changed on both sides refused.
    pub fn of(paths: &'a [PathBuf]) -> Reading<'a> {
        Reading {
            paths,
            progress: &|_, _| {},
            keep_branch: false,
        }
    }
}

/// Plan an import of what `reading` names into `region`.
pub fn plan_import(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Branch,
    reading: &Reading<'_>,
) -> Result<Planning, StoreError> {
    let (paths, progress) = (reading.paths, reading.progress);
    let project = &structure.project;
    let reference = region.reference();
    crate::join::state::refuse_if_stopped(repo, region)?;
    let head = repo.head_of(&reference)?;
    if let Some(head) = &head {
        crate::vouched::check(repo, region.branch(), head)?;
    }
    // A region's first import makes its branch; a work branch is made by `branch create`.
    if let (Some(work), None) = (region.work(), &head) {
        return Err(GitError::NoWorkBranch {
            region: region.name().to_string(),
            name: work.name().to_string(),
        }
        .into());
    }
    let (files, mut diagnostics) = read::collect_inputs(paths);
    // Each export read and hashed on every core (500 workbooks are 30 MB).
    let sources = masterctl_runtime::parallel::parallel_map(&files, |path| source_file(path))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    let structure_id = cache::structure_id(structure);
    // Exports imported before under this structure, and a branch holding exactly what
    // they gave: nothing changed, and no workbook needs reading.
    if let Some(commit) = &head
        && diagnostics.is_empty()
        && !sources.is_empty()
        && let Some(known) = cache::lookup(repo, &structure_id, &sources)
        && cache::branch_holds(
            repo,
            &commit.tree()?,
            structure,
            &project.config.source_language,
            &known,
        )?
    {
        return Ok(Planning::Planned(Box::new(ImportPlan {
            region: region.to_string(),
            reference,
            parent: Some(commit.id()),
            snapshot: Snapshot::default(),
            structure: structure.origin,
            newer_structure: None,
            changes: Vec::new(),
            removals: Vec::new(),
            reverts: Vec::new(),
            unchanged: true,
            sources,
            report: Report::default(),
            cache_entries: Vec::new(),
            took: None,
        })));
    }
    let outcome = read::read_inputs_with_progress(project, &files, read::Keep::All, progress);
    diagnostics.extend(outcome.report.diagnostics);
    let mut report = Report { diagnostics };
    // The new snapshot's tables: the supplied ones, and the kept ones from the branch
    // (typed, for validation; the branch's versions of supplied tables are read only if
    // their files change, to count the change).
    let mut tables = outcome.tables;
    // A workbook `export` wrote holds the planner's change since the commit it came
    // from: merged onto what the branch took meanwhile, never reverting it.
    // Every mistake at once: cells that did not read do not stop the checks across
    // rows and tables below (references, keys, unique fields, custom masters), as in
    // `validate`. Only the merge waits for tables that read whole: a cell that did not
    // read is no change of the planner's to merge.
    let read_whole = !report.has_errors();
    if let Some(head) = &head
        && read_whole
    {
        let diagnostics = merge_exported(
            repo,
            project,
            region,
            head,
            &mut tables,
            reading.keep_branch,
        )?;
        report.extend(diagnostics);
    }
    // What the tables (merged, where a workbook came from an older commit) would take
    // back of the last rebase. Workbooks with an export record are held to it too: a
    // record is the planner's word, and edited to name the head it would otherwise let
    // a stale workbook revert what the rebase brought in.
    let reverts = match &head {
        Some(head) if !report.has_errors() => upstream_reverts(repo, project, head, &tables)?,
        _ => Vec::new(),
    };
    plan_tables(
        repo,
        structure,
        region,
        head.as_ref(),
        Planned {
            tables,
            report,
            sources,
            reverts,
            keep: Keep::Typed,
        },
    )
}

/// What a plan's tables came from: the tables supplied (read from exports, or edited
/// in the console), the diagnostics met reading them, the exports read, and what they
/// would take back of the last rebase.
pub(crate) struct Planned {
    pub tables: Vec<Table>,
    pub report: Report,
    pub sources: Vec<SourceFile>,
    pub reverts: Vec<Revert>,
    /// How the tables the plan does not supply are kept from the head.
    pub keep: Keep,
}

/// How a plan keeps the tables it does not supply.
pub(crate) enum Keep {
    /// Typed, written anew under the plan's structure and validated with the rest: an
    /// import's (its structure may not be the head's).
    Typed,
    /// Under the head's own structure (an edit's), their files as the head holds them;
    /// typed and validated only around the tables the plan supplies (`edited`): the
    /// tables they reference, the tables referencing those of them whose referenced
    /// values may have changed (`rekeyed`: a row deleted, a referenced field set), and
    /// the inputs of the masters generated from them. What the edit cannot break is
    /// not read twice.
    Around {
        edited: Vec<String>,
        rekeyed: Vec<String>,
    },
}

/// The plan of committing `supplied`'s tables onto `region`'s `head`: the tables it
/// does not supply kept from the branch, the whole snapshot validated (every mistake at
/// once), built in memory, and compared with the head, table by table.
pub(crate) fn plan_tables(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Branch,
    head: Option<&Commit<'_>>,
    supplied: Planned,
) -> Result<Planning, StoreError> {
    let project = &structure.project;
    let reference = region.reference();
    let structure_id = cache::structure_id(structure);
    let Planned {
        mut tables,
        mut report,
        sources,
        reverts,
        keep,
    } = supplied;
    let head_tree = head.map(Commit::tree).transpose()?;
    let (kept, reused) = match &head_tree {
        Some(tree) => kept::keep_tables(repo, tree, project, &mut tables, region.branch(), &keep)?,
        None => (Vec::new(), Vec::new()),
    };
    for name in &kept {
        if let (Some(schema), Some(table)) =
            (project.table(name), tables.iter().find(|t| &t.name == name))
        {
            report.extend(check_rows(schema, table));
        }
    }
    let mut checked = validate_tables(project, &tables);
    // Around an edit, the tables at the edge reference tables left unread.
    if let Keep::Around { .. } = keep {
        checked
            .diagnostics
            .retain(|d| d.code != masterctl_schemas::diagnostic::Code::UncheckedReference);
    }
    report.extend(checked.diagnostics);
    kept::name_kept_rows(project, &tables, &kept, region.branch(), &mut report);
    report.sort();
    if report.has_errors() {
        return Ok(Planning::Rejected(report));
    }
    tables.sort_by_key(|t| project.table_index(&t.name));
    let mut snapshot = Snapshot::build_reusing(structure, &tables, reused)?;
    if let Some(tree) = &head_tree {
        snapshot.carry_translations(&repo.git, tree, &project.config.source_language)?;
    }
    let unchanged = match &head_tree {
        Some(tree) => snapshot.matches(&repo.git, tree)?,
        None => false,
    };
    let changes = if unchanged {
        Vec::new()
    } else {
        let supplied: Vec<&Table> = tables.iter().filter(|t| !kept.contains(&t.name)).collect();
        changes_from(
            repo,
            project,
            head_tree.as_ref(),
            &snapshot,
            &supplied,
            &reference,
        )?
    };
    let removals = match (&head_tree, unchanged) {
        (Some(tree), false) => removals(repo, project, tree, &tables, &changes),
        _ => Vec::new(),
    };
    let cache_entries = cache_entries(
        &snapshot,
        &structure_id,
        &project.config.source_language,
        &sources,
        &tables,
    )?;
    if unchanged {
        cache::record(repo, &cache_entries);
    }
    Ok(Planning::Planned(Box::new(ImportPlan {
        region: region.to_string(),
        reference,
        parent: head.map(Commit::id),
        snapshot,
        structure: structure.origin,
        newer_structure: match (&head, structure.origin) {
            (Some(head), Some(origin)) => newer_structure(repo, head, origin),
            _ => None,
        },
        changes,
        removals,
        reverts: if unchanged { Vec::new() } else { reverts },
        unchanged,
        sources,
        report,
        cache_entries,
        took: crate::branches::took(repo, region, head.map(Commit::id)),
    })))
}

/// The structure commit `head` names (`Masterctl-Structure`) when `origin` is not that
/// commit and does not descend from it (or it is not in this clone at all).
fn newer_structure(repo: &MasterRepo, head: &Commit<'_>, origin: Oid) -> Option<Oid> {
    let named = *crate::snapshot::commit::trailer_ids(head, STRUCTURE_TRAILER).first()?;
    let behind = named != origin && !repo.git.graph_descendant_of(origin, named).unwrap_or(false);
    behind.then_some(named)
}

/// What the import takes away: the branch's tables and generated masters the structure
/// no longer declares (with their rows), and tables losing more than half their rows.
fn removals(
    repo: &MasterRepo,
    project: &Project,
    tree: &Tree<'_>,
    tables: &[Table],
    changes: &[TableChange],
) -> Vec<Removal> {
    let rows_at = |path: &str| -> usize {
        blob_at(&repo.git, tree, path)
            .ok()
            .flatten()
            .and_then(|bytes| crate::review::diff::rows::Rows::read(&bytes, path).ok())
            .map_or(0, |rows| rows.len())
    };
    let mut removed = Vec::new();
    if let Some(before) = crate::snapshot::project_at(&repo.git, tree) {
        for table in &before.tables {
            if project.table(&table.name).is_none() {
                let rows = rows_at(&table_path(&table.name));
                removed.push(Removal {
                    table: table.name.clone(),
                    generated: false,
                    rows,
                    of: rows,
                });
            }
        }
        for generated in &before.generated {
            if !project.generated.iter().any(|g| g.name == generated.name) {
                let rows = rows_at(&crate::snapshot::generated_path(&generated.name));
                removed.push(Removal {
                    table: generated.name.clone(),
                    generated: true,
                    rows,
                    of: rows,
                });
            }
        }
    }
    for change in changes {
        let now = tables
            .iter()
            .find(|t| t.name == change.table)
            .map_or(0, Table::row_count);
        let before = (now + change.removed).saturating_sub(change.added);
        if before >= MASS_REMOVAL_ROWS && change.removed * 2 > before {
            removed.push(Removal {
                table: change.table.clone(),
                generated: false,
                rows: change.removed,
                of: before,
            });
        }
    }
    removed
}

/// Tables read from workbooks `export` wrote from a commit other than the branch's head,
/// each replaced by the keyed three-way merge of what the planner changed (base: the
/// exported commit; theirs: the workbook) onto what the branch holds now (ours). A cell
/// both changed differently is an error naming it; nothing is taken then.
fn merge_exported(
    repo: &MasterRepo,
    project: &Project,
    region: &Branch,
    head: &Commit<'_>,
    tables: &mut [Table],
    keep_branch: bool,
) -> Result<Vec<masterctl_schemas::Diagnostic>, StoreError> {
    use masterctl_schemas::diagnostic::{Code, Diagnostic, Location};
    use masterctl_schemas::read::workbook::export_record;
    let git = &repo.git;
    let head_tree = head.tree()?;
    let mut records: HashMap<PathBuf, Option<masterctl_schemas::read::workbook::ExportRecord>> =
        HashMap::new();
    let mut diagnostics = Vec::new();
    for table in tables.iter_mut() {
        let file = table.origin.file.clone();
        let record = records
            .entry(file.clone())
            .or_insert_with(|| export_record(&file))
            .clone();
        let Some(record) = record else {
            continue;
        };
        // Exported from another region: no base on this branch to merge from.
        if record.region.as_deref().is_some_and(|r| r != region.name()) {
            continue;
        }
        let Some(schema) = project.table(&table.name) else {
            continue;
        };
        let at = |message: String| {
            Diagnostic::new(
                Code::ExportRecord,
                Location {
                    file: Some(file.clone()),
                    table: Some(table.name.clone()),
                    ..Location::default()
                },
                message,
            )
        };
        let exported = match git2::Oid::from_str(&record.commit).and_then(|id| git.find_commit(id))
        {
            Ok(commit) if commit.id() == head.id() => continue,
            Ok(commit) => commit,
            Err(_) => {
                diagnostics.push(
                    at(format!(
                        "exported from commit {}, which this repository does not have",
                        short_id(&record.commit)
                    ))
                    .hint("pull first, or export the workbook again from this repository"),
                );
                continue;
            }
        };
        // The branch's table as it was at the export: the workbook is all the change,
        // and merging it would give it back as it is.
        let exported_tree = exported.tree()?;
        if same_files(&exported_tree, &head_tree, project, &table.name) {
            continue;
        }
        let label = format!("the exported commit {}", short_id(&record.commit));
        let base = match read_table_at(git, &exported_tree, project, schema, &label) {
            Ok(base) => base,
            Err(_) => {
                diagnostics.push(
                    at(format!(
                        "exported from commit {}, whose `{}` does not read under today's schema",
                        short_id(&record.commit),
                        schema.name
                    ))
                    .hint("export the workbook again, and make the change on the new export"),
                );
                continue;
            }
        };
        let Some(ours) = read_table_at(git, &head_tree, project, schema, region.branch())? else {
            continue;
        };
        let merged = crate::merge::merge_table(
            schema,
            base.as_ref(),
            table,
            &ours,
            &crate::merge::Ownership::default(),
        );
        let mut merged = merged;
        let conflicts = std::mem::take(&mut merged.conflicts);
        let said = exported::conflicts_said(repo, region, schema, &file, &conflicts, keep_branch);
        let clean = conflicts.is_empty();
        diagnostics.extend(said);
        if keep_branch && !clean {
            exported::keep_branch_values(schema, &mut merged.table, conflicts)?;
        }
        if keep_branch || clean {
            let origin = merged_origin(schema, table, &merged.table);
            *table = merged.table;
            table.origin = origin;
        }
    }
    Ok(diagnostics)
}

/// Where the rows of a table merged from a workbook came from, for what is said of
/// them: the workbook's file, format and columns, and each row's place in it — a row
/// the branch took since the export, which the workbook lacks, keeps the place the
/// merge gave it. One place per merged row (a table has as many rows as places).
fn merged_origin(
    schema: &TableSchema,
    workbook: &Table,
    merged: &Table,
) -> masterctl_schemas::table::Origin {
    use crate::merge::row_key;
    let places: HashMap<Vec<masterctl_schemas::Value>, u64> = (0..workbook.row_count())
        .map(|row| (row_key(schema, workbook, row), workbook.origin.rows[row]))
        .collect();
    masterctl_schemas::table::Origin {
        rows: (0..merged.row_count())
            .map(|row| {
                places
                    .get(&row_key(schema, merged, row))
                    .copied()
                    .unwrap_or(merged.origin.rows[row])
            })
            .collect(),
        ..workbook.origin.clone()
    }
}

/// A cell (or a row) the last rebase or merge of the branch brought in, which the
/// import would take back to what it was before: an old workbook's doing.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Revert {
    pub table: String,
    pub key: Vec<String>,
    /// The field; `None` for a row the rebase added and the import removes.
    pub field: Option<String>,
    /// What the rebase made it (and the branch still holds).
    pub upstream: String,
    /// What the import would make it again.
    pub import: String,
    /// The rebase or merge commit.
    pub commit: String,
}

/// `item [3] name: `ステップアップガチャ` back to `ステップアップ``.
impl std::fmt::Display for Revert {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let key = self.key.join("|");
        match &self.field {
            Some(field) => write!(
                f,
                "{} [{key}] {field}: `{}` back to `{}`",
                self.table, self.upstream, self.import
            ),
            None => write!(f, "{} [{key}]: the row it added removed", self.table),
        }
    }
}

/// `table banner (4 rows)`, `generated master gacha_draw`, `12 of 20 rows of item`.
impl std::fmt::Display for Removal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.whole(), self.generated) {
            (true, false) => write!(f, "table {} ({} rows)", self.table, self.rows),
            (true, true) => write!(f, "generated master {} ({} rows)", self.table, self.rows),
            (false, _) => write!(f, "{} of {} rows of {}", self.rows, self.of, self.table),
        }
    }
}

/// Whether two snapshot trees hold the same files of `table` (its canonical file and
/// its source-language texts), by blob id: nothing read.
fn same_files(a: &Tree<'_>, b: &Tree<'_>, project: &Project, table: &str) -> bool {
    let id_at = |tree: &Tree<'_>, path: &str| tree.get_path(Path::new(path)).ok().map(|e| e.id());
    [
        table_path(table),
        language_path(&project.config.source_language, table),
    ]
    .iter()
    .all(|path| id_at(a, path) == id_at(b, path))
}

/// How far back the last rebase or merge is looked for, in commits.
const REBASE_SEARCH: usize = 10_000;

/// The cells and rows the branch's last rebase or merge brought in (its commit against
/// its first parent) that the branch still holds and `tables` would take back — every
/// table supplied, a workbook's export record or not (a workbook from before the
/// rebase is merged first, and takes back nothing it did not change).
fn upstream_reverts(
    repo: &MasterRepo,
    project: &Project,
    head: &Commit<'_>,
    tables: &[Table],
) -> Result<Vec<Revert>, StoreError> {
    let git = &repo.git;
    let mut commit = head.clone();
    let mut rebase = None;
    for _ in 0..REBASE_SEARCH {
        if commit.parent_count() >= 2 {
            rebase = Some(commit);
            break;
        }
        match commit.parent(0) {
            Ok(parent) => commit = parent,
            Err(_) => break,
        }
    }
    let Some(rebase) = rebase else {
        return Ok(Vec::new());
    };
    let trees = [rebase.parent(0)?.tree()?, rebase.tree()?, head.tree()?];
    let id = rebase.id().to_string();
    let mut reverts = Vec::new();
    for table in tables {
        let Some(schema) = project.table(&table.name) else {
            continue;
        };
        // A table the rebase left as it was (the same files before and after it) brought
        // nothing to take back: not read (an import of many tables stays fast).
        if same_files(&trees[0], &trees[1], project, &table.name) {
            continue;
        }
        let read = |tree: &Tree<'_>| read_table_at(git, tree, project, schema, "the last rebase");
        let (Ok(Some(before)), Ok(Some(after)), Ok(Some(now))) =
            (read(&trees[0]), read(&trees[1]), read(&trees[2]))
        else {
            continue;
        };
        let rows = |t: &Table| -> HashMap<Vec<masterctl_schemas::Value>, usize> {
            (0..t.row_count())
                .map(|r| (t.key(r, &schema.primary_key), r))
                .collect()
        };
        let (before_rows, now_rows, import_rows) = (rows(&before), rows(&now), rows(table));
        for row in 0..after.row_count() {
            let key = after.key(row, &schema.primary_key);
            let Some(&now_row) = now_rows.get(&key) else {
                continue;
            };
            let key_text: Vec<String> = key.iter().map(|v| v.canonical()).collect();
            let imported = import_rows.get(&key).copied();
            match (before_rows.get(&key), imported) {
                // Added by the rebase, still there, and the import removes it.
                (None, None) => reverts.push(Revert {
                    table: table.name.clone(),
                    key: key_text,
                    field: None,
                    upstream: "the row".into(),
                    import: "no row".into(),
                    commit: id.clone(),
                }),
                (Some(&old), Some(new)) => {
                    for (f, field) in schema.fields.iter().enumerate() {
                        let (was, brought, holds, would) = (
                            before.value(old, f),
                            after.value(row, f),
                            now.value(now_row, f),
                            table.value(new, f),
                        );
                        if was != brought && holds == brought && would == was {
                            reverts.push(Revert {
                                table: table.name.clone(),
                                key: key_text.clone(),
                                field: Some(field.name.clone()),
                                upstream: brought.canonical(),
                                import: would.canonical(),
                                commit: id.clone(),
                            });
                        }
                    }
                }
                _ => {}
            }
        }
    }
    Ok(reverts)
}

/// What the supplied tables change on the branch, table by table. Tables whose
/// canonical files did not change are recognised by blob id; plain files of an
/// integer-keyed table compare as lines; only the others are read back from the branch
/// and compared row by row.
fn changes_from(
    repo: &MasterRepo,
    project: &Project,
    head_tree: Option<&Tree<'_>>,
    snapshot: &Snapshot,
    supplied: &[&Table],
    reference: &str,
) -> Result<Vec<TableChange>, StoreError> {
    let ids = snapshot.blob_ids()?;
    let head_ids = match head_tree {
        Some(tree) => tree_blobs(&repo.git, tree)?,
        None => Default::default(),
    };
    let source = &project.config.source_language;
    let mut before = Vec::new();
    let mut after = Vec::new();
    let mut line_counted = Vec::new();
    for &table in supplied {
        let paths = [table_path(&table.name), language_path(source, &table.name)];
        if paths.iter().all(|p| ids.get(p.as_str()) == head_ids.get(p)) {
            continue;
        }
        let Some(schema) = project.table(&table.name) else {
            continue;
        };
        if let Some(tree) = head_tree {
            if crate::merge::line_shape(schema).is_some()
                && let (Some(old), Some(new)) = (
                    blob_at(&repo.git, tree, &paths[0])?,
                    snapshot.files().get(&paths[0]),
                )
                && let Some(change) = count_lines(schema, &old, new)
            {
                if !change.is_empty() {
                    line_counted.push(change);
                }
                continue;
            }
            before.extend(read_table_at(&repo.git, tree, project, schema, reference)?);
        }
        after.push(table);
    }
    let mut changes = count_changes(project.tables.iter(), &before, &after);
    changes.extend(line_counted);
    changes.sort_by_key(|c| project.table_index(&c.table));
    Ok(changes)
}

/// What each source file gave: its tables' canonical blob ids.
fn cache_entries(
    snapshot: &Snapshot,
    structure_id: &str,
    source_language: &str,
    sources: &[SourceFile],
    tables: &[Table],
) -> Result<Vec<cache::Entry>, StoreError> {
    let ids = snapshot.blob_ids()?;
    Ok(sources
        .iter()
        .map(|source| cache::Entry {
            structure: structure_id.to_string(),
            source: cache::source_id(source),
            tables: tables
                .iter()
                .filter(|t| t.origin.file == source.path)
                .filter_map(|t| {
                    Some(cache::TableBlobs {
                        table: t.name.clone(),
                        data: *ids.get(table_path(&t.name).as_str())?,
                        language: ids
                            .get(language_path(source_language, &t.name).as_str())
                            .copied(),
                    })
                })
                .collect(),
        })
        .collect())
}

/// Rows added, changed and removed, comparing two plain canonical files line by line
/// (`None` when the table or the files are not of that shape).
fn count_lines(schema: &TableSchema, old: &[u8], new: &[u8]) -> Option<TableChange> {
    let (header, key_field) = crate::merge::line_shape(schema)?;
    let old = crate::merge::canonical_lines(old, &header, key_field)?;
    let new = crate::merge::canonical_lines(new, &header, key_field)?;
    let mut change = TableChange {
        table: schema.name.clone(),
        ..TableChange::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < old.len() || j < new.len() {
        match (old.get(i), new.get(j)) {
            (Some(a), Some(b)) if a.0 == b.0 => {
                if a.1 != b.1 {
                    change.changed += 1;
                }
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a.0 < b.0 => {
                change.removed += 1;
                i += 1;
            }
            (Some(_), None) => {
                change.removed += 1;
                i += 1;
            }
            _ => {
                change.added += 1;
                j += 1;
            }
        }
    }
    Some(change)
}

/// Rows added, changed and removed per table, by primary key: both versions walked in
/// key order side by side, comparing values in place (no row is copied).
fn count_changes<'a>(
    schemas: impl Iterator<Item = &'a TableSchema>,
    before: &[Table],
    after: &[&Table],
) -> Vec<TableChange> {
    let mut changes = Vec::new();
    for schema in schemas {
        let old = before.iter().find(|t| t.name == schema.name);
        let new = after.iter().find(|t| t.name == schema.name).copied();
        let change = match (old, new) {
            (Some(old), Some(new)) => walk_changes(schema, old, new),
            // A table on one side only: every row added (or removed), none to walk.
            _ => TableChange {
                table: schema.name.clone(),
                added: new.map_or(0, Table::row_count),
                removed: old.map_or(0, Table::row_count),
                ..TableChange::default()
            },
        };
        if !change.is_empty() {
            changes.push(change);
        }
    }
    changes
}

/// Rows added, changed and removed between two versions of a table, both walked in key
/// order side by side.
fn walk_changes(schema: &TableSchema, old: &Table, new: &Table) -> TableChange {
    let (old_rows, new_rows) = (key_order(schema, old), key_order(schema, new));
    let mut change = TableChange {
        table: schema.name.clone(),
        ..TableChange::default()
    };
    let (mut i, mut j) = (0, 0);
    while i < old_rows.len() || j < new_rows.len() {
        let ordering = match (old_rows.get(i), new_rows.get(j)) {
            (Some(&a), Some(&b)) => schema
                .primary_key
                .iter()
                .map(|&k| old.value(a, k).cmp(new.value(b, k)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal),
            (Some(_), None) => Ordering::Less,
            _ => Ordering::Greater,
        };
        match ordering {
            Ordering::Less => {
                change.removed += 1;
                i += 1;
            }
            Ordering::Greater => {
                change.added += 1;
                j += 1;
            }
            Ordering::Equal => {
                if !old.row(old_rows[i]).eq(new.row(new_rows[j])) {
                    change.changed += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    change
}

/// The commit message of an import: the planner's words (or a summary line), a line per
/// changed table, and a `Masterctl-Source` trailer per file.
pub fn commit_message(plan: &ImportPlan, message: Option<&str>) -> String {
    let gone = plan.removals.iter().filter(|r| r.whole());
    let tables = plan.changes.len() + gone.clone().count();
    let subject = match message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(words) => one_line(words),
        None => format!(
            "Import into {}: {tables} table{} changed",
            plan.region,
            if tables == 1 { "" } else { "s" }
        ),
    };
    let mut text = format!("{subject}\n\n");
    for change in &plan.changes {
        text.push_str(&format!(
            "{}: {} added, {} changed, {} removed\n",
            change.table, change.added, change.changed, change.removed
        ));
    }
    for removal in gone {
        let what = if removal.generated {
            "generated master"
        } else {
            "table"
        };
        text.push_str(&format!(
            "{}: {what} removed ({} rows)\n",
            removal.table, removal.rows
        ));
    }
    text.push('\n');
    for source in &plan.sources {
        let name = one_line(&source.path.file_name().map_or_else(
            || source.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        ));
        text.push_str(&format!(
            "{SOURCE_TRAILER}: {name} sha256:{}\n",
            source.sha256
        ));
    }
    if let Some(structure) = plan.structure {
        text.push_str(&format!("{STRUCTURE_TRAILER}: {structure}\n"));
    }
    if let Some(took) = plan.took {
        text.push_str(&format!("{WORK_TOOK_TRAILER}: {took}\n"));
    }
    text
}

/// Write the plan's objects and move the branch, only if it still points where the plan
/// started. Returns the new commit and its message ([`commit_message`]).
pub fn commit_import(
    repo: &MasterRepo,
    plan: &ImportPlan,
    message: Option<&str>,
) -> Result<(Oid, String), StoreError> {
    let parents: Vec<Oid> = plan.parent.into_iter().collect();
    let text = commit_message(plan, message);
    let commit = crate::committing::commit_snapshot(
        repo,
        &plan.snapshot,
        &CommitSpec {
            reference: &plan.reference,
            expected: plan.parent,
            parents: &parents,
            message: &text,
            log_message: &format!("masterctl import: {}", plan.region),
        },
    )?;
    cache::record(repo, &plan.cache_entries);
    Ok((commit, text))
}
