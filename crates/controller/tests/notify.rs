//! Targeted notification: a `listen_reads` listener wakes only for changes to
//! what its last run read, so a write costs what it changed, not what is mounted.

mod cells;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use std::sync::Arc;

use controller_support::*;
use rdc_controller::Controller;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, Pk, Schema};
use serde::Deserialize;

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
fn counter(c: &Controller, read: impl Fn(&Controller) + Send + Sync + 'static) -> (Arc<SyncCell<u32>>, u64) {
    let runs = Arc::new(SyncCell::new(0));
    let (seen, reader) = (Arc::clone(&runs), c.clone());
    let id = c.listen_reads(move || {
        seen.set(seen.get() + 1);
        read(&reader);
    });
    (runs, id)
}

fn list_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/items", Some(Schema::array(Item::schema())))
}

#[test]
fn a_write_wakes_the_readers_of_what_it_changed_and_no_one_else() {
    let (c, _time, _tasks, server) = setup();
    let list = list_api(&server);
    c.set_response(&list, &json!({}), items(100, 10)).unwrap();
    let rows: Vec<_> = (0..100).map(|i| counter(&c, move |c| drop(c.entity::<Item>(&i.to_string())))).collect();
    let broad = Arc::new(SyncCell::new(0));
    let seen = Arc::clone(&broad);
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

    // An item's name: both read the item's row, only the full list its name
    // (the ids list is not even woken: the write changed no field it looked at).
    c.set(&Item::schema(), json!({ "id": 4, "name": "four", "author": { "id": 0 } })).unwrap();
    assert_eq!((ids.get(), full.get()), (1, 3));

    // An item's author decides its validity: the ids list looks again.
    c.set(&Item::schema(), json!({ "id": 4, "name": "four", "author": { "id": 1 } })).unwrap();
    assert_eq!((ids.get(), full.get()), (2, 4));

    // Deleting an author makes its items invalid: the ids list changes too.
    c.set(&Schema::invalidate::<Author>(), json!(1)).unwrap();
    assert_eq!((ids.get(), full.get()), (3, 5));
    let shown = c.read::<_, Vec<ItemId>>(&api, &json!({})).unwrap().data.unwrap();
    let by_author_0 = (0..20).filter(|i| i % 2 == 0 && *i != 4);
    assert_eq!(shown.iter().map(|i| i.id).collect::<Vec<_>>(), by_author_0.collect::<Vec<_>>());
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
    let mut rename = Api::new(&server, "PUT", "/authors", Some(Author::schema().into()));
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

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Person {
    id: u32,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Article {
    id: u32,
    title: String,
    #[entity(nested)]
    author: Person,
    #[entity(nested)]
    editor: Option<Person>,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Remark {
    id: u32,
    #[entity(nested)]
    article: Article,
}

/// Shows titles only.
#[derive(Debug, Deserialize)]
struct Title {
    id: u32,
}

#[test]
fn validity_follows_where_required_references_point_even_when_unread() {
    let (c, _time, _tasks, server) = setup();
    let articles = Api::new(&server, "GET", "/articles", Some(Schema::array(Article::schema())));
    let remarks = Api::new(&server, "GET", "/remarks", Some(Schema::array(Remark::schema())));
    let a = |id: u32, author: u32| json!({ "id": id, "title": "t", "author": { "id": author, "name": "P" } });
    c.set_response(&articles, &json!({}), json!([a(1, 10), a(2, 11)])).unwrap();
    c.set_response(&remarks, &json!({}), json!([{ "id": 5, "article": a(1, 10) }])).unwrap();
    let reader = articles.clone();
    let (list_runs, _) = counter(&c, move |c| drop(c.read::<_, Vec<Title>>(&reader, &json!({}))));
    let reader = remarks.clone();
    let (remark_runs, _) = counter(&c, move |c| drop(c.read::<_, Vec<Title>>(&reader, &json!({}))));
    let ids = |c: &Controller, api: &Api| {
        c.read::<_, Vec<Title>>(api, &json!({})).unwrap().data.unwrap().iter().map(|t| t.id).collect::<Vec<_>>()
    };
    assert_eq!(ids(&c, &articles), vec![1, 2]);

    // Article 1 now points at an author the store does not have: it is invalid, and
    // so is the remark on it, although neither read shows the author.
    c.set(&Schema::array(Article::schema()), json!([{ "id": 1, "title": "t", "author": 99 }])).unwrap();
    assert!(list_runs.get() >= 2 && remark_runs.get() >= 2, "both readers woken");
    assert_eq!(ids(&c, &articles), vec![2]);
    assert_eq!(ids(&c, &remarks), Vec::<u32>::new());
}

#[test]
fn an_optional_reference_that_starts_resolving_is_read() {
    #[derive(Debug, Deserialize)]
    struct WithEditor {
        editor: Option<Person>,
    }
    let (c, _time, _tasks, server) = setup();
    let articles = Api::new(&server, "GET", "/articles", Some(Schema::array(Article::schema())));
    c.set(&Person::schema(), json!({ "id": 10, "name": "Ada" })).unwrap();
    let article = |editor: Value| json!([{ "id": 1, "title": "t", "author": 10, "editor": editor }]);
    c.set_response(&articles, &json!({}), article(json!(77))).unwrap();
    let read = |c: &Controller| c.read::<_, Vec<WithEditor>>(&articles, &json!({})).unwrap().data.unwrap();
    assert!(read(&c)[0].editor.is_none(), "editor 77 is not stored");
    // Now it points at a person already stored (that person's row does not change).
    c.set(&Schema::array(Article::schema()), article(json!({ "id": 10, "name": "Ada" }))).unwrap();
    assert_eq!(read(&c)[0].editor.as_ref().map(|p| p.name.as_str()), Some("Ada"));
}

#[test]
fn a_read_that_failed_is_woken_and_read_again_when_a_write_fixes_it() {
    /// Needs a field the stored articles do not have yet.
    #[derive(Debug, Deserialize)]
    struct Strict {
        pages: u32,
    }
    let (c, _time, _tasks, server) = setup();
    let articles = Api::new(&server, "GET", "/articles", Some(Schema::array(Article::schema())));
    let a = json!([{ "id": 1, "title": "x", "author": { "id": 10, "name": "P" } }]);
    c.set_response(&articles, &json!({}), a).unwrap();
    let reader = articles.clone();
    let (runs, _) = counter(&c, move |c| drop(c.read::<_, Vec<Strict>>(&reader, &json!({}))));
    assert!(c.read::<_, Vec<Strict>>(&articles, &json!({})).is_err(), "no `pages` yet");
    // The entity is fixed by a write that is not this key's result.
    c.set(&Article::schema(), json!({ "id": 1, "title": "x", "author": 10, "pages": 7 })).unwrap();
    assert_eq!(runs.get(), 2);
    let read = c.read::<_, Vec<Strict>>(&articles, &json!({})).unwrap().data.unwrap();
    assert_eq!(read[0].pages, 7);
}

#[test]
fn a_layer_removed_without_a_base_write_shows_the_base_again() {
    let (c, _time, tasks, server) = setup();
    c.set(&Person::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    let mut rename = Api::new(&server, "PUT", "/people", Some(Person::schema().into()));
    rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    let (_, abort) = c.fetch_cancellable(&rename, json!({ "id": 1 }), Some(json!({ "id": 1, "name": "Optimistic" })));
    tasks.run();
    assert_eq!(c.entity::<Person>("1").unwrap().unwrap().name, "Optimistic");
    abort.abort();
    server.borrow_mut().answer("PUT /people/1", Ok(json!({ "id": 1, "name": "Late" })));
    tasks.run();
    assert_eq!(c.entity::<Person>("1").unwrap().unwrap().name, "Ada", "aborted: nothing stored, the layer gone");
}

#[test]
fn a_row_index_an_optimistic_layer_used_is_not_trusted_after_it_goes() {
    let (c, _time, tasks, server) = setup();
    let articles = Api::new(&server, "GET", "/articles", Some(Schema::array(Article::schema())));
    c.set(&Person::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    // Article 5's author, person 9, is not stored: the article is left out.
    c.set_response(&articles, &json!({}), json!([{ "id": 5, "title": "t", "author": 1 }])).unwrap();
    c.set(&Article::schema(), json!({ "id": 5, "title": "t", "author": 9 })).unwrap();
    let keys = |c: &Controller| c.read::<_, Vec<Pk>>(&articles, &json!({})).unwrap().data.unwrap();
    assert!(keys(&c).is_empty());
    // An optimistic create of person 9 makes it valid while the request runs...
    let mut create = Api::new(&server, "POST", "/people", Some(Person::schema().into()));
    create.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    let (_, _abort) = c.fetch_cancellable(&create, json!({}), Some(json!({ "id": 9, "name": "Nine" })));
    tasks.run();
    assert_eq!(*keys(&c), vec![Pk("5".into())]);
    // ...then the server creates person 42 instead (at the row index 9 had).
    server.borrow_mut().answer("POST /people", Ok(json!({ "id": 42, "name": "Other" })));
    tasks.run();
    assert!(keys(&c).is_empty(), "person 9 was never stored");
}

#[test]
fn while_an_optimistic_update_is_pending_a_write_wakes_only_the_readers_of_what_changed() {
    let (c, _time, tasks, server) = setup();
    for (id, name) in [(1, "Ada"), (2, "Bob"), (3, "Cy")] {
        c.set(&Author::schema(), json!({ "id": id, "name": name })).unwrap();
    }
    let (renamed, _) = counter(&c, |c| drop(c.entity::<Author>("1")));
    let (written, _) = counter(&c, |c| drop(c.entity::<Author>("2")));
    let (untouched, _) = counter(&c, |c| drop(c.entity::<Author>("3")));
    let mut rename = Api::new(&server, "PUT", "/authors", Some(Author::schema().into()));
    rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    spawn_fetch(&c, &tasks, &rename, json!({ "id": 1 }), Some(json!({ "id": 1, "name": "Ada L." })));
    assert_eq!((renamed.get(), written.get(), untouched.get()), (2, 1, 1), "the layer wakes its row's reader only");
    let shown = c.entity::<Author>("1").unwrap().unwrap();
    c.set(&Author::schema(), json!({ "id": 2, "name": "Bob B." })).unwrap();
    assert_eq!(written.get(), 2);
    assert_eq!(untouched.get(), 1, "a row neither the write nor the layer touched");
    assert_eq!(renamed.get(), 2, "the layer's row reads as before the write");
    // The layer was taken back and put on again around the write: its row reads
    // the same data, as the same `Arc`.
    assert!(Arc::ptr_eq(&shown, &c.entity::<Author>("1").unwrap().unwrap()));
    assert_eq!(c.entity::<Author>("2").unwrap().unwrap().name, "Bob B.");
    server.borrow_mut().answer("PUT /authors/1", Ok(json!({ "id": 1, "name": "Ada Lovelace" })));
    tasks.run();
    assert_eq!(c.entity::<Author>("1").unwrap().unwrap().name, "Ada Lovelace");
    assert_eq!(untouched.get(), 1);
}

#[test]
fn a_pending_optimistic_create_keeps_unrelated_reads_identical() {
    let (c, _time, tasks, server) = setup();
    let list = list_api(&server);
    c.set(&Author::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    c.set_response(&list, &json!({}), json!([{ "id": 1, "name": "a", "author": 1 }])).unwrap();
    let mut create = Api::new(&server, "POST", "/authors", Some(Author::schema().into()));
    create.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    spawn_fetch(&c, &tasks, &create, json!({}), Some(json!({ "id": 9, "name": "New" })));
    assert_eq!(c.entity::<Author>("9").unwrap().unwrap().name, "New");
    let items = |c: &Controller| c.read::<_, Vec<Pk>>(&list, &json!({})).unwrap().data.unwrap();
    let before = items(&c);
    // A write elsewhere takes the layer back and puts it on again: its new row
    // lands at the same index, so nothing a reader saw changed.
    c.set(&Author::schema(), json!({ "id": 1, "name": "Ada L." })).unwrap();
    assert!(Arc::ptr_eq(&before, &items(&c)));
    assert_eq!(c.entity::<Author>("9").unwrap().unwrap().name, "New");
    server.borrow_mut().answer("POST /authors", Ok(json!({ "id": 9, "name": "Created" })));
    tasks.run();
    assert_eq!(c.entity::<Author>("9").unwrap().unwrap().name, "Created");
}

#[test]
fn when_the_later_of_two_layers_on_one_row_goes_its_readers_see_the_earlier_one() {
    let (c, _time, tasks, server) = setup();
    c.set(&Author::schema(), json!({ "id": 1, "name": "Ada" })).unwrap();
    let seen = Arc::new(SyncRefCell::new(String::new()));
    let (shown, reader) = (Arc::clone(&seen), c.clone());
    c.listen_reads(move || {
        *shown.borrow_mut() = reader.entity::<Author>("1").unwrap().map(|a| a.name.clone()).unwrap_or_default();
    });
    let mut rename = Api::new(&server, "PUT", "/authors", Some(Author::schema().into()));
    rename.optimistic = Some(|_, body| body.cloned().unwrap_or_default());
    spawn_fetch(&c, &tasks, &rename, json!({ "id": 1 }), Some(json!({ "id": 1, "name": "A" })));
    spawn_fetch(&c, &tasks, &rename, json!({ "id": 1 }), Some(json!({ "id": 1, "name": "B" })));
    assert_eq!(*seen.borrow(), "B");
    // The later request fails: its layer goes, the earlier one still shows.
    server.borrow_mut().answer_nth("PUT /authors/1", 1, Err("400 no".into()));
    tasks.run();
    assert_eq!(*seen.borrow(), "A", "the reader was woken by the row going back to the first layer");
    assert_eq!(c.entity::<Author>("1").unwrap().unwrap().name, "A");
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Member {
    id: u32,
    email: String,
}

/// A read by a unique field other than the pk follows whichever row holds the
/// value: its listener wakes when another member takes the email, and reads
/// that member then.
#[test]
fn a_read_by_email_follows_whichever_member_holds_it() {
    let (c, _time, _tasks, _server) = setup();
    let member = |id: u32, email: &str| json!({ "id": id, "email": email });
    c.set(&Member::schema(), member(1, "ada@example.com")).unwrap();
    let seen: Arc<SyncRefCell<Vec<Option<u32>>>> = Arc::default();
    let (log, reader) = (Arc::clone(&seen), c.clone());
    c.listen_reads(move || {
        let found = reader.entity_by::<Member>("email", &json!("ada@example.com")).unwrap();
        log.borrow_mut().push(found.map(|m| m.id));
    });
    c.set(&Member::schema(), member(1, "ada@elsewhere.org")).unwrap();
    c.set(&Member::schema(), member(2, "ada@example.com")).unwrap();
    assert_eq!(*seen.borrow(), [Some(1), None, Some(2)]);
}

/// A `listen_changes` listener that panics on one change is told the changes
/// queued after it at its next run: none is lost with the panic.
#[test]
fn a_change_listener_that_panics_is_told_the_rest_of_its_batch_later() {
    use std::panic::{catch_unwind, AssertUnwindSafe};
    let time = rdc_controller::FakeTime::default();
    let c = Controller::new(time.clone(), time, rdc_controller::LocalTasks::default());
    // Woken first; panics once, so the change listener stays queued with a change.
    let armed = Arc::new(SyncCell::new(true));
    let arm = Arc::clone(&armed);
    c.listen(move || assert!(!arm.replace(false), "the first listener panics once"));
    let told: Arc<SyncRefCell<Vec<u64>>> = Arc::default();
    let (seen, panicked) = (Arc::clone(&told), SyncCell::new(false));
    c.listen_changes(move |_, version| {
        seen.borrow_mut().push(version);
        assert!(panicked.replace(true), "the change listener panics on its first change");
    });
    let write = |name: &str| {
        catch_unwind(AssertUnwindSafe(|| c.set(&Author::schema(), json!({ "id": 1, "name": name })).map(|_| ())))
    };
    assert!(write("a").is_err(), "the first listener panicked");
    assert!(told.borrow().is_empty(), "the change listener is still queued");
    assert!(write("b").is_err(), "the change listener panicked on the first of its two changes");
    assert_eq!(told.borrow().len(), 1);
    assert!(matches!(write("c"), Ok(Ok(()))));
    let told = told.borrow();
    assert_eq!(told.len(), 3, "told of the second change after all, then the third: {told:?}");
    assert!(told.windows(2).all(|w| w[0] < w[1]), "in order: {told:?}");
}
