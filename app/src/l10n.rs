//! The translation workflow's reads: each language's state on a branch, and the exchange
//! file of what needs work in one language — the same for the command line and the
//! console, down to which languages may be asked for.

use masterctl_locales::exchange::Format;
use masterctl_locales::pseudo::ExpansionRisk;
use masterctl_store::l10n::{self, Export, LanguageStatus, RegionTexts};
use masterctl_store::{Branch, MasterRepo, StoreError};

/// Where a branch's translations stand.
pub struct Statuses {
    /// The branch's texts: its region, head, project and languages.
    pub texts: RegionTexts,
    /// Per language asked for, and per table: translated, missing, stale, failing.
    pub languages: Vec<LanguageStatus>,
    /// Source texts whose pseudo forms overflow their `max_length` (with `[pseudo]`).
    pub expansion_risks: Vec<ExpansionRisk>,
}

/// The state of `language` on `line` (a language translators work on there), or of
/// every such language; with `keys`, the keys of what needs work too.
pub fn status(
    repo: &MasterRepo,
    line: &Branch,
    language: Option<&str>,
    keys: bool,
) -> Result<Statuses, StoreError> {
    let texts = l10n::open_region(repo, line)?;
    let languages = match language {
        Some(language) => {
            texts.check_target(language)?;
            vec![language]
        }
        None => texts.targets(),
    };
    let languages = l10n::status(repo, &texts, &languages, keys)?;
    let expansion_risks = l10n::expansion_risks(repo, &texts)?;
    Ok(Statuses {
        texts,
        languages,
        expansion_risks,
    })
}

/// The exchange file of what needs work in `language` on `line` (every unit with
/// `all`), in `format`; the language must be one translators work on there.
pub fn export(
    repo: &MasterRepo,
    line: &Branch,
    language: &str,
    format: Format,
    all: bool,
) -> Result<(RegionTexts, Export), StoreError> {
    let texts = l10n::open_region(repo, line)?;
    texts.check_target(language)?;
    let export = l10n::export(repo, &texts, language, format, all)?;
    Ok((texts, export))
}
