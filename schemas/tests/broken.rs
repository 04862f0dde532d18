//! Each deliberately broken fixture gives exactly the diagnostic a planner needs: the
//! stable code, the workbook, sheet and cell (or file and line), and a hint.

use crate::common::*;
use masterctl_schemas::{Code, Severity};

fn check(instead_of: &str, broken: &[&str]) -> masterctl_schemas::Validation {
    validate(&project(&fixtures()), &fixtures_with(instead_of, broken))
}

#[test]
fn the_fixtures_themselves_are_valid() {
    let validation = validate(&project(&fixtures()), &[fixtures().join("workbooks")]);
    assert!(
        !validation.report.has_errors(),
        "{:#?}",
        validation.report.diagnostics
    );
    assert_eq!(validation.tables.len(), 10);
    // The `#notes` sheet is quiet; nothing else is unmapped.
    assert_eq!(
        validation.report.warning_count(),
        0,
        "{:#?}",
        validation.report.diagnostics
    );
}

#[test]
fn wrong_type_names_the_cell() {
    let v = check("items.xlsx", &["items_wrong_type.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::TypeError);
    assert_eq!(d.location.sheet.as_deref(), Some("Item"));
    assert_eq!(d.location.cell.as_deref(), Some("F6"));
    assert_eq!(d.location.field.as_deref(), Some("price"));
    assert_eq!(d.location.table.as_deref(), Some("item"));
    assert!(
        d.location
            .file
            .as_ref()
            .unwrap()
            .ends_with("items_wrong_type.xlsx")
    );
    assert_eq!(d.found.as_deref(), Some("abc"));
    assert_eq!(d.expected.as_deref(), Some("a whole number"));
    assert_eq!(
        d.location.place(),
        format!("{} Item!F6", d.location.file.as_ref().unwrap().display())
    );
}

#[test]
fn enum_typo_suggests_the_value() {
    let v = check("items.xlsx", &["items_enum_typo.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::EnumValue);
    assert_eq!(d.location.cell.as_deref(), Some("E3"));
    assert_eq!(d.found.as_deref(), Some("raer"));
    assert_eq!(d.hint.as_deref(), Some("did you mean `rare`?"));
}

#[test]
fn out_of_range_says_the_bound() {
    let v = check("items.xlsx", &["items_out_of_range.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::OutOfRange);
    assert_eq!(d.location.cell.as_deref(), Some("F7"));
    assert_eq!(d.found.as_deref(), Some("-5"));
    assert_eq!(d.expected.as_deref(), Some("between 0 and 1000000"));
}

#[test]
fn missing_required_value() {
    let v = check("items.xlsx", &["items_missing_required.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::Required);
    assert_eq!(d.location.cell.as_deref(), Some("D6"));
    assert_eq!(d.location.field.as_deref(), Some("category_id"));
}

#[test]
fn duplicate_key_names_both_rows() {
    let v = check("items.xlsx", &["items_duplicate_key.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.location.cell.as_deref(), Some("A10"));
    assert!(d.message.contains("Item!A6"), "{}", d.message);
    assert_eq!(d.found.as_deref(), Some("5"));
}

#[test]
fn duplicate_composite_key_names_both_rows() {
    let v = check("quests.xlsx", &["quests_duplicate_composite_key.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::DuplicateKey);
    assert_eq!(d.location.sheet.as_deref(), Some("QuestDrop"));
    assert_eq!(d.location.cell.as_deref(), Some("A4"));
    assert!(d.message.contains("QuestDrop!A2"), "{}", d.message);
    assert_eq!(d.found.as_deref(), Some("101, 6"));
}

#[test]
fn dangling_foreign_key() {
    let v = check("items.xlsx", &["items_dangling_reference.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::ForeignKey);
    assert_eq!(d.location.cell.as_deref(), Some("D8"));
    assert_eq!(d.found.as_deref(), Some("99"));
    assert_eq!(d.expected.as_deref(), Some("an existing category.id"));
}

#[test]
fn foreign_keys_follow_the_chain_across_workbooks() {
    // quest_drop → item lives in another workbook: a renumbered item breaks the drop.
    let v = check("items.xlsx", &["items_many_mistakes.xlsx"]);
    let dangling: Vec<_> = errors(&v)
        .into_iter()
        .filter(|d| d.code == Code::ForeignKey)
        .collect();
    assert!(
        dangling
            .iter()
            .any(|d| d.location.sheet.as_deref() == Some("ShopItem")
                && d.location.cell.as_deref() == Some("B5")),
        "{dangling:#?}"
    );
}

#[test]
fn unknown_column() {
    let v = check("items.xlsx", &["items_unknown_column.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::UnknownColumn);
    assert_eq!(d.location.cell.as_deref(), Some("L1"));
    assert_eq!(d.found.as_deref(), Some("colour"));
}

/// A CSV file's place is its line: the message names the column.
#[test]
fn an_unnamed_column_of_a_csv_file_is_named_by_its_letter() {
    let project = load_texts(
        "source_language = \"en\"\n",
        &[(
            "item.toml",
            "name = \"item\"\nprimary_key = [\"id\"]\nfields = [{ name = \"id\", type = \"int\" }, { name = \"name\", type = \"string\" }]\n",
        )],
    )
    .unwrap();
    let (_dir, v) = crate::common::validate_csv(&project, "item.csv", "id,,name\n1,,a\n2,note,b\n");
    let d = only_error(&v);
    assert_eq!(d.code, Code::UnknownColumn);
    assert_eq!(d.location.line, Some(3));
    assert_eq!(d.message, "column B has values but no header");
}

#[test]
fn missing_column() {
    let v = check("items.xlsx", &["items_missing_column.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::MissingColumn);
    assert_eq!(d.location.field.as_deref(), Some("rarity"));
    assert_eq!(d.location.cell.as_deref(), Some("A1"));
}

#[test]
fn error_cell_is_never_a_default() {
    let v = check("items.xlsx", &["items_error_cell.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::ErrorCell);
    assert_eq!(d.location.cell.as_deref(), Some("F2"));
    assert_eq!(d.found.as_deref(), Some("#DIV/0!"));
}

#[test]
fn formula_without_cached_value() {
    let v = check("items.xlsx", &["items_formula_without_value.xlsx"]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::FormulaWithoutValue);
    assert_eq!(d.location.cell.as_deref(), Some("F3"));
    assert_eq!(d.found.as_deref(), Some("=F2*12"));
}

#[test]
fn table_supplied_twice_names_both_places() {
    let mut paths = fixtures_with("", &[]);
    paths.push(fixtures().join("broken/twice/Category.csv"));
    let v = validate(&project(&fixtures()), &paths);
    let d = only_error(&v);
    assert_eq!(d.code, Code::DuplicateTable);
    assert!(
        d.message.contains("items.xlsx (sheet Category)"),
        "{}",
        d.message
    );
    assert!(d.message.contains("Category.csv"), "{}", d.message);
    // Located at the file (or the sheet), never at a line 0 or a cell.
    assert_eq!(d.location.line, None);
    assert_eq!(d.location.cell, None);
    assert!(d.location.file.is_some());
}

#[test]
fn invalid_utf8_csv_names_file_and_line() {
    let v = validate(
        &project(&fixtures()),
        &[fixtures().join("broken/not_utf8/Category.csv")],
    );
    let d = only_error(&v);
    assert_eq!(d.code, Code::InvalidUtf8);
    assert!(
        d.location
            .file
            .as_ref()
            .unwrap()
            .ends_with("not_utf8/Category.csv")
    );
    assert_eq!(d.location.line, Some(3));
}

/// A CSV file saved in Shift_JIS (as a Japanese Excel saves CSV) is read as such, and
/// said; so is one in GBK.
#[test]
fn a_csv_saved_in_shift_jis_or_gbk_is_read_as_such_and_said() {
    for (encoding, name) in [
        (encoding_rs::SHIFT_JIS, "Shift_JIS"),
        (encoding_rs::GBK, "GBK"),
    ] {
        let (bytes, _, _) = encoding.encode("id,name,sort_order\n1,武器,10\n2,防具,20\n");
        let (_dir, path) = file_of("Category.csv", &bytes);
        let v = validate(&project(&fixtures()), std::slice::from_ref(&path));
        assert!(!v.report.has_errors(), "{name}: {:#?}", v.report);
        let said = v
            .report
            .diagnostics
            .iter()
            .find(|d| d.code == Code::Decoded)
            .unwrap_or_else(|| panic!("{name}: {:#?}", v.report));
        assert!(said.message.contains(name), "{}", said.message);
        let table = v.tables.iter().find(|t| t.name == "category").unwrap();
        assert_eq!(table.row_count(), 2);
        assert!(format!("{:?}", table).contains("防具"), "{name}");
    }
}

#[test]
fn every_mistake_is_reported_at_once() {
    let v = check("items.xlsx", &["items_many_mistakes.xlsx"]);
    let mut found: Vec<(Code, String)> = errors(&v)
        .iter()
        .filter(|d| d.location.sheet.as_deref() == Some("Item"))
        .map(|d| (d.code, d.location.cell.clone().unwrap_or_default()))
        .collect();
    found.sort();
    let mut expected = vec![
        (Code::TypeError, "F2".to_string()),
        (Code::EnumValue, "E3".to_string()),
        (Code::Length, "B4".to_string()),
        (Code::ForeignKey, "D6".to_string()),
        (Code::TypeError, "G7".to_string()),
        (Code::TypeError, "J8".to_string()),
        (Code::DuplicateKey, "A9".to_string()),
    ];
    expected.sort();
    assert_eq!(found, expected);
}

#[test]
fn csv_conventions_bom_crlf_and_multiline_cells() {
    let dir = std::env::temp_dir().join(format!("masterctl-csv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("Category.csv");
    std::fs::write(
        &path,
        "\u{feff}id,name,sort_order,# note\r\n1,\"二行の\r\n名前\",10,x\r\n# 2 is gone\r\n\r\n3,素材,abc,\r\n",
    )
    .unwrap();
    let v = validate(&project(&fixtures()), &[path]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::TypeError);
    assert_eq!(
        d.location.line,
        Some(6),
        "the record after a two-line cell, a comment and an empty line"
    );
    let category = &v.tables[0];
    assert_eq!(category.row_count(), 2);
    assert_eq!(category.value(0, 1).as_str(), Some("二行の\r\n名前"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unmapped_sheets_and_unchecked_references_are_warnings() {
    let project = project(&fixtures());
    let v = validate(
        &project,
        &[
            fixtures().join("workbooks/shops.xlsx"),
            hunt().join("hunt.xlsx"),
        ],
    );
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let warnings: Vec<_> = v
        .report
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .collect();
    assert!(
        warnings.iter().any(
            |d| d.code == Code::UnmappedSheet && d.location.sheet.as_deref() == Some("Monster")
        )
    );
    assert!(
        warnings.iter().any(|d| d.code == Code::UncheckedReference
            && d.location.field.as_deref() == Some("item_id"))
    );
}

#[test]
fn json_carries_every_diagnostic() {
    let v = check("items.xlsx", &["items_many_mistakes.xlsx"]);
    let json = serde_json::to_value(&v.report).unwrap();
    let list = json["diagnostics"].as_array().unwrap();
    assert_eq!(list.len(), v.report.diagnostics.len());
    let enum_error = list.iter().find(|d| d["code"] == "enum-value").unwrap();
    assert_eq!(enum_error["sheet"], "Item");
    assert_eq!(enum_error["cell"], "E3");
    assert_eq!(enum_error["field"], "rarity");
    assert_eq!(enum_error["severity"], "error");
    assert_eq!(enum_error["hint"], "did you mean `rare`?");
}

/// Write `files` (name, contents) into a fresh folder and validate it with the fixtures' schemas.
fn validate_csv(files: &[(&str, &str)]) -> masterctl_schemas::Validation {
    let dir = std::env::temp_dir().join(format!(
        "masterctl-csv-{}-{}",
        std::process::id(),
        files[0].0.replace('.', "-")
    ));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
    let v = validate(&project(&fixtures()), std::slice::from_ref(&dir));
    std::fs::remove_dir_all(&dir).unwrap();
    v
}

#[test]
fn pattern_and_unique_fields() {
    let v = validate_csv(&[
        ("Chapter.csv", "id,title,opens_at\n1,一,2024-04-01 10:00\n"),
        (
            "Quest.csv",
            "id,chapter_id,code,title,difficulty,stamina\n\
             1,1,Q0001,a,easy,1\n\
             2,1,Q0001,b,easy,1\n\
             3,1,q-3,c,easy,1\n",
        ),
    ]);
    let found: Vec<(Code, u64)> = errors(&v)
        .iter()
        .map(|d| (d.code, d.location.line.unwrap()))
        .collect();
    assert_eq!(found, vec![(Code::Unique, 3), (Code::Pattern, 4)]);
    let unique = errors(&v)[0];
    assert!(unique.message.contains("Quest.csv:2"), "{}", unique.message);
}

/// The errors of validating CSV `files` (name, text) against a project of `schemas`
/// (file name, text), each as its code, its file (or field, with `by_field`) and line.
fn errors_in(
    schemas: &[(&str, &str)],
    files: &[(&str, &str)],
    by_field: bool,
) -> Vec<(Code, String, u64)> {
    let config =
        "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
    let project = load_texts(config, schemas).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let v = validate(&project, &[dir.path().to_path_buf()]);
    errors(&v)
        .iter()
        .map(|d| {
            let place = match by_field {
                true => d.location.field.clone().unwrap_or_default(),
                false => d
                    .location
                    .file
                    .as_ref()
                    .unwrap()
                    .file_name()
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            };
            (d.code, place, d.location.line.unwrap())
        })
        .collect()
}

/// A table `name` keyed by an int `id`, with more `fields` (TOML inline tables).
fn keyed(name: &str, fields: &str) -> String {
    format!(
        "name = \"{name}\"\nprimary_key = [\"id\"]\nfields = [{{ name = \"id\", type = \"int\" }}, {fields}]\n"
    )
}

fn at(code: Code, place: &str, line: u64) -> (Code, String, u64) {
    (code, place.to_string(), line)
}

/// `masterctl validate` keeps of a table only what the checks across tables read (its
/// key, `unique` fields, references); `validate` here holds its report to the report
/// of the tables read whole. Mistakes in fields it does not keep are found all the same
/// (each kind of cell: `typing`'s own test); `unique` fields, one a reference points
/// at, in tables no master reads whole, are kept.
#[test]
fn what_validation_does_not_keep_is_checked_all_the_same() {
    let skill = keyed(
        "skill",
        r#"{ name = "code", type = "string", unique = true }, { name = "name", type = "text", max_length = 4 }"#,
    );
    let hero = keyed(
        "hero",
        r#"{ name = "skill_code", type = "string", references = "skill.code" }, { name = "title", type = "string", unique = true }"#,
    );
    let files = [
        (
            "skill.csv",
            "id,code,name\n1,S1,炎\n2,S2,氷の刃の舞\n3,S1,雷\n",
        ),
        ("hero.csv", "id,skill_code,title\n1,S2,勇者\n2,S9,勇者\n"),
    ];
    assert_eq!(
        errors_in(
            &[("skill.toml", &skill), ("hero.toml", &hero)],
            &files,
            false
        ),
        vec![
            at(Code::Unique, "hero.csv", 3),
            at(Code::ForeignKey, "hero.csv", 3),
            at(Code::Length, "skill.csv", 3),
            at(Code::Unique, "skill.csv", 4),
        ]
    );
}

/// Whole-number keys packed in a range are indexed by place, others by hash: either
/// way a key twice is an error, and a reference below, inside or above the range is
/// found or not as it should be.
#[test]
fn packed_and_scattered_whole_number_keys_alike() {
    let (packed, scattered) = (keyed("packed", ""), keyed("scattered", ""));
    let link = keyed(
        "link",
        r#"{ name = "packed_id", type = "int", references = "packed.id" }, { name = "scattered_id", type = "int", references = "scattered.id" }"#,
    );
    let schemas = [
        ("packed.toml", packed.as_str()),
        ("scattered.toml", scattered.as_str()),
        ("link.toml", link.as_str()),
    ];
    let files = [
        ("packed.csv", "id\n-5\n3\n3\n10\n"),
        ("scattered.csv", "id\n1\n1000000\n1000000\n"),
        (
            "link.csv",
            "id,packed_id,scattered_id\n1,-13,0\n2,-5,1\n3,10,999999\n4,11,1000000\n5,4,1000001\n",
        ),
    ];
    assert_eq!(
        errors_in(&schemas, &files, true),
        vec![
            at(Code::ForeignKey, "packed_id", 2),
            at(Code::ForeignKey, "scattered_id", 2),
            at(Code::ForeignKey, "scattered_id", 4),
            at(Code::ForeignKey, "packed_id", 5),
            at(Code::ForeignKey, "packed_id", 6),
            at(Code::ForeignKey, "scattered_id", 6),
            at(Code::DuplicateKey, "id", 4),
            at(Code::DuplicateKey, "id", 4),
        ]
    );
}

#[test]
fn list_elements_are_checked_one_by_one() {
    let header =
        "id,name,description,category_id,rarity,price,tradable,unlock_quest_id,tags,released_on\n";
    let v = validate_csv(&[
        ("Category.csv", "id,name,sort_order\n1,武器,1\n"),
        (
            "Item.csv",
            &format!(
                "{header}1,剣,,1,common,1,,,sword|Bad Tag,2024-04-01\n2,盾,,1,common,1,TRUE,,,2023-12-31\n"
            ),
        ),
    ]);
    let found: Vec<(Code, u64, &str)> = errors(&v)
        .iter()
        .map(|d| {
            (
                d.code,
                d.location.line.unwrap(),
                d.location.field.as_deref().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        found,
        vec![
            (Code::Pattern, 2, "tags"),
            (Code::OutOfRange, 3, "released_on")
        ]
    );
    // The empty `tradable` took its default; the unsupplied quest table is a warning.
    let item = v.tables.iter().find(|t| t.name == "item").unwrap();
    assert_eq!(item.value(0, 6), &masterctl_schemas::Value::Bool(true));
    assert!(
        v.report
            .diagnostics
            .iter()
            .any(|d| d.code == Code::UncheckedReference)
    );
}

#[test]
fn the_header_is_the_first_row_naming_a_field() {
    // A title row above, and a comment column first: still the header.
    let v = validate_csv(&[(
        "Category.csv",
        "Categories (edit on the shared drive),,,\n# note,id,name,sort_order\nmemo,1,武器,1\n# retired,2,防具,2\n,3,素材,3\n",
    )]);
    assert!(!v.report.has_errors(), "{:#?}", v.report.diagnostics);
    let category = &v.tables[0];
    assert_eq!(category.row_count(), 2);
    assert_eq!(category.origin.rows, vec![3, 5]);
    assert_eq!(category.origin.columns, vec![Some(1), Some(2), Some(3)]);
}

#[test]
fn no_row_naming_a_field_is_a_missing_header() {
    let v = validate_csv(&[("Category.csv", "1,武器,1\n2,防具,2\n")]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::MissingHeader);
    assert_eq!(d.location.line, Some(1));
    // The rows it looked at, and how to name the columns.
    assert_eq!(
        d.found.as_deref(),
        Some("row 1: 1, 武器, 1 | row 2: 2, 防具, 2")
    );
    assert_eq!(
        d.expected.as_deref(),
        Some("a header row naming the fields: id, name, sort_order")
    );
    assert!(d.hint.as_deref().unwrap().contains("`column = \"...\"`"));
    // Headers close to the fields' names are offered.
    let v = validate_csv(&[("Category.csv", "Ident,Nmae,SortOrder\n1,武器,1\n")]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::MissingHeader);
    assert_eq!(
        d.hint.as_deref(),
        Some(
            "closest: `Ident` for `id`, `Nmae` for `name`, `SortOrder` for `sort_order`; rename the header, or give the field `column = \"...\"` in the schema"
        )
    );
}

#[test]
fn a_misspelt_header_is_still_the_header() {
    let v = validate_csv(&[("Category.csv", "ID,name,sort_order\n1,武器,1\n")]);
    let found: Vec<Code> = errors(&v).iter().map(|d| d.code).collect();
    assert_eq!(found, vec![Code::UnknownColumn, Code::MissingColumn]);
    assert_eq!(errors(&v)[0].hint.as_deref(), Some("did you mean `id`?"));
}

#[test]
fn custom_masters_need_positive_weights_and_each_matrix_pair_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("QuestDrop.csv"),
        "quest_id,item_id,rate,amount\n101,6,0.8,2\n101,5,0,1\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ElementAffinity.csv"),
        "attacker,defender,multiplier\nfire,wind,1.5\nwater,fire,1.5\nfire,wind,2\n",
    )
    .unwrap();
    let validation = validate(&project(&fixtures()), &[dir.path().to_path_buf()]);
    let found: Vec<(Code, Option<u64>, &str)> = errors(&validation)
        .iter()
        .map(|d| (d.code, d.location.line, d.message.as_str()))
        .collect();
    assert_eq!(found.len(), 2, "{found:#?}");
    assert_eq!(found[0].0, Code::DuplicateKey);
    assert_eq!(found[0].1, Some(4));
    // The axes are the primary key: the pair twice is a duplicate key, said once.
    assert!(
        found[0]
            .2
            .contains("duplicate primary key (attacker, defender) = (fire, wind)"),
        "{found:#?}"
    );
    assert_eq!(found[1].0, Code::OutOfRange);
    assert_eq!(found[1].1, Some(3));
    assert!(
        found[1].2.contains("every weight must be positive"),
        "{found:#?}"
    );
}

#[test]
fn control_characters_in_texts_are_refused_at_their_cell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Category.csv");
    std::fs::write(
        &path,
        "id,name,sort_order\n1,ok\ttab,10\n2,a\u{0}b,20\n3,\"a\r\nb\",30\n",
    )
    .unwrap();
    let v = validate(&project(&fixtures()), &[path]);
    let d = only_error(&v);
    assert_eq!(d.code, Code::ControlCharacter);
    assert_eq!(d.location.line, Some(3));
    assert_eq!(d.location.field.as_deref(), Some("name"));
    assert!(d.message.contains("U+0000 at character 2"), "{}", d.message);
}

/// A character split by a separator: the fields joined are UTF-8, each alone is not
/// (found by fuzzing; it panicked).
#[test]
fn a_character_split_by_a_separator_is_not_utf8() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Category.csv");
    std::fs::write(&path, b"id,name,sort_order\n1,\xe3\x83,\xaa\n").unwrap();
    let v = validate(&project(&fixtures()), &[path]);
    assert_eq!(only_error(&v).code, Code::InvalidUtf8);
}
