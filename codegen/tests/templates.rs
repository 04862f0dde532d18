//! The built-in templates in parts: the reader of the client format written as it is
//! beside the generated code, and a partial per concept that a user's template of the
//! same name replaces alone.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::PathBuf;

use masterctl_codegen::{self as codegen, GeneratedFile, Lang, UserTemplate};

const CONFIG: &str =
    "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
const ITEM: &str = "name = \"item\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"rarity\"\ntype = \"enum\"\nvalues = [\"common\", \"rare\"]\n";

fn generate(lang: Lang, user: &[UserTemplate]) -> Vec<GeneratedFile> {
    let project = masterctl_schemas::load::load_from_files(
        Some((PathBuf::from("masterctl.toml"), CONFIG.to_string())),
        vec![(PathBuf::from("schemas/item.toml"), ITEM.to_string())],
    )
    .unwrap();
    let context = codegen::context(&project, lang, "5c8e", "masters", "{ path = \"rt\" }");
    codegen::generate(&context, lang, user).unwrap()
}

fn file<'f>(files: &'f [GeneratedFile], path: &str) -> &'f GeneratedFile {
    files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no {path} in {files:?}"))
}

#[test]
fn the_reader_is_written_as_it_is_and_the_code_imports_it() {
    let files = generate(Lang::TypeScript, &[]);
    let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["masters.ts", "reader.ts"]);
    let reader = file(&files, "reader.ts");
    assert_eq!(reader.template, "built-in");
    assert_eq!(
        reader.content,
        include_str!("../templates/typescript/reader.ts"),
        "the same for every project"
    );
    assert!(!reader.content.contains("{{"));
    let masters = &file(&files, "masters.ts").content;
    assert!(masters.contains("from \"./reader.js\""), "{masters}");
    assert!(!masters.contains("class ClientFile"), "{masters}");
    assert!(masters.contains("export type ItemRarity = \"common\" | \"rare\";"));
    assert!(masters.contains("export class Item {"), "{masters}");

    // Go and C#: the reader a file of its own too, alike for every project but the
    // package (namespace) it is declared in.
    for (lang, reader, code) in [
        (Lang::Go, "reader.go", "masters.go"),
        (Lang::CSharp, "MastersReader.cs", "Masters.cs"),
    ] {
        let files = generate(lang, &[]);
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, [code, reader], "{lang:?}");
        let reader = &file(&files, reader).content;
        let code = &file(&files, code).content;
        assert!(reader.contains("type clientFile struct") || reader.contains("class ClientFile"));
        assert!(!code.contains("type clientFile struct") && !code.contains("class ClientFile"));
        assert!(code.contains("ItemRarity"), "{code}");
    }
}

#[test]
fn a_users_partial_replaces_one_concept_alone() {
    let enum_part = UserTemplate {
        path: "_enum.hbs".into(),
        text: "\n// {{name}}: {{#each values}}{{value}} {{/each}}\n".into(),
    };
    let files = generate(Lang::TypeScript, &[enum_part]);
    let masters = &file(&files, "masters.ts").content;
    assert!(
        masters.contains("// ItemRarity: common rare \n"),
        "{masters}"
    );
    assert!(!masters.contains("export type ItemRarity"), "{masters}");
    // Tables, their indexes and the rest are the built-in partials still.
    assert!(masters.contains("export class Item {"), "{masters}");
    assert!(masters.contains("export class ItemTable"), "{masters}");
    assert_eq!(file(&files, "masters.ts").template, "built-in");

    // The reader too can be replaced, by a template of its path.
    let reader = UserTemplate {
        path: "reader.ts.hbs".into(),
        text: "// my reader for {{package}}\n".into(),
    };
    let files = generate(Lang::TypeScript, &[reader]);
    let replaced = file(&files, "reader.ts");
    assert_eq!(replaced.template, "override");
    assert_eq!(replaced.content, "// my reader for masters\n");
}
