//! Which schemas an action reads: the working tree's, a region's head's or a revision's.

use masterctl_store::names::Region;
use masterctl_store::{MasterRepo, StoreError, Structure};

/// Where the schemas an action works from come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Schemas {
    /// The working tree's (HEAD's in a bare repository).
    Working,
    /// The head of this region's branch.
    Region(String),
    /// This revision's: a commit id, a tag, `masters/jp~2`.
    Revision(String),
}

impl Schemas {
    /// A revision if one is named, else a region's head if one is named, else the
    /// working tree's.
    pub fn chosen(region: Option<&str>, revision: Option<&str>) -> Schemas {
        match (region, revision) {
            (_, Some(revision)) => Schemas::Revision(revision.to_string()),
            (Some(region), None) => Schemas::Region(region.to_string()),
            (None, None) => Schemas::Working,
        }
    }

    /// The structure these schemas are part of.
    pub fn read(&self, repo: &MasterRepo) -> Result<Structure, StoreError> {
        let commit = match self {
            Schemas::Working => return repo.structure(),
            Schemas::Revision(revision) => {
                masterctl_store::git::repo::resolve(&repo.git, revision)?
            }
            Schemas::Region(name) => {
                let region = Region::of(&repo.structure()?.project, name)?;
                repo.head_of(&region.reference())?
                    .ok_or_else(|| masterctl_store::git::Error::NoBranch(name.clone()))?
            }
        };
        Structure::at(&repo.git, &commit.tree()?)
    }
}
