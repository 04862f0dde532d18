//! Versions of the masters: annotated tags `masters/<region>/<version>` on commits of a
//! region's history. A tag is never moved nor overwritten; any command that takes a
//! revision takes one (its full name, or the version alone where the region is known).

use git2::Oid;
use serde::Serialize;

use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Region, display_name, one_line, version_tag};

const PREFIX: &str = crate::names::VERSION_TAGS;

/// One version, as `tag list` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Version {
    /// `masters/jp/1.4`.
    pub tag: String,
    pub region: String,
    pub version: String,
    pub commit: String,
    pub tagger: String,
    /// Seconds since the epoch.
    pub time: i64,
    pub message: String,
}

/// What `tag create` is asked.
pub struct TagRequest<'a> {
    pub version: &'a str,
    /// A commit of the region's history (`None`: its head).
    pub rev: Option<&'a str>,
    pub message: Option<&'a str>,
}

/// Tag a commit of `region`'s history as `version`. A version that exists is refused
/// (a version names one commit for ever), and so is a commit the region's branch does
/// not hold.
pub fn create(
    repo: &MasterRepo,
    region: &Region,
    request: &TagRequest<'_>,
) -> Result<Version, StoreError> {
    let git = &repo.git;
    let name = version_tag(region, request.version)
        .ok_or_else(|| StoreError::BadVersion(display_name(request.version)))?;
    let head = repo
        .head_of(&region.reference())?
        .ok_or_else(|| masterctl_git::Error::NoBranch(region.name().to_string()))?;
    let commit = match request.rev {
        Some(rev) => crate::git::repo::resolve(git, rev)?,
        None => head.clone(),
    };
    if commit.id() != head.id() && !git.graph_descendant_of(head.id(), commit.id())? {
        return Err(StoreError::NotInHistory {
            revision: display_name(request.rev.unwrap_or_default()),
            branch: region.branch().to_string(),
        });
    }
    let short = &name["refs/tags/".len()..];
    if git.find_reference(&name).is_ok() {
        return Err(StoreError::TagExists(short.to_string()));
    }
    let tagger = crate::git::refs::author(repo)?;
    let message = match request.message.map(str::trim).filter(|m| !m.is_empty()) {
        Some(words) => format!("{}\n", one_line(words)),
        None => format!("{short}\n"),
    };
    git.tag(short, commit.as_object(), &tagger, &message, false)
        .map_err(|e| match e.code() {
            git2::ErrorCode::Exists => StoreError::TagExists(short.to_string()),
            _ => e.into(),
        })?;
    version_at(repo, &name)?.ok_or_else(|| StoreError::TagExists(short.to_string()))
}

/// Every version of `region` (of every region when `None`), oldest first.
pub fn list(repo: &MasterRepo, region: Option<&Region>) -> Result<Vec<Version>, StoreError> {
    let pattern = match region {
        Some(region) => format!("{PREFIX}{}/*", region.name()),
        None => format!("{PREFIX}*"),
    };
    let mut versions = Vec::new();
    for reference in repo.git.references_glob(&pattern)? {
        let Ok(name) = reference?.name().map(str::to_string) else {
            continue;
        };
        versions.extend(version_at(repo, &name)?);
    }
    versions.sort_by(|a, b| (a.time, &a.tag).cmp(&(b.time, &b.tag)));
    Ok(versions)
}

/// The versions of `region` that name `commit` (a release built from it records them).
pub fn versions_of(
    repo: &MasterRepo,
    region: &Region,
    commit: Oid,
) -> Result<Vec<String>, StoreError> {
    Ok(list(repo, Some(region))?
        .into_iter()
        .filter(|v| v.commit == commit.to_string())
        .map(|v| v.tag)
        .collect())
}

/// The version a tag reference holds; `None` for a reference that is not a region's
/// version (a lightweight tag, a name of another shape).
fn version_at(repo: &MasterRepo, reference: &str) -> Result<Option<Version>, StoreError> {
    let Some(rest) = reference.strip_prefix(PREFIX) else {
        return Ok(None);
    };
    let Some((region, version)) = rest.split_once('/') else {
        return Ok(None);
    };
    let found = repo.git.find_reference(reference)?;
    let Ok(tag) = found.peel_to_tag() else {
        return Ok(None);
    };
    // A tag of a blob or a tree (made with git, or taken from a remote before pulls
    // checked) is no version.
    let Ok(commit) = tag.target().and_then(|target| target.peel_to_commit()) else {
        return Ok(None);
    };
    let tagger = tag.tagger();
    Ok(Some(Version {
        tag: reference["refs/tags/".len()..].to_string(),
        region: region.to_string(),
        version: version.to_string(),
        commit: commit.id().to_string(),
        tagger: tagger
            .as_ref()
            .and_then(|t| t.name().ok().map(str::to_string))
            .unwrap_or_default(),
        time: tagger.as_ref().map_or(0, |t| t.when().seconds()),
        message: String::from_utf8_lossy(tag.message_bytes().unwrap_or_default())
            .trim()
            .to_string(),
    }))
}

/// The versions that name the commit the build in `dir` was made from (what a publish
/// records with the release). Nothing when the folder holds no build of a region of
/// this repository.
pub fn versions_of_build(
    repo: &MasterRepo,
    project: &masterctl_schemas::Project,
    dir: &std::path::Path,
) -> Vec<String> {
    use masterctl_runtime::manifest::{MANIFEST, MANIFEST_LIMIT};
    let path = dir.join(MANIFEST);
    let Ok(Some(bytes)) = masterctl_runtime::files::read_regular(&path, MANIFEST_LIMIT) else {
        return Vec::new();
    };
    let Ok(manifest) = serde_json::from_slice::<masterctl_runtime::Manifest>(&bytes) else {
        return Vec::new();
    };
    let (Ok(region), Ok(commit)) = (
        Region::of(project, &manifest.region),
        Oid::from_str(&manifest.source_commit),
    ) else {
        return Vec::new();
    };
    versions_of(repo, &region, commit).unwrap_or_default()
}
