//! `masterctl migrate luban` on Luban's public example project
//! (`fixtures/third-party/luban-examples`, MIT): migrate, validate the studio's
//! workbooks untouched, import, build, inspect; the exact list of what was not
//! converted and why (a snapshot); and the refusals.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::common::*;

fn luban() -> PathBuf {
    third_party().join("luban-examples/DataTables")
}

/// Every file under `dir`, with its bytes.
fn files_under(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    masterctl_testing::files_under(dir)
        .into_iter()
        .map(|path| {
            let bytes = std::fs::read(&path).unwrap();
            (path, bytes)
        })
        .collect()
}

/// A folder with a git repository and an author, for migrate to write into.
fn repository(tmp: &Path, name: &str) -> PathBuf {
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).unwrap();
    git(&dir, &["init", "-q", "-b", "main"]);
    git(&dir, &["config", "user.name", "Test Planner"]);
    git(&dir, &["config", "user.email", "planner@example.com"]);
    dir
}

/// `masterctl inspect BUILD TABLE KEY...` finds the row and shows each of `lines`.
fn inspect_shows(repo: &Path, build: &Path, row: &[&str], lines: &[&str]) {
    let build = build.display().to_string();
    let args: Vec<&str> = ["inspect", build.as_str()]
        .into_iter()
        .chain(row.iter().copied())
        .collect();
    let inspect = masterctl(repo, &args);
    assert!(inspect.status.success(), "{}", text(&inspect));
    let shown = stdout(&inspect);
    for line in lines {
        assert!(shown.contains(line), "{shown}");
    }
}

#[test]
fn luban_examples_migrate_validate_import_build_inspect() {
    let tmp = tempfile::tempdir().unwrap();
    let datas = luban().join("Datas");
    let before = files_under(&luban());
    let out = repository(tmp.path(), "masters");
    let o = |p: &Path| p.display().to_string();

    let run = migrate_luban(tmp.path(), &luban(), &out, &[]);
    assert!(run.status.success(), "{}", text(&run));
    let shown = text(&run)
        .replace(&o(&out), "<out>")
        .replace(&o(&luban()), "<luban>");
    insta::assert_snapshot!("migrate_luban_examples", shown);
    // The structure is committed: validate, import and build work at once.
    assert!(git(&out, &["log", "--format=%s"]).contains("masterctl structure"));
    assert!(out.join("schemas/item.toml").is_file());

    let validate = masterctl(&out, &["validate", &o(&datas)]);
    assert!(validate.status.success(), "{}", text(&validate));
    assert!(
        stdout(&validate).contains("valid: 33 tables, 184 rows from 65 files (35 warnings)"),
        "{}",
        text(&validate)
    );

    // Each file or sheet no table reads is said once for what it is: Luban's definition
    // workbooks and notes sheets in one line, a table not converted with why.
    let said = stdout(&validate);
    assert!(
        said.contains("3 definition workbooks (__beans__.xlsx, __enums__.xlsx, __tables__.xlsx), 1 notes sheet (全局常量配置表.xlsx#Sheet2)"),
        "{said}"
    );
    // Its polymorphic table over four sheets, a sheet per case, is read.
    assert!(!said.contains("`item.xlsx` is not read"), "{said}");
    assert!(!said.contains("maps to no table"), "{said}");
    let import = masterctl(&out, &["import", "--region", "main", &o(&datas)]);
    assert!(import.status.success(), "{}", text(&import));
    let build_dir = tmp.path().join("build");
    let build = masterctl(
        &out,
        &["build", "--region", "main", "--out", &o(&build_dir)],
    );
    assert!(build.status.success(), "{}", text(&build));
    // A row as a game server reads it: the enum cells written as aliases (货币, 白) are
    // the values' names.
    inspect_shows(
        &out,
        &build_dir,
        &["item", "1"],
        &[
            "name                 钻石",
            "major_type           CURRENCY",
            "quality              WHITE",
        ],
    );
    inspect_shows(
        &out,
        &build_dir,
        &["multi_union_index_list", "1", "5", "ab1"],
        &[],
    );
    // Singletons, from Luban's vertical sheets (`##column`: names down column A, the
    // values in the first column that is not `##type` or `##` notes) and from a one-row
    // sheet; the list without an index in its order. The values are the workbooks' (as
    // openpyxl reads them: D3:D9 of 全局常量配置表.xlsx, D2:D3 of global.xlsx).
    inspect_shows(
        &out,
        &build_dir,
        &["global_config", "#1"],
        &[
            "x1                   1101001101",
            "x2                   150",
            "x7                   1|2|3|4",
        ],
    );
    inspect_shows(
        &out,
        &build_dir,
        &["test_global", "#1"],
        &["unlock_equip         10", "unlock_hero          20"],
    );
    inspect_shows(
        &out,
        &build_dir,
        &["singleton", "#1"],
        &["id                   5", "name                 key_name"],
    );
    inspect_shows(
        &out,
        &build_dir,
        &["not_index_list", "#4"],
        &["x                    3", "y                    4"],
    );
    // A bean spread over columns is flat fields, each read from its place.
    inspect_shows(
        &out,
        &build_dir,
        &["test_multi_column", "1"],
        &[
            "a_y1                 1",
            "a_y3                 3",
            "c_y2                 32",
        ],
    );

    // Luban's export groups are audiences (masterctl.toml says how they were read): the
    // server's build has the server group's field, the client's the client group's.
    let demo = std::fs::read_to_string(out.join("schemas/demo_group.toml")).unwrap();
    for (field, audience) in [("x1", "client"), ("x2", "server"), ("x3", "design")] {
        let declared = format!("name = \"{field}\"\naudience = [\"{audience}\"]");
        assert!(demo.contains(&declared), "{demo}");
    }
    let config = std::fs::read_to_string(out.join("masterctl.toml")).unwrap();
    assert!(
        config.contains("c → client, e → design, s → server, t → design"),
        "{config}"
    );
    let client_dir = tmp.path().join("client-build");
    let client = masterctl(
        &out,
        &[
            "build",
            "--region",
            "main",
            "--client",
            "--out",
            &o(&client_dir),
        ],
    );
    assert!(client.status.success(), "{}", text(&client));
    let item = |dir: &Path| stdout(&masterctl(&out, &["inspect", &o(dir), "item", "1"]));
    let (server_item, client_item) = (item(&build_dir), item(&client_dir));
    assert!(
        server_item.contains("max_pile_num") && !server_item.contains("\n  icon "),
        "{server_item}"
    );
    assert!(
        client_item.contains("\n  icon ") && !client_item.contains("max_pile_num"),
        "{client_item}"
    );

    // The studio's files are as they were.
    assert!(
        before == files_under(&luban()),
        "migrate or import changed a Luban file"
    );
}

#[test]
fn every_luban_table_is_converted_or_listed_with_its_reason() {
    let tmp = tempfile::tempdir().unwrap();
    let out = repository(tmp.path(), "masters");
    let run = migrate_luban(
        tmp.path(),
        &luban(),
        &out,
        &["--format", "json", "--region", "cn", "--languages", "zh,en"],
    );
    assert!(run.status.success(), "{}", text(&run));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let converted: Vec<&str> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["luban"].as_str().unwrap())
        .collect();
    let skipped: Vec<&str> = json["not_converted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["field"].is_null())
        .map(|n| n["luban_table"].as_str().unwrap())
        .collect();
    assert_eq!(converted.len(), 33, "{converted:?}");
    assert_eq!(skipped.len(), 20, "{skipped:?}");
    assert!(converted.iter().all(|t| !skipped.contains(t)));
    // Every table of the definitions and of the auto-import workbooks is one or the other.
    let defines: String = std::fs::read_dir(luban().join("Defines"))
        .unwrap()
        .flatten()
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    // Tables inside comments are not declared.
    let defines = regex::Regex::new(r"(?s)<!--.*?-->")
        .unwrap()
        .replace_all(&defines, "");
    for name in regex::Regex::new(r#"<table name="(\w+)""#)
        .unwrap()
        .captures_iter(&defines)
        .map(|c| c[1].to_string())
    {
        assert!(
            converted
                .iter()
                .chain(&skipped)
                .any(|t| t.ends_with(&format!(".{name}"))),
            "{name} is neither converted nor listed"
        );
    }
    let item = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "item.TbItem")
        .unwrap();
    assert_eq!(item["source"], "item/道具系统表.xlsx#通用道具表");
    assert_eq!(item["primary_key"], serde_json::json!(["id"]));
    let union = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "test.TbMultiUnionIndexList")
        .unwrap();
    assert_eq!(
        union["primary_key"],
        serde_json::json!(["id1", "id2", "id3"])
    );
    // Luban's singletons (`mode="one"`, vertical `##column` sheets among them) and its
    // list without an index are tables of those kinds, without a key.
    let kind_of = |luban: &str| {
        let table = json["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["luban"] == luban)
            .unwrap_or_else(|| panic!("{luban} was not converted"));
        assert_eq!(table["primary_key"], serde_json::json!([]), "{luban}");
        table["kind"].as_str().unwrap().to_string()
    };
    for singleton in [
        "common.TbGlobalConfig",
        "test.TbSingleton",
        "test.TbTestGlobal",
    ] {
        assert_eq!(kind_of(singleton), "singleton");
    }
    assert_eq!(kind_of("test.TbNotIndexList"), "list");
    let config = std::fs::read_to_string(out.join("masterctl.toml")).unwrap();
    assert!(config.contains("languages = [\"zh\", \"en\"]"), "{config}");
    assert!(
        config.contains("[regions.cn]\nbranch = \"masters/cn\""),
        "{config}"
    );
    // A schema reads the planners' spellings: aliases, numbers, null, separators, ranges.
    let item = std::fs::read_to_string(out.join("schemas/item.toml")).unwrap();
    assert!(item.contains("{ value = \"CURRENCY\", aliases = [\"货币\"], number = 1 }"));
    let range = std::fs::read_to_string(out.join("schemas/test_range.toml")).unwrap();
    assert!(range.contains("min = 2\nmax = 10"), "{range}");
    let full = std::fs::read_to_string(out.join("schemas/full_types.toml")).unwrap();
    assert!(
        full.contains(
            "column = \"k1#sep=;\"\ntype = \"list<int>\"\noptional = true\nseparator = \";\""
        ),
        "{full}"
    );
    // Luban's maps, keys and values alternating between one separator (`1,2,3,4`).
    assert!(
        full.contains(
            "name = \"k8\"\ntype = \"map<int, int>\"\noptional = true\nseparator = \",\"\nkey_separator = \",\"\nreferences = \"full_types.x4\""
        ),
        "{full}"
    );
}

#[test]
fn what_migrate_refuses_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    // Not a Luban project: a usage error.
    let out = tmp.path().join("a");
    let run = migrate_luban(tmp.path(), &fixtures(), &out, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(text(&run).contains("no luban.conf"), "{}", text(&run));
    assert!(!out.exists());

    // A definitions file Luban could not read either: named, exit 1, nothing written.
    let project = tmp.path().join("project");
    std::fs::create_dir_all(project.join("Defines")).unwrap();
    std::fs::create_dir_all(project.join("Datas")).unwrap();
    std::fs::write(
        project.join("luban.conf"),
        r#"{"schemaFiles":[{"fileName":"Defines","type":""}],"dataDir":"Datas"}"#,
    )
    .unwrap();
    std::fs::write(
        project.join("Defines/item.xml"),
        "<module name=\"item\"><bean name=\"Item\"><var name=\"id\" type=\"int\"</bean></module>",
    )
    .unwrap();
    let run = migrate_luban(tmp.path(), &project, &out, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run));
    assert!(text(&run).contains("item.xml"), "{}", text(&run));
    assert!(!out.exists());

    // A bad region name, and a folder that is a master repository already.
    let run = migrate_luban(tmp.path(), &luban(), &out, &["--region", "Main/../x"]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    for languages in ["zh,../x", "zh,zh", ""] {
        let run = migrate_luban(tmp.path(), &luban(), &out, &["--languages", languages]);
        assert_eq!(run.status.code(), Some(2), "{languages}: {}", text(&run));
        assert!(!out.exists());
    }
    let existing = repository(tmp.path(), "existing");
    std::fs::write(
        existing.join("masterctl.toml"),
        "source_language = \"ja\"\n",
    )
    .unwrap();
    let run = migrate_luban(tmp.path(), &luban(), &existing, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert_eq!(
        std::fs::read_to_string(existing.join("masterctl.toml")).unwrap(),
        "source_language = \"ja\"\n"
    );
    assert!(!existing.join("schemas").exists());
}

/// Luban's examples copied into `tmp`, with `extra` written into its `Defines/` as
/// `file`: the project's folder.
fn luban_copy(tmp: &Path, extra: Option<(&str, &str)>) -> PathBuf {
    let project = tmp.join("DataTables");
    copy_dir(&luban(), &project);
    if let Some((file, xml)) = extra {
        std::fs::write(project.join("Defines").join(file), xml).unwrap();
    }
    project
}

/// The project migrated into `tmp/masters` (which must succeed): that folder, and the
/// schema written for `table`.
fn migrated_schema(tmp: &Path, project: &Path, table: &str) -> (PathBuf, String) {
    let (run, _) = migrate_json(tmp, project);
    assert!(run.status.success(), "{}", text(&run));
    let out = tmp.join("masters");
    let schema = std::fs::read_to_string(out.join(format!("schemas/{table}.toml"))).unwrap();
    (out, schema)
}

/// `masterctl migrate luban PROJECT --out OUT EXTRA…`, run in `cwd`.
fn migrate_luban(cwd: &Path, project: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (project, out) = (project.display().to_string(), out.display().to_string());
    let mut args = vec!["migrate", "luban", project.as_str(), "--out", out.as_str()];
    args.extend_from_slice(extra);
    masterctl(cwd, &args)
}

/// `migrate luban PROJECT --out masters --format json` in `tmp`: its output, and its JSON
/// when it succeeded.
fn migrate_json(tmp: &Path, project: &Path) -> (std::process::Output, serde_json::Value) {
    let out = repository(tmp, "masters");
    let run = migrate_luban(tmp, project, &out, &["--format", "json"]);
    let json = serde_json::from_slice(&run.stdout).unwrap_or(serde_json::Value::Null);
    (run, json)
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn text_keys_are_checked_against_the_l10n_table_when_it_is_given() {
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("DataTables");
    copy_dir(&luban(), &project);
    let texts = project.join("Datas/l10n/texts.csv");
    std::fs::write(
        &texts,
        // `key_name`: the text key of the singleton of test/table_one.xlsx.
        "key,zh,en\n/apple,苹果,apple\n/banana,香蕉,banana\nkey_name,名,name\n",
    )
    .unwrap();
    let out = repository(tmp.path(), "masters");
    let t = |p: &Path| p.display().to_string();
    let run = migrate_luban(tmp.path(), &project, &out, &["--l10n", &t(&texts)]);
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        stdout(&run).contains(
            "converted 33 of 53 tables (5 enums, 15 records, 2 unions)"
        ) && stdout(&run).contains(
            "Luban's l10n table -> l10n_text (l10n/texts.csv, 2 languages), the keys of text fields"
        ),
        "{}",
        text(&run)
    );
    let demo = std::fs::read_to_string(out.join("schemas/l10n_demo.toml")).unwrap();
    assert!(demo.contains("references = \"l10n_text.key\""), "{demo}");
    let datas = project.join("Datas");
    let validate = masterctl(&out, &["validate", &t(&datas)]);
    assert!(validate.status.success(), "{}", text(&validate));
    // A key the l10n table does not have is a foreign-key error at its cell.
    std::fs::write(&texts, "key,zh,en\n/banana,香蕉,banana\n").unwrap();
    let validate = masterctl(&out, &["validate", &t(&datas)]);
    assert_eq!(validate.status.code(), Some(1), "{}", text(&validate));
    assert!(
        text(&validate).contains("l10n_text") && text(&validate).contains("/apple"),
        "{}",
        text(&validate)
    );
    // An l10n table without a key column is a usage error, nothing written.
    std::fs::write(&texts, "id,zh\n1,苹果\n").unwrap();
    let other = tmp.path().join("other");
    let run = migrate_luban(tmp.path(), &project, &other, &["--l10n", &t(&texts)]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(
        text(&run).contains("`key` column; its first row holds: id, zh")
            && text(&run).contains("--l10n-key"),
        "{}",
        text(&run)
    );
    assert!(!other.exists());
    // Its key column named, given by a path relative to where masterctl runs: the schema
    // reads it from the data folder.
    std::fs::write(
        &texts,
        "ID,zh,en\n/apple,苹果,apple\n/banana,香蕉,banana\nkey_name,名,name\n",
    )
    .unwrap();
    let run = migrate_luban(
        &project.join("Datas/l10n"),
        &project,
        &other,
        &["--l10n", "texts.csv", "--l10n-key", "id"],
    );
    assert!(run.status.success(), "{}", text(&run));
    let schema = std::fs::read_to_string(other.join("schemas/l10n_text.toml")).unwrap();
    assert!(
        schema.contains("source = \"l10n/texts.csv\"") && schema.contains("column = \"ID\""),
        "{schema}"
    );
    let validate = masterctl(&other, &["validate", &t(&datas)]);
    assert!(validate.status.success(), "{}", text(&validate));
    // A file outside the data folder, where no import would read it: refused, named.
    let outside = tmp.path().join("texts.csv");
    std::fs::copy(&texts, &outside).unwrap();
    let elsewhere = tmp.path().join("elsewhere");
    let run = migrate_luban(
        tmp.path(),
        &project,
        &elsewhere,
        &["--l10n", &t(&outside), "--l10n-key", "ID"],
    );
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(
        text(&run).contains("outside the data folder"),
        "{}",
        text(&run)
    );
    assert!(!elsewhere.exists());
}

#[test]
fn inputs_outside_the_data_folder_are_listed_and_windows_paths_read() {
    let tmp = tempfile::tempdir().unwrap();
    let extra = r#"<module name="extra">
    <bean name="B"><var name="id" type="int"/><var name="count" type="int"/></bean>
    <table name="TbOut" value="B" input="../luban.conf"/>
    <table name="TbWin" value="B" input="be_ref1@test\test_ref.xlsx"/>
</module>"#;
    let project = luban_copy(tmp.path(), Some(("extra.xml", extra)));
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let reason = |table: &str| {
        json["not_converted"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["luban_table"] == table && n["field"].is_null())
            .map(|n| n["reason"].as_str().unwrap().to_string())
    };
    assert_eq!(
        reason("extra.TbOut").as_deref(),
        Some("its input `../luban.conf` is not a file inside the data folder")
    );
    // `test\test_ref.xlsx` is `test/test_ref.xlsx` (declared first, it takes the sheet
    // test.TbTestBeRef reads too).
    let win = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "extra.TbWin")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(win["source"], "test/test_ref.xlsx#be_ref1");
    assert!(
        reason("test.TbTestBeRef")
            .unwrap()
            .starts_with("reads the same sheet as `extra.TbWin`"),
        "{json:#}"
    );
}

#[test]
fn links_are_never_followed_out_of_the_project_or_into_a_loop() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    // Two links to the data folder itself (a loop once followed), a definitions link
    // and a schema file leading outside the project.
    std::os::unix::fs::symlink(".", project.join("Datas/a")).unwrap();
    std::os::unix::fs::symlink(".", project.join("Datas/b")).unwrap();
    let secret = tmp.path().join("secret.xml");
    std::fs::write(
        &secret,
        r#"<module name="secret"><bean name="S"><var name="id" type="int"/></bean><table name="TbSecretPassword" value="S" input="secret.xlsx"/></module>"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(&secret, project.join("Defines/linked.xml")).unwrap();
    let conf = std::fs::read_to_string(project.join("luban.conf")).unwrap();
    std::fs::write(
        project.join("luban.conf"),
        conf.replace(
            r#"{"fileName":"Defines", "type":""},"#,
            r#"{"fileName":"Defines", "type":""}, {"fileName":"../secret.xml", "type":""},"#,
        ),
    )
    .unwrap();
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let out = tmp.path().join("masters");
    let refused: Vec<(String, String)> = json["refused"]
        .as_array()
        .unwrap_or_else(|| panic!("{json:#}"))
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_string(),
                r["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for path in ["Datas/a", "Datas/b", "Defines/linked.xml"] {
        assert!(
            refused.iter().any(|(p, _)| p == path),
            "{path}: {refused:?}"
        );
    }
    assert!(
        refused.iter().any(|(_, why)| why.contains("schema file")),
        "{refused:?}"
    );
    let written: String = files_under(&out)
        .into_iter()
        .filter(|(p, _)| !p.components().any(|c| c.as_os_str() == ".git"))
        .map(|(_, b)| String::from_utf8_lossy(&b).into_owned())
        .collect();
    assert!(
        !written.contains("Secret"),
        "a file outside the project was read"
    );
    // A data folder outside the project is refused whole (exit 2, nothing written).
    std::fs::write(
        project.join("luban.conf"),
        conf.replace(r#""dataDir": "Datas""#, r#""dataDir": "..""#),
    )
    .unwrap();
    let elsewhere = repository(tmp.path(), "elsewhere");
    let (project, elsewhere) = (
        project.display().to_string(),
        elsewhere.display().to_string(),
    );
    let run = masterctl(
        tmp.path(),
        &["migrate", "luban", &project, "--out", &elsewhere],
    );
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(
        text(&run).contains("outside the project's folder"),
        "{}",
        text(&run)
    );
}

#[test]
fn an_odd_value_costs_its_field_never_the_migration() {
    // A float range written `.01` (not TOML's spelling) and a whole-number field whose
    // default is not whole: once the end of the whole migration.
    for (ty, converted, reason) in [
        ("float#range=[.01,.02]", true, None),
        (
            "int#default=1.5",
            false,
            Some("its default `1.5` is not a whole number"),
        ),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let odd = format!(
            r#"<module name="odd">
    <bean name="B"><var name="id" type="int"/><var name="count" type="{ty}"/></bean>
    <table name="TbOdd" value="B" input="be_ref1@test/test_ref.xlsx"/>
</module>"#
        );
        let project = luban_copy(tmp.path(), Some(("aaa.xml", &odd)));
        let (run, json) = migrate_json(tmp.path(), &project);
        assert!(run.status.success(), "{ty}: {}", text(&run));
        assert!(
            json["tables"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["luban"] == "odd.TbOdd"),
            "{ty}: {json:#}"
        );
        let listed = json["not_converted"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["luban_table"] == "odd.TbOdd" && n["field"] == "count")
            .map(|n| n["reason"].as_str().unwrap().to_string());
        assert_eq!(listed.is_none(), converted, "{ty}: {listed:?}");
        if let Some(reason) = reason {
            assert_eq!(listed.as_deref(), Some(reason));
        }
    }
}

/// A sheet that declares its own fields gives each its export groups in a `##group` row:
/// each becomes the field's audience.
#[test]
fn a_sheets_group_row_gives_its_fields_audiences() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let rows: [&[&str]; 4] = [
        &["##var", "id", "shown", "formula", "note"],
        &["##type", "int", "string", "int", "string"],
        &["##group", "", "c", "s", "e"],
        &["", "1", "Slime", "42", "fast"],
    ];
    auto_import(&project, "#Grouped.xlsx", &rows);
    let (run, _) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let schema = std::fs::read_to_string(tmp.path().join("masters/schemas/grouped.toml")).unwrap();
    for (field, audience) in [
        ("shown", "client"),
        ("formula", "server"),
        ("note", "design"),
    ] {
        let declared = format!("name = \"{field}\"\naudience = [\"{audience}\"]");
        assert!(schema.contains(&declared), "{schema}");
    }
    assert!(
        !schema.contains("name = \"id\"\naudience"),
        "a key is the table's"
    );
}

/// `Datas/<file>` of the Luban project: one sheet of these cells (`""`: empty), a table
/// Luban imports by its `#` name.
fn auto_import(project: &Path, file: &str, rows: &[&[&str]]) {
    let mut workbook = rust_xlsxwriter::Workbook::new();
    add_sheets(&mut workbook, &[("Sheet1", rows)]);
    workbook.save(project.join("Datas").join(file)).unwrap();
}

/// Sheets of these names and cells (`""`: empty) added to `workbook`.
fn add_sheets(workbook: &mut rust_xlsxwriter::Workbook, sheets: &[(&str, &[&[&str]])]) {
    for (name, rows) in sheets {
        let sheet = workbook.add_worksheet().set_name(*name).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                if !cell.is_empty() {
                    sheet.write_string(r as u32, c as u16, *cell).unwrap();
                }
            }
        }
    }
}

/// Luban's `*field`: a list going on in the rows below its record, converted as a
/// multi-row field; validate and import read the record whole.
/// The migrated repository `out` after importing the project's `Datas` into region
/// main: `table`'s canonical file there.
fn imported_table(out: &Path, project: &Path, table: &str) -> String {
    let datas = project.join("Datas").display().to_string();
    let import = masterctl(out, &["import", "--region", "main", &datas]);
    assert!(import.status.success(), "{}", text(&import));
    git(out, &["show", &format!("masters/main:tables/{table}.csv")])
}

#[test]
fn a_starred_list_is_a_multi_row_field() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let rows: [&[&str]; 6] = [
        &["##var", "id", "name", "*rewards"],
        &["##type", "int", "string", "list,int"],
        &["", "1", "Slimes", "5"],
        &["", "", "", "6"],
        &["", "", "", "7"],
        &["", "2", "Dragon", "9"],
    ];
    auto_import(&project, "#Quests.xlsx", &rows);
    let (out, schema) = migrated_schema(tmp.path(), &project, "quests");
    assert!(
        schema.contains("name = \"rewards\"\ncolumn = \"*rewards\"\ntype = \"list<int>\""),
        "{schema}"
    );
    assert!(schema.contains("multi_row = true"), "{schema}");
    assert_eq!(
        imported_table(&out, &project, "quests"),
        "id,name,rewards\n1,Slimes,5|6|7\n2,Dragon,9\n"
    );
}

/// Booleans as Luban's reader takes them (`y`, `Yes`, `N`, `no`, besides true, false, 1,
/// 0), in a bool and a list of bools: migrate says so (`bool_spellings = "luban"`), and
/// import reads them to canonical `true` and `false`; a text Luban refuses is refused.
#[test]
fn lubans_yes_and_no_booleans_import_as_true_and_false() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let rows: [&[&str]; 6] = [
        &["##var", "id", "passive", "flags"],
        &["##type", "int", "bool", "list,bool"],
        &["", "1", "y", "Y,n,1"],
        &["", "2", "No", "yes,FALSE"],
        &["", "3", "YES", ""],
        &["", "4", "n", "N"],
    ];
    auto_import(&project, "#Skills.xlsx", &rows);
    let (out, schema) = migrated_schema(tmp.path(), &project, "skills");
    assert!(
        schema.contains("type = \"bool\"\nbool_spellings = \"luban\"")
            && schema.contains("separator = \",\"\nbool_spellings = \"luban\""),
        "{schema}"
    );
    assert_eq!(
        imported_table(&out, &project, "skills"),
        "id,passive,flags\n1,true,true|false|true\n2,false,true|false\n3,true,\n4,false,false\n"
    );
    // What Luban refuses (`maybe`) is refused, every spelling named.
    auto_import(
        &project,
        "#Skills.xlsx",
        &[
            &["##var", "id", "passive", "flags"],
            &["##type", "int", "bool", "list,bool"],
            &["", "5", "maybe", ""],
        ],
    );
    let datas = project.join("Datas").display().to_string();
    let import = masterctl(&out, &["import", "--region", "main", &datas]);
    assert_eq!(import.status.code(), Some(1), "{}", text(&import));
    assert!(
        text(&import)
            .contains("expected TRUE or FALSE (or 1 and 0, y and n, yes and no), found `maybe`"),
        "{}",
        text(&import)
    );
}

/// Auto-import names as Luban's default pattern makes them: `#demo.item.xlsx` is the
/// table `item` of module `demo` (`demo.Tbitem`), `#Bonus-登录奖励.xlsx` is `TbBonus`
/// with a comment; `#道具.xlsx` (no name the pattern takes) and a spreadsheet's lock
/// file `~$#Lock.xlsx` are passed over, as Luban passes them.
#[test]
fn auto_import_names_follow_lubans_pattern() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let rows: [&[&str]; 3] = [&["##var", "id"], &["##type", "int"], &["", "1"]];
    for file in [
        "#demo.item.xlsx",
        "#Bonus-登录奖励.xlsx",
        "#道具.xlsx",
        "~$#Lock.xlsx",
    ] {
        auto_import(&project, file, &rows);
    }
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let luban: Vec<&str> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["luban"].as_str().unwrap())
        .collect();
    assert!(luban.contains(&"demo.Tbitem"), "{luban:?}");
    assert!(luban.contains(&"TbBonus"), "{luban:?}");
    assert!(
        !luban.iter().any(|t| t.contains("Lock") || *t == "Tb"),
        "{luban:?}"
    );
    let table_of = |name: &str| {
        json["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["luban"] == name)
            .map(|t| t["table"].as_str().unwrap().to_string())
            .unwrap()
    };
    // `item` unless the project has one already: then by its module.
    let item = table_of("demo.Tbitem");
    assert!(item == "item" || item == "demo_item", "{item}");
    assert_eq!(table_of("TbBonus"), "bonus");
    let out = tmp.path().join("masters");
    let bonus = std::fs::read_to_string(out.join("schemas/bonus.toml")).unwrap();
    assert!(bonus.contains("登录奖励"), "{bonus}");
    assert!(!out.join("schemas/tb.toml").exists());
}

/// Beans written whole in one cell become records (`kind = "record"` schemas): by
/// their own separator or the field type's, a list of them by its own (`;`) or, a bean
/// of none, one after another at the list's; a bean in a bean at its own separator;
/// each cell as the workbook has it; an optional one read as Luban reads it (`null`, its
/// type's name before its fields). A bean of several fields and no separator is listed,
/// with why.
#[test]
fn beans_written_in_one_cell_become_records() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = r#"<module name="shop">
    <bean name="Cost" sep=","><var name="item_id" type="int"/><var name="count" type="int"/></bean>
    <bean name="Clock" sep=":"><var name="hour" type="int"/><var name="minute" type="int"/></bean>
    <bean name="Hours" sep=";"><var name="open" type="Clock"/><var name="close" type="Clock"/></bean>
    <bean name="Vec2"><var name="x" type="float"/><var name="y" type="float"/></bean>
</module>"#;
    let project = luban_copy(tmp.path(), Some(("shop.xml", xml)));
    let rows: [&[&str]; 4] = [
        &[
            "##var", "id", "cost", "costs", "hours", "path", "pair", "maybe",
        ],
        &[
            "##type",
            "int",
            "shop.Cost",
            "(list#sep=;),shop.Cost",
            "shop.Hours",
            "list,shop.Vec2",
            "shop.Vec2",
            "shop.Cost?",
        ],
        &[
            "",
            "1",
            "1001,2",
            "1001,2;1002,3",
            "10:00;22:30",
            "1,2,3.5,4",
            "1,2",
            "Cost,1004,1",
        ],
        &["", "2", "1003,1", "", "09:05;18:00", "", "", "null"],
    ];
    auto_import(&project, "#Shop.xlsx", &rows);
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let out = tmp.path().join("masters");
    let cost = std::fs::read_to_string(out.join("schemas/cost.toml")).unwrap();
    assert!(
        cost.contains("kind = \"record\"") && cost.contains("separator = \",\""),
        "{cost}"
    );
    let hours = std::fs::read_to_string(out.join("schemas/hours.toml")).unwrap();
    assert!(hours.contains("type = \"clock\""), "{hours}");
    let not_converted: Vec<String> = json["not_converted"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["luban_table"] == "TbShop")
        .map(|n| format!("{}: {}", n["field"], n["reason"]))
        .collect();
    assert_eq!(not_converted.len(), 1, "{not_converted:#?}");
    assert!(
        not_converted[0].contains("pair")
            && not_converted[0].contains("without a separator (`sep`), and it has 2 fields"),
        "{not_converted:#?}"
    );
    // An optional bean: `null`, or its type's name before its fields, as Luban reads it.
    assert!(
        cost.contains("names = [\"{}\", \"Cost\", \"shop.Cost\"]"),
        "{cost}"
    );
    assert_eq!(
        imported_table(&out, &project, "shop"),
        "id,cost,costs,hours,path,maybe\n1,\"1001,2\",\"1001,2|1002,3\",10:0;22:30,\"1,2|3.5,4\",\"1004,1\"\n2,\"1003,1\",,9:5;18:0,,\n"
    );
}

/// A table whose input is a CSV file of Luban's layout (`##var`, `##type` rows, the
/// marker column) is converted as a workbook's sheet is, and its rows import.
#[test]
fn a_csv_input_of_lubans_layout_converts_and_imports() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    std::fs::write(
        project.join("Datas").join("#Drops.csv"),
        "##var,id,name,weight\n##type,int,string,int\n##,編號,名稱,權重\n,1,Slime,10\n,2,Golem,5\n",
    )
    .unwrap();
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let converted = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "TbDrops")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(converted["source"], "#Drops.csv");
    let out = tmp.path().join("masters");
    assert_eq!(
        imported_table(&out, &project, "drops"),
        "id,name,weight\n1,Slime,10\n2,Golem,5\n"
    );
}

/// `__tables__` written as a CSV file, declaring a table whose input is a CSV file:
/// both read (the project was refused whole before), the table converted and imported.
#[test]
fn a_csv_tables_list_is_read_as_its_workbook_is() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let conf = std::fs::read_to_string(project.join("luban.conf")).unwrap();
    std::fs::write(
        project.join("luban.conf"),
        conf.replace("Datas/__tables__.xlsx", "Datas/__tables__.csv"),
    )
    .unwrap();
    std::fs::write(
        project.join("Datas").join("__tables__.csv"),
        "##var,full_name,value_type,read_schema_from_file,input,index,mode,comment\n\
         ##type,string,string,bool,string,string,string,string\n\
         ,test.TbLoot,Loot,true,loot.csv,,,drops\n",
    )
    .unwrap();
    std::fs::write(
        project.join("Datas").join("loot.csv"),
        "##var,id,weight\n##type,int,int\n,1,10\n,2,5\n",
    )
    .unwrap();
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let loot = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "test.TbLoot")
        .unwrap_or_else(|| panic!("{json:#}"));
    let table = loot["table"].as_str().unwrap().to_string();
    let out = tmp.path().join("masters");
    assert_eq!(
        imported_table(&out, &project, &table),
        "id,weight\n1,10\n2,5\n"
    );
}

/// `luban.conf` as Luban reads it: comments and trailing commas; a broken one is named
/// with its line, nothing written.
#[test]
fn luban_conf_takes_comments_and_trailing_commas() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let conf = std::fs::read_to_string(project.join("luban.conf")).unwrap();
    let loose = conf
        .replacen('{', "{\n  // written by hand\n  /* a block comment */", 1)
        .replace("}\n    ]", "},\n    ]")
        .replace("\"\n}", "\",\n}");
    assert_ne!(loose, conf);
    std::fs::write(project.join("luban.conf"), &loose).unwrap();
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(json["tables"].as_array().unwrap().len(), 33);

    std::fs::write(
        project.join("luban.conf"),
        "{\n  \"dataDir\": \"Datas\",\n  \"schemaFiles\": [ {\"fileName\": }\n}",
    )
    .unwrap();
    let out = tmp.path().join("broken");
    let run = migrate_luban(tmp.path(), &project, &out, &[]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run));
    assert!(
        text(&run).contains("luban.conf") && text(&run).contains("line 3"),
        "{}",
        text(&run)
    );
    assert!(!out.exists());
}

/// Inputs named in another letter case than the file (a project made on Windows): the
/// one file found, with a note; several, or none, listed with why.
#[test]
fn inputs_are_found_whatever_their_letter_case() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let test = project.join("Datas/test");
    std::fs::rename(test.join("global.xlsx"), test.join("Global.xlsx")).unwrap();
    std::fs::rename(test.join("list.xlsx"), test.join("List.xlsx")).unwrap();
    std::fs::copy(test.join("List.xlsx"), test.join("LIST.xlsx")).unwrap();
    std::fs::rename(test.join("test_range.xlsx"), test.join("test_ranges.xlsx")).unwrap();
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let table = |luban: &str| {
        json["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["luban"] == luban)
            .cloned()
    };
    let said = |list: &str, luban: &str| -> String {
        json[list]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["luban_table"] == luban && n["field"].is_null())
            .map(|n| n["reason"].as_str().unwrap().to_string())
            .collect()
    };
    let global = table("test.TbTestGlobal").expect("converted");
    assert_eq!(global["source"], "test/Global.xlsx#TbGlobalConfig");
    assert!(
        said("notes", "test.TbTestGlobal").contains("is `test/Global.xlsx` in the data folder"),
        "{json:#}"
    );
    assert!(table("test.TbNotIndexList").is_none());
    assert!(
        said("not_converted", "test.TbNotIndexList").contains(
            "several differ from it only in letter case (test/LIST.xlsx, test/List.xlsx)"
        ) || said("not_converted", "test.TbNotIndexList").contains(
            "several differ from it only in letter case (test/List.xlsx, test/LIST.xlsx)"
        ),
        "{json:#}"
    );
    assert!(
        said("not_converted", "test.TbTestRange").contains("did you mean `test/test_ranges.xlsx`?"),
        "{json:#}"
    );
    // Read through the schema, the renamed workbook's values arrive.
    let out = tmp.path().join("masters");
    let validate = masterctl(
        &out,
        &["validate", &project.join("Datas").display().to_string()],
    );
    assert!(validate.status.success(), "{}", text(&validate));
}

/// A bean of `__beans__.xlsx`: each field's comment (its `*fields` sub-column) is that
/// field's description, not the bean's comment on the first field.
#[test]
fn bean_field_comments_land_on_their_fields() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = r#"<module name="test"><table name="TbExcelBeans" value="TestExcelBean1" input="test/excel_beans.xlsx"/></module>"#;
    let project = luban_copy(tmp.path(), Some(("excel_beans.xml", xml)));
    let rows: [&[&str]; 3] = [
        &["##var", "x1", "x2", "x3", "x4"],
        &["##type", "int", "string", "int", "float"],
        &["", "1", "a", "2", "0.5"],
    ];
    auto_import(&project, "test/excel_beans.xlsx", &rows);
    let (run, _) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let schema =
        std::fs::read_to_string(tmp.path().join("masters/schemas/excel_beans.toml")).unwrap();
    // As openpyxl reads __beans__.xlsx: x1..x4 commented 最高品质, 黑色的, 蓝色的, 最差品质;
    // the bean itself 这是个测试excel结构.
    for (field, comment) in [
        ("x1", "最高品质"),
        ("x2", "黑色的"),
        ("x3", "蓝色的"),
        ("x4", "最差品质"),
    ] {
        let declared = format!("name = \"{field}\"");
        let at = schema.find(&declared).unwrap_or_else(|| panic!("{schema}"));
        let next = schema[at..]
            .find("[[fields]]")
            .map_or(schema.len(), |n| at + n);
        assert!(
            schema[at..next].contains(&format!("description = \"{comment}\"")),
            "{field}: {schema}"
        );
    }
    assert!(
        !schema.contains("description = \"这是个测试excel结构\"\n\n"),
        "{schema}"
    );
}

/// `--table-names full` keeps the studio's whole name (`item.TbItem` → `item_tb_item`),
/// and each schema records the Luban name.
#[test]
fn tables_may_keep_the_studios_whole_name() {
    let tmp = tempfile::tempdir().unwrap();
    let out = repository(tmp.path(), "masters");
    let run = migrate_luban(tmp.path(), &luban(), &out, &["--table-names", "full"]);
    assert!(run.status.success(), "{}", text(&run));
    assert!(
        text(&run).contains("item.TbItem -> item_tb_item ("),
        "{}",
        text(&run)
    );
    let schema = std::fs::read_to_string(out.join("schemas/item_tb_item.toml")).unwrap();
    assert!(
        schema.starts_with("# Converted from Luban table item.TbItem"),
        "{schema}"
    );
    let validate = masterctl(
        &out,
        &["validate", &luban().join("Datas").display().to_string()],
    );
    assert!(validate.status.success(), "{}", text(&validate));
}

/// Real Luban projects — Luban's own examples and games' (`fixtures/third-party`; one
/// keyed table written down a column, `##column#var`, a record per values column):
/// migrated, validated and imported, every cell of every converted table is the
/// workbook's as an independent reader (openpyxl, `cli/tests/luban/cells.py`) reads it.
#[test]
fn every_cell_of_real_luban_projects_is_the_workbooks() {
    let projects = [
        (luban(), 33, 1000),
        (third_party().join("luban-projects/sunhe-slg"), 16, 1000),
        (
            third_party().join("luban-projects/xiaojia-config"),
            21,
            1000,
        ),
        (third_party().join("luban-projects/xdooria-config"), 13, 500),
        (
            third_party().join("luban-projects/liuocean-example"),
            11,
            60,
        ),
        (
            third_party().join("luban-projects/easygameframework"),
            6,
            200,
        ),
    ];
    for (project, tables, cells) in projects {
        let tmp = tempfile::tempdir().unwrap();
        let out = repository(tmp.path(), "masters");
        let o = |p: &Path| p.display().to_string();
        let run = migrate_luban(tmp.path(), &project, &out, &["--format", "json"]);
        assert!(run.status.success(), "{}", text(&run));
        let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(
            json["tables"].as_array().unwrap().len(),
            tables,
            "{}",
            o(&project)
        );
        let datas = ["Datas", "datas", "Data/Excels"]
            .map(|d| project.join(d))
            .into_iter()
            .find(|d| d.is_dir())
            .unwrap();
        let validate = masterctl(&out, &["validate", &o(&datas)]);
        assert!(validate.status.success(), "{}", text(&validate));
        let import = masterctl(&out, &["import", "--region", "main", &o(&datas)]);
        assert!(import.status.success(), "{}", text(&import));
        // The planner's loop: exported as the workbooks import read (or as CSV files
        // import maps to their sheets), imported back as nothing changed.
        for format in ["xlsx", "csv"] {
            let exported = tmp.path().join(format);
            let args = ["export", "--region", "main", "--format", format];
            let export = masterctl(&out, &[&args[..], &["--out", &o(&exported)]].concat());
            assert!(
                export.status.success(),
                "{}: {}",
                o(&project),
                text(&export)
            );
            let again = masterctl(&out, &["import", "--region", "main", &o(&exported)]);
            assert!(
                again.status.success() && stdout(&again).contains("nothing changed"),
                "{} ({format}): {}",
                o(&project),
                text(&again)
            );
        }
        if !python_module("openpyxl", "pip install openpyxl==3.1.5") {
            continue;
        }
        let checked = std::process::Command::new("python3")
            .arg(root().join("cli/tests/luban/cells.py"))
            .args([&out, &datas])
            .output()
            .unwrap();
        assert!(
            checked.status.success(),
            "{}: {}",
            o(&project),
            text(&checked)
        );
        let compared: usize = stdout(&checked).trim().parse().unwrap();
        assert!(compared > cells, "{compared} cells of {}", o(&project));
    }
}

/// Whether python3 has `module` (under CI it must: .ci/run installs it).
fn python_module(module: &str, install: &str) -> bool {
    let found = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        assert!(
            std::env::var("CI").is_err(),
            "python3's {module} is not installed: .ci/run installs it ({install})"
        );
        eprintln!("note: python3's {module} is not installed; the part that needs it is skipped");
    }
    found
}

/// A layout of a game's project (JamTeng-Games/Jam101's dice table, reproduced: its
/// licence lets us read it, not ship it): a list of beans spread over columns, one bean
/// per row below its record (`*item_list` over `item_id`, `weight`). It becomes aligned
/// multi-row lists, one per bean field, every cell as the workbook has it.
#[test]
fn a_list_of_beans_over_several_rows_becomes_aligned_lists() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = r#"<module name="jam">
    <bean name="DiceCell"><var name="item_id" type="int"/><var name="weight" type="int"/></bean>
</module>"#;
    let project = luban_copy(tmp.path(), Some(("jam.xml", xml)));
    let rows: [&[&str]; 9] = [
        &["##var", "id", "desc", "*item_list", ""],
        &["##var", "", "", "item_id", "weight"],
        &["##type", "int", "string", "list,jam.DiceCell", ""],
        &["##", "掉落库id", "描述", "道具id", "权重"],
        &["", "1", "1号掉落库", "10001", "1"],
        &["", "", "", "10002", "3"],
        &["", "2", "2号掉落库", "10003", "1"],
        &["", "", "", "10004", "2"],
        &["", "", "", "10005", "5"],
    ];
    auto_import(&project, "#Dice.xlsx", &rows);
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let dice = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["luban"] == "TbDice")
        .unwrap_or_else(|| panic!("{json:#}"));
    assert_eq!(dice["fields"], 4);
    assert_eq!(
        imported_table(&tmp.path().join("masters"), &project, "dice"),
        "id,desc,item_list_item_id,item_list_weight\n1,1号掉落库,10001|10002,1|3\n2,2号掉落库,10003|10004|10005,1|2|5\n"
    );
}

/// Luban's list of beans over the columns its header spans, on one row, the bean of no
/// separator of its own (`list,Pair` over four columns: `1`, `2`, `3`, `4`): the cells
/// are one run of parts, a bean after another, as Luban reads them — never a bean a cell.
#[test]
fn a_list_of_beans_over_columns_takes_their_parts_in_turn() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = r#"<module name="p">
    <bean name="Pair"><var name="a" type="int"/><var name="b" type="int"/></bean>
</module>"#;
    let project = luban_copy(tmp.path(), Some(("pairs.xml", xml)));
    let rows: [&[&str]; 4] = [
        &["##var", "id", "pairs", "", "", ""],
        &["##type", "int", "list,p.Pair", "", "", ""],
        &["", "1", "1", "2", "3", "4"],
        &["", "2", "5", "6", "", ""],
    ];
    auto_import(&project, "#Pairs.xlsx", &rows);
    let (run, _) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(
        imported_table(&tmp.path().join("masters"), &project, "pairs"),
        "id,pairs\n1,\"1,2|3,4\"\n2,\"5,6\"\n"
    );
}

/// Luban's own JSON output of its examples (`GenerateDatas/json`, committed beside them)
/// against masterctl's client JSON of the migration, record by record (by key), value
/// by value (`cli/tests/luban/luban_json.py`): equal, datetimes read in the zone Luban
/// exported in (`--timezone`), escapes read as Luban reads them (`#escape=1` →
/// `escapes = true`), but for what the migration says it reads otherwise: a `""` beside
/// a default; and three date-times saved as serials of ten decimals (00:04:59.995004
/// under `yyyy-mm-dd hh:mm:ss`), which Excel shows and masterctl reads as 00:05:00 and
/// Luban's JSON cuts to 00:04:59.
#[test]
fn lubans_own_json_output_is_masterctls_client_json() {
    let tmp = tempfile::tempdir().unwrap();
    let out = repository(tmp.path(), "masters");
    let o = |p: &Path| p.display().to_string();
    let run = migrate_luban(
        tmp.path(),
        &luban(),
        &out,
        &["--timezone", "Asia/Shanghai", "--format", "json"],
    );
    assert!(run.status.success(), "{}", text(&run));
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let notes: Vec<String> = json["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            format!(
                "{}.{}: {}",
                n["luban_table"].as_str().unwrap(),
                n["field"].as_str().unwrap_or(""),
                n["reason"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("TbAutoImport1.x10: a cell written `\"\"` is no value")),
        "{notes:#?}"
    );
    assert!(!notes.iter().any(|n| n.contains("escape")), "{notes:#?}");
    let datas = luban().join("Datas");
    ok(masterctl(&out, &["import", "--region", "main", &o(&datas)]));
    let build = tmp.path().join("build");
    ok(masterctl(
        &out,
        &["build", "--region", "main", "--client", "--out", &o(&build)],
    ));
    let checked = std::process::Command::new("python3")
        .arg(root().join("cli/tests/luban/luban_json.py"))
        .args([&out, &build, &luban().join("../GenerateDatas/json")])
        .output()
        .unwrap();
    let compared = stdout(&checked);
    let (tables, values) = compared.trim().split_once(' ').unwrap();
    assert_eq!(tables, "29", "{}", text(&checked));
    assert!(
        values.parse::<usize>().unwrap() > 1000,
        "{}",
        text(&checked)
    );
    let differences: Vec<String> = String::from_utf8_lossy(&checked.stderr)
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(
        differences,
        [
            "auto_import1[('10006',)].x10: masterctl 'xxx', Luban ''",
            "auto_import2[('10006',)].x10: masterctl 'xxx', Luban ''",
            "define_from_excel2[('10006',)].x10: masterctl 'xxx', Luban ''",
            "demo_primitive[('4',)].t1: masterctl 946829100, Luban 946829099",
            "demo_primitive[('5',)].t1: masterctl 946915500, Luban 946915499",
            "demo_primitive[('6',)].t1: masterctl 947001900, Luban 947001899",
        ],
        "{}",
        text(&checked)
    );
}

/// Layouts of a game's project (Maiji-Bro/fzgame_config, reproduced: it carries no
/// licence to ship it): auto-import workbooks whose data sheet labels each row in Luban's
/// marker column (`大本营`), beside notes sheets (`说明`, `字段说明`) and free-form sheets
/// and Excel's lock file; a table declared with no record yet. Every table converts; the
/// notes are said once.
#[test]
fn a_games_auto_import_workbooks_with_notes_sheets_convert() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let mut workbook = rust_xlsxwriter::Workbook::new();
    let sheets: [(&str, &[&[&str]]); 3] = [
        (
            "facility",
            &[
                &["##var", "FacilityID", "Type", "NameTID", "IsOccupy"],
                &["##type", "string", "int", "string", "bool"],
                &["大本营", "1", "1", "FacilityName_Town", "TRUE"],
                &["金矿", "1002", "2", "FacilityName_GoldMine", "FALSE"],
            ],
        ),
        (
            "说明",
            &[&[
                "",
                "设施唯一ID",
                "FacilityID",
                "string",
                " //设施的全局唯一标识",
            ]],
        ),
        (
            "Sheet1",
            &[&["", "英雄等级上限", "", "不同品质的英雄有等级上限限制"]],
        ),
    ];
    add_sheets(&mut workbook, &sheets);
    workbook.save(project.join("Datas/#Facility.xlsx")).unwrap();
    // Excel's lock file beside it, as a planner's open workbook leaves (committed in the
    // project): a name and padding, no workbook.
    let mut lock = vec![5u8];
    lock.extend(b"Maiji");
    lock.resize(165, b' ');
    std::fs::write(project.join("Datas/~$#Facility.xlsx"), lock).unwrap();
    // A table with no record yet: its header rows alone.
    let empty: [&[&str]; 2] = [
        &["##var", "HeroID", "NameTID"],
        &["##type", "int", "string"],
    ];
    auto_import(&project, "#Hero.xlsx", &empty);
    let (run, json) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    let converted: Vec<&str> = json["tables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["luban"].as_str().unwrap())
        .collect();
    assert!(
        converted.contains(&"TbFacility") && converted.contains(&"TbHero"),
        "{converted:?}"
    );
    let out = tmp.path().join("masters");
    let datas = project.join("Datas").display().to_string();
    let validate = masterctl(&out, &["validate", &datas]);
    assert!(validate.status.success(), "{}", text(&validate));
    assert!(
        stdout(&validate).contains("#Facility.xlsx#Sheet1")
            && stdout(&validate).contains("#Facility.xlsx#说明"),
        "{}",
        stdout(&validate)
    );
    assert_eq!(
        imported_table(&out, &project, "facility"),
        "facility_id,type,name_tid,is_occupy\n1,1,FacilityName_Town,true\n1002,2,FacilityName_GoldMine,false\n"
    );
}

/// A Luban table whose input names two sheets of one workbook (`Items@shop.xlsx,
/// Gems@shop.xlsx`) reads those two, not a third beside them: `source` lists them.
#[test]
fn an_input_of_several_sheets_of_one_workbook_is_a_table_over_them() {
    const SHOP: &str = r#"<module name="shop">
    <bean name="Goods"><var name="id" type="int"/><var name="price" type="int"/></bean>
    <table name="TbGoods" value="Goods" input="Items@shop/shop.xlsx,Gems@shop/shop.xlsx"/>
</module>"#;
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), Some(("shop.xml", SHOP)));
    let header: [&[&str]; 2] = [&["##var", "id", "price"], &["##type", "int", "int"]];
    let items = [header[0], header[1], &["", "1", "50"]];
    let gems = [header[0], header[1], &["", "2", "400"]];
    let old = [header[0], header[1], &["", "9", "1"]];
    let mut workbook = rust_xlsxwriter::Workbook::new();
    add_sheets(
        &mut workbook,
        &[("Items", &items), ("Old", &old), ("Gems", &gems)],
    );
    std::fs::create_dir_all(project.join("Datas/shop")).unwrap();
    workbook.save(project.join("Datas/shop/shop.xlsx")).unwrap();
    let (out, schema) = migrated_schema(tmp.path(), &project, "goods");
    assert!(
        schema.contains("source = [\"shop/shop.xlsx#Items\", \"shop/shop.xlsx#Gems\"]"),
        "{schema}"
    );
    assert_eq!(
        imported_table(&out, &project, "goods"),
        "id,price,sheet\n1,50,Items\n2,400,Gems\n"
    );
}

/// A workbook whose data sheets are one Luban table (a sheet per shop, Luban's `input`
/// of the workbook): one table over every sheet (`#Shop.xlsx#*`), each row's sheet in a
/// design-only `sheet` field; a notes sheet beside them is listed, not read; export
/// writes each row back to its sheet, and importing that changes nothing.
#[test]
fn a_workbook_whose_sheets_are_one_table_converts_and_exports_back() {
    let tmp = tempfile::tempdir().unwrap();
    let project = luban_copy(tmp.path(), None);
    let header: [&[&str]; 2] = [&["##var", "id", "price"], &["##type", "int", "int"]];
    let items = [header[0], header[1], &["", "1", "50"], &["", "3", "70"]];
    let gems = [header[0], header[1], &["", "2", "400"]];
    let notes: [&[&str]; 1] = [&["", "价格", "price"]];
    let mut workbook = rust_xlsxwriter::Workbook::new();
    add_sheets(
        &mut workbook,
        &[("Items", &items), ("说明", &notes), ("Gems", &gems)],
    );
    workbook.save(project.join("Datas/#Shop.xlsx")).unwrap();
    let (out, schema) = migrated_schema(tmp.path(), &project, "shop");
    assert!(schema.contains("source = \"#Shop.xlsx#*\""), "{schema}");
    assert!(
        schema.contains(
            "name = \"sheet\"\naudience = [\"design\"]\nsource_sheet = true\ntype = \"string\""
        ),
        "{schema}"
    );
    assert_eq!(
        imported_table(&out, &project, "shop"),
        "id,price,sheet\n1,50,Items\n2,400,Gems\n3,70,Items\n"
    );
    let exported = tmp.path().join("exported");
    let args = [
        "export",
        "--region",
        "main",
        "--out",
        exported.to_str().unwrap(),
    ];
    let export = masterctl(&out, &args);
    assert!(export.status.success(), "{}", text(&export));
    let again = masterctl(
        &out,
        &["import", "--region", "main", exported.to_str().unwrap()],
    );
    assert!(again.status.success(), "{}", text(&again));
    assert!(
        stdout(&again).contains("nothing changed"),
        "{}",
        text(&again)
    );
}

/// A bean holding a polymorphic bean, in one cell of its separator: Luban reads the
/// parts in turn — the bean's, then the case's name and that case's (`1,Circle,2`,
/// `2,Rect,3,4`). It converts to a record whose field is a union of the record's
/// separator, and imports as the cells write it.
#[test]
fn a_bean_holding_a_polymorphic_bean_reads_its_case_among_its_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let xml = r#"<module name="p">
    <bean name="Shape">
        <bean name="Circle"><var name="radius" type="float"/></bean>
        <bean name="Rect"><var name="w" type="int"/><var name="h" type="int"/></bean>
    </bean>
    <bean name="Placed" sep=","><var name="x" type="int"/><var name="shape" type="Shape"/></bean>
</module>"#;
    let project = luban_copy(tmp.path(), Some(("placed.xml", xml)));
    let rows: [&[&str]; 4] = [
        &["##var", "id", "placed"],
        &["##type", "int", "p.Placed"],
        &["", "1", "1,Circle,2"],
        &["", "2", "2,Rect,3,4"],
    ];
    auto_import(&project, "#Placings.xlsx", &rows);
    let (run, _) = migrate_json(tmp.path(), &project);
    assert!(run.status.success(), "{}", text(&run));
    assert_eq!(
        imported_table(&tmp.path().join("masters"), &project, "placings"),
        // `circle_2`: the examples the project is copied from have a `circle` of their own.
        "id,placed\n1,\"1,circle_2,2\"\n2,\"2,rect,3,4\"\n"
    );
}
