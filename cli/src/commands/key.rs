//! `masterctl key new`: a key pair to sign releases with (minisign's format: the
//! standard `minisign` tool reads and makes the same files).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use masterctl_delivery::signing::new_key_pair;

use super::Failure;
use super::signing_args::PASSPHRASE_VARIABLE;
use crate::output::{Output, Render};

/// Keys to sign releases with.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Make a key pair: NAME.key (secret, mode 0600, encrypted with a passphrase unless
    /// --no-passphrase) and NAME.pub (the public key servers trust with `fetch --trust`)
    New(NewArgs),
}

#[derive(clap::Args)]
pub struct NewArgs {
    /// Where the two files go, named NAME.key and NAME.pub; neither may exist yet
    #[arg(long, value_name = "PATH", default_value = "masterctl")]
    out: PathBuf,
    /// The passphrase that encrypts the secret key, read from this file (else from
    /// MASTERCTL_SIGNING_PASSPHRASE, else asked twice on the terminal)
    #[arg(long, value_name = "FILE", conflicts_with = "no_passphrase")]
    passphrase_file: Option<PathBuf>,
    /// Write the secret key unencrypted (for a CI secret store that keeps it safe)
    #[arg(long)]
    no_passphrase: bool,
}

pub fn run(command: Command, output: &Output) -> Result<(), Failure> {
    match command {
        Command::New(args) => new(args, output),
    }
}

fn new(args: NewArgs, output: &Output) -> Result<(), Failure> {
    let secret_path = with_extension(&args.out, "key");
    let public_path = with_extension(&args.out, "pub");
    for path in [&secret_path, &public_path] {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(Failure::usage(format!(
                "{} exists: a key is never written over",
                path.display()
            ))
            .hint("name other files with --out, or move the old ones away"));
        }
    }
    let passphrase = match args.no_passphrase {
        true => None,
        false => Some(passphrase(&args)?),
    };
    let pair = new_key_pair(passphrase).map_err(super::delivery_failure)?;
    write_new(&secret_path, pair.secret.as_bytes(), 0o600)?;
    if let Err(e) = write_new(&public_path, pair.public.as_bytes(), 0o644) {
        let _ = std::fs::remove_file(&secret_path);
        return Err(e);
    }
    output.render(&Made {
        key: pair.id,
        secret: secret_path,
        public: public_path,
        encrypted: !args.no_passphrase,
    });
    Ok(())
}

/// The passphrase for a new key: its file, the environment, or asked twice.
fn passphrase(args: &NewArgs) -> Result<String, Failure> {
    let passphrase = if let Some(file) = &args.passphrase_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| Failure::environment(format!("{}: {e}", file.display())))?;
        text.trim_end_matches(['\r', '\n']).to_string()
    } else if let Ok(passphrase) = std::env::var(PASSPHRASE_VARIABLE) {
        passphrase
    } else {
        use std::io::IsTerminal as _;
        if !std::io::stdin().is_terminal() {
            return Err(Failure::usage("no passphrase for the new key").hint(format!(
                "give one with --passphrase-file or {PASSPHRASE_VARIABLE}, or write the key unencrypted with --no-passphrase"
            )));
        }
        let asked = |prompt: &str| {
            rpassword::prompt_password(prompt).map_err(|e| Failure::environment(e.to_string()))
        };
        let first = asked("passphrase for the new key: ")?;
        if asked("the same passphrase again: ")? != first {
            return Err(Failure::usage(
                "the two passphrases differ; no key was made",
            ));
        }
        first
    };
    if passphrase.is_empty() {
        return Err(
            Failure::usage("the passphrase is empty").hint("give one, or use --no-passphrase")
        );
    }
    Ok(passphrase)
}

/// `path` with `.extension` added to its name.
fn with_extension(path: &Path, extension: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".");
    name.push(extension);
    PathBuf::from(name)
}

/// A new file of `bytes` (never over one) with `mode`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), Failure> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(mode);
    }
    #[cfg(not(unix))]
    let _ = mode;
    let failed = |e: std::io::Error| Failure::environment(format!("{}: {e}", path.display()));
    let mut file = options.open(path).map_err(failed)?;
    file.write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(failed)
}

/// A key pair made.
#[derive(serde::Serialize)]
struct Made {
    key: String,
    secret: PathBuf,
    public: PathBuf,
    encrypted: bool,
}

impl Render for Made {
    fn text(&self, output: &Output) {
        output.line(format!(
            "{} key {}: secret {}{}, public {}",
            output.bold("made"),
            self.key,
            self.secret.display(),
            if self.encrypted { " (encrypted)" } else { "" },
            self.public.display()
        ));
        output.line(
            "sign with `publish --sign <secret>`; servers trust it with `fetch --trust <public>`",
        );
    }
}
