//! `docs/reference/json.md`: the shape of what every command prints under
//! `--format json`, taken from the commands themselves run on the sample game (a field
//! of every object, the type of every value; `?` where some objects of a list lack it).
//! The test fails when a command's JSON no longer has the shape the reference gives;
//! `MASTERCTL_UPDATE_REFERENCE=1` writes the reference again instead.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::common::*;

/// The type of a JSON value, with every shape a list's elements take merged into one.
#[derive(Debug, Clone, PartialEq)]
enum Shape {
    /// An empty list's element: nothing seen.
    Nothing,
    Null,
    Bool,
    Number,
    String,
    List(Box<Shape>),
    /// Each field's shape and whether some objects lacked it.
    Object(BTreeMap<String, (Shape, bool)>),
    /// Several of the above (sorted, none of them `Nothing` or a union).
    Either(Vec<Shape>),
}

impl Shape {
    fn of(value: &serde_json::Value) -> Shape {
        use serde_json::Value;
        match value {
            Value::Null => Shape::Null,
            Value::Bool(_) => Shape::Bool,
            Value::Number(_) => Shape::Number,
            Value::String(_) => Shape::String,
            Value::Array(items) => Shape::List(Box::new(
                items
                    .iter()
                    .map(Shape::of)
                    .fold(Shape::Nothing, Shape::merge),
            )),
            Value::Object(fields) => Shape::Object(
                fields
                    .iter()
                    .map(|(name, value)| (name.clone(), (Shape::of(value), false)))
                    .collect(),
            ),
        }
    }

    /// One shape for values of both.
    fn merge(self, other: Shape) -> Shape {
        match (self, other) {
            (Shape::Nothing, shape) | (shape, Shape::Nothing) => shape,
            (Shape::List(a), Shape::List(b)) => Shape::List(Box::new(a.merge(*b))),
            (Shape::Object(mut a), Shape::Object(b)) => {
                for (_, (_, optional)) in a.iter_mut().filter(|(name, _)| !b.contains_key(*name)) {
                    *optional = true;
                }
                for (name, (shape, optional)) in b {
                    let merged = match a.remove(&name) {
                        Some((mine, mine_optional)) => {
                            (mine.merge(shape), mine_optional || optional)
                        }
                        None => (shape, true),
                    };
                    a.insert(name, merged);
                }
                Shape::Object(a)
            }
            (a, b) if a == b => a,
            (a, b) => {
                let mut all = Vec::new();
                for shape in [a, b] {
                    match shape {
                        Shape::Either(shapes) => all.extend(shapes),
                        shape => all.push(shape),
                    }
                }
                // Objects and lists of the union merge with one another.
                let mut merged: Vec<Shape> = Vec::new();
                for shape in all {
                    match merged.iter().position(|m| same_kind(m, &shape)) {
                        Some(at) => {
                            let mine = merged.remove(at);
                            merged.insert(at, mine.merge(shape));
                        }
                        None => merged.push(shape),
                    }
                }
                merged.sort_by_key(Shape::rank);
                if merged.len() == 1 {
                    merged.remove(0)
                } else {
                    Shape::Either(merged)
                }
            }
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Shape::Nothing => 0,
            Shape::Bool => 1,
            Shape::Number => 2,
            Shape::String => 3,
            Shape::List(_) => 4,
            Shape::Object(_) => 5,
            Shape::Either(_) => 6,
            Shape::Null => 7,
        }
    }

    /// The shape as TypeScript-like text, `indent` spaces in.
    fn write(&self, out: &mut String, indent: usize) {
        match self {
            Shape::Nothing => out.push_str("never"),
            Shape::Null => out.push_str("null"),
            Shape::Bool => out.push_str("boolean"),
            Shape::Number => out.push_str("number"),
            Shape::String => out.push_str("string"),
            Shape::List(element) => {
                let parenthesised = matches!(**element, Shape::Either(_));
                out.push_str(if parenthesised { "(" } else { "" });
                element.write(out, indent);
                out.push_str(if parenthesised { ")[]" } else { "[]" });
            }
            Shape::Object(fields) => {
                out.push_str("{\n");
                for (name, (shape, optional)) in fields {
                    let _ = write!(
                        out,
                        "{:indent$}  {name}{}: ",
                        "",
                        if *optional { "?" } else { "" }
                    );
                    shape.write(out, indent + 2);
                    out.push_str(",\n");
                }
                let _ = write!(out, "{:indent$}}}", "");
            }
            Shape::Either(shapes) => {
                for (i, shape) in shapes.iter().enumerate() {
                    if i > 0 {
                        out.push_str(" | ");
                    }
                    shape.write(out, indent);
                }
            }
        }
    }
}

/// Shapes a union holds once: objects and lists merge, a scalar is there or not.
fn same_kind(a: &Shape, b: &Shape) -> bool {
    matches!(
        (a, b),
        (Shape::Object(_), Shape::Object(_)) | (Shape::List(_), Shape::List(_))
    ) || a == b
}

#[test]
fn the_shapes_merge_fields_and_mark_the_optional_ones() {
    let shape = Shape::of(&serde_json::json!([
        {"a": 1, "b": "x"},
        {"a": null, "c": [true]},
        {"a": null},
    ]));
    let mut text = String::new();
    shape.write(&mut text, 0);
    assert_eq!(
        text,
        "{\n  a: number | null,\n  b?: string,\n  c?: boolean[],\n}[]"
    );
}

#[test]
fn every_commands_json_has_the_shape_the_reference_gives() {
    let tmp = tempfile::tempdir().unwrap();
    let root = planners_repository(tmp.path());
    let fixtures = fixtures();
    let store = format!("file://{}", tmp.path().join("store").display());
    // A remote for pull and push: a bare repository holding the structure.
    let remote = tmp.path().join("remote.git");
    let git = |dir: &std::path::Path, args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}");
    };
    std::fs::create_dir_all(&remote).unwrap();
    git(&remote, &["init", "-q", "--bare", "-b", "main"]);
    // (what the run shows, the command's arguments); `fixtures/…` is the bundled fixtures.
    let steps: &[(&str, &str)] = &[
        ("init", "init . --from fixtures/"),
        ("", "REMOTE"),
        ("validate", "validate fixtures/workbooks"),
        (
            "validate (rejected)",
            "validate fixtures/workbooks/quests.xlsx fixtures/broken/items_enum_typo.xlsx",
        ),
        (
            "import (committed)",
            "import --region jp fixtures/workbooks",
        ),
        (
            "import (unchanged)",
            "import --region jp fixtures/workbooks",
        ),
        (
            "import (rejected)",
            "import --region jp fixtures/broken/items_enum_typo.xlsx",
        ),
        ("log", "log --region jp"),
        ("l10n status", "l10n status --region jp --lang en"),
        (
            "l10n import --dry-run",
            "l10n import --region jp fixtures/examples/en.po --dry-run",
        ),
        (
            "l10n import",
            "l10n import --region jp fixtures/examples/en.po",
        ),
        (
            "rebase --dry-run (a review)",
            "rebase --region global --dry-run",
        ),
        ("rebase (committed)", "rebase --region global"),
        ("branch create", "branch create event --region global"),
        (
            "import --branch (a work branch)",
            "import --region global --branch event fixtures/examples/global",
        ),
        (
            "branch propose",
            "branch propose event --region global -m shop",
        ),
        ("branch list (a proposal)", "branch list"),
        (
            "merge --dry-run (a review)",
            "merge --region global --branch event --dry-run",
        ),
        ("merge (committed)", "merge --region global --branch event"),
        ("branch list", "branch list"),
        (
            "import --dry-run",
            "import --region jp fixtures/examples/jp --dry-run",
        ),
        (
            "import (a change)",
            "import --region jp fixtures/examples/jp",
        ),
        ("push", "push"),
        ("push (nothing to send)", "push --region jp"),
        ("pull", "pull"),
        ("status", "status"),
        ("branch delete", "branch delete event --region global"),
        ("diff", "diff --region jp"),
        ("blame", "blame --region jp item 1"),
        (
            "rebase --dry-run (conflicts)",
            "rebase --region global --dry-run",
        ),
        ("rebase (conflicts)", "rebase --region global"),
        (
            "rebase --theirs",
            "rebase --region global --theirs --table quest",
        ),
        ("rebase --continue", "rebase --region global --continue"),
        ("tag create", "tag create 1.0 --region global -m launch"),
        ("tag list", "tag list"),
        ("build", "build --region global --out build --rev 1.0"),
        ("inspect", "inspect build"),
        ("inspect TABLE", "inspect build item"),
        ("inspect TABLE KEY", "inspect build item 5 --lang en"),
        ("inspect GROUP KEY", "inspect build quests_by_chapter 1"),
        ("inspect WEIGHTED KEY", "inspect build drop_draw 101"),
        (
            "inspect MATRIX ROW COLUMN",
            "inspect build element_matrix fire wind",
        ),
        ("inspect (not found)", "inspect build item 999"),
        ("export", "export --region jp --out exported"),
        ("publish", "publish build --to STORE"),
        ("releases", "releases --from STORE"),
        (
            "fetch",
            "fetch --from STORE --region global --out fetched --lang en",
        ),
        ("key new", "key new --out release --no-passphrase"),
        (
            "publish --sign",
            "publish build --to STORE --sign release.key",
        ),
        (
            "fetch --trust",
            "fetch --from STORE --region global --out fetched --lang en --trust release.pub",
        ),
        (
            "watch --once --report",
            "watch --from STORE --region global --out watched --once --report --host web-1",
        ),
        ("releases --fleet", "releases --from STORE --fleet"),
        ("gc --dry-run", "gc --from STORE --keep 1 --dry-run"),
        (
            "schema infer",
            "schema infer fixtures/workbooks/quests.xlsx",
        ),
        ("unlock", "unlock --region jp"),
        ("a failure", "log --region eu"),
    ];
    let mut reference = String::from(
        "# JSON output\n\n\
         What each command prints with `--format json`, as types: `string`, `number`, \
         `boolean`, `null`, lists (`T[]`), objects with their fields (`name?` when some \
         objects of a list lack it), `A | B` where a value takes either. One object per \
         run, on standard output, whatever happened: `ok` says whether the command did \
         what was asked. Taken from the commands themselves, run on the sample game \
         (`cli/tests/json_shapes.rs`, which fails when they no longer print this).\n",
    );
    for (title, args) in steps {
        if *args == "REMOTE" {
            git(
                &root,
                &["remote", "add", "origin", remote.to_str().unwrap()],
            );
            git(&root, &["push", "-q", "origin", "HEAD:main"]);
            continue;
        }
        let args: Vec<String> = args
            .split(' ')
            .map(|arg| match arg.strip_prefix("fixtures/") {
                Some(path) => fixtures.join(path).display().to_string(),
                None => arg.replace("STORE", &store),
            })
            .chain(["--format".to_string(), "json".to_string()])
            .collect();
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = masterctl(&root, &args);
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "masterctl {}: not JSON ({e}): {}",
                args.join(" "),
                text(&out)
            )
        });
        let shown: Vec<&str> = args
            .iter()
            .map(
                |arg| match arg.strip_prefix(&fixtures.display().to_string()) {
                    Some(_) => "…",
                    None if arg.starts_with("file://") => "file://…",
                    None => arg,
                },
            )
            .collect();
        let mut shape = String::new();
        Shape::of(&value).write(&mut shape, 0);
        let _ = write!(
            reference,
            "\n## {}\n\n`masterctl {}` (exit {})\n\n```ts\n{shape}\n```\n",
            title.trim(),
            shown.join(" "),
            out.status.code().unwrap_or(-1)
        );
    }
    let path = crate::common::root().join("docs/reference/json.md");
    if std::env::var_os("MASTERCTL_UPDATE_REFERENCE").is_some() {
        std::fs::write(&path, &reference).unwrap();
        return;
    }
    let kept = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        kept == reference,
        "docs/reference/json.md is not what the commands print: run \
         `MASTERCTL_UPDATE_REFERENCE=1 cargo test -p masterctl --test suite json_shapes`, \
         review the difference and commit it"
    );
}
