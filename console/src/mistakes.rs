//! A mistake (a [`Diagnostic`]) in the visitor's words. In English it is the sentence
//! and the hint its diagnostic wrote; in Japanese it is said from the diagnostic's code
//! and the values it was made of ([`Diagnostic::said`], with its `found`, `field` and
//! `table`) by `console/locales/mistakes.ja.ftl`, its hint by the hint's kind (else by
//! the code). A sentence Japanese lacks, or whose values the diagnostic does not carry,
//! is said as it was written, in English, never as a half-filled template.

use masterctl_app::browse::Note;
use masterctl_schemas::Diagnostic;
use masterctl_store::edit::{Refusal, Why};

use crate::i18n::Lang;

/// What went wrong, in `lang`.
pub fn what(d: &Diagnostic, lang: Lang) -> String {
    match lang {
        Lang::En => d.message.clone(),
        _ => said(d, lang, &format!("mistake-{}", d.code)).unwrap_or_else(|| d.message.clone()),
    }
}

/// How to fix it, in `lang`, when the diagnostic says.
pub fn hint(d: &Diagnostic, lang: Lang) -> Option<String> {
    let written = d.hint.clone()?;
    if lang == Lang::En {
        return Some(written);
    }
    let id = match d.said("hint") {
        Some(kind) => format!("hint-{kind}"),
        None => format!("hint-code-{}", d.code),
    };
    Some(said(d, lang, &id).unwrap_or(written))
}

/// What was expected instead (a translation of the source, a limit…), in `lang`.
pub fn expected(d: &Diagnostic, lang: Lang) -> String {
    let written = d.expected.clone().unwrap_or_default();
    if lang == Lang::En {
        return written;
    }
    d.said("expected-kind")
        .and_then(|kind| said(d, lang, &format!("expected-{kind}")))
        .unwrap_or(written)
}

/// A mistake on one line, as lists show it: where, what, its code.
pub fn line(d: &Diagnostic, lang: Lang) -> String {
    format!("{}: {} [{}]", d.location.place(), what(d, lang), d.code)
}

/// Why a browser edit cannot be made, in `lang` (English: the store's own words).
pub fn refusal(r: &Refusal, lang: Lang) -> String {
    if lang == Lang::En {
        return r.describe();
    }
    let mut args: Vec<(&str, &str)> = vec![("table", &r.table)];
    args.extend(r.key.as_deref().map(|key| ("key", key)));
    args.extend(r.field.as_deref().map(|field| ("field", field)));
    let id = match &r.why {
        Why::Changed { now: Some(now) } => {
            args.push(("now", now));
            "refusal-changed-now"
        }
        Why::Changed { now: None } => "refusal-changed",
        Why::RowGone => "refusal-row-gone",
        Why::Unreadable { text, .. } => {
            args.push(("text", text));
            "refusal-unreadable"
        }
        Why::KeyTaken { key } => {
            args.push(("taken", key));
            "refusal-key-taken"
        }
        Why::NoField => "refusal-no-field",
        Why::NoTable => "refusal-no-table",
        Why::NoKey => "refusal-no-key",
    };
    let (when, subject);
    if let Some(by) = &r.by {
        (when, subject) = (by.time.clone(), by.subject.clone());
        args.extend([
            ("who", by.author.as_str()),
            ("when", &when),
            ("subject", &subject),
        ]);
        args.push(("named", "yes"));
    } else {
        args.push(("named", "no"));
    }
    let place = match (&r.key, &r.field) {
        (Some(_), Some(_)) => "refusal-place-cell",
        (Some(_), None) => "refusal-place-row",
        (None, Some(_)) => "refusal-place-column",
        (None, None) => "refusal-place-table",
    };
    let place = lang
        .say_exactly(place, &args)
        .unwrap_or_else(|| r.table.clone());
    args.push(("place", &place));
    lang.say_exactly(id, &args).unwrap_or_else(|| r.describe())
}

/// What may not be what was meant in a value that will do, in `lang`.
pub fn note(note: Note, lang: Lang) -> String {
    let id = match note {
        Note::EdgeSpaces => "note-edge-spaces",
    };
    match lang {
        Lang::En => note.to_string(),
        _ => lang
            .say_exactly(id, &[])
            .unwrap_or_else(|| note.to_string()),
    }
}

/// The words of `id` in `lang`, with the diagnostic's values.
fn said(d: &Diagnostic, lang: Lang, id: &str) -> Option<String> {
    let l = &d.location;
    let known = [
        ("found", d.found.as_deref()),
        ("field", l.field.as_deref()),
        ("table", l.table.as_deref()),
    ];
    let args: Vec<(&str, &str)> = (known.into_iter())
        .filter_map(|(name, value)| Some((name, value?)))
        .chain(d.said.iter().map(|(name, value)| (*name, value.as_str())))
        .collect();
    lang.say_exactly(id, &args)
}

#[cfg(test)]
mod tests {
    use super::*;
    use masterctl_schemas::Location;
    use masterctl_schemas::diagnostic::Code;

    fn at_cell(code: Code, message: &str) -> Diagnostic {
        let location = Location {
            table: Some("item".into()),
            field: Some("price".into()),
            ..Location::default()
        };
        Diagnostic::new(code, location, message)
    }

    #[test]
    fn every_code_has_its_japanese_sentence() {
        for code in Code::ALL {
            let id = format!("mistake-{code}");
            let words = include_str!("../locales/mistakes.ja.ftl");
            assert!(
                words.contains(&format!("\n{id} =")),
                "{id} is not in mistakes.ja.ftl"
            );
        }
    }

    #[test]
    fn a_mistake_is_said_in_japanese_from_its_values_and_in_english_as_written() {
        let below = at_cell(Code::OutOfRange, "-3 is below the minimum 0")
            .found("-3")
            .arg("case", "below")
            .arg("limit", "0");
        assert_eq!(what(&below, Lang::En), "-3 is below the minimum 0");
        assert_eq!(what(&below, Lang::Ja), "-3 は最小値 0 を下回っています");
        let wide = at_cell(Code::TypeError, "expected a whole number, found `１８`")
            .found("１８")
            .arg("type", "int")
            .hint("`１８` is written in full-width characters: write `18`")
            .arg("hint", "full-width")
            .arg("write", "18");
        assert_eq!(
            hint(&wide, Lang::Ja).as_deref(),
            Some("全角で書かれています。半角で「18」と書いてください")
        );
        // A key is said as written, not as a number (`007`).
        let dangling = (at_cell(Code::ForeignKey, "no `category` has id 007").found("007"))
            .arg("target", "category")
            .arg("column", "id");
        for (d, said) in [
            (wide, "「１８」は price の型（int）として読めません"),
            (dangling, "category に id が 007 の行がありません"),
        ] {
            assert_eq!(what(&d, Lang::Ja), said);
        }
    }

    #[test]
    fn a_refused_edit_names_the_cell_who_changed_it_and_what_it_holds_now() {
        let by = masterctl_store::review::history::ImportRecord {
            commit: "c0ffee".into(),
            time: "2026-12-05T10:00:00+09:00".into(),
            author: "Bea".into(),
            email: "bea@example.com".into(),
            subject: "Sale prices".into(),
            tables: Vec::new(),
            sources: Vec::new(),
            translations: Vec::new(),
            upstream: None,
            upstream_base: None,
            merged_branch: None,
            merged: None,
        };
        let stale = Refusal {
            edit: 0,
            table: "item".into(),
            key: Some("5".into()),
            field: Some("price".into()),
            why: Why::Changed {
                now: Some("90".into()),
            },
            by: Some(by),
        };
        assert_eq!(
            refusal(&stale, Lang::Ja),
            "item の 5 の price はその後変更されました（Bea、2026-12-05T10:00:00+09:00、\
             「Sale prices」）。今の値は「90」です"
        );
        assert_eq!(refusal(&stale, Lang::En), stale.describe());
    }

    /// Every mistake in the project's broken workbooks and schemas (a planner's
    /// mistakes, made in a spreadsheet), said in Japanese from its values, its hint too:
    /// none falls back to the English sentence.
    #[test]
    fn every_mistake_in_the_broken_fixtures_is_said_in_japanese() {
        let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
        let project = masterctl_schemas::load::load_project(&fixtures).unwrap();
        let broken = fixtures.join("broken");
        let mut paths: Vec<_> = (std::fs::read_dir(&broken).unwrap())
            .map(|entry| entry.unwrap().path())
            .filter(|path| !path.ends_with("bad_schemas"))
            .collect();
        paths.sort();
        let mut diagnostics = Vec::new();
        for path in &paths {
            let checked = masterctl_schemas::validate_paths(&project, std::slice::from_ref(path));
            diagnostics.extend(checked.report.diagnostics);
        }
        let bad = masterctl_schemas::load::load_project(&broken.join("bad_schemas"));
        diagnostics.extend(bad.err().unwrap().diagnostics);
        assert!(diagnostics.len() > 20, "{diagnostics:?}");
        let mut unsaid = Vec::new();
        for d in &diagnostics {
            if said(d, Lang::Ja, &format!("mistake-{}", d.code)).is_none() {
                unsaid.push(format!("{}: {}", d.code, d.message));
            }
            if let Some(written) = &d.hint
                && hint(d, Lang::Ja).as_ref() == Some(written)
            {
                unsaid.push(format!("{} (hint): {written}", d.code));
            }
        }
        assert!(unsaid.is_empty(), "said in English:\n{}", unsaid.join("\n"));
    }

    #[test]
    fn a_sentence_whose_values_are_missing_is_said_as_written() {
        // No `limit`: the Japanese would show a hole; the English sentence is whole.
        let unsaid = at_cell(Code::OutOfRange, "150 is above the maximum 99").found("150");
        assert_eq!(what(&unsaid, Lang::Ja), "150 is above the maximum 99");
        let plain = at_cell(Code::ErrorCell, "the cell holds the error value #REF!")
            .hint("fix the formula (or the cell it refers to) so that it gives a value");
        assert_eq!(what(&plain, Lang::Ja), "セルがエラー値です");
        assert_eq!(
            hint(&plain, Lang::Ja).as_deref(),
            Some("数式（か、その参照先のセル）を直して値が出るようにしてください")
        );
    }
}
