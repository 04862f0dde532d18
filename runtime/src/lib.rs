//! masterctl-runtime: what a game server links to load the masters `masterctl build`
//! wrote, without parsing them.
//!
//! [`Masters::open`] reads `manifest.json`, maps every file, checks its size and BLAKE3
//! against the manifest, validates it once (rkyv's bytecheck, then the archive's own
//! invariants: lengths, offsets, row ids) and checks the identity each archive carries
//! (kind, name, language, schema hash) against what the manifest says of it: a tampered,
//! truncated or swapped file never loads. [`Masters::open_trusted`] skips the structural
//! validation for builds whose manifest comes from a source you trust. A damaged build is a [`LoadError`] naming the file and the cause, never a
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

pub mod calendar;
pub mod check;
pub mod files;
pub mod format;
pub mod generated;
pub mod manifest;
pub mod parallel;
mod serialize;
pub mod signature;
pub mod table;
pub mod text;

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

pub use calendar::{Date, DateTime};
pub use format::FORMAT_VERSION;
use format::{ArchivedArchiveFile, ArchivedBody};
pub use generated::{Group, Matrix, Reverse, Texts, Weighted};
pub use manifest::{FileEntry, FileKind, MANIFEST, MANIFEST_LIMIT, MAX_FILES, Manifest, SeenBy};
pub use table::{Index, List, Row, Rows, Table, ValueRef};
pub use text::KeyError;

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
        write!(f, "{}: {}", self.path.display(), self.cause)
    }
}

impl fmt::Display for LoadCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoadCause::Io(e) => write!(f, "{e}"),
            LoadCause::Manifest(why) => write!(f, "not a valid manifest: {why}"),
            LoadCause::Version { found, expected } => write!(
                f,
                "archive format version {found}; this loader reads version {expected} (rebuild with a matching masterctl)"
            ),
            LoadCause::Hash { expected, found } => write!(
                f,
                "its BLAKE3 is {found}, the manifest says {expected} (a changed or damaged file)"
            ),
            LoadCause::Invalid(why) => write!(f, "not a valid archive: {why}"),
        }
    }
}

impl std::error::Error for LoadError {}

/// A BLAKE3 hash as manifests write it: 64 lowercase hexadecimal digits.
pub fn is_blake3_hex(text: &str) -> bool {
    text.len() == 64 && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// How an archive's own identity differs from what the manifest says of it, if it does.
fn identity_mismatch(
    identity: &format::ArchivedIdentity,
    entry: &FileEntry,
    manifest: &Manifest,
) -> Option<String> {
    if identity.kind.as_str() != entry.kind.as_str() || identity.name.as_str() != entry.name {
        return Some(format!(
            "it holds the {} `{}`; the manifest says it is the {} `{}`",
            identity.kind.as_str(),
            identity.name.as_str(),
            entry.kind.as_str(),
            entry.name
        ));
    }
    let language = identity.language.as_ref().map(|l| l.as_str());
    if language != entry.language.as_deref() {
        return Some(format!(
            "it holds language {}; the manifest says {}",
            language.unwrap_or("(none)"),
            entry.language.as_deref().unwrap_or("(none)")
        ));
    }
    if identity.schema_hash.as_str() != manifest.schema_hash {
        return Some(format!(
            "it was built from schemas {}; the manifest's are {}",
            identity.schema_hash.as_str(),
            manifest.schema_hash
        ));
    }
    None
}

/// Files at least this large have their hash computed in two halves at once.
const SPLIT_HASH: usize = 8 << 20;

/// One piece of the work of opening: a file's hash (whole, or one half of BLAKE3's tree),
/// or its structural check.
#[derive(Clone, Copy)]
enum Task {
    Hash(usize),
    HashLeft(usize),
    HashRight(usize),
    Check(usize),
}

/// What a task gave.
enum Done {
    Hash(String),
    Half(blake3::hazmat::ChainingValue),
    Checked,
}

impl Task {
    fn file(self) -> usize {
        match self {
            Task::Hash(i) | Task::HashLeft(i) | Task::HashRight(i) | Task::Check(i) => i,
        }
    }

    /// Bytes it reads, to start the longest first.
    fn work(self, files: &[Bytes]) -> usize {
        let len = files[self.file()].len();
        match self {
            Task::HashLeft(_) | Task::HashRight(_) => len / 2,
            _ => len,
        }
    }

    fn run(self, files: &[Bytes]) -> Result<Done, LoadCause> {
        let bytes: &[u8] = &files[self.file()];
        match self {
            Task::Hash(_) => {
                // Even a file the manifest vouches for must be of this format version (a
                // manifest edited to this version over older files).
                check::version(bytes)?;
                Ok(Done::Hash(blake3::hash(bytes).to_hex().to_string()))
            }
            Task::HashLeft(_) => {
                check::version(bytes)?;
                Ok(Done::Half(half_hash(bytes, false)))
            }
            Task::HashRight(_) => Ok(Done::Half(half_hash(bytes, true))),
            Task::Check(_) => check::archive(bytes).map(|()| Done::Checked),
        }
    }
}

/// The chaining value of the left or right subtree of BLAKE3's tree over `bytes` (longer
/// than one chunk); [`blake3::hazmat::merge_subtrees_root`] of the two is the hash.
fn half_hash(bytes: &[u8], right: bool) -> blake3::hazmat::ChainingValue {
    use blake3::hazmat::HasherExt;
    let left = blake3::hazmat::left_subtree_len(bytes.len() as u64) as usize;
    let mut hasher = blake3::Hasher::new();
    if right {
        hasher.set_input_offset(left as u64);
        hasher.update(&bytes[left..]);
    } else {
        hasher.update(&bytes[..left]);
    }
    hasher.finalize_non_root()
}

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
    /// Open a build directory, verifying every archive: size and BLAKE3 against the
    /// manifest, structure and invariants, and the identity it carries.
    pub fn open(dir: impl AsRef<Path>) -> Result<Masters, LoadError> {
        Masters::load(dir.as_ref(), Trust::Validate)
    }

    /// Open a build directory trusting its archives' structure once each file's BLAKE3
    /// matches the manifest (identities are still checked): for builds whose manifest
    /// came from a source you trust (your own publish, verified on the way).
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
        let (mut manifest, _) = read_manifest(dir)?;
        // The client export is for clients: a server neither maps nor hashes it.
        manifest.files.retain(|entry| entry.kind.is_archive());
        let files = manifest
            .files
            .iter()
            .map(|entry| map_file(dir, entry))
            .collect::<Result<Vec<_>, _>>()?;
        if trust != Trust::Nothing {
            verify(dir, &manifest, &files, trust)?;
        }
        let mut masters = Masters {
            manifest,
            files,
            tables: HashMap::new(),
            generated: HashMap::new(),
            strings: HashMap::new(),
        };
        masters.index(dir, trust)?;
        if trust == Trust::Validate {
            check::across(&masters).map_err(|(file, why)| LoadError {
                path: dir.join(&masters.manifest.files[file].path),
                cause: LoadCause::Invalid(why),
            })?;
        }
        Ok(masters)
    }

    /// Each file by its name (and language): its identity and kind checked against
    /// the manifest's entry.
    fn index(&mut self, dir: &Path, trust: Trust) -> Result<(), LoadError> {
        for (i, entry) in self.manifest.files.iter().enumerate() {
            let invalid = |why: String| LoadError {
                path: dir.join(&entry.path),
                cause: LoadCause::Invalid(why),
            };
            let archive = self.archive(i);
            if trust != Trust::Nothing
                && let Some(why) = identity_mismatch(&archive.identity, entry, &self.manifest)
            {
                return Err(invalid(why));
            }
            let matches = matches!(
                (entry.kind, &archive.body),
                (FileKind::Table | FileKind::Reverse, ArchivedBody::Table(_))
                    | (FileKind::Group, ArchivedBody::Group(_))
                    | (FileKind::Weighted, ArchivedBody::Weighted(_))
                    | (FileKind::Matrix, ArchivedBody::Matrix(_))
                    | (FileKind::Strings, ArchivedBody::Strings(_))
            );
            if !matches {
                return Err(invalid(format!(
                    "the manifest says it is a {:?} file; it is not",
                    entry.kind
                )));
            }
            let target = match entry.kind {
                FileKind::Table => &mut self.tables,
                FileKind::Strings => self.strings.entry(entry.name.clone()).or_default(),
                _ => &mut self.generated,
            };
            let key = match (entry.kind, &entry.language) {
                (FileKind::Strings, Some(language)) => language.clone(),
                _ => entry.name.clone(),
            };
            target.insert(key, i);
        }
        Ok(())
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

    /// The reverse lookups that point at `table` ("where can item X be obtained" points
    /// at `item`), by name, in the manifest's order.
    pub fn reverses_of(&self, table: &str) -> Vec<(&str, Reverse<'_>)> {
        self.manifest
            .files
            .iter()
            .filter(|f| f.kind == FileKind::Reverse && f.table.as_deref() == Some(table))
            .filter_map(|f| Some((f.name.as_str(), self.reverse(&f.name)?)))
            .collect()
    }

    /// The rows of every reverse lookup pointing at `row`'s table that reference it (by
    /// its first key value), by lookup name, in the manifest's order.
    pub fn references<'m>(&'m self, row: &Row<'m>) -> Vec<(&'m str, Vec<Row<'m>>)> {
        let table = row.table();
        let Some(first_key) = table.primary_key().next().map(|c| row.value(c)) else {
            return Vec::new();
        };
        self.reverses_of(table.name())
            .into_iter()
            .map(|(name, reverse)| (name, reverse.get(first_key).collect()))
            .collect()
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

    /// A table's texts in a language; when the build has none of that language, the
    /// first of the region's languages it has (a build fetched with some languages
    /// only holds those).
    pub fn texts(&self, table: &str, language: &str) -> Option<Texts<'_>> {
        let languages = self.strings.get(table)?;
        let file = match languages.get(language) {
            Some(&file) => file,
            None => self
                .manifest
                .languages
                .iter()
                .find_map(|l| languages.get(l.as_str()))
                .copied()?,
        };
        match &self.archive(file).body {
            ArchivedBody::Strings(data) => Some(Texts {
                data,
                languages: &self.manifest.languages,
            }),
            _ => None,
        }
    }
}

/// A build's `manifest.json`: read (size-capped), parsed, of this format version, every
/// entry a path inside the build with a well-formed hash; and its bytes (a publisher
/// names it by their hash).
pub fn read_manifest(dir: &Path) -> Result<(Manifest, Vec<u8>), LoadError> {
    let path = dir.join(MANIFEST);
    let error = |cause| LoadError {
        path: path.clone(),
        cause,
    };
    let text = files::read_regular(&path, MANIFEST_LIMIT)
        .and_then(|t| {
            t.ok_or_else(|| {
                std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such file (is this a build folder?)",
                )
            })
        })
        .map_err(|e| error(LoadCause::Io(e)))?;
    let manifest: Manifest =
        serde_json::from_slice(&text).map_err(|e| error(LoadCause::Manifest(e.to_string())))?;
    manifest.check().map_err(error)?;
    Ok((manifest, text))
}

/// One file of the build, mapped: a regular file of the size the manifest says.
fn map_file(dir: &Path, entry: &FileEntry) -> Result<Bytes, LoadError> {
    let path = dir.join(&entry.path);
    let error = |cause| LoadError {
        path: path.clone(),
        cause,
    };
    let file = std::fs::File::open(&path).map_err(|e| error(LoadCause::Io(e)))?;
    let metadata = file.metadata().map_err(|e| error(LoadCause::Io(e)))?;
    if !metadata.is_file() {
        return Err(error(LoadCause::Invalid("not a regular file".to_string())));
    }
    if metadata.len() != entry.size {
        return Err(error(LoadCause::Invalid(format!(
            "{} bytes; the manifest says {}",
            metadata.len(),
            entry.size
        ))));
    }
    // SAFETY: the map is read-only; a build directory is written once, into a
    // temporary directory renamed into place, and not changed while mapped.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| error(LoadCause::Io(e)))?;
    Ok(Bytes::Mapped(map))
}

/// Every file's BLAKE3 against the manifest, and its structure (when validating):
/// hashing and checking a file are separate tasks, largest files first, so that one
/// large table keeps both cores busy. The first damaged file in the manifest's order is
/// the one named.
fn verify(dir: &Path, manifest: &Manifest, files: &[Bytes], trust: Trust) -> Result<(), LoadError> {
    let mut tasks: Vec<Task> = Vec::with_capacity(files.len() * 3);
    for (i, bytes) in files.iter().enumerate() {
        // A large file's hash in two halves of BLAKE3's tree, on two cores.
        if bytes.len() >= SPLIT_HASH {
            tasks.extend([Task::HashLeft(i), Task::HashRight(i)]);
        } else {
            tasks.push(Task::Hash(i));
        }
        if trust == Trust::Validate {
            tasks.push(Task::Check(i));
        }
    }
    tasks.sort_by_key(|task| std::cmp::Reverse(task.work(files)));
    let results = parallel::parallel_map(&tasks, |task| task.run(files));
    let mut found: Vec<Option<Result<String, LoadCause>>> =
        (0..files.len()).map(|_| None).collect();
    let mut halves: Vec<[Option<blake3::hazmat::ChainingValue>; 2]> =
        vec![[None, None]; files.len()];
    let mut invalid: Vec<Option<LoadCause>> = (0..files.len()).map(|_| None).collect();
    for (task, result) in tasks.iter().zip(results) {
        let i = task.file();
        match (task, result) {
            (_, Ok(Done::Hash(hash))) => found[i] = Some(Ok(hash)),
            (Task::HashLeft(_), Ok(Done::Half(cv))) => halves[i][0] = Some(cv),
            (_, Ok(Done::Half(cv))) => halves[i][1] = Some(cv),
            (_, Ok(Done::Checked)) => {}
            (Task::Check(_), Err(cause)) => invalid[i] = Some(cause),
            (_, Err(cause)) => found[i] = Some(Err(cause)),
        }
    }
    for (i, [left, right]) in halves.into_iter().enumerate() {
        if let (None, Some(left), Some(right)) = (&found[i], left, right) {
            let root =
                blake3::hazmat::merge_subtrees_root(&left, &right, blake3::hazmat::Mode::Hash);
            found[i] = Some(Ok(root.to_hex().to_string()));
        }
    }
    for (i, entry) in manifest.files.iter().enumerate() {
        let error = |cause| LoadError {
            path: dir.join(&entry.path),
            cause,
        };
        match found[i].take() {
            Some(Ok(hash)) if hash == entry.blake3 => {}
            Some(Ok(hash)) => {
                return Err(error(LoadCause::Hash {
                    expected: entry.blake3.clone(),
                    found: hash,
                }));
            }
            Some(Err(cause)) => return Err(error(cause)),
            None => return Err(error(LoadCause::Invalid("not checked".into()))),
        }
        if let Some(cause) = invalid[i].take() {
            return Err(error(cause));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::half_hash;

    #[test]
    fn a_hash_in_two_halves_is_the_hash() {
        for len in [1025usize, 2048, 4097, (1 << 20) + 7, (8 << 20) + 3] {
            let bytes: Vec<u8> = (0..len).map(|i| (i * 31 % 251) as u8).collect();
            let root = blake3::hazmat::merge_subtrees_root(
                &half_hash(&bytes, false),
                &half_hash(&bytes, true),
                blake3::hazmat::Mode::Hash,
            );
            assert_eq!(root, blake3::hash(&bytes), "{len}");
        }
    }
}
