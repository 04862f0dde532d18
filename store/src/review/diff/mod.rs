//! Keyed diffs of master data: what changed between two snapshots of a region, in the
//! terms planners and reviewers use — tables and generated masters added and removed,
//! schema changes, rows added and removed (with their readable name), cells changed
//! (numbers with their delta), texts changed in each language. Files whose blob ids are
//! equal are passed over unread; rows that are equal byte for byte are passed over
//! without being taken apart.
//!
//! One model serves every output: [`Diff`] is plain data (`Serialize`), which the
//! command line renders on a terminal, as JSON or as an HTML page.

mod inline;
mod page;
mod rebase;
pub(crate) mod rows;
mod schema;
mod zoned;

use std::collections::{BTreeMap, HashMap, HashSet};

use git2::{Oid, Repository, Tree};
use masterctl_schemas::schema::{GeneratedSchema, TableKind};
use masterctl_schemas::{FieldType, Project, TableSchema};
use serde::Serialize;

pub use inline::{Span, inline};
pub use page::{SHOWN_PER_TABLE, Window, page, paged};
pub use rebase::rebase_review;
pub use schema::{SchemaChange, key_names, schema_changes};

use crate::MasterRepo;
use crate::StoreError;
use crate::git::repo::resolve;
use crate::names::Branch;
use crate::snapshot::{
    Snapshot, generated_path, language_path, project_at, table_path, tree_blobs,
};
use rows::{RowEvent, Rows};

/// One side of a diff: a commit's tree, or a snapshot not committed (what an import
/// would write).
pub struct Side<'a> {
    /// What the user named it (`masters/jp~1`, `working exports`).
    pub label: String,
    /// The commit, when it is one.
    pub commit: Option<Oid>,
    project: Option<Project>,
    files: Files<'a>,
}

enum Files<'a> {
    Tree {
        git: &'a Repository,
        blobs: HashMap<String, Oid>,
        /// Blobs already read, by id (content-addressed: any that matches is the blob).
        read: Option<&'a HashMap<Oid, Vec<u8>>>,
    },
    Snapshot {
        files: &'a BTreeMap<String, Vec<u8>>,
        ids: HashMap<String, Oid>,
    },
    /// Nothing: the side before a region's first commit.
    Empty,
}

impl<'a> Side<'a> {
    /// The tree of `commit`, its structure read from the tree itself.
    pub fn commit(
        git: &'a Repository,
        commit: &git2::Commit<'_>,
        label: &str,
    ) -> Result<Side<'a>, StoreError> {
        let tree = commit.tree()?;
        Side::tree(git, &tree, label, Some(commit.id()))
    }

    fn tree(
        git: &'a Repository,
        tree: &Tree<'_>,
        label: &str,
        commit: Option<Oid>,
    ) -> Result<Side<'a>, StoreError> {
        let project = project_at(git, tree).ok_or_else(|| StoreError::BrokenSnapshot {
            branch: label.to_string(),
            message: "its masterctl.toml or schemas do not load".into(),
        })?;
        crate::snapshot::only_files(tree, label)?;
        Ok(Side {
            label: label.to_string(),
            commit,
            project: Some(project),
            files: Files::Tree {
                git,
                blobs: tree_blobs(git, tree)?,
                read: None,
            },
        })
    }

    /// This side, taking a blob from `read` (blobs read already, by id) before asking
    /// git to inflate it again.
    pub fn reading_from(mut self, read: &'a HashMap<Oid, Vec<u8>>) -> Side<'a> {
        if let Files::Tree { read: kept, .. } = &mut self.files {
            *kept = Some(read);
        }
        self
    }

    /// A snapshot of `project` not committed.
    pub fn snapshot(
        snapshot: &'a Snapshot,
        project: Project,
        label: &str,
    ) -> Result<Side<'a>, StoreError> {
        let ids = snapshot
            .blob_ids()?
            .into_iter()
            .map(|(path, id)| (path.to_string(), id))
            .collect();
        Ok(Side {
            label: label.to_string(),
            commit: None,
            project: Some(project),
            files: Files::Snapshot {
                files: snapshot.files(),
                ids,
            },
        })
    }

    /// Nothing (before a region's first commit).
    pub fn empty(label: &str) -> Side<'a> {
        Side {
            label: label.to_string(),
            commit: None,
            project: None,
            files: Files::Empty,
        }
    }

    fn id(&self, path: &str) -> Option<Oid> {
        match &self.files {
            Files::Tree { blobs, .. } => blobs.get(path).copied(),
            Files::Snapshot { ids, .. } => ids.get(path).copied(),
            Files::Empty => None,
        }
    }

    fn rows(&self, path: &str) -> Result<Option<Rows>, StoreError> {
        let read = |bytes: &[u8]| {
            Rows::read(bytes, path).map_err(|message| StoreError::BrokenSnapshot {
                branch: self.label.clone(),
                message,
            })
        };
        // Read where the bytes lie, never copied first.
        match &self.files {
            Files::Tree {
                blobs,
                read: Some(kept),
                ..
            } if let Some(bytes) = blobs.get(path).and_then(|id| kept.get(id)) => {
                if bytes.len() as u64 > rows::LIMIT {
                    return Err(StoreError::BrokenSnapshot {
                        branch: self.label.clone(),
                        message: rows::too_large(path, bytes.len() as u64),
                    });
                }
                read(bytes).map(Some)
            }
            Files::Tree { git, blobs, .. } => match blobs.get(path) {
                Some(&id) => {
                    let blob =
                        crate::snapshot::blob_within(git, id, rows::LIMIT).map_err(|size| {
                            StoreError::BrokenSnapshot {
                                branch: self.label.clone(),
                                message: rows::too_large(path, size),
                            }
                        })??;
                    read(blob.content()).map(Some)
                }
                None => Ok(None),
            },
            Files::Snapshot { files, .. } => files.get(path).map(|b| read(b)).transpose(),
            Files::Empty => Ok(None),
        }
    }

    /// Whether the side's structure has a table or generated master of this name.
    pub fn has(&self, name: &str) -> bool {
        self.project
            .as_ref()
            .is_some_and(|p| p.table(name).is_some() || p.generated.iter().any(|g| g.name == name))
    }

    fn generated(&self, name: &str) -> Option<&GeneratedSchema> {
        self.project
            .as_ref()?
            .generated
            .iter()
            .find(|g| g.name == name)
    }

    fn table(&self, name: &str) -> Option<&TableSchema> {
        self.project.as_ref()?.table(name)
    }

    /// The languages whose texts the side holds: the source language first.
    fn languages(&self) -> Vec<String> {
        let Some(project) = &self.project else {
            return Vec::new();
        };
        project.config.languages_source_first().cloned().collect()
    }
}

/// The two sides of a region's last commit: its parent (nothing, for the first) and it.
pub fn last_commit<'r>(
    repo: &'r MasterRepo,
    region: &Branch,
) -> Result<(Side<'r>, Side<'r>), StoreError> {
    let branch = region.branch();
    let head = repo
        .head_of(&region.reference())?
        .ok_or_else(|| StoreError::NoCommits(branch.to_string()))?;
    against_parent(&repo.git, &head, branch)
}

/// A revision against its parent (nothing, for a first commit).
pub fn revision<'r>(
    git: &'r Repository,
    revision: &str,
) -> Result<(Side<'r>, Side<'r>), StoreError> {
    against_parent(git, &resolve(git, revision)?, revision)
}

fn against_parent<'r>(
    git: &'r Repository,
    commit: &git2::Commit<'_>,
    label: &str,
) -> Result<(Side<'r>, Side<'r>), StoreError> {
    let to = Side::commit(git, commit, label)?;
    let from = match commit.parent(0) {
        Ok(parent) => Side::commit(git, &parent, &format!("{label}~1"))?,
        Err(_) => Side::empty("nothing"),
    };
    Ok((from, to))
}

/// Two revisions, old and new.
pub fn revisions<'r>(
    git: &'r Repository,
    old: &str,
    new: &str,
) -> Result<(Side<'r>, Side<'r>), StoreError> {
    let (a, b) = (resolve(git, old)?, resolve(git, new)?);
    Ok((Side::commit(git, &a, old)?, Side::commit(git, &b, new)?))
}

/// A side as a review names it: what the user called it, and its commit.
#[derive(Debug, Clone, Serialize)]
pub struct Revision {
    pub label: String,
    pub commit: Option<String>,
}

impl Revision {
    pub fn of(side: &Side<'_>) -> Revision {
        Revision {
            label: side.label.clone(),
            commit: side.commit.map(|c| c.to_string()),
        }
    }

    /// `masters/jp (1a2b3c4d)`, or the label alone for a side that is no commit.
    pub fn shown(&self) -> String {
        match &self.commit {
            Some(commit) => format!("{} ({})", self.label, crate::names::short_id(commit)),
            None => self.label.clone(),
        }
    }
}

/// A diff with the two sides it compares.
#[derive(Debug, Clone, Serialize)]
pub struct Review {
    pub from: Revision,
    pub to: Revision,
    #[serde(flatten)]
    pub diff: Diff,
}

/// The diff of two sides, named; a table `options` asks for that is on neither side
/// is [`StoreError::NoTable`].
pub fn review(from: &Side<'_>, to: &Side<'_>, options: &DiffOptions) -> Result<Review, StoreError> {
    let diff = diff(from, to, options)?;
    if diff.tables.is_empty()
        && let Some(unknown) = options.tables.iter().find(|t| !from.has(t) && !to.has(t))
    {
        return Err(StoreError::NoTable {
            what: "table or generated master",
            table: unknown.clone(),
            at: "either side".into(),
        });
    }
    Ok(Review {
        from: Revision::of(from),
        to: Revision::of(to),
        diff,
    })
}

/// What to compare, and what to mark.
#[derive(Debug, Clone, Default)]
pub struct DiffOptions {
    /// Only these tables (and generated masters); empty: all.
    pub tables: Vec<String>,
    /// Numeric changes to flag beyond a threshold.
    pub flags: Vec<Flag>,
}

/// `--flag [table.]column=N%`: a numeric change of at least N% (or from zero) is
/// flagged.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    pub table: Option<String>,
    pub column: String,
    pub percent: f64,
}

impl Flag {
    /// Parse `column=50%` or `table.column=50%`.
    pub fn parse(text: &str) -> Result<Flag, String> {
        let (name, threshold) = text
            .split_once('=')
            .ok_or_else(|| format!("`{text}`: write COLUMN=PERCENT%, as in price=50%"))?;
        let percent: f64 = threshold
            .trim()
            .trim_end_matches('%')
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite() && *p >= 0.0)
            .ok_or_else(|| format!("`{threshold}` is not a percentage (as in 50%)"))?;
        let (table, column) = match name.trim().split_once('.') {
            Some((table, column)) => (Some(table.to_string()), column.to_string()),
            None => (None, name.trim().to_string()),
        };
        if column.is_empty() {
            return Err(format!("`{text}` names no column"));
        }
        Ok(Flag {
            table,
            column,
            percent,
        })
    }

    fn applies(&self, table: &str, column: &str) -> bool {
        self.column == column && self.table.as_deref().is_none_or(|t| t == table)
    }
}

/// Everything that changed, table by table.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Diff {
    /// One summary per table or generated master with a change, in schema order.
    pub tables: Vec<TableDiff>,
    /// Every change, grouped by table in the same order: schema changes first, then
    /// rows in key order.
    pub changes: Vec<Change>,
}

impl Diff {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// A table's changes, counted.
#[derive(Debug, Clone, Serialize)]
pub struct TableDiff {
    pub table: String,
    #[serde(skip_serializing_if = "is_false")]
    pub generated: bool,
    pub status: TableStatus,
    pub schema_changes: usize,
    pub rows_added: usize,
    pub rows_removed: usize,
    pub cells_changed: usize,
    pub texts_changed: usize,
    pub flagged: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    Added,
    Removed,
    Changed,
}

/// One change. `key`, `column`, `old` and `new` are always there (null where they do
/// not apply); the rest only where they do.
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub table: String,
    #[serde(skip_serializing_if = "is_false")]
    pub generated: bool,
    pub kind: ChangeKind,
    /// The row's primary key, as its cells are written.
    pub key: Option<Vec<String>>,
    /// The row's readable name: its first text in the source language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
    pub column: Option<String>,
    /// The language of a text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// The schema option changed (`min`, `values`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub option: Option<String>,
    pub old: Option<Content>,
    pub new: Option<Content>,
    /// For numbers: new − old, and that as a percentage of old (none when old is 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delta: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// Beyond a `--flag` threshold.
    #[serde(skip_serializing_if = "is_false")]
    pub flagged: bool,
    /// In a rebase's review: what the rebase does with this change of upstream's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disposition: Option<Disposition>,
    /// Who sees the column, when only some audiences do (`server`, `client`,
    /// `design`): a change a client build will not carry, or only designers see.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
}

/// What a rebase does with one change upstream made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Disposition {
    /// Taken into the region.
    Applied,
    /// Not taken: the region owns the cell (or the table), and keeps its value.
    Kept,
    /// The region already has the same value.
    Equal,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    TableAdded,
    TableRemoved,
    KeyChanged,
    FieldAdded,
    FieldRemoved,
    FieldRetyped,
    OptionChanged,
    RowAdded,
    RowRemoved,
    CellChanged,
    TextChanged,
}

impl ChangeKind {
    /// The kind's name as JSON writes it (`cell_changed`).
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::TableAdded => "table_added",
            ChangeKind::TableRemoved => "table_removed",
            ChangeKind::KeyChanged => "key_changed",
            ChangeKind::FieldAdded => "field_added",
            ChangeKind::FieldRemoved => "field_removed",
            ChangeKind::FieldRetyped => "field_retyped",
            ChangeKind::OptionChanged => "option_changed",
            ChangeKind::RowAdded => "row_added",
            ChangeKind::RowRemoved => "row_removed",
            ChangeKind::CellChanged => "cell_changed",
            ChangeKind::TextChanged => "text_changed",
        }
    }
}

/// A change's old or new side: one cell, a whole row (columns in order), or a list
/// of names (a key's fields).
#[derive(Debug, Clone, PartialEq)]
pub enum Content {
    Text(String),
    Row(Vec<(String, String)>),
    Names(Vec<String>),
}

impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            Content::Text(text) => serializer.serialize_str(text),
            Content::Names(names) => names.serialize(serializer),
            Content::Row(cells) => {
                let mut map = serializer.serialize_map(Some(cells.len()))?;
                for (column, value) in cells {
                    map.serialize_entry(column, value)?;
                }
                map.end()
            }
        }
    }
}

fn is_false(value: &bool) -> bool {
    !value
}

/// Compare two sides.
pub fn diff(from: &Side<'_>, to: &Side<'_>, options: &DiffOptions) -> Result<Diff, StoreError> {
    let mut out = Diff::default();
    let wanted = |name: &str| options.tables.is_empty() || options.tables.iter().any(|t| t == name);
    for name in names(from, to, |p| {
        p.tables.iter().map(|t| t.name.clone()).collect()
    }) {
        if wanted(&name) {
            diff_table(from, to, &name, options, &mut out)?;
        }
    }
    for name in names(from, to, |p| {
        p.generated.iter().map(|g| g.name.clone()).collect()
    }) {
        if wanted(&name) {
            diff_generated(from, to, &name, &mut out)?;
        }
    }
    mark_audiences(&mut out, to.project.as_ref().or(from.project.as_ref()));
    Ok(out)
}

/// Each change of a column only some audiences see says who.
fn mark_audiences(diff: &mut Diff, project: Option<&Project>) {
    let Some(project) = project else {
        return;
    };
    let both = masterctl_schemas::audience::Audiences::default();
    for change in &mut diff.changes {
        let Some(table) = project.table(&change.table) else {
            continue;
        };
        let field = change.column.as_deref().and_then(|c| table.field(c));
        let audience = field.map_or(table.audience, |f| f.audience);
        if audience != both {
            change.audience = Some(audience.to_string());
        }
    }
}

/// Names of both sides: the new side's order, then the ones only the old side has.
fn names(from: &Side<'_>, to: &Side<'_>, of: impl Fn(&Project) -> Vec<String>) -> Vec<String> {
    let mut names: Vec<String> = to.project.as_ref().map(&of).unwrap_or_default();
    for name in from.project.as_ref().map(&of).unwrap_or_default() {
        if !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// A change of `table` with the fields most changes leave empty.
fn change(table: &str, kind: ChangeKind) -> Change {
    Change {
        table: table.to_string(),
        generated: false,
        kind,
        key: None,
        row: None,
        column: None,
        language: None,
        option: None,
        old: None,
        new: None,
        delta: None,
        percent: None,
        flagged: false,
        disposition: None,
        audience: None,
    }
}

fn summary(table: &str, generated: bool, status: TableStatus) -> TableDiff {
    TableDiff {
        table: table.to_string(),
        generated,
        status,
        schema_changes: 0,
        rows_added: 0,
        rows_removed: 0,
        cells_changed: 0,
        texts_changed: 0,
        flagged: 0,
    }
}

/// One table: added, removed, or its schema, rows and texts compared.
fn diff_table(
    from: &Side<'_>,
    to: &Side<'_>,
    name: &str,
    options: &DiffOptions,
    out: &mut Diff,
) -> Result<(), StoreError> {
    let path = table_path(name);
    let (old, new) = (from.table(name), to.table(name));
    let (old_id, new_id) = (
        old.and_then(|_| from.id(&path)),
        new.and_then(|_| to.id(&path)),
    );
    match (old_id, new_id) {
        (None, None) => return Ok(()),
        (None, Some(_)) | (Some(_), None) => {
            let added = new_id.is_some();
            let side = if added { to } else { from };
            let rows = side.rows(&path)?.map_or(0, |r| r.len());
            let mut table = summary(
                name,
                false,
                if added {
                    TableStatus::Added
                } else {
                    TableStatus::Removed
                },
            );
            if added {
                table.rows_added = rows;
            } else {
                table.rows_removed = rows;
            }
            out.tables.push(table);
            out.changes.push(change(
                name,
                if added {
                    ChangeKind::TableAdded
                } else {
                    ChangeKind::TableRemoved
                },
            ));
            return Ok(());
        }
        (Some(_), Some(_)) => {}
    }
    let (Some(old), Some(new)) = (old, new) else {
        return Ok(());
    };
    let mut table = summary(name, false, TableStatus::Changed);
    let mut changes: Vec<Change> = Vec::new();
    for schema_change in schema_changes(old, new) {
        changes.push(schema_record(name, schema_change));
    }
    table.schema_changes = changes.len();
    let mut moved_rows: HashSet<Vec<String>> = HashSet::new();
    if old_id != new_id {
        let rows = TableRows::read(from, to, &path)?;
        if let Some(rows) = &rows {
            rows.changes(name, old, new, options, &mut changes, &mut moved_rows)?;
        }
    }
    for language in languages(from, to) {
        let path = language_path(&language, name);
        if from.id(&path) == to.id(&path) {
            continue;
        }
        if let Some(rows) = TableRows::read(from, to, &path)? {
            rows.text_changes(name, &language, old, new, &moved_rows, &mut changes)?;
        }
    }
    label_rows(from, to, name, old, new, &mut changes)?;
    zoned::show_in_zone(new, &mut changes);
    // Rows in key order as the table orders them (1, 2, 10), a row's texts after its
    // cells; what concerns the table itself first. A list's rows stay in their order.
    match new.kind {
        TableKind::List => changes.sort_by_key(|c| c.key.is_some()),
        _ => changes.sort_by(|a, b| key_cmp(a.key.as_deref(), b.key.as_deref())),
    }
    for c in &changes {
        match c.kind {
            ChangeKind::RowAdded => table.rows_added += 1,
            ChangeKind::RowRemoved => table.rows_removed += 1,
            ChangeKind::CellChanged => table.cells_changed += 1,
            ChangeKind::TextChanged => table.texts_changed += 1,
            _ => {}
        }
        table.flagged += usize::from(c.flagged);
    }
    if !changes.is_empty() {
        out.tables.push(table);
        out.changes.extend(changes);
    }
    Ok(())
}

/// Two rows' keys in the table's order: numbers by value, other cells as text; no key
/// (a change to the table itself) first.
fn key_cmp(a: Option<&[String]>, b: Option<&[String]>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let cell = |x: &String, y: &String| match (x.parse::<f64>(), y.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
        _ => x.cmp(y),
    };
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        (Some(a), Some(b)) => a
            .iter()
            .zip(b)
            .map(|(x, y)| cell(x, y))
            .find(|o| o.is_ne())
            .unwrap_or_else(|| a.len().cmp(&b.len())),
    }
}

/// Languages either side holds, the new side's order first.
fn languages(from: &Side<'_>, to: &Side<'_>) -> Vec<String> {
    let mut languages = to.languages();
    for language in from.languages() {
        if !languages.contains(&language) {
            languages.push(language);
        }
    }
    languages
}

fn schema_record(table: &str, schema_change: SchemaChange) -> Change {
    let text = |t: String| Some(Content::Text(t));
    match schema_change {
        SchemaChange::KeyChanged { old, new } => Change {
            old: Some(Content::Names(old)),
            new: Some(Content::Names(new)),
            ..change(table, ChangeKind::KeyChanged)
        },
        SchemaChange::FieldAdded { field, ty } => Change {
            column: Some(field),
            new: text(ty),
            ..change(table, ChangeKind::FieldAdded)
        },
        SchemaChange::FieldRemoved { field, ty } => Change {
            column: Some(field),
            old: text(ty),
            ..change(table, ChangeKind::FieldRemoved)
        },
        SchemaChange::FieldRetyped { field, old, new } => Change {
            column: Some(field),
            old: text(old),
            new: text(new),
            ..change(table, ChangeKind::FieldRetyped)
        },
        SchemaChange::OptionChanged {
            field,
            option,
            old,
            new,
        } => Change {
            column: Some(field),
            option: Some(option.to_string()),
            old: old.map(Content::Text),
            new: new.map(Content::Text),
            ..change(table, ChangeKind::OptionChanged)
        },
    }
}

/// One file of a table on both sides, read.
struct TableRows {
    old: Rows,
    new: Rows,
    /// The file both are of, and the two sides' labels, for an error.
    path: String,
    labels: (String, String),
}

impl TableRows {
    /// The file at `path` on both sides (a side without it has no rows).
    fn read(from: &Side<'_>, to: &Side<'_>, path: &str) -> Result<Option<TableRows>, StoreError> {
        let none = Rows::empty;
        let (old, new) = match (from.rows(path)?, to.rows(path)?) {
            (Some(old), Some(new)) => (old, new),
            (Some(old), None) => {
                let new = none(&old.header);
                (old, new)
            }
            (None, Some(new)) => (none(&new.header), new),
            (None, None) => return Ok(None),
        };
        Ok(Some(TableRows {
            old,
            new,
            path: path.to_string(),
            labels: (from.label.clone(), to.label.clone()),
        }))
    }

    /// The key columns of each side: the new schema's key where both files have its
    /// columns (a key change is reported apart), else each side's own. A file without
    /// its key's columns is no table of that schema: an error naming the side and file,
    /// never a diff of nothing.
    fn keys(
        &self,
        old: &TableSchema,
        new: &TableSchema,
    ) -> Result<(Vec<usize>, Vec<usize>), StoreError> {
        let key = key_names(new);
        if let (Some(o), Some(n)) = (self.old.columns(&key), self.new.columns(&key)) {
            return Ok((o, n));
        }
        let old_key = key_names(old);
        let broken =
            |label: &str, schema: &TableSchema, key: &[String]| StoreError::BrokenSnapshot {
                branch: label.to_string(),
                message: format!(
                    "{}: its header has no column for the key ({}) of table `{}`",
                    self.path,
                    key.join(", "),
                    schema.name
                ),
            };
        let o = self
            .old
            .columns(&old_key)
            .ok_or_else(|| broken(&self.labels.0, old, &old_key))?;
        let n = self
            .new
            .columns(&key)
            .ok_or_else(|| broken(&self.labels.1, new, &key))?;
        Ok((o, n))
    }

    /// Rows added and removed, cells changed, of a table's data file.
    fn changes(
        &self,
        table: &str,
        old_schema: &TableSchema,
        new_schema: &TableSchema,
        options: &DiffOptions,
        changes: &mut Vec<Change>,
        moved: &mut HashSet<Vec<String>>,
    ) -> Result<(), StoreError> {
        let (old_key, new_key) = self.keys(old_schema, new_schema)?;
        let numeric = |column: &str| {
            new_schema.field_index(column).is_some_and(|f| {
                matches!(new_schema.fields[f].ty, FieldType::Int | FieldType::Float)
            })
        };
        // A list's rows are named by their place (`#3`): the new one, or the old one
        // for a row removed.
        let is_list = new_schema.kind == TableKind::List;
        let key_of = |rows: &Rows, row: usize, key: &[usize]| match is_list {
            true => vec![format!("#{}", row + 1)],
            false => rows.key_cells(row, key),
        };
        let events = match is_list {
            true => rows::diff_positions(&self.old, &self.new),
            false => rows::diff_rows(&self.old, &self.new, &old_key, &new_key),
        };
        for event in events {
            match event {
                RowEvent::Added(n) => {
                    let key = key_of(&self.new, n, &new_key);
                    moved.insert(key.clone());
                    changes.push(Change {
                        key: Some(key),
                        new: Some(whole_row(&self.new, n)),
                        ..change(table, ChangeKind::RowAdded)
                    });
                }
                RowEvent::Removed(o) => {
                    let key = key_of(&self.old, o, &old_key);
                    moved.insert(key.clone());
                    changes.push(Change {
                        key: Some(key),
                        old: Some(whole_row(&self.old, o)),
                        ..change(table, ChangeKind::RowRemoved)
                    });
                }
                RowEvent::Changed(o, n, columns) => {
                    let key = key_of(&self.new, n, &new_key);
                    for column in columns {
                        let before = self.old.cell(o, column.old);
                        let after = self.new.cell(n, column.new);
                        let column = column.name;
                        let mut c = Change {
                            key: Some(key.clone()),
                            column: Some(column.clone()),
                            ..change(table, ChangeKind::CellChanged)
                        };
                        if numeric(&column) {
                            number_change(&mut c, &before, &after, options);
                        }
                        c.old = Some(Content::Text(before));
                        c.new = Some(Content::Text(after));
                        changes.push(c);
                    }
                }
            }
        }
        Ok(())
    }

    /// Texts changed in one language's file. Rows added or removed with the table's
    /// own rows are told by those; a text added to (or gone from) a row that stays is a
    /// text changed from (or to) nothing.
    fn text_changes(
        &self,
        table: &str,
        language: &str,
        old_schema: &TableSchema,
        new_schema: &TableSchema,
        moved: &HashSet<Vec<String>>,
        changes: &mut Vec<Change>,
    ) -> Result<(), StoreError> {
        let (old_key, new_key) = self.keys(old_schema, new_schema)?;
        let texts = |rows: &Rows, key: &[usize]| -> Vec<usize> {
            (0..rows.header.len())
                .filter(|c| !key.contains(c))
                .collect()
        };
        let text = |table: &str,
                    key: Vec<String>,
                    column: &str,
                    old: Option<String>,
                    new: Option<String>| Change {
            key: Some(key),
            column: Some(column.to_string()),
            language: Some(language.to_string()),
            old: old.map(Content::Text),
            new: new.map(Content::Text),
            ..change(table, ChangeKind::TextChanged)
        };
        // A row only one side's file has, whose table row stays: each of its texts
        // added (or gone).
        let lone =
            |rows: &Rows, row: usize, key: &[usize], added: bool, changes: &mut Vec<Change>| {
                let cells = rows.key_cells(row, key);
                if moved.contains(&cells) {
                    return;
                }
                for c in texts(rows, key) {
                    let value = Some(rows.cell(row, c)).filter(|v| !v.is_empty());
                    if value.is_some() {
                        let (old, new) = if added { (None, value) } else { (value, None) };
                        changes.push(text(table, cells.clone(), &rows.header[c], old, new));
                    }
                }
            };
        for event in rows::diff_rows(&self.old, &self.new, &old_key, &new_key) {
            match event {
                RowEvent::Added(n) => lone(&self.new, n, &new_key, true, changes),
                RowEvent::Removed(o) => lone(&self.old, o, &old_key, false, changes),
                RowEvent::Changed(o, n, columns) => {
                    let key = self.new.key_cells(n, &new_key);
                    for column in columns {
                        let (before, after) =
                            (self.old.cell(o, column.old), self.new.cell(n, column.new));
                        let some = |t: String| (!t.is_empty()).then_some(t);
                        changes.push(text(
                            table,
                            key.clone(),
                            &column.name,
                            some(before),
                            some(after),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A row as column → cell, in the file's column order.
fn whole_row(rows: &Rows, row: usize) -> Content {
    Content::Row(
        rows.header
            .iter()
            .enumerate()
            .map(|(c, name)| (name.clone(), rows.cell(row, c)))
            .collect(),
    )
}

/// Delta, percentage and flag of a numeric cell change.
fn number_change(c: &mut Change, before: &str, after: &str, options: &DiffOptions) {
    let (Ok(old), Ok(new)) = (before.parse::<f64>(), after.parse::<f64>()) else {
        return;
    };
    let delta = new - old;
    c.delta = Some(round(delta));
    c.percent = (old != 0.0).then(|| round(delta / old.abs() * 100.0));
    let column = c.column.as_deref().unwrap_or_default();
    c.flagged = options
        .flags
        .iter()
        .filter(|f| f.applies(&c.table, column))
        .any(|f| match c.percent {
            Some(p) => p.abs() >= f.percent,
            None => delta != 0.0,
        });
}

/// Rounded to what a reviewer reads (and what prints the same everywhere).
fn round(value: f64) -> f64 {
    (value * 1e6).round() / 1e6
}

/// The field that names a row for people: the table's first text field (read in the
/// source language).
pub(crate) fn readable_field(schema: &TableSchema) -> Option<String> {
    schema
        .fields
        .iter()
        .find(|f| f.ty == FieldType::Text)
        .map(|f| f.name.clone())
}

/// Each changed row's readable name: its first text in the source language (the new
/// side's, or the old side's for a row removed).
fn label_rows(
    from: &Side<'_>,
    to: &Side<'_>,
    table: &str,
    old: &TableSchema,
    new: &TableSchema,
    changes: &mut [Change],
) -> Result<(), StoreError> {
    for (side, schema, removed) in [(to, new, false), (from, old, true)] {
        let (Some(field), Some(project)) = (readable_field(schema), side.project.as_ref()) else {
            continue;
        };
        let wanted: HashSet<&Vec<String>> = changes
            .iter()
            .filter(|c| (c.kind == ChangeKind::RowRemoved) == removed)
            .filter_map(|c| c.key.as_ref())
            .collect();
        if wanted.is_empty() {
            continue;
        }
        let path = language_path(&project.config.source_language, table);
        let Some(rows) = side.rows(&path)? else {
            continue;
        };
        let (Some(key), Some(text)) = (
            rows.columns(&key_names(schema)),
            rows.header.iter().position(|h| *h == field),
        ) else {
            continue;
        };
        let mut labels: HashMap<Vec<String>, String> = HashMap::new();
        for row in 0..rows.len() {
            let cells = rows.key_cells(row, &key);
            if wanted.contains(&cells) {
                labels.insert(cells, rows.cell(row, text));
            }
        }
        for c in changes.iter_mut() {
            if (c.kind == ChangeKind::RowRemoved) == removed
                && let Some(label) = c.key.as_ref().and_then(|k| labels.get(k))
                && !label.is_empty()
            {
                c.row = Some(label.clone());
            }
        }
    }
    Ok(())
}

/// A generated master: its rows matched by the key its kind gives them (a reverse
/// lookup: the target's key, the source table and the source key; a group: the group
/// and the position; a weighted master: all but the weight and the running total; a
/// matrix: the row), so a changed row is one cell changed.
fn diff_generated(
    from: &Side<'_>,
    to: &Side<'_>,
    name: &str,
    out: &mut Diff,
) -> Result<(), StoreError> {
    let path = generated_path(name);
    let (old_id, new_id) = (from.id(&path), to.id(&path));
    if old_id == new_id {
        return Ok(());
    }
    let Some(rows) = TableRows::read(from, to, &path)? else {
        return Ok(());
    };
    let status = match (old_id, new_id) {
        (None, _) => TableStatus::Added,
        (_, None) => TableStatus::Removed,
        _ => TableStatus::Changed,
    };
    let mut table = summary(name, true, status);
    let generated = |c: Change| Change {
        generated: true,
        ..c
    };
    let mut changes = Vec::new();
    if status != TableStatus::Changed {
        let added = status == TableStatus::Added;
        if added {
            table.rows_added = rows.new.len();
        } else {
            table.rows_removed = rows.old.len();
        }
        let kind = if added {
            ChangeKind::TableAdded
        } else {
            ChangeKind::TableRemoved
        };
        changes.push(generated(change(name, kind)));
    } else {
        if rows.old.header != rows.new.header {
            changes.push(generated(Change {
                old: Some(Content::Names(rows.old.header.clone())),
                new: Some(Content::Names(rows.new.header.clone())),
                ..change(name, ChangeKind::KeyChanged)
            }));
            table.schema_changes = 1;
        }
        let schema = to.generated(name).or_else(|| from.generated(name));
        let (old_key, new_key) = (
            generated_key(schema, rows.old.header.len()),
            generated_key(schema, rows.new.header.len()),
        );
        for event in rows::diff_rows(&rows.old, &rows.new, &old_key, &new_key) {
            match event {
                RowEvent::Added(n) => changes.push(generated(Change {
                    key: Some(rows.new.key_cells(n, &new_key)),
                    new: Some(whole_row(&rows.new, n)),
                    ..change(name, ChangeKind::RowAdded)
                })),
                RowEvent::Removed(o) => changes.push(generated(Change {
                    key: Some(rows.old.key_cells(o, &old_key)),
                    old: Some(whole_row(&rows.old, o)),
                    ..change(name, ChangeKind::RowRemoved)
                })),
                RowEvent::Changed(o, n, columns) => {
                    for column in columns {
                        changes.push(generated(Change {
                            key: Some(rows.new.key_cells(n, &new_key)),
                            old: Some(Content::Text(rows.old.cell(o, column.old))),
                            new: Some(Content::Text(rows.new.cell(n, column.new))),
                            column: Some(column.name),
                            ..change(name, ChangeKind::CellChanged)
                        }));
                    }
                }
            }
        }
        for c in &changes {
            match c.kind {
                ChangeKind::RowAdded => table.rows_added += 1,
                ChangeKind::RowRemoved => table.rows_removed += 1,
                ChangeKind::CellChanged => table.cells_changed += 1,
                _ => {}
            }
        }
    }
    if !changes.is_empty() {
        out.tables.push(table);
        out.changes.extend(changes);
    }
    Ok(())
}

/// The key columns of a generated master's file of `width` columns (every column when
/// its kind is not known).
fn generated_key(schema: Option<&GeneratedSchema>, width: usize) -> Vec<usize> {
    use masterctl_schemas::schema::{CustomKind, GeneratedKind};
    let leading = match schema.map(|g| &g.kind) {
        Some(GeneratedKind::Reverse(_)) => 3,
        Some(GeneratedKind::Custom(custom)) => match &custom.kind {
            CustomKind::Group { group_by, .. } => group_by.len() + 1,
            CustomKind::Weighted { .. } => width.saturating_sub(2),
            CustomKind::Matrix { .. } => 1,
        },
        None => width,
    };
    (0..leading.clamp(1, width.max(1))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kind_names_itself_as_json_does() {
        use ChangeKind::*;
        for kind in [
            TableAdded,
            TableRemoved,
            KeyChanged,
            FieldAdded,
            FieldRemoved,
            FieldRetyped,
            OptionChanged,
            RowAdded,
            RowRemoved,
            CellChanged,
            TextChanged,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), kind.as_str());
        }
    }
}
