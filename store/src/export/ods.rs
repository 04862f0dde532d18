//! One exported workbook as an OpenDocument spreadsheet (`.ods`, what LibreOffice
//! saves by default): `mimetype` first and stored, the manifest, the sheets in
//! `content.xml`, the commit and region as user-defined properties in `meta.xml` (which
//! `schemas::read::workbook::export_record` reads back). XML through quick-xml, which
//! escapes every text and attribute; a text's spaces, tabs and line breaks written as
//! ODF's elements, so that they survive the whitespace collapsing ODF readers do.

use std::io::{Cursor, Write};

use quick_xml::Writer;
use quick_xml::events::{BytesDecl, BytesEnd, BytesStart, BytesText, Event};

use super::{COMMIT_PROPERTY, Cell, Export, REGION_PROPERTY, Workbook};

const MIMETYPE: &str = "application/vnd.oasis.opendocument.spreadsheet";
const OFFICE: &str = "urn:oasis:names:tc:opendocument:xmlns:office:1.0";
const TABLE: &str = "urn:oasis:names:tc:opendocument:xmlns:table:1.0";
const TEXT: &str = "urn:oasis:names:tc:opendocument:xmlns:text:1.0";
const META: &str = "urn:oasis:names:tc:opendocument:xmlns:meta:1.0";
const MANIFEST: &str = "urn:oasis:names:tc:opendocument:xmlns:manifest:1.0";

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

fn xml_error(e: impl std::fmt::Display) -> OdsError {
    OdsError(e.to_string())
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
    let (mut writer, mut root) = document(
        "office:document-meta",
        &[("office", OFFICE), ("meta", META)],
    );
    root.push_attribute(("office:version", "1.2"));
    writer.write_event(Event::Start(root)).map_err(xml_error)?;
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
        writer
            .create_element("meta:user-defined")
            .with_attribute(("meta:name", name))
            .with_attribute(("meta:value-type", "string"))
            .write_text_content(BytesText::new(value))
            .map_err(xml_error)?;
    }
    close(&mut writer, "office:meta")?;
    close(&mut writer, "office:document-meta")?;
    Ok(writer.into_inner())
}

fn content(workbook: &Workbook) -> Result<Vec<u8>, OdsError> {
    let (mut writer, mut root) = document(
        "office:document-content",
        &[("office", OFFICE), ("table", TABLE), ("text", TEXT)],
    );
    root.push_attribute(("office:version", "1.2"));
    writer.write_event(Event::Start(root)).map_err(xml_error)?;
    for name in ["office:body", "office:spreadsheet"] {
        open(&mut writer, name)?;
    }
    for sheet in &workbook.sheets {
        let mut table = BytesStart::new("table:table");
        table.push_attribute(("table:name", sheet.name.as_str()));
        writer.write_event(Event::Start(table)).map_err(xml_error)?;
        let header: Vec<Cell> = sheet.header.iter().cloned().map(Cell::Text).collect();
        for (r, row) in std::iter::once(&header).chain(&sheet.rows).enumerate() {
            open(&mut writer, "table:table-row")?;
            for (c, cell) in row.iter().enumerate() {
                write_cell(&mut writer, cell).map_err(|why| {
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

fn write_cell(writer: &mut Writer<Vec<u8>>, cell: &Cell) -> Result<(), OdsError> {
    let mut start = BytesStart::new("table:table-cell");
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
            start.push_attribute(("office:boolean-value", if *b { "true" } else { "false" }));
            if *b { "TRUE" } else { "FALSE" }.to_string()
        }
        // A number a spreadsheet would round, as text it keeps.
        Cell::Digits(text) => {
            start.push_attribute(("office:value-type", "string"));
            text.clone()
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
            text.clone()
        }
    };
    writer.write_event(Event::Start(start)).map_err(xml_error)?;
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
    use crate::export::{Sheet, Workbook};
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
                rows,
            }],
        };
        let export = Export {
            region: "jp".into(),
            commit: "0123456789abcdef0123456789abcdef01234567".into(),
            workbooks: vec![workbook.clone()],
        };
        (export, workbook)
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
        let project = masterctl_schemas::load::load_from_files(
            None,
            vec![(
                "schemas/note.toml".into(),
                "name = \"note\"\nprimary_key = [\"id\"]\n[[fields]]\nname = \"id\"\ntype = \"int\"\n[[fields]]\nname = \"body\"\ntype = \"string\"\n[[fields]]\nname = \"ok\"\ntype = \"bool\"\noptional = true\n".into(),
            )],
        )
        .unwrap();
        let rows: Vec<Vec<Cell>> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| {
                vec![
                    Cell::Number(i as f64 + 1.0),
                    Cell::Text(text.to_string()),
                    if i % 2 == 0 {
                        Cell::Bool(i % 4 == 0)
                    } else {
                        Cell::Empty
                    },
                ]
            })
            .collect();
        let (export, workbook) = note(&["id", "body", "ok"], rows);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("note.ods");
        std::fs::write(&path, ods_bytes(&export, &workbook).unwrap()).unwrap();
        let read = masterctl_schemas::read::workbook::read(&project, &path);
        assert!(read.report.diagnostics.is_empty(), "{:?}", read.report);
        let table = &read.tables[0];
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
    fn a_control_character_is_refused_by_its_cell() {
        let (export, workbook) = note(&["body"], vec![vec![Cell::Text("bell\u{7}".into())]]);
        let error = ods_bytes(&export, &workbook).unwrap_err().0;
        assert!(
            error.contains("sheet note row 2 column 1") && error.contains("U+0007"),
            "{error}"
        );
    }
}
