//! Hostile workbooks: decompression bombs (a few hundred kilobytes that unpack to
//! hundreds of megabytes of spaces, an ods sheet whose repeat counts ask for billions of
//! cells) and damaged shared-string indexes. Each is refused before it is unpacked or
//! expanded, with an error naming the file.

use std::io::Write;
use std::path::Path;

use crate::common::*;
use masterctl_schemas::read::read_file;
use masterctl_schemas::read::workbook::MAX_PART_BYTES;

/// A zip of `(name, chunks)` parts, each chunk written `times` times.
fn zip_parts(path: &Path, parts: &[(&str, &[u8], usize)]) {
    let file = std::fs::File::create(path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    for (name, chunk, times) in parts {
        zip.start_file(*name, options).unwrap();
        for _ in 0..*times {
            zip.write_all(chunk).unwrap();
        }
    }
    zip.finish().unwrap();
}

const CONTENT_TYPES: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>"#;
const RELS: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>"#;
const WORKBOOK: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Monster" sheetId="1" r:id="rId1"/></sheets></workbook>"#;
const WORKBOOK_RELS: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/></Relationships>"#;

fn refused(path: &Path, words: &str) {
    let outcome = read_file(&project(&hunt()), path);
    assert!(outcome.tables.is_empty());
    let d = outcome
        .report
        .diagnostics
        .iter()
        .find(|d| d.message.contains(words))
        .unwrap_or_else(|| panic!("no `{words}` in {:?}", outcome.report.diagnostics));
    assert_eq!(d.location.file.as_deref(), Some(path));
}

#[test]
fn an_xlsx_unpacking_past_the_limit_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("spaces.xlsx");
    let chunk = vec![b' '; 1 << 20];
    let times = (MAX_PART_BYTES >> 20) as usize + 1;
    zip_parts(
        &path,
        &[
            ("[Content_Types].xml", CONTENT_TYPES, 1),
            ("_rels/.rels", RELS, 1),
            ("xl/workbook.xml", WORKBOOK, 1),
            ("xl/_rels/workbook.xml.rels", WORKBOOK_RELS, 1),
            ("xl/worksheets/sheet1.xml", &chunk, times),
        ],
    );
    assert!(std::fs::metadata(&path).unwrap().len() < 2 << 20);
    refused(&path, "unpacks to");
}

/// An ods whose `content.xml` holds `table` (its one sheet's XML, `Monster`).
fn ods_with_sheet(path: &Path, table: &str) {
    let content = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Monster">{table}</table:table></office:spreadsheet></office:body></office:document-content>"#
    );
    zip_parts(
        path,
        &[
            (
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet",
                1,
            ),
            ("content.xml", content.as_bytes(), 1),
            ("META-INF/manifest.xml", ODS_MANIFEST, 1),
        ],
    );
}

const ODS_MANIFEST: &[u8] = br#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#;

#[test]
fn an_ods_whose_repeats_ask_for_billions_of_cells_is_refused_unexpanded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repeats.ods");
    let header = r#"<table:table-row><table:table-cell office:value-type="string"><text:p>id</text:p></table:table-cell></table:table-row>"#;
    let repeats = r#"<table:table-row table:number-rows-repeated="5000"><table:table-cell table:number-columns-repeated="16000" office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row>"#;
    // Refused from the counts alone (expanding it takes 7 GB), also after an end tag
    // that names another element (calamine's reader reads on past it).
    for stray in ["", "</table:other>"] {
        ods_with_sheet(&path, &format!("{header}{stray}{repeats}"));
        refused(&path, "repeated rows and columns");
    }
}

/// An ods boolean calamine would read as false though it is not `false` (ODF's `1`, a
/// `True`) is refused, naming the cell; what calamine reads as written passes.
#[test]
fn an_ods_boolean_read_as_false_though_it_is_not_is_refused() {
    use calamine::{Data, Ods, Reader};
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("booleans.ods");
    for said in ["1", "True", " true", "true", "TRUE", "false", "FALSE"] {
        let table = format!(
            r#"<table:table-row><table:table-cell office:value-type="string"><text:p>id</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="2"><table:table-cell/></table:table-row><table:table-row><table:table-cell/><table:table-cell office:value-type="boolean" office:boolean-value="{said}"><text:p>x</text:p></table:table-cell></table:table-row>"#
        );
        ods_with_sheet(&path, &table);
        let mut ods: Ods<_> = calamine::open_workbook(&path).unwrap();
        let range = ods.worksheet_range("Monster").unwrap();
        let says = matches!(said.trim(), "1" | "True" | "true" | "TRUE");
        let read_right = range.get_value((3, 1)) == Some(&Data::Bool(says));
        let refusal = read_file(&project(&hunt()), &path)
            .report
            .diagnostics
            .into_iter()
            .find(|d| d.message.contains("holds the boolean"));
        assert_eq!(refusal.is_some(), !read_right, "{said:?}: {refusal:?}");
        if let Some(refusal) = refusal {
            assert!(
                refusal.message.contains("cell B4 of sheet `Monster`"),
                "{refusal:?}"
            );
        }
    }
}

/// A workbook whose row 2 is `cells` (the shared strings: `id`, `name`, `s2`, `s3`).
fn shared_string_workbook(path: &Path, cells: &str) {
    shared_string_workbook_at(path, cells, "worksheets/sheet1.xml");
}

/// [`shared_string_workbook`] with its sheet where the workbook's relationships say
/// (`target`, under `xl/`).
fn shared_string_workbook_at(path: &Path, cells: &str, target: &str) {
    let strings = r#"<si><t>id</t></si><si><t>name</t></si><si><t>s2</t></si><si><t>s3</t></si>"#;
    let rows = format!(r#"<row r="2"><c r="A2"><v>100</v></c>{cells}</row>"#);
    shared_strings_workbook(path, strings, &rows, target);
}

/// A workbook of one sheet at `target` (under `xl/`): a header row of shared strings 0
/// and 1 (`id`, `name`), then `rows`; its shared strings are `strings` (`<si>`s).
fn shared_strings_workbook(path: &Path, strings: &str, rows: &str, target: &str) {
    let content_types = String::from_utf8_lossy(CONTENT_TYPES).replace(
        "</Types>",
        r#"<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>"#,
    );
    let rels = String::from_utf8_lossy(WORKBOOK_RELS)
        .replace("worksheets/sheet1.xml", target)
        .replace(
            "</Relationships>",
            r#"<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>"#,
        );
    let sheet_part = format!("xl/{target}");
    let strings = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">{strings}</sst>"#
    );
    let sheet = format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>{rows}</sheetData></worksheet>"#
    );
    zip_parts(
        path,
        &[
            ("[Content_Types].xml", content_types.as_bytes(), 1),
            ("_rels/.rels", RELS, 1),
            ("xl/workbook.xml", WORKBOOK, 1),
            ("xl/_rels/workbook.xml.rels", rels.as_bytes(), 1),
            ("xl/sharedStrings.xml", strings.as_bytes(), 1),
            (&sheet_part, sheet.as_bytes(), 1),
        ],
    );
}

/// A few kilobytes whose cells all point at one long shared string: typed, each cell
/// would hold the string again (a thousand cells of 1 MiB: gigabytes). The text a
/// sheet's cells hold is bounded where the sheet is read, each cell counted.
#[test]
fn cells_that_repeat_a_long_shared_string_are_refused_before_they_are_typed() {
    use masterctl_schemas::read::workbook::MAX_SHEET_TEXT;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("monster.xlsx");
    let long = "x".repeat(1 << 20);
    let strings = format!(r#"<si><t>id</t></si><si><t>name</t></si><si><t>{long}</t></si>"#);
    let cells = (MAX_SHEET_TEXT >> 20) + 8;
    let rows: String = (0..cells)
        .map(|i| {
            let r = i + 2;
            format!(
                r#"<row r="{r}"><c r="A{r}"><v>{r}</v></c><c r="B{r}" t="s"><v>2</v></c></row>"#
            )
        })
        .collect();
    shared_strings_workbook(&path, &strings, &rows, "worksheets/sheet1.xml");
    assert!(
        std::fs::metadata(&path).unwrap().len() < 64 << 10,
        "a small file"
    );
    refused(&path, "MiB of text in all");
    // As many cells sharing a short text are no bomb: read and typed.
    let strings = r#"<si><t>id</t></si><si><t>name</t></si><si><t>slime</t></si>"#;
    shared_strings_workbook(&path, strings, &rows, "worksheets/sheet1.xml");
    let outcome = read_file(&project(&hunt()), &path);
    assert!(
        !outcome
            .report
            .diagnostics
            .iter()
            .any(|d| d.message.contains("MiB of text")),
        "{:?}",
        outcome.report.diagnostics
    );
}

/// A sheet the workbook hides (or very hides) is read like any other, and said.
#[test]
fn a_hidden_sheet_is_read_and_named_in_a_warning() {
    use masterctl_schemas::Severity;
    let dir = tempfile::tempdir().unwrap();
    for (state, words) in [("hidden", "is hidden"), ("veryHidden", "very hidden")] {
        let path = dir.path().join(format!("{state}.xlsx"));
        let strings = r#"<si><t>id</t></si><si><t>name</t></si><si><t>slime</t></si>"#;
        let rows = r#"<row r="2"><c r="A2"><v>1</v></c><c r="B2" t="s"><v>2</v></c></row>"#;
        shared_strings_workbook(&path, strings, rows, "worksheets/sheet1.xml");
        // The same workbook, its one sheet hidden.
        let hidden = std::fs::read(&path).unwrap();
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(hidden)).unwrap();
        let mut parts = Vec::new();
        for i in 0..archive.len() {
            let mut file = archive.by_index(i).unwrap();
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut file, &mut bytes).unwrap();
            let name = file.name().unwrap().to_string();
            if name == "xl/workbook.xml" {
                let text = String::from_utf8(bytes).unwrap();
                bytes = text
                    .replace(r#"sheetId="1""#, &format!(r#"sheetId="1" state="{state}""#))
                    .into_bytes();
            }
            parts.push((name, bytes));
        }
        let parts: Vec<(&str, &[u8], usize)> = parts
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice(), 1))
            .collect();
        zip_parts(&path, &parts);
        let outcome = read_file(&project(&hunt()), &path);
        assert_eq!(outcome.tables.len(), 1, "{:?}", outcome.report.diagnostics);
        let warning = outcome
            .report
            .diagnostics
            .iter()
            .find(|d| d.code.as_str() == "hidden-sheet")
            .unwrap_or_else(|| panic!("{:?}", outcome.report.diagnostics));
        assert_eq!(warning.severity, Severity::Warning);
        assert!(warning.message.contains(words), "{}", warning.message);
        assert_eq!(warning.location.sheet.as_deref(), Some("Monster"));
    }
}

/// A shared-string index that is not one (`-1`, 2^64) is refused, naming the cell;
/// read as it was, it silently gave the first shared string.
#[test]
fn a_shared_string_index_that_is_no_index_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for index in ["-1", "18446744073709551616", "x"] {
        let path = dir.path().join("monster.xlsx");
        shared_string_workbook(&path, &format!(r#"<c r="B2" t="s"><v>{index}</v></c>"#));
        refused(&path, "cell B2 refers to shared string");
    }
    // Wherever the workbook keeps the sheet: calamine reads it from there.
    let path = dir.path().join("elsewhere.xlsx");
    let cell = r#"<c r="B2" t="s"><v>x</v></c>"#;
    shared_string_workbook_at(&path, cell, "elsewhere/data.bin");
    refused(&path, "cell B2 refers to shared string `x`");
}

/// A cell is read as it is written, however it is spelled: its value's references,
/// comments and CDATA decoded or left out as XML says, markup outside cells holding
/// none, and a shared-string index that is no index refused, naming the cell (calamine
/// took it as the first shared string, and the raw text of `<v>` only up to the first
/// `<` or `&`, without a word).
#[test]
fn a_cell_reads_as_it_is_written_or_is_refused() {
    use masterctl_schemas::read::workbook::for_each_sheet;
    let dir = tempfile::tempdir().unwrap();
    let cases = include_str!("written_cells.txt")
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty());
    for case in cases {
        let (expected, cell) = case.split_once(" <").unwrap();
        let cell = format!("<{cell}").replace("\\t", "\t").replace("\\n", "\n");
        let path = dir.path().join("monster.xlsx");
        shared_string_workbook(&path, &cell);
        let mut read = None;
        let opened = for_each_sheet(&path, |_, grid| {
            read = Some(match grid {
                Ok(grid) => format!("={}", grid.cell(1, 1).display()),
                Err(d) => format!("refused: {}", d.message),
            });
        });
        let read = match opened {
            Ok(()) => read.unwrap(),
            Err(d) => format!("refused: {}", d.message),
        };
        let expected = expected.trim();
        let agrees = match expected.strip_prefix("refused") {
            Some(words) => {
                read.starts_with("refused")
                    && read.contains("cell B2 ")
                    && read.contains(words.trim())
            }
            None => read == expected,
        };
        assert!(agrees, "{cell}: expected {expected}, read {read}");
    }
}
