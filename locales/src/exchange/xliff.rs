//! XLIFF 1.2, as CAT tools (and translate-toolkit) read it.
//!
//! One `<file>` per export; one `<trans-unit>` per unit: `id` is the unit id, `resname`
//! names the table and field, `maxwidth`/`size-unit="char"` carry `max_length`, notes
//! carry the description, problems and, for stale units, the old source and its old
//! translation. Stale and failing units hold their current translation in a `<target>`
//! with `state="needs-review-translation"`: unconfirmed until the translator confirms.

use std::fmt::Write as _;
use std::path::Path;

use masterctl_schemas::Diagnostic;
use quick_xml::escape::resolve_xml_entity;
use quick_xml::events::{BytesStart, Event};

use super::{ExportInfo, Lines, ReturnedUnit, glossary, problems, syntax};
use crate::units::{State, Unit, UnitId};

/// Target states that leave a translation unconfirmed.
const UNCONFIRMED: [&str; 6] = [
    "new",
    "needs-translation",
    "needs-review-translation",
    "needs-adaptation",
    "needs-l10n",
    "needs-review-adaptation",
];

/// Text content: markup characters escaped, and carriage returns as references (XML
/// readers turn a raw one into a line feed).
/// Text as XML character data. Characters XML 1.0 cannot carry at all (control
/// characters other than tab, line feed and carriage return; U+FFFE, U+FFFF) are
/// written as U+FFFD: imports refuse them in source texts (`control-character`), so
/// only data committed before that rule can hold them, and the file stays XML.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if ((c as u32) < 0x20 && !matches!(c, '\t' | '\n' | '\r'))
                || matches!(c, '\u{FFFE}' | '\u{FFFF}') =>
            {
                out.push('\u{FFFD}');
            }
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

/// Attribute values: also tabs and line feeds as references (readers turn raw ones into
/// spaces).
fn attribute_value(text: &str) -> String {
    escape(text).replace('\t', "&#9;").replace('\n', "&#10;")
}

pub fn write(units: &[&Unit<'_>], info: &ExportInfo<'_>) -> Vec<u8> {
    let mut out = String::with_capacity(256 + units.len() * 320);
    let _ = write!(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <xliff version=\"1.2\" xmlns=\"urn:oasis:names:tc:xliff:document:1.2\">\n\
         \x20 <file original=\"masterctl/{}\" source-language=\"{}\" target-language=\"{}\" datatype=\"plaintext\">\n\
         \x20   <header>\n\
         \x20     <tool tool-id=\"masterctl\" tool-name=\"masterctl\" tool-version=\"{}\"/>\n\
         \x20     <note from=\"masterctl\">region {}, commit {}</note>\n\
         \x20   </header>\n\
         \x20   <body>\n",
        attribute_value(info.region),
        attribute_value(info.source_language),
        attribute_value(info.language),
        env!("CARGO_PKG_VERSION"),
        escape(info.region),
        escape(info.commit),
    );
    for unit in units {
        let _ = write!(
            out,
            "      <trans-unit id=\"{}\" resname=\"{}.{}\" xml:space=\"preserve\"",
            attribute_value(&unit.id().to_string()),
            unit.table,
            unit.field
        );
        if let Some(max) = unit.max_length {
            let _ = write!(out, " maxwidth=\"{max}\" size-unit=\"char\"");
        }
        if unit.state == State::Translated {
            out.push_str(" approved=\"yes\"");
        }
        let _ = write!(out, ">\n        <source>{}</source>\n", escape(unit.source));
        if let Some(translation) = &unit.translation {
            let state = match unit.state {
                State::Translated => "translated",
                _ => "needs-review-translation",
            };
            let _ = writeln!(
                out,
                "        <target state=\"{state}\">{}</target>",
                escape(translation)
            );
        } else if let Some(suggestion) = unit.suggestion() {
            // The memory's exact match: the translator reviews it (taken once approved).
            let _ = writeln!(
                out,
                "        <target state=\"needs-review-translation\" state-qualifier=\"exact-match\">{}</target>",
                escape(suggestion)
            );
        }
        let mut note = |from: &str, text: &str| {
            let _ = writeln!(out, "        <note from=\"{from}\">{}</note>", escape(text));
        };
        if let Some(description) = unit.description {
            note("description", description);
        }
        if let Some(audience) = unit.audience {
            note("audience", &audience.to_string());
        }
        if let Some(old) = &unit.old_source {
            if old.text.is_empty() {
                note(
                    "old-source",
                    "(the source this was translated from was not recorded)",
                );
            } else {
                note("old-source", &old.text);
            }
            if let Some(translation) = &unit.translation {
                note("old-translation", translation);
            }
        }
        if let Some(terms) = glossary(unit) {
            note("glossary", &terms);
        }
        if let Some(problems) = problems(unit) {
            note("problems", &problems);
        }
        if let (Some(_), Some(exact)) = (unit.suggestion(), unit.memory.first()) {
            note(
                "memory",
                &format!("100% match: the translation of {}", exact.from),
            );
        }
        for close in unit.close_matches() {
            let _ = writeln!(
                out,
                "        <alt-trans match-quality=\"{}\" origin=\"{}\">\n          <source>{}</source>\n          <target>{}</target>\n        </alt-trans>",
                close.score,
                attribute_value(&close.from),
                escape(&close.source),
                escape(&close.translation)
            );
        }
        out.push_str("      </trans-unit>\n");
    }
    out.push_str("    </body>\n  </file>\n</xliff>\n");
    out.into_bytes()
}

/// The element a reader is inside of, as far as units go.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Inside {
    Nothing,
    Unit,
    Source,
    Target,
    /// `alt-trans`, notes and anything else inside a unit: skipped.
    Other(usize),
}

struct UnitBuilder {
    id: String,
    line: u64,
    source: Option<String>,
    target: Option<String>,
    confirmed: bool,
}

pub fn read(
    text: &str,
    path: &Path,
) -> Result<(Option<String>, Vec<ReturnedUnit>), Vec<Diagnostic>> {
    let bytes = text.as_bytes();
    let mut reader = quick_xml::Reader::from_str(text);
    reader.config_mut().trim_text(false);
    let mut lines = Lines::default();
    let mut read = XliffRead {
        path,
        language: None,
        units: Vec::new(),
        errors: Vec::new(),
        inside: Inside::Nothing,
        current: None,
        saw_xliff: false,
        open_elements: 0,
    };
    loop {
        let position = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(e) => {
                let at = reader.error_position() as usize;
                read.error(lines.line(bytes, at), format!("not well-formed XML: {e}"));
                return Err(read.errors);
            }
        };
        match event {
            Event::Eof => {
                if read.open_elements > 0 {
                    read.error(
                        lines.line(bytes, bytes.len()),
                        "the file ends before its elements are closed (cut short?)",
                    );
                }
                break;
            }
            Event::Start(element) => read.start(&element, lines.line(bytes, position)),
            Event::Empty(element) => read.empty(&element, || lines.line(bytes, position)),
            Event::Text(content) => read.text(&content.xml10_content()),
            Event::CData(content) => read.text(&content.xml10_content()),
            Event::GeneralRef(reference) => {
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => Some(c),
                    Ok(None) => resolve_xml_entity(&reference).and_then(|t| t.chars().next()),
                    Err(_) => None,
                };
                match resolved {
                    Some(c) => read.text(c.encode_utf8(&mut [0; 4])),
                    None => read.error(
                        lines.line(bytes, position),
                        format!("unknown entity &{};", &*reference),
                    ),
                }
            }
            Event::End(_) => read.end(),
            _ => {}
        }
    }
    if !read.saw_xliff {
        read.error(1, "the XML file is not XLIFF (no <xliff> element)");
    }
    if read.errors.is_empty() {
        Ok((read.language, read.units))
    } else {
        Err(read.errors)
    }
}

/// A reading in progress: where the reader is, the unit being read, what was read.
struct XliffRead<'p> {
    path: &'p Path,
    language: Option<String>,
    units: Vec<ReturnedUnit>,
    errors: Vec<Diagnostic>,
    inside: Inside,
    current: Option<UnitBuilder>,
    saw_xliff: bool,
    open_elements: usize,
}

impl XliffRead<'_> {
    fn error(&mut self, line: u64, message: impl Into<String>) {
        self.errors.push(syntax(self.path, line, message));
    }

    fn inline_markup(&mut self, line: u64, markup: String) {
        self.errors.push(
            syntax(
                self.path,
                line,
                format!("inline markup {markup} inside a unit's text is not supported"),
            )
            .hint("write tags and placeholders as plain text, as the export has them"),
        );
    }

    fn start(&mut self, element: &BytesStart<'_>, line: u64) {
        self.open_elements += 1;
        let name = local_name(element);
        match (self.inside, name) {
            (Inside::Nothing, "xliff") => self.saw_xliff = true,
            (Inside::Nothing, "file") => {
                if let Some(lang) = attribute(element, "target-language") {
                    self.language = Some(lang);
                }
            }
            (Inside::Nothing, "trans-unit") => match attribute(element, "id") {
                Some(id) => {
                    self.inside = Inside::Unit;
                    self.current = Some(UnitBuilder {
                        id,
                        line,
                        source: None,
                        target: None,
                        confirmed: attribute(element, "approved").as_deref() == Some("yes"),
                    });
                }
                None => {
                    self.error(line, "a <trans-unit> has no id");
                    self.inside = Inside::Other(1);
                }
            },
            (Inside::Unit, "source") => self.inside = Inside::Source,
            (Inside::Unit, "target") => {
                self.inside = Inside::Target;
                if let Some(unit) = self.current.as_mut() {
                    let state = attribute(element, "state");
                    unit.confirmed |= !state.as_deref().is_some_and(|s| UNCONFIRMED.contains(&s));
                    unit.target = Some(String::new());
                }
            }
            (Inside::Unit, _) => self.inside = Inside::Other(1),
            (Inside::Other(depth), _) => self.inside = Inside::Other(depth + 1),
            (Inside::Source | Inside::Target, other) => {
                self.inline_markup(line, format!("<{other}>"));
                self.inside = Inside::Other(1);
            }
            (Inside::Nothing, _) => {}
        }
    }

    fn empty(&mut self, element: &BytesStart<'_>, line: impl FnOnce() -> u64) {
        let name = local_name(element);
        if self.inside == Inside::Unit && name == "target" {
            // `<target/>`: no translation.
        } else if matches!(self.inside, Inside::Source | Inside::Target) {
            self.inline_markup(line(), format!("<{name}/>"));
        } else if self.inside == Inside::Nothing && name == "file" {
            self.language = attribute(element, "target-language").or(self.language.take());
        }
    }

    fn text(&mut self, text: &str) {
        push_text(self.inside, self.current.as_mut(), text);
    }

    fn end(&mut self) {
        self.open_elements = self.open_elements.saturating_sub(1);
        self.inside = match self.inside {
            Inside::Source | Inside::Target => Inside::Unit,
            Inside::Other(1) if self.current.is_some() => Inside::Unit,
            Inside::Other(1) => Inside::Nothing,
            Inside::Other(depth) => Inside::Other(depth - 1),
            Inside::Unit => {
                if let Some(unit) = self.current.take() {
                    self.finish_unit(unit);
                }
                Inside::Nothing
            }
            Inside::Nothing => Inside::Nothing,
        };
    }

    fn finish_unit(&mut self, unit: UnitBuilder) {
        match UnitId::parse(&unit.id) {
            Some(id) => self.units.push(ReturnedUnit {
                id,
                source: unit.source,
                confirmed: unit.confirmed,
                translation: unit.target.filter(|t| !t.is_empty()),
                line: unit.line,
            }),
            None => self.errors.push(
                syntax(
                    self.path,
                    unit.line,
                    format!("`{}` is not a unit id", unit.id),
                )
                .expected("table/field/key, as exported"),
            ),
        }
    }
}

fn push_text(inside: Inside, unit: Option<&mut UnitBuilder>, text: &str) {
    let Some(unit) = unit else { return };
    match inside {
        Inside::Source => unit.source.get_or_insert_with(String::new).push_str(text),
        Inside::Target => unit.target.get_or_insert_with(String::new).push_str(text),
        _ => {}
    }
}

fn local_name<'e>(element: &'e BytesStart<'_>) -> &'e str {
    element.local_name().into_inner()
}

fn attribute(element: &BytesStart<'_>, name: &str) -> Option<String> {
    element
        .attributes()
        .flatten()
        .find(|a| a.key.local_name().as_ref() == name)
        .and_then(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .ok()
                .map(|v| v.into_owned())
        })
}
