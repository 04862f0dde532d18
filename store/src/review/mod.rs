//! What changed and who changed it: the keyed diff every review output renders and its
//! HTML page (`diff`), who last changed each cell (`blame`) and what each pair of
//! versions changed, kept for it (`row_changes`), a branch's imports (`history`).
//! Workflows call review (an import's dry run, a rebase's review, commits keeping the
//! keys they changed); review names no workflow (`cli/tests/architecture.rs`).

pub mod blame;
pub mod diff;
pub mod history;
pub mod row_changes;
