//! A bad schema file is itself a list of errors, each with file, line and column.

use crate::common::load_texts;
use masterctl_schemas::schema::{CustomKind, FieldType, GeneratedKind};
use masterctl_schemas::{Code, Diagnostic, Project, Value};

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

const CATEGORY: &str = r#"name = "category"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
"#;

fn load(config: &str, files: &[(&str, &str)]) -> Result<Project, Vec<Diagnostic>> {
    load_texts(config, files)
}

fn errors_of(files: &[(&str, &str)]) -> Vec<Diagnostic> {
    match load(CONFIG, files) {
        Ok(_) => panic!("the schemas loaded, but should not"),
        Err(errors) => errors,
    }
}

/// `(code, file, line)` of every error.
fn summary(errors: &[Diagnostic]) -> Vec<(Code, String, u64)> {
    errors
        .iter()
        .map(|d| {
            (
                d.code,
                d.location.file.as_ref().unwrap().display().to_string(),
                d.location.line.unwrap_or(0),
            )
        })
        .collect()
}

#[test]
fn a_good_schema_set_loads_with_everything_resolved() {
    let item = r#"
name = "item"
sheet = "Item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
min = 1

[[fields]]
name = "category_id"
type = "int"
references = "category.id"

[[fields]]
name = "tags"
type = "list<enum>"
values = ["a", "b"]
optional = true

[[fields]]
name = "weight"
type = "float"
default = 1

[[indexes]]
fields = ["category_id"]
order_by = ["weight"]
"#;
    let draw = "name = \"draw\"\n[custom]\nkind = \"weighted\"\ntable = \"item\"\ngroup_by = [\"category_id\"]\nweight = \"weight\"\n";
    let project = load(
        CONFIG,
        &[
            ("category.toml", CATEGORY),
            ("item.toml", item),
            ("draw.toml", draw),
        ],
    )
    .unwrap();
    let item = project.table("item").unwrap();
    assert_eq!(item.sheet, "Item");
    assert_eq!(
        item.fields[2].ty,
        FieldType::List(Box::new(FieldType::Enum))
    );
    assert_eq!(item.fields[3].default, Some(Value::Float(1.0)));
    assert_eq!(item.indexes[0].fields, vec![1]);
    assert_eq!(project.config.regions["jp"].branch, "masters/jp");
    assert!(matches!(
        &project.generated[0].kind,
        GeneratedKind::Custom(c) if matches!(&c.kind, CustomKind::Weighted { weight, .. } if weight == "weight")
    ));
}

#[test]
fn toml_syntax_error_has_line_and_column() {
    let errors = errors_of(&[("item.toml", "name = \"item\"\nprimary_key = [\"id\"\n")]);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].code, Code::SchemaSyntax);
    assert_eq!(errors[0].location.line, Some(2));
    assert!(errors[0].location.column.is_some());
}

#[test]
fn unknown_option_and_unknown_type() {
    let unknown_option = "name = \"a\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\nmaxlength = 3\n";
    let unknown_type =
        "name = \"b\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"integer\"\n";
    let errors = errors_of(&[("a.toml", unknown_option), ("b.toml", unknown_type)]);
    assert_eq!(
        summary(&errors),
        vec![
            (Code::UnknownOption, "schemas/a.toml".into(), 7),
            (Code::UnknownType, "schemas/b.toml".into(), 6),
        ]
    );
    assert!(
        errors[0].message.contains("maxlength"),
        "{}",
        errors[0].message
    );
    assert_eq!(errors[1].hint.as_deref(), Some("did you mean `int`?"));
    assert_eq!(errors[1].location.column, Some(8));
}

#[test]
fn references_to_missing_tables_and_fields() {
    let item = r#"name = "item"
primary_key = ["id", "missing_key"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "category_id"
type = "int"
references = "categroy.id"

[[fields]]
name = "other"
type = "int"
references = "category.code"
"#;
    let errors = errors_of(&[("category.toml", CATEGORY), ("item.toml", item)]);
    assert_eq!(
        summary(&errors),
        vec![
            (Code::InvalidReference, "schemas/item.toml".into(), 2),
            (Code::InvalidReference, "schemas/item.toml".into(), 11),
            (Code::InvalidReference, "schemas/item.toml".into(), 16),
        ]
    );
    assert_eq!(
        errors[1].hint.as_deref(),
        Some("did you mean `category.id`?")
    );
}

#[test]
fn names_must_be_plain_identifiers_and_unique() {
    let hostile = "name = \"../../etc\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n";
    let twice_field = "name = \"t\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"id\"\ntype = \"string\"\n";
    let errors = errors_of(&[
        ("category.toml", CATEGORY),
        ("copy.toml", CATEGORY),
        ("hostile.toml", hostile),
        ("t.toml", twice_field),
        (
            "Bad Name.toml",
            "primary_key = [\"id\"]\n[[fields]]\nname = \"id\"\ntype = \"int\"\n",
        ),
    ]);
    let mut codes: Vec<(Code, String)> = errors
        .iter()
        .map(|d| {
            (
                d.code,
                d.location.file.as_ref().unwrap().display().to_string(),
            )
        })
        .collect();
    codes.sort();
    assert_eq!(
        codes,
        vec![
            (Code::InvalidName, "schemas/Bad Name.toml".into()),
            (Code::InvalidName, "schemas/hostile.toml".into()),
            (Code::DuplicateName, "schemas/copy.toml".into()),
            (Code::DuplicateName, "schemas/t.toml".into()),
        ]
    );
    let duplicate_table = errors
        .iter()
        .find(|d| d.location.file.as_ref().unwrap().ends_with("copy.toml"))
        .unwrap();
    assert!(
        duplicate_table
            .hint
            .as_ref()
            .unwrap()
            .contains("schemas/category.toml:1")
    );
}

#[test]
fn options_must_fit_the_type() {
    let item = r#"name = "item"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"
min = 10
max = 1

[[fields]]
name = "kind"
type = "enum"

[[fields]]
name = "code"
type = "string"
pattern = "([a-z"

[[fields]]
name = "flag"
type = "bool"
default = "yes"
max_length = 3
"#;
    let errors = errors_of(&[("item.toml", item)]);
    assert_eq!(
        summary(&errors),
        vec![
            (Code::InvalidOption, "schemas/item.toml".into(), 8),
            (Code::InvalidOption, "schemas/item.toml".into(), 12),
            (Code::InvalidOption, "schemas/item.toml".into(), 17),
            (Code::InvalidOption, "schemas/item.toml".into(), 23),
            (Code::InvalidOption, "schemas/item.toml".into(), 22),
        ]
    );
}

#[test]
fn generated_masters_are_checked() {
    let reverse = "name = \"sources\"\n[reverse]\ntarget = \"categroy\"\nsources = [{ table = \"category\", field = \"nope\" }]\n";
    let matrix = "name = \"m\"\n[custom]\nkind = \"matrix\"\ntable = \"category\"\nrow = \"id\"\ncolumn = \"id\"\nvalue = \"id\"\n";
    let errors = errors_of(&[
        ("category.toml", CATEGORY),
        ("sources.toml", reverse),
        ("m.toml", matrix),
    ]);
    assert_eq!(
        summary(&errors),
        vec![
            (Code::InvalidOption, "schemas/m.toml".into(), 5),
            (Code::InvalidOption, "schemas/m.toml".into(), 6),
            (Code::InvalidReference, "schemas/sources.toml".into(), 3),
        ]
    );
    assert_eq!(errors[2].hint.as_deref(), Some("did you mean `category`?"));
}

#[test]
fn config_is_checked_against_the_tables() {
    let config = r#"source_language = "ja"
languages = ["en"]

[regions.global]
branch = "masters/global"
upstream = "jp"
owns = ["category.name", "shop"]

[regions.a]
branch = "masters/a"
upstream = "b"

[regions.b]
branch = "masters/b"
upstream = "a"
"#;
    let errors = load(config, &[("category.toml", CATEGORY)]).unwrap_err();
    let mut found: Vec<(Code, u64)> = errors
        .iter()
        .map(|d| (d.code, d.location.line.unwrap_or(0)))
        .collect();
    found.sort();
    assert_eq!(
        found,
        vec![
            (Code::InvalidReference, 1),  // source language not in languages
            (Code::InvalidReference, 6),  // upstream jp is no region
            (Code::InvalidReference, 7),  // category.name is no field
            (Code::InvalidReference, 7),  // shop is no table
            (Code::InvalidReference, 9),  // a → b → a
            (Code::InvalidReference, 13), // b → a → b
        ]
    );
}

/// Data checks of a matrix whose axes are not its table's key: each pair once, every
/// pair present when there is no default.
#[test]
fn a_matrix_without_default_needs_every_pair_once() {
    let table = r#"name = "affinity"
sheet = "Affinity"
primary_key = ["id"]

[[fields]]
name = "id"
type = "int"

[[fields]]
name = "attacker"
type = "enum"
values = ["fire", "water"]

[[fields]]
name = "defender"
type = "enum"
values = ["fire", "water"]

[[fields]]
name = "multiplier"
type = "float"
"#;
    let matrix = "name = \"m\"\n[custom]\nkind = \"matrix\"\ntable = \"affinity\"\nrow = \"attacker\"\ncolumn = \"defender\"\nvalue = \"multiplier\"\n";
    let project = load(CONFIG, &[("affinity.toml", table), ("m.toml", matrix)]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("Affinity.csv"),
        "id,attacker,defender,multiplier\n1,fire,water,0.5\n2,water,fire,1.5\n3,fire,water,2\n4,fire,fire,1\n",
    )
    .unwrap();
    let validation = masterctl_schemas::validate_paths(&project, &[dir.path().to_path_buf()]);
    let errors: Vec<(Code, String)> = validation
        .report
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| (d.code, d.message.clone()))
        .collect();
    assert_eq!(errors.len(), 2, "{errors:#?}");
    assert!(
        errors
            .iter()
            .any(|(c, m)| *c == Code::DuplicateKey && m.contains("has (fire, water) twice")),
        "{errors:#?}"
    );
    assert!(
        errors
            .iter()
            .any(|(c, m)| *c == Code::Required
                && m.contains("no row for (water, water) and no default")),
        "{errors:#?}"
    );
}

/// 20,000 regions in one chain and one long cycle: each region is walked once, so this
/// loads at once (the check was cubic).
#[test]
fn long_upstream_chains_and_cycles_are_checked_in_one_walk() {
    let mut config = String::from("source_language = \"ja\"\n");
    for i in 0..20_000 {
        config.push_str(&format!(
            "[regions.r{i}]\nbranch = \"masters/r{i}\"\n{}",
            if i > 0 {
                format!("upstream = \"r{}\"\n", i - 1)
            } else {
                String::new()
            }
        ));
    }
    load(&config, &[("category.toml", CATEGORY)]).unwrap();
    // Close the chain into a cycle: every one of its regions is named.
    let cyclic = config.replacen(
        "[regions.r0]\nbranch = \"masters/r0\"\n",
        "[regions.r0]\nbranch = \"masters/r0\"\nupstream = \"r19999\"\n",
        1,
    );
    let errors = load(&cyclic, &[("category.toml", CATEGORY)]).unwrap_err();
    assert_eq!(errors.len(), 20_000);
    assert!(errors.iter().all(|d| d.message.contains("follows itself")));
}

#[test]
fn names_are_capped_at_a_length_every_file_system_takes() {
    let long = "a".repeat(65);
    let table = CATEGORY.replace("name = \"category\"", &format!("name = \"{long}\""));
    let errors = errors_of(&[("category.toml", &table)]);
    assert_eq!(errors[0].code, Code::InvalidName, "{errors:?}");
    assert!(
        errors[0]
            .expected
            .as_deref()
            .unwrap()
            .contains("at most 64")
    );
    let fine = CATEGORY.replace(
        "name = \"category\"",
        &format!("name = \"{}\"", "a".repeat(64)),
    );
    load(CONFIG, &[("category.toml", &fine)]).unwrap();
}

/// Mistakes in several schema files come in one run, each at its place, and a table too
/// broken to build (a TOML syntax error, an unknown type) does not make every reference
/// to it a second error ("there is no table `banner`"): those follow once it is fixed.
#[test]
fn mistakes_in_several_files_come_at_once_without_a_cascade() {
    let banner =
        "name = \"banner\"\nprimary_key = [\"id\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n";
    let lineup = r#"name = "banner_lineup"
primary_key = ["banner_id", "slot"]

[[fields]]
name = "banner_id"
type = "int"
references = "banner.id"

[[fields]]
name = "slot"
type = "integer"
"#;
    let draw = "name = \"gacha_draw\"\n[custom]\nkind = \"weighted\"\ntable = \"banner_lineup\"\ngroup_by = [\"banner_id\"]\nweight = \"weight\"\n";
    let errors = errors_of(&[
        ("category.toml", CATEGORY),
        ("banner.toml", banner),
        ("banner_lineup.toml", lineup),
        ("gacha_draw.toml", draw),
    ]);
    // The two mistakes; nothing said of the tables and master that refer to them.
    assert_eq!(
        summary(&errors),
        vec![
            (Code::SchemaSyntax, "schemas/banner.toml".into(), 4),
            (Code::UnknownType, "schemas/banner_lineup.toml".into(), 11),
        ]
    );
}

#[test]
fn the_publish_store_is_a_url_delivery_speaks() {
    let config = "source_language = \"ja\"\n[publish]\nstore = \"s3://game-masters/live\"\nendpoint = \"http://127.0.0.1:9000\"\n";
    let project = load(config, &[("category.toml", CATEGORY)]).unwrap();
    let publish = project.config.publish.unwrap();
    assert_eq!(
        (publish.store.as_str(), publish.endpoint.as_deref()),
        ("s3://game-masters/live", Some("http://127.0.0.1:9000"))
    );
    for (config, expected) in [
        (
            "source_language = \"ja\"\n[publish]\nstore = \"/srv/masters\"\n",
            "is not a store",
        ),
        (
            "source_language = \"ja\"\n[publish]\nstore = \"file:///srv/masters\"\nendpoint = \"http://x\"\n",
            "an endpoint is for an s3:// store",
        ),
        (
            "source_language = \"ja\"\n[publish]\nstore = \"s3://b\"\nbucket = \"b\"\n",
            "unknown field",
        ),
    ] {
        let errors = load(config, &[("category.toml", CATEGORY)]).unwrap_err();
        assert!(
            errors.iter().any(|d| d.message.contains(expected)),
            "{config}: {errors:?}"
        );
    }
}

/// `[delivery] trusted_keys`: minisign public keys' lines, each read as one, the first
/// that is not said at its line.
#[test]
fn the_trusted_keys_are_minisign_public_keys() {
    let key = "RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3";
    let config = format!("source_language = \"ja\"\n[delivery]\ntrusted_keys = [\"{key}\"]\n");
    let project = load(&config, &[("category.toml", CATEGORY)]).unwrap();
    assert_eq!(project.config.trusted_keys, [key]);
    let config = format!(
        "source_language = \"ja\"\n[delivery]\ntrusted_keys = [\n  \"{key}\",\n  \"keys/release.pub\",\n]\n"
    );
    let errors = load(&config, &[("category.toml", CATEGORY)]).unwrap_err();
    assert!(
        errors.iter().any(|d| d
            .message
            .contains("`keys/release.pub` is not a minisign public key")
            && d.location.line == Some(5)),
        "{errors:?}"
    );
}

/// `[notify]`: an http(s) webhook, told of the kinds of events named (all by default).
#[test]
fn a_webhook_is_an_http_address_told_of_kinds_of_events_it_names() {
    let config =
        "source_language = \"ja\"\n[notify]\nwebhook = \"https://hooks.example.com/T0/B0/x\"\n";
    let notify = load(config, &[]).unwrap().config.notify.unwrap();
    assert_eq!(notify.webhook, "https://hooks.example.com/T0/B0/x");
    assert_eq!(notify.events, ["proposal", "import", "merge", "release"]);
    let config = format!("{config}events = [\"release\"]\n");
    let notify = load(&config, &[]).unwrap().config.notify.unwrap();
    assert_eq!(notify.events, ["release"]);
    for (config, expected) in [
        (
            "source_language = \"ja\"\n[notify]\nwebhook = \"ftp://x\"\n",
            "a webhook is an http(s):// address",
        ),
        (
            "source_language = \"ja\"\n[notify]\nwebhook = \"https://x\"\nevents = [\"lunch\"]\n",
            "`lunch` is no kind of event told",
        ),
    ] {
        let errors = load(config, &[]).unwrap_err();
        assert!(
            errors.iter().any(|d| d.message.contains(expected)),
            "{config}: {errors:?}"
        );
    }
}

/// `[pseudo]`: languages of their own, each once; a growth from 0 to 3.
#[test]
fn pseudo_languages_are_tags_of_their_own() {
    let base = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n[pseudo]\n";
    let project = load(
        &format!("{base}languages = [\"qps\", \"en-XA\"]\nexpansion = 0.3\n"),
        &[("category.toml", CATEGORY)],
    )
    .unwrap();
    assert_eq!(project.config.pseudo.languages, ["qps", "en-XA"]);
    assert_eq!(project.config.pseudo.expansion, 0.3);
    let project = load(&format!("{base}languages = [\"qps\"]\n"), &[]).unwrap();
    assert_eq!(project.config.pseudo.expansion, 0.4);
    for (rest, expected, line) in [
        (
            "languages = [\"en\"]",
            "`en` is one of the project's languages",
            4,
        ),
        (
            "languages = [\"ja\"]",
            "`ja` is one of the project's languages",
            4,
        ),
        ("languages = [\"qps\", \"qps\"]", "`qps` is given twice", 4),
        ("languages = [\"q p\"]", "`q p` is not a language tag", 4),
        ("expansion = 7.5", "expansion 7.5 is not a growth", 4),
        ("expansion = -0.1", "expansion -0.1 is not a growth", 4),
        ("ratio = 0.4", "unknown field", 4),
    ] {
        let errors = load(&format!("{base}{rest}\n"), &[]).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|d| d.message.contains(expected) && d.location.line == Some(line)),
            "{rest}: {errors:?}"
        );
    }
}

/// `[fonts]`: files of `fonts/` only, for the project's languages; one not there, or
/// not a font, named where `masterctl.toml` names it.
#[test]
fn fonts_are_files_of_the_fonts_folder() {
    let base = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n[fonts]\n";
    let junk = vec![("fonts/junk.ttf".to_string(), b"not a font".to_vec())];
    let load_with = |rest: &str, fonts: Vec<(String, Vec<u8>)>| {
        masterctl_schemas::load::load_with_fonts(
            Some(("masterctl.toml".into(), format!("{base}{rest}\n"))),
            Vec::new(),
            fonts,
        )
        .map_err(|r| r.diagnostics)
    };
    for (rest, expected) in [
        (
            "ja = \"fonts/../secret.ttf\"",
            "is not a font file of the repository's fonts/ folder",
        ),
        (
            "ja = \"/etc/ja.ttf\"",
            "is not a font file of the repository's fonts/ folder",
        ),
        (
            "ja = \"fonts/sub/ja.ttf\"",
            "is not a font file of the repository's fonts/ folder",
        ),
        (
            "ja = \"fonts/notes.txt\"",
            "is not a font file of the repository's fonts/ folder",
        ),
        (
            "ja = \"fonts/ja.ttf\"",
            "`ja.ttf` is not in fonts/ (it holds: fonts/junk.ttf)",
        ),
        (
            "ja = \"fonts/junk.ttf\"",
            "`fonts/junk.ttf` is not a TrueType or OpenType font",
        ),
        (
            "fr = \"fonts/junk.ttf\"",
            "`fr` is not one of the project's languages",
        ),
    ] {
        let errors = load_with(rest, junk.clone()).unwrap_err();
        assert!(
            errors
                .iter()
                .any(|d| d.message.contains(expected) && d.location.line == Some(4)),
            "{rest}: {errors:?}"
        );
    }
}

/// `glossary = true`: keyed by a string `term`, strings and the bool `do_not_translate`;
/// `[checks] glossary` is a weight.
#[test]
fn a_glossary_is_keyed_by_its_term() {
    let config = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n";
    let table = |key: &str, fields: &str| {
        format!(
            "name = \"glossary\"\nglossary = true\nprimary_key = [\"{key}\"]\n\n[[fields]]\nname = \"term\"\ntype = \"string\"\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n{fields}"
        )
    };
    let good = "name = \"glossary\"\nglossary = true\nprimary_key = [\"term\"]\n\n[[fields]]\nname = \"term\"\ntype = \"string\"\n\n[[fields]]\nname = \"en\"\ntype = \"string\"\noptional = true\n\n[[fields]]\nname = \"do_not_translate\"\ntype = \"bool\"\ndefault = false\n";
    let project = load(config, &[("glossary.toml", good)]).unwrap();
    assert!(project.tables[0].glossary);
    for (text, expected) in [
        (
            table("id", ""),
            "a glossary is keyed by a `string` field `term`",
        ),
        (
            table("term", ""),
            "field `id` of a glossary is a whole number",
        ),
        (
            table(
                "term",
                "\n[[fields]]\nname = \"do_not_translate\"\ntype = \"string\"\n",
            ),
            "field `id` of a glossary",
        ),
    ] {
        let errors = load(config, &[("glossary.toml", &text)]).unwrap_err();
        assert!(
            errors.iter().any(|d| d.message.contains(expected)),
            "{expected}: {errors:?}"
        );
    }
    let weighed = format!("{config}[checks]\nglossary = \"fatal\"\n");
    let errors = load(&weighed, &[("glossary.toml", good)]).unwrap_err();
    assert!(
        errors
            .iter()
            .any(|d| d.message.contains("[checks] glossary is `fatal`")),
        "{errors:?}"
    );
    let error = format!("{config}[checks]\nglossary = \"error\"\n");
    assert!(
        load(&error, &[("glossary.toml", good)])
            .unwrap()
            .config
            .glossary_is_error
    );
    // Its rows: a blank term, and a term again in other case and spacing, are refused
    // naming the rows.
    let (dir, validation) = crate::common::validate_csv(
        &project,
        "glossary.csv",
        "term,en,do_not_translate\n剣,sword,false\nIron Sword,,true\n\" \",x,false\niron  sword,,true\n",
    );
    let messages: Vec<String> = crate::common::errors(&validation)
        .iter()
        .map(|d| format!("{} {}", d.location.place().trim(), d.message))
        .map(|m| m.replace(&format!("{}/", dir.path().display()), ""))
        .collect();
    assert_eq!(
        messages,
        [
            "glossary.csv:4 a glossary term of only spaces",
            "glossary.csv:5 glossary term \"iron  sword\" is the term \"Iron Sword\" at glossary.csv:3 again (the checks ignore case and the spacing between words)"
        ],
        "{messages:?}"
    );
}

/// `[unread]`: entries as `source` takes them; one that is none is named with its line.
#[test]
fn unread_entries_are_files_or_sheets() {
    let config = "source_language = \"ja\"\n\n[unread]\ndefinitions = [\"__tables__.xlsx\"]\nnotes = [\"items.xlsx#説明\"]\n\n[unread.other]\n\"demo.xlsx\" = \"nobody reads it\"\n";
    let project = load(config, &[]).unwrap();
    let unread = &project.config.unread;
    use masterctl_schemas::schema::UnreadAs;
    let of = |path: &str, sheet: Option<&str>| unread.of(std::path::Path::new(path), sheet);
    assert_eq!(
        of("Datas/__tables__.xlsx", Some("Sheet1")),
        Some(UnreadAs::Definition)
    );
    assert_eq!(of("Datas/items.xlsx", Some("説明")), Some(UnreadAs::Notes));
    assert_eq!(of("Datas/items.xlsx", Some("Item")), None);
    assert_eq!(
        of("Datas/demo.xlsx", Some("Sheet3")),
        Some(UnreadAs::Other {
            why: "nobody reads it",
            whole: true
        })
    );
    for (entry, says) in [
        ("../x.xlsx", "relative path"),
        ("notes.docx", "names no spreadsheet file"),
    ] {
        let config = format!("source_language = \"ja\"\n\n[unread]\nnotes = [\"{entry}\"]\n");
        let errors = load(&config, &[]).unwrap_err();
        assert!(
            errors.iter().any(|e| e.to_string().contains("[unread]")
                && e.to_string().contains(says)
                && e.to_string().contains("masterctl.toml:4")),
            "{errors:#?}"
        );
    }
}
