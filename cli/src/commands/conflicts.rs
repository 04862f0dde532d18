//! The conflicts a stopped join shows, as text — shared by the commands that join
//! (`rebase`, `merge`, `pull`) and by a pull before a write (`sync`), so that neither
//! reaches into the other.

use std::path::Path;

use masterctl_store::join::session::ConflictEntry;

use crate::output::{Output, counted};

/// Cells (and structure files) both sides changed differently: nothing committed; where
/// they are listed, and `again`, the command that goes on once they are resolved.
pub(super) fn conflict_lines(
    output: &Output,
    conflicts: &[ConflictEntry],
    file: Option<&Path>,
    again: &str,
) {
    for entry in conflicts {
        match entry {
            ConflictEntry::Structure { table, reason, .. } => {
                output.line(format!("conflict {table}: {reason}"));
            }
            ConflictEntry::Cell {
                table,
                key,
                column,
                base,
                ours,
                theirs,
                ..
            } => output.line(format!(
                "conflict {table} ({key}) {}: base {base}, ours {ours}, theirs {theirs}",
                column.as_deref().unwrap_or_default()
            )),
        }
    }
    output.line(format!(
        "{} {}; nothing was committed",
        output.bold("conflicts:"),
        counted(conflicts.len(), "conflicting cell")
    ));
    if let Some(file) = file {
        output.line(format!(
            "resolve them in {} (resolution: ours, theirs, or value with the value), or with --ours/--theirs [--table T] [--column C] [--key K]; then `{again} --continue`, or --abort",
            file.display(),
        ));
    }
}
