//! Rebase: a region takes what its upstream changed since the recorded import point.
//!
//! The import point is read from the region branch's own history: the newest
//! first-parent commit carrying a `Masterctl-Upstream` trailer. base = upstream at that
//! point, theirs = upstream now, ours = the region's head. The structure files merge
//! file by file; every table merges with [`crate::merge::merge_table`] (a table neither
//! side changed is taken as it is; a table only one side changed is that side's); the
//! generated masters are recomputed and the whole result is validated. The commit has
//! two parents — the region's head, then the upstream commit — so `git merge-base` sees
//! the import point, and trailers record it so that it survives clone and push.

use std::collections::{BTreeMap, HashMap};

pub mod resolutions;
pub mod review;
pub mod session;
pub mod sides;
pub mod state;
mod tables;
pub mod translations;

pub use sides::Join;
pub use tables::{TableConflicts, TableRebase};

use git2::{Commit, Oid, Repository, Tree};
use masterctl_schemas::canonical::read_table;
use masterctl_schemas::load::SCHEMAS_DIR;
use masterctl_schemas::read::parallel_map;
use masterctl_schemas::validate::{check_rows, validate_tables};
use masterctl_schemas::{Report, Table};

use crate::MasterRepo;
use crate::StoreError;
use crate::git::repo::blob_at;
use crate::merge::{Conflict, Ownership, merge_canonical_files, merge_table};
use crate::snapshot::commit::CommitSpec;
use crate::snapshot::structure::Structure;
use crate::snapshot::structure::is_structure_path;
use crate::snapshot::structure::project_from_files;
use crate::snapshot::{
    Snapshot, language_path, project_at, read_files, read_table_at, table_path, tree_blobs,
};
use masterctl_git::Error as GitError;
use resolutions::{Resolution, Resolutions};
use state::RebaseState;

/// Why a rebase cannot start.
#[derive(Debug, thiserror::Error)]
pub enum JoinError {
    #[error("region `{0}` has no upstream in masterctl.toml")]
    NoUpstream(String),
    #[error("upstream branch {0} has no commits yet: import into it first")]
    NoUpstreamBranch(String),
    #[error(
        "the import point {point} recorded on {branch} is no longer in the history of {upstream} (was it rewritten?); \
         nothing was changed. Restore {upstream}, or start the region again from it"
    )]
    UpstreamRewritten {
        point: String,
        branch: String,
        upstream: String,
    },
    #[error("{branch} has no recorded import point and shares no history with {upstream}")]
    NoImportPoint { branch: String, upstream: String },
    #[error("{0}")]
    BadResolution(String),
    #[error("no {kind} of {branch} is in progress")]
    NotInProgress { kind: &'static str, branch: String },
    /// `kind`: what is in progress (`rebase`, `merge`).
    #[error("a {kind} of {branch} is in progress")]
    InProgress {
        kind: String,
        branch: String,
        conflict_file: std::path::PathBuf,
    },
    #[error("{branch}, or the branch it takes from, moved since the {kind} stopped")]
    Moved { kind: &'static str, branch: String },
    #[error("no conflict matches the table, column and key given")]
    NoConflictMatches { conflict_file: std::path::PathBuf },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<git2::Error> for JoinError {
    fn from(e: git2::Error) -> JoinError {
        JoinError::Store(e.into())
    }
}

impl From<masterctl_git::Error> for JoinError {
    fn from(e: masterctl_git::Error) -> JoinError {
        JoinError::Store(e.into())
    }
}

/// A rebase (or merge) ready to commit.
pub struct RebasePlan {
    pub join: Join,
    /// The branch that moves, as users name it.
    pub region: String,
    pub reference: String,
    /// The branch taken from.
    pub upstream: String,
    /// The moving branch's head (`None`: the branch is created by this rebase).
    pub parent: Option<Oid>,
    pub upstream_head: Oid,
    pub base: Oid,
    pub snapshot: Snapshot,
    pub tables: Vec<TableRebase>,
    /// The moving branch has nothing of its own since the base: it moves to the other's
    /// head, and no commit is written (a work branch's rebase only).
    pub fast_forward: bool,
    /// The planner's words for the commit message's first line.
    pub words: Option<String>,
}

pub enum RebaseOutcome {
    /// The branch already took everything the other has.
    UpToDate {
        upstream_head: Oid,
    },
    /// Cells both sides changed differently (and not yet resolved): nothing written.
    Conflicts {
        tables: Vec<TableConflicts>,
        state: RebaseState,
    },
    /// A merge (clean, or with the resolutions given) that is not valid data: nothing
    /// written. `state` is where the rebase started, so that a `--continue` whose
    /// resolutions are invalid is told so, not that something moved.
    Rejected {
        report: Report,
        state: RebaseState,
    },
    Planned(Box<RebasePlan>),
}

/// The newest import point recorded on the first-parent history of `head`. A pull that
/// joined two clones' histories of the branch holds the newer of the two sides' points
/// (one of the planners may have rebased the region).
pub fn recorded_import_point(git: &Repository, head: &Commit<'_>) -> Option<Oid> {
    let mut next = Some(head.clone());
    while let Some(commit) = next {
        if let Some(point) = crate::snapshot::commit::import_point_of(&commit) {
            return Some(point);
        }
        if let Some(other) = crate::snapshot::commit::pulled_parent(&commit) {
            let ours = commit
                .parent(0)
                .ok()
                .and_then(|c| recorded_import_point(git, &c));
            let theirs = git
                .find_commit(other)
                .ok()
                .and_then(|c| recorded_import_point(git, &c));
            return match (ours, theirs) {
                (Some(a), Some(b)) if git.graph_descendant_of(b, a).unwrap_or(false) => Some(b),
                (Some(a), _) => Some(a),
                (None, b) => b,
            };
        }
        next = commit.parents().next();
    }
    None
}

/// Plan `join`: find the common point, merge the structure file by file, every table
/// keyed by row and cell, the translations with their sources; apply the resolutions
/// given; validate the result. Writes nothing.
pub fn plan_rebase(
    repo: &MasterRepo,
    structure: &Structure,
    join: &Join,
    resolutions: &Resolutions,
) -> Result<RebaseOutcome, JoinError> {
    let project = &structure.project;
    let target = join.target();
    let reference = target.reference();
    let source = join.source(project)?;
    let git = &repo.git;
    let theirs = repo.head_of(&source.reference)?.ok_or_else(|| match join {
        Join::Rebase(_) | Join::Pull { .. } => JoinError::NoUpstreamBranch(source.branch.clone()),
        Join::Refresh(_) => JoinError::from(GitError::NoBranch(join.region().name().to_string())),
        Join::Reflect(work) => JoinError::from(GitError::NoWorkBranch {
            region: work.region().name().to_string(),
            name: work.name().to_string(),
        }),
    })?;
    crate::vouched::check(repo, &source.branch, &theirs)?;
    let plan = |parent: Option<Oid>, base: Oid, snapshot, tables, fast_forward| {
        RebaseOutcome::Planned(Box::new(RebasePlan {
            join: join.clone(),
            region: target.to_string(),
            reference: reference.clone(),
            upstream: source.name.clone(),
            parent,
            upstream_head: theirs.id(),
            base,
            snapshot,
            tables,
            fast_forward,
            words: None,
        }))
    };
    let Some(ours) = repo.head_of(&reference)? else {
        return match join {
            // The first rebase: the region starts as upstream is now.
            Join::Rebase(_) => {
                let snapshot = Snapshot::of_files(read_files(git, &theirs.tree()?)?);
                Ok(plan(None, theirs.id(), snapshot, Vec::new(), false))
            }
            _ => Err(JoinError::Store(
                repo.head_of_branch(&target)
                    .err()
                    .unwrap_or(GitError::NoBranch(target.name().to_string()))
                    .into(),
            )),
        };
    };
    let base_id = join.base(git, &source, &ours, &theirs)?;
    if base_id == theirs.id() {
        return Ok(RebaseOutcome::UpToDate {
            upstream_head: theirs.id(),
        });
    }
    // A work branch with nothing of its own takes its region's head as it is; so does
    // a branch this clone did not move since the remote's.
    if base_id == ours.id() && join.fast_forwards() {
        return Ok(plan(
            Some(ours.id()),
            base_id,
            Snapshot::default(),
            Vec::new(),
            true,
        ));
    }
    let state = RebaseState {
        region_head: ours.id(),
        upstream_head: theirs.id(),
        base: base_id,
        kind: join.kind().to_string(),
        source: source.name.clone(),
    };
    let base = git.find_commit(base_id)?;
    let (base_tree, their_tree, our_tree) = (base.tree()?, theirs.tree()?, ours.tree()?);
    let trees = translations::Trees {
        base: &base_tree,
        theirs: &their_tree,
        ours: &our_tree,
    };
    Ok(
        match merge_trees(git, &trees, |p| join.owns(p), &reference, resolutions)? {
            Merged::Conflicts(tables) => RebaseOutcome::Conflicts { tables, state },
            Merged::Rejected(report) => RebaseOutcome::Rejected { report, state },
            Merged::Clean { snapshot, tables } => {
                plan(Some(ours.id()), base_id, snapshot, tables, false)
            }
        },
    )
}

/// What the three-way merge of a region's trees gave.
pub(crate) enum Merged {
    /// Cells, files or columns that need a resolution.
    Conflicts(Vec<TableConflicts>),
    /// A merge that is not valid data.
    Rejected(Report),
    /// The region's next snapshot, and what each table took.
    Clean {
        snapshot: Snapshot,
        tables: Vec<TableRebase>,
    },
}

/// Merge upstream's changes (base → theirs) into the region's tree (ours): the
/// structure file by file, then the columns it dropped that the region edited, every
/// table keyed by row and cell, the translations with the sources they were made from;
/// the resolutions given applied; the result validated as an import's would be.
pub(crate) fn merge_trees(
    git: &Repository,
    trees: &translations::Trees<'_>,
    owns: impl FnOnce(&masterctl_schemas::Project) -> Vec<String>,
    reference: &str,
    resolutions: &Resolutions,
) -> Result<Merged, JoinError> {
    let (structure_files, conflicts) =
        merge_structure(git, trees.base, trees.theirs, trees.ours, resolutions)?;
    if !conflicts.is_empty() {
        return Ok(Merged::Conflicts(conflicts));
    }
    let merged_project = project_from_files(&structure_files)
        .map_err(|report| JoinError::Store(StoreError::InvalidStructure(report)))?;
    let dropped = dropped_edited_columns(
        git,
        [trees.base, trees.ours],
        &merged_project,
        resolutions,
        reference,
    )?;
    if !dropped.is_empty() {
        return Ok(Merged::Conflicts(dropped));
    }
    let owns = owns(&merged_project);

    // Every table, then the translations with the sources they were made from.
    let merging = TableMerging {
        git,
        trees,
        base_blobs: tree_blobs(git, trees.base)?,
        their_blobs: tree_blobs(git, trees.theirs)?,
        our_blobs: tree_blobs(git, trees.ours)?,
        read: Default::default(),
        project: &merged_project,
        // The region's own schema, to tell columns upstream added.
        our_project: project_at(git, trees.ours),
        owns: &owns,
        resolutions,
        reference,
    };
    refuse_too_large(
        git,
        [
            &merging.base_blobs,
            &merging.their_blobs,
            &merging.our_blobs,
        ],
        reference,
    )?;
    let MergedTables {
        tables: merged,
        mut summary,
        mut conflicts,
    } = merging.merge_all()?;
    let read = merging.read.take();
    let translations = translations::merge_translations(
        git,
        trees,
        &merged_project,
        &owns,
        resolutions,
        &merged,
        reference,
    )?;
    conflicts.extend(translations.conflicts);
    summary.extend(translations.summary);
    if !conflicts.is_empty() {
        return Ok(Merged::Conflicts(conflicts));
    }

    // The result must be valid data, as an import's would.
    let report = validate_merged(&merged_project, &merged);
    if report.has_errors() {
        return Ok(Merged::Rejected(report));
    }
    let merged_structure = Structure {
        project: merged_project,
        files: structure_files,
        origin: None,
    };
    let mut snapshot = Snapshot::build(&merged_structure, &merged)?;
    snapshot.read = read;
    // Translations: the region's, with what upstream changed merged in. One whose source
    // upstream changed while its translation stayed shows as stale (its recorded source
    // is no longer the source).
    let source = merged_structure.project.config.source_language.clone();
    snapshot.carry_translations(git, trees.ours, &source)?;
    for (path, bytes) in translations.files {
        snapshot.set_file(path, bytes);
    }
    Ok(Merged::Clean {
        snapshot,
        tables: summary,
    })
}

/// Every diagnostic of the merged tables: their rows, then keys and references across
/// them.
fn validate_merged(project: &masterctl_schemas::Project, merged: &[Table]) -> Report {
    let mut report = Report::default();
    for table in merged {
        if let Some(schema) = project.table(&table.name) {
            report.extend(check_rows(schema, table));
        }
    }
    report.extend(validate_tables(project, merged).diagnostics);
    // A resolution is found again by the row's key, not the line of a file.
    crate::row_keys::name_rows(project, merged, &mut report, |_| true);
    report.sort();
    report
}

/// What merging a rebase's tables needs: the three trees, the merged structure, what
/// the region owns, the resolutions given.
struct TableMerging<'a> {
    git: &'a Repository,
    trees: &'a translations::Trees<'a>,
    /// Blob ids by path at the import point and upstream now (read once for all tables).
    base_blobs: std::collections::HashMap<String, Oid>,
    their_blobs: std::collections::HashMap<String, Oid>,
    /// The region's blob ids, and the files this merge read, by id (handed to the
    /// snapshot: see [`Snapshot::read`]).
    our_blobs: std::collections::HashMap<String, Oid>,
    read: std::cell::RefCell<std::collections::HashMap<Oid, Vec<u8>>>,
    project: &'a masterctl_schemas::Project,
    our_project: Option<masterctl_schemas::Project>,
    owns: &'a [String],
    resolutions: &'a Resolutions,
    reference: &'a str,
}

/// The merged tables, what was taken and kept per table, what still conflicts.
struct MergedTables {
    tables: Vec<Table>,
    summary: Vec<TableRebase>,
    conflicts: Vec<TableConflicts>,
}

/// One table's merge before resolutions: the table, its conflicts, the cells applied
/// and kept.
struct TableMerged {
    table: Table,
    conflicts: Vec<Conflict>,
    applied: usize,
    kept: usize,
    seeded: usize,
}

impl TableMerging<'_> {
    /// Every table of the merged structure, typed against it, resolutions applied.
    fn merge_all(&self) -> Result<MergedTables, JoinError> {
        let mut out = MergedTables {
            tables: Vec::new(),
            summary: Vec::new(),
            conflicts: Vec::new(),
        };
        for schema in &self.project.tables {
            let Some(merged) = self.merge_one(schema, &mut out)? else {
                continue;
            };
            let TableMerged {
                mut table,
                conflicts,
                applied,
                kept,
                seeded,
            } = merged;
            let (unresolved, resolved) =
                resolutions::apply(schema, &mut table, conflicts, self.resolutions)
                    .map_err(JoinError::BadResolution)?;
            if !unresolved.is_empty() {
                out.conflicts.push(TableConflicts {
                    table: schema.name.clone(),
                    fields: schema.fields.iter().map(|f| f.name.clone()).collect(),
                    conflicts: unresolved,
                    reason: String::new(),
                });
            }
            if applied > 0 || kept > 0 || resolved > 0 {
                out.summary.push(TableRebase {
                    table: schema.name.clone(),
                    applied,
                    kept,
                    resolved,
                    seeded,
                });
            }
            out.tables.push(table);
        }
        Ok(out)
    }

    /// The three versions of `path` (base, theirs, ours; `None` where a side lacks it),
    /// each read from git once by its blob id and kept for what reads it again.
    fn versions(&self, path: &str) -> Result<Vec<Option<Vec<u8>>>, JoinError> {
        let mut read = self.read.borrow_mut();
        [&self.base_blobs, &self.their_blobs, &self.our_blobs]
            .into_iter()
            .map(|blobs| {
                let Some(&id) = blobs.get(path) else {
                    return Ok(None);
                };
                if let Some(bytes) = read.get(&id) {
                    return Ok(Some(bytes.clone()));
                }
                let bytes = self.git.find_blob(id)?.content().to_vec();
                read.insert(id, bytes.clone());
                Ok(Some(bytes))
            })
            .collect()
    }

    /// One table. A table upstream did not touch (same blobs at the import point and
    /// now) is the region's as it is, and one only a side has is that side's: those go
    /// straight to `out` (`None`). Otherwise the three versions merge — as lines, for
    /// plain canonical files of an integer-keyed table without text; typed in full
    /// first otherwise.
    fn merge_one(
        &self,
        schema: &masterctl_schemas::TableSchema,
        out: &mut MergedTables,
    ) -> Result<Option<TableMerged>, JoinError> {
        let (git, trees) = (self.git, self.trees);
        let name = schema.name.as_str();
        let source = &self.project.config.source_language;
        let files = [table_path(name), language_path(source, name)];
        let untouched_upstream = files
            .iter()
            .all(|f| self.base_blobs.get(f) == self.their_blobs.get(f));
        if untouched_upstream {
            out.tables.extend(read_table_at(
                git,
                trees.ours,
                self.project,
                schema,
                self.reference,
            )?);
            return Ok(None);
        }
        let ownership = Ownership::of(schema, self.owns);
        // Both files of the table, in each version, merged as lines when they can be.
        let data = self.versions(&files[0])?;
        let texts = masterctl_schemas::canonical::language_fields(schema)
            .map(|_| self.versions(&files[1]))
            .transpose()?;
        let lines = match (all_three(&data), texts.as_deref().map(all_three)) {
            (Some(data), None) => merge_canonical_files(schema, data, None, &ownership),
            (Some(data), Some(Some(texts))) => {
                merge_canonical_files(schema, data, Some(texts), &ownership)
            }
            _ => None,
        };
        if let Some(merged) = lines {
            let language = merged
                .language
                .as_deref()
                .map(|bytes| (bytes, std::path::Path::new(files[1].as_str())));
            let table = read_table(
                schema,
                &merged.data,
                std::path::Path::new(&files[0]),
                language,
            )
            .map_err(|d| StoreError::BrokenSnapshot {
                branch: self.reference.to_string(),
                message: d.first().map_or_else(String::new, ToString::to_string),
            })?;
            return Ok(Some(TableMerged {
                table,
                conflicts: merged.conflicts,
                applied: merged.applied,
                kept: merged.kept,
                seeded: merged.seeded,
            }));
        }
        let [b, t, o] = read_versions(
            git,
            [trees.base, trees.theirs, trees.ours],
            &files,
            schema,
            self.reference,
        )?;
        Ok(match (b, t, o) {
            (_, None, None) => None,
            (_, Some(t), None) => {
                out.summary.push(TableRebase {
                    table: name.to_string(),
                    applied: t.row_count(),
                    kept: 0,
                    resolved: 0,
                    seeded: 0,
                });
                out.tables.push(t);
                None
            }
            (_, None, Some(o)) => {
                out.tables.push(o);
                None
            }
            (b, Some(t), Some(o)) => {
                let mut result = merge_table(schema, b.as_ref(), &t, &o, &ownership);
                let mut conflicts = std::mem::take(&mut result.conflicts);
                conflicts.extend(missing_new_values(
                    schema,
                    self.our_project.as_ref(),
                    &result.table,
                ));
                Some(TableMerged {
                    table: result.table,
                    conflicts,
                    applied: result.applied,
                    kept: result.kept,
                    seeded: result.seeded,
                })
            }
        })
    }
}

/// The three versions of a file when each has it.
fn all_three(versions: &[Option<Vec<u8>>]) -> Option<[&[u8]; 3]> {
    match versions {
        [Some(b), Some(t), Some(o)] => Some([b, t, o]),
        _ => None,
    }
}

/// Structure files by path, as a snapshot holds them.
type StructureFiles = Vec<(String, Vec<u8>)>;

/// Columns upstream dropped that the region changed since the import point: a conflict
/// on the schema file each (resolved `theirs`: the column goes; `ours`: the region keeps
/// its schema file, and the column).
fn dropped_edited_columns(
    git: &Repository,
    [base_tree, our_tree]: [&Tree<'_>; 2],
    merged: &masterctl_schemas::Project,
    resolutions: &Resolutions,
    branch: &str,
) -> Result<Vec<TableConflicts>, StoreError> {
    let Some(base_project) = project_at(git, base_tree) else {
        return Ok(Vec::new());
    };
    let mut conflicts = Vec::new();
    for old in &base_project.tables {
        let Some(new) = merged.table(&old.name) else {
            continue;
        };
        let dropped: Vec<usize> = (0..old.fields.len())
            .filter(|&f| new.field(&old.fields[f].name).is_none())
            .collect();
        let path = format!(
            "{SCHEMAS_DIR}/{}",
            old.file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        if dropped.is_empty()
            || resolutions.contains_key(&(path.clone(), String::new(), String::new()))
        {
            continue;
        }
        let (Some(base), Some(ours)) = (
            read_table_at(git, base_tree, &base_project, old, branch)?,
            read_table_at(git, our_tree, &base_project, old, branch)?,
        ) else {
            continue;
        };
        let base_rows: std::collections::HashMap<Vec<masterctl_schemas::Value>, usize> = (0..base
            .row_count())
            .map(|r| (base.key(r, &old.primary_key), r))
            .collect();
        let edited: Vec<&str> = dropped
            .iter()
            .filter(|&&f| {
                (0..ours.row_count()).any(|r| match base_rows.get(&ours.key(r, &old.primary_key)) {
                    Some(&b) => ours.value(r, f) != base.value(b, f),
                    None => !ours.value(r, f).is_null(),
                })
            })
            .map(|&f| old.fields[f].name.as_str())
            .collect();
        if !edited.is_empty() {
            conflicts.push(TableConflicts {
                table: path,
                fields: Vec::new(),
                conflicts: Vec::new(),
                reason: format!(
                    "upstream dropped column {} of `{}`, which the region changed",
                    edited
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", "),
                    old.name
                ),
            });
        }
    }
    Ok(conflicts)
}

/// Rows of the merged table without a value in a required column upstream added (and
/// gave no default): a conflict each, settled only by a value.
fn missing_new_values(
    schema: &masterctl_schemas::TableSchema,
    ours: Option<&masterctl_schemas::Project>,
    table: &Table,
) -> Vec<Conflict> {
    let Some(before) = ours.and_then(|p| p.table(&schema.name)) else {
        return Vec::new();
    };
    let mut conflicts = Vec::new();
    for (field, definition) in schema.fields.iter().enumerate() {
        if before.field(&definition.name).is_some() || !definition.required() {
            continue;
        }
        for (row, value) in table.columns[field].iter().enumerate() {
            if value.is_null() {
                conflicts.push(Conflict {
                    kind: crate::merge::ConflictKind::NewColumnWithoutValue,
                    key: table.key(row, &schema.primary_key),
                    field,
                    base: None,
                    ours: None,
                    theirs: None,
                });
            }
        }
    }
    conflicts
}

/// Refuse a join that would merge a file larger than diff compares
/// ([`crate::review::diff::rows::LIMIT`]): a file all three sides hold alike is not
/// merged and passes; one they differ on is asked its size of git's object database,
/// before anything is inflated. A keyed merge holds its three versions typed at once
/// (a 300 MB table took 5 GB), so it is refused with diff's own words.
fn refuse_too_large(
    git: &Repository,
    sides: [&HashMap<String, Oid>; 3],
    reference: &str,
) -> Result<(), StoreError> {
    use crate::review::diff::rows;
    let odb = git.odb()?;
    let mut paths: Vec<&String> = sides.iter().flat_map(|side| side.keys()).collect();
    paths.sort();
    paths.dedup();
    for path in paths {
        let ids = sides.map(|side| side.get(path));
        if ids[0] == ids[1] && ids[1] == ids[2] {
            continue;
        }
        for id in ids.into_iter().flatten() {
            if let Ok((size, _)) = odb.read_header(*id)
                && size as u64 > rows::LIMIT
            {
                return Err(StoreError::BrokenSnapshot {
                    branch: crate::names::branch_of(reference).to_string(),
                    message: rows::too_large(path, size as u64),
                });
            }
        }
    }
    Ok(())
}

/// One table at the import point, upstream now and in the region, parsed on every core
/// (the blobs are read first: a repository handle is not shared across threads).
fn read_versions(
    git: &Repository,
    trees: [&Tree<'_>; 3],
    files: &[String; 2],
    schema: &masterctl_schemas::TableSchema,
    branch: &str,
) -> Result<[Option<Table>; 3], StoreError> {
    let mut blobs = Vec::with_capacity(3);
    for tree in trees {
        blobs.push((
            blob_at(git, tree, &files[0])?,
            blob_at(git, tree, &files[1])?,
        ));
    }
    let parsed = parallel_map(&blobs, |(data, text)| {
        data.as_ref()
            .map(|data| {
                read_table(
                    schema,
                    data,
                    std::path::Path::new(&files[0]),
                    text.as_deref()
                        .map(|t| (t, std::path::Path::new(files[1].as_str()))),
                )
            })
            .transpose()
    });
    let mut out = parsed.into_iter().map(|r| {
        r.map_err(|diagnostics| StoreError::BrokenSnapshot {
            branch: branch.to_string(),
            message: diagnostics
                .first()
                .map_or_else(String::new, ToString::to_string),
        })
    });
    let mut next = || out.next().unwrap_or(Ok(None));
    Ok([next()?, next()?, next()?])
}

/// The structure files (`masterctl.toml`, `schemas/*.toml`) merged file by file: a file
/// changed on one side is that side's; changed on both, differently, is a conflict.
fn merge_structure(
    git: &Repository,
    base: &Tree<'_>,
    theirs: &Tree<'_>,
    ours: &Tree<'_>,
    resolutions: &Resolutions,
) -> Result<(StructureFiles, Vec<TableConflicts>), JoinError> {
    let structure = |tree: &Tree<'_>| -> Result<BTreeMap<String, Oid>, JoinError> {
        Ok(tree_blobs(git, tree)?
            .into_iter()
            .filter(|(p, _)| is_structure_path(p))
            .collect())
    };
    let (b, t, o) = (structure(base)?, structure(theirs)?, structure(ours)?);
    let mut paths: Vec<&String> = b.keys().chain(t.keys()).chain(o.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut files = Vec::new();
    let mut conflicts = Vec::new();
    for path in paths {
        let (bv, tv, ov) = (b.get(path), t.get(path), o.get(path));
        // A resolution decides first (it may keep the region's file where upstream
        // dropped a column the region edited, see `dropped_edited_columns`).
        let chosen =
            if let Some(side) = resolutions.get(&(path.clone(), String::new(), String::new())) {
                match side {
                    Resolution::Theirs => tv,
                    _ => ov,
                }
            } else if tv == bv || tv == ov {
                ov
            } else if ov == bv {
                tv
            } else {
                conflicts.push(TableConflicts {
                    table: path.clone(),
                    fields: Vec::new(),
                    conflicts: Vec::new(),
                    reason: "changed on both sides, differently".to_string(),
                });
                continue;
            };
        if let Some(id) = chosen {
            files.push((path.clone(), git.find_blob(*id)?.content().to_vec()));
        }
    }
    Ok((files, conflicts))
}

/// The commit message: what was applied and kept per table, and the trailers that
/// record the join.
pub fn rebase_message(plan: &RebasePlan) -> String {
    let subject = plan
        .join
        .subject(&plan.upstream, plan.upstream_head, plan.parent.is_none());
    // The planner's words come first; what the join did stays in the body.
    let mut text = match plan
        .words
        .as_deref()
        .map(str::trim)
        .filter(|w| !w.is_empty())
    {
        Some(words) => format!("{}\n\n{subject}\n", crate::names::one_line(words)),
        None => format!("{subject}\n\n"),
    };
    for table in &plan.tables {
        text.push_str(&format!(
            "{}: {} applied, {} kept (owned), {} resolved\n",
            table.table, table.applied, table.kept, table.resolved
        ));
    }
    if !plan.tables.is_empty() {
        text.push('\n');
    }
    text.push_str(&plan.join.trailers(plan.upstream_head, plan.base));
    text
}

/// Commit a planned rebase or merge: parents are the moving branch's head (if any),
/// then the commit taken; the branch moves only if it still points where the plan
/// started. A fast-forward moves the branch and writes nothing. After a merge, the work
/// branch moves to the merge commit (when nobody moved it meanwhile), even with its
/// region. Returns the branch's new head.
pub fn commit_rebase(repo: &MasterRepo, plan: &RebasePlan) -> Result<Oid, StoreError> {
    if plan.fast_forward {
        crate::git::refs::move_branch(
            repo,
            &plan.reference,
            plan.parent,
            plan.upstream_head,
            &format!("masterctl rebase: {} onto {}", plan.region, plan.upstream),
        )?;
        return Ok(plan.upstream_head);
    }
    let parents: Vec<Oid> = plan
        .parent
        .into_iter()
        .chain([plan.upstream_head])
        .collect();
    // Blame walks first parents: what the rebase changed in the branch's own line is
    // kept.
    let commit = crate::committing::commit_snapshot(
        repo,
        &plan.snapshot,
        &CommitSpec {
            reference: &plan.reference,
            expected: plan.parent,
            parents: &parents,
            message: &rebase_message(plan),
            log_message: &format!(
                "masterctl {}: {} onto {}",
                plan.join.kind(),
                plan.region,
                plan.upstream
            ),
        },
    )?;
    if let Join::Reflect(work) = &plan.join {
        // The proposal this merge answered is withdrawn (best effort, as below: the
        // merge is made either way).
        let _ = crate::proposals::merged(repo, work, plan.upstream_head);
        // Best effort: a work branch someone moved meanwhile keeps its new commits (the
        // next merge takes them).
        let _ = crate::git::refs::move_branch(
            repo,
            &work.reference(),
            Some(plan.upstream_head),
            commit,
            &format!(
                "masterctl merge: {} even with {}",
                work.branch(),
                plan.region
            ),
        );
    }
    Ok(commit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A loose object whose header says it is a blob of `size` bytes (only the header
    /// is ever read: nothing that large is written).
    fn blob_said_to_be(git: &Repository, size: u64, name: &str) -> Oid {
        let id = Oid::hash_object(git2::ObjectType::Blob, name.as_bytes()).unwrap();
        let hex = id.to_string();
        let dir = git.path().join("objects").join(&hex[..2]);
        std::fs::create_dir_all(&dir).unwrap();
        let mut zipped = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        zipped
            .write_all(format!("blob {size}\0").as_bytes())
            .unwrap();
        std::fs::write(dir.join(&hex[2..]), zipped.finish().unwrap()).unwrap();
        id
    }

    #[test]
    fn a_join_refuses_a_file_larger_than_diff_compares_before_reading_it() {
        let (_dir, git) = crate::snapshot::scratch_repository();
        let small = git.blob(b"id\n1\n").unwrap();
        let huge = blob_said_to_be(&git, crate::review::diff::rows::LIMIT + 1, "huge");
        let path = "tables/item.csv".to_string();
        let side = |id: Oid| HashMap::from([(path.clone(), id)]);
        let (base, theirs, ours) = (side(small), side(small), side(huge));
        let refused = refuse_too_large(&git, [&base, &theirs, &ours], "refs/heads/masters/jp");
        match refused {
            Err(StoreError::BrokenSnapshot { branch, message }) => {
                assert_eq!(branch, "masters/jp");
                assert!(
                    message.contains("tables/item.csv is 268435457 bytes"),
                    "{message}"
                );
                assert!(message.contains("256 MiB"), "{message}");
            }
            other => panic!("{other:?}"),
        }
        // The same large file on all three sides is not merged: it passes.
        refuse_too_large(&git, [&ours, &ours, &ours], "refs/heads/masters/jp").unwrap();
        refuse_too_large(&git, [&base, &theirs, &base], "refs/heads/masters/jp").unwrap();
    }
}
