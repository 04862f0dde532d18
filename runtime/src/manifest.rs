//! `manifest.json`: what a build holds, and the hashes that let a server trust it.

use serde::{Deserialize, Serialize};

use crate::LoadCause;

/// The manifest's name in a build directory.
pub const MANIFEST: &str = "manifest.json";

/// A build's manifest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// The archive format version ([`crate::FORMAT_VERSION`]).
    pub format: u32,
    pub region: String,
    /// The region commit the build was made from.
    pub source_commit: String,
    /// BLAKE3 of the structure files (masterctl.toml and schemas) the build used.
    pub schema_hash: String,
    /// The region's languages, in fallback order.
    pub languages: Vec<String>,
    pub files: Vec<FileEntry>,
    /// Texts a language lacked, filled from a later language of the fallback order.
    #[serde(default)]
    pub fallbacks: Vec<Fallback>,
}

impl Manifest {
    /// The bytes `build` writes to `manifest.json` (pretty JSON and a final newline):
    /// the bytes a release names by their hash.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// What a loader must refuse before following the manifest: another format version,
    /// an entry whose path leaves the build (or is the manifest's own), a malformed hash.
    pub fn check(&self) -> Result<(), LoadCause> {
        if self.format != crate::FORMAT_VERSION {
            return Err(LoadCause::Version {
                found: self.format,
                expected: crate::FORMAT_VERSION,
            });
        }
        for entry in &self.files {
            let path = &entry.path;
            if path.split('/').any(|part| part == ".." || part.is_empty())
                || path.starts_with('/')
                || path.contains(['\\', '\0'])
                || path == MANIFEST
            {
                return Err(LoadCause::Manifest(format!(
                    "`{}` is not a path inside the build",
                    path.escape_debug()
                )));
            }
            if !crate::is_blake3_hex(&entry.blake3) {
                return Err(LoadCause::Manifest(format!(
                    "the hash of `{}` is not 64 lowercase hexadecimal digits",
                    path.escape_debug()
                )));
            }
        }
        Ok(())
    }
}

/// What kind of data a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    Table,
    Reverse,
    Group,
    Weighted,
    Matrix,
    Strings,
    /// The client export of a table, generated master or language's texts
    /// (`docs/CLIENT-FORMAT.md`, `build --client`): not an archive, not loaded here.
    Client,
    /// The same as JSON.
    #[serde(rename = "client-json")]
    ClientJson,
}

impl FileKind {
    /// The manifest's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Table => "table",
            FileKind::Reverse => "reverse",
            FileKind::Group => "group",
            FileKind::Weighted => "weighted",
            FileKind::Matrix => "matrix",
            FileKind::Strings => "strings",
            FileKind::Client => "client",
            FileKind::ClientJson => "client-json",
        }
    }

    /// An rkyv archive this crate loads (the client export is not).
    pub fn is_archive(self) -> bool {
        !matches!(self, FileKind::Client | FileKind::ClientJson)
    }
}

/// One file of a build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEntry {
    /// Relative to the build directory, with `/`.
    pub path: String,
    pub kind: FileKind,
    /// The table or generated master.
    pub name: String,
    /// For strings: the language.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// For strings, groups, weighted masters and matrices: the table they are of; for a
    /// reverse lookup: its target table.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    pub blake3: String,
    pub size: u64,
    pub rows: u64,
}

/// Texts of one field a language took from another.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fallback {
    pub table: String,
    pub field: String,
    pub language: String,
    pub from: String,
    pub count: u64,
}
