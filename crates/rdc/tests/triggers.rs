//! Non-suspending triggers, run natively on fake time: `use_fetch` (fetches on
//! mount, on new args and when stale, once per key), `use_error` (the typed
//! error, cleared by a later success) and `use_prefetch` (fetches on a hint
//! only what is missing or stale, shared with other reads).

use leptos::prelude::*;
use rdc::prelude::*;
use rdc::testing::MockApp;

mod todos;
use todos::{id, titled, todo, TodoId};

fn milk(id: u32) -> rdc::json::Value {
    titled(id, "milk")
}

#[test]
fn use_fetch_fetches_on_mount_on_new_args_and_when_stale_once_per_key() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), milk(1));
    let held = app.hold(&todo(), &id(2));
    let current = RwSignal::new(id(1));
    let args = Signal::derive(move || Some(current.get()));
    let (fetching, twice, shown) =
        app.hooks(|| (use_fetch(todo(), args), use_fetch(todo(), args), use_cache(todo(), args)));
    assert_eq!(app.requests(), ["GET /todos/1"], "one request on mount, shared by both");
    assert_eq!(shown.get_untracked().map(|t| t.title.clone()).as_deref(), Some("milk"));

    current.set(id(2));
    app.run();
    assert!(fetching.get_untracked() && twice.get_untracked(), "the new args' request is in flight");
    held.answer(rdc::json!({ "id": 2, "title": "bread" }));
    app.run();
    assert!(!fetching.get_untracked());
    assert_eq!(shown.get_untracked().map(|t| t.title.clone()).as_deref(), Some("bread"));

    current.set(id(1));
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/2"], "fresh data is not fetched again");

    app.controller().expire_all(|key| key == "GET /todos/1");
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/2", "GET /todos/1"], "stale while mounted: fetched once");
}

#[test]
fn use_fetch_with_no_args_fetches_nothing_and_fetches_fresh_data_only_once_stale() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), milk(1));
    app.fetch(&todo(), id(1), ()).unwrap();
    let wanted = RwSignal::new(None::<TodoId>);
    app.hooks(|| use_fetch(todo(), wanted));
    assert_eq!(app.requests(), ["GET /todos/1"]);
    wanted.set(Some(id(1)));
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1"], "the data is fresh");
    app.controller().invalidate(&todo(), &id(1));
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/1"], "invalidated while mounted: fetched");
}

#[test]
fn use_error_is_the_typed_error_and_clears_when_a_later_fetch_succeeds() {
    let app = MockApp::new();
    app.error(&todo(), &id(1), 404, rdc::json!({ "error": "no todo 1" }));
    let args = Signal::derive(|| Some(id(1)));
    let error = app.hooks(|| {
        use_fetch(todo(), args);
        use_error(todo(), args)
    });
    let Some(FetchError::Endpoint(RestError::Network { source, .. })) = error.get_untracked() else {
        panic!("the 404 as its typed error, got {:?}", error.get_untracked())
    };
    assert_eq!(source.status, 404);

    app.fixture(&todo(), &id(1), milk(1));
    app.fetch(&todo(), id(1), ()).unwrap();
    app.run();
    assert!(error.get_untracked().is_none(), "a later success clears it");
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/1"]);
}

#[test]
fn use_prefetch_fetches_only_missing_or_stale_data_and_shares_requests() {
    let app = MockApp::new();
    let held = app.hold(&todo(), &id(1));
    let prefetch = app.hooks(|| use_prefetch(todo()));
    prefetch.run(id(1));
    prefetch.run(id(1));
    app.run();
    let read = app.start(&todo(), id(1), ());
    let shown = app.hooks(|| use_cache(todo(), Signal::derive(|| Some(id(1)))));
    assert_eq!(app.requests(), ["GET /todos/1"], "hovered twice and read: one request");
    held.answer(milk(1));
    app.run();
    assert_eq!(read.result().unwrap().unwrap().title, "milk", "the read got the prefetch's answer");
    assert_eq!(shown.get_untracked().map(|t| t.title.clone()).as_deref(), Some("milk"));

    prefetch.run(id(1));
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1"], "fresh: not fetched");
    app.controller().expire_all(|key| key == "GET /todos/1");
    app.fixture(&todo(), &id(1), rdc::json!({ "id": 1, "title": "oat milk" }));
    prefetch.run(id(1));
    app.run();
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/1"], "stale: fetched again");
    assert_eq!(shown.get_untracked().map(|t| t.title.clone()).as_deref(), Some("oat milk"));
}
