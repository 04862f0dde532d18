//! `masterctl blame --region R TABLE KEY [FIELD]`: for each cell of one row, the import
//! that last changed it — when, who, the planner's words, the source file — and the
//! value before.

use masterctl_store::names::one_line;
use masterctl_store::review::blame::{Blame, blame};
use masterctl_store::short_id;

use super::{Failure, open_repo, store_failure};
use crate::output::{GlobalArgs, Output, Render, RepoArg};

#[derive(clap::Args)]
#[command(after_help = "\
Examples:
  masterctl blame --region jp item 1              every cell of item 1
  masterctl blame --region jp quest_drop 10 3     a composite key: a value per key field, as inspect takes it
  masterctl blame --region jp quest_drop '10|3'   or its cells joined by |
  masterctl blame --region jp item 1 price        one field (a text field: every language)
  masterctl blame --region jp constants           a singleton: its one record, no key")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The region whose history to read
    #[arg(long, value_name = "R")]
    region: String,
    /// A work branch of the region (work/R/NAME) instead of the region's own branch
    #[arg(long, value_name = "NAME")]
    branch: Option<String>,
    /// The table
    #[arg(value_name = "TABLE")]
    table: String,
    /// The row's primary key as its cells are written (a composite key: a value per
    /// key field, or its cells joined by `|`; a singleton: none), then, optionally, the
    /// one field to show
    #[arg(value_name = "KEY... [FIELD]", num_args = 0..)]
    words: Vec<String>,
}

/// The key and the field `words` give for a table whose key has `width` fields: the
/// key's values one by one (or joined by `|` in one word), then an optional field.
fn key_and_field(
    words: &[String],
    width: usize,
    table: &str,
    key_names: &[&str],
) -> Result<(Vec<String>, Option<String>), Failure> {
    let (key, rest): (Vec<String>, &[String]) = match words {
        [joined, rest @ ..] if joined.contains('|') => {
            (joined.split('|').map(str::to_string).collect(), rest)
        }
        _ if words.len() >= width => (words[..width].to_vec(), &words[width..]),
        _ => (words.to_vec(), &[]),
    };
    match rest {
        _ if key.len() != width => Err(Failure::invalid(format!(
            "table `{table}`'s key has {width} field{} ({}): {} given",
            if width == 1 { "" } else { "s" },
            key_names.join(", "),
            key.len()
        ))
        .hint(format!(
            "give a value per key field, then a field if you want one: masterctl blame --region R {table} {}",
            key_names.iter().map(|n| n.to_ascii_uppercase()).collect::<Vec<_>>().join(" ")
        ))),
        [] => Ok((key, None)),
        [field] => Ok((key, Some(field.clone()))),
        _ => Err(Failure::usage(format!(
            "`{}` after the key of `{table}`: one field at most",
            rest.join(" ")
        ))),
    }
}

pub fn run(args: Args, global: &GlobalArgs, output: &Output) -> Result<(), Failure> {
    let repo = open_repo(global)?;
    let structure = repo.structure().map_err(store_failure)?;
    let region = super::line(&structure, &args.region, args.branch.as_deref())?;
    let (key, field) = match structure.project.table(&args.table) {
        Some(schema) => {
            let names = schema.primary_key_names();
            key_and_field(&args.words, names.len(), &args.table, &names)?
        }
        // An unknown table: the library names it and the closest one.
        None => (args.words[..1].to_vec(), args.words.get(1).cloned()),
    };
    // This process only reads, to show: old versions need not be hashed again.
    masterctl_store::git::repo::read_without_rehashing();
    let spinner = output.spinner(format!("reading the history of {}", region.branch()));
    let blamed = blame(&repo, &region, &args.table, &key, field.as_deref());
    spinner.finish_and_clear();
    let blamed = blamed.map_err(store_failure)?;
    output.page();
    output.render(&Shown(blamed));
    output.end_paging();
    Ok(())
}

#[derive(serde::Serialize)]
#[serde(transparent)]
struct Shown(Blame);

impl Render for Shown {
    fn text(&self, output: &Output) {
        let b = &self.0;
        let name = b
            .row
            .as_ref()
            .map(|r| format!(" {}", one_line(r)))
            .unwrap_or_default();
        output.line(format!(
            "{} [{}]{name} on {}",
            output.bold(&b.table),
            one_line(&b.key.join(", ")),
            b.region
        ));
        let width = b
            .cells
            .iter()
            .map(|c| c.field.chars().count() + c.language.as_ref().map_or(0, |l| l.len() + 3))
            .max()
            .unwrap_or(0);
        // A commit's source files are said once, under the first cell it changed.
        let mut told: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for cell in &b.cells {
            let field = match &cell.language {
                Some(language) => format!("{} ({language})", cell.field),
                None => cell.field.clone(),
            };
            let was = match &cell.previous {
                Some(previous) => format!("was {}", one_line(previous)),
                None => "new with it".to_string(),
            };
            let c = &cell.commit;
            output.line(format!(
                "  {field:<width$}  {}  {} {} {}  \"{}\"  ({was})",
                one_line(&cell.value),
                output.bold(short_id(&c.commit)),
                c.time,
                one_line(&c.author),
                one_line(&c.subject)
            ));
            if let Some(via) = &cell.via {
                let how = match &via.merged_branch {
                    Some(branch) => format!("taken from {} by the merge", one_line(branch)),
                    None => "taken from upstream by the rebase".to_string(),
                };
                output.line(format!(
                    "  {:<width$}    {how} {} {}",
                    "",
                    short_id(&via.commit),
                    via.time
                ));
            }
            if !told.insert(c.commit.as_str()) {
                continue;
            }
            for source in &c.sources {
                output.line(format!("  {:<width$}    source: {}", "", one_line(source)));
            }
            for file in &c.translations {
                output.line(format!(
                    "  {:<width$}    translations: {}",
                    "",
                    one_line(file)
                ));
            }
        }
    }
}
