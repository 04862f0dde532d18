//! What each pair of versions of a table's file changed: the keys of the rows that
//! differ, kept under `.git/masterctl/row-changes/` by the pair of blob ids and the
//! key's fields (content-addressed: never stale), so that blame reads no version a row
//! did not change in. Import, rebase and `l10n import` keep them as they commit
//! (`keep_changes`); blame works out the rest once and keeps them beside its walk
//! (`Keeper`).

use git2::Oid;

use crate::MasterRepo;
use crate::review::diff::key_names;
use crate::snapshot::{language_path, table_path, tree_blobs};

/// A table's files in a snapshot: its own, then each language's (the source first),
/// with the language.
pub(super) fn table_files(
    project: &masterctl_schemas::Project,
    table: &str,
) -> Vec<(String, Option<String>)> {
    std::iter::once((table_path(table), None))
        .chain(
            project
                .config
                .languages_source_first()
                .map(|l| (language_path(l, table), Some(l.clone()))),
        )
        .collect()
}

/// The keys of the rows in the one region where two versions of a CSV file differ
/// (everything before it and after it is the same bytes, cut at line starts): a superset
/// of the rows changed, found without reading the rest. `None` when the headers differ,
/// a quote could put a cut inside a cell, or the region does not read as whole records.
pub(super) fn changed_region_keys(
    old: &[u8],
    new: &[u8],
    key: &[String],
) -> Option<Vec<Vec<String>>> {
    let (header_end, header) = plain_header(old)?;
    if new.get(..=header_end) != Some(&old[..=header_end]) {
        return None;
    }
    let columns: Vec<usize> = key
        .iter()
        .map(|k| header.iter().position(|h| h == k))
        .collect::<Option<_>>()?;
    let same_start = common_prefix(old, new);
    // Back to the start of the line the difference is on.
    let start = old[..same_start]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |p| p + 1);
    let room = old.len().min(new.len()) - start;
    let same_end = common_suffix(&old[old.len() - room..], &new[new.len() - room..]);
    // Forward to a line start in both (the byte before the kept end is a line feed).
    let mut end = same_end;
    while end > 0 && (old[old.len() - end - 1] != b'\n' || new[new.len() - end - 1] != b'\n') {
        end -= 1;
    }
    let regions = [&old[start..old.len() - end], &new[start..new.len() - end]];
    // A quote before the region could leave it inside a cell; one in it could carry a
    // record past its end. Either way, the long way.
    if inside_quotes(&old[..start]) || regions.iter().any(|r| memchr::memchr(b'"', r).is_some()) {
        return None;
    }
    let mut keys = Vec::new();
    for region in regions {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(region);
        for record in reader.records() {
            let record = record.ok()?;
            if record.len() != header.len() {
                return None;
            }
            keys.push(columns.iter().map(|&c| record[c].to_string()).collect());
        }
    }
    Some(keys)
}

/// How many bytes `a` and `b` start with alike: compared a page at a time (one memcmp
/// each), then a word at a time, then bytes (byte by byte, this was half of a first
/// blame).
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let both = a.len().min(b.len());
    let (a, b) = (&a[..both], &b[..both]);
    let mut at = 0;
    for block in [4096, 8] {
        while at + block <= both && a[at..at + block] == b[at..at + block] {
            at += block;
        }
    }
    at + a[at..]
        .iter()
        .zip(&b[at..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// How many bytes `a` and `b` end with alike.
fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let both = a.len().min(b.len());
    let (a, b) = (&a[a.len() - both..], &b[b.len() - both..]);
    let mut alike = 0;
    for block in [4096, 8] {
        while alike + block <= both
            && a[both - alike - block..both - alike] == b[both - alike - block..both - alike]
        {
            alike += block;
        }
    }
    let (a, b) = (&a[..both - alike], &b[..both - alike]);
    alike
        + a.iter()
            .rev()
            .zip(b.iter().rev())
            .take_while(|(x, y)| x == y)
            .count()
}

/// A CSV file's first line split at commas (no quoting looked at), and where it ends.
pub(super) fn plain_header(bytes: &[u8]) -> Option<(usize, Vec<&str>)> {
    let end = bytes.iter().position(|&b| b == b'\n')?;
    let header = std::str::from_utf8(&bytes[..end])
        .ok()?
        .split(',')
        .collect();
    Some((end, header))
}

/// Whether what follows `before` in a CSV file lies inside a quoted cell (it follows an
/// odd number of quotes).
pub(super) fn inside_quotes(before: &[u8]) -> bool {
    !memchr::memchr_iter(b'"', before).count().is_multiple_of(2)
}

/// Where the keys a pair of versions changed are kept, for a key of these fields (field
/// names are identifiers: safe in a file name).
pub(super) fn kept_path(
    dir: &std::path::Path,
    before: Oid,
    after: Oid,
    key: &[String],
) -> std::path::PathBuf {
    dir.join(format!("{before}-{after}-{}", key.join("+")))
}

/// Keep `keys` at `path`, sorted and each once (a cache: lost to a crash, it is worked
/// out again).
fn keep(path: &std::path::Path, keys: &mut Vec<Vec<String>>) {
    keys.sort();
    keys.dedup();
    if let Ok(bytes) = serde_json::to_vec(keys) {
        let _ = std::fs::create_dir_all(masterctl_runtime::files::parent_of(path));
        let _ = masterctl_runtime::files::write_atomic_unsynced(path, &bytes);
    }
}

/// Where a blame keeps what each pair of versions changed: written on a thread of its
/// own beside the walk (creating a thousand small files can take as long as the walk
/// itself), and waited for when the blame is done.
pub(super) struct Keeper {
    pub(super) dir: std::path::PathBuf,
    sender: Option<std::sync::mpsc::Sender<(std::path::PathBuf, Vec<Vec<String>>)>>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Keeper {
    pub(super) fn new(dir: std::path::PathBuf) -> Self {
        Keeper {
            dir,
            sender: None,
            writer: None,
        }
    }

    /// Keep `keys` at `path` (on the writer thread, started with the first; here, when
    /// no thread starts).
    pub(super) fn keep(&mut self, path: std::path::PathBuf, mut keys: Vec<Vec<String>>) {
        if self.sender.is_none() {
            let (sender, receiver) =
                std::sync::mpsc::channel::<(std::path::PathBuf, Vec<Vec<String>>)>();
            let writer = std::thread::Builder::new()
                .name("row-changes".into())
                .spawn(move || {
                    for (path, mut keys) in receiver {
                        keep(&path, &mut keys);
                    }
                });
            if let Ok(writer) = writer {
                self.sender = Some(sender);
                self.writer = Some(writer);
            }
        }
        match &self.sender {
            Some(sender) => {
                if let Err(std::sync::mpsc::SendError((path, mut keys))) = sender.send((path, keys))
                {
                    keep(&path, &mut keys);
                }
            }
            None => keep(&path, &mut keys),
        }
    }
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.sender = None;
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// The smallest file whose changes are kept as it is committed. A smaller one costs its
/// blame a fraction of a millisecond per version the long way, less than keeping its
/// changes costs the import (a file created per table: a third of a second for an
/// import changing 1,000 small files).
const KEEP_FROM: usize = 64 << 10;

/// Keep what `commit`, just made from `snapshot` on top of `parent`, changed in each
/// table's files, where that is quick to see (the one region where the versions differ):
/// a blame then reads none of these versions the long way (files under [`KEEP_FROM`]
/// bytes excepted). Import, rebase and `l10n import` call it after their commit. Best
/// effort, like any cache.
pub(crate) fn keep_changes(
    repo: &MasterRepo,
    parent: Option<Oid>,
    commit: Oid,
    snapshot: &crate::snapshot::Snapshot,
) {
    let git = &repo.git;
    let blobs = |id: Option<Oid>| {
        id.and_then(|c| git.find_commit(c).ok())
            .and_then(|c| c.tree().ok())
            .and_then(|t| tree_blobs(git, &t).ok())
    };
    let (Some(old_blobs), Some(new_blobs)) = (blobs(parent), blobs(Some(commit))) else {
        return;
    };
    let structure: Vec<(String, Vec<u8>)> = snapshot
        .files()
        .iter()
        .filter(|(path, _)| crate::snapshot::structure::is_structure_path(path))
        .map(|(path, bytes)| (path.clone(), bytes.clone()))
        .collect();
    let Ok(project) = crate::snapshot::structure::project_from_files(&structure) else {
        return;
    };
    let dir = git.path().join("masterctl").join("row-changes");
    for schema in &project.tables {
        let key = key_names(schema);
        for (path, _) in table_files(&project, &schema.name) {
            let (Some(&before), Some(&after), Some(new)) = (
                old_blobs.get(&path),
                new_blobs.get(&path),
                snapshot.files().get(&path),
            ) else {
                continue;
            };
            if before == after || new.len() < KEEP_FROM {
                continue;
            }
            let blob;
            let old = match snapshot.read.get(&before) {
                Some(bytes) => bytes.as_slice(),
                None => {
                    let Ok(found) = git.find_blob(before) else {
                        continue;
                    };
                    blob = found;
                    blob.content()
                }
            };
            if let Some(mut keys) = changed_region_keys(old, new, &key) {
                keep(&kept_path(&dir, before, after, &key), &mut keys);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::changed_region_keys;

    #[test]
    fn the_changed_region_gives_the_changed_rows_and_refuses_what_it_cannot_cut() {
        let key = ["id".to_string()];
        let old = b"id,price\n1,10\n2,20\n3,30\n4,40\n";
        let changed = b"id,price\n1,10\n2,25\n3,30\n4,40\n";
        assert_eq!(
            changed_region_keys(old, changed, &key),
            Some(vec![vec!["2".to_string()], vec!["2".to_string()]])
        );
        // A row added at the end, and one removed from the middle.
        let more = b"id,price\n1,10\n2,20\n3,30\n4,40\n5,50\n";
        let keys = changed_region_keys(old, more, &key).unwrap();
        assert!(keys.contains(&vec!["5".to_string()]), "{keys:?}");
        let fewer = b"id,price\n1,10\n3,30\n4,40\n";
        let keys = changed_region_keys(old, fewer, &key).unwrap();
        assert!(keys.contains(&vec!["2".to_string()]), "{keys:?}");
        // A change of 1 to 11 must not be read as row 1 unchanged.
        let prefix = b"id,price\n11,10\n2,20\n3,30\n4,40\n";
        let keys = changed_region_keys(old, prefix, &key).unwrap();
        assert!(
            keys.contains(&vec!["1".to_string()]) && keys.contains(&vec!["11".to_string()]),
            "{keys:?}"
        );
        // Quotes, another header: the long way.
        let quoted = b"id,price\n1,10\n2,\"2,0\"\n3,30\n4,40\n";
        assert_eq!(changed_region_keys(old, quoted, &key), None);
        let other = b"id,cost\n1,10\n2,20\n3,30\n4,40\n";
        assert_eq!(changed_region_keys(old, other, &key), None);
    }
}
