//! `masterctl init [DIR]`: a working example master repository — masterctl.toml, one
//! schema, one workbook that validates against it — in a git repository (created when
//! DIR is not inside one); or, with `--from PROJECT`, that project's structure. Nothing
//! is overwritten.

use std::path::{Path, PathBuf};

use super::Failure;
use crate::output::Output;

/// The example, kept in `cli/init/` (inside this crate, so that it packages) so that
/// tests validate exactly what init writes.
const FILES: [(&str, &[u8]); 3] = [
    (
        "masterctl.toml",
        include_bytes!("../../init/masterctl.toml"),
    ),
    (
        "schemas/item.toml",
        include_bytes!("../../init/schemas/item.toml"),
    ),
    (
        "workbooks/items.xlsx",
        include_bytes!("../../init/workbooks/items.xlsx"),
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
    // A path that is not there, or not a project, is a usage error (exit 2); a project
    // whose structure is broken is refused with its diagnostics (exit 1) before
    // anything is written.
    if !project.is_dir() {
        return Err(Failure::usage(format!(
            "--from {}: {}",
            project.display(),
            if project.exists() {
                "not a folder"
            } else {
                "no such folder"
            }
        ))
        .hint("--from takes a project folder: the one holding masterctl.toml and schemas/"));
    }
    if !project.join("masterctl.toml").is_file() {
        return Err(Failure::usage(format!(
            "--from {}: the folder holds no masterctl.toml",
            project.display()
        ))
        .hint("--from takes a project folder: the one holding masterctl.toml and schemas/"));
    }
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
        let failure = Failure::usage(format!(
            "{} already exists; init never overwrites",
            dir.join(existing).display()
        ));
        let here = dir.as_os_str().is_empty() || dir == Path::new(".");
        let hint = match (dir.join("masterctl.toml").is_file(), here) {
            (true, true) => "this folder is a master repository already: `masterctl status` shows it; to start another, `masterctl init NEW-FOLDER`".to_string(),
            (true, false) => format!(
                "{} is a master repository already: `masterctl --repo {} status` shows it; to start another, `masterctl init NEW-FOLDER`",
                dir.display(),
                shell_quote(&dir.display().to_string())
            ),
            (false, _) => "init writes into an empty folder (or one without these files): `masterctl init NEW-FOLDER`".to_string(),
        };
        return Err(failure.hint(hint));
    }
    let mut written = Vec::new();
    for (name, bytes) in &files {
        let path = dir.join(name);
        write_new(&path, bytes)?;
        written.push(path);
    }
    let created_git = ensure_git_repository(dir)?;
    // The structure's first commit, so that clones carry it; without an author (or in a
    // repository that already has commits) the user is told what to run.
    let committed = match masterctl_store::MasterRepo::open(dir) {
        Ok(repo) if repo.workdir().is_some_and(|w| same_folder(&w, dir)) => {
            let names: Vec<&str> = files.iter().map(|(name, _)| name.as_str()).collect();
            masterctl_store::commit::commit_first_structure(&repo, &names)
                .ok()
                .flatten()
        }
        _ => None,
    };
    if output.is_json() {
        output.json(&serde_json::json!({
            "ok": true,
            "written": written,
            "git_repository_created": created_git,
            "structure_commit": committed.map(|c| c.to_string()),
        }));
    } else {
        for path in &written {
            output.line(format!("created {}", path.display()));
        }
        if created_git {
            output.line(format!("created a git repository in {}", dir.display()));
        }
        match committed {
            Some(commit) => output.line(format!(
                "committed the structure (masterctl.toml, schemas/) as {}",
                masterctl_store::short_id(&commit.to_string())
            )),
            None => {
                output.line("commit the structure, so that clones of the repository carry it:");
                output.line(format!(
                    "  git -C {} add masterctl.toml schemas && git -C {} commit -m \"masterctl structure\"",
                    shell_quote(&dir.display().to_string()),
                    shell_quote(&dir.display().to_string())
                ));
            }
        }
        if args.from.is_none() {
            output.line("");
            output.line("next: check the example workbook against its schema:");
            output.line(format!(
                "  cd {} && masterctl validate workbooks/",
                shell_quote(&dir.display().to_string())
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

/// Whether two paths name one folder.
fn same_folder(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// A path as a POSIX shell reads it back: quoted when it holds anything but plain
/// characters.
fn shell_quote(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c));
    match plain {
        true => text.to_string(),
        false => format!("'{}'", text.replace('\'', "'\\''")),
    }
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
