//! The package of an xlsx workbook: its zipped parts, found by name whatever their
//! case or slashes, and the relationships that say which part is the workbook and
//! which parts are its sheets.

use std::collections::HashMap;
use std::io::Read;

use super::read_xml;
use super::tokens::{Token, Tokens, attribute, attributes};
use crate::read::zipped::{Archive, MAX_PART_BYTES};

pub(super) struct Package {
    archive: Archive,
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
    /// Its `state`: `hidden`, `veryHidden` (only a macro shows it again), or `None`
    /// when it is visible.
    pub(super) hidden: Option<Hidden>,
}

/// How a sheet is hidden in its workbook.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hidden {
    Hidden,
    /// Excel's "very hidden": not listed under Unhide, only a macro shows it.
    VeryHidden,
}

pub(super) enum SheetKind {
    /// A worksheet, at this part.
    Worksheet(String),
    /// A chart sheet, dialog sheet or other kind without cells (as it is called).
    Other(String),
}

impl Package {
    pub(super) fn new(archive: Archive) -> Package {
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

    /// A part as a stream of its unpacked bytes, and how many it declares; `None` when
    /// the package has no such part (its declared size was checked as
    /// [`Package::part`]'s).
    pub(super) fn part_reader(
        &mut self,
        path: &str,
    ) -> Result<Option<(impl Read + '_, u64)>, String> {
        let Some(name) = self.names.get(&normal(path)) else {
            return Ok(None);
        };
        let entry = self
            .archive
            .by_name(name)
            .map_err(|e| format!("its part `{path}` cannot be unpacked: {e}"))?;
        let size = entry.size();
        Ok(Some((entry, size)))
    }

    /// The workbook part the package's relationships name (`xl/workbook.xml` when they
    /// name none); `None` when the package has no relationships, or names a workbook
    /// that is not XML (an xlsb's `workbook.bin`).
    pub(super) fn document(&mut self) -> Result<Option<Document>, String> {
        const RELATIONSHIPS: &str = "_rels/.rels";
        let Some(xml) = self.part(RELATIONSHIPS)? else {
            return Ok(None);
        };
        let target = read_xml(RELATIONSHIPS, &xml, relationships)?
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
            Some(xml) => read_xml(&rels_path, &xml, relationships)?,
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
        read_xml(&path, &xml, |tokens| {
            let (mut sheets, mut is_1904) = (Vec::new(), false);
            while let Some(token) = tokens.next()? {
                match token {
                    Token::Start {
                        name: "sheet",
                        attributes,
                    } => sheets.push(sheet(attributes, &rels, document)?),
                    Token::Start {
                        name: "workbookPr",
                        attributes,
                    } => {
                        if let Some(value) = attribute(attributes, "date1904")? {
                            is_1904 = value == "1" || value == "true";
                        }
                    }
                    _ => {}
                }
            }
            Ok((sheets, is_1904))
        })
    }
}

/// One `<sheet>` of the workbook part (its `attributes`), found through the
/// relationship it names.
fn sheet(
    attributes_written: &str,
    rels: &[Relationship],
    document: &Document,
) -> Result<Sheet, String> {
    let name = attribute(attributes_written, "name")?
        .unwrap_or_default()
        .into_owned();
    // The relationship's id, whatever the prefix of its namespace (`r:id`).
    let id = match attributes(attributes_written)
        .filter(|(key, _)| key.rsplit(':').next() == Some("id"))
        .last()
    {
        Some((_, id)) => super::tokens::decoded(id)?.into_owned(),
        None => String::new(),
    };
    let rel = rels.iter().find(|r| r.id == id).ok_or_else(|| {
        format!("sheet `{name}` names relationship `{id}`, which the workbook does not have")
    })?;
    let kind = match rel.kind.rsplit('/').next().unwrap_or_default() {
        "worksheet" => SheetKind::Worksheet(document.beside(&rel.target)),
        "chartsheet" => SheetKind::Other("chart sheet".into()),
        "dialogsheet" => SheetKind::Other("dialog sheet".into()),
        other => SheetKind::Other(format!("sheet of kind `{other}`")),
    };
    let hidden = match attribute(attributes_written, "state")?.as_deref() {
        Some("hidden") => Some(Hidden::Hidden),
        Some("veryHidden") => Some(Hidden::VeryHidden),
        _ => None,
    };
    Ok(Sheet { name, kind, hidden })
}

struct Relationship {
    id: String,
    kind: String,
    target: String,
}

/// The relationships a `.rels` part lists.
fn relationships(tokens: &mut Tokens<'_>) -> Result<Vec<Relationship>, String> {
    let mut found = Vec::new();
    while let Some(token) = tokens.next()? {
        if let Token::Start {
            name: "Relationship",
            attributes,
        } = token
        {
            let value = |key| -> Result<String, String> {
                Ok(attribute(attributes, key)?.unwrap_or_default().into_owned())
            };
            found.push(Relationship {
                id: value("Id")?,
                kind: value("Type")?,
                target: value("Target")?,
            });
        }
    }
    Ok(found)
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
