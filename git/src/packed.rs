//! Reading many versions of one large file: blobs decoded straight from the
//! repository's packs, with every delta base kept.
//!
//! A history written by other tools and packed by `git gc` stores each version of a
//! file as a delta on another, in chains up to 50 deep. libgit2 keeps no delta base over
//! 1 MiB (a compile-time limit), so each version of a 2 MB table is rebuilt from the
//! start of its chain: ~10 ms each, whichever order the versions are asked for in. Here
//! a chain is decoded from its base upwards and every object on it is kept (up to
//! [`KEPT`] bytes, the least recently used dropped first), so the next version, one step
//! along the same chain, costs one delta, applied from the kept base in place. gix-pack
//! reads the index and the entries and inflates them; the deltas are applied here
//! (its decoder keeps only the object asked for, and copies in and out of its cache).
//!
//! Each blob decoded is hashed again to check its id, as libgit2 does, unless the
//! process chose to read without (`repo::read_without_rehashing`: the `blame` command).
//!
//! Only reading: every write goes through git2. What the packs here do not hold (loose
//! objects, alternates, a pack this reader cannot open or decode) is read by libgit2,
//! which says what is wrong with it.

use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;

use git2::{Oid, Repository};
use gix_pack::data::entry::Header;

use crate::Error;

/// The bytes of decoded objects kept: git's own default for its delta-base cache
/// (`core.deltaBaseCacheLimit`).
pub const KEPT: usize = 96 << 20;

/// The longest delta chain followed (git writes 50 at most; a longer one, or a cycle,
/// is left to libgit2).
const CHAIN: usize = 10_000;

/// The repository's packs, opened once, and the decoded objects kept from them.
pub struct PackedBlobs<'r> {
    git: &'r Repository,
    packs: Vec<gix_pack::Bundle>,
    inflate: gix_zlib::Inflate,
    kept: Kept,
}

impl<'r> PackedBlobs<'r> {
    /// The packs of `git`'s object database (those that do not open are left to libgit2).
    pub fn open(git: &'r Repository) -> Self {
        Self::keeping(git, KEPT)
    }

    /// [`PackedBlobs::open`], keeping up to `budget` bytes of decoded objects.
    fn keeping(git: &'r Repository, budget: usize) -> Self {
        let folder = git.commondir().join("objects").join("pack");
        let mut packs = Vec::new();
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.extension().is_some_and(|e| e == "idx")
                    && index_is_whole(&path)
                    && let Ok(pack) = gix_pack::Bundle::at(&path, gix_hash::Kind::Sha1)
                {
                    packs.push(pack);
                }
            }
        }
        PackedBlobs {
            git,
            packs,
            inflate: gix_zlib::Inflate::default(),
            kept: Kept::new(budget),
        }
    }

    /// The blob `id`'s bytes, unless git says it is larger than `limit` bytes
    /// (`Err(size)`, asked before anything is inflated).
    pub fn blob_within(&mut self, id: Oid, limit: u64) -> Result<Result<Rc<Vec<u8>>, Error>, u64> {
        if let Ok((size, _)) = self.git.odb().and_then(|odb| odb.read_header(id))
            && size as u64 > limit
        {
            return Err(size as u64);
        }
        // A pack index damaged past its checksum could make the reader index out of
        // bounds: that pack is then left to libgit2, which says what is wrong.
        let decoded =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.decoded(id, limit)));
        match decoded {
            Ok(Some(bytes)) => return Ok(Ok(bytes)),
            Ok(None) => {}
            Err(_) => {
                self.packs.clear();
                self.kept = Kept::new(self.kept.budget);
            }
        }
        Ok(self
            .git
            .find_blob(id)
            .map(|blob| Rc::new(blob.content().to_vec()))
            .map_err(Error::from))
    }

    /// The blob `id` decoded from the pack holding it; `None` when none does, it is no
    /// blob, or its pack does not decode within `limit` bytes an object (libgit2 then
    /// reads it, or says why not).
    fn decoded(&mut self, id: Oid, limit: u64) -> Option<Rc<Vec<u8>>> {
        let id = gix_hash::ObjectId::try_from(id.as_bytes()).ok()?;
        let (number, pack, index) = self
            .packs
            .iter()
            .enumerate()
            .find_map(|(number, p)| Some((number, p, p.index.lookup(id)?)))?;
        let at = pack.index.pack_offset_at_index(index);
        let mut chain = chain(pack, at, &self.kept, number)?;
        // The bottom of the chain: kept already, or a whole object to inflate.
        let bottom = chain.pop()?;
        let mut current = match self.kept.get((number, bottom.data_offset)) {
            Some(kept) => kept,
            None => {
                let kind = bottom.header.as_kind()?;
                let data = inflated(pack, &bottom, &mut self.inflate, limit)?;
                self.kept.put((number, bottom.data_offset), kind, data)
            }
        };
        for entry in chain.into_iter().rev() {
            let delta = inflated(pack, &entry, &mut self.inflate, limit)?;
            let data = apply_delta(&current.1, &delta, limit)?;
            current = self.kept.put((number, entry.data_offset), current.0, data);
        }
        let blob = (current.0 == gix_object::Kind::Blob).then_some(current.1)?;
        // Hashed again to check its id, as libgit2 does, unless this process chose not to
        // (`repo::read_without_rehashing`); what does not match is libgit2's to report.
        (!crate::repo::rehashing() || names(&blob, &id)).then_some(blob)
    }
}

/// Whether `id` is the git id of a blob of these bytes, as libgit2 names blobs.
fn names(blob: &[u8], id: &gix_hash::oid) -> bool {
    Oid::hash_object(git2::ObjectType::Blob, blob)
        .is_ok_and(|named| named.as_bytes() == id.as_bytes())
}

/// Whether the pack index at `path` ends with the SHA-1 of what comes before, as git
/// writes it (a damaged index is left to libgit2).
fn index_is_whole(path: &std::path::Path) -> bool {
    use sha1::{Digest, Sha1};
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let Some(body) = bytes.len().checked_sub(20) else {
        return false;
    };
    Sha1::digest(&bytes[..body]).as_slice() == &bytes[body..]
}

/// The entries from the one at `at` down its delta chain to a whole object, or to the
/// first entry already kept (last in the list).
fn chain(
    pack: &gix_pack::Bundle,
    at: u64,
    kept: &Kept,
    number: usize,
) -> Option<Vec<gix_pack::data::Entry>> {
    let mut chain = Vec::new();
    let mut entry = pack.pack.entry(at).ok()?;
    loop {
        if chain.len() == CHAIN {
            return None;
        }
        if kept.holds((number, entry.data_offset)) {
            chain.push(entry);
            return Some(chain);
        }
        let base = match entry.header {
            Header::OfsDelta { base_distance } => entry.checked_base_pack_offset(base_distance)?,
            // A base outside this pack: left to libgit2.
            Header::RefDelta { base_id } => {
                pack.index.pack_offset_at_index(pack.index.lookup(base_id)?)
            }
            Header::Blob | Header::Tree | Header::Commit | Header::Tag => {
                chain.push(entry);
                return Some(chain);
            }
        };
        chain.push(entry);
        entry = pack.pack.entry(base).ok()?;
    }
}

/// An entry's data inflated (a whole object, or a delta's instructions), refused over
/// `limit` bytes.
fn inflated(
    pack: &gix_pack::Bundle,
    entry: &gix_pack::data::Entry,
    inflate: &mut gix_zlib::Inflate,
    limit: u64,
) -> Option<Vec<u8>> {
    if entry.decompressed_size > limit {
        return None;
    }
    let mut out = vec![0; usize::try_from(entry.decompressed_size).ok()?];
    pack.pack.decompress_entry(entry, inflate, &mut out).ok()?;
    Some(out)
}

/// The object a git delta makes of `base`; `None` when the delta is malformed (sizes
/// that do not match, copies outside the base), or makes more than `limit` bytes.
fn apply_delta(base: &[u8], delta: &[u8], limit: u64) -> Option<Vec<u8>> {
    let mut at = 0;
    let base_size = varint(delta, &mut at)?;
    let size = varint(delta, &mut at)?;
    if base_size != base.len() as u64 || size > limit {
        return None;
    }
    let mut out = Vec::with_capacity(usize::try_from(size).ok()?);
    while let Some(&command) = delta.get(at) {
        at += 1;
        if command & 0x80 != 0 {
            // Copy from the base: which offset and size bytes follow is in the bits.
            let mut number = |bits: std::ops::Range<u32>| -> Option<usize> {
                let mut value = 0usize;
                for (shift, bit) in bits.enumerate() {
                    if command & (1 << bit) != 0 {
                        value |= usize::from(*delta.get(at)?) << (8 * shift);
                        at += 1;
                    }
                }
                Some(value)
            };
            let offset = number(0..4)?;
            let length = match number(4..7)? {
                0 => 0x10000,
                length => length,
            };
            out.extend_from_slice(base.get(offset..offset.checked_add(length)?)?);
        } else if command != 0 {
            // Insert the next `command` bytes of the delta.
            let length = usize::from(command);
            out.extend_from_slice(delta.get(at..at + length)?);
            at += length;
        } else {
            return None;
        }
        if out.len() as u64 > size {
            return None;
        }
    }
    (out.len() as u64 == size).then_some(out)
}

/// A delta's size: little-endian groups of seven bits, the high bit set on all but the
/// last.
fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Decoded objects by (pack, offset of their data), the least recently used dropped
/// first once they hold more than their budget of bytes.
struct Kept {
    objects: HashMap<(usize, u64), KeptObject>,
    /// Last use → key: the oldest first.
    uses: BTreeMap<u64, (usize, u64)>,
    clock: u64,
    bytes: usize,
    budget: usize,
}

struct KeptObject {
    kind: gix_object::Kind,
    data: Rc<Vec<u8>>,
    used: u64,
}

impl Kept {
    fn new(budget: usize) -> Self {
        Kept {
            objects: HashMap::new(),
            uses: BTreeMap::new(),
            clock: 0,
            bytes: 0,
            budget,
        }
    }

    fn holds(&self, key: (usize, u64)) -> bool {
        self.objects.contains_key(&key)
    }

    /// The object kept at `key`, now the most recently used.
    fn get(&mut self, key: (usize, u64)) -> Option<(gix_object::Kind, Rc<Vec<u8>>)> {
        self.clock += 1;
        let object = self.objects.get_mut(&key)?;
        self.uses.remove(&object.used);
        self.uses.insert(self.clock, key);
        object.used = self.clock;
        Some((object.kind, object.data.clone()))
    }

    /// Keep `data` at `key` (unless it is over the whole budget), dropping the least
    /// recently used to make room; the object, shared.
    fn put(
        &mut self,
        key: (usize, u64),
        kind: gix_object::Kind,
        data: Vec<u8>,
    ) -> (gix_object::Kind, Rc<Vec<u8>>) {
        let data = Rc::new(data);
        if data.len() > self.budget {
            return (kind, data);
        }
        self.remove(key);
        while self.bytes + data.len() > self.budget {
            let Some((_, oldest)) = self.uses.pop_first() else {
                break;
            };
            self.remove(oldest);
        }
        self.clock += 1;
        self.uses.insert(self.clock, key);
        self.bytes += data.len();
        let used = self.clock;
        let object = KeptObject {
            kind,
            data: data.clone(),
            used,
        };
        self.objects.insert(key, object);
        (kind, data)
    }

    fn remove(&mut self, key: (usize, u64)) {
        if let Some(old) = self.objects.remove(&key) {
            self.uses.remove(&old.used);
            self.bytes -= old.data.len();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_goes_first_once_the_budget_is_spent() {
        let blob = gix_object::Kind::Blob;
        let mut kept = Kept::new(10);
        kept.put((0, 1), blob, b"aaaa".to_vec());
        kept.put((0, 2), blob, b"bbbb".to_vec());
        assert_eq!(&*kept.get((0, 1)).unwrap().1, b"aaaa");
        kept.put((0, 3), blob, b"cccc".to_vec());
        assert!(kept.holds((0, 1)) && kept.holds((0, 3)));
        assert!(
            !kept.holds((0, 2)),
            "the one not used since it was put goes"
        );
        assert_eq!(kept.bytes, 8);
        let (_, big) = kept.put((0, 4), blob, b"more than ten bytes".to_vec());
        assert_eq!(&*big, b"more than ten bytes", "given back all the same");
        assert!(
            !kept.holds((0, 4)),
            "what is over the whole budget is not kept"
        );
        kept.put((0, 3), blob, b"cc".to_vec());
        assert_eq!(kept.bytes, 6, "put again replaces");
    }

    /// A history of one file, 60 versions of ~300 KB each changing a line, committed by
    /// libgit2 and packed by git with deltas (by offset, or by id); and one more version
    /// left loose.
    fn packed_history(offsets: bool) -> (tempfile::TempDir, Repository, Vec<Oid>) {
        let (dir, git) = crate::scratch_repository();
        let signature = git2::Signature::now("test", "test@masterctl.invalid").unwrap();
        let mut lines: Vec<String> = (0..20_000)
            .map(|i| format!("{i},{},common", i * 10))
            .collect();
        let mut ids = Vec::new();
        let mut parent: Option<Oid> = None;
        for version in 0..61 {
            let count = lines.len();
            lines[(version * 7919) % count].push('x');
            let id = git.blob(lines.join("\n").as_bytes()).unwrap();
            ids.push(id);
            let mut tree = git.treebuilder(None).unwrap();
            tree.insert("item.csv", id, 0o100644).unwrap();
            let tree = git.find_tree(tree.write().unwrap()).unwrap();
            let parents: Vec<git2::Commit> = parent
                .iter()
                .map(|p| git.find_commit(*p).unwrap())
                .collect();
            let parents: Vec<&git2::Commit> = parents.iter().collect();
            let commit = git
                .commit(Some("HEAD"), &signature, &signature, "v", &tree, &parents)
                .unwrap();
            parent = Some(commit);
            if version == 59 {
                let status = std::process::Command::new("git")
                    .args(["-c", &format!("repack.useDeltaBaseOffset={offsets}")])
                    .args(["repack", "-adq", "--depth=50", "--window=250"])
                    .current_dir(dir.path())
                    .status()
                    .unwrap();
                assert!(status.success());
            }
        }
        (dir, git, ids)
    }

    #[test]
    fn every_version_reads_as_libgit2_reads_it_in_any_order_and_budget() {
        for offsets in [true, false] {
            let (_dir, git, ids) = packed_history(offsets);
            let expected: Vec<Vec<u8>> = ids
                .iter()
                .map(|id| git.find_blob(*id).unwrap().content().to_vec())
                .collect();
            let (packed, loose) = ids.split_at(ids.len() - 1);
            // The packs hold deltas of the kind asked for: this test reads through them.
            let reader = PackedBlobs::open(&git);
            let deltas = packed
                .iter()
                .filter_map(|id| {
                    let id = gix_hash::ObjectId::try_from(id.as_bytes()).unwrap();
                    let pack = &reader.packs[0];
                    let entry = pack
                        .pack
                        .entry(pack.index.pack_offset_at_index(pack.index.lookup(id)?))
                        .unwrap();
                    Some(entry.header)
                })
                .filter(|header| match header {
                    Header::OfsDelta { .. } => offsets,
                    Header::RefDelta { .. } => !offsets,
                    _ => false,
                })
                .count();
            assert!(deltas > 40, "{deltas} deltas of the kind asked for");
            for budget in [KEPT, 700_000, 1] {
                let orders: [Vec<usize>; 2] =
                    [(0..ids.len()).rev().collect(), (0..ids.len()).collect()];
                for order in orders {
                    let mut reader = PackedBlobs::keeping(&git, budget);
                    for &n in &order {
                        if n < packed.len() {
                            let decoded = reader.decoded(ids[n], u64::MAX).unwrap();
                            assert_eq!(*decoded, expected[n], "version {n}, budget {budget}");
                        }
                        let read = reader.blob_within(ids[n], u64::MAX).unwrap().unwrap();
                        assert_eq!(*read, expected[n], "version {n}, budget {budget}");
                    }
                    assert!(reader.kept.bytes <= budget);
                }
            }
            // The loose version is libgit2's to read; a limit is asked of git first.
            let mut reader = PackedBlobs::open(&git);
            assert!(reader.decoded(loose[0], u64::MAX).is_none());
            assert_eq!(
                reader.blob_within(ids[3], 1000).err(),
                Some(expected[3].len() as u64)
            );
            assert!(
                reader.decoded(ids[3], 1000).is_none(),
                "nothing over the limit is inflated"
            );
        }
    }

    #[test]
    fn a_damaged_pack_index_is_left_to_libgit2() {
        let (dir, git, _) = packed_history(true);
        let pack_dir = dir.path().join(".git/objects/pack");
        let index = std::fs::read_dir(&pack_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.extension().is_some_and(|e| e == "idx"))
            .unwrap();
        assert!(index_is_whole(&index));
        let mut bytes = std::fs::read(&index).unwrap();
        // One bit flipped in the middle: the checksum no longer holds.
        let at = bytes.len() / 2;
        bytes[at] ^= 0x80;
        std::fs::set_permissions(&index, std::os::unix::fs::PermissionsExt::from_mode(0o644))
            .unwrap();
        std::fs::write(&index, &bytes).unwrap();
        assert!(!index_is_whole(&index));
        let reader = PackedBlobs::open(&git);
        assert!(reader.packs.is_empty(), "the damaged index is not used");
    }

    #[test]
    fn a_blob_is_checked_against_its_id() {
        let id = Oid::hash_object(git2::ObjectType::Blob, b"id,price\n1,10\n").unwrap();
        let id = gix_hash::ObjectId::try_from(id.as_bytes()).unwrap();
        assert!(names(b"id,price\n1,10\n", &id));
        assert!(!names(b"id,price\n1,11\n", &id));
    }

    #[test]
    fn a_delta_copies_and_inserts_and_refuses_what_does_not_fit() {
        let base = b"0123456789";
        // Base size 10, result 7: copy 4 bytes from offset 2, insert "xyz".
        let delta = [10, 7, 0x80 | 0x01 | 0x10, 2, 4, 3, b'x', b'y', b'z'];
        assert_eq!(apply_delta(base, &delta, 100).unwrap(), b"2345xyz");
        // A copy of size 0 means 65,536 bytes: past this base.
        assert_eq!(apply_delta(base, &[10, 7, 0x80 | 0x01, 2], 100), None);
        // The base is not the size the delta was made for.
        assert_eq!(apply_delta(b"short", &delta, 100), None);
        // More than the delta said it makes, or than the limit.
        assert_eq!(apply_delta(base, &[10, 2, 3, b'x', b'y', b'z'], 100), None);
        assert_eq!(apply_delta(base, &delta, 6), None);
        // Less than it said; the reserved command 0; an insert past the delta's end.
        assert_eq!(apply_delta(base, &[10, 7, 2, b'x', b'y'], 100), None);
        assert_eq!(apply_delta(base, &[10, 1, 0], 100), None);
        assert_eq!(apply_delta(base, &[10, 3, 3, b'x'], 100), None);
        // A size that never ends.
        assert_eq!(apply_delta(base, &[0xff; 12], 100), None);
    }
}
