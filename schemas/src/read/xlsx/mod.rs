//! xlsx and xlsm workbooks, read here rather than through calamine: each part is
//! unpacked once into memory and its XML read in place (`tokens.rs`: a token is a
//! slice of the part, decoded only where it holds a reference), and every value is
//! read as it is written —
//! references, comments and CDATA inside `<v>` decoded or skipped, a shared-string
//! index that is no index refused. calamine read the raw text of `<v>` up to the first
//! `<` or `&` and took a non-index as the first shared string, without a word, so
//! every part had to be unpacked and scanned a second time to catch what it misread.
//!
//! Where a workbook is well-formed the values are calamine's ([`DataRef`]), so the
//! sheet grid and the typing are shared with the other formats and an import reads
//! what it read before: `<t>` trimmed of ASCII white space unless
//! `xml:space="preserve"`, `_xHHHH_` escapes decoded, rich text and phonetic runs as
//! Excel shows them, numbers typed as dates and durations by their cell's number
//! format, the 1904 epoch.
//!
//! [`DataRef`]: calamine::DataRef

mod package;
mod pieces;
mod sheet;
mod styles;
mod text;
mod tokens;

pub(super) use package::Hidden;
pub(super) use sheet::Cells;

use crate::read::zipped::Archive;

/// What is done with each piece of a sheet ([`Workbook::sheet_in_pieces`]): given its
/// cells, how many bytes of the part are read through it and how many the part
/// declares, it says whether to go on.
pub(super) type EachPiece<'e> =
    dyn FnMut(&mut Cells<'_>, (usize, u64)) -> Result<bool, String> + 'e;

/// An open xlsx or xlsm workbook: its sheets, shared strings and number formats.
pub(super) struct Workbook {
    package: package::Package,
    sheets: Vec<package::Sheet>,
    strings: text::SharedStrings,
    formats: Vec<styles::Format>,
    is_1904: bool,
}

impl Workbook {
    /// The workbook a zip holds; `Ok(None)` when it is no xlsx package (a binary
    /// workbook, no package relationships), for calamine to say what it is.
    pub(super) fn of(archive: Archive) -> Result<Option<Workbook>, String> {
        let mut package = package::Package::new(archive);
        let Some(document) = package.document()? else {
            return Ok(None);
        };
        let strings_part = document.beside("sharedStrings.xml");
        let strings = match package.part(&strings_part)? {
            Some(xml) => read_xml(&strings_part, &xml, text::shared_strings)?,
            None => text::SharedStrings::default(),
        };
        let styles_part = document.beside("styles.xml");
        let formats = match package.part(&styles_part)? {
            Some(xml) => read_xml(&styles_part, &xml, styles::cell_formats)?,
            None => Vec::new(),
        };
        let (sheets, is_1904) = package.sheets(&document)?;
        Ok(Some(Workbook {
            package,
            sheets,
            strings,
            formats,
            is_1904,
        }))
    }

    /// The sheets' names, in the workbook's order.
    pub(super) fn sheet_names(&self) -> Vec<String> {
        self.sheets.iter().map(|s| s.name.clone()).collect()
    }

    /// How sheet `name` is hidden, when it is.
    pub(super) fn hidden(&self, name: &str) -> Option<package::Hidden> {
        self.sheets.iter().find(|s| s.name == name)?.hidden
    }

    /// The XML of sheet `name`, unpacked.
    pub(super) fn sheet_xml(&mut self, name: &str) -> Result<Vec<u8>, String> {
        let part = self.sheet_part(name)?;
        self.package
            .part(&part)?
            .ok_or_else(|| format!("its part `{part}` is missing from the workbook"))
    }

    /// The part holding sheet `name`'s cells.
    fn sheet_part(&self, name: &str) -> Result<String, String> {
        let sheet = self
            .sheets
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| format!("the workbook has no sheet `{name}`"))?;
        match &sheet.kind {
            package::SheetKind::Worksheet(part) => Ok(part.clone()),
            package::SheetKind::Other(kind) => Err(format!("it is a {kind}, which holds no cells")),
        }
    }

    /// The cells of sheet `name`, a piece of its XML at a time ([`pieces`]): `each` is
    /// given each piece's cells in turn, with how many bytes of the part are read through
    /// it and how many the part declares, and says whether to go on. The part is never
    /// unpacked whole.
    pub(super) fn sheet_in_pieces(
        &mut self,
        name: &str,
        piece_bytes: usize,
        each: &mut EachPiece<'_>,
    ) -> Result<(), String> {
        let part = self.sheet_part(name)?;
        let Workbook {
            package,
            strings,
            formats,
            is_1904,
            ..
        } = self;
        let (reader, size) = package
            .part_reader(&part)?
            .ok_or_else(|| format!("its part `{part}` is missing from the workbook"))?;
        pieces::read(reader, size, piece_bytes, &mut |xml, offset, place| {
            let mut cells = Cells::resume(xml, strings, formats, *is_1904, place, offset)?;
            let go_on = each(&mut cells, (offset + xml.len(), size))?;
            Ok((cells.place(), go_on))
        })
    }

    /// The cells of a sheet's XML (from [`Workbook::sheet_xml`]), one at a time.
    pub(super) fn cells<'a>(&'a self, xml: &'a [u8]) -> Result<Cells<'a>, String> {
        Cells::new(xml, &self.strings, &self.formats, self.is_1904)
    }
}

/// What `read` makes of a part's XML; an error names the part, and where in it.
fn read_xml<T>(
    part: &str,
    xml: &[u8],
    read: impl FnOnce(&mut tokens::Tokens<'_>) -> Result<T, String>,
) -> Result<T, String> {
    let mut tokens = tokens::Tokens::new(xml).map_err(|e| format!("its part `{part}`: {e}"))?;
    read(&mut tokens).map_err(|e| format!("its part `{part}`, at byte {}: {e}", tokens.position()))
}

#[cfg(test)]
mod agreement;
