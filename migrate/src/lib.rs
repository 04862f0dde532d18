//! Other tools' layouts into masterctl's own: `schema infer` drafts schema files from
//! any workbook or CSV file (`infer`), and `migrate luban` converts a Luban project
//! (`luban`). What masterctl's own schemas are stays in `masterctl-schemas`; this crate
//! reads what others wrote and writes schema files and `masterctl.toml`.

pub mod infer;
pub mod luban;
pub mod written;
