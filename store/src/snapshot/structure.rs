//! The structure — `masterctl.toml`, `schemas/` and `fonts/` — read from a working
//! tree or a commit, and the project it describes.

use std::path::{Path, PathBuf};

use git2::{ObjectType, Oid, Repository, Tree};
use masterctl_git::repo::tree_blobs;
use masterctl_schemas::Project;
use masterctl_schemas::load::{self, CONFIG_FILE, FONTS_DIR, SCHEMAS_DIR};

use super::recent::Recent;
use crate::{MasterRepo, StoreError};

/// Structure files by snapshot path (`masterctl.toml`, `schemas/item.toml`) and bytes.
pub type StructureFiles = Vec<(String, Vec<u8>)>;

/// The structure an import copies into its snapshot: the parsed project and the bytes
/// of `masterctl.toml` and every `schemas/*.toml`, by path in the snapshot.
pub struct Structure {
    pub project: Project,
    pub files: StructureFiles,
    /// The commit it was read from, when it is a committed structure (an import's).
    pub origin: Option<git2::Oid>,
}

impl MasterRepo {
    /// The structure: from the working tree, or from HEAD's tree in a bare repository.
    /// (What an import copies is a committed one: [`crate::committed`].)
    pub fn structure(&self) -> Result<Structure, StoreError> {
        let files = match self.workdir() {
            Some(root) => working_files(&root)?.ok_or(StoreError::NoStructure)?,
            None => {
                // A bare repository whose HEAD has no commit holds no structure.
                let head = self
                    .git
                    .head()
                    .map_err(|_| StoreError::NoStructure)?
                    .peel_to_tree()?;
                let files = tree_files(&self.git, &head)?;
                if !files.iter().any(|(path, _)| path == CONFIG_FILE) {
                    return Err(StoreError::NoStructure);
                }
                files
            }
        };
        let project = project_from_files(&files).map_err(StoreError::InvalidStructure)?;
        Ok(Structure {
            project,
            files,
            origin: None,
        })
    }
}

/// Projects parsed, by the BLAKE3 of the files they were parsed from.
static PARSED: Recent<[u8; 32], Project> = Recent::new();
/// Commits' structure files read, by their paths and blob ids (their project is then
/// [`PARSED`]'s).
static COMMITTED: Recent<Vec<(String, Oid)>, StructureFiles> = Recent::new();

impl Structure {
    /// The structure a commit's tree holds (its blobs read once in this process: a tree
    /// with the same structure files again is known by their ids, and its project by
    /// their bytes).
    pub fn at(git: &Repository, tree: &Tree<'_>) -> Result<Structure, StoreError> {
        let mut ids: Vec<(String, Oid)> = tree_blobs(git, tree)?
            .into_iter()
            .filter(|(path, _)| is_structure_path(path))
            .collect();
        ids.sort();
        let files = match COMMITTED.get(&ids) {
            Some(files) => files,
            None => {
                let files: StructureFiles = (ids.iter())
                    .map(|(path, id)| Ok((path.clone(), git.find_blob(*id)?.content().to_vec())))
                    .collect::<Result<_, StoreError>>()?;
                COMMITTED.keep(ids, files.clone());
                files
            }
        };
        let project = project_from_files(&files).map_err(StoreError::InvalidStructure)?;
        Ok(Structure {
            project,
            files,
            origin: None,
        })
    }

    /// The schema hash a build of this structure carries (its manifest's `schema_hash`):
    /// BLAKE3 of every structure file, by path. Generated code checks it at open.
    pub fn schema_hash(&self) -> String {
        schema_hash(&self.files)
    }

    /// The schema hash of what `audience` sees: the structure's own when it sees the
    /// whole project (a project without audiences builds as it always did), else that
    /// hash bound to the audience — what its build and the code generated for it share.
    pub fn schema_hash_for(&self, audience: masterctl_schemas::audience::Audience) -> String {
        let whole = self.schema_hash();
        if self.project.seen_whole_by(audience) {
            return whole;
        }
        let mut hasher = blake3::Hasher::new();
        hasher.update(whole.as_bytes());
        hasher.update(&[0]);
        hasher.update(audience.name().as_bytes());
        hasher.finalize().to_hex().to_string()
    }
}

/// BLAKE3 of structure files (`masterctl.toml`, `schemas/*`), in path order whatever
/// order they come in: each path and its bytes, each followed by a zero byte. Fonts
/// are left out: a build reads the same whatever its texts are drawn with.
pub fn schema_hash(files: &[(String, Vec<u8>)]) -> String {
    let mut sorted: Vec<&(String, Vec<u8>)> = files
        .iter()
        .filter(|(path, _)| !is_font_path(path))
        .collect();
    sorted.sort_by(|a, b| a.0.cmp(&b.0));
    let mut hasher = blake3::Hasher::new();
    for (path, bytes) in sorted {
        hasher.update(path.as_bytes());
        hasher.update(&[0]);
        hasher.update(bytes);
        hasher.update(&[0]);
    }
    hasher.finalize().to_hex().to_string()
}

/// Whether a snapshot path is part of the structure (`masterctl.toml`, `schemas/*`,
/// the font files of `fonts/`).
pub fn is_structure_path(path: &str) -> bool {
    path == CONFIG_FILE
        || path
            .strip_prefix(SCHEMAS_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
        || is_font_path(path)
}

/// Whether a snapshot path is a font file of `fonts/` (`fonts/<name>.ttf`).
fn is_font_path(path: &str) -> bool {
    path.strip_prefix(FONTS_DIR)
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|name| !name.contains('/') && load::is_font_name(name))
}

/// The project that structure files (by snapshot path) describe: parsed once in this
/// process for the same files in the same order.
pub fn project_from_files(
    files: &[(String, Vec<u8>)],
) -> Result<Project, masterctl_schemas::Report> {
    let mut hasher = blake3::Hasher::new();
    for (path, bytes) in files {
        hasher.update(&(path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    let key = *hasher.finalize().as_bytes();
    if let Some(project) = PARSED.get(&key) {
        return Ok(project);
    }
    let project = parse_project(files)?;
    PARSED.keep(key, project.clone());
    Ok(project)
}

/// [`project_from_files`], parsed.
fn parse_project(files: &[(String, Vec<u8>)]) -> Result<Project, masterctl_schemas::Report> {
    let text = |(path, bytes): &(String, Vec<u8>)| {
        (
            PathBuf::from(path),
            String::from_utf8_lossy(bytes).into_owned(),
        )
    };
    let config = files.iter().find(|(p, _)| p == CONFIG_FILE).map(text);
    let schemas = files
        .iter()
        .filter(|(p, _)| p != CONFIG_FILE && !is_font_path(p))
        .map(text)
        .collect();
    let fonts = files
        .iter()
        .filter(|(p, _)| is_font_path(p))
        .cloned()
        .collect();
    load::load_with_fonts(config, schemas, fonts)
}

/// The structure files of a working tree (`masterctl.toml`, `schemas/*.toml`, the fonts
/// of `fonts/`), by snapshot path; `None` when it has no `masterctl.toml`.
pub fn working_files(root: &Path) -> Result<Option<StructureFiles>, StoreError> {
    let config = root.join(CONFIG_FILE);
    if !config.is_file() {
        return Ok(None);
    }
    let mut files = vec![(CONFIG_FILE.to_string(), read(&config)?)];
    let dir = root.join(SCHEMAS_DIR);
    if dir.is_dir() {
        let schemas = load::schema_files(&dir).map_err(|d| {
            StoreError::InvalidStructure(masterctl_schemas::Report {
                diagnostics: vec![d],
            })
        })?;
        for (path, text) in schemas {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((format!("{SCHEMAS_DIR}/{name}"), text.into_bytes()));
        }
    }
    let fonts = load::font_files(&root.join(FONTS_DIR)).map_err(|d| {
        StoreError::InvalidStructure(masterctl_schemas::Report {
            diagnostics: vec![d],
        })
    })?;
    files.extend(fonts);
    Ok(Some(files))
}

/// The structure files a commit's tree holds, read as a working tree's are
/// (`masterctl.toml`, `schemas/*.toml` directly in `schemas/`, the fonts directly in
/// `fonts/`, dot files left out), by snapshot path in path order.
pub fn tree_files(git: &Repository, tree: &Tree<'_>) -> Result<StructureFiles, StoreError> {
    tree_file_ids(git, tree)?
        .into_iter()
        .map(|(path, id)| Ok((path, git.find_blob(id)?.content().to_vec())))
        .collect()
}

/// [`tree_files`] as blob ids, nothing read: what an import would copy of the tree.
pub fn tree_file_ids(git: &Repository, tree: &Tree<'_>) -> Result<Vec<(String, Oid)>, StoreError> {
    let mut files = Vec::new();
    if let Some(config) = tree.get_name(CONFIG_FILE)
        && config.kind() == Some(ObjectType::Blob)
    {
        files.push((CONFIG_FILE.to_string(), config.id()));
    }
    let schema = |n: &str| n.ends_with(".toml") && !n.starts_with('.');
    folder_file_ids(git, tree, SCHEMAS_DIR, &schema, &mut files)?;
    folder_file_ids(git, tree, FONTS_DIR, &load::is_font_name, &mut files)?;
    Ok(files)
}

/// The files directly in folder `dir` of `tree` whose names `keep` takes, by snapshot
/// path in name order, added to `files` with their blob ids.
fn folder_file_ids(
    git: &Repository,
    tree: &Tree<'_>,
    dir: &str,
    keep: &dyn Fn(&str) -> bool,
    files: &mut Vec<(String, Oid)>,
) -> Result<(), StoreError> {
    let Some(folder) = tree
        .get_name(dir)
        .and_then(|entry| entry.to_object(git).and_then(|o| o.peel_to_tree()).ok())
    else {
        return Ok(());
    };
    let mut found: Vec<(String, Oid)> = folder
        .iter()
        .filter(|e| e.kind() == Some(ObjectType::Blob))
        .filter_map(|e| e.name().ok().map(|name| (name.to_string(), e.id())))
        .filter(|(name, _)| keep(name))
        .collect();
    found.sort();
    files.extend(
        found
            .into_iter()
            .map(|(name, id)| (format!("{dir}/{name}"), id)),
    );
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    std::fs::read(path).map_err(StoreError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(max: &str) -> StructureFiles {
        let schema = format!(
            "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\nmax = {max}\n"
        );
        vec![
            (
                CONFIG_FILE.to_string(),
                b"source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n"
                    .to_vec(),
            ),
            ("schemas/item.toml".to_string(), schema.into_bytes()),
        ]
    }

    fn max_of(project: &Project) -> String {
        let field = &project.tables[0].fields[0];
        field
            .max
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default()
    }

    #[test]
    fn a_project_remembered_is_never_the_one_of_other_bytes() {
        // The same files twice: the same project (the second remembered).
        assert_eq!(max_of(&project_from_files(&files("10")).unwrap()), "10");
        assert_eq!(max_of(&project_from_files(&files("10")).unwrap()), "10");
        // One byte changed: parsed again.
        assert_eq!(max_of(&project_from_files(&files("19")).unwrap()), "19");
        // A broken file is refused every time, never remembered as the last good one.
        for _ in 0..2 {
            assert!(project_from_files(&files("\"many\"")).is_err());
        }
        assert_eq!(max_of(&project_from_files(&files("10")).unwrap()), "10");
    }
}
