//! What a rebase did or could not do, per table: changes taken and kept, conflicts.

use crate::merge::Conflict;

/// Per table: upstream changes taken, and upstream changes not taken (region-owned).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct TableRebase {
    pub table: String,
    pub applied: usize,
    pub kept: usize,
    /// Conflicting cells resolved (in the conflict file or with --ours/--theirs).
    pub resolved: usize,
    /// Rows upstream added, whose cells in the region's own columns took upstream's
    /// values (the region had none): the region sets them with its next import.
    #[serde(skip_serializing_if = "is_zero")]
    pub seeded: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Conflicts of one table (or of a structure file, with `table` = its path).
#[derive(Debug, Clone, PartialEq)]
pub struct TableConflicts {
    pub table: String,
    /// Field names by index, to name conflicting columns.
    pub fields: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// For a structure file: why it conflicts (`conflicts` is then empty).
    pub reason: String,
}
