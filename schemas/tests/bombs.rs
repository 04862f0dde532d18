//! Decompression bombs: a few hundred kilobytes that unpack to hundreds of megabytes of
//! spaces, or an ods sheet whose repeat counts ask for billions of cells. Each is
//! refused before it is unpacked or expanded, with an error naming the file.

mod common;

use std::io::Write;
use std::path::Path;

use common::*;
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

#[test]
fn an_ods_whose_repeats_ask_for_billions_of_cells_is_refused_unexpanded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("repeats.ods");
    let content = br#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Monster"><table:table-row><table:table-cell office:value-type="string"><text:p>id</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="5000"><table:table-cell table:number-columns-repeated="16000" office:value-type="float" office:value="1"><text:p>1</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"#;
    zip_parts(
        &path,
        &[
            (
                "mimetype",
                b"application/vnd.oasis.opendocument.spreadsheet",
                1,
            ),
            ("content.xml", content, 1),
        ],
    );
    // Refused from the counts alone (expanding it takes 7 GB).
    refused(&path, "repeated rows and columns");
}
