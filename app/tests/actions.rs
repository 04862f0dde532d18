//! The actions of more than one step, as both faces call them: codegen (schemas chosen,
//! the user's templates read, the code written), a diff's sides, and the translation
//! reads holding the language asked for to one rule.

use std::path::Path;

use masterctl_app::Kinded;
use masterctl_app::codegen::{self, Error, Request};
use masterctl_app::diff::{self, Exports, Reviewed, Sides};
use masterctl_app::schemas::Schemas;
use masterctl_codegen::{Lang, Written};
use masterctl_locales::exchange::Format;
use masterctl_store::git::Error as GitError;
use masterctl_store::review::diff::DiffOptions;
use masterctl_store::{ErrorKind, MasterRepo, StoreError};

use crate::around::{clone, import};

/// A master repository whose jp branch holds two imports: (1, 10), then (1, 11), (2, 20).
fn imported(dir: &Path) -> MasterRepo {
    let path = clone(dir, "repo", None, "Aiko");
    let repo = MasterRepo::open(&path).unwrap();
    import(&repo, &[(1, 10)], false).unwrap();
    import(&repo, &[(1, 11), (2, 20)], false).unwrap();
    repo
}

fn rust<'a>(templates: Option<&'a Path>) -> Request<'a> {
    Request {
        lang: Lang::Rust,
        schemas: Schemas::Working,
        audience: None,
        package: "masters",
        runtime: None,
        templates,
    }
}

#[test]
fn codegen_writes_the_users_templates_beside_the_built_in_ones_and_rewrites_nothing_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let repo = imported(dir.path());
    let templates = dir.path().join("templates");
    std::fs::create_dir_all(templates.join("docs")).unwrap();
    std::fs::write(
        templates.join("docs/package.txt.hbs"),
        "{{package}} {{schema_hash}}\n",
    )
    .unwrap();
    let out = dir.path().join("out");
    let first = codegen::generate(&repo, &rust(Some(&templates)), &out).unwrap();
    assert_eq!((first.lang, first.audience), ("rust", "server"));
    let page = std::fs::read_to_string(out.join("docs/package.txt")).unwrap();
    assert_eq!(page, format!("masters {}\n", first.schema_hash));
    // The runtime is written beside the crate when no other is named.
    assert!(
        first
            .files
            .iter()
            .any(|f| f.file.path.starts_with("masterctl-runtime/"))
    );
    let again = codegen::generate(&repo, &rust(Some(&templates)), &out).unwrap();
    assert!(again.files.iter().all(|f| f.written == Written::Unchanged));
    // A region's head holds the same schemas as the working tree here.
    let region = Request {
        schemas: Schemas::Region("jp".to_string()),
        ..rust(None)
    };
    let prepared = codegen::prepare(&repo, &region).unwrap();
    assert_eq!(prepared.schema_hash, first.schema_hash);
}

#[test]
fn codegen_refuses_what_it_cannot_read_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let repo = imported(dir.path());
    let out = dir.path().join("out");
    let refused = |request: &Request<'_>| {
        let error = codegen::generate(&repo, request, &out).unwrap_err();
        assert!(!out.exists(), "{error}: nothing is written");
        error
    };

    let missing = dir.path().join("no-such-folder");
    let error = refused(&rust(Some(&missing)));
    assert!(matches!(error, Error::Templates { .. }), "{error}");
    assert_eq!(error.kind(), ErrorKind::Usage);

    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let error = refused(&rust(Some(&empty)));
    assert!(error.to_string().contains("no .hbs file"), "{error}");

    let linked = dir.path().join("linked");
    std::fs::create_dir_all(&linked).unwrap();
    std::fs::write(dir.path().join("secret.hbs"), "outside").unwrap();
    std::os::unix::fs::symlink(dir.path().join("secret.hbs"), linked.join("lib.rs.hbs")).unwrap();
    let error = refused(&rust(Some(&linked)));
    assert!(error.to_string().contains("symbolic link"), "{error}");
    assert_eq!(error.kind(), ErrorKind::Usage);

    let binary = dir.path().join("binary");
    std::fs::create_dir_all(&binary).unwrap();
    std::fs::write(binary.join("x.hbs"), [0xff, 0xfe, 0x00]).unwrap();
    let error = refused(&rust(Some(&binary)));
    assert!(matches!(error, Error::NotText { .. }), "{error}");
    assert_eq!(error.kind(), ErrorKind::Invalid);

    let error = refused(&Request {
        runtime: Some(&empty),
        ..rust(None)
    });
    assert!(matches!(error, Error::Runtime { .. }), "{error}");
    assert_eq!(error.kind(), ErrorKind::Usage);

    let error = refused(&Request {
        package: "Bad Name",
        ..rust(None)
    });
    assert!(matches!(error, Error::Package(_)), "{error}");

    let error = refused(&Request {
        schemas: Schemas::Revision("no-such-revision".to_string()),
        ..rust(None)
    });
    assert!(
        matches!(
            error,
            Error::Store(StoreError::Git(GitError::UnknownRevision(_)))
        ),
        "{error}"
    );
    let error = refused(&Request {
        schemas: Schemas::Region("kr".to_string()),
        ..rust(None)
    });
    assert!(
        matches!(
            error,
            Error::Store(StoreError::Git(GitError::UnknownRegion { .. }))
        ),
        "{error}"
    );
}

#[test]
fn a_diffs_sides_name_the_same_change_whichever_way_they_are_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let repo = imported(dir.path());
    let options = DiffOptions::default();
    let counts = |sides| {
        let review = diff::review(&repo, sides, &options).unwrap();
        let table = &review.diff.tables[0];
        (
            table.table.clone(),
            table.rows_added,
            table.cells_changed,
            table.rows_removed,
        )
    };
    let last = counts(Sides::LastCommit {
        region: "jp",
        work: None,
    });
    assert_eq!(last, ("monster".to_string(), 1, 1, 0));
    assert_eq!(counts(Sides::Revision("masters/jp")), last);
    let between = Sides::Revisions {
        old: "masters/jp~1",
        new: "masters/jp",
    };
    assert_eq!(counts(between), last);

    let exports = dir.path().join("exports");
    std::fs::create_dir_all(&exports).unwrap();
    std::fs::write(exports.join("monster.csv"), "id,hp\n1,11\n2,20\n3,30\n").unwrap();
    let paths = [exports.join("monster.csv")];
    let request = Exports {
        region: "jp",
        work: None,
        paths: &paths,
        progress: &|_, _| {},
    };
    let Reviewed::Review(review) = diff::exports(&repo, request, DiffOptions::default()).unwrap()
    else {
        panic!("good exports are reviewed")
    };
    assert_eq!(review.diff.tables[0].rows_added, 1);
    std::fs::write(exports.join("monster.csv"), "id,hp\n1,eleven\n").unwrap();
    let request = Exports {
        region: "jp",
        work: None,
        paths: &paths,
        progress: &|_, _| {},
    };
    let reviewed = diff::exports(&repo, request, DiffOptions::default()).unwrap();
    assert!(matches!(reviewed, Reviewed::Rejected(_)));
}

#[test]
fn the_translation_reads_take_only_a_language_translators_work_on() {
    let dir = tempfile::tempdir().unwrap();
    let repo = imported(dir.path());
    let jp = masterctl_app::project::branch(&repo.structure().unwrap(), "jp", None).unwrap();
    let status = masterctl_app::l10n::status(&repo, &jp, None, false).unwrap();
    assert_eq!(status.texts.region, "jp");
    assert!(
        status.languages.is_empty(),
        "the project translates nothing"
    );
    for language in ["ja", "fr", "../x"] {
        let error = masterctl_app::l10n::status(&repo, &jp, Some(language), false)
            .err()
            .unwrap();
        assert_eq!(error.kind(), ErrorKind::NotFound, "{language}: {error}");
        let error = masterctl_app::l10n::export(&repo, &jp, language, Format::Xliff, false)
            .err()
            .unwrap();
        assert_eq!(error.kind(), ErrorKind::NotFound, "{language}: {error}");
    }
}
