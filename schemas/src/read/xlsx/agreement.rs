//! The reader against calamine's, on every real workbook the project holds (files
//! applications wrote: Excel, LibreOffice, WPS, Google Sheets, generators): every
//! sheet's cells — position, value and whether a formula stands without one — read
//! alike. Where they part (a value calamine misreads), the workbooks here never go.

use std::path::{Path, PathBuf};

use calamine::{DataRef, Reader, Xlsx};

use super::Workbook;

fn workbooks(folder: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(folder).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            workbooks(&path, found);
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("xlsx") || e.eq_ignore_ascii_case("xlsm"))
        {
            found.push(path);
        }
    }
}

/// A cell as compared: position, value, and whether it is a formula without a value.
type Read<'a> = ((u32, u32), DataRef<'a>, bool);

fn without_value(value: &DataRef<'_>, formula: Option<&str>) -> bool {
    *value == DataRef::Empty && formula.is_some_and(|f| !f.is_empty())
}

#[test]
fn every_real_workbook_reads_as_calamine_reads_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut paths = Vec::new();
    workbooks(&root, &mut paths);
    paths.sort();
    assert!(
        paths.len() > 100,
        "{} workbooks under {}",
        paths.len(),
        root.display()
    );
    let (mut sheets, mut cells) = (0, 0);
    for path in &paths {
        let Ok(mut theirs) = calamine::open_workbook::<Xlsx<_>, _>(path) else {
            continue;
        };
        let archive =
            zip::ZipArchive::new(std::io::BufReader::new(std::fs::File::open(path).unwrap()));
        let mut ours = match Workbook::of(archive.unwrap()) {
            Ok(Some(ours)) => ours,
            other => panic!("{}: {:?}", path.display(), other.err()),
        };
        assert_eq!(
            ours.sheet_names(),
            theirs.sheet_names(),
            "{}",
            path.display()
        );
        for name in theirs.sheet_names() {
            let Ok(mut reader) = theirs.worksheet_cells_reader(&name) else {
                continue;
            };
            let mut expected: Vec<Read<'_>> = Vec::new();
            while let Ok(Some(cell)) = reader.next_cell_with_formula() {
                let formula = without_value(&cell.value, cell.formula.as_deref());
                if cell.value != DataRef::Empty || formula {
                    expected.push((cell.pos, cell.value, formula));
                }
            }
            let xml = ours.sheet_xml(&name).unwrap();
            let mut read = ours.cells(&xml).unwrap();
            let mut got: Vec<Read<'_>> = Vec::new();
            while let Some(cell) = read
                .next_cell()
                .unwrap_or_else(|e| panic!("{} {name}: {e}", path.display()))
            {
                let formula = without_value(&cell.value, cell.formula.as_deref());
                if cell.value != DataRef::Empty || formula {
                    got.push((cell.pos, cell.value, formula));
                }
            }
            for (e, g) in expected.iter().zip(&got) {
                // A date-time is what its format shows (calamine keeps the serial as
                // written): the same serial, rounded to some fraction of a second.
                let shown = match (&e.1, &g.1) {
                    (DataRef::DateTime(e), DataRef::DateTime(g)) => (0..=3).any(|fraction| {
                        let rounded =
                            super::styles::Format::DateTime { fraction }.shown(e.as_f64());
                        rounded == g.as_f64() && e.is_datetime() && g.is_datetime()
                    }),
                    _ => false,
                } && (e.0, e.2) == (g.0, g.2);
                if !shown {
                    assert_eq!(e, g, "{} sheet `{name}`", path.display());
                }
            }
            assert_eq!(
                expected.len(),
                got.len(),
                "{} sheet `{name}`",
                path.display()
            );
            sheets += 1;
            cells += got.len();
        }
    }
    assert!(
        sheets > 200 && cells > 10_000,
        "{sheets} sheets, {cells} cells"
    );
}
