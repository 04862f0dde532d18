//! A shared remote — a git host, or a bare repository on a server — that a studio's
//! clones pull from and push to. Only region branches, work branches (`work/…`) and
//! version tags (`masters/…`) move; the structure branch never does, and nothing is
//! ever forced. [`pull`] fast-forwards, or joins a branch both sides moved with the
//! keyed three-way merge; [`push`] refuses a branch the remote moved ("pull first").

mod error;
mod local;
mod proposals;
pub mod pull;
pub mod push;
pub mod push_through;
mod transport;

pub use error::RemoteError;
pub use pull::{PullState, Pulled, pull};
pub use push::{PushOutcome, PushState, Pushed, push};
pub use push_through::{Sent, push_through};
pub use transport::{Trouble, shown_url};

use std::collections::HashMap;

use git2::Oid;
use masterctl_schemas::Project;

use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Branch, Region, RemoteName, VERSION_TAGS, WorkBranch};
use masterctl_git::Error as GitError;

/// Where a fetch keeps the remote's version tags (they become local tags only where
/// this clone has none of that name).
fn remote_tags(remote: &RemoteName) -> String {
    format!("refs/masterctl/remote-tags/{remote}/")
}

/// Where a fetch keeps the remote's audit log.
fn audit_tracking(remote: &RemoteName) -> String {
    format!("refs/masterctl/remote-audit/{remote}")
}

/// This clone's audit log joined with the remote's, as just fetched.
fn join_audit(repo: &MasterRepo, remote: &RemoteName) -> Result<(), RemoteError> {
    if let Ok(theirs) = repo.git.refname_to_id(&audit_tracking(remote)) {
        crate::audit::join(repo, theirs)?;
    }
    Ok(())
}

/// Which branches a pull or push moves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every region's branch and every work branch, here or on the remote.
    All,
    /// One region's branch and its work branches.
    Region(Region),
    /// One branch.
    Branch(Branch),
}

/// The remote `name` of the repository, checked against its configuration.
pub fn remote_of(repo: &MasterRepo, name: &str) -> Result<RemoteName, RemoteError> {
    let remote = RemoteName::of(name)?;
    if repo.git.find_remote(remote.name()).is_err() {
        let known = repo
            .git
            .remotes()
            .map(|names| {
                names
                    .iter()
                    .flatten()
                    .flatten()
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        return Err(RemoteError::NoRemote {
            name: remote.to_string(),
            known,
        });
    }
    Ok(remote)
}

/// Fetch the region and work branches of `regions`, and the version tags, into this
/// clone's tracking references (`refs/remotes/<remote>/…`). Tags the clone lacks are
/// made; a tag it holds with another commit is left as it is here. A branch the remote
/// rewrote is [`RemoteError::Rewritten`].
pub(crate) fn fetch(
    repo: &MasterRepo,
    remote: &RemoteName,
    regions: &[Region],
) -> Result<(), RemoteError> {
    let git = &repo.git;
    let mut handle = git.find_remote(remote.name())?;
    let url = handle.url().unwrap_or_default().to_string();
    // (theirs, ours): a branch or a namespace of the remote, and where this clone keeps
    // what it saw there.
    let mut wanted = Vec::new();
    for region in regions {
        let branch = region.branch();
        wanted.push((format!("refs/heads/{branch}"), remote.tracking(branch)));
        let work = format!("work/{}", region.name());
        wanted.push((
            format!("refs/heads/{work}/"),
            format!("{}/", remote.tracking(&work)),
        ));
    }
    let tags = VERSION_TAGS
        .strip_prefix("refs/tags/")
        .unwrap_or(VERSION_TAGS);
    wanted.push((
        VERSION_TAGS.to_string(),
        format!("{}{tags}", remote_tags(remote)),
    ));
    let proposals_seen = proposals::tracking(remote);
    wanted.push((proposals::PROPOSALS.to_string(), proposals_seen.clone()));
    let audit_seen = audit_tracking(remote);
    wanted.push((crate::audit::AUDIT.to_string(), audit_seen.clone()));
    let tracking = format!("refs/remotes/{remote}/");
    let tags_seen = remote_tags(remote);
    let moved = [
        tracking.as_str(),
        tags_seen.as_str(),
        VERSION_TAGS,
        proposals_seen.as_str(),
        proposals::PROPOSALS,
        audit_seen.as_str(),
        crate::audit::AUDIT,
        "packed-refs",
    ];
    // A repository on this machine: its objects copied as one pack, no negotiation.
    if let Some(path) = local::local_path(&url) {
        let source = local::open_remote(&path).map_err(|e| match e {
            RemoteError::Store(StoreError::Git(GitError::Git(e))) => {
                transport::failure(remote, &url, &e)
            }
            e => e,
        })?;
        let found = references_of(&source.git, &wanted)?;
        let tips: Vec<Oid> = found.iter().map(|(_, id)| *id).collect();
        crate::git::pack::copy_reachable(&source.git, &repo.git, &tips)?;
        return crate::git::refs::with_refs_update(repo, &moved, || {
            let before = tracked(repo, remote)?;
            let proposed = proposals::seen(repo, &proposals_seen)?;
            set_tracking(repo, &wanted, &found)?;
            refuse_rewritten(repo, remote, &before)?;
            adopt_tags(repo, remote, regions)?;
            proposals::take(repo, remote, regions, &proposed)?;
            join_audit(repo, remote)
        });
    }
    let refspecs: Vec<String> = wanted
        .iter()
        .map(|(theirs, ours)| match theirs.ends_with('/') {
            true => format!("+{theirs}*:{ours}*"),
            false => format!("+{theirs}:{ours}"),
        })
        .collect();
    let mut options = git2::FetchOptions::new();
    options.remote_callbacks(transport::callbacks(git.config()?));
    options.download_tags(git2::AutotagOption::None);
    options.update_fetchhead(false);
    // The network first, writing only objects; then the references, recorded so that
    // a process killed while writing them leaves no lock the next one trips on.
    handle
        .download(&refspecs, Some(&mut options))
        .map_err(|e| transport::failure(remote, &url, &e))?;
    let updated = crate::git::refs::with_refs_update(repo, &moved, || {
        let before = tracked(repo, remote)?;
        let proposed = proposals::seen(repo, &proposals_seen)?;
        let failed = |e: git2::Error| transport::failure(remote, &url, &e);
        handle
            .update_tips(
                None,
                git2::RemoteUpdateFlags::empty(),
                git2::AutotagOption::None,
                Some("masterctl pull"),
            )
            .map_err(failed)?;
        handle.prune(None).map_err(failed)?;
        refuse_rewritten(repo, remote, &before)?;
        adopt_tags(repo, remote, regions)?;
        proposals::take(repo, remote, regions, &proposed)?;
        join_audit(repo, remote)
    });
    let _ = handle.disconnect();
    updated
}

/// The references of `source` that `wanted` names (a reference, or a namespace ending
/// in `/`), each with where this clone keeps it.
fn references_of(
    source: &git2::Repository,
    wanted: &[(String, String)],
) -> Result<Vec<(String, Oid)>, RemoteError> {
    let mut found = Vec::new();
    for (theirs, ours) in wanted {
        if !theirs.ends_with('/') {
            if let Ok(id) = source.refname_to_id(theirs) {
                found.push((ours.clone(), id));
            }
            continue;
        }
        for reference in source.references_glob(&format!("{theirs}*"))? {
            let reference = reference?;
            if let (Ok(name), Some(id)) = (reference.name(), reference.target())
                && let Some(rest) = name.strip_prefix(theirs.as_str())
            {
                found.push((format!("{ours}{rest}"), id));
            }
        }
    }
    Ok(found)
}

/// Point this clone's tracking references at what the remote holds (`found`), and drop
/// those of `wanted`'s names the remote no longer has.
fn set_tracking(
    repo: &MasterRepo,
    wanted: &[(String, String)],
    found: &[(String, Oid)],
) -> Result<(), RemoteError> {
    let git = &repo.git;
    for (reference, id) in found {
        if git2::Reference::is_valid_name(reference) {
            git.reference(reference, *id, true, "masterctl pull")?;
        }
    }
    for (_, ours) in wanted {
        let pattern = match ours.ends_with('/') {
            true => format!("{ours}*"),
            false => ours.clone(),
        };
        let stale: Vec<String> = git
            .references_glob(&pattern)?
            .flatten()
            .filter_map(|r| r.name().ok().map(str::to_string))
            .filter(|name| !found.iter().any(|(f, _)| f == name))
            .collect();
        for name in stale {
            if let Ok(mut reference) = git.find_reference(&name) {
                reference.delete()?;
            }
        }
    }
    Ok(())
}

/// A tracking reference the fetch moved to a commit that does not contain where it was
/// (the remote's branch was rewritten, force-pushed): set back, so that every pull and
/// push says so again until someone decides, and refused.
fn refuse_rewritten(
    repo: &MasterRepo,
    remote: &RemoteName,
    before: &HashMap<String, Oid>,
) -> Result<(), RemoteError> {
    let git = &repo.git;
    let mut rewritten = None;
    for (reference, was) in before {
        let Some(now) = repo.head_of(reference)?.map(|c| c.id()) else {
            continue;
        };
        if now != *was && !git.graph_descendant_of(now, *was)? {
            git.reference(reference, *was, true, "masterctl: rewritten remote refused")?;
            rewritten.get_or_insert((reference.clone(), *was, now));
        }
    }
    match rewritten {
        Some((reference, was, now)) => Err(RemoteError::Rewritten {
            remote: remote.to_string(),
            branch: reference
                .strip_prefix(&format!("refs/remotes/{remote}/"))
                .unwrap_or(&reference)
                .to_string(),
            was: was.to_string(),
            now: now.to_string(),
        }),
        None => Ok(()),
    }
}

/// Every tracking reference of `remote`, by reference name.
fn tracked(repo: &MasterRepo, remote: &RemoteName) -> Result<HashMap<String, Oid>, RemoteError> {
    let mut out = HashMap::new();
    for reference in repo
        .git
        .references_glob(&format!("refs/remotes/{remote}/*"))?
    {
        let reference = reference?;
        if let (Ok(name), Some(target)) = (reference.name(), reference.target()) {
            out.insert(name.to_string(), target);
        }
    }
    Ok(out)
}

/// Make the remote's version tags this clone lacks; never move one it has. Only a
/// version of one of `regions` that is an annotated tag of a commit is taken
/// ([`adoptable`]); others are passed over ([`passed_over`] names them).
fn adopt_tags(
    repo: &MasterRepo,
    remote: &RemoteName,
    regions: &[Region],
) -> Result<(), RemoteError> {
    let git = &repo.git;
    for (tag, reference) in remote_tag_references(repo, remote)? {
        let local = format!("refs/tags/{tag}");
        if adoptable(git, &tag, &reference, regions).is_ok()
            && git.find_reference(&local).is_err()
            && let Some(target) = reference.target()
        {
            // Another process making the same tag now is the only way this fails.
            let _ = git.reference(&local, target, false, "masterctl pull: tag");
        }
    }
    Ok(())
}

/// The remote's version tags as this clone last fetched them: each tag's name
/// (`masters/jp/1.0`) and its tracking reference.
fn remote_tag_references<'r>(
    repo: &'r MasterRepo,
    remote: &RemoteName,
) -> Result<Vec<(String, git2::Reference<'r>)>, RemoteError> {
    let prefix = remote_tags(remote);
    let mut found = Vec::new();
    for reference in repo.git.references_glob(&format!("{prefix}*"))? {
        let reference = reference?;
        let tag = match reference.name_bytes().strip_prefix(prefix.as_bytes()) {
            Some(tag) => String::from_utf8_lossy(tag).into_owned(),
            None => continue,
        };
        found.push((tag, reference));
    }
    Ok(found)
}

/// A tag of the remote a pull did not take, and why.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct PassedOver {
    /// Its name as the remote holds it (`masters/jp/1.0`); shown escaped.
    pub tag: String,
    pub why: &'static str,
}

/// A tag's name (`masters/jp/1.0`) as its region's name and the rest (`jp`, `1.0`).
fn region_and_version(tag: &str) -> Option<(&str, &str)> {
    tag.strip_prefix(VERSION_TAGS.trim_start_matches("refs/tags/"))?
        .split_once('/')
}

/// Whether this clone takes the remote's tag `tag` (`masters/<region>/<version>`):
/// a version of one of `regions` by the rule `tag create` keeps, and an annotated tag
/// of a commit. Anything else — a blob's tag, which every later pull failed to peel; a
/// name `tag create` would refuse — is passed over, with why.
fn adoptable(
    git: &git2::Repository,
    tag: &str,
    reference: &git2::Reference<'_>,
    regions: &[Region],
) -> Result<(), &'static str> {
    let version = region_and_version(tag).and_then(|(region, version)| {
        let region = regions.iter().find(|r| r.name() == region)?;
        crate::names::version_tag(region, version)
    });
    if version.as_deref() != Some(&format!("refs/tags/{tag}")) {
        return Err(
            "not a version of a region pulled (masters/<region>/<version>: ASCII letters, digits, `.`, `-`, `_`, `+`)",
        );
    }
    let commit = reference
        .target()
        .and_then(|id| git.find_tag(id).ok())
        .and_then(|annotated| annotated.target().ok())
        .and_then(|target| target.peel_to_commit().ok());
    match commit {
        Some(_) => Ok(()),
        None => Err("not an annotated tag of a commit (a version names one commit)"),
    }
}

/// The remote's version tags that a pull of `regions` passed over, each with why (as
/// last fetched). Another region's tags, which a pull of `scope` does not look at, are
/// not listed.
pub fn passed_over(
    repo: &MasterRepo,
    project: &Project,
    remote: &RemoteName,
    scope: &Scope,
) -> Result<Vec<PassedOver>, RemoteError> {
    let regions = &regions_of(project, scope)?;
    let all = Region::all(project);
    let mut out = Vec::new();
    for (tag, reference) in remote_tag_references(repo, remote)? {
        let another_region = region_and_version(&tag).is_some_and(|(region, _)| {
            !regions.iter().any(|r| r.name() == region) && all.iter().any(|r| r.name() == region)
        });
        if another_region {
            continue;
        }
        if let Err(why) = adoptable(&repo.git, &tag, &reference, regions) {
            out.push(PassedOver { tag, why });
        }
    }
    Ok(out)
}

/// The branches a scope names: the regions' own branches and their work branches, here
/// or on the remote (as last fetched).
pub(crate) fn lines_of(
    repo: &MasterRepo,
    project: &Project,
    remote: &RemoteName,
    scope: &Scope,
) -> Result<Vec<Branch>, RemoteError> {
    if let Scope::Branch(line) = scope {
        return Ok(vec![line.clone()]);
    }
    let regions = match scope {
        Scope::Region(region) => vec![region.clone()],
        _ => Region::all(project),
    };
    let mut lines = Vec::new();
    for region in regions {
        lines.push(Branch::from(region.clone()));
        let mut names: Vec<String> = crate::branches::work_branches(repo, &region)?
            .iter()
            .map(|w| w.name().to_string())
            .collect();
        let prefix = format!("{}/", remote.tracking(&format!("work/{}", region.name())));
        for reference in repo.git.references_glob(&format!("{prefix}*"))? {
            if let Ok(name) = reference?.name()
                && let Some(work) = name.strip_prefix(&prefix)
            {
                names.push(work.to_string());
            }
        }
        names.sort();
        names.dedup();
        for name in names {
            // A remote branch whose name a planner could not give is left alone.
            if let Ok(work) = WorkBranch::of(&region, &name) {
                lines.push(Branch::from(work));
            }
        }
    }
    Ok(lines)
}

/// The regions a scope's branches belong to. Only `masters/…` and `work/…` branches
/// move: a region whose branch is elsewhere (the structure's, another) is refused
/// before anything is fetched.
fn regions_of(project: &Project, scope: &Scope) -> Result<Vec<Region>, RemoteError> {
    let regions = match scope {
        Scope::All => Region::all(project),
        Scope::Region(region) => vec![region.clone()],
        Scope::Branch(line) => vec![line.region().clone()],
    };
    match regions.iter().find(|r| !r.branch().starts_with("masters/")) {
        Some(region) => Err(StoreError::NotMasters {
            region: region.name().to_string(),
            branch: region.branch().to_string(),
        }
        .into()),
        None => Ok(regions),
    }
}

/// How a branch stands against the remote, as this clone last saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Tracking {
    /// Commits here the remote lacks.
    pub ahead: usize,
    /// Commits on the remote this clone has not taken.
    pub behind: usize,
}

/// Where `line` stands against `remote` as last fetched (`None`: one side lacks it).
pub fn tracking(
    repo: &MasterRepo,
    remote: &RemoteName,
    line: &Branch,
) -> Result<Option<Tracking>, StoreError> {
    let local = repo.head_of(&line.reference())?;
    let theirs = repo.head_of(&remote.tracking(line.branch()))?;
    let (Some(local), Some(theirs)) = (local, theirs) else {
        return Ok(None);
    };
    let (ahead, behind) = repo.git.graph_ahead_behind(local.id(), theirs.id())?;
    Ok(Some(Tracking { ahead, behind }))
}
