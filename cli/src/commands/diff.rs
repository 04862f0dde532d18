//! `masterctl diff`: what changed, in tables, rows and cells — between two revisions, in
//! a region's last import, or what importing exports would change.

use std::path::PathBuf;

use masterctl_app::diff::{self, Exports, Reviewed, Sides};
use masterctl_store::names::one_line;
use masterctl_store::review::diff::{
    Change, ChangeKind, Content, Diff, DiffOptions, Disposition, Flag, Review, Span, TableDiff,
    TableStatus,
};
use serde::Serialize;

use super::{Failure, import_failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg, counted};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  masterctl diff masters/jp~1 masters/jp        two revisions (branches, ~N, commit ids)
  masterctl diff masters/global masters/jp      how a region differs from its upstream
  masterctl diff --region jp                    the region's last commit against its parent
  masterctl diff --region jp exports/           what importing these exports would change
  masterctl diff --region jp --flag price=50%   mark numeric changes of 50% or more")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// With --region: export files or folders to compare with the region's head.
    /// Without: one revision (against its parent) or two (old, new)
    #[arg(value_name = "REV|PATH")]
    args: Vec<String>,
    /// The region whose last commit (or, given paths, whose head against the exports)
    /// to show
    #[arg(long, value_name = "R")]
    region: Option<String>,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME", requires = "region")]
    branch: Option<String>,
    /// Only this table or generated master (repeatable)
    #[arg(long = "table", value_name = "T")]
    tables: Vec<String>,
    /// Only the per-table summary
    #[arg(long)]
    stat: bool,
    /// Flag numeric changes of at least this much: COLUMN=N% or TABLE.COLUMN=N%
    /// (repeatable; a change from zero is always beyond)
    #[arg(long = "flag", value_name = "COLUMN=N%")]
    flags: Vec<String>,
    /// Also write the diff as one self-contained HTML page (summary, a section per table,
    /// highlights, filters by table and change kind)
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let flags = args
        .flags
        .iter()
        .map(|f| Flag::parse(f).map_err(Failure::usage))
        .collect::<Result<Vec<_>, _>>()?;
    let options = DiffOptions {
        tables: args.tables.clone(),
        flags,
    };
    let repo = open_repo(global)?;
    let sides = match (&args.region, &args.args[..]) {
        (Some(region), []) => Sides::LastCommit {
            region,
            work: args.branch.as_deref(),
        },
        (Some(region), paths) => return exports(&repo, region, paths, options, &args, output),
        (None, [one]) => Sides::Revision(one),
        (None, [old, new]) => Sides::Revisions { old, new },
        (None, _) => {
            return Err(Failure::usage("name two revisions, one, or --region R")
                .hint("masterctl diff masters/jp~1 masters/jp, or masterctl diff --region jp"));
        }
    };
    let review = diff::review(&repo, sides, &options).map_err(store_failure)?;
    show(review, &args, output)
}

/// What importing `paths` into the region would change.
fn exports(
    repo: &masterctl_store::MasterRepo,
    region: &str,
    paths: &[String],
    options: DiffOptions,
    args: &Args,
    output: &Output,
) -> Result<(), Failure> {
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    super::all_exist(&paths)?;
    let bar = output.progress("reading");
    let progress = |_done: usize, total: usize| bar.file_done(total);
    let exports = Exports {
        region,
        work: args.branch.as_deref(),
        paths: &paths,
        progress: &progress,
    };
    let reviewed = diff::exports(repo, exports, options);
    bar.finish();
    match reviewed.map_err(import_failure)? {
        Reviewed::Review(review) => show(review, args, output),
        Reviewed::Rejected(report) => Err(Failure::Rejected(report)),
    }
}

/// The review on the terminal (or as JSON), and as a page when asked.
fn show(review: Review, args: &Args, output: &Output) -> Result<(), Failure> {
    if let Some(path) = &args.html {
        write_page(
            path,
            "masterctl diff",
            &review.from.shown(),
            &review.to.shown(),
            &review.diff,
        )?;
    }
    output.page();
    output.render(&Shown {
        stat: args.stat,
        html: args.html.clone(),
        review,
    });
    output.end_paging();
    Ok(())
}

/// The diff as an HTML page at `path` (written whole, or not at all).
pub fn write_page(
    path: &std::path::Path,
    title: &str,
    from: &str,
    to: &str,
    diff: &Diff,
) -> Result<(), Failure> {
    let page = masterctl_store::review::diff::page(title, from, to, diff);
    masterctl_runtime::files::write_atomic(path, page.as_bytes())
        .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))
}

#[derive(Serialize)]
struct Shown {
    #[serde(skip)]
    stat: bool,
    /// The HTML page written, if one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    html: Option<PathBuf>,
    #[serde(flatten)]
    review: Review,
}

impl Render for Shown {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} → {}",
            output.bold("diff"),
            self.review.from.shown(),
            self.review.to.shown()
        ));
        if let Some(html) = &self.html {
            output.line(format!("review page: {}", html.display()));
        }
        if self.review.diff.is_empty() {
            output.line("no changes");
            return;
        }
        for table in &self.review.diff.tables {
            output.line(format!("  {}", summary_line(output, table)));
        }
        if self.stat {
            return;
        }
        print_changes(output, &self.review.diff);
    }
}

/// Every change of a diff, under a heading per table.
pub fn print_changes(output: &Output, diff: &Diff) {
    // Written a block of lines at a time: a review of every row of a large table is
    // tens of thousands of lines, and standard output writes each line on its own.
    const BLOCK: usize = 512;
    let mut block = String::new();
    let mut lines = 0;
    let mut current: Option<&str> = None;
    for change in &diff.changes {
        if current != Some(change.table.as_str()) {
            current = Some(&change.table);
            block.push('\n');
            block.push_str(&output.bold(&change.table));
            block.push('\n');
        }
        block.push_str("  ");
        block.push_str(&change_line(output, change));
        block.push('\n');
        lines += 1;
        if lines % BLOCK == 0 {
            output.lines(&block);
            block.clear();
        }
    }
    output.lines(&block);
}

fn summary_line(output: &Output, table: &TableDiff) -> String {
    let what = if table.generated { " (generated)" } else { "" };
    let status = match table.status {
        TableStatus::Added => output.added("added"),
        TableStatus::Removed => output.removed("removed"),
        TableStatus::Changed => "changed".to_string(),
    };
    let mut counts = Vec::new();
    for (n, one, many) in [
        (table.schema_changes, "schema change", "schema changes"),
        (table.rows_added, "row added", "rows added"),
        (table.rows_removed, "row removed", "rows removed"),
        (table.cells_changed, "cell changed", "cells changed"),
        (table.texts_changed, "text changed", "texts changed"),
    ] {
        if n > 0 {
            counts.push(format!("{n} {}", if n == 1 { one } else { many }));
        }
    }
    let mut line = format!("{}{what}: {status}", table.table);
    if !counts.is_empty() {
        line.push_str(&format!(", {}", counts.join(", ")));
    }
    if table.flagged > 0 {
        line.push_str(&format!(
            ", {}",
            output.flagged(&counted(table.flagged, "flagged"))
        ));
    }
    line
}

fn change_line(output: &Output, c: &Change) -> String {
    let line = change_text(output, c);
    match c.disposition {
        None => line,
        Some(Disposition::Applied) => format!("{line}  [applied]"),
        Some(Disposition::Kept) => format!("{line}  [kept: the region owns it]"),
        Some(Disposition::Equal) => format!("{line}  [equal: the region has it]"),
    }
}

fn change_text(output: &Output, c: &Change) -> String {
    // `[key] name  ` before a row's change; nothing for a row without a key.
    let row = match (&c.key, &c.row) {
        (Some(key), Some(name)) => format!("[{}] {}  ", key.join(", "), one_line(name)),
        (Some(key), None) => format!("[{}]  ", key.join(", ")),
        (None, _) => String::new(),
    };
    // A column only some audiences see says who: `hp [server]`.
    let column = match &c.audience {
        Some(audience) => format!("{} [{audience}]", c.column.as_deref().unwrap_or_default()),
        None => c.column.clone().unwrap_or_default(),
    };
    let language = c
        .language
        .as_ref()
        .map(|l| format!(" ({l})"))
        .unwrap_or_default();
    let text = |content: &Option<Content>| content.as_ref().map(shown).unwrap_or_default();
    match c.kind {
        ChangeKind::TableAdded => output.added("+ added"),
        ChangeKind::TableRemoved => output.removed("- removed"),
        ChangeKind::KeyChanged => format!("~ key: {} → {}", text(&c.old), text(&c.new)),
        ChangeKind::FieldAdded => output.added(&format!("+ field {column} ({})", text(&c.new))),
        ChangeKind::FieldRemoved => output.removed(&format!("- field {column} ({})", text(&c.old))),
        ChangeKind::FieldRetyped => {
            format!("~ field {column}: {} → {}", text(&c.old), text(&c.new))
        }
        ChangeKind::OptionChanged => format!(
            "~ field {column}: {} {} → {}",
            c.option.as_deref().unwrap_or_default(),
            c.old.as_ref().map_or("(none)".to_string(), shown),
            c.new.as_ref().map_or("(none)".to_string(), shown)
        ),
        ChangeKind::RowAdded => output.added(&format!("+ {row}{}", text(&c.new))),
        ChangeKind::RowRemoved => output.removed(&format!("- {row}{}", text(&c.old))),
        ChangeKind::CellChanged => {
            let mut line = format!("~ {row}{column}: {} → {}", text(&c.old), text(&c.new));
            if let Some(delta) = c.delta {
                // A tenth of a percent is what a reviewer reads (JSON keeps more).
                let percent = c
                    .percent
                    .map(|p| match (p * 10.0).round() / 10.0 {
                        p if p.fract() == 0.0 => format!(", {p:+}%"),
                        p => format!(", {p:+.1}%"),
                    })
                    .unwrap_or_default();
                line.push_str(&format!(" ({delta:+}{percent})"));
            }
            if c.flagged {
                line = format!("{} {}", line, output.flagged("⚑ flagged"));
            }
            line
        }
        ChangeKind::TextChanged => {
            let (old, new) = (text(&c.old), text(&c.new));
            let spans = masterctl_store::review::diff::inline(&old, &new);
            let highlighted: String = spans
                .iter()
                .map(|span| match span {
                    Span::Same(t) => t.clone(),
                    Span::Removed(t) => output.removed(&format!("[-{t}-]")),
                    Span::Added(t) => output.added(&format!("{{+{t}+}}")),
                })
                .collect();
            format!("~ {row}{column}{language}: {highlighted}")
        }
    }
}

/// A change's content on one line: a cell as written, a row as `column=value` pairs.
fn shown(content: &Content) -> String {
    let one = |t: &str| one_line(t);
    match content {
        Content::Text(text) => one(text),
        Content::Names(names) => format!("({})", names.join(", ")),
        Content::Row(cells) => cells
            .iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(c, v)| format!("{c}={}", one(v)))
            .collect::<Vec<_>>()
            .join(" "),
    }
}
