//! A file's text and the spans TOML gives: every diagnostic of a schema or
//! configuration file names its line and column.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;

use crate::diagnostic::{Code, Diagnostic, Location};

use super::*;

/// A file's text, to turn byte spans into lines and columns.
pub(super) struct SourceText<'a> {
    pub(super) path: &'a Path,
    pub(super) text: &'a str,
    /// Where each line starts, found once, on the first error.
    pub(super) line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> SourceText<'a> {
    pub(super) fn new(path: &'a Path, text: &'a str) -> SourceText<'a> {
        SourceText {
            path,
            text,
            line_starts: std::cell::OnceCell::new(),
        }
    }

    pub(super) fn location(&self, span: Range<usize>) -> Location {
        let start = span.start.min(self.text.len());
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', self.text.as_bytes()).map(|i| i + 1))
                .collect()
        });
        let line_index = starts.partition_point(|&s| s <= start).saturating_sub(1);
        let line = line_index as u64 + 1;
        let line_start = starts[line_index];
        let column = self.text[line_start..start].chars().count() as u64 + 1;
        Location {
            line: Some(line),
            column: Some(column),
            ..Location::file(self.path)
        }
    }

    pub(super) fn error(
        &self,
        code: Code,
        span: Range<usize>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, self.location(span), message)
    }

    pub(super) fn stem(&self) -> String {
        self.path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

pub(super) fn toml_error(source: &SourceText, error: &toml::de::Error) -> Diagnostic {
    let message = error.message().trim().to_string();
    let code = if message.starts_with("unknown field") {
        Code::UnknownOption
    } else {
        Code::SchemaSyntax
    };
    let location = match error.span() {
        Some(span) => source.location(span),
        None => Location::file(source.path),
    };
    Diagnostic::new(code, location, message)
}

pub(super) fn identifier_error(
    source: &SourceText,
    what: &str,
    name: &Spanned<String>,
) -> Diagnostic {
    source
        .error(
            Code::InvalidName,
            name.span(),
            format!("{what} `{}` is not a plain identifier", name.get_ref()),
        )
        .found(name.get_ref().clone())
        .expected(format!(
            "lowercase letters, digits and `_`, starting with a letter, at most {MAX_NAME_LENGTH} characters"
        ))
}
