//! Signed releases. A publisher signs the build's manifest (minisign's format, Ed25519)
//! with a trusted comment stating the region, the audience, the release, a sequence
//! that grows with every publish and rollback of the region, and the time
//! ([`masterctl_runtime::signature::Statement`]); the signature is stored beside the
//! release record (`releases/<region>/<release>.minisig`). A fetch that trusts keys
//! takes only a release signed by one of them, whose statement is the release it
//! fetches, and never one signed before the one its build runs (a replay), which it
//! remembers beside the build (`.<build>.signed.json`; a watcher, in its folder).
//!
//! The manifest is what is signed because it names every file of the build by its
//! hash: `minisign -V -p key.pub -m build/manifest.json -x <release>.minisig` checks a
//! fetched build with the standard tool.

use std::path::{Path, PathBuf};

use masterctl_runtime::files;
use masterctl_runtime::signature::{Signed, Statement, TrustedKey};
use serde::{Deserialize, Serialize};

use crate::DeliveryError;

/// A secret key to sign with, and its id.
pub struct SigningKey {
    secret: minisign::SecretKey,
    id: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.id)
    }
}

/// A key pair made by [`new_key_pair`]: the files' texts, as minisign writes them.
pub struct NewKeyPair {
    /// The secret key file (encrypted when a passphrase was given).
    pub secret: String,
    /// The public key file.
    pub public: String,
    /// The key's id (16 hexadecimal digits).
    pub id: String,
}

/// A new key pair; its secret key encrypted with `passphrase` when one is given (minisign's
/// scrypt), else written plain.
pub fn new_key_pair(passphrase: Option<String>) -> Result<NewKeyPair, DeliveryError> {
    let failed = |e: minisign::PError| DeliveryError::Key(format!("no key pair was made: {e}"));
    // (A passphrase is always given to the library, which would otherwise ask for one
    // on the terminal itself.)
    let pair = match passphrase {
        Some(passphrase) => minisign::KeyPair::generate_encrypted_keypair(Some(passphrase)),
        None => minisign::KeyPair::generate_unencrypted_keypair(),
    }
    .map_err(failed)?;
    let (secret, public) = (pair.sk, pair.pk.to_box().map_err(failed)?.into_string());
    let id = TrustedKey::parse(&public)
        .map_err(|e| DeliveryError::Key(format!("no key pair was made: {e}")))?
        .id()
        .to_string();
    let comment = format!("masterctl secret key {id}");
    let secret = secret.to_box(Some(&comment)).map_err(failed)?.into_string();
    Ok(NewKeyPair { secret, public, id })
}

impl SigningKey {
    /// The secret key a minisign key file's `text` holds; `passphrase` is asked only
    /// when the key is encrypted.
    pub fn read(
        text: &str,
        passphrase: impl FnOnce() -> Result<String, String>,
    ) -> Result<SigningKey, DeliveryError> {
        let refused =
            |why: String| DeliveryError::Key(format!("the signing key is refused: {why}"));
        let encrypted =
            is_encrypted(text).ok_or_else(|| refused("it is not a minisign secret key".into()))?;
        let boxed =
            minisign::SecretKeyBox::from_string(text).map_err(|e| refused(e.to_string()))?;
        let secret = match encrypted {
            true => {
                let passphrase = passphrase().map_err(refused)?;
                minisign::SecretKey::from_box(boxed, Some(passphrase))
            }
            false => {
                let boxed = match with_checksum(text) {
                    Some(text) => minisign::SecretKeyBox::from_string(&text)
                        .map_err(|e| refused(e.to_string()))?,
                    None => boxed,
                };
                minisign::SecretKey::from_unencrypted_box(boxed)
            }
        }
        .map_err(|e| refused(e.to_string()))?;
        let public =
            minisign::PublicKey::from_secret_key(&secret).map_err(|e| refused(e.to_string()))?;
        let public = public
            .to_box()
            .map_err(|e| refused(e.to_string()))?
            .into_string();
        let id = TrustedKey::parse(&public)
            .map_err(|e| refused(e.to_string()))?
            .id()
            .to_string();
        Ok(SigningKey { secret, id })
    }

    /// Its id (16 hexadecimal digits, as minisign shows it).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The signature (a `.minisig` file's text) of `manifest` stating `statement`.
    pub fn sign(&self, manifest: &[u8], statement: &Statement) -> Result<String, DeliveryError> {
        let untrusted = format!("signature from masterctl secret key {}", self.id);
        minisign::sign(
            None,
            &self.secret,
            manifest,
            Some(&statement.to_comment()),
            Some(&untrusted),
        )
        .map(|signature| signature.into_string())
        .map_err(|e| DeliveryError::Key(format!("the release could not be signed: {e}")))
    }
}

/// Whether a minisign secret key file's text is encrypted (`None`: not such a file).
/// Its key line is the algorithm (`Ed`), then the key derivation's (`Sc` for scrypt,
/// two zero bytes for none).
fn is_encrypted(text: &str) -> Option<bool> {
    use base64::Engine as _;
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("untrusted comment:"))?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(line)
        .ok()?;
    match bytes.get(..4)? {
        [b'E', b'd', 0, 0] => Some(false),
        [b'E', b'd', b'S', b'c'] => Some(true),
        _ => None,
    }
}

/// An unencrypted key file as minisign 0.11 writes it (`minisign -G -W`): its checksum
/// left zero, which the reader here checks. The key file's text with the checksum put in
/// (BLAKE2b-256 of its algorithm, id and key, as an encrypted key's is); `None` when the
/// key is not such a one.
fn with_checksum(text: &str) -> Option<String> {
    use base64::Engine as _;
    use blake2::digest::{Update as _, VariableOutput as _};
    let mut lines = text.lines();
    let comment = lines.next()?;
    let mut bytes = base64::engine::general_purpose::STANDARD
        .decode(lines.next()?.trim())
        .ok()?;
    // Algorithm 2, kdf 2, checksum algorithm 2, salt 32, limits 16; id 8, key 64, checksum 32.
    if bytes.len() != 158 || bytes[2..4] != [0, 0] || bytes[126..].iter().any(|&b| b != 0) {
        return None;
    }
    let mut hasher = blake2::Blake2bVar::new(32).ok()?;
    hasher.update(&bytes[..2]);
    hasher.update(&bytes[54..126]);
    hasher.finalize_variable(&mut bytes[126..]).ok()?;
    let key = base64::engine::general_purpose::STANDARD.encode(&bytes);
    Some(format!("{comment}\n{key}\n"))
}

/// What a build was last fetched as, when its release was signed: kept beside it
/// (`.<build>.signed.json`) so that a later fetch refuses a release signed before it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Running {
    pub region: String,
    pub release: String,
    pub sequence: u64,
    /// The id of the key that signed it.
    pub key: String,
    /// When it was signed.
    pub time: String,
}

/// Where what the build `out` runs is kept by default: beside it.
pub fn running_path(out: &Path) -> PathBuf {
    crate::beside(out, ".signed.json")
}

/// What a build runs, as last kept at `path` (none when nothing was fetched signed
/// there yet); a file there that masterctl did not write is refused, naming it, rather
/// than taken as nothing (which would let a replay through).
pub fn running(path: &Path) -> Result<Option<Running>, DeliveryError> {
    let Some(bytes) =
        files::read_regular_not_linked(path, 64 * 1024).map_err(DeliveryError::io(path))?
    else {
        return Ok(None);
    };
    serde_json::from_slice(&bytes).map(Some).map_err(|e| DeliveryError::Build {
        path: path.to_path_buf(),
        why: format!("it is not what masterctl keeps of the release a build runs ({e}); remove it to take the store's current release as it is"),
    })
}

/// Keep at `path` what a build now runs (written beside it, then moved into place).
pub fn keep_running(path: &Path, running: &Running) -> Result<(), DeliveryError> {
    let bytes = serde_json::to_vec_pretty(running).unwrap_or_default();
    files::write_atomic(path, &bytes).map_err(DeliveryError::io(path))
}

/// Check `signed`, the signature of release `release` of `region`, against what the
/// build runs (kept at `kept`): its statement must be that release's, of the manifest's
/// audience, and not signed before the release the build runs (a replay).
pub fn check_statement(
    signed: &Signed,
    store: &str,
    region: &str,
    release: &str,
    audience: Option<&str>,
    kept: &Path,
) -> Result<Running, DeliveryError> {
    let statement = &signed.statement;
    let refused = |why: String| DeliveryError::BadSignature {
        store: store.to_string(),
        region: region.to_string(),
        release: release.to_string(),
        why,
    };
    if statement.region != region || statement.release != release {
        return Err(refused(format!(
            "its signature states release {} of {}",
            statement.release, statement.region
        )));
    }
    let audience = audience.unwrap_or("all");
    if statement.audience != audience {
        return Err(refused(format!(
            "its signature states a build for `{}`, and the build is for `{audience}`",
            statement.audience
        )));
    }
    if let Some(runs) = running(kept)?.filter(|r| r.region == region)
        && (statement.sequence < runs.sequence
            || (statement.sequence == runs.sequence && runs.release != release))
    {
        return Err(DeliveryError::Replayed {
            region: region.to_string(),
            release: release.to_string(),
            sequence: statement.sequence,
            running: runs.release,
            running_sequence: runs.sequence,
        });
    }
    Ok(Running {
        region: region.to_string(),
        release: release.to_string(),
        sequence: statement.sequence,
        key: signed.key.clone(),
        time: statement.time.clone(),
    })
}

/// What a publish or rollback signed: the key and the number it stated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignedAs {
    pub key: String,
    pub sequence: u64,
}

/// The number a new signature states: after the one the pointer being moved states,
/// and never below the milliseconds since 1970, so that it still grows when an unsigned
/// publish came between (its pointer states none).
fn next_sequence(previous: Option<u64>) -> u64 {
    let now = u64::try_from(crate::layout::now_millis()).unwrap_or(0);
    previous.map_or(0, |p| p.saturating_add(1)).max(now)
}

/// Sign the build of `manifest` (its bytes as published) as release `release` of
/// `region`, stating a number after the one `current` (the pointer being moved from)
/// states ([`next_sequence`]), and put the signature beside the release's record: before the pointer
/// names it, so that a fetch never finds a signed pointer without its signature.
pub(crate) async fn put_signature(
    remote: &crate::remote::Remote,
    key: &SigningKey,
    manifest: &masterctl_runtime::Manifest,
    manifest_bytes: &[u8],
    release: &str,
    current: Option<&crate::layout::Pointer>,
) -> Result<SignedAs, DeliveryError> {
    let statement = Statement {
        region: manifest.region.clone(),
        audience: manifest.audience.clone().unwrap_or_else(|| "all".into()),
        release: release.to_string(),
        sequence: next_sequence(current.and_then(|p| p.sequence)),
        time: crate::layout::now(),
    };
    let signature = key.sign(manifest_bytes, &statement)?;
    let at = crate::layout::signature_key(&manifest.region, release);
    remote.put(&at, signature.into_bytes()).await?;
    Ok(SignedAs {
        key: key.id().to_string(),
        sequence: statement.sequence,
    })
}
