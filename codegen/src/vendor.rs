//! The runtime crate, compiled into masterctl and written beside a generated Rust crate
//! (`masterctl-runtime/`), so that the crate builds as generated — the same runtime that
//! wrote the builds it reads, whatever is published — with no flag and no network past
//! the package registry.

/// The folder under the output the runtime is written to.
pub const FOLDER: &str = "masterctl-runtime";

/// The dependency line of the generated crate on it.
pub fn dependency() -> String {
    dependency_at(FOLDER)
}

/// The dependency line of the generated crate on a runtime crate at `path` (the path
/// quoted as TOML needs, whatever it holds).
pub fn dependency_at(path: &str) -> String {
    use toml_writer::ToTomlValue;
    format!("{{ path = {} }}", path.to_toml_value())
}

/// The runtime's files, as its crate holds them (`Cargo.toml` standalone: no workspace).
const SOURCES: &[(&str, &str)] = &[
    (
        "src/calendar.rs",
        include_str!("../../runtime/src/calendar.rs"),
    ),
    ("src/check.rs", include_str!("../../runtime/src/check.rs")),
    ("src/files.rs", include_str!("../../runtime/src/files.rs")),
    ("src/format.rs", include_str!("../../runtime/src/format.rs")),
    (
        "src/generated.rs",
        include_str!("../../runtime/src/generated.rs"),
    ),
    ("src/lib.rs", include_str!("../../runtime/src/lib.rs")),
    (
        "src/manifest.rs",
        include_str!("../../runtime/src/manifest.rs"),
    ),
    (
        "src/parallel.rs",
        include_str!("../../runtime/src/parallel.rs"),
    ),
    (
        "src/serialize.rs",
        include_str!("../../runtime/src/serialize.rs"),
    ),
    (
        "src/signature.rs",
        include_str!("../../runtime/src/signature.rs"),
    ),
    ("src/table.rs", include_str!("../../runtime/src/table.rs")),
    ("src/text.rs", include_str!("../../runtime/src/text.rs")),
];

/// The runtime crate's `Cargo.toml` with the workspace's settings written out.
fn manifest() -> String {
    format!(
        "# The runtime of masterctl {version}, written by masterctl's Rust code generator:\n\
         # the loader of the builds this masterctl writes. Do not edit.\n\
         [package]\n\
         name = \"masterctl-runtime\"\n\
         version = \"{version}\"\n\
         edition = \"2024\"\n\
         rust-version = \"1.89\"\n\
         license = \"MIT OR Apache-2.0\"\n\
         publish = false\n\
         \n\
         [dependencies]\n\
         rkyv = {{ version = \"0.8\", default-features = false, features = [\"std\", \"bytecheck\", \"little_endian\", \"aligned\", \"pointer_width_32\"] }}\n\
         memmap2 = \"0.9\"\n\
         blake3 = {{ version = \"1\", default-features = false, features = [\"std\"] }}\n\
         simdutf8 = \"0.1\"\n\
         rayon = \"1\"\n\
         serde = {{ version = \"1\", features = [\"derive\"] }}\n\
         serde_json = \"1\"\n\
         minisign-verify = \"0.3\"\n\
         base64 = \"0.23\"\n\
         \n\
         [target.'cfg(unix)'.dependencies]\n\
         libc = \"0.2\"\n",
        version = env!("CARGO_PKG_VERSION")
    )
}

/// Every file of the vendored runtime: its path under the output folder and content.
pub fn files() -> Vec<(String, String)> {
    let mut files = vec![(format!("{FOLDER}/Cargo.toml"), manifest())];
    files.extend(
        SOURCES
            .iter()
            .map(|(path, text)| (format!("{FOLDER}/{path}"), (*text).to_string())),
    );
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runtime_source_is_vendored() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/src");
        let mut found: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| format!("src/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        found.sort();
        let vendored: Vec<&str> = SOURCES.iter().map(|(p, _)| *p).collect();
        assert_eq!(
            found, vendored,
            "runtime/src changed: list its files in SOURCES"
        );
        let manifest = manifest();
        let runtime = std::fs::read_to_string(dir.join("../Cargo.toml")).unwrap();
        // Every dependency the runtime declares (its `name = …` lines outside
        // [package]), so that one added there cannot be missed here.
        let mut section = "";
        let dependencies: Vec<&str> = runtime
            .lines()
            .filter_map(|line| {
                if line.starts_with('[') {
                    section = line;
                    return None;
                }
                let name = line.split_once(" = ")?.0;
                (section.ends_with("dependencies]") && !section.contains("dev-")).then_some(name)
            })
            .collect();
        assert!(dependencies.contains(&"rkyv") && dependencies.contains(&"libc"));
        for dependency in dependencies {
            assert!(
                runtime.contains(&format!("\n{dependency} ")),
                "{dependency}"
            );
            assert!(
                manifest.contains(&format!("\n{dependency} ")),
                "{dependency}"
            );
        }
    }
}
