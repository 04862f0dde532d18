//! A rebase stopped on conflicts: its state and the conflict file planners resolve.
//!
//! `<git dir>/masterctl/rebase/<region>/` holds `state` (the region head, upstream head
//! and import point the rebase started from) and `conflicts.csv`: one row per
//! conflicting cell — table, key, column, kind, base, ours, theirs — and a `resolution`
//! (`ours`, `theirs`, or `value` with the value in the `value` column) that the planner
//! fills in a spreadsheet, or that `--ours` / `--theirs` fill. `--continue` merges again
//! (the merge is deterministic), applies the resolutions, validates and commits.

use std::collections::HashMap;
use std::path::PathBuf;

use git2::Oid;
use masterctl_schemas::Value;
use masterctl_schemas::sheet_csv;

use super::TableConflicts;
use super::resolutions::{Resolution, Resolutions, key_text};
use crate::MasterRepo;
use crate::StoreError;
use crate::merge::ConflictKind;
use crate::names::Branch;

/// The columns of `conflicts.csv`.
pub const HEADER: [&str; 9] = [
    "table",
    "key",
    "column",
    "kind",
    "base",
    "ours",
    "theirs",
    "resolution",
    "value",
];

/// Where a rebase (or merge) started; `--continue` refuses if any of it moved.
/// `region_head` is the head of the branch that moves, `upstream_head` the head of the
/// one it takes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RebaseState {
    pub region_head: Oid,
    pub upstream_head: Oid,
    pub base: Oid,
    /// What stopped: `rebase`, or `merge` (a work branch reflected into its region).
    /// A state written without one is a rebase's.
    pub kind: String,
    /// What it takes from, as the step names it (`jp`, `work/jp/event`); shown only.
    pub source: String,
}

pub fn state_dir(repo: &MasterRepo, line: &Branch) -> PathBuf {
    repo.git.path().join("masterctl").join(line.state_path())
}

pub fn conflict_file(repo: &MasterRepo, line: &Branch) -> PathBuf {
    state_dir(repo, line).join("conflicts.csv")
}

fn io(path: &std::path::Path, e: std::io::Error) -> StoreError {
    StoreError::io(path)(e)
}

/// A state or conflict file that is not what masterctl wrote.
fn bad_file(path: &std::path::Path, message: impl Into<String>) -> StoreError {
    StoreError::StateFile {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

/// The state of a rebase or merge in progress on `line`, if there is one.
pub fn load_state(repo: &MasterRepo, line: &Branch) -> Result<Option<RebaseState>, StoreError> {
    let path = state_dir(repo, line).join("state");
    let Some(bytes) = read_limited(&path, STATE_LIMIT)? else {
        return Ok(None);
    };
    let text = String::from_utf8_lossy(&bytes);
    let field = |name: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(name).and_then(|v| v.strip_prefix(' ')))
            .and_then(|v| Oid::from_str(v.trim()).ok())
            .ok_or_else(|| bad_file(&path, format!("the rebase state has no valid `{name}`")))
    };
    let state = RebaseState {
        region_head: field("region_head")?,
        upstream_head: field("upstream_head")?,
        base: field("base")?,
        kind: text
            .lines()
            .find_map(|l| l.strip_prefix("kind "))
            .map_or("rebase", str::trim)
            .to_string(),
        source: text
            .lines()
            .find_map(|l| l.strip_prefix("source "))
            .map(|s| crate::names::display_name(s.trim()))
            .unwrap_or_default(),
    };
    // A rebase that committed, then was killed before it cleared its state, has landed:
    // the branch's head is its commit (parents: where it stopped, then what it took).
    if let Some(head) = repo.head_of(&line.reference())?
        && head
            .parent_ids()
            .eq([state.region_head, state.upstream_head])
    {
        clear(repo, line)?;
        return Ok(None);
    }
    Ok(Some(state))
}

/// Refuse to write on `line` while a rebase or merge is stopped on it.
pub fn refuse_if_stopped(repo: &MasterRepo, line: &Branch) -> Result<(), StoreError> {
    match load_state(repo, line)? {
        Some(state) => Err(StoreError::RebaseInProgress {
            branch: line.branch().to_string(),
            region: line.name().to_string(),
            work: line.work().map(|w| w.name().to_string()),
            kind: state.kind,
            from: state.source,
        }),
        None => Ok(()),
    }
}

/// The most a state file may hold (three commit ids and their names).
const STATE_LIMIT: u64 = 4096;
/// The most a conflict file may hold: far more than any real rebase writes.
const CONFLICTS_LIMIT: u64 = 1 << 30;

/// A state file, if there is one: a regular file within its limit, or an error naming it.
fn read_limited(path: &std::path::Path, limit: u64) -> Result<Option<Vec<u8>>, StoreError> {
    masterctl_runtime::files::read_regular(path, limit)
        .map_err(|e| bad_file(path, format!("{e}; a rebase state masterctl did not write")))
}

fn kind_text(kind: ConflictKind) -> &'static str {
    match kind {
        ConflictKind::Cell => "changed-both",
        ConflictKind::DeletedUpstream => "deleted-upstream",
        ConflictKind::DeletedInRegion => "deleted-in-region",
        ConflictKind::BothAdded => "added-both",
        ConflictKind::NewColumnWithoutValue => "new-column-without-value",
    }
}

/// Save the state and the conflict file (resolutions already made are carried over).
pub fn save(
    repo: &MasterRepo,
    line: &Branch,
    state: &RebaseState,
    conflicts: &[TableConflicts],
    resolutions: &Resolutions,
) -> Result<PathBuf, StoreError> {
    let dir = state_dir(repo, line);
    std::fs::create_dir_all(&dir).map_err(|e| io(&dir, e))?;
    // A spreadsheet opens this file: every cell by the one rule against formulas.
    let mut writer = sheet_csv::writer(4096);
    let file = conflict_file(repo, line);
    let failed = |source| StoreError::Csv {
        what: file.display().to_string(),
        source,
    };
    sheet_csv::write_record(&mut writer, &HEADER).map_err(failed)?;
    let show = |v: &Option<Value>| {
        v.as_ref()
            .map_or_else(|| "(none)".to_string(), Value::canonical)
    };
    for table in conflicts {
        if table.conflicts.is_empty() {
            // A structure file both sides changed: resolved as a whole.
            let (resolution, value) =
                match resolutions.get(&(table.table.clone(), String::new(), String::new())) {
                    Some(Resolution::Ours) => ("ours", String::new()),
                    Some(Resolution::Theirs) => ("theirs", String::new()),
                    _ => ("", String::new()),
                };
            sheet_csv::write_record(
                &mut writer,
                &[
                    table.table.as_str(),
                    "",
                    "",
                    table.reason.as_str(),
                    "(file)",
                    "(file)",
                    "(file)",
                    resolution,
                    &value,
                ],
            )
            .map_err(failed)?;
        }
        for c in &table.conflicts {
            let column = table.fields.get(c.field).cloned().unwrap_or_default();
            let key = key_text(&c.key);
            let (resolution, value) =
                match resolutions.get(&(table.table.clone(), key.clone(), column.clone())) {
                    Some(Resolution::Ours) => ("ours", String::new()),
                    Some(Resolution::Theirs) => ("theirs", String::new()),
                    Some(Resolution::Value(v)) => ("value", v.clone()),
                    None => ("", String::new()),
                };
            sheet_csv::write_record(
                &mut writer,
                &[
                    table.table.as_str(),
                    &key,
                    &column,
                    kind_text(c.kind),
                    &show(&c.base),
                    &show(&c.ours),
                    &show(&c.theirs),
                    resolution,
                    &value,
                ],
            )
            .map_err(failed)?;
        }
    }
    write_atomic(&file, &sheet_csv::finish(writer).map_err(failed)?)?;
    let text = format!(
        "region_head {}\nupstream_head {}\nbase {}\nkind {}\nsource {}\n",
        state.region_head,
        state.upstream_head,
        state.base,
        state.kind,
        crate::names::one_line(&state.source)
    );
    write_atomic(&dir.join("state"), text.as_bytes())?;
    Ok(file)
}

fn write_atomic(path: &std::path::Path, bytes: &[u8]) -> Result<(), StoreError> {
    masterctl_runtime::files::write_atomic(path, bytes).map_err(|e| io(path, e))
}

/// The resolutions written in the conflict file (rows without one are left out).
pub fn load_resolutions(repo: &MasterRepo, line: &Branch) -> Result<Resolutions, StoreError> {
    let path = conflict_file(repo, line);
    let Some(bytes) = read_limited(&path, CONFLICTS_LIMIT)? else {
        return Ok(Resolutions::new());
    };
    parse_resolutions(&bytes).map_err(|message| StoreError::ConflictFile {
        path: path.display().to_string(),
        message,
    })
}

/// The resolutions a conflict file's bytes hold, or why they cannot be taken: a broken
/// header, a resolution that is not one, two different resolutions of one cell.
pub fn parse_resolutions(bytes: &[u8]) -> Result<Resolutions, String> {
    let bytes = sheet_csv::strip_bom(bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(bytes);
    let headers = reader.headers().map_err(|e| e.to_string())?.clone();
    let column = |name: &str| headers.iter().position(|h| h.trim() == name);
    let (Some(t), Some(k), Some(c), Some(r)) = (
        column("table"),
        column("key"),
        column("column"),
        column("resolution"),
    ) else {
        return Err("the conflict file lost its header (table, key, column, resolution)".into());
    };
    let v = column("value");
    // Each cell's resolution and the line that first gave it, to refuse another one.
    let mut given: HashMap<(String, String, String), (Resolution, u64)> = HashMap::new();
    let mut lines = masterctl_schemas::read::csv::LineCounter::new(bytes);
    for record in reader.records() {
        let record = record.map_err(|e| e.to_string())?;
        // Lines of the file as a planner sees it (after the byte order mark).
        let line = record.position().map_or(0, |p| lines.line_at(p.byte()));
        let get = |i: usize| sheet_csv::restore(record.get(i).unwrap_or_default()).to_string();
        let resolution = match get(r).trim().to_ascii_lowercase().as_str() {
            "" => continue,
            "ours" => Resolution::Ours,
            "theirs" => Resolution::Theirs,
            "value" => Resolution::Value(v.map(&get).unwrap_or_default()),
            other => {
                return Err(format!(
                    "line {line}: resolution `{}` is not ours, theirs or value",
                    crate::names::display_name(other)
                ));
            }
        };
        let cell = (get(t), get(k), get(c));
        match given.get(&cell) {
            Some((earlier, first)) if *earlier != resolution => {
                return Err(format!(
                    "lines {first} and {line} resolve {} ({}) {} differently: keep one",
                    crate::names::display_name(&cell.0),
                    crate::names::display_name(&cell.1),
                    crate::names::display_name(&cell.2),
                ));
            }
            Some(_) => {}
            None => {
                given.insert(cell, (resolution, line));
            }
        }
    }
    Ok(given
        .into_iter()
        .map(|(cell, (resolution, _))| (cell, resolution))
        .collect())
}

/// Remove the state of a rebase (after it committed, or on `--abort`).
pub fn clear(repo: &MasterRepo, line: &Branch) -> Result<(), StoreError> {
    let dir = state_dir(repo, line);
    match std::fs::remove_dir_all(&dir) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(&dir, e)),
    }
}

/// Set the resolution of the conflict file's rows matching the filters (every filter
/// that is `None` matches all). Returns (rows set, rows still without a resolution).
pub fn mark(
    repo: &MasterRepo,
    line: &Branch,
    side: &Resolution,
    table: Option<&str>,
    column: Option<&str>,
    key: Option<&str>,
) -> Result<(usize, usize), StoreError> {
    let path = conflict_file(repo, line);
    let bytes = read_limited(&path, CONFLICTS_LIMIT)?.ok_or_else(|| {
        bad_file(
            &path,
            "the conflict file is missing: the rebase cannot go on",
        )
    })?;
    let body = sheet_csv::strip_bom(&bytes);
    let mut reader = csv::ReaderBuilder::new().flexible(true).from_reader(body);
    let mut records: Vec<Vec<String>> = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|e| StoreError::ConflictFile {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let mut fields: Vec<String> = record
            .iter()
            .map(|cell| sheet_csv::restore(cell).to_string())
            .collect();
        fields.resize(HEADER.len(), String::new());
        records.push(fields);
    }
    let (word, value) = match side {
        Resolution::Ours => ("ours", String::new()),
        Resolution::Theirs => ("theirs", String::new()),
        Resolution::Value(v) => ("value", v.clone()),
    };
    let mut set = 0;
    for fields in &mut records {
        let matches = table.is_none_or(|t| fields[0] == t)
            && key.is_none_or(|k| fields[1] == k)
            && column.is_none_or(|c| fields[2] == c);
        if matches {
            fields[7] = word.to_string();
            fields[8] = value.clone();
            set += 1;
        }
    }
    let remaining = records.iter().filter(|f| f[7].trim().is_empty()).count();
    let mut writer = sheet_csv::writer(bytes.len() + 64);
    let failed = |source| StoreError::Csv {
        what: path.display().to_string(),
        source,
    };
    sheet_csv::write_record(&mut writer, &HEADER).map_err(failed)?;
    for fields in &records {
        sheet_csv::write_record(&mut writer, fields).map_err(failed)?;
    }
    write_atomic(&path, &sheet_csv::finish(writer).map_err(failed)?)?;
    Ok((set, remaining))
}
