//! Who holds a lock or a lease on a store: the record its holder writes (what it does,
//! the machine and process, since when), for a person looking at the store, and whether
//! that process has died — which the pointer's lock (`remote`) and the leases (`lease`)
//! both ask.

use serde::Serialize;

/// The lease object's content: who holds it, for a person looking at the store, and
/// for a process of the same machine to tell that its holder has died.
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct Record {
    pub(crate) masterctl_lease: u32,
    pub(crate) kind: String,
    pub(crate) what: String,
    /// The machine (its host name and boot), where `pid` means something.
    pub(crate) machine: String,
    pub(crate) pid: u32,
    pub(crate) since: String,
}

/// A lock's or lease's record for this process.
pub(crate) fn record_bytes(kind: &str, what: &str) -> Vec<u8> {
    serde_json::to_vec_pretty(&Record {
        masterctl_lease: 1,
        kind: kind.to_string(),
        what: what.to_string(),
        machine: this_machine(),
        pid: std::process::id(),
        since: crate::layout::now(),
    })
    .unwrap_or_default()
}

/// This machine as a lease names it: its host name and the id of its current boot (a
/// process id means something only within one boot of one machine).
pub(crate) fn this_machine() -> String {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .map(|t| t.trim().to_string())
            .unwrap_or_default()
    };
    format!(
        "{} {}",
        read("/proc/sys/kernel/hostname"),
        read("/proc/sys/kernel/random/boot_id")
    )
}

/// Whether the lease `bytes` is held by a process of this machine that no longer runs
/// (killed mid-publish): its lease need not wait to go stale. Known only on Linux;
/// elsewhere a lease is a dead process's only once stale.
pub(crate) fn holder_died(bytes: &[u8]) -> bool {
    let Ok(record) = serde_json::from_slice::<Record>(bytes) else {
        return false;
    };
    let here = this_machine();
    cfg!(target_os = "linux")
        && here.trim().len() > 1
        && record.machine == here
        && record.pid != std::process::id()
        && !std::path::Path::new(&format!("/proc/{}", record.pid)).exists()
}
