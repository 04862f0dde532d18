//! `l10n charset`: every character a language's texts use in one or every region — the
//! file game engines build a subset font from (TextMeshPro's "characters from file",
//! a subsetter's `--text-file`).

use std::collections::BTreeSet;

use masterctl_locales::texts::text_fields;
use masterctl_schemas::audience::Audience;
use masterctl_schemas::fonts::drawn_characters;

use super::{RegionTexts, language_pairs};
use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Branch, Region};
use masterctl_git::Error as GitError;

/// The characters of one language's texts.
#[derive(Debug, serde::Serialize)]
pub struct Charset {
    pub language: String,
    /// Whose texts: the client's (a font shipped with the game) or the server's.
    pub audience: &'static str,
    /// The regions read.
    pub regions: Vec<String>,
    /// How many texts were read.
    pub texts: usize,
    /// Every character drawn, by code point.
    pub characters: Vec<char>,
}

impl Charset {
    /// The file: the characters, 64 to a line.
    pub fn file(&self) -> String {
        let mut out =
            String::with_capacity(self.characters.len() * 3 + self.characters.len() / 64 + 1);
        for (i, c) in self.characters.iter().enumerate() {
            if i > 0 && i % 64 == 0 {
                out.push('\n');
            }
            out.push(*c);
        }
        out.push('\n');
        out
    }
}

/// The characters `language` uses in `region`, or in every region that has it (a
/// region without a branch yet has no texts). A language no region has is
/// [`StoreError::NotALanguage`].
pub fn charset_of(
    repo: &MasterRepo,
    region: Option<&str>,
    language: &str,
    audience: Audience,
) -> Result<Charset, StoreError> {
    let structure = repo.structure()?;
    let project = &structure.project;
    let config = &project.config;
    let has = |name: &str| {
        language == config.source_language
            || config.pseudo.languages.iter().any(|p| p == language)
            || masterctl_locales::region_languages(config, name)
                .iter()
                .any(|l| l == language)
    };
    let names: Vec<Region> = match region {
        // A name the project does not declare is refused (and shown escaped).
        Some(name) => vec![Region::of(project, name)?],
        None => config
            .regions
            .keys()
            .map(|name| Region::of(project, name))
            .collect::<Result<_, _>>()?,
    };
    let mut regions = Vec::new();
    for name in names.into_iter().filter(|r| has(r.name())) {
        let line = Branch::from(name);
        match super::open_region(repo, &line) {
            Ok(texts) => regions.push(texts),
            Err(StoreError::Git(GitError::NoBranch(_))) if region.is_none() => {}
            Err(e) => return Err(e),
        }
    }
    if regions.is_empty() && (region.is_some() || !config.regions.keys().any(|n| has(n))) {
        return Err(StoreError::NotALanguage {
            language: language.to_string(),
            languages: config.languages.clone(),
        });
    }
    charset(repo, &regions, language, audience)
}

/// The characters `language` uses in `regions`: the source language's texts, a
/// translation's, or a pseudo language's made from the source — of the texts `audience`
/// is shipped (designers' texts never are).
pub fn charset(
    repo: &MasterRepo,
    regions: &[RegionTexts],
    language: &str,
    audience: Audience,
) -> Result<Charset, StoreError> {
    let mut characters = BTreeSet::new();
    let mut texts = 0;
    for region in regions {
        let config = &region.project.config;
        let source = language == config.source_language;
        let pseudo = config.pseudo.languages.iter().any(|p| p == language);
        let read = if source || pseudo {
            config.source_language.as_str()
        } else {
            language
        };
        for pair in language_pairs(repo, region, read)? {
            let shipped: Vec<usize> = text_fields(pair.schema)
                .iter()
                .enumerate()
                // Only what `audience` is shipped: a client's font made from a
                // server-only text would reveal it.
                .filter(|(_, f)| pair.schema.fields[**f].audience.contains(audience))
                .map(|(position, _)| position)
                .collect();
            let table = if source || pseudo {
                &pair.source
            } else {
                &pair.target
            };
            for row in table.rows.values() {
                for &position in &shipped {
                    let Some(text) = row.text(position) else {
                        continue;
                    };
                    texts += 1;
                    if pseudo {
                        let made = masterctl_locales::pseudo::pseudo(text, config.pseudo.expansion);
                        drawn_characters(&made, &mut characters);
                    } else {
                        drawn_characters(text, &mut characters);
                    }
                }
            }
        }
    }
    Ok(Charset {
        language: language.to_string(),
        audience: audience.name(),
        regions: regions.iter().map(|r| r.region.clone()).collect(),
        texts,
        characters: characters.into_iter().collect(),
    })
}
