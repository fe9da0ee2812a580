//! Typed reads: stable identity, nested entities, deletions, cycles.

mod common;

use std::sync::Arc;

use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, MemoCache, ReadError, Schema, State, WriteMeta};

fn articles() -> Schema {
    Schema::array(Article::schema())
}

fn seed(state: &mut State) {
    let wire = json!([
        { "id": 1, "title": "One", "author": { "id": "u1", "name": "Ada" },
          "comments": [ { "id": 10, "text": "hi", "author": { "id": "u2", "name": "Grace" } },
                        { "id": 11, "text": "yo", "author": { "id": "u1", "name": "Ada" } } ] },
        { "id": 2, "title": "Two", "author": { "id": "u2", "name": "Grace" } }
    ]);
    write(state, "GET /articles", &articles(), wire, 1);
}

#[test]
fn every_entity_is_stored_once_and_nested_values_become_references() {
    let mut state = State::default();
    seed(&mut state);
    assert_eq!(state.tables()["User"].rows.len(), 2);
    let article = state.entity("Article", "1").unwrap().value.as_ref().unwrap();
    assert_eq!(article["author"], json!("u1"));
    assert_eq!(article["comments"], json!(["10", "11"]));
    assert_eq!(state.result("GET /articles").unwrap().value, Arc::new(json!(["1", "2"])));
}

#[test]
fn reading_unchanged_data_twice_returns_the_same_arc() {
    let mut state = State::default();
    seed(&mut state);
    let mut memo = MemoCache::default();
    let a = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    let b = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(a[0].comments[0].author.as_ref().unwrap().name, "Grace");
    // Writing identical data changes nothing a reader sees: still the same Arc.
    seed(&mut state);
    let c = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert!(Arc::ptr_eq(&a, &c));
}

#[test]
fn an_update_from_another_endpoint_shows_in_every_read_that_uses_the_entity() {
    let mut state = State::default();
    seed(&mut state);
    let mut memo = MemoCache::default();
    let before = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    let unrelated_before = memo.entity::<User>(&state, "u1").unwrap().unwrap();
    write(&mut state, "GET /users/u2", &User::schema(), json!({ "id": "u2", "name": "Grace Hopper" }), 2);
    let after = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(after[1].author.name, "Grace Hopper");
    assert_eq!(after[0].comments[0].author.as_ref().unwrap().name, "Grace Hopper");
    // A read that does not depend on u2 keeps its identity.
    let unrelated_after = memo.entity::<User>(&state, "u1").unwrap().unwrap();
    assert!(Arc::ptr_eq(&unrelated_before, &unrelated_after));
}

#[test]
fn deleted_entities_drop_out_of_lists_and_optional_fields_read_none() {
    let mut state = State::default();
    seed(&mut state);
    write(&mut state, "DELETE /comments/11", &Schema::invalidate::<Comment>(), json!("11"), 2);
    let list = denormalize::<Vec<Article>>(&state, &articles(), &state.result("GET /articles").unwrap().value)
        .unwrap()
        .unwrap();
    assert_eq!(list[0].comments.len(), 1);
    write(&mut state, "DELETE /users/u2", &Schema::invalidate::<User>(), json!({ "id": "u2" }), 3);
    let list = denormalize::<Vec<Article>>(&state, &articles(), &state.result("GET /articles").unwrap().value)
        .unwrap()
        .unwrap();
    // Article 2 required author u2: it is invalid now and left out.
    assert_eq!(list.iter().map(|a| a.id).collect::<Vec<_>>(), [1]);
    // The comment's optional author reads None.
    assert_eq!(list[0].comments[0].author, None);
    // Read on its own, the invalid article is "not found".
    assert!(MemoCache::default().entity::<Article>(&state, "2").unwrap().is_none());
}

#[test]
fn a_missing_entity_is_not_found() {
    let state = State::default();
    assert!(MemoCache::default().entity::<User>(&state, "nobody").unwrap().is_none());
    assert!(MemoCache::default()
        .read_result::<Vec<User>>(&state, "GET /users", &Schema::array(User::schema()))
        .unwrap()
        .is_none());
}

#[test]
fn an_older_deletion_does_not_remove_newer_data_and_newer_data_revives_a_deleted_entity() {
    let mut state = State::default();
    write(&mut state, "u", &User::schema(), json!({ "id": "1", "name": "A" }), 10);
    write(&mut state, "d", &Schema::invalidate::<User>(), json!("1"), 5);
    assert!(state.entity("User", "1").is_some());
    write(&mut state, "d", &Schema::invalidate::<User>(), json!("1"), 20);
    assert!(state.entity("User", "1").is_none());
    write(&mut state, "u", &User::schema(), json!({ "id": "1", "name": "B" }), 15);
    assert!(state.entity("User", "1").is_none(), "data fetched before the deletion stays deleted");
    write(&mut state, "u", &User::schema(), json!({ "id": "1", "name": "C" }), 30);
    assert_eq!(MemoCache::default().entity::<User>(&state, "1").unwrap().unwrap().name, "C");
}

#[test]
fn cycles_read_without_overflowing_the_stack() {
    let mut state = State::default();
    let wire = json!({ "id": 1, "name": "A", "best_friend": { "id": 2, "name": "B", "best_friend": { "id": 1, "name": "A" },
                       "friends": [ { "id": 1 } ] }, "friends": [ { "id": 2 } ] });
    write(&mut state, "p", &Person::schema(), wire, 1);
    let a = MemoCache::default().entity::<Person>(&state, "1").unwrap().unwrap();
    assert_eq!(a.name, "A");
    let b = a.best_friend.as_ref().unwrap();
    assert_eq!(b.name, "B");
    // B's best friend is A again, read once more with its own links cut.
    let a_again = b.best_friend.as_ref().unwrap();
    assert_eq!(a_again.id, 1);
    assert!(a_again.friends.is_empty() && a_again.best_friend.is_none());
    assert_eq!(a.friends[0].name, "B");
}

#[test]
fn a_type_mismatch_at_read_names_the_path() {
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct WrongUser {
        id: u64,
    }
    let mut state = State::default();
    write(&mut state, "GET /users", &Schema::array(User::schema()), json!([{ "id": "a", "name": "A" }]), 1);
    let err = MemoCache::default()
        .read_result::<Vec<WrongUser>>(&state, "GET /users", &Schema::array(User::schema()))
        .unwrap_err();
    assert!(matches!(&err, ReadError::Type { path, .. } if path == "[0].id"), "{err:?}");
}

#[test]
fn the_state_round_trips_through_serde() {
    let mut state = State::default();
    seed(&mut state);
    let text = serde_json::to_string(&state).unwrap();
    let back: State = serde_json::from_str(&text).unwrap();
    let list =
        denormalize::<Vec<Article>>(&back, &articles(), &back.result("GET /articles").unwrap().value).unwrap().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0].author.name, "Ada");
}

#[test]
fn a_type_mismatch_deep_in_nested_entities_and_plain_fields_names_the_whole_path() {
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Writer {
        id: u32,
        tags: Vec<serde_json::Value>,
    }
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Note {
        id: u32,
        #[entity(nested)]
        writer: Writer,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct StrictWriter {
        tags: Vec<u32>,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct StrictNote {
        writer: StrictWriter,
    }
    let mut state = State::default();
    let notes = json!([
        { "id": 1, "writer": { "id": 7, "tags": [1, 2] } },
        { "id": 2, "writer": { "id": 8, "tags": [3, "four"] } }
    ]);
    let schema = Schema::array(Note::schema());
    write(&mut state, "GET /notes", &schema, notes, 1);
    let err = MemoCache::default().read_result::<Vec<StrictNote>>(&state, "GET /notes", &schema).unwrap_err();
    let ReadError::Type { path, message } = err else { panic!("a type error: {err:?}") };
    assert_eq!(path, "[1].writer.tags[1]");
    assert!(message.contains("four"), "{message}");
}

#[test]
fn a_read_keeps_its_arc_when_only_fields_it_does_not_read_change() {
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Card {
        id: u32,
        title: String,
        views: u64,
        note: Option<String>,
    }
    /// Reads titles only (views and note are ignored).
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Title {
        id: u32,
        title: String,
    }
    /// Reads the note too, when there is one.
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct WithNote {
        title: String,
        note: Option<String>,
    }
    let schema = Schema::array(Card::schema());
    let mut state = State::default();
    let cards = |views: u64, title: &str| json!([{ "id": 1, "title": title, "views": views }, { "id": 2, "title": "b", "views": 0 }]);
    write(&mut state, "GET /cards", &schema, cards(1, "a"), 1);
    let mut memo = MemoCache::default();
    let titles = memo.read_result::<Vec<Title>>(&state, "GET /cards", &schema).unwrap().unwrap();
    let notes = memo.read_result::<Vec<WithNote>>(&state, "GET /cards", &schema).unwrap().unwrap();

    // Views change on a card (through the entity, not the list): nothing read changed.
    state
        .write_entities(
            &Card::schema(),
            json!({ "id": 1, "title": "a", "views": 99 }),
            &Value::Null,
            WriteMeta::at(2, 1000),
        )
        .unwrap();
    let again = memo.read_result::<Vec<Title>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert!(Arc::ptr_eq(&titles, &again), "views are not read");
    let notes_again = memo.read_result::<Vec<WithNote>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert!(Arc::ptr_eq(&notes, &notes_again));

    // A field that appears may matter (here `note` does): a new read.
    state
        .write_entities(
            &Card::schema(),
            json!({ "id": 2, "title": "b", "views": 0, "note": "hi" }),
            &Value::Null,
            WriteMeta::at(3, 1000),
        )
        .unwrap();
    let notes_now = memo.read_result::<Vec<WithNote>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&notes, &notes_now));
    assert_eq!(notes_now[1].note.as_deref(), Some("hi"));

    // A field that is read: a new read with the new value.
    state
        .write_entities(
            &Card::schema(),
            json!({ "id": 1, "title": "A", "views": 99 }),
            &Value::Null,
            WriteMeta::at(4, 1000),
        )
        .unwrap();
    let renamed = memo.read_result::<Vec<Title>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&titles, &renamed));
    assert_eq!(renamed[0].title, "A");
}

#[test]
fn a_list_read_as_keys_depends_on_validity_not_on_fields() {
    use rdc_core::{All, Pk};
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Card {
        id: u32,
        title: String,
    }
    let schema = Schema::array(Card::schema());
    let mut state = State::default();
    write(&mut state, "GET /cards", &schema, json!([{ "id": 1, "title": "a" }, { "id": 2, "title": "b" }]), 1);
    let mut memo = MemoCache::default();
    let keys = memo.read_result::<Vec<Pk>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert_eq!(*keys, vec![Pk("1".into()), Pk("2".into())]);
    // Each key is the stored reference's text itself, not a copy; through
    // serde's path (a field of a struct) too.
    let stored = state.result("GET /cards").unwrap().value.clone();
    let references: Vec<_> = stored
        .as_array()
        .unwrap()
        .iter()
        .map(|r| match r {
            Value::String(text) => text.clone(),
            other => panic!("a reference {other:?}"),
        })
        .collect();
    assert!(keys.iter().zip(&references).all(|(key, reference)| key.0.ptr_eq(reference)));
    #[derive(serde::Deserialize)]
    struct Page {
        #[allow(dead_code)]
        items: Vec<Pk>,
    }
    let page = Schema::object([("items", schema.clone())]);
    let mut input = rdc_core::json::Map::new();
    input.insert("items", (*stored).clone());
    let input = Value::Object(input);
    let read: Page = rdc_core::denormalize(&state, &page, &input).unwrap().unwrap();
    assert!(read.items.iter().zip(&references).all(|(key, reference)| key.0.ptr_eq(reference)));

    // A field of a card changes: the keys are the same Arc.
    state
        .write_entities(&Card::schema(), json!({ "id": 1, "title": "A" }), &Value::Null, WriteMeta::at(2, 1000))
        .unwrap();
    let again = memo.read_result::<Vec<Pk>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert!(Arc::ptr_eq(&keys, &again));

    // A card is deleted: it drops out.
    state.write_entities(&Schema::invalidate::<Card>(), json!(2), &Value::Null, WriteMeta::at(3, 1000)).unwrap();
    let after = memo.read_result::<Vec<Pk>>(&state, "GET /cards", &schema).unwrap().unwrap();
    assert_eq!(*after, vec![Pk("1".into())]);

    // Keys of every card stored, and keys in plain JSON (strings or numbers).
    let all: Schema = All::of::<Card>().into();
    let every = memo.read::<Vec<Pk>>(&state, "all cards", &all, &Value::Null).unwrap().unwrap();
    assert_eq!(*every, vec![Pk("1".into())]);
    // An `All`'s keys are the row keys themselves.
    let (row_key, _) = state.tables()["Card"].rows.get_index(0).unwrap();
    assert!(every[0].0.ptr_eq(row_key));
    let plain: Vec<Pk> = rdc_core::json::from_value(&json!(["x", 7])).unwrap();
    assert_eq!(plain, vec![Pk("x".into()), Pk("7".into())]);
}

#[test]
fn keys_through_unions_polymorphic_all_and_collections() {
    use rdc_core::{entry, All, Collection, Pk, Union};
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Cat {
        id: String,
    }
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Dog {
        id: String,
    }
    let union = Union::by_attribute("kind", [entry::<Cat>("cat"), entry::<Dog>("dog")]);
    let schema = Schema::array(union);
    let mut state = State::default();
    let pets = json!([{ "id": "c1", "kind": "cat" }, { "id": "d1", "kind": "dog" }]);
    write(&mut state, "GET /pets", &schema, pets, 1);
    let mut memo = MemoCache::default();
    let keys = memo.read_result::<Vec<Pk>>(&state, "GET /pets", &schema).unwrap().unwrap();
    assert_eq!(*keys, vec![Pk("c1".into()), Pk("d1".into())]);
    let all: Schema = All::by_attribute("kind", [entry::<Cat>("cat"), entry::<Dog>("dog")]).into();
    let mut every = memo.read::<Vec<Pk>>(&state, "all pets", &all, &Value::Null).unwrap().unwrap().to_vec();
    every.sort();
    assert_eq!(every, vec![Pk("c1".into()), Pk("d1".into())]);
    let list = Collection::of("Cats", Cat::schema());
    write(&mut state, "GET /cats", &list, json!([{ "id": "c1" }]), 2);
    let cats = memo.read_result::<Vec<Pk>>(&state, "GET /cats", &list).unwrap().unwrap();
    assert_eq!(*cats, vec![Pk("c1".into())]);
}

#[test]
fn validity_in_a_cycle_does_not_depend_on_the_order_of_the_checks() {
    use rdc_core::Pk;
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Ay {
        id: String,
        #[entity(nested)]
        bee: Box<Bee>,
        #[entity(nested)]
        cee: Cee,
    }
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Bee {
        id: String,
        #[entity(nested)]
        ay: Box<Ay>,
    }
    #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    #[allow(dead_code)]
    struct Cee {
        id: String,
    }
    let mut state = State::default();
    let ay = json!({ "id": "a1", "bee": { "id": "b1", "ay": "a1" }, "cee": { "id": "c1" } });
    state.write_entities(&Ay::schema(), ay, &Value::Null, WriteMeta::at(1, 1000)).unwrap();
    // C goes: A (which requires it) is invalid, and so B (which requires A).
    state.write_entities(&Schema::invalidate::<Cee>(), json!("c1"), &Value::Null, WriteMeta::at(2, 1000)).unwrap();
    #[derive(Debug, PartialEq, serde::Deserialize)]
    struct Both {
        a: Option<Pk>,
        b: Option<Pk>,
    }
    // One read checks A first (B is checked inside, while A is provisionally
    // valid), then B: B must come out invalid as when it is checked alone.
    let schema = Schema::object([("a", Ay::schema().into_schema()), ("b", Bee::schema().into_schema())]);
    let both: Both = denormalize(&state, &schema, &json!({ "a": "a1", "b": "b1" })).unwrap().unwrap();
    assert_eq!(both, Both { a: None, b: None });
    let alone: Option<Pk> = denormalize(&state, &Bee::schema(), &json!("b1")).unwrap();
    assert_eq!(alone, None);
}

/// A `Text` field reads the stored string itself: no copy per read, and two
/// reads of one entity share their characters.
#[test]
fn text_fields_share_the_stored_strings() {
    use rdc_core::json::Text;
    #[derive(Debug, serde::Deserialize, Entity)]
    #[entity(key = "Named")]
    #[allow(dead_code)]
    struct Named {
        id: String,
        name: Text,
        nick: Option<Text>,
    }
    let mut state = State::default();
    let response = Value::parse(
        r#"[{"id": "1", "name": "Ada", "nick": "ada"}, {"id": "2", "name": "Bob", "nick": null}]"#.to_owned(),
    )
    .unwrap();
    let schema = Schema::array(Named::schema());
    state.write_result("named", &schema, response, &Value::Null, WriteMeta::at(0, 1000)).unwrap();
    let first: Vec<Named> = denormalize(&state, &schema, &state.result("named").unwrap().value).unwrap().unwrap();
    let again: Vec<Named> = denormalize(&state, &schema, &state.result("named").unwrap().value).unwrap().unwrap();
    assert_eq!(first[0].name, "Ada");
    assert!(first[0].name.ptr_eq(&again[0].name), "both reads share the stored text");
    assert!(first[0].nick.as_ref().unwrap().ptr_eq(again[0].nick.as_ref().unwrap()));
    assert_eq!(first[1].nick, None);
}

/// A `Text` field that holds a reference reads as the schema says (here an
/// entity, which a string cannot be), not as the reference's key.
#[test]
fn a_reference_is_not_read_as_text() {
    use rdc_core::json::Text;
    #[derive(Debug, serde::Deserialize, Entity)]
    #[entity(key = "Writer")]
    #[allow(dead_code)]
    struct Writer {
        id: String,
        name: String,
    }
    #[derive(Debug, serde::Deserialize, Entity)]
    #[entity(key = "Note")]
    #[allow(dead_code)]
    struct Note {
        id: String,
        #[entity(nested, schema = "Writer::schema()")]
        writer: Text,
    }
    let mut state = State::default();
    let note = json!({ "id": "n1", "writer": { "id": "w1", "name": "Ada" } });
    state.write_result("note", &Note::schema(), note, &Value::Null, WriteMeta::at(0, 1000)).unwrap();
    let read = MemoCache::default().entity::<Note>(&state, "n1");
    match read {
        Err(ReadError::Type { path, message }) => {
            assert_eq!(path, "writer");
            assert!(message.contains("expected a string"), "{message}");
        }
        other => panic!("expected a type error at `writer`, got {other:?}"),
    }
}

#[test]
fn lists_read_right_in_any_order_of_their_entities() {
    // A read tries the row after the one found last before searching the
    // table (lists mostly come in stored order): every other order, repeats,
    // gaps and missing rows must read the same as they would without it.
    let users = Schema::array(user_schema());
    let mut state = State::default();
    let stored: Vec<Value> = (0..12).map(|i| json!({ "id": i.to_string(), "name": format!("u{i}") })).collect();
    write(&mut state, "stored", &users, Value::Array(stored), 1);
    let orders: [&[u32]; 6] = [
        &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        &[11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
        &[3, 3, 4, 4, 0, 11, 1, 6],
        &[0, 2, 4, 6, 8, 10, 1, 3, 5],
        &[5, 99, 6, 98, 7],
        &[],
    ];
    for order in orders {
        let ids: Vec<Value> = order.iter().map(|i| json!(i.to_string())).collect();
        let read: Vec<User> = denormalize(&state, &users, &Value::Array(ids)).unwrap().unwrap();
        let got: Vec<(String, String)> = read.into_iter().map(|u| (u.id, u.name)).collect();
        let want: Vec<(String, String)> =
            order.iter().filter(|&&i| i < 12).map(|i| (i.to_string(), format!("u{i}"))).collect();
        assert_eq!(got, want, "order {order:?}");
    }
}

/// A long list of entities read again after one changed reuses every other
/// item's dependencies, each item's moved on its own (each item's read records
/// its own between them), and reads right. (Moving each by shifting what was
/// left made this re-read quadratic: ten times as long at this size.)
#[test]
fn a_long_list_read_again_after_one_item_changed_reads_right() {
    let n = 20_000;
    let mut state = State::default();
    let article = |i: usize, title: &str| json!({ "id": i, "title": title, "author": { "id": format!("u{}", i % 10), "name": "Ada" } });
    let list = |first: &str| Value::Array((0..n).map(|i| article(i, if i == 0 { first } else { "t" })).collect());
    write(&mut state, "GET /articles", &articles(), list("before"), 1);
    let mut memo = MemoCache::default();
    let read = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert_eq!((read.len(), read[0].title.as_str()), (n, "before"));
    write(&mut state, "GET /articles", &articles(), list("after"), 2);
    let again = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert_eq!((again.len(), again[0].title.as_str()), (n, "after"));
    assert!(again.iter().skip(1).zip(read.iter().skip(1)).all(|(a, b)| a == b));
    // And once more with nothing changed: the same `Arc`.
    let same = memo.read_result::<Vec<Article>>(&state, "GET /articles", &articles()).unwrap().unwrap();
    assert!(Arc::ptr_eq(&again, &same));
}
