//! `masterctl rollback --from URL --region R --to RELEASE`: make an earlier release the
//! region's current one again — only if every object it names is on the store.

use masterctl_delivery::short_release;
use masterctl_delivery::{Moving, RolledBack, rollback};

use super::{Failure, block_on, delivery_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The store: s3://bucket/prefix or file:///path; by default the project's
    /// (`[publish] store` in masterctl.toml)
    #[arg(long, value_name = "URL")]
    from: Option<String>,
    /// The region whose pointer moves
    #[arg(long, value_name = "R")]
    region: String,
    /// The release to make current: its id as `masterctl releases` prints it, or any
    /// unique prefix of 7 or more hexadecimal digits
    #[arg(long, value_name = "RELEASE")]
    to: String,
    /// Why: recorded with the region's pointer beside who moved it (your git identity),
    /// and shown by `releases` and the console
    #[arg(long, value_name = "TEXT")]
    reason: String,
    #[command(flatten)]
    sign: super::signing_args::SignArg,
    #[command(flatten)]
    endpoint: super::EndpointArg,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let remote = super::named_store(args.from.as_deref(), &args.endpoint, global, "--from")?;
    let reason = masterctl_store::names::one_line(args.reason.trim());
    if reason.is_empty() {
        return Err(Failure::usage("--reason is empty").hint("say why the release goes back"));
    }
    let moving = Moving {
        by: super::who(global),
        reason: Some(reason),
        sign: args.sign.key()?,
    };
    let done =
        block_on(rollback(&remote, &args.region, &args.to, &moving))?.map_err(delivery_failure)?;
    super::tell(
        global,
        |by| {
            let words = moving.reason.as_deref();
            Some(masterctl_app::notify::of::release(
                &args.region,
                &args.to,
                false,
                by,
                words,
            ))
        },
        output,
    );
    output.render(&Shown(done));
    Ok(())
}

#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(RolledBack);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let r = &self.0;
        if !r.moved {
            output.line(format!(
                "release {} is already current for {}; nothing moved",
                short_release(&r.release),
                r.region
            ));
            return;
        }
        output.line(format!(
            "{} {} to release {} (was {})",
            output.bold("rolled back"),
            r.region,
            short_release(&r.release),
            r.previous
                .as_deref()
                .map_or_else(|| "nothing".to_string(), short_release)
        ));
    }
}
