//! Taking a commit back, as the CLI's `revert` and the console's history page do: the
//! change undone as a new commit, later commits' changes kept, a cell a later commit
//! built on named and nothing written, a dry run reviewed.

use crate::common::Studio;
use masterctl_store::StoreError;
use masterctl_store::import::ImportOutcome;
use masterctl_store::revert::{self, Request, RevertError, RevertOutcome};
use masterctl_store::review::diff::DiffOptions;

/// Import these monsters into jp; the commit.
fn import(studio: &Studio, rows: &[(i64, &str, i64)]) -> String {
    match studio.import("jp", &studio.export(rows), |_| {}).unwrap() {
        ImportOutcome::Committed { commit, .. } => commit,
        other => panic!("{other:?}"),
    }
}

fn revert(studio: &Studio, commit: &str, dry_run: bool) -> Result<RevertOutcome, RevertError> {
    let line = studio.region("jp");
    revert::run(
        &studio.repo(),
        &Request {
            line: &line,
            commit,
            message: None,
            dry_run,
            review: DiffOptions::default(),
        },
    )
}

/// The monsters jp holds: `monster.csv` at its head.
fn monsters(studio: &Studio) -> String {
    let out = std::process::Command::new("git")
        .args(["show", "masters/jp:tables/monster.csv"])
        .current_dir(studio.dir.path())
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_commit_is_taken_back_keeping_what_later_commits_changed() {
    let studio = Studio::new();
    import(
        &studio,
        &[(1, "slime", 10), (2, "golem", 300), (3, "dragon", 5000)],
    );
    let b = import(
        &studio,
        &[
            (1, "slime", 12),
            (2, "golem", 300),
            (3, "dragon", 5000),
            (4, "bat", 3),
        ],
    );
    import(
        &studio,
        &[
            (1, "slime", 12),
            (2, "golem", 310),
            (3, "dragon", 5000),
            (4, "bat", 3),
        ],
    );
    let before = studio.head("masters/jp");

    // Reviewed first: the head against the branch with b taken back; nothing written.
    let RevertOutcome::Reviewed {
        review, subject, ..
    } = revert(&studio, &b[..10], true).unwrap()
    else {
        panic!("a review");
    };
    assert!(subject.starts_with("Import"), "{subject}");
    let changes: Vec<_> = (review.diff.changes.iter())
        .map(|c| (c.key.clone(), c.column.clone()))
        .collect();
    assert_eq!(changes.len(), 2, "{changes:?}");
    assert_eq!(studio.head("masters/jp"), before);

    let RevertOutcome::Committed {
        commit,
        revert: id,
        message,
        ..
    } = revert(&studio, &b, false).unwrap()
    else {
        panic!("committed");
    };
    assert_eq!(commit, b);
    assert_eq!(studio.head("masters/jp").as_deref(), Some(id.as_str()));
    assert!(message.starts_with("Revert \""), "{message}");
    assert!(
        message.contains(&format!("Masterctl-Reverts: {b}")),
        "{message}"
    );
    assert_eq!(
        monsters(&studio),
        "id,name,hp\n1,slime,10\n2,golem,310\n3,dragon,5000\n",
        "b's changes gone, the later golem kept"
    );
    // Taken back already: nothing left to take back.
    assert!(matches!(
        revert(&studio, &b, false).unwrap(),
        RevertOutcome::Unchanged { .. }
    ));
}

#[test]
fn a_cell_a_later_commit_changed_again_is_named_and_nothing_written() {
    let studio = Studio::new();
    let first = import(&studio, &[(1, "slime", 10), (2, "golem", 300)]);
    let b = import(&studio, &[(1, "slime", 12), (2, "golem", 300)]);
    import(&studio, &[(1, "slime", 15), (2, "golem", 300)]);
    let before = studio.head("masters/jp");
    let RevertOutcome::BuiltOn { commit, tables } = revert(&studio, &b, false).unwrap() else {
        panic!("built on");
    };
    assert_eq!(commit, b);
    assert_eq!(tables.len(), 1);
    assert_eq!(tables[0].table, "monster");
    assert_eq!(tables[0].conflicts.len(), 1, "{:?}", tables[0].conflicts);
    assert_eq!(studio.head("masters/jp"), before);

    // The first commit has nothing before it; another branch's commit is not this one's.
    let error = revert(&studio, &first, false).unwrap_err();
    assert!(matches!(error, RevertError::FirstCommit { .. }), "{error}");
    assert_eq!(error.kind(), masterctl_store::ErrorKind::Invalid);
    let main = studio.head("main").unwrap();
    let error = revert(&studio, &main, false).unwrap_err();
    assert!(
        matches!(error, RevertError::Store(StoreError::NotInHistory { .. })),
        "{error}"
    );
    let error = revert(&studio, "HEAD~1", false).unwrap_err();
    assert_eq!(
        error.kind(),
        masterctl_store::ErrorKind::NotFound,
        "{error}"
    );
}
