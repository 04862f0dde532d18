//! A region commit's structure, vouched for by the structure branch.
//!
//! A build takes the schemas stored in the commit it builds, and the audiences in them
//! decide what a client sees. A commit reaches a region branch through masterctl (an
//! import copies a committed structure and names it in `Masterctl-Structure`), but also
//! through a plain `git push` that can hold any file: one that deletes an
//! `audience = ["server"]` line would, built, ship server-only cells to every client.
//! So before a commit is built, pulled, merged or imported onto, its structure is held
//! to the structure branch (`main`, HEAD of the repository):
//!
//! - the same as main's now: vouched for;
//! - an import's (it names a structure commit): the same as that commit's, which must
//!   be main's or one of its history;
//! - a rebase's, merge's or translation's (no such trailer: its structure is a merge of
//!   others): each file a version main's history held at that path.
//!
//! Anything else is [`StoreError::UnvouchedStructure`], each file named.

use std::collections::{BTreeMap, HashMap, HashSet};

use git2::{Commit, ObjectType, Oid, Repository, Tree};

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::commit::{STRUCTURE_TRAILER, trailer_ids};
use crate::snapshot::structure::is_structure_path;
use crate::snapshot::structure::tree_file_ids;
use masterctl_schemas::load::{CONFIG_FILE, FONTS_DIR, SCHEMAS_DIR};

/// Structure files by snapshot path, as blob ids.
type Held = BTreeMap<String, Oid>;

/// Refuse `commit` of `branch` unless it holds only files
/// ([`crate::snapshot::only_files`]) and the structure branch vouches for its
/// structure. A repository whose HEAD holds no commit has nothing to vouch with, and
/// refuses no structure (it has none to build with either).
pub fn check(repo: &MasterRepo, branch: &str, commit: &Commit<'_>) -> Result<(), StoreError> {
    let git = &repo.git;
    crate::snapshot::only_files(&commit.tree()?, branch)?;
    let Ok(main) = git.head().and_then(|h| h.peel_to_commit()) else {
        return Ok(());
    };
    let ours = every_structure_file(git, &commit.tree()?)?;
    let main_held = imported_structure(git, &main.tree()?)?;
    if ours == main_held {
        return Ok(());
    }
    let history = History::of(git, main.id())?;
    let refused = |against: String, files: Vec<String>| StoreError::UnvouchedStructure {
        branch: branch.to_string(),
        commit: commit.id().to_string(),
        against,
        files,
    };
    match trailer_ids(commit, STRUCTURE_TRAILER).first() {
        Some(named) => {
            let Some(theirs) = history.structures.get(named) else {
                return Err(StoreError::StructureNotOnMain {
                    branch: branch.to_string(),
                    commit: commit.id().to_string(),
                    structure: named.to_string(),
                });
            };
            match differing(&ours, theirs) {
                files if files.is_empty() => Ok(()),
                files => Err(refused(
                    format!(
                        "the structure commit {} it names",
                        crate::names::short_id(&named.to_string())
                    ),
                    files,
                )),
            }
        }
        None => {
            let never: Vec<String> = ours
                .iter()
                .filter(|(path, id)| !history.files.contains(&((*path).clone(), **id)))
                .map(|(path, _)| path.clone())
                .collect();
            match never.is_empty() {
                true => Ok(()),
                false => Err(refused("any version of main".to_string(), never)),
            }
        }
    }
}

/// What main's history held: each commit's structure as an import copies it, and
/// every version of each file.
struct History {
    structures: HashMap<Oid, Held>,
    files: HashSet<(String, Oid)>,
}

impl History {
    fn of(git: &Repository, main: Oid) -> Result<History, StoreError> {
        let mut walk = git.revwalk()?;
        walk.push(main)?;
        let mut structures = HashMap::new();
        let mut files = HashSet::new();
        // Commits of main mostly share their structure's trees: each read once.
        let mut by_trees: HashMap<[Option<Oid>; 3], Held> = HashMap::new();
        for id in walk {
            let id = id?;
            let tree = git.find_commit(id)?.tree()?;
            let entry = |name: &str| tree.get_name(name).map(|e| e.id());
            let key = [entry(CONFIG_FILE), entry(SCHEMAS_DIR), entry(FONTS_DIR)];
            let held = match by_trees.get(&key) {
                Some(held) => held.clone(),
                None => {
                    let held = imported_structure(git, &tree)?;
                    by_trees.insert(key, held.clone());
                    held
                }
            };
            files.extend(held.iter().map(|(p, i)| (p.clone(), *i)));
            structures.insert(id, held);
        }
        Ok(History { structures, files })
    }
}

/// The structure files an import copies from a commit of main, as blob ids.
fn imported_structure(git: &Repository, tree: &Tree<'_>) -> Result<Held, StoreError> {
    Ok(tree_file_ids(git, tree)?.into_iter().collect())
}

/// Every file of a region commit that its structure is read from (what
/// `Structure::at` reads: anything under `schemas/`, nested too, and the fonts).
fn every_structure_file(git: &Repository, tree: &Tree<'_>) -> Result<Held, StoreError> {
    let mut held = Held::new();
    if let Some(entry) = tree.get_name(CONFIG_FILE) {
        held.insert(CONFIG_FILE.to_string(), entry.id());
    }
    for dir in [SCHEMAS_DIR, FONTS_DIR] {
        let Some(folder) = subtree(git, tree, dir)? else {
            continue;
        };
        folder.walk(git2::TreeWalkMode::PreOrder, |root, entry| {
            if entry.kind() == Some(ObjectType::Blob)
                && let Ok(name) = entry.name()
            {
                let path = format!("{dir}/{root}{name}");
                if is_structure_path(&path) {
                    held.insert(path, entry.id());
                }
            }
            git2::TreeWalkResult::Ok
        })?;
    }
    Ok(held)
}

fn subtree<'r>(
    git: &'r Repository,
    tree: &Tree<'_>,
    dir: &str,
) -> Result<Option<Tree<'r>>, StoreError> {
    match tree.get_name(dir) {
        Some(entry) if entry.kind() == Some(ObjectType::Tree) => {
            Ok(Some(git.find_tree(entry.id())?))
        }
        _ => Ok(None),
    }
}

/// The paths where two structures differ: changed, added or removed.
fn differing(ours: &Held, theirs: &Held) -> Vec<String> {
    let mut paths: Vec<String> = ours
        .iter()
        .filter(|(path, id)| theirs.get(*path) != Some(id))
        .map(|(path, _)| path.clone())
        .chain(theirs.keys().filter(|p| !ours.contains_key(*p)).cloned())
        .collect();
    paths.sort();
    paths.dedup();
    paths
}
