//! One module per command. Each declares its arguments and runs by calling the library
//! crates; failures come back as [`Failure`] and become exit codes in `main`.

mod blame;
mod branch;
mod build;
mod charset;
mod codegen;
mod completions;
mod conflicts;
mod diff;
mod export;
mod fetch;
mod gc;
mod import;
mod init;
mod inspect;
mod key;
mod l10n;
mod log;
mod manual;
mod merge;
mod migrate;
mod publish;
mod pull;
mod push;
mod rebase;
mod releases;
mod revert;
mod rollback;
mod schema;
mod serve;
mod signing_args;
mod status;
mod sync;
mod tag;
mod unlock;
mod validate;
mod watch;

use clap::Subcommand;

use crate::output::{Format, GlobalArgs, Output, RepoArg};
use masterctl_store::{Branch, MasterRepo, Region, Structure};

pub use crate::failure::{
    Failure, delivery_failure, import_failure, init_failure, join_failure, remote_failure,
    revert_failure, store_failure,
};

/// Run a delivery operation (async, over object_store) to its end on this thread
/// (blocking work on threads of its own).
pub fn block_on<T>(work: impl std::future::Future<Output = T>) -> Result<T, Failure> {
    let runtime = masterctl_delivery::runtime_on_this_thread()
        .map_err(|e| Failure::environment(format!("cannot start the network runtime: {e}")))?;
    Ok(runtime.block_on(work))
}

#[derive(Subcommand)]
pub enum Command {
    /// Read spreadsheet exports and report every mistake at once, with its cell
    Validate(validate::Args),
    /// Create a working example master repository: masterctl.toml, a schema, a workbook, git
    Init(init::Args),
    /// Work with schema files (draft them from a workbook)
    #[command(subcommand)]
    Schema(schema::Command),
    /// Convert another tool's project into a master repository (Luban)
    #[command(subcommand)]
    Migrate(migrate::Command),
    /// Validate exports and commit them to a region's branch as canonical tables
    Import(import::Args),
    /// A region's import history, newest first
    Log(log::Args),
    /// What changed, in tables, rows and cells: two revisions, a region's last import, or exports against a region
    Diff(diff::Args),
    /// Who last changed each cell of a row: the import (commit, time, author, message, source file) and the value before
    Blame(blame::Args),
    /// Take what the region's upstream changed since the last import point (keyed three-way merge)
    Rebase(rebase::Args),
    /// Reflect a work branch into its region (keyed three-way merge; conflicts resolved as in a rebase)
    Merge(merge::Args),
    /// Take a commit of a branch back, as a new commit (later commits' changes kept)
    Revert(revert::Args),
    /// Work branches of a region (work/R/NAME): create, list, delete
    #[command(subcommand)]
    Branch(branch::Command),
    /// Versions of the masters (annotated tags masters/R/VERSION): create, list
    #[command(subcommand)]
    Tag(tag::Command),
    /// Take the remote's region and work branches: fast-forward, or the keyed merge where both moved
    Pull(pull::Args),
    /// Send the region and work branches (and versions) this clone moved ahead; never forced
    Push(push::Args),
    /// Every region and work branch: head, what it takes from, commits not taken, rebase or merge in progress
    Status(status::Args),
    /// The planners' console in a browser: regions, work branches, history, changes, blame
    Serve(serve::Args),
    /// Translations: status per language, exchange files for translators, taking them back
    #[command(subcommand)]
    L10n(l10n::Command),
    /// A region's data as the workbooks its schemas read (xlsx, ods or csv), to edit and import back
    Export(export::Args),
    /// Build the runtime archives game servers map at boot (tables, texts, generated masters)
    Build(build::Args),
    /// Typed access to the masters, generated from the schemas (handlebars templates)
    Codegen(codegen::Args),
    /// Read a build through the runtime loader: a summary, or one row with its lookups
    Inspect(inspect::Args),
    /// Upload a build to a store (s3://bucket/prefix, file:///path): only what the store lacks
    Publish(publish::Args),
    /// Download a region's current (or a named) release from a store into a build folder
    Fetch(fetch::Args),
    /// The releases a store holds, newest first per region, the current one marked
    Releases(releases::Args),
    /// Make an earlier release of a region current again (all its objects must be there)
    Rollback(rollback::Args),
    /// Delete releases beyond the newest N per region, and the objects no kept release needs
    Gc(gc::Args),
    /// Keep a build folder at a region's current release, saying what it runs (a file, JSON and Prometheus over HTTP)
    Watch(watch::Args),
    /// Keys that sign releases (`publish --sign`) and that servers trust (`fetch --trust`)
    #[command(subcommand)]
    Key(key::Command),
    /// Remove a lock a killed process left on a region's branch (only a stale one)
    Unlock(unlock::Args),
    /// Write the completion script of a shell (bash, zsh, fish, powershell)
    Completions(completions::Args),
    /// Write the reference of every command: Markdown and man pages
    Manual(manual::Args),
}

/// How soon a command's freed memory is best given back to the system.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GiveBack {
    /// It types whole tables and drops them before it writes what it made of them
    /// (`build`, `export`): its peak memory falls most when freed memory goes back at
    /// once.
    Soon,
    /// It types a sheet piece by piece into a table it keeps, then writes and hashes the
    /// canonical files (`import`): the pieces' memory, given back before the files are
    /// made, lowers the peak; given back at once, it is cleared again for each piece.
    Shortly,
    /// It frees as it goes and takes the memory again at once (`validate`, the rest).
    Later,
}

impl Command {
    /// Whether the command may reach a git remote — pull, push, the console, a command
    /// given `--pull` or `--push` — which libgit2 does over https with the system's
    /// certificate authorities, read when it starts. A store is reached by a client of
    /// its own that reads them for itself (and only where it talks TLS): `publish`,
    /// `fetch`, `releases`, `rollback` and `gc` read the repository at most, and so
    /// start libgit2 without them.
    pub fn reaches_a_git_remote(&self) -> bool {
        match self {
            Command::Pull(_) | Command::Push(_) | Command::Serve(_) => true,
            Command::Rebase(args) => args.sync.reaches_the_remote(),
            Command::Merge(args) => args.sync.reaches_the_remote(),
            Command::Import(args) => args.sync.reaches_the_remote(),
            Command::L10n(l10n::Command::Import(args)) => args.sync.reaches_the_remote(),
            _ => false,
        }
    }

    /// How soon the memory the command frees is best given back to the system (see
    /// `main.rs`).
    pub fn gives_memory_back(&self) -> GiveBack {
        match self {
            Command::Build(_) | Command::Export(_) => GiveBack::Soon,
            Command::Import(_) => GiveBack::Shortly,
            _ => GiveBack::Later,
        }
    }

    /// Whether the command may open a git repository. `validate` reads the schemas and
    /// the exports as files, and the reference and completions are the command line's:
    /// libgit2 (and the OpenSSL it starts) is not started for them.
    pub fn opens_git(&self) -> bool {
        !matches!(
            self,
            Command::Validate(_) | Command::Completions(_) | Command::Manual(_)
        )
    }

    /// `--repo` of a command that reads the master repository; `None` for the others.
    pub fn repo(&self) -> Option<&RepoArg> {
        match self {
            Command::Validate(args) => Some(&args.repo),
            Command::Import(args) => Some(&args.repo),
            Command::Log(args) => Some(&args.repo),
            Command::Diff(args) => Some(&args.repo),
            Command::Blame(args) => Some(&args.repo),
            Command::Rebase(args) => Some(&args.repo),
            Command::Merge(args) => Some(&args.repo),
            Command::Revert(args) => Some(&args.repo),
            Command::Pull(args) => Some(&args.repo),
            Command::Push(args) => Some(&args.repo),
            Command::Branch(command) => Some(command.repo()),
            Command::Tag(command) => Some(command.repo()),
            Command::Status(args) => Some(&args.repo),
            Command::Serve(args) => Some(&args.repo),
            Command::L10n(l10n::Command::Status(args)) => Some(&args.repo),
            Command::L10n(l10n::Command::Export(args)) => Some(&args.repo),
            Command::L10n(l10n::Command::Import(args)) => Some(&args.repo),
            Command::L10n(l10n::Command::Charset(args)) => Some(&args.repo),
            Command::Build(args) => Some(&args.repo),
            Command::Export(args) => Some(&args.repo),
            Command::Codegen(args) => Some(&args.repo),
            Command::Unlock(args) => Some(&args.repo),
            Command::Publish(args) => Some(&args.repo),
            Command::Releases(args) => Some(&args.repo),
            Command::Rollback(args) => Some(&args.repo),
            Command::Gc(args) => Some(&args.repo),
            Command::Fetch(args) => Some(&args.repo),
            Command::Watch(args) => Some(&args.repo),
            Command::Init(_)
            | Command::Schema(_)
            | Command::Migrate(_)
            | Command::Inspect(_)
            | Command::Key(_)
            | Command::Completions(_)
            | Command::Manual(_) => None,
        }
    }

    /// The command's name as typed (`l10n export`), for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Validate(_) => "validate",
            Command::Init(_) => "init",
            Command::Schema(_) => "schema",
            Command::Migrate(_) => "migrate luban",
            Command::Import(_) => "import",
            Command::Log(_) => "log",
            Command::Diff(_) => "diff",
            Command::Blame(_) => "blame",
            Command::Rebase(_) => "rebase",
            Command::Merge(_) => "merge",
            Command::Revert(_) => "revert",
            Command::Pull(_) => "pull",
            Command::Push(_) => "push",
            Command::Branch(branch::Command::Create(_)) => "branch create",
            Command::Branch(branch::Command::List(_)) => "branch list",
            Command::Branch(branch::Command::Delete(_)) => "branch delete",
            Command::Branch(branch::Command::Propose(_)) => "branch propose",
            Command::Branch(branch::Command::Withdraw(_)) => "branch withdraw",
            Command::Tag(tag::Command::Create(_)) => "tag create",
            Command::Tag(tag::Command::List(_)) => "tag list",
            Command::Status(_) => "status",
            Command::Serve(_) => "serve",
            Command::L10n(l10n::Command::Status(_)) => "l10n status",
            Command::L10n(l10n::Command::Export(_)) => "l10n export",
            Command::L10n(l10n::Command::Import(_)) => "l10n import",
            Command::L10n(l10n::Command::Charset(_)) => "l10n charset",
            Command::Build(_) => "build",
            Command::Export(_) => "export",
            Command::Codegen(_) => "codegen",
            Command::Inspect(_) => "inspect",
            Command::Publish(_) => "publish",
            Command::Fetch(_) => "fetch",
            Command::Releases(_) => "releases",
            Command::Rollback(_) => "rollback",
            Command::Gc(_) => "gc",
            Command::Unlock(_) => "unlock",
            Command::Key(_) => "key",
            Command::Watch(_) => "watch",
            Command::Completions(_) => "completions",
            Command::Manual(_) => "manual",
        }
    }
}

/// Run one command; `cli` gives the whole command line's definition (for completions).
pub fn run(
    command: Command,
    global: &GlobalArgs,
    output: &Output,
    cli: fn() -> clap::Command,
) -> Result<(), Failure> {
    let exporting = matches!(command, Command::L10n(l10n::Command::Export(_)));
    let workbooks = matches!(command, Command::Export(_));
    let format = global.format;
    let allowed = match format {
        Format::Text | Format::Json => true,
        Format::Csv => exporting || workbooks,
        Format::Xlsx | Format::Ods => workbooks,
        Format::Xliff | Format::Po => exporting,
    };
    if !allowed {
        return Err(Failure::usage(
            "--format xliff and po are for `l10n export`, csv for it and `export`, xlsx and ods for `export`",
        )
        .hint("for this command, --format is text or json"));
    }
    match command {
        Command::Validate(args) => validate::run(args, global, output),
        Command::Init(args) => init::run(args, output),
        Command::Migrate(command) => migrate::run(command, output),
        Command::Schema(command) => schema::run(command, output),
        Command::Import(args) => import::run(args, global, output),
        Command::Log(args) => log::run(args, global, output),
        Command::Diff(args) => diff::run(args, global, output),
        Command::Blame(args) => blame::run(args, global, output),
        Command::Rebase(args) => rebase::run(args, global, output),
        Command::Merge(args) => merge::run(args, global, output),
        Command::Revert(args) => revert::run(args, global, output),
        Command::Pull(args) => pull::run(args, global, output),
        Command::Push(args) => push::run(args, global, output),
        Command::Branch(command) => branch::run(command, global, output),
        Command::Tag(command) => tag::run(command, global, output),
        Command::Status(args) => status::run(args, global, output),
        Command::Serve(args) => serve::run(args, global, output),
        Command::L10n(command) => l10n::run(command, global, output),
        Command::Build(args) => build::run(args, global, output),
        Command::Export(args) => export::run(args, global, output),
        Command::Codegen(args) => codegen::run(args, global, output),
        Command::Inspect(args) => inspect::run(args, output),
        Command::Publish(args) => publish::run(args, global, output),
        Command::Fetch(args) => fetch::run(args, global, output),
        Command::Releases(args) => releases::run(args, global, output),
        Command::Rollback(args) => rollback::run(args, global, output),
        Command::Gc(args) => gc::run(args, global, output),
        Command::Unlock(args) => unlock::run(args, global, output),
        Command::Key(command) => key::run(command, output),
        Command::Watch(args) => watch::run(args, global, output),
        Command::Completions(args) => completions::run(args, cli()),
        Command::Manual(args) => manual::run(args, cli(), output),
    }
}

/// Who the user is to git (`Name <email>`, as the master repository's configuration —
/// with the user's own — says), for what a store records of a publish or a rollback;
/// none outside a repository or when git does not say.
pub fn who(global: &GlobalArgs) -> Option<String> {
    let config = open_repo(global).ok()?.git.config().ok()?;
    let (name, email) = masterctl_store::git::refs::identity_in(&config)?;
    Some(masterctl_store::names::one_line(&format!(
        "{} <{}>",
        name.trim(),
        email.trim()
    )))
}

/// Record what was done — the notice `what` makes of who did it — in the repository's
/// audit log, and tell the project's webhook (`[notify]`) when it names one. A log not
/// written or a webhook not told is said on standard error; what was done stands.
pub fn tell(
    global: &GlobalArgs,
    what: impl FnOnce(&str) -> Option<masterctl_app::notify::Notice>,
    output: &Output,
) {
    if let Ok(repo) = open_repo(global)
        && let Ok(structure) = repo.structure()
    {
        tell_in(&repo, &structure, what, output);
    }
}

/// [`tell`], in a repository already open.
pub fn tell_in(
    repo: &masterctl_store::MasterRepo,
    structure: &masterctl_store::Structure,
    what: impl FnOnce(&str) -> Option<masterctl_app::notify::Notice>,
    output: &Output,
) {
    use masterctl_app::notify::Told;
    let by = (repo.git.config().ok())
        .and_then(|config| masterctl_store::git::refs::identity_in(&config))
        .map_or_else(
            || "someone".to_string(),
            |(name, email)| {
                masterctl_store::names::one_line(&format!("{} <{}>", name.trim(), email.trim()))
            },
        );
    let Some(notice) = what(&by) else {
        return;
    };
    if let Err(e) = masterctl_app::notify::record(repo, &notice, "the command line") {
        output.warning(&format!("the audit log was not written: {e}"));
    }
    let Some(config) = structure.project.config.notify.as_ref() else {
        return;
    };
    if let Ok(Told::Failed { attempts, why }) =
        block_on(masterctl_app::notify::tell(Some(config), notice))
    {
        output.warning(&format!(
            "the project's webhook was not told: {why} ({attempts} attempts)"
        ));
    }
}

/// `--endpoint`, for the commands that reach a store.
#[derive(clap::Args)]
pub struct EndpointArg {
    /// An S3-compatible endpoint (default: AWS_ENDPOINT_URL, the profile's, or AWS)
    #[arg(long, value_name = "URL")]
    endpoint: Option<String>,
}

/// The store a URL names, reached through `--endpoint` when given.
pub fn open_store(
    url: &str,
    endpoint: &EndpointArg,
) -> Result<masterctl_delivery::Remote, Failure> {
    let options = masterctl_delivery::RemoteOptions {
        endpoint: endpoint.endpoint.clone(),
        ..masterctl_delivery::RemoteOptions::default()
    };
    masterctl_delivery::Remote::open(url, &options).map_err(delivery_failure)
}

/// The store a command's `--to`/`--from` names, or else the one the project names
/// (`[publish] store` in `masterctl.toml`, with its endpoint unless `--endpoint` is
/// given).
pub fn named_store(
    url: Option<&str>,
    endpoint: &EndpointArg,
    global: &GlobalArgs,
    flag: &str,
) -> Result<masterctl_delivery::Remote, Failure> {
    if let Some(url) = url {
        return open_store(url, endpoint);
    }
    let hint = "or name it in masterctl.toml: [publish] store = \"s3://bucket/prefix\"";
    let structure = open_repo(global).and_then(|repo| repo.structure().map_err(store_failure));
    let store = match structure {
        Ok(structure) => {
            masterctl_app::project::project_store(&structure, endpoint.endpoint.clone())
                .map_err(delivery_failure)?
        }
        Err(_) => None,
    };
    store.ok_or_else(|| Failure::usage(format!("{flag} URL names the store")).hint(hint))
}

/// Every input path given exists (a missing one is a usage error naming it).
pub fn all_exist(paths: &[std::path::PathBuf]) -> Result<(), Failure> {
    match paths.iter().find(|p| !p.exists()) {
        Some(missing) => Err(Failure::usage(format!(
            "{} does not exist",
            missing.display()
        ))),
        None => Ok(()),
    }
}

/// The master repository of `--repo` or the current folder.
pub fn open_repo(global: &GlobalArgs) -> Result<MasterRepo, Failure> {
    let start = match &global.repo {
        Some(repo) => repo.clone(),
        None => std::env::current_dir()
            .map_err(|e| Failure::environment(format!("cannot read the current folder: {e}")))?,
    };
    MasterRepo::open(&start).map_err(store_failure)
}

/// The region `name` of the project: checked before it names a path or a branch (an
/// unknown name is told the regions there are, and the closest one).
pub fn region(structure: &Structure, name: &str) -> Result<Region, Failure> {
    Region::of(&structure.project, name).map_err(store_failure)
}

/// The region `name`, or its work branch `work` when one is given: both checked before
/// they name a path or a branch.
pub fn line(structure: &Structure, name: &str, work: Option<&str>) -> Result<Branch, Failure> {
    Branch::of(&region(structure, name)?, work).map_err(store_failure)
}
