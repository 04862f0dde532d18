//! Work branches and versions, through the store as the CLI and the console call it: a
//! branch made, imported into, rebased onto its region, reflected back with a conflict
//! resolved; blame attributing the reflected cells to the branch's planner; the region's
//! `owns` holding; tags made, refused twice, resolved wherever a revision is taken.

use crate::common::{CONFIG, MONSTER, Studio};
use masterctl_store::branches;
use masterctl_store::import::{ImportError, ImportOutcome};
use masterctl_store::join::resolutions::Resolution;
use masterctl_store::join::session::{Action, Step};
use masterctl_store::join::{Join, JoinError};
use masterctl_store::review::blame::blame;
use masterctl_store::snapshot::commit::{MERGED_TRAILER, trailer_ids};
use masterctl_store::tags::{self, TagRequest};
use masterctl_store::{Branch, Region, StoreError, WorkBranch};

const THREE: [(i64, &str, i64); 3] = [(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5000)];

/// The author of the commits made from here on.
fn as_planner(studio: &Studio, name: &str) {
    let mut config = studio.repo().git.config().unwrap();
    config.set_str("user.name", name).unwrap();
    config
        .set_str(
            "user.email",
            &format!("{}@example.com", name.to_lowercase()),
        )
        .unwrap();
}

fn committed(outcome: ImportOutcome) -> String {
    match outcome {
        ImportOutcome::Committed { commit, .. } => commit,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_work_branch_is_imported_into_rebased_and_reflected_with_its_planner_kept() {
    let studio = Studio::new();
    let repo = studio.repo();
    let path = studio.export(&THREE);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    let alice = studio.work("jp", "event");

    // Importing into a work branch nobody made is refused: it is made on purpose.
    match studio.import("jp", &path, |r| r.branch = Some("event")) {
        Err(ImportError::Store(StoreError::Git(masterctl_store::git::Error::NoWorkBranch {
            name,
            ..
        }))) => {
            assert_eq!(name, "event")
        }
        other => panic!("{other:?}"),
    }
    let made = branches::create(&repo, &alice, None).unwrap();
    assert_eq!(made.branch, "work/jp/event");
    assert_eq!((made.ahead, made.behind), (0, 0));
    assert!(matches!(
        branches::create(&repo, &alice, None),
        Err(StoreError::WorkBranchExists(_))
    ));

    // Bob works on the event: two imports into the branch.
    as_planner(&studio, "Bob");
    let path = studio.export(&[(1, "slime", 12), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(
        studio
            .import("jp", &path, |r| r.branch = Some("event"))
            .unwrap(),
    );
    let path = studio.export(&[
        (1, "slime", 12),
        (2, "golem", 300),
        (3, "dragon", 5000),
        (4, "phoenix", 900),
    ]);
    committed(
        studio
            .import("jp", &path, |r| r.branch = Some("event"))
            .unwrap(),
    );

    // Meanwhile Aiko changes the region: the golem's hp.
    as_planner(&studio, "Aiko");
    let path = studio.export(&[(1, "slime", 10), (2, "golem", 320), (3, "dragon", 5000)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    let listed = branches::list(&repo, &[alice.region().clone()]).unwrap();
    assert_eq!((listed[0].ahead, listed[0].behind), (2, 1), "{listed:?}");
    assert_eq!(listed[0].author, "Bob");

    // The branch takes the region's change, and keeps its own.
    let step = studio.join(&Join::Refresh(alice.clone()), Action::Start);
    let Step::Committed { rebase, .. } = &step else {
        panic!("{step:?}")
    };
    assert_eq!(rebase.upstream, "jp");
    assert!(!rebase.fast_forward);
    let listed = branches::list(&repo, &[alice.region().clone()]).unwrap();
    assert_eq!(listed[0].behind, 0, "{listed:?}");
    // Nothing more to take.
    let again = studio.join(&Join::Refresh(alice.clone()), Action::Start);
    assert!(matches!(again, Step::UpToDate { .. }), "{again:?}");

    // The region changes the dragon, the branch too: a conflict when reflecting.
    let path = studio.export(&[(1, "slime", 10), (2, "golem", 320), (3, "dragon", 5100)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    as_planner(&studio, "Bob");
    let path = studio.export(&[
        (1, "slime", 12),
        (2, "golem", 320),
        (3, "dragon", 5500),
        (4, "phoenix", 900),
    ]);
    committed(
        studio
            .import("jp", &path, |r| r.branch = Some("event"))
            .unwrap(),
    );
    let branch_head = studio.head("work/jp/event").unwrap();
    let region_head = studio.head("masters/jp").unwrap();

    // The review: every change the merge brings, nothing written.
    let reflect = Join::Reflect(alice.clone());
    let dry = studio.join(&reflect, Action::DryRun);
    assert!(
        matches!(
            dry,
            Step::Conflicts {
                conflict_file: None,
                ..
            }
        ),
        "{dry:?}"
    );
    assert_eq!(studio.head("masters/jp").unwrap(), region_head);

    as_planner(&studio, "Carol");
    let stopped = studio.join(&reflect, Action::Start);
    let Step::Conflicts {
        conflicts,
        conflict_file,
    } = &stopped
    else {
        panic!("{stopped:?}")
    };
    assert_eq!(conflicts.len(), 1, "{conflicts:?}");
    assert!(conflict_file.is_some());
    // While the merge is stopped, neither an import nor a rebase of the region starts.
    match studio.import("jp", &path, |_| {}) {
        Err(ImportError::Store(StoreError::RebaseInProgress { branch, kind, .. })) => {
            assert_eq!((branch.as_str(), kind.as_str()), ("masters/jp", "merge"))
        }
        other => panic!("{other:?}"),
    }
    let structure = repo.structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    match masterctl_store::join::session::run(
        &repo,
        &structure,
        &Join::Rebase(jp.clone()),
        &Action::Start,
        None,
    ) {
        Err(JoinError::InProgress { kind, .. }) => assert_eq!(kind, "merge"),
        other => panic!("{other:?}"),
    }
    let resolved = studio.join(
        &reflect,
        Action::Resolve {
            side: Resolution::Theirs,
            table: None,
            column: None,
            key: None,
        },
    );
    assert!(
        matches!(resolved, Step::Resolved { remaining: 0, .. }),
        "{resolved:?}"
    );
    let done = studio.join(&reflect, Action::Continue);
    let Step::Committed { commit, rebase } = &done else {
        panic!("{done:?}")
    };
    assert_eq!(rebase.upstream, "work/jp/event");
    assert!(
        rebase.message.starts_with("Merge work/jp/event"),
        "{}",
        rebase.message
    );

    // Two parents, the branch's head named by a trailer; the branch even with its region.
    let merge = repo.git.find_commit(commit.parse().unwrap()).unwrap();
    let parents: Vec<String> = merge.parent_ids().map(|id| id.to_string()).collect();
    assert_eq!(parents, [region_head.clone(), branch_head.clone()]);
    assert_eq!(
        trailer_ids(&merge, MERGED_TRAILER),
        [branch_head.parse().unwrap()]
    );
    assert_eq!(studio.head("masters/jp").as_ref(), Some(commit));
    assert_eq!(studio.head("work/jp/event").as_ref(), Some(commit));

    // Blame on the region gives each reflected cell to the planner who made it on the
    // work branch, through the merge.
    let jp_line = Branch::from(jp);
    let phoenix = blame(&repo, &jp_line, "monster", &["4".into()], Some("hp")).unwrap();
    assert_eq!(phoenix.cells[0].commit.author, "Bob");
    assert_eq!(
        phoenix.cells[0].via.as_ref().map(|v| v.author.as_str()),
        Some("Carol")
    );
    let dragon = blame(&repo, &jp_line, "monster", &["3".into()], Some("hp")).unwrap();
    assert_eq!(dragon.cells[0].value, "5500");
    assert_eq!(dragon.cells[0].commit.author, "Bob");
    let golem = blame(&repo, &jp_line, "monster", &["2".into()], Some("hp")).unwrap();
    assert_eq!(golem.cells[0].commit.author, "Aiko");

    // Merged: deleting the branch is allowed now; nothing is lost.
    let gone = branches::delete(&repo, &alice, false).unwrap();
    assert_eq!(gone.ahead, 0);
    assert_eq!(studio.head("work/jp/event"), None);
}

#[test]
fn a_work_branch_with_nothing_of_its_own_moves_to_its_region_and_unmerged_ones_stay() {
    let studio = Studio::new();
    let repo = studio.repo();
    let path = studio.export(&THREE);
    let first = committed(studio.import("jp", &path, |_| {}).unwrap());
    let work = studio.work("jp", "fix");
    branches::create(&repo, &work, None).unwrap();
    let path = studio.export(&[(1, "slime", 11), (2, "golem", 300), (3, "dragon", 5000)]);
    let second = committed(studio.import("jp", &path, |_| {}).unwrap());

    // Nothing of its own: a fast-forward, no commit written.
    let step = studio.join(&Join::Refresh(work.clone()), Action::Start);
    let Step::Committed { commit, rebase } = &step else {
        panic!("{step:?}")
    };
    assert!(rebase.fast_forward);
    assert_eq!(commit, &second);
    assert_eq!(studio.head("work/jp/fix").as_ref(), Some(&second));

    // A branch made at an earlier commit, then given a commit of its own: its deletion
    // is refused until forced.
    let old = studio.work("jp", "old");
    branches::create(&repo, &old, Some(&first)).unwrap();
    assert_eq!(studio.head("work/jp/old").as_ref(), Some(&first));
    let path = studio.export(&[(1, "slime", 99), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(
        studio
            .import("jp", &path, |r| r.branch = Some("old"))
            .unwrap(),
    );
    match branches::delete(&repo, &old, false) {
        Err(StoreError::Unmerged { ahead, .. }) => assert_eq!(ahead, 1),
        other => panic!("{other:?}"),
    }
    assert!(studio.head("work/jp/old").is_some());
    let gone = branches::delete(&repo, &old, true).unwrap();
    assert_eq!(gone.ahead, 1);
    assert_eq!(studio.head("work/jp/old"), None);

    // A start outside the region's history is refused.
    let other = studio.work("jp", "other");
    let structure_commit = repo.head_of("refs/heads/main").unwrap().unwrap().id();
    match branches::create(&repo, &other, Some(&structure_commit.to_string())) {
        Err(StoreError::NotInHistory { branch, .. }) => assert_eq!(branch, "masters/jp"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn work_branch_names_that_escape_or_that_git_refuses_are_refused() {
    let studio = Studio::new();
    let structure = studio.repo().structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    for bad in [
        "", "../x", "a/b", "-x", ".x", "x.lock", "x.", "a..b", "a b", "a\nb", "ä", "a:b", "a~1",
        "a^", "a?", "a*", "a[", "@{u}", "a\\b",
    ] {
        assert!(
            matches!(
                WorkBranch::of(&jp, bad),
                Err(masterctl_store::git::Error::BadWorkBranch(_))
            ),
            "{bad:?} accepted"
        );
    }
    let long = "a".repeat(65);
    assert!(WorkBranch::of(&jp, &long).is_err());
    for good in ["alice", "event-2026-12", "v1.2_b", "A"] {
        let work = WorkBranch::of(&jp, good).unwrap();
        assert!(git2::Reference::is_valid_name(&work.reference()), "{good}");
    }
}

#[test]
fn a_region_owns_what_a_reflected_branch_set_against_its_upstream() {
    let config = CONFIG.replace(
        "upstream = \"jp\"\n",
        "upstream = \"jp\"\nowns = [\"monster.hp\"]\n",
    );
    assert_ne!(config, CONFIG);
    let studio = Studio::with(&config, MONSTER);
    let repo = studio.repo();
    committed(studio.import("jp", &studio.export(&THREE), |_| {}).unwrap());
    let step = studio.rebase("global", Action::Start);
    assert!(matches!(step, Step::Committed { .. }), "{step:?}");

    // A planner of global sets the slime's hp on a work branch, and reflects it.
    let work = studio.work("global", "balance");
    branches::create(&repo, &work, None).unwrap();
    let path = studio.export(&[(1, "slime", 15), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(
        studio
            .import("global", &path, |r| r.branch = Some("balance"))
            .unwrap(),
    );
    let step = studio.join(&Join::Reflect(work), Action::Start);
    assert!(matches!(step, Step::Committed { .. }), "{step:?}");

    // jp changes the slime's hp and name; global's rebase takes the name, keeps its hp.
    let path = studio.export(&[(1, "slime!", 11), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    let step = studio.rebase("global", Action::Start);
    let Step::Committed { rebase, .. } = &step else {
        panic!("{step:?}")
    };
    assert_eq!(rebase.tables[0].kept, 1, "{rebase:?}");
    let global = studio.region("global");
    let slime = blame(&repo, &global, "monster", &["1".into()], None).unwrap();
    let value = |field: &str| {
        slime
            .cells
            .iter()
            .find(|c| c.field == field)
            .map(|c| c.value.clone())
            .unwrap()
    };
    assert_eq!((value("name"), value("hp")), ("slime!".into(), "15".into()));
}

#[test]
fn versions_are_tagged_once_and_taken_wherever_a_revision_is() {
    let studio = Studio::new();
    let repo = studio.repo();
    let first = committed(studio.import("jp", &studio.export(&THREE), |_| {}).unwrap());
    let structure = repo.structure().unwrap();
    let jp = Region::of(&structure.project, "jp").unwrap();
    let request = TagRequest {
        version: "1.0",
        rev: None,
        message: Some("launch\nMasterctl-Upstream: forged"),
    };
    let tagged = tags::create(&repo, &jp, &request).unwrap();
    assert_eq!(tagged.tag, "masters/jp/1.0");
    assert_eq!(tagged.commit, first);
    // The message stays one line: no trailer can be forged through it.
    assert!(!tagged.message.contains('\n'), "{:?}", tagged.message);
    match tags::create(&repo, &jp, &request) {
        Err(StoreError::TagExists(tag)) => assert_eq!(tag, "masters/jp/1.0"),
        other => panic!("{other:?}"),
    }
    for bad in ["../1", "1 0", "-1", "1.lock", ""] {
        let request = TagRequest {
            version: bad,
            rev: None,
            message: None,
        };
        assert!(
            matches!(
                tags::create(&repo, &jp, &request),
                Err(StoreError::BadVersion(_))
            ),
            "{bad:?}"
        );
    }

    // The region moves on; the version still names its commit, by either name.
    let path = studio.export(&[(1, "slime", 1), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    let line = Branch::from(jp.clone());
    for rev in ["1.0", "masters/jp/1.0"] {
        assert_eq!(
            repo.commit_of(&line, Some(rev)).unwrap().id().to_string(),
            first
        );
    }
    let listed = tags::list(&repo, Some(&jp)).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].tagger, "Aiko");

    // Built from the tag: the build's source is the tagged commit.
    let out = studio.exports.path().join("build");
    let built = masterctl_store::build::run(
        &repo,
        &masterctl_store::build::Request {
            region: "jp",
            branch: None,
            rev: Some("masters/jp/1.0"),
            client: false,
            pseudo: &[],
            out: &out,
        },
    )
    .unwrap();
    assert_eq!(built.source_commit, first);
    assert_eq!(
        tags::versions_of(&repo, &jp, first.parse().unwrap()).unwrap(),
        ["masters/jp/1.0"]
    );

    // Published: the release records the version, and the store's list shows it; a
    // version tagged later is added to the release when it is published again.
    let store = format!("file://{}", studio.exports.path().join("store").display());
    let remote = masterctl_delivery::Remote::open(&store, &Default::default()).unwrap();
    let runtime = masterctl_delivery::runtime().unwrap();
    let publish = |versions: Vec<String>| {
        let options = masterctl_delivery::PublishOptions {
            versions,
            ..Default::default()
        };
        runtime
            .block_on(masterctl_delivery::publish(
                &remote,
                &out,
                &options,
                &|_, _| {},
            ))
            .unwrap()
    };
    publish(tags::versions_of_build(&repo, &structure.project, &out));
    let listed = runtime
        .block_on(masterctl_delivery::releases(&remote, Some("jp")))
        .unwrap();
    assert_eq!(listed[0].versions, ["masters/jp/1.0"]);
    let later = TagRequest {
        version: "1.0.1",
        rev: Some(&first),
        message: None,
    };
    tags::create(&repo, &jp, &later).unwrap();
    publish(tags::versions_of_build(&repo, &structure.project, &out));
    let listed = runtime
        .block_on(masterctl_delivery::releases(&remote, Some("jp")))
        .unwrap();
    assert_eq!(listed[0].versions, ["masters/jp/1.0", "masters/jp/1.0.1"]);
    // A version that is not the region's is never recorded.
    publish(vec!["masters/global/9".into(), "../x".into()]);
    let listed = runtime
        .block_on(masterctl_delivery::releases(&remote, Some("jp")))
        .unwrap();
    assert_eq!(listed[0].versions.len(), 2);
}

#[test]
fn a_work_branch_whose_region_was_rewritten_is_refused_and_a_stopped_rebase_blocks_a_merge() {
    let studio = Studio::new();
    let repo = studio.repo();
    let first = committed(studio.import("jp", &studio.export(&THREE), |_| {}).unwrap());
    let path = studio.export(&[(1, "slime", 11), (2, "golem", 300), (3, "dragon", 5000)]);
    let second = committed(studio.import("jp", &path, |_| {}).unwrap());
    let work = studio.work("jp", "event");
    branches::create(&repo, &work, None).unwrap();
    let path = studio.export(&[(1, "slime", 11), (2, "golem", 301), (3, "dragon", 5000)]);
    let own = committed(
        studio
            .import("jp", &path, |r| r.branch = Some("event"))
            .unwrap(),
    );
    // The branch's first commit of its own names the region commit it took.
    let own = repo.git.find_commit(own.parse().unwrap()).unwrap();
    assert_eq!(
        trailer_ids(&own, masterctl_store::snapshot::commit::WORK_TOOK_TRAILER),
        [second.parse().unwrap()]
    );
    // Someone rewrites jp: back to its first import, then another one.
    repo.git
        .reference(
            "refs/heads/masters/jp",
            first.parse().unwrap(),
            true,
            "rewritten",
        )
        .unwrap();
    let path = studio.export(&[(1, "slime", 9), (2, "golem", 300), (3, "dragon", 5000)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    let structure = repo.structure().unwrap();
    for join in [Join::Refresh(work.clone()), Join::Reflect(work.clone())] {
        match masterctl_store::join::session::run(&repo, &structure, &join, &Action::Start, None) {
            Err(JoinError::UpstreamRewritten { point, branch, .. }) => {
                assert_eq!(
                    (point.as_str(), branch.as_str()),
                    (second.as_str(), "work/jp/event")
                )
            }
            other => panic!("{join:?}: {other:?}"),
        }
    }

    // A rebase of global stopped on a conflict: a merge into global waits for it.
    let studio = Studio::new();
    let repo = studio.repo();
    committed(studio.import("jp", &studio.export(&THREE), |_| {}).unwrap());
    assert!(matches!(
        studio.rebase("global", Action::Start),
        Step::Committed { .. }
    ));
    let balance = studio.work("global", "balance");
    branches::create(&repo, &balance, None).unwrap();
    let path = studio.export(&[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 1)]);
    committed(
        studio
            .import("global", &path, |r| r.branch = Some("balance"))
            .unwrap(),
    );
    let path = studio.export(&[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 2)]);
    committed(studio.import("global", &path, |_| {}).unwrap());
    let path = studio.export(&[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 3)]);
    committed(studio.import("jp", &path, |_| {}).unwrap());
    assert!(matches!(
        studio.rebase("global", Action::Start),
        Step::Conflicts { .. }
    ));
    let structure = repo.structure().unwrap();
    match masterctl_store::join::session::run(
        &repo,
        &structure,
        &Join::Reflect(balance),
        &Action::Start,
        None,
    ) {
        Err(JoinError::InProgress { kind, branch, .. }) => {
            assert_eq!(
                (kind.as_str(), branch.as_str()),
                ("rebase", "masters/global")
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_merge_is_proposed_replaced_withdrawn_and_answered_by_the_merge_that_takes_it() {
    use masterctl_store::proposals;
    let studio = Studio::new();
    let repo = studio.repo();
    committed(studio.import("jp", &studio.export(&THREE), |_| {}).unwrap());
    let work = studio.work("jp", "event");
    branches::create(&repo, &work, None).unwrap();
    let regions = [work.region().clone()];

    // Nothing of its own yet: nothing to propose.
    match proposals::propose(&repo, &work, None) {
        Err(StoreError::NothingToPropose(branch)) => assert_eq!(branch, "work/jp/event"),
        other => panic!("{other:?}"),
    }
    as_planner(&studio, "Bob");
    let first = committed(
        studio
            .import("jp", &studio.export(&[(1, "slime", 11)]), |r| {
                r.branch = Some("event")
            })
            .unwrap(),
    );
    // The proposal's words are one line, whatever was typed (a line break shown as `\n`).
    let proposed = proposals::propose(&repo, &work, Some("Slime\nbalance")).unwrap();
    assert_eq!(
        (proposed.proposer.as_str(), proposed.commit.as_str()),
        ("Bob", first.as_str())
    );
    assert_eq!(proposed.message, "Slime\\nbalance");
    assert!(!proposed.moved);

    // The branch moves on: the proposal says so; proposing again replaces it.
    let second = committed(
        studio
            .import("jp", &studio.export(&[(1, "slime", 12)]), |r| {
                r.branch = Some("event")
            })
            .unwrap(),
    );
    assert!(proposals::list(&repo, &regions).unwrap()[0].moved);
    proposals::propose(&repo, &work, None).unwrap();
    let listed = proposals::list(&repo, &regions).unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].commit, second);
    assert_eq!(listed[0].message, "Merge work/jp/event into masters/jp");
    assert!(proposals::withdraw(&repo, &work).unwrap());
    assert!(!proposals::withdraw(&repo, &work).unwrap());
    assert!(proposals::list(&repo, &regions).unwrap().is_empty());

    // A maintainer's merge that takes the proposed commit answers the proposal.
    proposals::propose(&repo, &work, Some("Slime to 12")).unwrap();
    as_planner(&studio, "Carol");
    let done = studio.join(&Join::Reflect(work.clone()), Action::Start);
    assert!(matches!(done, Step::Committed { .. }), "{done:?}");
    assert!(proposals::list(&repo, &regions).unwrap().is_empty());

    // Deleting a proposed branch withdraws its proposal.
    as_planner(&studio, "Bob");
    committed(
        studio
            .import("jp", &studio.export(&[(1, "slime", 13)]), |r| {
                r.branch = Some("event")
            })
            .unwrap(),
    );
    proposals::propose(&repo, &work, None).unwrap();
    branches::delete(&repo, &work, true).unwrap();
    assert_eq!(proposals::proposal_of(&repo, &work).unwrap(), None);
    assert!(
        repo.git
            .find_reference("refs/masterctl/proposals/jp/event")
            .is_err()
    );
}

#[test]
fn a_join_reads_the_branch_that_moves_then_the_one_it_takes_from() {
    let studio = Studio::new();
    let project = studio.repo().structure().unwrap().project;
    let event = studio.work("jp", "event");
    let (jp, global) = (
        Region::of(&project, "jp").unwrap(),
        Region::of(&project, "global").unwrap(),
    );
    let branches = |join: Join| -> Vec<String> {
        join.lines(&project)
            .iter()
            .map(|l| l.branch().to_string())
            .collect()
    };
    assert_eq!(
        branches(Join::Rebase(global)),
        ["masters/global", "masters/jp"]
    );
    assert_eq!(branches(Join::Rebase(jp)), ["masters/jp"], "no upstream");
    assert_eq!(
        branches(Join::Refresh(event.clone())),
        ["work/jp/event", "masters/jp"]
    );
    assert_eq!(
        branches(Join::Reflect(event)),
        ["masters/jp", "work/jp/event"]
    );
}
