//! Issue 27, item 6: `null` where a list or a required entity is expected is
//! a normalize error naming its path, and the store keeps what it had; an
//! `Option` field stays nullable, and `null` where no list is expected (an
//! entity endpoint answering nothing) is accepted as before.

use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, MemoCache, NormalizeError, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Tag {
    id: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Author {
    id: String,
}

/// Required nested fields: a list and an entity.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Post {
    id: String,
    #[entity(nested)]
    tags: Vec<Tag>,
    #[entity(nested)]
    author: Author,
}

/// The same fields, optional.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Draft {
    id: String,
    #[entity(nested)]
    tags: Option<Vec<Tag>>,
    #[entity(nested)]
    author: Option<Author>,
}

fn null_at(path: &str, expected: &'static str) -> NormalizeError {
    NormalizeError::UnexpectedShape { expected, found: "null", path: path.into() }
}

fn write(state: &mut State, key: &str, schema: &Schema, value: Value, now: u64) -> Result<(), NormalizeError> {
    state.write_result(key, schema, value, &Value::Null, WriteMeta::at(now, u64::MAX))
}

fn posts() -> Schema {
    Schema::array(Post::schema())
}

fn stored_post(state: &State) -> Post {
    Post::clone(&MemoCache::default().entity::<Post>(state, "p").unwrap().expect("the post reads"))
}

fn good_post() -> Value {
    json!([{"id": "p", "tags": [{"id": "t"}], "author": {"id": "a"}}])
}

#[test]
fn null_for_a_required_nested_list_is_an_error_at_its_path_and_the_store_keeps_the_list() {
    let mut state = State::default();
    write(&mut state, "GET /posts", &posts(), good_post(), 0).unwrap();
    let version = state.version();
    let bad = json!([{"id": "p", "tags": null, "author": {"id": "a"}}]);
    assert_eq!(write(&mut state, "GET /posts", &posts(), bad, 1), Err(null_at("[0].tags", "an array")));
    assert_eq!(state.version(), version, "nothing was committed");
    assert_eq!(stored_post(&state).tags, [Tag { id: "t".into() }]);
}

#[test]
fn null_for_a_required_nested_entity_is_an_error_at_its_path_and_the_post_stays_valid() {
    let mut state = State::default();
    write(&mut state, "GET /posts", &posts(), good_post(), 0).unwrap();
    let bad = json!([{"id": "p", "tags": [], "author": null}]);
    assert_eq!(write(&mut state, "GET /posts", &posts(), bad, 1), Err(null_at("[0].author", "an object")));
    assert_eq!(stored_post(&state).author, Author { id: "a".into() });
}

#[test]
fn optional_nested_lists_and_entities_stay_nullable() {
    let mut state = State::default();
    let drafts = Schema::array(Draft::schema());
    write(&mut state, "GET /drafts", &drafts, json!([{"id": "d", "tags": [{"id": "t"}], "author": {"id": "a"}}]), 0)
        .unwrap();
    write(&mut state, "GET /drafts", &drafts, json!([{"id": "d", "tags": null, "author": null}]), 1).unwrap();
    let draft = MemoCache::default().entity::<Draft>(&state, "d").unwrap().unwrap();
    assert_eq!((draft.tags.as_ref(), draft.author.as_ref()), (None, None));
}

#[test]
fn null_for_an_array_schema_at_the_top_or_in_an_object_is_an_error() {
    let mut state = State::default();
    let tags = Schema::array(Tag::schema());
    write(&mut state, "GET /tags", &tags, json!([{"id": "t"}]), 0).unwrap();
    assert_eq!(write(&mut state, "GET /tags", &tags, Value::Null, 1), Err(null_at("the response root", "an array")));
    assert_eq!(state.result("GET /tags").map(|r| r.value.as_array().map(Vec::len)), Some(Some(1)), "kept");
    let page = Schema::object([("results", tags.clone())]);
    let err = write(&mut state, "GET /page", &page, json!({"results": null, "next": null}), 1);
    assert_eq!(err, Err(null_at("results", "an array")));
    let nested = Schema::array(Schema::object([("tags", tags)]));
    let err = write(&mut state, "GET /nested", &nested, json!([{"tags": []}, {"tags": null}]), 1);
    assert_eq!(err, Err(null_at("[1].tags", "an array")));
}

#[test]
fn null_where_no_list_is_expected_is_accepted_as_before() {
    let mut state = State::default();
    // An entity endpoint answering nothing (a 204), an object, a map.
    write(&mut state, "PUT /tags/t", &Tag::schema(), Value::Null, 0).unwrap();
    write(&mut state, "GET /page", &Schema::object([("first", Tag::schema().into())]), Value::Null, 0).unwrap();
    write(&mut state, "GET /by-id", &Schema::values(Tag::schema()), Value::Null, 0).unwrap();
    // An entity member of a plain object (its Rust type may be an `Option`).
    write(&mut state, "GET /page", &Schema::object([("first", Tag::schema().into())]), json!({"first": null}), 1)
        .unwrap();
    assert!(state.result("GET /page").is_some_and(|r| r.value["first"].is_null()));
}

/// A `#[derive(Schema)]` struct: its `Vec` member refuses `null`, its
/// `Option<Vec>` member takes it.
#[derive(Debug, Deserialize, rdc_core::Schema)]
struct Page {
    #[entity(nested)]
    #[allow(dead_code)]
    results: Vec<Tag>,
    #[entity(nested)]
    #[allow(dead_code)]
    previous: Option<Vec<Tag>>,
}

#[test]
fn a_derived_objects_required_list_refuses_null_and_its_optional_one_takes_it() {
    let mut state = State::default();
    let schema = <Page as rdc_core::HasSchema>::schema();
    write(&mut state, "GET /page", &schema, json!({"results": [], "previous": null}), 0).unwrap();
    let err = write(&mut state, "GET /page", &schema, json!({"results": null, "previous": []}), 1);
    assert_eq!(err, Err(null_at("results", "an array")));
}
