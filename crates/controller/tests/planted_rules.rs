//! Tests written for core rules in which a planted bug went uncaught, or was
//! caught by a single test only (#27 item 14): staging, wake-up and identity.
//!
//! Staging (ARCHITECTURE invariant 3: a failed normalize leaves the store
//! exactly as it was): the controller-level test's bad item comes first, so
//! nothing was staged when normalizing failed. Here it comes last, after a changed entity,
//! a new one and an unchanged one were staged, both for an error the walk finds
//! (a missing primary key) and one the commit's field check finds (a field of
//! the wrong type).

mod cells;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use std::sync::Arc;

use controller_support::*;
use rdc_controller::{Controller, FetchError};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{All, Entity, NormalizeError, Schema, State};
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)] // fields are there to be deserialized
struct Author {
    id: u32,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Post {
    id: u32,
    title: String,
    #[entity(nested)]
    author: Author,
}

const KEY: &str = "GET /posts";

fn posts_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/posts", Some(Schema::array(Post::schema())))
}

/// What the store holds before the bad response: two posts by two authors.
fn stored() -> Value {
    json!([
        { "id": 1, "title": "first", "author": { "id": 1, "name": "Ada" } },
        { "id": 2, "title": "second", "author": { "id": 2, "name": "Bob" } },
    ])
}

/// A response whose first three items normalize (a changed post and author, a
/// new post and author, an unchanged post and author) and whose last is `bad`.
fn good_then(bad: Value) -> Value {
    let Value::Array(mut items) = json!([
        { "id": 1, "title": "first, edited", "author": { "id": 1, "name": "Ada L." } },
        { "id": 3, "title": "third", "author": { "id": 3, "name": "Cy" } },
        { "id": 2, "title": "second", "author": { "id": 2, "name": "Bob" } },
    ]) else {
        unreachable!("an array literal")
    };
    items.push(bad);
    Value::Array(items)
}

/// The last item has no primary key: the walk fails at `[3]`.
fn no_pk() -> Value {
    json!({ "title": "no id", "author": { "id": 1, "name": "Ada" } })
}

/// The last item's title is a number: the commit's field check fails at `[3].title`.
fn wrong_type() -> Value {
    json!({ "id": 4, "title": 4, "author": { "id": 2 } })
}

/// Tracked readers of the entities the good items would change or create, and
/// of the whole post table; their run counts.
fn readers(c: &Controller) -> Vec<Arc<SyncCell<u32>>> {
    let reads: Vec<Box<dyn Fn(&Controller) + Send + Sync>> = vec![
        Box::new(|c| drop(c.entity::<Post>("1"))),
        Box::new(|c| drop(c.entity::<Post>("3"))),
        Box::new(|c| drop(c.entity::<Author>("1"))),
        Box::new(|c| drop(c.entity::<Author>("3"))),
        Box::new(|c| drop(c.query::<Vec<Post>>("all posts", &Schema::from(All::of::<Post>())))),
    ];
    reads
        .into_iter()
        .map(|read| {
            let runs = Arc::new(SyncCell::new(0));
            let (seen, reader) = (Arc::clone(&runs), c.clone());
            c.listen_reads(move || {
                seen.set(seen.get() + 1);
                read(&reader);
            });
            runs
        })
        .collect()
}

fn runs(readers: &[Arc<SyncCell<u32>>]) -> Vec<u32> {
    readers.iter().map(|r| r.get()).collect()
}

/// Every table, row and result of `after` is the one `before` had: the same
/// keys in the same order, the same versions and times, the same objects (the
/// identical `Arc`s: nothing was even rewritten).
fn assert_same_data(before: &State, after: &State) {
    let mut tables: Vec<&String> = before.tables().keys().collect();
    tables.sort();
    let mut now: Vec<&String> = after.tables().keys().collect();
    now.sort();
    assert_eq!(now, tables, "the same tables");
    for name in tables {
        let (old, new) = (&before.tables()[name], &after.tables()[name]);
        assert_eq!(new.version, old.version, "table {name}'s version");
        let old_keys: Vec<&str> = old.rows.keys().map(|k| k.as_str()).collect();
        let new_keys: Vec<&str> = new.rows.keys().map(|k| k.as_str()).collect();
        assert_eq!(new_keys, old_keys, "table {name}'s rows");
        for ((pk, old), new) in old.rows.iter().zip(new.rows.values()) {
            assert_eq!((new.version, new.meta), (old.version, old.meta), "{name} {pk}'s version and times");
            match (&old.value, &new.value) {
                (Some(old), Some(new)) => assert!(Arc::ptr_eq(old, new), "{name} {pk} is the object it was"),
                (None, None) => {}
                (old, new) => panic!("{name} {pk} went from {old:?} to {new:?}"),
            }
        }
    }
    let mut keys: Vec<&String> = before.result_keys().collect();
    keys.sort();
    let mut now: Vec<&String> = after.result_keys().collect();
    now.sort();
    assert_eq!(now, keys, "the same results");
    for key in keys {
        let (old, new) = (before.result(key).unwrap(), after.result(key).unwrap());
        assert!(Arc::ptr_eq(&old.value, &new.value), "result {key} is the value it was");
        assert_eq!((new.version, new.meta), (old.version, old.meta), "result {key}'s version and times");
    }
}

/// A fetch answered with `response` fails with `expected` and stores none of
/// the response: the only write is the error's record.
fn fetch_fails_and_stores_nothing(response: Value, expected: impl Fn(&NormalizeError) -> bool) {
    let (c, time, tasks, server) = setup();
    let api = posts_api(&server);
    c.set_response(&api, &json!({}), stored()).unwrap();
    time.advance(1_000);
    let readers = readers(&c);
    let woken = runs(&readers);
    let list = c.read::<_, Vec<Post>>(&api, &json!({})).unwrap().data.unwrap();
    let post = c.entity::<Post>("1").unwrap().unwrap();
    let before = c.snapshot();

    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer(KEY, Ok(response));
    tasks.run();

    let error = match out.borrow().clone() {
        Some(Err(FetchError::Normalize(error))) => error,
        other => panic!("expected a normalize error, got {other:?}"),
    };
    assert!(expected(&error), "unexpected error: {error:?}");
    let after = c.snapshot();
    assert_same_data(&before, &after);
    assert_eq!(after.version(), before.version() + 1, "the error's record is the one write");
    assert_eq!(after.error(KEY).map(|e| e.message.clone()), Some(error.to_string()));
    assert_eq!(runs(&readers), woken, "no reader of the entities or their table is woken");
    assert!(Arc::ptr_eq(&c.entity::<Post>("1").unwrap().unwrap(), &post));
    assert!(c.entity::<Post>("3").unwrap().is_none());
    let read = c.read::<_, Vec<Post>>(&api, &json!({})).unwrap();
    assert!(Arc::ptr_eq(&read.data.unwrap(), &list), "the stored list reads as it did");
    assert_eq!(read.error.map(|e| e.message), Some(error.to_string()));
}

#[test]
fn a_fetch_whose_last_item_has_no_pk_stores_none_of_the_items_before_it() {
    fetch_fails_and_stores_nothing(good_then(no_pk()), |error| {
        *error == NormalizeError::MissingPrimaryKey { entity: "Post", path: "[3]".into() }
    });
}

#[test]
fn a_fetch_whose_last_item_has_a_field_of_the_wrong_type_stores_none_of_the_items_before_it() {
    fetch_fails_and_stores_nothing(
        good_then(wrong_type()),
        |error| matches!(error, NormalizeError::InvalidField { entity: "Post", path, .. } if path == "[3].title"),
    );
}

#[test]
fn a_direct_set_whose_last_item_fails_leaves_the_store_exactly_as_it_was() {
    for (bad, path) in [(no_pk(), "[3]"), (wrong_type(), "[3].title")] {
        let (c, time, _tasks, server) = setup();
        c.set_response(&posts_api(&server), &json!({}), stored()).unwrap();
        time.advance(1_000);
        let readers = readers(&c);
        let woken = runs(&readers);
        let broad = Arc::new(SyncCell::new(0));
        let seen = Arc::clone(&broad);
        c.listen(move || seen.set(seen.get() + 1));
        let before = c.snapshot();

        let error = c.set(&Schema::array(Post::schema()), good_then(bad)).unwrap_err();
        let error_path = match &error {
            NormalizeError::MissingPrimaryKey { path, .. } | NormalizeError::InvalidField { path, .. } => path,
            other => panic!("unexpected error: {other:?}"),
        };
        assert_eq!(error_path, path);
        let after = c.snapshot();
        assert_same_data(&before, &after);
        assert_eq!(after.version(), before.version(), "nothing was written");
        assert_eq!(runs(&readers), woken, "no tracked reader is woken");
        assert_eq!(broad.get(), 0, "nor any listener: nothing changed");
    }
}

// Wake-up (invariant 7: a tracked listener is woken by every change to
// something its last run read). A read that meets one row through two types
// that look at different fields must follow both fields: no other test caught
// the fields of a row's later records being dropped when its topics are
// recorded (only reads of more than a few dependencies merge them there).

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Person {
    id: u32,
    name: String,
    email: String,
}

/// A person as a task's owner: the name only.
#[derive(Debug, Deserialize)]
struct Named {
    name: String,
}

/// A person as a task's reviewer: the email only.
#[derive(Debug, Deserialize)]
struct Mailed {
    email: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Task {
    id: u32,
    #[entity(nested, schema = "Person::schema()")]
    owner: Named,
    #[entity(nested, schema = "Person::schema()")]
    reviewer: Mailed,
}

#[test]
fn a_row_read_through_two_types_wakes_its_reader_for_a_change_to_either_types_fields() {
    let (c, _time, _tasks, _server) = setup();
    let person = json!({ "id": 1, "name": "Ada", "email": "ada@example.com" });
    let tasks: Vec<Value> =
        (0..6).map(|i| json!({ "id": i, "owner": person.clone(), "reviewer": { "id": 1 } })).collect();
    c.set(&Schema::array(Task::schema()), Value::Array(tasks)).unwrap();
    let seen = Arc::new(SyncRefCell::new(Vec::new()));
    let (shown, reader) = (Arc::clone(&seen), c.clone());
    c.listen_reads(move || {
        let tasks = reader.query::<Vec<Task>>("tasks", &Schema::from(All::of::<Task>())).unwrap().unwrap();
        shown.borrow_mut().push((tasks[5].owner.name.clone(), tasks[5].reviewer.email.clone()));
    });
    let ada = || ("Ada".to_owned(), "ada@example.com".to_owned());
    assert_eq!(*seen.borrow(), [ada()]);

    // Only the reviewers read the email: it is read all the same.
    c.set(&Person::schema(), json!({ "id": 1, "name": "Ada", "email": "ada@example.org" })).unwrap();
    let org = ("Ada".to_owned(), "ada@example.org".to_owned());
    assert_eq!(*seen.borrow(), [ada(), org.clone()], "an email change wakes the reader");

    // Only the owners read the name.
    c.set(&Person::schema(), json!({ "id": 1, "name": "Ada L.", "email": "ada@example.org" })).unwrap();
    let renamed = ("Ada L.".to_owned(), "ada@example.org".to_owned());
    assert_eq!(*seen.borrow(), [ada(), org, renamed], "a name change wakes the reader");
}

// Identity (invariant 2: unchanged data reads back as the same `Arc`). A
// refetch that brings what is stored (its keys in another order) must leave
// every read of it identical: the result kept (a result replaced by an equal one
// was caught by one state-level test only) and every row's version kept (no
// test caught a write that changes nothing bumping it, as a collection's row
// is read by version alone).

#[test]
fn a_refetch_of_the_same_data_reads_back_as_the_same_arcs() {
    let (c, time, tasks, server) = setup();
    let list = posts_api(&server);
    let one = Api::new(&server, "GET", "/posts", Some(Post::schema().into()));
    let collection = Api::new(&server, "GET", "/feed", Some(rdc_core::Collection::of("Feed", Post::schema()).into()));
    let reordered = json!([
        { "author": { "name": "Ada", "id": 1 }, "title": "first", "id": 1 },
        { "id": 2, "title": "second", "author": { "id": 2, "name": "Bob" } },
    ]);
    let fetch_all = |posts: &Value| {
        for (api, args, body) in [
            (&list, json!({}), posts.clone()),
            (&one, json!({ "id": "1" }), posts[0].clone()),
            (&collection, json!({}), posts.clone()),
        ] {
            let out = spawn_fetch(&c, &tasks, api, args, None);
            let key = server.borrow().requests.last().unwrap().0.clone();
            server.borrow_mut().answer(&key, Ok(body));
            tasks.run();
            assert!(matches!(*out.borrow(), Some(Ok(_))), "{key}: {:?}", out.borrow());
        }
    };
    let reads = || {
        (
            c.read::<_, Vec<Post>>(&list, &json!({})).unwrap().data.unwrap(),
            c.read::<_, Post>(&one, &json!({ "id": "1" })).unwrap().data.unwrap(),
            c.read::<_, Vec<Post>>(&collection, &json!({})).unwrap().data.unwrap(),
            c.entity::<Author>("1").unwrap().unwrap(),
            c.query::<Vec<Post>>("all posts", &Schema::from(All::of::<Post>())).unwrap().unwrap(),
        )
    };
    fetch_all(&stored());
    let before = reads();
    assert_eq!(before.2.len(), 2);
    time.advance(61_000);
    fetch_all(&reordered);
    let after = reads();
    assert!(Arc::ptr_eq(&before.0, &after.0), "the list result");
    assert!(Arc::ptr_eq(&before.1, &after.1), "the single result");
    assert!(Arc::ptr_eq(&before.2, &after.2), "the collection");
    assert!(Arc::ptr_eq(&before.3, &after.3), "an entity");
    assert!(Arc::ptr_eq(&before.4, &after.4), "every post");
}
