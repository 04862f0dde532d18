//! The shape docs/ARCHITECTURE.md promises, checked: within each crate, the top-level
//! modules depend on each other in one direction — no circle of `crate::` uses. A
//! piece two modules share gets a module of its own.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::root;

/// The crates whose modules are checked (benches holds one library file and programs).
const CRATES: [&str; 13] = [
    "app",
    "git",
    "build",
    "codegen",
    "schemas",
    "migrate",
    "store",
    "runtime",
    "generators",
    "locales",
    "delivery",
    "console",
    "cli",
];

/// Each top-level module of a crate (its file or folder under `src/`; `lib.rs` and
/// `main.rs` are the crate itself) and the modules of the same crate its code names.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    module_graph_under(src, "crate::")
}

/// [`module_graph`] of the modules in `src`, a crate's folder or one module's, whose
/// paths from other modules start with `prefix` (`crate::` or `crate::git::`).
fn module_graph_under(src: &Path, prefix: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut uses: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut files = vec![src.to_path_buf()];
    while let Some(path) = files.pop() {
        if path.is_dir() {
            files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let relative = path.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let module = first.to_string_lossy().trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" || module == "mod" {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let code = code_of(&text);
        let entry = uses.entry(module.clone()).or_default();
        entry.extend(named_under(&code, prefix));
        // A file directly in a folder module names its siblings through `super::` too
        // (`super::sync` in `commands/rebase.rs`).
        if prefix != "crate::" && relative.components().count() == 1 {
            entry.extend(named_under(&code, "super::"));
        }
    }
    let modules: BTreeSet<String> = uses.keys().cloned().collect();
    uses.into_iter()
        .map(|(module, named)| {
            let named = named
                .into_iter()
                .filter(|n| modules.contains(n) && *n != module)
                .collect();
            (module, named)
        })
        .collect()
}

/// A file's code: without comments and without its test module (tests may reach
/// anywhere).
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first name of every `crate::` path: `crate::diff::Diff` → `diff`, and each of
/// `use crate::{a, b::c}` → `a`, `b`.
fn named_modules(code: &str) -> BTreeSet<String> {
    named_under(code, "crate::")
}

/// The first name after every `prefix` path (`crate::git::` → `repo` of
/// `crate::snapshot::structure::Structure`).
fn named_under(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut named = BTreeSet::new();
    let identifier = |s: &str| -> String {
        s.trim_start()
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // The group's items at depth 0.
            let mut depth = 0;
            let mut item_start = true;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => item_start = true,
                    _ if item_start && !c.is_whitespace() => {
                        named.insert(identifier(&group[i..]));
                        item_start = false;
                    }
                    _ => {}
                }
            }
        } else {
            named.insert(identifier(rest));
        }
    }
    named
}

/// A circle of modules, if the graph has one: the modules in order, the first again
/// at the end.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|m| m == module) {
            let mut found = path[at..].to_vec();
            found.push(module.to_string());
            return Some(found);
        }
        if done.contains(module) {
            return None;
        }
        path.push(module.to_string());
        for next in graph.get(module).into_iter().flatten() {
            if let Some(found) = visit(next, graph, path, done) {
                return Some(found);
            }
        }
        path.pop();
        done.insert(module.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|module| visit(module, graph, &mut Vec::new(), &mut done))
}

/// Every folder module of a crate (`read/`, `read/xlsx/`, `commands/`), its path from
/// the crate's root.
fn folder_modules(src: &Path) -> Vec<String> {
    masterctl_testing::paths_under(src)
        .into_iter()
        .filter(|path| path.is_dir())
        .map(|path| {
            let relative = path.strip_prefix(src).unwrap();
            relative.to_string_lossy().replace('/', "::")
        })
        .collect()
}

/// Within every folder module too, the modules depend on each other in one direction
/// (`read/workbook.rs` and `read/xlsx/` once named each other; so did `commands/rebase.rs`
/// and `commands/sync.rs`).
#[test]
fn no_folder_module_has_a_circle_of_modules() {
    let mut checked = 0;
    for krate in CRATES {
        let src = root().join(krate).join("src");
        for folder in folder_modules(&src) {
            let graph = module_graph_under(
                &src.join(folder.replace("::", "/")),
                &format!("crate::{folder}::"),
            );
            checked += 1;
            if let Some(found) = circle(&graph) {
                panic!(
                    "{krate}/src/{}: a circle of modules, {} — give what they share a module of its own",
                    folder.replace("::", "/"),
                    found.join(" → ")
                );
            }
        }
    }
    assert!(checked > 10, "{checked} folder modules");
}

#[test]
fn no_crate_has_a_circle_of_modules() {
    for krate in CRATES {
        let graph = module_graph(&root().join(krate).join("src"));
        assert!(graph.len() > 1, "{krate}: no modules found");
        if let Some(found) = circle(&graph) {
            panic!(
                "{krate}: a circle of modules, {} — give what they share a module of its own",
                found.join(" → ")
            );
        }
    }
}

/// The store in layers above the git plumbing (the `git` crate, which the compiler
/// keeps from naming the store: it depends on no crate of the workspace but the
/// foundation's two): a region commit's snapshot (`snapshot/`) names no other module of
/// the store; review (`review/`: diff, blame, history) names only the snapshot; the
/// workflows call both. Within each layer, no circle either.
#[test]
fn store_layers_point_down() {
    let manifest = std::fs::read_to_string(root().join("git/Cargo.toml")).unwrap();
    let ours: Vec<&str> = manifest
        .lines()
        .filter(|line| line.starts_with("masterctl-"))
        .filter_map(|line| line.split(['.', ' ', '=']).next())
        .collect();
    assert_eq!(ours, ["masterctl-schemas", "masterctl-runtime"]);
    let store = root().join("store/src");
    let graph = module_graph(&store);
    let allowed = |layer: &str, may: &[&str]| {
        let named: Vec<&String> = graph[layer]
            .iter()
            .filter(|m| !may.contains(&m.as_str()))
            .collect();
        assert!(
            named.is_empty(),
            "store's {layer} layer names {named:?}: it may name only {may:?}"
        );
    };
    allowed("snapshot", &["repository"]);
    allowed("review", &["snapshot", "repository"]);
    for layer in ["snapshot", "review"] {
        let inner = module_graph_under(&store.join(layer), &format!("crate::{layer}::"));
        assert!(inner.len() > 2, "{layer}: {inner:?}");
        assert_eq!(circle(&inner), None, "a circle inside store's {layer}");
    }
    // The check sees a layer reaching up.
    let graph = BTreeMap::from([(
        "snapshot".to_string(),
        named_modules("use crate::import::plan;")
            .into_iter()
            .collect::<BTreeSet<_>>(),
    )]);
    assert!(graph["snapshot"].contains("import"));
}

#[test]
fn the_check_finds_a_circle_and_reads_use_groups() {
    let named = named_modules(
        "use crate::{a, b::{c, d}, e::F};\nlet x = crate::g::h();\nuse crate::StoreError;",
    );
    let expected: BTreeSet<String> = ["a", "b", "e", "g", "StoreError"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(named, expected);
    assert_eq!(code_of("use crate::a; // crate::b\n"), "use crate::a; ");
    let graph: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(m, d)| (m.to_string(), d.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circle(&graph).unwrap(), ["a", "b", "c", "a"]);
    let mut acyclic = graph.clone();
    acyclic.get_mut("c").unwrap().clear();
    assert_eq!(circle(&acyclic), None);
}

/// Every `.rs` file under `dir`, as (path, text).
fn sources(dir: &Path) -> Vec<(std::path::PathBuf, String)> {
    let mut found = Vec::new();
    let mut next = vec![dir.to_path_buf()];
    while let Some(path) = next.pop() {
        if path.is_dir() {
            next.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).unwrap();
            found.push((path, text));
        }
    }
    found
}

/// libgit2's process-wide options (`git2::opts`) change every thread's reads: a library
/// that serves a console's many requests must never set one in the middle of its work.
/// The one allowed is `repo::read_without_rehashing`, which only a binary calls, for a
/// process of its own.
#[test]
fn no_library_sets_a_process_wide_option() {
    let mut setters = Vec::new();
    for krate in CRATES.iter().filter(|c| **c != "cli") {
        for (path, text) in sources(&root().join(krate).join("src")) {
            let code = code_of(&text);
            if code.contains("git2::opts::") || code.contains("opts::strict_hash_verification") {
                setters.push(path.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    assert_eq!(
        setters,
        ["git/src/repo.rs"],
        "process-wide git2 options set in {setters:?}"
    );
    let repo = std::fs::read_to_string(root().join("git/src/repo.rs")).unwrap();
    assert_eq!(repo.matches("git2::opts::").count(), 1);
    let callers: Vec<String> = CRATES
        .iter()
        .flat_map(|krate| sources(&root().join(krate).join("src")))
        .filter(|(_, text)| code_of(text).contains("read_without_rehashing();"))
        .map(|(path, _)| path.strip_prefix(root()).unwrap().display().to_string())
        .collect();
    assert_eq!(
        callers,
        ["cli/src/commands/blame.rs", "cli/src/commands/rebase.rs"]
    );
}

/// Where a library's string literals name a command-line flag (`--lang`): a library's
/// messages carry data, and the CLI adds the hint naming its own flags (a console has
/// none). Another tool's flags, in a command given whole (`git diff --stat`), are not
/// ours.
fn flags_named(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in code.lines() {
        let bytes = line.as_bytes();
        for (at, _) in line.match_indices("--") {
            let before = at.checked_sub(1).map(|i| bytes[i]);
            let after = bytes.get(at + 2).copied();
            let starts_flag = matches!(before, Some(b' ' | b'`' | b'(' | b'"'))
                && after.is_some_and(|b| b.is_ascii_lowercase());
            let in_literal = line[..at].contains('"');
            let others = line[..at].rfind('`').is_some_and(|tick| {
                ["git ", "cargo "]
                    .iter()
                    .any(|tool| line[tick + 1..].starts_with(tool))
            });
            if starts_flag && in_literal && !others {
                found.push(line.trim().to_string());
            }
        }
    }
    found
}

#[test]
fn no_library_message_names_a_flag() {
    assert_eq!(
        flags_named("Err(format!(\"give it with --lang\"))\nlet x = a -- b;"),
        ["Err(format!(\"give it with --lang\"))"]
    );
    assert!(flags_named("\"compare it with `git diff --stat` instead\"").is_empty());
    let mut named = Vec::new();
    for krate in CRATES.iter().filter(|c| **c != "cli") {
        for (path, text) in sources(&root().join(krate).join("src")) {
            for line in flags_named(&code_of(&text)) {
                let path = path.strip_prefix(root()).unwrap().display().to_string();
                named.push(format!("{path}: {line}"));
            }
        }
    }
    assert!(
        named.is_empty(),
        "library messages naming flags:\n{}",
        named.join("\n")
    );
}

/// The two faces reach git and the stores only through the layers below them: neither
/// depends on git2 or object_store (so the compiler refuses a call to either), and both
/// depend on the application layer.
#[test]
fn the_faces_reach_git_and_stores_only_through_the_layers_below() {
    for face in ["cli", "console"] {
        let manifest = std::fs::read_to_string(root().join(face).join("Cargo.toml")).unwrap();
        // The names of the `[dependencies]` table, one per line.
        let dependencies: Vec<&str> = manifest
            .split("\n[")
            .find(|section| section.starts_with("dependencies]"))
            .unwrap()
            .lines()
            .skip(1)
            .filter(|line| !line.starts_with('#'))
            .filter_map(|line| line.split(['=', '.']).next())
            .map(str::trim)
            .collect();
        for below in ["git2", "object_store"] {
            assert!(
                !dependencies.contains(&below),
                "{face} depends on {below}: call the store or delivery instead"
            );
        }
        assert!(dependencies.contains(&"masterctl-app"), "{face}");
    }
}

/// docs/ARCHITECTURE.md's code map, checked against the tree: a section for every crate
/// of the workspace (`### `name/``), no section for a crate that is not there; in each
/// crate's section every top-level module of the crate named (`x.rs`, or `x/` for a
/// folder); and every file it names in backticks there (`x.rs`, `read/zipped.rs`,
/// `cli/tests/kill.rs`) present, in the crate or from the repository's root.
#[test]
fn the_code_map_names_every_crate_and_module_and_no_other() {
    let map = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let members: Vec<String> = manifest
        .lines()
        .find(|line| line.starts_with("members = ["))
        .unwrap()
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect();
    // Each section: the crates its heading names, and its text.
    let mut sections: Vec<(Vec<String>, String)> = Vec::new();
    for part in map.split("\n### ").skip(1) {
        let (heading, text) = part.split_once('\n').unwrap();
        let crates: Vec<String> = heading
            .split('`')
            .skip(1)
            .step_by(2)
            .filter_map(|name| name.strip_suffix('/'))
            .map(str::to_string)
            .collect();
        sections.push((crates, text.split("\n## ").next().unwrap().to_string()));
    }
    let mapped: Vec<&String> = sections.iter().flat_map(|(crates, _)| crates).collect();
    let mut wrong = Vec::new();
    for member in &members {
        if !mapped.contains(&member) {
            wrong.push(format!("no section for the crate {member}/"));
        }
    }
    for crate_dir in &mapped {
        if !members.contains(crate_dir) {
            wrong.push(format!(
                "a section for {crate_dir}/, not a crate of the workspace"
            ));
        }
    }
    for (crates, text) in &sections {
        let named: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
        for crate_dir in crates {
            let src = root().join(crate_dir).join("src");
            for entry in std::fs::read_dir(&src).unwrap().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let module = match entry.path().is_dir() {
                    true => format!("{name}/"),
                    false if name == "lib.rs" || name == "main.rs" => continue,
                    false => name,
                };
                // `bin/` holds programs, not modules.
                if module == "bin/" {
                    continue;
                }
                let is_named = named.iter().any(|n| {
                    n.split_whitespace().any(|word| {
                        word == module
                            || word.starts_with(&module)
                            || word.ends_with(&format!("/{module}"))
                    })
                });
                if !is_named {
                    wrong.push(format!(
                        "the section on {crate_dir}/ does not name {module}"
                    ));
                }
            }
        }
        for name in &named {
            if !name.ends_with(".rs") || name.contains(['<', '*', ' ', ':']) {
                continue;
            }
            // In a crate's tree (prose names a nested module from its folder), or from
            // the root.
            let there = root().join(name).exists()
                || sources_of(&members)
                    .iter()
                    .any(|path| path == name || path.ends_with(&format!("/{name}")));
            if !there {
                wrong.push(format!(
                    "the section on {crates:?} names {name}: no such file"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "docs/ARCHITECTURE.md: {wrong:#?}");
}

/// Every `.rs` file under the crates' `src/` and `tests/`, as paths from the root.
fn sources_of(members: &[String]) -> Vec<String> {
    let mut found = Vec::new();
    let mut folders: Vec<std::path::PathBuf> = members
        .iter()
        .flat_map(|m| [root().join(m).join("src"), root().join(m).join("tests")])
        .collect();
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let relative = path.strip_prefix(root()).unwrap_or(&path);
                found.push(relative.to_string_lossy().into_owned());
            }
        }
    }
    found
}

/// One row of docs/ARCHITECTURE.md's table of actions.
struct Action {
    commands: Vec<String>,
    /// `GET /path`
    routes: Vec<String>,
    /// `None`: nothing of the project is acted on.
    function: Option<String>,
}

fn actions_table() -> Vec<Action> {
    let map = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap();
    let section = map
        .split("\n## Actions")
        .nth(1)
        .expect("docs/ARCHITECTURE.md has a section `## Actions`");
    let section = section.split("\n## ").next().unwrap();
    let ticked = |cell: &str| -> Vec<String> {
        cell.split('`')
            .skip(1)
            .step_by(2)
            .map(str::to_string)
            .collect()
    };
    section
        .lines()
        .filter(|line| {
            line.starts_with("| ") && !line.starts_with("| command") && !line.starts_with("| ---")
        })
        .map(|line| {
            let cells: Vec<&str> = line.split('|').collect();
            assert_eq!(cells.len(), 5, "a row of three cells: {line}");
            Action {
                commands: ticked(cells[1]),
                routes: ticked(cells[2]),
                function: ticked(cells[3]).into_iter().next(),
            }
        })
        .collect()
}

/// Every command of the binary: the modules `commands::run` hands each to.
fn commands() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("cli/src/commands/mod.rs")).unwrap();
    let body = text.split("pub fn run(").nth(1).unwrap();
    let body = body.split("\n}\n").next().unwrap();
    body.split("=> ")
        .skip(1)
        .filter_map(|arm| arm.split_once("::run("))
        .map(|(module, _)| module.trim().to_string())
        .collect()
}

/// Every route of the console's router, as `METHOD /path`, and its handler's module.
fn routes() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(root().join("console/src/lib.rs")).unwrap();
    let router = text.split("pub fn router(").nth(1).unwrap();
    let mut found = Vec::new();
    for (at, _) in router.match_indices(".route(") {
        let rest = &router[at + ".route(".len()..];
        // The call's arguments: up to its closing parenthesis.
        let mut depth = 0;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '(' => depth += 1,
                    ')' if depth == 0 => return true,
                    ')' => depth -= 1,
                    _ => {}
                }
                false
            })
            .unwrap()
            .0;
        let call = &rest[..end];
        let path = call.split('"').nth(1).unwrap();
        for method in ["get", "post"] {
            for (at, _) in call.match_indices(&format!("{method}(")) {
                let before = call[..at].chars().next_back();
                if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    continue;
                }
                let handler = &call[at + method.len() + 1..];
                let module = handler.split("::").next().unwrap().trim().to_string();
                found.push((format!("{} {path}", method.to_uppercase()), module));
            }
        }
    }
    found
}

/// A file's `use` declarations flattened: each path it brings in, and the name it
/// goes by (`use a::{self as b, c::d}` → (`a`, `b`), (`a::c::d`, `d`)).
fn uses_of(code: &str) -> Vec<(String, String)> {
    fn flatten(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
        let tree = tree.trim();
        if let Some(open) = tree.find('{') {
            let head = &tree[..open];
            let inner = &tree[open + 1..tree.rfind('}').unwrap()];
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in inner.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        flatten(&format!("{prefix}{head}"), &inner[start..i], out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            flatten(&format!("{prefix}{head}"), &inner[start..], out);
            return;
        }
        if tree.is_empty() {
            return;
        }
        let (path, alias) = match tree.split_once(" as ") {
            Some((path, alias)) => (path.trim(), Some(alias.trim())),
            None => (tree, None),
        };
        let full = match path {
            "self" => prefix.trim_end_matches("::").to_string(),
            _ => format!("{prefix}{path}"),
        };
        let name = alias
            .map(str::to_string)
            .unwrap_or_else(|| full.rsplit("::").next().unwrap().to_string());
        out.push((full, name));
    }
    let mut out = Vec::new();
    let code = format!("\n{code}");
    let mut rest = code.as_str();
    let next = |text: &str| {
        [text.find("\nuse "), text.find("\npub use ")]
            .into_iter()
            .flatten()
            .min()
    };
    while let Some(at) = next(rest) {
        let statement = &rest[at..];
        let statement = &statement[statement.find("use ").unwrap() + "use ".len()..];
        let Some((tree, after)) = statement.split_once(';') else {
            break;
        };
        flatten("", tree, &mut out);
        rest = after;
    }
    out
}

/// Whether `code` calls `function` (`masterctl_store::import::run`): by its full path,
/// by a module brought in by `use` (`import::run(`, `taking::run(`), or by its own name
/// brought in (`history(`).
fn calls(code: &str, function: &str) -> bool {
    let (module, name) = function.rsplit_once("::").unwrap();
    let uses = uses_of(code);
    let mut spellings = vec![function.to_string()];
    for (path, alias) in &uses {
        if path == function {
            spellings.push(alias.clone());
        } else if let Some(rest) = format!("{module}::").strip_prefix(&format!("{path}::")) {
            spellings.push(format!("{alias}::{rest}{name}"));
        } else if path == module {
            spellings.push(format!("{alias}::{name}"));
        }
    }
    spellings.iter().any(|spelled| {
        code.match_indices(&format!("{spelled}(")).any(|(at, _)| {
            !code[..at]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '.')
        })
    })
}

/// The code of a face's module and of the modules of that face it hands work to
/// (`super::rebase::`, `crate::uploads::`).
fn code_with_helpers(folder: &str, module: &str, reach: &str) -> String {
    let file = |name: &str| root().join(folder).join(format!("{name}.rs"));
    let own = code_of(&std::fs::read_to_string(file(module)).unwrap());
    let mut code = own.clone();
    for helper in named_under(&own, reach) {
        if let Ok(text) = std::fs::read_to_string(file(&helper)) {
            code.push_str(&code_of(&text));
        }
    }
    code
}

/// The commands and pages each call the one function docs/ARCHITECTURE.md's table of
/// actions names for them (so a command and a page offering one action cannot drift
/// apart), and no command or page is missing from it.
#[test]
fn every_command_and_page_maps_to_its_function() {
    let table = actions_table();
    let mut wrong = Vec::new();
    for command in commands() {
        if !table.iter().any(|a| a.commands.contains(&command)) {
            wrong.push(format!("the command `{command}` has no row"));
        }
    }
    let routes = routes();
    assert!(
        routes.len() > 20,
        "the router's routes are read: {routes:?}"
    );
    for (route, _) in &routes {
        if !table.iter().any(|a| a.routes.contains(route)) {
            wrong.push(format!("the page `{route}` has no row"));
        }
    }
    for action in &table {
        for route in &action.routes {
            if !routes.iter().any(|(r, _)| r == route) {
                wrong.push(format!("a row names `{route}`, no route of the console"));
            }
        }
        let Some(function) = &action.function else {
            continue;
        };
        for command in &action.commands {
            if !commands().contains(command) {
                wrong.push(format!("a row names `{command}`, no command"));
                continue;
            }
            let code = code_with_helpers("cli/src/commands", command, "super::");
            if !calls(&code, function) {
                wrong.push(format!("`{command}` does not call {function}"));
            }
        }
        for route in &action.routes {
            for (_, module) in routes.iter().filter(|(r, _)| r == route) {
                let mut code = code_with_helpers("console/src", module, "crate::");
                code.push_str(&code_of(
                    &std::fs::read_to_string(root().join("console/src/lib.rs")).unwrap(),
                ));
                if !calls(&code, function) {
                    wrong.push(format!("`{route}` ({module}) does not call {function}"));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/ARCHITECTURE.md's actions: {wrong:#?}"
    );
}

#[test]
fn the_actions_check_resolves_uses() {
    let code = "use masterctl_store::l10n::import::{self as taking, Taken};\nuse masterctl_delivery::{fetch, Remote};\nuse masterctl_store::review;\nfn f() { taking::run(x); fetch(y); review::blame::blame(z); other::history(w); }";
    assert!(calls(code, "masterctl_store::l10n::import::run"));
    assert!(calls(code, "masterctl_delivery::fetch"));
    assert!(calls(code, "masterctl_store::review::blame::blame"));
    assert!(!calls(code, "masterctl_store::history"));
    assert!(!calls(code, "masterctl_delivery::publish"));
    assert!(!calls(code, "masterctl_store::import::run"));
}

/// The build profile a clean test build depends on (the root manifest's comment says
/// why): dependencies optimized, every workspace member unoptimized with line tables,
/// and no `package."*"` override, which would take precedence over cargo's
/// `build-override` and optimize every proc macro and build script too.
#[test]
fn the_workspace_alone_is_built_for_debugging_and_proc_macros_are_not_optimized() {
    let read = |path: &Path| -> toml::Table {
        std::fs::read_to_string(path)
            .unwrap()
            .parse()
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let manifest = read(&root().join("Cargo.toml"));
    let members: Vec<String> = manifest["workspace"]["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let member = read(&root().join(m.as_str().unwrap()).join("Cargo.toml"));
            member["package"]["name"].as_str().unwrap().to_string()
        })
        .collect();
    let dev = &manifest["profile"]["dev"];
    assert_eq!(
        dev["opt-level"].as_integer(),
        Some(2),
        "[profile.dev] opt-level"
    );
    assert_eq!(dev["debug"].as_bool(), Some(false), "[profile.dev] debug");
    assert!(
        dev.get("build-override").is_none(),
        "[profile.dev.build-override]"
    );
    let packages = dev["package"].as_table().unwrap();
    let mut wrong: Vec<String> = packages
        .keys()
        .filter(|name| !members.contains(name))
        .map(|name| format!("[profile.dev.package.{name}]: not a workspace member"))
        .collect();
    for name in &members {
        let entry = packages.get(name).and_then(|e| e.as_table());
        let right = entry.is_some_and(|e| {
            e.get("opt-level").and_then(|v| v.as_integer()) == Some(0)
                && e.get("debug").and_then(|v| v.as_str()) == Some("line-tables-only")
                && e.len() == 2
        });
        if !right {
            wrong.push(format!(
                "[profile.dev.package.{name}] must be opt-level = 0, debug = \"line-tables-only\""
            ));
        }
    }
    assert!(wrong.is_empty(), "Cargo.toml: {wrong:#?}");
}
