//! Finding the master repository a command works on and loading its structure.

use std::path::{Path, PathBuf};

use masterctl_schemas::Project;
use masterctl_schemas::load::{self, CONFIG_FILE};

use crate::failure::Failure;

/// The folder holding `masterctl.toml`: `--repo` if given, else the current folder or
/// the nearest parent that has one.
pub fn find_root(repo: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(repo) = repo {
        if repo.join(CONFIG_FILE).is_file() {
            return Ok(repo.to_path_buf());
        }
        return Err(Failure::usage(format!(
            "{} has no {CONFIG_FILE}: it is not a master repository",
            repo.display()
        ))
        .hint("run `masterctl init` to create one"));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Failure::usage(format!("cannot read the current folder: {e}")))?;
    cwd.ancestors()
        .find(|dir| dir.join(CONFIG_FILE).is_file())
        .map(Path::to_path_buf)
        .ok_or_else(|| {
            Failure::usage(format!(
                "no {CONFIG_FILE} in {} or any parent folder",
                cwd.display()
            ))
            .hint("run inside a master repository, pass --repo DIR or --schemas DIR, or create one with `masterctl init`")
        })
}

/// Load the structure: from `--schemas DIR` when given, else from the repository. A
/// structure without a single table is an error: a gate that read no schema checks
/// nothing, and must not pass.
pub fn load(repo: Option<&Path>, schemas: Option<&Path>) -> Result<Project, Failure> {
    let (loaded, place) = match schemas {
        Some(dir) => {
            if !dir.is_dir() {
                return Err(Failure::usage(format!("{} is not a folder", dir.display())));
            }
            (load::load_schemas_dir(dir), dir.to_path_buf())
        }
        None => {
            let root = find_root(repo)?;
            (load::load_project(&root), root.join(load::SCHEMAS_DIR))
        }
    };
    let project = loaded.map_err(Failure::InvalidSchema)?;
    if project.tables.is_empty() && project.generated.is_empty() {
        return Err(Failure::usage(format!(
            "{} holds no schema (no *.toml file describing a table)",
            place.display()
        ))
        .hint("pass the folder holding the schema files (or the project folder with masterctl.toml and schemas/)"));
    }
    Ok(project)
}
