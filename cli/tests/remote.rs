//! pull and push over real network transports: an `ssh://` remote served by OpenSSH's
//! sshd on 127.0.0.1 (its own host key, checked against known_hosts; the planner's key
//! in an ssh-agent), and an `http://` remote served by `git http-backend` behind nginx
//! and fcgiwrap (basic authentication, the password from git's credential helper). Two
//! planners' clones import different cells of one table, push and pull: the remote ends
//! with both, `git fsck` clean. A refused credential is exit 2 and never printed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::*;

/// A bare remote holding the sample game's structure and jp's import (made from
/// `seed`, a clone with the planner's data), under `dir/masters.git`.
fn bare_remote(dir: &Path) -> PathBuf {
    let bare = dir.join("masters.git");
    std::fs::create_dir_all(&bare).unwrap();
    git(&bare, &["init", "-q", "--bare", "-b", "main"]);
    bare
}

/// The planner `name`'s clone of `bare` (by path: the structure), its origin then set
/// to `url`: the masters move only through that.
fn planner(dir: &Path, name: &str, bare: &Path, url: &str) -> PathBuf {
    let root = dir.join(name);
    git(
        dir,
        &[
            "clone",
            "-q",
            bare.to_str().unwrap(),
            root.to_str().unwrap(),
        ],
    );
    git(&root, &["config", "user.name", name]);
    git(
        &root,
        &["config", "user.email", &format!("{name}@example.com")],
    );
    git(&root, &["remote", "set-url", "origin", url]);
    root
}

/// Run the binary in `dir` with `env` set (HOME, SSH_AUTH_SOCK...).
fn masterctl_with(dir: &Path, env: &[(&str, &Path)], args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_masterctl"));
    command.current_dir(dir).args(args).env("NO_COLOR", "1");
    for (key, value) in env {
        command.env(key, value);
    }
    command.env_remove("SSH_AUTH_SOCK");
    for (key, value) in env.iter().filter(|(k, _)| *k == "SSH_AUTH_SOCK") {
        command.env(key, value);
    }
    command.output().expect("the binary runs")
}

/// An edit of Item.csv exported from `root`: `from` replaced by `to` in one row.
fn edit_items(root: &Path, out: &Path, from: &str, to: &str) {
    export_csv(root, out, &["--region", "jp"]);
    let path = out.join("Item.csv");
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{text}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// Two planners over one remote reached by `url`, with `env` for the binary: both
/// import, both push and pull; the remote ends with both edits, fsck clean.
fn two_planners(tmp: &Path, bare: &Path, url: &str, env: &[(&str, &Path)], setup: &dyn Fn(&Path)) {
    // The structure and jp's first import on the remote, made by a seed clone by path.
    let seed = planners_repository(tmp);
    ok(masterctl(
        &seed,
        &["init", ".", "--from", fixtures().to_str().unwrap()],
    ));
    ok(masterctl(
        &seed,
        &[
            "import",
            "--region",
            "jp",
            fixtures().join("workbooks").to_str().unwrap(),
        ],
    ));
    git(&seed, &["remote", "add", "origin", bare.to_str().unwrap()]);
    git(&seed, &["push", "-q", "origin", "main", "masters/jp"]);

    let aiko = planner(tmp, "aiko", bare, url);
    let bob = planner(tmp, "bob", bare, url);
    for root in [&aiko, &bob] {
        setup(root);
        let out = masterctl_with(root, env, &["pull"]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out));
        assert!(text(&out).contains("masters/jp: made at"), "{}", text(&out));
    }
    edit_items(&aiko, &tmp.join("a"), ",1200,", ",1300,");
    edit_items(&bob, &tmp.join("b"), ",100,true", ",90,true");
    let a_edit = tmp.join("a");
    let b_edit = tmp.join("b");
    let out = masterctl_with(
        &aiko,
        env,
        &[
            "import",
            "--region",
            "jp",
            a_edit.to_str().unwrap(),
            "--push",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    ok(masterctl(
        &bob,
        &["import", "--region", "jp", b_edit.to_str().unwrap()],
    ));
    // The remote moved: Bob's push is refused, nothing sent.
    let out = masterctl_with(&bob, env, &["push"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("pull first"), "{}", text(&out));
    let out = masterctl_with(&bob, env, &["pull", "--region", "jp"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("merged"), "{}", text(&out));
    let out = masterctl_with(&bob, env, &["push", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let out = masterctl_with(&aiko, env, &["pull"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("fast-forward"), "{}", text(&out));

    let items = git(bare, &["show", "masters/jp:tables/item.csv"]);
    assert!(
        items.contains(",1300,") && items.contains(",90,"),
        "{items}"
    );
    let authors = git(bare, &["log", "--format=%an", "masters/jp"]);
    assert!(
        authors.contains("aiko") && authors.contains("bob"),
        "{authors}"
    );
    git(bare, &["fsck", "--strict", "--no-progress"]);
    assert_eq!(
        git(&aiko, &["rev-parse", "masters/jp"]),
        git(bare, &["rev-parse", "masters/jp"])
    );

    // A merge proposed on a work branch travels with it, and its withdrawal too.
    ok(masterctl(
        &aiko,
        &["branch", "create", "event", "--region", "jp"],
    ));
    edit_items(&aiko, &tmp.join("e"), ",1300,", ",1350,");
    let e_edit = tmp.join("e");
    ok(masterctl(
        &aiko,
        &[
            "import",
            "--region",
            "jp",
            "--branch",
            "event",
            e_edit.to_str().unwrap(),
        ],
    ));
    ok(masterctl(
        &aiko,
        &[
            "branch",
            "propose",
            "event",
            "--region",
            "jp",
            "-m",
            "Event prices",
        ],
    ));
    let out = masterctl_with(&aiko, env, &["push"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("work/jp/event: proposal sent"),
        "{}",
        text(&out)
    );
    let proposed = |root: &Path| text(&masterctl(root, &["branch", "list", "--region", "jp"]));
    ok(masterctl_with(&bob, env, &["pull"]));
    assert!(
        proposed(&bob).contains("Event prices"),
        "{}",
        proposed(&bob)
    );
    ok(masterctl(
        &aiko,
        &["branch", "withdraw", "event", "--region", "jp"],
    ));
    let out = masterctl_with(&aiko, env, &["push"]);
    assert!(
        text(&out).contains("work/jp/event: proposal removed"),
        "{}",
        text(&out)
    );
    ok(masterctl_with(&bob, env, &["pull"]));
    assert!(
        !proposed(&bob).contains("Event prices"),
        "{}",
        proposed(&bob)
    );
}

#[test]
fn two_planners_over_ssh_lose_nothing() {
    let Some(sshd) = Sshd::start() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let bare = bare_remote(tmp.path());
    let url = sshd.url(&bare);
    let home = sshd.home();
    let agent = sshd.agent_socket();
    let env = [("HOME", home.as_path()), ("SSH_AUTH_SOCK", agent.as_path())];
    two_planners(tmp.path(), &bare, &url, &env, &|_| {});

    // Without the agent, and no key in the home: refused credentials, exit 2.
    let aiko = tmp.path().join("aiko");
    let out = masterctl_with(&aiko, &[("HOME", home.as_path())], &["pull"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        text(&out).contains("refused the credentials"),
        "{}",
        text(&out)
    );
    // A host whose key known_hosts does not hold is refused too.
    let stranger = tmp.path().join("stranger-home");
    std::fs::create_dir_all(stranger.join(".ssh")).unwrap();
    std::fs::write(stranger.join(".ssh/known_hosts"), "").unwrap();
    let out = masterctl_with(
        &aiko,
        &[
            ("HOME", stranger.as_path()),
            ("SSH_AUTH_SOCK", agent.as_path()),
        ],
        &["pull"],
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("host key"), "{}", text(&out));
}

#[test]
fn two_planners_over_http_lose_nothing_and_a_wrong_password_is_never_printed() {
    let tmp = tempfile::tempdir().unwrap();
    let bare = bare_remote(tmp.path());
    let Some(http) = GitHttp::start(tmp.path()) else {
        return;
    };
    let url = http.url("masters.git");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let store = tmp.path().join("credentials");
    // git's credential store: the password a helper gives.
    let port = http.port;
    std::fs::write(
        &store,
        format!(
            "http://alice:{}@127.0.0.1:{port}\n",
            GitHttp::PASSWORD.replace('ä', "%C3%A4")
        ),
    )
    .unwrap();
    let helper = format!("store --file={}", store.display());
    let env = [("HOME", home.as_path())];
    two_planners(tmp.path(), &bare, &url, &env, &|root: &Path| {
        git(root, &["config", "credential.helper", &helper]);
    });

    // A wrong password: exit 2, and neither password is printed.
    let wrong = tmp.path().join("wrong");
    std::fs::write(
        &wrong,
        format!("http://alice:Wr0ng-s3cret@127.0.0.1:{port}\n"),
    )
    .unwrap();
    let aiko = tmp.path().join("aiko");
    git(
        &aiko,
        &[
            "config",
            "credential.helper",
            &format!("store --file={}", wrong.display()),
        ],
    );
    let out = masterctl_with(&aiko, &env, &["pull"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let said = text(&out);
    assert!(
        !said.contains("Wr0ng") && !said.contains("s3cret"),
        "{said}"
    );
    // A URL carrying a password is shown without it.
    git(
        &aiko,
        &[
            "remote",
            "set-url",
            "origin",
            &format!("http://alice:Wr0ng-s3cret@127.0.0.1:{port}/masters.git"),
        ],
    );
    let out = masterctl_with(&aiko, &env, &["push"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(!text(&out).contains("Wr0ng"), "{}", text(&out));
    // Nobody listening: unreachable, exit 2.
    let closed = free_port();
    git(
        &aiko,
        &[
            "remote",
            "set-url",
            "origin",
            &format!("http://127.0.0.1:{closed}/masters.git"),
        ],
    );
    let out = masterctl_with(&aiko, &env, &["pull"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("cannot reach it"), "{}", text(&out));
}
