//! `[fonts]` of `masterctl.toml`: for each language (or pseudo language), the font files
//! of the repository's `fonts/` folder its texts are rendered with, read into what they
//! cover. A missing file or one that is not a font is an error where it is named.

use std::collections::BTreeMap;

use toml::Spanned;

use crate::diagnostic::Code;
use crate::fonts::{Coverage, FontFile};

use super::*;

impl Builder {
    pub(super) fn check_fonts(
        &mut self,
        source: &SourceText,
        raw: &BTreeMap<String, Spanned<RawSpellings>>,
        languages: &[String],
        pseudo: &[String],
    ) -> BTreeMap<String, Coverage> {
        let mut fonts = BTreeMap::new();
        for (language, paths) in raw {
            let span = paths.span();
            if !languages.contains(language) && !pseudo.contains(language) {
                self.error(
                    source
                        .error(
                            Code::InvalidReference,
                            span,
                            format!("[fonts]: `{language}` is not one of the project's languages"),
                        )
                        .expected(format!(
                            "one of: {}",
                            languages
                                .iter()
                                .chain(pseudo)
                                .map(String::as_str)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )),
                );
                continue;
            }
            let mut files = Vec::new();
            for path in paths.get_ref().to_vec() {
                match self.font_file(&path) {
                    Ok(file) => files.push(file),
                    Err(problem) => self.error(
                        source
                            .error(
                                Code::BadFont,
                                span.clone(),
                                format!("[fonts] {language}: {problem}"),
                            )
                            .expected(format!(
                                "a font file of {FONTS_DIR}/ (.ttf, .otf, .ttc, .otc)"
                            )),
                    ),
                }
            }
            if files.is_empty() {
                continue;
            }
            match Coverage::of(&files) {
                Ok(coverage) => {
                    fonts.insert(language.clone(), coverage);
                }
                Err(bad) => self.error(source.error(
                    Code::BadFont,
                    span,
                    format!("[fonts] {language}: `{}` is {}", bad.path, bad.why),
                )),
            }
        }
        fonts
    }

    /// The font at `path` (`fonts/<name>`), or why it cannot be.
    fn font_file(&self, path: &str) -> Result<FontFile, String> {
        let name = path
            .strip_prefix(FONTS_DIR)
            .and_then(|rest| rest.strip_prefix('/'));
        let Some(name) = name.filter(|n| !n.contains(['/', '\\']) && is_font_name(n)) else {
            return Err(format!(
                "`{}` is not a font file of the repository's {FONTS_DIR}/ folder",
                path.escape_debug()
            ));
        };
        match self.font_files.iter().find(|(p, _)| *p == path) {
            Some((_, bytes)) => Ok(FontFile {
                path: path.to_string(),
                bytes: bytes.as_slice().into(),
            }),
            None => {
                let held: Vec<&str> = self.font_files.iter().map(|(p, _)| p.as_str()).collect();
                Err(match held.is_empty() {
                    true => format!("`{name}` is not in {FONTS_DIR}/ (the folder holds no font)"),
                    false => format!(
                        "`{name}` is not in {FONTS_DIR}/ (it holds: {})",
                        held.join(", ")
                    ),
                })
            }
        }
    }
}
