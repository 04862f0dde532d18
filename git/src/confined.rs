//! A git folder's own files, reached without following a symbolic link.
//!
//! A remote on a shared disk is somebody else's folder: a link in it (`masterctl`
//! pointing into the pusher's home, `refs/heads/evil` pointing at a project) must
//! never make masterctl open, write or remove a file outside it. Every path here is
//! opened one component at a time, each relative to the folder opened before it and
//! refused when it is a link (`O_NOFOLLOW`), so a link swapped in while masterctl works
//! is refused too, not raced. The repository's own folder, as git names it, is the one
//! place a link is followed: the user named it.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::Error;

/// A repository's git folder, opened once.
pub struct GitDir {
    path: PathBuf,
    #[cfg(unix)]
    fd: rustix::fd::OwnedFd,
}

/// What a component of a path turned out to be, when it was not a plain folder.
enum Refused {
    Link,
    NotAFolder,
}

impl GitDir {
    /// The git folder at `path` (what `git2::Repository::path` names).
    pub fn open(path: &Path) -> Result<GitDir, Error> {
        #[cfg(unix)]
        {
            use rustix::fs::{CWD, Mode, OFlags, openat};
            let fd = openat(
                CWD,
                path,
                OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .map_err(|e| Error::io(path)(e.into()))?;
            Ok(GitDir {
                path: path.to_path_buf(),
                fd,
            })
        }
        #[cfg(not(unix))]
        Ok(GitDir {
            path: path.to_path_buf(),
        })
    }

    /// Open (creating it and the folders before it when missing) the file at `relative`
    /// for reading and writing, never through a link; a link, or something other than
    /// a file where it should be, is [`Error::LinkInRepository`].
    pub fn open_record(&self, relative: &str) -> Result<File, Error> {
        let (folders, name) = split(relative);
        #[cfg(unix)]
        {
            use rustix::fs::{FileType, Mode, OFlags, fstat, openat};
            let dir = self.folder(&folders, true)?.expect("created");
            let path = self.path.join(relative);
            let file = openat(
                &dir,
                name,
                OFlags::RDWR
                    | OFlags::CREATE
                    | OFlags::NOFOLLOW
                    | OFlags::CLOEXEC
                    | OFlags::NONBLOCK,
                Mode::from_raw_mode(0o644),
            )
            .map_err(|e| {
                self.refusal(relative, e)
                    .unwrap_or_else(|e| Error::io(&path)(e))
            })?;
            let stat = fstat(&file).map_err(|e| Error::io(&path)(e.into()))?;
            if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
                return Err(self.refused(relative, Refused::NotAFolder));
            }
            Ok(File::from(file))
        }
        #[cfg(not(unix))]
        {
            self.check_plain(&folders)?;
            let path = self.path.join(relative);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent).map_err(Error::io(parent))?;
            }
            if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.is_file()) {
                return Err(self.refused(relative, Refused::Link));
            }
            let _ = name;
            std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&path)
                .map_err(Error::io(&path))
        }
    }

    /// Remove the file at `relative` if it is one: gone already is done; a link (there
    /// or on the way) is refused and nothing is removed.
    pub fn remove_file(&self, relative: &str) -> Result<(), Error> {
        let (folders, name) = split(relative);
        #[cfg(unix)]
        {
            use rustix::fs::{AtFlags, FileType, unlinkat};
            let Some((dir, kind)) = self.entry(&folders, name, relative)? else {
                return Ok(());
            };
            if kind != FileType::RegularFile {
                return Err(self.refused(relative, Refused::Link));
            }
            match unlinkat(&dir, name, AtFlags::empty()) {
                Ok(()) | Err(rustix::io::Errno::NOENT) => Ok(()),
                Err(e) => Err(Error::io(self.path.join(relative))(e.into())),
            }
        }
        #[cfg(not(unix))]
        {
            self.check_plain(&folders)?;
            let path = self.path.join(relative);
            match std::fs::symlink_metadata(&path) {
                Err(_) => Ok(()),
                Ok(m) if !m.is_file() => Err(self.refused(relative, Refused::Link)),
                Ok(_) => match std::fs::remove_file(&path) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::io(&path)(e)),
                    _ => Ok(()),
                },
            }
        }
    }

    /// Remove every `*.lock` file under the folder at `relative` (a namespace of
    /// references a dead process was moving). A link anywhere in it is refused before
    /// anything is removed.
    pub fn remove_locks_under(&self, relative: &str) -> Result<(), Error> {
        let mut locks = Vec::new();
        self.walk(relative.trim_end_matches('/'), &mut |path, kind| {
            if kind == Kind::File && path.ends_with(".lock") {
                locks.push(path.to_string());
            }
        })?;
        for lock in locks {
            self.remove_file(&lock)?;
        }
        Ok(())
    }

    /// Refuse a link anywhere at or under `relative` (a folder or a file; absent is
    /// fine): what a remote's references, objects and records must be before masterctl
    /// reads or writes them.
    pub fn refuse_links_under(&self, relative: &str) -> Result<(), Error> {
        self.walk(relative.trim_end_matches('/'), &mut |_, _| {})
    }

    /// Refuse a link at `relative` or on the way to it (absent is fine), without
    /// looking inside it.
    pub fn refuse_link_at(&self, relative: &str) -> Result<(), Error> {
        let (folders, name) = split(relative);
        #[cfg(unix)]
        {
            match self.entry(&folders, name, relative)? {
                Some((_, rustix::fs::FileType::Symlink)) => {
                    Err(self.refused(relative, Refused::Link))
                }
                _ => Ok(()),
            }
        }
        #[cfg(not(unix))]
        {
            let _ = name;
            self.check_plain(&folders)?;
            match std::fs::symlink_metadata(self.path.join(relative)) {
                Ok(m) if m.file_type().is_symlink() => Err(self.refused(relative, Refused::Link)),
                _ => Ok(()),
            }
        }
    }

    /// Visit every file and folder at or under `relative`, links refused.
    fn walk(&self, relative: &str, visit: &mut dyn FnMut(&str, Kind)) -> Result<(), Error> {
        #[cfg(unix)]
        {
            use rustix::fs::{Dir, FileType};
            let (folders, name) = split(relative);
            match self.entry(&folders, name, relative)? {
                None => return Ok(()),
                Some((_, FileType::Symlink)) => return Err(self.refused(relative, Refused::Link)),
                Some((_, FileType::Directory)) => {}
                // A file where the walk starts: nothing under it.
                Some(_) => {
                    visit(relative, Kind::File);
                    return Ok(());
                }
            }
            let all: Vec<&str> = relative.split('/').filter(|c| !c.is_empty()).collect();
            let Some(dir) = self.folder(&all, false)? else {
                return Ok(());
            };
            let io = |e: rustix::io::Errno| Error::io(self.path.join(relative))(e.into());
            let mut below = Vec::new();
            for entry in Dir::read_from(&dir).map_err(io)? {
                let entry = entry.map_err(io)?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name == "." || name == ".." {
                    continue;
                }
                let path = format!("{relative}/{name}");
                match entry.file_type() {
                    FileType::Symlink => return Err(self.refused(&path, Refused::Link)),
                    FileType::Directory => below.push(path),
                    _ => visit(&path, Kind::File),
                }
            }
            for path in below {
                visit(&path, Kind::Folder);
                self.walk(&path, visit)?;
            }
            Ok(())
        }
        #[cfg(not(unix))]
        {
            self.refuse_link_at(relative)?;
            let path = self.path.join(relative);
            let Ok(entries) = std::fs::read_dir(&path) else {
                if path.is_file() {
                    visit(relative, Kind::File);
                }
                return Ok(());
            };
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let child = format!("{relative}/{name}");
                match entry.file_type() {
                    Ok(t) if t.is_symlink() => return Err(self.refused(&child, Refused::Link)),
                    Ok(t) if t.is_dir() => {
                        visit(&child, Kind::Folder);
                        self.walk(&child, visit)?;
                    }
                    _ => visit(&child, Kind::File),
                }
            }
            Ok(())
        }
    }

    /// The folder at `folders` under the git folder, each step opened without following
    /// a link; `None` when one is missing (unless `create`, which makes it).
    #[cfg(unix)]
    fn folder(&self, folders: &[&str], create: bool) -> Result<Option<rustix::fd::OwnedFd>, Error> {
        use rustix::fs::{AtFlags, FileType, Mode, OFlags, mkdirat, openat, statat};
        let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let mut dir = rustix::io::dup(&self.fd).map_err(|e| Error::io(&self.path)(e.into()))?;
        for (i, name) in folders.iter().enumerate() {
            let so_far = folders[..=i].join("/");
            let opened = match openat(&dir, *name, flags, Mode::empty()) {
                Err(rustix::io::Errno::NOENT) if create => {
                    match mkdirat(&dir, *name, Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                        Err(e) => return Err(Error::io(self.path.join(&so_far))(e.into())),
                    }
                    openat(&dir, *name, flags, Mode::empty())
                }
                opened => opened,
            };
            dir = match opened {
                Ok(fd) => fd,
                Err(rustix::io::Errno::NOENT) => return Ok(None),
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                    let link = statat(&dir, *name, AtFlags::SYMLINK_NOFOLLOW)
                        .is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Symlink);
                    let why = if link {
                        Refused::Link
                    } else {
                        Refused::NotAFolder
                    };
                    return Err(self.refused(&so_far, why));
                }
                Err(e) => return Err(Error::io(self.path.join(&so_far))(e.into())),
            };
        }
        Ok(Some(dir))
    }

    /// The folder holding `name` (at `folders`) and what `name` is there, a link not
    /// followed; `None` when either is missing.
    #[cfg(unix)]
    fn entry(
        &self,
        folders: &[&str],
        name: &str,
        relative: &str,
    ) -> Result<Option<(rustix::fd::OwnedFd, rustix::fs::FileType)>, Error> {
        use rustix::fs::{AtFlags, FileType, statat};
        let Some(dir) = self.folder(folders, false)? else {
            return Ok(None);
        };
        match statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Err(rustix::io::Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::io(self.path.join(relative))(e.into())),
            Ok(stat) => Ok(Some((dir, FileType::from_raw_mode(stat.st_mode)))),
        }
    }

    /// A non-unix system: each folder on the way checked not to be a link.
    #[cfg(not(unix))]
    fn check_plain(&self, folders: &[&str]) -> Result<(), Error> {
        for i in 0..folders.len() {
            let so_far = folders[..=i].join("/");
            match std::fs::symlink_metadata(self.path.join(&so_far)) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(self.refused(&so_far, Refused::Link));
                }
                Ok(m) if !m.is_dir() => return Err(self.refused(&so_far, Refused::NotAFolder)),
                _ => {}
            }
        }
        Ok(())
    }

    /// The error for an open of `relative` that failed with `error`: a link met where
    /// the file is (`ELOOP`) is a refusal; anything else is handed back.
    #[cfg(unix)]
    fn refusal(&self, relative: &str, error: rustix::io::Errno) -> Result<Error, std::io::Error> {
        match error {
            rustix::io::Errno::LOOP => Ok(self.refused(relative, Refused::Link)),
            e => Err(e.into()),
        }
    }

    fn refused(&self, relative: &str, why: Refused) -> Error {
        Error::LinkInRepository {
            path: self.path.join(relative),
            link: matches!(why, Refused::Link),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Folder,
}

/// `a/b/c` as (`[a, b]`, `c`).
fn split(relative: &str) -> (Vec<&str>, &str) {
    let mut parts: Vec<&str> = relative.split('/').filter(|c| !c.is_empty()).collect();
    let name = parts.pop().unwrap_or("");
    (parts, name)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn git_dir() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let git = dir.path().join("repo.git");
        std::fs::create_dir_all(git.join("refs/heads")).expect("refs/heads");
        (dir, git)
    }

    #[test]
    fn a_record_behind_a_link_is_refused_and_its_target_untouched() {
        let (dir, git) = git_dir();
        let mine = dir.path().join("mine.txt");
        std::fs::write(&mine, "precious").unwrap();
        std::fs::create_dir(git.join("masterctl")).unwrap();
        symlink(&mine, git.join("masterctl/ref-update")).unwrap();
        let opened = GitDir::open(&git)
            .unwrap()
            .open_record("masterctl/ref-update");
        assert!(matches!(
            opened,
            Err(Error::LinkInRepository { link: true, .. })
        ));
        assert_eq!(std::fs::read_to_string(&mine).unwrap(), "precious");
    }

    #[test]
    fn a_folder_that_links_elsewhere_is_never_entered() {
        let (dir, git) = git_dir();
        let home = dir.path().join("home");
        std::fs::create_dir(&home).unwrap();
        std::fs::write(home.join("Cargo.lock"), "mine").unwrap();
        symlink(&home, git.join("masterctl")).unwrap();
        let opened = GitDir::open(&git)
            .unwrap()
            .open_record("masterctl/ref-update");
        assert!(matches!(opened, Err(Error::LinkInRepository { .. })));
        assert!(!home.join("ref-update").exists());
        symlink(&home, git.join("refs/heads/evil")).unwrap();
        let gd = GitDir::open(&git).unwrap();
        assert!(gd.remove_locks_under("refs/heads/evil/").is_err());
        assert!(gd.remove_locks_under("refs/heads/").is_err());
        assert!(gd.remove_file("refs/heads/evil/Cargo.lock").is_err());
        assert!(gd.refuse_links_under("refs").is_err());
        assert_eq!(
            std::fs::read_to_string(home.join("Cargo.lock")).unwrap(),
            "mine"
        );
    }

    #[test]
    fn locks_under_a_plain_folder_go_and_nothing_else_does() {
        let (_dir, git) = git_dir();
        std::fs::create_dir_all(git.join("refs/remotes/origin/work")).unwrap();
        std::fs::write(git.join("refs/remotes/origin/main.lock"), "").unwrap();
        std::fs::write(git.join("refs/remotes/origin/work/a.lock"), "").unwrap();
        std::fs::write(git.join("refs/remotes/origin/main"), "x").unwrap();
        let gd = GitDir::open(&git).unwrap();
        gd.remove_locks_under("refs/remotes/origin/").unwrap();
        assert!(!git.join("refs/remotes/origin/main.lock").exists());
        assert!(!git.join("refs/remotes/origin/work/a.lock").exists());
        assert!(git.join("refs/remotes/origin/main").exists());
        gd.refuse_links_under("refs").unwrap();
        gd.remove_locks_under("refs/nothing/").unwrap();
        let mut record = gd.open_record("masterctl/ref-update").unwrap();
        use std::io::Write;
        record.write_all(b"refs/heads/x\n").unwrap();
    }
}
