//! Generated masters: tables computed from other tables on every import and rebase,
//! never edited by hand — reverse lookups (`[reverse]`: "where can item X be obtained")
//! and custom masters (`[custom]`: groups, weighted tables, matrices) — written as
//! canonical CSV under `generated/`.

pub mod archive;
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
    /// The canonical CSV form (`generated/<name>.csv`).
    pub fn to_csv(&self) -> Vec<u8> {
        let mut writer = csv::WriterBuilder::new()
            .terminator(csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        let _ = writer.write_record(&self.header);
        for row in &self.rows {
            let _ = writer.write_record(row.iter().map(Value::canonical));
        }
        writer.into_inner().unwrap_or_default()
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
