//! A project's webhook told what happened: the JSON a chat reads (`text`) and the
//! fields, asked again after a server error, given up after a few attempts, never
//! asked where the project names none or not that kind of event.

use masterctl_app::notify::{Notice, Told, tell};
use masterctl_schemas::schema::NotifyConfig;
use masterctl_testing::webhook;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn notice() -> Notice {
    Notice::new("import", "imported into", "jp", "Aiko <aiko@example.com>")
        .on("masters/jp")
        .id("0123456789abcdef0123456789abcdef01234567")
        .saying(Some("Event prices"))
}

#[test]
fn a_webhook_is_told_in_json_and_asked_again_after_a_server_error() {
    let (url, bodies) = webhook(&[503, 200]);
    let config = NotifyConfig {
        webhook: url,
        events: vec!["import".into()],
    };
    let told = runtime().block_on(tell(Some(&config), notice()));
    assert_eq!(told, Told::Told { attempts: 2 });
    let bodies = bodies.lock().unwrap();
    let json: serde_json::Value = serde_json::from_str(&bodies[1]).unwrap();
    assert_eq!(json["event"], "import");
    assert_eq!(json["branch"], "masters/jp");
    assert_eq!(
        json["text"],
        "Aiko <aiko@example.com> imported into masters/jp (0123456789ab): Event prices"
    );
}

#[test]
fn a_refusing_webhook_is_given_up_on_and_its_address_never_said() {
    let (url, bodies) = webhook(&[404]);
    let config = NotifyConfig {
        webhook: url,
        events: vec!["import".into()],
    };
    let told = runtime().block_on(tell(Some(&config), notice()));
    let Told::Failed { attempts, why } = told else {
        panic!("{told:?}");
    };
    assert_eq!(attempts, 1, "a 404 is not asked again");
    assert!(!why.contains("secret-token"), "{why}");
    assert_eq!(bodies.lock().unwrap().len(), 1);

    // Nothing asked: no webhook, or not this kind of event.
    assert_eq!(runtime().block_on(tell(None, notice())), Told::NotAsked);
    let releases_only = NotifyConfig {
        webhook: "http://127.0.0.1:9/".into(),
        events: vec!["release".into()],
    };
    assert_eq!(
        runtime().block_on(tell(Some(&releases_only), notice())),
        Told::NotAsked
    );
}
