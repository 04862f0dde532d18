//! Draft schemas from a workbook or CSV file: a planner's starting point.
//!
//! From each sheet's header and values it guesses field types (int, float, bool, date,
//! datetime, enum for a few repeated words, text for prose in other scripts, string
//! otherwise), which fields may be empty, a likely primary key (single or composite)
//! and likely references between the sheets of the file. The drafts are TOML in the
//! format [`masterctl_schemas::load`] reads, with comments where a person has to decide.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use masterctl_schemas::diagnostic::Diagnostic;
use masterctl_schemas::read::csv::CsvGrid;
use masterctl_schemas::read::{Cell, Grid, workbook};
use masterctl_schemas::value::{self, Value, float_to_int};

/// A drafted schema for one sheet.
#[derive(Debug, Clone, PartialEq)]
pub struct DraftSchema {
    pub name: String,
    pub sheet: String,
    /// `source = "file.xlsx"` (or `file.xlsx#Sheet2`), for a sheet of an application's
    /// default name (`Sheet1`) that many workbooks share.
    pub source: Option<String>,
    pub primary_key: Vec<String>,
    pub fields: Vec<DraftField>,
    /// Columns with values under no header (Game Framework's remark column): the draft
    /// reads the sheet with `other_columns = "ignore"`, and a note names them.
    pub ignores_other_columns: bool,
    /// Things a person should look at, written as comments at the top.
    pub notes: Vec<String>,
    /// The rows above the data: read the workbook's other sheets alike.
    layout: Layout,
}

/// Whether a sheet declares its columns' types in a row, and writes a note row under it
/// (tableau's, excel2json's layout).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
struct Layout {
    typed: bool,
    noted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct DraftField {
    pub name: String,
    /// The header as written, when it is not already a valid field name.
    pub header: Option<String>,
    pub ty: String,
    pub optional: bool,
    pub values: Vec<String>,
    pub references: Option<String>,
    /// Distinct non-empty values seen (for references between sheets).
    keys: Vec<Value>,
    all_distinct: bool,
    /// The grid column the field was read from.
    column: usize,
    /// The header, as the field's `column` (when it is not the field's name).
    pub spelling: Option<String>,
    /// A list's separator in the cells, from a declared type (`list,int`: `,`).
    pub separator: Option<String>,
    /// A map's between a key and its value, from a declared type.
    pub key_separator: Option<String>,
    /// What the column is, from a note row (tableau's).
    pub description: Option<String>,
    /// Texts the column writes for an empty cell (`null`).
    pub nulls: Vec<String>,
    /// The least and greatest value, from a declared range (tableau's `range:"1,10"`).
    pub min: Option<String>,
    pub max: Option<String>,
    /// A declared key column (`*int`).
    key: bool,
    /// A list over the columns of a header the sheet repeats (`repeated_header`).
    pub repeated_header: bool,
    /// Something a person should check about the guess.
    note: Option<String>,
}

/// Most distinct values an enum is guessed for.
const ENUM_MAX_VALUES: usize = 12;

/// Draft schemas for every sheet of a file (a CSV file is one sheet named by its stem).
pub fn infer_file(path: &Path) -> Result<Vec<DraftSchema>, Diagnostic> {
    let is_csv = masterctl_schemas::read::is_csv(path);
    // Each draft, and whether its sheet gave it a name.
    let mut drafts: Vec<(DraftSchema, bool)> = Vec::new();
    // Sheets of notes, not drafted: each said in the first draft's notes.
    let mut notes: Vec<(String, &str)> = Vec::new();
    // A CSV file saved in GBK or Shift_JIS: read so, and said.
    let mut decoded_from = None;
    if is_csv {
        let bytes = std::fs::read(path).map_err(|e| {
            Diagnostic::new(
                masterctl_schemas::Code::UnreadableFile,
                masterctl_schemas::Location::file(path),
                format!("cannot read the file: {e}"),
            )
        })?;
        let (grid, encoding) =
            CsvGrid::parse_decoding(&bytes, path).map_err(|mut d| d.remove(0))?;
        decoded_from = encoding;
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // tableau writes a workbook's sheets as `Workbook#Sheet.csv`, its metasheet too
        // (a CSV file named for notes is drafted: it was asked for by name).
        let sheet = stem.rsplit_once('#').map_or(stem.as_str(), |(_, s)| s);
        if is_tableau_metasheet(sheet)
            && let Some(what) = notes_sheet(sheet)
        {
            return Err(Diagnostic::new(
                masterctl_schemas::Code::UnmappedSheet,
                masterctl_schemas::Location::file(path),
                format!("the file holds no table to draft: {what}"),
            )
            .hint(
                "draft the workbook's other sheets; list this one in `[unread]` of masterctl.toml",
            ));
        }
        if let Some(what) = definitions_sheet(sheet, &grid) {
            return Err(Diagnostic::new(
                masterctl_schemas::Code::UnmappedSheet,
                masterctl_schemas::Location::file(path),
                format!("the file holds no table to draft: {what}"),
            )
            .hint(
                "draft the data files it describes; list this one in `[unread]` of masterctl.toml",
            ));
        }
        drafts.extend(infer_grid(&stem, &grid, false));
    } else {
        let mut first_error = None;
        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut index = 0;
        workbook::for_each_sheet(path, |sheet, grid| {
            let first = index == 0;
            index += 1;
            if let Some(what) = notes_sheet(sheet) {
                notes.push((sheet.to_string(), what));
                return;
            }
            if let Ok(grid) = grid
                && let Some(what) = definitions_sheet(sheet, grid)
            {
                notes.push((sheet.to_string(), what));
                return;
            }
            match grid {
                Ok(grid) if !sheet.starts_with('#') => {
                    drafts.extend(sheet_draft(sheet, grid, first, &file_name, false));
                }
                Ok(_) => {}
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        })?;
        read_notes_alike(path, &file_name, &mut drafts)?;
        // Unreadable sheets (charts, damaged parts) only matter when nothing else was drafted.
        if let (true, Some(error)) = (drafts.is_empty(), first_error) {
            return Err(error);
        }
    }
    // A workbook of definitions and notes only: said, sheet by sheet.
    if drafts.is_empty() && !notes.is_empty() {
        let sheets: Vec<String> = notes
            .iter()
            .map(|(sheet, what)| format!("sheet `{sheet}`: {what}"))
            .collect();
        return Err(Diagnostic::new(
            masterctl_schemas::Code::UnmappedSheet,
            masterctl_schemas::Location::file(path),
            format!("the file holds no table to draft ({})", sheets.join("; ")),
        )
        .hint(
            "draft the data files it describes; list its sheets in `[unread]` of masterctl.toml",
        ));
    }
    let mut drafts = name_drafts(path, drafts);
    link_references(&mut drafts);
    read_back(path, &mut drafts);
    if let (Some(encoding), Some(first)) = (decoded_from, drafts.first_mut()) {
        first.notes.push(format!(
            "the file is not UTF-8: it was read as {encoding} (validate reads it so too, and says so); save it as UTF-8 so every tool reads it alike"
        ));
    }
    if let Some(first) = drafts.first_mut() {
        for (sheet, what) in notes {
            first.notes.push(format!(
                "sheet `{sheet}` of the workbook was not drafted: {what}; list it in `notes` of `[unread]` in masterctl.toml, or start its name with `#`, and validate passes it by"
            ));
        }
    }
    Ok(drafts)
}

/// Each draft read against the file it was drafted from, as `validate` would: where it
/// does not read the file (a structure nested down the rows, a key repeated, a value
/// out of a declared range), the draft's notes say which field, where and why — the
/// first mistake of each field, and how many more.
fn read_back(path: &Path, drafts: &mut [DraftSchema]) {
    let files = drafts
        .iter()
        .map(|d| {
            (
                PathBuf::from(format!("schemas/{}.toml", d.name)),
                d.to_toml(),
            )
        })
        .collect();
    let config = (
        PathBuf::from("masterctl.toml"),
        "source_language = \"en\"\n".to_string(),
    );
    let project = match masterctl_schemas::load::load_from_files(Some(config), files) {
        Ok(project) => project,
        Err(report) => {
            if let (Some(first), Some(why)) = (drafts.first_mut(), report.diagnostics.first()) {
                first.notes.push(format!(
                    "the drafts do not load as they are: {}",
                    why.message
                ));
            }
            return;
        }
    };
    let validation = masterctl_schemas::validate_paths(&project, &[path.to_path_buf()]);
    // The first mistake of each table's field (or of the table), and how many more.
    type Place = (String, Option<String>);
    let mut said: Vec<(Place, &Diagnostic, usize)> = Vec::new();
    for d in validation
        .report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
    {
        let Some(table) = d.location.table.clone() else {
            continue;
        };
        let at = (table, d.location.field.clone());
        match said.iter_mut().find(|(seen, _, _)| *seen == at) {
            Some((_, _, more)) => *more += 1,
            None => said.push((at, d, 0)),
        }
    }
    for ((table, field), d, more) in said {
        let Some(draft) = drafts.iter_mut().find(|draft| draft.name == table) else {
            continue;
        };
        let place = match (&d.location.cell, d.location.line) {
            (Some(cell), _) => format!("cell {cell}"),
            (None, Some(line)) => format!("line {line}"),
            (None, None) => "the sheet".to_string(),
        };
        let what = field.map_or_else(String::new, |f| format!(" `{f}`"));
        let more = match more {
            0 => String::new(),
            n => format!(" (and {n} more like it)"),
        };
        draft.notes.push(format!(
            "the draft does not read its own file:{what} at {place}: {}{more}",
            d.message
        ));
    }
}

/// The draft of a workbook's `sheet` (the workbook's `first`), and whether the sheet
/// named it: a sheet of an application's default name (`Sheet1`) names no table, the
/// file does (`source`).
fn sheet_draft(
    sheet: &str,
    grid: &dyn Grid,
    first: bool,
    file_name: &str,
    notes_under_types: bool,
) -> Option<(DraftSchema, bool)> {
    let (mut draft, named) = infer_grid(sheet, grid, notes_under_types)?;
    if default_sheet_name(sheet) {
        draft.source = Some(match first {
            true => file_name.to_string(),
            false => format!("{file_name}#{sheet}"),
        });
        return Some((draft, false));
    }
    Some((draft, named))
}

/// One exporter lays out every sheet of a workbook alike: when one sheet writes a note
/// row under its type row (told by a number column's text), a sheet of text columns
/// whose row under its types could not be told from data is drafted again reading that
/// row as notes, and its draft says so.
fn read_notes_alike(
    path: &Path,
    file_name: &str,
    drafts: &mut [(DraftSchema, bool)],
) -> Result<(), Diagnostic> {
    let noted = drafts
        .iter()
        .find(|(d, _)| d.layout.typed && d.layout.noted)
        .map(|(d, _)| d.sheet.clone());
    let Some(noted) = noted else {
        return Ok(());
    };
    let again: HashSet<String> = drafts
        .iter()
        .filter(|(d, _)| d.layout.typed && !d.layout.noted)
        .map(|(d, _)| d.sheet.clone())
        .collect();
    if again.is_empty() {
        return Ok(());
    }
    let mut index = 0;
    workbook::for_each_sheet(path, |sheet, grid| {
        let first = index == 0;
        index += 1;
        let (true, Ok(grid)) = (again.contains(sheet), grid) else {
            return;
        };
        let Some((mut draft, named)) = sheet_draft(sheet, grid, first, file_name, true) else {
            return;
        };
        if !draft.layout.noted {
            return;
        }
        draft.notes.push(format!(
            "the row under the types is read as the columns' notes, as sheet `{noted}` writes them; if it is data, take the fields' `description`s out and move the row below"
        ));
        if let Some(slot) = drafts.iter_mut().find(|(d, _)| d.sheet == sheet) {
            *slot = (draft, named);
        }
    })
}

/// What a sheet that holds no table is, by its name: notes (`说明`, `字段说明`, `備考`,
/// `README`…) or tableau's metasheet (`@TABLEAU`: its settings for the other sheets).
fn notes_sheet(sheet: &str) -> Option<&'static str> {
    if is_tableau_metasheet(sheet) {
        return Some("tableau's metasheet (its settings for the workbook's sheets, not data)");
    }
    named_as_notes(sheet).then_some("a notes sheet (its name says so)")
}

/// What a sheet that defines types or lists tables, not data, is (tabtoy's): by its
/// name (`@Types`, tabtoy 2's type sheet) or its header row (tabtoy 3's index, `模式`,
/// `表类型`, `表文件名`, and type table, `对象类型`, `字段名`, `字段类型`).
fn definitions_sheet(sheet: &str, grid: &dyn Grid) -> Option<&'static str> {
    if sheet.trim().eq_ignore_ascii_case("@types") {
        return Some("tabtoy's type definitions (`@Types`), not data");
    }
    let header: Vec<String> = (0..grid.height())
        .map(|row| {
            (0..grid.width(row))
                .map(|c| grid.cell(row, c).display().trim().to_string())
                .collect::<Vec<_>>()
        })
        .find(|cells| cells.iter().any(|c| !c.is_empty()))?;
    let has = |titles: &[&str]| titles.iter().all(|t| header.iter().any(|h| h == t));
    if has(&["表类型", "表文件名"]) {
        return Some("tabtoy's index of tables (`模式`, `表类型`, `表文件名`), not data");
    }
    if has(&["对象类型", "字段名", "字段类型"]) {
        return Some("tabtoy's type table (`对象类型`, `字段名`, `字段类型`), not data");
    }
    None
}

/// The sheet tableau reads its settings from: `@TABLEAU`, or a name of a project's
/// own beginning so (`@TABLEAU_CUSTOM`).
fn is_tableau_metasheet(sheet: &str) -> bool {
    sheet
        .trim()
        .get(..8)
        .is_some_and(|head| head.eq_ignore_ascii_case("@TABLEAU"))
}

/// A sheet of notes, by its name.
fn named_as_notes(sheet: &str) -> bool {
    const WITHIN: &[&str] = &[
        "说明",
        "說明",
        "説明",
        "注释",
        "註釋",
        "备注",
        "備註",
        "備考",
        "目录",
        "目錄",
        "使い方",
        "メモ",
        "설명",
        "참고",
    ];
    const WHOLE: &[&str] = &[
        "readme",
        "notes",
        "note",
        "memo",
        "help",
        "changelog",
        "about",
    ];
    let name = sheet.trim().to_lowercase();
    WITHIN.iter().any(|w| name.contains(w)) || WHOLE.contains(&name.as_str())
}

/// A name spreadsheet applications give new sheets (`Sheet1`, `シート1`, `工作表1`,
/// `Лист1`, `Feuil1`...): one many workbooks share, so it names no table.
fn default_sheet_name(sheet: &str) -> bool {
    const WORDS: &[&str] = &[
        "sheet",
        "シート",
        "工作表",
        "лист",
        "feuil",
        "tabelle",
        "hoja",
        "planilha",
        "foglio",
        "blad",
        "arkusz",
        "munkalap",
        "taulukko",
        "시트",
        "sayfa",
        "ark",
    ];
    let word = sheet
        .trim()
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim();
    word.len() < sheet.trim().len() && WORDS.contains(&word.to_lowercase().as_str())
}

/// Names for the drafts of one file: a sheet whose name has no ASCII letters or digits
/// (`道具系统表`) takes the file's (`table` when the file's name has none either) when it
/// is the only such sheet, else that and its position among them (`items_2`); names met
/// twice take `_2`, `_3`... so no draft replaces another.
fn name_drafts(path: &Path, drafts: Vec<(DraftSchema, bool)>) -> Vec<DraftSchema> {
    let stem = path
        .file_stem()
        .and_then(|s| identifier_from(&s.to_string_lossy()));
    let unnamed = drafts.iter().filter(|(_, named)| !named).count();
    let mut used: HashSet<String> = HashSet::new();
    let mut position = 0;
    drafts
        .into_iter()
        .map(|(mut draft, named)| {
            if !named {
                position += 1;
                let base = stem.clone().unwrap_or_else(|| "table".to_string());
                draft.name = match unnamed {
                    1 => base,
                    _ => format!("{base}_{position}"),
                };
            }
            let base = draft.name.clone();
            draft.name = free_name(&mut used, &base);
            if !named || draft.name != base {
                draft.notes.insert(
                    0,
                    format!(
                        "sheet `{}` gives no table name of its own here: the table was called `{}`",
                        draft.sheet, draft.name
                    ),
                );
            }
            draft
        })
        .collect()
}

/// `base`, or the first of `base_2`, `base_3`... not yet in `taken` (which then holds it).
pub(crate) fn free_name(taken: &mut HashSet<String>, base: &str) -> String {
    if taken.insert(base.to_string()) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}_{n}"))
        .find(|name| taken.insert(name.clone()))
        .unwrap_or_default()
}

/// `QuestDrop`, `quest drop`, `Quest-Drop` → `quest_drop`; `None` when nothing is left
/// (a header in another script).
pub fn identifier_from(text: &str) -> Option<String> {
    let mut out = String::new();
    let chars: Vec<char> = text.trim().chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if c.is_ascii_uppercase() {
            // A word starts at an uppercase letter after a lowercase one (`itemId`), or
            // before a lowercase one after a run of capitals or digits (`HTTPServer`,
            // `Task1Param`, `L10NDemo` → `l10n_demo`).
            let previous = i.checked_sub(1).map(|p| chars[p]);
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let starts = match previous {
                Some(p) if p.is_ascii_lowercase() => true,
                Some(p) if p.is_ascii_uppercase() || p.is_ascii_digit() => next_lower,
                _ => false,
            };
            if starts && !out.is_empty() && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('_') {
            out.push('_');
        }
    }
    // Room below the loader's limit for a `_2` that tells two alike apart.
    let mut out = out.trim_matches('_').to_string();
    out.truncate(masterctl_schemas::load::MAX_NAME_LENGTH - 8);
    let out = out.trim_end_matches('_').to_string();
    if out.is_empty() {
        return None;
    }
    Some(if out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("f_{out}")
    } else {
        out
    })
}

/// The draft of one sheet, and whether the sheet's name gave it its name (else it is
/// `table`, named by [`name_drafts`]). With `notes_under_types`, the row right under a
/// type row is the columns' notes (when it is all text and data follows it), as the
/// workbook's other sheets write them.
fn infer_grid(
    sheet: &str,
    grid: &dyn Grid,
    notes_under_types: bool,
) -> Option<(DraftSchema, bool)> {
    let is_skipped = |row: usize| {
        (0..grid.width(row)).all(|c| grid.cell(row, c).is_empty()) || grid.cell(row, 0).is_comment()
    };
    // The header is the first row with a cell that is neither empty nor a `#` comment
    // (its first column may itself be a comment column).
    let is_header = |row: usize| {
        (0..grid.width(row)).any(|c| {
            let cell = grid.cell(row, c);
            !cell.is_empty() && !cell.is_comment()
        })
    };
    let header_row = header_row(grid, &is_header)?;
    let mut data_rows: Vec<usize> = (header_row + 1..grid.height())
        .filter(|&r| !is_skipped(r))
        .collect();
    // A row declaring the columns' types (Luban's `##type`, a `##` row of type words,
    // tableau's row under the header): the types are taken from it, not guessed.
    let first_data = data_rows.first().copied().unwrap_or(grid.height());
    // The first data row, taken out of the data when it is of a kind.
    let take_first = |data_rows: &mut Vec<usize>, is: fn(&dyn Grid, usize) -> bool| {
        let row = data_rows.first().copied().filter(|&r| is(grid, r))?;
        data_rows.remove(0);
        Some(row)
    };
    let type_row = (header_row + 1..first_data)
        .find(|&r| masterctl_schemas::structure::is_type_row(grid, r))
        .or_else(|| take_first(&mut data_rows, masterctl_schemas::structure::is_type_row));
    // tabtoy's meta row under its type row (`MakeIndex:true`, `ListSpliter: "|"`).
    let meta_row = type_row
        .and_then(|_| take_first(&mut data_rows, masterctl_schemas::structure::is_meta_row));
    // tableau's note row under its type row: what each column is, not data (or a row
    // marked `#` right under it, Game Framework's).
    let marked_note_row = type_row.map(|t| t + 1).filter(|&r| {
        r < grid.height()
            && grid.cell(r, 0).is_comment()
            && type_row.is_some_and(|t| masterctl_schemas::structure::is_note_row(grid, r, t))
    });
    let note_row = marked_note_row.or_else(|| {
        type_row
            .and_then(|t| data_rows.first().copied().filter(|&r| r == t + 1 || r > t))
            .filter(|&r| {
                type_row.is_some_and(|t| masterctl_schemas::structure::is_note_row(grid, r, t))
            })
            .or_else(|| {
                let row = *data_rows.first()?;
                let all_text = (0..grid.width(row))
                    .map(|c| grid.cell(row, c))
                    .all(|cell| cell.is_empty() || matches!(cell, Cell::Text(_)));
                (notes_under_types && type_row == Some(row - 1) && all_text && data_rows.len() > 1)
                    .then_some(row)
            })
    });
    if let Some(row) = note_row {
        data_rows.retain(|&r| r != row);
    }
    let mut notes = Vec::new();
    let named = identifier_from(sheet);
    let name = named.clone().unwrap_or_else(|| "table".to_string());
    let mut fields: Vec<DraftField> = Vec::new();
    let mut used = HashSet::new();
    let spread = repeated_headers(grid, header_row, type_row, &data_rows);
    for column in 0..grid.width(header_row) {
        let cell = grid.cell(header_row, column);
        if cell.is_empty() || cell.is_comment() {
            continue;
        }
        let header = cell.display().trim().to_string();
        // A header the sheet repeats (`BuffID`, `BuffID`) is one list over its
        // columns, drafted at its first.
        let columns = match spread.get(&header) {
            Some(columns) if columns[0] != column => continue,
            Some(columns) => columns.as_slice(),
            None => &[column][..],
        };
        // A header of several lines (tableau's name, then a note): its first line names it.
        let first_line = header.lines().next().unwrap_or_default().trim().to_string();
        let base = identifier_from(&first_line).unwrap_or_else(|| format!("field_{}", column + 1));
        let field_name = free_name(&mut used, &base);
        let cells: Vec<Cell> = data_rows
            .iter()
            .flat_map(|&r| columns.iter().map(move |&c| grid.cell(r, c)))
            .collect();
        let mut field = infer_field(field_name, &cells);
        field.column = column;
        if let Some(row) = type_row
            && let Cell::Text(text) = grid.cell(row, column)
        {
            match masterctl_schemas::structure::declared_type(text) {
                Some(declared) => declare(&mut field, declared, &cells, text),
                None => {
                    field.note = Some(format!(
                        "`{}`: the type row's `{}` is not a type masterctl reads: drafted from its values",
                        field.name,
                        text.trim()
                    ))
                }
            }
        }
        if let Some(row) = meta_row
            && let Cell::Text(text) = grid.cell(row, column)
            && let Some(separator) = masterctl_schemas::structure::meta_separator(text)
            && field.ty.starts_with("list<")
        {
            field.separator = (separator != "|").then_some(separator);
        }
        if let Some(row) = note_row {
            let note = grid.cell(row, column).display().trim().to_string();
            field.description = (!note.is_empty()).then_some(note);
        }
        if columns.len() > 1 {
            spread_over(&mut field, grid, columns, &data_rows);
        }
        // `null`, `NULL`, `nil` in an optional column: its empty spellings.
        if field.optional {
            field.nulls = null_spellings(&cells);
        }
        if field.name != header {
            field.header = Some(header);
        }
        fields.push(field);
    }
    if fields.is_empty() {
        return None;
    }
    // A header that is not its field's name is kept as the field's `column`, so the
    // draft reads the sheet as it is; one the loader cannot take as a spelling (several
    // lines, another field's name, or a header the sheet gives twice) is a note to rename
    // it instead.
    let mut taken: HashSet<String> = fields.iter().map(|f| f.name.clone()).collect();
    for field in &mut fields {
        notes.extend(field.note.clone());
        let Some(header) = &field.header else {
            continue;
        };
        // Several lines (tableau's name, then a note): the sheet is read by its first.
        let first_line = header.lines().next().unwrap_or_default().trim();
        if header.contains('\n') && first_line == field.name {
            continue;
        }
        let header = match header.contains('\n') && !first_line.is_empty() {
            true => first_line.to_string(),
            false => header.clone(),
        };
        if header.is_empty() || header.contains(char::is_control) || !taken.insert(header.clone()) {
            notes.push(format!(
                "rename the header `{header}` to `{}` in the sheet (headers are field names)",
                field.name
            ));
        } else {
            field.spelling = Some(header);
        }
    }
    let unheaded = unheaded_columns(grid, header_row, note_row, &spread, &data_rows);
    notes.extend(unheaded.iter().cloned());
    // Columns the type row marks as keys (`*int`) are the key; else it is guessed.
    let declared_key: Vec<String> = fields
        .iter()
        .filter(|f| f.key)
        .map(|f| f.name.clone())
        .collect();
    let primary_key = match declared_key.is_empty() {
        true => guess_primary_key(&fields, grid, &data_rows, &mut notes),
        false => declared_key,
    };
    for field in &mut fields {
        if primary_key.contains(&field.name) {
            field.optional = false;
            if field.repeated_header {
                // One value per record: the repeated header names one column again.
                field.repeated_header = false;
                notes.push(format!(
                    "`{}` holds the primary key's place, and its header is repeated: rename the other columns' headers",
                    field.name
                ));
            }
            if !matches!(field.ty.as_str(), "int" | "string" | "enum" | "date") {
                notes.push(format!(
                    "`{}` was drafted as {} but holds the primary key's place: drafted as string",
                    field.name, field.ty
                ));
                field.ty = "string".into();
                // A list's separators and an element's bounds are not a string's.
                field.values.clear();
                (field.separator, field.key_separator) = (None, None);
                (field.min, field.max) = (None, None);
            }
        }
    }
    Some((
        DraftSchema {
            name,
            sheet: sheet.to_string(),
            source: None,
            primary_key,
            fields,
            ignores_other_columns: !unheaded.is_empty(),
            notes,
            layout: Layout {
                typed: type_row.is_some(),
                noted: note_row.is_some(),
            },
        },
        named.is_some(),
    ))
}

/// A note for each column holding values in `data_rows` under an empty header cell (a
/// list spread over repeated headers aside): Game Framework's remark column, a column
/// somebody forgot to name. Named by its letter and what the note row calls it.
fn unheaded_columns(
    grid: &dyn Grid,
    header_row: usize,
    note_row: Option<usize>,
    spread: &HashMap<String, Vec<usize>>,
    data_rows: &[usize],
) -> Vec<String> {
    let width = data_rows.iter().map(|&r| grid.width(r)).max().unwrap_or(0);
    (0..width)
        .filter(|&column| {
            grid.cell(header_row, column).is_empty()
                && !spread.values().any(|columns| columns.contains(&column))
                && data_rows.iter().any(|&r| !grid.cell(r, column).is_empty())
        })
        .map(|column| {
            let letters = masterctl_schemas::diagnostic::column_letters(column as u32);
            let called = note_row
                .map(|r| grid.cell(r, column).display().trim().to_string())
                .filter(|note| !note.is_empty())
                .map(|note| format!(" (the note row calls it `{note}`)"))
                .unwrap_or_default();
            format!(
                "column {letters} has values but no header{called}: the draft passes over columns it does not name (`other_columns = \"ignore\"`); give it a header starting with `#` to keep it as a comment, or a name to read it"
            )
        })
        .collect()
}

/// A declared type wins over the guess: a `float` column of whole numbers stays float.
/// A list declared without its separator (`int[]`) takes the one its cells use; a type
/// word masterctl has no type for (`Vec2`, `int[3][]`) is said in a note.
fn declare(
    field: &mut DraftField,
    declared: masterctl_schemas::structure::Declared,
    cells: &[Cell],
    word: &str,
) {
    match declared.ty {
        Some(ty) if ty != field.ty => {
            field.ty = ty;
            field.values.clear();
            field.note = None;
        }
        Some(_) => {}
        None => {
            field.note = Some(format!(
                "`{}`: the type row's `{}` has no masterctl type (a structure, an enum of the project's own, a list of lists): drafted from its values",
                field.name,
                word.trim()
            ));
        }
    }
    field.optional |= declared.optional;
    let collection = field.ty.starts_with("list<") || field.ty.starts_with("map<");
    field.separator = declared
        .separator
        .or_else(|| cells_separator(cells).filter(|_| field.ty.starts_with("list<")))
        .filter(|_| collection);
    field.key_separator = declared
        .key_separator
        .filter(|_| field.ty.starts_with("map<"));
    let numeric = matches!(
        field.ty.as_str(),
        "int" | "float" | "list<int>" | "list<float>"
    );
    if numeric {
        (field.min, field.max) = (declared.min, declared.max);
    }
    field.key = declared.key;
}

/// The headers a sheet's header row gives more than once, each with its columns: a
/// list over them, unless what they hold (or the type row says) is a map, which a list
/// cannot hold.
fn repeated_headers(
    grid: &dyn Grid,
    row: usize,
    type_row: Option<usize>,
    data_rows: &[usize],
) -> HashMap<String, Vec<usize>> {
    let mut columns: HashMap<String, Vec<usize>> = HashMap::new();
    for column in 0..grid.width(row) {
        let cell = grid.cell(row, column);
        if !cell.is_empty() && !cell.is_comment() {
            let header = cell.display().trim().to_string();
            columns.entry(header).or_default().push(column);
        }
    }
    columns.retain(|_, columns| {
        if columns.len() < 2 {
            return false;
        }
        let declared = type_row
            .and_then(|r| match grid.cell(r, columns[0]) {
                Cell::Text(text) => masterctl_schemas::structure::declared_type(text)?.ty,
                _ => None,
            })
            .unwrap_or_else(|| {
                let cells: Vec<Cell> = data_rows
                    .iter()
                    .flat_map(|&r| columns.iter().map(move |&c| grid.cell(r, c)))
                    .collect();
                infer_field(String::new(), &cells).ty
            });
        !declared.starts_with("map<")
    });
    columns
}

/// A field drafted from every column of a repeated header: a list of what they hold
/// (`repeated_header`), empty only where a row leaves them all empty.
fn spread_over(field: &mut DraftField, grid: &dyn Grid, columns: &[usize], data_rows: &[usize]) {
    if !field.ty.starts_with("list<") {
        // A list holds no localized text: prose in one is a string.
        let element = match field.ty.as_str() {
            "text" => "string",
            ty => ty,
        };
        field.ty = format!("list<{element}>");
    }
    field.repeated_header = true;
    field.all_distinct = false;
    field.optional = data_rows
        .iter()
        .any(|&r| columns.iter().all(|&c| grid.cell(r, c).is_empty()));
}

/// The separator a column's lists are written with, when not `|`: the first of `,`,
/// `;` and `:` its cells hold (a cell of one item holds none).
fn cells_separator(cells: &[Cell]) -> Option<String> {
    let texts: Vec<String> = cells.iter().map(|c| c.display().to_string()).collect();
    if texts.iter().any(|t| t.contains('|')) {
        return None;
    }
    [',', ';', ':']
        .into_iter()
        .find(|&c| texts.iter().any(|t| t.contains(c)))
        .map(String::from)
}

/// The header: the row above a type row, or the first row holding about as many names
/// as the widest of the first rows (a title above the header, `Recharge` or `Items,
/// 2024`, holds fewer).
fn header_row(grid: &dyn Grid, is_header: &dyn Fn(usize) -> bool) -> Option<usize> {
    let first = grid.height().min(20);
    if let Some(types) = (1..first).find(|&r| masterctl_schemas::structure::is_type_row(grid, r))
        && let Some(row) = (0..types).rev().find(|&r| is_header(r))
    {
        return Some(row);
    }
    let names = |row: usize| {
        (0..grid.width(row))
            .filter(|&c| matches!(grid.cell(row, c), Cell::Text(t) if !t.trim().is_empty() && !t.trim_start().starts_with('#')))
            .count()
    };
    // About as many: two thirds of the widest (a title of two cells over a header of
    // five is passed by), two at least.
    let widest = (0..first).map(names).max().unwrap_or(0);
    let needed = (widest * 2).div_ceil(3).max(2).min(widest.max(1));
    (0..grid.height())
        .find(|&r| is_header(r) && names(r) >= needed)
        .or_else(|| (0..grid.height()).find(|&r| is_header(r)))
}

/// The texts a column writes for an empty cell: `null`, `NULL`, `nil`, `none`.
fn null_spellings(cells: &[Cell]) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for cell in cells {
        if let Cell::Text(text) = cell {
            let text = text.trim();
            if ["null", "nil", "none"].contains(&text.to_ascii_lowercase().as_str())
                && !found.iter().any(|f| f == text)
            {
                found.push(text.to_string());
            }
        }
    }
    found
}

fn infer_field(name: String, cells: &[Cell]) -> DraftField {
    let present: Vec<&Cell> = cells.iter().filter(|c| !c.is_empty()).collect();
    let optional = present.len() < cells.len();
    let ty = guess_type(&present);
    let parsed: Vec<Value> = present
        .iter()
        .filter_map(|c| match ty.as_str() {
            "int" => cell_int(c).map(Value::Int),
            "float" => cell_float(c).map(Value::Float),
            _ => Some(Value::Str(c.display().into())),
        })
        .collect();
    let mut distinct: Vec<Value> = Vec::new();
    let mut seen = HashSet::new();
    for value in &parsed {
        if seen.insert(value.clone()) {
            distinct.push(value.clone());
        }
    }
    let all_distinct = distinct.len() == parsed.len();
    let mut ty = ty;
    let mut values = Vec::new();
    let mut note = None;
    if ty == "string" {
        let texts: Vec<&str> = distinct.iter().filter_map(Value::as_str).collect();
        if let Some((list, items)) = guess_list(&texts) {
            ty = list;
            values = items;
        } else if let Some(words) = repeated_words(&texts, parsed.len()) {
            ty = "enum".to_string();
            if distinct.len() * 2 > parsed.len() {
                note = Some(format!(
                    "`{name}` looks like an enum ({} values in {} rows): check its values",
                    words.len(),
                    parsed.len()
                ));
            }
            values = words;
        } else if present.iter().any(|c| !c.display().is_ascii()) {
            ty = "text".to_string();
        }
    }
    // `20221010`, `20221011`: numbers that may be dates written in eight digits.
    let compact_dates = parsed.iter().all(
        |v| matches!(v, Value::Int(i) if masterctl_runtime::calendar::compact_date(*i).is_some()),
    );
    if ty == "int" && !parsed.is_empty() && compact_dates {
        note = Some(format!(
            "`{name}` holds eight-digit numbers that all read as dates (20221010): if they are dates, make it `date` (validate reads them so)"
        ));
    }
    DraftField {
        name,
        header: None,
        ty,
        optional,
        values,
        references: None,
        keys: distinct,
        all_distinct,
        column: 0,
        spelling: None,
        separator: None,
        key_separator: None,
        description: None,
        nulls: Vec::new(),
        min: None,
        max: None,
        key: false,
        repeated_header: false,
        note,
    }
}

/// A word an enum value or a list item may be: short (at most 24 characters, of any
/// script: `货币`, `服装` are category words as much as `weapon` is), without spaces or
/// control characters.
fn is_word(text: &str) -> bool {
    !text.is_empty()
        && text.chars().count() <= 24
        && !text.contains(|c: char| c.is_whitespace() || c.is_control())
}

/// The values of an enum, when a few words (at most [`ENUM_MAX_VALUES`]) fill `rows`
/// cells and at least one repeats: a column of distinct words is names or codes.
fn repeated_words(distinct: &[&str], rows: usize) -> Option<Vec<String>> {
    let fits = distinct.len() >= 2
        && distinct.len() <= ENUM_MAX_VALUES
        && distinct.len() < rows
        && distinct.iter().all(|t| is_word(t));
    fits.then(|| distinct.iter().map(|t| t.to_string()).collect())
}

/// A list type when some cells hold `|`-separated items and every item of every cell
/// is a word: `list<int>` for numbers, `list<enum>` (with its values) for a few
/// repeated words, `list<string>` otherwise.
fn guess_list(distinct: &[&str]) -> Option<(String, Vec<String>)> {
    if !distinct.iter().any(|t| t.contains('|')) {
        return None;
    }
    let items: Vec<&str> = distinct
        .iter()
        .flat_map(|t| t.split('|'))
        .map(str::trim)
        .collect();
    if !items.iter().all(|item| is_word(item)) {
        return None;
    }
    if items.iter().all(|item| item.parse::<i64>().is_ok()) {
        return Some(("list<int>".into(), Vec::new()));
    }
    let mut words: Vec<&str> = Vec::new();
    for item in &items {
        if !words.contains(item) {
            words.push(item);
        }
    }
    match repeated_words(&words, items.len()) {
        Some(values) => Some(("list<enum>".into(), values)),
        None => Some(("list<string>".into(), Vec::new())),
    }
}

fn cell_int(cell: &Cell) -> Option<i64> {
    match cell {
        Cell::Int(i) => Some(*i),
        Cell::Float(f) => float_to_int(*f),
        Cell::Text(t) => t.trim().parse().ok(),
        _ => None,
    }
}

fn cell_float(cell: &Cell) -> Option<f64> {
    match cell {
        Cell::Int(i) => Some(*i as f64),
        Cell::Float(f) if f.is_finite() => Some(*f),
        Cell::Text(t) => t.trim().parse().ok().filter(|f: &f64| f.is_finite()),
        _ => None,
    }
}

fn guess_type(present: &[&Cell]) -> String {
    if present.is_empty() {
        return "string".into();
    }
    let all = |f: &dyn Fn(&Cell) -> bool| present.iter().all(|c| f(c));
    let is_bool = |c: &Cell| match c {
        Cell::Bool(_) => true,
        Cell::Text(t) => t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false"),
        _ => false,
    };
    let is_date = |c: &Cell| match c {
        Cell::DateTime(dt) => dt.time_of_day() == 0,
        // `20221010` typed as a number, beside dates written otherwise.
        Cell::Int(_) | Cell::Float(_) => cell_int(c)
            .and_then(masterctl_runtime::calendar::compact_date)
            .is_some(),
        Cell::Text(t) | Cell::IsoDateTime(t) => value::parse_date(t.trim()).is_some(),
        _ => false,
    };
    let is_datetime = |c: &Cell| match c {
        Cell::DateTime(_) => true,
        Cell::Text(t) | Cell::IsoDateTime(t) => {
            value::parse_datetime(t.trim()).is_some() || value::parse_date(t.trim()).is_some()
        }
        _ => false,
    };
    let name = if all(&is_bool) {
        "bool"
    } else if all(&|c| cell_int(c).is_some()) {
        "int"
    } else if all(&|c| cell_float(c).is_some()) {
        "float"
    } else if all(&is_date) {
        "date"
    } else if all(&is_datetime) {
        "datetime"
    } else {
        "string"
    };
    name.to_string()
}

fn guess_primary_key(
    fields: &[DraftField],
    grid: &dyn Grid,
    data_rows: &[usize],
    notes: &mut Vec<String>,
) -> Vec<String> {
    let keyable =
        |f: &DraftField| !f.optional && matches!(f.ty.as_str(), "int" | "string" | "enum" | "date");
    if let Some(id) = fields
        .iter()
        .find(|f| f.name == "id" && keyable(f) && f.all_distinct)
    {
        return vec![id.name.clone()];
    }
    if let Some(first) = fields.first()
        && keyable(first)
        && first.all_distinct
    {
        return vec![first.name.clone()];
    }
    // Two or three leading columns that are unique together: a composite key (nested
    // records laid down the rows, tableau's map of maps, repeat their outer keys).
    for width in 2..=3 {
        if fields.len() < width || !fields[..width].iter().all(keyable) {
            break;
        }
        let header_columns: Vec<usize> = fields[..width].iter().map(|f| f.column).collect();
        let mut seen = HashSet::new();
        let unique = data_rows.iter().all(|&r| {
            seen.insert(
                header_columns
                    .iter()
                    .map(|&c| grid.cell(r, c).display())
                    .collect::<Vec<_>>(),
            )
        });
        if unique {
            return fields[..width].iter().map(|f| f.name.clone()).collect();
        }
    }
    // A unique column that cannot be a key says why; otherwise none is unique.
    match fields
        .iter()
        .find(|f| f.all_distinct && !f.optional && !keyable(f))
    {
        Some(unique) => notes.push(format!(
            "`{}` is unique, but a {} column cannot be the primary key: choose the primary key",
            unique.name,
            if unique.ty == "text" {
                "text (translated)"
            } else {
                unique.ty.as_str()
            }
        )),
        None => notes.push(
            "no column is unique on its own or with the next one: choose the primary key".into(),
        ),
    }
    // The first column that can be a key holds the place; a file of none drafts its first
    // column as a string to be one.
    fields
        .iter()
        .find(|f| keyable(f))
        .or_else(|| fields.iter().find(|f| !f.repeated_header))
        .or_else(|| fields.first())
        .map(|f| vec![f.name.clone()])
        .unwrap_or_default()
}

/// `monster_id` in one sheet whose values are all keys of sheet `monster`: a reference.
fn link_references(drafts: &mut [DraftSchema]) {
    let keys: HashMap<String, (String, String, HashSet<Value>)> = drafts
        .iter()
        .filter_map(|d| match d.primary_key.as_slice() {
            [key] => {
                let field = d.fields.iter().find(|f| &f.name == key)?;
                Some((
                    d.name.clone(),
                    (
                        key.clone(),
                        field.ty.clone(),
                        field.keys.iter().cloned().collect(),
                    ),
                ))
            }
            _ => None,
        })
        .collect();
    for draft in drafts.iter_mut() {
        for field in &mut draft.fields {
            let target = field.name.strip_suffix("_id").unwrap_or(&field.name);
            let Some((key, ty, target_keys)) = keys.get(target) else {
                continue;
            };
            if target == draft.name || ty != &field.ty || field.keys.is_empty() {
                continue;
            }
            if field.keys.iter().all(|k| target_keys.contains(k)) {
                field.references = Some(format!("{target}.{key}"));
            }
        }
    }
}

impl DraftSchema {
    /// The draft as a schema file: the notes as comments, then the schema written by
    /// `toml`'s serializer (every name and value quoted as TOML quotes it).
    pub fn to_toml(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Drafted by `masterctl schema infer`: check every type and option."
        );
        for note in &self.notes {
            let _ = writeln!(out, "# TODO: {}", comment_text(note));
        }
        let file = SchemaFile {
            name: &self.name,
            source: self.source.as_deref(),
            sheet: (self.source.is_none() && self.sheet != self.name).then_some(&self.sheet),
            primary_key: &self.primary_key,
            other_columns: self.ignores_other_columns.then_some("ignore"),
            fields: self
                .fields
                .iter()
                .map(|field| FieldFile {
                    name: &field.name,
                    ty: &field.ty,
                    column: field.spelling.as_deref(),
                    values: &field.values,
                    separator: field.separator.as_deref(),
                    key_separator: field.key_separator.as_deref(),
                    repeated_header: field.repeated_header,
                    optional: field.optional,
                    null: &field.nulls,
                    min: field.min.as_deref().map(bound_value),
                    max: field.max.as_deref().map(bound_value),
                    description: field.description.as_deref(),
                    references: field.references.as_deref(),
                })
                .collect(),
        };
        // Plain strings, lists and tables only: nothing the serializer refuses.
        out.push_str(&toml::to_string(&file).unwrap_or_default());
        out
    }
}

/// A schema file as `schema infer` writes it, in the order its keys are read.
#[derive(serde::Serialize)]
struct SchemaFile<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    sheet: Option<&'a str>,
    primary_key: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    other_columns: Option<&'a str>,
    fields: Vec<FieldFile<'a>>,
}

#[derive(serde::Serialize)]
struct FieldFile<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    column: Option<&'a str>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    values: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    separator: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    key_separator: Option<&'a str>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    repeated_header: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    optional: bool,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    null: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<toml::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    references: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
}

/// A bound as the schema writes it: a number as a number.
fn bound_value(text: &str) -> toml::Value {
    match (text.parse::<i64>(), text.parse::<f64>()) {
        (Ok(int), _) => toml::Value::Integer(int),
        (_, Ok(float)) if float.is_finite() => toml::Value::Float(float),
        _ => toml::Value::String(text.to_string()),
    }
}

/// Text for a one-line TOML comment: line breaks and other control characters (which
/// would end the comment or make the file invalid) written as escapes.
pub(crate) fn comment_text(text: &str) -> String {
    text.chars()
        .flat_map(|c| match c {
            '\n' => "\\n".chars().collect::<Vec<_>>(),
            '\r' => "\\r".chars().collect(),
            '\t' => vec![' '],
            c if c.is_control() => format!("\\u{{{:04x}}}", c as u32).chars().collect(),
            c => vec![c],
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_and_enums_are_offered_where_the_values_say_so() {
        assert_eq!(guess_list(&["a", "b"]), None);
        assert_eq!(
            guess_list(&["1|2", "3"]),
            Some(("list<int>".into(), vec![]))
        );
        assert_eq!(
            guess_list(&["fire|wind", "fire", "wind|ice"]),
            Some((
                "list<enum>".into(),
                vec!["fire".into(), "wind".into(), "ice".into()]
            ))
        );
        assert_eq!(
            guess_list(&["ab|cd", "ef"]),
            Some(("list<string>".into(), vec![]))
        );
        // Prose with a bar is not a list.
        assert_eq!(guess_list(&["left | right side"]), None);
        // Words that repeat are an enum; distinct ones (codes, names) are not.
        assert!(repeated_words(&["common", "rare"], 3).is_some());
        assert!(repeated_words(&["Q0101", "Q0102"], 2).is_none());
        assert!(repeated_words(&["two words", "x"], 5).is_none());
    }

    #[test]
    fn headers_become_identifiers() {
        assert_eq!(identifier_from("QuestDrop").as_deref(), Some("quest_drop"));
        assert_eq!(identifier_from("Item ID").as_deref(), Some("item_id"));
        assert_eq!(identifier_from("habitat_id").as_deref(), Some("habitat_id"));
        assert_eq!(identifier_from("2nd").as_deref(), Some("f_2nd"));
        assert_eq!(identifier_from("L10NDemo").as_deref(), Some("l10n_demo"));
        let mut taken = HashSet::from(["item".to_string(), "item_2".to_string()]);
        assert_eq!(free_name(&mut taken, "item"), "item_3");
        assert_eq!(free_name(&mut taken, "shop"), "shop");
        assert!(taken.contains("item_3") && taken.contains("shop"));
        assert_eq!(
            identifier_from("HTTPServer").as_deref(),
            Some("http_server")
        );
        assert_eq!(
            identifier_from("Task1Param").as_deref(),
            Some("task1_param")
        );
        assert_eq!(identifier_from("itemID").as_deref(), Some("item_id"));
        assert_eq!(identifier_from("valueType").as_deref(), Some("value_type"));
        assert_eq!(identifier_from("名前"), None);
    }

    #[test]
    fn composite_keys_are_found_past_comment_columns() {
        let csv = "# note,quest_id,item_id,rate,kind\nx,1,1,0.1,a\ny,1,2,0.2,a\nz,2,1,0.3,b\nw,2,2,0.4,b\n";
        let grid = CsvGrid::parse(csv.as_bytes(), Path::new("Drop.csv")).unwrap();
        let (draft, _) = infer_grid("QuestDrop", &grid, false).unwrap();
        assert_eq!(draft.name, "quest_drop");
        assert_eq!(draft.primary_key, ["quest_id", "item_id"]);
        let types: Vec<&str> = draft.fields.iter().map(|f| f.ty.as_str()).collect();
        assert_eq!(types, ["int", "int", "float", "enum"]);
        assert_eq!(draft.fields[3].values, ["a", "b"]);
    }

    /// The drafts of a CSV text, as `infer_file` makes them (named, references linked).
    fn drafts_of(name: &str, csv: &str) -> Vec<DraftSchema> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::write(&path, csv).unwrap();
        infer_file(&path).unwrap()
    }

    #[test]
    fn the_header_is_found_below_a_title_row() {
        // A title above the header (`,Recharge`), as 38 workbooks of one game have it.
        let drafts = drafts_of(
            "recharge.csv",
            ",Recharge,,\nid,gems,price,label\n1,60,0.99,small\n2,330,4.99,big\n",
        );
        let fields: Vec<&str> = drafts[0].fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(fields, ["id", "gems", "price", "label"]);
        assert_eq!(drafts[0].primary_key, ["id"]);
        // A title of two cells above a header of five.
        let drafts = drafts_of(
            "items.csv",
            "Items,2024 spring,,,\nid,name,price,rarity,note\n1,Sword,100,common,sharp\n2,Shield,80,rare,\n",
        );
        let fields: Vec<&str> = drafts[0].fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(fields, ["id", "name", "price", "rarity", "note"]);
    }

    #[test]
    fn tableaus_type_and_note_rows_and_maps_are_read_as_tableau_writes_them() {
        // Names (the second line a note), types, a note row, then data; a map of scalars.
        let drafts = drafts_of(
            "fruit.csv",
            "\"ID\nthe fruit\",Name,Price,Stock,When\n\
             uint32,string,int32,\"map<uint32, int32>\",timestamp?\n\
             Fruit's ID,Its name,In gold,By shop,Sold from\n\
             1,apple,10,\"1:5,2:7\",null\n\
             2,pear,12,,2024-01-01T00:00:00Z\n",
        );
        let draft = &drafts[0];
        let field = |name: &str| draft.fields.iter().find(|f| f.name == name).unwrap();
        assert_eq!(field("id").ty, "int");
        assert_eq!(field("id").description.as_deref(), Some("Fruit's ID"));
        assert_eq!(field("price").ty, "int");
        assert_eq!(field("stock").ty, "map<int, int>");
        assert_eq!(field("stock").separator.as_deref(), Some(","));
        assert_eq!(field("when").ty, "datetime");
        assert!(field("when").optional);
        assert_eq!(field("when").nulls, ["null"]);
        // The note row is no data: the key is the ids, and apple is a row.
        assert_eq!(draft.primary_key, ["id"]);
        let text = draft.to_toml();
        assert!(text.contains("description = \"Fruit's ID\""), "{text}");
        assert!(text.contains("null = [\"null\"]"), "{text}");
        // The draft reads the file it was drafted from: the title, type and note rows
        // are no data, and every cell is its column's type.
        let project = masterctl_schemas::load::load_from_files(
            Some(("masterctl.toml".into(), "source_language = \"en\"\n".into())),
            vec![("schemas/fruit.toml".into(), text.clone())],
        )
        .unwrap_or_else(|r| panic!("{text}\n{:#?}", r.diagnostics));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("fruit.csv");
        std::fs::write(
            &path,
            "\"ID\nthe fruit\",Name,Price,Stock,When\n\
             uint32,string,int32,\"map<uint32, int32>\",timestamp?\n\
             Fruit's ID,Its name,In gold,By shop,Sold from\n\
             1,apple,10,\"1:5,2:7\",null\n\
             2,pear,12,,2024-01-01T00:00:00Z\n",
        )
        .unwrap();
        let validation = masterctl_schemas::validate_paths(&project, &[path]);
        assert!(!validation.report.has_errors(), "{:#?}", validation.report);
        let rows: Vec<Vec<String>> = (0..2)
            .map(|r| validation.tables[0].row(r).map(|v| v.to_string()).collect())
            .collect();
        assert_eq!(rows[0], ["1", "apple", "10", "1:5|2:7", ""]);
    }

    #[test]
    fn an_empty_column_is_an_optional_string_not_an_enum_of_nothing() {
        let draft = &drafts_of("t.csv", "id,empty,kind\n1,,a\n2,,b\n3,,a\n")[0];
        assert_eq!(draft.fields[1].ty, "string");
        assert!(draft.fields[1].optional && draft.fields[1].values.is_empty());
    }

    #[test]
    fn a_text_column_is_never_the_key_and_the_note_says_why() {
        // A unique column of prose in another script, then columns that repeat.
        let draft = &drafts_of("t.csv", "名前,count\n鉄の剣,1\n鋼の剣,1\n銀の剣,2\n")[0];
        assert_eq!(draft.fields[0].ty, "text");
        assert_eq!(draft.primary_key, ["count"]);
        assert!(
            draft.notes.iter().any(|n| n.contains(
                "`field_1` is unique, but a text (translated) column cannot be the primary key"
            )),
            "{:?}",
            draft.notes
        );
        assert!(
            !draft
                .notes
                .iter()
                .any(|n| n.contains("no column is unique"))
        );
        // Nothing else to take: the first column is drafted as a string, to be the key.
        let draft = &drafts_of("t.csv", "名前\n鉄の剣\n鋼の剣\n")[0];
        assert_eq!(draft.primary_key, ["field_1"]);
        assert_eq!(draft.fields[0].ty, "string");
    }

    #[test]
    fn a_header_of_several_lines_stays_inside_its_comment() {
        // Several lines (tableau's name, then a note): read by its first line; a header
        // with a control character is a note to rename it, escaped inside its comment.
        let draft = &drafts_of(
            "t.csv",
            "id,\"Name\nfirst line\r\nsecond\u{0}\",\"Pri\u{1}ce\"\n1,a,2\n2,b,3\n",
        )[0];
        let toml = draft.to_toml();
        assert!(toml.contains("column = \"Name\""), "{toml}");
        assert!(toml.contains("\\u{0001}"), "{toml}");
        for line in toml.lines().filter(|l| l.contains("TODO")) {
            assert!(line.starts_with("# TODO: "), "{line}");
        }
        toml::from_str::<toml::Table>(&toml).unwrap();
    }

    #[test]
    fn sheets_without_latin_names_take_the_files_and_never_replace_one_another() {
        // A CSV file named in another script: `table`.
        assert_eq!(drafts_of("道具.csv", "id\n1\n")[0].name, "table");
        let names = |drafts: Vec<(DraftSchema, bool)>, file: &str| -> Vec<String> {
            name_drafts(Path::new(file), drafts)
                .into_iter()
                .map(|d| d.name)
                .collect()
        };
        let draft = |name: &str, sheet: &str, named: bool| {
            let grid = CsvGrid::parse(b"id\n1\n", Path::new("x.csv")).unwrap();
            let (mut d, _) = infer_grid(sheet, &grid, false).unwrap();
            d.name = name.to_string();
            (d, named)
        };
        assert_eq!(
            names(vec![draft("table", "道具系统表", false)], "items.xlsx"),
            ["items"]
        );
        assert_eq!(
            names(
                vec![
                    draft("table", "道具", false),
                    draft("table", "装备", false),
                    draft("items", "items", true),
                    draft("items", "Items", true),
                ],
                "items.xlsx"
            ),
            ["items_1", "items_2", "items", "items_3"]
        );
        assert_eq!(
            names(
                vec![draft("table", "道具", false), draft("table", "装备", false)],
                "道具系统表.xlsx"
            ),
            ["table_1", "table_2"]
        );
    }

    #[test]
    fn category_words_of_any_script_are_an_enum() {
        let draft = &drafts_of(
            "t.csv",
            "id,category,name\n1,货币,金币\n2,服装,红色上衣\n3,货币,钻石\n4,服装,蓝色裤子\n",
        )[0];
        assert_eq!(draft.fields[1].ty, "enum");
        assert_eq!(draft.fields[1].values, ["货币", "服装"]);
        // Names, each once, are text to translate.
        assert_eq!(draft.fields[2].ty, "text");
    }

    #[test]
    fn long_headers_make_names_the_loader_takes() {
        let long = "a".repeat(40) + " " + &"b".repeat(40);
        let name = identifier_from(&long).unwrap();
        assert!(masterctl_schemas::load::is_identifier(&name), "{name}");
        assert!(masterctl_schemas::load::is_identifier(&format!(
            "{name}_22"
        )));
    }

    #[test]
    fn headers_with_quotes_and_backslashes_are_written_as_toml_reads_them() {
        let draft = &drafts_of("t.csv", "id,\"say \"\"hi\"\"\",C:\\path\n1,a,x\n2,b,y\n")[0];
        let toml = draft.to_toml();
        let table: toml::Table = toml::from_str(&toml).unwrap();
        let columns: Vec<&str> = table["fields"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f.get("column").and_then(|c| c.as_str()))
            .collect();
        assert_eq!(columns, ["say \"hi\"", "C:\\path"], "{toml}");
    }
}
