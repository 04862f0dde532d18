//! Readers and validation on real files: the studio workbooks, the real-world ones, broken and hostile inputs, bombs.
//!
//! One test binary for the crate (each module a file beside this one): one link, and
//! the tests of every file run together.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

mod audiences;
mod bombs;
mod bool_spellings;
mod broken;
mod canonical;
mod cases;
mod common;
mod datetimes;
mod escapes;
mod hunt;
mod kinds;
mod luban;
mod maps;
mod multi_row;
mod one_large_table;
mod real_world;
mod records;
mod repeated_headers;
mod schema_errors;
mod several_sheets;
mod studio_workbooks;
mod unions;
mod unread;
