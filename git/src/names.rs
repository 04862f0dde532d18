//! Names from users and from commits, checked or escaped before they reach a path, a
//! reference, a commit message or a terminal.
//!
//! A [`Region`] is obtainable only from a loaded project, whose loader has checked the
//! region's name (a plain identifier) and its branch (a name git accepts): code that
//! joins a region into a path or a reference cannot be handed an unchecked string.

use masterctl_schemas::Project;

use crate::Error;

/// A region declared in `masterctl.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    name: String,
    branch: String,
}

fn unknown_region(project: &Project, name: &str) -> Error {
    Error::UnknownRegion {
        name: display_name(name),
        known: project.config.regions.keys().cloned().collect(),
    }
}

impl Region {
    /// The region `name` of `project`; a name the project does not declare is
    /// [`Error::UnknownRegion`].
    pub fn of(project: &Project, name: &str) -> Result<Region, Error> {
        let config = project
            .config
            .regions
            .get(name)
            .ok_or_else(|| unknown_region(project, name))?;
        // The loader refuses other names; this keeps the promise if it ever did not.
        if !masterctl_schemas::load::is_identifier(name)
            || !masterctl_schemas::load::is_branch_name(&config.branch)
        {
            return Err(unknown_region(project, name));
        }
        Ok(Region {
            name: name.to_string(),
            branch: config.branch.clone(),
        })
    }

    /// Every region of the project, in name order.
    pub fn all(project: &Project) -> Vec<Region> {
        project
            .config
            .regions
            .keys()
            .filter_map(|name| Region::of(project, name).ok())
            .collect()
    }

    /// The region this one follows, if it has one.
    pub fn upstream(&self, project: &Project) -> Option<Result<Region, Error>> {
        let upstream = project.config.regions.get(&self.name)?.upstream.as_ref()?;
        Some(Region::of(project, upstream))
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The branch, as in `masterctl.toml` (`masters/jp`).
    pub fn branch(&self) -> &str {
        &self.branch
    }

    /// `refs/heads/<branch>`.
    pub fn reference(&self) -> String {
        format!("refs/heads/{}", self.branch)
    }
}

/// A planner's work branch of a region: `work/<region>/<name>`. The name is one plain
/// segment — ASCII letters, digits, `-`, `_` and `.`, starting with a letter or digit, at
/// most 64 characters, never `…lock` nor holding `..` — so it is a ref, a path and a
/// commit-message word without escaping.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkBranch {
    region: Region,
    name: String,
}

impl WorkBranch {
    /// The reference that holds a merge proposal for this branch (`proposals`).
    pub fn proposal_reference(&self) -> String {
        format!(
            "refs/masterctl/proposals/{}/{}",
            self.region().name(),
            self.name()
        )
    }

    /// The work branch `name` of `region`, once `name` is one a planner may give.
    pub fn of(region: &Region, name: &str) -> Result<WorkBranch, Error> {
        let mut chars = name.chars();
        let valid = name.len() <= 64
            && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.contains("..")
            && !name.ends_with(".lock")
            && !name.ends_with('.');
        if !valid {
            return Err(Error::BadWorkBranch(display_name(name)));
        }
        Ok(WorkBranch {
            region: region.clone(),
            name: name.to_string(),
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn region(&self) -> &Region {
        &self.region
    }

    /// `work/<region>/<name>`.
    pub fn branch(&self) -> String {
        format!("work/{}/{}", self.region.name(), self.name)
    }

    /// `refs/heads/work/<region>/<name>`.
    pub fn reference(&self) -> String {
        format!("refs/heads/{}", self.branch())
    }
}

/// A branch masterctl commits to: a region's own, or a planner's work branch of one.
/// Every command that works on a region's data (import, diff, blame, log, l10n, build,
/// status) works on either; what is the region's alone (its upstream, what it owns, its
/// languages) is read from [`Branch::region`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    region: Region,
    work: Option<WorkBranch>,
    branch: String,
}

impl Branch {
    /// The region, or its work branch `work` when one is named.
    pub fn of(region: &Region, work: Option<&str>) -> Result<Branch, Error> {
        Ok(match work {
            Some(name) => Branch::from(WorkBranch::of(region, name)?),
            None => Branch::from(region.clone()),
        })
    }

    /// The region this branch belongs to (itself, or the work branch's).
    pub fn region(&self) -> &Region {
        &self.region
    }

    /// The work branch, when this branch is one.
    pub fn work(&self) -> Option<&WorkBranch> {
        self.work.as_ref()
    }

    /// The region's name (a work branch's data is its region's: languages, owns).
    pub fn name(&self) -> &str {
        self.region.name()
    }

    /// The branch: `masters/jp`, or `work/jp/alice`.
    pub fn branch(&self) -> &str {
        &self.branch
    }

    /// `refs/heads/<branch>`.
    pub fn reference(&self) -> String {
        format!("refs/heads/{}", self.branch)
    }

    /// Where masterctl keeps this branch's files (a rebase or merge stopped on it),
    /// relative to `<git dir>/masterctl/`: `rebase/jp`, `rebase-work/jp/alice`.
    pub fn state_path(&self) -> std::path::PathBuf {
        match &self.work {
            None => std::path::Path::new("rebase").join(self.region.name()),
            Some(work) => std::path::Path::new("rebase-work")
                .join(self.region.name())
                .join(work.name()),
        }
    }
}

impl From<Region> for Branch {
    fn from(region: Region) -> Branch {
        Branch {
            branch: region.branch().to_string(),
            region,
            work: None,
        }
    }
}

impl From<WorkBranch> for Branch {
    fn from(work: WorkBranch) -> Branch {
        Branch {
            branch: work.branch(),
            region: work.region().clone(),
            work: Some(work),
        }
    }
}

/// A region by its name; a work branch by its branch (`work/jp/alice`).
impl std::fmt::Display for Branch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.work {
            None => f.write_str(self.region.name()),
            Some(_) => f.write_str(&self.branch),
        }
    }
}

/// The tag namespace of every region's versions.
pub const VERSION_TAGS: &str = "refs/tags/masters/";

/// A version name: ASCII letters, digits, `.`, `-`, `_` and `+`, starting with a letter
/// or digit, at most 64 characters, never holding `..` nor ending in `.lock` or `.` —
/// so it is a ref segment, a path and a message word without escaping.
fn is_version(version: &str) -> bool {
    let mut chars = version.chars();
    version.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
        && !version.contains("..")
        && !version.ends_with(".lock")
        && !version.ends_with('.')
}

/// `refs/tags/masters/<region>/<version>`, when `version` is one.
pub fn version_tag(region: &Region, version: &str) -> Option<String> {
    is_version(version).then(|| format!("{VERSION_TAGS}{}/{version}", region.name()))
}

/// A remote of the repository (`origin`): a name git accepts for one, checked before it
/// names a reference or a message — ASCII letters, digits, `-`, `_` and `.`, starting
/// with a letter or digit, at most 64 characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteName(String);

impl RemoteName {
    pub fn of(name: &str) -> Result<RemoteName, Error> {
        let mut chars = name.chars();
        let valid = name.len() <= 64
            && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
            && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && !name.contains("..")
            && !name.ends_with(".lock");
        if !valid {
            return Err(Error::BadRemote(display_name(name)));
        }
        Ok(RemoteName(name.to_string()))
    }

    pub fn name(&self) -> &str {
        &self.0
    }

    /// Where this clone keeps what it last saw of `branch` on the remote:
    /// `refs/remotes/<remote>/<branch>`.
    pub fn tracking(&self, branch: &str) -> String {
        format!("refs/remotes/{}/{branch}", self.0)
    }
}

impl std::fmt::Display for RemoteName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::fmt::Display for Region {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name)
    }
}

/// The branch a `refs/heads/…` reference names (other references as they are).
pub fn branch_of(reference: &str) -> &str {
    reference.strip_prefix("refs/heads/").unwrap_or(reference)
}

/// The first 12 characters of a commit id (fewer if it is shorter), cut on a character
/// boundary whatever the text is: ids also come from files anyone can edit.
pub fn short_id(id: &str) -> &str {
    match id.char_indices().nth(12) {
        Some((end, _)) => &id[..end],
        None => id,
    }
}

/// A value for one line of a commit message (a trailer's value, a subject): control
/// characters, line and paragraph separators are written as escapes (`\n`, `\u{2028}`),
/// so no value can start a line, a paragraph or a trailer of its own.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}') => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// A name and email git would accept in a commit: not blank, no line break or other
/// control character, no `<` or `>` (libgit2 writes them as they are, git's fsck then
/// reports the commit as broken).
pub fn check_identity(name: &str, email: &str) -> Result<(), Error> {
    for (key, value) in [("user.name", name), ("user.email", email)] {
        if value.trim().is_empty()
            || value
                .chars()
                .any(|c| c.is_control() || matches!(c, '<' | '>'))
        {
            return Err(Error::BadAuthor {
                key: key.to_string(),
                value: display_name(value),
            });
        }
    }
    Ok(())
}

/// A name from the command line, shortened and escaped for an error message.
pub fn display_name(name: &str) -> String {
    let mut shown: String = name.chars().take(64).collect();
    if shown.len() < name.len() {
        shown.push('…');
    }
    one_line(&shown)
}

/// The first `shown` of `items` joined by `separator`, and how many more there are: a
/// list a message names without growing without bound.
pub fn listed<T: std::fmt::Display>(items: &[T], shown: usize, separator: &str) -> String {
    let named: Vec<String> = items.iter().take(shown).map(T::to_string).collect();
    match items.len().saturating_sub(shown) {
        0 => named.join(separator),
        more => format!("{} and {more} more", named.join(separator)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_in_messages_name_the_first_few_and_count_the_rest() {
        assert_eq!(listed(&["a", "b"], 3, ", "), "a, b");
        assert_eq!(listed(&["a", "b", "c", "d"], 2, "; "), "a; b and 2 more");
        assert_eq!(listed::<&str>(&[], 2, ", "), "");
    }

    #[test]
    fn short_ids_never_split_a_character() {
        assert_eq!(short_id("0123456789abcdef"), "0123456789ab");
        assert_eq!(short_id("aaaaaaaaaaaé"), "aaaaaaaaaaaé");
        assert_eq!(short_id("aaaaaaaaaaaéé"), "aaaaaaaaaaaé");
        assert_eq!(short_id("abc"), "abc");
        assert_eq!(short_id(""), "");
    }

    #[test]
    fn one_line_values_cannot_start_a_line() {
        let forged = "g\nMasterctl-Upstream: 123\r\nNote:\u{2028}x\u{0}";
        let line = one_line(forged);
        assert!(!line.contains(['\n', '\r', '\u{2028}', '\u{0}']));
        assert_eq!(
            line,
            "g\\nMasterctl-Upstream: 123\\r\\nNote:\\u{2028}x\\u{0}"
        );
        assert_eq!(one_line("items.xlsx"), "items.xlsx");
        assert_eq!(one_line("a\\nb"), "a\\\\nb");
    }
}
