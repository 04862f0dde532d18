//! A write with a remote around it, as `import`, `rebase`, `merge` and `l10n import`
//! make it with `--pull --push` and as the console makes every write when it serves
//! with a remote: each branch the write reads first takes what the remote has of it; a
//! branch that cannot take it cleanly (both sides changed a cell, or a join is stopped
//! on it) stops everything before the write; after a write that committed, the branch it
//! moved is sent (pulling and pushing again while another clone beat it).

use masterctl_store::remote::{self, Pulled, RemoteError, Scope, Sent};
use masterctl_store::{Branch, MasterRepo, StoreError, Structure};

/// The remote, and what to do with it around a write.
#[derive(Debug, Clone)]
pub struct Remote {
    pub name: masterctl_store::names::RemoteName,
    /// Take the remote's side of each branch the write reads, first.
    pub pull: bool,
    /// Send the branch the write committed on, after.
    pub push: bool,
}

impl Remote {
    /// The remote `name` of the repository (refused when it names none), to pull from
    /// and push to as asked.
    pub fn named(
        repo: &MasterRepo,
        name: &str,
        pull: bool,
        push: bool,
    ) -> Result<Remote, RemoteError> {
        Ok(Remote {
            name: remote::remote_of(repo, name)?,
            pull,
            push,
        })
    }
}

/// A write's result with the pulls before it and the push after it.
#[derive(Debug)]
pub struct Synced<T> {
    pub result: T,
    pub pulled: Vec<Pulled>,
    pub pushed: Push,
}

/// What became of sending the branch after the write.
#[derive(Debug)]
pub enum Push {
    /// Not asked for, or nothing was committed.
    No,
    /// Sent: whether it landed is [`Sent::landed`].
    Sent(Sent),
    /// Sending failed; the commit is kept here.
    Failed(RemoteError),
}

/// What a write with a remote around it came to.
#[derive(Debug)]
pub enum Around<T> {
    /// A branch it reads could not take the remote's side cleanly: nothing was written.
    /// Every pull made, the stopped ones among them.
    Stopped(Vec<Pulled>),
    /// The write ran.
    Done(Synced<T>),
}

/// `write` on `repo` with `remote` around it: each of `reads` pulled first (when asked),
/// then the write, then — when `committed` says it committed — `moved` sent (when
/// asked). Without a remote, just the write.
pub fn around<T, E: From<StoreError> + From<RemoteError>>(
    repo: &MasterRepo,
    remote: Option<&Remote>,
    reads: &[Branch],
    moved: &Branch,
    write: impl FnOnce(&MasterRepo) -> Result<T, E>,
    committed: impl FnOnce(&T) -> bool,
) -> Result<Around<T>, E> {
    let Some(remote) = remote.filter(|r| r.pull || r.push) else {
        let result = write(repo)?;
        return Ok(Around::Done(Synced {
            result,
            pulled: Vec::new(),
            pushed: Push::No,
        }));
    };
    // Read once: what the pulls and the push check the branches against.
    let structure = repo.structure()?;
    let pulled = match remote.pull {
        true => pull_each(repo, &structure, &remote.name, reads)?,
        false => Vec::new(),
    };
    if pulled.iter().any(Pulled::stopped) {
        return Ok(Around::Stopped(pulled));
    }
    let result = write(repo)?;
    let pushed = match remote.push && committed(&result) {
        true => push_through(repo, &structure, &remote.name, moved),
        false => Push::No,
    };
    Ok(Around::Done(Synced {
        result,
        pulled,
        pushed,
    }))
}

/// Each branch pulled, in turn (all of them, so that every stopped one is said).
fn pull_each(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &masterctl_store::names::RemoteName,
    lines: &[Branch],
) -> Result<Vec<Pulled>, RemoteError> {
    let mut pulled = Vec::new();
    for line in lines {
        let scope = Scope::Branch(line.clone());
        pulled.extend(remote::pull(repo, structure, remote, &scope)?);
    }
    Ok(pulled)
}

/// `line` sent to the remote, pulling and pushing again while it moves.
fn push_through(
    repo: &MasterRepo,
    structure: &Structure,
    remote: &masterctl_store::names::RemoteName,
    line: &Branch,
) -> Push {
    let sent = remote::push_through(
        repo,
        structure,
        remote,
        line,
        remote::push_through::ATTEMPTS,
    );
    match sent {
        Ok(sent) => Push::Sent(sent),
        Err(e) => Push::Failed(e),
    }
}
