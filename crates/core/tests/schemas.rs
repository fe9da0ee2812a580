//! Array, Object, Values, Union, Invalidate and Cyclic schemas.

mod common;

use std::collections::BTreeMap;

use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, entry, Entity, NormalizeError, Schema, State, Union};
use serde::Deserialize;

#[test]
fn object_schema_normalizes_named_members_and_passes_others_through() {
    #[derive(Debug, Deserialize)]
    struct Page {
        next: Option<String>,
        results: Vec<User>,
    }
    let schema = Schema::object([("results", Schema::array(User::schema()))]);
    let mut state = State::default();
    write(&mut state, "GET /users?page=1", &schema, json!({ "next": "2", "results": [{ "id": "1", "name": "A" }] }), 1);
    let stored = &state.result("GET /users?page=1").unwrap().value;
    assert_eq!(**stored, json!({ "next": "2", "results": ["1"] }));
    let page: Page = denormalize(&state, &schema, stored).unwrap().unwrap();
    assert_eq!(page.next.as_deref(), Some("2"));
    assert_eq!(page.results[0].name, "A");
}

#[test]
fn values_schema_normalizes_every_member() {
    let schema = Schema::values(User::schema());
    let mut state = State::default();
    write(&mut state, "by id", &schema, json!({ "a": { "id": "1", "name": "A" }, "b": { "id": "2", "name": "B" } }), 1);
    let read: BTreeMap<String, User> =
        denormalize(&state, &schema, &state.result("by id").unwrap().value).unwrap().unwrap();
    assert_eq!(read["b"].name, "B");
    write(&mut state, "del", &Schema::invalidate::<User>(), json!("1"), 2);
    let read: BTreeMap<String, User> =
        denormalize(&state, &schema, &state.result("by id").unwrap().value).unwrap().unwrap();
    assert_eq!(read.keys().collect::<Vec<_>>(), ["b"], "deleted entities drop out of maps too");
}

#[test]
fn union_reads_the_variant_of_its_entity() {
    let schema = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    let mut state = State::default();
    write(&mut state, "one", &schema, json!({ "id": 2, "type": "post", "content": "c" }), 1);
    let item: FeedItem = denormalize(&state, &schema, &state.result("one").unwrap().value).unwrap().unwrap();
    assert!(matches!(item, FeedItem::Post(ref p) if p.content == "c"), "{item:?}");
}

#[test]
fn union_reads_into_an_enum_without_a_fallback_variant() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    enum Strict {
        Link(Link),
        Post(Post),
    }
    let schema = Schema::array(Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]));
    let mut state = State::default();
    write(&mut state, "feed", &schema, json!([{ "id": 1, "type": "link", "url": "u", "title": "t" }]), 1);
    let items: Vec<Strict> = denormalize(&state, &schema, &state.result("feed").unwrap().value).unwrap().unwrap();
    assert!(matches!(&items[0], Strict::Link(l) if l.url == "u"));
    assert!(!matches!(&items[0], Strict::Post(_)));
}

#[test]
fn a_wrong_shape_is_a_typed_error() {
    let mut state = State::default();
    // (An object is a list of its values: `object_lists.rs`.)
    let err = state.write_result("x", &Schema::array(User::schema()), json!("1"), NO_ARGS, meta(1)).unwrap_err();
    assert_eq!(
        err,
        NormalizeError::UnexpectedShape { expected: "an array", found: "a string", path: "the response root".into() }
    );
}

fn tree() -> Schema {
    Schema::object([("children", Schema::array(Schema::Cyclic(tree))), ("owner", User::schema().into())])
}

#[test]
fn cyclic_schemas_describe_recursive_shapes() {
    let mut state = State::default();
    let wire = json!({ "owner": { "id": "1", "name": "A" }, "children": [ { "owner": { "id": "2", "name": "B" }, "children": [] } ] });
    write(&mut state, "tree", &tree(), wire, 1);
    assert_eq!(state.entity_count(), 2);
    let read: Value = denormalize(&state, &tree(), &state.result("tree").unwrap().value).unwrap().unwrap();
    assert_eq!(read["children"][0]["owner"]["name"], "B");
}

#[test]
fn invalidate_deletes_by_object_or_pk() {
    let mut state = State::default();
    write(
        &mut state,
        "u",
        &Schema::array(User::schema()),
        json!([{ "id": "1", "name": "A" }, { "id": "2", "name": "B" }]),
        1,
    );
    write(&mut state, "d1", &Schema::invalidate::<User>(), json!({ "id": "1" }), 2);
    write(&mut state, "d2", &Schema::invalidate::<User>(), json!("2"), 3);
    assert_eq!(state.entity_count(), 0);
    let err =
        state.write_result("d3", &Schema::invalidate::<User>(), json!({ "name": "?" }), NO_ARGS, meta(4)).unwrap_err();
    assert!(matches!(err, NormalizeError::MissingPrimaryKey { entity: "User", .. }));
}

fn feed_item() -> Schema {
    Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")])
}

fn seed_feed() -> State {
    let mut state = State::default();
    let feed = json!([
        { "id": 1, "type": "link", "url": "https://a.example", "title": "A" },
        { "id": 1, "type": "post", "content": "one" },
        { "id": 2, "type": "post", "content": "two" },
    ]);
    write(&mut state, "GET /feed", &Schema::array(feed_item()), feed, 1);
    state
}

#[test]
fn invalidate_of_a_union_deletes_the_entity_of_the_type_chosen() {
    let mut state = seed_feed();
    let delete = Union::invalidate(&feed_item());
    let answer = state.write_entities(&delete, json!({ "id": 1, "type": "post" }), NO_ARGS, meta(2)).unwrap();
    assert_eq!(answer, json!({ "id": "1", "schema": "post" }));
    assert!(state.entity("Post", "1").is_none(), "the post is deleted");
    assert!(state.entity("Link", "1").is_some(), "the link of the same pk stays");
    // The feed reads without it.
    let feed: Vec<FeedItem> =
        denormalize(&state, &Schema::array(feed_item()), &state.result("GET /feed").unwrap().value).unwrap().unwrap();
    assert_eq!(feed.len(), 2);
    assert!(!feed.iter().any(|item| matches!(item, FeedItem::Post(post) if post.id == 1)));
}

#[test]
fn invalidate_of_a_union_refuses_no_pk_and_passes_an_unmapped_choice_through() {
    let mut state = seed_feed();
    let delete = Union::invalidate(&feed_item());
    let version = state.version();
    let err = state.write_entities(&delete, json!({ "type": "post" }), NO_ARGS, meta(2)).unwrap_err();
    assert!(matches!(err, NormalizeError::MissingPrimaryKey { entity: "Post", .. }), "{err:?}");
    assert_eq!(state.version(), version, "nothing changed");
    let odd = json!({ "id": 2, "type": "video" });
    assert_eq!(state.write_entities(&delete, odd.clone(), NO_ARGS, meta(3)).unwrap(), odd);
    assert!(state.entity("Post", "2").is_some());
    // A list of them deletes each.
    let many = json!([{ "id": 1, "type": "link" }, { "id": 2, "type": "post" }]);
    state.write_entities(&Schema::array(delete), many, NO_ARGS, meta(4)).unwrap();
    assert!(state.entity("Link", "1").is_none() && state.entity("Post", "2").is_none());
}

fn cyclic_feed() -> Schema {
    Schema::array(feed_item())
}

#[test]
fn invalidate_of_a_cyclic_list_of_a_union_deletes_each_item_not_stores_it() {
    let mut state = seed_feed();
    let delete = Union::invalidate(&Schema::Cyclic(cyclic_feed));
    let many = json!([{ "id": 1, "type": "link" }, { "id": 2, "type": "post" }]);
    state.write_entities(&delete, many, NO_ARGS, meta(2)).unwrap();
    assert!(state.entity("Link", "1").is_none() && state.entity("Post", "2").is_none());
    assert!(state.entity("Post", "1").is_some(), "what was not answered stays");
}
