//! A diff as one self-contained HTML page (`diff --html`, the dry runs' `--html`, and
//! the console's review): a summary with links to each table, a section per table,
//! changed cells with their highlights, filters by table and change kind. Rendered
//! from `store/templates/review.html` by askama, which escapes every value for HTML;
//! the style and the one script are in the page, so it needs no network.

use askama::Template;

use super::{Change, ChangeKind, Content, Diff, Disposition, Span, TableStatus, inline};

/// The most changes shown per table; the rest are counted.
pub const SHOWN_PER_TABLE: usize = 1000;

/// The change kinds a reader filters by: (`data-kind`, label).
const KINDS: [(&str, &str); 6] = [
    ("schema", "schema changes"),
    ("row_added", "rows added"),
    ("row_removed", "rows removed"),
    ("cell_changed", "cells changed"),
    ("text_changed", "texts changed"),
    ("table", "tables added or removed"),
];

/// How a served page shows a long table: `per_table` changes at a time, from `from`
/// for the table `at` (the others from their first), each window linking to the ones
/// before and after it through `link(table, from)`.
pub struct Window<'a> {
    pub per_table: usize,
    pub at: Option<(&'a str, usize)>,
    pub link: &'a dyn Fn(&str, usize) -> String,
}

/// The page for `diff` between the sides labelled `from` and `to`: a file of its own,
/// each table's first [`SHOWN_PER_TABLE`] changes, the rest counted.
pub fn page(title: &str, from: &str, to: &str, diff: &Diff) -> String {
    render(title, from, to, diff, None)
}

/// The page for `diff` as a server pages it ([`Window`]).
pub fn paged(title: &str, from: &str, to: &str, diff: &Diff, window: &Window<'_>) -> String {
    render(title, from, to, diff, Some(window))
}

fn render(title: &str, from: &str, to: &str, diff: &Diff, window: Option<&Window<'_>>) -> String {
    let page = Page {
        title,
        from,
        to,
        kinds: &KINDS,
        tables: summary(diff),
        sections: sections(diff, window),
    };
    // The template is checked when the crate compiles, and writing to a String cannot
    // fail; an error here could only be a value whose Display fails, which none does.
    page.render()
        .unwrap_or_else(|e| format!("<!DOCTYPE html>\n<p>{e}</p>\n"))
}

#[derive(Template)]
#[template(path = "review.html")]
struct Page<'a> {
    title: &'a str,
    from: &'a str,
    to: &'a str,
    kinds: &'a [(&'static str, &'static str)],
    tables: Vec<TableLine<'a>>,
    sections: Vec<Section<'a>>,
}

/// A table's line in the summary.
struct TableLine<'a> {
    index: usize,
    name: &'a str,
    status: &'static str,
    generated: bool,
    schema_changes: usize,
    rows_added: usize,
    rows_removed: usize,
    cells_changed: usize,
    texts_changed: usize,
    flagged: usize,
}

/// A table's changes.
struct Section<'a> {
    index: usize,
    name: &'a str,
    rows: Vec<Line<'a>>,
    /// Changes not shown, of `total`.
    more: usize,
    total: usize,
    /// The first change shown, from 0.
    first: usize,
    /// Served in windows: the addresses of the one before and the one after.
    earlier: Option<String>,
    later: Option<String>,
    paged: bool,
}

/// One change.
struct Line<'a> {
    /// `cell_changed`…: the row's class.
    kind: &'static str,
    /// What the kind filters under.
    group: &'static str,
    label: String,
    disposition: Option<&'static str>,
    flagged: bool,
    key: String,
    name: &'a str,
    column: String,
    old: Vec<Piece>,
    new: Vec<Piece>,
    /// For a number: `+5, +12.5%`.
    delta: Option<String>,
}

/// A piece of a cell: text as it is, marked removed or added, or a row's `column=value`.
enum Piece {
    Same(String),
    Removed(String),
    Added(String),
    Cell(String, String),
}

fn summary(diff: &Diff) -> Vec<TableLine<'_>> {
    diff.tables
        .iter()
        .enumerate()
        .map(|(index, t)| TableLine {
            index,
            name: &t.table,
            status: match t.status {
                TableStatus::Added => "added",
                TableStatus::Removed => "removed",
                TableStatus::Changed => "changed",
            },
            generated: t.generated,
            schema_changes: t.schema_changes,
            rows_added: t.rows_added,
            rows_removed: t.rows_removed,
            cells_changed: t.cells_changed,
            texts_changed: t.texts_changed,
            flagged: t.flagged,
        })
        .collect()
}

/// A section per table, its changes in order (they are grouped by table already), in
/// its window when the page is served in windows.
fn sections<'d>(diff: &'d Diff, window: Option<&Window<'_>>) -> Vec<Section<'d>> {
    let mut at = 0;
    let mut sections = Vec::with_capacity(diff.tables.len());
    for (index, table) in diff.tables.iter().enumerate() {
        let count = diff.changes[at..]
            .iter()
            .take_while(|c| c.table == table.table)
            .count();
        let changes = &diff.changes[at..at + count];
        at += count;
        let (shown, first) = match window {
            Some(w) => (
                w.per_table.max(1),
                match w.at {
                    Some((name, from)) if name == table.table => from.min(count.saturating_sub(1)),
                    _ => 0,
                },
            ),
            None => (SHOWN_PER_TABLE, 0),
        };
        let last = (first + shown).min(count);
        let link = |from: usize| window.map(|w| (w.link)(&table.table, from));
        sections.push(Section {
            index,
            name: &table.table,
            rows: changes[first..last].iter().map(line).collect(),
            more: count - (last - first),
            total: count,
            first,
            earlier: (first > 0)
                .then(|| link(first.saturating_sub(shown)))
                .flatten(),
            later: (last < count).then(|| link(last)).flatten(),
            paged: window.is_some(),
        });
    }
    sections
}

fn line(c: &Change) -> Line<'_> {
    let kind = c.kind.as_str();
    let mut column = c.column.clone().unwrap_or_default();
    if let Some(language) = &c.language {
        column.push_str(&format!(" ({language})"));
    }
    if let Some(option) = &c.option {
        column.push_str(&format!(": {option}"));
    }
    if let Some(audience) = &c.audience {
        column.push_str(&format!(" [{audience}]"));
    }
    let (old, new) = cells(c);
    Line {
        kind,
        group: group(c.kind),
        label: kind.replace('_', " "),
        disposition: c.disposition.map(|d| match d {
            Disposition::Applied => "applied",
            Disposition::Kept => "kept: the region owns it",
            Disposition::Equal => "equal: the region has it",
        }),
        flagged: c.flagged,
        key: c.key.as_ref().map(|k| k.join(", ")).unwrap_or_default(),
        name: c.row.as_deref().unwrap_or_default(),
        column,
        old,
        new,
        delta: c.delta.map(|delta| {
            let percent = c.percent.map(|p| format!(", {p:+.1}%")).unwrap_or_default();
            format!("{delta:+}{percent}")
        }),
    }
}

/// The group a change's kind filters under.
fn group(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::TableAdded | ChangeKind::TableRemoved => "table",
        ChangeKind::KeyChanged
        | ChangeKind::FieldAdded
        | ChangeKind::FieldRemoved
        | ChangeKind::FieldRetyped
        | ChangeKind::OptionChanged => "schema",
        ChangeKind::RowAdded => "row_added",
        ChangeKind::RowRemoved => "row_removed",
        ChangeKind::CellChanged => "cell_changed",
        ChangeKind::TextChanged => "text_changed",
    }
}

/// The old and new cells: a text with its changed words marked, else each side's
/// content as it is.
fn cells(c: &Change) -> (Vec<Piece>, Vec<Piece>) {
    if let (
        ChangeKind::TextChanged | ChangeKind::CellChanged,
        Some(Content::Text(old)),
        Some(Content::Text(new)),
    ) = (c.kind, &c.old, &c.new)
        && c.delta.is_none()
    {
        let (mut before, mut after) = (Vec::new(), Vec::new());
        for span in inline(old, new) {
            match span {
                Span::Same(t) => {
                    before.push(Piece::Same(t.clone()));
                    after.push(Piece::Same(t));
                }
                Span::Removed(t) => before.push(Piece::Removed(t)),
                Span::Added(t) => after.push(Piece::Added(t)),
            }
        }
        return (before, after);
    }
    let side = |content: &Option<Content>| content.as_ref().map(pieces).unwrap_or_default();
    (side(&c.old), side(&c.new))
}

fn pieces(content: &Content) -> Vec<Piece> {
    match content {
        Content::Text(text) => vec![Piece::Same(text.clone())],
        Content::Names(names) => vec![Piece::Same(format!("({})", names.join(", ")))],
        Content::Row(cells) => {
            let mut pieces = Vec::new();
            for (column, value) in cells.iter().filter(|(_, v)| !v.is_empty()) {
                if !pieces.is_empty() {
                    pieces.push(Piece::Same(" ".into()));
                }
                pieces.push(Piece::Cell(column.clone(), value.clone()));
            }
            pieces
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::review::diff::TableDiff;

    #[test]
    fn markup_in_data_is_text_and_the_page_stands_alone() {
        let change = Change {
            table: "item".into(),
            generated: false,
            kind: ChangeKind::TextChanged,
            key: Some(vec!["1".into()]),
            row: Some("<b>sword</b>".into()),
            column: Some("name".into()),
            language: Some("en".into()),
            option: None,
            old: Some(Content::Text("Iron Sword".into())),
            new: Some(Content::Text(
                "Iron <script>alert('x')</script> & \"q\"".into(),
            )),
            delta: None,
            percent: None,
            flagged: false,
            disposition: None,
            audience: Some("server".into()),
        };
        let diff = Diff {
            tables: vec![TableDiff {
                table: "item".into(),
                generated: false,
                status: TableStatus::Changed,
                schema_changes: 0,
                rows_added: 0,
                rows_removed: 0,
                cells_changed: 0,
                texts_changed: 1,
                flagged: 0,
            }],
            changes: vec![change],
        };
        let page = page("review <1>", "a&b", "c", &diff);
        assert!(page.starts_with("<!DOCTYPE html>\n"), "{page}");
        assert!(page.contains("<title>review &#60;1&#62;</title>"), "{page}");
        assert!(page.contains("a&#38;b"), "{page}");
        assert!(
            page.contains("<td class=\"new\">Iron <ins>&#60;script&#62;alert(&#39;x&#39;)&#60;/script&#62; &#38; &#34;q&#34;</ins></td>"),
            "{page}"
        );
        assert!(
            page.contains("<td class=\"old\">Iron <del>Sword</del></td>"),
            "{page}"
        );
        assert!(page.contains("&#60;b&#62;sword&#60;/b&#62;"), "{page}");
        assert_eq!(page.matches("<script").count(), 1, "{page}");
        assert!(!page.contains("http"), "{page}");
        // Nothing in the templates turns the engine's escaping off.
        for template in [
            include_str!("../../../templates/review.html"),
            include_str!("../../../templates/piece.html"),
        ] {
            let filters: String = template.chars().filter(|c| !c.is_whitespace()).collect();
            assert!(
                !["|safe", "|escape", "|e("]
                    .iter()
                    .any(|f| filters.contains(f))
            );
        }
        let empty = super::page("t", "a", "b", &Diff::default());
        assert!(
            empty.contains("<p id=\"nothing\">No changes.</p>"),
            "{empty}"
        );
        assert!(!empty.contains("<script"), "{empty}");
    }
}
