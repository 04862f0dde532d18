//! Telling a studio what happened: each event the project's `[notify]` asks for — a
//! merge proposed or withdrawn, an import or an edit committed, a rebase or merge
//! committed, a release published or rolled back — posted as JSON to its webhook (a
//! chat's incoming webhook reads `text`; anything else reads the fields). Bounded: a
//! few attempts, each with a timeout; a webhook that never answers delays nothing but
//! the telling, and what happened stands whatever the webhook says.

use std::time::Duration;

use masterctl_schemas::schema::NotifyConfig;
use serde::Serialize;

/// How many times an event is posted before the webhook is given up on.
pub const ATTEMPTS: u32 = 3;

/// How long one attempt may take.
const TIMEOUT: Duration = Duration::from_secs(5);

/// One event, as the webhook receives it.
#[derive(Debug, Clone, Serialize)]
pub struct Notice {
    /// The kind (`proposal`, `import`, `merge`, `release`), as `[notify] events` names it.
    pub event: &'static str,
    /// What happened (`proposed`, `withdrawn`, `imported`, `edited`, `reverted`,
    /// `rebased`, `merged`, `published`, `rolled-back`).
    pub action: &'static str,
    pub region: String,
    /// The branch, where one moved (`masters/jp`, `work/jp/event`).
    pub branch: Option<String>,
    /// The commit made, or the release.
    pub id: Option<String>,
    /// Who (`Name <email>`).
    pub by: String,
    /// Their words.
    pub message: Option<String>,
    /// The event in one line, for a chat.
    pub text: String,
}

impl Notice {
    /// An event of `event`'s kind: `action` on `region` by `by`; the line a chat shows
    /// is made from them.
    pub fn new(event: &'static str, action: &'static str, region: &str, by: &str) -> Notice {
        Notice {
            event,
            action,
            region: region.to_string(),
            branch: None,
            id: None,
            by: by.to_string(),
            message: None,
            text: String::new(),
        }
    }

    pub fn on(mut self, branch: &str) -> Notice {
        self.branch = Some(branch.to_string());
        self
    }

    pub fn id(mut self, id: &str) -> Notice {
        self.id = Some(id.to_string());
        self
    }

    pub fn saying(mut self, message: Option<&str>) -> Notice {
        self.message = message.map(masterctl_store::names::one_line);
        self
    }

    /// The line a chat shows: `mia merged masters/jp (abc123def456): Event prices`.
    fn line(&self) -> String {
        let place = self.branch.as_deref().unwrap_or(&self.region);
        let id = self.id.as_deref().map_or_else(String::new, |id| {
            format!(" ({})", masterctl_store::short_id(id))
        });
        let words = self
            .message
            .as_deref()
            .map_or_else(String::new, |m| format!(": {m}"));
        format!("{} {} {place}{id}{words}", self.by, self.action)
    }
}

/// What telling came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "told", rename_all = "kebab-case")]
pub enum Told {
    /// The project asks for no webhook, or not for this kind of event.
    NotAsked,
    /// The webhook took it.
    Told { attempts: u32 },
    /// Given up after `attempts`: why (the webhook's address is never said, it may hold
    /// a secret).
    Failed { attempts: u32, why: String },
}

/// Post `notice` to the project's webhook when `[notify]` asks for its kind.
pub async fn tell(config: Option<&NotifyConfig>, notice: Notice) -> Told {
    let Some(config) = config.filter(|c| c.events.iter().any(|e| e == notice.event)) else {
        return Told::NotAsked;
    };
    let notice = Notice {
        text: notice.line(),
        ..notice
    };
    let client = match reqwest::Client::builder().timeout(TIMEOUT).build() {
        Ok(client) => client,
        Err(e) => {
            return Told::Failed {
                attempts: 0,
                why: e.to_string(),
            };
        }
    };
    let mut why = String::new();
    for attempt in 1..=ATTEMPTS {
        match client.post(&config.webhook).json(&notice).send().await {
            Ok(answer) if answer.status().is_success() => return Told::Told { attempts: attempt },
            // Refused for good: asking again will not help.
            Ok(answer)
                if answer.status().is_client_error()
                    && answer.status() != reqwest::StatusCode::TOO_MANY_REQUESTS =>
            {
                return Told::Failed {
                    attempts: attempt,
                    why: format!("the webhook answered {}", answer.status()),
                };
            }
            Ok(answer) => why = format!("the webhook answered {}", answer.status()),
            Err(e) => why = without_url(&e),
        }
        if attempt < ATTEMPTS {
            tokio::time::sleep(Duration::from_millis(250 << attempt)).await;
        }
    }
    Told::Failed {
        attempts: ATTEMPTS,
        why,
    }
}

/// A failure in words, without the address (a webhook's path is often its secret).
fn without_url(error: &reqwest::Error) -> String {
    let what = if error.is_timeout() {
        "it did not answer in time"
    } else if error.is_connect() {
        "it could not be reached"
    } else {
        "the request failed"
    };
    what.to_string()
}

/// What both faces tell of the actions they carry out: the same notice from either.
pub mod of {
    use masterctl_store::WorkBranch;
    use masterctl_store::edit::EditOutcome;
    use masterctl_store::import::ImportOutcome;
    use masterctl_store::join::Join;
    use masterctl_store::join::session::Step;
    use masterctl_store::l10n::import::{Taken, TakenState, TranslationOutcome};
    use masterctl_store::revert::RevertOutcome;

    use super::Notice;

    /// An outcome that may have made a commit: the commit and its message.
    pub trait Made {
        fn made(&self) -> Option<(&str, &str)>;
    }

    /// `Made` of an outcome whose `$variant` names its commit `$commit`, beside `message`.
    macro_rules! made {
        ($outcome:ty, $variant:path, $commit:ident) => {
            impl Made for $outcome {
                fn made(&self) -> Option<(&str, &str)> {
                    match self {
                        $variant {
                            $commit, message, ..
                        } => Some(($commit, message)),
                        _ => None,
                    }
                }
            }
        };
    }

    made!(ImportOutcome, ImportOutcome::Committed, commit);
    made!(EditOutcome, EditOutcome::Committed, commit);
    made!(RevertOutcome, RevertOutcome::Committed, revert);

    /// A commit `outcome` made on `branch` of `region`: `action` it (`imported into`,
    /// `edited`, `took back a commit of`), with its message's first line.
    fn committed(
        outcome: &impl Made,
        action: &'static str,
        (region, branch): (&str, &str),
        by: &str,
    ) -> Option<Notice> {
        let (commit, message) = outcome.made()?;
        Some(
            Notice::new("import", action, region, by)
                .on(branch)
                .id(commit)
                .saying(message.lines().next()),
        )
    }

    /// An import committed.
    pub fn import(outcome: &ImportOutcome, region: &str, branch: &str, by: &str) -> Option<Notice> {
        committed(outcome, "imported into", (region, branch), by)
    }

    /// An edit committed.
    pub fn edit(outcome: &EditOutcome, region: &str, branch: &str, by: &str) -> Option<Notice> {
        committed(outcome, "edited", (region, branch), by)
    }

    /// A commit taken back.
    pub fn revert(outcome: &RevertOutcome, region: &str, branch: &str, by: &str) -> Option<Notice> {
        committed(outcome, "took back a commit of", (region, branch), by)
    }

    /// A translation file taken: its translations committed.
    pub fn translations(outcome: &TranslationOutcome, by: &str) -> Option<Notice> {
        let TranslationOutcome::Taken(Taken {
            state: TakenState::Committed { commit, message },
            region,
            branch,
            ..
        }) = outcome
        else {
            return None;
        };
        Some(
            Notice::new("import", "took translations into", region, by)
                .on(branch)
                .id(commit)
                .saying(message.lines().next()),
        )
    }

    /// A rebase or merge committed.
    pub fn join(step: &Step, join: &Join, by: &str, message: Option<&str>) -> Option<Notice> {
        let Step::Committed { commit, .. } = step else {
            return None;
        };
        let target = join.target();
        let action = match join {
            Join::Reflect(_) => "merged into",
            _ => "rebased",
        };
        Some(
            Notice::new("merge", action, join.region().name(), by)
                .on(target.branch())
                .id(commit)
                .saying(message),
        )
    }

    /// A merge proposed (or, `proposed` false, withdrawn).
    pub fn proposal(work: &WorkBranch, proposed: bool, by: &str, message: Option<&str>) -> Notice {
        let action = if proposed {
            "proposed merging"
        } else {
            "withdrew the proposal of"
        };
        Notice::new("proposal", action, work.region().name(), by)
            .on(&work.branch())
            .saying(message)
    }

    /// A version named (`masters/jp/1.4`) on a commit of the region.
    pub fn tag(version: &masterctl_store::tags::Version, by: &str) -> Notice {
        Notice::new("release", "tagged", &version.region, by)
            .id(&version.commit)
            .saying(Some(&version.tag))
    }

    /// A release published (or, `published` false, made current again).
    pub fn release(
        region: &str,
        release: &str,
        published: bool,
        by: &str,
        words: Option<&str>,
    ) -> Notice {
        let action = if published {
            "published a release of"
        } else {
            "rolled back"
        };
        Notice::new("release", action, region, by)
            .id(release)
            .saying(words)
    }
}

/// Write `notice` to the repository's audit log, as its writer, done from `face` (`the
/// command line`, `the console`) on this machine.
pub fn record(
    repo: &masterctl_store::MasterRepo,
    notice: &Notice,
    face: &str,
) -> Result<(), masterctl_store::StoreError> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(0));
    let time = masterctl_runtime::calendar::DateTime(now / 1000 * 1000).to_string();
    let entry = masterctl_store::audit::Entry {
        time,
        event: notice.event.to_string(),
        action: notice.action.to_string(),
        region: notice.region.clone(),
        branch: notice.branch.clone(),
        id: notice.id.clone(),
        by: notice.by.clone(),
        message: notice.message.clone(),
        from: format!("{face} on {}", machine()),
    };
    masterctl_store::audit::record(repo, &entry)
}

/// This machine's name (`this machine` when it has none to say).
fn machine() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|name| masterctl_store::names::one_line(name.trim()))
        .filter(|name| !name.is_empty())
        .unwrap_or_else(|| "this machine".to_string())
}
