//! The store's workflows as both faces call them: imports, the keyed merge and its resolutions, work branches, remotes, audiences, lists.
//!
//! One test binary for the crate (each module a file beside this one): one link, and
//! the tests of every file run together.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod audiences;
mod common;
mod edit;
mod export_layouts;
mod export_looks;
mod lists;
mod merge;
mod remote;
mod resolutions;
mod revert;
mod several_sheets;
mod work_branches;
mod workflows;
