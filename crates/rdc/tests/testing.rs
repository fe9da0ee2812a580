//! `rdc::testing::MockApp`: fixtures by endpoint and args, delays on fake
//! time, errors, held answers with optimistic updates showing meanwhile,
//! expiry driven by fake time, and hooks run natively.

use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Todo {
    id: u32,
    title: String,
}

#[derive(Debug, Clone, serde::Serialize)]
struct TodoId {
    id: u32,
}

#[derive(Debug, Clone, serde::Serialize)]
struct Rename {
    title: String,
}

fn todo() -> RestEndpoint<TodoId, (), Todo> {
    rdc::rest!(GET "/todos/:id" -> Todo, args = TodoId).data_expiry(std::time::Duration::from_secs(10))
}

fn rename() -> RestEndpoint<TodoId, Rename, Todo> {
    rdc::rest!(PATCH "/todos/:id" -> Todo, args = TodoId, body = Rename)
        .optimistic(|args, body| rdc::json!({ "id": args["id"].clone(), "title": body.map(|b| b["title"].clone()) }))
}

fn one() -> TodoId {
    TodoId { id: 1 }
}

#[test]
fn a_delayed_answer_lands_when_fake_time_reaches_it() {
    let app = MockApp::new();
    app.delayed(&todo(), &one(), 500, rdc::json!({ "id": 1, "title": "milk" }));
    let pending = app.start(&todo(), one(), ());
    app.advance(499);
    assert!(pending.result().is_none());
    app.advance(1);
    assert_eq!(pending.result().unwrap().unwrap().title, "milk");
}

#[test]
fn an_error_fixture_is_the_typed_error_and_a_missing_one_names_the_request() {
    let app = MockApp::new();
    app.error(&todo(), &one(), 404, rdc::json!({ "error": "no todo 1" }));
    let Err(FetchError::Endpoint(RestError::Network { source, .. })) = app.fetch(&todo(), one(), ()) else {
        panic!("a 404 is a network error")
    };
    assert_eq!((source.status, source.json().unwrap()["error"].as_str()), (404, Some("no todo 1")));
    let Err(FetchError::Endpoint(RestError::Transport { message, .. })) = app.fetch(&todo(), TodoId { id: 2 }, ())
    else {
        panic!("no fixture: a transport error")
    };
    assert_eq!(message, "no fixture for GET /todos/2");
}

#[test]
fn an_optimistic_rename_shows_while_its_answer_is_held_and_expiry_follows_fake_time() {
    let app = MockApp::new();
    app.fixture(&todo(), &one(), rdc::json!({ "id": 1, "title": "milk" }));
    app.fetch(&todo(), one(), ()).unwrap();
    let held = app.hold(&rename(), &one());
    let pending = app.start(&rename(), one(), Rename { title: "oat milk".into() });
    let shown = || app.controller().entity::<Todo>("1").unwrap().map(|t| t.title.clone());
    assert_eq!(shown(), Some("oat milk".into()), "shown at once");
    held.fail(500, rdc::json!({ "error": "down" }));
    app.run();
    assert!(pending.result().unwrap().is_err());
    assert_eq!(shown(), Some("milk".into()), "the failed rename is taken back");
    let key = app.controller().key_of(&todo(), &one()).unwrap();
    assert!(!app.controller().needs_fetch(&key, rdc::controller::Endpoint::policy(&*todo())));
    app.advance(10_000);
    assert!(app.controller().needs_fetch(&key, rdc::controller::Endpoint::policy(&*todo())), "stale after 10 s");
    assert_eq!(app.requests(), ["GET /todos/1", "PATCH /todos/1"]);
}

/// The title `use_dle` shows for todo 1, read as a component would.
fn title(dle: &rdc::leptos::Dle<Todo, RestError>) -> Option<String> {
    use leptos::prelude::GetUntracked;
    dle.data.get_untracked().map(|t| t.title.clone())
}

#[test]
fn hooks_run_natively_loading_then_data_then_a_mutation_shown_at_once_and_on_its_answer() {
    use leptos::prelude::*;
    let app = MockApp::new();
    let held = app.hold(&todo(), &one());
    let (dle, renaming) = app.hooks(|| (use_dle(todo(), Signal::derive(|| Some(one()))), use_mutation(rename())));
    assert!(dle.loading.get_untracked(), "its effect sent the request");
    assert_eq!(title(&dle), None);
    held.answer(rdc::json!({ "id": 1, "title": "milk" }));
    app.run();
    assert_eq!((title(&dle), dle.loading.get_untracked()), (Some("milk".into()), false));

    let answer = app.hold(&rename(), &one());
    renaming.run_with(one(), Rename { title: "oat milk".into() });
    app.run();
    assert!(renaming.pending.get_untracked());
    assert_eq!(title(&dle), Some("oat milk".into()), "its optimistic update shows in the reader");
    answer.answer(rdc::json!({ "id": 1, "title": "oat milk (saved)" }));
    app.run();
    assert_eq!(title(&dle), Some("oat milk (saved)".into()));
    assert_eq!(renaming.value.get_untracked().map(|t| t.title.clone()), Some("oat milk (saved)".into()));
    assert!(!renaming.pending.get_untracked());
    assert_eq!(app.requests(), ["GET /todos/1", "PATCH /todos/1"]);
}

#[test]
fn a_mounted_hook_fetches_invalidated_data_again_and_shows_its_typed_error() {
    use leptos::prelude::*;
    let app = MockApp::new();
    app.fixture(&todo(), &one(), rdc::json!({ "id": 1, "title": "milk" }));
    let dle = app.hooks(|| use_dle(todo(), Signal::derive(|| Some(one()))));
    assert_eq!(title(&dle), Some("milk".into()));
    app.error(&todo(), &one(), 404, rdc::json!({ "error": "gone" }));
    app.controller().invalidate(&todo(), &one());
    app.run();
    assert!(matches!(dle.error.get_untracked(), Some(FetchError::Endpoint(RestError::Network { .. }))));
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/1"]);
}
