//! Why a command did not succeed, and the exit code that says so — one rule for every
//! command: 1 the data was rejected, or a thing the user named (a region, table, key,
//! revision, release, language, work branch) is wrong or missing; 2 usage (a flag, a
//! malformed name, a folder that is not what it must be) or the environment (a
//! repository, a store, a file that cannot be read or written). Commands return it;
//! `main` shows it (through `output`) and exits with its code.

use masterctl_delivery::DeliveryError;
use masterctl_schemas::Report;
use masterctl_store::{StoreError, short_id};

/// A delivery error as the failure a user sees: a damaged or foreign store, a raced
/// pointer, a damaged local build, a release or language the store does not have (or
/// a release prefix naming several) exit 1; a wrong URL, a malformed name or a folder,
/// and an unreachable or refusing store, 2.
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
        _ => None,
    };
    let message = error.to_string();
    let failure = if error.is_rejection() {
        Failure::invalid(message)
    } else {
        match error {
            DeliveryError::Ambiguous { .. }
            | DeliveryError::UnknownLanguage { .. }
            | DeliveryError::Missing { .. } => Failure::invalid(message),
            DeliveryError::Url { .. }
            | DeliveryError::BadName(_)
            | DeliveryError::NotABuild(_)
            | DeliveryError::OutIsLink(_)
            | DeliveryError::Backwards { .. }
            | DeliveryError::ReadOnly { .. } => Failure::usage(message),
            _ => Failure::environment(message),
        }
    };
    match hint {
        Some(hint) => failure.hint(hint),
        None => failure,
    }
}

/// A store error as the failure a user sees: data problems and named things missing
/// exit 1, the rest 2.
pub fn store_failure(error: StoreError) -> Failure {
    match error {
        StoreError::InvalidStructure(report) => Failure::InvalidSchema(report),
        StoreError::UnknownRegion { ref name, ref known } => {
            let hint = region_hint(name, known);
            Failure::invalid(error.to_string()).hint(hint)
        }
        StoreError::Removes {
            ref branch,
            ref newer_structure,
            ..
        } => {
            let hint = match newer_structure {
                Some(structure) => format!(
                    "{branch} was last imported with the structure of commit {}, which this clone's HEAD does not hold: update main (git pull) and import again; if the removal is meant, import again with --allow-removal",
                    short_id(structure)
                ),
                None => "a table the branch holds is missing from the structure (is masterctl.toml or schemas/ out of date in this clone?), or the workbooks lack most of a table's rows; if that is meant, import again with --allow-removal".into(),
            };
            Failure::invalid(error.to_string()).hint(hint)
        }
        StoreError::Reverts { .. } => Failure::invalid(error.to_string()).hint(
            "they look older than the branch: `masterctl export --region R --out DIR` gives the current data to edit (an exported workbook is merged, never reverting); to take these back on purpose, import with --revert-upstream",
        ),
        StoreError::ListRow { ref table } => Failure::invalid(error.to_string()).hint(format!(
            "`masterctl log --region R` and `masterctl diff` show what changed in `{table}`, row by row, by place"
        )),
        StoreError::NoSources => Failure::usage(error.to_string())
            .hint("masterctl reads .xlsx, .xlsm, .xlsb, .xls, .ods and .csv files"),
        StoreError::NoTable { .. }
        | StoreError::NoField { .. }
        | StoreError::NoRow { .. }
        | StoreError::KeyArity { .. }
        | StoreError::NoCommits(_)
        | StoreError::NoBranch(_)
        | StoreError::UnknownRevision(_)
        | StoreError::NotALanguage { .. } => Failure::invalid(error.to_string()),
        StoreError::BadPseudoLanguage { .. } => Failure::usage(error.to_string())
            .hint("a pseudo language takes a tag of its own: qps, en-XA"),
        StoreError::NoWorkBranch { .. } => Failure::invalid(error.to_string()).hint(
            "`masterctl branch list` lists the work branches; `masterctl branch create NAME --region R` makes one",
        ),
        StoreError::WorkBranchExists(_)
        | StoreError::TagExists(_)
        | StoreError::Unmerged { .. }
        | StoreError::NothingToPropose(_)
        | StoreError::NotInHistory { .. } => Failure::invalid(error.to_string()),
        StoreError::ConflictFile { .. } => Failure::invalid(error.to_string())
            .hint("fix the file (or run `masterctl rebase --region R --abort` to start over)"),
        StoreError::UncommittedStructure { .. } => Failure::usage(error.to_string()).hint(
            "commit it first (git add masterctl.toml schemas && git commit -m \"…\"), then import again; or import with --structure HEAD to use the committed structure as it is",
        ),
        StoreError::NotARepository(_) => Failure::usage(error.to_string()).hint(
            "run inside the master repository, or pass --repo DIR (`masterctl init` creates one)",
        ),
        StoreError::NoCommittedStructure(_) => Failure::usage(error.to_string())
            .hint("name a commit that holds the structure with --structure REV"),
        StoreError::NotABuild(_) => {
            Failure::usage(error.to_string()).hint("choose another --out, or remove that folder")
        }
        StoreError::RebaseInProgress {
            ref region,
            ref work,
            ref kind,
            ref from,
            ..
        } => {
            let again = in_progress_command(region, work.as_deref(), kind, from);
            Failure::usage(error.to_string()).hint(format!(
                "resolve its conflicts and run `{again} --continue`, or `--abort` it"
            ))
        }
        StoreError::StateFile { .. } => Failure::environment(error.to_string()).hint(
            "`masterctl rebase --region R --abort` clears a rebase in progress; then rebase again",
        ),
        StoreError::NoAuthor => Failure::environment(error.to_string())
            .hint("git config --global user.name \"…\" && git config --global user.email \"…\""),
        StoreError::Locked { .. } => Failure::environment(error.to_string()).hint(
            "if no masterctl or git process is running, remove the lock with `masterctl unlock --region R` and run again",
        ),
        StoreError::NotAFolder(_)
        | StoreError::AlreadyExists { .. }
        | StoreError::OutIsLink(_)
        | StoreError::InsideRepository { .. }
        | StoreError::NoStructure
        | StoreError::BadWorkBranch(_)
        | StoreError::BadRemote(_)
        | StoreError::NotMasters { .. }
        | StoreError::BadVersion(_) => Failure::usage(error.to_string()),
        StoreError::NoRemote { ref known, .. } => {
            let hint = match known.as_slice() {
                [] => "this clone has no remote: `git remote add origin URL` names one".to_string(),
                known => format!("its remotes: {} (choose one with --remote)", known.join(", ")),
            };
            Failure::usage(error.to_string()).hint(hint)
        }
        StoreError::Remote { what, .. } => {
            let hint = match what {
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
            };
            Failure::environment(error.to_string()).hint(hint)
        }
        StoreError::Rewritten {
            ref remote,
            ref branch,
            ..
        } => Failure::environment(error.to_string()).hint(format!(
            "compare the two (git log {branch} {remote}/{branch}) and ask who rewrote it; to take the rewritten branch as it is: git update-ref -d refs/remotes/{remote}/{branch}, then pull again"
        )),
        StoreError::UnvouchedStructure { ref branch, .. } => Failure::invalid(error.to_string()).hint(format!(
            "a schema reaches a region only through main (reviewed) and an import; someone put this commit on {branch} with git: compare it with main (git diff main {branch} -- masterctl.toml schemas), then set the branch back to its last commit masterctl made, or commit the same structure to main after review"
        )),
        StoreError::StructureNotOnMain { .. } => Failure::invalid(error.to_string()).hint(
            "bring main up to date first (git pull: the structure travels through git), then run this again; if main holds no such commit, ask who imported with it",
        ),
        StoreError::LinkInRepository { .. } => Failure::environment(error.to_string()).hint(
            "a repository on a shared disk is someone else's folder: ask its owner to replace the link with what git keeps there (git fsck), or push to a remote over ssh or https",
        ),
        StoreError::BadAuthor { .. }
        | StoreError::CheckedOut(_)
        | StoreError::Build(_)
        | StoreError::Export { .. }
        | StoreError::Raced { .. }
        | StoreError::BrokenSnapshot { .. }
        | StoreError::Io { .. }
        | StoreError::Csv { .. }
        | StoreError::Git(_) => Failure::environment(error.to_string()),
    }
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
