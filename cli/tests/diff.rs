//! `masterctl diff`: every kind of change between imports of a small game, with the
//! exact JSON each one gives, and the terminal rendering of the same.

use std::path::Path;

use crate::common::*;
use serde_json::{Value, json};

const CONFIG: &str = r#"source_language = "ja"
languages = ["ja", "en"]

[regions.jp]
branch = "masters/jp"
"#;

const ITEM: &str = r#"name = "item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "name"
type = "text"

[[fields]]
name = "price"
type = "int"
max = 1000

[[fields]]
name = "rate"
type = "float"
"#;

const SHOP: &str = r#"name = "shop"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "item_id"
type = "int"
references = "item.id"
"#;

const SOURCES: &str = r#"name = "item_sources"

[reverse]
target = "item"
sources = [{ table = "shop", field = "item_id" }]
"#;

/// A repository with the structure written and a first import.
struct Game {
    dir: tempfile::TempDir,
}

impl Game {
    fn new() -> Game {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        git(root, &["init", "-q", "-b", "main"]);
        git(root, &["config", "user.name", "Test Planner"]);
        git(root, &["config", "user.email", "planner@example.com"]);
        std::fs::write(root.join("masterctl.toml"), CONFIG).unwrap();
        std::fs::create_dir(root.join("schemas")).unwrap();
        let game = Game { dir };
        game.schema("item", ITEM);
        game.schema("shop", SHOP);
        game.schema("item_sources", SOURCES);
        game.import(&[
            (
                "item",
                "id,name,price,rate\n1,鉄の剣,20,0.1\n2,鋼の剣,50,0.2\n3,銅の剣,10,0.05\n",
            ),
            ("shop", "id,item_id\n1,1\n2,2\n"),
        ]);
        game
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn schema(&self, name: &str, text: &str) {
        std::fs::write(
            self.root().join("schemas").join(format!("{name}.toml")),
            text,
        )
        .unwrap();
    }

    /// Import these CSV exports (file stem = table).
    fn import(&self, exports: &[(&str, &str)]) {
        let dir = self.root().join("exports");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        for (table, csv) in exports {
            std::fs::write(dir.join(format!("{table}.csv")), csv).unwrap();
        }
        // An import copies the committed structure: the schemas a step wrote are committed.
        commit_structure(self.root());
        // Some steps remove a table on purpose.
        let out = masterctl(
            self.root(),
            &["import", "--region", "jp", "--allow-removal", "exports"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }

    /// Set English translations (table, key, field, text) through the exchange CSV.
    fn translate(&self, texts: &[(&str, &str, &str, &str)]) {
        let file = self.root().join("en.csv");
        let out = masterctl(
            self.root(),
            &[
                "l10n", "export", "--region", "jp", "--lang", "en", "--all", "--out", "en.csv",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        let exported = std::fs::read(&file).unwrap();
        let mut reader = csv::Reader::from_reader(&exported[3..]);
        let header = reader.headers().unwrap().clone();
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        let mut writer = csv::Writer::from_writer(Vec::new());
        writer.write_record(&header).unwrap();
        for record in reader.records() {
            let mut cells: Vec<String> = record.unwrap().iter().map(str::to_string).collect();
            for (table, key, field, english) in texts {
                if cells[at("table")] == *table
                    && cells[at("key")] == *key
                    && cells[at("field")] == *field
                {
                    cells[at("translation_en")] = english.to_string();
                }
            }
            writer.write_record(&cells).unwrap();
        }
        std::fs::write(&file, writer.into_inner().unwrap()).unwrap();
        let out = masterctl(self.root(), &["l10n", "import", "--region", "jp", "en.csv"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    }

    /// The terminal rendering, commit ids written as `<id>`.
    fn shown(&self, args: &[&str]) -> String {
        let ids = regex::Regex::new(r"\([0-9a-f]{12}\)").unwrap();
        ids.replace_all(&stdout(&self.diff(args)), "(<id>)")
            .into_owned()
    }

    fn diff(&self, args: &[&str]) -> std::process::Output {
        let mut all = vec!["diff"];
        all.extend(args);
        masterctl(self.root(), &all)
    }

    fn diff_json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.extend(["--format", "json"]);
        let out = self.diff(&all);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        json(&out)
    }
}

/// The changes of a diff, without the fields every one of them has.
fn changes(diff: &Value) -> Vec<Value> {
    diff["changes"].as_array().unwrap().clone()
}

#[test]
fn every_kind_of_change_is_told_exactly() {
    let game = Game::new();
    game.translate(&[
        ("item", "1", "name", "Iron Sword"),
        ("item", "2", "name", "Steel Sword"),
    ]);

    // A translation changes, and only that.
    game.translate(&[("item", "1", "name", "Iron Blade")]);
    let diff = game.diff_json(&["--region", "jp"]);
    assert_eq!(
        changes(&diff),
        vec![json!({
            "table": "item", "kind": "text_changed", "key": ["1"], "row": "鉄の剣",
            "column": "name", "language": "en", "old": "Iron Sword", "new": "Iron Blade"
        })]
    );

    // Cells, rows, a source text, a generated master; flagged beyond 50%.
    game.import(&[
        (
            "item",
            "id,name,price,rate\n1,鉄の大剣,25,0.1\n2,鋼の剣,50,2.0\n4,金の剣,500,0.01\n",
        ),
        ("shop", "id,item_id\n1,1\n2,4\n"),
    ]);
    let diff = game.diff_json(&["--region", "jp", "--flag", "rate=50%"]);
    assert_eq!(
        changes(&diff),
        vec![
            // Rows in key order, a row's texts after its cells.
            json!({"table": "item", "kind": "cell_changed", "key": ["1"], "row": "鉄の大剣",
                   "column": "price", "old": "20", "new": "25", "delta": 5.0, "percent": 25.0}),
            json!({"table": "item", "kind": "text_changed", "key": ["1"], "row": "鉄の大剣",
                   "column": "name", "language": "ja", "old": "鉄の剣", "new": "鉄の大剣"}),
            json!({"table": "item", "kind": "cell_changed", "key": ["2"], "row": "鋼の剣",
                   "column": "rate", "old": "0.2", "new": "2", "delta": 1.8, "percent": 900.0,
                   "flagged": true}),
            json!({"table": "item", "kind": "row_removed", "key": ["3"], "row": "銅の剣",
                   "column": null, "old": {"id": "3", "price": "10", "rate": "0.05"}, "new": null}),
            json!({"table": "item", "kind": "row_added", "key": ["4"], "row": "金の剣",
                   "column": null, "old": null, "new": {"id": "4", "price": "500", "rate": "0.01"}}),
            json!({"table": "shop", "kind": "cell_changed", "key": ["2"], "column": "item_id",
                   "old": "2", "new": "4", "delta": 2.0, "percent": 100.0}),
            json!({"table": "item_sources", "generated": true, "kind": "row_removed", "key": ["2", "shop", "2"],
                   "column": null, "old": {"item_id": "2", "source_key": "2", "source_table": "shop"}, "new": null}),
            json!({"table": "item_sources", "generated": true, "kind": "row_added", "key": ["4", "shop", "2"],
                   "column": null, "old": null, "new": {"item_id": "4", "source_key": "2", "source_table": "shop"}}),
        ]
    );
    assert_eq!(
        diff["tables"],
        json!([
            {"table": "item", "status": "changed", "schema_changes": 0, "rows_added": 1,
             "rows_removed": 1, "cells_changed": 2, "texts_changed": 1, "flagged": 1},
            {"table": "shop", "status": "changed", "schema_changes": 0, "rows_added": 0,
             "rows_removed": 0, "cells_changed": 1, "texts_changed": 0, "flagged": 0},
            {"table": "item_sources", "generated": true, "status": "changed", "schema_changes": 0,
             "rows_added": 1, "rows_removed": 1, "cells_changed": 0, "texts_changed": 0, "flagged": 0},
        ])
    );
    let shown = game.shown(&["--region", "jp", "--flag", "rate=50%", "--color", "never"]);
    insta::assert_snapshot!("diff_cells_rows_texts", shown);

    // The schema: a field added, one retyped, an option changed, the key changed; a
    // table added; a table removed (with the generated master that needed it).
    game.schema(
        "item",
        &(ITEM
            .replace("max = 1000", "max = 5000")
            .replace("name = \"rate\"\ntype = \"float\"", "name = \"rate\"\ntype = \"string\"")
            + "\n[[fields]]\nname = \"rarity\"\ntype = \"enum\"\nvalues = [\"common\", \"rare\"]\ndefault = \"common\"\n"),
    );
    std::fs::remove_file(game.root().join("schemas/shop.toml")).unwrap();
    std::fs::remove_file(game.root().join("schemas/item_sources.toml")).unwrap();
    game.schema(
        "category",
        "name = \"category\"\nprimary_key = [\"id\", \"kind\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"kind\"\ntype = \"string\"\n",
    );
    game.import(&[
        ("item", "id,name,price,rate,rarity\n1,鉄の大剣,25,0.1,rare\n2,鋼の剣,50,2.0,common\n4,金の剣,500,0.01,common\n"),
        ("category", "id,kind\n1,weapon\n"),
    ]);
    let diff = game.diff_json(&[
        "--region", "jp", "--table", "item", "--table", "shop", "--table", "category",
    ]);
    assert_eq!(
        changes(&diff),
        vec![
            json!({"table": "category", "kind": "table_added", "key": null, "column": null,
                   "old": null, "new": null}),
            json!({"table": "item", "kind": "option_changed", "key": null, "column": "price",
                   "option": "max", "old": "1000", "new": "5000"}),
            json!({"table": "item", "kind": "field_retyped", "key": null, "column": "rate",
                   "old": "float", "new": "string"}),
            json!({"table": "item", "kind": "field_added", "key": null, "column": "rarity",
                   "old": null, "new": "enum"}),
            // Retyped to text, 2.0 is written as it was exported, no longer as the number 2.
            json!({"table": "item", "kind": "cell_changed", "key": ["2"], "row": "鋼の剣",
                   "column": "rate", "old": "2", "new": "2.0"}),
            json!({"table": "shop", "kind": "table_removed", "key": null, "column": null,
                   "old": null, "new": null}),
        ]
    );

    // A key change: category's key loses a field.
    game.schema(
        "category",
        "name = \"category\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"kind\"\ntype = \"string\"\n",
    );
    game.import(&[
        ("item", "id,name,price,rate,rarity\n1,鉄の大剣,25,0.1,rare\n2,鋼の剣,50,2.0,common\n4,金の剣,500,0.01,common\n"),
        ("category", "id,kind\n1,weapon\n"),
    ]);
    let diff = game.diff_json(&["--region", "jp"]);
    assert_eq!(
        changes(&diff),
        vec![
            json!({"table": "category", "kind": "key_changed", "key": null, "column": null,
                    "old": ["id", "kind"], "new": ["id"]})
        ]
    );
    let shown = game.shown(&["--region", "jp", "--color", "never"]);
    insta::assert_snapshot!("diff_key_change", shown);
}

#[test]
fn revisions_exports_and_bad_input() {
    let game = Game::new();
    let root = game.root();
    // Exports against the head: exactly what the import would change, and nothing
    // written.
    std::fs::create_dir(root.join("next")).unwrap();
    std::fs::write(
        root.join("next/item.csv"),
        "id,name,price,rate\n1,鉄の剣,30,0.1\n2,鋼の剣,50,0.2\n3,銅の剣,10,0.05\n",
    )
    .unwrap();
    std::fs::write(root.join("next/shop.csv"), "id,item_id\n1,1\n2,2\n").unwrap();
    let head = git(root, &["rev-parse", "masters/jp"]);
    let diff = game.diff_json(&["--region", "jp", "next"]);
    assert_eq!(diff["from"]["label"], "masters/jp");
    assert_eq!(diff["to"]["label"], "exports");
    assert_eq!(
        changes(&diff),
        vec![
            json!({"table": "item", "kind": "cell_changed", "key": ["1"], "row": "鉄の剣",
                    "column": "price", "old": "20", "new": "30", "delta": 10.0, "percent": 50.0})
        ]
    );
    assert_eq!(
        git(root, &["rev-parse", "masters/jp"]),
        head,
        "nothing committed"
    );
    // `import --dry-run` shows the same change.
    let dry = masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "next",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    assert_eq!(dry.status.code(), Some(0), "{}", text(&dry));
    assert_eq!(json(&dry)["diff"]["changes"], diff["changes"]);
    let dry = stdout(&masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            "next",
            "--dry-run",
            "--color",
            "never",
        ],
    ));
    assert!(
        dry.contains("~ [1] 鉄の剣  price: 20 → 30 (+10, +50%)"),
        "{dry}"
    );
    assert_eq!(git(root, &["rev-parse", "masters/jp"]), head);

    // Two revisions, either way round; one revision against its parent (the first
    // import: everything added).
    game.import(&[
        (
            "item",
            "id,name,price,rate\n1,鉄の剣,30,0.1\n2,鋼の剣,50,0.2\n3,銅の剣,10,0.05\n",
        ),
        ("shop", "id,item_id\n1,1\n2,2\n"),
    ]);
    let forward = game.diff_json(&["masters/jp~1", "masters/jp"]);
    assert_eq!(changes(&forward)[0]["new"], "30");
    let backward = game.diff_json(&["masters/jp", "masters/jp~1"]);
    assert_eq!(changes(&backward)[0]["new"], "20");
    let first = game.diff_json(&["masters/jp~1"]);
    let kinds: Vec<String> = changes(&first)
        .iter()
        .map(|c| c["kind"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(kinds, ["table_added", "table_added", "table_added"]);
    assert_eq!(first["from"]["label"], "nothing");
    // Nothing changed: said so.
    let same = stdout(&game.diff(&["masters/jp", "masters/jp"]));
    assert!(same.contains("no changes"), "{same}");
    let stat = stdout(&game.diff(&["masters/jp~1", "masters/jp", "--stat"]));
    assert!(
        stat.contains("item: changed, 1 cell changed") && !stat.contains("price"),
        "{stat}"
    );

    // Bad input: one clear line each.
    for (args, code, says) in [
        (vec!["nope", "masters/jp"], 1, "`nope` names no commit"),
        (vec!["--region", "eu"], 1, "eu"),
        (
            vec!["--region", "jp", "--table", "monster"],
            1,
            "no table or generated master `monster`",
        ),
        (
            vec!["--region", "jp", "--flag", "price"],
            2,
            "COLUMN=PERCENT%",
        ),
        (
            vec!["--region", "jp", "missing-folder"],
            2,
            "missing-folder does not exist",
        ),
        (vec!["a", "b", "c"], 2, "two revisions"),
    ] {
        let out = game.diff(&args);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
    // A region without history.
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        config + "\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\n",
    )
    .unwrap();
    let out = game.diff(&["--region", "global"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("no commits yet"), "{}", text(&out));
}

#[test]
fn cells_with_markup_and_emoji_stay_text_on_a_terminal() {
    let game = Game::new();
    game.import(&[
        ("item", "id,name,price,rate\n1,<script>alert(1)</script>,20,0.1\n2,鋼の剣 🗡,50,0.2\n3,銅の剣\u{202e}cba,10,0.05\n"),
        ("shop", "id,item_id\n1,1\n2,2\n"),
    ]);
    let shown = stdout(&game.diff(&["--region", "jp", "--color", "never"]));
    assert!(
        shown.contains("[-鉄の剣-]{+<script>alert(1)</script>+}"),
        "{shown}"
    );
    assert!(shown.contains("鋼の剣 🗡"), "{shown}");
    assert!(
        !shown.contains('\u{1b}'),
        "no escape sequence reaches the terminal: {shown}"
    );
    // A right-to-left override would turn the rest of the line around.
    assert!(
        !shown.contains('\u{202e}') && shown.contains("\\u{202e}"),
        "{shown}"
    );
}

/// Chromium, headless, on `url`, with `args` (`--dump-dom`, `--screenshot=…`): its
/// standard output.
fn browse(browser: &str, profile: &Path, url: &str, args: &[&str]) -> String {
    let out = std::process::Command::new("timeout")
        .arg("120")
        .arg(browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    assert!(out.status.success(), "{}", text(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn the_review_page_renders_in_a_browser_and_its_filters_work() {
    let game = Game::new();
    let root = game.root();
    game.translate(&[("item", "1", "name", "Iron Sword")]);
    game.translate(&[("item", "1", "name", "Iron Blade & more")]);
    game.import(&[
        (
            "item",
            "id,name,price,rate\n1,<script>alert(1)</script>,25,0.1\n2,鋼の剣 🗡,50,2.0\n3,銅の剣,10,0.05\n",
        ),
        ("shop", "id,item_id\n1,1\n2,3\n"),
    ]);
    let out = game.diff(&[
        "masters/jp~2",
        "masters/jp",
        "--flag",
        "rate=50%",
        "--html",
        "review.html",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let page = std::fs::read_to_string(root.join("review.html")).unwrap();
    // Self-contained, and the data is text: one script, ours.
    assert!(!page.contains("http://") && !page.contains("https://") && !page.contains(" src="));
    assert_eq!(page.matches("<script").count(), 1, "{page}");
    assert!(page.contains("&#60;script&#62;alert(1)&#60;/script&#62;"));

    if !installed("chromium", "apt-get install chromium") {
        return;
    }
    let browser = "chromium";
    let profile = tempfile::tempdir().unwrap();
    let url = format!("file://{}", root.join("review.html").display());
    let dom = browse(browser, profile.path(), &url, &["--dump-dom"]);
    // Rendered: the summary links to each table, changed cells and their highlights.
    assert!(dom.contains("<a href=\"#t0\">item</a>"), "{dom}");
    assert!(
        dom.contains("<td class=\"old\">Iron <del>Sword</del></td>"),
        "{dom}"
    );
    assert!(
        dom.contains("<td class=\"new\">Iron <ins>Blade &amp; more</ins></td>"),
        "{dom}"
    );
    assert!(dom.contains("鋼の剣 🗡"), "{dom}");
    assert!(dom.contains("class=\"cell_changed flagged\""), "{dom}");
    assert!(
        dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{dom}"
    );
    assert_eq!(
        dom.matches("<script").count(),
        1,
        "no script from the data runs"
    );
    assert!(!dom.contains(" hidden=\"\""), "everything shown at first");

    // A filter on the kind hides the other kinds' rows, and keeps its own.
    let dom = browse(
        browser,
        profile.path(),
        &format!("{url}#kind=cell_changed"),
        &["--dump-dom"],
    );
    let rows = |kind: &str, hidden: bool| {
        dom.lines()
            .filter(|l| l.contains(&format!("<tr class=\"{kind}")))
            .filter(|l| l.contains(" hidden=\"\"") == hidden)
            .count()
    };
    assert!(
        rows("text_changed", true) > 0 && rows("text_changed", false) == 0,
        "{dom}"
    );
    assert!(
        rows("cell_changed", false) > 0 && rows("cell_changed", true) == 0,
        "{dom}"
    );
    // Only flagged ones.
    let dom = browse(
        browser,
        profile.path(),
        &format!("{url}#flagged=only"),
        &["--dump-dom"],
    );
    let shown: Vec<&str> = dom
        .lines()
        .filter(|l| {
            l.contains("<tr class=") && l.contains("data-kind") && !l.contains(" hidden=\"\"")
        })
        .collect();
    assert_eq!(shown.len(), 1, "{shown:?}");
    assert!(shown[0].contains("flagged"));
    // A filter on the table hides the other tables' sections.
    let dom = browse(
        browser,
        profile.path(),
        &format!("{url}#table=shop"),
        &["--dump-dom"],
    );
    assert!(dom.contains("data-table=\"item\" hidden=\"\""), "{dom}");
    assert!(!dom.contains("data-table=\"shop\" hidden=\"\""), "{dom}");

    // A screenshot, kept as an artifact of the test run.
    let shot = Path::new(env!("CARGO_TARGET_TMPDIR")).join("diff-review.png");
    let _ = std::fs::remove_file(&shot);
    browse(
        browser,
        profile.path(),
        &url,
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1280,1600",
        ],
    );
    assert!(
        std::fs::metadata(&shot).is_ok_and(|m| m.len() > 1000),
        "{}",
        shot.display()
    );
}

#[test]
fn blame_finds_the_import_that_last_changed_each_cell() {
    let game = Game::new();
    let root = game.root();
    let item = |price: &str, third: bool| {
        let mut csv = format!("id,name,price,rate\n1,鉄の剣,{price},0.1\n2,鋼の剣,50,0.2\n");
        if third {
            csv.push_str("3,銅の剣,10,0.05\n");
        }
        // Enough rows that imports keep what they change (files of 64 KiB and more).
        for id in 100..7100 {
            csv.push_str(&format!("{id},鉄塊{id},1,0.01\n"));
        }
        csv
    };
    let import = |item_csv: &str, shop: &str, message: &str| {
        let dir = root.join("exports");
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("item.csv"), item_csv).unwrap();
        std::fs::write(dir.join("shop.csv"), shop).unwrap();
        let out = masterctl(
            root,
            &["import", "--region", "jp", "exports", "-m", message],
        );
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        git(root, &["rev-parse", "masters/jp"]).trim().to_string()
    };
    let shop = "id,item_id\n1,1\n2,2\n";
    let raised = import(&item("25", true), shop, "raise the iron sword");
    let back = import(&item("20", true), shop, "back to 20");
    // Many imports that do not touch item 1.
    for n in 0..20 {
        import(
            &item("20", true),
            &format!("id,item_id\n1,1\n2,2\n{},1\n", n + 3),
            "shop only",
        );
    }
    let removed = import(&item("20", false), shop, "drop the copper sword");
    let readded = import(&item("20", true), shop, "the copper sword is back");
    game.translate(&[("item", "1", "name", "Iron Sword")]);
    let translated = git(root, &["rev-parse", "masters/jp"]).trim().to_string();

    // Each import kept what it changed in each table's files: blame reads no version the
    // long way (and gives the same answers as the long way, below).
    let kept = root.join(".git/masterctl/row-changes");
    let entries = std::fs::read_dir(&kept).map_or(0, |d| d.count());
    // tables/item.csv in four imports, locales/ja/item.csv in three (the first of them
    // adds the 7,000 rows); the small files (shop, the generated master) are not kept.
    assert_eq!(entries, 7);
    let blamed = |args: &[&str]| {
        let mut all = vec!["blame", "--region", "jp"];
        all.extend(args);
        all.extend(["--format", "json"]);
        let out = masterctl(root, &all);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        json(&out)
    };
    let cell = |blame: &Value, field: &str, language: Option<&str>| -> Value {
        blame["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["field"] == field && c["language"].as_str() == language)
            .unwrap_or_else(|| panic!("{field} in {blame}"))
            .clone()
    };
    // Changed, then changed back: the change back is the last change.
    let one = blamed(&["item", "1"]);
    assert_eq!(one["row"], "鉄の剣");
    let price = cell(&one, "price", None);
    assert_eq!(price["value"], "20");
    assert_eq!(price["previous"], "25");
    assert_eq!(price["commit"]["commit"], back.as_str());
    assert_eq!(price["commit"]["subject"], "back to 20");
    assert!(
        price["commit"]["sources"][0]
            .as_str()
            .unwrap()
            .starts_with("item.csv sha256:")
    );
    assert_ne!(price["commit"]["commit"], raised.as_str());
    // Never changed since the first import: new with it.
    let first = git(root, &["rev-list", "--max-parents=0", "masters/jp"])
        .trim()
        .to_string();
    let rate = cell(&one, "rate", None);
    assert_eq!(rate["previous"], Value::Null);
    assert_eq!(rate["commit"]["commit"], first.as_str());
    assert_eq!(
        cell(&one, "name", Some("ja"))["commit"]["commit"],
        first.as_str()
    );
    // The translation came with the l10n import.
    let english = cell(&one, "name", Some("en"));
    assert_eq!(english["value"], "Iron Sword");
    assert_eq!(english["commit"]["commit"], translated.as_str());
    assert_eq!(english["previous"], Value::Null);
    // A row deleted and added again: the re-adding import.
    let three = blamed(&["item", "3", "price"]);
    assert_eq!(three["cells"].as_array().unwrap().len(), 1);
    assert_eq!(
        cell(&three, "price", None)["commit"]["commit"],
        readded.as_str()
    );
    assert_eq!(cell(&three, "price", None)["previous"], Value::Null);
    assert_ne!(removed, readded);
    // Worked out the long way (nothing kept), the answers are the same.
    std::fs::remove_dir_all(&kept).unwrap();
    assert_eq!(blamed(&["item", "1"]), one);
    assert_eq!(blamed(&["item", "3", "price"]), three);
    // On a terminal.
    let shown = stdout(&masterctl(
        root,
        &[
            "blame", "--region", "jp", "item", "1", "price", "--color", "never",
        ],
    ));
    assert!(shown.contains("item [1] 鉄の剣 on jp"), "{shown}");
    assert!(
        shown.contains("price  20  ") && shown.contains("\"back to 20\"  (was 25)"),
        "{shown}"
    );

    // What is not there, or a key of the wrong width: one clear line, exit 1.
    for (args, code, says) in [
        (vec!["monster", "1"], 1, "no table `monster`"),
        (vec!["item", "9"], 1, "no row [9] in `item`"),
        (vec!["item", "1|2"], 1, "key has 1 field (id): 2 given"),
        (vec!["item", "1", "price", "rate"], 2, "one field at most"),
        (vec!["item", "1", "weight"], 1, "no field `weight`"),
    ] {
        let mut all = vec!["blame", "--region", "jp"];
        all.extend(args.iter().copied());
        let out = masterctl(root, &all);
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?}: {}", text(&out));
    }
}

#[test]
fn a_rebase_dry_run_marks_what_it_does_with_each_upstream_change() {
    let game = Game::new();
    let root = game.root();
    std::fs::write(
        root.join("masterctl.toml"),
        format!(
            "{CONFIG}\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\nowns = [\"item.price\"]\n"
        ),
    )
    .unwrap();
    let shop = "id,item_id\n1,1\n2,2\n";
    game.import(&[
        (
            "item",
            "id,name,price,rate\n1,鉄の剣,20,0.1\n2,鋼の剣,50,0.2\n3,銅の剣,10,0.05\n",
        ),
        ("shop", shop),
    ]);
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // Upstream: a price (global owns prices), a rate, a new row.
    game.import(&[
        ("item", "id,name,price,rate\n1,鉄の剣,99,0.1\n2,鋼の剣,50,0.3\n3,銅の剣,10,0.05\n4,金の剣,500,0.01\n"),
        ("shop", shop),
    ]);
    // The region set the same rate already.
    let dir = root.join("global-exports");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(
        dir.join("item.csv"),
        "id,name,price,rate\n1,鉄の剣,20,0.1\n2,鋼の剣,50,0.3\n3,銅の剣,10,0.05\n",
    )
    .unwrap();
    std::fs::write(dir.join("shop.csv"), shop).unwrap();
    let out = masterctl(root, &["import", "--region", "global", "global-exports"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));

    let out = masterctl(
        root,
        &[
            "rebase",
            "--region",
            "global",
            "--dry-run",
            "--format",
            "json",
            "--html",
            "rebase.html",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let marked: Vec<(String, Value, Value, String)> = json(&out)["diff"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().unwrap().to_string(),
                c["key"].clone(),
                c["column"].clone(),
                c["disposition"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        marked.contains(&(
            "cell_changed".into(),
            json!(["1"]),
            json!("price"),
            "kept".into()
        )),
        "{marked:?}"
    );
    assert!(
        marked.contains(&(
            "cell_changed".into(),
            json!(["2"]),
            json!("rate"),
            "equal".into()
        )),
        "{marked:?}"
    );
    assert!(
        marked.contains(&(
            "row_added".into(),
            json!(["4"]),
            Value::Null,
            "applied".into()
        )),
        "{marked:?}"
    );
    let shown = stdout(&masterctl(
        root,
        &[
            "rebase",
            "--region",
            "global",
            "--dry-run",
            "--color",
            "never",
        ],
    ));
    assert!(
        shown.contains("price: 20 → 99 (+79, +395%)  [kept: the region owns it]"),
        "{shown}"
    );
    assert!(shown.contains("[equal: the region has it]"), "{shown}");
    assert!(
        std::fs::read_to_string(root.join("rebase.html"))
            .unwrap()
            .contains("(kept: the region owns it)")
    );
    // Nothing was written.
    assert!(
        git(root, &["log", "--format=%s", "-1", "masters/global"])
            .starts_with("Import into global")
    );
}

#[test]
fn a_canonical_file_broken_by_hand_in_history_is_named() {
    let game = Game::new();
    let root = game.root();
    // Someone edits the branch outside masterctl: a row with a field too many.
    let worktree = tempfile::tempdir().unwrap();
    let tree = worktree.path().join("wt");
    git(
        root,
        &[
            "worktree",
            "add",
            "-q",
            tree.to_str().unwrap(),
            "masters/jp",
        ],
    );
    std::fs::write(
        tree.join("tables/item.csv"),
        "id,price,rate\n1,20,0.1,extra\n2,50,0.2\n3,10,0.05\n",
    )
    .unwrap();
    git(&tree, &["commit", "-q", "-am", "edited by hand"]);
    for args in [
        vec!["diff", "--region", "jp"],
        vec!["blame", "--region", "jp", "item", "1"],
    ] {
        let out = masterctl(root, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(
            text(&out).contains("tables/item.csv"),
            "{args:?}: {}",
            text(&out)
        );
        assert!(!text(&out).contains("panicked"), "{}", text(&out));
    }
    // Replaced by a link to a file outside, or by bytes that are no table: never "no
    // changes".
    for (what, replace) in [("a link", "link"), ("a binary blob", "binary")] {
        git(
            &tree,
            &["checkout", "-q", "HEAD~1", "--", "tables/item.csv"],
        );
        std::fs::remove_file(tree.join("tables/item.csv")).unwrap();
        if replace == "link" {
            std::os::unix::fs::symlink("/etc/passwd", tree.join("tables/item.csv")).unwrap();
        } else {
            std::fs::write(tree.join("tables/item.csv"), [0u8, 159, 146, 150, 7, 0, 1]).unwrap();
        }
        git(&tree, &["add", "-A"]);
        git(&tree, &["commit", "-q", "-m", what]);
        let out = masterctl(root, &["diff", "--region", "jp"]);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", text(&out));
        assert!(
            text(&out).contains("tables/item.csv"),
            "{what}: {}",
            text(&out)
        );
        assert!(!text(&out).contains("no changes"), "{what}: {}", text(&out));
    }
}

#[test]
fn long_output_on_a_terminal_goes_through_the_pager() {
    let game = Game::new();
    let root = game.root();
    game.import(&[
        (
            "item",
            "id,name,price,rate\n1,鉄の剣,25,0.1\n2,鋼の剣,50,0.2\n3,銅の剣,10,0.05\n",
        ),
        ("shop", "id,item_id\n1,1\n2,2\n"),
    ]);
    // `script` gives the command a terminal; the pager marks each line it shows.
    let command = format!(
        "PAGER='sed s/^/PAGED:/' {} diff --region jp --color never",
        env!("CARGO_BIN_EXE_masterctl")
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(root)
        .output()
        .expect("script (util-linux) runs");
    let shown = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    assert!(
        shown.contains("PAGED:  ~ [1] 鉄の剣  price: 20 → 25"),
        "{shown}"
    );
    assert!(
        shown
            .lines()
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with("PAGED:")),
        "{shown}"
    );
    // Not a terminal: no pager.
    let plain = stdout(&game.diff(&["--region", "jp", "--color", "never"]));
    assert!(
        !plain.contains("PAGED:") && plain.contains("price: 20 → 25"),
        "{plain}"
    );
}
