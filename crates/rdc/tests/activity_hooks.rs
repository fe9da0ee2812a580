//! Mutation callbacks, app-wide activity and invalidation by endpoint,
//! args and entity type, through the hooks run natively (`MockApp`).

use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Todo {
    id: u32,
    title: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
struct TodoId {
    id: u32,
}

#[derive(Debug, Clone, serde::Serialize)]
struct Rename {
    title: String,
}

fn todo() -> RestEndpoint<TodoId, (), Todo> {
    rdc::rest!(GET "/todos/:id" -> Todo, args = TodoId)
}

fn rename() -> RestEndpoint<TodoId, Rename, Todo> {
    rdc::rest!(PATCH "/todos/:id" -> Todo, args = TodoId, body = Rename)
}

fn id(id: u32) -> TodoId {
    TodoId { id }
}

#[test]
fn mutation_callbacks_run_in_order_with_the_typed_result_the_typed_error_and_the_context() {
    let app = MockApp::new();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let (a, b, c, d) = (log.clone(), log.clone(), log.clone(), log.clone());
    let renaming = app.hooks(move || {
        use_mutation(rename())
            .on_mutate(move |args: &TodoId| {
                a.lock().unwrap().push(format!("mutate {}", args.id));
                args.id * 10
            })
            .on_success(move |todo: &Todo, _, context: &u32| {
                b.lock().unwrap().push(format!("success {} {context}", todo.title))
            })
            .on_error(move |error, args, context| {
                let status = match error {
                    FetchError::Endpoint(error) => error.status().unwrap_or(0),
                    _ => 0,
                };
                c.lock().unwrap().push(format!("error {status} {} {context}", args.id));
            })
            .on_settled(move |outcome, _, context| {
                d.lock().unwrap().push(format!("settled {} {context}", outcome.is_ok()))
            })
    });
    let held = app.hold(&rename(), &id(1));
    renaming.run_with(id(1), Rename { title: "oat milk".into() });
    app.run();
    assert_eq!(*log.lock().unwrap(), ["mutate 1"], "on_mutate runs as the run starts");
    held.answer(rdc::json!({ "id": 1, "title": "oat milk" }));
    app.run();
    app.error(&rename(), &id(2), 422, rdc::json!({ "error": "too long" }));
    renaming.run_with(id(2), Rename { title: "x".repeat(300) });
    app.run();
    assert_eq!(
        *log.lock().unwrap(),
        ["mutate 1", "success oat milk 10", "settled true 10", "mutate 2", "error 422 2 20", "settled false 20"]
    );
    assert!(!renaming.pending.get_untracked());
}

#[test]
fn is_fetching_and_pending_mutations_follow_requests_and_return_to_zero_after_errors() {
    let app = MockApp::new();
    let held = app.hold(&todo(), &id(1));
    let (all, of_todos, saving, dle) = app.hooks(|| {
        (
            use_is_fetching(),
            use_is_fetching_of(todo()),
            use_pending_mutations(),
            use_dle(todo(), Signal::derive(|| Some(id(1)))),
        )
    });
    app.run();
    assert_eq!((all.get_untracked(), of_todos.get_untracked()), (1, 1), "the reader's fetch is in flight");
    held.fail(500, rdc::json!({ "error": "down" }));
    app.run();
    assert!(dle.error.get_untracked().is_some());
    assert_eq!((all.get_untracked(), of_todos.get_untracked()), (0, 0), "back to 0 after an error");

    let answer = app.hold(&rename(), &id(1));
    let pending = app.start(&rename(), id(1), Rename { title: "oat milk".into() });
    app.run();
    assert_eq!(saving.with_untracked(|s| s.iter().map(|m| m.key.clone()).collect::<Vec<_>>()), ["PATCH /todos/1"]);
    assert_eq!(all.get_untracked(), 0, "a mutation is no read");
    answer.answer(rdc::json!({ "id": 1, "title": "oat milk" }));
    app.run();
    assert!(pending.result().is_some());
    assert!(saving.with_untracked(Vec::is_empty));
}

#[test]
fn a_mounted_reader_fetches_again_when_its_endpoint_its_args_or_its_entity_type_is_invalidated() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), rdc::json!({ "id": 1, "title": "milk" }));
    let dle = app.hooks(|| use_dle(todo(), Signal::derive(|| Some(id(1)))));
    app.run();
    assert_eq!(dle.data.get_untracked().map(|t| t.title.clone()), Some("milk".into()));
    let fetches = || app.requests().len();
    assert_eq!(fetches(), 1);
    app.controller().invalidate_where(&todo(), |args: &TodoId| args.id == 2);
    app.run();
    assert_eq!(fetches(), 1, "other args: not refetched");
    app.controller().invalidate_where(&todo(), |args: &TodoId| args.id == 1);
    app.run();
    assert_eq!(fetches(), 2);
    app.controller().invalidate_endpoint(&todo());
    app.run();
    assert_eq!(fetches(), 3);
    app.controller().invalidate_entities::<Todo>();
    app.run();
    assert_eq!(fetches(), 4);
}
