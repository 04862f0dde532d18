//! A small master repository made in a temporary folder, and the store's workflows
//! called on it as a console or the CLI calls them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use masterctl_store::import::{self, ImportError, ImportOutcome, Request};
use masterctl_store::join::Join;
use masterctl_store::join::session::{self, Action, Step};
use masterctl_store::review::diff::DiffOptions;
use masterctl_store::{Branch, MasterRepo, Region, StoreError, WorkBranch};

pub const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\n";
pub const MONSTER: &str = "name = \"monster\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n\n[[fields]]\nname = \"hp\"\ntype = \"int\"\n";

pub use masterctl_testing::git;

/// A master repository in a temporary folder: the structure committed on `main`, an
/// author configured, and a folder for exports.
pub struct Studio {
    pub dir: tempfile::TempDir,
    pub exports: tempfile::TempDir,
}

impl Studio {
    pub fn new() -> Studio {
        Studio::with(CONFIG, MONSTER)
    }

    /// A studio whose monster names are texts translated into English.
    pub fn translated() -> Studio {
        let config = CONFIG.replace("languages = [\"ja\"]", "languages = [\"ja\", \"en\"]");
        let monster = MONSTER.replace(
            "name = \"name\"\ntype = \"string\"",
            "name = \"name\"\ntype = \"text\"",
        );
        assert_ne!(monster, MONSTER);
        Studio::with(&config, &monster)
    }

    pub fn with(settings: &str, monster: &str) -> Studio {
        Studio::with_schemas(settings, &[("monster", monster)])
    }

    /// A studio of `settings` and these schemas (`name`, text).
    pub fn with_schemas(settings: &str, schemas: &[(&str, &str)]) -> Studio {
        let dir = tempfile::tempdir().unwrap();
        let mut options = git2::RepositoryInitOptions::new();
        options.initial_head("main");
        let git = git2::Repository::init_opts(dir.path(), &options).unwrap();
        let mut config = git.config().unwrap();
        config.set_str("user.name", "Aiko").unwrap();
        config.set_str("user.email", "aiko@example.com").unwrap();
        let files: Vec<(String, Vec<u8>)> =
            std::iter::once(("masterctl.toml".to_string(), settings.as_bytes().to_vec()))
                .chain(
                    schemas.iter().map(|(name, text)| {
                        (format!("schemas/{name}.toml"), text.as_bytes().to_vec())
                    }),
                )
                .collect();
        let made = masterctl_store::init::init(dir.path(), &files, None).unwrap();
        assert!(made.structure_commit.is_some(), "{made:?}");
        Studio {
            dir,
            exports: tempfile::tempdir().unwrap(),
        }
    }

    pub fn repo(&self) -> MasterRepo {
        MasterRepo::open(self.dir.path()).unwrap()
    }

    /// `monster.csv` with these rows (id, name, hp).
    pub fn export(&self, rows: &[(i64, &str, i64)]) -> PathBuf {
        let mut csv = String::from("id,name,hp\n");
        for (id, name, hp) in rows {
            csv.push_str(&format!("{id},{name},{hp}\n"));
        }
        let path = self.exports.path().join("monster.csv");
        std::fs::write(&path, csv).unwrap();
        path
    }

    pub fn import(
        &self,
        region: &str,
        path: &Path,
        change: impl FnOnce(&mut Request<'_>),
    ) -> Result<ImportOutcome, ImportError> {
        let paths = [path.to_path_buf()];
        let mut request = Request {
            region,
            branch: None,
            paths: &paths,
            structure: None,
            message: None,
            dry_run: false,
            review: Some(DiffOptions::default()),
            allow_removal: false,
            revert_upstream: false,
            keep_branch: false,
            progress: &|_, _| {},
        };
        change(&mut request);
        import::run(&self.repo(), &request)
    }

    /// Build `jp` (at `rev`, or its head) into `out`.
    #[allow(dead_code)]
    pub fn build(
        &self,
        rev: Option<&str>,
        client: bool,
        out: &Path,
    ) -> Result<masterctl_store::build::Built, StoreError> {
        let request = masterctl_store::build::Request {
            region: "jp",
            branch: None,
            rev,
            client,
            pseudo: &[],
            out,
        };
        masterctl_store::build::run(&self.repo(), &request)
    }

    pub fn head(&self, branch: &str) -> Option<String> {
        let repo = self.repo();
        let reference = format!("refs/heads/{branch}");
        repo.head_of(&reference)
            .unwrap()
            .map(|commit| commit.id().to_string())
    }

    pub fn region(&self, name: &str) -> Branch {
        let structure = self.repo().structure().unwrap();
        Branch::from(Region::of(&structure.project, name).unwrap())
    }

    /// The work branch `name` of region `region`.
    pub fn work(&self, region: &str, name: &str) -> WorkBranch {
        let structure = self.repo().structure().unwrap();
        WorkBranch::of(&Region::of(&structure.project, region).unwrap(), name).unwrap()
    }

    /// Carry out `action` on `join`.
    pub fn join(&self, join: &Join, action: Action<'_>) -> Step {
        let repo = self.repo();
        let structure = repo.structure().unwrap();
        session::run(&repo, &structure, join, &action, None).unwrap()
    }

    pub fn rebase(&self, region: &str, action: Action<'_>) -> Step {
        let repo = self.repo();
        let structure = repo.structure().unwrap();
        let region = Region::of(&structure.project, region).unwrap();
        session::run(&repo, &structure, &Join::Rebase(region), &action, None).unwrap()
    }
}
