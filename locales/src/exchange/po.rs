//! gettext PO, as `msgfmt` and translate-toolkit read it.
//!
//! `msgctxt` is the unit id (two units may share a source text), `msgid` the source,
//! `msgstr` the translation. `#.` comments carry the description, `max_length` and
//! problems; `#:` names the table and field. A stale unit is `#, fuzzy` with the old
//! source as `#| msgid` and its old translation as `msgstr`: gettext's own way of saying
//! "the source changed, review this". Fuzzy entries come back unconfirmed.

use std::fmt::Write as _;
use std::path::Path;

use masterctl_schemas::Diagnostic;
use masterctl_schemas::value::DateTime;

use super::{ExportInfo, ReturnedUnit, glossary, problems, syntax};
use crate::units::{State, Unit, UnitId};

pub fn write(units: &[&Unit<'_>], info: &ExportInfo<'_>) -> Vec<u8> {
    let mut out = String::with_capacity(512 + units.len() * 200);
    let _ = write!(
        out,
        "# Translations of region {region} from {source} into {language}.\n\
         # Exported by masterctl from commit {commit}.\n\
         msgid \"\"\n\
         msgstr \"\"\n\
         \"Project-Id-Version: masterctl {region}\\n\"\n\
         \"PO-Revision-Date: {revised}\\n\"\n\
         \"Last-Translator: \\n\"\n\
         \"Language-Team: \\n\"\n\
         \"Language: {language}\\n\"\n\
         \"MIME-Version: 1.0\\n\"\n\
         \"Content-Type: text/plain; charset=UTF-8\\n\"\n\
         \"Content-Transfer-Encoding: 8bit\\n\"\n\
         \"X-Masterctl-Region: {region}\\n\"\n\
         \"X-Masterctl-Source-Language: {source}\\n\"\n\n",
        region = header_value(info.region),
        source = header_value(info.source_language),
        language = header_value(info.language),
        commit = header_value(info.commit),
        revised = revision_date(info.commit_time),
    );
    for unit in units {
        if let Some(description) = unit.description {
            comment(&mut out, "#.", description);
        }
        if let Some(max) = unit.max_length {
            let _ = writeln!(out, "#. max_length: {max}");
        }
        if let Some(audience) = unit.audience {
            let _ = writeln!(out, "#. audience: {audience}");
        }
        if let Some(terms) = glossary(unit) {
            comment(&mut out, "#.", &format!("glossary: {terms}"));
        }
        if let Some(problems) = problems(unit) {
            comment(&mut out, "#.", &format!("problems: {problems}"));
        }
        if let (Some(_), Some(exact)) = (unit.suggestion(), unit.memory.first()) {
            comment(
                &mut out,
                "#.",
                &format!("memory 100%: the translation of {}", exact.from),
            );
        }
        for close in unit.close_matches() {
            comment(
                &mut out,
                "#.",
                &format!(
                    "memory {}% ({}): {} → {}",
                    close.score, close.from, close.source, close.translation
                ),
            );
        }
        let _ = writeln!(out, "#: {}.{}", unit.table, unit.field);
        let suggestion = unit.suggestion();
        let review =
            (unit.translation.is_some() && unit.state != State::Translated) || suggestion.is_some();
        if review {
            out.push_str("#, fuzzy\n");
        }
        if let Some(old) = &unit.old_source
            && !old.text.is_empty()
        {
            quoted(&mut out, "#| msgid", &old.text);
        }
        quoted(&mut out, "msgctxt", &unit.id().to_string());
        quoted(&mut out, "msgid", unit.source);
        quoted(
            &mut out,
            "msgstr",
            unit.translation.or(suggestion).unwrap_or(""),
        );
        out.push('\n');
    }
    out.into_bytes()
}

/// `2026-11-30 09:15+0000`, as gettext writes dates.
fn revision_date(seconds: i64) -> String {
    let time = DateTime(seconds.saturating_mul(1000));
    let minutes = time.time_of_day() / 60_000;
    format!(
        "{} {:02}:{:02}+0000",
        time.date(),
        minutes / 60,
        minutes % 60
    )
}

/// Header values are one line.
fn header_value(text: &str) -> String {
    escape(&text.replace(['\n', '\r'], " "))
}

fn comment(out: &mut String, prefix: &str, text: &str) {
    for line in text.lines() {
        let _ = writeln!(out, "{prefix} {line}");
    }
}

fn escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len() + 2);
    for c in text.chars() {
        match c {
            '\\' => escaped.push_str("\\\\"),
            '"' => escaped.push_str("\\\""),
            '\n' => escaped.push_str("\\n"),
            '\t' => escaped.push_str("\\t"),
            '\r' => escaped.push_str("\\r"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// `keyword "text"`, or for text with line breaks, `keyword ""` and a line per line.
fn quoted(out: &mut String, keyword: &str, text: &str) {
    let prefix = keyword.strip_suffix("msgid").unwrap_or("");
    if !text.contains('\n') || text.trim_end_matches('\n').is_empty() {
        let _ = writeln!(out, "{keyword} \"{}\"", escape(text));
        return;
    }
    let _ = writeln!(out, "{keyword} \"\"");
    for piece in text.split_inclusive('\n') {
        let _ = writeln!(out, "{prefix}\"{}\"", escape(piece));
    }
}

/// What a PO entry's strings are being read into.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    None,
    Context,
    Id,
    Str,
}

#[derive(Default)]
struct Entry {
    line: u64,
    context: Option<String>,
    id: Option<String>,
    translation: Option<String>,
    fuzzy: bool,
}

pub fn read(
    text: &str,
    path: &Path,
) -> Result<(Option<String>, Vec<ReturnedUnit>), Vec<Diagnostic>> {
    let mut errors = Vec::new();
    let entries = entries(text, path, &mut errors);
    let (language, units) = units(entries, path, &mut errors);
    if errors.is_empty() {
        Ok((language, units))
    } else {
        Err(errors)
    }
}

/// The file's entries, line by line: comments and flags, `msgctxt`, `msgid`, `msgstr`
/// and their continuation lines.
fn entries(text: &str, path: &Path, errors: &mut Vec<Diagnostic>) -> Vec<Entry> {
    let mut entries = Vec::new();
    let mut entry = Entry::default();
    let mut part = Part::None;
    // An entry ends where the next one's comments or keywords begin.
    let mut finish = |entry: &mut Entry| {
        let done = std::mem::take(entry);
        if done.id.is_some() || done.context.is_some() {
            entries.push(done);
        }
    };
    for (index, raw) in text.lines().enumerate() {
        let line_number = index as u64 + 1;
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(rest) = line.strip_prefix('#') {
            if entry.translation.is_some() {
                finish(&mut entry);
            }
            part = Part::None;
            // `#~` obsolete entries and `#|` previous strings are memory, not units.
            if let Some(flags) = rest.strip_prefix(',') {
                entry.fuzzy |= flags.split(',').any(|f| f.trim() == "fuzzy");
            }
            if entry.line == 0 && !rest.starts_with('~') {
                entry.line = line_number;
            }
            continue;
        }
        let (keyword, rest) = match line.find(char::is_whitespace) {
            Some(at) if !line.starts_with('"') => (&line[..at], line[at..].trim_start()),
            _ => ("", line),
        };
        let next = match keyword {
            "msgctxt" => Part::Context,
            "msgid" => Part::Id,
            "msgstr" => Part::Str,
            "" => part,
            other if other == "msgid_plural" || other.starts_with("msgstr[") => {
                if other == "msgid_plural" {
                    errors.push(
                        syntax(path, line_number, "gettext plural entries (msgid_plural) are not used by masterctl")
                            .hint("write plurals inside the text as ICU messages: {count, plural, one {...} other {...}}"),
                    );
                }
                part = Part::None;
                continue;
            }
            other => {
                errors.push(syntax(
                    path,
                    line_number,
                    format!("`{other}` is not a PO keyword"),
                ));
                continue;
            }
        };
        if matches!(next, Part::Context | Part::Id)
            && !keyword.is_empty()
            && entry.translation.is_some()
        {
            finish(&mut entry);
        }
        if entry.line == 0 {
            entry.line = line_number;
        }
        let Some(piece) = unquote(rest) else {
            errors.push(
                syntax(path, line_number, "a quoted string was expected").found(rest.to_string()),
            );
            continue;
        };
        let target = match next {
            Part::Context => &mut entry.context,
            Part::Id => &mut entry.id,
            Part::Str => &mut entry.translation,
            Part::None => {
                errors.push(syntax(path, line_number, "a string outside any entry"));
                continue;
            }
        };
        if keyword.is_empty() {
            target.get_or_insert_with(String::new).push_str(&piece);
        } else {
            *target = Some(piece);
        }
        part = next;
    }
    finish(&mut entry);
    entries
}

/// Each entry's unit (named by its `msgctxt`), and the language the header gives.
fn units(
    entries: Vec<Entry>,
    path: &Path,
    errors: &mut Vec<Diagnostic>,
) -> (Option<String>, Vec<ReturnedUnit>) {
    let mut language = None;
    let mut units = Vec::new();
    for entry in entries {
        let Some(context) = entry.context else {
            if entry.id.as_deref() == Some("") {
                language = header_language(entry.translation.as_deref().unwrap_or(""));
            } else {
                errors.push(
                    syntax(
                        path,
                        entry.line,
                        "an entry without msgctxt: its unit cannot be known",
                    )
                    .hint("keep the msgctxt line of every entry as exported"),
                );
            }
            continue;
        };
        let Some(id) = UnitId::parse(&context) else {
            errors.push(
                syntax(path, entry.line, format!("`{context}` is not a unit id"))
                    .expected("table/field/key, as exported"),
            );
            continue;
        };
        units.push(ReturnedUnit {
            id,
            source: entry.id,
            translation: entry.translation.filter(|t| !t.is_empty()),
            confirmed: !entry.fuzzy,
            line: entry.line,
        });
    }
    (language, units)
}

fn header_language(header: &str) -> Option<String> {
    header.lines().find_map(|line| {
        let value = line.strip_prefix("Language:")?.trim();
        (!value.is_empty()).then(|| value.to_string())
    })
}

/// The text of a `"..."` PO string, escapes resolved.
fn unquote(text: &str) -> Option<String> {
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '"' {
            return None;
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            '\\' => out.push('\\'),
            '"' => out.push('"'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            _ => return None,
        }
    }
    Some(out)
}
