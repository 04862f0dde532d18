//! Datetimes as people read them in a diff: canonical files hold instants in UTC
//! (`2025-02-01T03:00:00Z`); a review shows them in the project's zone with the offset
//! (`2025-02-01T12:00:00+09:00`). A cell whose two versions are one instant spelled two
//! ways (a file written before datetimes carried `Z`) is no change.

use masterctl_schemas::zone::read_datetime;
use masterctl_schemas::{FieldType, TableSchema};

use super::{ChangeKind, Content};
use crate::review::diff::Change;

/// Rewrite the datetime cells of `changes` (changes of the table `schema` describes)
/// in its zone, and drop cell changes that change no instant.
pub(super) fn show_in_zone(schema: &TableSchema, changes: &mut Vec<Change>) {
    let zoned = |column: &str| {
        schema
            .fields
            .iter()
            .find(|f| f.name == column && f.ty == FieldType::DateTime)
    };
    if !schema.fields.iter().any(|f| f.ty == FieldType::DateTime) {
        return;
    }
    let shown = |column: &str, text: &mut String| {
        if let Some(field) = zoned(column)
            && let Some(instant) = read_datetime(text.trim(), Some(&field.zone))
        {
            *text = field.zone.show(instant);
        }
    };
    for change in changes.iter_mut() {
        for content in [&mut change.old, &mut change.new].into_iter().flatten() {
            match content {
                Content::Text(text) => {
                    if let Some(column) = &change.column {
                        shown(column, text);
                    }
                }
                Content::Row(cells) => {
                    for (column, text) in cells {
                        shown(column, text);
                    }
                }
                Content::Names(_) => {}
            }
        }
    }
    changes.retain(|c| !(c.kind == ChangeKind::CellChanged && c.old == c.new));
}
