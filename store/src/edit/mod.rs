//! Editing a branch's tables cell by cell — the console's grid, or any caller with the
//! same edits: cells set, rows added and deleted, gathered into one change. Each edit
//! carries what the planner saw; one whose cell changed since is refused with the cell
//! named, the value it holds now and who gave it, never overwritten. The edited tables
//! then take an import's path: the rest of the branch kept, the whole snapshot
//! validated (every mistake at once, rows named by key), reviewed as a diff or
//! committed only if the branch still points where the edit started.

mod apply;

use masterctl_schemas::validate::check_rows;
use masterctl_schemas::{Report, Table};
use serde::{Deserialize, Serialize};

use crate::import::{Keep, Planned, Planning, TableChange, commit_import, plan_tables};
use crate::names::{Branch, one_line};
use crate::review::diff::{DiffOptions, Review};
use crate::review::history::ImportRecord;
use crate::snapshot::commit::{STRUCTURE_TRAILER, trailer_ids};
use crate::snapshot::read_table_at;
use crate::snapshot::structure::Structure;
use crate::{MasterRepo, StoreError};

/// One change a planner made: what they saw, and what they want instead. Cells are
/// canonical text (what `tables/<table>.csv` holds; a list `1|2`, a map `1:10|2:20`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "edit", rename_all = "lowercase")]
pub enum Edit {
    /// A cell set to `value`; `was` is the cell as the planner saw it.
    Set {
        table: String,
        /// The row's key cells joined by `|`.
        key: String,
        field: String,
        was: String,
        value: String,
    },
    /// A row added: a text per field given (the others empty, or their default).
    Add {
        table: String,
        cells: Vec<(String, String)>,
    },
    /// A row deleted; `was` holds the cells the planner saw (those changed since
    /// refuse the deletion).
    Delete {
        table: String,
        key: String,
        #[serde(default)]
        was: Vec<(String, String)>,
    },
}

impl Edit {
    /// The table it edits.
    pub fn table(&self) -> &str {
        match self {
            Edit::Set { table, .. } | Edit::Add { table, .. } | Edit::Delete { table, .. } => table,
        }
    }
}

/// Edits gathered into one change, and how far to go.
pub struct Request<'a> {
    pub line: &'a Branch,
    pub edits: &'a [Edit],
    /// The planner's words, the commit's first line (default: what changed, counted).
    pub message: Option<&'a str>,
    /// Review only; write nothing.
    pub dry_run: bool,
    /// What a dry run's review compares and flags.
    pub review: DiffOptions,
}

/// Why one edit cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "why", rename_all = "kebab-case")]
pub enum Why {
    /// The cell (or, for a deletion, a cell of the row) no longer holds what the
    /// planner saw: `now` is what it holds.
    Changed { now: Option<String> },
    /// The row is not there any more (deleted since, or its key changed).
    RowGone,
    /// The value is not what the column holds.
    Unreadable { text: String, expected: String },
    /// Another row has this key.
    KeyTaken { key: String },
    /// The table has no such field.
    NoField,
    /// The branch has no such table.
    NoTable,
    /// A table without a key: its rows have no address to edit by.
    NoKey,
}

/// One edit refused: which (its place in the request), where, why — and, for a cell
/// changed since, the commit that changed it.
#[derive(Debug, Clone, Serialize)]
pub struct Refusal {
    pub edit: usize,
    pub table: String,
    pub key: Option<String>,
    pub field: Option<String>,
    #[serde(flatten)]
    pub why: Why,
    pub by: Option<ImportRecord>,
}

impl Refusal {
    /// In a planner's words.
    pub fn describe(&self) -> String {
        let place = match (&self.key, &self.field) {
            (Some(key), Some(field)) => format!("{} {key} `{field}`", self.table),
            (Some(key), None) => format!("{} {key}", self.table),
            (None, Some(field)) => format!("{} `{field}`", self.table),
            (None, None) => self.table.clone(),
        };
        let by = self.by.as_ref().map_or_else(String::new, |by| {
            format!(" by {} at {} ({})", by.author, by.time, by.subject)
        });
        match &self.why {
            Why::Changed { now: Some(now) } => {
                format!("{place} was changed since{by}: it holds `{now}` now")
            }
            Why::Changed { now: None } => format!("{place} was changed since{by}"),
            Why::RowGone => format!("{place}: the row is not there any more{by}"),
            Why::Unreadable { text, expected } => {
                format!("{place}: `{text}` is not {expected}")
            }
            Why::KeyTaken { key } => format!("{place}: another row has the key {key}"),
            Why::NoField => format!("{place}: no such field"),
            Why::NoTable => format!("{place}: no such table"),
            Why::NoKey => format!("{place}: the table has no key to edit its rows by"),
        }
    }
}

/// What an edit came to.
#[derive(Debug)]
pub enum EditOutcome {
    /// Edits that cannot be made as they are (a cell changed since, a value its column
    /// cannot read…): each named; nothing written.
    Refused(Vec<Refusal>),
    /// The branch with the edits is not valid data: every diagnostic; nothing written.
    Rejected(Report),
    /// The branch holds these values already: nothing written.
    Unchanged,
    /// A dry run: what the edits change, counted and cell by cell.
    Reviewed {
        changes: Vec<TableChange>,
        review: Review,
    },
    /// Committed.
    Committed {
        changes: Vec<TableChange>,
        commit: String,
        message: String,
    },
}

/// Make `request.edits` on `request.line` as one commit (or review them).
pub fn run(repo: &MasterRepo, request: &Request<'_>) -> Result<EditOutcome, StoreError> {
    let line = request.line;
    if request.edits.is_empty() {
        return Err(StoreError::NothingToEdit {
            branch: line.branch().to_string(),
        });
    }
    crate::join::state::refuse_if_stopped(repo, line)?;
    let head = repo.head_of_branch(line)?;
    crate::vouched::check(repo, line.branch(), &head)?;
    let tree = head.tree()?;
    let mut structure = Structure::at(&repo.git, &tree)?;
    structure.origin = trailer_ids(&head, STRUCTURE_TRAILER).first().copied();
    let (tables, refusals) = edited_tables(repo, &structure, &tree, line, request.edits)?;
    if !refusals.is_empty() {
        return Ok(EditOutcome::Refused(attributed(repo, line, refusals)));
    }
    // Each edited table held to its columns' rules, as an import's cells are as they
    // are read; the plan checks the rest (keys, references, the kept tables).
    let mut report = Report::default();
    for table in &tables {
        if let Some(schema) = structure.project.table(&table.name) {
            report.extend(check_rows(schema, table));
        }
    }
    let edited: Vec<String> = tables.iter().map(|t| t.name.clone()).collect();
    let supplied = Planned {
        tables,
        report,
        sources: Vec::new(),
        reverts: Vec::new(),
        keep: Keep::Around {
            rekeyed: rekeyed(&structure.project, &edited, request.edits),
            edited,
        },
    };
    let plan = match plan_tables(repo, &structure, line, Some(&head), supplied)? {
        Planning::Rejected(report) => return Ok(EditOutcome::Rejected(report)),
        Planning::Planned(plan) => plan,
    };
    if plan.unchanged {
        return Ok(EditOutcome::Unchanged);
    }
    if request.dry_run {
        let review =
            crate::import::review_plan(repo, &structure, line, &plan, "edited", &request.review)?;
        return Ok(EditOutcome::Reviewed {
            changes: plan.changes,
            review,
        });
    }
    let words = match request.message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(words) => one_line(words),
        None => subject(&plan.changes),
    };
    let (commit, message) = commit_import(repo, &plan, Some(&words))?;
    Ok(EditOutcome::Committed {
        changes: plan.changes,
        commit: commit.to_string(),
        message,
    })
}

/// The edited tables whose referenced values the edits may change: a row deleted, or a
/// field set that another field references (a key changed, say). Only rows naming
/// those can lose the row they name.
fn rekeyed(project: &masterctl_schemas::Project, edited: &[String], edits: &[Edit]) -> Vec<String> {
    let referenced = |table: &str, field: &str| {
        (project.tables.iter().flat_map(|s| &s.fields))
            .filter_map(|f| f.references.as_ref())
            .any(|r| r.table == table && r.field == field)
    };
    (edited.iter())
        .filter(|table| {
            edits.iter().any(|edit| match edit {
                Edit::Delete { table: t, .. } => t == *table,
                Edit::Set {
                    table: t, field, ..
                } => t == *table && referenced(t, field),
                Edit::Add { .. } => false,
            })
        })
        .cloned()
        .collect()
}

/// Each table the edits touch, read from the head and edited (the order of the
/// project's tables), and every edit refused.
fn edited_tables(
    repo: &MasterRepo,
    structure: &Structure,
    tree: &git2::Tree<'_>,
    line: &Branch,
    edits: &[Edit],
) -> Result<(Vec<Table>, Vec<Refusal>), StoreError> {
    let project = &structure.project;
    let mut tables = Vec::new();
    let mut refusals = Vec::new();
    for schema in &project.tables {
        let mine: Vec<(usize, &Edit)> = (edits.iter().enumerate())
            .filter(|(_, e)| e.table() == schema.name)
            .collect();
        if mine.is_empty() {
            continue;
        }
        if schema.primary_key.is_empty() {
            refusals.extend(
                mine.iter()
                    .map(|&(at, _)| refused(at, &schema.name, Why::NoKey)),
            );
            continue;
        }
        let mut table = read_table_at(&repo.git, tree, project, schema, line.branch())?
            .unwrap_or_else(|| crate::snapshot::head::empty(schema));
        table.origin.kept_in = Some(format!("{}, edited on {}", schema.name, line.branch()));
        let mut editing = apply::Editing::new(schema, &mut table);
        for (at, edit) in mine {
            if let Err(refusal) = editing.apply(at, edit) {
                refusals.push(refusal);
            }
        }
        editing.finish();
        tables.push(table);
    }
    for (at, edit) in edits.iter().enumerate() {
        if project.table(edit.table()).is_none() {
            refusals.push(refused(at, edit.table(), Why::NoTable));
        }
    }
    refusals.sort_by_key(|r| r.edit);
    Ok((tables, refusals))
}

fn refused(edit: usize, table: &str, why: Why) -> Refusal {
    Refusal {
        edit,
        table: table.to_string(),
        key: None,
        field: None,
        why,
        by: None,
    }
}

/// At most this many changed cells are looked up in the history (each is a blame).
const ATTRIBUTED: usize = 20;

/// Name who changed each cell changed since (the commit that last changed it).
fn attributed(repo: &MasterRepo, line: &Branch, mut refusals: Vec<Refusal>) -> Vec<Refusal> {
    for refusal in refusals
        .iter_mut()
        .filter(|r| matches!(r.why, Why::Changed { .. }))
        .take(ATTRIBUTED)
    {
        let Some(key) = &refusal.key else { continue };
        let key: Vec<String> = key.split('|').map(str::to_string).collect();
        let blamed =
            crate::review::blame::blame(repo, line, &refusal.table, &key, refusal.field.as_deref());
        refusal.by = blamed
            .ok()
            .and_then(|b| b.cells.into_iter().next())
            .map(|cell| cell.commit);
    }
    refusals
}

/// The commit's first line when the planner gave none: what changed, counted.
fn subject(changes: &[TableChange]) -> String {
    let tables: Vec<&str> = changes.iter().map(|c| c.table.as_str()).collect();
    let (added, changed, removed) = changes.iter().fold((0, 0, 0), |(a, c, r), t| {
        (a + t.added, c + t.changed, r + t.removed)
    });
    let mut parts = Vec::new();
    for (n, what) in [(changed, "changed"), (added, "added"), (removed, "deleted")] {
        if n > 0 {
            parts.push(format!("{n} row{} {what}", if n == 1 { "" } else { "s" }));
        }
    }
    format!("Edit {}: {}", tables.join(", "), parts.join(", "))
}
