//! Signed releases: a release record's signature (minisign's format, Ed25519) checked
//! against the keys a server trusts, and what it signs read from its trusted comment —
//! the region, the audience, the release, a sequence that only grows, and the time.
//!
//! A server that fetches its builds itself (not through `masterctl fetch`) calls
//! [`verify`] on the record and the signature it downloaded, then compares the
//! [`Statement`] with what it expects and with the last one it accepted:
//!
//! ```
//! use masterctl_runtime::signature::{TrustedKey, verify};
//! # fn check(record: &[u8], signature: &str) -> Result<(), Box<dyn std::error::Error>> {
//! let trusted = [TrustedKey::parse("RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3")?];
//! let signed = verify(record, signature, &trusted)?;
//! assert_eq!(signed.statement.region, "jp");
//! # Ok(()) }
//! ```
//!
//! Keys and signatures are minisign's: `minisign -V -p key.pub -m <record> -x <record>.minisig`
//! checks the same signature.

use std::fmt;

use minisign_verify::{PublicKey, Signature};

/// What a release's signature states besides the record's bytes, in its trusted
/// comment: `masterctl-release region=jp audience=server release=… sequence=7 time=…`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub region: String,
    /// `server`, `client`, or `all` (a build for every audience).
    pub audience: String,
    pub release: String,
    /// Grows with every publish or rollback signed for the region: a server refuses a
    /// statement of a lower sequence than the one it runs (a replay).
    pub sequence: u64,
    /// When it was signed (UTC, `2026-12-07T10:00:00.000Z`).
    pub time: String,
}

/// What the first word of a trusted comment masterctl signs is.
const KIND: &str = "masterctl-release";

impl Statement {
    /// The trusted comment that states it.
    pub fn to_comment(&self) -> String {
        format!(
            "{KIND} region={} audience={} release={} sequence={} time={}",
            self.region, self.audience, self.release, self.sequence, self.time
        )
    }

    /// The statement a trusted comment makes; a comment of another shape is refused.
    pub fn parse(comment: &str) -> Result<Statement, SignatureError> {
        let malformed =
            || SignatureError::Malformed(format!("its statement `{comment}` is not a release's"));
        let mut words = comment.split(' ');
        if words.next() != Some(KIND) {
            return Err(malformed());
        }
        let mut field = |name: &str| {
            let value = words.next()?.strip_prefix(name)?.strip_prefix('=')?;
            let plain = !value.is_empty()
                && value
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-_.:+".contains(c));
            plain.then(|| value.to_string())
        };
        let statement = (|| {
            Some(Statement {
                region: field("region")?,
                audience: field("audience")?,
                release: field("release")?,
                sequence: field("sequence")?.parse().ok()?,
                time: field("time")?,
            })
        })()
        .ok_or_else(malformed)?;
        match words.next() {
            None => Ok(statement),
            Some(_) => Err(malformed()),
        }
    }
}

/// A key a server trusts: a minisign public key (its base64 line, or a whole `.pub` file).
#[derive(Clone)]
pub struct TrustedKey {
    id: String,
    key: PublicKey,
}

impl fmt::Debug for TrustedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TrustedKey({})", self.id)
    }
}

impl TrustedKey {
    /// A public key from its base64 line (`RWQ…`) or a minisign `.pub` file's text.
    pub fn parse(text: &str) -> Result<TrustedKey, SignatureError> {
        let line = (text.lines().map(str::trim))
            .find(|line| !line.is_empty() && !line.starts_with("untrusted comment:"))
            .unwrap_or_default();
        let key = PublicKey::from_base64(line)
            .map_err(|_| SignatureError::Malformed("it is not a minisign public key".into()))?;
        let id = key_id(line, 2)
            .ok_or_else(|| SignatureError::Malformed("it is not a minisign public key".into()))?;
        Ok(TrustedKey { id, key })
    }

    /// Its id as minisign shows it (16 hexadecimal digits).
    pub fn id(&self) -> &str {
        &self.id
    }
}

/// A signature checked: the key that made it and what it states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    /// The id of the trusted key that made it.
    pub key: String,
    pub statement: Statement,
}

/// Why a release's signature is not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SignatureError {
    /// A signature, key or statement not in minisign's or masterctl's shape.
    Malformed(String),
    /// Made by a key not among the trusted ones (its id).
    Untrusted { key: String },
    /// Made in the name of a trusted key, but not over these bytes and this statement.
    Forged { key: String },
}

impl fmt::Display for SignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SignatureError::Malformed(why) => write!(f, "its signature is malformed: {why}"),
            SignatureError::Untrusted { key } => {
                write!(f, "it is signed by key {key}, which is not trusted")
            }
            SignatureError::Forged { key } => write!(
                f,
                "its signature in the name of key {key} does not match it (the record or its statement was changed)"
            ),
        }
    }
}

impl std::error::Error for SignatureError {}

/// Check `signature` (a `.minisig` file's text) over `record` (the record's bytes as
/// stored) against the `trusted` keys, and read what it states.
pub fn verify(
    record: &[u8],
    signature: &str,
    trusted: &[TrustedKey],
) -> Result<Signed, SignatureError> {
    let decoded = Signature::decode(signature.trim_end())
        .map_err(|_| SignatureError::Malformed("it is not a minisign signature".into()))?;
    let line = signature.lines().nth(1).unwrap_or_default();
    let key = key_id(line, 2)
        .ok_or_else(|| SignatureError::Malformed("it is not a minisign signature".into()))?;
    let Some(trusted) = trusted.iter().find(|k| k.id == key) else {
        return Err(SignatureError::Untrusted { key });
    };
    trusted
        .key
        .verify(record, &decoded, false)
        .map_err(|_| SignatureError::Forged { key: key.clone() })?;
    let statement = Statement::parse(decoded.trusted_comment())?;
    Ok(Signed { key, statement })
}

/// The key id a minisign base64 line holds after its `skip` bytes of algorithm, as
/// minisign shows it (the 8 bytes read as a little-endian number, in hexadecimal).
fn key_id(line: &str, skip: usize) -> Option<String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(line.trim())
        .ok()?;
    let id: [u8; 8] = bytes.get(skip..skip + 8)?.try_into().ok()?;
    Some(format!("{:016X}", u64::from_le_bytes(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// minisign's own example: a key, and its signature of `test` whose trusted comment
    /// is not a release's.
    const KEY: &str = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3";
    const SIGNATURE: &str = "untrusted comment: signature from minisign secret key
RUQf6LRCGA9i559r3g7V1qNyJDApGip8MfqcadIgT9CuhV3EMhHoN1mGTkUidF/z7SrlQgXdy8ofjb7bNJJylDOocrCo8KLzZwo=
trusted comment: timestamp:1633700835\tfile:test\tprehashed
wLMDjy9FLAuxZ3q4NlEvkgtyhrr0gtTu6KC4KBJdITbbOeAi1zBIYo0v4iTgt8jJpIidRJnp94ABQkJAgAooBQ==
";

    #[test]
    fn a_statement_reads_back_as_written_and_nothing_else_reads() {
        let statement = Statement {
            region: "jp".into(),
            audience: "server".into(),
            release: "0123abcd".into(),
            sequence: 1_765_000_000_000,
            time: "2026-12-07T10:00:00.000Z".into(),
        };
        assert_eq!(
            Statement::parse(&statement.to_comment()),
            Ok(statement.clone())
        );
        let comment = statement.to_comment();
        for other in [
            comment.replace("masterctl-release", "masterctl-pointer"),
            comment.replace(" audience=server", ""),
            format!("{comment} extra=1"),
            comment.replace("sequence=1765000000000", "sequence=-1"),
            comment.replace("region=jp", "region=j\tp"),
            comment.replace("region=jp", "region="),
            "timestamp:1633700835\tfile:test".to_string(),
        ] {
            assert!(
                matches!(Statement::parse(&other), Err(SignatureError::Malformed(_))),
                "{other}"
            );
        }
    }

    #[test]
    fn a_key_reads_from_its_line_or_its_file_and_names_its_id() {
        let line = TrustedKey::parse(KEY).unwrap();
        let file = TrustedKey::parse(&format!(
            "untrusted comment: minisign public key {}\n{KEY}\n",
            line.id()
        ))
        .unwrap();
        assert_eq!(line.id(), file.id());
        assert_eq!(line.id().len(), 16);
        for garbage in ["", "RWQ", "not a key", &KEY[1..]] {
            assert!(TrustedKey::parse(garbage).is_err(), "{garbage}");
        }
    }

    /// Over other bytes: forged; by a key not trusted: said with its id; a good
    /// signature whose statement is not a release's: malformed, never taken.
    #[test]
    fn only_a_trusted_key_s_signature_of_these_bytes_stating_a_release_is_taken() {
        let key = TrustedKey::parse(KEY).unwrap();
        assert_eq!(
            verify(b"tess", SIGNATURE, std::slice::from_ref(&key)),
            Err(SignatureError::Forged {
                key: key.id().to_string()
            })
        );
        assert_eq!(
            verify(b"test", SIGNATURE, &[]),
            Err(SignatureError::Untrusted {
                key: key.id().to_string()
            })
        );
        assert!(matches!(
            verify(b"test", SIGNATURE, std::slice::from_ref(&key)),
            Err(SignatureError::Malformed(why)) if why.contains("not a release's")
        ));
        assert!(matches!(
            verify(b"test", "not a signature", &[key]),
            Err(SignatureError::Malformed(_))
        ));
    }
}
