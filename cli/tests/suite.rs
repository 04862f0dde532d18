//! The command line end to end, as users run it: every command on the bundled fixtures and on hostile input, against a folder, S3 and HTTP stores, a git remote and a browser.
//!
//! One test binary for the crate (each module a file beside this one): one link, and
//! the tests of every file run together.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod architecture;
mod build;
mod cli;
mod codegen;
mod common;
mod console_browser;
mod delivery;
mod diff;
mod hostile;
mod import;
mod json_shapes;
mod kill;
mod l10n;
mod migrate;
mod readme;
mod rebase;
mod reference;
mod remote;
mod snapshots;
