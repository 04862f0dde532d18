//! A Luban project's definitions, as written: enums, beans and tables from
//! `Defines/*.xml` and from the `__tables__`, `__beans__` and `__enums__` workbooks.

use std::path::Path;

use quick_xml::events::{BytesStart, Event};

use masterctl_schemas::grid::{Cell, Grid};

#[derive(Debug, Default)]
pub struct Defs {
    pub enums: Vec<EnumDef>,
    pub beans: Vec<BeanDef>,
    pub tables: Vec<TableDef>,
    /// `<refgroup name=... ref=...>`: several tables a reference may point into.
    pub refgroups: Vec<String>,
    /// `<constalias name="ITEM0" value="1001"/>`: names cells may write for numbers.
    pub constants: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct EnumDef {
    /// `module.Name` (`Name` in the root module).
    pub full_name: String,
    pub flags: bool,
    pub items: Vec<EnumItem>,
}

#[derive(Debug, Clone)]
pub struct EnumItem {
    pub name: String,
    pub aliases: Vec<String>,
    pub value: Option<i64>,
}

#[derive(Debug, Clone)]
pub struct BeanDef {
    pub full_name: String,
    pub parent: Option<String>,
    /// What separates its fields when a cell holds it whole (`sep=","`).
    pub sep: Option<String>,
    /// Another name a cell may give it, as a case of a polymorphic bean (`alias="圆形"`).
    pub alias: Option<String>,
    pub comment: Option<String>,
    pub fields: Vec<VarDef>,
    /// Declared inside another bean, or named as another's parent: one case of a
    /// polymorphic type.
    pub nested_in: Option<String>,
}

#[derive(Debug, Clone)]
pub struct VarDef {
    pub name: String,
    /// The module its type names are resolved in first.
    pub module: String,
    pub ty: String,
    pub comment: Option<String>,
    /// Luban's export groups of the field (`c,s`), as written; `None`: all of them.
    pub group: Option<String>,
}

#[derive(Debug, Clone)]
pub struct TableDef {
    pub full_name: String,
    /// The record bean's name, as written.
    pub value: String,
    pub index: String,
    pub mode: String,
    pub input: String,
    pub comment: Option<String>,
    /// The fields come from the workbook's `##var`/`##type` rows.
    pub from_file: bool,
    /// Where it was declared: a definitions file, or the workbook itself (`#Name.xlsx`).
    pub declared_in: String,
    pub module: String,
    /// Luban's export groups of the table (`c`), as written; `None`: the default ones.
    pub group: Option<String>,
}

fn qualify(module: &str, name: &str) -> String {
    if module.is_empty() || name.contains('.') {
        name.to_string()
    } else {
        format!("{module}.{name}")
    }
}

/// The module part of `module.Name` (empty in the root module).
pub fn module_of(full_name: &str) -> &str {
    full_name.rsplit_once('.').map(|(m, _)| m).unwrap_or("")
}

/// The name part of `module.Name`.
pub fn short_name(full_name: &str) -> &str {
    full_name
        .rsplit_once('.')
        .map(|(_, n)| n)
        .unwrap_or(full_name)
}

fn attrs(element: &BytesStart) -> Vec<(String, String)> {
    element
        .attributes()
        .with_checks(false)
        .flatten()
        .map(|a| {
            let key = a.key.as_ref().to_string();
            let value = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| a.value.to_string());
            (key, value)
        })
        .collect()
}

fn get(attrs: &[(String, String)], key: &str) -> Option<String> {
    attrs
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(key))
        .map(|(_, v)| v.trim().to_string())
        .filter(|v| !v.is_empty())
}

fn truthy(value: Option<String>) -> bool {
    value.is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true"))
}

/// Read one definitions file (`<module>` with enums, beans and tables).
pub fn read_xml(defs: &mut Defs, path: &Path, text: &str) -> Result<(), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = quick_xml::Reader::from_str(text);
    let mut modules: Vec<String> = Vec::new();
    // The beans open around the current element (nested beans are polymorphic cases).
    let mut beans: Vec<usize> = Vec::new();
    let mut open_enum: Option<usize> = None;
    // Element names open, to close beans, enums and modules at the right end tag.
    let mut stack: Vec<String> = Vec::new();
    let file = path.display().to_string();
    loop {
        let event = reader
            .read_event()
            .map_err(|e| format!("at byte {}: {e}", reader.buffer_position()))?;
        let (element, empty) = match &event {
            Event::Start(e) => (e, false),
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                let name = e.name().as_ref().to_ascii_lowercase();
                // Close up to the matching open element.
                while let Some(open) = stack.pop() {
                    close(&open, &mut modules, &mut beans, &mut open_enum);
                    if open == name {
                        break;
                    }
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let tag = element.name().as_ref().to_ascii_lowercase();
        let a = attrs(element);
        let module = modules.last().cloned().unwrap_or_default();
        match tag.as_str() {
            "module" => {
                let name = get(&a, "name").unwrap_or_default();
                let full = match module.as_str() {
                    "" => name,
                    outer if name.is_empty() => outer.to_string(),
                    outer => format!("{outer}.{name}"),
                };
                modules.push(full);
            }
            "enum" => {
                defs.enums.push(EnumDef {
                    full_name: qualify(&module, &get(&a, "name").unwrap_or_default()),
                    flags: truthy(get(&a, "flags")),
                    items: Vec::new(),
                });
                open_enum = Some(defs.enums.len() - 1);
            }
            "var" if open_enum.is_some() && beans.is_empty() => {
                if let Some(e) = open_enum.and_then(|i| defs.enums.get_mut(i)) {
                    e.items.push(EnumItem {
                        name: get(&a, "name").unwrap_or_default(),
                        aliases: split_aliases(get(&a, "alias")),
                        value: get(&a, "value").and_then(|v| v.parse().ok()),
                    });
                }
            }
            "bean" => {
                let nested_in = beans.last().map(|&i| defs.beans[i].full_name.clone());
                defs.beans.push(BeanDef {
                    full_name: qualify(&module, &get(&a, "name").unwrap_or_default()),
                    parent: get(&a, "parent").or_else(|| nested_in.clone()),
                    sep: get(&a, "sep").filter(|s| !s.is_empty()),
                    alias: get(&a, "alias"),
                    comment: get(&a, "comment").filter(|c| !c.trim().is_empty()),
                    fields: Vec::new(),
                    nested_in,
                });
                beans.push(defs.beans.len() - 1);
            }
            "var" => {
                if let Some(&bean) = beans.last() {
                    let mut ty = get(&a, "type").unwrap_or_default();
                    // `ref="..."` on the var is shorthand for `#ref=` on its type.
                    if let Some(reference) = get(&a, "ref") {
                        ty = format!("{ty}#ref={reference}");
                    }
                    let module = module_of(&defs.beans[bean].full_name).to_string();
                    defs.beans[bean].fields.push(VarDef {
                        module,
                        name: get(&a, "name").unwrap_or_default(),
                        ty,
                        comment: get(&a, "comment"),
                        group: get(&a, "group"),
                    });
                }
            }
            "table" => defs.tables.push(TableDef {
                full_name: qualify(&module, &get(&a, "name").unwrap_or_default()),
                value: get(&a, "value").unwrap_or_default(),
                index: get(&a, "index").unwrap_or_default(),
                mode: get(&a, "mode").unwrap_or_default().to_ascii_lowercase(),
                input: get(&a, "input").unwrap_or_default(),
                comment: get(&a, "comment"),
                from_file: truthy(get(&a, "readSchemaFromFile"))
                    || truthy(get(&a, "define_from_file")),
                declared_in: file.clone(),
                module: module.clone(),
                group: get(&a, "group"),
            }),
            "constalias" => {
                if let Some(name) = get(&a, "name") {
                    defs.constants.push(name);
                }
            }
            "refgroup" => {
                if let Some(name) = get(&a, "name") {
                    defs.refgroups.push(qualify(&module, &name));
                }
            }
            _ => {}
        }
        if !empty {
            stack.push(tag);
        } else {
            close(&tag, &mut modules, &mut beans, &mut open_enum);
        }
    }
    Ok(())
}

fn close(
    tag: &str,
    modules: &mut Vec<String>,
    beans: &mut Vec<usize>,
    open_enum: &mut Option<usize>,
) {
    match tag {
        "module" => {
            modules.pop();
        }
        "bean" => {
            beans.pop();
        }
        "enum" => *open_enum = None,
        _ => {}
    }
}

fn split_aliases(alias: Option<String>) -> Vec<String> {
    alias
        .map(|a| {
            a.split([',', ';', '|'])
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// A definitions workbook's rows: each row's cells by column title (`full_name`,
/// `*fields` sub-columns...). The title row is the first `##var` row; a second `##var`
/// row names the sub-columns of a `*list` column.
struct TitledRows {
    /// Column, title, and whether it is a sub-title: one of a `*list` column's items
    /// (a bean's `*fields`, an enum's `*items`), named in a second `##var` row.
    titles: Vec<(usize, String, bool)>,
    rows: Vec<Vec<String>>,
}

fn titled_rows(grid: &dyn Grid) -> TitledRows {
    let mut titles: Vec<(usize, String, bool)> = Vec::new();
    let mut var_rows = 0;
    let mut rows = Vec::new();
    for row in 0..grid.height() {
        let first = grid.cell(row, 0).display();
        let first = first.trim();
        let cells: Vec<String> = (0..grid.width(row))
            .map(|c| grid.cell(row, c).display().trim().to_string())
            .collect();
        if first.starts_with("##var") || (var_rows == 0 && first == "##") {
            var_rows += 1;
            for (column, text) in cells.iter().enumerate().skip(1) {
                if text.is_empty() {
                    continue;
                }
                // A sub-title under a `*list` column is that list's column.
                let text = text.trim_start_matches('*').to_string();
                let nested = var_rows > 1;
                match titles.iter_mut().find(|(c, _, _)| *c == column) {
                    Some(existing) if nested => *existing = (column, text, true),
                    Some(_) => {}
                    None => titles.push((column, text, nested)),
                }
            }
            continue;
        }
        if first.starts_with('#') {
            continue;
        }
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        rows.push(cells);
    }
    TitledRows { titles, rows }
}

impl TitledRows {
    /// A cell of the record itself (a bean's `comment`, not one of its fields').
    fn get(&self, row: &[String], title: &str) -> Option<String> {
        self.cell(row, title, false)
    }

    /// A cell of one of the record's items (a bean field's `comment`, an enum item's
    /// `alias`), or of the record when only it has such a column.
    fn item(&self, row: &[String], title: &str) -> Option<String> {
        self.cell(row, title, true)
    }

    fn cell(&self, row: &[String], title: &str, nested: bool) -> Option<String> {
        let named = |want: bool| {
            self.titles
                .iter()
                .find(|(_, t, n)| *n == want && t.eq_ignore_ascii_case(title))
        };
        let (column, _, _) = named(nested).or_else(|| named(!nested))?;
        row.get(*column).filter(|v| !v.is_empty()).cloned()
    }
}

/// Read `__tables__`, `__beans__` or `__enums__` (`kind`: table, bean, enum): a
/// workbook's first sheet, or a CSV file.
pub fn read_workbook(defs: &mut Defs, path: &Path, kind: &str) -> Result<(), String> {
    let mut first: Option<TitledRows> = None;
    each_sheet(path, |_, grid| {
        if first.is_none() {
            first = Some(titled_rows(grid));
        }
    })?;
    let Some(sheet) = first else {
        return Ok(());
    };
    let file = path.display().to_string();
    match kind {
        "table" => {
            for row in &sheet.rows {
                let Some(full_name) = sheet.get(row, "full_name") else {
                    continue;
                };
                defs.tables.push(TableDef {
                    module: module_of(&full_name).to_string(),
                    full_name,
                    value: sheet.get(row, "value_type").unwrap_or_default(),
                    index: sheet.get(row, "index").unwrap_or_default(),
                    mode: sheet
                        .get(row, "mode")
                        .unwrap_or_default()
                        .to_ascii_lowercase(),
                    input: sheet.get(row, "input").unwrap_or_default(),
                    comment: sheet.get(row, "comment"),
                    from_file: truthy(sheet.get(row, "read_schema_from_file")),
                    declared_in: file.clone(),
                    group: sheet.get(row, "group"),
                });
            }
        }
        "bean" => {
            for row in &sheet.rows {
                if let Some(full_name) = sheet.get(row, "full_name") {
                    defs.beans.push(BeanDef {
                        full_name,
                        parent: sheet.get(row, "parent"),
                        sep: sheet.get(row, "sep").filter(|s| !s.is_empty()),
                        alias: sheet.get(row, "alias"),
                        comment: sheet.get(row, "comment"),
                        fields: Vec::new(),
                        nested_in: None,
                    });
                }
                if let (Some(bean), Some(name)) = (defs.beans.last_mut(), sheet.item(row, "name")) {
                    bean.fields.push(VarDef {
                        module: module_of(&bean.full_name).to_string(),
                        name,
                        ty: sheet.item(row, "type").unwrap_or_default(),
                        comment: sheet.item(row, "comment"),
                        group: sheet.item(row, "group"),
                    });
                }
            }
        }
        _ => {
            for row in &sheet.rows {
                if let Some(full_name) = sheet.get(row, "full_name") {
                    defs.enums.push(EnumDef {
                        full_name,
                        flags: truthy(sheet.get(row, "flags")),
                        items: Vec::new(),
                    });
                }
                if let (Some(e), Some(name)) = (defs.enums.last_mut(), sheet.item(row, "name")) {
                    let value = sheet.item(row, "value");
                    e.items.push(EnumItem {
                        name,
                        aliases: split_aliases(sheet.item(row, "alias")),
                        // `WRITE|READ` (a flags combination) has no number of its own.
                        value: value.and_then(|v| v.parse::<f64>().ok()).map(|v| v as i64),
                    });
                }
            }
        }
    }
    Ok(())
}

/// A data sheet's structure rows: its field names (`##var`, or a first `##` row), the
/// types declared under them (`##type`), the first description row (`##`), and how many
/// `##var` rows there are (more than one: beans spread over named sub-columns).
#[derive(Debug, Default, Clone)]
pub struct SheetHeader {
    /// Column, name, as written (`x5#default=10` keeps its attributes).
    pub names: Vec<(usize, String)>,
    /// The second `##var` row's titles: the sub-columns of a value spread over
    /// columns (a bean's fields, a map's keys).
    pub sub_names: Vec<(usize, String)>,
    pub types: Vec<(usize, String)>,
    pub descriptions: Vec<(usize, String)>,
    /// The export groups of the fields a sheet declares (`##group`: `c`, `c,s`).
    pub groups: Vec<(usize, String)>,
    pub var_rows: usize,
    /// Columns titled in a row of sub-titles (a second `##var` row, a `##+` row): a
    /// value spread over them names its parts there.
    pub sub_titled: std::collections::BTreeSet<usize>,
    /// Columns holding a value in some data row.
    pub used: Vec<bool>,
    /// A few of each column's texts (words a numeric column may hold: constants).
    pub texts: std::collections::BTreeMap<usize, std::collections::BTreeSet<String>>,
    /// `##column#var`: the sheet lists one field per row.
    pub vertical: bool,
}

impl SheetHeader {
    /// Whether this is a Luban data sheet: its first cell starts with `##`. A sheet
    /// marked `##column` (`##var#column`, `##column#var`) lists one field per row: it
    /// is read turned a quarter, its columns as rows, and `vertical` says so.
    pub fn read(grid: &dyn Grid) -> Option<SheetHeader> {
        let first = grid.cell(0, 0).display();
        let first = first.trim();
        if !first.starts_with("##") {
            return None;
        }
        if first
            .split('#')
            .any(|part| part.eq_ignore_ascii_case("column"))
        {
            let mut header = SheetHeader::rows(&Turned(grid), true);
            header.vertical = true;
            return Some(header);
        }
        Some(SheetHeader::rows(grid, false))
    }

    /// The structure rows and data rows of a sheet whose first row is `##...`: the names
    /// there when `names_first` (a turned sheet's first column).
    fn rows(grid: &dyn Grid, names_first: bool) -> SheetHeader {
        let mut header = SheetHeader::default();
        let mut described = false;
        for row in 0..grid.height() {
            let marker = grid.cell(row, 0).display().trim().to_ascii_lowercase();
            let cells = || {
                (1..grid.width(row))
                    .map(|c| (c, grid.cell(row, c).display().trim().to_string()))
                    .filter(|(_, t)| !t.is_empty())
                    .collect::<Vec<_>>()
            };
            if marker.starts_with("##var") || (row == 0 && (marker == "##" || names_first)) {
                header.var_rows += 1;
                match header.var_rows {
                    1 => header.names = cells(),
                    2 => header.sub_names = cells(),
                    _ => {}
                }
                if header.var_rows > 1 {
                    header
                        .sub_titled
                        .extend(cells().into_iter().map(|(c, _)| c));
                }
            } else if marker.starts_with("##+") {
                header
                    .sub_titled
                    .extend(cells().into_iter().map(|(c, _)| c));
            } else if marker.starts_with("##type") {
                header.types = cells();
            } else if marker == "##" {
                if !described {
                    header.descriptions = cells();
                    described = true;
                }
            } else if marker.starts_with("##group") {
                header.groups = cells();
            } else if marker.starts_with('#') {
                // Other structure rows.
            } else {
                for c in 1..grid.width(row) {
                    if let Cell::Text(text) = grid.cell(row, c) {
                        let texts = header.texts.entry(c).or_default();
                        if texts.len() < 64 {
                            texts.insert(text.trim().to_string());
                        }
                    }
                    if !grid.cell(row, c).is_empty() {
                        if header.used.len() <= c {
                            header.used.resize(c + 1, false);
                        }
                        header.used[c] = true;
                    }
                }
            }
        }
        header
    }

    /// The columns after `column` up to the next named one (a value spread over them).
    pub fn spread(&self, column: usize) -> std::ops::Range<usize> {
        let next = self
            .names
            .iter()
            .map(|(c, _)| *c)
            .find(|&c| c > column)
            .unwrap_or(self.used.len().max(column + 1));
        column + 1..next
    }

    /// How many columns a value under the header at `column` spreads its parts over:
    /// its own and those right of it up to the next header, when a data row holds
    /// values there and no row of sub-titles names them; `None` for one column.
    pub fn parts_over(&self, column: usize) -> Option<usize> {
        let spread = self.spread(column);
        let span = spread.len() + 1;
        let free = self.holds_values(spread) && !self.sub_titles(column..column + span);
        (free && span > 1).then_some(span)
    }

    /// Whether a row of sub-titles names one of these columns.
    fn sub_titles(&self, columns: std::ops::Range<usize>) -> bool {
        self.sub_titled.range(columns).next().is_some()
    }

    /// Whether a data row holds a value in one of these columns.
    pub fn holds_values(&self, columns: std::ops::Range<usize>) -> bool {
        columns.into_iter().any(|c| self.used.get(c) == Some(&true))
    }

    /// The column of a field, and its title as written (`x5#default=10`).
    pub fn column_of(&self, name: &str) -> Option<(usize, &str)> {
        self.names
            .iter()
            .find(|(_, n)| field_name_of(n) == name)
            .map(|(c, n)| (*c, n.as_str()))
    }

    /// A field whose records span several rows (`*items`, `items#multi_rows=1`).
    /// The headers of fields whose lists go on in the rows below (`*name`,
    /// `name#multi_rows=1`).
    pub fn multi_row(&self) -> impl Iterator<Item = &str> {
        self.names
            .iter()
            .map(|(_, n)| n.as_str())
            .filter(|n| is_multi_row(n))
    }
}

/// Whether a field's header says its list goes on in the rows below (`*name`,
/// `name#multi_rows=1`).
pub fn is_multi_row(title: &str) -> bool {
    title.trim_start().starts_with('*') || title.contains("multi_rows=1")
}

/// `x5#default=10` → `x5`; `*x1` → `x1`.
pub fn field_name_of(title: &str) -> &str {
    let title = title.trim().trim_start_matches('*');
    title.split('#').next().unwrap_or(title).trim()
}

/// The Luban data sheets of a workbook (first cell `##...`), by name, with their
/// structure rows.
/// A sheet turned a quarter: its columns as rows (a `##column` sheet read as Luban's
/// ordinary layout).
struct Turned<'g>(&'g dyn Grid);

impl Grid for Turned<'_> {
    fn height(&self) -> usize {
        (0..self.0.height())
            .map(|row| self.0.width(row))
            .max()
            .unwrap_or(0)
    }

    fn width(&self, _row: usize) -> usize {
        self.0.height()
    }

    fn cell(&self, row: usize, column: usize) -> Cell<'_> {
        if column >= self.0.height() || row >= self.0.width(column) {
            return Cell::Empty;
        }
        self.0.cell(column, row)
    }

    fn row_position(&self, row: usize) -> u64 {
        u64::from(self.0.column_position(row))
    }

    fn column_position(&self, column: usize) -> u32 {
        u32::try_from(self.0.row_position(column)).unwrap_or(u32::MAX)
    }
}

pub fn data_sheets(path: &Path) -> Result<Vec<(String, SheetHeader)>, String> {
    let mut sheets = Vec::new();
    each_sheet(path, |name, grid| {
        if let Some(header) = SheetHeader::read(grid) {
            sheets.push((name.to_string(), header));
        }
    })?;
    Ok(sheets)
}

/// Each readable sheet of a workbook, by name; a CSV file is one sheet, named by
/// nothing (Luban reads both alike).
fn each_sheet(path: &Path, mut visit: impl FnMut(&str, &dyn Grid)) -> Result<(), String> {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"))
    {
        let bytes = masterctl_runtime::files::read_regular(path, 256 << 20)
            .map_err(|e| e.to_string())?
            .ok_or_else(|| "no such file".to_string())?;
        let grid = masterctl_schemas::read::csv::CsvGrid::parse_decoding(&bytes, path)
            .map(|(grid, _)| grid)
            .map_err(|d| d.first().map(|d| d.message.clone()).unwrap_or_default())?;
        visit("", &grid);
        return Ok(());
    }
    masterctl_schemas::read::workbook::for_each_sheet(path, |name, grid| {
        if let Ok(grid) = grid {
            visit(name, grid);
        }
    })
    .map_err(|d| d.message)
}
