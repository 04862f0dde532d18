//! `manifest.json`: what a build holds, and the hashes that let a server trust it.

use std::collections::{HashMap, HashSet};

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
    /// The project's `timezone` (IANA), when it is not UTC: the zone tools show the
    /// build's datetimes in. The datetimes themselves are instants (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timezone: Option<String>,
    /// Whose build it is (`server`, `client`), when the project's audiences make it
    /// differ from the whole project: it holds only what that audience may see.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<String>,
    /// The tables and fields the build holds that not every audience sees, and who does
    /// (a field when it differs from its table).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub seen_by: Vec<SeenBy>,
}

/// Who sees a table, or a field of it, when not servers and clients both.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenBy {
    pub table: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// `server`, `client`.
    pub audience: Vec<String>,
}

impl Manifest {
    /// The languages whose texts the build holds, in the region's fallback order (a
    /// fetch of some languages keeps the region's `languages` and only their strings).
    pub fn held_languages(&self) -> Vec<&str> {
        self.languages
            .iter()
            .filter(|l| {
                self.files
                    .iter()
                    .any(|f| f.kind == FileKind::Strings && f.language.as_ref() == Some(*l))
            })
            .map(String::as_str)
            .collect()
    }

    /// The language texts are read in when none is asked for: the first the build holds,
    /// else the region's first (a build without texts), else none.
    pub fn reading_language(&self) -> &str {
        self.held_languages()
            .first()
            .copied()
            .or_else(|| self.languages.first().map(String::as_str))
            .unwrap_or("")
    }

    /// Who sees `table` (`field`: that field of it), when not every audience does.
    pub fn seen_by(&self, table: &str, field: Option<&str>) -> Option<&[String]> {
        let own = |f: Option<&str>| {
            self.seen_by
                .iter()
                .find(|s| s.table == table && s.field.as_deref() == f)
                .map(|s| s.audience.as_slice())
        };
        match field {
            Some(_) => own(field).or_else(|| own(None)),
            None => own(None),
        }
    }

    /// The bytes `build` writes to `manifest.json` (pretty JSON and a final newline):
    /// the bytes a release names by their hash.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).unwrap_or_default();
        bytes.push(b'\n');
        bytes
    }

    /// What a loader must refuse before following the manifest: another format version,
    /// more files than a build has ([`MAX_FILES`]), an entry whose path leaves the build,
    /// is the manifest's own or is not written one way only (`.` and empty segments), a
    /// path listed twice or one that is another's folder, a malformed hash, one hash
    /// given two sizes. Each file of a build then has one place and one content: a
    /// writer that follows the manifest never writes one path twice.
    pub fn check(&self) -> Result<(), LoadCause> {
        if self.format != crate::FORMAT_VERSION {
            return Err(LoadCause::Version {
                found: self.format,
                expected: crate::FORMAT_VERSION,
            });
        }
        if self.files.len() > MAX_FILES {
            return Err(LoadCause::Manifest(format!(
                "{} files; a build has at most {MAX_FILES}",
                self.files.len()
            )));
        }
        let bad = |path: &str, why: &str| {
            Err(LoadCause::Manifest(format!(
                "`{}` {why}",
                path.escape_debug()
            )))
        };
        let mut paths: HashSet<&str> = HashSet::with_capacity(self.files.len());
        let mut sizes: HashMap<&str, u64> = HashMap::with_capacity(self.files.len());
        for entry in &self.files {
            let path = entry.path.as_str();
            if path.split('/').any(|part| matches!(part, "" | "." | ".."))
                || path.contains(['\\', '\0'])
                || path == MANIFEST
            {
                return bad(path, "is not a path inside the build");
            }
            if !paths.insert(path) {
                return bad(path, "is listed twice");
            }
            if !crate::is_blake3_hex(&entry.blake3) {
                return bad(
                    path,
                    "has a hash that is not 64 lowercase hexadecimal digits",
                );
            }
            if entry.size > MAX_FILE_SIZE {
                return bad(path, "is larger than a build's file may be (2 GiB)");
            }
            if *sizes.entry(&entry.blake3).or_insert(entry.size) != entry.size {
                return bad(path, "has the hash of another file and another size");
            }
        }
        // A file's folder must not be a file too (`tables` and `tables/item.rkyv`).
        for path in &paths {
            let mut folder = *path;
            while let Some((parent, _)) = folder.rsplit_once('/') {
                if paths.contains(parent) {
                    return bad(parent, "is a file and the folder of another");
                }
                folder = parent;
            }
        }
        Ok(())
    }
}

/// The most files a manifest may list: a build of 500 tables in 20 languages with its
/// client export has about 31,000.
pub const MAX_FILES: usize = 100_000;

/// The largest file a build may hold: an archive's offsets are 32-bit and signed.
pub const MAX_FILE_SIZE: u64 = 1 << 31;

/// The largest `manifest.json` read.
pub const MANIFEST_LIMIT: u64 = 64 << 20;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(path: &str, blake3: char, size: u64) -> FileEntry {
        FileEntry {
            path: path.to_string(),
            kind: FileKind::Client,
            name: "item".to_string(),
            language: None,
            table: None,
            blake3: blake3.to_string().repeat(64),
            size,
            rows: 0,
        }
    }

    fn manifest(files: Vec<FileEntry>) -> Manifest {
        Manifest {
            format: crate::FORMAT_VERSION,
            region: "jp".to_string(),
            source_commit: "0".repeat(40),
            schema_hash: "0".repeat(64),
            languages: vec!["ja".to_string()],
            files,
            fallbacks: Vec::new(),
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        }
    }

    #[test]
    fn each_file_has_one_place_and_one_content() {
        let ok = manifest(vec![
            entry("tables/item.rkyv", 'a', 10),
            entry("client/item.bin", 'b', 5),
            // Two files of the same bytes are fine.
            entry("client/item_copy.bin", 'b', 5),
        ]);
        assert!(ok.check().is_ok());
        let refused = |files: Vec<FileEntry>| {
            let why = manifest(files).check().unwrap_err().to_string();
            assert!(why.starts_with("not a valid manifest:"), "{why}");
            why
        };
        for path in [
            "../x",
            "/etc/passwd",
            "tables//item.rkyv",
            "./manifest.json",
            "tables/./item.rkyv",
            "manifest.json",
            "tables\\item.rkyv",
            "tables/",
            "",
        ] {
            refused(vec![entry(path, 'a', 1)]);
        }
        let twice = refused(vec![entry("a.rkyv", 'a', 1), entry("a.rkyv", 'b', 2)]);
        assert!(twice.contains("listed twice"), "{twice}");
        let folder = refused(vec![entry("tables", 'a', 1), entry("tables/x", 'b', 2)]);
        assert!(folder.contains("folder of another"), "{folder}");
        let sizes = refused(vec![entry("a", 'a', 1), entry("b", 'a', 2)]);
        assert!(sizes.contains("another size"), "{sizes}");
        let many = (0..=MAX_FILES)
            .map(|i| entry(&format!("f{i}"), 'a', 1))
            .collect();
        assert!(refused(many).contains("at most"));
        refused(vec![entry("huge", 'a', MAX_FILE_SIZE + 1)]);
        let mut hash = entry("a", 'a', 1);
        hash.blake3 = "A".repeat(64);
        refused(vec![hash]);
    }
}
