//! Blame: for each cell of one row, the commit of the region that last changed it, and
//! the value before. The region's first-parent history is walked from its head; commits
//! whose files of the table kept their blob ids are passed over unread, and each version
//! of a file is read once. A cell a rebase brought in as upstream had it is followed
//! into upstream's history, to the import there that made it (and on up, for an
//! upstream that follows another region).

use std::collections::HashMap;

use git2::{Oid, Repository};
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::git::packed::PackedBlobs;
use crate::names::Branch;
use crate::review::diff::key_names;
use crate::review::history::{ImportRecord, record};
use crate::review::row_changes::{
    Keeper, changed_region_keys, inside_quotes, kept_path, plain_header, table_files,
};
use crate::snapshot::{language_path, project_at, tree_blobs};

/// Who last changed each cell of a row.
#[derive(Debug, Clone, Serialize)]
pub struct Blame {
    pub region: String,
    /// The branch blamed (the region's, or a work branch).
    pub branch: String,
    pub table: String,
    pub key: Vec<String>,
    /// The row's readable name (its first text in the source language).
    pub row: Option<String>,
    pub cells: Vec<CellBlame>,
}

/// One cell: its value now, the commit that gave it, and the value before.
#[derive(Debug, Clone, Serialize)]
pub struct CellBlame {
    pub field: String,
    /// For a text: its language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    pub value: String,
    /// The value before that commit (`None`: the row, or this text, came with it).
    pub previous: Option<String>,
    pub commit: ImportRecord,
    /// When the cell came through a rebase unchanged: the rebase commit of this region
    /// it arrived with (`commit` is then the upstream import that made it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub via: Option<ImportRecord>,
}

/// One file of the table: its path, its language (for texts), and the columns of the
/// row blamed in it.
struct Watched {
    path: String,
    language: Option<String>,
    /// (column name, value at the commit being looked at; `None`: not there).
    cells: Vec<(String, Option<String>)>,
    /// Which of `cells` are attributed already.
    done: Vec<bool>,
}

/// The branch's head, its project and the key's columns of `table` (`key` and `field`
/// checked against its schema).
fn asked<'r>(
    repo: &'r MasterRepo,
    region: &Branch,
    table: &str,
    key: &[String],
    field: Option<&str>,
) -> Result<(git2::Commit<'r>, masterctl_schemas::Project, Vec<String>), StoreError> {
    let branch = region.branch();
    let head = repo.head_of_branch(region)?;
    let project =
        project_at(&repo.git, &head.tree()?).ok_or_else(|| StoreError::BrokenSnapshot {
            branch: branch.to_string(),
            message: "its masterctl.toml or schemas do not load".into(),
        })?;
    let schema = project.table(table).ok_or_else(|| StoreError::NoTable {
        what: "table",
        table: table.to_string(),
        at: branch.to_string(),
    })?;
    let key_columns = check_asked(schema, key, field)?;
    Ok((head, project, key_columns))
}

impl<'a> RowReader<'a> {
    /// A reader of the row whose `columns` hold `key` in the versions of `repo`'s files.
    fn of(
        repo: &'a MasterRepo,
        branch: &'a str,
        columns: &'a [String],
        key: &'a [String],
    ) -> RowReader<'a> {
        let git = &repo.git;
        RowReader {
            blobs: PackedBlobs::open(git),
            key: columns,
            cells: key,
            branch,
            read: HashMap::new(),
            changes: Some(Keeper::new(
                git.path().join("masterctl").join("row-changes"),
            )),
            last: None,
        }
    }
}

/// Blame the row of `table` whose key cells are `key` on `region`'s branch (only the
/// cells of `field`, when given).
pub fn blame(
    repo: &MasterRepo,
    region: &Branch,
    table: &str,
    key: &[String],
    field: Option<&str>,
) -> Result<Blame, StoreError> {
    let git = &repo.git;
    let (head, project, key_columns) = asked(repo, region, table, key, field)?;
    let Some(schema) = project.table(table) else {
        return Err(StoreError::NoTable {
            what: "table",
            table: table.to_string(),
            at: region.branch().to_string(),
        });
    };
    let mut reader = RowReader::of(repo, region.branch(), &key_columns, key);
    let blobs = tree_blobs(git, &head.tree()?)?;
    let mut files = watched(&project, schema, &blobs, &mut reader, field)?;
    let source = &project.config.source_language;
    let row = label(&blobs, &mut reader, schema, source, table)?;
    // The values at the head (the walk rewinds them commit by commit).
    let heads: Vec<Vec<String>> = files
        .iter()
        .map(|f| {
            f.cells
                .iter()
                .map(|(_, v)| v.clone().unwrap_or_default())
                .collect()
        })
        .collect();
    let mut found = walk(git, head, &blobs, &mut files, &mut reader)?;
    follow_upstream(git, &mut found, &files, &mut reader)?;
    // In file order (the table's own columns, then each language), then column order.
    found.sort_by_key(|a| (a.file, a.cell));
    let mut records: HashMap<Oid, ImportRecord> = HashMap::new();
    let mut cells = Vec::new();
    for Attributed {
        file,
        cell,
        previous,
        commit,
        via,
        ..
    } in found
    {
        for id in std::iter::once(commit).chain(via) {
            if let std::collections::hash_map::Entry::Vacant(entry) = records.entry(id) {
                entry.insert(record(&git.find_commit(id)?));
            }
        }
        cells.push(CellBlame {
            field: files[file].cells[cell].0.clone(),
            language: files[file].language.clone(),
            value: heads[file][cell].clone(),
            previous,
            commit: records[&commit].clone(),
            via: via.map(|id| records[&id].clone()),
        });
    }
    Ok(Blame {
        region: region.name().to_string(),
        branch: region.branch().to_string(),
        table: table.to_string(),
        key: key.to_vec(),
        row,
        cells,
    })
}

/// The blob ids of `files` in `commit`'s tree (none before the first commit).
fn ids_in(
    git: &Repository,
    commit: Option<&git2::Commit<'_>>,
    files: &[Watched],
) -> Result<Vec<Option<Oid>>, StoreError> {
    Ok(match commit {
        Some(commit) => {
            let blobs = tree_blobs(git, &commit.tree()?)?;
            files.iter().map(|f| blobs.get(&f.path).copied()).collect()
        }
        None => vec![None; files.len()],
    })
}

/// One commit of a row's history: the commit, and what it changed of the row's cells.
#[derive(Debug, Clone, Serialize)]
pub struct RowVersion {
    pub commit: ImportRecord,
    pub changes: Vec<CellChange>,
}

/// A cell a commit changed: its value before and after (`None`: the row, or this
/// text, was not there).
#[derive(Debug, Clone, Serialize)]
pub struct CellChange {
    pub before: Option<String>,
    pub after: Option<String>,
    pub field: String,
    /// For a text: its language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// Commits looked through at most for a row's history.
const SCANNED: usize = 5000;

/// The commits of `region`'s branch (its first-parent line) that changed the row of
/// `table` whose key cells are `key`, newest first, at most `limit`.
pub fn row_history(
    repo: &MasterRepo,
    region: &Branch,
    table: &str,
    key: &[String],
    limit: usize,
) -> Result<Vec<RowVersion>, StoreError> {
    let git = &repo.git;
    let (head, project, key_columns) = asked(repo, region, table, key, None)?;
    let Some(schema) = project.table(table) else {
        return Ok(Vec::new());
    };
    let mut reader = RowReader::of(repo, region.branch(), &key_columns, key);
    let blobs = tree_blobs(git, &head.tree()?)?;
    let mut files = watched(&project, schema, &blobs, &mut reader, None)?;
    let mut versions = Vec::new();
    let mut current = head;
    let mut ids: Vec<Option<Oid>> = files.iter().map(|f| blobs.get(&f.path).copied()).collect();
    for _ in 0..SCANNED {
        let parent = current.parent(0).ok();
        let parent_ids = ids_in(git, parent.as_ref(), &files[..])?;
        let mut changes = Vec::new();
        for (index, file) in files.iter_mut().enumerate() {
            if ids[index] != parent_ids[index] {
                changes.extend(rewound(&mut reader, file, parent_ids[index], ids[index])?);
            }
        }
        if !changes.is_empty() {
            versions.push(RowVersion {
                commit: record(&current),
                changes,
            });
        }
        ids = parent_ids;
        match parent {
            Some(parent) if versions.len() < limit => current = parent,
            _ => break,
        }
    }
    Ok(versions)
}

/// The row's cells of `file` the change from `before` to `after` (blob ids) made, each
/// with its value before; the file's cells rewound to `before`.
fn rewound(
    reader: &mut RowReader<'_>,
    file: &mut Watched,
    before: Option<Oid>,
    after: Option<Oid>,
) -> Result<Vec<CellChange>, StoreError> {
    if reader.untouched(before, after, &file.path)? {
        return Ok(Vec::new());
    }
    let was = reader.cells_at(before, &file.path)?;
    let mut changes = Vec::new();
    for (column, value) in file.cells.iter_mut() {
        let previous = was.get(column.as_str()).cloned();
        if previous != *value {
            changes.push(CellChange {
                field: column.clone(),
                language: file.language.clone(),
                before: previous.clone(),
                after: value.clone(),
            });
        }
        *value = previous;
    }
    Ok(changes)
}

/// The key's fields, once `key` has as many cells and `field` is one of the table's.
fn check_asked(
    schema: &masterctl_schemas::TableSchema,
    key: &[String],
    field: Option<&str>,
) -> Result<Vec<String>, StoreError> {
    let table = &schema.name;
    if schema.kind == masterctl_schemas::schema::TableKind::List {
        return Err(StoreError::ListRow {
            table: table.clone(),
        });
    }
    let key_columns = key_names(schema);
    if key.len() != key_columns.len() {
        return Err(StoreError::KeyArity {
            table: table.clone(),
            columns: key_columns,
            given: key.len(),
        });
    }
    if let Some(field) = field
        && schema.field_index(field).is_none()
    {
        return Err(StoreError::NoField {
            table: table.clone(),
            field: field.to_string(),
        });
    }
    Ok(key_columns)
}

/// The table's files at the head (its own, then each language's) with the row's cells
/// in each (those of `field` only, when given). The table's own file must hold the row.
fn watched(
    project: &masterctl_schemas::Project,
    schema: &masterctl_schemas::TableSchema,
    blobs: &HashMap<String, Oid>,
    reader: &mut RowReader<'_>,
    field: Option<&str>,
) -> Result<Vec<Watched>, StoreError> {
    let table = &schema.name;
    let mut files = Vec::new();
    for (path, language) in table_files(project, table) {
        let Some(&id) = blobs.get(&path) else {
            continue;
        };
        let Some(row) = reader.row(id, &path)? else {
            if language.is_none() {
                return Err(StoreError::NoRow {
                    table: table.clone(),
                    key: reader.cells.to_vec(),
                    at: reader.branch.to_string(),
                });
            }
            continue;
        };
        let cells: Vec<(String, Option<String>)> = row
            .into_iter()
            .filter(|(column, _)| !reader.key.contains(column))
            .filter(|(column, _)| field.is_none_or(|f| f == column))
            .map(|(column, value)| (column, Some(value)))
            .collect();
        let done = vec![false; cells.len()];
        files.push(Watched {
            path,
            language,
            cells,
            done,
        });
    }
    Ok(files)
}

/// A cell attributed: which (file, cell of it), its value before and after, the
/// commit, and the region's rebase commit it came through (when followed upstream).
struct Attributed {
    file: usize,
    cell: usize,
    previous: Option<String>,
    value: Option<String>,
    commit: Oid,
    via: Option<Oid>,
}

/// Cells attributed to a rebase commit whose value is the one its upstream parent held:
/// attributed instead to the commit of upstream's history that made that value (one
/// walk per rebase commit, for all its cells), again while that is a rebase itself.
fn follow_upstream(
    git: &Repository,
    found: &mut [Attributed],
    files: &[Watched],
    reader: &mut RowReader<'_>,
) -> Result<(), StoreError> {
    // At most as many rounds as regions chained; a bound all the same.
    for _ in 0..16 {
        let mut groups: std::collections::BTreeMap<Oid, Vec<usize>> = Default::default();
        for (index, attributed) in found.iter().enumerate() {
            groups.entry(attributed.commit).or_default().push(index);
        }
        let mut followed = false;
        for (commit, indexes) in groups {
            let Some(upstream) = crate::snapshot::commit::taken_parent(&git.find_commit(commit)?)
            else {
                continue;
            };
            let upstream = git.find_commit(upstream)?;
            let blobs = tree_blobs(git, &upstream.tree()?)?;
            // The cells upstream held with the same value, as files to walk.
            let mut watched: Vec<Watched> = Vec::new();
            // Each cell followed: its index in `found`, and its (watched file, cell).
            let mut taken: Vec<(usize, (usize, usize))> = Vec::new();
            for index in indexes {
                let attributed = &found[index];
                let file = &files[attributed.file];
                let column = &file.cells[attributed.cell].0;
                let Some(&id) = blobs.get(&file.path) else {
                    continue;
                };
                let held = reader
                    .row(id, &file.path)?
                    .and_then(|row| row.into_iter().find(|(c, _)| c == column))
                    .map(|(_, value)| value);
                if held.is_none() || held != attributed.value {
                    continue;
                }
                let at = match watched.iter().position(|w| w.path == file.path) {
                    Some(at) => at,
                    None => {
                        watched.push(Watched {
                            path: file.path.clone(),
                            language: file.language.clone(),
                            cells: Vec::new(),
                            done: Vec::new(),
                        });
                        watched.len() - 1
                    }
                };
                watched[at].cells.push((column.clone(), held));
                watched[at].done.push(false);
                taken.push((index, (at, watched[at].cells.len() - 1)));
            }
            if taken.is_empty() {
                continue;
            }
            let hits = walk(git, upstream, &blobs, &mut watched, reader)?;
            for (index, place) in taken {
                if let Some(hit) = hits.iter().find(|h| (h.file, h.cell) == place) {
                    let attributed = &mut found[index];
                    attributed.via = attributed.via.or(Some(attributed.commit));
                    attributed.commit = hit.commit;
                    attributed.previous = hit.previous.clone();
                    attributed.value = hit.value.clone();
                    followed = true;
                }
            }
        }
        if !followed {
            break;
        }
    }
    Ok(())
}

/// Walk the first parents from `head` until every cell is attributed. A file whose blob
/// id did not change is not read.
fn walk(
    git: &Repository,
    head: git2::Commit<'_>,
    blobs: &HashMap<String, Oid>,
    files: &mut [Watched],
    reader: &mut RowReader<'_>,
) -> Result<Vec<Attributed>, StoreError> {
    let mut found = Vec::new();
    let mut current = head;
    let mut ids: Vec<Option<Oid>> = files.iter().map(|f| blobs.get(&f.path).copied()).collect();
    loop {
        let parent = current.parent(0).ok();
        let parent_ids = ids_in(git, parent.as_ref(), &files[..])?;
        for (index, file) in files.iter_mut().enumerate() {
            if ids[index] == parent_ids[index] || file.done.iter().all(|d| *d) {
                continue;
            }
            // The rows this version changed, known (or worked out once, then kept):
            // when the blamed row is not among them, neither version is read.
            if reader.untouched(parent_ids[index], ids[index], &file.path)? {
                continue;
            }
            let before = reader.cells_at(parent_ids[index], &file.path)?;
            for (cell, (column, value)) in file.cells.iter_mut().enumerate() {
                if file.done[cell] {
                    continue;
                }
                let previous = before.get(column.as_str()).cloned();
                if previous != *value {
                    file.done[cell] = true;
                    found.push(Attributed {
                        file: index,
                        cell,
                        previous: previous.clone(),
                        value: value.clone(),
                        commit: current.id(),
                        via: None,
                    });
                }
                *value = previous;
            }
        }
        ids = parent_ids;
        match parent {
            Some(parent) if files.iter().any(|f| f.done.iter().any(|d| !d)) => current = parent,
            _ => return Ok(found),
        }
    }
}

/// The row's first text in the source language at the head.
fn label(
    blobs: &HashMap<String, Oid>,
    reader: &mut RowReader<'_>,
    schema: &masterctl_schemas::TableSchema,
    source: &str,
    table: &str,
) -> Result<Option<String>, StoreError> {
    let Some(text) = crate::review::diff::readable_field(schema) else {
        return Ok(None);
    };
    let path = language_path(source, table);
    let Some(&id) = blobs.get(&path) else {
        return Ok(None);
    };
    Ok(reader
        .row(id, &path)?
        .and_then(|row| row.into_iter().find(|(column, _)| *column == text))
        .map(|(_, value)| value)
        .filter(|v| !v.is_empty()))
}

/// Reads the blamed row out of each version of a file, each version once.
struct RowReader<'a> {
    /// The versions, read from the packs with their delta bases kept.
    blobs: PackedBlobs<'a>,
    key: &'a [String],
    cells: &'a [String],
    branch: &'a str,
    read: HashMap<Oid, Option<Vec<(String, String)>>>,
    /// Where the keys each pair of versions changed are kept (`None`: not kept).
    changes: Option<Keeper>,
    /// The last version read whole: the walk's next pair starts with it.
    last: Option<(Oid, std::rc::Rc<Vec<u8>>)>,
}

impl RowReader<'_> {
    /// Whether the blamed row is the same in both versions of a table's file: both
    /// there, and the row not among the keys they changed ([`RowReader::changed_keys`]).
    fn untouched(
        &mut self,
        before: Option<Oid>,
        after: Option<Oid>,
        path: &str,
    ) -> Result<bool, StoreError> {
        let (Some(before), Some(after)) = (before, after) else {
            return Ok(false);
        };
        Ok(!self.changed_keys(before, after, path)?.contains(self.cells))
    }

    /// The blamed row's cells in version `id` of a table's file, by column (none: no
    /// such version, or the row is not in it).
    fn cells_at(
        &mut self,
        id: Option<Oid>,
        path: &str,
    ) -> Result<HashMap<String, String>, StoreError> {
        Ok(match id {
            Some(id) => self
                .row(id, path)?
                .unwrap_or_default()
                .into_iter()
                .collect(),
            None => HashMap::new(),
        })
    }

    /// The keys of the rows that differ between two versions of a table's file (added,
    /// removed or changed), each as its cells. Kept under `.git/masterctl/row-changes/`
    /// by the pair of blob ids and the key's fields (content-addressed: never stale), so
    /// that blaming a row of the same history again reads no version it need not.
    fn changed_keys(
        &mut self,
        before: Oid,
        after: Oid,
        path: &str,
    ) -> Result<std::collections::HashSet<Vec<String>>, StoreError> {
        let kept = self
            .changes
            .as_ref()
            .map(|keeper| kept_path(&keeper.dir, before, after, self.key));
        if let Some(kept) = &kept
            && let Ok(Some(bytes)) = masterctl_runtime::files::read_regular(kept, 64 << 20)
            && let Ok(keys) = serde_json::from_slice::<Vec<Vec<String>>>(&bytes)
        {
            return Ok(keys.into_iter().collect());
        }
        let new_bytes = match self.last.take() {
            Some((id, bytes)) if id == after => bytes,
            _ => self.version(after, path)?,
        };
        let old_bytes = self.version(before, path)?;
        let keys = match changed_region_keys(&old_bytes, &new_bytes, self.key) {
            Some(keys) => keys,
            None => self.changed_rows_keys(&old_bytes, &new_bytes, path)?,
        };
        self.last = Some((before, old_bytes));
        if let (Some(kept), Some(keeper)) = (kept, self.changes.as_mut()) {
            keeper.keep(kept, keys.clone());
        }
        Ok(keys.into_iter().collect())
    }

    /// [`RowReader::changed_keys`] the long way: both versions read whole and compared
    /// row by row.
    fn changed_rows_keys(
        &self,
        old_bytes: &[u8],
        new_bytes: &[u8],
        path: &str,
    ) -> Result<Vec<Vec<String>>, StoreError> {
        use crate::review::diff::rows::{RowEvent, Rows, diff_rows};
        let broken = |message: String| StoreError::BrokenSnapshot {
            branch: self.branch.to_string(),
            message,
        };
        let old = Rows::read(old_bytes, path).map_err(broken)?;
        let new = Rows::read(new_bytes, path).map_err(broken)?;
        let (Some(old_key), Some(new_key)) = (old.columns(self.key), new.columns(self.key)) else {
            // Not keyed as the table is now: this version is looked at.
            return Ok(vec![self.cells.to_vec()]);
        };
        Ok(diff_rows(&old, &new, &old_key, &new_key)
            .into_iter()
            .map(|event| match event {
                RowEvent::Added(n) | RowEvent::Changed(_, n, _) => new.key_cells(n, &new_key),
                RowEvent::Removed(o) => old.key_cells(o, &old_key),
            })
            .collect())
    }

    /// The row found by its line, where the file's first columns are the key and the
    /// key's cells need no quoting (a canonical file of an ordinary key): the line that
    /// starts with them, outside any quoted cell. `None`: this way does not apply (the
    /// whole file is read as CSV instead); `Some(None)`: the file lacks the row.
    #[allow(clippy::type_complexity)]
    fn row_by_line(&self, bytes: &[u8]) -> Option<Result<Option<Vec<(String, String)>>, String>> {
        let (header_end, header) = plain_header(bytes)?;
        let plain = |t: &str| !t.is_empty() && !t.contains([',', '"', '\n', '\r']);
        if header.iter().any(|h| !plain(h))
            || self.key.len() > header.len()
            || header.iter().zip(self.key).any(|(h, k)| h != k)
            || !self.cells.iter().all(|c| plain(c))
        {
            return None;
        }
        let prefix = format!("{},", self.cells.join(","));
        let prefix = prefix.as_bytes();
        let mut at = header_end + 1;
        while at < bytes.len() {
            let end = bytes[at..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |p| at + p);
            let line = &bytes[at..end];
            let whole = self.key.len() == header.len() && line == &prefix[..prefix.len() - 1];
            if line.starts_with(prefix) || whole {
                if inside_quotes(&bytes[..at]) {
                    return None;
                }
                let mut reader = csv::ReaderBuilder::new()
                    .has_headers(false)
                    .from_reader(&bytes[at..]);
                let record = match reader.records().next()? {
                    Ok(record) => record,
                    Err(e) => return Some(Err(e.to_string())),
                };
                if record.len() != header.len() {
                    return Some(Err(format!(
                        "the row [{}] has {} fields; the header has {}",
                        self.cells.join(", "),
                        record.len(),
                        header.len()
                    )));
                }
                return Some(Ok(Some(
                    header
                        .into_iter()
                        .map(str::to_string)
                        .zip(record.iter().map(str::to_string))
                        .collect(),
                )));
            }
            at = end + 1;
        }
        Some(Ok(None))
    }

    /// The version `id` of the file at `path`, refused over the size a diff reads.
    fn version(&mut self, id: Oid, path: &str) -> Result<std::rc::Rc<Vec<u8>>, StoreError> {
        let limit = crate::review::diff::rows::LIMIT;
        self.blobs
            .blob_within(id, limit)
            .map_err(|size| StoreError::BrokenSnapshot {
                branch: self.branch.to_string(),
                message: crate::review::diff::rows::too_large(path, size),
            })?
            .map_err(StoreError::from)
    }

    /// The row's (column, value) pairs in the blob `id`, or `None` when it lacks the row.
    fn row(&mut self, id: Oid, path: &str) -> Result<Option<Vec<(String, String)>>, StoreError> {
        if let Some(row) = self.read.get(&id) {
            return Ok(row.clone());
        }
        let broken = |message: String| StoreError::BrokenSnapshot {
            branch: self.branch.to_string(),
            message,
        };
        // The version the walk read last is lent back afterwards, not copied.
        let bytes = match self.last.take() {
            Some((last, bytes)) if last == id => bytes,
            last => {
                self.last = last;
                self.version(id, path)?
            }
        };
        let found = self.row_in(&bytes, path).map_err(broken);
        if self.last.is_none() {
            self.last = Some((id, bytes));
        }
        let found = found?;
        self.read.insert(id, found.clone());
        Ok(found)
    }

    /// The row's (column, value) pairs in `bytes`, a version of the file at `path`.
    #[allow(clippy::type_complexity)]
    fn row_in(&self, bytes: &[u8], path: &str) -> Result<Option<Vec<(String, String)>>, String> {
        if let Some(found) = self.row_by_line(bytes) {
            return found.map_err(|m| format!("{path}: {m}"));
        }
        let rows = crate::review::diff::rows::Rows::read(bytes, path)?;
        let found = rows.columns(self.key).and_then(|columns| {
            (0..rows.len())
                .find(|&r| {
                    columns
                        .iter()
                        .zip(self.cells)
                        .all(|(&c, want)| rows.field(r, c) == want.as_bytes())
                })
                .map(|r| {
                    let cells = (0..rows.header.len()).map(|c| rows.cell(r, c));
                    rows.header.iter().cloned().zip(cells).collect()
                })
        });
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_is_found_by_its_line_unless_the_line_is_inside_a_quoted_cell() {
        let (_dir, git) = crate::snapshot::scratch_repository();
        let key = vec!["id".to_string()];
        let reader = |cells: &'static [String]| RowReader {
            blobs: PackedBlobs::open(&git),
            key: &key,
            cells,
            branch: "masters/jp",
            read: HashMap::new(),
            changes: None,
            last: None,
        };
        let two: &'static [String] = Box::leak(vec!["2".to_string()].into_boxed_slice());
        let file = b"id,note\n1,plain\n2,\"a, b\"\n3,x\n";
        assert_eq!(
            reader(two).row_by_line(file),
            Some(Ok(Some(vec![
                ("id".to_string(), "2".to_string()),
                ("note".to_string(), "a, b".to_string())
            ])))
        );
        let nine: &'static [String] = Box::leak(vec!["9".to_string()].into_boxed_slice());
        assert_eq!(reader(nine).row_by_line(file), Some(Ok(None)));
        // A row with a field too many (edited by hand): said so.
        assert!(matches!(
            reader(two).row_by_line(b"id,note\n2,a,b\n"),
            Some(Err(_))
        ));
        // "2,..." starts a line inside the quoted cell of row 1: not this way.
        let tricky = b"id,note\n1,\"first\n2,inside\"\n2,real\n";
        assert_eq!(reader(two).row_by_line(tricky), None);
        // A key that is not the first column: not this way either.
        let other = vec!["note".to_string()];
        let by_note = RowReader {
            blobs: PackedBlobs::open(&git),
            key: &other,
            cells: two,
            branch: "masters/jp",
            read: HashMap::new(),
            changes: None,
            last: None,
        };
        assert_eq!(by_note.row_by_line(file), None);
    }
}
