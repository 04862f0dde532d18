//! The fonts a language's texts are rendered with (`[fonts]` in `masterctl.toml`): which
//! characters they have glyphs for, so that a character a shipped font lacks (a tofu box
//! on a player's screen) is found before it ships. Fonts are read with `ttf-parser`
//! (TrueType, OpenType, and collections: every face of one counts).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// A font file named in `[fonts]`, as the repository holds it.
#[derive(Debug, Clone)]
pub struct FontFile {
    /// Its path in the repository (`fonts/NotoSansJP-subset.otf`).
    pub path: String,
    pub bytes: Arc<[u8]>,
}

/// What the fonts of one language cover: whether some face of some file maps a
/// character to a glyph. Looked up as it is asked, 64 code points at a time, and
/// remembered: never a walk over a font's whole character map, which a hostile font
/// could make billions of code points long.
#[derive(Clone)]
pub struct Coverage {
    /// The files, in the order `[fonts]` names them (the first is named in messages).
    pub files: Vec<String>,
    /// Each file's bytes and how many faces it holds.
    fonts: Arc<[(Arc<[u8]>, u32)]>,
    /// One bit per code point (0 to 0x10FFFF), valid for the blocks of 64 `known` marks.
    bits: Arc<[AtomicU64]>,
    /// One bit per block of 64 code points looked up.
    known: Arc<[AtomicU64]>,
}

impl std::fmt::Debug for Coverage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Coverage")
            .field("files", &self.files)
            .finish()
    }
}

/// Why a font file cannot be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadFont {
    pub path: String,
    pub why: String,
}

const CODE_POINTS: usize = 0x11_0000;
const BLOCKS: usize = CODE_POINTS / 64;

impl Coverage {
    /// The fonts of `files`; a file that is not a font, or has no Unicode character
    /// map, is refused.
    pub fn of(files: &[FontFile]) -> Result<Coverage, BadFont> {
        let mut fonts = Vec::with_capacity(files.len());
        for file in files {
            let bad = |why: String| BadFont {
                path: file.path.clone(),
                why,
            };
            let faces = ttf_parser::fonts_in_collection(&file.bytes)
                .unwrap_or(1)
                .max(1);
            for index in 0..faces {
                let face = ttf_parser::Face::parse(&file.bytes, index).map_err(|e| {
                    bad(format!(
                        "not a TrueType or OpenType font ({e}); a font file is .ttf, .otf, .ttc or .otc"
                    ))
                })?;
                let unicode = face
                    .tables()
                    .cmap
                    .is_some_and(|cmap| cmap.subtables.into_iter().any(|s| s.is_unicode()));
                if !unicode {
                    return Err(bad(
                        "a font without a Unicode character map: it maps no character to a glyph"
                            .to_string(),
                    ));
                }
            }
            fonts.push((file.bytes.clone(), faces));
        }
        let words = |n: usize| {
            (0..n)
                .map(|_| AtomicU64::new(0))
                .collect::<Arc<[AtomicU64]>>()
        };
        Ok(Coverage {
            files: files.iter().map(|f| f.path.clone()).collect(),
            fonts: fonts.into(),
            bits: words(BLOCKS),
            known: words(BLOCKS.div_ceil(64)),
        })
    }

    /// Whether some font has a glyph for `c`.
    pub fn has(&self, c: char) -> bool {
        let code_point = c as usize;
        let block = code_point / 64;
        let known = self.known[block / 64].load(Ordering::Acquire) & (1 << (block % 64)) != 0;
        let bits = if known {
            self.bits[block].load(Ordering::Relaxed)
        } else {
            self.look_up(block)
        };
        bits & (1 << (code_point % 64)) != 0
    }

    /// Which of the 64 code points of `block` some face maps to a glyph, remembered.
    fn look_up(&self, block: usize) -> u64 {
        let mut bits = 0u64;
        for (bytes, faces) in self.fonts.iter() {
            for index in 0..*faces {
                // Checked when the coverage was made.
                let Ok(face) = ttf_parser::Face::parse(bytes, index) else {
                    continue;
                };
                for i in 0..64 {
                    let glyph = char::from_u32((block * 64 + i) as u32)
                        .and_then(|c| face.glyph_index(c))
                        .is_some_and(|g| g.0 != 0);
                    if glyph {
                        bits |= 1 << i;
                    }
                }
            }
        }
        self.bits[block].store(bits, Ordering::Relaxed);
        self.known[block / 64].fetch_or(1 << (block % 64), Ordering::Release);
        bits
    }

    /// The characters of `text` people see that no font has, each once, in order.
    /// Syntax (placeholders, tags: [`crate::message::syntax`]) is not shown, nor are
    /// controls, joiners, variation selectors and other invisible characters.
    pub fn missing(&self, text: &str) -> Vec<char> {
        if text.chars().all(|c| self.has(c) || !is_drawn(c)) {
            return Vec::new();
        }
        let syntax = crate::message::syntax(text).unwrap_or_default();
        let mut missing = Vec::new();
        for (at, c) in text.char_indices() {
            if self.has(c) || !is_drawn(c) || missing.contains(&c) {
                continue;
            }
            if syntax.iter().any(|r| r.contains(&at)) {
                continue;
            }
            missing.push(c);
        }
        missing
    }
}

/// The characters of `text` people see (syntax, controls and invisible characters left
/// out) added to `into`; the digits too when a placeholder stands for a number to come
/// (any placeholder: a subset font without digits would draw none).
pub fn drawn_characters(text: &str, into: &mut std::collections::BTreeSet<char>) {
    let syntax = crate::message::syntax(text).unwrap_or_default();
    let mut ranges = syntax.iter().peekable();
    for (at, c) in text.char_indices() {
        while ranges.peek().is_some_and(|r| r.end <= at) {
            ranges.next();
        }
        let in_syntax = ranges.peek().is_some_and(|r| r.contains(&at));
        if !in_syntax && is_drawn(c) {
            into.insert(c);
        }
    }
    let placeholder = syntax
        .iter()
        .any(|r| matches!(text.as_bytes()[r.start], b'{' | b'%'));
    if placeholder {
        into.extend('0'..='9');
    }
}

/// Whether a character is drawn with a glyph of its own: not a control, a line or
/// paragraph separator, a zero-width or bidirectional format character, a variation
/// selector or a byte order mark.
fn is_drawn(c: char) -> bool {
    !(c.is_control()
        || matches!(c as u32,
            0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFE00..=0xFE0F
            | 0xFEFF | 0xE0100..=0xE01EF))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Debian's DejaVu Sans (`fonts-dejavu-core`, which `.ci/run` installs): required
    /// in CI, its test passed by elsewhere when it is missing.
    fn dejavu() -> Option<FontFile> {
        let path = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
        match std::fs::read(path) {
            Ok(bytes) => Some(FontFile {
                path: "fonts/DejaVuSans.ttf".into(),
                bytes: bytes.into(),
            }),
            Err(e) if std::env::var_os("CI").is_some() => panic!("{path}: {e}"),
            Err(_) => None,
        }
    }

    #[test]
    fn what_is_not_a_font_is_refused_by_name() {
        let junk = FontFile {
            path: "fonts/readme.ttf".into(),
            bytes: b"not a font at all".to_vec().into(),
        };
        let refused = Coverage::of(&[junk]).unwrap_err();
        assert_eq!(refused.path, "fonts/readme.ttf");
        assert!(
            refused.why.contains("not a TrueType or OpenType font"),
            "{}",
            refused.why
        );
        let empty = FontFile {
            path: "fonts/empty.otf".into(),
            bytes: Vec::new().into(),
        };
        assert!(Coverage::of(&[empty]).is_err());
    }

    #[test]
    fn a_latin_font_lacks_japanese_and_syntax_is_not_drawn() {
        let Some(font) = dejavu() else {
            return;
        };
        let coverage = Coverage::of(&[font]).unwrap();
        assert!(coverage.has('A') && coverage.has('é') && !coverage.has('剣'));
        assert_eq!(coverage.missing("Iron Sword"), Vec::<char>::new());
        assert_eq!(coverage.missing("鉄の剣 and 鉄"), ['鉄', 'の', '剣']);
        // Tabs, line breaks and joiners are not drawn; a placeholder is replaced.
        assert!(coverage.missing("a\tb\nc\u{200D}{鉄}").is_empty());
    }

    #[test]
    fn the_characters_drawn_leave_syntax_out_and_take_digits_for_placeholders() {
        let mut drawn = std::collections::BTreeSet::new();
        drawn_characters("<b>剣</b>\t剣!", &mut drawn);
        assert_eq!(drawn.iter().collect::<String>(), "!剣");
        drawn_characters("{count, plural, other {# 本}}", &mut drawn);
        assert_eq!(drawn.iter().collect::<String>(), " !#0123456789剣本");
    }
}
