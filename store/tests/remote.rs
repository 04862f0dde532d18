//! Two planners, two clones, one bare remote (a path: libgit2's local transport): both
//! import into `jp`, both push and pull in every order, and the remote ends with both
//! edits and every commit; a conflicting cell stops the second puller with the
//! conflict file; a remote rewritten by someone else is refused; versions travel.

use std::path::Path;
use std::process::Command;

use crate::common::{Studio, git};
use masterctl_store::import::ImportOutcome;
use masterctl_store::join::Join;
use masterctl_store::join::resolutions::Resolution;
use masterctl_store::join::session::{Action, Step};
use masterctl_store::remote::{self, PullState, PushState, RemoteError, Scope};
use masterctl_store::{Branch, MasterRepo, Region, StoreError};

const THREE: [(i64, &str, i64); 3] = [(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5000)];

/// A bare remote with the structure and `jp`'s first import, and two planners' clones
/// of it (Aiko's, which made it, and Bob's), each with `jp` pulled.
struct Team {
    remote: tempfile::TempDir,
    aiko: Studio,
    bob: Studio,
}

impl Team {
    fn new() -> Team {
        let aiko = Studio::new();
        committed(aiko.import("jp", &aiko.export(&THREE), |_| {}).unwrap());
        let remote = tempfile::tempdir().unwrap();
        git(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
        let url = remote.path().display().to_string();
        git(aiko.dir.path(), &["remote", "add", "origin", &url]);
        // The structure travels by git (engineers' review); masterctl moves data only.
        git(aiko.dir.path(), &["push", "-q", "origin", "main"]);
        let pushed = push(&aiko, &Scope::All);
        assert!(
            pushed.branches.iter().all(|b| b.state.landed()),
            "{pushed:?}"
        );
        let bob_dir = tempfile::tempdir().unwrap();
        git(
            bob_dir.path(),
            &["clone", "-q", &url, bob_dir.path().to_str().unwrap()],
        );
        git(bob_dir.path(), &["config", "user.name", "Bob"]);
        git(bob_dir.path(), &["config", "user.email", "bob@example.com"]);
        let bob = Studio {
            dir: bob_dir,
            exports: tempfile::tempdir().unwrap(),
        };
        let pulled = pull(&bob, &Scope::All);
        assert!(
            pulled
                .iter()
                .any(|p| p.branch == "masters/jp" && matches!(p.state, PullState::Created { .. })),
            "{pulled:?}"
        );
        Team { remote, aiko, bob }
    }

    fn remote_head(&self, branch: &str) -> String {
        git(self.remote.path(), &["rev-parse", branch])
            .trim()
            .to_string()
    }
}

fn origin(studio: &Studio) -> masterctl_store::names::RemoteName {
    remote::remote_of(&studio.repo(), "origin").unwrap()
}

fn pull(studio: &Studio, scope: &Scope) -> Vec<remote::Pulled> {
    let repo = studio.repo();
    let structure = repo.structure().unwrap();
    remote::pull(&repo, &structure, &origin(studio), scope).unwrap()
}

fn push(studio: &Studio, scope: &Scope) -> remote::push::PushOutcome {
    let repo = studio.repo();
    let structure = repo.structure().unwrap();
    remote::push(&repo, &structure, &origin(studio), scope).unwrap()
}

fn jp(studio: &Studio) -> Scope {
    let structure = studio.repo().structure().unwrap();
    Scope::Branch(Branch::from(Region::of(&structure.project, "jp").unwrap()))
}

/// Import these monster rows into `jp` of `studio`'s clone; the commit.
fn import_rows(studio: &Studio, rows: &[(i64, &str, i64)]) -> String {
    committed(studio.import("jp", &studio.export(rows), |_| {}).unwrap())
}

fn committed(outcome: ImportOutcome) -> String {
    match outcome {
        ImportOutcome::Committed { commit, .. } => commit,
        other => panic!("{other:?}"),
    }
}

/// The rows of `jp`'s monster table on the remote.
fn remote_monsters(team: &Team) -> String {
    git(
        team.remote.path(),
        &["show", "masters/jp:tables/monster.csv"],
    )
}

fn fsck(dir: &Path) {
    git(dir, &["fsck", "--strict", "--no-progress"]);
}

#[test]
fn two_planners_importing_into_one_region_from_two_clones_lose_nothing_in_any_order() {
    // Who pushes first, and whether the second pulls before trying to push.
    for (first_is_aiko, second_pulls_first) in
        [(true, false), (true, true), (false, false), (false, true)]
    {
        let team = Team::new();
        let (first, second) = if first_is_aiko {
            (&team.aiko, &team.bob)
        } else {
            (&team.bob, &team.aiko)
        };
        // Different cells of the same table, one import each.
        import_rows(
            &team.aiko,
            &[(1, "slime", 11), (2, "golem", 300), (3, "dragon", 5000)],
        );
        import_rows(
            &team.bob,
            &[(1, "slime", 10), (2, "golem", 333), (3, "dragon", 5000)],
        );
        let pushed = push(first, &jp(first));
        assert!(
            matches!(pushed.branches[0].state, PushState::Pushed { .. }),
            "{pushed:?}"
        );
        if !second_pulls_first {
            // The remote moved: nothing is sent, nothing overwritten.
            let refused = push(second, &jp(second));
            assert!(
                matches!(
                    refused.branches[0].state,
                    PushState::PullFirst {
                        behind: 1,
                        ahead: 1
                    }
                ),
                "{refused:?}"
            );
        }
        let pulled = pull(second, &jp(second));
        assert!(
            matches!(pulled[0].state, PullState::Merged { .. }),
            "{pulled:?}"
        );
        let pushed = push(second, &jp(second));
        assert!(
            matches!(pushed.branches[0].state, PushState::Pushed { .. }),
            "{pushed:?}"
        );
        let pulled = pull(first, &jp(first));
        assert!(
            matches!(pulled[0].state, PullState::FastForward { .. }),
            "{pulled:?}"
        );

        // Both edits, on the remote and in both clones; every commit kept.
        let rows = remote_monsters(&team);
        assert!(
            rows.contains("1,slime,11") && rows.contains("2,golem,333"),
            "{rows}"
        );
        assert_eq!(team.aiko.head("masters/jp"), team.bob.head("masters/jp"));
        assert_eq!(
            team.remote_head("masters/jp"),
            team.aiko.head("masters/jp").unwrap()
        );
        let authors = git(team.remote.path(), &["log", "--format=%an", "masters/jp"]);
        assert!(
            authors.contains("Aiko") && authors.contains("Bob"),
            "{authors}"
        );
        assert_eq!(authors.lines().count(), 4, "{authors}");
        for dir in [
            team.remote.path(),
            team.aiko.dir.path(),
            team.bob.dir.path(),
        ] {
            fsck(dir);
        }
    }
}

#[test]
fn a_cell_both_planners_changed_stops_the_second_puller_who_resolves_and_pushes() {
    let team = Team::new();
    import_rows(
        &team.aiko,
        &[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5100)],
    );
    import_rows(
        &team.bob,
        &[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5200)],
    );
    push(&team.aiko, &Scope::All);
    let bob_before = team.bob.head("masters/jp");
    let pulled = pull(&team.bob, &Scope::All);
    let PullState::Stopped { step } = &pulled[0].state else {
        panic!("{pulled:?}")
    };
    let Step::Conflicts {
        conflicts,
        conflict_file,
    } = step.as_ref()
    else {
        panic!("{step:?}")
    };
    assert_eq!(conflicts.len(), 1);
    assert!(conflict_file.as_ref().is_some_and(|f| f.is_file()));
    // Nothing moved; another pull says the branch is stopped.
    assert_eq!(team.bob.head("masters/jp"), bob_before);
    let again = pull(&team.bob, &Scope::All);
    assert!(
        matches!(&again[0].state, PullState::InProgress { kind } if kind == "pull"),
        "{again:?}"
    );

    let repo = team.bob.repo();
    let structure = repo.structure().unwrap();
    let line = Branch::from(Region::of(&structure.project, "jp").unwrap());
    let resolve = Action::Resolve {
        side: Resolution::Ours,
        table: None,
        column: None,
        key: None,
    };
    let resolved =
        remote::pull::join(&repo, &structure, &origin(&team.bob), &line, &resolve).unwrap();
    assert!(
        matches!(resolved, PullState::Stopped { .. }),
        "{resolved:?}"
    );
    let done = remote::pull::join(
        &repo,
        &structure,
        &origin(&team.bob),
        &line,
        &Action::Continue,
    )
    .unwrap();
    assert!(matches!(done, PullState::Merged { .. }), "{done:?}");
    let pushed = push(&team.bob, &Scope::All);
    assert!(
        pushed.branches.iter().all(|b| b.state.landed()),
        "{pushed:?}"
    );
    assert!(remote_monsters(&team).contains("3,dragon,5200"));
    // Aiko's import is in the history, her value replaced by the resolution.
    let log = git(
        team.remote.path(),
        &["log", "--format=%an %s", "masters/jp"],
    );
    assert!(
        log.contains("Aiko Import into jp") && log.contains("Bob Pull origin/masters/jp"),
        "{log}"
    );
    fsck(team.remote.path());
    // A join that is not a pull refuses the branch while it was stopped: covered by the
    // rebase tests; here, the merge commit is followed by blame into Aiko's history.
    let _ = Join::Pull {
        line,
        remote: origin(&team.bob),
    };
}

#[test]
fn a_remote_branch_someone_rewrote_is_refused_and_nothing_changes_here() {
    let team = Team::new();
    import_rows(
        &team.aiko,
        &[(1, "slime", 12), (2, "golem", 300), (3, "dragon", 5000)],
    );
    push(&team.aiko, &Scope::All);
    let pulled = pull(&team.bob, &Scope::All);
    assert!(
        matches!(pulled[0].state, PullState::FastForward { .. }),
        "{pulled:?}"
    );
    // Someone force-pushes jp back to its first import.
    let first = git(team.remote.path(), &["rev-parse", "masters/jp~1"]);
    git(
        team.remote.path(),
        &["update-ref", "refs/heads/masters/jp", first.trim()],
    );
    let bob_head = team.bob.head("masters/jp");
    let repo = team.bob.repo();
    let structure = repo.structure().unwrap();
    for _ in 0..2 {
        match remote::pull(&repo, &structure, &origin(&team.bob), &Scope::All) {
            Err(RemoteError::Rewritten { branch, .. }) => assert_eq!(branch, "masters/jp"),
            other => panic!("{other:?}"),
        }
        assert_eq!(team.bob.head("masters/jp"), bob_head);
    }
    // Nor does a push go over it.
    match remote::push(&repo, &structure, &origin(&team.bob), &Scope::All) {
        Err(RemoteError::Rewritten { branch, .. }) => assert_eq!(branch, "masters/jp"),
        other => panic!("{other:?}"),
    }
    assert_eq!(team.remote_head("masters/jp"), first.trim());
}

#[test]
fn unknown_unreachable_and_badly_named_remotes_are_said_and_change_nothing() {
    let team = Team::new();
    let repo = team.aiko.repo();
    assert!(matches!(
        remote::remote_of(&repo, "upstream"),
        Err(RemoteError::NoRemote { .. })
    ));
    assert!(matches!(
        remote::remote_of(&repo, "../x"),
        Err(RemoteError::Store(StoreError::Git(
            masterctl_store::git::Error::BadRemote(_)
        )))
    ));
    git(
        team.aiko.dir.path(),
        &[
            "remote",
            "add",
            "gone",
            "https://alice:s3cret@127.0.0.1:9/masters.git",
        ],
    );
    let gone = remote::remote_of(&repo, "gone").unwrap();
    let structure = repo.structure().unwrap();
    let head = team.aiko.head("masters/jp");
    match remote::pull(&repo, &structure, &gone, &Scope::All) {
        Err(e @ RemoteError::Transport { .. }) => {
            let text = e.to_string();
            assert!(
                !text.contains("s3cret") && !text.contains("alice"),
                "{text}"
            );
            assert!(
                matches!(
                    e,
                    RemoteError::Transport {
                        what: remote::Trouble::Unreachable,
                        ..
                    }
                ),
                "{e:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(team.aiko.head("masters/jp"), head);
}

#[test]
fn versions_and_work_branches_travel_and_a_version_is_never_moved() {
    let team = Team::new();
    let repo = team.aiko.repo();
    let structure = repo.structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    let request = masterctl_store::tags::TagRequest {
        version: "1.0",
        rev: None,
        message: None,
    };
    masterctl_store::tags::create(&repo, &jp, &request).unwrap();
    let work = masterctl_store::WorkBranch::of(&jp, "event").unwrap();
    masterctl_store::branches::create(&repo, &work, None).unwrap();
    let pushed = push(&team.aiko, &Scope::All);
    assert_eq!(pushed.tags, ["masters/jp/1.0"]);
    assert!(
        pushed
            .branches
            .iter()
            .any(|b| b.branch == "work/jp/event" && b.state.landed())
    );
    let pulled = pull(&team.bob, &Scope::All);
    assert!(
        pulled.iter().any(|p| p.branch == "work/jp/event"),
        "{pulled:?}"
    );
    let bob: MasterRepo = team.bob.repo();
    let line = Branch::from(jp.clone());
    assert_eq!(
        bob.commit_of(&line, Some("1.0")).unwrap().id().to_string(),
        team.aiko.head("masters/jp").unwrap()
    );
    // Bob's own 1.0 on another commit stays his, and is not sent over Aiko's.
    import_rows(
        &team.bob,
        &[(1, "slime", 1), (2, "golem", 300), (3, "dragon", 5000)],
    );
    git(
        team.bob.dir.path(),
        &[
            "tag",
            "-f",
            "-a",
            "-m",
            "mine",
            "masters/jp/1.0",
            "masters/jp",
        ],
    );
    git(
        team.bob.dir.path(),
        &["tag", "-a", "-m", "two", "masters/jp/2.0", "masters/jp"],
    );
    let pushed = push(&team.bob, &Scope::All);
    assert_eq!(pushed.tags, ["masters/jp/2.0"], "{pushed:?}");
    let remote_tag = git(
        team.remote.path(),
        &["rev-parse", "masters/jp/1.0^{commit}"],
    );
    assert_eq!(
        Some(remote_tag.trim().to_string()),
        team.aiko.head("masters/jp")
    );
}

#[test]
fn two_clones_pushing_one_region_at_once_one_wins_and_the_other_sends_after_a_pull() {
    for _ in 0..3 {
        let team = Team::new();
        import_rows(
            &team.aiko,
            &[(1, "slime", 11), (2, "golem", 300), (3, "dragon", 5000)],
        );
        import_rows(
            &team.bob,
            &[(1, "slime", 10), (2, "golem", 333), (3, "dragon", 5000)],
        );
        // Both at once, each the whole `--push` loop: push, and pull then push again
        // when the other won.
        let dirs = [
            team.aiko.dir.path().to_path_buf(),
            team.bob.dir.path().to_path_buf(),
        ];
        let barrier = std::sync::Arc::new(std::sync::Barrier::new(2));
        let sent: Vec<remote::Sent> = std::thread::scope(|scope| {
            let handles: Vec<_> = dirs
                .iter()
                .map(|dir| {
                    let barrier = barrier.clone();
                    scope.spawn(move || {
                        let repo = MasterRepo::open(dir).unwrap();
                        let structure = repo.structure().unwrap();
                        let origin = remote::remote_of(&repo, "origin").unwrap();
                        let line = Branch::from(Region::of(&structure.project, "jp").unwrap());
                        barrier.wait();
                        remote::push_through(
                            &repo,
                            &structure,
                            &origin,
                            &line,
                            remote::push_through::ATTEMPTS,
                        )
                        .unwrap()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(sent.iter().all(remote::Sent::landed), "{sent:?}");
        let rows = remote_monsters(&team);
        assert!(
            rows.contains("1,slime,11") && rows.contains("2,golem,333"),
            "{rows}"
        );
        fsck(team.remote.path());
    }
}

#[test]
fn a_region_whose_branch_is_not_under_masters_is_never_pulled_nor_pushed() {
    let config = crate::common::CONFIG.replace("branch = \"masters/global\"", "branch = \"main\"");
    assert_ne!(config, crate::common::CONFIG);
    let studio = Studio::with(&config, crate::common::MONSTER);
    let repo = studio.repo();
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    git(
        studio.dir.path(),
        &["remote", "add", "origin", remote.path().to_str().unwrap()],
    );
    let structure = repo.structure().unwrap();
    let origin = origin(&studio);
    for result in [
        remote::pull(&repo, &structure, &origin, &Scope::All).map(|_| ()),
        remote::push(&repo, &structure, &origin, &Scope::All).map(|_| ()),
    ] {
        match result {
            Err(RemoteError::Store(StoreError::NotMasters { region, branch })) => {
                assert_eq!((region.as_str(), branch.as_str()), ("global", "main"))
            }
            other => panic!("{other:?}"),
        }
    }
    // Nothing reached the remote.
    let out = Command::new("git")
        .arg("-C")
        .arg(remote.path())
        .args(["for-each-ref"])
        .output()
        .unwrap();
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// The pusher's own files, which a hostile remote on a shared disk points at.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("project/sub")).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        std::fs::write(dir.path().join("project/Cargo.lock"), "lock").unwrap();
        std::fs::write(dir.path().join("project/sub/yarn.lock"), "yarn").unwrap();
        Home { dir }
    }

    /// Every file is there with what it held, and nothing was added.
    fn untouched(&self) {
        let read = |p: &str| std::fs::read_to_string(self.dir.path().join(p)).unwrap();
        assert_eq!(read("notes.txt"), "mine");
        assert_eq!(read("project/Cargo.lock"), "lock");
        assert_eq!(read("project/sub/yarn.lock"), "yarn");
        let mut names: Vec<String> = walk(self.dir.path());
        names.sort();
        assert_eq!(
            names,
            ["notes.txt", "project/Cargo.lock", "project/sub/yarn.lock"]
        );
    }
}

fn walk(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                pending.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap();
                out.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    out
}

/// A push to `team`'s remote after an import, as the pusher would run it: an error, or
/// the outcome.
fn try_push(team: &Team) -> Result<remote::push::PushOutcome, RemoteError> {
    static PRICE: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(100);
    let price = PRICE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    import_rows(
        &team.aiko,
        &[(1, "slime", price), (2, "golem", 300), (3, "dragon", 5000)],
    );
    let repo = team.aiko.repo();
    let structure = repo.structure().unwrap();
    remote::push(&repo, &structure, &origin(&team.aiko), &jp(&team.aiko))
}

/// The remote's `masterctl` folder, its ref-update record holding `text` (or none).
fn forged_record(team: &Team, text: Option<&str>) -> std::path::PathBuf {
    let masterctl = team.remote.path().join("masterctl");
    std::fs::create_dir_all(&masterctl).unwrap();
    let _ = std::fs::remove_file(masterctl.join("ref-update"));
    if let Some(text) = text {
        std::fs::write(masterctl.join("ref-update"), text).unwrap();
    }
    masterctl
}

fn refused_for_a_link(result: Result<impl std::fmt::Debug, impl Into<RemoteError>>) {
    match result.map_err(Into::into) {
        Err(RemoteError::Store(StoreError::Git(
            masterctl_store::git::Error::LinkInRepository { .. },
        ))) => {}
        other => panic!("expected a refusal for a link, got {other:?}"),
    }
}

#[cfg(unix)]
#[test]
fn a_remote_whose_ref_update_record_links_to_the_pushers_file_never_writes_it() {
    let team = Team::new();
    let home = Home::new();
    let masterctl = forged_record(&team, None);
    std::os::unix::fs::symlink(
        home.dir.path().join("notes.txt"),
        masterctl.join("ref-update"),
    )
    .unwrap();
    let before = team.remote_head("masters/jp");
    refused_for_a_link(try_push(&team));
    home.untouched();
    assert_eq!(team.remote_head("masters/jp"), before, "nothing moved");
    // The same through a folder: `masterctl` itself a link into the pusher's home.
    std::fs::remove_dir_all(&masterctl).unwrap();
    std::os::unix::fs::symlink(home.dir.path(), &masterctl).unwrap();
    refused_for_a_link(try_push(&team));
    home.untouched();
}

#[cfg(unix)]
#[test]
fn a_record_naming_a_namespace_that_links_into_the_pushers_home_removes_nothing() {
    let team = Team::new();
    let home = Home::new();
    // A forged record: a dead mover of `refs/heads/evil/`, which links to a project of
    // the pusher's holding lock files.
    let masterctl = forged_record(&team, Some("refs/heads/evil/\n"));
    std::os::unix::fs::symlink(
        home.dir.path().join("project"),
        team.remote.path().join("refs/heads/evil"),
    )
    .unwrap();
    refused_for_a_link(try_push(&team));
    home.untouched();

    // Without the link, a record of shapes masterctl never writes is data, not paths:
    // passed over, and the push goes through.
    std::fs::remove_file(team.remote.path().join("refs/heads/evil")).unwrap();
    for forged in [
        "../../../../../../../../../tmp/x/",
        "refs/heads/../../../",
        "/etc/",
        "refs/",
        "refs/heads/",
        "objects/",
    ] {
        std::fs::write(masterctl.join("ref-update"), format!("{forged}\n")).unwrap();
        let pushed = try_push(&team).unwrap();
        assert!(
            pushed.branches.iter().all(|b| b.state.landed()),
            "{pushed:?}"
        );
    }
    home.untouched();
}

#[cfg(unix)]
#[test]
fn a_remote_whose_references_or_objects_link_elsewhere_is_refused_by_push_and_pull() {
    for place in ["refs/heads/masters", "objects/pack", ".git"] {
        let team = Team::new();
        let home = Home::new();
        let target = team.remote.path().join(place);
        if place == ".git" {
            // The remote names a git folder elsewhere: a non-bare remote whose `.git`
            // links to the pusher's own repository.
            let elsewhere = tempfile::tempdir().unwrap();
            git(elsewhere.path(), &["init", "-q", "--bare"]);
            let fake = tempfile::tempdir().unwrap();
            std::os::unix::fs::symlink(elsewhere.path(), fake.path().join(".git")).unwrap();
            git(
                team.aiko.dir.path(),
                &["remote", "set-url", "origin", fake.path().to_str().unwrap()],
            );
            refused_for_a_link(try_push(&team));
            let repo = team.bob.repo();
            let structure = repo.structure().unwrap();
            git(
                team.bob.dir.path(),
                &["remote", "set-url", "origin", fake.path().to_str().unwrap()],
            );
            refused_for_a_link(remote::pull(
                &repo,
                &structure,
                &origin(&team.bob),
                &Scope::All,
            ));
            continue;
        }
        // Move the real folder into the pusher's home and leave a link in its place.
        let moved = home.dir.path().join("moved");
        std::fs::rename(&target, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &target).unwrap();
        let listed = walk(&moved);
        refused_for_a_link(try_push(&team));
        let repo = team.bob.repo();
        let structure = repo.structure().unwrap();
        refused_for_a_link(remote::pull(
            &repo,
            &structure,
            &origin(&team.bob),
            &Scope::All,
        ));
        assert_eq!(
            walk(&moved),
            listed,
            "{place}: nothing written through the link"
        );
    }
}

/// An annotated tag `name` of `masters/jp`, made with git in the repository at `dir`.
fn annotated_tag(dir: &Path, name: &str) {
    let who = ["-c", "user.name=M", "-c", "user.email=m@x"];
    let tag = ["tag", "-a", "-m", "x", name, "masters/jp"];
    git(dir, &[&who[..], &tag[..]].concat());
}

#[test]
fn a_remote_tag_that_is_no_version_of_a_commit_is_passed_over_named_and_pulls_go_on() {
    let team = Team::new();
    let remote = team.remote.path();
    let blob = git(remote, &["hash-object", "-w", "--stdin"]);
    let blob = blob.trim();
    // What a hostile or careless pusher can put there with git alone.
    git(remote, &["update-ref", "refs/tags/masters/jp/1.0", blob]);
    for name in [
        "masters/jp/<script>",
        "masters/jp/$(id)",
        "masters/jp/q\"uote",
        "masters/jp/a\u{202E}b",
        "masters/jp/x/y",
        "masters/nowhere/1.0",
    ] {
        annotated_tag(remote, name);
    }
    annotated_tag(remote, "masters/jp/2.0");
    // The pull goes on, every time, and takes the one version.
    for _ in 0..2 {
        let pulled = pull(&team.bob, &Scope::All);
        assert!(
            pulled
                .iter()
                .all(|p| !matches!(p.state, PullState::Stopped { .. }))
        );
    }
    let bob = team.bob.repo();
    let tags: Vec<String> = bob
        .git
        .references_glob("refs/tags/masters/*")
        .unwrap()
        .map(|r| r.unwrap().name().unwrap()["refs/tags/".len()..].to_string())
        .collect();
    assert_eq!(tags, ["masters/jp/2.0"]);
    let structure = bob.structure().unwrap();
    let passed =
        remote::passed_over(&bob, &structure.project, &origin(&team.bob), &Scope::All).unwrap();
    let mut names: Vec<&str> = passed.iter().map(|p| p.tag.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "masters/jp/$(id)",
            "masters/jp/1.0",
            "masters/jp/<script>",
            "masters/jp/a\u{202E}b",
            "masters/jp/q\"uote",
            "masters/jp/x/y",
            "masters/nowhere/1.0",
        ]
    );
    let blob_tag = passed.iter().find(|p| p.tag == "masters/jp/1.0").unwrap();
    assert!(
        blob_tag.why.contains("annotated tag of a commit"),
        "{blob_tag:?}"
    );
    // Versions are listed as ever.
    let versions = masterctl_store::tags::list(&bob, None).unwrap();
    assert_eq!(versions.len(), 1);
}

/// The proposals `studio` holds, as `<branch> by <proposer>`.
fn proposals_of(studio: &Studio) -> Vec<String> {
    let repo = studio.repo();
    let structure = repo.structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    masterctl_store::proposals::list(&repo, &[jp])
        .unwrap()
        .into_iter()
        .map(|p| format!("{} by {}", p.branch, p.proposer))
        .collect()
}

fn remote_proposals(team: &Team) -> String {
    git(
        team.remote.path(),
        &[
            "for-each-ref",
            "--format=%(refname)",
            "refs/masterctl/proposals/",
        ],
    )
}

#[test]
fn a_proposal_travels_with_its_work_branch_and_an_answered_or_withdrawn_one_goes_everywhere() {
    let team = Team::new();
    let repo = team.aiko.repo();
    let structure = repo.structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    let work = masterctl_store::WorkBranch::of(&jp, "event").unwrap();
    masterctl_store::branches::create(&repo, &work, None).unwrap();
    let event = |studio: &Studio, hp: i64| {
        let path = studio.export(&[(1, "slime", hp), (2, "golem", 300), (3, "dragon", 5000)]);
        committed(
            studio
                .import("jp", &path, |r| r.branch = Some("event"))
                .unwrap(),
        );
    };
    event(&team.aiko, 11);
    masterctl_store::proposals::propose(&repo, &work, Some("Event slime")).unwrap();

    // Sent with the branch; a clone that pulls sees it.
    let pushed = push(&team.aiko, &Scope::All);
    assert_eq!(
        pushed.proposals,
        ["work/jp/event: proposal sent"],
        "{pushed:?}"
    );
    assert_eq!(
        remote_proposals(&team).trim(),
        "refs/masterctl/proposals/jp/event"
    );
    pull(&team.bob, &Scope::All);
    assert_eq!(proposals_of(&team.bob), ["work/jp/event by Aiko"]);
    // Nothing more to send either way.
    assert!(push(&team.aiko, &Scope::All).proposals.is_empty());
    assert!(push(&team.bob, &Scope::All).proposals.is_empty());

    // Bob merges it: answered, it goes from his clone, the remote, then Aiko's.
    let bob = team.bob.repo();
    let structure = bob.structure().unwrap();
    let merge = Join::Reflect(masterctl_store::WorkBranch::of(&jp, "event").unwrap());
    let step = masterctl_store::join::session::run(&bob, &structure, &merge, &Action::Start, None)
        .unwrap();
    assert!(matches!(step, Step::Committed { .. }), "{step:?}");
    assert!(proposals_of(&team.bob).is_empty());
    let pushed = push(&team.bob, &Scope::Branch(Branch::from(jp.clone())));
    assert_eq!(
        pushed.proposals,
        ["work/jp/event: proposal removed"],
        "{pushed:?}"
    );
    assert_eq!(remote_proposals(&team).trim(), "");
    pull(&team.aiko, &Scope::All);
    assert!(proposals_of(&team.aiko).is_empty());

    // Proposed again, then withdrawn: gone everywhere too.
    event(&team.aiko, 12);
    masterctl_store::proposals::propose(&repo, &work, None).unwrap();
    push(&team.aiko, &Scope::All);
    pull(&team.bob, &Scope::All);
    assert_eq!(proposals_of(&team.bob), ["work/jp/event by Aiko"]);
    assert!(masterctl_store::proposals::withdraw(&repo, &work).unwrap());
    let pushed = push(&team.aiko, &Scope::Branch(Branch::from(work.clone())));
    assert_eq!(pushed.proposals, ["work/jp/event: proposal removed"]);
    pull(&team.bob, &Scope::All);
    assert!(proposals_of(&team.bob).is_empty());
    fsck(team.remote.path());
}

fn entry(by: &str, action: &str) -> masterctl_store::audit::Entry {
    masterctl_store::audit::Entry {
        time: "2026-12-05T07:00:00Z".into(),
        event: "import".into(),
        action: action.into(),
        region: "jp".into(),
        branch: Some("masters/jp".into()),
        id: None,
        by: by.into(),
        message: None,
        from: "the command line on test".into(),
    }
}

fn actions(studio: &Studio) -> Vec<String> {
    let mut actions: Vec<String> = masterctl_store::audit::read(&studio.repo(), 100)
        .unwrap()
        .into_iter()
        .map(|e| format!("{} {}", e.by, e.action))
        .collect();
    actions.sort();
    actions
}

#[test]
fn the_audit_log_travels_and_two_clones_logs_join_with_nothing_lost() {
    let team = Team::new();
    masterctl_store::audit::record(&team.aiko.repo(), &entry("Aiko", "imported into")).unwrap();
    push(&team.aiko, &Scope::All);
    pull(&team.bob, &Scope::All);
    assert_eq!(actions(&team.bob), ["Aiko imported into"]);
    // Both record meanwhile: Bob pulls (the logs join), pushes; Aiko pulls.
    masterctl_store::audit::record(&team.aiko.repo(), &entry("Aiko", "published")).unwrap();
    push(&team.aiko, &Scope::All);
    masterctl_store::audit::record(&team.bob.repo(), &entry("Bob", "merged into")).unwrap();
    pull(&team.bob, &Scope::All);
    push(&team.bob, &Scope::All);
    pull(&team.aiko, &Scope::All);
    let all = ["Aiko imported into", "Aiko published", "Bob merged into"];
    assert_eq!(actions(&team.aiko), all);
    assert_eq!(actions(&team.bob), all);
    assert_eq!(
        git(team.remote.path(), &["rev-parse", "refs/masterctl/audit"]).trim(),
        git(team.aiko.dir.path(), &["rev-parse", "refs/masterctl/audit"]).trim()
    );
    fsck(team.remote.path());
}
