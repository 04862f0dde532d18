//! Localization: language tables and the record of what each translation was made
//! from ([`texts`]), translation units and their states ([`units`]), the checks a
//! translation must pass ([`checks`], [`message`]), the exchange files translators
//! work in ([`exchange`]: XLIFF, PO, CSV) and taking translations back ([`apply`]).
//!
//! Nothing here touches git or prints: the store reads a region's files and hands them
//! over; the binary shows what comes back.

pub mod apply;
pub mod checks;
pub mod exchange;
pub mod glossary;
pub mod memory;
pub mod merge;
pub mod pseudo;
pub use masterctl_schemas::message;
pub mod texts;
pub mod units;

use masterctl_schemas::schema::Config;

pub use checks::{Checker, Failure};
pub use texts::{SourceRecord, TableTexts, language_path, records_path, source_hash};
pub use units::{Counts, State, Unit, UnitId, mark_inconsistent, table_units};

/// Errors reading stored language files.
#[derive(Debug, thiserror::Error)]
pub enum LocaleError {
    #[error("{path} is damaged: {message}")]
    Broken { path: String, message: String },
}

/// The languages of a region, in its fallback order (the project's when the region
/// names none).
pub fn region_languages<'a>(config: &'a Config, region: &str) -> &'a [String] {
    match config.regions.get(region) {
        Some(r) if !r.languages.is_empty() => &r.languages,
        _ => &config.languages,
    }
}

/// The languages translators work on for a region: its languages but the source one.
pub fn target_languages<'a>(config: &'a Config, region: &str) -> Vec<&'a str> {
    region_languages(config, region)
        .iter()
        .map(String::as_str)
        .filter(|l| *l != config.source_language)
        .collect()
}
