//! `masterctl manual --out DIR`: the reference of every command, from the definitions
//! that parse the arguments — `DIR/cli.md` (Markdown, clap-markdown) and a man page per
//! command under `DIR/man/` (section 1, clap_mangen). `docs/reference/` is this
//! command's output, and a test keeps it current.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::Failure;
use crate::output::{Output, Render};

#[derive(clap::Args)]
#[command(after_help = "\
Install the man pages (then `man masterctl-import`):
  masterctl manual --out /tmp/masterctl && cp /tmp/masterctl/man/*.1 ~/.local/share/man/man1/")]
pub struct Args {
    /// The folder to write into (made when missing; the files it names are replaced)
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

/// Write the reference; `cli` is the whole command line's definition.
pub fn run(args: Args, cli: clap::Command, output: &Output) -> Result<(), Failure> {
    let pages = pages(cli).map_err(|e| Failure::environment(format!("cannot render: {e}")))?;
    let man = args.out.join("man");
    for dir in [&args.out, &man] {
        refuse_link(dir)?;
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::environment(format!("cannot make {}: {e}", dir.display())))?;
    }
    let mut written = Vec::with_capacity(pages.len());
    for (path, bytes) in &pages {
        let path = args.out.join(path);
        refuse_link(&path)?;
        masterctl_runtime::files::write_atomic(&path, bytes)
            .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))?;
        written.push(path);
    }
    output.render(&Written { files: written });
    Ok(())
}

/// Every file of the reference, by its path under the output folder: `cli.md`, then
/// `man/masterctl.1`, `man/masterctl-import.1`…, in name order.
pub fn pages(cli: clap::Command) -> std::io::Result<Vec<(PathBuf, Vec<u8>)>> {
    let mut cli = cli.disable_help_subcommand(true);
    // Markdown from the definitions as written (building gives each subcommand the
    // display name its man page is filed under: `masterctl-import`).
    let mut pages = vec![(
        PathBuf::from("cli.md"),
        clap_markdown::help_markdown_command(&cli).into_bytes(),
    )];
    cli.build();
    let mut next = vec![cli];
    let mut man = Vec::new();
    while let Some(command) = next.pop() {
        next.extend(
            command
                .get_subcommands()
                .filter(|s| !s.is_hide_set())
                .cloned(),
        );
        let page = clap_mangen::Man::new(command);
        let mut bytes = Vec::new();
        page.render(&mut bytes)?;
        man.push((Path::new("man").join(page.get_filename()), bytes));
    }
    man.sort();
    pages.extend(man);
    Ok(pages)
}

/// A link where the reference goes is not followed.
fn refuse_link(path: &Path) -> Result<(), Failure> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Err(Failure::usage(format!(
            "{} is a symbolic link; give a folder of its own",
            path.display()
        ))),
        _ => Ok(()),
    }
}

/// The files written.
#[derive(Serialize)]
struct Written {
    files: Vec<PathBuf>,
}

impl Render for Written {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} {} files: {}",
            output.bold("wrote"),
            self.files.len(),
            self.files
                .first()
                .and_then(|f| f.parent())
                .map_or_else(String::new, |dir| dir.display().to_string())
        ));
    }
}
