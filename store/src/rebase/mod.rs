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

use std::collections::BTreeMap;

pub mod resolutions;
pub mod session;
pub mod state;
mod tables;
pub mod translations;

pub use tables::{TableConflicts, TableRebase};

use git2::{Commit, Oid, Repository, Tree};
use masterctl_schemas::canonical::read_table;
use masterctl_schemas::load::SCHEMAS_DIR;
use masterctl_schemas::read::parallel_map;
use masterctl_schemas::validate::{check_rows, validate_tables};
use masterctl_schemas::{Report, Table};

use crate::StoreError;
use crate::commit::{CommitSpec, UPSTREAM_BASE_TRAILER, UPSTREAM_TRAILER, write_commit};
use crate::merge::{Conflict, Ownership, merge_canonical, merge_table};
use crate::names::{Region, short_id};
use crate::repo::{MasterRepo, Structure, blob_at, is_structure_path, project_from_files};
use crate::snapshot::{
    Snapshot, language_path, project_at, read_files, read_table_at, table_path, tree_blobs,
};
use resolutions::{Resolution, Resolutions};
use state::RebaseState;

/// Why a rebase cannot start.
#[derive(Debug, thiserror::Error)]
pub enum RebaseError {
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
    #[error("no rebase of region {0} is in progress")]
    NotInProgress(String),
    #[error("a rebase of region {region} is in progress")]
    InProgress {
        region: String,
        conflict_file: std::path::PathBuf,
    },
    #[error("region {0} or its upstream moved since the rebase stopped")]
    Moved(String),
    #[error("no conflict matches --table/--column/--key")]
    NoConflictMatches { conflict_file: std::path::PathBuf },
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl From<git2::Error> for RebaseError {
    fn from(e: git2::Error) -> RebaseError {
        RebaseError::Store(StoreError::Git(e))
    }
}

/// A rebase ready to commit.
pub struct RebasePlan {
    pub region: String,
    pub reference: String,
    pub upstream: String,
    /// The region's head (`None`: the branch is created by this rebase).
    pub parent: Option<Oid>,
    pub upstream_head: Oid,
    pub base: Oid,
    pub snapshot: Snapshot,
    pub tables: Vec<TableRebase>,
}

pub enum RebaseOutcome {
    /// The region already took everything upstream has.
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

/// The newest import point recorded on the first-parent history of `head`.
pub fn recorded_import_point(head: &Commit<'_>) -> Option<Oid> {
    let mut next = Some(head.clone());
    while let Some(commit) = next {
        if let Some(point) = import_point_of(&commit) {
            return Some(point);
        }
        next = commit.parents().next();
    }
    None
}

/// The import point a commit records: its upstream parent (the second parent of a
/// rebase; the only parent of a region's first commit, started from its upstream), when
/// the commit's own `Masterctl-Upstream` trailer names that parent. Text alone — which a
/// file name or a message could once carry — never makes an import point: the commit's
/// structure must agree.
fn import_point_of(commit: &Commit<'_>) -> Option<Oid> {
    let upstream_parent = match commit.parent_count() {
        1 => commit.parent_id(0).ok()?,
        2 => commit.parent_id(1).ok()?,
        _ => return None,
    };
    let message = String::from_utf8_lossy(commit.message_raw_bytes());
    let trailers = git2::message_trailers_strs(&message).ok()?;
    trailers
        .iter()
        .any(|(key, value)| {
            key == UPSTREAM_TRAILER && Oid::from_str(value.trim()).ok() == Some(upstream_parent)
        })
        .then_some(upstream_parent)
}

/// Plan a rebase of `region` onto its upstream.
pub fn plan_rebase(
    repo: &MasterRepo,
    structure: &Structure,
    region: &Region,
    resolutions: &Resolutions,
) -> Result<RebaseOutcome, RebaseError> {
    let project = &structure.project;
    let reference = region.reference();
    let upstream_region = region
        .upstream(project)
        .ok_or_else(|| RebaseError::NoUpstream(region.name().to_string()))??;
    let upstream = upstream_region.name().to_string();
    let upstream_ref = upstream_region.reference();
    let git = &repo.git;
    let theirs = repo
        .head_of(&upstream_ref)?
        .ok_or_else(|| RebaseError::NoUpstreamBranch(upstream_region.branch().to_string()))?;
    let Some(ours) = repo.head_of(&reference)? else {
        // The first rebase: the region starts as upstream is now.
        let tree = theirs.tree()?;
        let snapshot = Snapshot {
            files: read_files(git, &tree)?,
        };
        return Ok(RebaseOutcome::Planned(Box::new(RebasePlan {
            region: region.name().to_string(),
            reference,
            upstream,
            parent: None,
            upstream_head: theirs.id(),
            base: theirs.id(),
            snapshot,
            tables: Vec::new(),
        })));
    };
    let base_id = match recorded_import_point(&ours) {
        Some(point) => point,
        None => git
            .merge_base(ours.id(), theirs.id())
            .map_err(|_| RebaseError::NoImportPoint {
                branch: region.branch().to_string(),
                upstream: upstream_region.branch().to_string(),
            })?,
    };
    if base_id != theirs.id()
        && !git
            .graph_descendant_of(theirs.id(), base_id)
            .unwrap_or(false)
    {
        return Err(RebaseError::UpstreamRewritten {
            point: base_id.to_string(),
            branch: region.branch().to_string(),
            upstream: upstream_region.branch().to_string(),
        });
    }
    if base_id == theirs.id() {
        return Ok(RebaseOutcome::UpToDate {
            upstream_head: theirs.id(),
        });
    }
    let base = git.find_commit(base_id)?;
    let (base_tree, their_tree, our_tree) = (base.tree()?, theirs.tree()?, ours.tree()?);

    // The structure, file by file.
    let state = RebaseState {
        region_head: ours.id(),
        upstream_head: theirs.id(),
        base: base_id,
    };
    let (structure_files, mut conflicts) =
        merge_structure(git, &base_tree, &their_tree, &our_tree, resolutions)?;
    if !conflicts.is_empty() {
        return Ok(RebaseOutcome::Conflicts {
            tables: conflicts,
            state,
        });
    }
    let merged_project = project_from_files(&structure_files)
        .map_err(|report| RebaseError::Store(StoreError::InvalidStructure(report)))?;
    let owns = merged_project
        .config
        .regions
        .get(region.name())
        .map(|r| r.owns.clone())
        .unwrap_or_default();

    // The region's own schema, to tell columns upstream added.
    let our_project = project_at(git, &our_tree);
    let dropped = dropped_edited_columns(
        git,
        [&base_tree, &our_tree],
        &merged_project,
        resolutions,
        &reference,
    )?;
    if !dropped.is_empty() {
        return Ok(RebaseOutcome::Conflicts {
            tables: dropped,
            state,
        });
    }

    // Every table, typed against the merged schema. A table upstream did not touch
    // (same blobs at the import point and now) is the region's as it is: only the
    // region's version is read, for validation.
    let blobs = |tree: &Tree<'_>| tree_blobs(git, tree);
    let (base_blobs, their_blobs) = (blobs(&base_tree)?, blobs(&their_tree)?);
    let source = merged_project.config.source_language.clone();
    let mut merged = Vec::new();
    let mut summary = Vec::new();
    for schema in &merged_project.tables {
        let name = schema.name.as_str();
        let files = [table_path(name), language_path(&source, name)];
        let untouched_upstream = files
            .iter()
            .all(|f| base_blobs.get(f) == their_blobs.get(f));
        let read = |tree: &Tree<'_>| read_table_at(git, tree, &merged_project, schema, &reference);
        if untouched_upstream {
            merged.extend(read(&our_tree)?);
            continue;
        }
        let ownership = Ownership::of(schema, &owns);
        // Plain canonical files of an integer-keyed table without text merge as lines;
        // anything else is typed in full first.
        let texts: Vec<Option<Vec<u8>>> = [&base_tree, &their_tree, &our_tree]
            .into_iter()
            .map(|tree| blob_at(git, tree, &files[0]))
            .collect::<Result<_, _>>()?;
        let by_lines = match (&texts[0], &texts[1], &texts[2]) {
            (Some(b), Some(t), Some(o)) => merge_canonical(schema, b, t, o, &ownership),
            _ => None,
        };
        let merged_here = match by_lines {
            Some((bytes, found, applied, kept)) => {
                let table = read_table(schema, &bytes, std::path::Path::new(&files[0]), None)
                    .map_err(|d| StoreError::BrokenSnapshot {
                        branch: reference.clone(),
                        message: d.first().map_or_else(String::new, ToString::to_string),
                    })?;
                Some((table, found, applied, kept))
            }
            None => {
                let [b, t, o] = read_versions(
                    git,
                    [&base_tree, &their_tree, &our_tree],
                    &files,
                    schema,
                    &reference,
                )?;
                match (b, t, o) {
                    (_, None, None) => None,
                    (_, Some(t), None) => {
                        summary.push(TableRebase {
                            table: name.to_string(),
                            applied: t.row_count(),
                            kept: 0,
                            resolved: 0,
                        });
                        merged.push(t);
                        None
                    }
                    (_, None, Some(o)) => {
                        merged.push(o);
                        None
                    }
                    (b, Some(t), Some(o)) => {
                        let mut result = merge_table(schema, b.as_ref(), &t, &o, &ownership);
                        let mut found = std::mem::take(&mut result.conflicts);
                        found.extend(missing_new_values(
                            schema,
                            our_project.as_ref(),
                            &result.table,
                        ));
                        Some((result.table, found, result.applied, result.kept))
                    }
                }
            }
        };
        let Some((mut table, found, applied, kept)) = merged_here else {
            continue;
        };
        let (unresolved, resolved) = resolutions::apply(schema, &mut table, found, resolutions)
            .map_err(RebaseError::BadResolution)?;
        if !unresolved.is_empty() {
            conflicts.push(TableConflicts {
                table: name.to_string(),
                fields: schema.fields.iter().map(|f| f.name.clone()).collect(),
                conflicts: unresolved,
                reason: String::new(),
            });
        }
        if applied > 0 || kept > 0 || resolved > 0 {
            summary.push(TableRebase {
                table: name.to_string(),
                applied,
                kept,
                resolved,
            });
        }
        merged.push(table);
    }
    let translations = translations::merge_translations(
        git,
        &translations::Trees {
            base: &base_tree,
            theirs: &their_tree,
            ours: &our_tree,
        },
        &merged_project,
        &owns,
        resolutions,
        &merged,
        &reference,
    )?;
    conflicts.extend(translations.conflicts);
    summary.extend(translations.summary);
    if !conflicts.is_empty() {
        return Ok(RebaseOutcome::Conflicts {
            tables: conflicts,
            state,
        });
    }

    // The result must be valid data, as an import's would.
    let mut report = Report::default();
    for table in &merged {
        if let Some(schema) = merged_project.table(&table.name) {
            report.extend(check_rows(schema, table));
        }
    }
    report.extend(validate_tables(&merged_project, &merged).diagnostics);
    report.sort();
    if report.has_errors() {
        return Ok(RebaseOutcome::Rejected { report, state });
    }
    let merged_structure = Structure {
        project: merged_project,
        files: structure_files,
    };
    let mut snapshot = Snapshot::build(&merged_structure, &merged)?;
    // Translations: the region's, with what upstream changed merged in. One whose source
    // upstream changed while its translation stayed shows as stale (its recorded source
    // is no longer the source).
    let source = merged_structure.project.config.source_language.clone();
    snapshot.carry_translations(git, &our_tree, &source)?;
    for (path, bytes) in translations.files {
        match bytes {
            Some(bytes) => snapshot.files.insert(path, bytes),
            None => snapshot.files.remove(&path),
        };
    }
    Ok(RebaseOutcome::Planned(Box::new(RebasePlan {
        region: region.name().to_string(),
        reference,
        upstream,
        parent: Some(ours.id()),
        upstream_head: theirs.id(),
        base: base_id,
        snapshot,
        tables: summary,
    })))
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
) -> Result<(StructureFiles, Vec<TableConflicts>), RebaseError> {
    let structure = |tree: &Tree<'_>| -> Result<BTreeMap<String, Oid>, RebaseError> {
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

/// The commit message: what was applied and kept per table, and the import point.
pub fn rebase_message(plan: &RebasePlan) -> String {
    let upstream_head = plan.upstream_head.to_string();
    let short = short_id(&upstream_head);
    let mut text = match plan.parent {
        Some(_) => format!("Rebase {} onto {} {short}\n\n", plan.region, plan.upstream),
        None => format!("Start {} from {} {short}\n\n", plan.region, plan.upstream),
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
    text.push_str(&format!("{UPSTREAM_TRAILER}: {}\n", plan.upstream_head));
    text.push_str(&format!("{UPSTREAM_BASE_TRAILER}: {}\n", plan.base));
    text
}

/// Commit a planned rebase: parents are the region's head (if any), then the upstream
/// commit; the branch moves only if it still points where the plan started.
pub fn commit_rebase(repo: &MasterRepo, plan: &RebasePlan) -> Result<Oid, StoreError> {
    let parents: Vec<Oid> = plan
        .parent
        .into_iter()
        .chain([plan.upstream_head])
        .collect();
    write_commit(
        repo,
        &plan.snapshot,
        &CommitSpec {
            reference: &plan.reference,
            expected: plan.parent,
            parents: &parents,
            message: &rebase_message(plan),
            log_message: &format!("masterctl rebase: {} onto {}", plan.region, plan.upstream),
        },
    )
}
