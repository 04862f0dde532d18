//! A snapshot: every file of one region commit, as bytes by path, built from typed
//! tables; written as git trees in memory, or compared with a commit's tree without
//! writing anything.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use git2::{ObjectType, Oid, Repository, Tree};
use masterctl_generators::generate;
use masterctl_schemas::canonical::{read_table, table_files};
use masterctl_schemas::read::parallel_map;
use masterctl_schemas::{Project, Table};

use crate::StoreError;
use crate::git::repo::blob_at;
pub use crate::git::repo::tree_blobs;
use crate::snapshot::structure::Structure;

/// `tables/<table>.csv`
pub fn table_path(table: &str) -> String {
    format!("tables/{table}.csv")
}

/// `locales/<lang>/<table>.csv`
pub fn language_path(language: &str, table: &str) -> String {
    format!("locales/{language}/{table}.csv")
}

/// `generated/<name>.csv`
pub fn generated_path(name: &str) -> String {
    format!("generated/{name}.csv")
}

/// Every file of a snapshot, by slash-separated path.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    files: BTreeMap<String, Vec<u8>>,
    /// Files of the versions this snapshot was made from (a merge's three), as making it
    /// read them, by blob id: what looks at them again — the dry run's review, the rows
    /// each file changed kept for blame once it is committed — need not inflate them
    /// from git a second time.
    pub read: std::collections::HashMap<Oid, Vec<u8>>,
    /// Each file's blob id, once asked for (an import asks three times: whether anything
    /// changed, what each workbook gave, and the commit); dropped when a file changes.
    ids: std::sync::OnceLock<BTreeMap<String, Oid>>,
    /// Blob ids known without hashing: files taken as they are from a commit's tree.
    known: HashMap<String, Oid>,
}

/// A table's files taken as a commit holds them (path, blob id, bytes), instead of
/// written anew from the typed table: what an edit keeps of the tables it did not touch.
#[derive(Debug, Clone, Default)]
pub struct Reused {
    pub table: String,
    pub files: Vec<(String, Oid, Vec<u8>)>,
}

impl PartialEq for Snapshot {
    fn eq(&self, other: &Self) -> bool {
        self.files == other.files && self.read == other.read
    }
}

impl Snapshot {
    /// A snapshot of these files.
    pub fn of_files(files: BTreeMap<String, Vec<u8>>) -> Snapshot {
        Snapshot {
            files,
            ..Default::default()
        }
    }

    /// Every file, by path.
    pub fn files(&self) -> &BTreeMap<String, Vec<u8>> {
        &self.files
    }

    /// Put `bytes` at `path` (`None`: remove the file there).
    pub fn set_file(&mut self, path: String, bytes: Option<Vec<u8>>) {
        self.ids.take();
        self.known.remove(&path);
        match bytes {
            Some(bytes) => self.files.insert(path, bytes),
            None => self.files.remove(&path),
        };
    }

    /// The snapshot of `tables` (one per schema table present) under `structure`: the
    /// structure files, canonical tables, source-language tables and generated masters.
    pub fn build(structure: &Structure, tables: &[Table]) -> Result<Snapshot, StoreError> {
        Snapshot::build_reusing(structure, tables, Vec::new())
    }

    /// [`Snapshot::build`], each table of `reused` keeping the files given (the bytes a
    /// commit holds, and their ids: neither written nor hashed again). Only for files
    /// the structure writes alike: the commit's own structure.
    pub fn build_reusing(
        structure: &Structure,
        tables: &[Table],
        reused: Vec<Reused>,
    ) -> Result<Snapshot, StoreError> {
        let project = &structure.project;
        let mut files: BTreeMap<String, Vec<u8>> = structure.files.iter().cloned().collect();
        let mut known = HashMap::new();
        let taken: std::collections::HashSet<String> =
            reused.iter().map(|r| r.table.clone()).collect();
        for table in reused {
            for (path, id, bytes) in table.files {
                known.insert(path.clone(), id);
                files.insert(path, bytes);
            }
        }
        let canonical = parallel_map(tables, |table| {
            let mut out = Vec::new();
            if taken.contains(&table.name) {
                return Ok(out);
            }
            if let Some(schema) = project.table(&table.name) {
                let path = table_path(&table.name);
                let (data, text) = table_files(schema, table).map_err(StoreError::csv(&path))?;
                out.push((path, data));
                if let Some(text) = text {
                    out.push((
                        language_path(&project.config.source_language, &table.name),
                        text,
                    ));
                }
            }
            Ok::<_, StoreError>(out)
        });
        for table in canonical {
            files.extend(table?);
        }
        let by_name: HashMap<&str, &Table> = tables.iter().map(|t| (t.name.as_str(), t)).collect();
        for generated in &project.generated {
            // Kept as a commit holds it (made from tables this snapshot keeps too).
            if known.contains_key(&generated_path(&generated.name)) {
                continue;
            }
            if let Some(table) = generate(project, generated, &by_name) {
                let path = generated_path(&generated.name);
                let bytes = table.to_csv().map_err(StoreError::csv(&path))?;
                files.insert(path, bytes);
            }
        }
        Ok(Snapshot {
            files,
            known,
            ..Default::default()
        })
    }

    /// Blob ids of every file, computed without writing anything.
    pub fn blob_ids(&self) -> Result<BTreeMap<&str, Oid>, StoreError> {
        Ok(self
            .named()?
            .iter()
            .map(|(path, id)| (path.as_str(), *id))
            .collect())
    }

    /// Each file's blob id, hashed on every core the first time.
    fn named(&self) -> Result<&BTreeMap<String, Oid>, StoreError> {
        if let Some(ids) = self.ids.get() {
            return Ok(ids);
        }
        let files: Vec<(&String, &Vec<u8>)> = self.files.iter().collect();
        let ids = parallel_map(&files, |(path, bytes)| match self.known.get(*path) {
            Some(id) => Ok(*id),
            None => Oid::hash_object(ObjectType::Blob, bytes),
        });
        let ids = files
            .into_iter()
            .zip(ids)
            .map(|((path, _), id)| Ok((path.clone(), id?)))
            .collect::<Result<BTreeMap<String, Oid>, StoreError>>()?;
        Ok(self.ids.get_or_init(|| ids))
    }

    /// Whether `tree` holds exactly these files with these contents.
    pub fn matches(&self, git: &Repository, tree: &Tree<'_>) -> Result<bool, StoreError> {
        let ours = self.blob_ids()?;
        let theirs = tree_blobs(git, tree)?;
        Ok(ours.len() == theirs.len()
            && ours.iter().all(|(path, id)| theirs.get(*path) == Some(id)))
    }

    /// Every object a commit of this snapshot needs: the blobs, named on every core, and
    /// the trees, also written into `git`'s object database, where the commit finds its
    /// root tree (an import gives it an in-memory store: see
    /// [`crate::snapshot::commit::write_commit`]). Returns the root tree and the objects.
    pub fn objects(&self, git: &Repository) -> Result<(Oid, Vec<OwnedObject<'_>>), StoreError> {
        let ids = self.named()?;
        let mut entries: Vec<(&str, Oid)> = Vec::with_capacity(ids.len());
        let mut objects = Vec::with_capacity(ids.len() + 16);
        for ((path, bytes), (_, &id)) in self.files.iter().zip(ids) {
            entries.push((path.as_str(), id));
            objects.push(OwnedObject {
                id,
                kind: ObjectType::Blob,
                data: std::borrow::Cow::Borrowed(bytes.as_slice()),
            });
        }
        let odb = git.odb()?;
        let root = write_tree(&odb, &entries, &mut objects)?;
        Ok((root, objects))
    }
}

/// An object of a snapshot: a blob's bytes are the snapshot's, a tree's its own.
pub struct OwnedObject<'a> {
    pub id: Oid,
    pub kind: ObjectType,
    pub data: std::borrow::Cow<'a, [u8]>,
}

impl Snapshot {
    /// Take the translations (every language's files but the source language's) from
    /// `tree`: imports and rebases make the source language's texts; translations come
    /// only from the localization workflow.
    pub fn carry_translations(
        &mut self,
        git: &Repository,
        tree: &Tree<'_>,
        source_language: &str,
    ) -> Result<(), StoreError> {
        let own = format!("locales/{source_language}/");
        self.ids.take();
        for (path, id) in tree_blobs(git, tree)? {
            if path.starts_with("locales/") && !path.starts_with(&own) {
                self.files
                    .insert(path, git.find_blob(id)?.content().to_vec());
            }
        }
        Ok(())
    }
}

/// Every blob of a tree by path.
pub fn read_files(
    git: &Repository,
    tree: &Tree<'_>,
) -> Result<BTreeMap<String, Vec<u8>>, StoreError> {
    tree_blobs(git, tree)?
        .into_iter()
        .map(|(path, id)| Ok((path, git.find_blob(id)?.content().to_vec())))
        .collect()
}

/// Refuse a snapshot tree holding an entry that is neither a file nor a folder (a
/// symbolic link, a submodule): other tools' work, never a table masterctl could read —
/// read as absent, a table there would build as empty and be overwritten by an import.
pub fn only_files(tree: &Tree<'_>, branch: &str) -> Result<(), StoreError> {
    let mut found = None;
    tree.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
        let mode = entry.filemode();
        if mode == i32::from(git2::FileMode::Link) || mode == i32::from(git2::FileMode::Commit) {
            found = Some(format!("{root}{}", entry.name().unwrap_or("?")));
            return git2::TreeWalkResult::Abort;
        }
        git2::TreeWalkResult::Ok
    })
    .or_else(|e| if found.is_some() { Ok(()) } else { Err(e) })?;
    match found {
        None => Ok(()),
        Some(path) => Err(StoreError::BrokenSnapshot {
            branch: branch.to_string(),
            message: format!(
                "{} is a symbolic link or a submodule in the commit, not a file (masterctl writes files only)",
                crate::names::one_line(&path)
            ),
        }),
    }
}

/// The project a snapshot tree holds, if its structure loads ([`Structure::at`]).
pub fn project_at(git: &Repository, tree: &Tree<'_>) -> Option<Project> {
    Structure::at(git, tree).ok().map(|s| s.project)
}

/// Write a tree of `(relative path, blob id)` entries, directories built recursively.
fn write_tree<'a>(
    odb: &git2::Odb<'_>,
    entries: &[(&str, Oid)],
    written: &mut Vec<OwnedObject<'a>>,
) -> Result<Oid, StoreError> {
    let mut here: Vec<(&str, bool, Oid)> = Vec::new();
    let mut directories: BTreeMap<&str, Vec<(&str, Oid)>> = BTreeMap::new();
    for &(path, id) in entries {
        match path.split_once('/') {
            Some((directory, rest)) => directories.entry(directory).or_default().push((rest, id)),
            None => here.push((path, false, id)),
        }
    }
    for (name, children) in directories {
        let id = write_tree(odb, &children, written)?;
        here.push((name, true, id));
    }
    let bytes = tree_bytes(&mut here)?;
    let id = odb.write(ObjectType::Tree, &bytes)?;
    written.push(OwnedObject {
        id,
        kind: ObjectType::Tree,
        data: std::borrow::Cow::Owned(bytes),
    });
    Ok(id)
}

/// A tree object's bytes: each entry `<mode> <name>\0<id>`, in git's order (by name,
/// a subtree's name compared as if it ended in `/`). A name git refuses in a tree
/// (empty, `.`, `..`, `.git`, or holding `/` or NUL) is refused here too.
fn tree_bytes(entries: &mut [(&str, bool, Oid)]) -> Result<Vec<u8>, StoreError> {
    for (name, _, _) in entries.iter() {
        if name.is_empty()
            || *name == "."
            || *name == ".."
            || name.eq_ignore_ascii_case(".git")
            || name.contains(['/', '\0'])
        {
            return Err(git2::Error::from_str(&format!(
                "a tree cannot hold an entry named {name:?}"
            ))
            .into());
        }
    }
    let sort_key = |name: &str, tree: bool| {
        let mut key = name.as_bytes().to_vec();
        if tree {
            key.push(b'/');
        }
        key
    };
    entries.sort_by_cached_key(|(name, tree, _)| sort_key(name, *tree));
    let mut bytes = Vec::with_capacity(entries.len() * 48);
    for (name, tree, id) in entries.iter() {
        bytes.extend_from_slice(if *tree { b"40000 " } else { b"100644 " });
        bytes.extend_from_slice(name.as_bytes());
        bytes.push(0);
        bytes.extend_from_slice(id.as_bytes());
    }
    Ok(bytes)
}

/// The blob `id`, unless git says it is larger than `limit` bytes (`Err(size)`, asked of
/// the object database before anything is inflated).
pub fn blob_within(
    git: &Repository,
    id: Oid,
    limit: u64,
) -> Result<Result<git2::Blob<'_>, StoreError>, u64> {
    if let Ok((size, _)) = git.odb().and_then(|odb| odb.read_header(id))
        && size as u64 > limit
    {
        return Err(size as u64);
    }
    Ok(git.find_blob(id).map_err(StoreError::from))
}

/// One table of a snapshot tree, typed against `schema`; `None` if the tree lacks it.
pub fn read_table_at(
    git: &Repository,
    tree: &Tree<'_>,
    project: &Project,
    schema: &masterctl_schemas::TableSchema,
    branch: &str,
) -> Result<Option<Table>, StoreError> {
    let path = table_path(&schema.name);
    let Some(data) = blob_at(git, tree, &path)? else {
        return Ok(None);
    };
    let language = language_path(&project.config.source_language, &schema.name);
    let text = blob_at(git, tree, &language)?;
    read_table(
        schema,
        &data,
        Path::new(&path),
        text.as_deref().map(|t| (t, Path::new(language.as_str()))),
    )
    .map(Some)
    .map_err(|diagnostics| StoreError::BrokenSnapshot {
        branch: branch.to_string(),
        message: diagnostics
            .first()
            .map_or_else(String::new, ToString::to_string),
    })
}

/// One table's texts in one language as a snapshot tree holds them, with the record of
/// each translation's source (empty when the tree has none).
pub fn texts_at(
    git: &Repository,
    tree: &Tree<'_>,
    schema: &masterctl_schemas::TableSchema,
    language: &str,
    branch: &str,
) -> Result<masterctl_locales::TableTexts, StoreError> {
    let paths = [
        masterctl_locales::language_path(language, &schema.name),
        masterctl_locales::records_path(language, &schema.name),
    ];
    let texts = blob_at(git, tree, &paths[0])?;
    let records = blob_at(git, tree, &paths[1])?;
    masterctl_locales::TableTexts::read(
        schema,
        texts.as_deref().map(|b| (b, paths[0].as_str())),
        records.as_deref().map(|b| (b, paths[1].as_str())),
    )
    .map_err(|e| StoreError::BrokenSnapshot {
        branch: branch.to_string(),
        message: e.to_string(),
    })
}

/// The typed tables of a snapshot tree (tables absent from it are absent here).
pub fn read_tables(
    git: &Repository,
    tree: &Tree<'_>,
    project: &Project,
    branch: &str,
) -> Result<Vec<Table>, StoreError> {
    let mut tables = Vec::new();
    for schema in &project.tables {
        tables.extend(read_table_at(git, tree, project, schema, branch)?);
    }
    Ok(tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_ids_follow_every_change_of_a_file() {
        let id = |bytes: &[u8]| Oid::hash_object(ObjectType::Blob, bytes).unwrap();
        let mut snapshot = Snapshot::of_files(BTreeMap::from([("a".to_string(), b"1".to_vec())]));
        assert_eq!(snapshot.blob_ids().unwrap()["a"], id(b"1"));
        snapshot.set_file("a".into(), Some(b"2".to_vec()));
        snapshot.set_file("b".into(), Some(b"3".to_vec()));
        let ids = snapshot.blob_ids().unwrap();
        assert_eq!((ids["a"], ids["b"]), (id(b"2"), id(b"3")));
        snapshot.set_file("a".into(), None);
        assert_eq!(
            snapshot.blob_ids().unwrap().keys().collect::<Vec<_>>(),
            [&"b"]
        );
    }

    #[test]
    fn trees_are_written_as_libgit2_writes_them() {
        let (_dir, git) = crate::snapshot::scratch_repository();
        let blob = git.blob(b"x").unwrap();
        // Names whose order differs when a subtree is compared as `name/`.
        let paths = [
            "schemas.toml",
            "schemas/item.toml",
            "schemas-old",
            "a/b",
            "a.b",
            "a-b",
            "a0",
            "tables/item.csv",
            "locales/ja/item.csv",
            "locales/en/item.csv",
            "z",
        ];
        let entries: Vec<(&str, Oid)> = paths.iter().map(|p| (*p, blob)).collect();
        let mut written = Vec::new();
        let ours = write_tree(&git.odb().unwrap(), &entries, &mut written).unwrap();
        fn theirs(git: &Repository, entries: &[(&str, Oid)]) -> Oid {
            let mut builder = git.treebuilder(None).unwrap();
            let mut directories: BTreeMap<&str, Vec<(&str, Oid)>> = BTreeMap::new();
            for &(path, id) in entries {
                match path.split_once('/') {
                    Some((dir, rest)) => directories.entry(dir).or_default().push((rest, id)),
                    None => {
                        builder.insert(path, id, 0o100_644).unwrap();
                    }
                }
            }
            for (name, children) in directories {
                builder
                    .insert(name, theirs(git, &children), 0o040_000)
                    .unwrap();
            }
            builder.write().unwrap()
        }
        assert_eq!(ours, theirs(&git, &entries));
        assert_eq!(
            written.len(),
            7,
            "the root, a, schemas, tables, locales, ja, en"
        );
        for name in ["", ".", "..", ".GIT", "a\0b"] {
            let mut entries = vec![(name, false, blob)];
            assert!(tree_bytes(&mut entries).is_err(), "{name:?}");
        }
    }

    #[test]
    fn a_blob_larger_than_asked_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let git = Repository::init(dir.path()).unwrap();
        let id = git.blob(&vec![b'x'; 1024]).unwrap();
        assert_eq!(blob_within(&git, id, 100).err(), Some(1024));
        let blob = blob_within(&git, id, 1024).unwrap().unwrap();
        assert_eq!(blob.content().len(), 1024);
        let said = crate::review::diff::rows::too_large("tables/item.csv", 1024);
        assert!(
            said.contains("tables/item.csv") && said.contains("256 MiB"),
            "{said}"
        );
    }
}
