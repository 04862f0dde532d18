//! The arguments that sign a release (`publish`, `rollback`: `--sign KEY`) and that
//! trust keys (`fetch`: `--trust PUB`), read into the delivery library's keys.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::Arc;

use masterctl_delivery::signing::SigningKey;
use masterctl_runtime::signature::TrustedKey;

use super::Failure;
use crate::output::GlobalArgs;

/// The environment variable a signing key's passphrase may come from.
pub const PASSPHRASE_VARIABLE: &str = "MASTERCTL_SIGNING_PASSPHRASE";

/// `--sign`, for the commands that move a region's pointer.
#[derive(clap::Args)]
pub struct SignArg {
    /// Sign the release with this minisign secret key (`masterctl key new`): a file, or
    /// `env:NAME` for a key held in that environment variable (CI). Servers fetching
    /// with `--trust` take only signed releases
    #[arg(long, value_name = "KEY")]
    sign: Option<String>,
    /// The signing key's passphrase, read from this file (else from
    /// MASTERCTL_SIGNING_PASSPHRASE, else asked on the terminal); only an encrypted key
    /// needs one
    #[arg(long, value_name = "FILE", requires = "sign")]
    passphrase_file: Option<PathBuf>,
}

impl SignArg {
    /// The key `--sign` names, read (its passphrase asked when it is encrypted).
    pub fn key(&self) -> Result<Option<Arc<SigningKey>>, Failure> {
        let Some(named) = &self.sign else {
            return Ok(None);
        };
        let text = match named.strip_prefix("env:") {
            Some(variable) => std::env::var(variable).map_err(|_| {
                Failure::usage(format!(
                    "--sign {named}: the environment variable {variable} is not set"
                ))
            })?,
            None => std::fs::read_to_string(named)
                .map_err(|e| Failure::environment(format!("--sign {named}: {e}")))?,
        };
        let passphrase = || self.passphrase();
        let key = SigningKey::read(&text, passphrase).map_err(super::delivery_failure)?;
        Ok(Some(Arc::new(key)))
    }

    /// The passphrase of an encrypted key: `--passphrase-file`, the environment, or the
    /// terminal.
    fn passphrase(&self) -> Result<String, String> {
        if let Some(file) = &self.passphrase_file {
            let text =
                std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
            return Ok(text.trim_end_matches(['\r', '\n']).to_string());
        }
        if let Ok(passphrase) = std::env::var(PASSPHRASE_VARIABLE) {
            return Ok(passphrase);
        }
        if !std::io::stdin().is_terminal() {
            return Err(format!(
                "it is encrypted: give its passphrase with --passphrase-file or {PASSPHRASE_VARIABLE}"
            ));
        }
        rpassword::prompt_password("passphrase of the signing key: ").map_err(|e| e.to_string())
    }
}

/// `--trust`, for the commands that fetch a release.
#[derive(clap::Args)]
pub struct TrustArg {
    /// Take only releases signed by this minisign public key: its file (`.pub`) or its
    /// key line (`RWQ…`); repeat it for several (a key being rotated in). A release
    /// signed before the one the build runs is refused too
    #[arg(long, value_name = "PUB")]
    trust: Vec<String>,
}

impl TrustArg {
    /// The keys `--trust` names, read; else those of the project the command runs in
    /// (`[delivery] trusted_keys`; none outside a master repository).
    pub fn keys(&self, global: &GlobalArgs) -> Result<Vec<TrustedKey>, Failure> {
        let named = match self.trust.is_empty() {
            true => project_keys(global)?,
            false => self.trust.clone(),
        };
        named.iter().map(|key| trusted_key(key)).collect()
    }
}

/// The keys the project trusts, when the command runs in a master repository; none
/// outside one. A project whose structure does not load is an error, not an empty
/// list: its keys would otherwise go unenforced.
fn project_keys(global: &GlobalArgs) -> Result<Vec<String>, Failure> {
    let Ok(repo) = super::open_repo(global) else {
        return Ok(Vec::new());
    };
    match repo.structure() {
        Ok(structure) => Ok(structure.project.config.trusted_keys.clone()),
        Err(masterctl_store::StoreError::NoStructure) => Ok(Vec::new()),
        Err(e) => Err(crate::failure::store_failure(e)),
    }
}

/// A public key from its key line, or from the file it names.
fn trusted_key(named: &str) -> Result<TrustedKey, Failure> {
    let refused = |why: String| Failure::usage(format!("--trust {named}: {why}"));
    match TrustedKey::parse(named) {
        Ok(key) => Ok(key),
        Err(_) => {
            let text = std::fs::read_to_string(named)
                .map_err(|e| refused(format!("not a key, and not a file ({e})")))?;
            TrustedKey::parse(&text).map_err(|e| refused(e.to_string()))
        }
    }
}
