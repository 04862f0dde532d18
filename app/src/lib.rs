//! What a masterctl user does, one function per action, for both faces: the command line
//! (`cli/`) and the console (`console/`) parse a request, make one call here and render
//! what it returns. Whatever the two must do alike lives here, so that it cannot drift
//! between them: taking a remote's side of a branch before a write and sending the
//! commit after it ([`sync`]), the branches a rebase or merge touches and what it does
//! ([`join`]), and what kind of failure an error is ([`Kinded`]) — from which the
//! command line takes its exit code and the console its HTTP status.
//!
//! Nothing here prints, exits or knows of HTTP.

pub mod browse;
pub mod codegen;
pub mod diff;
pub mod drafts;
pub mod export;
pub mod init;
pub mod join;
mod kind;
pub mod l10n;
pub mod memo;
pub mod migrate;
pub mod notify;
pub mod project;
pub mod release;
pub mod schemas;
pub mod sync;

pub use kind::Kinded;
pub use masterctl_store::ErrorKind;
