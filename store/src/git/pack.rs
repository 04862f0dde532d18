//! Writing new objects as one pack.
//!
//! An import creates thousands of objects; written as loose files each costs a
//! compression, a temporary file, a link and an unlink. masterctl instead lets libgit2
//! write them into an in-memory object store, then writes one pack — objects compressed
//! on every core, no delta search — through libgit2's indexer, and drops the memory.

use std::io::Write;

use flate2::Compression;
use flate2::write::ZlibEncoder;
use git2::{ObjectType, Odb, Oid};
use masterctl_schemas::read::parallel_map;
use sha1::{Digest, Sha1};

use crate::StoreError;

/// Write the objects `ids` (read from `odb`, where they may live in memory) as one pack.
pub fn write_pack(odb: &Odb<'_>, ids: &[Oid]) -> Result<(), StoreError> {
    copy_objects(odb, odb, ids)
}

/// Write the objects `ids`, read from `from`, into `to` as one pack (`from` and `to`
/// may be one object database: [`write_pack`]).
pub fn copy_objects(from: &Odb<'_>, to: &Odb<'_>, ids: &[Oid]) -> Result<(), StoreError> {
    if ids.is_empty() {
        return Ok(());
    }
    let odb = from;
    let objects = ids
        .iter()
        .map(|id| {
            let object = odb.read(*id)?;
            Ok((object.kind(), object.data().to_vec()))
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    let entries = parallel_map(&objects, |(kind, data)| entry(*kind, data));
    let mut pack = Vec::with_capacity(entries.iter().map(Vec::len).sum::<usize>() + 32);
    pack.extend_from_slice(b"PACK");
    pack.extend_from_slice(&2u32.to_be_bytes());
    pack.extend_from_slice(&(u32::try_from(entries.len()).unwrap_or(u32::MAX)).to_be_bytes());
    for entry in &entries {
        pack.extend_from_slice(entry);
    }
    let checksum = Sha1::digest(&pack);
    pack.extend_from_slice(&checksum);
    let mut writer = to.packwriter()?;
    // The object database has no path of its own to name.
    writer
        .write_all(&pack)
        .map_err(StoreError::io("objects/pack"))?;
    writer.commit()?;
    Ok(())
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
    let mut encoder = ZlibEncoder::new(out, Compression::fast());
    // Writing into a Vec cannot fail.
    let _ = encoder.write_all(data);
    encoder.finish().unwrap_or_default()
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
pub fn consolidate_if_needed(git: &git2::Repository) -> Result<usize, StoreError> {
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
        return Err(StoreError::Io {
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
) -> Result<Vec<Oid>, StoreError> {
    let mut out = Vec::new();
    let mut walk = from.revwalk()?;
    let mut any = false;
    for tip in tips {
        let object = from.find_object(*tip, None)?;
        if object.kind() == Some(ObjectType::Tag) && !to.exists(*tip) {
            out.push(*tip);
        }
        let commit = object.peel_to_commit()?.id();
        if !to.exists(commit) {
            walk.push(commit)?;
            any = true;
        }
    }
    if !any {
        return Ok(out);
    }
    for id in known {
        if from.odb()?.exists(*id)
            && let Ok(commit) = from.find_object(*id, None).and_then(|o| o.peel_to_commit())
        {
            walk.hide(commit.id())?;
        }
    }
    let mut seen = std::collections::HashSet::new();
    for commit in walk {
        let commit = from.find_commit(commit?)?;
        if to.exists(commit.id()) {
            continue;
        }
        out.push(commit.id());
        let mut trees = vec![commit.tree_id()];
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
    }
    Ok(out)
}

/// Every object `tips` reach in `from` that `to` lacks, written into `to` as one pack
/// (what `to`'s references name is taken as known there): a push to, or a fetch from,
/// a repository on this machine.
pub fn copy_reachable(
    from: &git2::Repository,
    to: &git2::Repository,
    tips: &[Oid],
) -> Result<(), StoreError> {
    let known: Vec<Oid> = to
        .references()?
        .flatten()
        .filter_map(|r| r.target())
        .collect();
    let target = to.odb()?;
    let ids = missing_objects(from, &target, tips, &known)?;
    copy_objects(&from.odb()?, &target, &ids)
}
