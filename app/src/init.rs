//! `init`: a new master repository, from files given (the example) or from another
//! project's structure — that project checked whole before anything is written.

use std::path::{Path, PathBuf};

use masterctl_schemas::Report;
use masterctl_schemas::load::CONFIG_FILE;
use masterctl_store::init::{InitError, Initialized};
use masterctl_store::snapshot::structure::working_files;
use masterctl_store::{ErrorKind, StoreError};

use crate::Kinded;

/// What a new repository starts from.
pub enum Start<'a> {
    /// These files, by path in the repository.
    Files(Vec<(String, Vec<u8>)>),
    /// The structure (`masterctl.toml` and `schemas/`) of the project in this folder.
    Project(&'a Path),
}

/// Why no repository was made; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The folder named is not a project: not there, not a folder, no `masterctl.toml`.
    #[error("{path}: {why}")]
    NotAProject { path: PathBuf, why: &'static str },
    /// The project's structure does not load: every diagnostic.
    #[error("the project's structure does not load")]
    Invalid(Report),
    #[error(transparent)]
    Init(#[from] InitError),
}

impl Kinded for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::NotAProject { .. } => ErrorKind::Usage,
            Error::Invalid(_) => ErrorKind::Invalid,
            Error::Init(error) => error.kind(),
        }
    }
}

/// A master repository in `dir` (a git repository created unless `dir` is inside one),
/// starting from `start`, its commits by `author` when given (kept in its git
/// configuration). Nothing is overwritten.
pub fn init(
    dir: &Path,
    start: Start<'_>,
    author: Option<(&str, &str)>,
) -> Result<Initialized, Error> {
    let files = match start {
        Start::Files(files) => files,
        Start::Project(project) => structure_of(project)?,
    };
    Ok(masterctl_store::init::init(dir, &files, author)?)
}

/// The structure files of the project in `folder` (`masterctl.toml`, `schemas/`, the
/// fonts of `fonts/`), once it loads whole.
fn structure_of(folder: &Path) -> Result<Vec<(String, Vec<u8>)>, Error> {
    let not_a_project = |why| Error::NotAProject {
        path: folder.to_path_buf(),
        why,
    };
    if !folder.is_dir() {
        return Err(not_a_project(match folder.exists() {
            true => "not a folder",
            false => "no such folder",
        }));
    }
    if !folder.join(CONFIG_FILE).is_file() {
        return Err(not_a_project("the folder holds no masterctl.toml"));
    }
    masterctl_schemas::load::load_project(folder).map_err(Error::Invalid)?;
    match working_files(folder) {
        Ok(Some(files)) => Ok(files),
        Ok(None) => Err(not_a_project("the folder holds no masterctl.toml")),
        Err(StoreError::InvalidStructure(report)) => Err(Error::Invalid(report)),
        Err(other) => Err(InitError::from(other).into()),
    }
}
