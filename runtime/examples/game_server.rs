//! What a game server does at boot with a build of the sample game, and the lookups it
//! answers while it runs. Build one, then run this against it:
//!
//! ```sh
//! KEEP=/tmp/game fixtures/run.sh
//! masterctl --repo /tmp/game build --region jp --out /tmp/game/build
//! cargo run --release -p masterctl-runtime --example game_server -- /tmp/game/build
//! ```

// An example program: it unwraps and prints (the workspace lints are for the libraries).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use std::ops::Bound;

use masterctl_runtime::{Masters, ValueRef};

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("game_server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "build".to_string());
    // Once, at boot: map every file and verify it — hashes, structure, identities (or
    // `open_trusted` to skip the structural check, for builds from your own pipeline).
    let masters = Masters::open(&dir)?;
    let manifest = masters.manifest();
    println!(
        "{} masters from commit {}",
        manifest.region, manifest.source_commit
    );

    // Resolve tables once; lookups then borrow from the mapped files, no allocation.
    let item = masters.table("item").ok_or("no item table")?;
    let sword = item.get(&[ValueRef::Int(1)]).ok_or("no item 1")?;
    println!(
        "item 1: {} ({}), price {}",
        sword.text("name", "en").unwrap_or("?"),
        sword.text("name", "ja").unwrap_or("?"),
        sword.int("price").unwrap_or_default()
    );

    // A key typed by an operator (an admin command, a URL): typed by the key's columns;
    // values print as their canonical cells.
    let key = item.parse_primary_key(&["2"])?;
    if let Some(row) = item.get(&key) {
        println!("item 2 tags: {}", row.get("tags").unwrap_or(ValueRef::Null));
    }

    // A secondary index: weapons (category 1) by price, and categories 2 to 3.
    let by_category = item.index(&["category_id"]).ok_or("no index")?;
    for weapon in by_category.eq(&[ValueRef::Int(1)]) {
        println!(
            "  weapon {} for {}",
            weapon.int("id").unwrap_or_default(),
            weapon.int("price").unwrap_or_default()
        );
    }
    let some = by_category.range(
        Bound::Included(ValueRef::Int(2)),
        Bound::Included(ValueRef::Int(3)),
    );
    println!("  {} items in categories 2..=3", some.len());

    // "Where can item 6 be obtained?"
    if let Some(sources) = masters.reverse("item_sources") {
        for source in sources.get(ValueRef::Int(6)) {
            println!(
                "  item 6 from {} {}",
                source.str("source_table").unwrap_or("?"),
                source.str("source_key").unwrap_or("?")
            );
        }
    }

    // A chapter's quests, a drop draw from a random number, an element multiplier.
    if let Some(quests) = masters.group("quests_by_chapter") {
        let ids: Vec<i64> = quests
            .get(&[ValueRef::Int(1)])
            .filter_map(|q| q.int("id"))
            .collect();
        println!("chapter 1 quests: {ids:?}");
    }
    if let Some(drops) = masters.weighted("drop_draw") {
        let random = 0x9E37_79B9_7F4A_7C15u64; // your RNG's output
        if let Some(drop) = drops.draw_u64(&[ValueRef::Int(101)], random) {
            println!(
                "quest 101 dropped item {}",
                drop.int("item_id").unwrap_or_default()
            );
        }
    }
    if let Some(affinity) = masters.matrix("element_matrix") {
        let multiplier = affinity.get("fire", "wind").and_then(|v| v.as_float());
        println!("fire against wind: ×{}", multiplier.unwrap_or(1.0));
    }
    Ok(())
}
