//! `docs/reference/` is `masterctl manual --out docs/reference`'s output: a change to a
//! command's arguments comes with its reference.

use crate::common::{masterctl, root};

#[test]
fn the_reference_is_what_the_binary_writes() {
    let out = tempfile::tempdir().unwrap();
    let written = masterctl(
        out.path(),
        &["manual", "--out", out.path().to_str().unwrap()],
    );
    assert_eq!(written.status.code(), Some(0), "{written:?}");
    let committed = root().join("docs/reference");
    let files = |dir: &std::path::Path| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir.join("man"))
            .unwrap()
            .map(|e| format!("man/{}", e.unwrap().file_name().to_string_lossy()))
            .collect();
        names.push("cli.md".to_string());
        names.sort();
        names
    };
    let regenerate = "run `cargo run -- manual --out docs/reference` and commit the result";
    assert_eq!(
        files(&committed),
        files(out.path()),
        "the man pages differ: {regenerate}"
    );
    assert!(files(out.path()).contains(&"man/masterctl-import.1".to_string()));
    for name in files(out.path()) {
        let made = std::fs::read_to_string(out.path().join(&name)).unwrap();
        let kept = std::fs::read_to_string(committed.join(&name)).unwrap();
        assert!(
            made == kept,
            "docs/reference/{name} is out of date: {regenerate}"
        );
    }
    let markdown = std::fs::read_to_string(out.path().join("cli.md")).unwrap();
    assert!(markdown.contains("## `masterctl import`"), "{markdown}");
    assert!(markdown.contains("--allow-removal"));
}
