//! `masterctl codegen --lang L --out DIR`: typed access to the masters, generated from the
//! schemas (the working tree's, a region's head or any revision) by handlebars templates
//! compiled into masterctl, which a folder of the user's overrides or extends.

use std::path::PathBuf;

use masterctl_app::Kinded;
use masterctl_app::codegen::{self, Generated};
use masterctl_app::schemas::Schemas;
use masterctl_codegen::{Lang, Written};
use masterctl_schemas::audience::Audience;

use super::{Failure, open_repo, store_failure};
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

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let lang = Lang::parse(&args.lang)
        .ok_or_else(|| Failure::usage(format!("no language `{}`", args.lang)))?;
    let repo = open_repo(global)?;
    let request = codegen::Request {
        lang,
        schemas: Schemas::chosen(args.region.as_deref(), args.rev.as_deref()),
        audience: args.audience.as_deref().map(|who| match who {
            "client" => Audience::Client,
            _ => Audience::Server,
        }),
        package: &args.name,
        runtime: args.runtime_path.as_deref(),
        templates: args.templates.as_deref(),
    };
    if args.dump_context {
        let prepared = codegen::prepare(&repo, &request).map_err(failure)?;
        output.json(&prepared.context);
        return Ok(());
    }
    let out = args.out.unwrap_or_default();
    let generated = codegen::generate(&repo, &request, &out).map_err(failure)?;
    output.render(&generated);
    Ok(())
}

/// What went wrong, with the option it came from where one did.
fn failure(error: codegen::Error) -> Failure {
    let hint = match &error {
        codegen::Error::Store(_) => None,
        codegen::Error::Templates { .. } => {
            Some("--templates takes a folder of FILE.hbs templates (regular files, no links)")
        }
        codegen::Error::Runtime { .. } => {
            Some("--runtime-path takes the masterctl-runtime crate's folder (its Cargo.toml)")
        }
        codegen::Error::Package(_) => Some("--name takes the package's name, e.g. game-masters"),
        _ => None,
    };
    let failure = match error {
        codegen::Error::Store(error) => return store_failure(error),
        other => Failure::of(other.kind(), other.to_string()),
    };
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
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
