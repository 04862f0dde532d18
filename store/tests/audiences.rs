//! What each build holds: the server's only what servers may see, the client's only
//! what clients may see — proven on every byte of the client build — and designers'
//! notes in neither.

use std::path::Path;

use crate::common::{Studio, git};
use masterctl_store::MasterRepo;

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

/// Monsters a client sees, with a server-only hit-point formula input and a designers'
/// note; and a table of formulas only servers see.
const MONSTER: &str = "name = \"monster\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"text\"\n\n[[fields]]\nname = \"hp\"\ntype = \"int\"\naudience = [\"server\"]\n\n[[fields]]\nname = \"note\"\ntype = \"text\"\noptional = true\naudience = [\"design\"]\n";
const FORMULA: &str = "name = \"formula\"\nprimary_key = [\"id\"]\naudience = [\"server\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"expression\"\ntype = \"string\"\n";

/// Values only servers (`HP`, `FORMULA`) or only designers (`NOTE`) may see.
const HP: i64 = 987_654_321;
const FORMULA_TEXT: &str = "SERVER-ONLY-FORMULA-hp*1.7";
const NOTE: &str = "DESIGN-NOTE-do-not-ship";

fn studio() -> Studio {
    let studio = Studio::with_schemas(CONFIG, &[("monster", MONSTER), ("formula", FORMULA)]);
    let data = studio.exports.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("monster.csv"),
        format!("id,name,hp,note\n1,スライム,{HP},{NOTE}\n2,ゴーレム,300,\n"),
    )
    .unwrap();
    std::fs::write(
        data.join("formula.csv"),
        format!("id,expression\n1,{FORMULA_TEXT}\n"),
    )
    .unwrap();
    studio.import("jp", &data, |_| {}).unwrap();
    studio
}

/// Every byte of every file under `dir`.
fn every_byte(dir: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            bytes.extend(every_byte(&path));
        } else {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    bytes
}

fn holds(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn build(studio: &Studio, client: bool) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    studio
        .build(None, client, &out.path().join("build"))
        .unwrap();
    out
}

#[test]
fn a_client_build_holds_no_byte_of_what_servers_or_designers_alone_see() {
    let studio = studio();
    let dir = &studio.dir;
    let client = build(&studio, true);
    let client_dir = client.path().join("build");
    let bytes = every_byte(&client_dir);
    // What the client sees is there (archives and the portable export)...
    assert!(holds(&bytes, "スライム".as_bytes()));
    assert!(client_dir.join("client").is_dir());
    // ...and nothing else: the formula table, the hit points (as text, and as the
    // integer in either byte order), the designers' note.
    assert!(
        !holds(&bytes, FORMULA_TEXT.as_bytes()),
        "the server-only table"
    );
    assert!(!holds(&bytes, b"formula"), "even its name");
    assert!(
        !holds(&bytes, HP.to_string().as_bytes()),
        "hit points as text"
    );
    assert!(
        !holds(&bytes, &HP.to_le_bytes()),
        "hit points as an integer"
    );
    assert!(
        !holds(&bytes, &(HP as i32).to_le_bytes()),
        "hit points as an int32"
    );
    assert!(!holds(&bytes, NOTE.as_bytes()), "the designers' note");
    assert!(!holds(&bytes, b"\"hp\""), "the hit points' column");
    // It loads as any build does, the monster table without the columns it may not see
    // (its name is a text: in the language files).
    let masters = masterctl_runtime::Masters::open(&client_dir).unwrap();
    assert!(masters.table("formula").is_none());
    let monster = masters.table("monster").unwrap();
    let columns: Vec<&str> = monster.columns().collect();
    assert_eq!(columns, ["id"]);

    // The server's build: the formula and the hit points, never the note.
    let server = build(&studio, false);
    let server_dir = server.path().join("build");
    let bytes = every_byte(&server_dir);
    assert!(holds(&bytes, FORMULA_TEXT.as_bytes()));
    assert!(holds(&bytes, &HP.to_le_bytes()) || holds(&bytes, HP.to_string().as_bytes()));
    assert!(!holds(&bytes, NOTE.as_bytes()), "the designers' note");
    let masters = masterctl_runtime::Masters::open(&server_dir).unwrap();
    let columns: Vec<&str> = masters.table("monster").unwrap().columns().collect();
    assert_eq!(columns, ["id", "hp"]);
    // The two builds are of different schemas: neither loader takes the other's.
    let manifest = |dir: &Path| masterctl_runtime::read_manifest(dir).unwrap().0;
    assert_ne!(
        manifest(&client_dir).schema_hash,
        manifest(&server_dir).schema_hash
    );
    // Translators get the names to translate, never the designers' notes.
    let repo = MasterRepo::open(dir.path()).unwrap();
    let line = studio.region("jp");
    let texts = masterctl_store::l10n::open_region(&repo, &line).unwrap();
    let status = masterctl_store::l10n::status(&repo, &texts, &["en"], false).unwrap();
    assert_eq!(status[0].total.missing, 2, "two names, no note");
    // The status says whose the note is, and that it is never translated.
    let monster = status[0]
        .tables
        .iter()
        .find(|t| t.table == "monster")
        .unwrap();
    let said: Vec<(&str, &str, bool)> = monster
        .audiences
        .iter()
        .map(|a| (a.field.as_str(), a.audience.as_str(), a.translated))
        .collect();
    assert_eq!(said, [("note", "design", false)]);
    // A change of the hit points says who sees them; a change of a name does not.
    let data = studio.exports.path().join("data");
    std::fs::write(
        data.join("monster.csv"),
        format!(
            "id,name,hp,note\n1,スライム,{},{NOTE}\n2,ゴーレムII,300,\n",
            HP + 1
        ),
    )
    .unwrap();
    studio
        .import("jp", &data.join("monster.csv"), |_| {})
        .unwrap();
    let head = studio.head("masters/jp").unwrap();
    use masterctl_store::review::diff;
    let (from, to) = diff::revision(&repo.git, &head).unwrap();
    let review = diff::review(&from, &to, &diff::DiffOptions::default()).unwrap();
    let audience_of = |column: &str| {
        let change = review
            .diff
            .changes
            .iter()
            .find(|c| c.column.as_deref() == Some(column));
        change.unwrap().audience.clone()
    };
    assert_eq!(audience_of("hp").as_deref(), Some("server"));
    assert_eq!(audience_of("name"), None);
    // Each says whose it is (`inspect` shows it).
    assert_eq!(manifest(&client_dir).audience.as_deref(), Some("client"));
    assert_eq!(manifest(&server_dir).audience.as_deref(), Some("server"));
    // The server's says who sees each table and field only some audiences see; the
    // client's holds none of them, and names none.
    let seen: Vec<(String, Option<String>, Vec<String>)> = manifest(&server_dir)
        .seen_by
        .into_iter()
        .map(|s| (s.table, s.field, s.audience))
        .collect();
    let server = vec!["server".to_string()];
    assert_eq!(
        seen,
        [
            ("formula".into(), None, server.clone()),
            ("monster".into(), Some("hp".into()), server.clone()),
        ]
    );
    assert!(manifest(&client_dir).seen_by.is_empty());
    // inspect says it of a table and of a row.
    use masterctl_build::inspect::{Inspection, Query, inspect};
    let masters = masterctl_runtime::Masters::open(&server_dir).unwrap();
    let key = ["1".to_string()];
    let query = |name, key| Query {
        name: Some(name),
        key,
        language: None,
    };
    let Ok(Inspection::Table(shape)) = inspect(&masters, &query("monster", &key[..0])) else {
        panic!("monster's shape");
    };
    assert_eq!(shape.audience, None);
    assert_eq!(shape.column_audiences.get("hp"), Some(&server.as_slice()));
    let Ok(Inspection::Table(shape)) = inspect(&masters, &query("formula", &key[..0])) else {
        panic!("formula's shape");
    };
    assert_eq!(shape.audience, Some(server.as_slice()));
    let Ok(Inspection::Row(row)) = inspect(&masters, &query("monster", &key)) else {
        panic!("monster 1");
    };
    assert_eq!(row.audiences.get("hp"), Some(&server.as_slice()));
}

/// The schema at `path` without its `audience` lines.
fn drop_audiences(path: &Path) {
    let text = std::fs::read_to_string(path).unwrap();
    let widened: String = text
        .lines()
        .filter(|line| !line.starts_with("audience"))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(path, widened).unwrap();
}

/// A plain git commit on `masters/jp` of the repository at `dir` (a clone pushing to
/// it) whose schemas drop every `audience` line: what a `git push` can do, main
/// untouched.
fn widen_with_plain_git(remote: &Path) {
    let attacker = tempfile::tempdir().unwrap();
    let url = remote.display().to_string();
    git(
        attacker.path(),
        &["clone", "-q", "-b", "masters/jp", &url, "."],
    );
    for schema in ["monster", "formula"] {
        let path = attacker.path().join(format!("schemas/{schema}.toml"));
        drop_audiences(&path);
    }
    git(
        attacker.path(),
        &[
            "-c",
            "user.name=M",
            "-c",
            "user.email=m@x",
            "commit",
            "-qam",
            "tidy",
        ],
    );
    git(attacker.path(), &["push", "-q", "origin", "masters/jp"]);
}

fn refused(result: Result<impl std::fmt::Debug, masterctl_store::StoreError>) -> Vec<String> {
    match result {
        Err(masterctl_store::StoreError::UnvouchedStructure { files, .. }) => files,
        other => panic!("expected the structure refused, got {other:?}"),
    }
}

#[test]
fn a_region_commit_pushed_with_plain_git_that_drops_audiences_is_never_built_pulled_or_merged() {
    // A team's bare remote, holding main and jp as masterctl pushed them.
    let studio = studio();
    let remote = tempfile::tempdir().unwrap();
    git(remote.path(), &["init", "-q", "--bare", "-b", "main"]);
    let url = remote.path().display().to_string();
    git(studio.dir.path(), &["remote", "add", "origin", &url]);
    git(
        studio.dir.path(),
        &["push", "-q", "origin", "main", "masters/jp"],
    );
    let good = studio.head("masters/jp").unwrap();
    widen_with_plain_git(remote.path());

    // The pull that would fast-forward onto it is refused, naming both schemas.
    let repo = studio.repo();
    let structure = repo.structure().unwrap();
    let origin = masterctl_store::remote::remote_of(&repo, "origin").unwrap();
    let pulled = masterctl_store::remote::pull(
        &repo,
        &structure,
        &origin,
        &masterctl_store::remote::Scope::All,
    );
    let files = refused(pulled.map_err(|e| match e {
        masterctl_store::remote::RemoteError::Store(e) => e,
        other => panic!("expected the structure refused, got {other:?}"),
    }));
    assert_eq!(files, ["schemas/formula.toml", "schemas/monster.toml"]);
    assert_eq!(studio.head("masters/jp").unwrap(), good, "nothing pulled");

    // Forced onto the branch with git all the same (a fetch and a reset): no build,
    // client's or server's, no import and no merge takes it.
    git(
        studio.dir.path(),
        &["fetch", "-q", "origin", "+masters/jp:masters/jp"],
    );
    assert_ne!(studio.head("masters/jp").unwrap(), good);
    for client in [true, false] {
        let out = tempfile::tempdir().unwrap();
        let built = studio.build(None, client, &out.path().join("build"));
        refused(built);
        assert!(!out.path().join("build").exists(), "nothing written");
    }
    let data = studio.exports.path().join("data");
    refused(studio.import("jp", &data, |_| {}).map_err(|e| match e {
        masterctl_store::import::ImportError::Store(e) => e,
        other => panic!("expected the structure refused, got {other:?}"),
    }));
    let work = studio.work("jp", "ev");
    masterctl_store::branches::create(&repo, &work, Some(&good)).unwrap();
    let refresh = masterctl_store::join::session::run(
        &repo,
        &structure,
        &masterctl_store::join::Join::Refresh(work),
        &masterctl_store::join::session::Action::Start,
        None,
    );
    match refresh {
        Err(masterctl_store::join::JoinError::Store(e)) => {
            refused(Err::<(), _>(e));
        }
        other => panic!("expected the merge refused, got {other:?}"),
    }
    // The commit masterctl made still builds, and no client artefact holds a byte of
    // what servers or designers alone see.
    let out = tempfile::tempdir().unwrap();
    studio
        .build(Some(&good), true, &out.path().join("build"))
        .unwrap();
    let bytes = every_byte(&out.path().join("build"));
    assert!(holds(&bytes, "スライム".as_bytes()));
    for marker in [FORMULA_TEXT.as_bytes(), NOTE.as_bytes(), &HP.to_le_bytes()] {
        assert!(!holds(&bytes, marker));
    }

    // Main saying the same (reviewed and committed there) vouches for it.
    let root = studio.dir.path();
    for schema in ["monster", "formula"] {
        let path = root.join(format!("schemas/{schema}.toml"));
        drop_audiences(&path);
    }
    git(root, &["commit", "-qam", "everyone sees everything"]);
    let client = build(&studio, true);
    let bytes = every_byte(&client.path().join("build"));
    assert!(holds(&bytes, FORMULA_TEXT.as_bytes()), "as main now says");
}

#[test]
fn a_client_font_s_characters_hold_none_only_servers_texts_use() {
    let server_line = "name = \"boss\"\nprimary_key = [\"id\"]\naudience = [\"server\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"line\"\ntype = \"text\"\n";
    let studio = Studio::with_schemas(CONFIG, &[("monster", MONSTER), ("boss", server_line)]);
    let data = studio.exports.path().join("data");
    std::fs::create_dir(&data).unwrap();
    std::fs::write(
        data.join("monster.csv"),
        "id,name,hp,note\n1,スライム,1,設計\n",
    )
    .unwrap();
    // 鬼 and 龍 appear only in a server-only table's text.
    std::fs::write(data.join("boss.csv"), "id,line\n1,鬼龍\n").unwrap();
    studio.import("jp", &data, |_| {}).unwrap();
    let repo = studio.repo();
    let of = |audience| {
        masterctl_store::l10n::charset::charset_of(&repo, Some("jp"), "ja", audience)
            .unwrap()
            .characters
    };
    let client = of(masterctl_schemas::audience::Audience::Client);
    assert!(client.contains(&'ス'));
    assert!(
        !client.contains(&'鬼') && !client.contains(&'龍'),
        "{client:?}"
    );
    assert!(!client.contains(&'設'), "designers' notes never ship");
    let server = of(masterctl_schemas::audience::Audience::Server);
    assert!(server.contains(&'鬼') && server.contains(&'ス'));
    assert!(!server.contains(&'設'));
}
