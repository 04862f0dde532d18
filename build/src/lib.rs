//! A build: what `masterctl build` writes from one commit's snapshot and what reads it
//! back beside the runtime. `archive` turns the tables, generated masters and texts into
//! the runtime's rkyv archives (the format is the runtime's, `masterctl_runtime::format`,
//! which every loader shares); `client` the portable little-endian export and its JSON
//! for clients that cannot read rkyv (`docs/CLIENT-FORMAT.md`); `columns` a column
//! from typed values, `parts` the columns of records' and unions' parts (fields,
//! cases); `inspect` a build opened and queried as a server would
//! (`masterctl inspect`).

pub mod archive;
pub mod client;
mod columns;
pub mod inspect;
mod parts;
