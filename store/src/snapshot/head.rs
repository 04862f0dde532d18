//! A branch's head as the console's pages read it: its commit, the project its
//! structure describes, and each table's identity — the blobs it is read from and the
//! structure that types it — known before the table is read, so that a reader may keep
//! what it made of a table for as long as the identity holds.

use git2::{Oid, Tree};
use masterctl_schemas::table::{Origin, SourceFormat};
use masterctl_schemas::{Project, Table, TableSchema};

use super::structure::{Structure, tree_file_ids};
use super::tables::{language_path, read_table_at, table_path};
use crate::git::repo::blob_at;
use crate::names::Branch;
use crate::{MasterRepo, StoreError};

/// A table's canonical file and its source-language texts, as bytes (none where the
/// head holds none).
pub type Canonical = (Option<Vec<u8>>, Option<Vec<u8>>);

/// A branch's head commit, read for browsing.
pub struct HeadSnapshot<'r> {
    pub commit: Oid,
    pub project: Project,
    tree: Tree<'r>,
    /// The structure files' blob ids, joined.
    structure: String,
    branch: String,
}

/// The head of `line`, its structure loaded (a branch with no commit is an error).
pub fn head_snapshot<'r>(
    repo: &'r MasterRepo,
    line: &Branch,
) -> Result<HeadSnapshot<'r>, StoreError> {
    let head = repo.head_of_branch(line)?;
    let tree = head.tree()?;
    let project = Structure::at(&repo.git, &tree)?.project;
    let structure = tree_file_ids(&repo.git, &tree)?
        .iter()
        .map(|(_, id)| id.to_string())
        .collect::<Vec<_>>()
        .join(",");
    Ok(HeadSnapshot {
        commit: head.id(),
        project,
        tree,
        structure,
        branch: line.branch().to_string(),
    })
}

impl HeadSnapshot<'_> {
    /// The schema of `table`, which the head's structure must declare.
    pub fn schema(&self, table: &str) -> Result<&TableSchema, StoreError> {
        self.project
            .table(table)
            .ok_or_else(|| StoreError::NoTable {
                what: "table",
                table: table.to_string(),
                at: self.branch.clone(),
            })
    }

    /// What `table`'s content at this head is made of: the blobs of its canonical file
    /// and source-language texts, and the structure — equal identities, equal tables.
    pub fn identity(&self, table: &str) -> String {
        let id = |path: &str| {
            self.tree
                .get_path(std::path::Path::new(path))
                .map_or_else(|_| "-".to_string(), |entry| entry.id().to_string())
        };
        let texts = language_path(&self.project.config.source_language, table);
        format!(
            "{table}:{}:{}:{}",
            id(&table_path(table)),
            id(&texts),
            self.structure
        )
    }

    /// The bytes of `table`'s canonical file and of its source-language texts, as the
    /// head holds them (none where it holds none).
    pub fn canonical(&self, repo: &MasterRepo, table: &str) -> Result<Canonical, StoreError> {
        let texts = language_path(&self.project.config.source_language, table);
        Ok((
            blob_at(&repo.git, &self.tree, &table_path(table))?,
            blob_at(&repo.git, &self.tree, &texts)?,
        ))
    }

    /// `schema`'s table at this head, typed (no rows when the head holds none yet).
    pub fn read(&self, repo: &MasterRepo, schema: &TableSchema) -> Result<Table, StoreError> {
        Ok(
            read_table_at(&repo.git, &self.tree, &self.project, schema, &self.branch)?
                .unwrap_or_else(|| empty(schema)),
        )
    }
}

/// A table of `schema` with no rows.
pub(crate) fn empty(schema: &TableSchema) -> Table {
    let path = table_path(&schema.name);
    Table {
        name: schema.name.clone(),
        columns: vec![Vec::new(); schema.fields.len()],
        origin: Origin {
            file: path.into(),
            format: SourceFormat::Csv,
            columns: (0..schema.fields.len())
                .map(|f| u32::try_from(f).ok())
                .collect(),
            rows: Vec::new(),
            vertical: false,
            kept_in: None,
            sheets: None,
        },
    }
}
