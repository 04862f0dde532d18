//! A region's import history, read back from its commits: time, author, the planner's
//! words, per-table counts, source files, exchange files of translations and import
//! points of rebases.

use masterctl_schemas::value::DateTime;

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::commit::{
    MERGED_TRAILER, MERGED_WORK_TRAILER, PULLED_TRAILER, SOURCE_TRAILER, TRANSLATION_TRAILER,
    UPSTREAM_BASE_TRAILER, UPSTREAM_TRAILER,
};

/// One commit of a region branch, as an import record.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ImportRecord {
    pub commit: String,
    /// When, in the author's own offset: `2026-11-29T23:15:00+09:00`.
    pub time: String,
    pub author: String,
    pub email: String,
    pub subject: String,
    /// `item: 2 added, 1 changed, 0 removed` lines.
    pub tables: Vec<String>,
    /// `items.xlsx sha256:…` values of the source trailers.
    pub sources: Vec<String>,
    /// For translations taken back: `en po en.po sha256:…`.
    pub translations: Vec<String>,
    /// For a rebase: the upstream commit taken, and the import point it started from.
    pub upstream: Option<String>,
    pub upstream_base: Option<String>,
    /// For a merge of a work branch or a pull: the branch (`work/jp/event`,
    /// `origin/masters/jp`), and its commit taken.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged_branch: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub merged: Option<String>,
}

/// The first-parent history of a branch, newest first, at most `limit` records.
pub fn history(
    repo: &MasterRepo,
    reference: &str,
    limit: usize,
) -> Result<Vec<ImportRecord>, StoreError> {
    Ok(history_from(repo, reference, None, limit)?.records)
}

/// A stretch of a branch's history: its records, and the commit the next older stretch
/// starts at (none: the branch's first commit is among them).
#[derive(Debug, serde::Serialize)]
pub struct Stretch {
    pub records: Vec<ImportRecord>,
    pub older: Option<String>,
}

/// The first-parent history of the branch `reference` names, newest first, from the
/// commit `from` (a commit id of that history: a link to older commits that stays
/// true as the branch moves on) or its head, at most `limit` records. A commit outside
/// that history is [`StoreError::NotInHistory`].
pub fn history_from(
    repo: &MasterRepo,
    reference: &str,
    from: Option<&str>,
    limit: usize,
) -> Result<Stretch, StoreError> {
    let head = repo.head_of(reference)?;
    let mut next = match from {
        Some(from) => Some(first_parent_commit(
            repo,
            head,
            from,
            reference.trim_start_matches("refs/heads/"),
        )?),
        None => head,
    };
    let mut records = Vec::new();
    while let Some(commit) = next {
        if records.len() >= limit {
            return Ok(Stretch {
                records,
                older: Some(commit.id().to_string()),
            });
        }
        records.push(record(&commit));
        next = commit.parents().next();
    }
    Ok(Stretch {
        records,
        older: None,
    })
}

/// The commit `named` (its id, or the start of one) of the first-parent history that
/// runs back from `head`: the commits of a branch's own line, as its history lists
/// them. A commit elsewhere — another branch's, or one a merge brought in — is
/// [`StoreError::NotInHistory`] of `branch`.
pub fn first_parent_commit<'r>(
    repo: &'r MasterRepo,
    head: Option<git2::Commit<'r>>,
    named: &str,
    branch: &str,
) -> Result<git2::Commit<'r>, StoreError> {
    let wanted = git2::Oid::from_str(&repo.commit_id(named)?)?;
    let mut next = head;
    while let Some(commit) = next {
        if commit.id() == wanted {
            return Ok(commit);
        }
        next = commit.parents().next();
    }
    Err(StoreError::NotInHistory {
        revision: named.to_string(),
        branch: branch.to_string(),
    })
}

/// One commit as an import record: its message's subject, table lines and trailers.
pub fn record(commit: &git2::Commit<'_>) -> ImportRecord {
    let message = commit.message().unwrap_or_default().to_string();
    let mut sources = Vec::new();
    let mut translations = Vec::new();
    let (mut upstream, mut upstream_base) = (None, None);
    let (mut merged_branch, mut merged) = (None, None);
    if let Ok(trailers) = git2::message_trailers_strs(&message) {
        for (key, value) in trailers.iter() {
            match key {
                SOURCE_TRAILER => sources.push(value.to_string()),
                TRANSLATION_TRAILER => translations.push(value.to_string()),
                UPSTREAM_TRAILER => upstream = Some(value.trim().to_string()),
                UPSTREAM_BASE_TRAILER => upstream_base = Some(value.trim().to_string()),
                MERGED_WORK_TRAILER | PULLED_TRAILER => {
                    merged_branch = Some(value.trim().to_string())
                }
                MERGED_TRAILER => merged = Some(value.trim().to_string()),
                _ => {}
            }
        }
    }
    let mut paragraphs = message.split("\n\n");
    let subject = paragraphs.next().unwrap_or_default().trim().to_string();
    let tables = paragraphs
        .next()
        .map(|p| {
            p.lines()
                .filter(|l| {
                    (l.contains(" added, ") || l.contains(" applied, "))
                        && !l.starts_with("Masterctl-")
                })
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let author = commit.author();
    ImportRecord {
        commit: commit.id().to_string(),
        time: local_time(commit.time().seconds(), commit.time().offset_minutes()),
        author: author.name().unwrap_or_default().to_string(),
        email: author.email().unwrap_or_default().to_string(),
        subject,
        tables,
        sources,
        translations,
        upstream,
        upstream_base,
        merged_branch,
        merged,
    }
}

/// `2026-11-29T23:15:00+09:00`: a commit's time in its author's own offset.
fn local_time(seconds: i64, offset_minutes: i32) -> String {
    let local = DateTime((seconds + i64::from(offset_minutes) * 60) * 1000).to_string();
    let local = local.strip_suffix('Z').unwrap_or(&local);
    let sign = if offset_minutes < 0 { '-' } else { '+' };
    let offset = offset_minutes.unsigned_abs();
    format!("{local}{sign}{:02}:{:02}", offset / 60, offset % 60)
}
