//! Issue 36, item 11: schemas as data-client's own tests have them. `Array`
//! and `All` take an object's values (in order); `Values` drops `null`
//! members, so its result reads as a map of entities.

mod common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, entry, All, Entity, MemoCache, NormalizeError, Schema, State, Union};

/// The stored result of `key`, read through `schema`.
fn read<T: serde::de::DeserializeOwned + Send + Sync + 'static>(state: &State, key: &str, schema: &Schema) -> Arc<T> {
    MemoCache::default().read_result::<T>(state, key, schema).expect("read").expect("found")
}

#[test]
fn an_array_normalizes_an_object_as_its_values() {
    let schema = Schema::array(User::schema());
    let mut state = State::default();
    write(
        &mut state,
        "by name",
        &schema,
        json!({ "foo": { "id": "1", "name": "A" }, "bar": { "id": "2", "name": "B" } }),
        1,
    );
    assert_eq!(*state.result("by name").unwrap().value, json!(["1", "2"]));
    let users = read::<Vec<User>>(&state, "by name", &schema);
    assert_eq!(users.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["A", "B"]);
}

#[test]
fn a_union_array_normalizes_an_object_as_its_values() {
    let union = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    let schema = Schema::array(union);
    let mut state = State::default();
    let body = json!({ "x": { "id": 1, "type": "link", "url": "u", "title": "t" }, "y": { "id": 2, "type": "post", "content": "c" } });
    write(&mut state, "feed", &schema, body, 1);
    assert_eq!(
        *state.result("feed").unwrap().value,
        json!([{ "id": "1", "schema": "link" }, { "id": "2", "schema": "post" }])
    );
}

#[test]
fn all_normalizes_an_object_as_its_values() {
    let all: Schema = All::of::<User>().into();
    let mut state = State::default();
    write(
        &mut state,
        "GET /users",
        &all,
        json!({ "foo": { "id": "1", "name": "A" }, "bar": { "id": "2", "name": "B" } }),
        1,
    );
    let users = MemoCache::default().read::<Vec<User>>(&state, "all", &all, &Value::Null).unwrap().unwrap();
    assert_eq!(users.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["A", "B"]);
}

#[test]
fn an_object_member_s_error_names_its_key() {
    let schema = Schema::array(User::schema());
    let mut state = State::default();
    let err = state
        .write_result("bad", &schema, json!({ "foo": { "id": "1", "name": "A" }, "bar": [5] }), NO_ARGS, meta(1))
        .unwrap_err();
    assert!(matches!(&err, NormalizeError::UnexpectedShape { path, .. } if path == "bar"), "{err:?}");
    assert!(state.result("bad").is_none(), "the store keeps what it had");
}

#[test]
fn values_drop_null_members_and_read_as_a_map_of_entities() {
    let schema = Schema::values(User::schema());
    let mut state = State::default();
    write(&mut state, "by id", &schema, json!({ "milo": null, "fluffy": { "id": "1", "name": "A" } }), 1);
    assert_eq!(*state.result("by id").unwrap().value, json!({ "fluffy": "1" }));
    let read: BTreeMap<String, User> =
        denormalize(&state, &schema, &state.result("by id").unwrap().value).unwrap().unwrap();
    assert_eq!(read.keys().collect::<Vec<_>>(), ["fluffy"]);
}
