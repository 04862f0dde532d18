//! `masterctl codegen --lang L --out DIR`: typed access to the masters, generated from the
//! schemas (the working tree's, a region's head or any revision) by handlebars templates
//! compiled into masterctl, which a folder of the user's overrides or extends.

use std::path::{Path, PathBuf};

use masterctl_codegen::{
    self as codegen, CodegenError, GeneratedFile, Lang, UserTemplate, Written,
};
use masterctl_schemas::audience::Audience;
use masterctl_store::{MasterRepo, Structure};
use serde::Serialize;

use super::{Failure, open_repo, region, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  masterctl codegen --lang rust --out game-masters      a crate over masterctl-runtime
  masterctl codegen --lang typescript --out web/gen     a module over `build --client`'s export
  masterctl codegen --lang rust --out gen --region jp   the schemas of masters/jp's head
  masterctl codegen --lang rust --out gen --templates my-templates
                                                        with templates of your own
  masterctl codegen --lang rust --dump-context          what templates see, as JSON

Templates: every FILE.hbs under --templates is a template writing FILE under --out (a
built-in template of the same path is replaced); _NAME.hbs files are partials
({{> NAME}}). Files codegen did not write are never deleted; a file whose content is
unchanged is not rewritten.")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The language: rust (a crate over masterctl-runtime); typescript, csharp (Unity,
    /// .NET) or go (each code over the client export of `build --client`, with its reader)
    #[arg(long, value_name = "LANG", value_parser = ["rust", "csharp", "go", "typescript"])]
    lang: String,
    /// The folder to write into (created if needed)
    #[arg(long, value_name = "DIR", required_unless_present = "dump_context")]
    out: Option<PathBuf>,
    /// The schemas of this region's head instead of the working tree's
    #[arg(long, value_name = "R", conflicts_with = "rev")]
    region: Option<String>,
    /// The schemas of this revision (a sha, a tag, `masters/jp~2`...)
    #[arg(long, value_name = "REV")]
    rev: Option<String>,
    /// A folder of templates overriding built-in ones by path, or adding files
    #[arg(long, value_name = "DIR")]
    templates: Option<PathBuf>,
    /// Print the context templates are rendered with (JSON), and write nothing
    #[arg(long)]
    dump_context: bool,
    /// Whose view of the schemas the code is for: what that audience's build holds
    /// (default: server for rust; client for csharp, go and typescript, which read the
    /// client export)
    #[arg(long, value_name = "WHO", value_parser = ["server", "client"])]
    audience: Option<String>,
    /// The package's name (the Rust crate's)
    #[arg(long, value_name = "NAME", default_value = "masters")]
    name: String,
    /// The masterctl-runtime crate as a path dependency (default: this masterctl's own
    /// runtime, written beside the crate as masterctl-runtime/, so that it builds as
    /// generated)
    #[arg(long, value_name = "DIR")]
    runtime_path: Option<PathBuf>,
}

/// What codegen wrote.
#[derive(Serialize)]
struct Generated {
    lang: &'static str,
    /// Whose build the code reads (`server`, `client`).
    audience: &'static str,
    out: PathBuf,
    schema_hash: String,
    files: Vec<FileResult>,
}

#[derive(Serialize)]
struct FileResult {
    #[serde(flatten)]
    file: GeneratedFile,
    written: Written,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let lang = Lang::parse(&args.lang)
        .ok_or_else(|| Failure::usage(format!("no language `{}`", args.lang)))?;
    if !valid_package(&args.name) {
        return Err(Failure::usage(format!(
            "`{}` is not a package name: lower-case letters, digits, `_` and `-`, starting with a letter",
            args.name
        )));
    }
    let repo = open_repo(global)?;
    let structure = structure(&repo, args.region.as_deref(), args.rev.as_deref())?;
    let runtime_dependency = match &args.runtime_path {
        Some(path) => {
            let path = std::fs::canonicalize(path)
                .map_err(|e| Failure::usage(format!("--runtime-path {}: {e}", path.display())))?;
            if !path.join("Cargo.toml").is_file() {
                return Err(Failure::usage(format!(
                    "--runtime-path {}: no Cargo.toml there (give the runtime crate's folder)",
                    path.display()
                )));
            }
            codegen::vendor::dependency_at(&path.to_string_lossy())
        }
        None => codegen::vendor::dependency(),
    };
    let vendored = args.runtime_path.is_none() && lang == Lang::Rust;
    let audience = match (args.audience.as_deref(), lang) {
        (Some("client"), _) | (None, Lang::CSharp | Lang::Go | Lang::TypeScript) => {
            Audience::Client
        }
        _ => Audience::Server,
    };
    let schema_hash = structure.schema_hash_for(audience);
    let seen = structure.project.view(audience);
    let context = codegen::context(&seen, lang, &schema_hash, &args.name, &runtime_dependency);
    if args.dump_context {
        output.json(&context);
        return Ok(());
    }
    let user = match &args.templates {
        Some(dir) => user_templates(dir)?,
        None => Vec::new(),
    };
    let mut files = codegen::generate(&context, lang, &user).map_err(codegen_failure)?;
    if vendored {
        files.extend(codegen::vendored_runtime());
    }
    let out = args.out.unwrap_or_default();
    let written = codegen::write_files(&out, &files).map_err(codegen_failure)?;
    output.render(&Generated {
        lang: lang.name(),
        audience: audience.name(),
        out,
        schema_hash,
        files: files
            .into_iter()
            .zip(written)
            .map(|(file, written)| FileResult { file, written })
            .collect(),
    });
    Ok(())
}

/// The schemas to generate from: a revision's, a region's head's, or the working tree's.
fn structure(
    repo: &MasterRepo,
    region_name: Option<&str>,
    rev: Option<&str>,
) -> Result<Structure, Failure> {
    let working = repo.structure().map_err(store_failure);
    let commit = match (region_name, rev) {
        (_, Some(rev)) => {
            masterctl_store::git::repo::resolve(&repo.git, rev).map_err(store_failure)?
        }
        (Some(name), None) => {
            let region = region(&working?, name)?;
            repo.head_of(&region.reference())
                .map_err(store_failure)?
                .ok_or_else(|| {
                    store_failure(masterctl_store::StoreError::NoBranch(name.to_string()))
                })?
        }
        (None, None) => return working,
    };
    let tree = commit.tree().map_err(|e| store_failure(e.into()))?;
    Structure::at(&repo.git, &tree).map_err(store_failure)
}

/// Every `*.hbs` file under `dir`, by its path there (slash-separated).
fn user_templates(dir: &Path) -> Result<Vec<UserTemplate>, Failure> {
    if !dir.is_dir() {
        return Err(Failure::usage(format!(
            "--templates {}: not a folder",
            dir.display()
        )));
    }
    let mut templates = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let entries = std::fs::read_dir(&folder)
            .map_err(|e| Failure::environment(format!("{}: {e}", folder.display())))?;
        for entry in entries {
            let entry =
                entry.map_err(|e| Failure::environment(format!("{}: {e}", folder.display())))?;
            let path = entry.path();
            let kind = entry
                .file_type()
                .map_err(|e| Failure::environment(format!("{}: {e}", path.display())))?;
            if kind.is_dir() {
                pending.push(path);
                continue;
            }
            if path.extension().is_none_or(|e| e != "hbs") {
                continue;
            }
            if kind.is_symlink() {
                return Err(Failure::usage(format!(
                    "{}: a symbolic link; templates are read as regular files inside --templates only",
                    path.display()
                )));
            }
            let relative: Vec<String> = path
                .strip_prefix(dir)
                .unwrap_or(&path)
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let bytes = masterctl_runtime::files::read_regular_not_linked(&path, 16 << 20)
                .map_err(|e| Failure::environment(format!("{}: {e}", path.display())))?
                .ok_or_else(|| Failure::usage(format!("{}: not a regular file", path.display())))?;
            let text = String::from_utf8(bytes).map_err(|_| {
                Failure::invalid(format!("{}: a template is UTF-8 text", path.display()))
            })?;
            templates.push(UserTemplate {
                path: relative.join("/"),
                text,
            });
        }
    }
    if templates.is_empty() {
        return Err(Failure::usage(format!(
            "--templates {}: no .hbs file there",
            dir.display()
        )));
    }
    templates.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(templates)
}

fn codegen_failure(error: CodegenError) -> Failure {
    let message = error.to_string();
    match error {
        CodegenError::Template { .. }
        | CodegenError::OutsidePath { .. }
        | CodegenError::Collision { .. } => Failure::invalid(message),
        CodegenError::Io { .. } => Failure::environment(message),
    }
}

/// A package name every target accepts (a Cargo crate, a Go package, an npm package).
fn valid_package(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

impl Render for Generated {
    fn text(&self, output: &Output) {
        let written = self
            .files
            .iter()
            .filter(|f| f.written == Written::Written)
            .count();
        output.line(format!(
            "{} {} code into {}: {written} written, {} unchanged",
            output.bold("generated"),
            self.lang,
            self.out.display(),
            self.files.len() - written
        ));
        for file in &self.files {
            let state = match file.written {
                Written::Written => "wrote    ",
                Written::Unchanged => "unchanged",
            };
            let origin = match file.file.template {
                "built-in" => String::new(),
                other => format!(" ({other})"),
            };
            output.line(format!("  {state} {}{origin}", file.file.path));
        }
    }
}
