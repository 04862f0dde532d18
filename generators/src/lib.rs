//! Generated masters: tables computed from other tables on every import, never edited
//! by hand. This crate computes reverse lookups (`[reverse]`: "where can item X be
//! obtained") and writes them as canonical CSV under `generated/`.

pub mod reverse;

pub use reverse::{ReverseTable, reverse_table};
