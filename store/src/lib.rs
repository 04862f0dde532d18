//! The master repository's region branches, through the git plumbing of `masterctl_git`.
//!
//! Every commit of a region branch is a complete snapshot (docs/ARCHITECTURE.md): the structure
//! (`masterctl.toml`, `schemas/`), canonical tables, language tables and generated
//! masters. Trees and commits are built in memory; a branch moves only with an
//! expected old value, so two imports racing on one branch never lose a commit. No
//! checkout is ever needed, and bare repositories work the same way.

pub mod audit;
pub mod branches;
pub mod build;
pub mod cache;
pub mod committed_structure;
mod committing;
pub mod edit;
pub mod export;
pub mod import;
pub mod init;
pub mod join;
mod kind;
pub mod l10n;
pub mod merge;
pub mod proposals;
pub mod remote;
mod repository;
pub mod revert;
pub mod review;
mod row_keys;
pub mod snapshot;
pub mod source;
pub mod status;
pub mod tags;
pub mod vouched;

pub use import::{ImportOutcome, ImportPlan, Planning, TableChange, commit_import, plan_import};
pub use kind::ErrorKind;
/// The git plumbing the store is built on, by the name the workflows use.
pub use masterctl_git as git;
pub use masterctl_git::names;
pub use names::{Branch, Region, WorkBranch, short_id};
pub use repository::MasterRepo;
pub use review::history::{ImportRecord, Stretch, history, history_from};
pub use snapshot::structure::Structure;

use masterctl_schemas::Report;

/// What can go wrong around the data (the data's own mistakes are [`Report`]s).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error(
        "the repository has no masterctl.toml (in its working tree, or in HEAD for a bare repository)"
    )]
    NoStructure,
    /// The working tree's structure is not the committed one an import would copy.
    #[error(
        "the structure in the working tree differs from the one committed on {revision}: {}; an import copies the committed structure, so that every clone imports the same workbooks the same way; nothing was written",
        names::listed(drift, 6, ", ")
    )]
    UncommittedStructure {
        revision: String,
        drift: Vec<committed_structure::Drift>,
    },
    #[error("{0} holds no masterctl.toml")]
    NoCommittedStructure(String),
    #[error("the schema files are not valid")]
    InvalidStructure(Report),
    /// A region's branch that holds no commit to show.
    #[error("{0} has no commits yet: nothing to show")]
    NoCommits(String),
    #[error(
        "`{language}` is not a language of the project (its languages: {})",
        languages.join(", ")
    )]
    NotALanguage {
        language: String,
        languages: Vec<String>,
    },
    /// A language the region's texts are not translated into: the source language, a
    /// pseudo language, or one the region does not have; `targets` are those it has.
    #[error("{}", why.said(language, region))]
    NotTranslated {
        region: String,
        language: String,
        why: Untranslated,
        targets: Vec<String>,
    },
    #[error("`{language}` cannot be a pseudo language: {why}")]
    BadPseudoLanguage { language: String, why: &'static str },
    #[error("work branch {0} exists already")]
    WorkBranchExists(String),
    /// A work branch that holds commits its region has not taken.
    #[error(
        "{branch} holds {ahead} commit{} its region has not taken; nothing was deleted",
        if *ahead == 1 { "" } else { "s" }
    )]
    Unmerged { branch: String, ahead: usize },
    /// A merge proposed for a work branch that holds nothing its region lacks.
    #[error("{0} holds nothing its region lacks: there is nothing to propose")]
    NothingToPropose(String),
    /// A branch with no table to export.
    #[error("{branch} holds no table: there is nothing to export")]
    NothingToExport { branch: String },
    /// An edit of nothing: no cell set, no row added or deleted.
    #[error("no edits to make on {branch}: set a cell, add a row or delete one")]
    NothingToEdit { branch: String },
    #[error(
        "`{0}` is not a version name: ASCII letters, digits, `.`, `-`, `_` and `+`, starting with a letter or digit (`1.4`, `2026-12-event`)"
    )]
    BadVersion(String),
    /// A region whose branch is not under `masters/`, which pull and push do not move.
    #[error(
        "region `{region}`'s branch is {branch}: pull and push move only masters/… and work/… branches (never the structure's), so it stays as it is"
    )]
    NotMasters { region: String, branch: String },
    #[error("tag {0} exists already; a version names one commit for ever")]
    TagExists(String),
    /// A revision outside the branch's history, where only its own commits may go.
    #[error("{revision} is not a commit of {branch}'s history")]
    NotInHistory { revision: String, branch: String },
    /// `what`: "table", or "table or generated master"; `at`: where it was looked for
    /// (a branch, "either side").
    #[error("no {what} `{table}` on {at}")]
    NoTable {
        what: &'static str,
        table: String,
        at: String,
    },
    #[error("`{table}` has no field `{field}`")]
    NoField { table: String, field: String },
    #[error("no row [{}] in `{table}` on {at}", key.join(", "))]
    NoRow {
        table: String,
        key: Vec<String>,
        at: String,
    },
    /// A key given with another number of cells than the table's key has fields.
    #[error("`{table}`'s key has {} fields ({}); {given} given", columns.len(), columns.join(", "))]
    KeyArity {
        table: String,
        columns: Vec<String>,
        given: usize,
    },
    /// A row asked for by key of a list, whose rows have none.
    #[error("`{table}` is a list: its rows have no key to follow through history")]
    ListRow { table: String },
    /// A row of a table without a key asked for to edit.
    #[error(
        "`{table}` has no key: its rows have no address to edit by; edit it in its workbook and import it"
    )]
    NoKeyToEdit { table: String },
    #[error("{0} exists and is not a build (no masterctl manifest.json); it is left alone")]
    NotABuild(String),
    #[error(
        "{0} is a symbolic link: a build folder is replaced whole and a link is never followed; name the folder itself"
    )]
    OutIsLink(String),
    /// A workbook export could not be written.
    #[error("{path}: {message}")]
    Export {
        path: std::path::PathBuf,
        message: String,
    },
    #[error("cannot build: {0}")]
    Build(#[from] masterctl_build::archive::BuildError),
    /// A rebase or merge stopped on a branch, which takes nothing else until it is
    /// continued or aborted. `from`: what it takes from, as its step names it.
    #[error("a {kind} of {branch} is in progress")]
    RebaseInProgress {
        branch: String,
        region: String,
        work: Option<String>,
        kind: String,
        from: String,
    },
    /// A region commit whose structure the structure branch does not vouch for (a plain
    /// git push can put any schema on a branch; one that drops an audience would widen
    /// what clients see): `against` what it was held to, `files` the paths that differ.
    #[error(
        "{branch} holds commit {} whose structure is not main's: {} differ{} from {against}; masterctl takes a region's structure only from main, and refuses this commit (nothing was written)",
        short_id(commit),
        names::listed(files, 8, ", "),
        if files.len() == 1 { "s" } else { "" }
    )]
    UnvouchedStructure {
        branch: String,
        commit: String,
        against: String,
        files: Vec<String>,
    },
    /// A region commit made by an import with a structure commit main does not hold
    /// here: main is behind the clone that imported it (or the commit is not main's).
    #[error(
        "{branch} holds commit {} imported with the structure of commit {}, which main here does not hold: main is behind, or that commit is not main's; masterctl takes a region's structure only from main, and nothing was written",
        short_id(commit),
        short_id(structure)
    )]
    StructureNotOnMain {
        branch: String,
        commit: String,
        structure: String,
    },
    #[error("the snapshot on {branch} cannot be read: {message}")]
    BrokenSnapshot { branch: String, message: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A file masterctl keeps for itself (a rebase's state or conflict file) that is not
    /// one it wrote, or is gone.
    #[error("{}: {message}", path.display())]
    StateFile {
        path: std::path::PathBuf,
        message: String,
    },
    /// The conflict file holds what cannot be taken (a broken header or record, a
    /// resolution that is not one, two resolutions of one cell).
    #[error("{path}: {message}")]
    ConflictFile { path: String, message: String },
    /// A CSV file that could not be written whole (a record of another length than the
    /// header's): a bug, reported instead of writing a file that misses rows.
    #[error("cannot write {what}: {source}; nothing was written (this is a bug in masterctl)")]
    Csv {
        what: String,
        #[source]
        source: csv::Error,
    },
    /// The git plumbing's failure: a repository, name, branch or reference that is not
    /// what it must be, another writer, a file in a git folder, or git itself.
    #[error(transparent)]
    Git(#[from] masterctl_git::Error),
}

impl From<git2::Error> for StoreError {
    fn from(error: git2::Error) -> StoreError {
        StoreError::Git(error.into())
    }
}

impl StoreError {
    /// An I/O failure on `path`, for `map_err`.
    pub fn io(path: impl Into<std::path::PathBuf>) -> impl FnOnce(std::io::Error) -> StoreError {
        let path = path.into();
        move |source| StoreError::Io { path, source }
    }

    /// A CSV writing failure of the file at `what`.
    pub fn csv(what: impl Into<String>) -> impl FnOnce(csv::Error) -> StoreError {
        let what = what.into();
        move |source| StoreError::Csv { what, source }
    }
}

/// Why a language is not one a region's texts are translated into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untranslated {
    /// The source language: its texts come from imports.
    Source,
    /// A pseudo language: made from the source texts at every build.
    Pseudo,
    /// A language the region does not translate into.
    NotTheRegions,
}

impl Untranslated {
    fn said(&self, language: &str, region: &str) -> String {
        match self {
            Untranslated::Source => format!(
                "`{language}` is the source language: its texts come from imports, not translators"
            ),
            Untranslated::Pseudo => format!(
                "`{language}` is a pseudo language: made from the source texts at every build, never translated"
            ),
            Untranslated::NotTheRegions => {
                format!("region `{region}` does not translate into `{language}`")
            }
        }
    }
}
