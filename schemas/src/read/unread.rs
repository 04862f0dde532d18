//! Sheets and files that map to no table, as `masterctl.toml`'s `[unread]` names them:
//! definition workbooks and notes sheets are told together, once per validation (one
//! `unread` warning); any other entry once, with its reason, instead of a warning per
//! sheet that maps to no table.

use std::path::Path;

use crate::diagnostic::{Code, Diagnostic, Location, Report};
use crate::schema::{Project, UnreadAs};

/// What to say of a sheet (none: a CSV file) that maps to no table.
pub enum Said {
    /// `[unread]` does not name it: the usual warning.
    NotListed,
    /// Named: this, or nothing (a whole file is said at its first sheet).
    Listed(Option<Box<Diagnostic>>),
}

/// What `[unread]` says of sheet `sheet` of `path` (`first`: the file's first sheet).
pub fn said(project: &Project, path: &Path, sheet: Option<&str>, first: bool) -> Said {
    let Some(unread) = project.config.unread.of(path, sheet) else {
        return Said::NotListed;
    };
    let file = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let mut location = Location::file(path);
    let (code, message) = match unread {
        UnreadAs::Definition if !first => return Said::Listed(None),
        UnreadAs::Definition => (Code::Unread, format!("definition workbook {file}")),
        UnreadAs::Notes => {
            location.sheet = sheet.map(str::to_string);
            let name = sheet.map_or(file.clone(), |s| format!("{file}#{s}"));
            (Code::Unread, format!("notes sheet {name}"))
        }
        UnreadAs::Other { whole: true, .. } if !first => return Said::Listed(None),
        UnreadAs::Other { why, whole } => {
            let what = match (whole, sheet) {
                (false, Some(sheet)) => {
                    location.sheet = Some(sheet.to_string());
                    format!("sheet `{sheet}`")
                }
                _ => format!("`{file}`"),
            };
            (
                Code::UnmappedSheet,
                format!("{what} is not read: {why} (masterctl.toml [unread])"),
            )
        }
    };
    Said::Listed(Some(Box::new(Diagnostic::new(code, location, message))))
}

/// The `unread` diagnostics of a whole validation folded into one: what was not read,
/// by kind, as `[unread]` says.
pub fn fold(report: &mut Report) {
    let (unread, rest): (Vec<Diagnostic>, Vec<Diagnostic>) =
        std::mem::take(&mut report.diagnostics)
            .into_iter()
            .partition(|d| d.code == Code::Unread);
    report.diagnostics = rest;
    if unread.is_empty() {
        return;
    }
    let named = |prefix: &str| -> Vec<String> {
        let mut names: Vec<String> = unread
            .iter()
            .filter_map(|d| d.message.strip_prefix(prefix).map(str::to_string))
            .collect();
        names.sort();
        names.dedup();
        names
    };
    let mut parts = Vec::new();
    for (prefix, one, many) in [
        (
            "definition workbook ",
            "definition workbook",
            "definition workbooks",
        ),
        ("notes sheet ", "notes sheet", "notes sheets"),
    ] {
        let names = named(prefix);
        let shown: Vec<&str> = names.iter().take(6).map(String::as_str).collect();
        let more = names.len().saturating_sub(shown.len());
        match names.len() {
            0 => {}
            1 => parts.push(format!("1 {one} ({})", shown[0])),
            n => parts.push(format!(
                "{n} {many} ({}{})",
                shown.join(", "),
                if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                }
            )),
        }
    }
    // Filed where the first of them is: its workbook and, for a sheet, the sheet
    // itself — never the workbook alone, whose data sheets are read.
    let mut first = unread[0].location.clone();
    first.cell = None;
    first.line = None;
    report.push(
        Diagnostic::new(
            Code::Unread,
            first,
            format!(
                "not read, as masterctl.toml's [unread] says: {}",
                parts.join(", ")
            ),
        )
        .hint("they are no tables' data: nothing to do"),
    );
}
