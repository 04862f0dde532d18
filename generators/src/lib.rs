//! Generated masters: tables computed from other tables on every import and rebase,
//! never edited by hand — reverse lookups (`[reverse]`: "where can item X be obtained")
//! and custom masters (`[custom]`: groups, weighted tables, matrices) — written as
//! canonical CSV under `generated/`.

pub mod custom;
pub mod reverse;

use std::collections::HashMap;

use masterctl_schemas::schema::{GeneratedKind, GeneratedSchema, Project};
use masterctl_schemas::{Table, Value};

pub use custom::custom_table;
pub use reverse::reverse_table;

/// A computed master, ready to be written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GeneratedTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<Value>>,
}

impl GeneratedTable {
    /// The canonical CSV form (`generated/<name>.csv`); a row of another width than the
    /// header is an error.
    pub fn to_csv(&self) -> Result<Vec<u8>, csv::Error> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        writer.write_record(&self.header)?;
        for row in &self.rows {
            writer.write_record(row.iter().map(Value::canonical))?;
        }
        masterctl_schemas::canonical::finish(writer)
    }
}

/// Compute a generated master from a snapshot's tables (by name); `None` when a custom
/// master's table is not among them.
pub fn generate(
    project: &Project,
    generated: &GeneratedSchema,
    tables: &HashMap<&str, &Table>,
) -> Option<GeneratedTable> {
    match &generated.kind {
        GeneratedKind::Reverse(reverse) => Some(reverse_table(project, reverse, tables)),
        GeneratedKind::Custom(custom) => {
            let schema = project.table(&custom.table)?;
            let table = tables.get(custom.table.as_str())?;
            Some(custom_table(schema, custom, table))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_of_another_width_is_an_error_not_a_missing_row() {
        let mut table = GeneratedTable {
            header: vec!["item_id".into(), "source".into()],
            rows: vec![vec![Value::Int(1), Value::Str("shop".into())]],
        };
        assert_eq!(table.to_csv().unwrap(), b"item_id,source\n1,shop\n");
        table.rows.push(vec![Value::Int(2)]);
        assert!(table.to_csv().is_err());
    }
}
