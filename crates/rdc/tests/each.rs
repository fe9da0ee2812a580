//! Parallel reads, run natively on fake time: `use_dle_each` gives each args of
//! a run-time list its own data, loading and error, shares requests with every
//! other read, and follows the list as args join and leave it.

use leptos::prelude::*;
use rdc::leptos::Dle;
use rdc::prelude::*;
use rdc::testing::MockApp;

mod todos;
use todos::{id, titled, todo, Todo};

/// The titles the entries show, in order.
fn titles(rows: &Signal<Vec<Dle<Todo, RestError>>>) -> Vec<Option<String>> {
    rows.get_untracked().iter().map(|r| r.data.get_untracked().map(|t| t.title.clone())).collect()
}

fn sorted(mut requests: Vec<String>) -> Vec<String> {
    requests.sort();
    requests
}

#[test]
fn use_dle_each_gives_each_args_its_own_data_loading_and_error() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), titled(1, "milk"));
    app.error(&todo(), &id(2), 404, rdc::json!({ "error": "no todo 2" }));
    let held = app.hold(&todo(), &id(3));
    let rows = app.hooks(|| use_dle_each(todo(), Signal::derive(|| vec![id(1), id(2), id(3)])));
    assert_eq!(sorted(app.requests()), ["GET /todos/1", "GET /todos/2", "GET /todos/3"]);
    let [one, two, three] = rows.get_untracked()[..] else { panic!("three entries") };
    assert_eq!(one.data.get_untracked().map(|t| t.title.clone()).as_deref(), Some("milk"));
    assert!(!one.loading.get_untracked() && one.error.get_untracked().is_none());
    let Some(FetchError::Endpoint(RestError::Network { source, .. })) = two.error.get_untracked() else {
        panic!("the 404 as the second entry's typed error, got {:?}", two.error.get_untracked())
    };
    assert_eq!(source.status, 404);
    assert!(two.data.get_untracked().is_none() && !two.loading.get_untracked());
    assert!(
        three.loading.get_untracked() && three.data.get_untracked().is_none() && three.error.get_untracked().is_none()
    );

    held.answer(titled(3, "bread"));
    app.run();
    assert!(!three.loading.get_untracked());
    assert_eq!(titles(&rows), [Some("milk".into()), None, Some("bread".into())]);
    assert!(two.error.get_untracked().is_some(), "the other entries keep their own status");
}

#[test]
fn use_dle_each_shares_one_request_per_key_with_other_reads_and_duplicates() {
    let app = MockApp::new();
    let held = app.hold(&todo(), &id(1));
    app.fixture(&todo(), &id(2), titled(2, "bread"));
    let (loading, rows) = app.hooks(|| {
        let loading = use_fetch(todo(), Signal::derive(|| Some(id(1))));
        (loading, use_dle_each(todo(), Signal::derive(|| vec![id(1), id(2), id(1)])))
    });
    assert!(loading.get_untracked());
    assert_eq!(sorted(app.requests()), ["GET /todos/1", "GET /todos/2"], "one request per key");
    held.answer(titled(1, "milk"));
    app.run();
    assert_eq!(titles(&rows), [Some("milk".into()), Some("bread".into()), Some("milk".into())]);
    assert_eq!(app.requests().len(), 2);
}

#[test]
fn use_dle_each_adds_and_removes_entries_as_the_args_list_changes() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), titled(1, "milk"));
    app.fixture(&todo(), &id(2), titled(2, "bread"));
    let list = RwSignal::new(vec![id(1)]);
    let rows = app.hooks(|| use_dle_each(todo(), list));
    assert_eq!(titles(&rows), [Some("milk".into())]);

    list.set(vec![id(1), id(2)]);
    app.run();
    assert_eq!(titles(&rows), [Some("milk".into()), Some("bread".into())]);
    assert_eq!(app.requests(), ["GET /todos/1", "GET /todos/2"], "a joining args is fetched, a staying one is not");

    list.set(vec![id(2)]);
    app.run();
    assert_eq!(titles(&rows), [Some("bread".into())]);
    app.controller().invalidate(&todo(), &id(1));
    app.controller().invalidate(&todo(), &id(2));
    app.run();
    assert_eq!(
        app.requests(),
        ["GET /todos/1", "GET /todos/2", "GET /todos/2"],
        "the entry that stayed fetches again when invalid; the removed one no longer reads"
    );
    assert_eq!(titles(&rows), [Some("bread".into())]);
}
