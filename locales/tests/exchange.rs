//! Every exchange format gives back exactly what it was given: ids, sources and
//! translations of any text (quotes, backslashes, line breaks, markup, leading `=`),
//! and which units were confirmed.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::Path;

use masterctl_locales::exchange::{self, ExportInfo, Format};
use masterctl_locales::memory::MemoryMatch;
use masterctl_locales::{SourceRecord, State, Unit};
use masterctl_schemas::Value;
use masterctl_schemas::audience::{Audience, Audiences};
use proptest::prelude::*;

/// Text as planners and translators write it, XML-legal characters only.
fn text() -> impl Strategy<Value = String> {
    proptest::string::string_regex("[a-zA-Z0-9 竜の剣é\"'\\\\<>&=+@#%{}|/,;\\-\\n\\r\\t]{1,24}")
        .unwrap()
}

fn info() -> ExportInfo<'static> {
    ExportInfo {
        region: "global",
        source_language: "ja",
        language: "en",
        commit: "0123456789abcdef",
        commit_time: 1_764_460_800,
    }
}

proptest! {
    #[test]
    fn every_format_round_trips(
        rows in proptest::collection::vec((text(), text(), any::<bool>(), text()), 1..8),
        close in text(),
    ) {
        let old = SourceRecord::of("old");
        let keys: Vec<Vec<Value>> = rows
            .iter()
            .enumerate()
            .map(|(i, row)| vec![Value::Str(format!("{}{i}", row.3).into())])
            .collect();
        let units: Vec<Unit<'_>> = rows
            .iter()
            .zip(&keys)
            .map(|((source, translation, stale, _), key)| Unit {
                table: "item",
                field: "name",
                key,
                source,
                translation: Some(translation),
                old_source: stale.then_some(&old),
                state: if *stale { State::Stale } else { State::Translated },
                failures: Vec::new(),
                max_length: Some(40),
                description: Some("Shown \"everywhere\"\nin <b>bold</b>"),
                audience: None,
                glossary: Vec::new(),
                warnings: Vec::new(),
                // A close match beside each unit, its texts as any other's: in comments
                // (PO), an element (XLIFF) or a cell (CSV), never breaking the file.
                memory: vec![MemoryMatch {
                    score: 80,
                    source: close.clone(),
                    translation: close.clone(),
                    from: "item/name/0".to_string(),
                }],
            })
            .collect();
        let chosen: Vec<&Unit<'_>> = units.iter().collect();
        for format in [Format::Xliff, Format::Po, Format::Csv] {
            let bytes = exchange::write(format, &chosen, &info()).unwrap();
            prop_assert_eq!(Format::detect(&bytes), format);
            let file = exchange::read(&bytes, Path::new("x"))
                .map_err(|d| TestCaseError::fail(format!("{format:?}: {d:?}\n{}", String::from_utf8_lossy(&bytes))))?;
            prop_assert_eq!(file.language.as_deref(), Some("en"));
            prop_assert_eq!(file.units.len(), units.len());
            for (unit, back) in units.iter().zip(&file.units) {
                prop_assert_eq!(back.id.clone(), unit.id());
                prop_assert_eq!(back.source.as_deref(), Some(unit.source), "{:?}", format);
                let confirmed = unit.state == State::Translated;
                prop_assert_eq!(back.confirmed || format == Format::Csv && !confirmed, confirmed || format == Format::Csv);
                // CSV leaves the translation of a unit that needs work empty.
                let expected = if format == Format::Csv && !confirmed { None } else { unit.translation };
                prop_assert_eq!(back.translation.as_deref(), expected, "{:?}", format);
            }
        }
    }
}

proptest! {
    /// Whatever a translator's tool hands back, reading it is a result, never a panic.
    #[test]
    fn any_file_reads_to_units_or_errors(bytes in proptest::collection::vec(any::<u8>(), 0..400), prefix in 0..4usize) {
        let start: &[u8] = match prefix {
            0 => b"<?xml version=\"1.0\"?><xliff version=\"1.2\"><file target-language=\"en\"><body><trans-unit id=\"item/name/1\"><source>",
            1 => b"msgctxt \"item/name/1\"\nmsgid \"",
            2 => b"table,field,key,translation_en\n",
            _ => b"",
        };
        let file = [start, &bytes[..]].concat();
        let _ = exchange::read(&file, Path::new("x"));
    }
}

/// A source text holding characters XML cannot carry (committed before imports refused
/// them) still gives an XLIFF file an XML parser reads, with U+FFFD in their place.
#[test]
fn xliff_stays_xml_whatever_the_text_holds() {
    let key = vec![Value::Int(1)];
    let source = "a\u{0}b\u{1b}c\u{FFFF}d\u{7}";
    let unit = Unit {
        table: "item",
        field: "name",
        key: &key,
        source,
        translation: Some("x\u{1}y"),
        old_source: None,
        state: State::Translated,
        failures: Vec::new(),
        max_length: None,
        description: Some("\u{8}"),
        audience: Some(Audiences::of(&[Audience::Server])),
        glossary: vec!["\u{1}剣 → sword".into()],
        warnings: Vec::new(),
        memory: Vec::new(),
    };
    let bytes = exchange::write(Format::Xliff, &[&unit], &info()).unwrap();
    let mut reader = quick_xml::Reader::from_reader(bytes.as_slice());
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf) {
            Ok(quick_xml::events::Event::Eof) => break,
            Ok(quick_xml::events::Event::Text(t)) => {
                let text: &str = t.as_ref();
                assert!(!text.contains(|c: char| (c as u32) < 0x20 && !"\t\n\r".contains(c)));
            }
            Ok(_) => {}
            Err(e) => panic!("not XML: {e}\n{}", String::from_utf8_lossy(&bytes)),
        }
        buf.clear();
    }
    let file = exchange::read(&bytes, Path::new("x.xliff")).unwrap();
    assert_eq!(
        file.units[0].source.as_deref(),
        Some("a\u{FFFD}b\u{FFFD}c\u{FFFD}d\u{FFFD}")
    );
    // Who sees the text goes with it, for the translator.
    let xliff = String::from_utf8(bytes).unwrap();
    assert!(
        xliff.contains("<note from=\"audience\">server</note>"),
        "{xliff}"
    );
    let po = exchange::write(Format::Po, &[&unit], &info()).unwrap();
    assert!(
        String::from_utf8(po)
            .unwrap()
            .contains("#. audience: server\n")
    );
}
