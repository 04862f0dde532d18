//! The console over HTTP, without a network: each request handed to the router as a
//! browser (or a proxy) would send it. Who may see what — nobody without an identity,
//! a token only when it is a user's, a proxy's header only from the proxy — forms that
//! need their session's token, cells that hold markup shown as text, and request
//! parameters that never become paths.

// Tests unwrap and print freely (the workspace lints hold the code they test).
#![allow(clippy::unwrap_used, clippy::print_stdout, clippy::print_stderr)]

use masterctl_testing::git;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use masterctl_console::{Console, Identity, Policy, Role, Users, router};
use tower::ServiceExt;

const CONFIG: &str =
    "source_language = \"ja\"\nlanguages = [\"ja\"]\n\n[regions.jp]\nbranch = \"masters/jp\"\n";
const MONSTER: &str = "name = \"monster\"\nprimary_key = [\"id\"]\n\n[[fields]]\nname = \"id\"\ntype = \"int\"\n\n[[fields]]\nname = \"name\"\ntype = \"string\"\n";

/// A master repository with one import into jp, a monster named with markup.
fn repository() -> tempfile::TempDir {
    repository_with(CONFIG, MONSTER, "1,<script>alert(1)</script>\n2,スライム\n")
}

/// A master repository of `config` and the monster schema `monster` (committed by
/// Aiko), its monsters `rows` imported into jp.
fn repository_with(config: &str, monster: &str, rows: &str) -> tempfile::TempDir {
    repository_of(config, monster, &format!("id,name\n{rows}"))
}

/// [`repository_with`] the monster file `csv`, its own header first.
fn repository_of(config: &str, monster: &str, csv: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut options = git2::RepositoryInitOptions::new();
    options.initial_head("main");
    let git = git2::Repository::init_opts(dir.path(), &options).unwrap();
    let mut settings = git.config().unwrap();
    settings.set_str("user.name", "Aiko").unwrap();
    settings.set_str("user.email", "aiko@example.com").unwrap();
    let files = [
        ("masterctl.toml".to_string(), config.as_bytes().to_vec()),
        (
            "schemas/monster.toml".to_string(),
            monster.as_bytes().to_vec(),
        ),
    ];
    masterctl_store::init::init(dir.path(), &files, None).unwrap();
    let path = dir.path().join("monster.csv");
    std::fs::write(&path, csv).unwrap();
    import_path(dir.path(), None, &path);
    std::fs::remove_file(path).unwrap();
    dir
}

/// Import these monster rows (`id,name` lines) into jp, or its work branch `branch`,
/// of the repository in `dir`, as the command line would; it must commit.
fn import_rows(dir: &Path, branch: Option<&str>, rows: &str) {
    let csv = dir.join("monster.csv");
    std::fs::write(&csv, format!("id,name\n{rows}")).unwrap();
    import_path(dir, branch, &csv);
    std::fs::remove_file(csv).unwrap();
}

/// Import the file or folder at `path` into jp (or its work branch `branch`) of the
/// repository in `dir`, as the command line would; it must commit.
fn import_path(dir: &Path, branch: Option<&str>, path: &Path) {
    import_into(dir, "jp", branch, path);
}

/// [`import_path`] into any region.
fn import_into(dir: &Path, region: &str, branch: Option<&str>, path: &Path) {
    let repo = masterctl_store::MasterRepo::open(dir).unwrap();
    let paths = [path.to_path_buf()];
    let outcome = masterctl_store::import::run(
        &repo,
        &masterctl_store::import::Request {
            branch,
            ..masterctl_store::import::Request::new(region, &paths)
        },
    )
    .unwrap();
    assert!(matches!(
        outcome,
        masterctl_store::import::ImportOutcome::Committed { .. }
    ));
}

/// Region jp's head in the repository at `dir`: its id, tree, parents and author.
struct Head {
    id: git2::Oid,
    tree: git2::Oid,
    parents: Vec<git2::Oid>,
    author: String,
}

fn jp_head(dir: &Path) -> Head {
    let git = git2::Repository::open(dir).unwrap();
    let commit = git
        .find_reference("refs/heads/masters/jp")
        .unwrap()
        .peel_to_commit()
        .unwrap();
    Head {
        id: commit.id(),
        tree: commit.tree_id(),
        parents: commit.parent_ids().collect(),
        author: commit.author().name().unwrap().to_string(),
    }
}

fn sha(token: &str) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn users() -> Users {
    let mut text = String::new();
    for (name, role) in [
        ("viola", "viewer"),
        ("eddie", "editor"),
        ("mia", "maintainer"),
    ] {
        text.push_str(&format!(
            "[[user]]\nname = \"{name}\"\nemail = \"{name}@example.com\"\nrole = \"{role}\"\ntoken_sha256 = \"{}\"\n",
            sha(&format!("token-of-{name}"))
        ));
    }
    Users::parse(&text).unwrap()
}

fn local() -> Policy {
    Policy::Local(Identity {
        name: "Aiko".into(),
        email: "aiko@example.com".into(),
        role: Role::Maintainer,
    })
}

/// A request from `peer` (what the listener's connection info says).
fn request(method: &str, uri: &str, peer: &str) -> axum::http::request::Builder {
    let peer: SocketAddr = peer.parse().unwrap();
    let mut builder = Request::builder().method(method).uri(uri);
    builder.extensions_mut().unwrap().insert(ConnectInfo(peer));
    builder
}

struct Got {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    cookies: Vec<String>,
    location: Option<String>,
    body: String,
}

/// A page asked for by the browser holding `cookie`.
async fn get_as(app: &axum::Router, uri: &str, cookie: &str) -> Got {
    let request = request("GET", uri, HERE)
        .header(header::COOKIE, cookie)
        .body(Body::empty())
        .unwrap();
    send(app, request).await
}

async fn send(app: &axum::Router, request: Request<Body>) -> Got {
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let cookies = response
        .headers()
        .get_all(header::SET_COOKIE)
        .iter()
        .map(|v| v.to_str().unwrap().to_string())
        .collect();
    let location = response
        .headers()
        .get(header::LOCATION)
        .map(|v| v.to_str().unwrap().to_string());
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Got {
        status,
        headers,
        cookies,
        location,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn app(dir: &Path, policy: Policy) -> axum::Router {
    router(Console::new(PathBuf::from(dir), policy))
}

const HERE: &str = "127.0.0.1:50000";

#[tokio::test]
async fn a_planner_on_this_machine_sees_every_page_with_a_strict_session_cookie() {
    let dir = repository();
    let app = app(dir.path(), local());
    let got = send(&app, request("GET", "/", HERE).body(Body::empty()).unwrap()).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains("masters/jp"), "{}", got.body);
    assert_eq!(got.cookies.len(), 1);
    let cookie = &got.cookies[0];
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let got = send(
        &app,
        request("GET", "/history?region=jp", HERE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.body.contains("Import into jp"), "{}", got.body);
    let commit = got
        .body
        .split("/commit?id=")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    let got = send(
        &app,
        request("GET", &format!("/commit?id={commit}"), HERE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.body.contains("monster"), "{}", got.body);
}

#[tokio::test]
async fn another_sites_name_for_this_machine_gets_nothing_from_a_console_without_users() {
    let dir = repository();
    let app = app(dir.path(), local());
    let ask = |method: &str, uri: &str, host: &str| {
        request(method, uri, HERE)
            .header(header::HOST, host)
            .body(Body::empty())
            .unwrap()
    };
    // DNS rebinding: attacker.example resolves to 127.0.0.1; the browser says so.
    for host in ["attacker.example", "attacker.example:7878", "10.0.0.5:7878"] {
        for (method, uri) in [
            ("GET", "/"),
            ("GET", "/import?region=jp"),
            ("POST", "/upload"),
            ("GET", "/assets/console.js"),
        ] {
            let got = send(&app, ask(method, uri, host)).await;
            assert_eq!(got.status, StatusCode::MISDIRECTED_REQUEST, "{host} {uri}");
            assert!(got.cookies.is_empty(), "no session for {host}");
            assert!(!got.body.contains("csrf"), "{}", got.body);
            assert_eq!(got.headers[header::CACHE_CONTROL], "no-store");
        }
    }
    for host in [
        "localhost:7878",
        "127.0.0.1:7878",
        "[::1]:7878",
        "localhost",
    ] {
        let got = send(&app, ask("GET", "/", host)).await;
        assert_eq!(got.status, StatusCode::OK, "{host}");
        assert_eq!(got.cookies.len(), 1, "{host}");
    }
    // A console with users answers to the names it is given, and loopback ones.
    let hosts = masterctl_console::AllowedHosts::new(&["console.example.com".to_string()]);
    let named = router(Console::answering(
        PathBuf::from(dir.path()),
        Policy::Users(users()),
        hosts,
    ));
    for (host, status) in [
        ("console.example.com", StatusCode::UNAUTHORIZED),
        ("localhost:7878", StatusCode::UNAUTHORIZED),
        ("attacker.example", StatusCode::MISDIRECTED_REQUEST),
    ] {
        assert_eq!(
            send(&named, ask("GET", "/", host)).await.status,
            status,
            "{host}"
        );
    }
}

#[tokio::test]
async fn error_pages_are_never_cached() {
    let dir = repository();
    let app = app(dir.path(), local());
    for uri in ["/history?region=nowhere", "/commit?id=zz", "/no-such-page"] {
        let got = send(&app, request("GET", uri, HERE).body(Body::empty()).unwrap()).await;
        assert!(got.status.is_client_error(), "{uri}: {}", got.status);
        assert_eq!(got.headers[header::CACHE_CONTROL], "no-store", "{uri}");
    }
}

#[tokio::test]
async fn markup_in_a_cell_is_shown_as_text_on_every_page() {
    let dir = repository();
    let app = app(dir.path(), local());
    for uri in [
        "/blame?region=jp&table=monster&key=1",
        "/history?region=jp",
        "/table?region=jp&table=monster",
        "/table?region=jp&table=monster&q=%3Cscript%3E",
        "/table?region=jp&table=monster&f.name=%22%3E%3Cscript%3Ealert",
        "/row?region=jp&table=monster&key=1",
        "/row?region=jp&table=monster&key=1&copy=1",
        "/row?region=jp&table=monster",
        "/edits?region=jp",
        "/audit",
    ] {
        let got = send(&app, request("GET", uri, HERE).body(Body::empty()).unwrap()).await;
        assert_eq!(got.status, StatusCode::OK, "{uri}: {}", got.body);
        assert!(!got.body.contains("<script>alert"), "{uri}: {}", got.body);
    }
    let got = send(
        &app,
        request("GET", "/blame?region=jp&table=monster&key=1", HERE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(
        got.body
            .contains("&#60;script&#62;alert(1)&#60;/script&#62;"),
        "{}",
        got.body
    );
    let got = send(
        &app,
        request("GET", "/blame?region=jp&table=monster&key=2", HERE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert!(got.body.contains("スライム"), "{}", got.body);
}

#[tokio::test]
async fn parameters_never_become_paths() {
    let dir = repository();
    let app = app(dir.path(), local());
    for (uri, status) in [
        ("/history?region=../../etc", StatusCode::NOT_FOUND),
        ("/history?region=jp&branch=../../x", StatusCode::BAD_REQUEST),
        ("/history?region=jp&branch=nobody", StatusCode::NOT_FOUND),
        ("/commit?id=../../etc/passwd", StatusCode::BAD_REQUEST),
        ("/commit?id=HEAD~1", StatusCode::BAD_REQUEST),
        (
            "/commit?id=0000000000000000000000000000000000000000",
            StatusCode::NOT_FOUND,
        ),
        (
            "/blame?region=jp&table=../../etc/passwd&key=1",
            StatusCode::NOT_FOUND,
        ),
        (
            "/blame?region=jp&table=monster&key=999",
            StatusCode::NOT_FOUND,
        ),
        ("/history", StatusCode::BAD_REQUEST),
        (
            "/table?region=jp&table=../../etc/passwd",
            StatusCode::NOT_FOUND,
        ),
        (
            "/table?region=jp&table=monster&sort=../x",
            StatusCode::NOT_FOUND,
        ),
        (
            "/table?region=jp&table=monster&f.hp=1",
            StatusCode::NOT_FOUND,
        ),
        (
            "/table?region=jp&table=monster&key=999",
            StatusCode::NOT_FOUND,
        ),
        (
            "/table?region=jp&table=monster&from=-1",
            StatusCode::BAD_REQUEST,
        ),
        (
            "/table?region=jp&table=monster&path=/etc",
            StatusCode::BAD_REQUEST,
        ),
        ("/tables?region=../../etc", StatusCode::NOT_FOUND),
        (
            "/row?region=jp&table=../../etc/passwd&key=1",
            StatusCode::NOT_FOUND,
        ),
        (
            "/row?region=jp&table=monster&key=999",
            StatusCode::NOT_FOUND,
        ),
        ("/edits?region=../../etc", StatusCode::NOT_FOUND),
    ] {
        let got = send(&app, request("GET", uri, HERE).body(Body::empty()).unwrap()).await;
        assert_eq!(got.status, status, "{uri}: {}", got.body);
        assert!(!got.body.contains("root:"), "{uri}");
    }
}

#[tokio::test]
async fn users_sign_in_with_their_token_and_forms_need_their_session_token() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    // No identity, a wrong token: 401, with the sign-in form.
    let got = send(&app, request("GET", "/", HERE).body(Body::empty()).unwrap()).await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED);
    assert!(got.body.contains("name=\"token\""), "{}", got.body);
    let got = send(
        &app,
        request("GET", "/", HERE)
            .header(header::AUTHORIZATION, "Bearer nope")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED);
    // A user's token: seen, as that user.
    let got = send(
        &app,
        request("GET", "/", HERE)
            .header(header::AUTHORIZATION, "Bearer token-of-viola")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.body.contains("viola (viewer)"), "{}", got.body);
    // Signing in: a session cookie; the page's form carries its token.
    let got = send(
        &app,
        request("POST", "/login", HERE)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from("token=token-of-mia"))
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER);
    let cookie = got.cookies[0].split(';').next().unwrap().to_string();
    let got = get_as(&app, "/", &cookie).await;
    assert!(got.body.contains("mia (maintainer)"), "{}", got.body);
    let csrf = got
        .body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_string();
    assert_eq!(csrf.len(), 64);
    // A form without the session's token (another site's) is refused, and signs nobody out.
    for body in ["".to_string(), format!("csrf={}", "0".repeat(64))] {
        let got = send(
            &app,
            request("POST", "/logout", HERE)
                .header(header::COOKIE, &cookie)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(body))
                .unwrap(),
        )
        .await;
        assert_eq!(got.status, StatusCode::FORBIDDEN);
    }
    let got = send(
        &app,
        request("POST", "/logout", HERE)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!("csrf={csrf}")))
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER);
    let got = get_as(&app, "/", &cookie).await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_proxy_header_is_believed_only_from_the_proxy() {
    let dir = repository();
    let policy = Policy::Proxy {
        header: "x-forwarded-user".into(),
        trusted: vec!["10.0.0.2".parse().unwrap()],
        users: Some(users()),
    };
    let app = app(dir.path(), policy);
    let from = |peer: &str, name: &str| {
        request("GET", "/", peer)
            .header("X-Forwarded-User", name)
            .body(Body::empty())
            .unwrap()
    };
    let got = send(&app, from("10.0.0.9:40000", "mia")).await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED, "a forged header");
    let got = send(
        &app,
        request("GET", "/", "10.0.0.2:40000")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED, "no header");
    let got = send(&app, from("10.0.0.2:40000", "mia")).await;
    assert!(got.body.contains("mia (maintainer)"), "{}", got.body);
    let got = send(&app, from("10.0.0.2:40000", "stranger")).await;
    assert!(got.body.contains("stranger (viewer)"), "{}", got.body);

    // The proxy's users get a session of the console (Secure when the proxy says the
    // browser came over https): their forms carry its token, as another site's cannot,
    // even though the proxy names them on every request.
    let got = send(
        &app,
        request("GET", "/", "10.0.0.2:40000")
            .header("X-Forwarded-User", "mia")
            .header("X-Forwarded-Proto", "https")
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let cookie = &got.cookies[0];
    assert!(
        cookie.contains("Secure") && cookie.contains("HttpOnly"),
        "{cookie}"
    );
    let cookie = cookie.split(';').next().unwrap().to_string();
    let csrf = got.body.split("name=\"csrf\" value=\"").nth(1).unwrap()[..64].to_string();
    let post = |peer: &str, name: &str, body: String| {
        request("POST", "/propose", peer)
            .header("X-Forwarded-User", name)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(body))
            .unwrap()
    };
    let forged = "region=jp&branch=event&action=withdraw".to_string();
    let got = send(&app, post("10.0.0.2:40000", "mia", forged.clone())).await;
    assert_eq!(
        got.status,
        StatusCode::FORBIDDEN,
        "a form without the token"
    );
    let ours = format!("csrf={csrf}&{forged}");
    let got = send(&app, post("10.0.0.2:40000", "mia", ours.clone())).await;
    assert_ne!(got.status, StatusCode::FORBIDDEN, "{}", got.body);
    // The session is mia's only while the proxy names mia, and only through the proxy.
    let got = send(&app, post("10.0.0.2:40000", "eddie", ours.clone())).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN, "another user's session");
    let got = send(&app, post("10.0.0.9:40000", "mia", ours)).await;
    assert_eq!(
        got.status,
        StatusCode::UNAUTHORIZED,
        "not through the proxy"
    );
}

#[test]
fn a_console_other_machines_can_reach_needs_users_or_a_proxy() {
    let open: SocketAddr = "0.0.0.0:7878".parse().unwrap();
    let here: SocketAddr = "127.0.0.1:7878".parse().unwrap();
    assert!(local().check(&open).is_err());
    assert!(local().check(&here).is_ok());
    assert!(Policy::Users(users()).check(&open).is_ok());
}

/// A multipart body: the form's fields, then the files.
fn multipart(fields: &[(&str, &str)], files: &[(&str, &[u8])]) -> (String, Vec<u8>) {
    let boundary = "masterctl-test-boundary";
    let mut body = Vec::new();
    for (name, value) in fields {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n"
            )
            .as_bytes(),
        );
    }
    for (name, bytes) in files {
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// A browser's session: signed in with `token` (or, on this machine, by its first
/// visit); its cookie and the token its forms carry.
async fn session(app: &axum::Router, token: Option<&str>) -> (String, String) {
    let first = match token {
        Some(token) => request("POST", "/login", HERE)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!("token={token}")))
            .unwrap(),
        None => request("GET", "/", HERE).body(Body::empty()).unwrap(),
    };
    let got = send(app, first).await;
    let cookie = got.cookies[0].split(';').next().unwrap().to_string();
    let page = send(
        app,
        request("GET", "/", HERE)
            .header(header::COOKIE, &cookie)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    let csrf = page
        .body
        .split("name=\"csrf\" value=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("{}: {}", page.status, page.body))
        .to_string();
    (cookie, csrf)
}

#[tokio::test]
async fn an_upload_is_checked_reviewed_then_imported_as_the_signed_in_user() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;
    let post = |fields: Vec<(&str, String)>, files: Vec<(&str, Vec<u8>)>| {
        let fields: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let files: Vec<(&str, &[u8])> = files.iter().map(|(k, v)| (*k, v.as_slice())).collect();
        let (kind, body) = multipart(&fields, &files);
        request("POST", "/upload", HERE)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, kind)
            .body(Body::from(body))
            .unwrap()
    };
    // A broken workbook (its name given with folders: only its own name is kept):
    // every diagnostic, the file named by its own name only.
    let got = send(
        &app,
        post(
            vec![("csrf", csrf.clone()), ("region", "jp".into())],
            vec![("../../monster.csv", b"id,name\nx,slime\n".to_vec())],
        ),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let review_uri = got.location.unwrap();
    let got = get_as(&app, &review_uri, &cookie).await;
    assert_eq!(got.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", got.body);
    assert!(
        got.body.contains("monster.csv") && got.body.contains("error"),
        "{}",
        got.body
    );
    assert!(
        !got.body.contains(dir.path().to_str().unwrap()),
        "a server path shown"
    );
    // Each diagnostic links to its sheet as a grid, the bad cell highlighted with why.
    let sheet = got
        .body
        .split("href=\"/review/sheet?")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .replace("&amp;", "&")
        .replace("&#38;", "&");
    let grid = get_as(&app, &format!("/review/sheet?{sheet}"), &cookie).await;
    assert_eq!(grid.status, StatusCode::OK, "{}", grid.body);
    assert!(
        grid.body
            .contains("class=\"bad\">x<span class=\"why\" translate=\"yes\">"),
        "{}",
        grid.body
    );
    let elsewhere = sheet.replace("file=monster.csv", "file=..%2F..%2Fetc%2Fpasswd");
    assert_ne!(elsewhere, sheet);
    let got = get_as(&app, &format!("/review/sheet?{elsewhere}"), &cookie).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND);

    // Fixed: the review says what changes; nothing is written yet.
    let head = |dir: &Path| {
        git2::Repository::open(dir)
            .unwrap()
            .refname_to_id("refs/heads/masters/jp")
            .unwrap()
    };
    let before = head(dir.path());
    let got = send(
        &app,
        post(
            vec![("csrf", csrf.clone()), ("region", "jp".into())],
            vec![(
                "monster.csv",
                "id,name\n1,<script>alert(1)</script>\n2,ゴーレム\n"
                    .as_bytes()
                    .to_vec(),
            )],
        ),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let review_uri = got.location.unwrap();
    let got = get_as(&app, &review_uri, &cookie).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains("Import into masters/jp?"), "{}", got.body);
    assert_eq!(head(dir.path()), before);
    let upload = review_uri
        .split("upload=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    let diff = send(
        &app,
        request(
            "GET",
            &review_uri.replace("/review?", "/review/diff?"),
            HERE,
        )
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .unwrap(),
    )
    .await;
    assert!(diff.body.contains("<ins>ゴーレ</ins>ム"), "{}", diff.body);

    // Another user's session cannot use this upload; a form without the token is refused.
    let import = |cookie: &str, csrf: &str| {
        request("POST", "/import", HERE)
            .header(header::COOKIE, cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!(
                "csrf={csrf}&upload={upload}&region=jp&message=Golem+named"
            )))
            .unwrap()
    };
    let got = send(&app, import(&cookie, "")).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN);
    let (mia, mia_csrf) = session(&app, Some("token-of-mia")).await;
    let got = send(&app, import(&mia, &mia_csrf)).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND, "{}", got.body);
    // A viewer may not import at all.
    let (viola, viola_csrf) = session(&app, Some("token-of-viola")).await;
    let got = send(&app, import(&viola, &viola_csrf)).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN);
    assert_eq!(head(dir.path()), before);

    // Imported, by the signed-in user.
    let got = send(&app, import(&cookie, &csrf)).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let repo = git2::Repository::open(dir.path()).unwrap();
    let commit = repo.find_commit(head(dir.path())).unwrap();
    assert_eq!(commit.author().name(), Ok("eddie"));
    assert_eq!(commit.summary(), Ok(Some("Golem named")));
}

/// Run a command of the store on `dir`'s repository as the CLI would: a work branch
/// `event` of jp with the monster named differently there and on jp.
fn conflicting_branch(dir: &Path) {
    let repo = masterctl_store::MasterRepo::open(dir).unwrap();
    let structure = repo.structure().unwrap();
    let jp = masterctl_store::Region::of(&structure.project, "jp").unwrap();
    let work = masterctl_store::WorkBranch::of(&jp, "event").unwrap();
    masterctl_store::branches::create(&repo, &work, None).unwrap();
    import_rows(dir, Some("event"), "1,Dragon\n2,スライム\n");
    import_rows(dir, None, "1,Wyvern\n2,スライム\n");
}

/// A copy of the repository in `dir`, where the same work is done as the command line
/// does it.
fn twin_of(dir: &Path) -> tempfile::TempDir {
    let twin = tempfile::tempdir().unwrap();
    let copied = std::process::Command::new("cp")
        .args([
            "-a",
            &format!("{}/.", dir.display()),
            twin.path().to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(copied.success());
    twin
}

#[tokio::test]
async fn a_merge_with_a_conflict_is_resolved_in_the_console_as_the_cli_would() {
    let dir = repository();
    conflicting_branch(dir.path());
    // The same, through the store as the command line drives it.
    let twin = twin_of(dir.path());
    let app = app(dir.path(), local());
    let (cookie, csrf) = session(&app, None).await;
    let target = "kind=merge&region=jp&branch=event";
    let got = get_as(&app, &format!("/join?{target}"), &cookie).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(
        got.body.contains("Wyvern") && got.body.contains("Dragon"),
        "{}",
        got.body
    );
    // In plain words, and nothing to resolve before the merge has started.
    assert!(
        got.body
            .contains("<th>our change (masters/jp)</th><th>their change (from work/jp/event)</th>"),
        "{}",
        got.body
    );
    assert!(!got.body.contains("action=\"/resolve\""), "{}", got.body);
    assert!(
        got.body.contains("Start the merge to resolve them"),
        "{}",
        got.body
    );
    // Started: it stops on the conflict; resolved with the branch's value; gone on.
    let steps = [
        "action=start",
        "side=theirs&table=monster&key=1&column=name",
        "action=start&message=Event+in",
    ];
    let got = join_steps(&app, &cookie, &csrf, target, &steps).await;
    assert!(got.location.unwrap().starts_with("/history"));

    let repo = masterctl_store::MasterRepo::open(twin.path()).unwrap();
    let structure = repo.structure().unwrap();
    let jp = masterctl_store::Region::of(&structure.project, "jp").unwrap();
    let join = masterctl_store::join::Join::Reflect(
        masterctl_store::WorkBranch::of(&jp, "event").unwrap(),
    );
    use masterctl_store::join::session::{Action, run};
    run(&repo, &structure, &join, &Action::Start, None).unwrap();
    run(
        &repo,
        &structure,
        &join,
        &Action::Resolve {
            side: masterctl_store::join::resolutions::Resolution::Theirs,
            table: Some("monster"),
            column: Some("name"),
            key: Some("1"),
        },
        None,
    )
    .unwrap();
    run(&repo, &structure, &join, &Action::Continue, None).unwrap();
    let (ours, cli) = (jp_head(dir.path()), jp_head(twin.path()));
    assert_eq!((ours.tree, ours.parents.len()), (cli.tree, 2));
}

/// A form posted by the browser holding `cookie`.
async fn post_as(app: &axum::Router, uri: &str, cookie: &str, body: String) -> Got {
    let request = request("POST", uri, HERE)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(body))
        .unwrap();
    send(app, request).await
}

/// The steps of a join (`kind=…&region=…`) posted by the browser holding `cookie`: each
/// `side=…` step a resolution, the others `action=…` on the join; each answered by a
/// redirect. The last answer.
async fn join_steps(
    app: &axum::Router,
    cookie: &str,
    csrf: &str,
    join: &str,
    steps: &[&str],
) -> Got {
    let mut last = None;
    for step in steps {
        let uri = if step.starts_with("side=") {
            "/resolve"
        } else {
            "/join"
        };
        let got = post_as(app, uri, cookie, format!("csrf={csrf}&{join}&{step}")).await;
        assert_eq!(got.status, StatusCode::SEE_OTHER, "{step}: {}", got.body);
        last = Some(got);
    }
    last.expect("a step")
}

#[tokio::test]
async fn an_editor_proposes_a_merge_and_only_a_maintainer_makes_it() {
    let dir = repository();
    conflicting_branch(dir.path());
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;
    let target = "kind=merge&region=jp&branch=event";
    let got = get_as(&app, &format!("/join?{target}"), &cookie).await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.body.contains("A maintainer merges"), "{}", got.body);
    assert!(got.body.contains("Propose this merge"), "{}", got.body);
    for (uri, body) in [
        ("/join", format!("csrf={csrf}&{target}&action=start")),
        ("/resolve", format!("csrf={csrf}&{target}&side=ours")),
    ] {
        let got = post_as(&app, uri, &cookie, body).await;
        assert_eq!(got.status, StatusCode::FORBIDDEN, "{uri}");
    }
    let got = get_as(&app, "/join?kind=merge&region=jp", &cookie).await;
    assert_eq!(got.status, StatusCode::BAD_REQUEST);

    // The editor proposes it; a viewer may not.
    let proposal = "region=jp&branch=event&action=propose&message=The+%3Cb%3Edragon%3C%2Fb%3E";
    let got = post_as(&app, "/propose", &cookie, format!("csrf={csrf}&{proposal}")).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let (viewer, viewer_csrf) = session(&app, Some("token-of-viola")).await;
    let got = post_as(
        &app,
        "/propose",
        &viewer,
        format!("csrf={viewer_csrf}&{proposal}"),
    )
    .await;
    assert_eq!(got.status, StatusCode::FORBIDDEN);
    let got = post_as(&app, "/propose", &cookie, proposal.to_string()).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN, "no CSRF token");

    // The maintainer finds it on the first page and on the merge's, its words as text.
    let (boss, boss_csrf) = session(&app, Some("token-of-mia")).await;
    let got = get_as(&app, "/", &boss).await;
    assert!(got.body.contains("Merges proposed"), "{}", got.body);
    assert!(got.body.contains("The &#60;b&#62;dragon"), "{}", got.body);
    let got = get_as(&app, &format!("/join?{target}"), &boss).await;
    assert!(got.body.contains("Proposed by eddie at "), "{}", got.body);
    // Merged, the conflict taken from the branch: the proposal is answered.
    let steps = ["action=start", "side=theirs", "action=start"];
    join_steps(&app, &boss, &boss_csrf, target, &steps).await;
    let got = get_as(&app, "/", &boss).await;
    assert!(!got.body.contains("Merges proposed"), "{}", got.body);
    let merge = jp_head(dir.path());
    assert_eq!((merge.parents.len(), merge.author.as_str()), (2, "mia"));
}

/// A repository whose monster names are texts, translated into English.
fn translated_repository() -> tempfile::TempDir {
    repository_with(
        &CONFIG.replace("languages = [\"ja\"]", "languages = [\"ja\", \"en\"]"),
        &MONSTER.replace(
            "name = \"name\"\ntype = \"string\"",
            "name = \"name\"\ntype = \"text\"",
        ),
        "1,スライム\n2,ゴーレム\n",
    )
}

#[tokio::test]
async fn translations_are_downloaded_checked_and_taken_back() {
    let dir = translated_repository();
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;
    let get = |uri: &str| {
        request("GET", uri, HERE)
            .header(header::COOKIE, &cookie)
            .body(Body::empty())
            .unwrap()
    };
    let got = send(&app, get("/translations?region=jp")).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains("<h2>en</h2>"), "{}", got.body);
    let file = app
        .clone()
        .oneshot(get("/translations/file?region=jp&lang=en&format=csv"))
        .await
        .unwrap();
    assert_eq!(file.status(), StatusCode::OK);
    assert_eq!(
        file.headers()[header::CONTENT_DISPOSITION],
        "attachment; filename=\"jp-en.csv\""
    );
    let got = send(&app, get("/translations/file?region=jp&lang=fr&format=csv")).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND);

    let upload = |name: &str, text: &str| {
        let (kind, body) = multipart(&[("csrf", csrf.as_str()), ("region", "jp")], &[]);
        // The file field is named `file` here.
        let body = String::from_utf8(body).unwrap().replace(
            "--masterctl-test-boundary--\r\n",
            &format!(
                "--masterctl-test-boundary\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\r\n{text}\r\n--masterctl-test-boundary--\r\n"
            ),
        );
        request("POST", "/translations", HERE)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, kind)
            .body(Body::from(body))
            .unwrap()
    };
    let header_line = "table,field,key,state,max_length,description,source_ja,translation_en,old_source,old_translation,problems";
    // A file in a language the region lacks: refused, with why.
    let got = send(
        &app,
        upload(
            "fr.csv",
            &format!(
                "{}\nmonster,name,1,missing,,,スライム,Gluant,,,\n",
                header_line.replace("translation_en", "translation_fr")
            ),
        ),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let got = send(&app, get(&got.location.unwrap())).await;
    assert_eq!(got.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", got.body);
    assert!(got.body.contains("fr"), "{}", got.body);
    // English for the slime: checked, then taken.
    let got = send(
        &app,
        upload(
            "en.csv",
            &format!("{header_line}\nmonster,name,1,missing,,,スライム,Slime,,,\n"),
        ),
    )
    .await;
    let check = got.location.unwrap();
    let got = send(&app, get(&check)).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains("Take en translations"), "{}", got.body);
    let in_japanese = request("GET", &check, HERE)
        .header(header::COOKIE, &cookie)
        .header(header::ACCEPT_LANGUAGE, "ja")
        .body(Body::empty())
        .unwrap();
    let got = send(&app, in_japanese).await;
    assert!(got.body.contains("en の翻訳を"), "{}", got.body);
    assert!(got.body.contains(">取り込む</button>"), "{}", got.body);
    assert!(!got.body.contains("Take them"), "{}", got.body);
    let id = check
        .split("upload=")
        .nth(1)
        .unwrap()
        .split('&')
        .next()
        .unwrap()
        .to_string();
    let got = send(
        &app,
        request("POST", "/translations/take", HERE)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .body(Body::from(format!("csrf={csrf}&upload={id}&region=jp")))
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    assert_eq!(jp_head(dir.path()).author, "eddie");
    let got = send(&app, get("/translations?region=jp")).await;
    assert!(
        got.body.contains("<td>monster</td><td>1</td><td>1</td>"),
        "{}",
        got.body
    );
    // Kept in the audit log, by who took it, in the visitor's words.
    let audit = send(&app, get("/audit")).await;
    let row = audit.body.split("<tbody>").nth(1).unwrap_or_default();
    assert!(
        row.contains("took translations into masters/jp") && row.contains("eddie"),
        "{row}"
    );
}

/// Upload one file as the browser holding `cookie`; the upload's id.
async fn upload(app: &axum::Router, cookie: &str, csrf: &str, name: &str, bytes: &[u8]) -> String {
    let (kind, body) = multipart(&[("csrf", csrf), ("region", "jp")], &[(name, bytes)]);
    let request = request("POST", "/upload", HERE)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, kind)
        .body(Body::from(body))
        .unwrap();
    let got = send(app, request).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let location = got.location.unwrap();
    let id = location.split("upload=").nth(1).unwrap();
    id.split('&').next().unwrap().to_string()
}

#[tokio::test]
async fn with_a_remote_every_write_takes_the_remote_first_and_is_pushed_after() {
    let dir = repository();
    let elsewhere = tempfile::tempdir().unwrap();
    let remote = elsewhere.path().join("masters.git");
    git(
        elsewhere.path(),
        &[
            "clone",
            "-q",
            "--bare",
            dir.path().to_str().unwrap(),
            "masters.git",
        ],
    );
    git(
        dir.path(),
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    // Another planner's clone imports a golem and pushes it first.
    let other = elsewhere.path().join("other");
    git(
        elsewhere.path(),
        &["clone", "-q", remote.to_str().unwrap(), "other"],
    );
    git(&other, &["branch", "-q", "masters/jp", "origin/masters/jp"]);
    git(&other, &["config", "user.name", "Bob"]);
    git(&other, &["config", "user.email", "bob@example.com"]);
    import_rows(
        &other,
        None,
        "1,<script>alert(1)</script>\n2,スライム\n3,Golem\n",
    );
    git(&other, &["push", "-q", "origin", "masters/jp"]);
    let theirs = jp_head(&other).id;

    // A remote the repository does not name is refused before anything is served.
    assert!(Console::with_remote(dir.path().to_path_buf(), local(), "upstream").is_err());
    let console = Console::with_remote(dir.path().to_path_buf(), local(), "origin").unwrap();
    let app = router(console);
    let (cookie, csrf) = session(&app, None).await;
    let id = upload(
        &app,
        &cookie,
        &csrf,
        "monster.csv",
        "id,name\n1,<script>alert(1)</script>\n2,スライム\n3,Golem\n4,Dragon\n".as_bytes(),
    )
    .await;
    let got = post_as(
        &app,
        "/import",
        &cookie,
        format!("csrf={csrf}&upload={id}&region=jp&message=Dragon"),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);

    // Taken first (the import sits on Bob's commit, no merge), then pushed.
    let head = jp_head(dir.path());
    assert_eq!((head.parents, head.author.as_str()), (vec![theirs], "Aiko"));
    assert_eq!(jp_head(&remote).id, head.id);
}

/// Build jp as it stands and publish it to the store at `url`.
async fn publish_jp(dir: &Path, url: &str) -> String {
    let repo = masterctl_store::MasterRepo::open(dir).unwrap();
    let out = dir.join("build");
    let built = masterctl_store::build::run(
        &repo,
        &masterctl_store::build::Request {
            region: "jp",
            branch: None,
            rev: None,
            client: false,
            pseudo: &[],
            out: &out,
        },
    )
    .unwrap();
    let remote =
        masterctl_delivery::Remote::open(url, &masterctl_delivery::RemoteOptions::default())
            .unwrap();
    masterctl_delivery::publish(&remote, &out, &Default::default(), &|_, _| {})
        .await
        .unwrap();
    built.source_commit
}

/// jp's releases on the store at `url`.
async fn releases_at(url: &str) -> Vec<masterctl_delivery::ReleaseInfo> {
    let remote =
        masterctl_delivery::Remote::open(url, &masterctl_delivery::RemoteOptions::default())
            .unwrap();
    masterctl_delivery::releases(&remote, Some("jp"))
        .await
        .unwrap()
}

/// A folder store, its `file://` address, and a repository (jp: one monster) whose
/// project publishes there.
fn with_a_store() -> (tempfile::TempDir, String, tempfile::TempDir) {
    let store = tempfile::tempdir().unwrap();
    let url = format!("file://{}", store.path().display());
    let dir = repository_with(
        &format!("{CONFIG}\n[publish]\nstore = \"{url}\"\n"),
        MONSTER,
        "1,スライム\n",
    );
    (store, url, dir)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_maintainer_makes_an_earlier_release_current_again() {
    let (store, url, dir) = with_a_store();
    let first = publish_jp(dir.path(), &url).await;
    import_rows(dir.path(), None, "1,スライム\n2,ゴーレム\n");
    let second = publish_jp(dir.path(), &url).await;
    // A project whose folder store nothing was published to yet: said so, not an error
    // (and the folder is not made by looking).
    let unborn = store.path().join("not-yet");
    let fresh = repository_with(
        &format!(
            "{CONFIG}\n[publish]\nstore = \"file://{}\"\n",
            unborn.display()
        ),
        MONSTER,
        "1,スライム\n",
    );
    let fresh = app(fresh.path(), Policy::Users(users()));
    let (viewer, _) = session(&fresh, Some("token-of-viola")).await;
    let got = get_as(&fresh, "/releases?region=jp", &viewer).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(
        got.body.contains("Nothing published for jp yet"),
        "{}",
        got.body
    );
    assert!(!unborn.exists());

    let app = app(dir.path(), Policy::Users(users()));

    // Everyone sees the releases, the newest current; only a maintainer may move it.
    let (viewer, _) = session(&app, Some("token-of-viola")).await;
    let got = get_as(&app, "/releases?region=jp", &viewer).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains(&first[..12]) && got.body.contains(&second[..12]));
    assert!(!got.body.contains("Make current"), "{}", got.body);
    let rollback = format!("region=jp&release={first}&action=rollback&reason=prices+wrong");
    let (editor, editor_csrf) = session(&app, Some("token-of-eddie")).await;
    let got = post_as(
        &app,
        "/releases",
        &editor,
        format!("csrf={editor_csrf}&{rollback}"),
    )
    .await;
    assert_eq!(got.status, StatusCode::FORBIDDEN);
    let (boss, csrf) = session(&app, Some("token-of-mia")).await;
    let got = post_as(&app, "/releases", &boss, rollback.clone()).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN, "no CSRF token");
    let got = post_as(
        &app,
        "/releases",
        &boss,
        format!("csrf={csrf}&region=jp&release=0000000&action=rollback&reason=x"),
    )
    .await;
    assert_eq!(got.status, StatusCode::NOT_FOUND, "{}", got.body);

    // Never in one click: the maintainer's page links to a confirmation that shows
    // what is served now and after, and asks why; a rollback without a reason moves
    // nothing.
    let got = get_as(&app, "/releases?region=jp", &boss).await;
    let confirm = got
        .body
        .split("href=\"/releases/rollback?")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .replace("&amp;", "&");
    assert!(confirm.contains(&first), "{confirm}");
    let page = get_as(&app, &format!("/releases/rollback?{confirm}"), &boss).await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("served now") && page.body.contains("served after"));
    assert!(
        page.body.contains("name=\"reason\" required"),
        "{}",
        page.body
    );
    let viewing = get_as(&app, &format!("/releases/rollback?{confirm}"), &viewer).await;
    assert_eq!(viewing.status, StatusCode::FORBIDDEN);
    let got = post_as(
        &app,
        "/releases",
        &boss,
        format!("csrf={csrf}&region=jp&release={first}&action=rollback&reason=+"),
    )
    .await;
    assert_eq!(got.status, StatusCode::BAD_REQUEST, "{}", got.body);
    assert!(got.body.contains("needs a reason"), "{}", got.body);

    let got = post_as(&app, "/releases", &boss, format!("csrf={csrf}&{rollback}")).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let done = got.location.unwrap();
    assert_eq!(done, "/releases?region=jp&done=rolled-back");
    let got = get_as(&app, &done, &boss).await;
    assert!(
        got.body.contains("Rolled back: jp now serves release"),
        "{}",
        got.body
    );
    let current = got.body.split("class=\"current\"").nth(1).unwrap();
    assert!(current.contains(&first[..12]), "{}", got.body);
    assert!(
        current.contains("mia &#60;mia@example.com&#62;"),
        "who: {current}"
    );
    assert!(current.contains("prices wrong"), "why: {current}");
    let listed = releases_at(&url).await;
    let current: Vec<&str> = listed
        .iter()
        .filter(|r| r.current)
        .map(|r| r.release.as_str())
        .collect();
    assert_eq!(current, [first.as_str()]);

    // A project that names no store says how to name one.
    let plain = repository();
    let elsewhere = router(Console::new(plain.path().to_path_buf(), local()));
    let got = get_as(&elsewhere, "/releases?region=jp", "").await;
    assert!(got.body.contains("[publish] store"), "{}", got.body);
}

#[tokio::test]
async fn pages_carry_a_policy_that_runs_only_the_console_s_own_script() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    // The script is everyone's (the sign-in page uses it); the pages are not.
    let got = send(
        &app,
        request("GET", "/assets/console.js", HERE)
            .body(Body::empty())
            .unwrap(),
    )
    .await;
    assert_eq!(got.status, StatusCode::OK);
    assert!(got.body.contains("data-drop"));
    let (cookie, _) = session(&app, Some("token-of-eddie")).await;
    let policy = |got: &Got| {
        got.headers[header::CONTENT_SECURITY_POLICY]
            .to_str()
            .unwrap()
            .to_string()
    };
    let got = get_as(&app, "/", &cookie).await;
    assert!(
        policy(&got).contains("script-src 'self';"),
        "{}",
        policy(&got)
    );
    assert!(policy(&got).contains("frame-ancestors 'none'"));
    assert_eq!(got.headers[header::X_CONTENT_TYPE_OPTIONS], "nosniff");

    // A commit's review page runs its own inline script, named by its hash, and no other.
    let got = get_as(
        &app,
        &format!("/commit?id={}", jp_head(dir.path()).id),
        &cookie,
    )
    .await;
    let script = got
        .body
        .split("<script>")
        .nth(1)
        .unwrap()
        .split("</script>")
        .next()
        .unwrap();
    use base64::Engine;
    use sha2::Digest;
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script));
    let policy = policy(&got);
    assert!(policy.contains(&format!("'sha256-{hash}'")), "{policy}");
    assert_eq!(policy.matches("'sha256-").count(), 1, "{policy}");

    // A value typed to resolve a conflict is checked by the column's own parser.
    let check =
        |value: &str| format!("/check-value?region=jp&table=monster&column=id&value={value}");
    assert_eq!(
        get_as(&app, &check("12"), &cookie).await.status,
        StatusCode::OK
    );
    let got = get_as(&app, &check("twelve"), &cookie).await;
    assert_eq!(got.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(got.body.contains("not a whole number"), "{}", got.body);
    let (viewer, _) = session(&app, Some("token-of-viola")).await;
    assert_eq!(
        get_as(&app, &check("12"), &viewer).await.status,
        StatusCode::FORBIDDEN
    );
}

/// An xlsx whose sheet unpacks past what a workbook part may hold (a few hundred
/// kilobytes on the wire).
fn bomb() -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(1))
        .large_file(true);
    zip.start_file("xl/workbook.xml", options).unwrap();
    zip.write_all(b"<workbook/>").unwrap();
    zip.start_file("xl/worksheets/sheet1.xml", options).unwrap();
    let spaces = vec![b' '; 1 << 20];
    let times = (masterctl_schemas::read::workbook::MAX_PART_BYTES >> 20) + 1;
    for _ in 0..times {
        zip.write_all(&spaces).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[tokio::test]
async fn oversized_uploads_and_bombs_are_refused_saying_what_and_why() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;
    let post = |fields: &[(&str, &str)], files: &[(&str, &[u8])]| {
        let (kind, body) = multipart(fields, files);
        request("POST", "/upload", HERE)
            .header(header::COOKIE, &cookie)
            .header(header::CONTENT_TYPE, kind)
            .body(Body::from(body))
            .unwrap()
    };
    let fields = [("csrf", csrf.as_str()), ("region", "jp")];
    // A form without its token writes nothing.
    let got = send(&app, post(&[("region", "jp")], &[("monster.csv", b"id\n")])).await;
    assert_eq!(got.status, StatusCode::FORBIDDEN);
    let uploads = dir.path().join(".git/masterctl/console/uploads");
    assert!(!uploads.exists(), "nothing staged for a forged form");
    // One file past the limit: refused as it arrives, the file named.
    let large = vec![b'a'; (masterctl_console::FILE_LIMIT + 1) as usize];
    let got = send(&app, post(&fields, &[("monster.csv", &large)])).await;
    assert_eq!(got.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        got.body.contains("`monster.csv` is larger than 64 MiB"),
        "{}",
        got.body
    );
    drop(large);
    // Too many files; a form field longer than any the form sends.
    let names: Vec<String> = (0..=500).map(|i| format!("t{i}.csv")).collect();
    let many: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"id\n"[..])).collect();
    let got = send(&app, post(&fields, &many)).await;
    assert_eq!(got.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(got.body.contains("more than 500 files"), "{}", got.body);
    let long = "x".repeat(5000);
    let got = send(&app, post(&[("csrf", &long)], &[("monster.csv", b"id\n")])).await;
    assert_eq!(got.status, StatusCode::PAYLOAD_TOO_LARGE);
    // Refused uploads leave nothing behind.
    let left: Vec<_> = std::fs::read_dir(&uploads)
        .unwrap()
        .flatten()
        .flat_map(|user| std::fs::read_dir(user.path()).unwrap().flatten())
        .collect();
    assert!(left.is_empty(), "{left:?}");

    // A workbook that would unpack to hundreds of megabytes: kept (it is small), and its
    // review says why it is not read, naming the file — nothing unpacked.
    let got = send(&app, post(&fields, &[("monster.xlsx", &bomb())])).await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let got = get_as(&app, &got.location.unwrap(), &cookie).await;
    assert_eq!(got.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", got.body);
    assert!(got.body.contains("monster.xlsx"), "{}", got.body);
    assert!(got.body.contains("more than the 192 MiB"), "{}", got.body);
}

/// A repository of `tables` tables of 20 monsters each (names translated into
/// English for the first), region global following jp.
fn many_tables(tables: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let git = git2::Repository::init(dir.path()).unwrap();
    let mut settings = git.config().unwrap();
    settings.set_str("user.name", "Aiko").unwrap();
    settings.set_str("user.email", "aiko@example.com").unwrap();
    let config = format!(
        "{}\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\n",
        CONFIG.replace("languages = [\"ja\"]", "languages = [\"ja\", \"en\"]")
    );
    let mut files = vec![("masterctl.toml".to_string(), config.into_bytes())];
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    for t in 0..tables {
        let schema = MONSTER
            .replace("name = \"monster\"", &format!("name = \"t{t:03}\""))
            .replace(
                "name = \"name\"\ntype = \"string\"",
                "name = \"name\"\ntype = \"text\"",
            );
        files.push((format!("schemas/t{t:03}.toml"), schema.into_bytes()));
        let rows: String = (1..=20).map(|i| format!("{i},名前{t}-{i}\n")).collect();
        std::fs::write(
            data.join(format!("t{t:03}.csv")),
            format!("id,name\n{rows}"),
        )
        .unwrap();
    }
    masterctl_store::init::init(dir.path(), &files, None).unwrap();
    import_path(dir.path(), None, &data);
    std::fs::remove_dir_all(&data).unwrap();
    let repo = masterctl_store::MasterRepo::open(dir.path()).unwrap();
    let structure = repo.structure().unwrap();
    let global = masterctl_store::Region::of(&structure.project, "global").unwrap();
    masterctl_store::join::session::run(
        &repo,
        &structure,
        &masterctl_store::join::Join::Rebase(global),
        &masterctl_store::join::session::Action::Start,
        None,
    )
    .unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn twenty_browsers_at_once_on_500_tables_get_every_page() {
    let dir = many_tables(500);
    let app = app(dir.path(), local());
    let head = jp_head(dir.path()).id;
    let pages: Vec<(String, &str)> = vec![
        ("/".into(), "masters/jp"),
        ("/history?region=jp".into(), "Import into jp"),
        (format!("/commit?id={head}"), "t042"),
        ("/blame?region=jp&table=t042&key=7".into(), "名前42-7"),
        ("/translations?region=jp".into(), "t123"),
        (
            "/join?kind=rebase&region=global".into(),
            "already has everything",
        ),
        ("/import?region=jp".into(), "Import into masters/jp"),
        ("/history?region=global".into(), "Start global"),
        (
            "/translations/file?region=jp&lang=en&format=po".into(),
            "名前7-3",
        ),
        ("/".into(), "masters/global"),
    ];
    let browsers: Vec<_> = (0..20)
        .map(|_| {
            let (app, pages) = (app.clone(), pages.clone());
            tokio::spawn(async move {
                let (cookie, _) = session(&app, None).await;
                let mut answered = Vec::new();
                for (page, shows) in &pages {
                    let got = get_as(&app, page, &cookie).await;
                    answered.push((page.clone(), got.status, got.body.contains(shows)));
                }
                answered
            })
        })
        .collect();
    let mut answers = 0;
    for browser in browsers {
        for (page, status, shows) in browser.await.unwrap() {
            assert_eq!(status, StatusCode::OK, "{page}");
            assert!(shows, "{page} does not show what it should");
            answers += 1;
        }
    }
    assert_eq!(answers, 20 * pages.len());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_planners_importing_at_once_lose_nothing() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    let [eddie, mia] = two_planners_uploads(&app, dir.path()).await;
    let import = |(cookie, csrf, id): Planner| {
        let app = app.clone();
        tokio::spawn(async move {
            post_as(
                &app,
                "/import",
                &cookie,
                format!("csrf={csrf}&upload={id}&region=jp"),
            )
            .await
        })
    };
    let (a, b) = tokio::join!(import(eddie.clone()), import(mia.clone()));
    let mut landed = 0;
    for (got, (cookie, _, id)) in [(a.unwrap(), &eddie), (b.unwrap(), &mia)] {
        match got.status {
            StatusCode::SEE_OTHER => landed += 1,
            // The one that lost is told, and its upload is kept to review again.
            StatusCode::CONFLICT => {
                assert!(got.body.contains("your upload is kept"), "{}", got.body);
                let again = get_as(&app, &format!("/review?upload={id}&region=jp"), cookie).await;
                assert_eq!(again.status, StatusCode::OK, "{}", again.body);
            }
            other => panic!("{other}: {}", got.body),
        }
    }
    assert!(landed >= 1);
    // Whatever landed is all there: with both, the renamed slime and the golem.
    if landed == 2 {
        assert_eq!(monster_names(dir.path()), ["キングスライム", "ゴーレム"]);
    }
}

/// The same two exports imported one after the other, in either order: the second is
/// merged onto what the first brought (a row the first added, which the second's
/// workbook never had, stays: it was lost when the first had added rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_planners_importing_one_after_the_other_lose_nothing() {
    for eddie_first in [true, false] {
        let dir = repository();
        let app = app(dir.path(), Policy::Users(users()));
        let mut planners = two_planners_uploads(&app, dir.path()).await;
        if !eddie_first {
            planners.reverse();
        }
        for (cookie, csrf, id) in planners {
            let body = format!("csrf={csrf}&upload={id}&region=jp");
            let got = post_as(&app, "/import", &cookie, body).await;
            assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
        }
        let names = monster_names(dir.path());
        assert_eq!(
            names,
            ["キングスライム", "ゴーレム"],
            "eddie first: {eddie_first}"
        );
    }
}

/// A signed-in planner's cookie, CSRF token and upload.
type Planner = (String, String, String);

/// Eddie and Mia, each with an upload of the masters as exported (the export's mark
/// names the commit they start from): Eddie renames the slime, Mia adds a golem.
async fn two_planners_uploads(app: &axum::Router, dir: &Path) -> [Planner; 2] {
    let head = jp_head(dir).id;
    let export = |rows: &str| format!("id,name\n#masterctl-commit {head} jp,\n{rows}");
    let ours = export("1,<script>alert(1)</script>\n2,キングスライム\n");
    let theirs = export("1,<script>alert(1)</script>\n2,スライム\n3,ゴーレム\n");
    let mut planners = Vec::new();
    for (token, csv) in [("token-of-eddie", ours), ("token-of-mia", theirs)] {
        let (cookie, csrf) = session(app, Some(token)).await;
        let id = upload(app, &cookie, &csrf, "monster.csv", csv.as_bytes()).await;
        planners.push((cookie, csrf, id));
    }
    planners.try_into().unwrap()
}

/// The names of monsters 2 and 3 on jp's branch, those it has (each through blame).
fn monster_names(dir: &Path) -> Vec<String> {
    let repo = masterctl_store::MasterRepo::open(dir).unwrap();
    let line = masterctl_store::Branch::from(
        masterctl_store::Region::of(&repo.structure().unwrap().project, "jp").unwrap(),
    );
    ["2", "3"]
        .iter()
        .filter_map(|key| {
            masterctl_store::review::blame::blame(
                &repo,
                &line,
                "monster",
                &[key.to_string()],
                Some("name"),
            )
            .ok()
            .map(|b| b.cells[0].value.clone())
        })
        .collect()
}

/// A branch's tree in the repository at `dir`.
fn tree_of(dir: &Path, branch: &str) -> git2::Oid {
    git2::Repository::open(dir)
        .unwrap()
        .find_reference(&format!("refs/heads/{branch}"))
        .unwrap()
        .peel_to_commit()
        .unwrap()
        .tree_id()
}

#[tokio::test]
async fn an_import_and_a_rebase_resolved_in_the_console_make_the_cli_s_trees() {
    let config =
        format!("{CONFIG}\n[regions.global]\nbranch = \"masters/global\"\nupstream = \"jp\"\n");
    let dir = repository_with(&config, MONSTER, "1,スライム\n2,ゴーレム\n");
    let twin = twin_of(dir.path());
    let app = app(dir.path(), local());
    let (cookie, csrf) = session(&app, None).await;
    let csv = twin.path().join("monster.csv");
    let write = |rows: &str| std::fs::write(&csv, format!("id,name\n{rows}")).unwrap();

    // An import: uploaded, reviewed, imported; and the same file imported as the CLI does.
    let rows = "1,スライム\n2,ゴーレム\n3,ドラゴン\n";
    let id = upload(
        &app,
        &cookie,
        &csrf,
        "monster.csv",
        format!("id,name\n{rows}").as_bytes(),
    )
    .await;
    let got = post_as(
        &app,
        "/import",
        &cookie,
        format!("csrf={csrf}&upload={id}&region=jp"),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    write(rows);
    import_into(twin.path(), "jp", None, &csv);
    assert_eq!(
        tree_of(dir.path(), "masters/jp"),
        tree_of(twin.path(), "masters/jp")
    );

    // Global starts from jp, then both change the golem: the rebase stops on it and a
    // value of its own is typed.
    let rebase = "kind=rebase&region=global";
    let got = post_as(
        &app,
        "/join",
        &cookie,
        format!("csrf={csrf}&{rebase}&action=start"),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let (repo, structure) = {
        let repo = masterctl_store::MasterRepo::open(twin.path()).unwrap();
        let structure = repo.structure().unwrap();
        (repo, structure)
    };
    let global = masterctl_store::join::Join::Rebase(
        masterctl_store::Region::of(&structure.project, "global").unwrap(),
    );
    use masterctl_store::join::session::{Action, run};
    run(&repo, &structure, &global, &Action::Start, None).unwrap();
    for (region, rows) in [
        ("global", "1,スライム\n2,ゴーレム改\n3,ドラゴン\n"),
        ("jp", "1,スライム\n2,ゴーレムII\n3,ドラゴン\n"),
    ] {
        write(rows);
        import_into(dir.path(), region, None, &csv);
        import_into(twin.path(), region, None, &csv);
    }
    let steps = [
        "action=start",
        "side=value&value=ゴーレムZ&table=monster&key=2&column=name",
        "action=start&message=Golem+settled",
    ];
    join_steps(&app, &cookie, &csrf, rebase, &steps).await;
    run(&repo, &structure, &global, &Action::Start, None).unwrap();
    run(
        &repo,
        &structure,
        &global,
        &Action::Resolve {
            side: masterctl_store::join::resolutions::Resolution::Value("ゴーレムZ".into()),
            table: Some("monster"),
            column: Some("name"),
            key: Some("2"),
        },
        None,
    )
    .unwrap();
    run(&repo, &structure, &global, &Action::Continue, None).unwrap();
    assert_eq!(
        tree_of(dir.path(), "masters/global"),
        tree_of(twin.path(), "masters/global")
    );
    let ours = masterctl_store::review::blame::blame(
        &masterctl_store::MasterRepo::open(dir.path()).unwrap(),
        &masterctl_store::Branch::from(
            masterctl_store::Region::of(&structure.project, "global").unwrap(),
        ),
        "monster",
        &["2".to_string()],
        Some("name"),
    )
    .unwrap();
    assert_eq!(ours.cells[0].value, "ゴーレムZ");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_long_write_shows_the_work_under_way_then_where_it_led() {
    let dir = many_tables(300);
    // jp renames every first monster: global's rebase takes 300 tables.
    let data = dir.path().join("renamed");
    std::fs::create_dir(&data).unwrap();
    for t in 0..300 {
        let rows: String = (1..=20)
            .map(|i| format!("{i},{}{t}-{i}\n", if i == 1 { "新" } else { "名前" }))
            .collect();
        std::fs::write(
            data.join(format!("t{t:03}.csv")),
            format!("id,name\n{rows}"),
        )
        .unwrap();
    }
    import_path(dir.path(), None, &data);
    // A console that shows work under way at once.
    let console = Console::with_patience(
        dir.path().to_path_buf(),
        Policy::Users(users()),
        std::time::Duration::ZERO,
    );
    let app = router(console);
    let (mia, csrf) = session(&app, Some("token-of-mia")).await;
    let got = post_as(
        &app,
        "/join",
        &mia,
        format!("csrf={csrf}&kind=rebase&region=global&action=start"),
    )
    .await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let mut location = got.location.unwrap();
    // Quick or not, the browser ends on global's history; while it runs, the page of the
    // work under way (no other user sees it).
    let mut pages_while_working = 0;
    while let Some(job) = location.strip_prefix("/working?job=") {
        let (eddie, _) = session(&app, Some("token-of-eddie")).await;
        let other = get_as(&app, &format!("/working?job={job}"), &eddie).await;
        assert_eq!(other.status, StatusCode::NOT_FOUND);
        let got = get_as(&app, &location, &mia).await;
        match got.status {
            StatusCode::OK => {
                assert!(got.body.contains("http-equiv=\"refresh\""), "{}", got.body);
                pages_while_working += 1;
            }
            StatusCode::SEE_OTHER => location = got.location.unwrap(),
            other => panic!("{other}: {}", got.body),
        }
    }
    assert_eq!(location, "/history?region=global&done=rebase");
    let done = get_as(&app, &location, &mia).await;
    assert!(
        done.body.contains("Rebased: the newest commit"),
        "{}",
        done.body
    );
    assert!(
        pages_while_working > 0,
        "the work was never shown under way"
    );
    let got = get_as(&app, "/working?job=0123456789abcdef01234567", &mia).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND);
    let git = git2::Repository::open(dir.path()).unwrap();
    let global = git
        .revparse_single("masters/global")
        .unwrap()
        .peel_to_commit()
        .unwrap();
    let subject = global
        .summary()
        .ok()
        .flatten()
        .unwrap_or_default()
        .to_string();
    assert!(subject.starts_with("Rebase global onto jp"), "{subject}");
}

#[tokio::test]
async fn a_viewer_writes_nothing_and_an_editor_never_what_a_maintainer_does() {
    let dir = repository();
    conflicting_branch(dir.path());
    let app = app(dir.path(), Policy::Users(users()));
    let forms = [
        ("/import", "upload=0123456789abcdef01234567&region=jp"),
        ("/join", "kind=merge&region=jp&branch=event&action=start"),
        ("/resolve", "kind=merge&region=jp&branch=event&side=ours"),
        ("/propose", "region=jp&branch=event&action=propose"),
        (
            "/translations/take",
            "upload=0123456789abcdef01234567&region=jp",
        ),
        ("/releases", "region=jp&release=0000000&action=rollback"),
    ];
    let maintainers = ["/join", "/resolve", "/releases"];
    for (token, refused) in [
        (
            "token-of-viola",
            forms.iter().map(|(uri, _)| *uri).collect::<Vec<_>>(),
        ),
        ("token-of-eddie", maintainers.to_vec()),
    ] {
        let (cookie, csrf) = session(&app, Some(token)).await;
        for (uri, body) in forms.iter().filter(|(uri, _)| refused.contains(uri)) {
            let got = post_as(&app, uri, &cookie, format!("csrf={csrf}&{body}")).await;
            assert_eq!(got.status, StatusCode::FORBIDDEN, "{token} {uri}");
        }
        // The upload forms: a viewer's refused before anything is written; an editor's
        // taken (or, here, found to hold no exchange file).
        for uri in ["/upload", "/translations"] {
            let (kind, body) = multipart(
                &[("csrf", &csrf), ("region", "jp")],
                &[("monster.csv", b"x")],
            );
            let got = send(
                &app,
                request("POST", uri, HERE)
                    .header(header::COOKIE, &cookie)
                    .header(header::CONTENT_TYPE, kind)
                    .body(Body::from(body))
                    .unwrap(),
            )
            .await;
            let forbidden = got.status == StatusCode::FORBIDDEN;
            assert_eq!(
                forbidden,
                token == "token-of-viola",
                "{token} {uri}: {}",
                got.body
            );
        }
    }
    // Nothing moved.
    let merge = jp_head(dir.path());
    assert_eq!(merge.parents.len(), 1);
}

/// What a connection reads until the server closes it (or 5 s pass: then `None`).
async fn read_to_close(stream: &mut tokio::net::TcpStream) -> Option<String> {
    use tokio::io::AsyncReadExt;
    let mut got = Vec::new();
    let read = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        stream.read_to_end(&mut got),
    )
    .await;
    match read {
        Ok(_) => Some(String::from_utf8_lossy(&got).into_owned()),
        Err(_) => None,
    }
}

#[tokio::test]
async fn clients_that_never_finish_are_cut_off_and_never_starve_a_planner() {
    use tokio::io::AsyncWriteExt;
    let dir = repository();
    let limits = masterctl_console::Limits {
        header_timeout: std::time::Duration::from_millis(300),
        body_idle: std::time::Duration::from_millis(300),
        per_address: 4,
        total: 6,
    };
    let bound = masterctl_console::bind(masterctl_console::Options {
        repo: dir.path().to_path_buf(),
        listen: "127.0.0.1:0".parse().unwrap(),
        policy: local(),
        remote: None,
        hosts: masterctl_console::AllowedHosts::default(),
        limits,
    })
    .await
    .unwrap();
    let address = bound.address().unwrap();
    tokio::spawn(bound.run());
    let connect = || tokio::net::TcpStream::connect(address);
    // Headers that never finish, as many as one address may hold.
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut stream = connect().await.unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n")
            .await
            .unwrap();
        slow.push(stream);
    }
    // The fifth from that address is closed before it is read.
    let mut fifth = connect().await.unwrap();
    let _ = fifth
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .await;
    let said = read_to_close(&mut fifth).await.expect("closed");
    assert!(!said.contains("200 OK"), "{said}");
    // Each slow one is cut off by the header timeout, unanswered or answered 408.
    for stream in &mut slow {
        let said = read_to_close(stream)
            .await
            .expect("cut off by the header timeout");
        assert!(said.is_empty() || said.contains("408"), "{said}");
    }
    // A body that stalls is cut off too.
    let mut stalled = connect().await.unwrap();
    stalled
        .write_all(b"POST /login HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\ntoken=abc")
        .await
        .unwrap();
    let said = read_to_close(&mut stalled)
        .await
        .expect("cut off by the body timeout");
    assert!(!said.contains("200 OK"), "{said}");
    // And a planner is served.
    let mut planner = connect().await.unwrap();
    planner
        .write_all(b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let said = read_to_close(&mut planner).await.expect("answered");
    assert!(said.starts_with("HTTP/1.1 200"), "{said}");
    assert!(said.contains("masters/jp"), "{said}");
}

/// Every mistake of a large upload is shown where it is: the review links each to
/// the grid's window holding its row (a mistake at line 2,500 as well as one at line
/// 3), the grid lists every row with mistakes to jump to, and pages on through the
/// sheet with its header kept above.
#[tokio::test]
async fn every_mistake_of_a_large_sheet_is_one_click_from_the_review() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;
    let mut csv = String::from("id,name\n");
    for id in 1..=3000 {
        match id {
            2 | 2499 => csv.push_str(&format!("x{id},slime\n")),
            _ => csv.push_str(&format!("{id},slime\n")),
        }
    }
    let id = upload(&app, &cookie, &csrf, "monster.csv", csv.as_bytes()).await;
    let review = get_as(&app, &format!("/review?upload={id}&region=jp"), &cookie).await;
    assert_eq!(review.status, StatusCode::UNPROCESSABLE_ENTITY);
    let links: Vec<String> = review
        .body
        .split("href=\"/review/sheet?")
        .skip(1)
        .map(|rest| {
            let link = rest.split('"').next().unwrap();
            link.replace("&amp;", "&").replace("&#38;", "&")
        })
        .collect();
    assert_eq!(links.len(), 2, "{}", review.body);
    assert!(links[0].ends_with("&at=3#r3"), "{links:?}");
    assert!(links[1].ends_with("&at=2500#r2500"), "{links:?}");
    let grid = get_as(&app, &format!("/review/sheet?{}", links[1]), &cookie).await;
    assert_eq!(grid.status, StatusCode::OK, "{}", grid.body);
    let body = &grid.body;
    assert!(
        body.contains("<tr id=\"r2500\" class=\"at\"><th class=\"row\">2500</th><td dir=\"auto\" translate=\"no\" class=\"bad\">x2499<span class=\"why\" translate=\"yes\">"),
        "the asked row, marked, its bad cell with why: {body}"
    );
    assert!(
        body.contains(
            "<tr class=\"header\"><th class=\"row\">1</th><td dir=\"auto\" translate=\"no\">id</td>"
        ),
        "the header kept above the window"
    );
    assert!(!body.contains("id=\"r3\""), "one window at a time");
    assert!(body.contains("of the sheet&#39;s 3001"), "{body}");
    for row in [3, 2500] {
        assert!(
            body.contains(&format!("&amp;at={row}#r{row}\">{row}</a>")),
            "row {row} listed to jump to"
        );
    }
    let earlier = body
        .split("&amp;from=")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap();
    let base = links[1].split("&at=").next().unwrap();
    let first = get_as(
        &app,
        &format!("/review/sheet?{base}&from={earlier}"),
        &cookie,
    )
    .await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.body.contains("id=\"r2480\""), "{}", first.body);
}

/// The current masters in the browser: the branch's tables, one table searched,
/// filtered and sorted, a row and a cell by a stable address, a row one click from its
/// blame.
#[tokio::test]
async fn a_planner_browses_a_branchs_tables_by_addresses_a_colleague_can_open() {
    let dir = repository_with(
        CONFIG,
        MONSTER,
        "1,スライム\n2,ゴーレム\n3,ドラゴン\n4,スライムベス\n",
    );
    let app = app(dir.path(), local());
    let get = |uri: &str| {
        let app = app.clone();
        let uri = uri.to_string();
        async move {
            send(
                &app,
                request("GET", &uri, HERE).body(Body::empty()).unwrap(),
            )
            .await
        }
    };
    let got = get("/history?region=jp").await;
    assert!(
        got.body.contains("href=\"/tables?region=jp\""),
        "{}",
        got.body
    );
    let got = get("/tables?region=jp").await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(
        got.body.contains("table=monster\">monster</a>"),
        "{}",
        got.body
    );

    let got = get(
        "/table?region=jp&table=monster&f.name=%E3%82%B9%E3%83%A9%E3%82%A4%E3%83%A0&sort=id&desc=1",
    )
    .await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    let ids: Vec<&str> = got
        .body
        .split("title=\"A link to this row\">")
        .skip(1)
        .map(|rest| rest.split('<').next().unwrap())
        .collect();
    assert_eq!(ids, ["1", "2"], "positions of the two slimes");
    assert!(
        got.body.contains("Rows 1–2 of 2 matching, of 4"),
        "{}",
        got.body
    );
    assert!(
        got.body.find("スライムベス").unwrap()
            < got
                .body
                .find("<td dir=\"auto\" translate=\"no\">スライム</td>")
                .unwrap(),
        "by id, descending"
    );
    assert!(
        got.body.contains("value=\"スライム\""),
        "the filter kept in its box"
    );

    // A cell's address: its row marked, the cell too; its blame one click away.
    let got = get("/table?region=jp&table=monster&key=3&field=name").await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(
        got.body.contains("<tr class=\"at\" id=\"row\">"),
        "{}",
        got.body
    );
    assert!(
        got.body.contains("class=\"at\" id=\"cell\">ドラゴン</td>"),
        "{}",
        got.body
    );
    assert!(
        got.body
            .contains("href=\"/blame?region=jp&amp;table=monster&amp;key=3\"")
    );
    let got = get("/blame?region=jp&table=monster&key=3").await;
    assert_eq!(got.status, StatusCode::OK);
}

/// A history page starts at a commit the address names (the link to older commits),
/// and refuses one of another history.
#[tokio::test]
async fn a_history_page_starts_where_its_address_says() {
    let dir = repository();
    import_rows(dir.path(), None, "1,スライム\n");
    let app = app(dir.path(), local());
    let get = |uri: String| {
        let app = app.clone();
        async move {
            send(
                &app,
                request("GET", &uri, HERE).body(Body::empty()).unwrap(),
            )
            .await
        }
    };
    let git = git2::Repository::open(dir.path()).unwrap();
    let head = git.refname_to_id("refs/heads/masters/jp").unwrap();
    let first = git.find_commit(head).unwrap().parent_id(0).unwrap();
    let got = get("/history?region=jp".into()).await;
    assert!(got.body.contains(&head.to_string()[..12]), "{}", got.body);
    assert!(!got.body.contains("Older commits"), "two commits: one page");
    let got = get(format!("/history?region=jp&from={first}")).await;
    assert_eq!(got.status, StatusCode::OK, "{}", got.body);
    assert!(got.body.contains(&first.to_string()[..12]));
    assert!(!got.body.contains(&head.to_string()[..12]), "{}", got.body);
    assert!(got.body.contains("The newest"), "{}", got.body);
    let main = git.refname_to_id("refs/heads/main").unwrap();
    let got = get(format!("/history?region=jp&from={main}")).await;
    assert_eq!(got.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", got.body);
    let got = get("/history?region=jp&from=HEAD~1".into()).await;
    assert_eq!(got.status, StatusCode::NOT_FOUND, "{}", got.body);
}

/// Undo from the history: an editor reviews what taking a commit back changes, takes
/// it back as a new commit authored by them, and is told so; a commit a later one built
/// on is refused with the cell named; the branch's first commit offers no undo; a
/// viewer takes nothing back.
#[tokio::test]
async fn an_editor_takes_a_commit_back_from_the_history() {
    let dir = repository();
    import_rows(
        dir.path(),
        None,
        "1,<script>alert(1)</script>\n2,ゴーレム\n",
    );
    let git = git2::Repository::open(dir.path()).unwrap();
    let jp = |git: &git2::Repository| git.refname_to_id("refs/heads/masters/jp").unwrap();
    let renamed = jp(&git);
    let first = git.find_commit(renamed).unwrap().parent_id(0).unwrap();
    let app = app(dir.path(), Policy::Users(users()));
    let (cookie, csrf) = session(&app, Some("token-of-eddie")).await;

    let history = get_as(&app, "/history?region=jp", &cookie).await;
    assert_eq!(
        history.body.matches("class=\"undo\"").count(),
        1,
        "{}",
        history.body
    );
    let page = get_as(
        &app,
        &format!("/revert?region=jp&commit={renamed}"),
        &cookie,
    )
    .await;
    assert_eq!(page.status, StatusCode::OK, "{}", page.body);
    assert!(page.body.contains("Take it back"), "{}", page.body);
    assert!(
        page.body
            .contains("<td>monster</td><td>0</td><td>0</td><td>1</td>"),
        "{}",
        page.body
    );
    let cells = get_as(
        &app,
        &format!("/revert/diff?region=jp&commit={renamed}"),
        &cookie,
    )
    .await;
    assert_eq!(cells.status, StatusCode::OK);
    assert!(cells.body.contains("Taking back"), "{}", cells.body);
    assert_eq!(jp(&git), renamed, "a review writes nothing");

    // A viewer may not.
    let (viewer, viewer_csrf) = session(&app, Some("token-of-viola")).await;
    let refused = post_as(
        &app,
        "/revert",
        &viewer,
        format!("csrf={viewer_csrf}&region=jp&commit={renamed}"),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    let done = post_as(
        &app,
        "/revert",
        &cookie,
        format!("csrf={csrf}&region=jp&commit={renamed}&message=wrong+name"),
    )
    .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    let location = done.location.unwrap();
    assert_eq!(location, "/history?region=jp&done=reverted");
    let reverted = git.find_commit(jp(&git)).unwrap();
    assert_eq!(reverted.parent_id(0).unwrap(), renamed);
    assert_eq!(
        reverted.tree_id(),
        git.find_commit(first).unwrap().tree_id()
    );
    assert_eq!(reverted.author().name().unwrap(), "eddie");
    assert_eq!(reverted.summary().unwrap(), Some("wrong name"));
    let history = get_as(&app, &location, &cookie).await;
    assert!(
        history.body.contains("The commit was taken back"),
        "{}",
        history.body
    );

    // A later import renames monster 2 again: taking the rename back would lose that,
    // and the cell is named.
    import_rows(dir.path(), None, "1,スライム\n2,ゴーレムキング\n");
    let rename = jp(&git);
    let built_on = get_as(
        &app,
        &format!("/revert?region=jp&commit={renamed}"),
        &cookie,
    )
    .await;
    assert_eq!(
        built_on.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        built_on.body
    );
    assert!(
        built_on.body.contains("cannot be taken back"),
        "{}",
        built_on.body
    );
    assert!(
        built_on.body.contains("table=monster&amp;key=2#row"),
        "{}",
        built_on.body
    );
    assert_eq!(jp(&git), rename);
    let first_page = get_as(&app, &format!("/revert?region=jp&commit={first}"), &cookie).await;
    assert_eq!(first_page.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        first_page.body.contains("nothing before it"),
        "{}",
        first_page.body
    );
}

/// jp's monsters, as its canonical file holds them.
fn monsters_on_jp(dir: &Path) -> String {
    let out = std::process::Command::new("git")
        .args(["show", "masters/jp:tables/monster.csv"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

/// `name=value&…` with every value percent-encoded.
fn form(pairs: &[(&str, &str)]) -> String {
    (pairs.iter())
        .map(|(name, value)| format!("{name}={}", percent(value)))
        .collect::<Vec<_>>()
        .join("&")
}

fn percent(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            b => format!("%{b:02X}"),
        })
        .collect()
}

#[tokio::test]
async fn two_planners_edit_one_table_in_the_browser_and_the_stale_edit_is_caught() {
    let dir = repository();
    let git = git2::Repository::open(dir.path()).unwrap();
    let jp = |git: &git2::Repository| git.refname_to_id("refs/heads/masters/jp").unwrap();
    let app = app(dir.path(), Policy::Users(users()));
    let (eddie, eddie_csrf) = session(&app, Some("token-of-eddie")).await;
    let (mia, mia_csrf) = session(&app, Some("token-of-mia")).await;

    // A row's form: inputs that fit its fields, each checked as typed.
    let row = get_as(&app, "/row?region=jp&table=monster&key=2", &eddie).await;
    assert_eq!(row.status, StatusCode::OK, "{}", row.body);
    assert!(
        row.body
            .contains("name=\"v.name\" value=\"スライム\" dir=\"auto\" data-check=\"/check-value?region=jp&#38;table=monster&#38;column=name&#38;key=2\""),
        "{}",
        row.body
    );
    // A key another row has is refused as it is typed (a new row has none of its own).
    let taken = get_as(
        &app,
        "/check-value?region=jp&table=monster&column=id&value=1",
        &eddie,
    )
    .await;
    assert_eq!(taken.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(taken.body, "row 1 has this `id` already");
    let own = "/check-value?region=jp&table=monster&column=id&value=2&key=2";
    assert_eq!(get_as(&app, own, &eddie).await.status, StatusCode::OK);
    let (viola, _) = session(&app, Some("token-of-viola")).await;
    let refused = get_as(&app, "/row?region=jp&table=monster&key=2", &viola).await;
    assert_eq!(
        refused.status,
        StatusCode::FORBIDDEN,
        "a viewer edits nothing"
    );

    // Both rename slime: each edit goes into the planner's own draft.
    let rename = |csrf: &str, to: &str| {
        form(&[
            ("csrf", csrf),
            ("region", "jp"),
            ("table", "monster"),
            ("key", "2"),
            ("was.id", "2"),
            ("v.id", "2"),
            ("was.name", "スライム"),
            ("v.name", to),
            ("action", "save"),
        ])
    };
    let saved = post_as(&app, "/row", &eddie, rename(&eddie_csrf, "キングスライム")).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    assert_eq!(
        saved.location.as_deref(),
        Some("/table?region=jp&table=monster&key=2#row")
    );
    let saved = post_as(&app, "/row", &mia, rename(&mia_csrf, "メタルスライム")).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    let before = jp(&git);

    // The table shows each their own edit, and who else is editing it.
    let table = get_as(&app, "/table?region=jp&table=monster", &eddie).await;
    assert!(
        table.body.contains("You have 1 edit waiting"),
        "{}",
        table.body
    );
    assert!(
        table.body.contains(
            "<del translate=\"no\">スライム</del> <ins translate=\"no\" title=\"your edit, not committed\">キングスライム</ins>"
        ),
        "{}",
        table.body
    );
    assert!(
        table.body.contains("Also editing monster: mia (1 edit)"),
        "{}",
        table.body
    );

    // Eddie reviews and commits first.
    let edits = get_as(&app, "/edits?region=jp", &eddie).await;
    assert_eq!(edits.status, StatusCode::OK, "{}", edits.body);
    assert!(
        edits
            .body
            .contains("<td>monster</td><td>0</td><td>0</td><td>1</td>"),
        "{}",
        edits.body
    );
    assert_eq!(jp(&git), before, "a review writes nothing");
    let done = post_as(
        &app,
        "/edits",
        &eddie,
        form(&[
            ("csrf", &eddie_csrf),
            ("region", "jp"),
            ("action", "commit"),
            ("message", "King slime"),
        ]),
    )
    .await;
    assert_eq!(done.status, StatusCode::SEE_OTHER, "{}", done.body);
    assert_eq!(
        done.location.as_deref(),
        Some("/history?region=jp&done=edited")
    );
    let edited = git.find_commit(jp(&git)).unwrap();
    assert_eq!(edited.parent_id(0).unwrap(), before);
    assert_eq!(edited.author().name().unwrap(), "eddie");
    assert_eq!(edited.summary().unwrap(), Some("King slime"));
    let table = get_as(&app, "/table?region=jp&table=monster", &eddie).await;
    assert!(!table.body.contains("edit waiting"), "{}", table.body);

    // Mia's edit is stale: caught, named with who changed the cell, never lost.
    let stale = get_as(&app, "/edits?region=jp", &mia).await;
    assert_eq!(
        stale.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        stale.body
    );
    assert!(
        stale
            .body
            .contains("monster 2 `name` was changed since by eddie"),
        "{}",
        stale.body
    );
    assert!(
        stale.body.contains("it holds `キングスライム` now"),
        "{}",
        stale.body
    );
    let commit = |message: &str| {
        form(&[
            ("csrf", &mia_csrf),
            ("region", "jp"),
            ("action", "commit"),
            ("message", message),
        ])
    };
    let refused = post_as(&app, "/edits", &mia, commit("Metal slime")).await;
    assert_eq!(
        refused.location.as_deref(),
        Some("/edits?region=jp"),
        "{}",
        refused.body
    );
    assert_eq!(jp(&git), edited.id(), "nothing written");
    let kept = get_as(&app, "/edits?region=jp", &mia).await;
    assert!(
        kept.body.contains("value=\"Metal slime\""),
        "the message is kept"
    );

    // She keeps hers over his, adds a row and deletes one: one commit.
    let keep = post_as(
        &app,
        "/edits",
        &mia,
        form(&[
            ("csrf", &mia_csrf),
            ("region", "jp"),
            ("action", "keep"),
            ("at", "0"),
            ("now", "キングスライム"),
        ]),
    )
    .await;
    assert_eq!(keep.status, StatusCode::SEE_OTHER, "{}", keep.body);
    for body in [
        form(&[
            ("csrf", &mia_csrf),
            ("region", "jp"),
            ("table", "monster"),
            ("v.id", "3"),
            ("v.name", "ドラゴン"),
            ("action", "save"),
        ]),
        form(&[
            ("csrf", &mia_csrf),
            ("region", "jp"),
            ("table", "monster"),
            ("key", "1"),
            ("was.name", "<script>alert(1)</script>"),
            ("action", "delete"),
        ]),
    ] {
        let saved = post_as(&app, "/row", &mia, body).await;
        assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    }
    let done = post_as(&app, "/edits", &mia, commit("Metal slime")).await;
    assert_eq!(
        done.location.as_deref(),
        Some("/history?region=jp&done=edited"),
        "{}",
        done.body
    );
    assert_eq!(
        monsters_on_jp(dir.path()),
        "id,name\n2,メタルスライム\n3,ドラゴン\n"
    );

    // Committing nothing is refused, not a success.
    let nothing = post_as(&app, "/edits", &mia, commit("")).await;
    assert_eq!(nothing.status, StatusCode::BAD_REQUEST);
    assert!(
        nothing.body.contains("no edits to make"),
        "{}",
        nothing.body
    );
}

#[tokio::test]
async fn a_planner_downloads_the_current_masters_as_workbooks_and_uploads_them_back_unchanged() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    let (viola, _) = session(&app, Some("token-of-viola")).await;
    let tables = get_as(&app, "/tables?region=jp", &viola).await;
    assert!(
        tables.body.contains("href=\"/download?region=jp\""),
        "{}",
        tables.body
    );
    let request = request("GET", "/download?region=jp", HERE)
        .header(header::COOKIE, &viola)
        .body(Body::empty())
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.clone(), request)
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        response.headers()[header::CONTENT_TYPE],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    assert_eq!(
        response.headers()[header::CONTENT_DISPOSITION],
        "attachment; filename=\"monster.xlsx\"; filename*=UTF-8''monster.xlsx"
    );
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    assert!(bytes.starts_with(b"PK"), "a workbook (a zip)");

    // The workbook is the import's own: back in, nothing changes.
    let file = dir.path().join("downloaded.xlsx");
    std::fs::write(&file, &bytes).unwrap();
    let repo = masterctl_store::MasterRepo::open(dir.path()).unwrap();
    let paths = [file.clone()];
    let outcome =
        masterctl_store::import::run(&repo, &masterctl_store::import::Request::new("jp", &paths))
            .unwrap();
    assert!(
        matches!(outcome, masterctl_store::ImportOutcome::Unchanged(_)),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_stale_export_keeps_a_colleagues_cells_and_imports_the_rest_when_asked() {
    let dir = repository();
    let git = git2::Repository::open(dir.path()).unwrap();
    let jp = |git: &git2::Repository| git.refname_to_id("refs/heads/masters/jp").unwrap();
    let exported = jp(&git);
    // A colleague renames the slime meanwhile.
    import_rows(dir.path(), None, "1,<script>alert(1)</script>\n2,メタル\n");
    let app = app(dir.path(), Policy::Users(users()));
    let (eddie, csrf) = session(&app, Some("token-of-eddie")).await;
    // The planner's export, from before: the slime renamed too, and monster 1.
    let csv = format!("id,name\n#masterctl-commit {exported} jp\n1,bat\n2,キング\n");
    let upload = upload(&app, &eddie, &csrf, "monster.csv", csv.as_bytes()).await;

    let review = get_as(&app, &format!("/review?upload={upload}&region=jp"), &eddie).await;
    assert_eq!(
        review.status,
        StatusCode::UNPROCESSABLE_ENTITY,
        "{}",
        review.body
    );
    assert!(
        review.body.contains("since its export by Aiko at"),
        "{}",
        review.body
    );
    assert!(
        review.body.contains("Keep theirs and import the rest"),
        "{}",
        review.body
    );
    let kept = get_as(
        &app,
        &format!("/review?upload={upload}&region=jp&keep=branch"),
        &eddie,
    )
    .await;
    assert_eq!(kept.status, StatusCode::OK, "{}", kept.body);
    assert!(kept.body.contains("is kept"), "{}", kept.body);
    assert!(
        kept.body.contains("name=\"keep\" value=\"branch\""),
        "{}",
        kept.body
    );
    let done = post_as(
        &app,
        "/import",
        &eddie,
        format!("csrf={csrf}&upload={upload}&region=jp&keep=branch&message=bat"),
    )
    .await;
    assert_eq!(
        done.location.as_deref(),
        Some("/history?region=jp&done=imported"),
        "{}",
        done.body
    );
    assert_eq!(monsters_on_jp(dir.path()), "id,name\n1,bat\n2,メタル\n");
}

#[tokio::test]
async fn a_resolution_the_rules_refuse_stays_editable_and_the_typed_message_is_kept() {
    let dir = repository();
    conflicting_branch(dir.path());
    let app = app(dir.path(), local());
    let (cookie, csrf) = session(&app, None).await;
    let target = "kind=merge&region=jp&branch=event";
    // Started, then resolved with an empty name (the name is required).
    let steps = [
        "action=start",
        "side=value&value=&table=monster&key=1&column=name",
    ];
    join_steps(&app, &cookie, &csrf, target, &steps).await;
    let going_on = post_as(
        &app,
        "/join",
        &cookie,
        format!("csrf={csrf}&{target}&action=start&message=Event+monsters"),
    )
    .await;
    let back = going_on.location.unwrap();
    assert!(back.ends_with("&message=Event%20monsters"), "{back}");
    let page = get_as(&app, &back, &cookie).await;
    assert!(page.body.contains("Resolve these again"), "{}", page.body);
    assert!(
        page.body.contains("<td dir=\"auto\">an empty cell</td>"),
        "{}",
        page.body
    );
    assert!(
        page.body
            .contains("id=\"message\" type=\"text\" name=\"message\" value=\"Event monsters\""),
        "{}",
        page.body
    );
    assert!(!page.body.contains("id=\"resolved\""), "{}", page.body);
    // Resolved again: every conflict is resolved, and the merge goes on.
    let steps = ["side=theirs&table=monster&key=1&column=name"];
    join_steps(&app, &cookie, &csrf, target, &steps).await;
    let page = get_as(&app, &format!("/join?{target}"), &cookie).await;
    assert!(page.body.contains("id=\"resolved\""), "{}", page.body);
    assert!(!page.body.contains("Resolve these again"), "{}", page.body);
    let done = join_steps(
        &app,
        &cookie,
        &csrf,
        target,
        &["action=start&message=Event+in"],
    )
    .await;
    assert!(done.location.unwrap().starts_with("/history"));
}

#[tokio::test]
async fn a_review_of_thousands_of_changes_comes_in_pages_that_link_on() {
    let rows = |name: &str| -> String { (1..=3000).map(|i| format!("{i},{name} {i}\n")).collect() };
    let dir = repository_with(CONFIG, MONSTER, &rows("slime"));
    import_rows(dir.path(), None, &rows("bat"));
    let head = git2::Repository::open(dir.path())
        .unwrap()
        .refname_to_id("refs/heads/masters/jp")
        .unwrap();
    let app = app(dir.path(), local());
    let (cookie, _) = session(&app, None).await;
    let first = get_as(&app, &format!("/commit?id={head}"), &cookie).await;
    assert_eq!(first.status, StatusCode::OK);
    assert!(first.body.len() < 150_000, "{} bytes", first.body.len());
    assert!(
        first.body.contains("Changes 1–200 of 3000"),
        "{}",
        first.body
    );
    let later = format!("/commit?id={head}&table=monster&from=200");
    assert!(
        first.body.contains(&later.replace('&', "&#38;")),
        "{}",
        first.body
    );
    let second = get_as(&app, &later, &cookie).await;
    assert!(
        second.body.contains("Changes 201–400 of 3000"),
        "{}",
        second.body
    );
    assert!(
        second.body.contains("class=\"key\">201<"),
        "{}",
        second.body
    );
    assert!(
        !second.body.contains("class=\"key\">200<"),
        "{}",
        second.body
    );
    let bad = get_as(
        &app,
        &format!("/commit?id={head}&table=monster&from=x"),
        &cookie,
    )
    .await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

/// A releases-page form of jp: the session's token, the region and `fields`.
fn release_form(csrf: &str, fields: &[(&str, &str)]) -> String {
    let mut all = vec![("csrf", csrf), ("region", "jp")];
    all.extend_from_slice(fields);
    form(&all)
}

/// Where a write's answer ends once its work is done (its `/working` page followed).
async fn finished(app: &axum::Router, cookie: &str, answer: Got) -> String {
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    let mut location = answer.location.unwrap();
    while location.starts_with("/working?job=") {
        let got = get_as(app, &location, cookie).await;
        match got.status {
            StatusCode::OK => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
            StatusCode::SEE_OTHER => location = got.location.unwrap(),
            other => panic!("{other}: {}", got.body),
        }
    }
    location
}

#[tokio::test(flavor = "multi_thread")]
async fn a_maintainer_tags_builds_and_publishes_from_the_releases_page() {
    let (_store, url, dir) = with_a_store();
    let app = app(dir.path(), Policy::Users(users()));
    let (editor, editor_csrf) = session(&app, Some("token-of-eddie")).await;
    let page = get_as(&app, "/releases?region=jp", &editor).await;
    assert!(!page.body.contains("Build and publish"), "{}", page.body);
    let publish = [("action", "publish")];
    let refused = post_as(
        &app,
        "/releases",
        &editor,
        release_form(&editor_csrf, &publish),
    )
    .await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    let (boss, csrf) = session(&app, Some("token-of-mia")).await;
    let page = get_as(&app, "/releases?region=jp", &boss).await;
    assert!(page.body.contains("Build and publish"), "{}", page.body);
    let release = |fields: &[(&str, &str)]| release_form(&csrf, fields);
    let unnamed = post_as(
        &app,
        "/releases",
        &boss,
        release(&[("action", "tag"), ("version", " ")]),
    )
    .await;
    assert_eq!(unnamed.status, StatusCode::BAD_REQUEST);
    let fields = [("action", "tag"), ("version", "1.0"), ("message", "First")];
    let tagged = post_as(&app, "/releases", &boss, release(&fields)).await;
    assert_eq!(
        tagged.location.as_deref(),
        Some("/releases?region=jp&done=tagged&version=1.0"),
        "{}",
        tagged.body
    );
    let tags = git(dir.path(), &["tag", "--list", "masters/jp/*"]);
    assert_eq!(tags.trim(), "masters/jp/1.0");

    let fields = [("action", "publish"), ("message", "Launch")];
    let answer = post_as(&app, "/releases", &boss, release(&fields)).await;
    let done = finished(&app, &boss, answer).await;
    assert!(
        done.starts_with("/releases?region=jp&done=published&release="),
        "{done}"
    );
    let page = get_as(&app, &done, &boss).await;
    assert!(
        page.body.contains("Published: release")
            && page.body.contains("(masters/jp/1.0) is current"),
        "{}",
        page.body
    );
    let listed = releases_at(&url).await;
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].message.as_deref(), Some("Launch"));
    assert_eq!(listed[0].by.as_deref(), Some("mia <mia@example.com>"));
    assert_eq!(listed[0].versions, ["masters/jp/1.0"]);
    // Built with the client export (what servers and clients both fetch), and nothing
    // left behind in the repository.
    assert!(
        listed[0]
            .release
            .ends_with(masterctl_delivery::layout::CLIENT_SUFFIX),
        "{listed:?}"
    );
    let staging = dir.path().join(".git/masterctl/staging");
    assert!(
        !staging.exists() || std::fs::read_dir(&staging).unwrap().next().is_none(),
        "the build folder is gone"
    );
    // Both in the audit log, as the maintainer.
    let audit = get_as(&app, "/audit", &boss).await;
    for said in [
        "tagged jp",
        "published a release of jp",
        "mia &#60;mia@example.com&#62;",
    ] {
        assert!(audit.body.contains(said), "{said}: {}", audit.body);
    }
}

#[tokio::test]
async fn times_are_shown_in_the_projects_zone_with_its_offset() {
    let config = format!("timezone = \"Asia/Tokyo\"\n{CONFIG}");
    let dir = repository_with(&config, MONSTER, "1,スライム\n");
    let app = app(dir.path(), local());
    let (cookie, _) = session(&app, None).await;
    let recorded = git(dir.path(), &["log", "-1", "--format=%aI", "masters/jp"]);
    let instant = masterctl_schemas::value::parse_datetime(recorded.trim()).unwrap();
    let tokyo = masterctl_schemas::zone::Zone::named("Asia/Tokyo").unwrap();
    let shown = tokyo.show(instant).replacen('T', " ", 1);
    assert!(shown.ends_with("+09:00"), "{shown}");
    for page in [
        "/history?region=jp",
        "/",
        "/blame?region=jp&table=monster&key=1",
    ] {
        let got = get_as(&app, page, &cookie).await;
        assert!(got.body.contains(&shown), "{page}: {shown} in {}", got.body);
    }
    // The row's history under its blame: the import that made it.
    let blame = get_as(&app, "/blame?region=jp&table=monster&key=1", &cookie).await;
    let history = blame
        .body
        .split("id=\"row-history\"")
        .nth(1)
        .unwrap_or_default();
    assert!(
        history.contains("<ins translate=\"no\">スライム</ins>"),
        "{}",
        blame.body
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_committed_in_the_browser_is_told_to_the_webhook_and_kept_in_the_audit_log() {
    let (url, bodies) = masterctl_testing::webhook(&[200]);
    let config = format!("{CONFIG}\n[notify]\nwebhook = \"{url}\"\n");
    let dir = repository_with(&config, MONSTER, "1,スライム\n");
    let app = app(dir.path(), Policy::Users(users()));
    let (eddie, csrf) = session(&app, Some("token-of-eddie")).await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("region", "jp"),
        ("table", "monster"),
        ("key", "1"),
        ("was.name", "スライム"),
        ("v.name", "キングスライム"),
        ("action", "save"),
    ];
    post_as(&app, "/row", &eddie, form(&fields)).await;
    let commit = [
        ("csrf", csrf.as_str()),
        ("region", "jp"),
        ("action", "commit"),
        ("message", "King"),
    ];
    let done = post_as(&app, "/edits", &eddie, form(&commit)).await;
    assert_eq!(
        finished(&app, &eddie, done).await,
        "/history?region=jp&done=edited"
    );
    // Told after the answer, on the console's runtime.
    for _ in 0..100 {
        if !bodies.lock().unwrap().is_empty() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let told = bodies.lock().unwrap().clone();
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].contains("\"action\":\"edited\""), "{}", told[0]);
    assert!(
        told[0].contains("eddie <eddie@example.com> edited masters/jp"),
        "{}",
        told[0]
    );

    // And recorded in the repository's audit log, shown to everyone.
    let (viola, _) = session(&app, Some("token-of-viola")).await;
    let audit = get_as(&app, "/audit", &viola).await;
    assert_eq!(audit.status, StatusCode::OK, "{}", audit.body);
    let row = audit.body.split("<tbody>").nth(1).unwrap_or_default();
    assert!(row.contains("eddie &#60;eddie@example.com&#62;"), "{row}");
    assert!(row.contains("edited masters/jp"), "{row}");
    assert!(
        row.contains("King") && row.contains("the console on "),
        "{row}"
    );
}

#[tokio::test]
async fn a_planners_edits_outlive_a_restart_of_the_console() {
    let dir = repository();
    let first = app(dir.path(), Policy::Users(users()));
    let (eddie, csrf) = session(&first, Some("token-of-eddie")).await;
    let fields = [
        ("csrf", csrf.as_str()),
        ("region", "jp"),
        ("table", "monster"),
        ("key", "2"),
        ("was.name", "スライム"),
        ("v.name", "ベス"),
        ("action", "save"),
    ];
    let saved = post_as(&first, "/row", &eddie, form(&fields)).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.body);
    drop(first);
    let again = app(dir.path(), Policy::Users(users()));
    let (eddie, _) = session(&again, Some("token-of-eddie")).await;
    let edits = get_as(&again, "/edits?region=jp", &eddie).await;
    assert!(
        edits.body.contains("<ins translate=\"no\">ベス</ins>"),
        "{}",
        edits.body
    );
}

/// A page's text as a reader sees it: its markup, style and script taken out.
fn text_of(html: &str) -> String {
    let mut html = html.to_string();
    for (open, close) in [("<style>", "</style>"), ("<script", "</script>")] {
        while let Some(start) = html.find(open) {
            let end = html[start..]
                .find(close)
                .map_or(html.len(), |e| start + e + close.len());
            html.replace_range(start..end, " ");
        }
    }
    let mut text = String::with_capacity(html.len());
    let mut inside = false;
    for c in html.chars() {
        match c {
            '<' => inside = true,
            '>' => {
                inside = false;
                text.push(' ');
            }
            c if !inside => text.push(c),
            _ => {}
        }
    }
    text
}

#[tokio::test]
async fn the_console_speaks_japanese_to_a_japanese_browser_and_a_switch_chooses() {
    let dir = repository();
    let app = app(dir.path(), local());
    let (cookie, csrf) = session(&app, None).await;
    let get_in = |uri: &'static str, language: &'static str| {
        let request = request("GET", uri, HERE)
            .header(header::COOKIE, &cookie)
            .header(header::ACCEPT_LANGUAGE, language)
            .body(Body::empty())
            .unwrap();
        send(&app, request)
    };
    let english: Vec<&str> = include_str!("../locales/en.ftl")
        .lines()
        .filter(|l| !l.starts_with('#') && l.contains(" = "))
        .filter_map(|l| l.split(" = ").nth(1))
        .map(|v| v.trim_start_matches(": ").trim())
        .filter(|v| v.len() > 3 && !v.contains('{'))
        .collect();
    for page in [
        "/",
        "/tables?region=jp",
        "/history?region=jp",
        "/table?region=jp&table=monster",
        "/row?region=jp&table=monster&key=1",
        "/row?region=jp&table=monster",
        "/edits?region=jp",
        "/blame?region=jp&table=monster&key=1",
        "/audit",
        "/releases?region=jp",
        "/import?region=jp",
        "/translations?region=jp",
    ] {
        let got = get_in(page, "ja-JP,ja;q=0.9,en;q=0.5").await;
        assert_eq!(got.status, StatusCode::OK, "{page}");
        assert!(
            got.body.contains("<html lang=\"ja\">"),
            "{page}: {}",
            got.body
        );
        // A phrase anywhere in the text; a single word as a whole text of its own (a
        // commit's subject, which is data, may hold one).
        let text = text_of(&got.body);
        for words in &english {
            let said = match words.contains(' ') {
                true => text.contains(words),
                false => got.body.contains(&format!(">{words}<")),
            };
            assert!(!said, "{page} says `{words}` in English: {text}");
        }
    }
    // An error page: its title and its way back in Japanese, its status kept.
    let missing = get_in("/table?region=jp&table=nothing_here", "ja").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    for said in [
        "<html lang=\"ja\">",
        "<h1>見つかりません</h1>",
        "masters/jp にテーブル nothing_here はありません",
        "リージョン一覧に戻る",
    ] {
        assert!(missing.body.contains(said), "{said}: {}", missing.body);
    }
    assert!(!missing.body.contains("Back to"), "{}", missing.body);
    // Addresses the console never gives (typed by hand, or forged): refused in Japanese.
    for (page, said) in [
        (
            "/table?region=jp&table=monster&colour=red",
            "このページに `colour` というパラメーターはありません",
        ),
        (
            "/table?region=jp&table=monster&from=ten",
            "`from` には行数を入れてください",
        ),
        (
            "/commit?id=HEAD~1",
            "コミットは ID（16 進数）で指定してください",
        ),
        ("/language?to=fr", "コンソールの言語は `ja` と `en` です"),
    ] {
        let got = get_in(page, "ja").await;
        assert_eq!(got.status, StatusCode::BAD_REQUEST, "{page}");
        assert!(got.body.contains(said), "{page}: {}", got.body);
        let text = text_of(&got.body);
        for words in english.iter().filter(|w| w.contains(' ')) {
            assert!(!text.contains(words), "{page} says `{words}`: {text}");
        }
    }
    // A form's choice the page does not know is named, with the ones it knows.
    let side = [
        ("csrf", csrf.as_str()),
        ("kind", "rebase"),
        ("region", "jp"),
    ];
    let body = form(&[&side[..], &[("side", "mine")]].concat());
    let got = post_as(&app, "/resolve", &cookie, body).await;
    assert_eq!(got.status, StatusCode::BAD_REQUEST);
    let known =
        "`side` is `mine`, which this page does not know: it takes `ours`, `theirs`, `value`";
    assert!(got.body.contains(known), "{}", got.body);
    // The sign-in page, to a browser not yet signed in.
    let users = router(Console::new(
        dir.path().to_path_buf(),
        Policy::Users(users()),
    ));
    let sign_in = request("GET", "/", HERE)
        .header(header::ACCEPT_LANGUAGE, "ja")
        .body(Body::empty())
        .unwrap();
    let got = send(&users, sign_in).await;
    assert_eq!(got.status, StatusCode::UNAUTHORIZED);
    assert!(
        got.body.contains("トークンでサインインしてください"),
        "{}",
        got.body
    );
    assert!(!got.body.contains("Sign in"), "{}", got.body);
    let got = get_in("/", "ja").await;
    assert!(
        got.body.contains("リージョンと作業ブランチ"),
        "{}",
        got.body
    );
    assert!(got.body.contains("監査ログ"), "{}", got.body);
    // The switch: English chosen, kept in a cookie, back to the page it was on.
    let switch = request("GET", "/language?to=en", HERE)
        .header(header::HOST, HERE)
        .header(header::COOKIE, &cookie)
        .header(header::REFERER, format!("http://{HERE}/tables?region=jp"))
        .body(Body::empty())
        .unwrap();
    let chosen = send(&app, switch).await;
    assert_eq!(chosen.status, StatusCode::SEE_OTHER);
    assert_eq!(chosen.location.as_deref(), Some("/tables?region=jp"));
    let set = chosen.headers[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .to_string();
    assert!(set.starts_with("masterctl-lang=en;"), "{set}");
    let chosen_page = request("GET", "/", HERE)
        .header(header::COOKIE, format!("{cookie}; masterctl-lang=en"))
        .header(header::ACCEPT_LANGUAGE, "ja")
        .body(Body::empty())
        .unwrap();
    let english_page = send(&app, chosen_page).await;
    assert!(
        english_page.body.contains("Regions and work branches"),
        "{}",
        english_page.body
    );
    // Elsewhere is never where the switch goes back to.
    let elsewhere = request("GET", "/language?to=ja", HERE)
        .header(header::HOST, HERE)
        .header(header::COOKIE, &cookie)
        .header(header::REFERER, "http://evil.example/phish")
        .body(Body::empty())
        .unwrap();
    assert_eq!(send(&app, elsewhere).await.location.as_deref(), Some("/"));
    let bad = get_in("/language?to=fr", "ja").await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
}

/// A Japanese planner reads every mistake of an upload, its hint and a value checked as
/// typed in Japanese, made from the values the checks found; an
/// English planner reads the same mistakes as the command line writes them.
#[tokio::test]
async fn a_japanese_planner_reads_every_mistake_in_japanese() {
    let monster = format!(
        "{MONSTER}\n[[fields]]\nname = \"hp\"\ntype = \"int\"\nmin = 0\nmax = 99\noptional = true\n\n\
         [[fields]]\nname = \"kind\"\ntype = \"enum\"\nvalues = [\"fire\", \"water\"]\n\
         optional = true\n"
    );
    let dir = repository_of(CONFIG, &monster, "id,name,hp,kind\n1,スライム,10,fire\n");
    let app = app(dir.path(), local());
    let (cookie, csrf) = session(&app, None).await;
    let csv = "id,name,hp,kind\n１８,ゴブリン,10,fire\n2,オーク,150,fire\n3,ドラゴン,5,fier\n";
    let id = upload(&app, &cookie, &csrf, "monster.csv", csv.as_bytes()).await;
    let review = format!("/review?upload={id}&region=jp");
    let get_in = |uri: String, language: &'static str| {
        let request = request("GET", &uri, HERE)
            .header(header::COOKIE, &cookie)
            .header(header::ACCEPT_LANGUAGE, language)
            .body(Body::empty())
            .unwrap();
        send(&app, request)
    };
    let japanese = get_in(review.clone(), "ja").await;
    assert_eq!(japanese.status, StatusCode::UNPROCESSABLE_ENTITY);
    let english = get_in(review, "en").await;
    for (said, instead) in [
        (
            "「１８」は id の型（int）として読めません",
            "expected a whole number",
        ),
        (
            "全角で書かれています。半角で「18」と書いてください",
            "full-width characters",
        ),
        ("150 は最大値 99 を超えています", "is above the maximum 99"),
        (
            "「fier」は kind の値ではありません（fire, water）",
            "is not a value of",
        ),
        ("「fire」のことですか？", "did you mean `fire`?"),
        ("3 行目", "line 3"),
    ] {
        assert!(japanese.body.contains(said), "{said}: {}", japanese.body);
        assert!(
            !japanese.body.contains(instead),
            "{instead}: {}",
            japanese.body
        );
        assert!(
            english.body.contains(instead),
            "{instead}: {}",
            english.body
        );
    }
    // A value typed into a cell, checked as it is typed.
    let check = "/check-value?region=jp&table=monster&column=hp&key=1&value=";
    let typed = get_in(format!("{check}-3"), "ja").await;
    assert_eq!(typed.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(typed.body, "-3 は最小値 0 を下回っています");
    let typed = get_in(format!("{check}%EF%BC%91%EF%BC%98"), "ja").await;
    assert_eq!(
        typed.body,
        "「１８」は hp の型（int）として読めません: 全角で書かれています。半角で「18」と書いてください"
    );
    let typed = get_in(format!("{check}-3"), "en").await;
    assert_eq!(typed.body, "-3 is below the minimum 0");
}

/// A zip holding `files` (name, bytes), deflated; a name ending in `/` is a folder.
fn zipped(files: &[(&str, &[u8])]) -> Vec<u8> {
    use std::io::Write;
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for (name, bytes) in files {
        if name.ends_with('/') {
            zip.add_directory(*name, options).unwrap();
        } else {
            zip.start_file(*name, options).unwrap();
            zip.write_all(bytes).unwrap();
        }
    }
    zip.finish().unwrap().into_inner()
}

/// An upload `name` of `bytes` as Eddie sends it, his browser in `language`: the answer.
async fn upload_answer(app: &axum::Router, name: &str, bytes: &[u8], language: &str) -> Got {
    let (cookie, csrf) = session(app, Some("token-of-eddie")).await;
    let (kind, body) = multipart(&[("csrf", &csrf), ("region", "jp")], &[(name, bytes)]);
    let request = request("POST", "/upload", HERE)
        .header(header::COOKIE, cookie)
        .header(header::CONTENT_TYPE, kind)
        .header(header::ACCEPT_LANGUAGE, language)
        .body(Body::from(body))
        .unwrap();
    send(app, request).await
}

#[tokio::test]
async fn a_zip_of_workbooks_is_unpacked_where_its_workbooks_would_be_and_bounded_as_they_are() {
    let dir = repository();
    let app = app(dir.path(), Policy::Users(users()));
    // What a planner zips on a Mac: a folder, the file, the system's own beside it.
    let day = zipped(&[
        ("exports/", b""),
        (
            "exports/monster.csv",
            "id,name\n1,bat\n2,スライム\n".as_bytes(),
        ),
        ("__MACOSX/exports/._monster.csv", b"\0\x05\x16\x07"),
        ("exports/.DS_Store", b"\0\0\0\x01Bud1"),
    ]);
    let got = upload_answer(&app, "December.zip", &day, "en").await;
    assert_eq!(got.status, StatusCode::SEE_OTHER, "{}", got.body);
    let (eddie, _) = session(&app, Some("token-of-eddie")).await;
    let review = get_as(&app, got.location.as_deref().unwrap(), &eddie).await;
    // The workbook by its own name, the slime renamed; the zip gone.
    let shown = [
        "monster.csv",
        "<td>monster</td><td>0</td><td>1</td><td>0</td>",
    ];
    assert!(
        review.status == StatusCode::OK
            && shown.iter().all(|s| review.body.contains(s))
            && !review.body.contains("December.zip"),
        "{}",
        review.body
    );

    // Anything else in it is refused, named; so is a zip that is none; nothing is kept.
    let notes = zipped(&[("monster.csv", b"id,name\n"), ("notes.docx", b"todo")]);
    for (name, bytes, said) in [
        (
            "notes.zip",
            notes,
            ["notes.docx", "in", "notes.zip", "is not a kind of file"],
        ),
        (
            "broken.zip",
            b"PK not really".to_vec(),
            ["broken.zip", "is not a zip file", "", ""],
        ),
    ] {
        let got = upload_answer(&app, name, &bytes, "en").await;
        assert_eq!(got.status, StatusCode::BAD_REQUEST, "{}", got.body);
        assert!(
            said.iter().all(|s| got.body.contains(s)),
            "{said:?}: {}",
            got.body
        );
    }
    // In Japanese, for a planner whose browser asks for it.
    let notes = zipped(&[("notes.docx", b"todo")]);
    let got = upload_answer(&app, "notes.zip", &notes, "ja").await;
    assert!(
        got.body.contains(
            "「notes.zip」の中の「notes.docx」はインポートできる種類のファイルではありません"
        ),
        "{}",
        got.body
    );
    // A small zip that unpacks past the bound of a file is refused as it is unpacked.
    let zeros = vec![0u8; (64 << 20) + 1];
    let bomb = zipped(&[("monster.csv", &zeros)]);
    assert!(bomb.len() < 1 << 20, "{}", bomb.len());
    let got = upload_answer(&app, "bomb.zip", &bomb, "en").await;
    assert_eq!(got.status, StatusCode::PAYLOAD_TOO_LARGE, "{}", got.body);
    assert!(got.body.contains("larger than 64 MiB"), "{}", got.body);
    let uploads = dir.path().join(".git/masterctl/console/uploads");
    let kept: Vec<_> = walk(&uploads).into_iter().filter(|p| p.is_file()).collect();
    assert_eq!(kept.len(), 1, "only the first upload's workbook: {kept:?}");
}

/// Every path under `dir`.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}
