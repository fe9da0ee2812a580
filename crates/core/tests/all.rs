//! Spec 2.1: the `All` schema.

mod common;

use std::sync::Arc;

use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{entry, All, Entity, MemoCache, Schema, State};

fn feed_json() -> Value {
    json!([
        { "id": 1, "type": "link", "url": "https://rust-lang.org", "title": "Rust" },
        { "id": 2, "type": "post", "content": "hello" },
        { "id": 3, "type": "video", "src": "v.mp4" }
    ])
}

fn read_all<T: serde::de::DeserializeOwned + Send + Sync + 'static>(state: &State, schema: &Schema) -> Option<Arc<T>> {
    MemoCache::default().read::<T>(state, "all", schema, &Value::Null).expect("read")
}

#[test]
fn singular_all_returns_every_user_in_the_store() {
    let mut state = State::default();
    let all: Schema = All::of::<User>().into();
    write(&mut state, "GET /users", &all, json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]), 1);
    // A user stored by another endpoint shows up in All too.
    state.write_entities(&User::schema(), json!({ "id": "3", "name": "Alan" }), NO_ARGS, meta(2)).unwrap();
    let users = read_all::<Vec<User>>(&state, &all).expect("found");
    let names: Vec<&str> = users.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names, ["Ada", "Grace", "Alan"]);
}

#[test]
fn all_is_not_found_until_an_entity_of_its_type_was_stored() {
    let mut state = State::default();
    let all: Schema = All::of::<User>().into();
    assert!(read_all::<Vec<User>>(&state, &all).is_none());
    write(&mut state, "GET /users", &all, json!([]), 1);
    // An empty response stores no entity: still not found (a hook would fetch).
    assert!(read_all::<Vec<User>>(&state, &all).is_none());
    write(&mut state, "GET /users", &all, json!([{ "id": "1", "name": "Ada" }]), 2);
    assert_eq!(read_all::<Vec<User>>(&state, &all).unwrap().len(), 1);
}

#[test]
fn all_leaves_out_deleted_entities() {
    let mut state = State::default();
    let all: Schema = All::of::<User>().into();
    write(&mut state, "GET /users", &all, json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]), 1);
    write(&mut state, "DELETE /users/1", &Schema::invalidate::<User>(), json!({ "id": "1" }), 2);
    let users = read_all::<Vec<User>>(&state, &all).unwrap();
    assert_eq!(users.iter().map(|u| u.id.as_str()).collect::<Vec<_>>(), ["2"]);
}

#[test]
fn polymorphic_by_attribute_chooses_by_type_and_passes_unknown_through() {
    let mut state = State::default();
    let feed: Schema = All::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]).into();
    write(&mut state, "GET /feed", &feed, feed_json(), 1);
    // Rule 4: the unknown item created no entity.
    assert_eq!(state.entity_count(), 2);
    assert!(state.tables().keys().all(|k| k == "Link" || k == "Post"));
    // The stored result keeps the unknown item as it was.
    let result = state.result("GET /feed").unwrap();
    assert_eq!(result.value[2], json!({ "id": 3, "type": "video", "src": "v.mp4" }));
    assert_eq!(result.value[0], json!({ "id": "1", "schema": "link" }));

    let items = read_all::<Vec<FeedItem>>(&state, &feed).unwrap();
    assert_eq!(items.len(), 2, "All reads entities from the store: {items:?}");
    assert!(matches!(&items[0], FeedItem::Link(l) if l.title == "Rust" && l.id == 1));
    assert!(matches!(&items[1], FeedItem::Post(p) if p.content == "hello"));
}

#[test]
fn the_stored_result_of_a_polymorphic_array_reads_unknown_items_unchanged() {
    let mut state = State::default();
    let feed = Schema::array(rdc_core::Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]));
    write(&mut state, "GET /feed", &feed, feed_json(), 1);
    let items = MemoCache::default().read_result::<Vec<FeedItem>>(&state, "GET /feed", &feed).unwrap().unwrap();
    assert_eq!(items.len(), 3);
    assert_eq!(items[2], FeedItem::Unknown(json!({ "id": 3, "type": "video", "src": "v.mp4" })));
}

#[test]
fn polymorphic_by_function_uses_the_returned_mapping_key() {
    let mut state = State::default();
    let seen_keys = Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = Arc::clone(&seen_keys);
    let feed: Schema = All::by_function([entry::<Link>("links"), entry::<Post>("posts")], move |value, parent, key| {
        seen.lock().unwrap().push((parent.clone(), key.to_owned()));
        value.get("type").and_then(Value::as_str).map(|t| format!("{t}s"))
    })
    .into();
    let page = Schema::object([("items", feed.clone())]);
    write(&mut state, "GET /page", &page, json!({ "next": "p2", "items": feed_json() }), 1);
    assert_eq!(state.entity_count(), 2);
    assert!(state.entity("Link", "1").is_some() && state.entity("Post", "2").is_some());
    // The function saw the array's key on the parent object, and the parent's other members.
    let seen = seen_keys.lock().unwrap();
    assert_eq!(seen.len(), 3);
    assert_eq!(seen[0].1, "items");
    assert_eq!(seen[0].0["next"], "p2");
    let items = read_all::<Vec<FeedItem>>(&state, &feed).unwrap();
    assert_eq!(items.len(), 2);
}

#[test]
fn define_merges_more_mapping_entries() {
    let mut all = All::by_attribute("type", [entry::<Link>("link")]);
    all.define([entry::<Post>("post")]);
    let feed: Schema = all.into();
    let mut state = State::default();
    write(&mut state, "GET /feed", &feed, feed_json(), 1);
    assert!(state.entity("Post", "2").is_some());
}

#[test]
fn all_read_is_memoized_and_changes_when_an_entity_of_its_type_changes() {
    let mut state = State::default();
    let all: Schema = All::of::<User>().into();
    write(&mut state, "GET /users", &all, json!([{ "id": "1", "name": "Ada" }]), 1);
    let mut memo = MemoCache::default();
    let a = memo.read::<Vec<User>>(&state, "all", &all, &Value::Null).unwrap().unwrap();
    // An unrelated type changes: same Arc.
    write(
        &mut state,
        "GET /price",
        &ExchangePrice::schema(),
        json!({"exchangePair": "BTC-USD", "price": "1.5", "updatedAt": "2026-01-01T00:00:00Z"}),
        2,
    );
    let b = memo.read::<Vec<User>>(&state, "all", &all, &Value::Null).unwrap().unwrap();
    assert!(Arc::ptr_eq(&a, &b));
    // A new user: a new list.
    state.write_entities(&User::schema(), json!({ "id": "2", "name": "Grace" }), NO_ARGS, meta(3)).unwrap();
    let c = memo.read::<Vec<User>>(&state, "all", &all, &Value::Null).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&a, &c));
    assert_eq!(c.len(), 2);
}
