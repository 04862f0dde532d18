//! `masterctl l10n charset --lang L [--region R] [--out FILE]`: every character a
//! language's texts use, sorted — the file a subset font is built from.

use std::io::Write;
use std::path::PathBuf;

use masterctl_schemas::audience::Audience;
use masterctl_store::MasterRepo;
use masterctl_store::l10n::charset::{Charset, charset_of};
use serde::Serialize;

use super::{Failure, store_failure};
use crate::output::{Output, Render, RepoArg, counted};

#[derive(clap::Args)]
#[command(after_help = "\
The file holds the characters the language's texts draw (placeholders and tags left
out; the digits 0-9 too when a placeholder stands for a number), sorted by code point,
64 to a line: give it to a font subsetter (pyftsubset --text-file=FILE) or to a game
engine's font importer (TextMeshPro: Character Set \"Characters from File\").")]
pub struct Args {
    #[command(flatten)]
    pub repo: RepoArg,
    /// The language: the source one, a translation's, or a pseudo language
    #[arg(long, value_name = "L")]
    lang: String,
    /// Only this region (default: every region with a branch that has the language)
    #[arg(long, value_name = "R")]
    region: Option<String>,
    /// Write the characters to FILE (default: standard output)
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Whose texts: a font shipped with the game is the client's, which never holds a
    /// character only servers' texts use
    #[arg(long, value_name = "WHO", value_parser = ["client", "server"], default_value = "client")]
    audience: String,
}

pub fn run(repo: &MasterRepo, args: Args, output: &Output) -> Result<(), Failure> {
    let audience = match args.audience.as_str() {
        "server" => Audience::Server,
        _ => Audience::Client,
    };
    let charset =
        charset_of(repo, args.region.as_deref(), &args.lang, audience).map_err(store_failure)?;
    let file = charset.file();
    match &args.out {
        Some(path) => masterctl_runtime::files::write_atomic(path, file.as_bytes())
            .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))?,
        None if output.is_json() => {}
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(file.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(|e| Failure::environment(format!("cannot write the characters: {e}")))?;
            return Ok(());
        }
    }
    output.render(&Written {
        charset: &charset,
        file: args.out.as_ref(),
        characters: charset.characters.len(),
        text: args.out.is_none().then_some(file.as_str()),
    });
    Ok(())
}

/// What was written, and where.
#[derive(Serialize)]
struct Written<'a> {
    #[serde(flatten)]
    charset: &'a Charset,
    file: Option<&'a PathBuf>,
    /// How many characters.
    characters: usize,
    /// The characters, when no file was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

impl Render for Written<'_> {
    fn text(&self, output: &Output) {
        let where_ = self
            .file
            .map_or_else(String::new, |f| format!(" into {}", f.display()));
        output.line(format!(
            "{} of {} ({}, from {}){where_}",
            counted(self.characters, "character"),
            self.charset.language,
            self.charset.regions.join(", "),
            counted(self.charset.texts, "text"),
        ));
    }
}
