//! Export's files: where each workbook goes in the format asked, and its bytes — xlsx,
//! ODS or CSV — made on every core, then written (each file replaced atomically) or
//! handed over whole (the console's download).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use masterctl_schemas::read::parallel_map;

use super::{Cell, Export, Exported, ExportedFile, Format, Sheet, Workbook, file_safe, ods};
use crate::StoreError;

/// One file an export makes: its path under the output folder (`/`-separated), its
/// bytes, and the tables it holds with their row counts.
pub struct ExportFile {
    pub path: String,
    pub bytes: Vec<u8>,
    pub tables: Vec<(String, usize)>,
}

/// A file to make of a workbook: where, in which format, and which of its sheets.
struct Target {
    path: String,
    format: Format,
    sheets: Vec<usize>,
}

impl Workbook {
    /// Where the workbook goes when `format` is asked, as import maps it back:
    /// `<sheet>.<format>` for a table no `source` names; the file its tables' `source`
    /// names when that is of the format (a CSV source always: a CSV file is one
    /// sheet); with `csv`, a CSV file per sheet of a sourced workbook, `<stem>#<sheet>.csv`
    /// beside it (import maps it to that sheet). A source of the other workbook format
    /// is refused, naming the format that would do, and so is one export does not write.
    fn targets(&self, format: Format) -> Result<Vec<Target>, String> {
        let every = || (0..self.sheets.len()).collect::<Vec<usize>>();
        let whole = |path: String, format: Format| {
            let sheets = every();
            vec![Target {
                path,
                format,
                sheets,
            }]
        };
        if !self.sourced {
            let stem = self.path.strip_suffix(".xlsx").unwrap_or(&self.path);
            return Ok(whole(format!("{stem}.{}", format.name()), format));
        }
        match (Format::of(&self.path), format) {
            (Some(Format::Csv), _) => Ok(whole(self.path.clone(), Format::Csv)),
            (_, Format::Csv) => {
                let stem = match self.path.rsplit_once('.') {
                    Some((stem, _)) => stem,
                    None => &self.path,
                };
                Ok((self.sheets.iter().enumerate())
                    .map(|(index, sheet)| Target {
                        path: format!("{stem}#{}.csv", file_safe(&sheet.name)),
                        format: Format::Csv,
                        sheets: vec![index],
                    })
                    .collect())
            }
            (Some(source), asked) if source == asked => Ok(whole(self.path.clone(), source)),
            (Some(source), _) => Err(format!(
                "its tables are read from {} (their source): export them as {} (or csv)",
                self.path,
                source.name()
            )),
            (None, _) => Err(format!(
                "its tables are read from {} (their source), a format export does not write: export them as csv, or change the source to an xlsx workbook",
                self.path
            )),
        }
    }
}

/// Every file of `export` when `format` is asked, and the tables each holds: where each
/// goes settled for all first (a refusal makes nothing).
fn jobs(export: &Export, format: Format) -> Result<Vec<(&Workbook, Target)>, StoreError> {
    let mut jobs: Vec<(&Workbook, Target)> = Vec::new();
    for workbook in &export.workbooks {
        let targets = workbook
            .targets(format)
            .map_err(|message| StoreError::Export {
                path: PathBuf::from(&workbook.path),
                message,
            })?;
        jobs.extend(targets.into_iter().map(|target| (workbook, target)));
    }
    Ok(jobs)
}

/// The tables a file holds, with their row counts.
fn tables_of(workbook: &Workbook, target: &Target) -> Vec<(String, usize)> {
    (target.sheets.iter())
        .map(|&s| &workbook.sheets[s])
        .map(|s| (s.table.clone(), s.rows.len()))
        .collect()
}

/// Make the file `target` of `workbook` into `out`: xlsx streamed as it is compressed,
/// ODS and CSV made whole then written.
fn make(
    export: &Export,
    workbook: &Workbook,
    target: &Target,
    out: &mut (impl std::io::Write + Send),
) -> Result<(), String> {
    let laid_out = || super::vertical::laid_out(workbook).map_err(|e| e.to_string());
    let bytes = match target.format {
        Format::Xlsx => {
            return super::xlsx::write(export, &*laid_out()?, out);
        }
        Format::Ods => ods::ods_bytes(export, &*laid_out()?).map_err(|e| e.0)?,
        // A CSV target is one sheet.
        Format::Csv => match target.sheets.as_slice() {
            [sheet] => csv_bytes(export, &workbook.sheets[*sheet])?,
            _ => return Err("a CSV file holds one sheet".to_string()),
        },
    };
    out.write_all(&bytes).map_err(|e| e.to_string())
}

/// Every file of `export` when `format` is asked, made on every core once where each
/// goes has been settled for all (a refusal makes nothing).
pub fn files(export: &Export, format: Format) -> Result<Vec<ExportFile>, StoreError> {
    let jobs = jobs(export, format)?;
    let made = parallel_map(&jobs, |(workbook, target)| {
        let mut bytes = Vec::new();
        make(export, workbook, target, &mut bytes).map_err(|message| StoreError::Export {
            path: PathBuf::from(&target.path),
            message,
        })?;
        Ok(ExportFile {
            path: target.path.clone(),
            bytes,
            tables: tables_of(workbook, target),
        })
    });
    made.into_iter().collect()
}

/// Write `export` under `out` as `format` asks: each file made on every core straight
/// into a file beside its place (never held whole in memory), and once all are made,
/// each replaces what was there (nothing is replaced when one fails); files there that
/// export does not write are left alone.
pub fn write(export: &Export, out: &Path, format: Format) -> Result<Exported, StoreError> {
    // A file refused is named where it would have been written.
    let refused = |error| match error {
        StoreError::Export { path, message } => StoreError::Export {
            path: out.join(path),
            message,
        },
        other => other,
    };
    let jobs = jobs(export, format).map_err(refused)?;
    std::fs::create_dir_all(out).map_err(StoreError::io(out))?;
    let staged = parallel_map(&jobs, |(workbook, target)| {
        let path = out.join(&target.path);
        std::fs::create_dir_all(masterctl_runtime::files::parent_of(&path))
            .map_err(StoreError::io(&path))?;
        let made = masterctl_runtime::files::stage(&path, |file| {
            let mut writer = std::io::BufWriter::with_capacity(1 << 16, file);
            make(export, workbook, target, &mut writer).map_err(Made::Refused)?;
            writer.flush().map_err(Made::Io)
        });
        made.map_err(|made| match made {
            Made::Refused(message) => StoreError::Export {
                path: path.clone(),
                message,
            },
            Made::Io(error) => StoreError::io(&path)(error),
        })
    });
    // Every file made before any replaces what was there.
    let staged: Vec<masterctl_runtime::files::Staged> =
        staged.into_iter().collect::<Result<_, _>>()?;
    let mut exported = Vec::new();
    for (file, (workbook, target)) in staged.into_iter().zip(&jobs) {
        let path = out.join(&target.path);
        file.place().map_err(StoreError::io(&path))?;
        exported.push(ExportedFile {
            path: target.path.clone(),
            tables: tables_of(workbook, target),
        });
    }
    Ok(Exported {
        region: export.region.clone(),
        commit: export.commit.clone(),
        out: out.to_path_buf(),
        files: exported,
    })
}

/// Why a file could not be made: refused (its content), or not written (the disk).
enum Made {
    Refused(String),
    Io(std::io::Error),
}

impl From<std::io::Error> for Made {
    fn from(error: std::io::Error) -> Made {
        Made::Io(error)
    }
}

/// A sheet as a CSV file: UTF-8 with a byte order mark and CRLF, a text that a
/// spreadsheet would run as a formula written with a leading `'` (import takes it off),
/// and under the header the comment row `#masterctl-commit <commit> <region>`.
fn csv_bytes(export: &Export, sheet: &Sheet) -> Result<Vec<u8>, String> {
    use masterctl_schemas::read::workbook::CSV_RECORD;
    use masterctl_schemas::sheet_csv;
    let mut writer = sheet_csv::writer(sheet.rows.len() * 32);
    let record = |writer: &mut csv::Writer<Vec<u8>>, cells: Vec<String>| {
        writer.write_record(&cells).map_err(|e| e.to_string())
    };
    record(&mut writer, sheet.header.clone())?;
    // One cell, the others empty: every record of a CSV file has one width.
    let mut mark = vec![String::new(); sheet.header.len().max(1)];
    mark[0] = format!("{CSV_RECORD} {} {}", export.commit, export.region);
    record(&mut writer, mark)?;
    for row in sheet.rows.iter() {
        let cells = row
            .cells()
            .map(|cell| match cell {
                Cell::Empty => String::new(),
                Cell::Number(x) => x.to_string(),
                Cell::Bool(b) => b.to_string(),
                Cell::Digits(t) => t.to_owned(),
                Cell::Text(t) => sheet_csv::neutralise(t).into_owned(),
            })
            .collect();
        record(&mut writer, cells)?;
    }
    writer.into_inner().map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::Rows;

    /// A workbook at `path` of sheets of these names, holding nothing.
    fn book(path: &str, sourced: bool, sheets: &[&str]) -> Workbook {
        let sheet = |name: &&str| Sheet {
            table: "t".into(),
            name: name.to_string(),
            header: Vec::new(),
            rows: Rows::default(),
            looks: Vec::new(),
            layout: Default::default(),
            row_looks: Vec::new(),
        };
        Workbook {
            path: path.into(),
            sourced,
            sheets: sheets.iter().map(sheet).collect(),
        }
    }

    /// Where the workbook's files go when `format` is asked.
    fn paths(workbook: &Workbook, format: Format) -> Result<Vec<String>, String> {
        let targets = workbook.targets(format)?;
        Ok(targets.into_iter().map(|t| t.path).collect())
    }

    #[test]
    fn a_workbook_goes_where_import_maps_it_back() {
        let own = book("Item.xlsx", false, &["Item"]);
        assert_eq!(paths(&own, Format::Xlsx).unwrap(), ["Item.xlsx"]);
        assert_eq!(paths(&own, Format::Ods).unwrap(), ["Item.ods"]);
        assert_eq!(paths(&own, Format::Csv).unwrap(), ["Item.csv"]);
        // A table's `source` names the file import maps: written in its format, or
        // as a CSV file per sheet that import maps to the sheet.
        let sourced = book("items/道具.xlsm", true, &["Item", "Gem"]);
        assert_eq!(paths(&sourced, Format::Xlsx).unwrap(), ["items/道具.xlsm"]);
        let refused = paths(&sourced, Format::Ods).unwrap_err();
        assert!(refused.contains("export them as xlsx"), "{refused}");
        assert_eq!(
            paths(&sourced, Format::Csv).unwrap(),
            ["items/道具#Item.csv", "items/道具#Gem.csv"]
        );
        let ods = book("quests.ods", true, &["Quest"]);
        assert_eq!(paths(&ods, Format::Ods).unwrap(), ["quests.ods"]);
        assert!(
            paths(&ods, Format::Xlsx)
                .unwrap_err()
                .contains("export them as ods")
        );
        // A CSV source is a CSV file whatever else is asked.
        for format in [Format::Xlsx, Format::Ods, Format::Csv] {
            assert_eq!(
                paths(&book("a.csv", true, &["a"]), format).unwrap(),
                ["a.csv"]
            );
        }
        let old = book("old.xls", true, &["Old"]);
        assert!(paths(&old, Format::Xlsx).is_err());
        assert_eq!(paths(&old, Format::Csv).unwrap(), ["old#Old.csv"]);
    }

    /// A file that cannot be made (an ODS file cannot hold a control character) leaves
    /// every file as it was — the others made are not placed — and nothing beside them.
    #[test]
    fn a_file_not_made_leaves_every_file_as_it_was() {
        use super::super::Cell;
        let sheet = |name: &str, text: &str| Sheet {
            table: name.into(),
            name: name.into(),
            header: vec!["body".into()],
            rows: Rows::of(1, [[Cell::Text(text)]]).unwrap(),
            looks: Vec::new(),
            layout: Default::default(),
            row_looks: Vec::new(),
        };
        let workbook = |name: &str, text: &str| Workbook {
            path: format!("{name}.xlsx"),
            sourced: false,
            sheets: vec![sheet(name, text)],
        };
        let export = Export {
            region: "jp".into(),
            commit: "0".repeat(40),
            workbooks: vec![workbook("fine", "plain"), workbook("bell", "ring\u{7}")],
        };
        let out = tempfile::tempdir().unwrap();
        std::fs::write(out.path().join("fine.ods"), "kept").unwrap();
        let refused = write(&export, out.path(), Format::Ods).err().unwrap();
        let StoreError::Export { path, message } = refused else {
            panic!("{refused}");
        };
        assert_eq!(path, out.path().join("bell.ods"));
        assert!(message.contains("U+0007"), "{message}");
        let names: Vec<_> = std::fs::read_dir(out.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["fine.ods"]);
        assert_eq!(
            std::fs::read_to_string(out.path().join("fine.ods")).unwrap(),
            "kept"
        );
        // Made, both are placed.
        let export = Export {
            workbooks: vec![workbook("fine", "plain"), workbook("bell", "ring")],
            ..export
        };
        write(&export, out.path(), Format::Ods).unwrap();
        assert_ne!(std::fs::read(out.path().join("fine.ods")).unwrap(), b"kept");
        assert!(out.path().join("bell.ods").is_file());
    }

    /// A refused format writes nothing, and names the file where it would have gone.
    #[test]
    fn a_refused_file_is_named_where_it_would_go_and_nothing_is_written() {
        let export = Export {
            region: "jp".into(),
            commit: "0".repeat(40),
            workbooks: vec![
                book("Item.xlsx", false, &["Item"]),
                book("quests.ods", true, &["Quest"]),
            ],
        };
        let out = tempfile::tempdir().unwrap();
        let refused = write(&export, &out.path().join("out"), Format::Xlsx)
            .err()
            .unwrap();
        let StoreError::Export { path, message } = refused else {
            panic!("{refused}");
        };
        assert_eq!(path, out.path().join("out/quests.ods"));
        assert!(message.contains("export them as ods"), "{message}");
        assert!(!out.path().join("out").exists());
    }
}
