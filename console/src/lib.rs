//! The planners' console (`masterctl serve`): the admin screen where a studio sees its
//! regions and work branches, their history, each commit's changes and who changed a
//! cell — server-rendered HTML over the same library calls the command line makes. The
//! git repository stays the only state: no database, nothing of its own but the
//! sessions of signed-in browsers (in memory).
//!
//! [`router`] is the whole application (axum); [`serve`] binds it. Every page is a
//! template checked when the crate compiles (askama), every value escaped for HTML;
//! assets are inline, nothing comes from the network. Who may see and do what is
//! [`access`]'s.

pub mod access;
mod auditing;
mod browsing;
mod connections;
mod editing;
mod failed;
mod forms;
mod guard;
mod hosts;
mod i18n;
mod importing;
mod jobs;
mod joining;
mod mistakes;
mod pages;
mod proposing;
mod releasing;
mod reviewing;
mod sheets;
mod shown;
mod speaking;
mod target;
mod translating;
mod undoing;
mod uploads;
mod visitor;
pub mod watching;
mod writing;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use axum::Router;
use axum::routing::{get, post};

pub use access::{AccessError, Identity, Policy, Role, Users};
pub use connections::Limits;
pub use failed::{ConsoleError, status_of};
pub use hosts::AllowedHosts;
use masterctl_store::MasterRepo;
use masterctl_store::names::RemoteName;
pub use uploads::{FILE_LIMIT, FILES, UPLOAD_LIMIT};

/// What the console serves, and for whom.
pub struct Options {
    /// The master repository (a working tree or a bare repository).
    pub repo: PathBuf,
    pub listen: SocketAddr,
    pub policy: Policy,
    /// The remote pulled before and pushed after every write (`None`: none).
    pub remote: Option<String>,
    /// The host names answered to besides the loopback ones (`--allowed-host`).
    pub hosts: AllowedHosts,
    /// The bounds of its connections (timeouts, caps).
    pub limits: Limits,
}

/// How many commits' review pages are kept (a large commit's is megabytes), and how
/// many translation states.
const COMMITS: usize = 16;
const MEMO: usize = 256;

/// How many requests' store work runs at once: enough that a blame of a large table or
/// a long review never holds up the pages of everyone else, few enough that a crowd
/// cannot take all the memory.
const AT_ONCE: usize = 32;

/// The console's state, shared by every request.
pub struct Console {
    repo: PathBuf,
    policy: Policy,
    /// The host names answered to (DNS rebinding).
    hosts: AllowedHosts,
    sessions: access::Sessions,
    remote: Option<RemoteName>,
    /// Uploads being checked (the import's dry run), by user, upload and branch.
    reviews: jobs::Jobs<Result<masterctl_store::ImportOutcome, ConsoleError>>,
    /// How long a request waits for work before it shows the work under way.
    patience: std::time::Duration,
    /// Writes under way (imports, joins, translations taken), by user and a random id.
    writes: jobs::Jobs<Result<String, ConsoleError>>,
    /// Requests' store and delivery work running at once, at most (the rest wait their
    /// turn, off the async threads too).
    at_once: Arc<tokio::sync::Semaphore>,
    /// Each commit's review page, by commit id.
    commits: masterctl_app::memo::Memo<String>,
    /// The translation states of a region's texts at a commit, by region and commit.
    translated: masterctl_app::memo::Memo<Vec<masterctl_store::l10n::LanguageStatus>>,
    /// The tables pages showed, as grids, by what they were read from.
    grids: masterctl_app::browse::Grids,
    /// The edits each planner gathers on each branch before committing them.
    drafts: masterctl_app::drafts::Drafts,
}

impl Console {
    pub fn new(repo: PathBuf, policy: Policy) -> Arc<Console> {
        Arc::new(Console::made(repo, policy, None, writing::PATIENCE))
    }

    /// A console with users or a proxy that answers to `hosts` besides the loopback
    /// names.
    pub fn answering(repo: PathBuf, policy: Policy, hosts: AllowedHosts) -> Arc<Console> {
        Arc::new(Console {
            hosts,
            ..Console::made(repo, policy, None, writing::PATIENCE)
        })
    }

    /// A console whose requests wait `patience` for work before they show it under way
    /// (half a second by default).
    pub fn with_patience(
        repo: PathBuf,
        policy: Policy,
        patience: std::time::Duration,
    ) -> Arc<Console> {
        Arc::new(Console::made(repo, policy, None, patience))
    }

    /// A console that pulls from and pushes to `remote` around every write; a remote
    /// the repository does not name is refused.
    pub fn with_remote(
        repo: PathBuf,
        policy: Policy,
        remote: &str,
    ) -> Result<Arc<Console>, masterctl_store::remote::RemoteError> {
        let remote = masterctl_store::remote::remote_of(&MasterRepo::open(&repo)?, remote)?;
        Ok(Arc::new(Console::made(
            repo,
            policy,
            Some(remote),
            writing::PATIENCE,
        )))
    }

    fn made(
        repo: PathBuf,
        policy: Policy,
        remote: Option<RemoteName>,
        patience: std::time::Duration,
    ) -> Console {
        let drafts = drafts_of(&repo);
        Console {
            repo,
            policy,
            hosts: AllowedHosts::default(),
            sessions: access::Sessions::default(),
            remote,
            patience,
            reviews: jobs::Jobs::default(),
            writes: jobs::Jobs::default(),
            commits: masterctl_app::memo::Memo::new(COMMITS),
            translated: masterctl_app::memo::Memo::new(MEMO),
            grids: masterctl_app::browse::grids(),
            drafts,
            at_once: Arc::new(tokio::sync::Semaphore::new(AT_ONCE)),
        }
    }

    /// The translation states of `line` at its head, worked out once per region and
    /// commit (the texts, and the structure they are read by, are read only then).
    fn translation_states(
        &self,
        repo: &MasterRepo,
        line: &masterctl_store::Branch,
    ) -> Result<Arc<Vec<masterctl_store::l10n::LanguageStatus>>, masterctl_store::StoreError> {
        let head = repo.head_of_branch(line)?.id();
        let key = format!("{}:{head}", line.name());
        self.translated.get_or(&key, || {
            masterctl_app::l10n::status(repo, line, None, false).map(|status| status.languages)
        })
    }

    /// The remote whose ahead and behind the pages show: the one served with, else
    /// `origin` when there is one.
    fn shown_remote(&self, repo: &MasterRepo) -> Option<RemoteName> {
        self.remote.clone().or_else(|| {
            masterctl_app::project::shown_remote(repo, None)
                .ok()
                .flatten()
        })
    }

    /// The master repository, opened for one request (a git2 handle is not shared
    /// between threads).
    fn open(&self) -> Result<masterctl_store::MasterRepo, masterctl_store::StoreError> {
        masterctl_store::MasterRepo::open(&self.repo)
    }

    /// Run `work` — anything that reads the repository, a file or a store — on a
    /// blocking thread, never on the async threads that answer every other request (a
    /// blame of a large table takes seconds), waiting for a turn when [`AT_ONCE`] such
    /// works run. The work goes on to its end when the browser goes away.
    pub(crate) async fn blocking<T: Send + 'static>(
        self: &Arc<Self>,
        work: impl FnOnce(&Console) -> Result<T, ConsoleError> + Send + 'static,
    ) -> Result<T, ConsoleError> {
        let turn = self
            .at_once
            .clone()
            .acquire_owned()
            .await
            .map_err(|e| ConsoleError::internal(e.to_string()))?;
        let console = self.clone();
        tokio::task::spawn_blocking(move || {
            let _turn = turn;
            work(&console)
        })
        .await
        .map_err(|e| ConsoleError::internal(format!("the work stopped: {e}")))?
    }
}

/// The runtime the console serves on: a worker per core (at least two) for the
/// connections and pages, and threads of their own for the store's work.
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(cores.max(2))
        .thread_name("console")
        .enable_all()
        .build()
}

/// Why the console did not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Store(#[from] masterctl_store::StoreError),
    #[error(transparent)]
    Remote(#[from] masterctl_store::remote::RemoteError),
    #[error("cannot listen on {listen}: {source}")]
    Listen {
        listen: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// The most a request may send to an upload form taking `files` bytes: that, and a
/// megabyte for the form around them (the upload's own bounds refuse sooner).
fn body_limit(files: u64) -> axum::extract::DefaultBodyLimit {
    axum::extract::DefaultBodyLimit::max(usize::try_from(files + (1 << 20)).unwrap_or(usize::MAX))
}

/// The planners' drafts, kept under the repository's git folder
/// (`masterctl/console/drafts/`) so that a restarted console loses none; in memory
/// only where the repository does not open.
fn drafts_of(repo: &std::path::Path) -> masterctl_app::drafts::Drafts {
    match MasterRepo::open(repo) {
        Ok(opened) => masterctl_app::drafts::Drafts::kept_in(
            opened
                .git
                .path()
                .join("masterctl")
                .join("console")
                .join("drafts"),
        ),
        Err(_) => masterctl_app::drafts::Drafts::new(),
    }
}

/// Every page and action of the console.
pub fn router(console: Arc<Console>) -> Router {
    Router::new()
        .route("/", get(pages::regions))
        .route("/history", get(pages::history))
        .route("/commit", get(pages::commit))
        .route("/blame", get(pages::blame))
        .route("/revert", get(undoing::page).post(undoing::act))
        .route("/revert/diff", get(undoing::diff))
        .route("/audit", get(auditing::page))
        .route("/tables", get(browsing::tables))
        .route("/download", get(browsing::download))
        .route("/row", get(editing::form).post(editing::save))
        .route("/edits", get(editing::page).post(editing::act))
        .route("/edits/diff", get(editing::diff))
        .route("/table", get(browsing::table))
        .route("/import", get(importing::form).post(importing::commit))
        .route(
            "/upload",
            post(importing::upload).layer(body_limit(uploads::UPLOAD_LIMIT)),
        )
        .route("/review", get(importing::review))
        .route("/review/diff", get(importing::review_diff))
        .route("/review/sheet", get(importing::sheet))
        .route("/join", get(joining::page).post(joining::act))
        .route("/join/diff", get(joining::diff))
        .route("/resolve", post(joining::resolve))
        .route("/check-value", get(joining::check_value))
        .route("/working", get(writing::working))
        .route("/propose", post(proposing::act))
        .route("/releases", get(releasing::page).post(releasing::act))
        .route("/releases/rollback", get(releasing::confirm))
        .route(
            "/translations",
            get(translating::page)
                .post(translating::upload)
                .layer(body_limit(uploads::FILE_LIMIT)),
        )
        .route("/translations/file", get(translating::file))
        .route("/translations/check", get(translating::check))
        .route("/translations/take", post(translating::commit))
        .route("/login", get(pages::login_form).post(pages::login))
        .route("/language", get(speaking::choose))
        .route("/logout", post(pages::logout))
        .layer(axum::middleware::from_fn_with_state(
            console.clone(),
            visitor::identify,
        ))
        // The one asset, for everyone (the sign-in page uses it too).
        .route("/assets/console.js", get(guard::script))
        // Another site's name for this machine gets nothing, not even the script.
        .layer(axum::middleware::from_fn_with_state(
            console.clone(),
            hosts::check,
        ))
        .layer(axum::middleware::from_fn(failed::in_language))
        .layer(axum::middleware::from_fn(guard::headers))
        .with_state(console)
}

/// A console bound to its address, ready to serve.
pub struct Bound {
    listener: tokio::net::TcpListener,
    app: Router,
    open: Arc<connections::Open>,
}

impl Bound {
    /// Where it listens (the port chosen when asked for port 0).
    pub fn address(&self) -> Option<SocketAddr> {
        self.listener.local_addr().ok()
    }

    /// Serve until the process is stopped, each connection within the bounds of
    /// [`Options::limits`].
    pub async fn run(self) -> Result<(), ServeError> {
        connections::serve(self.listener, self.app, self.open).await;
        Ok(())
    }
}

/// Bind the console. A listen address other machines can reach is refused unless users
/// or a proxy name who may use it.
pub async fn bind(options: Options) -> Result<Bound, ServeError> {
    options.policy.check(&options.listen)?;
    let listener = tokio::net::TcpListener::bind(options.listen)
        .await
        .map_err(|source| ServeError::Listen {
            listen: options.listen,
            source,
        })?;
    // A sign-on proxy's own addresses carry every planner's connections.
    let exempt = match &options.policy {
        Policy::Proxy { trusted, .. } => trusted.clone(),
        _ => Vec::new(),
    };
    let open = connections::Open::new(options.limits, exempt);
    let remote = match &options.remote {
        Some(remote) => Some(masterctl_store::remote::remote_of(
            &MasterRepo::open(&options.repo)?,
            remote,
        )?),
        None => None,
    };
    let console = Arc::new(Console {
        hosts: options.hosts,
        ..Console::made(options.repo, options.policy, remote, writing::PATIENCE)
    });
    let app = router(console);
    Ok(Bound {
        listener,
        app,
        open,
    })
}
