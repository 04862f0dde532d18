//! The archive writer and the client export, read back through the runtime.
//!
//! One test binary for the crate (each module a file beside this one): one link, and
//! the tests of every file run together.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod archive;
mod client;
