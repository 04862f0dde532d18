//! The fetch cache: a folder of objects named by the BLAKE3 of their content. An object
//! comes in only verified (its hash, and its structure as an archive) and is written
//! read-only, so a build linked from the cache is read-only too; it is then trusted by
//! its size, as a content store trusts what it verified on the way in, unless a fetch
//! asks for every object to be hashed again.

use std::io::Read;
use std::path::{Path, PathBuf};

use masterctl_runtime::files;

use crate::DeliveryError;

pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache in `dir` (created), rid of what fetches killed mid-way left.
    pub fn open(dir: &Path) -> Result<Cache, DeliveryError> {
        std::fs::create_dir_all(dir).map_err(DeliveryError::io(dir))?;
        files::remove_all_leftovers(dir);
        Ok(Cache {
            dir: dir.to_path_buf(),
        })
    }

    /// The cache in `dir` as it is, to ask what it holds (nothing created, nothing
    /// removed).
    pub(crate) fn at(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the object `hash` is kept.
    pub fn path(&self, hash: &str) -> PathBuf {
        self.dir.join(hash)
    }

    /// Whether the cache holds `hash`: a regular file of `size` bytes, and, when
    /// `verify`, whose content hashes to it.
    pub fn holds(&self, hash: &str, size: u64, verify: bool) -> bool {
        let path = self.path(hash);
        // Not opened unless it is a regular file of the size (a FIFO would block the open).
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file() && m.len() == size) {
            return false;
        }
        if !verify {
            return true;
        }
        let Ok(file) = std::fs::File::open(&path) else {
            return false;
        };
        let mut hasher = blake3::Hasher::new();
        hasher
            .update_reader(file.take(size.saturating_add(1)))
            .is_ok()
            && hasher.count() == size
            && hasher.finalize().to_hex().as_str() == hash
    }

    /// Keep `plain`, verified to be the object `hash`, read-only (replacing a damaged
    /// copy).
    pub fn put(&self, hash: &str, plain: &[u8]) -> Result<(), DeliveryError> {
        let path = self.path(hash);
        files::write_read_only_unsynced(&path, plain).map_err(DeliveryError::io(&path))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_kept_read_only_and_checked_as_asked() {
        let root = tempfile::tempdir().unwrap();
        let cache = Cache::open(&root.path().join("cache")).unwrap();
        let bytes = b"an object".to_vec();
        let hash = blake3::hash(&bytes).to_hex().to_string();
        assert!(!cache.holds(&hash, 9, false));
        cache.put(&hash, &bytes).unwrap();
        assert!(cache.holds(&hash, 9, true));
        assert!(!cache.holds(&hash, 10, false), "another size");
        let path = cache.path(&hash);
        assert!(std::fs::metadata(&path).unwrap().permissions().readonly());
        // Damaged in place, at the same size: trusted by size, caught when verified.
        std::fs::remove_file(&path).unwrap();
        std::fs::write(&path, b"an objecT").unwrap();
        assert!(cache.holds(&hash, 9, false));
        assert!(!cache.holds(&hash, 9, true));
        // Put again over the damaged copy.
        cache.put(&hash, &bytes).unwrap();
        assert!(cache.holds(&hash, 9, true));
        // A leftover of a writer that no longer runs is removed when the cache opens.
        let leftover = root
            .path()
            .join("cache")
            .join(format!(".{hash}.tmp-4000000000-0"));
        std::fs::write(&leftover, b"half").unwrap();
        Cache::open(&root.path().join("cache")).unwrap();
        assert!(!leftover.exists());
    }
}
