//! A master repository: a git repository ([`masterctl_git::Repo`]) that holds
//! masterctl's structure and region branches.

use std::ops::Deref;
use std::path::Path;

use masterctl_git::Repo;

use crate::StoreError;

/// A git repository holding masterctl's structure and region branches: the plumbing's
/// [`Repo`] (what it derefs to), and the structure read from it
/// ([`MasterRepo::structure`]).
pub struct MasterRepo(Repo);

impl MasterRepo {
    /// The repository holding `path` (a working tree folder, or a bare repository).
    pub fn open(path: &Path) -> Result<MasterRepo, StoreError> {
        Ok(MasterRepo(Repo::open(path)?))
    }

    /// The repository at exactly `path` (a bare one too), without looking upward.
    pub fn at(path: &Path) -> Result<MasterRepo, StoreError> {
        Ok(MasterRepo(Repo::at(path)?))
    }

    /// Commits through this handle by `name <email>` instead of git's configured
    /// identity; refused when git would not accept them in a commit.
    pub fn write_as(self, name: &str, email: &str) -> Result<MasterRepo, StoreError> {
        Ok(MasterRepo(self.0.write_as(name, email)?))
    }
}

impl Deref for MasterRepo {
    type Target = Repo;

    fn deref(&self) -> &Repo {
        &self.0
    }
}
