//! Previous data and derived reads, run natively on fake time: the last args'
//! data shown with a flag while new args load (`use_keep_previous`), a
//! placeholder (`use_placeholder`), and `use_select` waking its readers only
//! when the derived value changes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use leptos::prelude::*;
use rdc::prelude::*;
use rdc::testing::MockApp;

mod todos;
use todos::{id, titled, Todo, TodoId};

/// The todo with the default expiry.
fn todo() -> RestEndpoint<TodoId, (), Todo> {
    rdc::rest!(GET "/todos/:id" -> Todo, args = TodoId)
}

/// The title shown and whether it is a stand-in.
fn shown(read: &rdc::leptos::Shown<Todo, RestError>) -> (Option<String>, bool) {
    (read.data.get_untracked().map(|t| t.title.clone()), read.is_previous.get_untracked())
}

#[test]
fn keep_previous_shows_the_last_args_data_flagged_while_the_new_args_load() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), titled(1, "milk"));
    let held = app.hold(&todo(), &id(2));
    let current = RwSignal::new(id(1));
    let read = app.hooks(|| use_keep_previous(todo(), Signal::derive(move || Some(current.get()))));
    assert_eq!(shown(&read), (Some("milk".into()), false));

    current.set(id(2));
    app.run();
    assert_eq!(shown(&read), (Some("milk".into()), true), "todo 1 stays, flagged, while todo 2 loads");
    assert!(read.loading.get_untracked());
    held.answer(titled(2, "bread"));
    app.run();
    assert_eq!(shown(&read), (Some("bread".into()), false));

    current.set(id(1));
    app.run();
    assert_eq!(shown(&read), (Some("milk".into()), false), "stored data is its own, not a stand-in");
}

#[test]
fn keep_previous_shows_no_stand_in_once_the_new_args_fail() {
    let app = MockApp::new();
    app.fixture(&todo(), &id(1), titled(1, "milk"));
    let held = app.hold(&todo(), &id(2));
    let current = RwSignal::new(id(1));
    let read = app.hooks(|| use_keep_previous(todo(), Signal::derive(move || Some(current.get()))));
    current.set(id(2));
    app.run();
    assert_eq!(shown(&read), (Some("milk".into()), true));
    held.fail(404, rdc::json!({ "error": "no todo 2" }));
    app.run();
    assert_eq!(shown(&read), (None, false), "todo 2's error, not todo 1's data");
    assert!(read.error.get_untracked().is_some());
}

#[test]
fn a_placeholder_shows_flagged_until_the_data_comes_and_is_never_stored() {
    let app = MockApp::new();
    let held = app.hold(&todo(), &id(1));
    let args = Signal::derive(|| Some(id(1)));
    let read =
        app.hooks(|| use_placeholder(todo(), args, |args: &TodoId| Some(Todo { id: args.id, title: "…".into() })));
    assert_eq!(shown(&read), (Some("…".into()), true));
    assert!(app.controller().entity::<Todo>("1").unwrap().is_none(), "the placeholder is not stored");
    held.answer(titled(1, "milk"));
    app.run();
    assert_eq!(shown(&read), (Some("milk".into()), false));
}

#[test]
fn use_select_wakes_its_reader_only_when_the_derived_value_changes() {
    let app = MockApp::new();
    let list: RestEndpoint<(), (), Vec<Todo>> = rdc::rest!(GET "/todos", schema = SchemaOf::list(Todo::schema()));
    app.fixture(&list, &(), rdc::json!([titled(1, "milk"), titled(2, "bread")]));
    app.fetch(&list, (), ()).unwrap();
    let renders = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&renders);
    let (todos, milky) = app.hooks(move || {
        let todos = use_query("every todo", All::of::<Todo>());
        let milky = use_select(todos, |todos: &Vec<Todo>| todos.iter().filter(|t| t.title.contains("milk")).count());
        Effect::new(move |_| {
            // Read as a view reads it.
            let _ = milky.get();
            counted.fetch_add(1, Ordering::SeqCst);
        });
        (todos, milky)
    });
    app.run();
    assert_eq!((milky.get_untracked(), renders.load(Ordering::SeqCst)), (Some(1), 1));

    app.controller().set_response(&todo(), &id(2), titled(2, "rye bread")).unwrap();
    app.run();
    assert_eq!(todos.get_untracked().map(|t| t[1].title.clone()).as_deref(), Some("rye bread"), "the read changed");
    assert_eq!((milky.get_untracked(), renders.load(Ordering::SeqCst)), (Some(1), 1), "the count did not: no render");

    app.controller().set_response(&todo(), &id(2), titled(2, "milk bread")).unwrap();
    app.run();
    assert_eq!((milky.get_untracked(), renders.load(Ordering::SeqCst)), (Some(2), 2));
}

#[test]
fn use_query_select_reads_a_core_query_for_its_args_and_follows_the_store() {
    let app = MockApp::new();
    let by_title =
        std::sync::Arc::new(Query::new("todos titled", All::of::<Todo>().into(), |todos: &Vec<Todo>, args| {
            todos.iter().filter(|t| args.as_str().is_some_and(|q| t.title.contains(q))).count()
        }));
    let q = RwSignal::new("milk".to_string());
    let count = app.hooks(|| use_query_select(by_title, Signal::derive(move || rdc::json::Value::from(q.get()))));
    assert_eq!(count.get_untracked().as_deref(), None, "no todo stored yet");
    app.controller().set_response(&todo(), &id(1), titled(1, "milk")).unwrap();
    app.controller().set_response(&todo(), &id(2), titled(2, "bread")).unwrap();
    app.controller().set_response(&todo(), &id(3), titled(3, "bread roll")).unwrap();
    app.run();
    assert_eq!(count.get_untracked().as_deref(), Some(&1));
    q.set("bread".into());
    app.run();
    assert_eq!(count.get_untracked().as_deref(), Some(&2), "new args select anew");
    app.controller().set_response(&todo(), &id(1), titled(1, "bread crumbs")).unwrap();
    app.run();
    assert_eq!(count.get_untracked().as_deref(), Some(&3), "a store change selects anew");
}
