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
    let mut writer = odb.packwriter()?;
    writer.write_all(&pack).map_err(|e| StoreError::Io {
        path: "objects/pack".to_string(),
        message: e.to_string(),
    })?;
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
