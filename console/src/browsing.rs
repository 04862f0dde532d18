//! The current masters of a branch: its tables, and one table a page at a time —
//! searched, filtered per column, sorted, references shown with the row they point at,
//! each row one click from its blame. Every address is stable: a table, a row
//! (`&key=`) and a cell (`&key=…&field=…`) can be pasted to a colleague. The server
//! pages (`app::browse`); the browser never holds more than a page.

use std::collections::HashMap;
use std::sync::Arc;

use askama::Template;
use axum::Extension;
use axum::extract::{Query, State};
use masterctl_app::browse::{self, Ask, Page, TableEntry};
use masterctl_store::Branch;
use serde::Deserialize;

use crate::Console;
use crate::failed::{Answer, ConsoleError};
use crate::shown::render;
use crate::target::{Target, urlencode};
use crate::visitor::Visitor;

/// Rows on a page unless the address asks for another number.
const ROWS: usize = 100;

#[derive(Template)]
#[template(path = "tables.html")]
struct TablesPage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    here: String,
    commit: &'a str,
    tables: &'a [TableEntry],
}

/// `GET /tables?region=R[&branch=NAME]`: the tables the branch's head holds.
pub async fn tables(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(target): Query<Target>,
) -> Answer {
    console
        .blocking(move |console| {
            let (repo, _, line) = target.open(console)?;
            let (commit, tables) = browse::tables(&repo, &line)?;
            render(&TablesPage {
                who: &who,
                line: &line,
                here: target.query(),
                commit: &commit,
                tables: &tables,
            })
        })
        .await
}

/// `GET /download?region=R[&branch=NAME]`: the branch's current masters as the
/// planner's workbooks (`app::export::download`: the one workbook, or a zip of them),
/// to edit and upload again.
pub async fn download(
    State(console): State<Arc<Console>>,
    Extension(_who): Extension<Visitor>,
    Query(target): Query<Target>,
) -> Answer {
    use axum::http::header;
    use axum::response::IntoResponse;
    console
        .blocking(move |console| {
            let (repo, _, line) = target.open(console)?;
            let file = masterctl_app::export::download(&repo, &line)?;
            let headers = [
                (header::CONTENT_TYPE, file.content_type.to_string()),
                (header::CONTENT_DISPOSITION, attachment(&file.name)),
            ];
            Ok((headers, file.bytes).into_response())
        })
        .await
}

/// `attachment; filename="…"; filename*=UTF-8''…`: the name as it is for browsers that
/// read the encoded form, and a plain one (ASCII, quotes and controls replaced) for
/// the rest.
fn attachment(name: &str) -> String {
    let plain: String = name
        .chars()
        .map(|c| match c {
            ' '..='~' if c != '"' && c != '\\' => c,
            _ => '_',
        })
        .collect();
    format!(
        "attachment; filename=\"{plain}\"; filename*=UTF-8''{}",
        urlencode(name)
    )
}

/// `GET /table?region=R[&branch=NAME]&table=T[&q=TEXT][&f.FIELD=TEXT…][&sort=FIELD[&desc=1]][&from=N][&rows=N][&key=K[&field=F]]`.
#[derive(Deserialize)]
pub struct TableQuery {
    region: String,
    #[serde(default)]
    branch: Option<String>,
    table: String,
    #[serde(default)]
    q: Option<String>,
    #[serde(default)]
    sort: Option<String>,
    #[serde(default)]
    desc: Option<String>,
    // (Numbers as text: beside a flattened map, serde hands every value over as text.)
    #[serde(default)]
    from: Option<String>,
    #[serde(default)]
    rows: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    field: Option<String>,
    /// `f.FIELD=TEXT`: the column filters (and nothing else: other names are refused).
    #[serde(flatten)]
    rest: HashMap<String, String>,
}

impl TableQuery {
    fn target(&self) -> Target {
        Target {
            region: self.region.clone(),
            branch: self.branch.clone(),
        }
    }

    /// What the query asks of the table; a parameter it does not know is refused.
    fn ask(&self) -> Result<Ask, ConsoleError> {
        let mut filters = Vec::new();
        for (name, text) in &self.rest {
            match name.strip_prefix("f.") {
                Some(field) => filters.push((field.to_string(), text.clone())),
                None => {
                    let name: String = name.chars().take(40).collect();
                    return Err(ConsoleError::refusing(
                        "no-such-parameter",
                        &[("name", &name)],
                    ));
                }
            }
        }
        filters.sort();
        Ok(Ask {
            search: self.q.clone().unwrap_or_default(),
            filters,
            sort: (self.sort.as_deref()).filter(|s| !s.is_empty()).map(|s| {
                (
                    s.to_string(),
                    self.desc.as_deref().is_some_and(|d| d == "1"),
                )
            }),
            from: number(self.from.as_deref(), "from")?.unwrap_or(0),
            count: number(self.rows.as_deref(), "rows")?.unwrap_or(ROWS),
            key: self.key.clone().filter(|k| !k.is_empty()),
        })
    }
}

/// A count the address gives (empty: none).
fn number(text: Option<&str>, name: &str) -> Result<Option<usize>, ConsoleError> {
    match text.filter(|t| !t.is_empty()) {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| ConsoleError::refusing("count-of-rows", &[("name", name)])),
    }
}

#[derive(Template)]
#[template(path = "table.html")]
struct TablePage<'a> {
    who: &'a Visitor,
    line: &'a Branch,
    page: &'a Page,
    ask: &'a Ask,
    /// `region=…[&branch=…]`: the branch's address.
    target: String,
    /// `region=…&table=…` (the branch's and the table's address).
    base: String,
    /// `base` with the search, filters and order (without the window).
    asked: String,
    /// The field of the cell asked for.
    field: Option<&'a str>,
    drafts: crate::editing::TableDrafts,
}

impl TablePage<'_> {
    /// The address of this table ordered by `field` (descending when it is ordered by
    /// it ascending now).
    fn sorted_by(&self, field: &str) -> String {
        let descending = matches!(&self.ask.sort, Some((f, false)) if f == field);
        let mut address = format!("/table?{}{}", self.base, self.filters());
        address.push_str(&format!("&sort={}", urlencode(field)));
        if descending {
            address.push_str("&desc=1");
        }
        address
    }

    /// The search and filters as query parameters (`&q=…&f.name=…`).
    fn filters(&self) -> String {
        let mut query = String::new();
        if !self.ask.search.is_empty() {
            query.push_str(&format!("&q={}", urlencode(&self.ask.search)));
        }
        for (field, text) in &self.ask.filters {
            query.push_str(&format!("&f.{}={}", urlencode(field), urlencode(text)));
        }
        query
    }

    /// The filter typed for `field`.
    fn filter_of(&self, field: &str) -> &str {
        (self.ask.filters.iter())
            .find(|(f, _)| f == field)
            .map_or("", |(_, text)| text.as_str())
    }

    /// The cell's arrow, when the table is ordered by its column.
    fn order_mark(&self, field: &str) -> &'static str {
        match &self.ask.sort {
            Some((f, false)) if f == field => " ▲",
            Some((f, true)) if f == field => " ▼",
            _ => "",
        }
    }

    fn earlier(&self) -> Option<usize> {
        (self.page.from > 0).then(|| self.page.from.saturating_sub(self.page.count))
    }

    fn later(&self) -> Option<usize> {
        let next = self.page.from + self.page.count;
        (next < self.page.matched).then_some(next)
    }

    /// The visitor's edited value of row `key`'s cell in `field`.
    fn edited(&self, key: &Option<String>, field: &str) -> Option<&str> {
        self.drafts.value_of(key.as_deref()?, field)
    }

    fn last_shown(&self) -> usize {
        self.page.rows.last().map_or(0, |r| r.position)
    }
}

/// `GET /table?…`: a page of one table.
pub async fn table(
    State(console): State<Arc<Console>>,
    Extension(who): Extension<Visitor>,
    Query(query): Query<TableQuery>,
) -> Answer {
    let ask = query.ask()?;
    console
        .blocking(move |console| {
            let target = query.target();
            let (repo, _, line) = target.open(console)?;
            let page = browse::page(&repo, &line, &query.table, &ask, &console.grids)?;
            let base = format!("{}&table={}", target.query(), urlencode(&query.table));
            let mut asked = base.clone();
            // The window's size, where the address asked for one.
            if page.count != ROWS {
                asked.push_str(&format!("&rows={}", page.count));
            }
            if let Some((field, descending)) = &ask.sort {
                asked.push_str(&format!("&sort={}", urlencode(field)));
                if *descending {
                    asked.push_str("&desc=1");
                }
            }
            let mut page_shown = TablePage {
                who: &who,
                line: &line,
                page: &page,
                ask: &ask,
                target: target.query(),
                base,
                asked: String::new(),
                field: query.field.as_deref(),
                drafts: crate::editing::TableDrafts::of(console, &who, line.branch(), &page.table),
            };
            page_shown.asked = format!("{asked}{}", page_shown.filters());
            render(&page_shown)
        })
        .await
}
