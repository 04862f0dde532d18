//! The package of an xlsx workbook: its zipped parts, found by name whatever their
//! case or slashes, and the relationships that say which part is the workbook and
//! which parts are its sheets.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};

use quick_xml::events::{BytesStart, Event};

use super::{document_type, xml_error, xml_reader};
use crate::read::workbook::MAX_PART_BYTES;

pub(super) struct Package {
    archive: zip::ZipArchive<BufReader<File>>,
    /// Each part's name as the archive spells it, by its name in lower case with `/`.
    names: HashMap<String, String>,
}

/// The workbook part: where it is (`xl/`) and its name (`workbook.xml`).
pub(super) struct Document {
    folder: String,
    name: String,
}

impl Document {
    /// The path of a part named relative to the workbook's folder.
    pub(super) fn beside(&self, target: &str) -> String {
        resolve(&self.folder, target)
    }
}

/// A sheet the workbook lists: its name, and where its cells are.
pub(super) struct Sheet {
    pub(super) name: String,
    pub(super) kind: SheetKind,
}

pub(super) enum SheetKind {
    /// A worksheet, at this part.
    Worksheet(String),
    /// A chart sheet, dialog sheet or other kind without cells (as it is called).
    Other(String),
}

impl Package {
    pub(super) fn new(archive: zip::ZipArchive<BufReader<File>>) -> Package {
        let names = archive
            .file_names()
            .filter_map(Result::ok)
            .map(|name| (normal(&name), name.into_owned()))
            .collect();
        Package { archive, names }
    }

    /// A part, unpacked; `None` when the package has no such part. The parts' declared
    /// sizes were checked against [`MAX_PART_BYTES`] before, and the zip reader never
    /// produces more than a part declares.
    pub(super) fn part(&mut self, path: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(name) = self.names.get(&normal(path)) else {
            return Ok(None);
        };
        let mut entry = self
            .archive
            .by_name(name)
            .map_err(|e| format!("its part `{path}` cannot be unpacked: {e}"))?;
        let mut bytes = Vec::with_capacity(entry.size().min(MAX_PART_BYTES) as usize);
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("its part `{path}` cannot be unpacked: {e}"))?;
        Ok(Some(bytes))
    }

    /// The workbook part the package's relationships name (`xl/workbook.xml` when they
    /// name none); `None` when the package has no relationships, or names a workbook
    /// that is not XML (an xlsb's `workbook.bin`).
    pub(super) fn document(&mut self) -> Result<Option<Document>, String> {
        const RELATIONSHIPS: &str = "_rels/.rels";
        let Some(xml) = self.part(RELATIONSHIPS)? else {
            return Ok(None);
        };
        let target = relationships(RELATIONSHIPS, &xml)?
            .into_iter()
            .find(|r| r.kind.ends_with("/relationships/officeDocument"))
            .map_or_else(|| "xl/workbook.xml".to_string(), |r| r.target);
        let path = resolve("", &target);
        let (folder, name) = match path.rfind('/') {
            Some(at) => (path[..=at].to_string(), path[at + 1..].to_string()),
            None => (String::new(), path),
        };
        if !name.to_ascii_lowercase().ends_with(".xml") {
            return Ok(None);
        }
        Ok(Some(Document { folder, name }))
    }

    /// The sheets the workbook lists, in its order, and whether its dates count from
    /// 1904.
    pub(super) fn sheets(&mut self, document: &Document) -> Result<(Vec<Sheet>, bool), String> {
        let rels_path = format!("{}_rels/{}.rels", document.folder, document.name);
        let rels = match self.part(&rels_path)? {
            Some(xml) => relationships(&rels_path, &xml)?,
            None => {
                return Err(format!(
                    "its part `{rels_path}` (the workbook's relationships) is missing"
                ));
            }
        };
        let path = format!("{}{}", document.folder, document.name);
        let xml = self
            .part(&path)?
            .ok_or_else(|| format!("its workbook part `{path}` is missing"))?;
        let mut reader = xml_reader(&xml);
        let (mut sheets, mut is_1904) = (Vec::new(), false);
        loop {
            match reader.read_event() {
                Ok(Event::Start(e)) if e.local_name().as_ref() == "sheet" => {
                    sheets.push(sheet(&e, &rels, document)?);
                }
                Ok(Event::Start(e)) if e.local_name().as_ref() == "workbookPr" => {
                    if let Some(value) = attribute(&e, "date1904") {
                        is_1904 = value == "1" || value == "true";
                    }
                }
                Ok(Event::DocType(_)) => return Err(document_type(&path)),
                Ok(Event::Eof) => break,
                Err(e) => return Err(xml_error(&path, &reader, e)),
                _ => {}
            }
        }
        Ok((sheets, is_1904))
    }
}

/// One `<sheet>` of the workbook part, found through the relationship it names.
fn sheet(e: &BytesStart<'_>, rels: &[Relationship], document: &Document) -> Result<Sheet, String> {
    let name = attribute(e, "name").unwrap_or_default();
    let id = e
        .attributes()
        .with_checks(false)
        .flatten()
        .filter(|a| a.key.local_name().as_ref() == "id")
        .last()
        .map(|a| value(&a))
        .unwrap_or_default();
    let rel = rels.iter().find(|r| r.id == id).ok_or_else(|| {
        format!("sheet `{name}` names relationship `{id}`, which the workbook does not have")
    })?;
    let kind = match rel.kind.rsplit('/').next().unwrap_or_default() {
        "worksheet" => SheetKind::Worksheet(document.beside(&rel.target)),
        "chartsheet" => SheetKind::Other("chart sheet".into()),
        "dialogsheet" => SheetKind::Other("dialog sheet".into()),
        other => SheetKind::Other(format!("sheet of kind `{other}`")),
    };
    Ok(Sheet { name, kind })
}

struct Relationship {
    id: String,
    kind: String,
    target: String,
}

/// The relationships a `.rels` part lists.
fn relationships(path: &str, xml: &[u8]) -> Result<Vec<Relationship>, String> {
    let mut reader = xml_reader(xml);
    let mut found = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e)) if e.local_name().as_ref() == "Relationship" => {
                found.push(Relationship {
                    id: attribute(&e, "Id").unwrap_or_default(),
                    kind: attribute(&e, "Type").unwrap_or_default(),
                    target: attribute(&e, "Target").unwrap_or_default(),
                });
            }
            Ok(Event::DocType(_)) => return Err(document_type(path)),
            Ok(Event::Eof) => return Ok(found),
            Err(e) => return Err(xml_error(path, &reader, e)),
            _ => {}
        }
    }
}

/// The value of an element's attribute `key` (the last, if written twice), its
/// references decoded.
pub(super) fn attribute(e: &BytesStart<'_>, key: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .flatten()
        .filter(|a| a.key.as_ref() == key)
        .last()
        .map(|a| value(&a))
}

/// An attribute's value, its references decoded (as written, when one is no
/// reference XML knows).
fn value(a: &quick_xml::events::attributes::Attribute<'_>) -> String {
    match a.normalized_value(quick_xml::XmlVersion::Implicit1_0) {
        Ok(value) => value.into_owned(),
        Err(_) => a.value.to_string(),
    }
}

/// A part's name as looked up: lower case, `/` between folders, no leading `/`.
fn normal(name: &str) -> String {
    name.replace('\\', "/")
        .trim_start_matches('/')
        .to_ascii_lowercase()
}

/// The part a relationship's `target` names from `folder`: absolute when it starts
/// with `/`; `.` and `..` steps followed.
fn resolve(folder: &str, target: &str) -> String {
    let whole = match target.strip_prefix('/') {
        Some(absolute) => absolute.to_string(),
        None => format!("{folder}{target}"),
    };
    let mut steps: Vec<&str> = Vec::new();
    for step in whole.split('/') {
        match step {
            "." | "" => {}
            ".." => {
                steps.pop();
            }
            step => steps.push(step),
        }
    }
    steps.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_from_the_workbooks_folder_or_the_root() {
        assert_eq!(
            resolve("xl/", "worksheets/sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
        assert_eq!(
            resolve("xl/", "/xl/worksheets/a.xml"),
            "xl/worksheets/a.xml"
        );
        assert_eq!(
            resolve("xl/", "../elsewhere/data.bin"),
            "elsewhere/data.bin"
        );
        assert_eq!(resolve("", "xl/workbook.xml"), "xl/workbook.xml");
        assert_eq!(
            normal("XL\\Worksheets\\Sheet1.xml"),
            "xl/worksheets/sheet1.xml"
        );
    }
}
