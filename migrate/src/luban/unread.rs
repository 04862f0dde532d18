//! The `[unread]` section `migrate luban` writes into `masterctl.toml`: what the data
//! folder holds that no converted table reads — Luban's definition workbooks, notes
//! sheets beside a table's, the sheets of tables not converted (with why), files no
//! Luban table reads — so that `validate` names each for what it is, once, instead of
//! warning of sheets that map to no table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use toml_writer::{ToTomlKey, ToTomlValue};

use super::{Converter, Plan, relative_path};

/// What `[unread]` lists: definition workbooks, notes sheets, and the rest with why.
#[derive(Default)]
struct Listed {
    definitions: BTreeSet<String>,
    notes: BTreeSet<String>,
    other: BTreeMap<String, String>,
}

impl Converter<'_> {
    /// The `[unread]` section of `masterctl.toml` (empty when there is nothing to list).
    pub(super) fn unread_section(&self, plans: &[Plan], l10n_source: Option<&str>) -> String {
        let claims: Vec<String> = plans.iter().flat_map(|p| p.claims()).collect();
        let read: BTreeSet<&str> = (claims.iter().map(String::as_str))
            .chain(l10n_source)
            .collect();
        let unconverted = self.unconverted_inputs();
        let mut listed = Listed::default();
        let mut files = Vec::new();
        walk(self.data_dir, &mut files);
        for path in files {
            let file = relative_path(self.data_dir, &path);
            if self.definitions.contains(&file) {
                listed.definitions.insert(file);
                continue;
            }
            let reads_file = |source: &&str| {
                source
                    .strip_prefix(file.as_str())
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with('#'))
            };
            if !read.iter().any(reads_file) {
                let why = match unconverted.get(&file) {
                    Some(reasons) => reasons.join("; "),
                    None => "no Luban table reads it".to_string(),
                };
                listed.other.insert(file, why);
                continue;
            }
            // A workbook some table reads: its other sheets, each for what it is.
            let _ = masterctl_schemas::read::workbook::for_each_sheet(&path, |sheet, grid| {
                let at = format!("{file}#{sheet}");
                if sheet.starts_with('#') || read.contains(at.as_str()) {
                    return;
                }
                let luban = grid.is_ok_and(|g| g.cell(0, 0).display().trim().starts_with("##"));
                // A data sheet of a table over every sheet of its workbook is read.
                if luban && read.contains(format!("{file}#*").as_str()) {
                    return;
                }
                match (luban, unconverted.get(&at)) {
                    (_, Some(reasons)) => {
                        listed.other.insert(at, reasons.join("; "));
                    }
                    (true, None) => {
                        listed
                            .other
                            .insert(at, "no converted Luban table reads it".into());
                    }
                    (false, None) => {
                        listed.notes.insert(at);
                    }
                }
            });
        }
        listed.section()
    }

    /// The inputs (`file` or `file#sheet`) of tables not converted, each with why.
    fn unconverted_inputs(&self) -> BTreeMap<String, Vec<String>> {
        let mut inputs: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for skipped in self.not_converted.iter().filter(|n| n.field.is_none()) {
            let Some(table) = self
                .defs
                .tables
                .iter()
                .find(|t| t.full_name == skipped.luban_table)
            else {
                continue;
            };
            for input in table.input.split(',').map(str::trim) {
                let input = input.replace('\\', "/");
                let at = match input.split_once('@') {
                    Some((sheet, file)) => format!("{}#{}", file.trim(), sheet.trim()),
                    None => input.trim_start_matches("./").to_string(),
                };
                let why = format!(
                    "Luban table {} was not converted: {}",
                    skipped.luban_table, skipped.reason
                );
                inputs.entry(at).or_default().push(why);
            }
        }
        inputs
    }
}

impl Listed {
    fn section(&self) -> String {
        if self.definitions.is_empty() && self.notes.is_empty() && self.other.is_empty() {
            return String::new();
        }
        let list = |set: &BTreeSet<String>| {
            let items: Vec<String> = set.iter().map(|s| s.to_toml_value()).collect();
            format!("[{}]", items.join(", "))
        };
        let mut out = String::from(
            "\n# What the data folder holds that no table reads: `validate` names the definition\n\
             # workbooks and notes sheets together, once, and each other file or sheet with why.\n\
             [unread]\n",
        );
        out.push_str(&format!("definitions = {}\n", list(&self.definitions)));
        out.push_str(&format!("notes = {}\n", list(&self.notes)));
        if !self.other.is_empty() {
            out.push_str("\n[unread.other]\n");
            for (at, why) in &self.other {
                out.push_str(&format!("{} = {}\n", at.to_toml_key(), why.to_toml_value()));
            }
        }
        out
    }
}

/// The spreadsheet and CSV files under `dir` (not hidden, no lock files, no links).
fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let (path, name) = (
            entry.path(),
            entry.file_name().to_string_lossy().into_owned(),
        );
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() || name.starts_with('.') || name.starts_with("~$") {
            continue;
        }
        if kind.is_dir() {
            walk(&path, files);
            continue;
        }
        let known = path.extension().is_some_and(|e| {
            let e = e.to_string_lossy().to_ascii_lowercase();
            e == "csv" || masterctl_schemas::read::SUPPORTED_EXTENSIONS.contains(&e.as_str())
        });
        if known {
            files.push(path);
        }
    }
}
