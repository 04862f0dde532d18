//! Audiences in the schemas: who may see a table, a field, a generated master; checked
//! so that no reference or generated master leads an audience to data it may not see;
//! the project as one audience sees it.

use crate::common::load_texts;
use masterctl_schemas::audience::{Audience, Audiences};
use masterctl_schemas::{Diagnostic, Project};

const CONFIG: &str = "source_language = \"ja\"\nlanguages = [\"ja\", \"en\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";

/// A table's schema keyed by `id`: `head` (its own option lines) and its fields, each
/// `name: type`, with option lines after a `;` (joined by ` & `).
fn schema(name: &str, head: &str, fields: &[&str]) -> String {
    let mut text = format!("name = \"{name}\"\nprimary_key = [\"id\"]\n{head}\n");
    for field in fields {
        let (declared, options) = field.split_once(';').unwrap_or((field, ""));
        let (field, ty) = declared.split_once(':').unwrap();
        text.push_str(&format!(
            "\n[[fields]]\nname = \"{}\"\ntype = \"{}\"\n{}\n",
            field.trim(),
            ty.trim(),
            options.trim().replace(" & ", "\n")
        ));
    }
    text
}

/// A shop the servers alone see.
fn shop() -> String {
    schema("shop", "audience = [\"server\"]", &["id: int"])
}

/// The items a client sees, with a server-only drop rate (indexed) and a designers'
/// note; `changed` edits its text first.
fn item(changed: &[(&str, &str)]) -> String {
    let text = schema(
        "item",
        "",
        &[
            "id: int",
            "name: string",
            "drop_rate: float; audience = [\"server\"]",
            "note: string; optional = true & audience = [\"design\"]",
            "rarity: enum; values = [\"common\", \"rare\"]",
        ],
    ) + "\n[[indexes]]\nfields = [\"drop_rate\"]\n";
    changed
        .iter()
        .fold(text, |text, (from, to)| text.replacen(from, to, 1))
}

/// A custom master of the items grouped by rarity, ordered by `order`.
fn by_rarity(name: &str, order: &str, audience: &str) -> String {
    format!(
        "name = \"{name}\"\n{audience}\n[custom]\nkind = \"group\"\ntable = \"item\"\ngroup_by = [\"rarity\"]\norder_by = [\"{order}\"]\n"
    )
}

fn load(config: &str, files: &[(&str, &str)]) -> Result<Project, Vec<Diagnostic>> {
    load_texts(config, files)
}

fn errors(config: &str, files: &[(&str, &str)]) -> Vec<String> {
    match load(config, files) {
        Ok(_) => panic!("the schemas loaded, but should not"),
        Err(errors) => errors.into_iter().map(|d| d.to_string()).collect(),
    }
}

fn refused(found: &[String], expected: &str) {
    assert!(
        found.iter().any(|e| e.contains(expected)),
        "{expected}: {found:?}"
    );
}

#[test]
fn tables_fields_and_generated_masters_take_their_audience_or_their_makers() {
    let grouped = by_rarity("items_by_rarity", "name", "");
    let project = load(
        CONFIG,
        &[
            ("shop.toml", &shop()),
            ("item.toml", &item(&[])),
            ("items_by_rarity.toml", &grouped),
        ],
    )
    .unwrap();
    let both = Audiences::of(&[Audience::Server, Audience::Client]);
    let item_schema = project.table("item").unwrap();
    assert_eq!(item_schema.audience, both, "the project's default");
    assert_eq!(
        item_schema.field("name").unwrap().audience,
        both,
        "its table's"
    );
    let drop_rate = item_schema.field("drop_rate").unwrap();
    assert_eq!(drop_rate.audience, Audiences::of(&[Audience::Server]));
    assert_eq!(
        project.table("shop").unwrap().audience.to_string(),
        "server"
    );
    // Made from item's rarity and name: everyone who sees those.
    assert_eq!(project.generated[0].audience, both);

    // The client's view: no shop, no drop rate, no note, no index over the drop rate.
    let client = project.view(Audience::Client);
    assert!(client.table("shop").is_none());
    let names = |p: &Project| -> Vec<String> {
        let table = p.table("item").unwrap();
        table.fields.iter().map(|f| f.name.clone()).collect()
    };
    assert_eq!(names(&client), ["id", "name", "rarity"]);
    assert!(client.table("item").unwrap().indexes.is_empty());
    assert_eq!(client.table("item").unwrap().primary_key_names(), ["id"]);
    assert_eq!(client.generated.len(), 1);
    // The server's: everything but the designers' note.
    let server = project.view(Audience::Server);
    assert_eq!(names(&server), ["id", "name", "drop_rate", "rarity"]);
    assert_eq!(server.table("item").unwrap().indexes.len(), 1);
    assert!(!project.seen_whole_by(Audience::Server));

    // A project default: tables that name none are the server's only.
    let config = CONFIG.replace("\n[regions", "audience = [\"server\"]\n\n[regions");
    let narrow = item(&[("audience = [\"design\"]", "audience = [\"server\"]")]);
    let project = load(&config, &[("item.toml", &narrow)]).unwrap();
    assert_eq!(
        project.table("item").unwrap().audience.to_string(),
        "server"
    );
}

#[test]
fn an_audience_that_would_see_what_it_may_not_is_refused_with_the_chain_named() {
    // A field for someone its table is not for; a key narrower than its table.
    let narrow_table = item(&[
        (
            "primary_key = [\"id\"]\n",
            "primary_key = [\"id\"]\naudience = [\"server\"]\n",
        ),
        (
            "type = \"string\"\n",
            "type = \"string\"\naudience = [\"client\"]\n",
        ),
    ]);
    refused(
        &errors(CONFIG, &[("item.toml", &narrow_table)]),
        "field `name` is for client, but its table is for server only",
    );
    let narrow_key = item(&[(
        "type = \"int\"\n",
        "type = \"int\"\naudience = [\"server\"]\n",
    )]);
    refused(
        &errors(CONFIG, &[("item.toml", &narrow_key)]),
        "is the table's key",
    );

    // Names: unknown, none, design with others.
    for (audience, expected) in [
        ("[\"players\"]", "`players` is not an audience"),
        ("[]", "names at least one audience"),
        ("[\"design\", \"client\"]", "`design` stands alone"),
    ] {
        let narrow = shop().replace("[\"server\"]", audience);
        refused(&errors(CONFIG, &[("shop.toml", &narrow)]), expected);
    }

    // A client-visible reference into server-only data, and the same for the server.
    let sold = schema(
        "sold",
        "",
        &["id: int", "shop_id: int; references = \"shop.id\""],
    );
    refused(
        &errors(CONFIG, &[("shop.toml", &shop()), ("sold.toml", &sold)]),
        "client sees `sold.shop_id`, which references `shop.id`, which client does not see (`shop` is for server)",
    );
    let fixed = sold.replace("references", "audience = [\"server\"]\nreferences");
    load(CONFIG, &[("shop.toml", &shop()), ("sold.toml", &fixed)]).unwrap();

    // A generated master for the client made from a server-only field; without its own
    // audience it is the server's alone.
    let audience = "audience = [\"server\", \"client\"]";
    let by_rate = by_rarity("items_by_rate", "drop_rate", audience);
    refused(
        &errors(
            CONFIG,
            &[("item.toml", &item(&[])), ("items_by_rate.toml", &by_rate)],
        ),
        "generated master `items_by_rate` is for server, client, but it is made from data client does not see (`item.drop_rate` is for server)",
    );
    let by_rate = by_rarity("items_by_rate", "drop_rate", "");
    let project = load(
        CONFIG,
        &[("item.toml", &item(&[])), ("items_by_rate.toml", &by_rate)],
    )
    .unwrap();
    assert_eq!(project.generated[0].audience.to_string(), "server");
}
