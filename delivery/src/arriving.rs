//! A manifest's entries as the manifest arrives. A manifest of 1,500 files is 70 KB
//! compressed: on a new connection across a distant link that is three round trips of
//! TCP's slow start. The files it lists come whole one after another, so each entry is
//! read as soon as its text is there (decompressed as it comes, a bounded amount), for
//! a fetch to ask for the object it names at once; nothing read this way is trusted
//! before the whole manifest verifies by its hash.

use masterctl_runtime::FileEntry;

use crate::object::ZSTD_MAGIC;

/// The entries of a manifest's `files` array, each handed out as soon as its closing
/// brace arrives; the JSON around them is only walked (strings, nesting), never built.
#[derive(Default)]
pub(crate) struct Entries {
    /// Bytes of the text walked so far.
    walked: usize,
    depth: u32,
    in_string: bool,
    escaped: bool,
    /// Where the string being walked started (at the top level: a key).
    string_start: usize,
    /// The last key of the top-level object was `files`.
    files_key: bool,
    in_files: bool,
    entry_start: Option<usize>,
    /// The `files` array ended (or the text is not a manifest): nothing more to find.
    done: bool,
}

impl Entries {
    /// The entries that became whole in `text` since the last call; `text` is the
    /// manifest's text so far (each call's a prefix of the next one's).
    pub(crate) fn more(&mut self, text: &[u8]) -> Vec<FileEntry> {
        let mut found = Vec::new();
        while !self.done && self.walked < text.len() {
            let at = self.walked;
            self.walked += 1;
            let byte = text[at];
            if self.in_string {
                match byte {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => {
                        self.in_string = false;
                        if self.depth == 1 {
                            self.files_key = &text[self.string_start..at] == b"files";
                        }
                    }
                    _ => {}
                }
                continue;
            }
            match byte {
                b'"' => {
                    self.in_string = true;
                    self.string_start = at + 1;
                }
                b'{' | b'[' => {
                    self.depth += 1;
                    if byte == b'[' && self.depth == 2 && self.files_key {
                        self.in_files = true;
                    }
                    if byte == b'{' && self.depth == 3 && self.in_files {
                        self.entry_start = Some(at);
                    }
                }
                b'}' | b']' => {
                    if self.depth == 3
                        && self.in_files
                        && let Some(start) = self.entry_start.take()
                    {
                        // An entry that does not read is left to the whole manifest.
                        if let Ok(entry) = serde_json::from_slice(&text[start..=at]) {
                            found.push(entry);
                        }
                    }
                    if self.depth == 2 && self.in_files {
                        self.done = true;
                    }
                    match self.depth.checked_sub(1) {
                        Some(depth) => self.depth = depth,
                        None => self.done = true,
                    }
                }
                _ => {}
            }
        }
        found
    }
}

/// A manifest object as it arrives (stored compressed or plain): its text so far,
/// walked for entries.
pub(crate) struct ManifestText {
    /// Stored bytes already taken in.
    taken: usize,
    decoder: Option<zstd::stream::write::Decoder<'static, Bounded>>,
    plain: Vec<u8>,
    /// The most text a manifest may have: decompressing stops past it.
    limit: usize,
    entries: Entries,
    /// The text stopped making sense (it does not decompress, or runs past the
    /// manifest's limit): the whole object will say why.
    stopped: bool,
}

impl ManifestText {
    /// The text of a manifest of at most `limit` bytes, none of it arrived yet.
    pub(crate) fn new(limit: u64) -> ManifestText {
        ManifestText {
            taken: 0,
            decoder: None,
            plain: Vec::new(),
            limit: usize::try_from(limit).unwrap_or(usize::MAX),
            entries: Entries::default(),
            stopped: false,
        }
    }

    /// The entries that became whole with the stored bytes so far (each call's a
    /// prefix of the next one's). Nothing in them is verified.
    pub(crate) fn seen(&mut self, stored: &[u8]) -> Vec<FileEntry> {
        // Nothing new, or too little yet to tell a zstd frame from plain text.
        if self.stopped || stored.len() <= self.taken || stored.len() < ZSTD_MAGIC.len() {
            return Vec::new();
        }
        let new = &stored[self.taken..];
        self.taken = stored.len();
        if self.taken == new.len() && new.starts_with(&ZSTD_MAGIC) {
            let text = Bounded {
                text: Vec::new(),
                limit: self.limit,
            };
            self.decoder = zstd::stream::write::Decoder::new(text).ok();
            self.stopped = self.decoder.is_none();
        }
        let text = match &mut self.decoder {
            Some(decoder) => {
                use std::io::Write;
                // A frame that decompresses past the limit stops at it (a few bytes
                // may ask for gigabytes).
                let written = decoder.write_all(new).and_then(|()| decoder.flush());
                self.stopped = written.is_err();
                &decoder.get_ref().text
            }
            None => {
                self.plain.extend_from_slice(new);
                &self.plain
            }
        };
        if self.stopped || text.len() > self.limit {
            self.stopped = true;
            return Vec::new();
        }
        self.entries.more(text)
    }
}

/// Text decompressed so far, refusing to grow past `limit` bytes.
struct Bounded {
    text: Vec<u8>,
    limit: usize,
}

impl std::io::Write for Bounded {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if self.text.len() + bytes.len() > self.limit {
            return Err(std::io::Error::other("past the manifest's limit"));
        }
        self.text.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use masterctl_runtime::{FORMAT_VERSION, FileKind, Manifest};

    use super::*;

    /// A manifest of three files whose paths hold what a walk of the JSON must pass
    /// over as text.
    pub(crate) fn manifest() -> Manifest {
        let entry = |n: u32, path: &str| FileEntry {
            path: path.to_string(),
            kind: FileKind::Table,
            name: format!("t{n}"),
            language: n.is_multiple_of(2).then(|| "ja".to_string()),
            table: Some(format!("t{n}")),
            blake3: format!("{n:064x}"),
            size: u64::from(n) * 10,
            rows: u64::from(n),
        };
        Manifest {
            format: FORMAT_VERSION,
            region: "jp".to_string(),
            source_commit: "0".repeat(40),
            schema_hash: "0".repeat(64),
            languages: vec!["ja".to_string()],
            files: vec![
                entry(1, "tables/t1.rkyv"),
                // Braces, brackets, quotes and escapes inside strings walk as text.
                entry(2, "tables/a{b}[c]\"d\\\\e.rkyv"),
                entry(3, "tables/\u{3042}.rkyv"),
            ],
            fallbacks: Vec::new(),
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        }
    }

    #[test]
    fn entries_are_found_as_they_arrive_wherever_the_text_is_cut() {
        let manifest = manifest();
        for text in [manifest.to_bytes(), serde_json::to_vec(&manifest).unwrap()] {
            for cut in 0..text.len() {
                let mut entries = Entries::default();
                let mut found = entries.more(&text[..cut]);
                found.extend(entries.more(&text));
                assert_eq!(found, manifest.files, "cut at {cut}");
            }
            // Byte after byte.
            let mut entries = Entries::default();
            let found: Vec<FileEntry> = (0..=text.len())
                .flat_map(|end| entries.more(&text[..end]))
                .collect();
            assert_eq!(found, manifest.files);
        }
    }

    #[test]
    fn a_manifest_that_decompresses_past_its_limit_stops_there() {
        // 16 MiB of spaces in a frame of a few hundred bytes.
        let bomb = zstd::bulk::compress(&vec![b' '; 16 << 20], 19).unwrap();
        assert!(bomb.len() < 4096);
        let mut text = ManifestText::new(1 << 20);
        assert!(text.seen(&bomb).is_empty());
        assert!(text.stopped);
        let held = text
            .decoder
            .as_ref()
            .map_or(0, |d| d.get_ref().text.capacity());
        assert!(held <= 2 << 20, "{held} bytes held");
    }

    #[test]
    fn only_the_top_level_files_array_holds_entries() {
        let text = br#"{"other": {"files": [{"path": "x"}]}, "files": [], "x": [{"path": "y"}]}"#;
        assert!(Entries::default().more(text).is_empty());
        // Not a manifest at all: nothing, and no panic.
        for text in [&b"]]]}}}"[..], b"[[[", b"\"files\"[{}]", b""] {
            assert!(Entries::default().more(text).is_empty());
        }
    }
}
