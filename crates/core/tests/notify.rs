//! Targeted notification: a `listen_reads` listener wakes only for changes to
//! what its last run read, so a write costs what it changed, not what is mounted.

mod controller_support;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use controller_support::*;
use rdc_core::{Controller, Entity, Schema};
use serde::Deserialize;
use serde_json::{json, Value};

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)] // fields are there to be deserialized
struct Author {
    id: u32,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Item {
    id: u32,
    name: String,
    #[entity(nested)]
    author: Author,
}

/// A list read that only shows ids: its rows, not their authors' content.
#[derive(Debug, Deserialize)]
struct ItemId {
    id: u32,
}

fn items(n: u32, authors: u32) -> Value {
    Value::Array(
        (0..n)
            .map(|i| json!({ "id": i, "name": format!("item {i}"), "author": { "id": i % authors, "name": format!("author {}", i % authors) } }))
            .collect(),
    )
}

/// Counts the runs of a tracked listener that calls `read`.
fn counter(c: &Controller, read: impl Fn(&Controller) + 'static) -> (Rc<Cell<u32>>, u64) {
    let runs = Rc::new(Cell::new(0));
    let (seen, reader) = (Rc::clone(&runs), c.clone());
    let id = c.listen_reads(move || {
        seen.set(seen.get() + 1);
        read(&reader);
    });
    (runs, id)
}

fn list_api(server: &Rc<RefCell<Server>>) -> Api {
    Api::new(server, "GET", "/items", Some(Schema::array(Item::schema())))
}

#[test]
fn a_write_wakes_the_readers_of_what_it_changed_and_no_one_else() {
    let (c, _time, _tasks, server) = setup();
    let list = list_api(&server);
    c.set_response(&list, &json!({}), items(100, 10)).unwrap();
    let rows: Vec<_> = (0..100).map(|i| counter(&c, move |c| drop(c.entity::<Item>(&i.to_string())))).collect();
    let broad = Rc::new(Cell::new(0));
    let seen = Rc::clone(&broad);
    c.listen(move || seen.set(seen.get() + 1));

    // Author 3 writes 10 rows' worth of data: items 3, 13, ..., 93 wake.
    c.set(&Author::schema(), json!({ "id": 3, "name": "renamed" })).unwrap();
    let woken: Vec<usize> = rows.iter().enumerate().filter(|(_, (r, _))| r.get() == 2).map(|(i, _)| i).collect();
    assert_eq!(woken, (3..100).step_by(10).collect::<Vec<_>>());
    assert_eq!(broad.get(), 1, "a plain `listen` hears every change");

    // One item: one row.
    c.set(&Item::schema(), json!({ "id": 50, "name": "fifty", "author": { "id": 0 } })).unwrap();
    assert_eq!(rows[50].0.get(), 2);
    assert_eq!(rows.iter().map(|(r, _)| r.get()).sum::<u32>(), 100 + 10 + 1);

    // An unlistened reader never runs again.
    c.unlisten(rows[53].1);
    c.set(&Author::schema(), json!({ "id": 3, "name": "again" })).unwrap();
    assert_eq!(rows[53].0.get(), 2);
    assert_eq!(rows[43].0.get(), 3);
}

#[test]
fn a_list_read_follows_what_it_shows() {
    let (c, _time, _tasks, server) = setup();
    let api = list_api(&server);
    c.set_response(&api, &json!({}), items(20, 2)).unwrap();
    let reader = api.clone();
    let (ids, _) = counter(&c, move |c| drop(c.read::<_, Vec<ItemId>>(&reader, &json!({})).unwrap()));
    let reader = api.clone();
    let (full, _) = counter(&c, move |c| drop(c.read::<_, Vec<Item>>(&reader, &json!({})).unwrap()));

    // An author's name: shown by the full list only.
    c.set(&Author::schema(), json!({ "id": 1, "name": "renamed" })).unwrap();
    assert_eq!((ids.get(), full.get()), (1, 2));

    // An item's name: both read the item's row.
    c.set(&Item::schema(), json!({ "id": 4, "name": "four", "author": { "id": 0 } })).unwrap();
    assert_eq!((ids.get(), full.get()), (2, 3));

    // Deleting an author makes its items invalid: the ids list changes too.
    c.set(&Schema::invalidate::<Author>(), json!(1)).unwrap();
    assert_eq!((ids.get(), full.get()), (3, 4));
    let shown = c.read::<_, Vec<ItemId>>(&api, &json!({})).unwrap().data.unwrap();
    assert_eq!(shown.iter().map(|i| i.id).collect::<Vec<_>>(), (0..20).step_by(2).collect::<Vec<_>>());
}

#[test]
fn all_readers_wake_for_new_entities_of_their_type() {
    let (c, _time, _tasks, _server) = setup();
    let all = Schema::from(rdc_core::All::of::<Author>());
    let (runs, _) = counter(&c, move |c| drop(c.query::<Vec<Author>>("authors", &all)));
    c.set(&Item::schema(), json!({ "id": 1, "name": "x", "author": { "id": 7, "name": "Ada" } })).unwrap();
    assert_eq!(runs.get(), 2, "an author first stored wakes All(Author)");
    c.set(&Item::schema(), json!({ "id": 1, "name": "y", "author": { "id": 7 } })).unwrap();
    assert_eq!(runs.get(), 2, "an item-only change does not");
    let authors = c.query::<Vec<Author>>("authors", &Schema::from(rdc_core::All::of::<Author>())).unwrap().unwrap();
    assert_eq!(authors[0].name, "Ada");
}

#[test]
fn requests_errors_invalidation_and_reset_wake_the_readers_of_their_key() {
    let (c, _time, tasks, server) = setup();
    let api = list_api(&server);
    let other = Api::new(&server, "GET", "/other", None);
    let reader = api.clone();
    let (runs, _) = counter(&c, move |c| {
        let _ = c.is_fetching("GET /items");
        drop(c.read::<_, Vec<ItemId>>(&reader, &json!({})));
    });
    spawn_fetch(&c, &tasks, &other, json!({}), None);
    assert_eq!(runs.get(), 1, "another key's request");
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    assert_eq!(runs.get(), 2, "request started");
    server.borrow_mut().answer("GET /items", Ok(items(3, 1)));
    tasks.run();
    assert_eq!(runs.get(), 3, "answered (one wake for data and request end)");
    c.invalidate(&api, &json!({}));
    assert_eq!(runs.get(), 4);
    c.set_error(&api, &json!({}), &"500 down".to_string());
    assert_eq!(runs.get(), 5);
    c.set_error(&other, &json!({}), &"500 down".to_string());
    assert_eq!(runs.get(), 5);
    c.reset_entire_store();
    assert_eq!(runs.get(), 6);
}

#[test]
fn optimistic_layers_wake_their_readers_when_applied_and_removed() {
    let (c, _time, tasks, server) = setup();
    c.set(&Author::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    let (runs, _) = counter(&c, |c| drop(c.entity::<Author>("1")));
    let mut rename = Api::new(&server, "PUT", "/authors", Some(Author::schema()));
    rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    spawn_fetch(&c, &tasks, &rename, json!({ "id": 1 }), Some(json!({ "id": 1, "name": "Ada L." })));
    assert_eq!(c.entity::<Author>("1").unwrap().unwrap().name, "Ada L.");
    assert_eq!(runs.get(), 2);
    server.borrow_mut().answer("PUT /authors/1", Err("400 no".into()));
    tasks.run();
    assert_eq!(c.entity::<Author>("1").unwrap().unwrap().name, "Ada");
    assert_eq!(runs.get(), 3);
}

#[test]
fn a_reader_of_a_missing_entity_wakes_when_it_is_stored() {
    let (c, _time, _tasks, _server) = setup();
    c.set(&Author::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    let (runs, _) = counter(&c, |c| drop(c.entity::<Author>("2")));
    c.set(&Author::schema(), json!({ "id": 2, "name": "Bob" })).unwrap();
    assert_eq!(runs.get(), 2);
    assert_eq!(c.entity::<Author>("2").unwrap().unwrap().name, "Bob");
}
