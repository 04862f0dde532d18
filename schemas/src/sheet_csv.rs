//! CSV files people open in a spreadsheet (translators' exchange files, the rebase
//! conflict file): UTF-8 with a byte order mark and CRLF, so that Excel opens them
//! right, and one rule against CSV injection for all of them.
//!
//! A cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return would be run as
//! a formula by spreadsheets: every such cell, and every cell starting with `'`, is
//! written with a leading `'`, which [`restore`] takes off again when the file is read.

/// What a cell starting like this would become in a spreadsheet: a formula, or (`'`) a
/// text marker that the application hides.
const FORMULA_STARTS: [char; 7] = ['=', '+', '-', '@', '\t', '\r', '\''];

/// The byte order mark that tells a spreadsheet application the file is UTF-8.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A cell a spreadsheet will show as typed.
pub fn neutralise(text: &str) -> std::borrow::Cow<'_, str> {
    if text.starts_with(FORMULA_STARTS) {
        format!("'{text}").into()
    } else {
        text.into()
    }
}

/// The cell's text as it was before [`neutralise`].
#[inline]
pub fn restore(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(FORMULA_STARTS) => rest,
        _ => cell,
    }
}

/// A CSV writer for such a file, the byte order mark already written.
pub fn writer(capacity: usize) -> csv::Writer<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity + BOM.len());
    out.extend_from_slice(BOM);
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(out)
}

/// Write one record, every cell neutralised.
pub fn write_record<S: AsRef<str>>(
    writer: &mut csv::Writer<Vec<u8>>,
    cells: &[S],
) -> Result<(), csv::Error> {
    writer.write_record(cells.iter().map(|c| neutralise(c.as_ref()).into_owned()))
}

/// The bytes a CSV writer into memory wrote. Memory does not run out of space, but the
/// csv crate refuses a record whose length differs from the first one's: that error
/// reaches the caller (swallowed, it would commit a file missing rows).
pub fn finish(writer: csv::Writer<Vec<u8>>) -> Result<Vec<u8>, csv::Error> {
    writer
        .into_inner()
        .map_err(|e| csv::Error::from(e.into_error()))
}

/// The file's bytes without the byte order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas_are_neutralised_and_restored() {
        for text in [
            "=HYPERLINK(\"http://x\")",
            "+1",
            "-1",
            "@SUM(A1)",
            "\tx",
            "\rx",
            "'quoted",
            "''",
            "plain",
            "",
        ] {
            let cell = neutralise(text);
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{cell}"
            );
            assert_eq!(restore(&cell), text);
        }
        assert_eq!(restore("'tis"), "'tis");
    }

    #[test]
    fn files_carry_a_bom_and_crlf() {
        let mut w = writer(0);
        write_record(&mut w, &["a", "=1"]).unwrap();
        let bytes = finish(w).unwrap();
        assert_eq!(bytes, b"\xEF\xBB\xBFa,'=1\r\n");
        assert_eq!(strip_bom(&bytes), b"a,'=1\r\n");
        // A record of another length is an error, not a missing row.
        let mut w = writer(0);
        write_record(&mut w, &["a", "b"]).unwrap();
        assert!(write_record(&mut w, &["only one"]).is_err());
    }
}
