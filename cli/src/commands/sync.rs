//! What `pull`, `push` and the `--pull --push` of import, rebase, merge and l10n import
//! share: the flags, showing what a pull or a push did to each branch, and a command's
//! result shown together with the pull before it and the push after it.

use masterctl_app::sync::{Around, Push, Remote};
use masterctl_store::join::session::Step;
use masterctl_store::remote::{self, PullState, Pulled, PushState, Pushed, Scope, Sent};
use masterctl_store::{MasterRepo, Structure, short_id};
use serde::Serialize;

use super::{Failure, remote_failure, store_failure};
use crate::output::{Output, Render, counted};

/// Which branches `pull` and `push` move, and with which remote.
#[derive(clap::Args, Debug, Clone)]
pub struct ScopeArgs {
    /// The remote (a name of `git remote`)
    #[arg(long, value_name = "NAME", default_value = masterctl_app::project::DEFAULT_REMOTE)]
    pub remote: String,
    /// Only this region (its branch and its work branches)
    #[arg(long, value_name = "R", conflicts_with = "all")]
    pub region: Option<String>,
    /// Only this work branch of the region
    #[arg(long, value_name = "NAME", requires = "region")]
    pub branch: Option<String>,
    /// Every region and work branch (the default)
    #[arg(long)]
    pub all: bool,
}

impl ScopeArgs {
    /// The branches named, checked against the project.
    pub fn scope(&self, structure: &Structure) -> Result<Scope, Failure> {
        Ok(match (&self.region, &self.branch) {
            (Some(region), Some(work)) => {
                Scope::Branch(super::line(structure, region, Some(work))?)
            }
            (Some(region), None) => Scope::Region(super::region(structure, region)?),
            (None, _) => Scope::All,
        })
    }
}

/// `--pull`, `--push`, `--remote`.
#[derive(clap::Args, Debug, Clone)]
pub struct SyncArgs {
    /// First take what the remote has of the branch (a fast-forward, or the keyed
    /// merge when both moved)
    #[arg(long)]
    pub pull: bool,
    /// Then push what was committed; when another clone pushed first, pull and push
    /// again (at most 5 times)
    #[arg(long)]
    pub push: bool,
    /// The remote to pull from and push to
    #[arg(long, value_name = "NAME", default_value = masterctl_app::project::DEFAULT_REMOTE)]
    pub remote: String,
}

impl SyncArgs {
    /// Whether --pull or --push is given: the command reaches the remote.
    pub fn reaches_the_remote(&self) -> bool {
        self.pull || self.push
    }

    /// The remote to pull from and push to, as asked (`None` when neither --pull nor
    /// --push is given); a remote the repository does not name is refused.
    pub fn remote(&self, repo: &MasterRepo) -> Result<Option<Remote>, Failure> {
        if !self.reaches_the_remote() {
            return Ok(None);
        }
        Remote::named(repo, &self.remote, self.pull, self.push)
            .map(Some)
            .map_err(remote_failure)
    }
}

impl SyncArgs {
    /// `write` on the branch `region` (or its work branch `work`), with the remote
    /// around it as asked (`committed` says whether the write committed, to be pushed),
    /// taken apart for showing ([`ran`]).
    pub fn around<T, W: Into<Failure>>(
        &self,
        repo: &MasterRepo,
        region: &str,
        work: Option<&str>,
        output: &Output,
        write: impl FnOnce(&MasterRepo) -> Result<T, W>,
        committed: impl FnOnce(&T) -> bool,
    ) -> Result<(T, Vec<Pulled>, Option<Sent>), Failure> {
        let remote = self.remote(repo)?;
        let line = super::line(&repo.structure().map_err(store_failure)?, region, work)?;
        let around = masterctl_app::sync::around(
            repo,
            remote.as_ref(),
            std::slice::from_ref(&line),
            &line,
            |repo| write(repo).map_err(Into::into),
            committed,
        )?;
        ran(around, output)
    }
}

/// A write with the remote around it, taken apart for showing: a pull that stopped is
/// shown and ends the command (exit 1: nothing else is done on a branch that waits for
/// a resolution); a push that failed is the command's failure (the commit is kept here).
pub fn ran<T>(
    around: Around<T>,
    output: &Output,
) -> Result<(T, Vec<Pulled>, Option<Sent>), Failure> {
    match around {
        Around::Stopped(pulled) => {
            output.show(&PulledShown {
                ok: false,
                branches: &pulled,
                passed_over: &[],
            });
            Err(Failure::Shown)
        }
        Around::Done(synced) => match synced.pushed {
            Push::Failed(e) => Err(remote_failure(e)),
            Push::Sent(sent) => Ok((synced.result, synced.pulled, Some(sent))),
            Push::No => Ok((synced.result, synced.pulled, None)),
        },
    }
}

/// A command's result with the pull before it and the push after it. Its JSON is the
/// result's, with `pulled` and `pushed` beside it when they happened.
#[derive(Serialize)]
pub struct Synced<'a, T: Render> {
    #[serde(flatten)]
    pub result: &'a T,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub pulled: &'a [Pulled],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pushed: Option<&'a Sent>,
}

impl<T: Render> Synced<'_, T> {
    /// Show the result (`ok` false when the push did not land) and say how the command
    /// ends: a push the remote kept refusing is exit 2.
    pub fn show(&self, output: &Output) -> Result<(), Failure> {
        let refused = self
            .pushed
            .is_some_and(|sent| !sent.landed() || sent.stopped().is_some());
        if !refused {
            output.render(self);
            return Ok(());
        }
        #[derive(Serialize)]
        struct Refused<'s, S: Serialize> {
            ok: bool,
            #[serde(flatten)]
            shown: &'s S,
        }
        impl<S: Render> Render for Refused<'_, S> {
            fn text(&self, output: &Output) {
                self.shown.text(output);
            }
        }
        output.show(&Refused {
            ok: false,
            shown: self,
        });
        Err(Failure::ShownRefused)
    }
}

impl<T: Render> Render for Synced<'_, T> {
    fn text(&self, output: &Output) {
        pulled_lines(output, self.pulled);
        self.result.text(output);
        if let Some(sent) = self.pushed {
            sent_lines(output, sent);
        }
    }
}

/// What a pull did to each branch, and the remote's tags it did not take.
#[derive(Serialize)]
pub struct PulledShown<'a> {
    pub ok: bool,
    pub branches: &'a [Pulled],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    pub passed_over: &'a [remote::PassedOver],
}

impl Render for PulledShown<'_> {
    fn text(&self, output: &Output) {
        pulled_lines(output, self.branches);
        for passed in self.passed_over {
            output.line(format!(
                "tag {} passed over: {}",
                passed.tag.escape_debug(),
                passed.why
            ));
        }
    }
}

/// A line per branch a pull did something to (an up-to-date branch says nothing).
pub fn pulled_lines(output: &Output, pulled: &[Pulled]) {
    for p in pulled {
        let branch = &p.branch;
        match &p.state {
            PullState::UpToDate | PullState::LocalOnly => {}
            PullState::Ahead { commits } => output.line(format!(
                "{branch}: {} here the remote lacks (push sends them)",
                counted(*commits, "commit")
            )),
            PullState::Created { head } => {
                output.line(format!("{branch}: made at {}", short_id(head)))
            }
            PullState::FastForward { from, to } => output.line(format!(
                "{branch}: {} → {} (fast-forward)",
                short_id(from),
                short_id(to)
            )),
            PullState::Merged { commit, .. } => output.line(format!(
                "{branch}: both sides moved; {} {} keeps both",
                output.bold("merged"),
                short_id(commit)
            )),
            PullState::Stopped { step } => {
                let again = continue_command(p);
                output.line(format!("{branch}: both sides moved, and the merge stopped"));
                match step.as_ref() {
                    Step::Conflicts {
                        conflicts,
                        conflict_file,
                    } => super::conflicts::conflict_lines(
                        output,
                        conflicts,
                        conflict_file.as_deref(),
                        &again,
                    ),
                    Step::Invalid { report, .. } => {
                        output.diagnostics(report);
                        output.line(format!(
                            "{} the merged data is not valid; nothing was committed: `{again} --abort`, then fix the data on either side",
                            output.bold("rejected:")
                        ));
                    }
                    _ => {}
                }
            }
            PullState::InProgress { kind } => output.line(format!(
                "{branch}: a {kind} is stopped on it: left alone until it is continued or aborted"
            )),
        }
    }
}

/// The pull that continues a branch's stopped pull.
fn continue_command(p: &Pulled) -> String {
    match &p.work {
        Some(work) => format!("masterctl pull --region {} --branch {work}", p.region),
        None => format!("masterctl pull --region {}", p.region),
    }
}

/// What pushing did to each branch.
pub fn pushed_lines(output: &Output, pushed: &[Pushed]) {
    for p in pushed {
        let branch = &p.branch;
        match &p.state {
            PushState::UpToDate => {}
            PushState::Pushed { from: None, to } => output.line(format!(
                "{branch}: {} at {}",
                output.bold("pushed"),
                short_id(to)
            )),
            PushState::Pushed {
                from: Some(from),
                to,
            } => output.line(format!(
                "{branch}: {} {} → {}",
                output.bold("pushed"),
                short_id(from),
                short_id(to)
            )),
            PushState::PullFirst { behind, .. } => output.line(format!(
                "{branch}: {} the remote has {} this clone lacks: pull first (nothing was sent)",
                output.bold("refused:"),
                counted(*behind, "commit")
            )),
            PushState::Rejected { message } => output.line(format!(
                "{branch}: {} the remote said: {message} (nothing changed there)",
                output.bold("refused:")
            )),
        }
    }
}

/// What sending a branch after a commit came to.
fn sent_lines(output: &Output, sent: &Sent) {
    pulled_lines(output, &sent.pulls);
    pushed_lines(output, sent.push.as_slice());
    for tag in &sent.tags {
        output.line(format!("{tag}: pushed"));
    }
    for proposal in &sent.proposals {
        output.line(proposal);
    }
    if !sent.landed() && sent.stopped().is_none() {
        output.line(format!(
            "gave up after {}: the remote kept moving; pull and push again",
            counted(sent.attempts, "push")
        ));
    }
}
