//! Opening a master repository and reading its structure and branches.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use git2::{Commit, ObjectType, Oid, Repository, Tree, TreeWalkMode, TreeWalkResult};
use masterctl_schemas::Project;
use masterctl_schemas::load::{self, CONFIG_FILE, FONTS_DIR, SCHEMAS_DIR};

use crate::StoreError;

/// A git repository holding masterctl's structure and region branches.
pub struct MasterRepo {
    pub git: Repository,
    /// Who the commits made through this handle are by, when not git's configured
    /// identity (a console writes as its signed-in user): `(name, email)`.
    author: Option<(String, String)>,
}

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
    /// The repository holding `path` (a working tree folder, or a bare repository).
    pub fn open(path: &Path) -> Result<MasterRepo, StoreError> {
        let git = Repository::discover(path)
            .map_err(|_| StoreError::NotARepository(path.to_path_buf()))?;
        Ok(MasterRepo { git, author: None })
    }

    /// The repository at exactly `path` (a bare one too), without looking upward.
    pub fn at(path: &Path) -> Result<MasterRepo, StoreError> {
        let git = Repository::open(path)?;
        Ok(MasterRepo { git, author: None })
    }

    /// Commits through this handle by `name <email>` instead of git's configured
    /// identity; refused when git would not accept them in a commit.
    pub fn write_as(mut self, name: &str, email: &str) -> Result<MasterRepo, StoreError> {
        crate::names::check_identity(name, email)?;
        self.author = Some((name.trim().to_string(), email.trim().to_string()));
        Ok(self)
    }

    /// The identity set by [`MasterRepo::write_as`], if any.
    pub fn writer(&self) -> Option<(&str, &str)> {
        self.author.as_ref().map(|(n, e)| (n.as_str(), e.as_str()))
    }

    /// The working tree, if the repository has one.
    pub fn workdir(&self) -> Option<PathBuf> {
        self.git.workdir().map(Path::to_path_buf)
    }

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

    /// The commit a reference points at, if it exists.
    pub fn head_of(&self, reference: &str) -> Result<Option<Commit<'_>>, StoreError> {
        match self.git.find_reference(reference) {
            Ok(r) => Ok(Some(r.peel_to_commit()?)),
            Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// The head of a region's branch or of a work branch; a branch that does not exist
    /// (yet) is [`StoreError::NoBranch`] or [`StoreError::NoWorkBranch`].
    pub fn head_of_branch(&self, line: &crate::names::Branch) -> Result<Commit<'_>, StoreError> {
        self.head_of(&line.reference())?
            .ok_or_else(|| match line.work() {
                None => StoreError::NoBranch(line.name().to_string()),
                Some(work) => StoreError::NoWorkBranch {
                    region: line.name().to_string(),
                    name: work.name().to_string(),
                },
            })
    }

    /// The full id of the commit a hexadecimal id (or an unambiguous start of one)
    /// names; anything else is [`StoreError::UnknownRevision`].
    pub fn commit_id(&self, id: &str) -> Result<String, StoreError> {
        let unknown = || StoreError::UnknownRevision(id.to_string());
        if !(4..=40).contains(&id.len()) || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(unknown());
        }
        self.git
            .find_object_by_prefix(id, None)
            .and_then(|found| found.peel_to_commit())
            .map(|commit| commit.id().to_string())
            .map_err(|_| unknown())
    }

    /// The commit `rev` names (a sha, a tag, `masters/jp~2`, or a version of the
    /// region: `1.4` for the tag `masters/<region>/1.4`), or the line's head.
    pub fn commit_of(
        &self,
        line: &crate::names::Branch,
        rev: Option<&str>,
    ) -> Result<Commit<'_>, StoreError> {
        match rev {
            Some(rev) => resolve(&self.git, rev).or_else(|unknown| {
                crate::names::version_tag(line.region(), rev)
                    .and_then(|tag| resolve(&self.git, &tag).ok())
                    .ok_or(unknown)
            }),
            None => self.head_of_branch(line),
        }
    }
}

impl Structure {
    /// The structure a commit's tree holds.
    pub fn at(git: &Repository, tree: &Tree<'_>) -> Result<Structure, StoreError> {
        let mut files: Vec<(String, Vec<u8>)> = Vec::new();
        for (path, id) in tree_blobs(git, tree)? {
            if is_structure_path(&path) {
                files.push((path, git.find_blob(id)?.content().to_vec()));
            }
        }
        files.sort();
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

/// The project that structure files (by snapshot path) describe.
pub fn project_from_files(
    files: &[(String, Vec<u8>)],
) -> Result<Project, masterctl_schemas::Report> {
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

/// The commit a revision names (`masters/jp`, `masters/jp~3`, a commit id, a tag, `HEAD`).
pub fn resolve<'r>(git: &'r Repository, revision: &str) -> Result<Commit<'r>, StoreError> {
    git.revparse_single(revision)
        .and_then(|object| object.peel_to_commit())
        .map_err(|_| StoreError::UnknownRevision(revision.to_string()))
}

/// The bytes of the blob at `path` (slash-separated) under `tree`, if there is one.
pub fn blob_at(
    git: &Repository,
    tree: &Tree<'_>,
    path: &str,
) -> Result<Option<Vec<u8>>, StoreError> {
    match tree.get_path(Path::new(path)) {
        Ok(entry) if entry.kind() == Some(ObjectType::Blob) => {
            Ok(Some(git.find_blob(entry.id())?.content().to_vec()))
        }
        Ok(_) => Ok(None),
        Err(e) if e.code() == git2::ErrorCode::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
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

/// Every blob under a tree, by slash-separated path.
pub fn tree_blobs(git: &Repository, tree: &Tree<'_>) -> Result<HashMap<String, Oid>, StoreError> {
    let _ = git;
    let mut blobs = HashMap::new();
    tree.walk(TreeWalkMode::PreOrder, |root, entry| {
        if entry.kind() == Some(ObjectType::Blob)
            && let Ok(name) = entry.name()
        {
            blobs.insert(format!("{root}{name}"), entry.id());
        }
        TreeWalkResult::Ok
    })?;
    Ok(blobs)
}

/// From now on, for the rest of the process, read git objects without hashing each one
/// again (libgit2's strict hash verification is a process-wide setting; their zlib
/// checksums are still checked as they are inflated). Only for a process that reads to
/// show and then ends — the `blame` command, where hashing a thousand versions of a
/// large table again was 40% of its time, and `rebase --dry-run` (13%). The library never calls it: a process that
/// writes, or serves several callers at once, keeps every read verified.
pub fn read_without_rehashing() {
    REHASHING.store(false, std::sync::atomic::Ordering::Relaxed);
    git2::opts::strict_hash_verification(false);
}

/// Start libgit2 now — its global state, and the OpenSSL context that reads the
/// system's certificate authorities — as the first call into it would. For a process
/// that chooses the moment (the command line starts it without the bundle when no
/// command reaches a git remote).
pub fn start_libgit2() {
    // Any call starts it; this one makes an empty in-memory config.
    let _ = git2::Config::new();
}

/// Whether this process still hashes each git object it reads (libgit2 does, and
/// [`crate::git::packed`] follows it), until [`read_without_rehashing`].
static REHASHING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Whether objects read are hashed again to check their ids: see [`read_without_rehashing`].
pub(crate) fn rehashing() -> bool {
    REHASHING.load(std::sync::atomic::Ordering::Relaxed)
}
