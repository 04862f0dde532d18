//! Writing new objects as one pack.
//!
//! An import creates thousands of objects; written as loose files each costs a
//! compression, a temporary file, a link and an unlink. masterctl instead writes one
//! pack — objects compressed on every core, no delta search — and its index itself:
//! the ids are known (each object hashed once, by libgit2, as it was named), so nothing
//! is inflated or hashed again, as libgit2's indexer would (a fifth of an import's time).
//! The pack is renamed into place before its index: a reader finds both or neither.

use std::io::Write;

use flate2::write::ZlibEncoder;
use flate2::{Compress, Compression, FlushCompress, Status};
use git2::{ObjectType, Odb, Oid, Repository};
use masterctl_runtime::parallel::workers;
use masterctl_schemas::read::parallel_map;
use sha1::{Digest, Sha1};

use crate::Error;

/// An object to write: its id (the caller's word: libgit2 named these bytes so), its
/// kind and its bytes.
pub struct Object<'a> {
    pub id: Oid,
    pub kind: ObjectType,
    pub data: &'a [u8],
}

/// Write the objects `ids`, read from `from`, into `to` as one pack.
pub fn copy_objects(from: &Odb<'_>, to: &Repository, ids: &[Oid]) -> Result<(), Error> {
    let read = ids
        .iter()
        .map(|id| from.read(*id).map_err(Error::from))
        .collect::<Result<Vec<_>, _>>()?;
    let objects: Vec<Object<'_>> = read
        .iter()
        .map(|object| Object {
            id: object.id(),
            kind: object.kind(),
            data: object.data(),
        })
        .collect();
    write_objects(to, &objects)
}

/// Write `objects` into `git`'s object database as one pack and its index (an id
/// given twice is written once).
pub fn write_objects(git: &Repository, objects: &[Object<'_>]) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    let objects: Vec<&Object<'_>> = objects.iter().filter(|o| seen.insert(o.id)).collect();
    if objects.is_empty() {
        return Ok(());
    }
    let entries = parallel_map(&objects, |object| {
        let entry = entry(object.kind, object.data);
        let crc = crc32fast::hash(&entry);
        (entry, crc)
    });
    let (pack, offsets, checksum) = pack_of(&entries);
    let ids: Vec<Oid> = objects.iter().map(|o| o.id).collect();
    let crcs: Vec<u32> = entries.iter().map(|(_, crc)| *crc).collect();
    let index = index_of(&ids, &offsets, &crcs, &checksum);
    let dir = git.commondir().join("objects").join("pack");
    std::fs::create_dir_all(&dir).map_err(Error::io(&dir))?;
    masterctl_runtime::files::remove_all_leftovers(&dir);
    // Named by its checksum, as git names packs (in hex, as an id is written).
    let name = format!("pack-{}", Oid::from_bytes(&checksum)?);
    // The pack first: an index names only a pack that is whole.
    for (extension, bytes) in [("pack", &pack), ("idx", &index)] {
        let path = dir.join(format!("{name}.{extension}"));
        // Read-only, as git leaves them.
        masterctl_runtime::files::write_read_only_unsynced(&path, bytes)
            .map_err(Error::io(&path))?;
    }
    Ok(())
}

/// The pack of these entries (header, entries, SHA-1 trailer), each entry's offset, and
/// the trailer.
fn pack_of(entries: &[(Vec<u8>, u32)]) -> (Vec<u8>, Vec<u64>, [u8; 20]) {
    let size = entries.iter().map(|(e, _)| e.len()).sum::<usize>() + 32;
    let mut pack = Vec::with_capacity(size);
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&(u32::try_from(entries.len()).unwrap_or(u32::MAX)).to_be_bytes());
    let mut offsets = Vec::with_capacity(entries.len());
    for (entry, _) in entries {
        offsets.push(pack.len() as u64);
        pack.extend_from_slice(entry);
    }
    let checksum: [u8; 20] = Sha1::digest(&pack).into();
    pack.extend_from_slice(&checksum);
    (pack, offsets, checksum)
}

/// A pack index, version 2: the ids sorted with a fan-out table by first byte, each
/// one's CRC-32 and offset (past 2 GiB, through the table of large offsets), the pack's
/// checksum and the index's own.
fn index_of(ids: &[Oid], offsets: &[u64], crcs: &[u32], pack_checksum: &[u8; 20]) -> Vec<u8> {
    let mut order: Vec<usize> = (0..ids.len()).collect();
    order.sort_by_key(|&i| ids[i]);
    let mut index = Vec::with_capacity(8 + 1024 + ids.len() * 28 + 40);
    index.extend_from_slice(&[0xff, b't', b'O', b'c']);
    index.extend_from_slice(&2u32.to_be_bytes());
    let mut fanout = [0u32; 256];
    for id in ids {
        fanout[usize::from(id.as_bytes()[0])] += 1;
    }
    let mut total = 0u32;
    for count in fanout {
        total += count;
        index.extend_from_slice(&total.to_be_bytes());
    }
    for &i in &order {
        index.extend_from_slice(ids[i].as_bytes());
    }
    for &i in &order {
        index.extend_from_slice(&crcs[i].to_be_bytes());
    }
    let mut large = Vec::new();
    for &i in &order {
        let small = match u32::try_from(offsets[i]) {
            Ok(offset) if offset < 0x8000_0000 => offset,
            _ => {
                large.push(offsets[i]);
                0x8000_0000 | u32::try_from(large.len() - 1).unwrap_or(u32::MAX >> 1)
            }
        };
        index.extend_from_slice(&small.to_be_bytes());
    }
    for offset in large {
        index.extend_from_slice(&offset.to_be_bytes());
    }
    index.extend_from_slice(pack_checksum);
    let own = Sha1::digest(&index);
    index.extend_from_slice(&own);
    index
}

/// One pack entry: the type-and-size header, then the zlib-compressed object.
fn entry(kind: ObjectType, data: &[u8]) -> Vec<u8> {
    let code: u8 = match kind {
        ObjectType::Commit => 1,
        ObjectType::Tree => 2,
        ObjectType::Tag => 4,
        _ => 3,
    };
    let mut out = Vec::with_capacity(data.len() / 2 + 16);
    let mut size = data.len();
    let mut byte = (code << 4) | (size & 0x0f) as u8;
    size >>= 4;
    while size > 0 {
        out.push(byte | 0x80);
        byte = (size & 0x7f) as u8;
        size >>= 7;
    }
    out.push(byte);
    if data.len() >= PIECES_FROM && workers() > 1 && compressed_in_pieces(data, &mut out) {
        return out;
    }
    let mut encoder = ZlibEncoder::new(out, Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
}

/// Objects of this many bytes or more are compressed in pieces on every core.
const PIECES_FROM: usize = 4 << 20;

/// The least a piece holds: a piece's first bytes find no earlier ones to repeat, so
/// pieces are long enough for that not to tell.
const LEAST_PIECE: usize = 1 << 20;

/// `data` compressed as one zlib stream after `out`'s bytes, its pieces compressed on
/// every core (a table of 50,000 rows is 12 MB, which one core takes 80 ms over): each
/// piece a run of deflate blocks ending on a byte (a sync flush), the last one final,
/// under one zlib header and the whole object's Adler-32 (its pieces' combined) — a
/// stream any inflater reads as if it had been compressed in one go.
/// Appended to `out`, unless a piece did not compress (`false`: `out` as it was).
fn compressed_in_pieces(data: &[u8], out: &mut Vec<u8>) -> bool {
    let size = data.len().div_ceil(2 * workers()).max(LEAST_PIECE);
    let pieces: Vec<(&[u8], bool)> = (data.chunks(size))
        .enumerate()
        .map(|(at, piece)| (piece, (at + 1) * size >= data.len()))
        .collect();
    let deflated = parallel_map(&pieces, |&(piece, last)| {
        Some((deflated(piece, last)?, zlib_rs::adler32::adler32(1, piece)))
    });
    let Some(deflated) = deflated.into_iter().collect::<Option<Vec<_>>>() else {
        return false;
    };
    // A zlib header: deflate over a 32 KiB window, the fastest level (its check bits
    // making the pair a multiple of 31).
    out.extend_from_slice(&[0x78, 0x01]);
    let mut adler = 1;
    for ((bytes, sum), (piece, _)) in deflated.iter().zip(&pieces) {
        out.extend_from_slice(bytes);
        adler = zlib_rs::adler32::adler32_combine(adler, *sum, piece.len() as u64);
    }
    out.extend_from_slice(&adler.to_be_bytes());
    true
}

/// A piece of an object as raw deflate blocks, the fastest level: ending on a byte
/// (a sync flush), or with the final block when it is the object's `last`; `None` if
/// the compressor fails.
fn deflated(piece: &[u8], last: bool) -> Option<Vec<u8>> {
    let mut compress = Compress::new(Compression::fast(), false);
    let flush = match last {
        true => FlushCompress::Finish,
        false => FlushCompress::Sync,
    };
    let mut out = Vec::with_capacity(piece.len() / 2 + 64);
    loop {
        let taken = usize::try_from(compress.total_in()).unwrap_or(piece.len());
        let status = compress
            .compress_vec(&piece[taken..], &mut out, flush)
            .ok()?;
        let done = match status {
            Status::StreamEnd => true,
            // All taken and flushed with room to spare: nothing is left to write.
            _ => !last && compress.total_in() == piece.len() as u64 && out.len() < out.capacity(),
        };
        if done {
            return Some(out);
        }
        out.reserve(out.capacity().max(64));
    }
}

/// How many packs may pile up before [`consolidate_if_needed`] folds them into one:
/// git's own `gc.autoPackLimit` (50 unless configured; 0 turns it off).
fn auto_pack_limit(git: &git2::Repository) -> usize {
    git.config()
        .and_then(|c| c.get_i64("gc.autoPackLimit"))
        .map_or(50, |n| usize::try_from(n).unwrap_or(0))
}

/// The packs of the repository (their `.pack` paths), without those marked `.keep`.
fn packs(git: &git2::Repository) -> Vec<std::path::PathBuf> {
    let dir = git.path().join("objects").join("pack");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut packs: Vec<std::path::PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pack"))
        .filter(|p| !p.with_extension("keep").exists())
        .collect();
    packs.sort();
    packs
}

/// Every import adds a pack; past the limit, lookups slow down with each one. Fold them
/// into one, as git's auto gc does, safely while other processes read and write: the
/// new pack holds every object of the packs it replaces (reachable or not, since
/// another import may have written its pack and not yet moved its branch), it is
/// complete on disk before any old pack goes, and only packs that existed when it
/// started are removed. Returns how many packs were folded (0: none were due).
pub fn consolidate_if_needed(git: &git2::Repository) -> Result<usize, Error> {
    let limit = auto_pack_limit(git);
    let old = packs(git);
    if limit == 0 || old.len() <= limit {
        return Ok(0);
    }
    let odb = git.odb()?;
    let mut ids = Vec::new();
    odb.foreach(|id| {
        ids.push(*id);
        true
    })?;
    let mut builder = git.packbuilder()?;
    for id in &ids {
        builder.insert_object(*id, None)?;
    }
    let dir = git.path().join("objects").join("pack");
    builder.write(&dir, 0o444)?;
    let Some(written) = builder.name().ok().flatten().map(str::to_string) else {
        return Err(Error::Io {
            path: dir,
            source: std::io::Error::other("the consolidated pack has no name"),
        });
    };
    for pack in &old {
        let name = pack
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default();
        if name.ends_with(&written) {
            continue;
        }
        // The index last: a reader that still sees it can still open the pack.
        for extension in ["pack", "rev", "bitmap", "idx"] {
            let _ = std::fs::remove_file(pack.with_extension(extension));
        }
    }
    Ok(old.len())
}

/// The objects reachable from `tips` in `from` that `to` lacks: the commits (walked,
/// those `known` to both hidden), and of each its trees and blobs, a tree `to` holds
/// already passed over whole. `tips` may name annotated tags (sent too).
pub fn missing_objects(
    from: &git2::Repository,
    to: &Odb<'_>,
    tips: &[Oid],
    known: &[Oid],
) -> Result<Vec<Oid>, Error> {
    let mut out = Vec::new();
    let mut walk = from.revwalk()?;
    let mut any = false;
    let mut seen = std::collections::HashSet::new();
    let mut trees = Vec::new();
    for tip in tips {
        // A tag (of a tag…) names what it tags: each tag object goes too.
        let mut object = from.find_object(*tip, None)?;
        while object.kind() == Some(ObjectType::Tag) {
            if !to.exists(object.id()) {
                out.push(object.id());
            }
            object = object
                .as_tag()
                .map(|tag| tag.target())
                .transpose()?
                .ok_or_else(|| git2::Error::from_str("a tag without a target"))?;
        }
        match object.kind() {
            Some(ObjectType::Commit) if !to.exists(object.id()) => {
                walk.push(object.id())?;
                any = true;
            }
            // A reference (a tag made with git) may name a tree or a blob: copied as it
            // is, so the reference arrives whole; what reads it decides what it is.
            Some(ObjectType::Tree) => trees.push(object.id()),
            Some(ObjectType::Blob) if seen.insert(object.id()) && !to.exists(object.id()) => {
                out.push(object.id())
            }
            _ => {}
        }
    }
    if any {
        for id in known {
            if from.odb()?.exists(*id)
                && let Ok(commit) = from.find_object(*id, None).and_then(|o| o.peel_to_commit())
            {
                walk.hide(commit.id())?;
            }
        }
        for commit in walk {
            let commit = from.find_commit(commit?)?;
            if to.exists(commit.id()) {
                continue;
            }
            out.push(commit.id());
            trees.push(commit.tree_id());
            missing_in_trees(from, to, &mut trees, &mut seen, &mut out)?;
        }
    }
    missing_in_trees(from, to, &mut trees, &mut seen, &mut out)?;
    Ok(out)
}

/// The trees of `trees` and what they hold that `to` lacks, added to `out`.
fn missing_in_trees(
    from: &git2::Repository,
    to: &Odb<'_>,
    trees: &mut Vec<Oid>,
    seen: &mut std::collections::HashSet<Oid>,
    out: &mut Vec<Oid>,
) -> Result<(), Error> {
    while let Some(tree) = trees.pop() {
        if !seen.insert(tree) || to.exists(tree) {
            continue;
        }
        out.push(tree);
        for entry in from.find_tree(tree)?.iter() {
            match entry.kind() {
                Some(ObjectType::Tree) => trees.push(entry.id()),
                Some(ObjectType::Blob) if seen.insert(entry.id()) && !to.exists(entry.id()) => {
                    out.push(entry.id())
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// Every object `tips` reach in `from` that `to` lacks, written into `to` as one pack
/// (what `to`'s references name is taken as known there): a push to, or a fetch from,
/// a repository on this machine.
pub fn copy_reachable(
    from: &git2::Repository,
    to: &git2::Repository,
    tips: &[Oid],
) -> Result<(), Error> {
    let known: Vec<Oid> = to
        .references()?
        .flatten()
        .filter_map(|r| r.target())
        .collect();
    let target = to.odb()?;
    let ids = missing_objects(from, &target, tips, &known)?;
    copy_objects(&from.odb()?, to, &ids)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A large object is compressed in pieces on every core, and reads back whole:
    /// through flate2, through libgit2, and through git's own checks.
    #[test]
    fn a_large_object_compressed_in_pieces_is_one_stream() {
        let data: Vec<u8> = (0..PIECES_FROM / 8 + 12_345)
            .flat_map(|i| format!("{i},{}\n", i % 97).into_bytes())
            .collect();
        assert!(data.len() > 3 * LEAST_PIECE);
        let mut entry = Vec::new();
        assert!(compressed_in_pieces(&data, &mut entry));
        let mut inflated = Vec::new();
        std::io::Read::read_to_end(
            &mut flate2::read::ZlibDecoder::new(&entry[..]),
            &mut inflated,
        )
        .unwrap();
        assert!(inflated == data, "the pieces inflate to the object");
        let (dir, git) = crate::scratch_repository();
        let id = Oid::hash_object(ObjectType::Blob, &data).unwrap();
        write_objects(
            &git,
            &[Object {
                id,
                kind: ObjectType::Blob,
                data: &data,
            }],
        )
        .unwrap();
        let fresh = Repository::open(dir.path()).unwrap();
        assert!(fresh.find_blob(id).unwrap().content() == data.as_slice());
        let fsck = std::process::Command::new("git")
            .args(["fsck", "--strict"])
            .current_dir(dir.path())
            .output();
        if let Ok(fsck) = fsck {
            assert!(
                fsck.status.success(),
                "{}",
                String::from_utf8_lossy(&fsck.stderr)
            );
        }
    }

    #[test]
    fn a_pack_written_here_is_one_git_reads_and_checks() {
        let (dir, git) = crate::scratch_repository();
        let blobs: Vec<Vec<u8>> = (0..300)
            .map(|i| {
                format!("id,price\n{i},{}\n", i * 10)
                    .repeat(i % 7 + 1)
                    .into_bytes()
            })
            .collect();
        let mut objects: Vec<Object<'_>> = blobs
            .iter()
            .map(|data| Object {
                id: Oid::hash_object(ObjectType::Blob, data).unwrap(),
                kind: ObjectType::Blob,
                data,
            })
            .collect();
        // An object given twice is written once.
        objects.push(Object { ..objects[0] });
        write_objects(&git, &objects).unwrap();
        let fresh = Repository::open(dir.path()).unwrap();
        for (object, data) in objects.iter().zip(&blobs) {
            assert_eq!(
                fresh.find_blob(object.id).unwrap().content(),
                data.as_slice()
            );
        }
        let pack_dir = dir.path().join(".git/objects/pack");
        let names: Vec<String> = std::fs::read_dir(&pack_dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names.len(),
            2,
            "the pack and its index, nothing left over: {names:?}"
        );
        let index = names.iter().find(|n| n.ends_with(".idx")).unwrap();
        // Both read-only, as git leaves them.
        for name in &names {
            let metadata = std::fs::metadata(pack_dir.join(name)).unwrap();
            assert!(metadata.permissions().readonly(), "{name}");
        }
        // git agrees: every object's CRC and offset, and both checksums.
        let verify = std::process::Command::new("git")
            .arg("verify-pack")
            .arg("-v")
            .arg(pack_dir.join(index))
            .output()
            .unwrap();
        let listed = String::from_utf8_lossy(&verify.stdout);
        let said = String::from_utf8_lossy(&verify.stderr);
        assert!(
            verify.status.success() && listed.contains("non delta: 300 objects"),
            "{listed}{said}"
        );
    }

    #[test]
    fn offsets_past_two_gibibytes_go_to_the_large_offset_table() {
        let ids: Vec<Oid> = (0u8..4)
            .map(|i| Oid::from_bytes(&[i.wrapping_mul(97); 20]).unwrap())
            .collect();
        let offsets = [12, 0x7fff_ffff, 0x8000_0000, 5 << 32];
        let index = index_of(&ids, &offsets, &[1, 2, 3, 4], &[7; 20]);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("pack-test.idx");
        std::fs::write(&path, &index).unwrap();
        let read = gix_pack::index::File::at(&path, gix_hash::Kind::Sha1).unwrap();
        assert_eq!(read.num_objects(), 4);
        for (id, offset) in ids.iter().zip(offsets) {
            let id = gix_hash::ObjectId::try_from(id.as_bytes()).unwrap();
            let at = read.lookup(id).unwrap();
            assert_eq!(read.pack_offset_at_index(at), offset);
        }
        assert_eq!(read.index_checksum().as_slice(), &index[index.len() - 20..]);
    }
}
