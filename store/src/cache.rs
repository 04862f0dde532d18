//! Which tables an export gave, remembered by the export's content hash.
//!
//! An import of exports that were imported before, under the same structure, gives the
//! same canonical files: when every input file is known here and the branch already
//! holds exactly the files they gave (same blob ids), the import is "nothing changed"
//! without reading a single workbook. The cache lives in the git directory
//! (`masterctl/import-cache`), never in a snapshot; a missing, stale or damaged cache
//! only means the slow path.

use std::collections::HashMap;
use std::path::PathBuf;

use git2::{ObjectType, Oid};
use sha2::{Digest, Sha256};

use crate::MasterRepo;
use crate::StoreError;
use crate::snapshot::structure::Structure;
use crate::snapshot::structure::is_structure_path;
use crate::snapshot::{language_path, table_path, tree_blobs};
use crate::source::SourceFile;

/// Bumped whenever the canonical form changes: old entries then never match.
const FORMAT: &str = "masterctl-import-cache-2";
/// Lines kept when the cache is rewritten.
const KEEP_LINES: usize = 20_000;

/// The canonical files one table of an export became.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableBlobs {
    pub table: String,
    pub data: Oid,
    pub language: Option<Oid>,
}

/// What one export file gave under one structure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub structure: String,
    /// The export's identity: its file name and content (see [`source_id`]).
    pub source: String,
    pub tables: Vec<TableBlobs>,
}

fn path(repo: &MasterRepo) -> PathBuf {
    repo.git.path().join("masterctl").join("import-cache")
}

/// A hash of the structure files (paths and bytes) and of the canonical format.
pub fn structure_id(structure: &Structure) -> String {
    let mut hasher = Sha256::new();
    hasher.update(FORMAT.as_bytes());
    for (path, bytes) in &structure.files {
        hasher.update((path.len() as u64).to_le_bytes());
        hasher.update(path.as_bytes());
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    }
    hex::encode(hasher.finalize())
}

fn parse_line(line: &str) -> Option<Entry> {
    let mut words = line.split(' ');
    if words.next()? != FORMAT {
        return None;
    }
    let structure = words.next()?.to_string();
    let source = words.next()?.to_string();
    let mut tables = Vec::new();
    let rest: Vec<&str> = words.collect();
    for chunk in rest.chunks(3) {
        let [table, data, language] = chunk else {
            return None;
        };
        tables.push(TableBlobs {
            table: table.to_string(),
            data: Oid::from_str(data).ok()?,
            language: match *language {
                "-" => None,
                id => Some(Oid::from_str(id).ok()?),
            },
        });
    }
    Some(Entry {
        structure,
        source,
        tables,
    })
}

fn format_line(entry: &Entry) -> String {
    let mut line = format!("{FORMAT} {} {}", entry.structure, entry.source);
    for t in &entry.tables {
        let language = t
            .language
            .map_or_else(|| "-".to_string(), |id| id.to_string());
        line.push_str(&format!(" {} {} {language}", t.table, t.data));
    }
    line
}

/// The most the cache file may hold ([`KEEP_LINES`] lines are a few megabytes); a
/// larger file, or one that is not a regular file, is ignored as damaged.
const LIMIT: u64 = 64 << 20;

fn load(repo: &MasterRepo) -> Vec<String> {
    match masterctl_runtime::files::read_regular(&path(repo), LIMIT) {
        Ok(Some(bytes)) => String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

/// An export's identity: its file name (a CSV file's name says which table it holds)
/// and its content hash.
pub fn source_id(source: &SourceFile) -> String {
    let name = source
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut hasher = Sha256::new();
    hasher.update(name.as_bytes());
    hasher.update([0]);
    hasher.update(source.sha256.as_bytes());
    hex::encode(hasher.finalize())
}

/// The tables every source gave before under this structure, or `None` if any source
/// is unknown.
pub fn lookup(
    repo: &MasterRepo,
    structure: &str,
    sources: &[SourceFile],
) -> Option<Vec<TableBlobs>> {
    let known: HashMap<String, Entry> = load(repo)
        .iter()
        .filter_map(|line| parse_line(line))
        .filter(|e| e.structure == structure)
        .map(|e| (e.source.clone(), e))
        .collect();
    let mut tables = Vec::new();
    for source in sources {
        tables.extend(known.get(&source_id(source))?.tables.iter().cloned());
    }
    Some(tables)
}

/// Whether the commit's tree holds exactly this structure and these tables' files.
pub fn branch_holds(
    repo: &MasterRepo,
    tree: &git2::Tree<'_>,
    structure: &Structure,
    source_language: &str,
    tables: &[TableBlobs],
) -> Result<bool, StoreError> {
    let blobs = tree_blobs(&repo.git, tree)?;
    let structure_paths = blobs.keys().filter(|p| is_structure_path(p)).count();
    if structure_paths != structure.files.len() {
        return Ok(false);
    }
    for (path, bytes) in &structure.files {
        if blobs.get(path) != Some(&Oid::hash_object(ObjectType::Blob, bytes)?) {
            return Ok(false);
        }
    }
    Ok(tables.iter().all(|t| {
        blobs.get(&table_path(&t.table)) == Some(&t.data)
            && blobs.get(&language_path(source_language, &t.table)) == t.language.as_ref()
    }))
}

/// Remember entries (best effort: a cache that cannot be written is no error).
pub fn record(repo: &MasterRepo, entries: &[Entry]) {
    if entries.is_empty() {
        return;
    }
    let file = path(repo);
    let mut lines = load(repo);
    let fresh: Vec<String> = entries.iter().map(format_line).collect();
    lines.retain(|l| !fresh.contains(l));
    lines.extend(fresh);
    let start = lines.len().saturating_sub(KEEP_LINES);
    let text = lines[start..].join("\n") + "\n";
    let Some(dir) = file.parent() else { return };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    // Best effort: a cache that cannot be written only means the slow path next time.
    let _ = masterctl_runtime::files::write_atomic(&file, text.as_bytes());
}
