//! `masterctl build`: a region commit's snapshot as a runtime build — archives and a
//! manifest, written into a temporary directory and renamed into place.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use masterctl_build::archive::{BuildInput, BuiltFile, build};
use masterctl_generators::generate;
use masterctl_locales::texts::text_fields;
use masterctl_locales::{TableTexts, region_languages};
use masterctl_runtime::manifest::{Fallback, MANIFEST, Manifest, SeenBy};
use masterctl_runtime::{FORMAT_VERSION, files};
use masterctl_schemas::audience::Audience;
use masterctl_schemas::schema::Config;
use masterctl_schemas::{Project, Table};

use crate::MasterRepo;
use crate::StoreError;
use crate::names::{Branch, Region};
use crate::snapshot::{read_tables, texts_at};

/// What to build, and where.
pub struct Request<'a> {
    /// The region to build.
    pub region: &'a str,
    /// One of the region's work branches instead.
    pub branch: Option<&'a str>,
    /// A commit of the region's history instead of its head (a sha, a tag, `masters/jp~2`).
    pub rev: Option<&'a str>,
    /// With the client export.
    pub client: bool,
    /// Pseudo languages to make besides the project's `[pseudo]` ones.
    pub pseudo: &'a [String],
    /// The build directory (a previous build there is replaced).
    pub out: &'a Path,
}

/// A build written: where, from which commit, its size and the text fallbacks taken.
#[derive(Debug, serde::Serialize)]
pub struct Built {
    pub region: String,
    pub out: PathBuf,
    pub source_commit: String,
    pub files: usize,
    pub bytes: u64,
    pub fallbacks: Vec<Fallback>,
}

/// The whole build as one call: resolve the region, build it in memory, write it into
/// place. The CLI and the console render the [`Built`] it returns.
pub fn run(repo: &MasterRepo, request: &Request) -> Result<Built, StoreError> {
    let structure = repo.structure()?;
    let region = Branch::of(
        &Region::of(&structure.project, request.region)?,
        request.branch,
    )?;
    let options = Options {
        client: request.client,
        pseudo: request.pseudo,
    };
    let build = build_region(repo, &region, request.rev, &options)?;
    write_build(&build, request.out)?;
    let bytes = build.size();
    let Build { manifest, files } = build;
    Ok(Built {
        region: manifest.region,
        out: request.out.to_path_buf(),
        source_commit: manifest.source_commit,
        files: files.len(),
        bytes,
        fallbacks: manifest.fallbacks,
    })
}

/// A build, made in memory.
pub struct Build {
    pub manifest: Manifest,
    pub files: Vec<BuiltFile>,
}

impl Build {
    /// Bytes of all archives.
    pub fn size(&self) -> u64 {
        self.files.iter().map(|f| f.bytes.len() as u64).sum()
    }
}

/// What a build holds besides the region's own languages.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options<'a> {
    /// With the client export (and for the client audience).
    pub client: bool,
    /// Pseudo languages besides the project's `[pseudo]` ones.
    pub pseudo: &'a [String],
}

/// Build a region at its head, or at `rev` (any revision naming a commit of a region
/// branch's history).
pub fn build_region(
    repo: &MasterRepo,
    region: &Branch,
    rev: Option<&str>,
    options: &Options,
) -> Result<Build, StoreError> {
    let client = options.client;
    let git = &repo.git;
    let branch = region.branch().to_string();
    let commit = repo.commit_of(region, rev)?;
    crate::vouched::check(repo, &branch, &commit)?;
    let tree = commit.tree()?;
    let broken = |message: String| StoreError::BrokenSnapshot {
        branch: branch.clone(),
        message,
    };
    let structure = crate::snapshot::structure::Structure::at(git, &tree).map_err(|_| {
        broken(format!(
            "commit {} holds no loadable masterctl.toml and schemas",
            commit.id()
        ))
    })?;
    // The server's build, or the client's: only what that audience may see.
    let audience = if client {
        Audience::Client
    } else {
        Audience::Server
    };
    let schema_hash = structure.schema_hash_for(audience);
    let project = structure.project;
    let partial = !project.seen_whole_by(audience);
    let tables: Vec<Table> = read_tables(git, &tree, &project, &branch)?;
    let mut languages: Vec<String> = region_languages(&project.config, region.name()).to_vec();
    let pseudo = pseudo_languages(&project.config, options.pseudo)?;
    let source = project.config.source_language.clone();
    let mut translations: HashMap<String, HashMap<String, TableTexts>> = HashMap::new();
    for language in languages.iter().filter(|l| **l != source) {
        let per_table = translations.entry(language.clone()).or_default();
        for schema in project.tables.iter().filter(|s| !text_fields(s).is_empty()) {
            let texts = texts_at(git, &tree, schema, language, &branch)?;
            if !texts.rows.is_empty() {
                per_table.insert(schema.name.clone(), texts);
            }
        }
    }
    let by_name: HashMap<&str, &Table> = tables.iter().map(|t| (t.name.as_str(), t)).collect();
    let generated = project
        .generated
        .iter()
        .filter(|g| g.audience.contains(audience))
        .filter_map(|g| Some((g.name.clone(), generate(&project, g, &by_name)?)))
        .collect();
    let (project, tables, translations) = seen_by(audience, project, tables, translations);
    // Pseudo languages come last: made from the source, they need no fallback.
    languages.extend(pseudo.iter().cloned());
    // Each table is freed once its archives' contents are taken from it.
    let input = BuildInput {
        project: &project,
        languages: &languages,
        translations: &translations,
        generated: &generated,
        schema_hash: &schema_hash,
        client,
        pseudo: &pseudo,
        expansion: project.config.pseudo.expansion,
    };
    let (files, fallbacks) = build(&input, tables)?;
    let manifest = Manifest {
        format: FORMAT_VERSION,
        region: region.name().to_string(),
        source_commit: commit.id().to_string(),
        schema_hash,
        languages,
        files: files.iter().map(BuiltFile::manifest_entry).collect(),
        fallbacks,
        timezone: Some(&project.config.timezone)
            .filter(|zone| !zone.is_utc())
            .map(|zone| zone.name().to_string()),
        audience: partial.then(|| audience.name().to_string()),
        seen_by: narrowed(&project, audience),
    };
    Ok(Build { manifest, files })
}

/// The project's pseudo languages and those asked for, each once: an asked one must be
/// a language tag none of the project's languages has.
fn pseudo_languages(config: &Config, asked: &[String]) -> Result<Vec<String>, StoreError> {
    let mut pseudo = config.pseudo.languages.clone();
    for language in asked {
        let why = if !masterctl_schemas::load::is_language_tag(language) {
            Some("it is not a language tag (qps, en-XA)")
        } else if config.languages.contains(language) {
            Some(
                "it is one of the project's languages; a pseudo language is made from the source texts, never translated",
            )
        } else {
            None
        };
        if let Some(why) = why {
            return Err(StoreError::BadPseudoLanguage {
                language: language.clone(),
                why,
            });
        }
        if !pseudo.contains(language) {
            pseudo.push(language.clone());
        }
    }
    Ok(pseudo)
}

/// The tables, fields and generated masters of the build for `audience` that not every
/// audience sees, and who does: a field when it differs from its table.
fn narrowed(project: &Project, audience: Audience) -> Vec<SeenBy> {
    use masterctl_schemas::audience::Audiences;
    let names = |audiences: Audiences| audiences.iter().map(|a| a.name().to_string()).collect();
    let mut seen = Vec::new();
    for schema in &project.tables {
        if schema.audience != Audiences::default() {
            seen.push(SeenBy {
                table: schema.name.clone(),
                field: None,
                audience: names(schema.audience),
            });
        }
        for field in schema
            .fields
            .iter()
            .filter(|f| f.audience != schema.audience)
        {
            seen.push(SeenBy {
                table: schema.name.clone(),
                field: Some(field.name.clone()),
                audience: names(field.audience),
            });
        }
    }
    let generated = project
        .generated
        .iter()
        .filter(|g| g.audience.contains(audience) && g.audience != Audiences::default());
    for master in generated {
        seen.push(SeenBy {
            table: master.name.clone(),
            field: None,
            audience: names(master.audience),
        });
    }
    seen
}

/// The project, its tables and their translations as `audience` sees them: the tables
/// it may see, with the columns and texts of the fields it may see. Unchanged when it
/// sees everything.
fn seen_by(
    audience: Audience,
    project: Project,
    tables: Vec<Table>,
    translations: HashMap<String, HashMap<String, TableTexts>>,
) -> (
    Project,
    Vec<Table>,
    HashMap<String, HashMap<String, TableTexts>>,
) {
    if project.seen_whole_by(audience) {
        return (project, tables, translations);
    }
    let view = project.view(audience);
    let tables = tables
        .into_iter()
        .filter_map(|table| {
            let schema = project.table(&table.name)?;
            schema.audience.contains(audience).then(|| Table {
                columns: schema
                    .seen_by(audience)
                    .into_iter()
                    .map(|i| table.columns[i].clone())
                    .collect(),
                ..table
            })
        })
        .collect();
    let translations = translations
        .into_iter()
        .map(|(language, per_table)| {
            let per_table = per_table
                .into_iter()
                .filter_map(|(name, texts)| {
                    let schema = project.table(&name)?;
                    let kept: Vec<usize> = text_fields(schema)
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| {
                            schema.audience.contains(audience)
                                && schema.fields[**f].audience.contains(audience)
                        })
                        .map(|(position, _)| position)
                        .collect();
                    (!kept.is_empty()).then(|| (name, texts.only(&kept)))
                })
                .collect();
            (language, per_table)
        })
        .collect();
    (view, tables, translations)
}

/// Write a build to `out`: into a temporary directory beside it, then renamed into
/// place. A previous build there (a directory whose manifest reads as one) is replaced;
/// any other existing, non-empty directory, and a link, are left alone and refused.
pub fn write_build(build: &Build, out: &Path) -> Result<(), StoreError> {
    let io = |path: &Path, e: std::io::Error| StoreError::io(path)(e);
    match files::occupant(out) {
        files::Occupant::Nothing | files::Occupant::Build => {}
        files::Occupant::Link => return Err(StoreError::OutIsLink(out.display().to_string())),
        files::Occupant::Other => return Err(StoreError::NotABuild(out.display().to_string())),
    }
    // Assembled beside the target, then swapped in: a reader (or a process killed at any
    // moment) sees the old build or the new one; leftovers of killed runs go first.
    let staged = files::staging_dir(out).map_err(|e| io(out, e))?;
    let written = (|| {
        for file in &build.files {
            let path = staged.join(&file.path);
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
            }
            std::fs::write(&path, &file.bytes).map_err(|e| io(&path, e))?;
        }
        let manifest_path = staged.join(MANIFEST);
        std::fs::write(&manifest_path, build.manifest.to_bytes())
            .map_err(|e| io(&manifest_path, e))?;
        files::replace_dir(&staged, out).map_err(|e| io(out, e))
    })();
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&staged);
    }
    written
}
