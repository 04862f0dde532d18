//! `masterctl watch --from URL --region R --out DIR`: keep a build folder at the
//! region's current release — the pointer asked every `--every` seconds, each new
//! release fetched (with `--trust`, only a signed one) — saying what it runs in
//! `.DIR.status.json` beside it and, with `--listen ADDR`, over HTTP (`/status` as
//! JSON, `/metrics` for Prometheus).

use std::time::Duration;

use masterctl_delivery::keeping::{Keeper, Watched};
use masterctl_delivery::status::Status;

use super::{Failure, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    /// The master repository whose `[delivery] trusted_keys` a watcher without
    /// `--trust` takes (none outside one)
    #[command(flatten)]
    pub repo: RepoArg,
    #[command(flatten)]
    target: super::fetch::Target,
    /// Seconds between two asks of the store
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    every: u64,
    /// Ask once, say what the folder holds, and stop (a cron job, a health check)
    #[arg(long)]
    once: bool,
    /// Serve what the folder holds at http://ADDR/status (JSON) and /metrics
    /// (Prometheus), e.g. 127.0.0.1:9464
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Report what the folder holds to the store after every round
    /// (`fleet/<region>/<host>.json`), so that `releases --fleet` counts the servers
    /// running each release and `gc` keeps what they run; s3:// or file:// only
    #[arg(long)]
    report: bool,
    /// The name reported (default: this machine's host name)
    #[arg(long, value_name = "NAME", requires = "report")]
    host: Option<String>,
    #[command(flatten)]
    trust: super::signing_args::TrustArg,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let remote = super::open_store(&args.target.from, &args.endpoint)?;
    if args.every == 0 {
        return Err(Failure::usage(
            "--every 0: the store would be asked without a pause",
        ));
    }
    let options = args.target.options(&args.trust, global)?;
    let report_as = match (args.report, &args.host) {
        (false, _) => None,
        (true, Some(host)) => Some(host.clone()),
        (true, None) => Some(host_name()?),
    };
    if let Some(host) = &report_as {
        masterctl_delivery::fleet::check_host(host).map_err(|_| {
            Failure::usage(format!("`{host}` cannot name a report"))
                .hint("name this server with --host NAME (letters, digits, . - _)")
        })?;
        if !remote.is_writable() {
            return Err(Failure::usage(
                "--report writes to the store: watch an s3:// or file:// store",
            ));
        }
    }
    let mut keeper = Keeper::new(remote, &args.target.out, options);
    keeper.report_as = report_as;
    let watched = Watched::new(keeper.resumed());
    let runtime = masterctl_delivery::runtime()
        .map_err(|e| Failure::environment(format!("cannot start the network runtime: {e}")))?;
    let status = runtime.block_on(async {
        if let Some(address) = &args.listen {
            let bound = masterctl_console::watching::listen(address, watched.clone())
                .await
                .map_err(|e| Failure::environment(format!("--listen {address}: {e}")))?;
            output.note(&format!(
                "serving the status at http://{bound}/status and /metrics"
            ));
        }
        let every = Duration::from_secs(args.every);
        let each = |status: &Status| {
            if !args.once {
                tell(output, status);
            }
            !args.once
        };
        keeper
            .keep(&watched, every, each)
            .await
            .map_err(delivery_failure)
    })?;
    output.render(&Shown(status));
    Ok(())
}

/// This machine's host name (`/proc/sys/kernel/hostname`, else `HOSTNAME`).
fn host_name() -> Result<String, Failure> {
    let read = std::fs::read_to_string("/proc/sys/kernel/hostname").ok();
    let name = read.or_else(|| std::env::var("HOSTNAME").ok());
    let name = name.map(|n| n.trim().to_string()).filter(|n| !n.is_empty());
    name.ok_or_else(|| {
        Failure::usage("this machine's host name is not known").hint("name it with --host NAME")
    })
}

/// A round's news on standard error, when there is some: a release taken or refused.
fn tell(output: &Output, status: &Status) {
    if status.checked == status.taken {
        if let Some(release) = &status.release {
            output.note(&format!("took release {release} of {}", status.region));
        }
    } else if let Some(refusal) = &status.refusal
        && status.checked.as_deref() == Some(refusal.at.as_str())
    {
        output.note(&format!("refused: {}", refusal.message));
    }
}

/// What the folder holds, as the watcher says it.
#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Status);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let s = &self.0;
        match &s.release {
            Some(release) => output.line(format!(
                "{} release {release} of {}{}",
                output.bold("holds"),
                s.region,
                s.versions
                    .last()
                    .map(|v| format!(" ({v})"))
                    .unwrap_or_default()
            )),
            None => output.line(format!("holds no release of {} yet", s.region)),
        }
        if let Some(refusal) = &s.refusal {
            output.line(format!("refused ({}): {}", refusal.reason, refusal.message));
        }
    }
}
