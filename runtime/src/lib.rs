//! masterctl-runtime: what a game server links to load the masters `masterctl build`
//! wrote, without parsing them.
//!
//! [`Masters::open`] reads `manifest.json`, maps every file and validates it once
//! (rkyv's bytecheck, then the archive's own invariants: lengths, offsets, row ids);
//! [`Masters::open_trusted`] instead checks each file's BLAKE3 against the manifest and
//! trusts it. A damaged build is a [`LoadError`] naming the file and the cause, never a
//! panic or undefined behaviour. After that, every lookup borrows from the mapped files
//! and allocates nothing:
//!
//! ```no_run
//! use masterctl_runtime::{Masters, ValueRef};
//!
//! let masters = Masters::open("build/global")?;
//! let item = masters.table("item").expect("the build has items");
//! let sword = item.get(&[ValueRef::Int(1)]).expect("item 1 exists");
//! assert_eq!(sword.int("price"), Some(100));
//! println!("{}", sword.text("name", "en").unwrap_or("?"));
//! for weapon in item.index(&["category_id"]).expect("indexed").eq(&[ValueRef::Int(1)]) {
//!     println!("{:?}", weapon.get("price"));
//! }
//! # Ok::<(), masterctl_runtime::LoadError>(())
//! ```

pub mod check;
pub mod format;
pub mod generated;
pub mod manifest;
pub mod table;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

pub use format::FORMAT_VERSION;
use format::{ArchivedArchiveFile, ArchivedBody};
pub use generated::{Group, Matrix, Reverse, Texts, Weighted};
pub use manifest::{FileEntry, FileKind, MANIFEST, Manifest};
pub use table::{Index, List, Row, Rows, Table, ValueRef};

/// Why a build could not be opened.
#[derive(Debug)]
pub struct LoadError {
    /// The file at fault (the manifest, or one of the archives).
    pub path: PathBuf,
    pub cause: LoadCause,
}

#[derive(Debug)]
pub enum LoadCause {
    Io(std::io::Error),
    /// The manifest is not valid JSON of the expected shape.
    Manifest(String),
    /// The build is of another archive format version.
    Version {
        found: u32,
        expected: u32,
    },
    /// The file's hash is not the one the manifest records.
    Hash {
        expected: String,
        found: String,
    },
    /// The file is not a valid archive (truncated, corrupted, another kind of file).
    Invalid(String),
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match &self.cause {
            LoadCause::Io(e) => write!(f, "{path}: {e}"),
            LoadCause::Manifest(why) => write!(f, "{path}: not a valid manifest: {why}"),
            LoadCause::Version { found, expected } => write!(
                f,
                "{path}: archive format version {found}; this loader reads version {expected} (rebuild with a matching masterctl)"
            ),
            LoadCause::Hash { expected, found } => write!(
                f,
                "{path}: its BLAKE3 is {found}, the manifest says {expected} (a changed or damaged file)"
            ),
            LoadCause::Invalid(why) => write!(f, "{path}: not a valid archive: {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// How much to check when opening.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Trust {
    Validate,
    Hash,
    Nothing,
}

/// A mapped file's bytes.
enum Bytes {
    Mapped(Mmap),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
        }
    }
}

/// An opened build: every file mapped and checked.
pub struct Masters {
    manifest: Manifest,
    files: Vec<Bytes>,
    tables: HashMap<String, usize>,
    generated: HashMap<String, usize>,
    /// Strings files by table, then language.
    strings: HashMap<String, HashMap<String, usize>>,
}

impl fmt::Debug for Masters {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Masters")
            .field("region", &self.manifest.region)
            .field("source_commit", &self.manifest.source_commit)
            .field("files", &self.files.len())
            .finish()
    }
}

impl Masters {
    /// Open a build directory, validating every archive (structure and invariants).
    pub fn open(dir: impl AsRef<Path>) -> Result<Masters, LoadError> {
        Masters::load(dir.as_ref(), Trust::Validate)
    }

    /// Open a build directory trusting its archives once each file's BLAKE3 matches the
    /// manifest: for builds that came from a source you trust (your own publish).
    pub fn open_trusted(dir: impl AsRef<Path>) -> Result<Masters, LoadError> {
        Masters::load(dir.as_ref(), Trust::Hash)
    }

    /// Open a build directory without checking anything but the manifest.
    ///
    /// # Safety
    /// Every archive must be exactly as `masterctl build` wrote it: a damaged or forged
    /// file is undefined behaviour. Use [`Masters::open`] or [`Masters::open_trusted`]
    /// unless the files were verified some other way.
    pub unsafe fn open_unchecked(dir: impl AsRef<Path>) -> Result<Masters, LoadError> {
        Masters::load(dir.as_ref(), Trust::Nothing)
    }

    fn load(dir: &Path, trust: Trust) -> Result<Masters, LoadError> {
        let manifest_path = dir.join(MANIFEST);
        let error = |path: &Path, cause| LoadError {
            path: path.to_path_buf(),
            cause,
        };
        let text =
            std::fs::read(&manifest_path).map_err(|e| error(&manifest_path, LoadCause::Io(e)))?;
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| error(&manifest_path, LoadCause::Manifest(e.to_string())))?;
        if manifest.format != FORMAT_VERSION {
            return Err(error(
                &manifest_path,
                LoadCause::Version {
                    found: manifest.format,
                    expected: FORMAT_VERSION,
                },
            ));
        }
        let mut files = Vec::with_capacity(manifest.files.len());
        for entry in &manifest.files {
            if entry
                .path
                .split('/')
                .any(|part| part == ".." || part.is_empty())
                || entry.path.starts_with('/')
            {
                return Err(error(
                    &manifest_path,
                    LoadCause::Manifest(format!("`{}` is not a path inside the build", entry.path)),
                ));
            }
            let path = dir.join(&entry.path);
            let file = std::fs::File::open(&path).map_err(|e| error(&path, LoadCause::Io(e)))?;
            // SAFETY: the map is read-only; a build directory is written once, into a
            // temporary directory renamed into place, and not changed while mapped.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| error(&path, LoadCause::Io(e)))?;
            files.push(Bytes::Mapped(map));
        }
        match trust {
            Trust::Validate => {
                let results = check::in_parallel(&files, check::archive);
                for (entry, result) in manifest.files.iter().zip(results) {
                    result.map_err(|cause| error(&dir.join(&entry.path), cause))?;
                }
            }
            Trust::Hash => {
                let results = check::in_parallel(&files, |bytes| {
                    Ok(blake3::hash(bytes).to_hex().to_string())
                });
                for ((entry, result), bytes) in manifest.files.iter().zip(results).zip(&files) {
                    let path = dir.join(&entry.path);
                    let found = result.map_err(|cause| error(&path, cause))?;
                    if found != entry.blake3 {
                        return Err(error(
                            &path,
                            LoadCause::Hash {
                                expected: entry.blake3.clone(),
                                found,
                            },
                        ));
                    }
                    // Even a file the manifest vouches for must be of this format version
                    // (a manifest edited to this version over older archives).
                    check::version(bytes).map_err(|cause| error(&path, cause))?;
                }
            }
            Trust::Nothing => {}
        }
        let mut masters = Masters {
            manifest,
            files,
            tables: HashMap::new(),
            generated: HashMap::new(),
            strings: HashMap::new(),
        };
        for (i, entry) in masters.manifest.files.iter().enumerate() {
            let path = dir.join(&entry.path);
            let archive = masters.archive(i);
            let matches = matches!(
                (entry.kind, &archive.body),
                (FileKind::Table | FileKind::Reverse, ArchivedBody::Table(_))
                    | (FileKind::Group, ArchivedBody::Group(_))
                    | (FileKind::Weighted, ArchivedBody::Weighted(_))
                    | (FileKind::Matrix, ArchivedBody::Matrix(_))
                    | (FileKind::Strings, ArchivedBody::Strings(_))
            );
            if !matches {
                return Err(error(
                    &path,
                    LoadCause::Invalid(format!(
                        "the manifest says it is a {:?} file; it is not",
                        entry.kind
                    )),
                ));
            }
            let target = match entry.kind {
                FileKind::Table => &mut masters.tables,
                FileKind::Strings => masters.strings.entry(entry.name.clone()).or_default(),
                _ => &mut masters.generated,
            };
            let key = match (entry.kind, &entry.language) {
                (FileKind::Strings, Some(language)) => language.clone(),
                _ => entry.name.clone(),
            };
            target.insert(key, i);
        }
        if trust == Trust::Validate {
            check::across(&masters).map_err(|(file, why)| {
                error(
                    &dir.join(&masters.manifest.files[file].path),
                    LoadCause::Invalid(why),
                )
            })?;
        }
        Ok(masters)
    }

    fn archive(&self, file: usize) -> &ArchivedArchiveFile {
        // SAFETY: every file was validated at open (or the caller vouched for it with
        // `open_unchecked`, or its hash matched a manifest the caller trusts).
        unsafe { rkyv::access_unchecked::<ArchivedArchiveFile>(&self.files[file]) }
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// A table by name.
    pub fn table(&self, name: &str) -> Option<Table<'_>> {
        let &file = self.tables.get(name)?;
        match &self.archive(file).body {
            ArchivedBody::Table(data) => Some(Table {
                masters: self,
                data,
            }),
            _ => None,
        }
    }

    /// Every table's name.
    pub fn tables(&self) -> impl Iterator<Item = &str> {
        self.manifest
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Table)
            .map(|f| f.name.as_str())
    }

    fn generated_body(&self, name: &str) -> Option<&format::ArchivedBody> {
        let &file = self.generated.get(name)?;
        Some(&self.archive(file).body)
    }

    /// A reverse lookup by name.
    pub fn reverse(&self, name: &str) -> Option<Reverse<'_>> {
        match self.generated_body(name)? {
            ArchivedBody::Table(data) => Some(Reverse {
                table: Table {
                    masters: self,
                    data,
                },
            }),
            _ => None,
        }
    }

    /// A group master by name.
    pub fn group(&self, name: &str) -> Option<Group<'_>> {
        match self.generated_body(name)? {
            ArchivedBody::Group(data) => self.group_of(data),
            _ => None,
        }
    }

    fn group_of<'a>(&'a self, data: &'a format::ArchivedGroupData) -> Option<Group<'a>> {
        Some(Group {
            data,
            keys: Table {
                masters: self,
                data: &data.keys,
            },
            table: self.table(data.table.as_str())?,
        })
    }

    /// A weighted master by name.
    pub fn weighted(&self, name: &str) -> Option<Weighted<'_>> {
        match self.generated_body(name)? {
            ArchivedBody::Weighted(data) => Some(Weighted {
                data,
                group: self.group_of(&data.group)?,
            }),
            _ => None,
        }
    }

    /// A matrix master by name.
    pub fn matrix(&self, name: &str) -> Option<Matrix<'_>> {
        match self.generated_body(name)? {
            ArchivedBody::Matrix(data) => Some(Matrix { data }),
            _ => None,
        }
    }

    /// A table's texts in a language; the region's first language when the build has
    /// none of that language.
    pub fn texts(&self, table: &str, language: &str) -> Option<Texts<'_>> {
        let languages = self.strings.get(table)?;
        let file = match languages.get(language) {
            Some(&file) => file,
            None => *languages.get(self.manifest.languages.first()?.as_str())?,
        };
        match &self.archive(file).body {
            ArchivedBody::Strings(data) => Some(Texts { data }),
            _ => None,
        }
    }
}
