//! A write with a remote around it, as both faces make it: the branch pulled first, the
//! write, the commit sent after; a pull that cannot be made cleanly stops everything
//! before the write; a write that commits nothing sends nothing. Two clones of one bare
//! remote on this machine, through the store's own calls.

use std::path::{Path, PathBuf};

use masterctl_app::sync::{self, Around, Push, Remote};
use masterctl_store::import::{self, ImportError, ImportOutcome, Request};
use masterctl_store::remote::PullState;
use masterctl_store::{Branch, MasterRepo, Region};
use masterctl_testing::git;

/// Whatever a write or the remote around it failed with.
type Failed = Box<dyn std::error::Error + Send + Sync>;

const CONFIG: &str =
    "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
const MONSTER: &str = "name = \"monster\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"hp\"\ntype = \"int\"\n";

/// A clone of `remote` (or, without one, a new master repository), committing as `who`.
pub fn clone(dir: &Path, name: &str, remote: Option<&Path>, who: &str) -> PathBuf {
    let path = dir.join(name);
    match remote {
        None => {
            let files = [
                ("masterctl.toml".to_string(), CONFIG.as_bytes().to_vec()),
                (
                    "schemas/monster.toml".to_string(),
                    MONSTER.as_bytes().to_vec(),
                ),
            ];
            std::fs::create_dir_all(&path).unwrap();
            git(&path, &["init", "-q", "-b", "main"]);
            git(&path, &["config", "user.name", who]);
            git(&path, &["config", "user.email", "planner@example.com"]);
            masterctl_store::init::init(&path, &files, None).unwrap();
        }
        Some(remote) => {
            git(dir, &["clone", "-q", remote.to_str().unwrap(), name]);
            git(&path, &["config", "user.name", who]);
            git(&path, &["config", "user.email", "planner@example.com"]);
        }
    }
    path
}

/// Import `monster.csv` of these rows (id, hp) into jp.
pub fn import(
    repo: &MasterRepo,
    rows: &[(i64, i64)],
    dry_run: bool,
) -> Result<ImportOutcome, ImportError> {
    let dir = tempfile::tempdir().unwrap();
    let mut csv = String::from("id,hp\n");
    for (id, hp) in rows {
        csv.push_str(&format!("{id},{hp}\n"));
    }
    std::fs::write(dir.path().join("monster.csv"), csv).unwrap();
    let paths = [dir.path().join("monster.csv")];
    import::run(
        repo,
        &Request {
            region: "jp",
            branch: None,
            paths: &paths,
            structure: None,
            message: None,
            dry_run,
            review: None,
            allow_removal: false,
            revert_upstream: false,
            keep_branch: false,
            progress: &|_, _| {},
        },
    )
}

fn committed(outcome: &ImportOutcome) -> bool {
    matches!(outcome, ImportOutcome::Committed { .. })
}

fn jp(repo: &MasterRepo) -> Branch {
    let structure = repo.structure().unwrap();
    Branch::of(&Region::of(&structure.project, "jp").unwrap(), None).unwrap()
}

fn head(dir: &Path) -> String {
    git(dir, &["rev-parse", "masters/jp"]).trim().to_string()
}

#[test]
fn a_write_takes_the_remote_first_sends_its_commit_and_stops_before_a_conflict() {
    let dir = tempfile::tempdir().unwrap();
    let aiko_dir = clone(dir.path(), "aiko", None, "Aiko");
    let aiko = MasterRepo::open(&aiko_dir).unwrap();
    assert!(committed(
        &import(&aiko, &[(1, 10), (2, 20)], false).unwrap()
    ));
    let remote = dir.path().join("remote.git");
    git(
        dir.path(),
        &[
            "clone",
            "-q",
            "--bare",
            aiko_dir.to_str().unwrap(),
            "remote.git",
        ],
    );
    git(
        &aiko_dir,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    git(&aiko_dir, &["fetch", "-q", "origin"]);

    // Bob's clone changes the slime and sends it.
    let bob_dir = clone(dir.path(), "bob", Some(&remote), "Bob");
    git(
        &bob_dir,
        &["branch", "-q", "masters/jp", "origin/masters/jp"],
    );
    let bob = MasterRepo::open(&bob_dir).unwrap();
    let around = Remote::named(&bob, "origin", true, true).unwrap();
    let line = jp(&bob);
    let done = sync::around(
        &bob,
        Some(&around),
        std::slice::from_ref(&line),
        &line,
        |repo| import(repo, &[(1, 11), (2, 20)], false).map_err(Failed::from),
        committed,
    )
    .unwrap();
    let Around::Done(synced) = done else {
        panic!("nothing stopped Bob's import");
    };
    assert!(
        matches!(&synced.pushed, Push::Sent(sent) if sent.landed()),
        "{synced:?}"
    );
    assert_eq!(head(&remote), head(&bob_dir));

    // Aiko's write takes Bob's change first (a fast-forward), then sends her own.
    let aiko_remote = Remote::named(&aiko, "origin", true, true).unwrap();
    let line = jp(&aiko);
    let done = sync::around(
        &aiko,
        Some(&aiko_remote),
        std::slice::from_ref(&line),
        &line,
        |repo| import(repo, &[(1, 11), (2, 21)], false).map_err(Failed::from),
        committed,
    )
    .unwrap();
    let Around::Done(synced) = done else {
        panic!("nothing stopped Aiko's import");
    };
    assert!(
        matches!(synced.pulled[0].state, PullState::FastForward { .. }),
        "{:?}",
        synced.pulled
    );
    assert!(matches!(&synced.pushed, Push::Sent(sent) if sent.landed()));
    assert_eq!(head(&remote), head(&aiko_dir));

    // A dry run commits nothing: nothing is sent.
    let before = head(&remote);
    let done = sync::around(
        &aiko,
        Some(&aiko_remote),
        std::slice::from_ref(&line),
        &line,
        |repo| import(repo, &[(1, 12), (2, 21)], true).map_err(Failed::from),
        committed,
    )
    .unwrap();
    assert!(matches!(done, Around::Done(ref s) if matches!(s.pushed, Push::No)));
    assert_eq!(head(&remote), before);

    // Bob and Aiko change the golem's hp differently; Bob's goes first. Aiko's next
    // write stops at the pull: the write never runs, nothing is committed or sent.
    let bob_line = jp(&bob);
    let bob_done = sync::around(
        &bob,
        Some(&around),
        std::slice::from_ref(&bob_line),
        &bob_line,
        |repo| import(repo, &[(1, 11), (2, 30)], false).map_err(Failed::from),
        committed,
    )
    .unwrap();
    assert!(matches!(bob_done, Around::Done(_)));
    assert!(committed(
        &import(&aiko, &[(1, 11), (2, 40)], false).unwrap()
    ));
    let (aiko_head, remote_head) = (head(&aiko_dir), head(&remote));
    let mut ran = false;
    let done = sync::around(
        &aiko,
        Some(&aiko_remote),
        std::slice::from_ref(&line),
        &line,
        |repo| {
            ran = true;
            import(repo, &[(1, 13), (2, 40)], false).map_err(Failed::from)
        },
        committed,
    )
    .unwrap();
    let Around::Stopped(pulled) = done else {
        panic!("the conflicting pull did not stop the write");
    };
    assert!(pulled.iter().any(|p| p.stopped()), "{pulled:?}");
    assert!(!ran, "the write ran after a pull that stopped");
    assert_eq!(head(&aiko_dir), aiko_head);
    assert_eq!(head(&remote), remote_head);
}
