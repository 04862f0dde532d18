//! `codegen`: typed access to the masters in a language, generated from the schemas an
//! action names by the built-in templates and any of the user's own.

use std::path::{Path, PathBuf};

use masterctl_codegen::{
    self as codegen, CodegenError, Context, GeneratedFile, Lang, UserTemplate, Written,
};
use masterctl_schemas::audience::Audience;
use masterctl_store::{ErrorKind, MasterRepo, StoreError};
use serde::Serialize;

use crate::Kinded;
use crate::schemas::Schemas;

/// The largest template read (a template is text a person wrote).
const TEMPLATE_LIMIT: u64 = 16 << 20;

/// What to generate.
pub struct Request<'a> {
    pub lang: Lang,
    /// The schemas the code is generated from.
    pub schemas: Schemas,
    /// Whose view of the schemas the code is for; `None`: the server's for Rust, the
    /// client's for the languages reading the client export.
    pub audience: Option<Audience>,
    /// The package's name (the Rust crate's).
    pub package: &'a str,
    /// The runtime crate as a path dependency; `None`: this masterctl's own runtime,
    /// written beside a Rust crate so that it builds as generated.
    pub runtime: Option<&'a Path>,
    /// A folder of the user's templates overriding built-in ones by path, or adding files.
    pub templates: Option<&'a Path>,
}

/// What a request generates from: the context its templates are rendered with.
pub struct Prepared {
    pub context: Context,
    pub audience: Audience,
    pub schema_hash: String,
    /// Whether this masterctl's runtime is written beside the code.
    vendored: bool,
}

/// What generating wrote.
#[derive(Debug, Serialize)]
pub struct Generated {
    pub lang: &'static str,
    /// Whose build the code reads (`server`, `client`).
    pub audience: &'static str,
    pub out: PathBuf,
    pub schema_hash: String,
    pub files: Vec<FileResult>,
}

/// One file generated, and whether it was written or already held exactly that.
#[derive(Debug, Serialize)]
pub struct FileResult {
    #[serde(flatten)]
    pub file: GeneratedFile,
    pub written: Written,
}

/// Why code was not generated.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(
        "`{0}` is not a package name: lower-case letters, digits, `_` and `-`, starting with a letter"
    )]
    Package(String),
    #[error("the runtime crate {path}: {why}")]
    Runtime { path: PathBuf, why: String },
    #[error("the templates {path}: {why}")]
    Templates { path: PathBuf, why: String },
    #[error("{path}: a template is UTF-8 text")]
    NotText { path: PathBuf },
    #[error("{path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Codegen(#[from] CodegenError),
}

impl Kinded for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Package(_) | Error::Runtime { .. } | Error::Templates { .. } => ErrorKind::Usage,
            Error::NotText { .. } => ErrorKind::Invalid,
            Error::Read { .. } => ErrorKind::Environment,
            Error::Store(error) => error.kind(),
            Error::Codegen(error) => error.kind(),
        }
    }
}

impl Kinded for CodegenError {
    /// A template that does not render, writes outside the folder or two names that
    /// would be one are rejected; a file that cannot be written is the environment.
    fn kind(&self) -> ErrorKind {
        match self {
            CodegenError::Template { .. }
            | CodegenError::OutsidePath { .. }
            | CodegenError::Collision { .. } => ErrorKind::Invalid,
            CodegenError::Io { .. } => ErrorKind::Environment,
        }
    }
}

/// The context the request's templates are rendered with (what `--dump-context` shows).
pub fn prepare(repo: &MasterRepo, request: &Request<'_>) -> Result<Prepared, Error> {
    if !valid_package(request.package) {
        return Err(Error::Package(request.package.to_string()));
    }
    let runtime_dependency = match request.runtime {
        Some(path) => codegen::vendor::dependency_at(&runtime_crate(path)?.to_string_lossy()),
        None => codegen::vendor::dependency(),
    };
    let structure = request.schemas.read(repo)?;
    let audience = request.audience.unwrap_or(match request.lang {
        Lang::CSharp | Lang::Go | Lang::TypeScript => Audience::Client,
        Lang::Rust => Audience::Server,
    });
    let schema_hash = structure.schema_hash_for(audience);
    let seen = structure.project.view(audience);
    let context = codegen::context(
        &seen,
        request.lang,
        &schema_hash,
        request.package,
        &runtime_dependency,
    );
    Ok(Prepared {
        context,
        audience,
        schema_hash,
        vendored: request.runtime.is_none() && request.lang == Lang::Rust,
    })
}

/// Generate the request's code into `out` (created if needed): a file whose content is
/// unchanged is not rewritten, and files it did not write are never deleted.
pub fn generate(repo: &MasterRepo, request: &Request<'_>, out: &Path) -> Result<Generated, Error> {
    let prepared = prepare(repo, request)?;
    let user = match request.templates {
        Some(dir) => user_templates(dir)?,
        None => Vec::new(),
    };
    let mut files = codegen::generate(&prepared.context, request.lang, &user)?;
    if prepared.vendored {
        files.extend(codegen::vendored_runtime());
    }
    let written = codegen::write_files(out, &files)?;
    Ok(Generated {
        lang: request.lang.name(),
        audience: prepared.audience.name(),
        out: out.to_path_buf(),
        schema_hash: prepared.schema_hash,
        files: files
            .into_iter()
            .zip(written)
            .map(|(file, written)| FileResult { file, written })
            .collect(),
    })
}

/// The runtime crate's folder, made absolute; refused without a `Cargo.toml`.
fn runtime_crate(path: &Path) -> Result<PathBuf, Error> {
    let refused = |why: String| Error::Runtime {
        path: path.to_path_buf(),
        why,
    };
    let absolute = std::fs::canonicalize(path).map_err(|e| refused(e.to_string()))?;
    if !absolute.join("Cargo.toml").is_file() {
        return Err(refused(
            "no Cargo.toml there (the runtime crate's folder is asked for)".to_string(),
        ));
    }
    Ok(absolute)
}

/// Every `*.hbs` file under `dir`, by its path there (slash-separated), in path order.
fn user_templates(dir: &Path) -> Result<Vec<UserTemplate>, Error> {
    let refused = |why: &str| Error::Templates {
        path: dir.to_path_buf(),
        why: why.to_string(),
    };
    if !dir.is_dir() {
        return Err(refused("not a folder"));
    }
    let mut templates = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let unread = |source| Error::Read {
            path: folder.clone(),
            source,
        };
        for entry in std::fs::read_dir(&folder).map_err(unread)? {
            let entry = entry.map_err(unread)?;
            let path = entry.path();
            let kind = entry.file_type().map_err(unread)?;
            if kind.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "hbs") {
                templates.push(user_template(dir, &path, kind.is_symlink())?);
            }
        }
    }
    if templates.is_empty() {
        return Err(refused("no .hbs file there"));
    }
    templates.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(templates)
}

/// The template at `path` under `dir`: a regular file of UTF-8 text, never a link.
fn user_template(dir: &Path, path: &Path, link: bool) -> Result<UserTemplate, Error> {
    let refused = |why: &str| Error::Templates {
        path: path.to_path_buf(),
        why: why.to_string(),
    };
    if link {
        return Err(refused(
            "a symbolic link; templates are read as regular files inside their folder only",
        ));
    }
    let bytes = masterctl_runtime::files::read_regular_not_linked(path, TEMPLATE_LIMIT)
        .map_err(|source| Error::Read {
            path: path.to_path_buf(),
            source,
        })?
        .ok_or_else(|| refused("not a regular file"))?;
    let text = String::from_utf8(bytes).map_err(|_| Error::NotText {
        path: path.to_path_buf(),
    })?;
    let relative: Vec<String> = path
        .strip_prefix(dir)
        .unwrap_or(path)
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Ok(UserTemplate {
        path: relative.join("/"),
        text,
    })
}

/// A package name every target accepts (a Cargo crate, a Go package, an npm package).
fn valid_package(name: &str) -> bool {
    name.len() <= 64
        && name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}
