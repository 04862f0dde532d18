//! Edits a planner gathers before committing them as one change: one draft per planner
//! and branch, kept in memory and — given a folder (the console's, under the git folder)
//! — written there as each changes, so a restarted console loses none. An edit of a
//! cell already edited replaces the value and keeps what the planner first saw; set back
//! to that, it goes. Who is editing which table is what the drafts hold — each planner
//! sees the others.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use masterctl_store::edit::Edit;
use serde::{Deserialize, Serialize};

/// One planner's edits of one branch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Draft {
    pub edits: Vec<Edit>,
    /// The message typed for the commit, kept while the draft is reviewed.
    pub message: String,
    /// When the last edit was added.
    #[serde(skip)]
    pub touched: Option<SystemTime>,
}

/// A draft as its file holds it.
#[derive(Serialize, Deserialize)]
struct Kept {
    branch: String,
    who: String,
    draft: Draft,
}

/// The largest draft file read back.
const LARGEST: u64 = 4 << 20;

/// Someone else editing a table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Editor {
    pub who: String,
    pub edits: usize,
}

/// Every draft, by branch and planner.
#[derive(Default)]
pub struct Drafts {
    drafts: Mutex<HashMap<(String, String), Draft>>,
    /// Where each draft is written (none: memory only).
    folder: Option<PathBuf>,
}

impl Drafts {
    /// Drafts in memory only.
    pub fn new() -> Drafts {
        Drafts::default()
    }

    /// Drafts written in `folder`, those there read back (a file that does not read is
    /// passed over).
    pub fn kept_in(folder: PathBuf) -> Drafts {
        let mut drafts = HashMap::new();
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            let read = masterctl_runtime::files::read_regular(&path, LARGEST)
                .ok()
                .flatten();
            if let Some(kept) = read.and_then(|bytes| serde_json::from_slice::<Kept>(&bytes).ok())
                && path == file_of(&folder, &kept.branch, &kept.who)
            {
                drafts.insert((kept.branch, kept.who), kept.draft);
            }
        }
        Drafts {
            drafts: Mutex::new(drafts),
            folder: Some(folder),
        }
    }

    fn with<T>(&self, branch: &str, who: &str, f: impl FnOnce(&mut Draft) -> T) -> T {
        let mut drafts = self
            .drafts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let key = (branch.to_string(), who.to_string());
        let draft = drafts.entry(key.clone()).or_default();
        let before = draft.clone();
        let out = f(draft);
        let changed = draft.edits != before.edits || draft.message != before.message;
        if changed && let Some(folder) = &self.folder {
            keep(folder, branch, who, draft);
        }
        if draft.edits.is_empty() && draft.message.is_empty() {
            drafts.remove(&key);
        }
        out
    }

    /// `who`'s draft of `branch` (empty when none).
    pub fn get(&self, branch: &str, who: &str) -> Draft {
        self.with(branch, who, |draft| draft.clone())
    }

    /// Add `edits` to `who`'s draft of `branch`.
    pub fn add(&self, branch: &str, who: &str, edits: Vec<Edit>) {
        self.with(branch, who, |draft| {
            for edit in edits {
                gather(&mut draft.edits, edit);
            }
            draft.touched = Some(SystemTime::now());
        });
    }

    /// Take edit `at` out of the draft (false: there is none).
    pub fn remove(&self, branch: &str, who: &str, at: usize) -> bool {
        self.with(branch, who, |draft| {
            (at < draft.edits.len())
                .then(|| draft.edits.remove(at))
                .is_some()
        })
    }

    /// Keep edit `at` over a colleague's change: it is now made against `now`, what
    /// the cell holds (false: there is no such cell edit).
    pub fn keep_over(&self, branch: &str, who: &str, at: usize, now: &str) -> bool {
        self.with(branch, who, |draft| match draft.edits.get_mut(at) {
            Some(Edit::Set { was, .. }) => {
                *was = now.to_string();
                true
            }
            _ => false,
        })
    }

    /// Keep the message typed for the commit.
    pub fn set_message(&self, branch: &str, who: &str, message: &str) {
        self.with(branch, who, |draft| draft.message = message.to_string());
    }

    /// Take the edits committed out of `who`'s draft of `branch`, with its message
    /// (edits added while the commit was made stay).
    pub fn committed(&self, branch: &str, who: &str, edits: &[Edit]) {
        self.with(branch, who, |draft| {
            draft.edits.retain(|e| !edits.contains(e));
            draft.message.clear();
        });
    }

    /// Drop `who`'s draft of `branch` (given up).
    pub fn clear(&self, branch: &str, who: &str) {
        self.with(branch, who, |draft| *draft = Draft::default());
    }

    /// The others editing `table` on `branch`, and how many edits each holds.
    pub fn editing(&self, branch: &str, table: &str, not: &str) -> Vec<Editor> {
        let drafts = self
            .drafts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut editors: Vec<Editor> = (drafts.iter())
            .filter(|((b, who), _)| b == branch && who != not)
            .filter_map(|((_, who), draft)| {
                let edits = draft.edits.iter().filter(|e| e.table() == table).count();
                (edits > 0).then(|| Editor {
                    who: who.clone(),
                    edits,
                })
            })
            .collect();
        editors.sort_by(|a, b| a.who.cmp(&b.who));
        editors
    }
}

/// The file of `who`'s draft of `branch` in `folder`: both names in hexadecimal, so no
/// name becomes a path.
fn file_of(folder: &Path, branch: &str, who: &str) -> PathBuf {
    let hex = |text: &str| text.bytes().map(|b| format!("{b:02x}")).collect::<String>();
    folder.join(format!("{}-{}.json", hex(branch), hex(who)))
}

/// Write `draft` to its file (or remove the file when it holds nothing). A draft not
/// written stays in memory: the console goes on.
fn keep(folder: &Path, branch: &str, who: &str, draft: &Draft) {
    let path = file_of(folder, branch, who);
    if draft.edits.is_empty() && draft.message.is_empty() {
        let _ = std::fs::remove_file(&path);
        return;
    }
    let kept = Kept {
        branch: branch.to_string(),
        who: who.to_string(),
        draft: draft.clone(),
    };
    if let Ok(bytes) = serde_json::to_vec(&kept)
        && std::fs::create_dir_all(folder).is_ok()
    {
        let _ = masterctl_runtime::files::write_atomic(&path, &bytes);
    }
}

/// Add `edit` to `edits`: a cell edited again keeps what was first seen, and goes
/// when set back to it; a row deleted twice is deleted once.
fn gather(edits: &mut Vec<Edit>, edit: Edit) {
    if let Edit::Set {
        table,
        key,
        field,
        value,
        ..
    } = &edit
    {
        let before = edits.iter().position(|e| {
            matches!(e, Edit::Set { table: t, key: k, field: f, .. } if t == table && k == key && f == field)
        });
        if let Some(at) = before {
            if let Edit::Set { was, value: v, .. } = &mut edits[at] {
                if was == value {
                    edits.remove(at);
                } else {
                    v.clone_from(value);
                }
            }
            return;
        }
    }
    if let Edit::Delete { table, key, .. } = &edit
        && edits
            .iter()
            .any(|e| matches!(e, Edit::Delete { table: t, key: k, .. } if t == table && k == key))
    {
        return;
    }
    edits.push(edit);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(key: &str, was: &str, value: &str) -> Edit {
        Edit::Set {
            table: "item".into(),
            key: key.into(),
            field: "price".into(),
            was: was.into(),
            value: value.into(),
        }
    }

    #[test]
    fn a_cell_edited_again_keeps_what_was_first_seen_and_goes_when_set_back() {
        let drafts = Drafts::new();
        drafts.add("masters/jp", "aiko", vec![set("1", "10", "12")]);
        drafts.add(
            "masters/jp",
            "aiko",
            vec![set("1", "12", "14"), set("2", "5", "6")],
        );
        assert_eq!(
            drafts.get("masters/jp", "aiko").edits,
            [set("1", "10", "14"), set("2", "5", "6")]
        );
        drafts.add("masters/jp", "aiko", vec![set("1", "14", "10")]);
        assert_eq!(drafts.get("masters/jp", "aiko").edits, [set("2", "5", "6")]);

        // Others see who edits which table; the editor does not see themself.
        drafts.add("masters/jp", "ben", vec![set("3", "1", "2")]);
        assert_eq!(
            drafts.editing("masters/jp", "item", "aiko"),
            [Editor {
                who: "ben".into(),
                edits: 1
            }]
        );
        assert!(drafts.editing("masters/jp", "shop", "aiko").is_empty());
        assert!(drafts.editing("masters/global", "item", "aiko").is_empty());

        // Kept over a colleague's change; removed; cleared.
        assert!(drafts.keep_over("masters/jp", "aiko", 0, "7"));
        assert_eq!(drafts.get("masters/jp", "aiko").edits, [set("2", "7", "6")]);
        assert!(!drafts.remove("masters/jp", "aiko", 3));
        drafts.clear("masters/jp", "ben");
        assert!(drafts.editing("masters/jp", "item", "aiko").is_empty());
    }

    #[test]
    fn drafts_kept_in_a_folder_outlive_the_console() {
        let folder = tempfile::tempdir().unwrap();
        let drafts = Drafts::kept_in(folder.path().to_path_buf());
        drafts.add("masters/jp", "aiko", vec![set("1", "10", "12")]);
        drafts.set_message("masters/jp", "aiko", "Cheaper");
        drafts.add("work/jp/event", "../ben", vec![set("2", "5", "6")]);
        let again = Drafts::kept_in(folder.path().to_path_buf());
        let draft = again.get("masters/jp", "aiko");
        assert_eq!(
            (draft.edits, draft.message.as_str()),
            (vec![set("1", "10", "12")], "Cheaper")
        );
        assert_eq!(
            again.get("work/jp/event", "../ben").edits,
            [set("2", "5", "6")]
        );
        // Committed or given up: gone from the folder too.
        again.clear("masters/jp", "aiko");
        again.clear("work/jp/event", "../ben");
        assert_eq!(std::fs::read_dir(folder.path()).unwrap().count(), 0);
    }
}
