//! Fleets that say what they run: a watcher with `--report` writes a small record of
//! what its build holds to `fleet/<region>/<host>.json` in the store after every round
//! (overwritten, a few hundred bytes), so that `releases --fleet` counts the servers
//! running each release and `gc` keeps a release a reporting server still runs. A
//! report older than [`FRESH_SECONDS`] is taken for a server gone, and not counted.

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;
use serde::{Deserialize, Serialize};

use crate::remote::Remote;
use crate::status::Status;
use crate::{DeliveryError, layout};

/// How long a report counts: a watcher reports every round (30 s by default).
pub const FRESH_SECONDS: i64 = 3600;

/// How old a report is when `gc` deletes it: a server silent for a day is gone.
pub const EXPIRED_SECONDS: u64 = 86_400;

/// The most bytes a report may have.
pub const REPORT_LIMIT: u64 = 4096;

/// What a server reports it runs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Report {
    pub masterctl_fleet: u32,
    pub region: String,
    pub host: String,
    /// The release its build holds (none yet).
    pub release: Option<String>,
    /// When it took it (UTC).
    pub taken: Option<String>,
    /// When it reported (UTC).
    pub reported: String,
    /// Why its last refusal was (one word), when the last round refused a release.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// `fleet/<region>/<host>.json`.
pub fn report_key(region: &str, host: &str) -> String {
    format!("fleet/{region}/{host}.json")
}

/// A host's name as it may be part of a store key: letters, digits, `.`, `-` and `_`,
/// 1 to 64 of them, not `.` or `..`.
pub fn check_host(host: &str) -> Result<(), DeliveryError> {
    let plain = !host.is_empty()
        && host.len() <= 64
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_'))
        && host != "."
        && host != "..";
    match plain {
        true => Ok(()),
        false => Err(DeliveryError::BadName(host.to_string())),
    }
}

/// Write `status` as the report of `host` (its key named by them: both checked).
pub async fn report(remote: &Remote, host: &str, status: &Status) -> Result<(), DeliveryError> {
    layout::check_region(&status.region)?;
    check_host(host)?;
    let refused = (status.refusal.as_ref())
        .filter(|r| status.checked.as_deref() == Some(r.at.as_str()))
        .map(|r| r.reason.clone());
    let report = Report {
        masterctl_fleet: 1,
        region: status.region.clone(),
        host: host.to_string(),
        release: status.release.clone(),
        taken: status.taken.clone(),
        reported: layout::now(),
        refused,
    };
    let bytes = serde_json::to_vec(&report).unwrap_or_default();
    remote.put(&report_key(&status.region, host), bytes).await
}

/// The fresh reports on the store (of one region, or of all), by region and host; a
/// report that is not one masterctl writes, or not of the key it is under, is passed
/// over.
pub async fn reports(remote: &Remote, region: Option<&str>) -> Result<Vec<Report>, DeliveryError> {
    let prefix = match region {
        Some(region) => {
            layout::check_region(region)?;
            format!("fleet/{region}/")
        }
        None => "fleet/".to_string(),
    };
    let listed = remote.list(&prefix).await?;
    Ok(fresh(remote, &listed).await)
}

/// The fresh reports of every region, and the keys of those no server has rewritten
/// for [`EXPIRED_SECONDS`], from one listing (what `gc` keeps and deletes).
pub async fn reports_and_expired(
    remote: &Remote,
) -> Result<(Vec<Report>, Vec<String>), DeliveryError> {
    let listed = remote.list("fleet/").await?;
    let expired = (listed.iter())
        .filter(|l| l.age >= EXPIRED_SECONDS && l.key.ends_with(".json"))
        .map(|l| l.key.clone())
        .collect();
    Ok((fresh(remote, &listed).await, expired))
}

/// The reports among `listed` read, those of the last [`FRESH_SECONDS`] kept.
async fn fresh(remote: &Remote, listed: &[crate::remote::Listed]) -> Vec<Report> {
    let keys = listed
        .iter()
        .map(|l| l.key.as_str())
        .filter(|k| k.ends_with(".json"));
    let reads: Vec<_> = keys.map(|key| read_report(remote, key)).collect();
    let read: Vec<Option<Report>> = futures::stream::iter(reads)
        .buffered(crate::CONCURRENCY)
        .collect()
        .await;
    let fresh = |report: &Report| {
        layout::millis_since(&report.reported).is_some_and(|age| age <= FRESH_SECONDS * 1000)
    };
    read.into_iter().flatten().filter(fresh).collect()
}

/// The report at `key`, when it reads as one of its key.
async fn read_report(remote: &Remote, key: &str) -> Option<Report> {
    let bytes = remote.get(key, REPORT_LIMIT).await.ok()??;
    let report: Report = serde_json::from_slice(&bytes).ok()?;
    let named = report.masterctl_fleet == 1
        && check_host(&report.host).is_ok()
        && layout::check_region(&report.region).is_ok()
        && report_key(&report.region, &report.host) == key;
    named.then_some(report)
}

/// The hosts running each release, by region and release.
pub fn running(reports: &[Report]) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut running: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for report in reports {
        if let Some(release) = &report.release {
            let at = (report.region.clone(), release.clone());
            running.entry(at).or_default().insert(report.host.clone());
        }
    }
    running
}
