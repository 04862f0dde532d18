//! One exported workbook as an OpenDocument spreadsheet (`.ods`, what LibreOffice
//! saves by default): `mimetype` first and stored, the manifest, the sheets in
//! `content.xml`, the commit and region as user-defined properties in `meta.xml` (which
//! `schemas::read::workbook::export_record` reads back). The sheets' looks as the xlsx
//! writer gives them: column widths, each header's note (an annotation), drop-down
//! lists (content validations) and the header kept in view (`settings.xml`); none of it
//! is read back. XML through quick-xml, which
//! escapes every text and attribute; a text's spaces, tabs and line breaks written as
//! ODF's elements, so that they survive the whitespace collapsing ODF readers do.

use std::io::{Cursor, Write};

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use super::looks::{Choices, column_letters};
use super::{COMMIT_PROPERTY, Cell, Export, REGION_PROPERTY, Sheet, Workbook};

const MIMETYPE: &str = "application/vnd.oasis.opendocument.spreadsheet";
const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
const TABLE: &str = "urn:oasis:names:tc:opendocument:xmlns:table:1.0";
const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
const META: &str = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0";
const MANIFEST: &str = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0";
const STYLE: &str = "urn:oasis:names:tc:opendocument:xmlns:style:1.0";
const CONFIG: &str = "urn:oasis:names:tc:opendocument:xmlns:config:1.0";
/// OpenFormula's namespace: a condition's `of:` prefix means nothing to a reader without it.
const FORMULA: &str = "urn:oasis:names:tc:opendocument:xmlns:of:1.2";
/// A column's width per character (a spreadsheet's default font: 7 pixels at 96 dpi).
const INCHES_PER_CHARACTER: f64 = 7.0 / 96.0;

/// Why a workbook could not be written.
#[derive(Debug)]
pub struct OdsError(pub String);

impl From<std::io::Error> for OdsError {
    fn from(e: std::io::Error) -> OdsError {
        OdsError(e.to_string())
    }
}

impl From<zip::result::ZipError> for OdsError {
    fn from(e: zip::result::ZipError) -> OdsError {
        OdsError(e.to_string())
    }
}

/// The `.ods` bytes of `workbook`, its commit and region recorded.
pub fn ods_bytes(export: &Export, workbook: &Workbook) -> Result<Vec<u8>, OdsError> {
    use zip::write::SimpleFileOptions;
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    // ODF: `mimetype` is the first entry, stored uncompressed.
    let stored = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    let deflated = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1));
    zip.start_file("mimetype", stored)?;
    zip.write_all(MIMETYPE.as_bytes())?;
    zip.start_file("META-INF/manifest.xml", deflated)?;
    zip.write_all(&manifest()?)?;
    zip.start_file("meta.xml", deflated)?;
    zip.write_all(&meta(export)?)?;
    zip.start_file("content.xml", deflated)?;
    zip.write_all(&content(workbook)?)?;
    zip.start_file("settings.xml", deflated)?;
    zip.write_all(&settings(workbook)?)?;
    Ok(zip.finish()?.into_inner())
}

fn document(root: &str, namespaces: &[(&str, &str)]) -> (Writer<Vec<u8>>, BytesStart<'static>) {
    let mut writer = Writer::new(Vec::new());
    let mut start = BytesStart::new(root.to_string());
    for (prefix, uri) in namespaces {
        start.push_attribute((format!("xmlns:{prefix}").as_str(), *uri));
    }
    // Ignore a failure to write into a Vec: it cannot fail.
    let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    (writer, start)
}

/// An ODF document's writer, its root element (`root`, declaring `namespaces`, ODF 1.2)
/// opened.
fn office_document(root: &str, namespaces: &[(&str, &str)]) -> Result<Writer<Vec<u8>>, OdsError> {
    let (mut writer, mut start) = document(root, namespaces);
    start.push_attribute(("office:version", "1.2"));
    writer.write_event(Event::Start(start)).map_err(xml_error)?;
    Ok(writer)
}

fn xml_error(e: impl std::fmt::Display) -> OdsError {
    OdsError(e.to_string())
}

/// `<name attributes…>text</name>`.
fn text_element(
    writer: &mut Writer<Vec<u8>>,
    name: &str,
    attributes: &[(&str, &str)],
    text: &str,
) -> Result<(), OdsError> {
    let mut element = writer.create_element(name);
    for attribute in attributes {
        element = element.with_attribute(*attribute);
    }
    element
        .write_text_content(BytesText::new(text))
        .map(drop)
        .map_err(xml_error)
}

/// `<name>`.
fn open(writer: &mut Writer<Vec<u8>>, name: &str) -> Result<(), OdsError> {
    writer
        .write_event(Event::Start(BytesStart::new(name)))
        .map_err(xml_error)
}

/// `</name>`.
fn close(writer: &mut Writer<Vec<u8>>, name: &str) -> Result<(), OdsError> {
    writer
        .write_event(Event::End(BytesEnd::new(name)))
        .map_err(xml_error)
}

fn manifest() -> Result<Vec<u8>, OdsError> {
    let (mut writer, mut root) = document("manifest:manifest", &[("manifest", MANIFEST)]);
    root.push_attribute(("manifest:version", "1.2"));
    writer.write_event(Event::Start(root)).map_err(xml_error)?;
    for (path, media) in [
        ("/", MIMETYPE),
        ("content.xml", "text/xml"),
        ("meta.xml", "text/xml"),
        ("settings.xml", "text/xml"),
    ] {
        let mut entry = BytesStart::new("manifest:file-entry");
        entry.push_attribute(("manifest:full-path", path));
        entry.push_attribute(("manifest:media-type", media));
        if path == "/" {
            entry.push_attribute(("manifest:version", "1.2"));
        }
        writer.write_event(Event::Empty(entry)).map_err(xml_error)?;
    }
    close(&mut writer, "manifest:manifest")?;
    Ok(writer.into_inner())
}

fn meta(export: &Export) -> Result<Vec<u8>, OdsError> {
    let mut writer = office_document(
        "office:document-meta",
        &[("office", OFFICE), ("meta", META)],
    )?;
    open(&mut writer, "office:meta")?;
    writer
        .create_element("meta:generator")
        .write_text_content(BytesText::new(concat!(
            "masterctl/",
            env!("CARGO_PKG_VERSION")
        )))
        .map_err(xml_error)?;
    for (name, value) in [
        (COMMIT_PROPERTY, export.commit.as_str()),
        (REGION_PROPERTY, export.region.as_str()),
    ] {
        text_element(
            &mut writer,
            "meta:user-defined",
            &[("meta:name", name), ("meta:value-type", "string")],
            value,
        )?;
    }
    close(&mut writer, "office:meta")?;
    close(&mut writer, "office:document-meta")?;
    Ok(writer.into_inner())
}

fn content(workbook: &Workbook) -> Result<Vec<u8>, OdsError> {
    let mut writer = office_document(
        "office:document-content",
        &[
            ("office", OFFICE),
            ("table", TABLE),
            ("text", TEXT),
            ("style", STYLE),
            ("of", FORMULA),
        ],
    )?;
    column_styles(&mut writer, workbook)?;
    for name in ["office:body", "office:spreadsheet"] {
        open(&mut writer, name)?;
    }
    let lists = drop_downs(workbook);
    validations(&mut writer, &lists)?;
    for ((s, sheet), lists) in workbook.sheets.iter().enumerate().zip(&lists) {
        let mut table = BytesStart::new("table:table");
        table.push_attribute(("table:name", sheet.name.as_str()));
        writer.write_event(Event::Start(table)).map_err(xml_error)?;
        for (c, _) in sheet.looks.iter().enumerate() {
            let mut column = BytesStart::new("table:table-column");
            column.push_attribute(("table:style-name", column_style(s, c).as_str()));
            writer
                .write_event(Event::Empty(column))
                .map_err(xml_error)?;
        }
        let header: Vec<Cell> = sheet.header.iter().map(|h| Cell::Text(h)).collect();
        let rows = sheet
            .rows
            .iter()
            .map(|row| row.cells().collect::<Vec<Cell>>());
        for (r, row) in std::iter::once(header).chain(rows).enumerate() {
            open(&mut writer, "table:table-row")?;
            for (c, cell) in row.into_iter().enumerate() {
                // A column's note on its header, its list on its rows; a turned sheet's
                // row's note on its name, its list on its records.
                let row_look = r.checked_sub(1).and_then(|at| sheet.row_looks.get(at));
                let row_list = r.checked_sub(1).and_then(|at| lists.rows.get(at));
                let (note, list) = match (r, c) {
                    (0, c) => (sheet.looks.get(c).and_then(|l| l.note.as_deref()), None),
                    (_, 0) => (
                        row_look.and_then(|l| l.note.as_deref()),
                        lists.columns.first(),
                    ),
                    (_, c) => (None, row_list.or(lists.columns.get(c))),
                };
                let shown = Shown {
                    note,
                    validation: list.and_then(Option::as_ref).map(|list| list.name.as_str()),
                };
                write_cell(&mut writer, cell, &shown).map_err(|why| {
                    OdsError(format!(
                        "sheet {} row {} column {}: {}",
                        sheet.name,
                        r + 1,
                        c + 1,
                        why.0
                    ))
                })?;
            }
            close(&mut writer, "table:table-row")?;
        }
        close(&mut writer, "table:table")?;
    }
    for name in [
        "office:spreadsheet",
        "office:body",
        "office:document-content",
    ] {
        close(&mut writer, name)?;
    }
    Ok(writer.into_inner())
}

/// What a cell carries besides its value: its column's note (on the header) and
/// drop-down (on the rows).
struct Shown<'a> {
    note: Option<&'a str>,
    validation: Option<&'a str>,
}

/// The name of sheet `s`'s column `c`'s style.
fn column_style(s: usize, c: usize) -> String {
    format!("co{s}-{c}")
}

/// A style per column, its width.
fn column_styles(writer: &mut Writer<Vec<u8>>, workbook: &Workbook) -> Result<(), OdsError> {
    open(writer, "office:automatic-styles")?;
    for (s, sheet) in workbook.sheets.iter().enumerate() {
        for (c, look) in sheet.looks.iter().enumerate() {
            let mut style = BytesStart::new("style:style");
            style.push_attribute(("style:name", column_style(s, c).as_str()));
            style.push_attribute(("style:family", "table-column"));
            writer.write_event(Event::Start(style)).map_err(xml_error)?;
            let mut width = BytesStart::new("style:table-column-properties");
            let inches = format!("{:.3}in", look.width * INCHES_PER_CHARACTER);
            width.push_attribute(("style:column-width", inches.as_str()));
            writer.write_event(Event::Empty(width)).map_err(xml_error)?;
            close(writer, "style:style")?;
        }
    }
    close(writer, "office:automatic-styles")
}

/// A column's drop-down list: its name, its condition, and the first cell it applies to.
struct DropDown {
    name: String,
    condition: String,
    first: String,
}

/// A sheet's drop-down lists: a column's where it has one, and for a sheet turned down a
/// column, a row's.
struct DropDowns {
    columns: Vec<Option<DropDown>>,
    rows: Vec<Option<DropDown>>,
}

/// Each sheet's drop-down lists ([`DropDowns`]): worked out once, named in
/// `content.xml`'s validations and on every cell they apply to.
fn drop_downs(workbook: &Workbook) -> Vec<DropDowns> {
    (workbook.sheets.iter().enumerate())
        .map(|(s, sheet)| {
            let sheet_name = sheet.name.replace('\'', "''");
            let columns = (sheet.looks.iter().enumerate())
                .map(|(c, look)| {
                    Some(DropDown {
                        condition: condition(&look.choices)?,
                        name: format!("list{s}-{c}"),
                        first: format!("'{sheet_name}'.{}2", column_letters(c)),
                    })
                })
                .collect();
            // A row's list starts right of its name (row 1 is the marker's).
            let rows = (sheet.row_looks.iter().enumerate())
                .map(|(r, look)| {
                    Some(DropDown {
                        condition: condition(&look.choices)?,
                        name: format!("row{s}-{r}"),
                        first: format!("'{sheet_name}'.B{}", r + 2),
                    })
                })
                .collect();
            DropDowns { columns, rows }
        })
        .collect()
}

/// The drop-down lists of every sheet's columns and rows, by name.
fn validations(writer: &mut Writer<Vec<u8>>, lists: &[DropDowns]) -> Result<(), OdsError> {
    let mut lists = (lists.iter())
        .flat_map(|sheet| sheet.columns.iter().chain(&sheet.rows))
        .flatten()
        .peekable();
    if lists.peek().is_none() {
        return Ok(());
    }
    open(writer, "table:content-validations")?;
    for list in lists {
        let mut start = BytesStart::new("table:content-validation");
        start.push_attribute(("table:name", list.name.as_str()));
        start.push_attribute(("table:condition", list.condition.as_str()));
        start.push_attribute(("table:allow-empty-cell", "true"));
        start.push_attribute(("table:display-list", "unsorted"));
        start.push_attribute(("table:base-cell-address", list.first.as_str()));
        writer.write_event(Event::Start(start)).map_err(xml_error)?;
        // A value not in the list is refused as it is typed, as in the xlsx.
        let mut refused = BytesStart::new("table:error-message");
        refused.push_attribute(("table:message-type", "stop"));
        refused.push_attribute(("table:display", "true"));
        writer
            .write_event(Event::Empty(refused))
            .map_err(xml_error)?;
        close(writer, "table:content-validation")?;
    }
    close(writer, "table:content-validations")
}

/// A drop-down's condition in OpenFormula: its values, or the range of a sheet
/// (`'Category'!$A$2:$A$3` is `[$'Category'.$A$2:.$A$3]`).
fn condition(choices: &Choices) -> Option<String> {
    let list = match choices {
        Choices::Values(values) => (values.iter())
            .map(|v| format!("\"{}\"", v.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(";"),
        Choices::Range(range) => {
            let (sheet, cells) = range.rsplit_once('!')?;
            let (first, last) = cells.split_once(':')?;
            format!("[${sheet}.{first}:.{last}]")
        }
        Choices::None | Choices::Reference { .. } => return None,
    };
    Some(format!("of:cell-content-is-in-list({list})"))
}

/// `settings.xml`: each sheet's header kept in view (its first row frozen), as
/// LibreOffice records it.
fn settings(workbook: &Workbook) -> Result<Vec<u8>, OdsError> {
    let mut writer = office_document(
        "office:document-settings",
        &[("office", OFFICE), ("config", CONFIG)],
    )?;
    open(&mut writer, "office:settings")?;
    open_named(&mut writer, "config:config-item-set", "ooo:view-settings")?;
    open_named(&mut writer, "config:config-item-map-indexed", "Views")?;
    open(&mut writer, "config:config-item-map-entry")?;
    config_item(&mut writer, "ViewId", "string", "view1")?;
    open_named(&mut writer, "config:config-item-map-named", "Tables")?;
    for sheet in &workbook.sheets {
        frozen_header(&mut writer, sheet)?;
    }
    for name in [
        "config:config-item-map-named",
        "config:config-item-map-entry",
        "config:config-item-map-indexed",
        "config:config-item-set",
        "office:settings",
        "office:document-settings",
    ] {
        close(&mut writer, name)?;
    }
    Ok(writer.into_inner())
}

/// One sheet's view: split below its first row, the split frozen, the rows below it
/// the part that scrolls.
fn frozen_header(writer: &mut Writer<Vec<u8>>, sheet: &Sheet) -> Result<(), OdsError> {
    open_named(writer, "config:config-item-map-entry", &sheet.name)?;
    for (name, kind, value) in [
        ("HorizontalSplitMode", "short", "0"),
        ("VerticalSplitMode", "short", "2"),
        ("VerticalSplitPosition", "int", "1"),
        ("ActiveSplitRange", "short", "2"),
        ("PositionTop", "int", "0"),
        ("PositionBottom", "int", "1"),
    ] {
        config_item(writer, name, kind, value)?;
    }
    close(writer, "config:config-item-map-entry")
}

/// `<element config:name="name">`.
fn open_named(writer: &mut Writer<Vec<u8>>, element: &str, name: &str) -> Result<(), OdsError> {
    let mut start = BytesStart::new(element);
    start.push_attribute(("config:name", name));
    writer.write_event(Event::Start(start)).map_err(xml_error)
}

/// `<config:config-item config:name="name" config:type="kind">value</…>`.
fn config_item(
    writer: &mut Writer<Vec<u8>>,
    name: &str,
    kind: &str,
    value: &str,
) -> Result<(), OdsError> {
    let attributes = [("config:name", name), ("config:type", kind)];
    text_element(writer, "config:config-item", &attributes, value)
}

fn write_cell(
    writer: &mut Writer<Vec<u8>>,
    cell: Cell<'_>,
    with: &Shown<'_>,
) -> Result<(), OdsError> {
    let mut start = BytesStart::new("table:table-cell");
    if let Some(name) = with.validation {
        start.push_attribute(("table:content-validation-name", name));
    }
    let shown = match cell {
        Cell::Empty => {
            return writer.write_event(Event::Empty(start)).map_err(xml_error);
        }
        Cell::Number(x) => {
            start.push_attribute(("office:value-type", "float"));
            start.push_attribute(("office:value", x.to_string().as_str()));
            x.to_string()
        }
        Cell::Bool(b) => {
            start.push_attribute(("office:value-type", "boolean"));
            start.push_attribute(("office:boolean-value", if b { "true" } else { "false" }));
            if b { "TRUE" } else { "FALSE" }.to_string()
        }
        // A number a spreadsheet would round, as text it keeps.
        Cell::Digits(text) => {
            start.push_attribute(("office:value-type", "string"));
            text.to_owned()
        }
        Cell::Text(text) => {
            if let Some(c) = text
                .chars()
                .find(|c| c.is_control() && !matches!(c, '\t' | '\n'))
            {
                return Err(OdsError(format!(
                    "the text holds the control character U+{:04X}, which an ODS file cannot; export as xlsx",
                    u32::from(c)
                )));
            }
            start.push_attribute(("office:value-type", "string"));
            text.to_owned()
        }
    };
    writer.write_event(Event::Start(start)).map_err(xml_error)?;
    if let Some(note) = with.note {
        // (A control character a schema's description may hold is no XML.)
        let note: String = (note.chars())
            .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
            .collect();
        open(writer, "office:annotation")?;
        for line in note.split('\n') {
            write_paragraph(writer, line)?;
        }
        close(writer, "office:annotation")?;
    }
    for line in shown.split('\n') {
        write_paragraph(writer, line)?;
    }
    close(writer, "table:table-cell")
}

/// One line of a cell's text as `<text:p>`: a space at either end or after another
/// space, and every tab, written as an element (`<text:s/>`, `<text:tab/>`), since ODF
/// collapses white space in text.
fn write_paragraph(writer: &mut Writer<Vec<u8>>, line: &str) -> Result<(), OdsError> {
    open(writer, "text:p")?;
    let mut run = String::new();
    let mut previous_space = true; // a space at the start is kept as an element
    let chars: Vec<char> = line.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let last = i + 1 == chars.len();
        let element = match c {
            '\t' => Some("text:tab"),
            ' ' if previous_space || last => Some("text:s"),
            _ => None,
        };
        previous_space = c == ' ';
        match element {
            Some(name) => {
                if !run.is_empty() {
                    writer
                        .write_event(Event::Text(BytesText::new(&run)))
                        .map_err(xml_error)?;
                    run.clear();
                }
                writer
                    .write_event(Event::Empty(BytesStart::new(name)))
                    .map_err(xml_error)?;
            }
            None => run.push(c),
        }
    }
    if !run.is_empty() {
        writer
            .write_event(Event::Text(BytesText::new(&run)))
            .map_err(xml_error)?;
    }
    close(writer, "text:p")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::{Rows, Sheet, Workbook};
    use masterctl_schemas::Value;

    /// One workbook of one sheet, `note`, and its export.
    fn note(header: &[&str], rows: Vec<Vec<Cell>>) -> (Export, Workbook) {
        let workbook = Workbook {
            path: "note.xlsx".into(),
            sourced: false,
            sheets: vec![Sheet {
                looks: Vec::new(),
                table: "note".into(),
                name: "note".into(),
                header: header.iter().map(|h| h.to_string()).collect(),
                rows: Rows::of(header.len(), rows).unwrap(),
                layout: Default::default(),
                row_looks: Vec::new(),
            }],
        };
        let export = Export {
            region: "jp".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            workbooks: vec![workbook.clone()],
        };
        (export, workbook)
    }

    /// The ODS `bytes` as `note.ods` in a folder, read as import reads it (`id`, `body`,
    /// `ok`): nothing to say, and its one table.
    fn read_back(bytes: &[u8]) -> (tempfile::TempDir, masterctl_schemas::Table) {
        let project = masterctl_schemas::load::load_from_files(
            None,
            vec![(
                "schemas/note.toml".into(),
                "name = \"note\"\nprimary_key = [\"id\"]\n[[fields]]\nname = \"id\"\ntype = \"int\"\n[[fields]]\nname = \"body\"\ntype = \"string\"\n[[fields]]\nname = \"ok\"\ntype = \"bool\"\noptional = true\n".into(),
            )],
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.ods");
        std::fs::write(&path, bytes).unwrap();
        let mut read = masterctl_schemas::read::workbook::read(&project, &path);
        assert!(read.report.diagnostics.is_empty(), "{:?}", read.report);
        (dir, read.tables.remove(0))
    }

    /// Texts whose spaces, tabs, line breaks and markup an ODF reader would collapse or
    /// misread, written and read back (by the reader import uses) exactly; numbers,
    /// booleans and empty cells as their types; the commit recorded.
    #[test]
    fn every_text_reads_back_exactly() {
        let texts = [
            "plain",
            "  two leading",
            "a  b   c",
            "trailing ",
            " ",
            "tab\there",
            "line one\nline two\n",
            "<b>&amp;</b> \"quoted\" 'single'",
            "竜の山 ✨",
        ];
        let rows: Vec<Vec<Cell>> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                vec![
                    Cell::Number(i as f64 + 1.0),
                    Cell::Text(text),
                    if i % 2 == 0 {
                        Cell::Bool(i % 4 == 0)
                    } else {
                        Cell::Empty
                    },
                ]
            })
            .collect();
        let (export, workbook) = note(&["id", "body", "ok"], rows);
        let (dir, table) = read_back(&ods_bytes(&export, &workbook).unwrap());
        let path = dir.path().join("note.ods");
        for (i, text) in texts.iter().enumerate() {
            assert_eq!(table.value(i, 1), &Value::Str((*text).into()), "row {i}");
            let ok = match i % 4 {
                0 => Value::Bool(true),
                2 => Value::Bool(false),
                _ => Value::Null,
            };
            assert_eq!(table.value(i, 2), &ok, "row {i}");
        }
        let record = masterctl_schemas::read::workbook::export_record(&path).unwrap();
        assert_eq!(record.commit, export.commit);
        assert_eq!(record.region.as_deref(), Some("jp"));
    }

    #[test]
    fn a_sheet_has_its_widths_notes_drop_downs_and_frozen_header_and_reads_back_the_same() {
        use crate::export::Look;
        let (export, mut workbook) = note(
            &["id", "body", "ok"],
            vec![
                vec![Cell::Number(1.0), Cell::Text("one"), Cell::Bool(true)],
                vec![Cell::Number(2.0), Cell::Text("two"), Cell::Empty],
            ],
        );
        workbook.sheets[0].looks = vec![
            Look {
                field: Some("id".into()),
                note: Some("The note's key\nint, key".into()),
                choices: Choices::Range("'Other '' sheet'!$A$2:$A$9".into()),
                whole: true,
                width: 12.0,
            },
            Look {
                field: Some("body".into()),
                note: Some("A \"quoted\" text\u{7}".into()),
                choices: Choices::Values(vec!["one".into(), "t\"wo".into()]),
                whole: false,
                width: 24.0,
            },
            Look::default(),
        ];
        let bytes = ods_bytes(&export, &workbook).unwrap();
        let part = masterctl_testing::zip_part;
        let content = part(&bytes, "content.xml");
        for said in [
            "style:column-width=\"0.875in\"",
            "<table:table-column table:style-name=\"co0-1\"/>",
            "table:condition=\"of:cell-content-is-in-list([$&apos;Other &apos;&apos; sheet&apos;.$A$2:.$A$9])\"",
            "table:condition=\"of:cell-content-is-in-list(&quot;one&quot;;&quot;t&quot;&quot;wo&quot;)\"",
            "<table:table-cell table:content-validation-name=\"list0-1\" office:value-type=\"string\">",
            "<office:annotation><text:p>The note&apos;s key</text:p><text:p>int, key</text:p></office:annotation>",
            "<text:p>A &quot;quoted&quot; text<text:s/></text:p>",
        ] {
            assert!(content.contains(said), "{said}\n{content}");
        }
        // The header's cells hold no drop-down; the rows' do.
        assert!(!content.contains(
            "validation-name=\"list0-1\" office:value-type=\"string\"><office:annotation"
        ));
        let settings = part(&bytes, "settings.xml");
        assert!(
            settings.contains("<config:config-item-map-entry config:name=\"note\"><config:config-item config:name=\"HorizontalSplitMode\" config:type=\"short\">0</config:config-item><config:config-item config:name=\"VerticalSplitMode\" config:type=\"short\">2</config:config-item><config:config-item config:name=\"VerticalSplitPosition\" config:type=\"int\">1</config:config-item>"),
            "{settings}"
        );
        assert!(part(&bytes, "META-INF/manifest.xml").contains("settings.xml"));
        // None of it is data: the header and the cells read back as written.
        let (_dir, table) = read_back(&bytes);
        assert_eq!(table.value(1, 1), &Value::Str("two".into()));
    }

    #[test]
    fn a_control_character_is_refused_by_its_cell() {
        let (export, workbook) = note(&["body"], vec![vec![Cell::Text("bell\u{7}")]]);
        let error = ods_bytes(&export, &workbook).unwrap_err().0;
        assert!(
            error.contains("sheet note row 2 column 1") && error.contains("U+0007"),
            "{error}"
        );
    }
}
