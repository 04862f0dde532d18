//! `masterctl init [DIR]`: a working example master repository — masterctl.toml, one
//! schema, one workbook that validates against it — in a git repository (created when
//! DIR is not inside one); or, with `--from PROJECT`, that project's structure. Nothing
//! is overwritten.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::output::Output;

/// The example, kept in fixtures/init so that tests validate exactly what init writes.
const FILES: [(&str, &[u8]); 3] = [
    (
        "masterctl.toml",
        include_bytes!("../../../fixtures/init/masterctl.toml"),
    ),
    (
        "schemas/item.toml",
        include_bytes!("../../../fixtures/init/schemas/item.toml"),
    ),
    (
        "workbooks/items.xlsx",
        include_bytes!("../../../fixtures/init/workbooks/items.xlsx"),
    ),
];

#[derive(clap::Args)]
pub struct Args {
    /// Where to create the repository (default: the current folder)
    #[arg(value_name = "DIR", default_value = ".")]
    dir: PathBuf,
    /// Start from an existing project's structure (its masterctl.toml and schemas/, checked
    /// first) instead of the example
    #[arg(long, value_name = "PROJECT")]
    from: Option<PathBuf>,
}

/// The files to write: the embedded example, or a project's structure.
fn files(from: Option<&Path>) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let Some(project) = from else {
        return Ok(FILES
            .iter()
            .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
            .collect());
    };
    // Refuse a broken structure before writing anything.
    masterctl_schemas::load::load_project(project).map_err(Failure::InvalidSchema)?;
    let read = |path: &Path| {
        std::fs::read(path)
            .map_err(|e| Failure::environment(format!("cannot read {}: {e}", path.display())))
    };
    let mut out = vec![(
        "masterctl.toml".to_string(),
        read(&project.join("masterctl.toml"))?,
    )];
    for (path, _) in masterctl_schemas::load::schema_files(&project.join("schemas"))
        .map_err(|d| Failure::environment(d.message))?
    {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push((format!("schemas/{name}"), read(&path)?));
    }
    Ok(out)
}

pub fn run(args: Args, output: &Output) -> Result<(), Failure> {
    let dir = &args.dir;
    if dir.exists() && !dir.is_dir() {
        return Err(Failure::usage(format!(
            "{} exists and is not a folder",
            dir.display()
        )));
    }
    let files = files(args.from.as_deref())?;
    if let Some((existing, _)) = files.iter().find(|(name, _)| dir.join(name).exists()) {
        return Err(Failure::usage(format!(
            "{} already exists; init never overwrites",
            dir.join(existing).display()
        ))
        .hint("choose an empty folder, e.g. `masterctl init my-masters`"));
    }
    let mut written = Vec::new();
    for (name, bytes) in &files {
        let path = dir.join(name);
        write_new(&path, bytes)?;
        written.push(path);
    }
    let created_git = ensure_git_repository(dir)?;
    if output.is_json() {
        output.json(&serde_json::json!({
            "ok": true,
            "written": written,
            "git_repository_created": created_git,
        }));
    } else {
        for path in &written {
            output.line(format!("created {}", path.display()));
        }
        if created_git {
            output.line(format!("created a git repository in {}", dir.display()));
        }
        if args.from.is_none() {
            output.line("");
            output.line("next: check the example workbook against its schema:");
            output.line(format!(
                "  cd {} && masterctl validate workbooks/",
                dir.display()
            ));
        }
    }
    Ok(())
}

fn write_new(path: &Path, bytes: &[u8]) -> Result<(), Failure> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure::environment(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut file| std::io::Write::write_all(&mut file, bytes))
        .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))
}

/// Create a git repository in `dir` unless it is already inside one.
fn ensure_git_repository(dir: &Path) -> Result<bool, Failure> {
    if git2::Repository::discover(dir).is_ok() {
        return Ok(false);
    }
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head("main");
    git2::Repository::init_opts(dir, &options)
        .map(|_| true)
        .map_err(|e| {
            Failure::environment(format!(
                "cannot create a git repository in {}: {}",
                dir.display(),
                e.message()
            ))
        })
}
