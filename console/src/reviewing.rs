//! The review pages (a commit's, an upload's, a join's, an undo's, an edit's) served in
//! windows: each table's changes 200 at a time, the address's `table` and `from`
//! choosing where one table's window starts, each window linking to the ones before
//! and after it. A 3,000-row diff is no longer one half-megabyte page.

use masterctl_store::review::diff::{self, Diff, Window};

use crate::failed::ConsoleError;
use crate::target::urlencode;

/// Changes of a table shown on one page.
pub const PER_TABLE: usize = 200;

/// Where a review page's windows start, and its address without them.
pub struct Paging {
    path: &'static str,
    /// The address's other parameters, as given.
    kept: Vec<(String, String)>,
    at: Option<(String, usize)>,
}

impl Paging {
    /// The window a request to `path` with these parameters asks for.
    pub fn of(path: &'static str, pairs: Vec<(String, String)>) -> Result<Paging, ConsoleError> {
        let mut kept = Vec::new();
        let (mut table, mut from) = (None, None);
        for (name, value) in pairs {
            match name.as_str() {
                "table" => table = Some(value),
                "from" => {
                    from = Some(
                        value
                            .parse::<usize>()
                            .map_err(|_| ConsoleError::refusing("count-of-changes", &[]))?,
                    )
                }
                _ => kept.push((name, value)),
            }
        }
        Ok(Paging {
            path,
            kept,
            at: table.map(|t| (t, from.unwrap_or(0))),
        })
    }

    /// What tells one window of a page from another (for what keeps pages).
    pub fn key(&self) -> String {
        match &self.at {
            Some((table, from)) => format!("{table}\n{from}"),
            None => String::new(),
        }
    }

    /// The review page of `diff` in these windows.
    pub fn page(&self, title: &str, from: &str, to: &str, diff: &Diff) -> String {
        let mut base = format!("{}?", self.path);
        for (name, value) in &self.kept {
            base.push_str(&format!("{}={}&", urlencode(name), urlencode(value)));
        }
        let link =
            |table: &str, from: usize| format!("{base}table={}&from={from}", urlencode(table));
        let window = Window {
            per_table: PER_TABLE,
            at: self.at.as_ref().map(|(t, f)| (t.as_str(), *f)),
            link: &link,
        };
        diff::paged(title, from, to, diff, &window)
    }
}
