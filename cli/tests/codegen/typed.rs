//! The generated API on the sample game, by name: typed fields, enums, texts in two
//! languages, key and index lookups, a reverse lookup to its source rows, a group, a
//! weighted draw, a matrix, a singleton and a list. Run against the build given in MASTERS_BUILD.

use masters::*;

#[test]
fn the_sample_game_reads_typed() {
    let dir = std::env::var("MASTERS_BUILD").expect("MASTERS_BUILD: a build folder");
    let masters = Masters::open(&dir).unwrap();

    let sword = masters.item().get(1).unwrap();
    assert_eq!(sword.name("ja"), "鉄の剣");
    assert_eq!(sword.name("en"), "Iron Sword");
    assert_eq!(sword.rarity(), ItemRarity::Common);
    assert_eq!(sword.price(), 100);
    assert!(sword.tradable());
    assert_eq!(sword.unlock_quest_id(), None);
    let tags: Vec<&str> = sword.tags().unwrap().iter().collect();
    assert_eq!(tags, ["sword", "starter"]);
    assert_eq!(sword.released_on().to_string(), "2024-04-01");
    assert_eq!(sword.category_id_row().unwrap().name("en"), "Weapons");

    let steel = masters.item().get(2).unwrap();
    assert_eq!(steel.rarity(), ItemRarity::Rare);
    assert_eq!(steel.unlock_quest_id(), Some(102));
    assert_eq!(steel.unlock_quest_id_row().unwrap().code(), "Q0102");

    // An index: equality, and a range of its first field.
    let weapons: Vec<i64> = masters.item().by_category_id(1).map(|i| i.id()).collect();
    assert_eq!(weapons, [1, 2]);
    assert!(masters.item().by_category_id_range(2..=3).all(|i| (2..=3).contains(&i.category_id())));

    // Where can the iron sword be obtained: quest 102's drops and shop 1.
    let sources: Vec<String> = sword
        .item_sources()
        .map(|s| match s.source().unwrap() {
            ItemSourcesSource::QuestDrop(drop) => format!("quest {} at {}", drop.quest_id(), drop.rate()),
            ItemSourcesSource::ShopItem(offer) => format!("shop {} for {}", offer.shop_id(), offer.price()),
        })
        .collect();
    assert_eq!(sources, ["quest 102 at 0.1", "shop 1 for 120"]);
    assert_eq!(masters.item_sources(1).next().unwrap().rate(), Some(0.1));

    // A group, in its order; a weighted draw; a matrix with its default.
    let chapter_one: Vec<&str> = masters.quests_by_chapter(1).map(|q| q.code()).collect();
    assert_eq!(chapter_one, ["Q0101", "Q0102"]);
    let first = masters.drop_draw().draw(101, 0.0).unwrap();
    assert_eq!((first.quest_id(), first.item_id()), (101, 5));
    let total = masters.drop_draw().total(101).unwrap();
    assert!((total - 1.05).abs() < 1e-9, "{total}");
    assert_eq!(masters.drop_draw().draw(999, 0.5).map(|d| d.item_id()), None);
    assert_eq!(masters.element_matrix(ElementAffinityAttacker::Fire, ElementAffinityDefender::Water), 0.5);
    assert_eq!(masters.element_matrix(ElementAffinityAttacker::Fire, ElementAffinityDefender::Fire), 1.0);

    // The game's rules: a singleton's accessor is its one record.
    let rules = masters.game_rules();
    assert_eq!(rules.max_stamina(), 120);
    assert_eq!(rules.welcome("ja"), "竜の山へようこそ！");
    assert_eq!(rules.starter_items().iter().collect::<Vec<i64>>(), [1, 2]);
    assert_eq!(rules.season_ends().map(|d| d.to_string()).as_deref(), Some("2024-06-30"));
    // A map: looked up by key, iterated in key order.
    assert_eq!(rules.level_exp().get(2), Some(100));
    assert_eq!(rules.level_exp().get(9), None);
    assert_eq!(rules.level_exp().iter().collect::<Vec<_>>(), [(1, 0), (2, 100), (3, 250)]);
    // The login bonus: a list, in the planners' order, repeats and all.
    let days: Vec<(i64, i64)> = masters.login_bonus().rows().map(|d| (d.item_id(), d.count())).collect();
    assert_eq!(days, [(5, 3), (1, 1), (5, 5), (2, 1), (5, 5)]);
    assert_eq!(masters.login_bonus().row(3).unwrap().item_id_row().unwrap().id(), 2);

    // Enums know their values.
    assert_eq!(ItemRarity::parse("epic"), Some(ItemRarity::Epic));
    assert_eq!(ItemRarity::ALL.len(), 4);
    assert_eq!(QuestDifficulty::Extreme.as_str(), "extreme");
}
