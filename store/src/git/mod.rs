//! The plumbing beneath every workflow: the repository and its structure (`repo`), refs
//! moved with an expected old value and their locks (`refs`), objects written as one pack
//! (`pack`), large blobs read from the packs with their delta bases kept (`packed`), commits and the trailers they carry (`commit`), a commit's tables as
//! canonical CSV (`snapshot`). Nothing here names a workflow or the review: they call
//! down into this layer, never the other way (`cli/tests/architecture.rs`).

pub mod commit;
pub mod pack;
pub mod packed;
pub mod refs;
pub mod repo;
pub mod snapshot;
