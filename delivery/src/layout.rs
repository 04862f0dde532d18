//! Where things are on a store, and the two records masterctl writes there besides
//! content: a release and the pointer to the current one.

use masterctl_runtime::Manifest;
use serde::{Deserialize, Serialize};

use crate::DeliveryError;

/// The version of the pointer (a reader refuses another), and the format of the release
/// records written before [`RELEASE_FORMAT`].
pub const LAYOUT_VERSION: u32 = 1;

/// The format of the release records written now: the record names its build's
/// manifest by the hash of its object, and says what `releases` shows of the build.
/// Records of format [`LAYOUT_VERSION`] (written before) hold the manifest itself;
/// both are read.
pub const RELEASE_FORMAT: u32 = 2;

/// A region as it appears in keys: what `masterctl.toml` accepts as a region name
/// (letters, digits, `_`, `-`; at most 64).
pub fn check_region(region: &str) -> Result<(), DeliveryError> {
    let ok = !region.is_empty()
        && region.len() <= 64
        && region
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then_some(())
        .ok_or_else(|| DeliveryError::BadName(region.to_string()))
}

/// A release id: the build's source commit, 40 or 64 lowercase hexadecimal digits, and
/// [`CLIENT_SUFFIX`] for a build holding the client export (`build --client`), so that
/// both builds of one commit can be published.
pub fn check_release(release: &str) -> Result<(), DeliveryError> {
    let commit = release.strip_suffix(CLIENT_SUFFIX).unwrap_or(release);
    let ok = matches!(commit.len(), 40 | 64)
        && commit
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    ok.then_some(())
        .ok_or_else(|| DeliveryError::BadName(release.to_string()))
}

/// What a client build's release id ends with.
pub const CLIENT_SUFFIX: &str = "-client";

/// A release id as people read it: its commit's first 12 digits, and
/// [`CLIENT_SUFFIX`] for a client build (`6787a8ead97a-client`), so the two builds of
/// one commit are told apart — and each is taken back as it is shown
/// ([`crate::resolve_release`]).
pub fn short_release(release: &str) -> String {
    let (commit, client) = match release.strip_suffix(CLIENT_SUFFIX) {
        Some(commit) => (commit, CLIENT_SUFFIX),
        None => (release, ""),
    };
    let end = commit
        .char_indices()
        .nth(12)
        .map_or(commit.len(), |(i, _)| i);
    format!("{}{client}", &commit[..end])
}

/// The release id of a build: its source commit, with [`CLIENT_SUFFIX`] when it holds
/// the client export.
pub fn release_id(manifest: &Manifest) -> String {
    let client = manifest.files.iter().any(|f| !f.kind.is_archive());
    if client {
        format!("{}{CLIENT_SUFFIX}", manifest.source_commit)
    } else {
        manifest.source_commit.clone()
    }
}

/// The largest pointer read: masterctl writes about 300 bytes.
pub const POINTER_LIMIT: u64 = 64 << 10;

/// The largest release record read: its manifest's cap, and room for the rest.
pub const RELEASE_LIMIT: u64 = masterctl_runtime::MANIFEST_LIMIT + (1 << 20);

/// A BLAKE3 hash as the manifest writes it.
pub use masterctl_runtime::is_blake3_hex as is_hash;

pub fn object_key(hash: &str) -> String {
    format!("objects/{hash}")
}

pub fn release_key(region: &str, release: &str) -> String {
    format!("releases/{region}/{release}.json")
}

/// The most bytes a release's signature may have (minisign's are under 400).
pub const SIGNATURE_LIMIT: u64 = 4096;

/// `releases/<region>/<release>.minisig`: the release's signature, when it was signed
/// (of its manifest; a rollback signs it anew).
pub fn signature_key(region: &str, release: &str) -> String {
    format!("releases/{region}/{release}.minisig")
}

pub fn releases_prefix(region: &str) -> String {
    format!("releases/{region}/")
}

pub fn pointer_key(region: &str) -> String {
    format!("regions/{region}/current.json")
}

/// `releases/<region>/<release>.json`: a build's manifest (named by the hash of its
/// object, or held, in records of format 1), what the build holds, and how it was
/// published.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Release {
    pub masterctl_release: u32,
    pub region: String,
    /// The build's source commit.
    pub release: String,
    /// BLAKE3 of the build's `manifest.json`, stored as an object.
    pub manifest_blake3: String,
    /// The size of that `manifest.json`.
    pub manifest_size: u64,
    /// The manifest itself: only in records of format 1 (read, never written now).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub manifest: Option<Manifest>,
    /// What the build holds, as `releases` shows it (format 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<Summary>,
    pub published: Published,
    /// The versions (tags `masters/<region>/<version>`) that named the build's commit
    /// when it was published.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<String>,
}

/// What a build holds, in a release record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Its files.
    pub files: usize,
    /// Their bytes.
    pub bytes: u64,
    /// The languages it holds strings of, in the project's order.
    pub languages: Vec<String>,
}

impl Summary {
    /// What `manifest`'s build holds.
    pub fn of(manifest: &Manifest) -> Summary {
        let held: std::collections::BTreeSet<&String> = manifest
            .files
            .iter()
            .filter_map(|f| f.language.as_ref())
            .collect();
        Summary {
            files: manifest.files.len(),
            bytes: manifest.files.iter().map(|f| f.size).sum(),
            languages: manifest
                .languages
                .iter()
                .filter(|l| held.contains(l))
                .cloned()
                .collect(),
        }
    }
}

/// When and by what a release was first published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Published {
    /// UTC, `2026-11-30T20:00:00.000Z`.
    pub time: String,
    /// `masterctl 0.1.0`.
    pub tool: String,
    /// Who published it (`Name <email>`), when the publisher said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The publisher's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `regions/<region>/current.json`: the release a fetch takes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pointer {
    pub masterctl_pointer: u32,
    pub region: String,
    pub release: String,
    pub manifest_blake3: String,
    /// When the pointer was moved here (UTC).
    pub time: String,
    /// Who moved it (`Name <email>`), when they said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// Why (a rollback's reason; a publish's words).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The number the release's signature states, when it was signed: the next
    /// publish or rollback signs the number after it. (Not itself trusted: a fetch
    /// trusts only what the signature states.)
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
}

/// `masters/<region>/<version>`, the version one plain word.
pub fn is_version_tag(tag: &str, region: &str) -> bool {
    tag.strip_prefix("masters/")
        .and_then(|rest| rest.strip_prefix(region))
        .and_then(|rest| rest.strip_prefix('/'))
        .is_some_and(|version| {
            !version.is_empty()
                && version.len() <= 64
                && version
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '+'))
                && !version.contains("..")
        })
}

impl Release {
    /// The record as stored: compact JSON, zstd-compressed. Every publish writes its
    /// own across a link still in slow start: a record holding a 1,500-file build's
    /// manifest was 479 KB indented, 315 KB compact, 69 KB compressed; naming it, a few
    /// hundred bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        crate::object::encode(&serde_json::to_vec(self).unwrap_or_default())
    }

    /// What its build holds.
    pub fn summary(&self) -> Summary {
        match (&self.build, &self.manifest) {
            (Some(summary), _) => summary.clone(),
            (None, Some(manifest)) => Summary::of(manifest),
            (None, None) => Summary {
                files: 0,
                bytes: 0,
                languages: Vec::new(),
            },
        }
    }

    /// Parse a release read from `key`, refusing what masterctl did not write. A
    /// record of format 2 names its manifest: what it says of it is checked when the
    /// manifest is read (`release_manifest`).
    pub fn parse(
        bytes: &[u8],
        key: &str,
        store: &str,
        region: &str,
    ) -> Result<Release, DeliveryError> {
        let foreign = |why: String| DeliveryError::Foreign {
            store: store.to_string(),
            key: key.to_string(),
            why,
        };
        let plain = crate::object::unpack(bytes, RELEASE_LIMIT).map_err(&foreign)?;
        let release: Release =
            serde_json::from_slice(&plain).map_err(|e| foreign(format!("not a release ({e})")))?;
        let holds_manifest = match release.masterctl_release {
            LAYOUT_VERSION => true,
            RELEASE_FORMAT => false,
            other => {
                return Err(foreign(format!(
                    "release format {other}, this masterctl reads {LAYOUT_VERSION} and {RELEASE_FORMAT}"
                )));
            }
        };
        if release.manifest.is_some() != holds_manifest || release.build.is_some() == holds_manifest
        {
            return Err(foreign(format!(
                "a record of format {} {}",
                release.masterctl_release,
                if holds_manifest {
                    "holds its manifest, and nothing in its place"
                } else {
                    "names its manifest and says what its build holds, and holds no manifest"
                }
            )));
        }
        if release.region != region {
            return Err(foreign(format!("it is a release of `{}`", release.region)));
        }
        if check_release(&release.release).is_err() || !is_hash(&release.manifest_blake3) {
            return Err(foreign(
                "its release id or manifest hash is malformed".into(),
            ));
        }
        if release.manifest_size > masterctl_runtime::MANIFEST_LIMIT {
            return Err(foreign(format!(
                "it names a manifest of {} bytes, more than a build's may be",
                release.manifest_size
            )));
        }
        if !release.versions.iter().all(|v| is_version_tag(v, region)) {
            return Err(foreign(
                "a version it names is not one of the region's".into(),
            ));
        }
        if let Some(manifest) = &release.manifest {
            check_manifest(manifest, &release.release, region).map_err(foreign)?;
        }
        Ok(release)
    }
}

/// That `manifest` is of the build of `release` of `region`, its paths fit to be
/// joined to a folder on the fetching machine; else why not.
pub fn check_manifest(manifest: &Manifest, release: &str, region: &str) -> Result<(), String> {
    if manifest.region != region {
        return Err(format!("its manifest is of region `{}`", manifest.region));
    }
    if release_id(manifest) != release {
        return Err("its manifest is not of the commit and kind of build its name says".into());
    }
    manifest
        .check()
        .map_err(|cause| format!("its manifest: {cause}"))
}

impl Pointer {
    /// Parse a pointer read from `key`, refusing what masterctl did not write.
    pub fn parse(
        bytes: &[u8],
        key: &str,
        store: &str,
        region: &str,
    ) -> Result<Pointer, DeliveryError> {
        let foreign = |why: String| DeliveryError::Foreign {
            store: store.to_string(),
            key: key.to_string(),
            why,
        };
        let pointer: Pointer =
            serde_json::from_slice(bytes).map_err(|e| foreign(format!("not a pointer ({e})")))?;
        if pointer.masterctl_pointer != LAYOUT_VERSION {
            return Err(foreign(format!(
                "pointer format {}, this masterctl reads {LAYOUT_VERSION}",
                pointer.masterctl_pointer
            )));
        }
        if pointer.region != region {
            return Err(foreign(format!("it points for `{}`", pointer.region)));
        }
        if check_release(&pointer.release).is_err() || !is_hash(&pointer.manifest_blake3) {
            return Err(foreign(
                "its release id or manifest hash is malformed".into(),
            ));
        }
        Ok(pointer)
    }
}

/// Now, in UTC, to the millisecond, always in the same shape
/// (`2026-11-30T20:00:00.000Z`), so that times order as text.
pub fn now() -> String {
    let millis = now_millis();
    let seconds = masterctl_runtime::DateTime(millis - millis % 1000).to_string();
    let seconds = seconds.strip_suffix('Z').unwrap_or(&seconds);
    format!("{seconds}.{:03}Z", millis % 1000)
}

/// Now, in milliseconds since 1970 (UTC).
pub fn now_millis() -> i64 {
    let millis = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    i64::try_from(millis).unwrap_or(0)
}

/// The milliseconds since `time` (a time as [`now`] writes it; none when it is not one).
pub fn millis_since(time: &str) -> Option<i64> {
    masterctl_runtime::calendar::parse_datetime(time).map(|at| now_millis() - at.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_before_they_become_keys() {
        assert!(check_region("jp").is_ok());
        assert!(check_region("../jp").is_err());
        assert!(check_region("").is_err());
        assert!(check_release(&"a".repeat(40)).is_ok());
        assert!(check_release(&"A".repeat(40)).is_err());
        assert!(check_release("HEAD").is_err());
        assert!(check_release(&format!("{}-client", "a".repeat(40))).is_ok());
        assert!(check_release(&format!("{}-server", "a".repeat(40))).is_err());
        assert!(now().ends_with('Z') && now().len() == 24, "{}", now());
    }

    #[test]
    fn a_record_holds_its_manifest_or_names_it_as_its_format_says() {
        let manifest = Manifest {
            format: masterctl_runtime::FORMAT_VERSION,
            region: "jp".to_string(),
            source_commit: "a".repeat(40),
            schema_hash: "0".repeat(64),
            languages: vec!["ja".to_string()],
            files: Vec::new(),
            fallbacks: Vec::new(),
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        };
        let named = Release {
            masterctl_release: RELEASE_FORMAT,
            region: "jp".to_string(),
            release: "a".repeat(40),
            manifest_blake3: "b".repeat(64),
            manifest_size: 100,
            manifest: None,
            build: Some(Summary::of(&manifest)),
            published: Published {
                time: now(),
                tool: "test".to_string(),
                by: None,
                message: None,
            },
            versions: Vec::new(),
        };
        let held = Release {
            masterctl_release: LAYOUT_VERSION,
            manifest: Some(manifest.clone()),
            build: None,
            ..named.clone()
        };
        let parse = |record: &Release| Release::parse(&record.to_bytes(), "k", "s", "jp");
        assert_eq!(parse(&named).unwrap(), named);
        assert_eq!(parse(&held).unwrap(), held);
        let both = Release {
            manifest: Some(manifest),
            ..named.clone()
        };
        let neither = Release {
            manifest: None,
            ..held.clone()
        };
        let later = Release {
            masterctl_release: RELEASE_FORMAT + 1,
            ..named.clone()
        };
        let huge = Release {
            manifest_size: masterctl_runtime::MANIFEST_LIMIT + 1,
            ..named.clone()
        };
        for refused in [both, neither, later, huge] {
            let error = parse(&refused).unwrap_err();
            assert!(matches!(error, DeliveryError::Foreign { .. }), "{error}");
        }
    }
}
