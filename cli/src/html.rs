//! A diff as one self-contained HTML page: a summary with links to each table, a
//! section per table, changed cells with their highlights, filters by table and change
//! kind. No network: the style and the script are in the page. Every text from the data
//! is escaped for HTML.

use std::fmt::Write as _;

use masterctl_store::diff::{self, Change, ChangeKind, Content, Diff, Span, TableStatus};

/// The most changes shown per table; the rest are counted.
pub const SHOWN_PER_TABLE: usize = 1000;

/// The page for `diff` between the sides labelled `from` and `to`.
pub fn page(title: &str, from: &str, to: &str, diff: &Diff) -> String {
    let mut html = String::with_capacity(64 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        escape(title)
    );
    let _ = writeln!(
        html,
        "<header><h1>{}</h1><p class=\"sides\"><span class=\"from\">{}</span> → <span class=\"to\">{}</span></p></header>",
        escape(title),
        escape(from),
        escape(to)
    );
    if diff.is_empty() {
        html.push_str("<p id=\"nothing\">No changes.</p>\n</body>\n</html>\n");
        return html;
    }
    summary(&mut html, diff);
    filters(&mut html, diff);
    let mut at = 0;
    for (index, table) in diff.tables.iter().enumerate() {
        let count = diff.changes[at..]
            .iter()
            .take_while(|c| c.table == table.table)
            .count();
        section(
            &mut html,
            index,
            &table.table,
            &diff.changes[at..at + count],
        );
        at += count;
    }
    let _ = write!(html, "<script>{SCRIPT}</script>\n</body>\n</html>\n");
    html
}

fn summary(html: &mut String, diff: &Diff) {
    html.push_str(
        "<nav id=\"summary\"><h2>Summary</h2><table><thead><tr><th>table</th><th>status</th>\
         <th>schema</th><th>rows added</th><th>rows removed</th><th>cells changed</th>\
         <th>texts changed</th><th>flagged</th></tr></thead><tbody>\n",
    );
    for (index, t) in diff.tables.iter().enumerate() {
        let status = match t.status {
            TableStatus::Added => "added",
            TableStatus::Removed => "removed",
            TableStatus::Changed => "changed",
        };
        let generated = if t.generated {
            " <small>(generated)</small>"
        } else {
            ""
        };
        let _ = writeln!(
            html,
            "<tr data-table=\"{name}\"><td><a href=\"#t{index}\">{name}</a>{generated}</td><td class=\"{status}\">{status}</td>\
             <td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"{}\">{}</td></tr>",
            t.schema_changes,
            t.rows_added,
            t.rows_removed,
            t.cells_changed,
            t.texts_changed,
            if t.flagged > 0 { "flagged" } else { "" },
            t.flagged,
            name = escape(&t.table),
        );
    }
    html.push_str("</tbody></table></nav>\n");
}

/// The change kinds a reader filters by.
const KINDS: [(&str, &str); 6] = [
    ("schema", "schema changes"),
    ("row_added", "rows added"),
    ("row_removed", "rows removed"),
    ("cell_changed", "cells changed"),
    ("text_changed", "texts changed"),
    ("table", "tables added or removed"),
];

fn filters(html: &mut String, diff: &Diff) {
    html.push_str("<form id=\"filters\"><fieldset><legend>Show</legend>\n");
    for (kind, label) in KINDS {
        let _ = writeln!(
            html,
            "<label><input type=\"checkbox\" name=\"kind\" value=\"{kind}\" checked> {label}</label>"
        );
    }
    html.push_str(
        "<label><input type=\"checkbox\" name=\"flagged\" value=\"only\"> only flagged</label>\n",
    );
    html.push_str("</fieldset><fieldset><legend>Tables</legend>\n");
    for t in &diff.tables {
        let _ = writeln!(
            html,
            "<label><input type=\"checkbox\" name=\"table\" value=\"{name}\" checked> {name}</label>",
            name = escape(&t.table)
        );
    }
    html.push_str("</fieldset></form>\n");
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

fn section(html: &mut String, index: usize, table: &str, changes: &[Change]) {
    let _ = write!(
        html,
        "<section id=\"t{index}\" data-table=\"{name}\"><h2>{name}</h2>\n<table class=\"changes\">\
         <thead><tr><th>change</th><th>key</th><th>row</th><th>column</th><th>old</th><th>new</th></tr></thead><tbody>\n",
        name = escape(table)
    );
    for c in changes.iter().take(SHOWN_PER_TABLE) {
        row(html, c);
    }
    if changes.len() > SHOWN_PER_TABLE {
        let _ = writeln!(
            html,
            "<tr class=\"more\"><td colspan=\"6\">{} more changes not shown ({} in all; the JSON output has every one)</td></tr>",
            changes.len() - SHOWN_PER_TABLE,
            changes.len()
        );
    }
    html.push_str("</tbody></table></section>\n");
}

fn row(html: &mut String, c: &Change) {
    let kind = c.kind.as_str();
    let key = c.key.as_ref().map(|k| k.join(", ")).unwrap_or_default();
    let mut column = c.column.clone().unwrap_or_default();
    if let Some(language) = &c.language {
        column.push_str(&format!(" ({language})"));
    }
    if let Some(option) = &c.option {
        column.push_str(&format!(": {option}"));
    }
    let (old, new) = cells(c);
    let _ = writeln!(
        html,
        "<tr class=\"{kind}{flag}\" data-kind=\"{group}\" data-flagged=\"{flagged}\"><td>{label}</td><td class=\"key\">{}</td>\
         <td class=\"name\">{}</td><td>{}</td><td class=\"old\">{old}</td><td class=\"new\">{new}</td></tr>",
        escape(&key),
        escape(c.row.as_deref().unwrap_or_default()),
        escape(&column),
        flag = if c.flagged { " flagged" } else { "" },
        flagged = c.flagged,
        group = group(c.kind),
        label = match c.disposition {
            None => kind.replace('_', " "),
            Some(d) => format!(
                "{} <span class=\"disposition\">({})</span>",
                kind.replace('_', " "),
                match d {
                    diff::Disposition::Applied => "applied",
                    diff::Disposition::Kept => "kept: the region owns it",
                    diff::Disposition::Equal => "equal: the region has it",
                }
            ),
        },
    );
}

/// The old and new cells as HTML: a text with its changed words marked, a number with
/// its delta, a row as `column=value` pairs.
fn cells(c: &Change) -> (String, String) {
    if let (
        ChangeKind::TextChanged | ChangeKind::CellChanged,
        Some(Content::Text(old)),
        Some(Content::Text(new)),
    ) = (c.kind, &c.old, &c.new)
        && c.delta.is_none()
    {
        let (mut before, mut after) = (String::new(), String::new());
        for span in diff::inline(old, new) {
            match span {
                Span::Same(t) => {
                    before.push_str(&escape(&t));
                    after.push_str(&escape(&t));
                }
                Span::Removed(t) => before.push_str(&format!("<del>{}</del>", escape(&t))),
                Span::Added(t) => after.push_str(&format!("<ins>{}</ins>", escape(&t))),
            }
        }
        return (before, after);
    }
    let mut new = c.new.as_ref().map(content).unwrap_or_default();
    if let Some(delta) = c.delta {
        let percent = c.percent.map(|p| format!(", {p:+.1}%")).unwrap_or_default();
        new.push_str(&format!(
            " <span class=\"delta\">({delta:+}{percent})</span>"
        ));
    }
    if c.flagged {
        new.push_str(" <span class=\"flag\" title=\"beyond a --flag threshold\">⚑</span>");
    }
    (c.old.as_ref().map(content).unwrap_or_default(), new)
}

fn content(content: &Content) -> String {
    match content {
        Content::Text(text) => escape(text),
        Content::Names(names) => escape(&format!("({})", names.join(", "))),
        Content::Row(cells) => cells
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(c, v)| {
                format!(
                    "<span class=\"cell\"><b>{}</b>={}</span>",
                    escape(c),
                    escape(v)
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
    }
}

/// Text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "
body{font:14px/1.45 system-ui,'Noto Sans CJK JP','Hiragino Sans','Yu Gothic',Meiryo,sans-serif;margin:1.5rem;color:#1d1d1f}
h1{font-size:1.4rem;margin:0}.sides{color:#555}
table{border-collapse:collapse;margin:.5rem 0 1.5rem}
th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f4f4f6}
td.added,tr.row_added td{background:#eaf7ea}td.removed,tr.row_removed td{background:#fbeaea}
tr.flagged td{background:#fff6d6}.flag{color:#b36b00;font-weight:bold}
del{background:#f8c9c9;text-decoration:line-through}ins{background:#c9f0c9;text-decoration:none}
.delta{color:#555}.key{font-family:ui-monospace,monospace}.cell{margin-right:.5rem}
#filters{display:flex;gap:1rem;flex-wrap:wrap}fieldset{border:1px solid #ddd}
label{margin-right:.75rem;white-space:nowrap}tr.more td{font-style:italic;color:#555}
[hidden]{display:none!important}
";

/// Filters: a change shows when its kind and its table are checked (and it is flagged,
/// when only flagged ones are asked for). The page's address may preset them:
/// `#kind=cell_changed,text_changed&table=item&flagged=only`.
const SCRIPT: &str = r#"
(function () {
  var form = document.getElementById('filters');
  function checked(name) {
    return Array.prototype.filter.call(form.elements, function (e) {
      return e.name === name && e.checked;
    }).map(function (e) { return e.value; });
  }
  function apply() {
    var kinds = checked('kind'), tables = checked('table'), onlyFlagged = checked('flagged').length > 0;
    document.querySelectorAll('section[data-table]').forEach(function (section) {
      var tableShown = tables.indexOf(section.dataset.table) >= 0, any = false;
      section.querySelectorAll('tr[data-kind]').forEach(function (tr) {
        var shown = tableShown && kinds.indexOf(tr.dataset.kind) >= 0 &&
          (!onlyFlagged || tr.dataset.flagged === 'true');
        tr.hidden = !shown;
        any = any || shown;
      });
      section.hidden = !any;
    });
    document.querySelectorAll('#summary tr[data-table]').forEach(function (tr) {
      tr.hidden = tables.indexOf(tr.dataset.table) < 0;
    });
  }
  function preset() {
    var wanted = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (pair) {
      var parts = pair.split('=');
      if (parts.length === 2) wanted[decodeURIComponent(parts[0])] = decodeURIComponent(parts[1]).split(',');
    });
    Array.prototype.forEach.call(form.elements, function (e) {
      if (wanted[e.name]) e.checked = wanted[e.name].indexOf(e.value) >= 0;
    });
  }
  form.addEventListener('change', apply);
  window.addEventListener('hashchange', function () { preset(); apply(); });
  preset();
  apply();
})();
"#;

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_in_data_is_text() {
        assert_eq!(
            escape("<script>alert('x')</script> & \"q\""),
            "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;q&quot;"
        );
    }
}
