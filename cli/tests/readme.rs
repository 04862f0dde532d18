//! The examples of the README and of the guide it lists (`docs/guide/`, in its order),
//! run as written and in order: every command of every `sh`
//! block (each block from the clone's folder, as the README says), its exit code (0, or
//! the `# exit N` its comment names), and the output block shown after it (each line
//! shown must be printed; `...` stands for lines left out; a `json` block must match
//! what is printed, `"..."` standing for array elements left out).
//!
//! Two kinds of line are not run: `cargo …` (builds; `.ci/run` and the fresh-clone
//! check run those) and `.ci/run` (this test is part of it).
//! `masterctl` is this build's binary, `fixtures/run.sh` uses it (`MASTERCTL`), and
//! `/tmp/` and `~` point into a temporary folder.

use std::path::Path;
use std::process::Command;

use crate::common::*;

/// One `sh` block: its commands (with their README line and expected exit code) and the
/// output block shown after it, if any.
#[derive(Debug, Default)]
struct Example {
    /// The document it is in (`README.md`, `docs/guide/…`).
    file: String,
    commands: Vec<(usize, String, i32)>,
    shown: Vec<String>,
    json: String,
}

fn examples(readme: &str) -> Vec<Example> {
    let mut examples: Vec<Example> = Vec::new();
    // The fence being read: Some(true) for sh, Some(false) for a plain output block.
    let mut fence: Option<bool> = None;
    let mut in_json = false;
    // Whether a plain block may still belong to the last sh block (no heading since).
    let mut open = false;
    let mut pending = String::new();
    for (index, line) in readme.lines().enumerate() {
        let number = index + 1;
        match fence {
            None if line.starts_with("```") => {
                let info = line.trim_start_matches('`').trim();
                fence = match info {
                    "sh" => {
                        examples.push(Example::default());
                        open = true;
                        Some(true)
                    }
                    "" => Some(false),
                    "json" if open => {
                        in_json = true;
                        Some(false)
                    }
                    _ => {
                        // Rust, TOML, JSON: another kind of block; read past it.
                        fence = Some(false);
                        open = false;
                        continue;
                    }
                };
            }
            None => {
                if line.starts_with('#') {
                    open = false;
                }
            }
            Some(_) if line.starts_with("```") => {
                fence = None;
                in_json = false;
                if examples
                    .last()
                    .is_some_and(|e| !e.shown.is_empty() || !e.json.is_empty())
                {
                    // One output block per example.
                    open = false;
                }
            }
            Some(true) => {
                let command = line.trim();
                if let Some(head) = command.strip_suffix('\\') {
                    pending.push_str(head);
                    continue;
                }
                let command = format!("{pending}{command}");
                pending.clear();
                if command.is_empty() || command.starts_with('#') {
                    continue;
                }
                let expected = command
                    .split_once(" # ")
                    .and_then(|(_, comment)| comment.trim().strip_prefix("exit "))
                    .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|code| code.parse().ok())
                    .unwrap_or(0);
                let example = examples.last_mut().expect("inside an sh block");
                example.commands.push((number, command, expected));
            }
            Some(false) if in_json => {
                if let Some(example) = examples.last_mut() {
                    example.json.push_str(line);
                    example.json.push('\n');
                }
            }
            Some(false) => {
                if open && let Some(example) = examples.last_mut() {
                    let shown = line.trim_end();
                    if !shown.trim().is_empty() && shown.trim() != "..." {
                        example.shown.push(shown.to_string());
                    }
                }
            }
        }
    }
    examples
}

/// Whether `actual` holds everything `shown` does: every key of a shown object with a
/// matching value; every shown array element but `"..."` matching an element of the
/// actual array; other values equal.
fn matches(shown: &serde_json::Value, actual: &serde_json::Value) -> bool {
    use serde_json::Value;
    match (shown, actual) {
        (Value::Object(shown), Value::Object(actual)) => shown
            .iter()
            .all(|(key, value)| actual.get(key).is_some_and(|a| matches(value, a))),
        (Value::Array(shown), Value::Array(actual)) => shown
            .iter()
            .filter(|v| v.as_str() != Some("..."))
            .all(|value| actual.iter().any(|a| matches(value, a))),
        _ => shown == actual,
    }
}

fn quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// A bash script running the block's commands one by one, stopping at the first whose
/// exit code is not the expected one.
fn script(example: &Example, tmp: &Path) -> String {
    let mut script = String::from("set -u\n");
    for (line, command, expected) in &example.commands {
        let first = command.split_whitespace().next().unwrap_or_default();
        if first == "cargo" || first == ".ci/run" {
            continue;
        }
        let command = command.replace("/tmp/", &format!("{}/", tmp.display()));
        script.push_str(&format!(
            "{command}\nrc=$?\nif [ $rc -ne {expected} ]; then echo {} \"exited $rc, expected {expected}\" >&2; exit 99; fi\n",
            quote(&format!("{}:{line}: `{command}`", example.file)),
        ));
    }
    script
}

/// The README and the guide it lists (`- \`docs/guide/NAME.md\``), in its order — which
/// must be every file of `docs/guide/` — each example tagged with its document.
fn documents() -> Vec<Example> {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let listed: Vec<String> = readme
        .lines()
        .filter_map(|l| l.strip_prefix("- `docs/guide/"))
        .filter_map(|l| {
            l.split_once('`')
                .map(|(name, _)| format!("docs/guide/{name}"))
        })
        .collect();
    let mut present: Vec<String> = std::fs::read_dir(root().join("docs/guide"))
        .unwrap()
        .map(|e| format!("docs/guide/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    present.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        sorted, present,
        "the README lists every file of docs/guide, once"
    );
    let mut all = Vec::new();
    for file in std::iter::once("README.md".to_string()).chain(listed) {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        for mut example in examples(&text) {
            example.file = file.clone();
            all.push(example);
        }
    }
    all
}

#[test]
fn every_readme_example_runs_as_written() {
    let examples = documents();
    let commands: usize = examples.iter().map(|e| e.commands.len()).sum();
    assert!(
        examples.len() >= 5 && commands >= 25,
        "the README's examples were not found ({} blocks, {commands} commands)",
        examples.len()
    );
    let work = tempfile::tempdir().unwrap();
    let (home, tmp) = (work.path().join("home"), work.path().join("tmp"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&tmp).unwrap();
    std::fs::write(
        home.join(".gitconfig"),
        "[user]\n\tname = README reader\n\temail = reader@example.invalid\n",
    )
    .unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_masterctl"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for example in &examples {
        let out = Command::new("bash")
            .arg("-c")
            .arg(script(example, &tmp))
            .current_dir(root())
            .env("HOME", &home)
            .env("TMPDIR", &tmp)
            .env("PATH", &path)
            .env("MASTERCTL", binary)
            .env("NO_COLOR", "1")
            .env_remove("GIT_DIR")
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("KEEP")
            .env_remove("CARGO_TARGET_DIR")
            .output()
            .expect("bash runs");
        let printed = text(&out);
        let (first, ..) = &example.commands[0];
        assert!(
            out.status.success(),
            "the example at {}:{first} fails:\n{printed}",
            example.file
        );
        if !example.json.is_empty() {
            let shown: serde_json::Value = serde_json::from_str(&example.json)
                .unwrap_or_else(|e| panic!("the JSON after {}:{first}: {e}", example.file));
            let actual: serde_json::Value =
                serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                    panic!(
                        "the example at {}:{first} prints no JSON ({e})",
                        example.file
                    )
                });
            assert!(
                matches(&shown, &actual),
                "the JSON after {}:{first} is not what it prints:\n{printed}",
                example.file
            );
        }
        for shown in &example.shown {
            assert!(
                printed.contains(shown.as_str()),
                "the example at {}:{first} shows `{shown}`, which it does not print:\n{printed}",
                example.file
            );
        }
    }
}

#[test]
fn the_readme_parser_sees_commands_exit_codes_and_output() {
    let readme = "# a\n```sh\nmasterctl a \\\n  b   # exit 1: why\n# note\ncargo x\n```\n\ntext\n\n```\nout 1\n...\n```\n## b\n```\nnot output\n```\n```toml\nx = 1\n```\n";
    let found = examples(readme);
    assert_eq!(found.len(), 1);
    assert_eq!(
        found[0].commands,
        [
            (4, "masterctl a b   # exit 1: why".to_string(), 1),
            (6, "cargo x".to_string(), 0)
        ]
    );
    assert_eq!(found[0].shown, ["out 1"]);
    let script = script(&found[0], Path::new("/t"));
    assert!(!script.contains("cargo x") && script.contains("-ne 1 ]"));
    let found = examples("```sh\nx\n```\n```json\n{\"a\": [1, \"...\"]}\n```\n");
    assert_eq!(found[0].json, "{\"a\": [1, \"...\"]}\n");
    let shown = serde_json::json!({ "a": [1, "..."], "b": { "c": true } });
    assert!(matches(
        &shown,
        &serde_json::json!({ "a": [0, 1, 2], "b": { "c": true, "d": 0 }, "e": 1 })
    ));
    assert!(!matches(
        &shown,
        &serde_json::json!({ "a": [0, 2], "b": { "c": true } })
    ));
    assert!(!matches(&shown, &serde_json::json!({ "a": [1], "b": {} })));
}
