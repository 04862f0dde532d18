//! The translator loop on the sample game: `l10n status`, `export` (XLIFF, PO, CSV) and
//! `import`, staleness through imports and rebases, and every check on crafted files.
//! The exports are read by the tools translators' pipelines use: `msgfmt` (gettext) and
//! translate-toolkit.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// English for every source text of the sample game.
const ENGLISH: &[(&str, &str)] = &[
    ("武器", "Weapons"),
    ("防具", "Armor"),
    ("素材", "Material"),
    ("消耗品", "Supplies"),
    ("はじまりの村", "First Village"),
    ("竜の山", "Dragon Peak"),
    ("スライム退治", "Slime Hunt"),
    ("村を守れ", "Guard the Village"),
    ("山道の試練", "Mountain Trial"),
    ("竜との対決", "Dragon Duel"),
    ("鉄の剣", "Iron Sword"),
    ("鋼の剣", "Steel Sword"),
    ("竜鱗の盾", "Dragonscale Shield"),
    ("回復薬", "Potion"),
    ("スライムの核", "Slime Core"),
    ("竜の牙", "Dragon Fang"),
    ("英雄の鎧", "Hero's Armor"),
    ("初心者向けの剣", "A sword for beginners"),
    ("よく鍛えられた剣", "A well-forged sword"),
    ("竜の鱗で作られた盾", "A shield made of dragon scales"),
    (
        "HPを<color=green>{amount}</color>回復する",
        "Restores <color=green>{amount}</color> HP",
    ),
    (
        "{count, plural, other {#個集めると何かが起こる}}",
        "{count, plural, one {# to collect} other {# to collect}}",
    ),
    ("鋭く硬い牙", "A sharp, hard fang"),
    ("村の道具屋", "Village Store"),
    ("竜の市場", "Dragon Market"),
    ("竜の山へようこそ！", "Welcome to Dragon Mountain!"),
];

const QUEST: &str = "id,chapter_id,code,title,difficulty,stamina\n101,1,Q0101,スライム退治,easy,5\n102,1,Q0102,村を守れ,normal,8\n201,2,Q0201,山道の試練,hard,12\n202,2,Q0202,竜との対決,extreme,20\n";

fn english() -> HashMap<&'static str, &'static str> {
    ENGLISH.iter().copied().collect()
}

/// The sample game: the fixtures' structure, its workbooks imported into jp.
fn game() -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    let out = masterctl(root, &["init", ".", "--from", fixtures().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let workbooks = fixtures().join("workbooks");
    ok(masterctl(
        root,
        &["import", "--region", "jp", workbooks.to_str().unwrap()],
    ));
    repo
}

fn head(root: &Path, branch: &str) -> String {
    git(root, &["rev-parse", branch]).trim().to_string()
}

/// Import CSV exports (whole files by name) into a region.
fn import_csv(root: &Path, region: &str, files: &[(&str, &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for (name, contents) in files {
        std::fs::write(dir.path().join(name), contents).unwrap();
    }
    ok(masterctl(
        root,
        &["import", "--region", region, dir.path().to_str().unwrap()],
    ));
}

fn export(root: &Path, region: &str, format: &str, extra: &[&str]) -> PathBuf {
    let file = root.join(format!("{region}-en.{format}"));
    let mut args = vec![
        "l10n",
        "export",
        "--region",
        region,
        "--lang",
        "en",
        "--format",
        format,
        "--out",
        file.to_str().unwrap(),
    ];
    args.extend(extra);
    ok(masterctl(root, &args));
    file
}

fn status(root: &Path, region: &str) -> serde_json::Value {
    json(&ok(masterctl(
        root,
        &[
            "--format",
            "json",
            "l10n",
            "status",
            "--region",
            region,
            "--lang",
            "en",
            "--verbose",
        ],
    )))
}

/// The units of one table in one state, from `status`.
fn units_in(status: &serde_json::Value, table: &str, state: &str) -> Vec<String> {
    status["languages"][0]["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["table"] == table)
        .and_then(|t| {
            t["keys"]
                .as_array()?
                .iter()
                .find(|k| k["state"] == state)
                .map(|k| {
                    k["units"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|u| u.as_str().unwrap().to_string())
                        .collect()
                })
        })
        .unwrap_or_default()
}

fn po_escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}

fn xml_unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A translator's work on an export: every unit translated with `translate`, confirmed.
fn translate(file: &Path, translate: &dyn Fn(&str) -> Option<String>) {
    let content = std::fs::read_to_string(file).unwrap();
    let done = match file.extension().and_then(|e| e.to_str()) {
        Some("po") => {
            let mut out = Vec::new();
            let mut source = None;
            for line in content.lines() {
                if line == "#, fuzzy" {
                    continue;
                }
                if let Some(id) = line.strip_prefix("msgid \"") {
                    source = Some(id.trim_end_matches('"').replace("\\\"", "\""));
                }
                if line.starts_with("msgstr ")
                    && let Some(text) = source.take().filter(|s| !s.is_empty())
                    && let Some(english) = translate(&text)
                {
                    out.push(format!("msgstr \"{}\"", po_escape(&english)));
                    continue;
                }
                out.push(line.to_string());
            }
            out.join("\n") + "\n"
        }
        Some("xliff") => {
            let mut out = Vec::new();
            for line in content.lines() {
                if line.trim_start().starts_with("<target") {
                    continue;
                }
                // Confirming a unit, as translate-toolkit and CAT tools do.
                out.push(line.replace("<trans-unit id=", "<trans-unit approved=\"yes\" id="));
                if let Some(source) = line
                    .trim()
                    .strip_prefix("<source>")
                    .and_then(|l| l.strip_suffix("</source>"))
                    && let Some(english) = translate(&xml_unescape(source))
                {
                    out.push(format!(
                        "        <target state=\"translated\">{}</target>",
                        xml_escape(&english)
                    ));
                }
            }
            out.join("\n") + "\n"
        }
        Some("csv") => {
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(content.trim_start_matches('\u{FEFF}').as_bytes());
            let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
            let header = &rows[0];
            let column = |prefix: &str| header.iter().position(|h| h.starts_with(prefix)).unwrap();
            let (source, target) = (column("source_"), column("translation_"));
            let mut writer = csv::Writer::from_writer(Vec::new());
            writer.write_record(header).unwrap();
            for row in &rows[1..] {
                let mut cells: Vec<String> = row.iter().map(str::to_string).collect();
                if let Some(english) = translate(&cells[source]) {
                    cells[target] = english;
                }
                writer.write_record(&cells).unwrap();
            }
            String::from_utf8(writer.into_inner().unwrap()).unwrap()
        }
        other => panic!("no translator for {other:?}"),
    };
    std::fs::write(file, done).unwrap();
}

fn english_for(text: &str) -> Option<String> {
    english().get(text).map(|t| t.to_string())
}

fn import(root: &Path, region: &str, file: &Path) -> Output {
    masterctl(
        root,
        &[
            "--format",
            "json",
            "l10n",
            "import",
            "--region",
            region,
            file.to_str().unwrap(),
        ],
    )
}

/// A tool translators' pipelines run, which must be installed (`.ci/run` installs it).
fn tool(program: &str, args: &[&str]) -> Output {
    Command::new(program).args(args).output().unwrap_or_else(|e| {
        panic!("{program} is needed by this test ({e}); .ci/run installs gettext and translate-toolkit")
    })
}

/// Units, translated units and fuzzy units as translate-toolkit reads a file.
fn translate_toolkit_counts(file: &Path, id: &str) -> (u64, u64, u64) {
    let script = "import sys\nfrom translate.storage import factory\nstore = factory.getobject(sys.argv[1])\nunits = [u for u in store.units if not u.isheader()]\nids = [u.getid() for u in units]\nassert any(sys.argv[2] in i for i in ids), ids[:3]\nprint(len(units), sum(1 for u in units if u.istranslated()), sum(1 for u in units if u.isfuzzy()))\n";
    let out = tool("python3", &["-c", script, file.to_str().unwrap(), id]);
    assert!(out.status.success(), "translate-toolkit: {}", text(&out));
    let counts: Vec<u64> = stdout(&out)
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    (counts[0], counts[1], counts[2])
}

#[test]
fn every_format_round_trips_and_the_tools_read_it() {
    for format in ["xliff", "po", "csv"] {
        let repo = game();
        let root = repo.path();
        let before = status(root, "jp");
        assert_eq!(before["languages"][0]["total"]["missing"], 26, "{format}");
        let file = export(root, "jp", format, &[]);
        if format == "po" {
            let out = tool(
                "msgfmt",
                &[
                    "--check-format",
                    "-c",
                    "-o",
                    "/dev/null",
                    file.to_str().unwrap(),
                ],
            );
            assert!(out.status.success(), "msgfmt: {}", text(&out));
        }
        if format != "csv" {
            assert_eq!(
                translate_toolkit_counts(&file, "item/name/1"),
                (26, 0, 0),
                "{format}"
            );
        }
        translate(&file, &english_for);
        if format != "csv" {
            assert_eq!(
                translate_toolkit_counts(&file, "item/name/1"),
                (26, 26, 0),
                "{format}"
            );
        }
        let out = ok(import(root, "jp", &file));
        assert_eq!(json(&out)["state"], "committed", "{format}");
        let log = json(&ok(masterctl(
            root,
            &["--format", "json", "log", "--region", "jp", "--limit", "1"],
        )));
        let taken = log["imports"][0]["translations"][0]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            taken.starts_with(&format!("en {format} jp-en.{format} sha256:")),
            "{taken}"
        );
        assert!(
            log["imports"][0]["subject"]
                .as_str()
                .unwrap()
                .starts_with("Translations into en for jp: 26 added")
        );
        let after = status(root, "jp");
        assert_eq!(after["languages"][0]["total"]["translated"], 26, "{format}");
        assert_eq!(
            git(root, &["show", "masters/jp:locales/en/shop.csv"]),
            "id,name\n1,Village Store\n2,Dragon Market\n"
        );
        let item = git(root, &["show", "masters/jp:locales/en/item.csv"]);
        assert!(
            item.contains("5,Potion,Restores <color=green>{amount}</color> HP\n"),
            "{item}"
        );
        assert!(item.contains("10,Hero's Armor,\n"), "{item}");
        let records = git(root, &["show", "masters/jp:locales/en/item.sources.csv"]);
        assert!(
            records.starts_with("id,field,source_hash,source\n1,name,"),
            "{records}"
        );
        assert!(records.contains(",鉄の剣\n"), "{records}");
        // Nothing left to do; the same file again changes nothing.
        let again = export(root, "jp", format, &[]);
        let remaining = std::fs::read_to_string(&again).unwrap();
        assert!(
            !remaining.contains("item/name/1") && !remaining.contains("鉄の剣"),
            "{remaining}"
        );
        let commit = head(root, "masters/jp");
        let out = ok(import(root, "jp", &file));
        assert_eq!(json(&out)["state"], "unchanged");
        assert_eq!(head(root, "masters/jp"), commit);
        // --all exports translated units with their translations.
        let all = export(root, "jp", format, &["--all"]);
        assert!(
            std::fs::read_to_string(&all)
                .unwrap()
                .contains("Dragon Market")
        );
        git(root, &["fsck", "--no-progress"]);
    }
}

#[test]
fn a_changed_source_marks_its_translation_stale_until_translated_again() {
    let repo = game();
    let root = repo.path();
    let file = export(root, "jp", "po", &[]);
    translate(&file, &english_for);
    ok(import(root, "jp", &file));
    // Kept in the audit log, as the console's taking is.
    let audit = git(root, &["log", "-1", "--format=%s", "refs/masterctl/audit"]);
    assert!(
        audit.contains("\"action\":\"took translations into\"")
            && audit.contains("\"region\":\"jp\""),
        "{audit}"
    );
    // A planner renames quest 101.
    import_csv(
        root,
        "jp",
        &[(
            "Quest.csv",
            &QUEST.replace("スライム退治", "スライム大退治"),
        )],
    );
    let now = status(root, "jp");
    assert_eq!(units_in(&now, "quest", "stale"), ["title/101"]);
    assert_eq!(now["languages"][0]["total"]["stale"], 1);
    assert_eq!(now["languages"][0]["total"]["translated"], 25);
    // The translation is still there, and the branch still records its old source.
    assert!(git(root, &["show", "masters/jp:locales/en/quest.csv"]).contains("101,Slime Hunt"));
    // PO: fuzzy, with the old source and the old translation.
    let po = export(root, "jp", "po", &[]);
    let text = std::fs::read_to_string(&po).unwrap();
    assert!(
        text.contains("#, fuzzy\n#| msgid \"スライム退治\"\nmsgctxt \"quest/title/101\"\nmsgid \"スライム大退治\"\nmsgstr \"Slime Hunt\"\n"),
        "{text}"
    );
    let out = tool(
        "msgfmt",
        &[
            "--check-format",
            "-c",
            "-o",
            "/dev/null",
            po.to_str().unwrap(),
        ],
    );
    assert!(
        out.status.success(),
        "msgfmt: {}",
        crate::common::text(&out)
    );
    assert_eq!(translate_toolkit_counts(&po, "quest/title/101"), (1, 0, 1));
    // XLIFF: needs review, with notes.
    let xliff = std::fs::read_to_string(export(root, "jp", "xliff", &[])).unwrap();
    assert!(
        xliff.contains("<target state=\"needs-review-translation\">Slime Hunt</target>"),
        "{xliff}"
    );
    assert!(
        xliff.contains("<note from=\"old-source\">スライム退治</note>"),
        "{xliff}"
    );
    // CSV: the old source and translation beside the new source.
    let csv = std::fs::read_to_string(export(root, "jp", "csv", &[])).unwrap();
    assert!(
        csv.contains("quest,title,101,stale,20,,スライム大退治,,スライム退治,Slime Hunt,"),
        "{csv}"
    );
    // Handing the fuzzy entry back unchanged takes nothing.
    let out = ok(import(root, "jp", &po));
    assert_eq!(json(&out)["unconfirmed"], 1);
    assert_eq!(json(&out)["state"], "unchanged");
    // A new translation clears it.
    translate(&po, &|source| {
        (source == "スライム大退治").then(|| "Great Slime Hunt".to_string())
    });
    ok(import(root, "jp", &po));
    let now = status(root, "jp");
    assert_eq!(now["languages"][0]["total"]["stale"], 0);
    assert_eq!(now["languages"][0]["total"]["translated"], 26);
}

#[test]
fn a_translation_of_a_source_that_changed_since_the_export_is_kept_stale() {
    let repo = game();
    let root = repo.path();
    let file = export(root, "jp", "xliff", &[]);
    import_csv(
        root,
        "jp",
        &[("Quest.csv", &QUEST.replace("村を守れ", "村を守り抜け"))],
    );
    translate(&file, &english_for);
    let out = ok(import(root, "jp", &file));
    let report = json(&out);
    let warnings = report["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{report}");
    assert_eq!(warnings[0]["code"], "source-changed");
    assert_eq!(warnings[0]["key"], "102");
    let now = status(root, "jp");
    assert_eq!(units_in(&now, "quest", "stale"), ["title/102"]);
    assert_eq!(now["languages"][0]["total"]["translated"], 25);
    assert!(git(root, &["show", "masters/jp:locales/en/quest.sources.csv"]).contains("102,title,"));
}

#[test]
fn upstream_source_changes_reach_the_region_as_stale_translations() {
    let repo = game();
    let root = repo.path();
    ok(masterctl(root, &["rebase", "--region", "global"]));
    let file = export(root, "global", "po", &[]);
    translate(&file, &english_for);
    ok(import(root, "global", &file));
    assert_eq!(
        status(root, "global")["languages"][0]["total"]["translated"],
        26
    );
    // jp renames quest 202; global takes it.
    import_csv(
        root,
        "jp",
        &[("Quest.csv", &QUEST.replace("竜との対決", "竜王との対決"))],
    );
    ok(masterctl(root, &["rebase", "--region", "global"]));
    assert!(
        git(root, &["show", "masters/global:locales/ja/quest.csv"]).contains("202,竜王との対決")
    );
    // The translation is kept, and shows stale with its old source.
    assert!(
        git(root, &["show", "masters/global:locales/en/quest.csv"]).contains("202,Dragon Duel")
    );
    let now = status(root, "global");
    assert_eq!(units_in(&now, "quest", "stale"), ["title/202"]);
    let po = std::fs::read_to_string(export(root, "global", "po", &[])).unwrap();
    assert!(po.contains("#| msgid \"竜との対決\""), "{po}");
    // jp's own status is untouched by global's work.
    assert_eq!(status(root, "jp")["languages"][0]["total"]["missing"], 26);
}

#[test]
fn every_check_rejects_the_whole_file_naming_unit_key_and_reason() {
    let repo = game();
    let root = repo.path();
    let file = export(root, "jp", "po", &[]);
    let bad: HashMap<&str, &str> = [
        ("鉄の剣", "Iron Sword"),                                          // fine
        ("HPを<color=green>{amount}</color>回復する", "Restores {amt} HP"), // placeholders and tags
        ("竜の鱗で作られた盾", "A shield made of the scales of an ancient dragon that once ruled the mountains and the sea"), // too long
        ("鋼の剣", "Steel\u{200B}Sword"),                                 // zero-width space
        ("{count, plural, other {#個集めると何かが起こる}}", "{count, plural, other {Collect #}}"), // en needs `one`
        ("竜の牙", "Dragon {Fang"),                                       // not a message
    ]
    .into_iter()
    .collect();
    translate(&file, &|source| bad.get(source).map(|t| t.to_string()));
    // A unit nobody exported.
    let mut content = std::fs::read_to_string(&file).unwrap();
    content.push_str("\nmsgctxt \"item/name/99\"\nmsgid \"幻の剣\"\nmsgstr \"Phantom Sword\"\n");
    std::fs::write(&file, content).unwrap();
    let before = head(root, "masters/jp");
    let out = import(root, "jp", &file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let report = json(&out);
    let found: Vec<(String, String, String)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_string(),
                d["key"].as_str().unwrap_or("").to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let has = |code: &str, key: &str, words: &str| {
        assert!(
            found
                .iter()
                .any(|(c, k, m)| c == code && k == key && m.contains(words)),
            "no {code} for {key} saying {words:?} in {found:#?}"
        );
    };
    has(
        "placeholder",
        "5",
        "lacks `</color>`, `<color=green>`, `{amount}` of the source and adds `{amt}`",
    );
    has("length", "3", "at most 80 fit");
    has(
        "invisible-character",
        "2",
        "U+200B (zero width space) at character 6",
    );
    has("plural-forms", "6", "lacks the branch `one`");
    has("message-syntax", "7", "never closed");
    has("unknown-unit", "99", "has no row with key `99`");
    assert_eq!(found.len(), 6, "{found:#?}");
    // A text too long says the limit it must keep to, not only its source.
    let too_long = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "length")
        .unwrap();
    assert_eq!(
        too_long["expected"],
        "at most 80 characters (the field's max_length)"
    );
    for d in report["diagnostics"].as_array().unwrap() {
        assert_eq!(d["file"].as_str().unwrap(), file.to_str().unwrap());
        assert!(d["line"].as_u64().unwrap() > 1);
    }
    // Not even the good unit was written.
    assert_eq!(head(root, "masters/jp"), before);
    // The terminal says the same, with the place.
    let out = masterctl(
        root,
        &["l10n", "import", "--region", "jp", file.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(1));
    let shown = text(&out);
    assert!(shown.contains("nothing was written"), "{shown}");
    assert!(shown.contains(&format!("{}:", file.display())), "{shown}");
}

#[test]
fn csv_cells_that_spreadsheets_would_run_are_neutralised_both_ways() {
    let repo = game();
    let root = repo.path();
    let file = export(root, "jp", "csv", &[]);
    translate(&file, &|source| {
        (source == "竜の市場").then(|| "=SUM(1)".to_string())
    });
    // The translator's spreadsheet writes the cell as typed; a leading `'` typed by a
    // translator (not ours) stays.
    ok(import(root, "jp", &file));
    assert_eq!(
        git(root, &["show", "masters/jp:locales/en/shop.csv"]),
        "id,name\n2,=SUM(1)\n"
    );
    let csv = std::fs::read_to_string(export(root, "jp", "csv", &["--all"])).unwrap();
    assert!(csv.contains(",'=SUM(1),"), "{csv}");
    assert!(!csv.contains(",=SUM"), "{csv}");
    // Read back, the neutralised cell is the translation again: nothing changes.
    let all = root.join("jp-en.csv");
    let out = ok(import(root, "jp", &all));
    assert_eq!(json(&out)["state"], "unchanged", "{}", text(&out));
}

#[test]
fn translations_survive_planner_imports() {
    let repo = game();
    let root = repo.path();
    let file = export(root, "jp", "po", &[]);
    translate(&file, &english_for);
    ok(import(root, "jp", &file));
    import_csv(
        root,
        "jp",
        &[("Quest.csv", &QUEST.replace("easy,5", "easy,6"))],
    );
    assert!(git(root, &["show", "masters/jp:locales/en/quest.csv"]).contains("101,Slime Hunt"));
    assert_eq!(
        status(root, "jp")["languages"][0]["total"]["translated"],
        26
    );
}

/// The sample game with a pseudo language (`[pseudo] languages = ["qps"]`).
fn game_with_pseudo() -> tempfile::TempDir {
    let repo = game();
    add_pseudo_language(repo.path());
    repo
}

/// A pseudo language is in every build (server and client), read through `inspect` and
/// `fetch --lang qps` like any other, its texts pass the checks a translation must
/// pass; `l10n status` names the texts whose boxes are too small for it; it is never
/// in an exchange file, and a file claiming it is refused.
#[test]
fn a_pseudo_language_is_built_and_fetched_but_never_translated() {
    let repo = game_with_pseudo();
    let root = repo.path();
    let o = |p: &Path| p.display().to_string();
    // The boxes too small for a translation 40% longer.
    let status = masterctl(root, &["l10n", "status", "--region", "jp", "--lang", "en"]);
    let shown: String = stdout(&ok(status))
        .lines()
        .skip(1)
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!("l10n_status_expansion_risk", shown);
    let status = json(&ok(masterctl(
        root,
        &["--format", "json", "l10n", "status", "--region", "jp"],
    )));
    let risks: Vec<String> = status["expansion_risks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{}/{}/{}", r["table"], r["field"], r["key"]).replace('"', ""))
        .collect();
    assert_eq!(risks, ["category/name/4", "chapter/title/1"]);
    // Never an exchange file, never taken from one.
    let out = masterctl(
        root,
        &[
            "l10n", "export", "--region", "jp", "--lang", "qps", "--out", "qps.po",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("`qps` is a pseudo language"),
        "{}",
        text(&out)
    );
    assert!(!root.join("qps.po").exists());
    let file = export(root, "jp", "po", &[]);
    let claimed = std::fs::read_to_string(&file)
        .unwrap()
        .replace("Language: en", "Language: qps");
    std::fs::write(&file, claimed).unwrap();
    let out = import(root, "jp", &file);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(json(&out)["diagnostics"][0]["code"], "wrong-language");
    // In the build, the client's too, as inspect reads it.
    ok(masterctl(
        root,
        &["build", "--region", "jp", "--client", "--out", "build"],
    ));
    let build = root.join("build");
    assert!(build.join("client/json/strings/qps/item.json").is_file());
    let row = stdout(&ok(masterctl(
        root,
        &["inspect", &o(&build), "item", "1", "--lang", "qps"],
    )));
    insta::assert_snapshot!("inspect_pseudo_row", row);
    // Every pseudo text passes the checks against its source: placeholders, tags,
    // plural structure kept, nothing invisible added.
    let masters = masterctl_runtime::Masters::open(&build).unwrap();
    let checker = masterctl_locales::Checker::new("ja");
    let mut checked = 0;
    let tables: Vec<String> = masters.tables().map(str::to_string).collect();
    for table in &tables {
        let (Some(source), Some(pseudo)) =
            (masters.texts(table, "ja"), masters.texts(table, "qps"))
        else {
            continue;
        };
        for field in source.fields() {
            for row in 0..masters.table(table).unwrap().len() {
                let (Some(text), Some(made)) = (source.get(field, row), pseudo.get(field, row))
                else {
                    continue;
                };
                assert_eq!(
                    pseudo.fallback(field, row),
                    Some(0),
                    "{table}.{field} {row}"
                );
                let failures = checker.check(text, made, None);
                assert!(failures.is_empty(), "{text} → {made}: {failures:?}");
                assert!(made.starts_with('[') && made.ends_with(']'), "{made}");
                checked += 1;
            }
        }
    }
    assert!(checked > 20, "{checked} texts");
    // Fetched in the pseudo language alone, as a client asks for it.
    let store = format!("file://{}", o(&root.join("store")));
    ok(masterctl(root, &["publish", &o(&build), "--to", &store]));
    ok(masterctl(
        root,
        &[
            "fetch", "--from", &store, "--region", "jp", "--out", "fetched", "--lang", "qps",
        ],
    ));
    let fetched = stdout(&ok(masterctl(
        root,
        &["inspect", &o(&root.join("fetched")), "item", "1"],
    )));
    assert_eq!(fetched, row);
    // A pseudo language that is a real one is refused where it is written.
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        config.replace("languages = [\"qps\"]", "languages = [\"en\"]"),
    )
    .unwrap();
    let out = masterctl(root, &["validate", &o(&fixtures().join("workbooks"))]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("masterctl.toml")
            && text(&out).contains("`en` is one of the project's languages"),
        "{}",
        text(&out)
    );
}

/// A font of Debian's that `.ci/run` installs: required in CI, the test passed by
/// elsewhere when it or fontTools is missing.
fn system_font(path: &str) -> Option<PathBuf> {
    let font = PathBuf::from(path);
    let subsetter = Command::new("python3")
        .args(["-c", "import fontTools.subset"])
        .output()
        .is_ok_and(|o| o.status.success());
    match (font.is_file(), subsetter) {
        (true, true) => Some(font),
        _ if std::env::var_os("CI").is_some() => {
            panic!("{path} and fontTools are installed by .ci/run")
        }
        _ => None,
    }
}

/// `pyftsubset FONT --text-file=CHARS` (or `--text=`), written to `out`.
fn subset(font: &Path, chars: &str, out: &Path) {
    let chars = match Path::new(chars).is_file() {
        true => format!("--text-file={chars}"),
        false => format!("--text={chars}"),
    };
    let made = Command::new("python3")
        .args(["-m", "fontTools.subset"])
        .arg(font)
        .arg(chars)
        .arg(format!("--output-file={}", out.display()))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made));
}

/// Fonts: a Japanese subset font lacking most of the sample game's characters is
/// named at validate (unit, character, code point, font); `l10n charset` gives the
/// characters the texts use, and the font subset from it covers them all; an English
/// translation holding a character the English font lacks is refused at import.
#[test]
fn the_fonts_glyphs_are_checked_and_charset_makes_a_subset_that_has_them() {
    let Some(gothic) = system_font("/usr/share/fonts/opentype/ipafont-gothic/ipag.ttf") else {
        return;
    };
    let Some(dejavu) = system_font("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf") else {
        return;
    };
    let repo = game();
    let root = repo.path();
    let o = |p: &Path| p.display().to_string();
    std::fs::create_dir(root.join("fonts")).unwrap();
    // Only the katakana of スライム, and Latin letters without accents.
    subset(&gothic, "スライム", &root.join("fonts/game-ja.ttf"));
    subset(
        &dejavu,
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ",
        &root.join("fonts/game-en.ttf"),
    );
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        format!("{config}\n[fonts]\nja = \"fonts/game-ja.ttf\"\nen = [\"fonts/game-en.ttf\"]\n"),
    )
    .unwrap();
    commit_structure(root);
    let workbooks = o(&fixtures().join("workbooks"));
    let validated = json(&masterctl(
        root,
        &["--format", "json", "validate", &workbooks],
    ));
    assert_eq!(validated["ok"], true, "warnings only: {validated}");
    let missing: Vec<&serde_json::Value> = validated["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "missing-glyph")
        .collect();
    assert!(missing.len() > 20, "{missing:?}");
    let sword = missing
        .iter()
        .find(|d| d["message"].as_str().unwrap().starts_with("`鉄` (U+9244)"))
        .unwrap_or_else(|| panic!("鉄: {missing:?}"));
    assert_eq!(sword["severity"], "warning");
    assert!(
        sword["message"]
            .as_str()
            .unwrap()
            .contains("fonts/game-ja.ttf"),
        "{sword}"
    );
    assert_eq!(sword["table"], "item", "{sword}");
    assert_eq!(sword["field"], "name");
    // The characters the Japanese texts use, and the font made from them.
    ok(masterctl(root, &["import", "--region", "jp", &workbooks]));
    let written = stdout(&ok(masterctl(
        root,
        &[
            "l10n", "charset", "--lang", "ja", "--region", "jp", "--out", "ja.txt",
        ],
    )));
    insta::assert_snapshot!("l10n_charset", written);
    let chars = std::fs::read_to_string(root.join("ja.txt")).unwrap();
    assert!(
        chars.contains('鉄') && chars.contains('剣') && !chars.contains('{'),
        "{chars}"
    );
    let sorted: Vec<char> = chars.chars().filter(|c| *c != '\n').collect();
    assert!(sorted.windows(2).all(|w| w[0] < w[1]), "sorted, each once");
    subset(
        &gothic,
        &o(&root.join("ja.txt")),
        &root.join("fonts/game-ja.ttf"),
    );
    commit_structure(root);
    let validated = json(&masterctl(
        root,
        &["--format", "json", "validate", &workbooks],
    ));
    let still: Vec<&serde_json::Value> = validated["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "missing-glyph")
        .collect();
    assert!(still.is_empty(), "{still:?}");
    // An English translation the English font cannot draw is refused, naming the unit.
    ok(masterctl(root, &["import", "--region", "jp", &workbooks]));
    let file = export(root, "jp", "po", &[]);
    let po = std::fs::read_to_string(&file).unwrap().replacen(
        "msgid \"鉄の剣\"\nmsgstr \"\"",
        "msgid \"鉄の剣\"\nmsgstr \"Épée\"",
        1,
    );
    std::fs::write(&file, po).unwrap();
    let refused = import(root, "jp", &file);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let diagnostic = &json(&refused)["diagnostics"][0];
    assert_eq!(diagnostic["code"], "missing-glyph", "{diagnostic}");
    let message = diagnostic["message"].as_str().unwrap();
    assert!(
        message.contains("`É` (U+00C9)")
            && message.contains("`é` (U+00E9)")
            && message.contains("fonts/game-en.ttf"),
        "{message}"
    );
    assert_eq!(diagnostic["key"], "1", "{diagnostic}");
    // A font that is not one, or is not there, is refused where masterctl.toml names it.
    std::fs::write(root.join("fonts/game-en.ttf"), "not a font").unwrap();
    let out = masterctl(root, &["validate", &workbooks]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("`fonts/game-en.ttf` is not a TrueType or OpenType font"),
        "{}",
        text(&out)
    );
    std::fs::remove_file(root.join("fonts/game-en.ttf")).unwrap();
    let out = masterctl(root, &["validate", &workbooks]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("`game-en.ttf` is not in fonts/"),
        "{}",
        text(&out)
    );
}

/// A project of swords and potions with a glossary (`剣` is `sword`; `HP` is not
/// translated), the same source text in two rows; imported into jp.
fn glossary_game() -> tempfile::TempDir {
    items_game("id,name\n1,鉄の剣\n2,鉄の剣\n3,HPの薬\n4,盾\n")
}

/// The glossary game's structure with these items (`item.csv`).
fn items_game(items: &str) -> tempfile::TempDir {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    std::fs::write(
        root.join("masterctl.toml"),
        "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("schemas")).unwrap();
    std::fs::write(
        root.join("schemas/item.toml"),
        "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"text\"\n",
    )
    .unwrap();
    std::fs::write(
        root.join("schemas/glossary.toml"),
        "name = \"glossary\"\nglossary = true\naudience = [\"design\"]\nprimary_key = [\"term\"]\n\n[[fields]]\nname = \"term\"\ntype = \"string\"\n\n[[fields]]\nname = \"en\"\ntype = \"string\"\noptional = true\n\n[[fields]]\nname = \"do_not_translate\"\ntype = \"bool\"\ndefault = false\n\n[[fields]]\nname = \"note\"\ntype = \"string\"\noptional = true\n",
    )
    .unwrap();
    commit_structure(root);
    let input = root.join("input");
    std::fs::create_dir(&input).unwrap();
    std::fs::write(input.join("item.csv"), items).unwrap();
    std::fs::write(
        input.join("glossary.csv"),
        "term,en,do_not_translate,note\n剣,sword,false,a blade weapon\nHP,,true,\n",
    )
    .unwrap();
    ok(masterctl(
        root,
        &["import", "--region", "jp", input.to_str().unwrap()],
    ));
    repo
}

/// The glossary and consistency checks, in all three exchange formats: each unit's
/// terms and their approved translations are in its notes; a translation lacking one
/// (or lacking a term not to translate) is taken with a `glossary` warning — refused
/// with `[checks] glossary = "error"` — and the same source translated two ways is
/// `inconsistent`, the units listed together, in `l10n status` and the next export.
#[test]
fn glossary_terms_and_inconsistent_translations_reach_translators_in_every_format() {
    let repo = glossary_game();
    let root = repo.path();
    for format in ["po", "xliff", "csv"] {
        let file = export(root, "jp", format, &[]);
        let written = std::fs::read_to_string(&file).unwrap();
        let note = match format {
            "po" => "#. glossary: 剣 → sword — a blade weapon",
            "xliff" => "<note from=\"glossary\">剣 → sword — a blade weapon</note>",
            _ => ",剣 → sword — a blade weapon",
        };
        assert!(written.contains(note), "{format}: {written}");
        assert!(
            written.contains("HP (do not translate)"),
            "{format}: {written}"
        );
    }
    // Item 2 says blade (no sword, and unlike item 1); item 3 lost its HP.
    let file = export(root, "jp", "po", &[]);
    let po = std::fs::read_to_string(&file).unwrap();
    let answer = |po: &str, key: &str, text: &str| {
        po.replacen(
            &format!(
                "msgctxt \"item/name/{key}\"\nmsgid \"{}\"\nmsgstr \"\"",
                source_of(key)
            ),
            &format!(
                "msgctxt \"item/name/{key}\"\nmsgid \"{}\"\nmsgstr \"{text}\"",
                source_of(key)
            ),
            1,
        )
    };
    let po = answer(&po, "1", "Iron Sword");
    let po = answer(&po, "2", "Iron Blade");
    let po = answer(&po, "3", "Healing Potion");
    let po = answer(&po, "4", "Shield");
    std::fs::write(&file, &po).unwrap();
    let imported = import(root, "jp", &file);
    assert_eq!(imported.status.code(), Some(0), "{}", text(&imported));
    let warnings: Vec<(String, String)> = json(&imported)["warnings"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|w| {
            (
                w["code"].as_str().unwrap().into(),
                w["message"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert!(
        warnings.iter().any(|(c, m)| c == "glossary"
            && m.contains("lacks `sword`, the glossary's translation of `剣`")),
        "{warnings:?}"
    );
    assert!(
        warnings
            .iter()
            .any(|(c, m)| c == "glossary" && m.contains("lacks `HP`, a term not to translate")),
        "{warnings:?}"
    );
    // The status counts and lists them; the two translations of 鉄の剣 name each other.
    let status = status(root, "jp");
    let language = &status["languages"][0];
    assert_eq!(language["total"]["translated"], 4, "{language}");
    assert_eq!(
        language["warnings"],
        serde_json::json!({"glossary": 2, "inconsistent": 2})
    );
    let listed: Vec<String> = language["warned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            format!(
                "{} {}: {}",
                w["code"].as_str().unwrap(),
                w["unit"].as_str().unwrap(),
                w["message"].as_str().unwrap()
            )
        })
        .collect();
    assert!(
        listed.contains(&"inconsistent item/name/1: the same source is translated otherwise in item/name/2 (`Iron Blade`)".to_string()),
        "{listed:#?}"
    );
    let shown = stdout(&ok(masterctl(
        root,
        &["l10n", "status", "--region", "jp", "--verbose"],
    )));
    insta::assert_snapshot!(
        "l10n_status_glossary",
        shown.lines().skip(1).collect::<Vec<_>>().join("\n")
    );
    // Every format carries the warnings to the translator (`--all`: translated too).
    for format in ["po", "xliff", "csv"] {
        let file = export(root, "jp", format, &["--all"]);
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(
            written.contains("translated otherwise in item/name/1 (`Iron Sword`)"),
            "{format}: {written}"
        );
        assert!(written.contains("lacks `sword`"), "{format}: {written}");
    }
    // A project that makes it an error: the same file is refused, nothing taken.
    let config = std::fs::read_to_string(root.join("masterctl.toml")).unwrap();
    std::fs::write(
        root.join("masterctl.toml"),
        format!("{config}\n[checks]\nglossary = \"error\"\n"),
    )
    .unwrap();
    commit_structure(root);
    ok(masterctl(
        root,
        &[
            "import",
            "--region",
            "jp",
            root.join("input").to_str().unwrap(),
        ],
    ));
    let head = git(root, &["rev-parse", "masters/jp"]);
    let po = po.replace("Healing Potion", "Healing Tonic");
    let file = root.join("again.po");
    std::fs::write(&file, &po).unwrap();
    let refused = import(root, "jp", &file);
    assert_eq!(refused.status.code(), Some(1), "{}", text(&refused));
    let diagnostics = json(&refused)["diagnostics"].clone();
    assert!(
        diagnostics
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "glossary" && d["severity"] == "error"),
        "{diagnostics}"
    );
    assert_eq!(git(root, &["rev-parse", "masters/jp"]), head);
}

/// Translation memory: a unit whose source is translated elsewhere gets that
/// translation to review (XLIFF `needs-review-translation`, PO `#, fuzzy`, CSV
/// `suggested`), one at least 75% alike is offered beside it with its score; `l10n
/// status` counts what the memory would cover; nothing is taken back until the
/// translator confirms it.
#[test]
fn the_memory_suggests_and_nothing_is_taken_unconfirmed() {
    let repo = items_game("id,name\n1,鉄の剣\n2,鉄の剣\n3,鉄の剣だ\n4,盾\n");
    let root = repo.path();
    // Item 1 translated (the first unit of the file).
    hand_back(
        root,
        "po",
        "鉄の剣\"\nmsgstr \"\"",
        "鉄の剣\"\nmsgstr \"Iron Sword\"",
    );
    let language = &status(root, "jp")["languages"][0];
    assert_eq!(
        language["memory"],
        serde_json::json!({"exact": 1, "close": 1, "words_saved": 3}),
        "{language}"
    );
    assert_eq!(language["total"]["translated"], 1);
    let shown = stdout(&ok(masterctl(
        root,
        &["l10n", "status", "--region", "jp", "--lang", "en"],
    )));
    // Its first line names the head commit.
    let shown = shown.lines().skip(1).collect::<Vec<_>>().join("\n");
    insta::assert_snapshot!("l10n_status_memory", shown);
    let expected = [
        (
            "po",
            "#. memory 100%: the translation of item/name/1\n#: item.name\n#, fuzzy\nmsgctxt \"item/name/2\"\nmsgid \"鉄の剣\"\nmsgstr \"Iron Sword\"",
            "#. memory 75% (item/name/1): 鉄の剣 → Iron Sword",
        ),
        (
            "xliff",
            "<target state=\"needs-review-translation\" state-qualifier=\"exact-match\">Iron Sword</target>",
            "<alt-trans match-quality=\"75\" origin=\"item/name/1\">\n          <source>鉄の剣</source>\n          <target>Iron Sword</target>\n        </alt-trans>",
        ),
        (
            "csv",
            "item,name,2,suggested,,,鉄の剣,Iron Sword,",
            ",75% item/name/1: 鉄の剣 → Iron Sword",
        ),
    ];
    for (format, exact, close) in expected {
        let file = export(root, "jp", format, &[]);
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.contains(exact), "{format}: {written}");
        assert!(written.contains(close), "{format}: {written}");
        // Handed back as it is, the suggestion is not taken.
        let out = import(root, "jp", &file);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", text(&out));
        assert_eq!(
            status(root, "jp")["languages"][0]["total"]["translated"],
            1,
            "{format}"
        );
    }
    // Translators' tools read the files with the memory in them: the suggestion as
    // fuzzy (PO) or not translated yet (XLIFF), among the three units that need work.
    let po = export(root, "jp", "po", &[]);
    assert_eq!(translate_toolkit_counts(&po, "item/name/2"), (3, 0, 1));
    let xliff = export(root, "jp", "xliff", &[]);
    assert_eq!(translate_toolkit_counts(&xliff, "item/name/2").0, 3);
    // Confirmed (the fuzzy flag taken off), it is taken.
    hand_back(
        root,
        "po",
        "#, fuzzy\nmsgctxt \"item/name/2\"",
        "msgctxt \"item/name/2\"",
    );
    assert_eq!(status(root, "jp")["languages"][0]["total"]["translated"], 2);
    // A CSV suggestion confirmed by its state.
    let repo = items_game("id,name\n1,鉄の剣\n2,鉄の剣\n");
    let root = repo.path();
    hand_back(root, "csv", "鉄の剣,,", "鉄の剣,Iron Sword,");
    hand_back(root, "csv", ",suggested,", ",translated,");
    assert_eq!(status(root, "jp")["languages"][0]["total"]["translated"], 2);
}

/// Exports region jp's file in `format`, edits its first `from` into `to` (as a
/// translator would) and imports it.
fn hand_back(root: &Path, format: &str, from: &str, to: &str) {
    let file = export(root, "jp", format, &[]);
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.contains(from), "{format}: {written}");
    std::fs::write(&file, written.replacen(from, to, 1)).unwrap();
    ok(import(root, "jp", &file));
}

/// The source text of the glossary game's item `key`.
fn source_of(key: &str) -> &'static str {
    match key {
        "1" | "2" => "鉄の剣",
        "3" => "HPの薬",
        _ => "盾",
    }
}

#[test]
fn wrong_languages_and_formats_are_clear_errors() {
    let repo = game();
    let root = repo.path();
    // The source language is not exported.
    let out = masterctl(
        root,
        &[
            "l10n", "export", "--region", "jp", "--lang", "ja", "--out", "x.po",
        ],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("source language"), "{}", text(&out));
    // Nor a language the region does not have.
    let out = masterctl(root, &["l10n", "status", "--region", "jp", "--lang", "fr"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out).contains("does not translate into `fr`"),
        "{}",
        text(&out)
    );
    // No format, no extension.
    let out = masterctl(
        root,
        &[
            "l10n", "export", "--region", "jp", "--lang", "en", "--out", "x",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("--format xliff, po or csv"),
        "{}",
        text(&out)
    );
    // An exchange format is for export only.
    let out = masterctl(root, &["--format", "po", "status"]);
    assert_eq!(out.status.code(), Some(2));
    // A French file for an English import.
    let file = export(root, "jp", "po", &[]);
    let french = std::fs::read_to_string(&file)
        .unwrap()
        .replace("Language: en", "Language: fr");
    std::fs::write(&file, french).unwrap();
    let out = import(root, "jp", &file);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json(&out)["diagnostics"][0]["code"], "wrong-language");
    // Not an exchange file at all.
    std::fs::write(
        root.join("junk.xlf"),
        "<?xml version=\"1.0\"?><xliff><file><body><trans-unit id=\"x\">",
    )
    .unwrap();
    let out = import(root, "jp", &root.join("junk.xlf"));
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_eq!(json(&out)["diagnostics"][0]["code"], "exchange-syntax");
    // A region with no branch yet.
    let out = masterctl(root, &["l10n", "status", "--region", "global"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out).contains("has no branch yet"), "{}", text(&out));
}

#[test]
fn a_rebase_merges_translations_and_stops_on_different_ones() {
    let repo = game();
    let root = repo.path();
    ok(masterctl(root, &["rebase", "--region", "global"]));
    // jp translates everything; global only quest 101, its own way.
    let file = export(root, "jp", "po", &[]);
    translate(&file, &english_for);
    ok(import(root, "jp", &file));
    let file = export(root, "global", "po", &[]);
    translate(&file, &|source| {
        (source == "スライム退治").then(|| "Slime Purge".to_string())
    });
    ok(import(root, "global", &file));
    let out = masterctl(root, &["--format", "json", "rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let conflicts =
        std::fs::read_to_string(root.join(".git/masterctl/rebase/global/conflicts.csv")).unwrap();
    assert!(
        conflicts.contains("quest@en,101,title,added-both,(none),Slime Purge,Slime Hunt,"),
        "{conflicts}"
    );
    // Global keeps its own; everything else of jp's arrives.
    ok(masterctl(
        root,
        &[
            "rebase", "--region", "global", "--ours", "--table", "quest@en",
        ],
    ));
    ok(masterctl(
        root,
        &["rebase", "--region", "global", "--continue"],
    ));
    let quests = git(root, &["show", "masters/global:locales/en/quest.csv"]);
    assert!(
        quests.contains("101,Slime Purge\n102,Guard the Village\n"),
        "{quests}"
    );
    // Global owns its shops: their translations stay global's (none yet).
    let now = status(root, "global");
    assert_eq!(now["languages"][0]["total"]["translated"], 24, "{now}");
    assert_eq!(units_in(&now, "shop", "missing"), ["name/1", "name/2"]);
    let message = git(root, &["log", "-1", "--format=%B", "masters/global"]);
    assert!(message.contains("quest@en"), "{message}");
}
