//! The application layer as both faces call it: a write with the remote around it, and
//! the actions of more than one step (codegen, a diff's sides, the translation reads).
//!
//! One test binary for the crate (each module a file beside this one).

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod actions;
mod around;
mod browse;
mod notify;
