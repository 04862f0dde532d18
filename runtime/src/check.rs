//! Validation at open: rkyv's bytecheck proves each archive's structure (every pointer
//! and length inside the file, every enum tag known, every string UTF-8); the checks
//! here prove what the accessors rely on — column lengths, offsets, row ids — so that a
//! damaged file is an error at open, never a wrong answer later.

use rkyv::rancor;

use crate::format::{
    ArchivedArchiveFile, ArchivedBody, ArchivedColumnData, ArchivedGroupData, ArchivedTableData,
    ArchivedValues, FORMAT_VERSION,
};
use crate::{LoadCause, Masters};

/// The archive's format version, read without validating anything else: the root's
/// first field, at a fixed distance from the end of the file.
pub fn version(bytes: &[u8]) -> Result<(), LoadCause> {
    let root = std::mem::size_of::<ArchivedArchiveFile>();
    let Some(at) = bytes.len().checked_sub(root) else {
        return Err(LoadCause::Invalid(format!(
            "{} bytes is too short for an archive",
            bytes.len()
        )));
    };
    let found = bytes
        .get(at..at + 4)
        .and_then(|b| b.try_into().ok())
        .map_or(0, u32::from_le_bytes);
    if found != FORMAT_VERSION {
        return Err(LoadCause::Version {
            found,
            expected: FORMAT_VERSION,
        });
    }
    Ok(())
}

/// Check one archive: structure, version, invariants.
pub fn archive(bytes: &[u8]) -> Result<(), LoadCause> {
    if bytes.len() < 8 {
        return Err(LoadCause::Invalid(format!(
            "{} bytes is too short for an archive",
            bytes.len()
        )));
    }
    // Look at the version alone first: a file of another version may not even have
    // this version's shape.
    let archive = rkyv::access::<ArchivedArchiveFile, rancor::BoxedError>(bytes)
        .map_err(|e| LoadCause::Invalid(format!("{e}")))?;
    let version = archive.version.to_native();
    if version != FORMAT_VERSION {
        return Err(LoadCause::Version {
            found: version,
            expected: FORMAT_VERSION,
        });
    }
    body(&archive.body).map_err(LoadCause::Invalid)
}

fn body(body: &ArchivedBody) -> Result<(), String> {
    match body {
        ArchivedBody::Table(table) => table_data(table),
        ArchivedBody::Strings(strings) => {
            let rows = strings.rows.to_native() as usize;
            for field in strings.fields.iter() {
                if !field.values.is_well_formed() {
                    return Err(format!(
                        "text field `{}`: string ends out of order or inside a character",
                        field.name
                    ));
                }
                if field.values.len() != rows {
                    return Err(format!(
                        "text field `{}` has {} values for {rows} rows",
                        field.name,
                        field.values.len()
                    ));
                }
                if !field.fallback.is_empty() && field.fallback.len() != rows {
                    return Err(format!(
                        "text field `{}` has a short fallback list",
                        field.name
                    ));
                }
            }
            Ok(())
        }
        ArchivedBody::Group(group) => group_data(group),
        ArchivedBody::Weighted(weighted) => {
            group_data(&weighted.group)?;
            if weighted.cumulative.len() != weighted.group.rows.len() {
                return Err("cumulative weights are not aligned with the rows".into());
            }
            Ok(())
        }
        ArchivedBody::Matrix(matrix) => {
            let cells = matrix.row_values.len() * matrix.column_values.len();
            column(&matrix.cells, cells)
        }
    }
}

fn table_data(table: &ArchivedTableData) -> Result<(), String> {
    let rows = table.rows.to_native() as usize;
    for c in table.columns.iter() {
        column(c, rows).map_err(|why| format!("table `{}`: {why}", table.name))?;
    }
    let columns = table.columns.len();
    if table
        .primary_key
        .iter()
        .any(|c| c.to_native() as usize >= columns)
    {
        return Err(format!(
            "table `{}`: a key column does not exist",
            table.name
        ));
    }
    for index in table.indexes.iter() {
        if index
            .columns
            .iter()
            .chain(index.order_by.iter())
            .any(|c| c.to_native() as usize >= columns)
        {
            return Err(format!(
                "table `{}`: an index column does not exist",
                table.name
            ));
        }
        if index.rows.len() != rows || index.rows.iter().any(|r| r.to_native() as usize >= rows) {
            return Err(format!(
                "table `{}`: an index does not cover the rows",
                table.name
            ));
        }
    }
    Ok(())
}

fn column(column: &ArchivedColumnData, rows: usize) -> Result<(), String> {
    let values = match &column.values {
        ArchivedValues::Int(v) => v.len(),
        ArchivedValues::Float(v) => v.len(),
        ArchivedValues::Bool(v) => v.len(),
        ArchivedValues::Str(v) => {
            if !v.is_well_formed() {
                return Err(format!(
                    "column `{}`: string ends out of order or inside a character",
                    column.name
                ));
            }
            v.len()
        }
        ArchivedValues::Date(v) => v.len(),
        ArchivedValues::DateTime(v) => v.len(),
    };
    if !column.nulls.is_empty() && column.nulls.len() != rows.div_ceil(64) {
        return Err(format!(
            "column `{}`: the null bitmap does not fit the rows",
            column.name
        ));
    }
    if column.list {
        let offsets = &column.offsets;
        let monotonic = offsets
            .windows(2)
            .all(|w| w[0].to_native() <= w[1].to_native());
        let fits = offsets
            .last()
            .is_some_and(|last| last.to_native() as usize <= values);
        if offsets.len() != rows + 1 || !monotonic || !fits {
            return Err(format!("column `{}`: list offsets do not fit", column.name));
        }
    } else if values != rows {
        return Err(format!(
            "column `{}`: {values} values for {rows} rows",
            column.name
        ));
    }
    Ok(())
}

fn group_data(group: &ArchivedGroupData) -> Result<(), String> {
    table_data(&group.keys)?;
    let offsets = &group.offsets;
    let monotonic = offsets
        .windows(2)
        .all(|w| w[0].to_native() <= w[1].to_native());
    let fits = offsets
        .last()
        .is_some_and(|last| last.to_native() as usize <= group.rows.len());
    if offsets.len() != group.keys.rows.to_native() as usize + 1 || !monotonic || !fits {
        return Err(format!("group `{}`: offsets do not fit", group.name));
    }
    Ok(())
}

/// Checks across files: generated masters and texts point at tables of the build, with
/// row ids and row counts that fit them. Errors name the file by its manifest position.
pub(crate) fn across(masters: &Masters) -> Result<(), (usize, String)> {
    let rows_of = |table: &str| masters.table(table).map(|t| t.len());
    for (i, entry) in masters.manifest().files.iter().enumerate() {
        let group = match &masters.archive(i).body {
            ArchivedBody::Group(group) => Some(group),
            ArchivedBody::Weighted(weighted) => Some(&weighted.group),
            ArchivedBody::Strings(strings) => {
                let rows = rows_of(strings.table.as_str()).ok_or_else(|| {
                    (
                        i,
                        format!("texts of `{}`, a table the build lacks", strings.table),
                    )
                })?;
                if rows != strings.rows.to_native() as usize {
                    return Err((
                        i,
                        format!(
                            "texts for {} rows; `{}` has {rows}",
                            strings.rows, strings.table
                        ),
                    ));
                }
                None
            }
            _ => None,
        };
        if let Some(group) = group {
            let rows = rows_of(group.table.as_str()).ok_or_else(|| {
                (
                    i,
                    format!(
                        "`{}` groups `{}`, a table the build lacks",
                        entry.name, group.table
                    ),
                )
            })?;
            if group.rows.iter().any(|r| r.to_native() as usize >= rows) {
                return Err((
                    i,
                    format!("a row id beyond the {rows} rows of `{}`", group.table),
                ));
            }
        }
    }
    Ok(())
}
