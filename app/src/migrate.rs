//! `migrate luban`: a Luban project's definitions and data converted, written as a new
//! master repository.

use std::path::Path;

use masterctl_migrate::luban::{self, MigrateError, Migration, Options};
use masterctl_store::ErrorKind;
use masterctl_store::init::{InitError, Initialized};

use crate::Kinded;

/// Why nothing was migrated; nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Migrate(#[from] MigrateError),
    #[error(transparent)]
    Init(#[from] InitError),
}

impl Kinded for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Migrate(error) => error.kind(),
            Error::Init(error) => error.kind(),
        }
    }
}

impl Kinded for MigrateError {
    /// A project that is not one (no readable `luban.conf`, no key column for its
    /// texts) is a usage error; definitions that cannot be read, nothing convertible,
    /// or a conversion that does not load are rejected.
    fn kind(&self) -> ErrorKind {
        match self {
            MigrateError::Conf(_) | MigrateError::L10nKey(_) => ErrorKind::Usage,
            MigrateError::Definitions { .. }
            | MigrateError::Nothing(_)
            | MigrateError::Converted(_) => ErrorKind::Invalid,
        }
    }
}

/// The Luban project whose `luban.conf` is in `dir`, converted as `options` say and
/// written as a new master repository in `out` (never over files there).
pub fn luban(dir: &Path, options: &Options, out: &Path) -> Result<(Migration, Initialized), Error> {
    let migration = luban::migrate(dir, options)?;
    let files: Vec<(String, Vec<u8>)> = migration
        .files
        .iter()
        .map(|(path, text)| (path.clone(), text.clone().into_bytes()))
        .collect();
    let done = masterctl_store::init::init(out, &files, None)?;
    Ok((migration, done))
}
