//! Publishing and fetching against folders: what a publish writes, the records it reads
//! back, and stores that are damaged, forged or hostile.
//!
//! One test binary for the crate (each module a file beside this one): one link, and
//! the tests of every file run together. `http2.rs` and `race.rs` are binaries of their
//! own: each sets the process's environment (a certificate authority, credentials).

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod common;
mod fleet;
mod hostile;
mod publish;
mod records;
mod signed;
mod signed_scenario;
