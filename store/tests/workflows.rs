//! The store's workflows called as a console or the CLI calls them — import, diff,
//! blame, rebase, taking translations back, build (read back as `inspect` reads it) —
//! on a small repository made here, without the binary: each outcome's data checked,
//! and what the branch holds after it.

use std::path::{Path, PathBuf};

use crate::common::Studio;
use masterctl_store::StoreError;
use masterctl_store::import::{ImportError, ImportOutcome};
use masterctl_store::join::resolutions::Resolution;
use masterctl_store::join::session::{Action, ConflictEntry, Step};
use masterctl_store::review::blame::blame;
use masterctl_store::review::diff::{self, DiffOptions};

const THREE: [(i64, &str, i64); 3] = [(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5000)];

#[test]
fn an_import_commits_once_and_then_finds_nothing_to_change() {
    let studio = Studio::new();
    let path = studio.export(&THREE);
    let outcome = studio
        .import("jp", &path, |r| r.message = Some("first monsters"))
        .unwrap();
    let ImportOutcome::Committed {
        summary,
        commit,
        message,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert_eq!(summary.branch, "masters/jp");
    assert_eq!(summary.changes.len(), 1);
    assert_eq!(
        (summary.changes[0].added, summary.changes[0].changed),
        (3, 0)
    );
    assert!(message.starts_with("first monsters\n"), "{message}");
    assert!(
        message.contains("Masterctl-Source: monster.csv sha256:"),
        "{message}"
    );
    assert_eq!(studio.head("masters/jp").as_deref(), Some(commit.as_str()));
    let again = studio.import("jp", &path, |_| {}).unwrap();
    assert!(matches!(again, ImportOutcome::Unchanged(_)), "{again:?}");
    assert_eq!(studio.head("masters/jp").as_deref(), Some(commit.as_str()));
}

#[test]
fn a_dry_run_reviews_each_cell_and_writes_nothing() {
    let studio = Studio::new();
    studio.import("jp", &studio.export(&THREE), |_| {}).unwrap();
    let before = studio.head("masters/jp");
    let path = studio.export(&[(1, "slime", 12), (2, "golem", 300), (3, "dragon", 5000)]);
    let outcome = studio.import("jp", &path, |r| r.dry_run = true).unwrap();
    let ImportOutcome::DryRun {
        summary,
        review: Some(review),
        unchanged,
    } = outcome
    else {
        panic!("{outcome:?}");
    };
    assert!(!unchanged);
    assert_eq!(summary.changes[0].changed, 1);
    assert_eq!(review.from.label, "masters/jp");
    assert_eq!(review.to.label, "exports");
    let cells: Vec<_> = review
        .diff
        .changes
        .iter()
        .map(|c| {
            (
                c.table.as_str(),
                c.key.clone(),
                c.column.as_deref(),
                c.delta,
            )
        })
        .collect();
    assert_eq!(
        cells,
        [(
            "monster",
            Some(vec!["1".to_string()]),
            Some("hp"),
            Some(2.0)
        )]
    );
    assert_eq!(studio.head("masters/jp"), before, "a dry run wrote");
}

#[test]
fn rejected_data_is_a_report_naming_the_cell_and_nothing_is_written() {
    let studio = Studio::new();
    let path = studio.export(&THREE);
    std::fs::write(&path, "id,name,hp\n1,slime,lots\n").unwrap();
    let outcome = studio.import("jp", &path, |_| {}).unwrap();
    let ImportOutcome::Rejected(report) = outcome else {
        panic!("{outcome:?}");
    };
    assert!(report.has_errors());
    let error = &report.diagnostics[0];
    assert_eq!(error.location.field.as_deref(), Some("hp"), "{error:?}");
    assert_eq!(studio.head("masters/jp"), None);
}

#[test]
fn most_rows_removed_are_refused_each_named_unless_allowed() {
    let studio = Studio::new();
    let many: Vec<(i64, &str, i64)> = (1..=30).map(|id| (id, "slime", id * 10)).collect();
    studio.import("jp", &studio.export(&many), |_| {}).unwrap();
    let before = studio.head("masters/jp");
    let path = studio.export(&many[..5]);
    match studio.import("jp", &path, |_| {}) {
        Err(ImportError::Removes {
            branch, removals, ..
        }) => {
            assert_eq!(branch, "masters/jp");
            assert_eq!(removals.len(), 1);
            assert_eq!(removals[0].to_string(), "25 of 30 rows of monster");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(studio.head("masters/jp"), before);
    let allowed = studio
        .import("jp", &path, |r| r.allow_removal = true)
        .unwrap();
    assert!(
        matches!(allowed, ImportOutcome::Committed { .. }),
        "{allowed:?}"
    );
}

#[test]
fn an_unknown_region_or_table_is_named_with_what_there_is() {
    let studio = Studio::new();
    let path = studio.export(&THREE);
    match studio.import("jq", &path, |_| {}) {
        Err(ImportError::Store(StoreError::Git(masterctl_store::git::Error::UnknownRegion {
            name,
            known,
        }))) => {
            assert_eq!(name, "jq");
            assert_eq!(known, ["global", "jp"]);
        }
        other => panic!("{other:?}"),
    }
    studio.import("jp", &path, |_| {}).unwrap();
    let repo = studio.repo();
    let (from, to) = diff::last_commit(&repo, &studio.region("jp")).unwrap();
    let options = DiffOptions {
        tables: vec!["monstr".into()],
        ..DiffOptions::default()
    };
    match diff::review(&from, &to, &options) {
        Err(StoreError::NoTable { table, .. }) => assert_eq!(table, "monstr"),
        other => panic!("{other:?}"),
    }
    match diff::last_commit(&repo, &studio.region("global")) {
        Err(StoreError::NoCommits(branch)) => assert_eq!(branch, "masters/global"),
        Err(other) => panic!("{other:?}"),
        Ok(_) => panic!("global has no commits"),
    }
}

#[test]
fn blame_names_the_import_that_last_changed_each_cell() {
    let studio = Studio::new();
    studio
        .import("jp", &studio.export(&THREE), |r| r.message = Some("first"))
        .unwrap();
    let path = studio.export(&[(1, "slime", 12), (2, "golem", 300), (3, "dragon", 5000)]);
    studio
        .import("jp", &path, |r| r.message = Some("slimes are tougher"))
        .unwrap();
    let repo = studio.repo();
    let blamed = blame(&repo, &studio.region("jp"), "monster", &["1".into()], None).unwrap();
    let cell = |field: &str| blamed.cells.iter().find(|c| c.field == field).unwrap();
    assert_eq!(cell("hp").value, "12");
    assert_eq!(cell("hp").previous.as_deref(), Some("10"));
    assert_eq!(cell("hp").commit.subject, "slimes are tougher");
    assert_eq!(cell("name").commit.subject, "first");
    assert_eq!(cell("name").previous, None);
    match blame(&repo, &studio.region("jp"), "monster", &["9".into()], None) {
        Err(StoreError::NoRow { key, .. }) => assert_eq!(key, ["9"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_rebase_takes_upstream_stops_on_a_conflict_and_continues_once_resolved() {
    let studio = Studio::new();
    studio.import("jp", &studio.export(&THREE), |_| {}).unwrap();
    // The first rebase starts global from jp.
    let started = studio.rebase("global", Action::Start);
    assert!(matches!(started, Step::Committed { .. }), "{started:?}");
    let up_to_date = studio.rebase("global", Action::DryRun);
    assert!(
        matches!(
            up_to_date,
            Step::UpToDate {
                continued: false,
                ..
            }
        ),
        "{up_to_date:?}"
    );
    // Both change the slime's hp, differently; jp also changes the golem's.
    studio
        .import(
            "jp",
            &studio.export(&[(1, "slime", 11), (2, "golem", 350), (3, "dragon", 5000)]),
            |_| {},
        )
        .unwrap();
    studio
        .import(
            "global",
            &studio.export(&[(1, "slime", 15), (2, "golem", 300), (3, "dragon", 5000)]),
            |_| {},
        )
        .unwrap();
    let global = studio.head("masters/global");
    let dry = studio.rebase("global", Action::DryRun);
    let Step::Conflicts {
        conflicts,
        conflict_file: None,
    } = &dry
    else {
        panic!("{dry:?}");
    };
    let expected = ConflictEntry::Cell {
        table: "monster".into(),
        key: "1".into(),
        column: Some("hp".into()),
        kind: masterctl_store::merge::ConflictKind::Cell,
        base: "10".into(),
        ours: "15".into(),
        theirs: "11".into(),
    };
    assert_eq!(conflicts, std::slice::from_ref(&expected));
    let stopped = studio.rebase("global", Action::Start);
    let Step::Conflicts {
        conflicts,
        conflict_file: Some(file),
    } = &stopped
    else {
        panic!("{stopped:?}");
    };
    assert_eq!(conflicts, &[expected]);
    assert!(file.is_file());
    assert_eq!(
        studio.head("masters/global"),
        global,
        "a conflict committed"
    );
    let resolved = studio.rebase(
        "global",
        Action::Resolve {
            side: Resolution::Ours,
            table: None,
            column: None,
            key: None,
        },
    );
    assert!(
        matches!(
            resolved,
            Step::Resolved {
                resolved: 1,
                remaining: 0
            }
        ),
        "{resolved:?}"
    );
    let done = studio.rebase("global", Action::Continue);
    let Step::Committed { rebase, .. } = &done else {
        panic!("{done:?}");
    };
    assert_eq!(rebase.upstream, "jp");
    assert_eq!(rebase.tables[0].resolved, 1);
    let json = serde_json::to_value(&done).unwrap();
    assert_eq!(json["state"], "committed");
    // The region kept its own hp and took jp's golem.
    let repo = studio.repo();
    let blamed = blame(
        &repo,
        &studio.region("global"),
        "monster",
        &["2".into()],
        Some("hp"),
    )
    .unwrap();
    assert_eq!(blamed.cells[0].value, "350");
    let blamed = blame(
        &repo,
        &studio.region("global"),
        "monster",
        &["1".into()],
        Some("hp"),
    )
    .unwrap();
    assert_eq!(blamed.cells[0].value, "15");
}

/// An exchange file (CSV) translating monster names into English: `(id, source,
/// translation)`.
fn translations(dir: &Path, rows: &[(i64, &str, &str)]) -> PathBuf {
    let mut csv = String::from(
        "table,field,key,state,max_length,description,source_ja,translation_en,old_source,old_translation,problems\n",
    );
    for (id, source, translation) in rows {
        csv.push_str(&format!(
            "monster,name,{id},missing,,,{source},{translation},,,\n"
        ));
    }
    let path = dir.join("monster.en.csv");
    std::fs::write(&path, csv).unwrap();
    path
}

#[test]
fn translations_are_counted_committed_once_and_built_with_their_fallbacks() {
    use masterctl_store::l10n::import::{self as l10n_import, TakenState, TranslationOutcome};

    let studio = Studio::translated();
    let path = studio.export(&[(1, "スライム", 10), (2, "ゴーレム", 300)]);
    studio.import("jp", &path, |_| {}).unwrap();
    let head = studio.head("masters/jp");
    let file = translations(studio.exports.path(), &[(1, "スライム", "Slime")]);
    let take = |dry_run: bool, language: Option<&str>| {
        l10n_import::run(
            &studio.repo(),
            &l10n_import::Request {
                branch: None,
                region: "jp",
                file: &file,
                language,
                message: None,
                dry_run,
            },
        )
    };

    // A dry run counts and writes nothing.
    let TranslationOutcome::Taken(counted) = take(true, None).unwrap() else {
        panic!("rejected")
    };
    assert!(matches!(counted.state, TakenState::DryRun), "{counted:?}");
    assert_eq!((counted.language.as_str(), counted.format), ("en", "csv"));
    assert_eq!(counted.tables.len(), 1);
    assert_eq!(counted.tables[0].added, 1);
    assert_eq!(studio.head("masters/jp"), head);

    // Taken: one commit, its message naming the file by its hash.
    let TranslationOutcome::Taken(taken) = take(false, None).unwrap() else {
        panic!("rejected")
    };
    let TakenState::Committed { commit, message } = &taken.state else {
        panic!("{taken:?}")
    };
    assert_eq!(studio.head("masters/jp").as_ref(), Some(commit));
    assert!(message.contains("monster (en): 1 added"), "{message}");
    assert!(message.contains("monster.en.csv sha256:"), "{message}");

    // Again: nothing to change.
    let TranslationOutcome::Taken(again) = take(false, None).unwrap() else {
        panic!("rejected")
    };
    assert!(matches!(again.state, TakenState::Unchanged), "{again:?}");

    // A language the region does not translate into: rejected, naming the file.
    let TranslationOutcome::Rejected(report) = take(false, Some("fr")).unwrap() else {
        panic!("taken in a language the region lacks")
    };
    assert!(report.diagnostics[0].message.contains("`fr`"), "{report:?}");

    // Built and read back as a server reads it: Golem has no English name, so the build
    // took the Japanese one and says so.
    let out = studio.exports.path().join("build");
    let built = masterctl_store::build::run(
        &studio.repo(),
        &masterctl_store::build::Request {
            branch: None,
            region: "jp",
            rev: None,
            client: false,
            pseudo: &[],
            out: &out,
        },
    )
    .unwrap();
    assert_eq!(
        Some(&built.source_commit),
        studio.head("masters/jp").as_ref()
    );
    assert_eq!(built.fallbacks.len(), 1, "{:?}", built.fallbacks);
    assert_eq!(
        (
            built.fallbacks[0].language.as_str(),
            built.fallbacks[0].from.as_str()
        ),
        ("en", "ja")
    );
    let masters = masterctl_runtime::Masters::open(&out).unwrap();
    assert_eq!(masters.manifest().files.len(), built.files);
    let shown = |id: &str| {
        let key = [id.to_string()];
        let query = masterctl_build::inspect::Query {
            name: Some("monster"),
            key: &key,
            language: Some("en"),
        };
        match masterctl_build::inspect::inspect(&masters, &query).unwrap() {
            masterctl_build::inspect::Inspection::Row(row) => row
                .texts
                .iter()
                .map(|t| {
                    (
                        t.field.to_string(),
                        t.text.map(str::to_string),
                        t.language.to_string(),
                    )
                })
                .collect::<Vec<_>>(),
            _ => panic!("not a row"),
        }
    };
    assert_eq!(
        shown("1"),
        [(
            "name".to_string(),
            Some("Slime".to_string()),
            "en".to_string()
        )]
    );
    assert_eq!(
        shown("2"),
        [(
            "name".to_string(),
            Some("ゴーレム".to_string()),
            "ja".to_string()
        )]
    );
}

/// A commit on `masters/jp` made with git, its monster table replaced by `mode`'s
/// entry (a submodule, a symbolic link) pointing at `id`.
fn odd_entry_commit(studio: &Studio, mode: git2::FileMode, id: git2::Oid) -> git2::Oid {
    let repo = studio.repo();
    let git = &repo.git;
    let head = git
        .find_reference("refs/heads/masters/jp")
        .unwrap()
        .peel_to_commit()
        .unwrap();
    let tree = head.tree().unwrap();
    let tables = git
        .find_tree(tree.get_name("tables").unwrap().id())
        .unwrap();
    let mut builder = git.treebuilder(Some(&tables)).unwrap();
    builder.insert("monster.csv", id, mode.into()).unwrap();
    let tables = builder.write().unwrap();
    let mut root = git.treebuilder(Some(&tree)).unwrap();
    root.insert("tables", tables, git2::FileMode::Tree.into())
        .unwrap();
    let tree = git.find_tree(root.write().unwrap()).unwrap();
    let who = git2::Signature::now("M", "m@example.com").unwrap();
    git.commit(
        Some("refs/heads/masters/jp"),
        &who,
        &who,
        "odd",
        &tree,
        &[&head],
    )
    .unwrap()
}

#[test]
fn a_table_that_is_a_submodule_or_a_link_is_refused_by_every_reader() {
    let studio = Studio::new();
    let path = studio.export(&THREE);
    studio.import("jp", &path, |_| {}).unwrap();
    let good = studio.head("masters/jp").unwrap();
    let link_target = studio.repo().git.blob(b"../../../etc/passwd").unwrap();
    for (mode, id) in [
        (git2::FileMode::Commit, git2::Oid::from_str(&good).unwrap()),
        (git2::FileMode::Link, link_target),
    ] {
        odd_entry_commit(&studio, mode, id);
        let repo = studio.repo();
        let broken = |result: Result<(), StoreError>, what: &str| match result {
            Err(StoreError::BrokenSnapshot { message, .. }) => {
                assert!(message.contains("tables/monster.csv"), "{what}: {message}")
            }
            other => panic!("{what}: expected a broken snapshot, got {other:?}"),
        };
        let out = tempfile::tempdir().unwrap();
        for client in [false, true] {
            let built = studio.build(None, client, &out.path().join("build"));
            broken(built.map(drop), "build");
        }
        assert!(!out.path().join("build").exists(), "no build written");
        let changed = studio.export(&[(1, "slime", 11), (2, "golem", 300), (3, "dragon", 5000)]);
        let imported = studio.import("jp", &changed, |_| {}).map(drop);
        broken(
            imported.map_err(|e| match e {
                ImportError::Store(e) => e,
                other => panic!("import: expected a broken snapshot, got {other:?}"),
            }),
            "import",
        );
        let line = studio.region("jp");
        broken(
            masterctl_store::export::export_region(&repo, &line, None, &[]).map(drop),
            "export",
        );
        broken(
            masterctl_store::l10n::open_region(&repo, &line).map(drop),
            "l10n",
        );
        // Back to the commit masterctl made: every reader takes it again.
        masterctl_store::git::refs::move_branch(
            &repo,
            "refs/heads/masters/jp",
            Some(repo.git.refname_to_id("refs/heads/masters/jp").unwrap()),
            git2::Oid::from_str(&good).unwrap(),
            "back",
        )
        .unwrap();
        masterctl_store::l10n::open_region(&repo, &line).unwrap();
    }
}

/// A mistake in a table the import did not supply (taken from the branch to validate
/// the whole snapshot) names the row by its key and says where the planner corrects it
/// — the table's `source` — not only the line of the branch's file.
#[test]
fn a_mistake_in_a_table_not_imported_names_its_row_and_the_planners_file() {
    const LAIR: &str = "name = \"lair\"\nsource = \"dungeons/lair.csv\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"monster_id\"\ntype = \"int\"\nreferences = \"monster.id\"\n";
    let studio = Studio::with_schemas(
        crate::common::CONFIG,
        &[("monster", crate::common::MONSTER), ("lair", LAIR)],
    );
    studio.export(&THREE);
    std::fs::create_dir(studio.exports.path().join("dungeons")).unwrap();
    std::fs::write(
        studio.exports.path().join("dungeons/lair.csv"),
        "id,monster_id\n7,1\n8,3\n",
    )
    .unwrap();
    let first = studio.import("jp", studio.exports.path(), |_| {}).unwrap();
    assert!(
        matches!(first, ImportOutcome::Committed { .. }),
        "{first:?}"
    );
    let path = studio.export(&THREE[..2]);
    let outcome = studio.import("jp", &path, |_| {}).unwrap();
    let ImportOutcome::Rejected(report) = outcome else {
        panic!("{outcome:?}");
    };
    let [d] = &report.diagnostics[..] else {
        panic!("{report:?}");
    };
    assert_eq!(d.location.table.as_deref(), Some("lair"));
    assert_eq!(d.location.key.as_deref(), Some("8"), "{d:?}");
    assert_eq!(d.location.line, Some(3), "the branch's file, still named");
    let hint = d.hint.as_deref().unwrap();
    assert!(
        hint.contains("this row is masters/jp's, not among the files imported: correct it in dungeons/lair.csv"),
        "{hint}"
    );
    // A reference into a table kept from the branch names where planners keep it too.
    let lairs = studio.exports.path().join("more/dungeons");
    std::fs::create_dir_all(&lairs).unwrap();
    std::fs::write(lairs.join("lair.csv"), "id,monster_id\n7,1\n8,4\n").unwrap();
    let outcome = studio
        .import("jp", &lairs.join("lair.csv"), |_| {})
        .unwrap();
    let ImportOutcome::Rejected(report) = outcome else {
        panic!("{outcome:?}");
    };
    let [d] = &report.diagnostics[..] else {
        panic!("{report:?}");
    };
    assert_eq!(
        d.location.key, None,
        "a row of the files imported has its cell"
    );
    let hint = d.hint.as_deref().unwrap();
    assert!(
        hint.contains("add the row to `monster` (the sheet monster (or monster.csv), not among the files imported: as masters/jp holds it)"),
        "{hint}"
    );
}

/// A branch's history a stretch at a time: each stretch names where the older one
/// starts, a commit that stays true as the branch moves on; a commit of another
/// history is refused.
#[test]
fn history_comes_in_stretches_each_naming_the_older_one() {
    let studio = Studio::new();
    for hp in [10, 20, 30] {
        studio
            .import("jp", &studio.export(&[(1, "slime", hp)]), |_| {})
            .unwrap();
    }
    let repo = studio.repo();
    let first = masterctl_store::history_from(&repo, "refs/heads/masters/jp", None, 2).unwrap();
    assert_eq!(first.records.len(), 2);
    let older = first.older.clone().unwrap();
    // The branch moves on; the older stretch is where it was.
    studio
        .import("jp", &studio.export(&[(1, "slime", 40)]), |_| {})
        .unwrap();
    let second =
        masterctl_store::history_from(&repo, "refs/heads/masters/jp", Some(&older[..12]), 2)
            .unwrap();
    assert_eq!(second.records.len(), 1);
    assert_eq!(second.records[0].commit, older);
    assert_eq!(second.older, None, "the first commit is in it");
    let all = masterctl_store::history(&repo, "refs/heads/masters/jp", 10).unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[3].commit, older);
    // A commit of another history (main's structure commit) is no place to start.
    let main = studio.head("main").unwrap();
    let error =
        masterctl_store::history_from(&repo, "refs/heads/masters/jp", Some(&main), 2).unwrap_err();
    assert!(matches!(error, StoreError::NotInHistory { .. }), "{error}");
    assert_eq!(
        error.to_string(),
        format!("{main} is not a commit of masters/jp's history")
    );
}
