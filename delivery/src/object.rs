//! Content as stored: zstd when that saves bytes, plain otherwise. The object's name is
//! the BLAKE3 of the plain bytes, so a reader tells the two apart by checking the hash,
//! and never trusts a byte it has not verified.

use std::cell::RefCell;

/// zstd's level: fast to write, and archives of repeated column values shrink well.
const LEVEL: i32 = 3;

/// The bytes to store for `plain`: compressed when that is smaller.
pub fn encode(plain: &[u8]) -> Vec<u8> {
    match zstd::bulk::compress(plain, LEVEL) {
        Ok(compressed) if compressed.len() < plain.len() => compressed,
        _ => plain.to_vec(),
    }
}

/// The plain bytes of a stored object whose plain form is `size` bytes with BLAKE3
/// `hash`, or why not. Decompression stops past `size` bytes, so a hostile object cannot
/// inflate without bound.
pub fn decode(stored: &[u8], hash: &str, size: u64) -> Result<Vec<u8>, String> {
    if stored.len() as u64 == size && blake3::hash(stored).to_hex().as_str() == hash {
        return Ok(stored.to_vec());
    }
    let plain = decompress(stored, size)?;
    if plain.len() as u64 != size {
        return Err(format!(
            "it decompresses to {}{} bytes; expected {size}",
            plain.len(),
            if plain.len() as u64 > size { "+" } else { "" }
        ));
    }
    verified(plain, hash)
}

/// [`decode`] for an object whose size is not known, only that it is at most `limit`
/// bytes (a manifest named by the pointer alone).
pub fn decode_within(stored: &[u8], hash: &str, limit: u64) -> Result<Vec<u8>, String> {
    if stored.len() as u64 <= limit && blake3::hash(stored).to_hex().as_str() == hash {
        return Ok(stored.to_vec());
    }
    verified(decompress_within(stored, limit)?, hash)
}

/// A record's plain bytes: a zstd frame unpacked (to at most `limit` bytes), anything
/// else as it is. A record has no hash to tell the two apart by; a zstd frame's magic
/// number does, which no JSON text begins with.
pub fn unpack(stored: &[u8], limit: u64) -> Result<std::borrow::Cow<'_, [u8]>, String> {
    if !stored.starts_with(&ZSTD_MAGIC) {
        return Ok(std::borrow::Cow::Borrowed(stored));
    }
    decompress_within(stored, limit).map(std::borrow::Cow::Owned)
}

/// A zstd frame's plain bytes, when there are at most `limit` of them.
fn decompress_within(stored: &[u8], limit: u64) -> Result<Vec<u8>, String> {
    let plain = decompress(stored, limit)?;
    if plain.len() as u64 > limit {
        return Err(format!("it decompresses to more than {limit} bytes"));
    }
    Ok(plain)
}

/// How every zstd frame begins.
pub(crate) const ZSTD_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];

/// A zstd object's plain bytes, at most one byte past `size` (more is an error): written
/// straight into a buffer of that bound (or of the size the frame declares, when less),
/// never zeroed first, by the decompressor this thread keeps — one per worker, not one
/// per object.
fn decompress(stored: &[u8], size: u64) -> Result<Vec<u8>, String> {
    if !stored.starts_with(&ZSTD_MAGIC) {
        return Err(format!(
            "{} bytes whose hash is not its name (expected {size} bytes)",
            stored.len()
        ));
    }
    thread_local! {
        static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> =
            const { RefCell::new(None) };
    }
    let capacity = usize::try_from(size.saturating_add(1)).unwrap_or(usize::MAX);
    DECOMPRESSOR.with(|kept| {
        let mut kept = kept.borrow_mut();
        let decompressor = match kept.as_mut() {
            Some(decompressor) => decompressor,
            None => kept.insert(
                zstd::bulk::Decompressor::new().map_err(|e| format!("no zstd decoder: {e}"))?,
            ),
        };
        decompressor
            .decompress(stored, capacity)
            .map_err(|e| format!("not readable as zstd within {size} bytes: {e}"))
    })
}

/// `plain` when it hashes to `hash`.
fn verified(plain: Vec<u8>, hash: &str) -> Result<Vec<u8>, String> {
    let found = blake3::hash(&plain).to_hex();
    if found.as_str() != hash {
        return Err(format!("its content hashes to {found}"));
    }
    Ok(plain)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_and_refuse_what_they_are_not() {
        let repetitive = b"masterctl ".repeat(1000);
        let hash = blake3::hash(&repetitive).to_hex().to_string();
        let stored = encode(&repetitive);
        assert!(stored.len() < repetitive.len());
        assert_eq!(decode(&stored, &hash, 10_000).unwrap(), repetitive);
        // Incompressible bytes are stored as they are.
        let noise: Vec<u8> = (0..64u32)
            .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
            .collect();
        let noise_hash = blake3::hash(&noise).to_hex().to_string();
        assert_eq!(encode(&noise), noise);
        assert_eq!(decode(&noise, &noise_hash, 64).unwrap(), noise);
        // A wrong size, a cut object, another object's bytes.
        assert!(decode(&stored, &hash, 9_999).is_err());
        assert!(decode(&stored[..stored.len() / 2], &hash, 10_000).is_err());
        assert!(decode(&noise, &hash, 10_000).is_err());
        // Within a bound: the bytes whatever their size under it, nothing past it.
        assert_eq!(decode_within(&stored, &hash, 10_000).unwrap(), repetitive);
        assert_eq!(decode_within(&stored, &hash, 20_000).unwrap(), repetitive);
        assert_eq!(decode_within(&noise, &noise_hash, 64).unwrap(), noise);
        assert!(decode_within(&stored, &hash, 9_999).is_err());
        assert!(decode_within(&noise, &noise_hash, 63).is_err());
        assert!(decode_within(&noise, &hash, 10_000).is_err());
    }

    #[test]
    fn records_are_read_compressed_or_plain_and_never_past_their_bound() {
        let record = br#"{"masterctl_release":1}"#.repeat(100);
        let stored = encode(&record);
        assert!(stored.len() < record.len());
        assert_eq!(*unpack(&stored, 10_000).unwrap(), record[..]);
        // Plain, as older records are (and as a person may write one).
        assert!(matches!(
            unpack(&record, 10),
            Ok(std::borrow::Cow::Borrowed(_))
        ));
        // More than the bound, or not zstd past its magic number.
        assert!(unpack(&stored, record.len() as u64 - 1).is_err());
        assert!(unpack(&[0x28, 0xb5, 0x2f, 0xfd, 0, 0], 10_000).is_err());
    }
}
