//! `masterctl serve`: the planners' console in a browser — regions and work branches,
//! history, each commit's changes, who changed a cell. On this machine by default (no
//! login; commits by your git identity); for a studio, with a users file or behind its
//! single sign-on proxy.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use masterctl_console::{Identity, Options, Policy, Role, Users};

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, RepoArg};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  masterctl serve                                      this machine only: http://127.0.0.1:7878
  masterctl serve --listen 0.0.0.0:7878 --users users.toml --allowed-host console.example.com
  masterctl serve --listen 10.0.0.5:7878 --auth-header X-Forwarded-User --trusted-proxy 10.0.0.2
  masterctl serve --remote origin                      pull before and push after every write

A users file holds [[user]] tables: name, email, role (viewer, editor or maintainer) and
token_sha256, the SHA-256 of the user's token in hex (printf %s TOKEN | sha256sum).")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The address to listen on; one other machines can reach needs --users or
    /// --auth-header
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7878")]
    listen: SocketAddr,
    /// Who may use the console: a TOML file of users (name, email, role, token_sha256)
    #[arg(long, value_name = "FILE", conflicts_with = "auth_header")]
    users: Option<PathBuf>,
    /// A single sign-on proxy in front names the user in this header
    #[arg(long, value_name = "NAME", requires = "trusted_proxy")]
    auth_header: Option<String>,
    /// The proxy's addresses: the header is believed only from these
    #[arg(
        long,
        value_name = "IP,...",
        value_delimiter = ',',
        requires = "auth_header"
    )]
    trusted_proxy: Vec<IpAddr>,
    /// With --auth-header: the roles of the users the proxy names (others are viewers)
    #[arg(long, value_name = "FILE", requires = "auth_header")]
    roles: Option<PathBuf>,
    /// Pull from this remote (a name of `git remote`) before every write and push to it
    /// after, so the git host sees each import, rebase, merge and translation at once
    #[arg(long, value_name = "NAME")]
    remote: Option<String>,
    /// With --users or --auth-header: the host names browsers reach the console by
    /// (`console.example.com`); requests naming another are refused (421). Without it
    /// any is answered; without users, only this machine's names (localhost, 127.0.0.1,
    /// [::1])
    #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
    allowed_host: Vec<String>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    repo.structure().map_err(store_failure)?;
    let load = |path: &PathBuf| Users::load(path).map_err(|e| Failure::usage(e.to_string()));
    let policy = match (&args.users, &args.auth_header) {
        (Some(path), _) => Policy::Users(load(path)?),
        (None, Some(header)) => Policy::Proxy {
            header: header.to_ascii_lowercase(),
            trusted: args.trusted_proxy.clone(),
            users: args
                .roles
                .as_ref()
                .map(|path| Users::load_roles(path).map_err(|e| Failure::usage(e.to_string())))
                .transpose()?,
        },
        (None, None) if !args.allowed_host.is_empty() => {
            return Err(Failure::usage(
                "--allowed-host names the public host names of a console with users: a console without them answers only to this machine's names",
            )
            .hint("--users FILE, or --auth-header NAME with --trusted-proxy IP,..."));
        }
        (None, None) => {
            // The address rule first: a console others could reach needs users, whoever
            // would author its commits.
            if !args.listen.ip().is_loopback() {
                return Err(Failure::usage(
                    masterctl_console::AccessError::Unprotected {
                        listen: args.listen.to_string(),
                    }
                    .to_string(),
                )
                .hint("--users FILE, or --auth-header NAME with --trusted-proxy IP,..."));
            }
            let author = masterctl_store::git::refs::author(&repo).map_err(store_failure)?;
            Policy::Local(Identity {
                name: author.name().unwrap_or_default().to_string(),
                email: author.email().unwrap_or_default().to_string(),
                role: Role::Maintainer,
            })
        }
    };
    let root = repo
        .workdir()
        .unwrap_or_else(|| repo.git.path().to_path_buf());
    let options = Options {
        repo: root,
        listen: args.listen,
        policy,
        remote: args.remote,
        hosts: masterctl_console::AllowedHosts::new(&args.allowed_host),
        limits: masterctl_console::Limits::default(),
    };
    let runtime = masterctl_console::runtime()
        .map_err(|e| Failure::environment(format!("cannot start the console's runtime: {e}")))?;
    runtime.block_on(async move {
        let bound = masterctl_console::bind(options)
            .await
            .map_err(|e| match e {
                masterctl_console::ServeError::Access(e) => Failure::usage(e.to_string())
                    .hint("--users FILE, or --auth-header NAME with --trusted-proxy IP,..."),
                masterctl_console::ServeError::Store(e) => store_failure(e),
                e => Failure::environment(e.to_string()),
            })?;
        if let Some(address) = bound.address() {
            output.line(format!("console on http://{address}/ (Ctrl-C stops it)"));
        }
        bound
            .run()
            .await
            .map_err(|e| Failure::environment(e.to_string()))
    })
}
