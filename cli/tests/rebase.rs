//! `masterctl rebase` on hunt: region global follows jp and owns `material.price`.
//! Checked with the `git` command: parents, trailers, merge-base, fsck.

use crate::common::*;

/// The `git` command's output, trimmed.
fn git_line(dir: &Path, args: &[&str]) -> String {
    git(dir, args).trim().to_string()
}

use std::path::Path;
use std::process::Output;

/// A repository with hunt's structure, jp imported from hunt's CSV files, and global
/// started from jp by a first rebase.
struct Game {
    repo: tempfile::TempDir,
    /// A copy of hunt's CSV exports to edit.
    csv: tempfile::TempDir,
}

impl Game {
    fn new() -> Game {
        let repo = hunt_repo();
        let csv = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(hunt().join("csv")).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, csv.path().join(path.file_name().unwrap())).unwrap();
        }
        let game = Game { repo, csv };
        game.import("jp", &[]);
        let out = game.rebase();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        game
    }

    fn root(&self) -> &Path {
        self.repo.path()
    }

    /// Import the CSV exports into `region` after replacing whole files.
    fn import(&self, region: &str, files: &[(&str, &str)]) -> Output {
        let dir = tempfile::tempdir().unwrap();
        for entry in std::fs::read_dir(self.csv.path()).unwrap() {
            let path = entry.unwrap().path();
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
        for (name, contents) in files {
            std::fs::write(dir.path().join(name), contents).unwrap();
        }
        // An import copies the committed structure: the schemas a step wrote are committed.
        commit_structure(self.root());
        let out = masterctl(
            self.root(),
            &["import", "--region", region, dir.path().to_str().unwrap()],
        );
        assert_eq!(
            out.status.code(),
            Some(0),
            "import into {region}: {}",
            text(&out)
        );
        out
    }

    fn rebase(&self) -> Output {
        masterctl(self.root(), &["rebase", "--region", "global"])
    }

    fn show(&self, spec: &str) -> String {
        git_line(self.root(), &["show", spec])
    }
}

const MONSTER: &str = "id,name,element,hp,attack,habitat_id,boss\n100,リオス,fire,5200,310,2,TRUE\n101,ギア,ice,4800,280,3,FALSE\n102,ケルビ,none,300,5,1,FALSE\n";
const MATERIAL: &str =
    "id,name,price,rarity\n10,竜の鱗,300,3\n11,火炎袋,800,4\n12,氷結晶,120,2\n13,獣の皮,40,1\n";
const REWARD: &str = "monster_id,material_id,rate,amount\n100,10,0.45,1\n100,11,0.12,1\n101,12,0.5,2\n101,10,0.05,1\n102,13,0.9,1\n";

#[test]
fn the_first_rebase_starts_the_region_from_upstream() {
    let game = Game::new();
    let jp = git_line(game.root(), &["rev-parse", "masters/jp"]);
    assert_eq!(
        git_line(game.root(), &["merge-base", "masters/global", "masters/jp"]),
        jp
    );
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global^{tree}"]),
        git_line(game.root(), &["rev-parse", "masters/jp^{tree}"])
    );
    let message = git_line(game.root(), &["log", "-1", "--format=%B", "masters/global"]);
    assert!(
        message.contains(&format!("Masterctl-Upstream: {jp}")),
        "{message}"
    );
    // Nothing new upstream: nothing to take, no commit.
    let head = git_line(game.root(), &["rev-parse", "masters/global"]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out).contains("nothing to take"), "{}", text(&out));
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global"]),
        head
    );
}

#[test]
fn a_clean_rebase_takes_upstream_and_keeps_what_the_region_owns() {
    let game = Game::new();
    // jp: monster 100 gets stronger, material 10 costs more, a reward row is added and one removed.
    game.import(
        "jp",
        &[
            ("Monster.csv", &MONSTER.replace("5200", "6000")),
            ("Material.csv", &MATERIAL.replace(",300,3", ",350,3")),
            (
                "Reward.csv",
                &REWARD
                    .replace("100,11,0.12,1\n", "")
                    .replace("102,13,0.9,1\n", "102,13,0.9,1\n102,12,0.2,1\n"),
            ),
        ],
    );
    // global: its own price for material 10 (owned), and a cheaper material 13.
    game.import(
        "global",
        &[(
            "Material.csv",
            &MATERIAL
                .replace(",300,3", ",299,3")
                .replace(",40,1", ",35,1"),
        )],
    );
    let global_head = git_line(game.root(), &["rev-parse", "masters/global"]);
    let status = |root: &Path| -> serde_json::Value {
        let out = masterctl(root, &["status", "--format", "json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["regions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["region"] == "global")
            .unwrap()
            .clone()
    };
    assert_eq!(status(game.root())["upstream_commits_not_taken"], 1);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let after = status(game.root());
    assert_eq!(after["upstream_commits_not_taken"], 0);
    assert_eq!(after["rebase_in_progress"], false);
    let log = masterctl(game.root(), &["log", "--region", "global"]);
    assert!(
        text(&log).contains("import point: upstream"),
        "{}",
        text(&log)
    );
    assert_eq!(
        game.show("masters/global:tables/material.csv"),
        "id,price,rarity\n10,299,3\n11,800,4\n12,120,2\n13,35,1"
    );
    assert!(
        game.show("masters/global:tables/monster.csv")
            .contains("100,fire,6000,")
    );
    let rewards = game.show("masters/global:tables/reward.csv");
    assert!(
        rewards.contains("102,12,0.2,1") && !rewards.contains("100,11,"),
        "{rewards}"
    );
    assert!(
        game.show("masters/global:generated/material_sources.csv")
            .contains("12,reward,102|12,0.2")
    );
    // Two parents: the region's head, then upstream; merge-base is the import point.
    let jp = git_line(game.root(), &["rev-parse", "masters/jp"]);
    assert_eq!(
        git_line(game.root(), &["log", "-1", "--format=%P", "masters/global"]),
        format!("{global_head} {jp}")
    );
    assert_eq!(
        git_line(game.root(), &["merge-base", "masters/global", "masters/jp"]),
        jp
    );
    let message = git_line(game.root(), &["log", "-1", "--format=%B", "masters/global"]);
    assert!(
        message.contains("material: 0 applied, 1 kept (owned)"),
        "{message}"
    );
    assert!(
        message.contains("monster: 1 applied, 0 kept (owned)"),
        "{message}"
    );
    assert!(
        message.contains(&format!("Masterctl-Upstream: {jp}")),
        "{message}"
    );
    let graph = git_line(
        game.root(),
        &["log", "--graph", "--oneline", "masters/global"],
    );
    assert!(graph.contains("|\\"), "{graph}");
    assert_eq!(git_line(game.root(), &["fsck", "--no-progress"]), "");
    // The next rebase starts from the new import point: nothing to take.
    assert!(text(&game.rebase()).contains("nothing to take"));
}

#[test]
fn different_changes_to_one_cell_stop_the_rebase() {
    let game = Game::new();
    game.import("jp", &[("Monster.csv", &MONSTER.replace("5200", "6000"))]);
    game.import(
        "global",
        &[("Monster.csv", &MONSTER.replace("5200", "5500"))],
    );
    let head = git_line(game.root(), &["rev-parse", "masters/global"]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("conflict monster (100) hp: base 5200, ours 5500, theirs 6000"),
        "{}",
        text(&out)
    );
    assert!(text(&out).contains("nothing was committed"));
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global"]),
        head
    );
    let json = masterctl(
        game.root(),
        &[
            "rebase",
            "--region",
            "global",
            "--dry-run",
            "--format",
            "json",
        ],
    );
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["conflicts"][0]["column"], "hp");
    assert_eq!(json["conflicts"][0]["theirs"], "6000");
    // While it is in progress, the region takes no import and no other rebase.
    let out = masterctl(game.root(), &["rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("in progress"), "{}", text(&out));
    let out = masterctl(
        game.root(),
        &[
            "import",
            "--region",
            "global",
            game.csv.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out).contains("in progress")
            && text(&out).contains("masterctl rebase --region global --continue"),
        "{}",
        text(&out)
    );
    // --continue with the conflict unresolved stops again.
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    // --abort drops it all.
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--abort"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!game.root().join(".git/masterctl/rebase/global").exists());
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global"]),
        head
    );
}

#[test]
fn conflicts_resolved_in_the_file_then_continue() {
    let game = Game::new();
    game.import(
        "jp",
        &[(
            "Monster.csv",
            &MONSTER
                .replace("5200", "6000")
                .replace("4800,280", "4900,290"),
        )],
    );
    game.import(
        "global",
        &[(
            "Monster.csv",
            &MONSTER
                .replace("5200", "5500")
                .replace("4800,280", "4700,270"),
        )],
    );
    assert_eq!(game.rebase().status.code(), Some(1));
    let file = game
        .root()
        .join(".git/masterctl/rebase/global/conflicts.csv");
    let conflicts = std::fs::read_to_string(&file).unwrap();
    assert!(
        conflicts
            .starts_with("\u{feff}table,key,column,kind,base,ours,theirs,resolution,value\r\n"),
        "{conflicts}"
    );
    assert!(
        conflicts.contains("monster,100,hp,changed-both,5200,5500,6000,,\r\n"),
        "{conflicts}"
    );
    // A planner edits the file: monster 100 takes a value of their own; 101's attack theirs.
    let edited = conflicts
        .replace(
            "monster,100,hp,changed-both,5200,5500,6000,,",
            "monster,100,hp,changed-both,5200,5500,6000,value,5800",
        )
        .replace(
            "monster,101,attack,changed-both,280,270,290,,",
            "monster,101,attack,changed-both,280,270,290,theirs,",
        );
    std::fs::write(&file, edited).unwrap();
    // ... and settles the rest on the command line.
    let out = masterctl(
        game.root(),
        &[
            "rebase", "--region", "global", "--ours", "--table", "monster", "--column", "hp",
            "--key", "101",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("0 left"), "{}", text(&out));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let monsters = game.show("masters/global:tables/monster.csv");
    assert!(monsters.contains("100,fire,5800,310,"), "{monsters}");
    assert!(monsters.contains("101,ice,4700,290,"), "{monsters}");
    let message = git_line(game.root(), &["log", "-1", "--format=%B", "masters/global"]);
    assert!(
        message.contains("monster: 0 applied, 0 kept (owned), 3 resolved"),
        "{message}"
    );
    assert!(!game.root().join(".git/masterctl/rebase/global").exists());
    assert_eq!(git_line(game.root(), &["fsck", "--no-progress"]), "");
}

#[test]
fn theirs_for_everything_then_continue() {
    let game = Game::new();
    game.import("jp", &[("Monster.csv", &MONSTER.replace("5200", "6000"))]);
    game.import(
        "global",
        &[("Monster.csv", &MONSTER.replace("5200", "5500"))],
    );
    assert_eq!(game.rebase().status.code(), Some(1));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--theirs"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        game.show("masters/global:tables/monster.csv")
            .contains("100,fire,6000,")
    );
}

#[test]
fn a_clean_but_invalid_merge_is_rejected() {
    let game = Game::new();
    // global sells a reward of material 12 from monster 102; jp retires material 12.
    game.import(
        "global",
        &[("Reward.csv", &format!("{REWARD}102,12,0.3,1\n"))],
    );
    game.import(
        "jp",
        &[
            ("Material.csv", &MATERIAL.replace("12,氷結晶,120,2\n", "")),
            ("Reward.csv", &REWARD.replace("101,12,0.5,2\n", "")),
        ],
    );
    let head = git_line(game.root(), &["rev-parse", "masters/global"]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("foreign-key"), "{}", text(&out));
    assert!(
        text(&out).contains("no `material` has id 12"),
        "{}",
        text(&out)
    );
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global"]),
        head
    );
}

#[test]
fn an_upstream_schema_change_arrives_with_upstream_values() {
    let game = Game::new();
    game.import(
        "global",
        &[("Material.csv", &MATERIAL.replace(",300,3", ",299,3"))],
    );
    // jp adds an optional `weight` column to monster.
    let schema = game.root().join("schemas/monster.toml");
    let mut text_now = std::fs::read_to_string(&schema).unwrap();
    text_now = text_now.replace(
        "[[indexes]]",
        "[[fields]]\nname = \"weight\"\ntype = \"int\"\noptional = true\n\n[[indexes]]",
    );
    std::fs::write(&schema, text_now).unwrap();
    let monster = "id,name,element,hp,attack,habitat_id,boss,weight\n100,リオス,fire,5200,310,2,TRUE,900\n101,ギア,ice,4800,280,3,FALSE,700\n102,ケルビ,none,300,5,1,FALSE,\n";
    game.import("jp", &[("Monster.csv", monster)]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        game.show("masters/global:schemas/monster.toml")
            .contains("name = \"weight\"")
    );
    assert_eq!(
        game.show("masters/global:tables/monster.csv"),
        "id,element,hp,attack,habitat_id,boss,weight\n100,fire,5200,310,2,true,900\n101,ice,4800,280,3,false,700\n102,none,300,5,1,false,"
    );
    assert!(
        game.show("masters/global:tables/material.csv")
            .contains("10,299,3")
    );
}

#[test]
fn a_rewritten_upstream_is_a_clear_error() {
    let game = Game::new();
    // jp's history is replaced by an unrelated commit holding the same tree.
    let tree = git_line(game.root(), &["rev-parse", "masters/jp^{tree}"]);
    let orphan = git_line(game.root(), &["commit-tree", &tree, "-m", "rewritten"]);
    git_line(
        game.root(),
        &["update-ref", "refs/heads/masters/jp", &orphan],
    );
    let head = git_line(game.root(), &["rev-parse", "masters/global"]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("no longer in the history of masters/jp"),
        "{}",
        text(&out)
    );
    assert_eq!(
        git_line(game.root(), &["rev-parse", "masters/global"]),
        head
    );
}

#[test]
fn a_region_without_upstream_cannot_rebase() {
    let game = Game::new();
    let out = masterctl(game.root(), &["rebase", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out).contains("has no upstream"), "{}", text(&out));
}

#[test]
fn a_new_required_column_needs_a_value_for_region_only_rows() {
    let game = Game::new();
    // global sells a monster of its own.
    game.import(
        "global",
        &[(
            "Monster.csv",
            &format!("{MONSTER}103,ゴア,dragon,9000,500,1,TRUE\n"),
        )],
    );
    // jp adds a required `weight` column, with values for its monsters.
    let schema = game.root().join("schemas/monster.toml");
    let text_now = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(
        &schema,
        text_now.replace(
            "[[indexes]]",
            "[[fields]]\nname = \"weight\"\ntype = \"int\"\n\n[[indexes]]",
        ),
    )
    .unwrap();
    let monster = "id,name,element,hp,attack,habitat_id,boss,weight\n100,リオス,fire,5200,310,2,TRUE,900\n101,ギア,ice,4800,280,3,FALSE,700\n102,ケルビ,none,300,5,1,FALSE,80\n";
    game.import("jp", &[("Monster.csv", monster)]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("conflict monster (103) weight"),
        "{}",
        text(&out)
    );
    // --theirs cannot invent a value; a value can.
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--theirs"]);
    assert_eq!(out.status.code(), Some(0));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let file = game
        .root()
        .join(".git/masterctl/rebase/global/conflicts.csv");
    let conflicts = std::fs::read_to_string(&file).unwrap();
    let edited = conflicts.replace(
        "monster,103,weight,new-column-without-value,(none),(none),(none),theirs,",
        "monster,103,weight,new-column-without-value,(none),(none),(none),value,1200",
    );
    assert_ne!(edited, conflicts, "{conflicts}");
    std::fs::write(&file, edited).unwrap();
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let monsters = game.show("masters/global:tables/monster.csv");
    assert!(
        monsters.contains("103,dragon,9000,500,1,true,1200"),
        "{monsters}"
    );
    assert!(
        monsters.contains("100,fire,5200,310,2,true,900"),
        "{monsters}"
    );
}

#[test]
fn a_column_upstream_dropped_that_the_region_edited_is_a_conflict() {
    let game = Game::new();
    game.import(
        "global",
        &[("Monster.csv", &MONSTER.replace("5200,310", "5200,333"))],
    );
    // jp drops `attack`.
    let schema = game.root().join("schemas/monster.toml");
    let before = std::fs::read_to_string(&schema).unwrap();
    std::fs::write(
        &schema,
        before.replace(
            "[[fields]]\nname = \"attack\"\ntype = \"int\"\nmin = 0\n\n",
            "",
        ),
    )
    .unwrap();
    assert_ne!(std::fs::read_to_string(&schema).unwrap(), before);
    let monster = "id,name,element,hp,habitat_id,boss\n100,リオス,fire,5200,2,TRUE\n101,ギア,ice,4800,3,FALSE\n102,ケルビ,none,300,1,FALSE\n";
    game.import("jp", &[("Monster.csv", monster)]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("conflict schemas/monster.toml: upstream dropped column `attack` of `monster`, which the region changed"),
        "{}",
        text(&out)
    );
    // Taking upstream's schema drops the column, the region's edit with it.
    let out = masterctl(
        game.root(),
        &[
            "rebase",
            "--region",
            "global",
            "--theirs",
            "--table",
            "schemas/monster.toml",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        game.show("masters/global:tables/monster.csv")
            .starts_with("id,element,hp,habitat_id,boss\n")
    );
}

#[test]
fn a_personal_branch_follows_its_upstream_the_same_way() {
    let game = Game::new();
    // A planner's own branch, declared like any region with an upstream.
    let config = game.root().join("masterctl.toml");
    let mut text_now = std::fs::read_to_string(&config).unwrap();
    text_now.push_str("\n[regions.alice]\nbranch = \"people/alice\"\nupstream = \"jp\"\n");
    std::fs::write(&config, text_now).unwrap();
    let out = masterctl(game.root(), &["rebase", "--region", "alice"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    game.import(
        "alice",
        &[("Monster.csv", &MONSTER.replace("300,5,1", "350,5,1"))],
    );
    game.import("jp", &[("Monster.csv", &MONSTER.replace("5200", "6000"))]);
    let out = masterctl(game.root(), &["rebase", "--region", "alice"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let monsters = game.show("people/alice:tables/monster.csv");
    assert!(
        monsters.contains("100,fire,6000,") && monsters.contains("102,none,350,"),
        "{monsters}"
    );
    assert_eq!(
        git_line(game.root(), &["merge-base", "people/alice", "masters/jp"]),
        git_line(game.root(), &["rev-parse", "masters/jp"])
    );
}

/// The project's own fixtures: global owns `shop_item.price` and the `shop` table.
#[test]
fn the_sample_game_keeps_global_shops_and_takes_jp_quests() {
    let repo = tempfile::tempdir().unwrap();
    let root = repo.path();
    with_planner(root);
    let out = masterctl(root, &["init", ".", "--from", fixtures().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let workbooks = fixtures().join("workbooks");
    let out = masterctl(
        root,
        &["import", "--region", "jp", workbooks.to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        masterctl(root, &["rebase", "--region", "global"])
            .status
            .code(),
        Some(0)
    );
    let csv = |files: &[(&str, &str)]| {
        let dir = tempfile::tempdir().unwrap();
        for (name, contents) in files {
            std::fs::write(dir.path().join(name), contents).unwrap();
        }
        dir
    };
    // global: its own prices and shop names.
    let global = csv(&[
        (
            "Shop.csv",
            "id,name,currency\n1,Village Store,coin\n2,Dragon Market,gem\n",
        ),
        (
            "ShopItem.csv",
            "shop_id,item_id,price,stock\n1,1,99,\n1,5,49,99\n2,2,25,5\n2,10,450,1\n",
        ),
    ]);
    let out = masterctl(
        root,
        &[
            "import",
            "--region",
            "global",
            global.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // jp: a price change (owned by global), a new shop (global owns the table), more stamina.
    let jp = csv(&[
        (
            "Shop.csv",
            "id,name,currency\n1,村の道具屋,coin\n2,竜の市場,gem\n3,港の店,coin\n",
        ),
        (
            "ShopItem.csv",
            "shop_id,item_id,price,stock\n1,1,130,\n1,5,60,99\n2,2,30,5\n2,10,500,1\n",
        ),
        (
            "Quest.csv",
            "id,chapter_id,code,title,difficulty,stamina\n101,1,Q0101,スライム退治,easy,6\n102,1,Q0102,村を守れ,normal,8\n201,2,Q0201,山道の試練,hard,12\n202,2,Q0202,竜との対決,extreme,20\n",
        ),
    ]);
    let out = masterctl(
        root,
        &["import", "--region", "jp", jp.path().to_str().unwrap()],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(root, &["rebase", "--region", "global"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let show = |path: &str| git(root, &["show", &format!("masters/global:{path}")]);
    assert_eq!(
        show("tables/shop_item.csv"),
        "shop_id,item_id,price,stock\n1,1,99,\n1,5,49,99\n2,2,25,5\n2,10,450,1\n"
    );
    assert_eq!(show("tables/shop.csv"), "id,currency\n1,coin\n2,gem\n");
    assert!(show("locales/ja/shop.csv").contains("1,Village Store"));
    assert!(show("tables/quest.csv").contains("101,1,Q0101,easy,6"));
    assert!(show("generated/item_sources.csv").contains("1,shop_item,1|1,,99"));
}

/// A table with an integer key and no text merges as canonical lines: the same
/// outcomes, conflicts and resolutions as any other table.
#[test]
fn an_integer_keyed_table_without_text_merges_the_same() {
    let game = Game::new();
    std::fs::write(
        game.root().join("schemas/price.toml"),
        "name = \"price\"\nsheet = \"Price\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"amount\"\ntype = \"int\"\n\n[[fields]]\nname = \"note\"\ntype = \"string\"\noptional = true\n",
    )
    .unwrap();
    let prices = "id,amount,note\n1,10,\n2,20,\n3,30,a\n";
    game.import("jp", &[("Price.csv", prices)]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // global: row 1 and row 3; jp: row 2, row 3 differently, a new row 4, row 5 never existed.
    game.import(
        "global",
        &[("Price.csv", "id,amount,note\n1,11,\n2,20,\n3,33,a\n")],
    );
    game.import(
        "jp",
        &[("Price.csv", "id,amount,note\n1,10,\n2,22,\n3,34,b\n4,40,\n")],
    );
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("conflict price (3) amount: base 30, ours 33, theirs 34"),
        "{}",
        text(&out)
    );
    assert!(
        !text(&out).contains("note"),
        "the note changed on one side only: {}",
        text(&out)
    );
    let out = masterctl(
        game.root(),
        &[
            "rebase", "--region", "global", "--theirs", "--table", "price",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl(game.root(), &["rebase", "--region", "global", "--continue"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert_eq!(
        game.show("masters/global:tables/price.csv"),
        "id,amount,note\n1,11,\n2,22,\n3,34,b\n4,40,"
    );
    let message = git_line(game.root(), &["log", "-1", "--format=%B", "masters/global"]);
    assert!(
        message.contains("price: 3 applied, 0 kept (owned), 1 resolved"),
        "{message}"
    );
}

#[test]
fn new_upstream_rows_in_owned_columns_are_said() {
    // global owns shop_item.price: a row jp adds arrives with jp's price, and the rebase
    // says so, for global to set its own.
    let game = sample_game();
    let root = game.path();
    ok(masterctl(root, &["rebase", "--region", "global"]));
    let jp = root.join("jp-csv");
    export_csv(root, &jp, &["--region", "jp"]);
    let mut shop_items = std::fs::read_to_string(jp.join("ShopItem.csv")).unwrap();
    shop_items.push_str("2,1,777,3\r\n");
    std::fs::write(jp.join("ShopItem.csv"), shop_items).unwrap();
    ok(masterctl(
        root,
        &["import", "--region", "jp", jp.to_str().unwrap()],
    ));
    // The review says it first, then the rebase.
    let out = ok(masterctl(
        root,
        &["rebase", "--region", "global", "--dry-run"],
    ));
    let said = text(&out);
    assert!(
        said.contains(
            "shop_item: 1 row new from jp would take its values in the columns global owns"
        ),
        "{said}"
    );
    let out = ok(masterctl(root, &["rebase", "--region", "global"]));
    let said = text(&out);
    assert!(
        said.contains("shop_item: 1 row new from jp took its values in the columns global owns"),
        "{said}"
    );
}

/// In a downstream region, blame follows a cell a rebase took unchanged into upstream's
/// history, to the import there that made it, and names the rebase it came through; a
/// cell the region changed itself stays the region's.
#[test]
fn blame_in_a_region_follows_a_cell_to_the_upstream_import_that_made_it() {
    let game = Game::new();
    game.import(
        "global",
        &[("Monster.csv", &MONSTER.replace("300,5,1", "350,5,1"))],
    );
    std::fs::write(
        game.csv.path().join("Monster.csv"),
        MONSTER.replace("5200", "6000"),
    )
    .unwrap();
    let out = masterctl(
        game.root(),
        &[
            "import",
            "--region",
            "jp",
            "-m",
            "Rioth is tougher",
            game.csv.path().to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let jp_import = git_line(game.root(), &["rev-parse", "masters/jp"]);
    let out = game.rebase();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let rebase = git_line(game.root(), &["rev-parse", "masters/global"]);
    let blamed = masterctl(
        game.root(),
        &[
            "blame", "--region", "global", "monster", "100", "hp", "--format", "json",
        ],
    );
    assert_eq!(blamed.status.code(), Some(0), "{}", text(&blamed));
    let cell = &json(&blamed)["cells"][0];
    assert_eq!(cell["value"], "6000", "{cell:#}");
    assert_eq!(cell["previous"], "5200", "{cell:#}");
    assert_eq!(cell["commit"]["commit"], jp_import.as_str(), "{cell:#}");
    assert_eq!(cell["commit"]["subject"], "Rioth is tougher", "{cell:#}");
    assert_eq!(cell["via"]["commit"], rebase.as_str(), "{cell:#}");
    let shown = text(&ok(masterctl(
        game.root(),
        &["blame", "--region", "global", "monster", "100", "hp"],
    )));
    assert!(
        shown.contains("Rioth is tougher")
            && shown.contains(&format!(
                "taken from upstream by the rebase {}",
                &rebase[..12]
            )),
        "{shown}"
    );
    // Kelbi's hp, changed in global itself: global's own import.
    let blamed = masterctl(
        game.root(),
        &[
            "blame", "--region", "global", "monster", "102", "hp", "--format", "json",
        ],
    );
    let cell = &json(&blamed)["cells"][0];
    assert_eq!(cell["value"], "350", "{cell:#}");
    assert!(cell["via"].is_null(), "{cell:#}");
    assert_ne!(cell["commit"]["commit"], jp_import.as_str());
}
