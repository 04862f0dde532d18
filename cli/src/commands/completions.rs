//! `masterctl completions SHELL`: the shell's completion script, from the same
//! definitions that parse the arguments (clap's generator), so it never falls behind.

use std::io::Write;

use clap_complete::Shell;

use super::Failure;

#[derive(clap::Args)]
#[command(after_help = "\
Install (then open a new shell):
  bash        masterctl completions bash > ~/.local/share/bash-completion/completions/masterctl
  zsh         masterctl completions zsh > ~/.zfunc/_masterctl   (with fpath+=~/.zfunc before compinit in ~/.zshrc)
  fish        masterctl completions fish > ~/.config/fish/completions/masterctl.fish
  powershell  masterctl completions powershell >> $PROFILE")]
pub struct Args {
    /// The shell to write completions for
    #[arg(value_enum, value_name = "SHELL")]
    shell: Shell,
}

/// Write the script to standard output; `cli` is the whole command line's definition.
pub fn run(args: Args, mut cli: clap::Command) -> Result<(), Failure> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cli, "masterctl", &mut script);
    let mut out = std::io::stdout().lock();
    match out.write_all(&script).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is a normal end.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => Err(Failure::environment(format!(
            "cannot write the completions: {e}"
        ))),
    }
}
