//! The review of a rebase: upstream's changes since the import point, each marked with
//! what the merge did with it, matched to the region's changes by place (a hash set of
//! table, kind, key, column and language: never one list scanned per change).

use std::collections::{HashMap, HashSet};

use super::{Change, ChangeKind, Diff, DiffOptions, Disposition, Side, diff};
use crate::StoreError;
use masterctl_schemas::value::KeyHash;

/// Where a change is: two changes at the same place are the same change of two sides.
type Place<'a> = (
    &'a str,
    ChangeKind,
    Option<&'a [String]>,
    Option<&'a str>,
    Option<&'a str>,
);

fn place(change: &Change) -> Place<'_> {
    (
        &change.table,
        change.kind,
        change.key.as_deref(),
        change.column.as_deref(),
        change.language.as_deref(),
    )
}

/// What a rebase would do, change by change: every change upstream made since the
/// import point (`base` → `theirs`), each marked applied (the merged snapshot takes it),
/// kept (the region's value stays: it owns the cell) or equal (the region has it
/// already); then what else the merge changes in the region (`ours` → `merged`: a
/// generated master computed again), marked applied.
pub fn rebase_review(
    base: &Side<'_>,
    theirs: &Side<'_>,
    ours: &Side<'_>,
    merged: &Side<'_>,
) -> Result<Diff, StoreError> {
    let options = DiffOptions::default();
    let upstream = diff(base, theirs, &options)?;
    let region = diff(ours, merged, &options)?;
    let in_region: HashSet<Place, KeyHash> = region.changes.iter().map(place).collect();
    // An upstream change the merge did not take was kept (the region holds its own value)
    // or was equal already: the region's own view of it, `ours` → `theirs`, tells which
    // — diffed only in the tables holding such a change.
    let undecided: Vec<String> = {
        let mut tables: Vec<&str> = upstream
            .changes
            .iter()
            .filter(|change| !in_region.contains(&place(change)))
            .map(|change| change.table.as_str())
            .collect();
        tables.sort_unstable();
        tables.dedup();
        tables.into_iter().map(str::to_string).collect()
    };
    let apart = match undecided.is_empty() {
        true => Diff::default(),
        false => diff(
            ours,
            theirs,
            &DiffOptions {
                tables: undecided,
                ..DiffOptions::default()
            },
        )?,
    };
    let (dispositions, region_only) = {
        let kept: HashSet<Place, KeyHash> = apart.changes.iter().map(place).collect();
        let upstream_places: HashSet<Place, KeyHash> = upstream.changes.iter().map(place).collect();
        let dispositions: Vec<Disposition> = upstream
            .changes
            .iter()
            .map(|change| {
                let at = place(change);
                if in_region.contains(&at) {
                    Disposition::Applied
                } else if kept.contains(&at) {
                    Disposition::Kept
                } else {
                    Disposition::Equal
                }
            })
            .collect();
        let region_only: Vec<bool> = region
            .changes
            .iter()
            .map(|change| !upstream_places.contains(&place(change)))
            .collect();
        (dispositions, region_only)
    };
    let mut review = Diff {
        tables: upstream.tables,
        changes: Vec::with_capacity(upstream.changes.len()),
    };
    for (mut change, disposition) in upstream.changes.into_iter().zip(dispositions) {
        change.disposition = Some(disposition);
        review.changes.push(change);
    }
    let mut reviewed: HashSet<String> = review.tables.iter().map(|t| t.table.clone()).collect();
    for (mut change, only) in region.changes.into_iter().zip(region_only) {
        if !only {
            continue;
        }
        change.disposition = Some(Disposition::Applied);
        if !reviewed.contains(&change.table)
            && let Some(t) = region.tables.iter().find(|t| t.table == change.table)
        {
            reviewed.insert(t.table.clone());
            review.tables.push(t.clone());
        }
        review.changes.push(change);
    }
    // Grouped by table, in the order of `tables` (the changes of one table stay in order).
    let order: HashMap<&str, usize> = review
        .tables
        .iter()
        .enumerate()
        .map(|(i, t)| (t.table.as_str(), i))
        .collect();
    let mut changes = std::mem::take(&mut review.changes);
    changes.sort_by_key(|c| order.get(c.table.as_str()).copied());
    review.changes = changes;
    Ok(review)
}
