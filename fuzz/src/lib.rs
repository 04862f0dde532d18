//! One entry point per parser that reads what a user, a file or a commit hands
//! masterctl: the CSV and workbook readers, the schema and `masterctl.toml` loader, the
//! canonical-CSV reader used on git blobs, the translators' exchange formats, the
//! rebase conflict file, the runtime's archive loader, the records a store hands a
//! fetch (release, pointer, manifest), the ICU messages of texts and translations, and
//! the escapers that put schema text into
//! generated code.
//!
//! Each takes arbitrary bytes and must return — an error is fine, a panic, a hang or an
//! allocation beyond the limits is a bug. `libfuzzer/` drives them with cargo-fuzz; the
//! corpus and every input that once failed (`corpus/<target>/`, `regressions/<target>/`)
//! replay through `tests/corpus.rs` in every test run.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use masterctl_schemas::Project;
use masterctl_schemas::load::load_from_files;

/// A fuzz target: any bytes in, nothing out but the absence of a crash.
pub type Target = fn(&[u8]);

/// Every target by name (the folder names of the corpus).
pub const TARGETS: &[(&str, Target)] = &[
    ("csv", csv),
    ("workbook", workbook),
    ("xlsx_parts", xlsx_parts),
    ("schema", schema),
    ("canonical", canonical),
    ("exchange", exchange),
    ("message", message),
    ("conflicts", conflicts),
    ("archive", archive),
    ("release", release),
    ("manifest", manifest),
    ("codegen", codegen),
];

/// The sample game's project (the repository's `fixtures/`), compiled in.
fn project() -> &'static Project {
    static PROJECT: OnceLock<Project> = OnceLock::new();
    PROJECT.get_or_init(|| {
        let schema =
            |name: &str, text: &str| (PathBuf::from(format!("schemas/{name}")), text.to_string());
        load_from_files(
            Some((
                PathBuf::from("masterctl.toml"),
                include_str!("../../fixtures/masterctl.toml").to_string(),
            )),
            vec![
                schema(
                    "category.toml",
                    include_str!("../../fixtures/schemas/category.toml"),
                ),
                schema(
                    "item.toml",
                    include_str!("../../fixtures/schemas/item.toml"),
                ),
                schema(
                    "quest.toml",
                    include_str!("../../fixtures/schemas/quest.toml"),
                ),
                schema(
                    "quest_drop.toml",
                    include_str!("../../fixtures/schemas/quest_drop.toml"),
                ),
                schema(
                    "chapter.toml",
                    include_str!("../../fixtures/schemas/chapter.toml"),
                ),
                schema(
                    "shop.toml",
                    include_str!("../../fixtures/schemas/shop.toml"),
                ),
                schema(
                    "shop_item.toml",
                    include_str!("../../fixtures/schemas/shop_item.toml"),
                ),
                schema(
                    "element_affinity.toml",
                    include_str!("../../fixtures/schemas/element_affinity.toml"),
                ),
            ],
        )
        .expect("the fixtures' schemas load")
    })
}

/// A folder of this thread for the files readers open by path: removed when the thread
/// ends (each replayed test runs on a thread of its own), never shared between threads.
fn scratch() -> PathBuf {
    thread_local! {
        static DIR: tempfile::TempDir = tempfile::Builder::new()
            .prefix("masterctl-fuzz-")
            .tempdir()
            .expect("a scratch folder");
    }
    DIR.with(|dir| dir.path().to_path_buf())
}

fn file(name: &str, data: &[u8]) -> PathBuf {
    let path = scratch().join(name);
    std::fs::write(&path, data).expect("the scratch file is written");
    path
}

/// A CSV export of the item table.
pub fn csv(data: &[u8]) {
    let path = file("Item.csv", data);
    let _ = masterctl_schemas::read::read_file(project(), &path);
}

/// A workbook: the first byte picks the format the rest is read as.
pub fn workbook(data: &[u8]) {
    let Some((&choice, bytes)) = data.split_first() else {
        return;
    };
    let extension = ["xlsx", "ods", "xlsb", "xls"][usize::from(choice % 4)];
    let path = file(&format!("book.{extension}"), bytes);
    let _ = masterctl_schemas::read::read_file(project(), &path);
    let _ = masterctl_migrate::infer::infer_file(&path);
}

/// The XML an xlsx holds — a sheet, shared strings and styles, split at NUL bytes —
/// packed as a workbook whose one sheet is the item table's, so that the reader's XML
/// is reached (random bytes are seldom a zip with the parts it looks for).
pub fn xlsx_parts(data: &[u8]) {
    use std::io::Write;
    let mut pieces = data.splitn(3, |&b| b == 0);
    let (sheet, strings, styles) = (
        pieces.next().unwrap_or_default(),
        pieces.next().unwrap_or_default(),
        pieces.next().unwrap_or_default(),
    );
    let rels = br#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
    let workbook = br#"<workbook><workbookPr date1904="0"/><sheets><sheet name="Item" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
    let workbook_rels = br#"<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;
    let path = scratch().join("parts.xlsx");
    let written = (|| -> zip::result::ZipResult<()> {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&path)?);
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        let parts: [(&str, &[u8]); 6] = [
            ("_rels/.rels", rels),
            ("xl/workbook.xml", workbook),
            ("xl/_rels/workbook.xml.rels", workbook_rels),
            ("xl/worksheets/sheet1.xml", sheet),
            ("xl/sharedStrings.xml", strings),
            ("xl/styles.xml", styles),
        ];
        for (name, bytes) in parts {
            zip.start_file(name, stored)?;
            zip.write_all(bytes)?;
        }
        zip.finish()?;
        Ok(())
    })();
    written.expect("the scratch workbook is written");
    let _ = masterctl_schemas::read::read_file(project(), &path);
    let _ = masterctl_migrate::infer::infer_file(&path);
}

/// `masterctl.toml` and one schema file, split at the first NUL byte.
pub fn schema(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (config, schema) = text.split_once('\0').unwrap_or(("", &text));
    let _ = load_from_files(
        Some((PathBuf::from("masterctl.toml"), config.to_string())),
        vec![(PathBuf::from("schemas/item.toml"), schema.to_string())],
    );
}

/// A canonical table and its language table, as read back from git blobs, split at the
/// first NUL byte.
pub fn canonical(data: &[u8]) {
    let (table, language) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], Some(&data[at + 1..])),
        None => (data, None),
    };
    for schema in &project().tables {
        let _ = masterctl_schemas::canonical::read_table(
            schema,
            table,
            Path::new("tables/x.csv"),
            language.map(|l| (l, Path::new("locales/ja/x.csv"))),
        );
    }
}

/// A translators' exchange file (XLIFF, PO or CSV, whichever it looks like).
pub fn exchange(data: &[u8]) {
    let _ = masterctl_locales::exchange::read(data, Path::new("returned"));
}

/// A source text and its translation (split at the first NUL), as ICU messages: parsed,
/// measured, pseudo-localized and checked against each other.
pub fn message(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (source, translation) = text.split_once('\0').unwrap_or((&text, &text));
    let _ = masterctl_schemas::message::parse(source);
    let _ = masterctl_schemas::message::syntax(source);
    let _ = masterctl_schemas::message::lengths(translation);
    let _ = masterctl_schemas::message::too_deep(source);
    let _ = masterctl_locales::pseudo::pseudo(source, 0.3);
    let _ = masterctl_locales::checks::Checker::new("en").check(source, translation, Some(40));
}

/// A rebase conflict file, as a planner saves it from a spreadsheet.
pub fn conflicts(data: &[u8]) {
    let _ = masterctl_store::join::state::parse_resolutions(data);
}

/// The schema hash the seed archives carry (a build of the sample game), so that the
/// loader's checks past the identity are reached.
const SEED_SCHEMA_HASH: &str = "9c69457014f442cf7077b8bab05e754c122c1fc239f1df65a33ff6efa9e6a37a";

/// One archive of a build, with a manifest that vouches for it (so that the loader's
/// own checks, not the hash, must catch what is wrong); every value of a table that
/// opens is then read.
pub fn archive(data: &[u8]) {
    let dir = scratch().join("build");
    let _ = std::fs::create_dir_all(dir.join("tables"));
    let _ = std::fs::write(dir.join("tables/item.rkyv"), data);
    let manifest = serde_json::json!({
        "format": masterctl_runtime::FORMAT_VERSION,
        "region": "jp",
        "source_commit": "0",
        "schema_hash": SEED_SCHEMA_HASH,
        "languages": ["ja"],
        "files": [{
            "path": "tables/item.rkyv",
            "kind": "table",
            "name": "item",
            "blake3": blake3::hash(data).to_hex().to_string(),
            "size": data.len(),
            "rows": 0,
        }],
    });
    let _ = std::fs::write(dir.join("manifest.json"), manifest.to_string());
    if let Ok(masters) = masterctl_runtime::Masters::open(&dir)
        && let Some(table) = masters.table("item")
    {
        for row in table.rows() {
            for column in table.columns() {
                let _ = row.get(column);
            }
        }
    }
}

/// A release record or a pointer as a store serves it: parsed as each (a record that
/// parses is checked as fetch checks it).
pub fn release(data: &[u8]) {
    use masterctl_delivery::layout::{Pointer, Release};
    let key = "releases/jp/x.json";
    if let Ok(release) = Release::parse(data, key, "fuzz", "jp") {
        // A manifest it holds (format 1) is one fetch may follow; one it names (format 2)
        // is checked when read.
        assert!(release.manifest.is_none_or(|m| m.check().is_ok()));
        assert!(release.manifest_size <= masterctl_runtime::MANIFEST_LIMIT);
    }
    let _ = Pointer::parse(data, "regions/jp/current.json", "fuzz", "jp");
}

/// A build's `manifest.json`: one that passes the check names each file once, inside
/// the build, one size per hash.
pub fn manifest(data: &[u8]) {
    let Ok(manifest) = serde_json::from_slice::<masterctl_runtime::Manifest>(data) else {
        return;
    };
    if manifest.check().is_ok() {
        let mut paths = std::collections::HashSet::new();
        for file in &manifest.files {
            assert!(paths.insert(file.path.as_str()), "{} twice", file.path);
            assert!(!file.path.split('/').any(|p| matches!(p, "" | "." | "..")));
        }
    }
}

/// Text from a schema (a description, an enum value) through every escaper of every
/// language: a doc comment never holds a line terminator of any language inside a line
/// nor `*/`; a string literal and `inert` text never hold one at all, nor a bare quote.
pub fn codegen(data: &[u8]) {
    use masterctl_codegen::Lang;
    use masterctl_codegen::names;
    let text = String::from_utf8_lossy(data);
    let breaks = |c: char| c.is_control() || names::needs_escape(c);
    for lang in [Lang::Rust, Lang::CSharp, Lang::Go, Lang::TypeScript] {
        let doc = names::doc_lines(lang, &text, "///");
        for line in doc.lines() {
            assert!(line.starts_with("///"), "{line:?}");
            assert!(!line.chars().any(breaks), "{line:?}");
            assert!(!line.contains("*/"), "{line:?}");
        }
        let literal = names::literal(lang, &text);
        let inside = &literal[1..literal.len() - 1];
        assert!(!inside.chars().any(breaks), "{literal:?}");
        let inert = names::inert(lang, &text);
        assert!(
            !inert.chars().any(breaks) && !inert.contains("*/"),
            "{inert:?}"
        );
        let _ = names::type_name(lang, &text);
        let _ = names::safe_ident(lang, &text);
    }
    let _ = names::enum_idents(&[text.as_ref(), "a", text.as_ref()]);
}
