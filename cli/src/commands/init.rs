//! `masterctl init [DIR]`: a working example master repository — masterctl.toml, one
//! schema, one workbook that validates against it — in a git repository (created when
//! DIR is not inside one); or, with `--from PROJECT`, that project's structure. Nothing
//! is overwritten.

use std::path::{Path, PathBuf};

use masterctl_app::init::{Error, Start, init};
use masterctl_store::StoreError;
use masterctl_store::init::{InitError, Initialized};
use serde::Serialize;

use super::{Failure, init_failure};
use crate::output::{Output, Render};

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
    /// Who commits in this repository, as `Name <email>`, kept in its git configuration
    /// (for a machine where git has no user.name and user.email yet)
    #[arg(long, value_name = "NAME <EMAIL>", value_parser = parse_author)]
    author: Option<(String, String)>,
}

/// `Aiko Tanaka <aiko@example.com>` as a name and an email.
fn parse_author(text: &str) -> Result<(String, String), String> {
    let shape = "give it as \"Name <email>\", e.g. --author \"Aiko Tanaka <aiko@example.com>\"";
    let (name, rest) = text.split_once('<').ok_or_else(|| shape.to_string())?;
    let email = rest.strip_suffix('>').ok_or_else(|| shape.to_string())?;
    let (name, email) = (name.trim(), email.trim());
    if name.is_empty() || !email.contains('@') {
        return Err(shape.to_string());
    }
    Ok((name.to_string(), email.to_string()))
}

pub fn run(args: Args, output: &Output) -> Result<(), Failure> {
    let dir = &args.dir;
    let start = match &args.from {
        Some(project) => Start::Project(project),
        None => Start::Files(
            FILES
                .iter()
                .map(|(name, bytes)| (name.to_string(), bytes.to_vec()))
                .collect(),
        ),
    };
    let author = args.author.as_ref().map(|(n, e)| (n.as_str(), e.as_str()));
    let done = init(dir, start, author).map_err(|e| match e {
        Error::NotAProject { .. } => Failure::usage(format!("--from {e}"))
            .hint("--from takes a project folder: the one holding masterctl.toml and schemas/"),
        Error::Invalid(report) => Failure::InvalidSchema(report),
        Error::Init(e) => refused(e, dir),
    })?;
    output.render(&Created {
        done: &done,
        dir,
        example: args.from.is_none(),
    });
    Ok(())
}

/// Init's refusal, with what to do about it.
fn refused(e: InitError, dir: &Path) -> Failure {
    match e {
        InitError::Store(StoreError::Git(masterctl_store::git::Error::NoAuthor)) => Failure::environment(
            "git has no user.name and user.email here, and masterctl commits as you (this structure, and every import after); nothing was written",
        )
        .hint(format!(
            "set them once for every repository: git config --global user.name \"Your Name\" && git config --global user.email \"you@example.com\"; or for this one: masterctl init {} --author \"Your Name <you@example.com>\"",
            shell_quote(&dir.display().to_string())
        )),
        InitError::AlreadyExists { repository, .. } => {
            let here = dir.as_os_str().is_empty() || dir == Path::new(".");
            let hint = match (repository, here) {
                (true, true) => "this folder is a master repository already: `masterctl status` shows it; to start another, `masterctl init NEW-FOLDER`".to_string(),
                (true, false) => format!(
                    "{} is a master repository already: `masterctl --repo {} status` shows it; to start another, `masterctl init NEW-FOLDER`",
                    dir.display(),
                    shell_quote(&dir.display().to_string())
                ),
                (false, _) => "init writes into an empty folder (or one without these files): `masterctl init NEW-FOLDER`".to_string(),
            };
            Failure::usage(e.to_string()).hint(hint)
        }
        InitError::NotAFolder(_) => Failure::usage(e.to_string()),
        other => init_failure(other),
    }
}

/// What init did, and (for text) where and whether it wrote the example.
#[derive(Serialize)]
struct Created<'a> {
    #[serde(flatten)]
    done: &'a Initialized,
    #[serde(skip)]
    dir: &'a Path,
    #[serde(skip)]
    example: bool,
}

impl Render for Created<'_> {
    fn text(&self, output: &Output) {
        let (done, dir) = (self.done, shell_quote(&self.dir.display().to_string()));
        for path in &done.written {
            output.line(format!("created {}", path.display()));
        }
        if done.git_repository_created {
            output.line(format!(
                "created a git repository in {}",
                self.dir.display()
            ));
        }
        if let Some(author) = &done.author {
            output.line(format!(
                "commits in this repository are by {author} (its git configuration)"
            ));
        }
        match &done.structure_commit {
            Some(commit) => output.line(format!(
                "committed the structure (masterctl.toml, schemas/) as {}",
                masterctl_store::short_id(commit)
            )),
            None => {
                output.line("commit the structure, so that clones of the repository carry it:");
                output.line(format!(
                    "  git -C {dir} add masterctl.toml schemas && git -C {dir} commit -m \"masterctl structure\""
                ));
            }
        }
        if self.example {
            output.line("");
            output.line("next: check the example workbook against its schema:");
            output.line(format!("  cd {dir} && masterctl validate workbooks/"));
        }
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
