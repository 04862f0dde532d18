//! What a watcher runs, said to the fleet's operators: the release its build holds, its
//! versions and audience, when it was taken, and the last refusal and why — kept in a
//! file beside the build (`.NAME.status.json`) and served as JSON and in Prometheus's
//! text format (`masterctl watch --listen`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use masterctl_runtime::files;
use serde::{Deserialize, Serialize};

use crate::DeliveryError;

/// A watcher's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub region: String,
    /// The release the build holds (none before the first is taken).
    pub release: Option<String>,
    /// The versions (tags `masters/<region>/<version>`) naming its commit when published.
    pub versions: Vec<String>,
    /// Whose build it is (`server`, `client`), when not every audience's.
    pub audience: Option<String>,
    /// When it was taken (UTC).
    pub taken: Option<String>,
    /// The key that signed it and the number it stated, when it was signed.
    pub signed: Option<crate::signing::SignedAs>,
    /// When the store was last asked (UTC).
    pub checked: Option<String>,
    /// The last release refused, why, and when.
    pub refusal: Option<Refusal>,
    /// Refusals counted since the status file was made, by reason.
    pub refusals: BTreeMap<String, u64>,
    /// Why the last report to the store (`--report`) failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_failed: Option<String>,
}

/// A release not taken.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Refusal {
    /// When (UTC).
    pub at: String,
    /// Why, in one word: `unsigned`, `untrusted`, `replayed`, `damaged`, `unreachable`,
    /// `missing`, `local`.
    pub reason: String,
    /// The whole message.
    pub message: String,
}

/// The one word a refusal is counted under.
pub fn reason_of(error: &DeliveryError) -> &'static str {
    match error {
        DeliveryError::Unsigned { .. } => "unsigned",
        DeliveryError::BadSignature { .. } => "untrusted",
        DeliveryError::Replayed { .. } => "replayed",
        DeliveryError::Corrupt { .. }
        | DeliveryError::TooLarge { .. }
        | DeliveryError::Foreign { .. }
        | DeliveryError::Unloadable(_) => "damaged",
        DeliveryError::Unreachable { .. }
        | DeliveryError::Untrusted { .. }
        | DeliveryError::Refused { .. }
        | DeliveryError::NoBucket { .. }
        | DeliveryError::Failed { .. } => "unreachable",
        DeliveryError::Missing { .. }
        | DeliveryError::NoRelease { .. }
        | DeliveryError::UnknownLanguage { .. }
        | DeliveryError::Ambiguous { .. } => "missing",
        _ => "local",
    }
}

impl Status {
    /// A watcher of `region` that has taken nothing yet.
    pub fn new(region: &str) -> Status {
        Status {
            region: region.to_string(),
            ..Status::default()
        }
    }

    /// The store asked at `now`, and `fetched` taken (or found already there).
    pub fn took(
        &mut self,
        fetched: &crate::Fetched,
        release: Option<&crate::layout::Release>,
        audience: Option<String>,
        now: &str,
    ) {
        self.checked = Some(now.to_string());
        if self.release.as_deref() != Some(&fetched.release) || self.taken.is_none() {
            self.taken = Some(now.to_string());
        }
        self.release = Some(fetched.release.clone());
        self.versions = release.map(|r| r.versions.clone()).unwrap_or_default();
        self.audience = audience;
        self.signed = (fetched.signed.as_ref()).map(|s| crate::signing::SignedAs {
            key: s.key.clone(),
            sequence: s.sequence,
        });
    }

    /// The store asked at `now`, and nothing new there.
    pub fn unchanged(&mut self, now: &str) {
        self.checked = Some(now.to_string());
    }

    /// The store asked at `now`, and what it offered refused for `error`.
    pub fn refused(&mut self, error: &DeliveryError, now: &str) {
        let reason = reason_of(error);
        self.checked = Some(now.to_string());
        *self.refusals.entry(reason.to_string()).or_default() += 1;
        self.refusal = Some(Refusal {
            at: now.to_string(),
            reason: reason.to_string(),
            message: error.to_string(),
        });
    }

    /// Its metrics in Prometheus's text format, `age_seconds` since the build was taken.
    pub fn to_prometheus(&self, age_seconds: Option<f64>) -> String {
        let region = label(&self.region);
        let mut text = String::new();
        header(
            &mut text,
            "masterctl_release_info",
            "gauge",
            "The release the build holds (1), by region, release and version.",
        );
        if let Some(release) = &self.release {
            let version = (self.versions.last()).map_or("", |v| v.rsplit('/').next().unwrap_or(v));
            let (release, version) = (label(release), label(version));
            let _ = writeln!(
                text,
                "masterctl_release_info{{region=\"{region}\",release=\"{release}\",version=\"{version}\"}} 1"
            );
        }
        header(
            &mut text,
            "masterctl_release_age_seconds",
            "gauge",
            "Seconds since the build's release was taken.",
        );
        if let Some(age) = age_seconds {
            let _ = writeln!(
                text,
                "masterctl_release_age_seconds{{region=\"{region}\"}} {age:.3}"
            );
        }
        header(
            &mut text,
            "masterctl_refusals_total",
            "counter",
            "Releases refused, by reason (counted since the status file was made).",
        );
        for (reason, count) in &self.refusals {
            let reason = label(reason);
            let _ = writeln!(
                text,
                "masterctl_refusals_total{{region=\"{region}\",reason=\"{reason}\"}} {count}"
            );
        }
        text
    }
}

/// A metric's `# HELP` and `# TYPE` lines.
fn header(text: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(text, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

/// A label value escaped for Prometheus's text format: `\`, `"` and a line break.
fn label(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Where a watcher of the build `out` keeps its status: beside it.
pub fn status_path(out: &Path) -> PathBuf {
    crate::beside(out, ".status.json")
}

/// Write `status` at `path` (beside it, then moved into place).
pub fn write_status(path: &Path, status: &Status) -> Result<(), DeliveryError> {
    let bytes = serde_json::to_vec_pretty(status).unwrap_or_default();
    files::write_atomic(path, &bytes).map_err(DeliveryError::io(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The metrics a fleet's operators scrape: the release held with its version, its
    /// age, and refusals counted by reason, every label escaped.
    #[test]
    fn the_metrics_say_the_release_its_age_and_refusals_by_reason() {
        let mut status = Status::new("jp");
        assert_eq!(
            status
                .to_prometheus(None)
                .lines()
                .filter(|l| !l.starts_with('#'))
                .count(),
            0,
            "nothing held, nothing refused"
        );
        status.release = Some("0123abcd".into());
        status.versions = vec!["masters/jp/1.3".into(), "masters/jp/1.4".into()];
        let unsigned = DeliveryError::Unsigned {
            store: "s".into(),
            region: "jp".into(),
            release: "r".into(),
        };
        status.refused(&unsigned, "2026-12-07T10:00:00.000Z");
        status.refused(&unsigned, "2026-12-07T10:00:30.000Z");
        status.refused(&DeliveryError::Key("k".into()), "2026-12-07T10:01:00.000Z");
        let text = status.to_prometheus(Some(12.5));
        for line in [
            "masterctl_release_info{region=\"jp\",release=\"0123abcd\",version=\"1.4\"} 1",
            "masterctl_release_age_seconds{region=\"jp\"} 12.500",
            "masterctl_refusals_total{region=\"jp\",reason=\"unsigned\"} 2",
            "masterctl_refusals_total{region=\"jp\",reason=\"local\"} 1",
            "# TYPE masterctl_refusals_total counter",
        ] {
            assert!(text.lines().any(|l| l == line), "{line}\n{text}");
        }
        let refusal = status.refusal.unwrap();
        assert_eq!(
            (refusal.reason.as_str(), refusal.at.as_str()),
            ("local", "2026-12-07T10:01:00.000Z")
        );
        assert_eq!(label("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
