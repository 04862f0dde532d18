//! Why a command did not succeed, and the exit code that says so — one rule for every
//! command: 1 the data was rejected, or a thing the user named (a region, table, key,
//! revision, release, language, work branch) is wrong or missing; 2 usage (a flag, a
//! malformed name, a folder that is not what it must be) or the environment (a
//! repository, a store, a file that cannot be read or written). Commands return it;
//! `main` shows it (through `output`) and exits with its code.

use masterctl_app::Kinded;
use masterctl_delivery::DeliveryError;
use masterctl_schemas::Report;
use masterctl_store::git::Error as GitError;
use masterctl_store::import::ImportError;
use masterctl_store::init::InitError;
use masterctl_store::join::JoinError;
use masterctl_store::remote::RemoteError;
use masterctl_store::revert::RevertError;
use masterctl_store::{ErrorKind, StoreError, short_id};

/// A delivery error as the failure a user sees: its kind decides the exit code
/// ([`Failure::of`]; `masterctl_app` gives delivery's errors theirs); what to do about
/// it is the variant's hint.
pub fn delivery_failure(error: DeliveryError) -> Failure {
    let hint = match &error {
        DeliveryError::Unreachable { .. } => {
            Some("check the URL and --endpoint (or AWS_ENDPOINT_URL), and that the server runs")
        }
        DeliveryError::Untrusted { .. } => Some(
            "certificates are checked against this machine's authorities: name the one that signed the server's with SSL_CERT_FILE (a PEM file) or SSL_CERT_DIR, or check the URL's host name",
        ),
        DeliveryError::Refused { .. } => Some(
            "credentials come from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS_PROFILE profile",
        ),
        DeliveryError::NoBucket { .. } => Some("create the bucket, or correct its name in the URL"),
        DeliveryError::Corrupt { .. } => Some(
            "nothing was changed (no build swapped in, no pointer moved, nothing deleted); repair the store from the release's build: `masterctl publish DIR --to URL --repair` (`masterctl build --region R --rev RELEASE --out DIR` makes it again)",
        ),
        DeliveryError::Busy { .. } => Some(
            "publish and rollback never overlap a gc; a lease not renewed for 5 minutes (a killed process's) is ignored",
        ),
        DeliveryError::Backwards { .. } => {
            Some("to make an earlier release current on purpose, add --force")
        }
        DeliveryError::Different { .. } => Some(
            "rebuild it with the masterctl that published it (`masterctl build --region R --rev COMMIT`, with --client for a client release), or publish the build of a new commit",
        ),
        DeliveryError::NoRelease { .. } => Some("`masterctl releases` lists them"),
        _ => None,
    };
    let failure = Failure::of(error.kind(), error.to_string());
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

/// What the command line says of a join's error. `again`: the command that names the
/// join (`masterctl rebase --region jp`), for hints.
pub fn join_failure(error: JoinError, again: &str, resolving: bool) -> Failure {
    let hint = match &error {
        JoinError::Store(_) => None,
        JoinError::NoUpstream(_) => Some(
            "give the region an upstream in masterctl.toml (upstream = \"<the region it follows>\"), or rebase a region that has one".to_string(),
        ),
        JoinError::BadResolution(_) => {
            Some("a `value` resolution must be a value of the column's type".to_string())
        }
        JoinError::NotInProgress { .. } if resolving => Some(format!("run `{again}` first")),
        JoinError::InProgress {
            conflict_file,
            kind,
            ..
        } => Some(format!(
            "resolve the conflicts in {} (or with --ours/--theirs), then `masterctl {kind} … --continue`; or --abort",
            conflict_file.display()
        )),
        JoinError::NoConflictMatches { conflict_file } => Some(format!(
            "the conflicts are listed in {}",
            conflict_file.display()
        )),
        JoinError::Moved { .. } => Some(format!("run `{again} --abort`, then start again")),
        JoinError::NotInProgress { .. }
        | JoinError::NoUpstreamBranch(_)
        | JoinError::UpstreamRewritten { .. }
        | JoinError::NoImportPoint { .. } => None,
    };
    let failure = match error {
        JoinError::Store(e) => return store_failure(e),
        error => Failure::of(error.kind(), error.to_string()),
    };
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

/// Init's refusal as the failure a user sees.
pub fn init_failure(error: InitError) -> Failure {
    let hint = match &error {
        InitError::Store(_) => None,
        InitError::InsideRepository { .. } => Some(
            "run `masterctl init` at the root of that work tree, or in a folder outside it (which gets a repository of its own)",
        ),
        InitError::AlreadyExists { .. } => {
            Some("init writes into an empty folder (or one without these files)")
        }
        InitError::NotAFolder(_) => None,
    };
    match (error, hint) {
        (InitError::Store(e), _) => store_failure(e),
        (error, Some(hint)) => hinted(&error, hint.to_string()),
        (error, None) => Failure::of(error.kind(), error.to_string()),
    }
}

/// An import's refusal as the failure a user sees.
pub fn import_failure(error: ImportError) -> Failure {
    match error {
        ImportError::Store(e) => store_failure(e),
        error => hinted(&error, import_hint(&error)),
    }
}

/// A failure of `error`'s kind, with what a user can do about it.
fn hinted(error: &impl Kinded, hint: String) -> Failure {
    Failure::of(error.kind(), error.to_string()).hint(hint)
}

/// What a user can do about an import's refusal (the store's own: its hint).
fn import_hint(error: &ImportError) -> String {
    match error {
        ImportError::Store(_) => String::new(),
        ImportError::Removes {
            branch,
            newer_structure,
            ..
        } => match newer_structure {
            Some(structure) => format!(
                "{branch} was last imported with the structure of commit {}, which this clone's HEAD does not hold: update main (git pull) and import again; if the removal is meant, import again with --allow-removal",
                short_id(structure)
            ),
            None => "a table the branch holds is missing from the structure (is masterctl.toml or schemas/ out of date in this clone?), or the workbooks lack most of a table's rows; if that is meant, import again with --allow-removal".into(),
        },
        ImportError::Reverts { .. } => "they look older than the branch: `masterctl export --region R --out DIR` gives the current data to edit (an exported workbook is merged, never reverting); to take these back on purpose, import with --revert-upstream".into(),
        ImportError::NoSources => "masterctl reads .xlsx, .xlsm, .xlsb, .xls, .ods and .csv files".into(),
    }
}

impl From<ImportError> for Failure {
    fn from(error: ImportError) -> Failure {
        import_failure(error)
    }
}

/// A revert's refusal as the failure a user sees.
pub fn revert_failure(error: RevertError) -> Failure {
    match error {
        RevertError::Store(e) => store_failure(e),
        RevertError::Join(e) => join_failure(e, "masterctl revert", false),
        error @ RevertError::FirstCommit { .. } => hinted(
            &error,
            "to empty the branch, import what it should hold instead".into(),
        ),
        error @ RevertError::ChangesStructure { .. } => hinted(
            &error,
            "the structure is main's: change it there (a new commit), then import under it".into(),
        ),
    }
}

/// A pull's, a push's or a remote's failure as the failure a user sees.
pub fn remote_failure(error: RemoteError) -> Failure {
    match error {
        RemoteError::Store(e) => store_failure(e),
        error => hinted(&error, remote_hint(&error)),
    }
}

/// What a user can do about a remote's failure (the store's own: its hint).
fn remote_hint(error: &RemoteError) -> String {
    match error {
        RemoteError::Store(_) => String::new(),
        RemoteError::NoRemote { known, .. } => match known.as_slice() {
            [] => "this clone has no remote: `git remote add origin URL` names one".to_string(),
            known => format!("its remotes: {} (choose one with --remote)", known.join(", ")),
        },
        RemoteError::Transport { what, .. } => match what {
            masterctl_store::remote::Trouble::Credentials => {
                "ssh: an agent holding your key (ssh-add), or a key in ~/.ssh, and the host in ~/.ssh/known_hosts; https: a git credential helper (git config credential.helper)"
            }
            masterctl_store::remote::Trouble::HostKey => {
                "ssh: the server's key must be in ~/.ssh/known_hosts (ssh to it once, and check its fingerprint); https: its certificate must be one the system trusts"
            }
            masterctl_store::remote::Trouble::Unreachable => {
                "check the remote's URL (git remote -v) and the network; nothing was changed here"
            }
            masterctl_store::remote::Trouble::Failed => "nothing was changed here",
        }
        .into(),
        RemoteError::Rewritten { remote, branch, .. } => format!(
            "compare the two (git log {branch} {remote}/{branch}) and ask who rewrote it; to take the rewritten branch as it is: git update-ref -d refs/remotes/{remote}/{branch}, then pull again"
        ),
    }
}

impl From<StoreError> for Failure {
    fn from(error: StoreError) -> Failure {
        store_failure(error)
    }
}

impl From<RemoteError> for Failure {
    fn from(error: RemoteError) -> Failure {
        remote_failure(error)
    }
}

/// A store error as the failure a user sees: its kind decides the exit code
/// ([`Failure::of`]); what to do about it is the variant's hint.
pub fn store_failure(error: impl Into<StoreError>) -> Failure {
    let error = error.into();
    if let StoreError::InvalidStructure(report) = error {
        return Failure::InvalidSchema(report);
    }
    let hint = store_hint(&error);
    let failure = Failure::of(error.kind(), error.to_string());
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

/// What a user can do about a store error, when there is something to say.
fn store_hint(error: &StoreError) -> Option<String> {
    let hint = match error {
        StoreError::Git(GitError::UnknownRegion { name, known }) => region_hint(name, known),
        StoreError::NotTranslated { targets, .. } if targets.is_empty() => {
            "the region has no languages but the source one (languages in masterctl.toml)"
                .to_string()
        }
        StoreError::NotTranslated { targets, .. } => {
            format!("its languages to translate into: {}", targets.join(", "))
        }
        StoreError::ListRow { table } => format!(
            "`masterctl log --region R` and `masterctl diff` show what changed in `{table}`, row by row, by place"
        ),
        StoreError::BadPseudoLanguage { .. } => "a pseudo language takes a tag of its own: qps, en-XA".into(),
        StoreError::Git(GitError::NoWorkBranch { .. }) => "`masterctl branch list` lists the work branches; `masterctl branch create NAME --region R` makes one".into(),
        StoreError::ConflictFile { .. } => "fix the file (or run `masterctl rebase --region R --abort` to start over)".into(),
        StoreError::UncommittedStructure { .. } => "commit it first (git add masterctl.toml schemas && git commit -m \"…\"), then import again; or import with --structure HEAD to use the committed structure as it is".into(),
        StoreError::Git(GitError::NotARepository(_)) => "run inside the master repository, or pass --repo DIR (`masterctl init` creates one)".into(),
        StoreError::NoCommittedStructure(_) => "name a commit that holds the structure with --structure REV".into(),
        StoreError::NotABuild(_) => "choose another --out, or remove that folder".into(),
        StoreError::RebaseInProgress {
            region,
            work,
            kind,
            from,
            ..
        } => {
            let again = in_progress_command(region, work.as_deref(), kind, from);
            format!("resolve its conflicts and run `{again} --continue`, or `--abort` it")
        }
        StoreError::StateFile { .. } => "`masterctl rebase --region R --abort` clears a rebase in progress; then rebase again".into(),
        StoreError::Git(GitError::NoAuthor) => "git config --global user.name \"…\" && git config --global user.email \"…\"".into(),
        StoreError::Git(GitError::Locked { .. }) => "if no masterctl or git process is running, remove the lock with `masterctl unlock --region R` and run again".into(),
        StoreError::UnvouchedStructure { branch, .. } => format!(
            "a schema reaches a region only through main (reviewed) and an import; someone put this commit on {branch} with git: compare it with main (git diff main {branch} -- masterctl.toml schemas), then set the branch back to its last commit masterctl made, or commit the same structure to main after review"
        ),
        StoreError::StructureNotOnMain { .. } => "bring main up to date first (git pull: the structure travels through git), then run this again; if main holds no such commit, ask who imported with it".into(),
        StoreError::Git(GitError::LinkInRepository { .. }) => "a repository on a shared disk is someone else's folder: ask its owner to replace the link with what git keeps there (git fsck), or push to a remote over ssh or https".into(),
        _ => return None,
    };
    Some(hint)
}

/// The regions there are, and the one closest to `name`.
fn region_hint(name: &str, known: &[String]) -> String {
    match masterctl_schemas::suggest::did_you_mean(name, known.iter().map(String::as_str)) {
        _ if known.is_empty() => {
            "masterctl.toml declares no region: add [regions.<name>] with its branch".into()
        }
        Some(similar) => format!("did you mean `{similar}`? (regions: {})", known.join(", ")),
        None => format!("the regions: {}", known.join(", ")),
    }
}

/// Why a command did not succeed.
pub enum Failure {
    /// The data was rejected: every diagnostic, nothing written. Exit 1; `main` shows
    /// the report.
    Rejected(Report),
    /// The data was rejected and the command's own result already said why (validate's
    /// report with its summary, a rebase's conflicts, a key not in a build). Exit 1.
    Shown,
    /// What the command did is shown, and the environment kept it from finishing (a
    /// push the remote refused: pull first). Exit 2.
    ShownRefused,
    /// The schema files are broken. Exit 1.
    InvalidSchema(Report),
    /// A file the user edits (the conflict file) holds something that cannot be taken.
    /// Exit 1.
    Invalid {
        message: String,
        hint: Option<String>,
    },
    /// The command was called wrongly. Exit 2.
    Usage {
        message: String,
        hint: Option<String>,
    },
    /// Something around the command failed (a file could not be written...). Exit 2.
    Environment {
        message: String,
        hint: Option<String>,
    },
}

impl Failure {
    /// The failure of an error of `kind`: the one table of the command line's exit
    /// codes — 1 for a thing named that is not there or data rejected, 2 for the rest.
    pub fn of(kind: ErrorKind, message: impl Into<String>) -> Failure {
        match kind {
            ErrorKind::NotFound | ErrorKind::Invalid => Failure::invalid(message),
            ErrorKind::Usage => Failure::usage(message),
            ErrorKind::Conflict
            | ErrorKind::Forbidden
            | ErrorKind::Environment
            | ErrorKind::Internal => Failure::environment(message),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Failure {
        Failure::Invalid {
            message: message.into(),
            hint: None,
        }
    }

    pub fn usage(message: impl Into<String>) -> Failure {
        Failure::Usage {
            message: message.into(),
            hint: None,
        }
    }

    pub fn environment(message: impl Into<String>) -> Failure {
        Failure::Environment {
            message: message.into(),
            hint: None,
        }
    }

    pub fn hint(mut self, text: impl Into<String>) -> Failure {
        if let Failure::Invalid { hint, .. }
        | Failure::Usage { hint, .. }
        | Failure::Environment { hint, .. } = &mut self
        {
            *hint = Some(text.into());
        }
        self
    }

    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Rejected(_)
            | Failure::Shown
            | Failure::InvalidSchema(_)
            | Failure::Invalid { .. } => 1,
            Failure::Usage { .. } | Failure::Environment { .. } | Failure::ShownRefused => 2,
        }
    }
}

/// The command that continues a rebase or merge stopped on a branch (`NAME` where the
/// state names no work branch masterctl would accept).
fn in_progress_command(region: &str, work: Option<&str>, kind: &str, source: &str) -> String {
    match (kind, work) {
        ("merge", _) => {
            let name = source
                .strip_prefix(&format!("work/{region}/"))
                .filter(|name| {
                    name.chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                })
                .unwrap_or("NAME");
            format!("masterctl merge --region {region} --branch {name}")
        }
        (_, Some(work)) => format!("masterctl rebase --region {region} --branch {work}"),
        (_, None) => format!("masterctl rebase --region {region}"),
    }
}

#[cfg(test)]
mod kinds {
    use super::*;
    use masterctl_console::{ConsoleError, status_of};
    use masterctl_store::committed_structure::{Drift, DriftKind};
    use masterctl_store::import::{Removal, Revert};

    /// One error of every variant: the `match` has no `_`, so a new variant fails to
    /// compile here until it is given an example, and with it a kind both faces take.
    fn every_store_error() -> Vec<StoreError> {
        let s = || "x".to_string();
        let path = || std::path::PathBuf::from("x");
        let all = vec![
            StoreError::NoStructure,
            StoreError::UncommittedStructure {
                revision: s(),
                drift: vec![Drift {
                    path: s(),
                    kind: DriftKind::Changed,
                }],
            },
            StoreError::NoCommittedStructure(s()),
            StoreError::InvalidStructure(Report::default()),
            StoreError::NoCommits(s()),
            StoreError::NotALanguage {
                language: s(),
                languages: vec![s()],
            },
            StoreError::NotTranslated {
                region: s(),
                language: s(),
                why: masterctl_store::Untranslated::Pseudo,
                targets: vec![s()],
            },
            StoreError::BadPseudoLanguage {
                language: s(),
                why: "x",
            },
            StoreError::WorkBranchExists(s()),
            StoreError::Unmerged {
                branch: s(),
                ahead: 1,
            },
            StoreError::NothingToPropose(s()),
            StoreError::BadVersion(s()),
            StoreError::NotMasters {
                region: s(),
                branch: s(),
            },
            StoreError::TagExists(s()),
            StoreError::NotInHistory {
                revision: s(),
                branch: s(),
            },
            StoreError::NoTable {
                what: "table",
                table: s(),
                at: s(),
            },
            StoreError::NoField {
                table: s(),
                field: s(),
            },
            StoreError::NoRow {
                table: s(),
                key: vec![s()],
                at: s(),
            },
            StoreError::KeyArity {
                table: s(),
                columns: vec![s()],
                given: 2,
            },
            StoreError::ListRow { table: s() },
            StoreError::NotABuild(s()),
            StoreError::OutIsLink(s()),
            StoreError::Export {
                path: path(),
                message: s(),
            },
            StoreError::Build(masterctl_build::archive::BuildError::TooManyRows {
                table: s(),
                rows: 1,
            }),
            StoreError::RebaseInProgress {
                branch: s(),
                region: s(),
                work: None,
                kind: "rebase".into(),
                from: s(),
            },
            StoreError::UnvouchedStructure {
                branch: s(),
                commit: s(),
                against: s(),
                files: vec![s()],
            },
            StoreError::StructureNotOnMain {
                branch: s(),
                commit: s(),
                structure: s(),
            },
            StoreError::BrokenSnapshot {
                branch: s(),
                message: s(),
            },
            StoreError::Io {
                path: path(),
                source: std::io::Error::other("x"),
            },
            StoreError::StateFile {
                path: path(),
                message: s(),
            },
            StoreError::ConflictFile {
                path: s(),
                message: s(),
            },
            StoreError::Csv {
                what: s(),
                source: csv::Error::from(std::io::Error::other("x")),
            },
            StoreError::NothingToEdit { branch: s() },
            StoreError::NothingToExport { branch: s() },
            StoreError::NoKeyToEdit { table: s() },
            // The plumbing's, as the store hands it on (each of them: below).
            StoreError::Git(GitError::NoAuthor),
        ];
        for error in &all {
            match error {
                StoreError::NoStructure
                | StoreError::UncommittedStructure { .. }
                | StoreError::NoCommittedStructure(_)
                | StoreError::InvalidStructure(_)
                | StoreError::NoCommits(_)
                | StoreError::NotALanguage { .. }
                | StoreError::NotTranslated { .. }
                | StoreError::BadPseudoLanguage { .. }
                | StoreError::WorkBranchExists(_)
                | StoreError::Unmerged { .. }
                | StoreError::NothingToPropose(_)
                | StoreError::BadVersion(_)
                | StoreError::NotMasters { .. }
                | StoreError::TagExists(_)
                | StoreError::NotInHistory { .. }
                | StoreError::NoTable { .. }
                | StoreError::NoField { .. }
                | StoreError::NoRow { .. }
                | StoreError::KeyArity { .. }
                | StoreError::ListRow { .. }
                | StoreError::NoKeyToEdit { .. }
                | StoreError::NothingToEdit { .. }
                | StoreError::NothingToExport { .. }
                | StoreError::NotABuild(_)
                | StoreError::OutIsLink(_)
                | StoreError::Export { .. }
                | StoreError::Build(_)
                | StoreError::RebaseInProgress { .. }
                | StoreError::UnvouchedStructure { .. }
                | StoreError::StructureNotOnMain { .. }
                | StoreError::BrokenSnapshot { .. }
                | StoreError::Io { .. }
                | StoreError::StateFile { .. }
                | StoreError::ConflictFile { .. }
                | StoreError::Csv { .. }
                | StoreError::Git(_) => {}
            }
        }
        all
    }

    /// One error of every delivery variant (no `_`: a new one must be given a kind).
    fn every_delivery_error() -> Vec<DeliveryError> {
        let s = || "x".to_string();
        let path = || std::path::PathBuf::from("x");
        let all = vec![
            DeliveryError::Url { url: s(), why: s() },
            DeliveryError::Unreachable {
                store: s(),
                message: s(),
            },
            DeliveryError::Untrusted {
                store: s(),
                message: s(),
            },
            DeliveryError::Refused {
                store: s(),
                message: s(),
            },
            DeliveryError::NoBucket { store: s() },
            DeliveryError::Failed {
                store: s(),
                message: s(),
            },
            DeliveryError::Missing {
                store: s(),
                what: s(),
            },
            DeliveryError::NoRelease {
                store: s(),
                what: s(),
            },
            DeliveryError::Corrupt {
                store: s(),
                hash: s(),
                why: s(),
            },
            DeliveryError::TooLarge {
                store: s(),
                key: s(),
                limit: 1,
            },
            DeliveryError::Foreign {
                store: s(),
                key: s(),
                why: s(),
            },
            DeliveryError::Raced {
                region: s(),
                release: s(),
            },
            DeliveryError::Busy {
                store: s(),
                doing: s(),
            },
            DeliveryError::Backwards {
                region: s(),
                release: s(),
                current: s(),
            },
            DeliveryError::Different {
                region: s(),
                release: s(),
                ours: s(),
                theirs: s(),
            },
            DeliveryError::ReadOnly { store: s() },
            DeliveryError::Build {
                path: path(),
                why: s(),
            },
            DeliveryError::Unloadable(masterctl_runtime::LoadError {
                path: path(),
                cause: masterctl_runtime::LoadCause::Io(std::io::Error::other("x")),
            }),
            DeliveryError::NotABuild(path()),
            DeliveryError::OutIsLink(path()),
            DeliveryError::UnknownLanguage {
                release: s(),
                language: s(),
                languages: s(),
            },
            DeliveryError::Ambiguous {
                named: s(),
                candidates: vec![s()],
            },
            DeliveryError::Unsigned {
                store: s(),
                region: s(),
                release: s(),
            },
            DeliveryError::BadSignature {
                store: s(),
                region: s(),
                release: s(),
                why: s(),
            },
            DeliveryError::Replayed {
                region: s(),
                release: s(),
                sequence: 1,
                running: s(),
                running_sequence: 2,
            },
            DeliveryError::Key(s()),
            DeliveryError::BadName(s()),
            DeliveryError::Io {
                path: path(),
                source: std::io::Error::other("x"),
            },
        ];
        for error in &all {
            match error {
                DeliveryError::Url { .. }
                | DeliveryError::Unreachable { .. }
                | DeliveryError::Untrusted { .. }
                | DeliveryError::Refused { .. }
                | DeliveryError::NoBucket { .. }
                | DeliveryError::Failed { .. }
                | DeliveryError::Missing { .. }
                | DeliveryError::NoRelease { .. }
                | DeliveryError::Corrupt { .. }
                | DeliveryError::TooLarge { .. }
                | DeliveryError::Foreign { .. }
                | DeliveryError::Raced { .. }
                | DeliveryError::Busy { .. }
                | DeliveryError::Backwards { .. }
                | DeliveryError::Different { .. }
                | DeliveryError::ReadOnly { .. }
                | DeliveryError::Build { .. }
                | DeliveryError::Unloadable(_)
                | DeliveryError::NotABuild(_)
                | DeliveryError::OutIsLink(_)
                | DeliveryError::UnknownLanguage { .. }
                | DeliveryError::Ambiguous { .. }
                | DeliveryError::Unsigned { .. }
                | DeliveryError::BadSignature { .. }
                | DeliveryError::Replayed { .. }
                | DeliveryError::Key(_)
                | DeliveryError::BadName(_)
                | DeliveryError::Io { .. } => {}
            }
        }
        all
    }

    /// One error of every join variant but the store's (no `_`).
    fn every_join_error() -> Vec<JoinError> {
        let s = || "x".to_string();
        let path = || std::path::PathBuf::from("x");
        let all = vec![
            JoinError::NoUpstream(s()),
            JoinError::NoUpstreamBranch(s()),
            JoinError::UpstreamRewritten {
                point: s(),
                branch: s(),
                upstream: s(),
            },
            JoinError::NoImportPoint {
                branch: s(),
                upstream: s(),
            },
            JoinError::BadResolution(s()),
            JoinError::NotInProgress {
                kind: "rebase",
                branch: s(),
            },
            JoinError::InProgress {
                kind: s(),
                branch: s(),
                conflict_file: path(),
            },
            JoinError::Moved {
                kind: "rebase",
                branch: s(),
            },
            JoinError::NoConflictMatches {
                conflict_file: path(),
            },
            JoinError::Store(StoreError::NoStructure),
        ];
        for error in &all {
            match error {
                JoinError::NoUpstream(_)
                | JoinError::NoUpstreamBranch(_)
                | JoinError::UpstreamRewritten { .. }
                | JoinError::NoImportPoint { .. }
                | JoinError::BadResolution(_)
                | JoinError::NotInProgress { .. }
                | JoinError::InProgress { .. }
                | JoinError::Moved { .. }
                | JoinError::NoConflictMatches { .. }
                | JoinError::Store(_) => {}
            }
        }
        all
    }

    /// One error of every variant of init's.
    fn every_init_error() -> Vec<InitError> {
        let path = || std::path::PathBuf::from("x");
        let all = vec![
            InitError::NotAFolder(path()),
            InitError::AlreadyExists {
                path: path(),
                repository: true,
            },
            InitError::InsideRepository {
                dir: path(),
                root: path(),
            },
            InitError::Store(StoreError::NoStructure),
        ];
        for error in &all {
            match error {
                InitError::NotAFolder(_)
                | InitError::AlreadyExists { .. }
                | InitError::InsideRepository { .. }
                | InitError::Store(_) => {}
            }
        }
        all
    }

    /// One error of every variant of an import's.
    fn every_import_error() -> Vec<ImportError> {
        let s = || "x".to_string();
        let all = vec![
            ImportError::NoSources,
            ImportError::Removes {
                branch: s(),
                removals: vec![Removal {
                    table: s(),
                    generated: false,
                    rows: 1,
                    of: 1,
                }],
                newer_structure: None,
            },
            ImportError::Reverts {
                commit: s(),
                reverts: vec![Revert {
                    table: s(),
                    key: vec![s()],
                    field: None,
                    upstream: s(),
                    import: s(),
                    commit: s(),
                }],
            },
            ImportError::Store(StoreError::NoStructure),
        ];
        for error in &all {
            match error {
                ImportError::NoSources
                | ImportError::Removes { .. }
                | ImportError::Reverts { .. }
                | ImportError::Store(_) => {}
            }
        }
        all
    }

    /// One error of every variant of a revert's.
    fn every_revert_error() -> Vec<RevertError> {
        let s = || "x".to_string();
        let all = vec![
            RevertError::FirstCommit {
                commit: s(),
                branch: s(),
            },
            RevertError::ChangesStructure {
                commit: s(),
                files: vec![s()],
            },
            RevertError::Join(JoinError::NoUpstream(s())),
            RevertError::Store(StoreError::NoStructure),
        ];
        for error in &all {
            match error {
                RevertError::FirstCommit { .. }
                | RevertError::ChangesStructure { .. }
                | RevertError::Join(_)
                | RevertError::Store(_) => {}
            }
        }
        all
    }

    /// One error of every variant of a remote's.
    fn every_remote_error() -> Vec<RemoteError> {
        let s = || "x".to_string();
        let all = vec![
            RemoteError::NoRemote {
                name: s(),
                known: vec![],
            },
            RemoteError::Transport {
                remote: s(),
                url: s(),
                what: masterctl_store::remote::Trouble::Failed,
                message: s(),
            },
            RemoteError::Rewritten {
                remote: s(),
                branch: s(),
                was: s(),
                now: s(),
            },
            RemoteError::Store(StoreError::NoStructure),
        ];
        for error in &all {
            match error {
                RemoteError::NoRemote { .. }
                | RemoteError::Transport { .. }
                | RemoteError::Rewritten { .. }
                | RemoteError::Store(_) => {}
            }
        }
        all
    }

    /// One error of every variant of the git plumbing's, as the store hands it on.
    fn every_git_error() -> Vec<StoreError> {
        let s = || "x".to_string();
        let path = || std::path::PathBuf::from("x");
        let all = vec![
            GitError::NotARepository(path()),
            GitError::UnknownRegion {
                name: s(),
                known: vec![s()],
            },
            GitError::NoBranch(s()),
            GitError::BadWorkBranch(s()),
            GitError::NoWorkBranch {
                region: s(),
                name: s(),
            },
            GitError::BadRemote(s()),
            GitError::UnknownRevision(s()),
            GitError::NoAuthor,
            GitError::BadAuthor {
                key: s(),
                value: s(),
            },
            GitError::CheckedOut(s()),
            GitError::Locked {
                branch: s(),
                path: s(),
                seconds: 1,
            },
            GitError::Raced { branch: s() },
            GitError::LinkInRepository {
                path: path(),
                link: true,
            },
            GitError::Io {
                path: path(),
                source: std::io::Error::other("x"),
            },
            // libgit2's own error.
            match masterctl_store::MasterRepo::at(std::path::Path::new("/no/such/repository")) {
                Err(StoreError::Git(error)) => error,
                _ => panic!("no repository there"),
            },
        ];
        for error in &all {
            match error {
                GitError::NotARepository(_)
                | GitError::UnknownRegion { .. }
                | GitError::NoBranch(_)
                | GitError::BadWorkBranch(_)
                | GitError::NoWorkBranch { .. }
                | GitError::BadRemote(_)
                | GitError::UnknownRevision(_)
                | GitError::NoAuthor
                | GitError::BadAuthor { .. }
                | GitError::CheckedOut(_)
                | GitError::Locked { .. }
                | GitError::Raced { .. }
                | GitError::LinkInRepository { .. }
                | GitError::Io { .. }
                | GitError::Git(_) => {}
            }
        }
        all.into_iter().map(StoreError::Git).collect()
    }

    /// What the two faces say of each kind: its exit code, and its status's class.
    fn agreed(kind: ErrorKind) -> (u8, u16) {
        match kind {
            ErrorKind::NotFound => (1, 404),
            ErrorKind::Invalid => (1, 422),
            ErrorKind::Usage => (2, 400),
            ErrorKind::Conflict => (2, 409),
            ErrorKind::Forbidden => (2, 403),
            ErrorKind::Environment => (2, 503),
            ErrorKind::Internal => (2, 500),
        }
    }

    #[test]
    fn every_store_error_gets_one_exit_code_and_one_status_by_its_kind() {
        let all = every_store_error();
        assert_eq!(all.len(), 36, "one example per variant");
        let gits = every_git_error();
        assert_eq!(gits.len(), 15, "one example per variant");
        let again = every_store_error().into_iter().chain(every_git_error());
        for (error, again) in all.into_iter().chain(gits).zip(again) {
            let kind = error.kind();
            let shown = error.to_string();
            let (exit, status) = agreed(kind);
            assert_eq!(ConsoleError::from(again).status(), status_of(kind));
            assert_eq!(store_failure(error).exit_code(), exit, "{kind:?}: {shown}");
            assert_eq!(status_of(kind).as_u16(), status, "{kind:?}: {shown}");
            // A thing not there and rejected data are the user's to fix (exit 1, 4xx);
            // the rest is exit 2, and only the environment and bugs are 5xx.
            assert_eq!(exit == 1, matches!(status, 404 | 422), "{kind:?}");
        }
    }

    /// Each of `errors` (made twice by `every`: once for each face) gets the exit code
    /// and the status its kind agrees on.
    fn hold<E: Kinded + Into<ConsoleError>>(
        every: fn() -> Vec<E>,
        variants: usize,
        failure: impl Fn(E) -> Failure,
    ) {
        let errors = every();
        assert_eq!(errors.len(), variants, "one example per variant");
        for (error, again) in errors.into_iter().zip(every()) {
            let (kind, shown) = (error.kind(), error.to_string());
            let (exit, status) = agreed(kind);
            assert_eq!(again.into().status().as_u16(), status, "{shown}");
            assert_eq!(failure(error).exit_code(), exit, "{kind:?}: {shown}");
        }
    }

    #[test]
    fn every_workflow_error_gets_one_exit_code_and_one_status_by_its_kind() {
        hold(every_delivery_error, 28, delivery_failure);
        hold(every_remote_error, 4, remote_failure);
        hold(every_import_error, 4, import_failure);
        hold(every_init_error, 4, init_failure);
        hold(every_revert_error, 4, revert_failure);
        hold(every_join_error, 10, |error| {
            join_failure(error, "masterctl rebase --region jp", false)
        });
    }
}
