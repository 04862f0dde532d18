//! Files around a build, read and replaced safely: small files (a manifest, a state
//! file) are read only when they are regular files and only up to a limit, so a name
//! replaced by a FIFO or by a link to `/dev/zero` is an error, not a hang or an
//! exhausted memory; a file ([`write_atomic`]) or a build directory ([`replace_dir`]) is
//! replaced so that a reader — or a process killed at any moment — sees the old one or
//! the new one, never part or neither. Every writer of the workspace uses these.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Read a regular file of at most `limit` bytes. `Ok(None)` if it does not exist.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    read_regular_from(path, limit, false)
}

/// [`read_regular`], refusing a symbolic link in the place of the file itself (a file
/// read from a folder the user named must be in it, not wherever a link points).
pub fn read_regular_not_linked(path: &Path, limit: u64) -> std::io::Result<Option<Vec<u8>>> {
    read_regular_from(path, limit, true)
}

fn read_regular_from(path: &Path, limit: u64, no_link: bool) -> std::io::Result<Option<Vec<u8>>> {
    if no_link && std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "a symbolic link, which is not followed",
        ));
    }
    let file = match open_nonblocking(path, no_link) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    if metadata.len() > limit {
        return Err(too_large(limit));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large(limit));
    }
    Ok(Some(bytes))
}

fn too_large(limit: u64) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        format!("larger than the {limit} bytes such a file may have"),
    )
}

/// Open without blocking on a FIFO (whose open waits for a writer), and, with
/// `no_link`, without following a link in the file's own place.
fn open_nonblocking(path: &Path, no_link: bool) -> std::io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let nofollow = if no_link { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | nofollow);
    }
    #[cfg(not(unix))]
    let _ = no_link;
    options.open(path)
}

/// The hidden siblings a replacement of `target` stages in: `.<name>.tmp-<pid>-…`, the
/// name cut to 64 characters so that a target with a name near the file system's limit
/// still has room for its staging sibling.
fn staging_prefix(target: &Path) -> String {
    let name: String = target
        .file_name()
        .map_or_else(|| "build".to_string(), |n| n.to_string_lossy().into_owned())
        .chars()
        .take(64)
        .collect();
    format!(".{name}.tmp-")
}

/// A fresh, empty directory beside `target` to assemble its replacement in. Leftovers
/// of earlier replacements whose process is gone (killed mid-way) are removed first.
pub fn staging_dir(target: &Path) -> std::io::Result<PathBuf> {
    let parent = parent_of(target);
    std::fs::create_dir_all(&parent)?;
    remove_leftovers(target);
    let prefix = format!("{}{}-", staging_prefix(target), std::process::id());
    for attempt in 0u32..1000 {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = parent.join(format!("{prefix}{nanos:08x}{attempt}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(
        "no free name for a staging directory",
    ))
}

/// What a build folder holds before it is replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occupant {
    /// Nothing: the folder does not exist, or is empty.
    Nothing,
    /// A build: a folder whose `manifest.json` reads as a masterctl manifest. Replaceable.
    Build,
    /// A symbolic link: never followed, never replaced (the folder it names would be
    /// emptied along with files that are not the build's).
    Link,
    /// Anything else (a file; a folder without a masterctl manifest): never replaced.
    Other,
}

/// What `target` holds: the rule every writer of a build folder follows (a build or
/// nothing may be replaced; a link or anything else is refused). `target` itself is not
/// followed if it is a link, and a folder counts as a build only when its manifest
/// parses as one — a `manifest.json` of another tool's is not enough.
pub fn occupant(target: &Path) -> Occupant {
    let metadata = match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Occupant::Nothing,
        Err(_) => return Occupant::Other,
        Ok(metadata) => metadata,
    };
    if metadata.file_type().is_symlink() {
        return Occupant::Link;
    }
    if !metadata.is_dir() {
        return Occupant::Other;
    }
    let manifest = read_regular(&target.join(crate::MANIFEST), crate::MANIFEST_LIMIT);
    if let Ok(Some(bytes)) = manifest
        && serde_json::from_slice::<crate::Manifest>(&bytes).is_ok()
    {
        return Occupant::Build;
    }
    let empty = std::fs::read_dir(target).is_ok_and(|mut d| d.next().is_none());
    if empty {
        Occupant::Nothing
    } else {
        Occupant::Other
    }
}

/// The folder `target` is in (`.` for a bare name).
pub fn parent_of(target: &Path) -> PathBuf {
    match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Write `bytes` to the file `path` so that a reader — or a process killed at any
/// moment — finds the old content or the new, never part of it: written to a hidden
/// sibling, flushed to disk, then renamed over `path`. Leftovers of writers killed
/// mid-way are removed first.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing(path, bytes, true, false, Placing::Replace)
}

/// Write `bytes` to `path`, a name nothing holds yet, so that the name appears only with
/// the whole content: written to a hidden sibling and flushed, then linked to `path` —
/// which fails with `AlreadyExists`, writing nothing there, when the name is taken. A
/// process killed at any moment leaves no file at `path`, or all of it. (A file system
/// without hard links gets the file created in place, as [`write_new`] does.)
pub fn write_new_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing(path, bytes, true, false, Placing::New)
}

/// How a file written beside its target takes the target's name.
#[derive(Clone, Copy)]
enum Placing {
    /// Renamed over whatever holds the name.
    Replace,
    /// Linked to the name only if nothing holds it.
    New,
}

/// Give the written `temporary` the name `path`, as `placing` says.
fn place(temporary: &Path, path: &Path, placing: Placing, bytes: &[u8]) -> std::io::Result<()> {
    match placing {
        Placing::Replace => std::fs::rename(temporary, path),
        Placing::New => match std::fs::hard_link(temporary, path) {
            Ok(()) => std::fs::remove_file(temporary),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
            // No hard links here: the file made under its own name, never over another.
            Err(_) => {
                std::fs::remove_file(temporary)?;
                write_new(path, bytes, false)
            }
        },
    }
}

/// [`write_atomic`] without flushing to disk, and without looking for leftovers of
/// killed writers (call [`remove_all_leftovers`] on the folder once before many such
/// writes): for content checked before it is trusted (a cache of objects named by their
/// hash), where a file lost to a power cut is only fetched again.
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing(path, bytes, false, false, Placing::Replace)
}

/// [`write_atomic_unsynced`], the file read-only from the moment it is created (for
/// content nothing may change once written: cached objects, git's packs) — no second
/// look at it to change its permissions.
pub fn write_read_only_unsynced(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_replacing(path, bytes, false, true, Placing::Replace)
}

/// Write `bytes` to `path`, a name nothing holds yet (an error otherwise: never written
/// through an existing name), read-only from the moment it is created when `read_only`.
/// For a file in a folder no reader sees until it is complete (a build being assembled).
pub fn write_new(path: &Path, bytes: &[u8], read_only: bool) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = create_new_options(read_only).open(path)?;
    file.write_all(bytes)?;
    #[cfg(not(unix))]
    if read_only {
        let mut permissions = file.metadata()?.permissions();
        permissions.set_readonly(true);
        file.set_permissions(permissions)?;
    }
    Ok(())
}

/// Opening for writing a file created now, never one a name holds already; read-only
/// from its creation when `read_only` (on Unix: the mode applies to the file created,
/// and this open still writes it).
fn create_new_options(read_only: bool) -> std::fs::OpenOptions {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    if read_only {
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o444);
    }
    #[cfg(not(unix))]
    let _ = read_only;
    options
}

fn write_replacing(
    path: &Path,
    bytes: &[u8],
    durable: bool,
    read_only: bool,
    placing: Placing,
) -> std::io::Result<()> {
    use std::io::Write;
    if durable {
        remove_leftovers(path);
    }
    let (temporary, mut file) = temporary_beside(path, read_only)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| if durable { file.sync_all() } else { Ok(()) })
        .and_then(|()| place(&temporary, path, placing, bytes));
    #[cfg(not(unix))]
    let written = written.and_then(|()| match read_only {
        true => {
            let mut permissions = std::fs::metadata(path)?.permissions();
            permissions.set_readonly(true);
            std::fs::set_permissions(path, permissions)
        }
        false => Ok(()),
    });
    if written.is_err() {
        let _ = std::fs::remove_file(&temporary);
    }
    written
}

/// A new hidden file beside `path`, named for this process, to be renamed over `path`.
fn temporary_beside(path: &Path, read_only: bool) -> std::io::Result<(PathBuf, File)> {
    let parent = parent_of(path);
    let prefix = format!("{}{}-", staging_prefix(path), std::process::id());
    let options = create_new_options(read_only);
    for attempt in 0u32..1000 {
        let temporary = parent.join(format!("{prefix}{attempt}"));
        match options.open(&temporary) {
            Ok(file) => return Ok((temporary, file)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("no free name for a temporary file"))
}

/// A file written beside its target, not yet named there: [`Staged::place`] renames it
/// over the target (as [`write_atomic`] does); dropped unplaced, it is removed. For a
/// file too large to hold in memory first, or for several files each written whole
/// before any replaces its target.
#[derive(Debug)]
pub struct Staged {
    temporary: PathBuf,
    target: PathBuf,
    placed: bool,
}

/// Write the file that is to replace `path` through `write`, beside it, flushed to
/// disk: nothing at `path` changes until the [`Staged`] file is placed. Leftovers of
/// writers killed mid-way are removed first.
pub fn stage<E: From<std::io::Error>>(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<(), E>,
) -> Result<Staged, E> {
    remove_leftovers(path);
    let (temporary, mut file) = temporary_beside(path, false)?;
    let staged = Staged {
        temporary,
        target: path.to_path_buf(),
        placed: false,
    };
    write(&mut file)?;
    file.sync_all()?;
    Ok(staged)
}

impl Staged {
    /// Give the file its target's name, replacing what held it.
    pub fn place(mut self) -> std::io::Result<()> {
        std::fs::rename(&self.temporary, &self.target)?;
        self.placed = true;
        Ok(())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.placed {
            let _ = std::fs::remove_file(&self.temporary);
        }
    }
}

/// Remove staging directories (and files) of `target` left by processes that no
/// longer run.
pub fn remove_leftovers(target: &Path) {
    let prefix = staging_prefix(target);
    remove_leftovers_where(&parent_of(target), |name| name.strip_prefix(&prefix));
}

/// Remove every staging directory and file in `dir` (of any target) left by processes
/// that no longer run.
pub fn remove_all_leftovers(dir: &Path) {
    remove_leftovers_where(dir, |name| {
        let name = name.strip_prefix('.')?;
        name.rfind(".tmp-").map(|at| &name[at + ".tmp-".len()..])
    });
}

/// Remove the entries of `dir` whose name `rest` maps to `<pid>-…` of a process that
/// no longer runs.
fn remove_leftovers_where(dir: &Path, rest: impl for<'n> Fn(&'n str) -> Option<&'n str>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = rest(&name) else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|p| p.parse::<u32>().ok());
        if pid.is_some_and(|pid| !process_runs(pid)) {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = std::fs::remove_dir_all(path);
            } else {
                let _ = std::fs::remove_file(path);
            }
        }
    }
}

fn process_runs(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        // Without a cheap way to ask, keep it: a leftover costs disk, not correctness.
        true
    }
}

/// Put the directory `staged` in the place of `target` in one step: where `target`
/// exists, the two are exchanged atomically (`renameat2(RENAME_EXCHANGE)` on Linux)
/// and the old build, now at `staged`, is removed; where it does not, `staged` is
/// renamed to it. At every moment `target` is the old build or the new one.
///
/// A link in the place of `target` is refused, never exchanged or followed.
pub fn replace_dir(staged: &Path, target: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(target) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::rename(staged, target)?;
        }
        Err(e) => return Err(e),
        Ok(metadata) if metadata.file_type().is_symlink() => {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "a symbolic link, which is never followed nor replaced: name the folder itself",
            ));
        }
        Ok(_) => {
            exchange(staged, target)?;
            // `staged` now holds the old build.
            let _ = remove_tree(staged);
        }
    }
    Ok(())
}

/// Remove the directory `dir` and everything in it, its files on every core (a build
/// of thousands of files is gone in a fraction of the time one thread takes). No link
/// is followed: a link is removed as itself, `dir` too should it be one.
pub fn remove_tree(dir: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(dir)?.file_type().is_symlink() {
        return std::fs::remove_file(dir);
    }
    let mut folders = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    let mut next = 0;
    while let Some(folder) = folders.get(next).cloned() {
        next += 1;
        for entry in std::fs::read_dir(&folder)? {
            let entry = entry?;
            if entry.file_type()?.is_dir() {
                folders.push(entry.path());
            } else {
                files.push(entry.path());
            }
        }
    }
    let chunks: Vec<&[PathBuf]> = files.chunks(64).collect();
    crate::parallel::parallel_map(&chunks, |chunk| {
        chunk.iter().try_for_each(std::fs::remove_file)
    })
    .into_iter()
    .collect::<std::io::Result<()>>()?;
    // Deepest first: a folder is listed after the one it is in.
    folders.iter().rev().try_for_each(std::fs::remove_dir)
}

#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        CString::new(p.as_os_str().as_bytes())
            .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "a NUL in a path"))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both are valid NUL-terminated paths; the call only renames.
    let result = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if result == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(staged: &Path, target: &Path) -> std::io::Result<()> {
    // No atomic exchange here: move the old build aside, then the new one in. A crash
    // between the two leaves the old build beside the target, under the staged name.
    let aside = staged.with_extension("old");
    std::fs::rename(target, &aside)?;
    if let Err(e) = std::fs::rename(staged, target) {
        let _ = std::fs::rename(&aside, target);
        return Err(e);
    }
    std::fs::rename(&aside, staged)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_file_appears_whole_and_never_over_another() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("item.toml");
        write_new_whole(&target, b"name = \"item\"\n").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"name = \"item\"\n");
        // The name is taken: refused, the file as it was.
        let again = write_new_whole(&target, b"other").unwrap_err();
        assert_eq!(again.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&target).unwrap(), b"name = \"item\"\n");
        // Nothing but the file: no sibling left behind.
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("item.toml")]);
    }

    #[test]
    fn a_staged_file_replaces_its_target_only_when_placed() {
        use std::io::Write;
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("items.xlsx");
        std::fs::write(&target, "old").unwrap();
        let names = || -> Vec<std::ffi::OsString> {
            let entries = std::fs::read_dir(root.path()).unwrap();
            entries.map(|e| e.unwrap().file_name()).collect()
        };
        let staged = stage(&target, |file| file.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old");
        assert_eq!(names().len(), 2);
        staged.place().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(), ["items.xlsx"]);
        // Dropped unplaced, or failed while written: gone, the target as it was.
        drop(stage(&target, |file| file.write_all(b"dropped")).unwrap());
        let failed = stage(&target, |file| {
            file.write_all(b"half")?;
            Err(std::io::Error::other("the writer failed"))
        });
        assert_eq!(failed.unwrap_err().to_string(), "the writer failed");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new");
        assert_eq!(names(), ["items.xlsx"]);
    }

    #[test]
    fn replacing_a_directory_keeps_one_build_in_place() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("build");
        for round in 0..3 {
            let staged = staging_dir(&target).unwrap();
            std::fs::write(staged.join("manifest.json"), format!("{round}")).unwrap();
            replace_dir(&staged, &target).unwrap();
            assert_eq!(
                std::fs::read_to_string(target.join("manifest.json")).unwrap(),
                round.to_string()
            );
        }
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("build")]);
    }

    #[test]
    fn a_read_only_file_is_written_read_only_and_replaced_whole() {
        let root = tempfile::tempdir().unwrap();
        let path = root.path().join("object");
        for content in ["damaged", "whole"] {
            write_read_only_unsynced(&path, content.as_bytes()).unwrap();
            let metadata = std::fs::metadata(&path).unwrap();
            assert!(metadata.permissions().readonly());
            assert_eq!(std::fs::read_to_string(&path).unwrap(), content);
        }
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("object")]);
        // The others stay writable.
        write_atomic_unsynced(&path, b"plain").unwrap();
        assert!(!std::fs::metadata(&path).unwrap().permissions().readonly());
    }

    #[test]
    fn a_tree_is_removed_whole_and_only_it() {
        let root = tempfile::tempdir().unwrap();
        let outside = root.path().join("outside");
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("kept"), "kept").unwrap();
        let tree = root.path().join("tree");
        for i in 0..300 {
            let folder = tree.join(format!("d{}", i % 3)).join(format!("e{}", i % 2));
            std::fs::create_dir_all(&folder).unwrap();
            std::fs::write(folder.join(format!("f{i}")), "x").unwrap();
        }
        let read_only = tree.join("d0/e0/f0");
        let mut permissions = std::fs::metadata(&read_only).unwrap().permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(&read_only, permissions).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(&outside, tree.join("d1/link")).unwrap();
        remove_tree(&tree).unwrap();
        assert!(!tree.exists());
        assert!(
            outside.join("kept").is_file(),
            "a link is removed, not followed"
        );
    }

    #[cfg(unix)]
    #[test]
    fn only_a_build_is_replaced_and_a_link_never_followed() {
        let root = tempfile::tempdir().unwrap();
        let build = root.path().join("v1");
        std::fs::create_dir(&build).unwrap();
        let manifest = crate::Manifest {
            format: crate::FORMAT_VERSION,
            region: "jp".into(),
            source_commit: "0".repeat(40),
            schema_hash: "0".repeat(64),
            languages: vec![],
            files: vec![],
            fallbacks: vec![],
            timezone: None,
            audience: None,
            seen_by: Vec::new(),
        };
        std::fs::write(build.join(crate::MANIFEST), manifest.to_bytes()).unwrap();
        std::fs::write(build.join("unrelated.txt"), "kept").unwrap();
        assert_eq!(occupant(&build), Occupant::Build);
        // `current -> v1`: a link, refused, and replacing it leaves v1 whole.
        let current = root.path().join("current");
        std::os::unix::fs::symlink(&build, &current).unwrap();
        assert_eq!(occupant(&current), Occupant::Link);
        let staged = staging_dir(&current).unwrap();
        assert!(replace_dir(&staged, &current).is_err());
        std::fs::remove_dir(&staged).unwrap();
        remove_tree(&current).unwrap();
        assert!(!current.exists() && build.join("unrelated.txt").is_file());
        // Someone else's manifest.json does not make a build.
        let other = root.path().join("other");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(other.join(crate::MANIFEST), r#"{"name": "web app"}"#).unwrap();
        assert_eq!(occupant(&other), Occupant::Other);
        let file = root.path().join("file");
        std::fs::write(&file, "x").unwrap();
        assert_eq!(occupant(&file), Occupant::Other);
        assert_eq!(occupant(&root.path().join("none")), Occupant::Nothing);
    }

    #[test]
    fn a_target_with_a_long_name_is_replaced_too() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("b".repeat(250));
        for _ in 0..2 {
            let staged = staging_dir(&target).unwrap();
            std::fs::write(staged.join("manifest.json"), "{}").unwrap();
            replace_dir(&staged, &target).unwrap();
        }
        assert!(target.join("manifest.json").is_file());
    }

    #[test]
    fn leftovers_of_dead_processes_are_removed() {
        let root = tempfile::tempdir().unwrap();
        let target = root.path().join("out");
        // A pid no process has (beyond pid_max).
        let dead = root.path().join(".out.tmp-4194399-deadbeef0");
        std::fs::create_dir(&dead).unwrap();
        let alive = root
            .path()
            .join(format!(".out.tmp-{}-0", std::process::id()));
        std::fs::create_dir(&alive).unwrap();
        remove_leftovers(&target);
        assert!(!dead.exists());
        assert!(alive.exists());
    }

    #[test]
    fn a_file_is_replaced_whole_and_a_dead_writer_leaves_nothing() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("conflicts.csv");
        write_atomic(&file, b"old").unwrap();
        // A writer killed between writing its sibling and renaming it.
        let dead = root.path().join(".conflicts.csv.tmp-4194399-0");
        std::fs::write(&dead, b"half").unwrap();
        write_atomic(&file, b"new").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"new");
        let names: Vec<_> = std::fs::read_dir(root.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("conflicts.csv")]);
        // A folder where the file should go: an error, and no sibling left behind.
        let folder = root.path().join("folder");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("x"), b"").unwrap();
        assert!(write_atomic(&folder, b"x").is_err());
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn fifos_and_devices_are_refused_and_sizes_capped() {
        let root = tempfile::tempdir().unwrap();
        let fifo = root.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert!(read_regular(&fifo, 100).is_err());
        assert!(read_regular(Path::new("/dev/zero"), 100).is_err());
        let big = root.path().join("big");
        std::fs::write(&big, vec![b'x'; 101]).unwrap();
        assert!(read_regular(&big, 100).is_err());
        assert_eq!(read_regular(&big, 101).unwrap().unwrap().len(), 101);
        assert!(
            read_regular(&root.path().join("none"), 1)
                .unwrap()
                .is_none()
        );
    }
}
