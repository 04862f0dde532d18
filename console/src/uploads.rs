//! Uploaded workbooks, kept per user so that a rejected import can be fixed and tried
//! again: under the repository's own `masterctl/console/uploads/<user>/<upload>/`,
//! named by random ids (a request names an upload by its id, never by a path), each
//! file by its own base name. Bounded: per file, per upload, uploads per user, and
//! age.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use axum::extract::Multipart;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect};
use sha2::{Digest, Sha256};

use crate::Console;
use crate::access::Role;
use crate::failed::{Answer, ConsoleError};
use crate::target::Target;
use crate::visitor::Visitor;

/// The largest file taken.
pub const FILE_LIMIT: u64 = 64 << 20;
/// The most an upload holds, all its files together.
pub const UPLOAD_LIMIT: u64 = 256 << 20;
/// The most files in one upload.
pub const FILES: usize = 500;
/// The most uploads kept per user (the oldest go first).
const KEPT: usize = 20;
/// How long an upload is kept.
const KEPT_FOR: Duration = Duration::from_secs(7 * 24 * 3600);

/// Why an upload is refused.
#[derive(Debug, thiserror::Error)]
pub enum UploadError {
    #[error(
        "`{0}` is not a kind of file this takes (a workbook or CSV to import; XLIFF, PO or CSV of translations)"
    )]
    NotAWorkbook(String),
    #[error("`{name}` is larger than {} MiB", FILE_LIMIT >> 20)]
    TooLarge { name: String },
    #[error("the upload is larger than {} MiB in all", UPLOAD_LIMIT >> 20)]
    UploadTooLarge,
    #[error("more than {FILES} files in one upload")]
    TooMany,
    #[error("two files are named `{0}`")]
    Twice(String),
    #[error("no file was uploaded")]
    Empty,
    #[error("`{name}` is not a zip file that can be read: {why}")]
    NotAZip { name: String, why: String },
    #[error("`{entry}` in `{zip}` is not a kind of file an import takes (a workbook or CSV)")]
    NotAWorkbookIn { zip: String, entry: String },
    #[error("no upload `{0}` of yours is kept (uploads are kept for a week)")]
    Unknown(String),
    #[error("cannot keep the upload: {0}")]
    Io(#[from] std::io::Error),
}

/// The uploads of the repository whose git folder is `git_dir`.
pub struct Uploads {
    root: PathBuf,
}

impl Uploads {
    pub fn new(git_dir: &Path) -> Uploads {
        Uploads {
            root: git_dir.join("masterctl").join("console").join("uploads"),
        }
    }

    /// A user's folder: named by a hash of their name (a name never becomes a path).
    fn user_dir(&self, user: &str) -> PathBuf {
        let hash = hex::encode(&Sha256::digest(user.as_bytes())[..12]);
        self.root.join(hash)
    }

    /// A new upload of `user`'s, written into a staging folder as it arrives; kept only
    /// when [`Staged::keep`] says so (dropped, it is removed).
    pub fn stage(&self, user: &str) -> Result<Staged, UploadError> {
        let home = self.user_dir(user);
        self.expire(&home);
        let id = crate::access::random_token()[..24].to_string();
        let dir = home.join(format!(".{id}.part"));
        std::fs::create_dir_all(&dir)?;
        Ok(Staged {
            dir,
            home,
            id,
            names: std::collections::HashSet::new(),
            total: 0,
            kept: false,
        })
    }

    /// The folder of `user`'s upload `id`.
    pub fn folder(&self, user: &str, id: &str) -> Result<PathBuf, UploadError> {
        let unknown = || UploadError::Unknown(id.chars().take(32).collect());
        if id.len() != 24 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(unknown());
        }
        let dir = self.user_dir(user).join(id);
        match std::fs::symlink_metadata(&dir) {
            Ok(m) if m.is_dir() => Ok(dir),
            _ => Err(unknown()),
        }
    }

    /// The names of the files of an upload (a folder [`Uploads::folder`] gave), sorted.
    pub fn files(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(folder)
            .map(|entries| {
                entries
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    /// Drop a user's uploads past the age limit, and the oldest past the count.
    fn expire(&self, dir: &Path) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let now = SystemTime::now();
        let mut kept: Vec<(SystemTime, PathBuf)> = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let modified = entry.metadata().and_then(|m| m.modified()).unwrap_or(now);
            let old = now.duration_since(modified).unwrap_or_default() > KEPT_FOR;
            let partial = entry.file_name().to_string_lossy().starts_with('.');
            if old
                || (partial
                    && now.duration_since(modified).unwrap_or_default() > Duration::from_secs(3600))
            {
                let _ = std::fs::remove_dir_all(&path);
            } else if !partial {
                kept.push((modified, path));
            }
        }
        kept.sort();
        while kept.len() >= KEPT {
            let (_, path) = kept.remove(0);
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// The extensions of the files an import takes.
pub const WORKBOOKS: &[&str] = &["xlsx", "xlsm", "xlsb", "ods", "csv", "tsv", "txt"];
/// The extensions of the files an import's upload takes: workbooks, and zips of them
/// (as the download gives several), unpacked as they are kept ([`Staged::unzip`]).
pub const WORKBOOKS_OR_ZIPS: &[&str] = &["xlsx", "xlsm", "xlsb", "ods", "csv", "tsv", "txt", "zip"];
/// The extensions of the exchange files translators send back.
pub const EXCHANGE: &[&str] = &["xlf", "xliff", "po", "csv"];

/// An upload being received: its files written into a staging folder as they arrive,
/// bounded per file, in number and in all.
pub struct Staged {
    dir: PathBuf,
    home: PathBuf,
    id: String,
    /// The files' names, lowercased (two that differ only in case are one on Windows).
    names: std::collections::HashSet<String>,
    total: u64,
    kept: bool,
}

impl Staged {
    /// A new file of the upload, `name` being its own name (checked by [`file_name`]).
    pub fn create(&mut self, name: &str) -> Result<std::fs::File, UploadError> {
        if self.names.len() >= FILES {
            return Err(UploadError::TooMany);
        }
        if !self.names.insert(name.to_lowercase()) {
            return Err(UploadError::Twice(name.to_string()));
        }
        Ok(std::fs::File::create_new(self.dir.join(name))?)
    }

    /// `more` bytes of the file `name` arrived after `written`: refused past a limit.
    pub fn count(&mut self, name: &str, written: u64, more: usize) -> Result<(), UploadError> {
        let more = more as u64;
        if written + more > FILE_LIMIT {
            return Err(UploadError::TooLarge {
                name: name.to_string(),
            });
        }
        self.total += more;
        if self.total > UPLOAD_LIMIT {
            return Err(UploadError::UploadTooLarge);
        }
        Ok(())
    }

    /// Each zip of the upload replaced by the workbooks it holds, each by its own base
    /// name (one of [`WORKBOOKS`]) and bounded as a file arriving is — by size, in
    /// number and in all, counted as it is unpacked (a zip that unpacks past a bound is
    /// refused there, whatever its own size). Folders and what systems add to a zip
    /// (`__MACOSX/`, names beginning with `.`) are passed over; anything else is
    /// refused, named.
    pub fn unzip(&mut self) -> Result<(), UploadError> {
        let mut zips: Vec<(String, PathBuf)> = std::fs::read_dir(&self.dir)?
            .filter_map(Result::ok)
            .map(|entry| entry.path())
            .filter(|path| {
                path.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("zip"))
            })
            .map(|path| (file_label(&path), path))
            .collect();
        zips.sort();
        for (name, path) in zips {
            let size = std::fs::metadata(&path)?.len();
            self.names.remove(&name.to_lowercase());
            self.total = self.total.saturating_sub(size);
            self.unpack(&name, &path)?;
            std::fs::remove_file(&path)?;
        }
        Ok(())
    }

    /// The workbooks of the zip `name` at `path`, written into the upload.
    fn unpack(&mut self, name: &str, path: &Path) -> Result<(), UploadError> {
        use std::io::{Read, Write};
        let not_a_zip = |e: zip::result::ZipError| UploadError::NotAZip {
            name: name.to_string(),
            why: e.to_string(),
        };
        let mut archive = zip::ZipArchive::new(std::fs::File::open(path)?).map_err(not_a_zip)?;
        for i in 0..archive.len() {
            let mut entry = archive.by_index(i).map_err(not_a_zip)?;
            let inner = entry.name().map_err(not_a_zip)?.into_owned();
            let base = inner.rsplit(['/', '\\']).next().unwrap_or_default();
            if entry.is_dir() || inner.starts_with("__MACOSX/") || base.starts_with('.') {
                continue;
            }
            let file = file_name(&inner, WORKBOOKS).map_err(|_| UploadError::NotAWorkbookIn {
                zip: name.to_string(),
                entry: inner.chars().take(200).collect(),
            })?;
            let mut out = self.create(&file)?;
            let mut buffer = vec![0; 64 << 10];
            let mut written = 0u64;
            loop {
                let read = entry.read(&mut buffer).map_err(|e| UploadError::NotAZip {
                    name: name.to_string(),
                    why: e.to_string(),
                })?;
                if read == 0 {
                    break;
                }
                self.count(&file, written, read)?;
                out.write_all(&buffer[..read])?;
                written += read as u64;
            }
        }
        Ok(())
    }

    /// How many files arrived.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Keep the upload: whole, or not there (a file half-written is never reviewed).
    pub fn keep(mut self) -> Result<String, UploadError> {
        if self.names.is_empty() {
            return Err(UploadError::Empty);
        }
        std::fs::rename(&self.dir, self.home.join(&self.id))?;
        self.kept = true;
        Ok(self.id.clone())
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.kept {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// What an upload form sent: the branch it names (`region`, `branch`), and the files of
/// its file field, staged (each by its own name).
struct Received {
    target: Target,
    staged: Staged,
}

/// An editor's upload form taken whole: received into a staging folder as it arrives
/// (the files of `files`: the field and the extensions it takes), the branch it names
/// checked against the project, the files `accept`ed, and the upload kept; the browser
/// sent to `page?upload=ID&region=…`, where it is reviewed.
pub async fn keep_form(
    console: &Arc<Console>,
    form: &mut Multipart,
    files: (&str, &[&str]),
    who: &Visitor,
    accept: impl FnOnce(&mut Staged) -> Result<(), ConsoleError> + Send + 'static,
    page: &str,
) -> Answer {
    let uploads = console
        .blocking(|console| Ok(Uploads::new(console.open()?.git.path())))
        .await?;
    let Received { target, staged } = receive(form, files, who, Role::Editor, &uploads).await?;
    let id = console
        .blocking({
            let target = target.clone();
            move |console| {
                let mut staged = staged;
                accept(&mut staged)?;
                target.open(console)?;
                staged.keep().map_err(|e| refused(&e))
            }
        })
        .await?;
    Ok(Redirect::to(&format!("{page}?upload={id}&{}", target.query())).into_response())
}

/// Read an upload form of `who`'s, who must be at least `role`: its fields, and the
/// files of `field` (each by its own name, one of `extensions`) written as they arrive
/// into a staging folder of `uploads`, refused as soon as one passes [`FILE_LIMIT`], the
/// upload [`UPLOAD_LIMIT`] or [`FILES`]. The form's token comes before its files (as
/// the console's forms send it): a form without it writes nothing. A file field left
/// empty is no file.
async fn receive(
    form: &mut Multipart,
    (field, extensions): (&str, &[&str]),
    who: &Visitor,
    role: Role,
    uploads: &Uploads,
) -> Result<Received, ConsoleError> {
    let mut csrf = None;
    let mut target = Target {
        region: String::new(),
        branch: None,
    };
    let mut staged: Option<Staged> = None;
    loop {
        let mut part = match form.next_field().await {
            Ok(Some(part)) => part,
            Ok(None) => break,
            Err(e) => return Err(arrived(&e, "the upload")),
        };
        let name = part.name().unwrap_or_default().to_string();
        match name.as_str() {
            "csrf" => csrf = Some(short_text(part).await?),
            "region" => target.region = short_text(part).await?,
            "branch" => target.branch = Some(short_text(part).await?),
            _ if name == field => {
                let given = part.file_name().unwrap_or_default().to_string();
                if given.is_empty() {
                    continue;
                }
                let name = file_name(&given, extensions).map_err(|e| refused(&e))?;
                let upload = match &mut staged {
                    Some(upload) => upload,
                    None => {
                        who.may_post(role, csrf.as_deref())?;
                        staged.insert(uploads.stage(&who.identity.name).map_err(|e| refused(&e))?)
                    }
                };
                read_into(&mut part, upload, &name).await?;
            }
            _ => {}
        }
    }
    who.may_post(role, csrf.as_deref())?;
    match staged {
        Some(staged) => Ok(Received { target, staged }),
        None => Err(refused(&UploadError::Empty)),
    }
}

/// The most a form's text field holds (a token, a region, a branch name).
const TEXT_LIMIT: usize = 4096;

/// A form's text field, refused past [`TEXT_LIMIT`] bytes before more is read.
async fn short_text(mut part: axum::extract::multipart::Field<'_>) -> Result<String, ConsoleError> {
    let mut bytes = Vec::new();
    while let Some(chunk) = part
        .chunk()
        .await
        .map_err(|e| arrived(&e, "a form field"))?
    {
        if bytes.len() + chunk.len() > TEXT_LIMIT {
            return Err(ConsoleError::http(
                StatusCode::PAYLOAD_TOO_LARGE,
                "a form field is longer than any this form sends",
            )
            .said_as("field-too-long", &[]));
        }
        bytes.extend_from_slice(&chunk);
    }
    String::from_utf8(bytes).map_err(|_| ConsoleError::refusing("field-not-text", &[]))
}

/// A file of the upload written into `staged` as it arrives, refused as soon as it or
/// the upload passes its bound — never held whole.
async fn read_into(
    part: &mut axum::extract::multipart::Field<'_>,
    staged: &mut Staged,
    name: &str,
) -> Result<(), ConsoleError> {
    use std::io::Write;
    let mut file = staged.create(name).map_err(|e| refused(&e))?;
    let mut written = 0u64;
    while let Some(chunk) = part.chunk().await.map_err(|e| arrived(&e, name))? {
        staged
            .count(name, written, chunk.len())
            .map_err(|e| refused(&e))?;
        file.write_all(&chunk)
            .map_err(|e| refused(&UploadError::Io(e)))?;
        written += chunk.len() as u64;
    }
    Ok(())
}

/// A part that did not arrive whole, as its page.
fn arrived(error: &axum::extract::multipart::MultipartError, what: &str) -> ConsoleError {
    ConsoleError::http(
        error.status(),
        format!("`{what}` did not arrive whole: {}", error.body_text()),
    )
}

/// An upload refused, as its page: too large 413, not kept 500, otherwise 400.
pub fn refused(error: &UploadError) -> ConsoleError {
    let status = match error {
        UploadError::TooLarge { .. } | UploadError::UploadTooLarge | UploadError::TooMany => {
            StatusCode::PAYLOAD_TOO_LARGE
        }
        UploadError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        UploadError::Unknown(_) => StatusCode::NOT_FOUND,
        _ => StatusCode::BAD_REQUEST,
    };
    let (file_mib, all_mib, files) = (
        (FILE_LIMIT >> 20).to_string(),
        (UPLOAD_LIMIT >> 20).to_string(),
        FILES.to_string(),
    );
    let (id, args): (&'static str, Vec<(&'static str, &str)>) = match error {
        UploadError::NotAWorkbook(name) => ("upload-not-a-workbook", vec![("name", name)]),
        UploadError::NotAZip { name, .. } => ("upload-not-a-zip", vec![("name", name)]),
        UploadError::NotAWorkbookIn { zip, entry } => (
            "upload-not-a-workbook-in",
            vec![("zip", zip), ("entry", entry)],
        ),
        UploadError::TooLarge { name } => (
            "upload-too-large",
            vec![("name", name), ("most", &file_mib)],
        ),
        UploadError::UploadTooLarge => ("upload-all-too-large", vec![("most", &all_mib)]),
        UploadError::TooMany => ("upload-too-many", vec![("most", &files)]),
        UploadError::Twice(name) => ("upload-twice", vec![("name", name)]),
        UploadError::Empty => ("upload-empty", Vec::new()),
        UploadError::Unknown(id) => ("upload-unknown", vec![("id", id)]),
        UploadError::Io(_) => return ConsoleError::http(status, error.to_string()),
    };
    ConsoleError::http(status, error.to_string()).said_as(id, &args)
}

/// A file's own name, as it was kept.
fn file_label(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A file name an upload may hold: its last component only, one of `extensions`, no
/// control characters, not hidden.
pub fn file_name(given: &str, extensions: &[&str]) -> Result<String, UploadError> {
    let base = given.rsplit(['/', '\\']).next().unwrap_or_default().trim();
    let refused =
        || UploadError::NotAWorkbook(given.chars().take(80).filter(|c| !c.is_control()).collect());
    if base.is_empty()
        || base.starts_with('.')
        || base.len() > 200
        || base
            .chars()
            .any(|c| c.is_control() || matches!(c, ':' | '*' | '?' | '"' | '<' | '>' | '|'))
    {
        return Err(refused());
    }
    let extension = Path::new(base)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    if !extensions.contains(&extension.as_str()) {
        return Err(refused());
    }
    Ok(base.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keep `files` (name, bytes) for `user` as an upload form's would be; its id.
    fn keep(uploads: &Uploads, user: &str, files: &[(&str, &[u8])]) -> Result<String, UploadError> {
        use std::io::Write;
        let mut staged = uploads.stage(user)?;
        for (name, bytes) in files {
            let mut file = staged.create(name)?;
            staged.count(name, 0, bytes.len())?;
            file.write_all(bytes)?;
        }
        staged.keep()
    }

    #[test]
    fn only_a_workbooks_own_name_is_kept() {
        assert_eq!(file_name("items.xlsx", WORKBOOKS).unwrap(), "items.xlsx");
        assert_eq!(
            file_name("C:\\Users\\aiko\\アイテム.XLSX", WORKBOOKS).unwrap(),
            "アイテム.XLSX"
        );
        assert_eq!(
            file_name("../../etc/passwd.csv", WORKBOOKS).unwrap(),
            "passwd.csv"
        );
        assert_eq!(file_name("en.po", EXCHANGE).unwrap(), "en.po");
        assert!(file_name("en.po", WORKBOOKS).is_err());
        // Tab-separated text (Excel's “Unicode Text”) is read as validate reads it.
        assert_eq!(
            file_name("Aircraft.txt", WORKBOOKS).unwrap(),
            "Aircraft.txt"
        );
        assert_eq!(file_name("items.tsv", WORKBOOKS).unwrap(), "items.tsv");
        for bad in [
            "",
            ".hidden.csv",
            "run.sh",
            "a\nb.csv",
            "..",
            "x.xlsx/",
            "a:b.csv",
        ] {
            assert!(file_name(bad, WORKBOOKS).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn uploads_are_kept_whole_per_user_and_found_only_by_their_id() {
        let dir = tempfile::tempdir().unwrap();
        let uploads = Uploads::new(dir.path());
        let id = keep(&uploads, "aiko", &[("items.csv", b"id\n1\n")]).unwrap();
        let folder = uploads.folder("aiko", &id).unwrap();
        assert_eq!(Uploads::files(&folder), ["items.csv"]);
        assert!(uploads.folder("bob", &id).is_err(), "another user's upload");
        assert!(uploads.folder("aiko", "../../x").is_err());
        assert!(matches!(
            keep(&uploads, "aiko", &[]),
            Err(UploadError::Empty)
        ));
        assert!(matches!(
            keep(&uploads, "aiko", &[("a.csv", b""), ("A.csv", b"")]),
            Err(UploadError::Twice(_))
        ));
        // Past a bound, or dropped unkept: nothing of it stays.
        let mut staged = uploads.stage("aiko").unwrap();
        staged.create("big.csv").unwrap();
        assert!(matches!(
            staged.count("big.csv", FILE_LIMIT - 1, 2),
            Err(UploadError::TooLarge { .. })
        ));
        drop(staged);
        let partial = std::fs::read_dir(uploads.user_dir("aiko"))
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".part"))
            .count();
        assert_eq!(partial, 0);
        for _ in 0..KEPT + 3 {
            keep(&uploads, "aiko", &[("x.csv", b"")]).unwrap();
        }
        assert!(std::fs::read_dir(uploads.user_dir("aiko")).unwrap().count() <= KEPT);
    }
}
