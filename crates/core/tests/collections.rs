//! Collection (lists keyed by args, push / unshift / remove) and Query.

mod common;

use std::sync::Arc;

use common::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{All, Collection, Entity, MemoCache, Query, Schema, SchemaOf, State};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Todo {
    id: u32,
    #[serde(rename = "userId")]
    user_id: u32,
    title: String,
}

fn todos() -> SchemaOf<Vec<Todo>> {
    Collection::of("TodoList", Todo::schema())
}

fn ids(state: &State, key: &str) -> Vec<u32> {
    MemoCache::default().read_result::<Vec<Todo>>(state, key, &todos()).unwrap().unwrap().iter().map(|t| t.id).collect()
}

fn seed() -> State {
    let mut state = State::default();
    let one = json!([{ "id": 1, "userId": 1, "title": "a" }]);
    let two = json!([{ "id": 2, "userId": 2, "title": "b" }]);
    state.write_result("GET /todos?userId=1", &todos(), one, &json!({ "userId": 1 }), meta(1)).unwrap();
    state.write_result("GET /todos?userId=2", &todos(), two, &json!({ "userId": 2 }), meta(1)).unwrap();
    state
        .write_result(
            "GET /todos",
            &todos(),
            json!([{ "id": 1, "userId": 1, "title": "a" }, { "id": 2, "userId": 2, "title": "b" }]),
            NO_ARGS,
            meta(1),
        )
        .unwrap();
    state
}

#[test]
fn each_set_of_args_is_its_own_list_and_items_are_shared_entities() {
    let state = seed();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1]);
    assert_eq!(ids(&state, "GET /todos"), [1, 2]);
    assert_eq!(state.tables()["Todo"].rows.len(), 2);
    assert_eq!(state.tables()["TodoList"].rows.len(), 3);
}

#[test]
fn push_and_unshift_add_to_the_lists_whose_args_match() {
    let mut state = seed();
    state.collection_push(&todos(), json!({ "id": 3, "userId": 1, "title": "c" }), meta(2)).unwrap();
    state.collection_unshift(&todos(), json!({ "id": 4, "userId": 2, "title": "d" }), meta(3)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 3]);
    assert_eq!(ids(&state, "GET /todos?userId=2"), [4, 2]);
    assert_eq!(ids(&state, "GET /todos"), [4, 1, 2, 3]);
    // Pushing the same item again does not duplicate it.
    state.collection_push(&todos(), json!({ "id": 3, "userId": 1, "title": "c2" }), meta(4)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 3]);
}

#[test]
fn remove_takes_the_item_out_of_every_list() {
    let mut state = seed();
    let mut memo = MemoCache::default();
    let before = memo.read_result::<Vec<Todo>>(&state, "GET /todos?userId=2", &todos()).unwrap().unwrap();
    state.collection_remove(&todos(), "1");
    assert_eq!(ids(&state, "GET /todos?userId=1"), Vec::<u32>::new());
    assert_eq!(ids(&state, "GET /todos"), [2]);
    // A list the removal did not touch keeps its identity.
    let after = memo.read_result::<Vec<Todo>>(&state, "GET /todos?userId=2", &todos()).unwrap().unwrap();
    assert!(Arc::ptr_eq(&before, &after));
}

#[test]
fn a_bad_pushed_item_changes_nothing() {
    let mut state = seed();
    let version = state.version();
    assert!(state.collection_push(&todos(), json!({ "userId": 1 }), meta(2)).is_err());
    assert_eq!(state.version(), version);
}

#[test]
fn query_selects_from_the_store_and_is_memoized() {
    let state = seed();
    let calls = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&calls);
    let by_user = Query::new("todos by user", All::of::<Todo>().into(), move |todos: &Vec<Todo>, args: &Value| {
        seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        todos
            .iter()
            .filter(|t| Some(u64::from(t.user_id)) == args["userId"].as_u64())
            .map(|t| t.title.clone())
            .collect::<Vec<_>>()
    });
    let mut memo = MemoCache::default();
    let a = by_user.read(&mut memo, &state, &json!({ "userId": 2 })).unwrap().unwrap();
    let b = by_user.read(&mut memo, &state, &json!({ "userId": 2 })).unwrap().unwrap();
    assert_eq!(*a, ["b"]);
    assert!(Arc::ptr_eq(&a, &b));
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    let mut state = state;
    write(&mut state, "t", &Todo::schema(), json!({ "id": 9, "userId": 2, "title": "z" }), 5);
    let c = by_user.read(&mut memo, &state, &json!({ "userId": 2 })).unwrap().unwrap();
    assert_eq!(*c, ["b", "z"]);
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Owner {
    id: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Task {
    id: u32,
    #[entity(nested)]
    owner: Owner,
}

/// A memoized read of a collection's list, done again after each edit, equals a
/// fresh read: items going, coming back, joining at the front (every position
/// moves), becoming invalid with their required owner, and leaving the list.
#[test]
fn a_memoized_list_read_again_after_edits_equals_a_fresh_read() {
    let tasks = Collection::of("TaskList", Task::schema());
    let task = |id: u32, owner: u32| json!({ "id": id, "owner": { "id": owner } });
    let mut state = State::default();
    let list: Vec<Value> = (0..12).map(|i| task(i, i % 3)).collect();
    state.write_result("GET /tasks", &tasks, Value::Array(list), NO_ARGS, meta(1)).unwrap();
    let mut memo = MemoCache::default();
    let mut check = |state: &State, step: &str| {
        let keys = memo.read_result::<Vec<rdc_core::Pk>>(state, "GET /tasks", &tasks).unwrap().unwrap();
        let whole = memo.read_result::<Vec<Task>>(state, "GET /tasks", &tasks).unwrap().unwrap();
        let stored = &state.result("GET /tasks").unwrap().value;
        let fresh: Vec<Task> = rdc_core::denormalize(state, &tasks, stored).unwrap().unwrap_or_default();
        let fresh_keys: Vec<String> = fresh.iter().map(|t| t.id.to_string()).collect();
        assert_eq!(keys.iter().map(|k| k.as_str().to_owned()).collect::<Vec<_>>(), fresh_keys, "keys after {step}");
        assert_eq!(*whole, fresh, "items after {step}");
    };
    check(&state, "the first read");
    let mut at = 2;
    let mut edit = |state: &mut State, schema: &Schema, value: Value| {
        at += 1;
        state.write_entities(schema, value, NO_ARGS, meta(at)).unwrap();
    };
    edit(&mut state, &Schema::invalidate::<Task>(), json!(4));
    check(&state, "an item went");
    edit(&mut state, &Task::schema(), task(4, 1));
    check(&state, "it came back");
    edit(&mut state, &Collection::unshift(&tasks), task(20, 2));
    check(&state, "an item joined at the front");
    edit(&mut state, &Schema::invalidate::<Owner>(), json!(1));
    check(&state, "an owner went (its tasks invalid)");
    edit(&mut state, &Owner::schema(), json!({ "id": 1 }));
    check(&state, "the owner came back");
    edit(&mut state, &Collection::push(&tasks), task(21, 0));
    edit(&mut state, &Schema::invalidate::<Task>(), json!(0));
    check(&state, "one pushed, the first gone");
    state.collection_remove(&tasks, "7");
    check(&state, "one removed from the list");
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Org {
    id: u32,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Team {
    id: u32,
    #[entity(nested)]
    org: Org,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Member {
    id: u32,
    #[entity(nested)]
    team: Team,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Ticket {
    id: u32,
    #[entity(nested)]
    member: Member,
}

/// Items whose validity runs three references deep, through entities shared by
/// several items (a read remembers their validity after the first check): a list
/// read again sees an item go invalid at the end of the chain, even after the
/// item that first checked that chain went.
#[test]
fn a_memoized_list_follows_validity_through_shared_references() {
    let list = Schema::array(Ticket::schema());
    let ticket = |id: u32, m: u32| json!({ "id": id, "member": { "id": m, "team": { "id": m, "org": { "id": m } } } });
    let mut state = State::default();
    let tickets: Vec<Value> = (0..6).map(|i| ticket(i, i % 2)).collect();
    state.write_result("GET /tickets", &list, Value::Array(tickets), NO_ARGS, meta(1)).unwrap();
    let mut memo = MemoCache::default();
    let mut keys = |state: &State| -> Vec<String> {
        let read = memo.read_result::<Vec<rdc_core::Pk>>(state, "GET /tickets", &list).unwrap().unwrap();
        read.iter().map(|k| k.as_str().to_owned()).collect()
    };
    assert_eq!(keys(&state), ["0", "1", "2", "3", "4", "5"]);
    // The ticket that first checked member 0's chain goes...
    state.write_entities(&Schema::invalidate::<Ticket>(), json!(0), NO_ARGS, meta(2)).unwrap();
    assert_eq!(keys(&state), ["1", "2", "3", "4", "5"]);
    // ...then the org at the end of member 0's chain: tickets 2 and 4 are invalid now.
    state.write_entities(&Schema::invalidate::<Org>(), json!(0), NO_ARGS, meta(3)).unwrap();
    assert_eq!(keys(&state), ["1", "3", "5"]);
}

/// An argument that is an object matches the item's field as a JSON value,
/// whatever order the server wrote its keys in.
#[test]
fn object_args_match_fields_whatever_their_key_order() {
    #[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
    struct Owned {
        id: u32,
        owner: Value,
    }
    let lists = Collection::of("OwnedList", Owned::schema());
    let mut state = State::default();
    let args = json!({ "owner": { "id": 1, "type": "u" } });
    state.write_result("GET /owned?owner", &lists, json!([]), &args, meta(1)).unwrap();
    let item = Value::parse(r#"{"id": 9, "owner": {"type": "u", "id": 1}}"#.to_owned()).unwrap();
    state.collection_push(&lists, item, meta(2)).unwrap();
    let other = Value::parse(r#"{"id": 10, "owner": {"type": "u", "id": 2}}"#.to_owned()).unwrap();
    state.collection_push(&lists, other, meta(3)).unwrap();
    let read = MemoCache::default().read_result::<Vec<Owned>>(&state, "GET /owned?owner", &lists).unwrap().unwrap();
    assert_eq!(read.iter().map(|o| o.id).collect::<Vec<_>>(), [9]);
}

#[test]
fn an_added_item_logs_the_lists_fields_that_changed() {
    let mut state = seed();
    let rows = |state: &State| -> Vec<Option<Arc<rdc_core::Object>>> {
        state.tables()["TodoList"].rows.values().map(|row| row.value.clone()).collect()
    };
    let before = rows(&state);
    state.track_changes();
    let item = json!({ "id": 3, "userId": 1, "title": "c" });
    state.write_entities(&Collection::unshift(&todos()), item, &Value::Null, meta(2)).unwrap();
    let after = rows(&state);
    let logged = state.take_changes().rows;
    let lists: Vec<_> = logged.iter().filter(|change| change.row.table == "TodoList").collect();
    // The lists of user 1 and of everyone took it; each logs what
    // `fields_changed` says of its old and new object.
    assert_eq!(lists.len(), 2, "{logged:?}");
    for change in lists {
        let index = change.row.index;
        assert_eq!(change.fields, rdc_core::fields_changed(before[index].as_deref(), after[index].as_deref()));
    }
}

fn todo(id: u32, user: u32) -> Value {
    json!({ "id": id, "userId": user, "title": format!("t{id}") })
}

/// A further page joins the list fetched without its cursor: in order, each
/// item once (one that shifted into the next page is not listed twice), and
/// every page's key reads the whole list. Fetching the first page again
/// replaces it.
#[test]
fn a_further_page_joins_the_list_each_item_once() {
    let pages = Collection::paginated(&todos(), "cursor");
    let mut state = State::default();
    let first = json!([todo(1, 1), todo(2, 1)]);
    state.write_result("GET /todos?userId=1", &todos(), first, &json!({ "userId": 1 }), meta(1)).unwrap();
    // Item 2 shifted into the second page meanwhile.
    let second = json!([todo(2, 1), todo(3, 1), todo(4, 1)]);
    let args = json!({ "userId": 1, "cursor": 2 });
    state.write_result("GET /todos?cursor=2&userId=1", &pages, second, &args, meta(2)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 3, 4]);
    assert_eq!(ids(&state, "GET /todos?cursor=2&userId=1"), [1, 2, 3, 4]);
    assert_eq!(state.tables()["TodoList"].rows.len(), 1, "one list, not one per page");
    // Another user's pages are another list.
    let other = json!([todo(9, 2)]);
    state
        .write_result("GET /todos?cursor=0&userId=2", &pages, other, &json!({ "userId": 2, "cursor": 0 }), meta(3))
        .unwrap();
    assert_eq!(state.tables()["TodoList"].rows.len(), 2);
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 3, 4]);
    // The first page again: the list is that page.
    state.write_result("GET /todos?userId=1", &todos(), json!([todo(5, 1)]), &json!({ "userId": 1 }), meta(4)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [5]);
}

/// A page asked for before the list was fetched again (a refetch on focus
/// overtook it) belongs to the old list: it is dropped, not put in front.
#[test]
fn a_page_older_than_its_list_is_dropped() {
    let pages = Collection::paginated(&todos(), "cursor");
    let mut state = State::default();
    let first = json!([todo(1, 1), todo(2, 1)]);
    state.write_result("GET /todos?userId=1", &todos(), first.clone(), &json!({ "userId": 1 }), meta(1)).unwrap();
    // Page 2 was asked for at 2; page 1 again at 3, and its answer came first.
    state.write_result("GET /todos?userId=1", &todos(), first, &json!({ "userId": 1 }), meta(3)).unwrap();
    let second = json!([todo(3, 1), todo(4, 1)]);
    let args = json!({ "userId": 1, "cursor": 2 });
    state.write_result("GET /todos?cursor=2&userId=1", &pages, second, &args, meta(2)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2]);
}

/// An edit is not a fetch: a page asked for before a push onto its list
/// answered still joins the list (only a fetch of the list drops it).
#[test]
fn a_page_asked_for_before_an_edit_of_its_list_still_joins_it() {
    let pages = Collection::paginated(&todos(), "cursor");
    let mut state = State::default();
    let first = json!([todo(1, 1), todo(2, 1)]);
    state.write_result("GET /todos?userId=1", &todos(), first, &json!({ "userId": 1 }), meta(1)).unwrap();
    // Page 2 was asked for at 2; a push answered at 3, before the page.
    state.collection_push(&pages, todo(5, 1), meta(3)).unwrap();
    let args = json!({ "userId": 1, "cursor": 2 });
    let second = json!([todo(3, 1), todo(4, 1)]);
    state.write_result("GET /todos?cursor=2&userId=1", &pages, second, &args, meta(2)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 5, 3, 4]);
    // The list fetched again (at 4) still drops a page asked for before it.
    state.write_result("GET /todos?userId=1", &todos(), json!([todo(1, 1)]), &json!({ "userId": 1 }), meta(4)).unwrap();
    state.collection_push(&pages, todo(6, 1), meta(6)).unwrap();
    let late = json!([todo(8, 1)]);
    state
        .write_result("GET /todos?cursor=3&userId=1", &pages, late, &json!({ "userId": 1, "cursor": 3 }), meta(3))
        .unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 6]);
}

/// A paginated list gains pushed items like any list: the cursor filters nothing.
#[test]
fn a_paginated_list_takes_pushed_items() {
    let pages = Collection::paginated(&todos(), "cursor");
    let mut state = State::default();
    state.write_result("GET /todos?userId=1", &todos(), json!([todo(1, 1)]), &json!({ "userId": 1 }), meta(1)).unwrap();
    let args = json!({ "userId": 1, "cursor": 1 });
    state.write_result("GET /todos?cursor=1&userId=1", &pages, json!([todo(2, 1)]), &args, meta(2)).unwrap();
    state.collection_push(&pages, todo(3, 1), meta(3)).unwrap();
    state.collection_push(&todos(), todo(4, 2), meta(4)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 3]);
}

/// Args that key a list without filtering (a sort, a limit) let a pushed
/// item reach every list whose other args match.
#[test]
fn non_filtering_args_let_pushed_items_reach_sorted_and_limited_lists() {
    let sorted = Collection::non_filtering(&todos(), &["sort", "limit"]);
    let mut state = State::default();
    let lists = [
        ("GET /todos?sort=title&userId=1", json!({ "userId": 1, "sort": "title" })),
        ("GET /todos?limit=5&sort=id&userId=1", json!({ "userId": 1, "sort": "id", "limit": 5 })),
        ("GET /todos?sort=title&userId=2", json!({ "userId": 2, "sort": "title" })),
    ];
    for (key, args) in &lists {
        state.write_result(key, &sorted, json!([]), args, meta(1)).unwrap();
    }
    state.collection_push(&sorted, todo(7, 1), meta(2)).unwrap();
    assert_eq!(ids(&state, lists[0].0), [7]);
    assert_eq!(ids(&state, lists[1].0), [7]);
    assert!(ids(&state, lists[2].0).is_empty(), "another user's list");
    // The same lists under a collection without the setting: the sort filters.
    let mut plain = State::default();
    for (key, args) in &lists {
        plain.write_result(key, &todos(), json!([]), args, meta(1)).unwrap();
    }
    plain.collection_push(&todos(), todo(7, 1), meta(2)).unwrap();
    assert!(ids(&plain, lists[0].0).is_empty());
}

/// An endpoint's item leaves every list of the collection (`Collection::remove`);
/// the entity stays.
#[test]
fn a_removed_item_leaves_every_list_and_stays_stored() {
    let mut state = seed();
    let removed = Collection::remove(&todos()).into();
    state.write_entities(&removed, todo(1, 1), NO_ARGS, meta(2)).unwrap();
    assert!(ids(&state, "GET /todos?userId=1").is_empty());
    assert_eq!(ids(&state, "GET /todos"), [2]);
    assert!(state.entity("Todo", "1").is_some_and(|row| row.value.is_some()));
}

/// An updated item moves: it leaves the lists it no longer matches and joins
/// those it newly matches; a list it matched all along is left alone (the
/// item may sit on a page not fetched).
#[test]
fn a_moving_item_leaves_lists_it_no_longer_matches_and_joins_new_ones() {
    let paged = Collection::non_filtering(&todos(), &["page"]);
    let mut state = seed();
    // A second page of user 1's todos: todo 1 matches it but sits on page 1.
    let page_two = "GET /todos?page=2&userId=1";
    state.write_result(page_two, &paged, json!([]), &json!({ "userId": 1, "page": 2 }), meta(1)).unwrap();
    let moving = Collection::moving(&paged).into();
    // A new title only: every list stays as it was.
    let renamed = json!({ "id": 1, "userId": 1, "title": "renamed" });
    state.write_entities(&moving, renamed, NO_ARGS, meta(2)).unwrap();
    assert_eq!((ids(&state, "GET /todos?userId=1"), ids(&state, page_two)), (vec![1], vec![]));
    // To user 2: leaves user 1's list, joins user 2's at its end.
    state.write_entities(&moving, todo(1, 2), NO_ARGS, meta(3)).unwrap();
    assert!(ids(&state, "GET /todos?userId=1").is_empty());
    assert_eq!(ids(&state, "GET /todos?userId=2"), [2, 1]);
    assert_eq!(ids(&state, "GET /todos"), [1, 2], "the unfiltered list keeps its order");
    // Back to user 1: joins each of user 1's lists, as a pushed item would.
    state.write_entities(&moving, todo(1, 1), NO_ARGS, meta(4)).unwrap();
    assert_eq!((ids(&state, "GET /todos?userId=1"), ids(&state, page_two)), (vec![1], vec![1]));
    assert_eq!(ids(&state, "GET /todos?userId=2"), [2]);
    // An item not stored before joins every list it matches.
    state.write_entities(&moving, todo(9, 2), NO_ARGS, meta(5)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=2"), [2, 9]);
    assert_eq!(ids(&state, "GET /todos"), [1, 2, 9]);
}

fn todo_maps() -> SchemaOf<std::collections::BTreeMap<String, Todo>> {
    Collection::of_values("TodoMap", Todo::schema())
}

fn names(state: &State, key: &str) -> Vec<(String, String)> {
    let map: Arc<std::collections::BTreeMap<String, Todo>> =
        MemoCache::default().read_result(state, key, &todo_maps()).unwrap().unwrap();
    map.iter().map(|(name, todo)| (name.clone(), todo.title.clone())).collect()
}

#[test]
fn assigned_members_join_the_maps_whose_args_match_and_a_member_of_that_name_is_replaced() {
    let mut state = State::default();
    let first = json!({ "a": { "id": 1, "userId": 1, "title": "a" } });
    state.write_result("GET /maps?userId=1", &todo_maps(), first, &json!({ "userId": 1 }), meta(1)).unwrap();
    state.write_result("GET /maps?userId=2", &todo_maps(), json!({}), &json!({ "userId": 2 }), meta(1)).unwrap();
    state.write_result("GET /maps", &todo_maps(), json!({}), NO_ARGS, meta(1)).unwrap();
    let assign: Schema = Collection::assign(&todo_maps()).into();
    let added = json!({ "a": { "id": 3, "userId": 1, "title": "c" }, "b": { "id": 4, "userId": 1, "title": "d" } });
    let read = state.write_entities(&assign, added, &json!({ "userId": 1 }), meta(2)).unwrap();
    assert_eq!(read.as_object().map(|m| m.len()), Some(2), "the members normalized to references");
    assert_eq!(names(&state, "GET /maps?userId=1"), [("a".into(), "c".into()), ("b".into(), "d".into())]);
    assert_eq!(names(&state, "GET /maps?userId=2"), [], "another user's map is not touched");
    assert_eq!(names(&state, "GET /maps"), [("a".into(), "c".into()), ("b".into(), "d".into())], "no filter: all");
    // The entities are shared with lists; removing one empties it from maps too.
    let Schema::Collection(maps) = Schema::from(todo_maps()) else { unreachable!() };
    let remove = Schema::CollectionEdit(maps, rdc_core::ListEdit::Remove);
    state.write_entities(&remove, json!({ "id": 4, "userId": 1, "title": "d" }), NO_ARGS, meta(3)).unwrap();
    assert_eq!(names(&state, "GET /maps"), [("a".into(), "c".into())]);
}

#[test]
fn a_map_collection_refuses_a_list_and_keeps_what_it_had() {
    let mut state = State::default();
    state
        .write_result(
            "GET /maps",
            &todo_maps(),
            json!({ "a": { "id": 1, "userId": 1, "title": "a" } }),
            NO_ARGS,
            meta(1),
        )
        .unwrap();
    let refused = state.write_result(
        "GET /maps",
        &todo_maps(),
        json!([{ "id": 2, "userId": 1, "title": "b" }]),
        NO_ARGS,
        meta(2),
    );
    assert!(refused.is_err());
    assert_eq!(names(&state, "GET /maps"), [("a".into(), "a".into())]);
}

#[test]
fn a_kept_map_keeps_its_members_through_a_sweep() {
    let mut state = State::default();
    let maps: Schema = todo_maps().into();
    let answer = json!({ "a": { "id": 1, "userId": 1, "title": "a" } });
    state.write_result("GET /maps", &maps, answer, NO_ARGS, rdc_core::WriteMeta::at(0, 10)).unwrap();
    // Past expiry, but retained: the map and its member stay.
    let swept = state.sweep(100, |key| key == "GET /maps", |_| Some(maps.clone()), |_, _, _| false);
    assert_eq!((swept.results.len(), swept.entities), (0, 0));
    assert_eq!(names(&state, "GET /maps"), [("a".into(), "a".into())]);
    let swept = state.sweep(100, |_| false, |_| Some(maps.clone()), |_, _, _| false);
    assert_eq!((swept.results.len(), swept.entities), (1, 2), "the result, then its map and member");
}

/// A further page asked for while the list's first fetch was in flight, and
/// answered before it, does not become the list: the list's answer, when it
/// comes, goes in front of the page's items.
#[test]
fn a_page_answered_before_its_lists_first_fetch_joins_the_list_when_it_comes() {
    let pages = Collection::paginated(&todos(), "cursor");
    let mut state = State::default();
    // The list was asked for at 1, page 2 at 2; the page answered first.
    let args = json!({ "userId": 1, "cursor": 2 });
    let second = json!([todo(3, 1), todo(4, 1)]);
    state.write_result("GET /todos?cursor=2&userId=1", &pages, second, &args, meta(2)).unwrap();
    let first = json!([todo(1, 1), todo(2, 1)]);
    state.write_result("GET /todos?userId=1", &todos(), first, &json!({ "userId": 1 }), meta(1)).unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 3, 4]);
    // The list is fetched whole from then on: an older page is dropped again.
    let late = json!([todo(9, 1)]);
    state
        .write_result("GET /todos?cursor=9&userId=1", &pages, late, &json!({ "userId": 1, "cursor": 9 }), meta(0))
        .unwrap();
    assert_eq!(ids(&state, "GET /todos?userId=1"), [1, 2, 3, 4]);
}

/// Lists of the todos of a set of users (`users=1,2`): the args are not the
/// item's field, so only a filter function can say which lists an item joins.
fn by_users() -> SchemaOf<Vec<Todo>> {
    Collection::filtered_by(&Collection::of("TodoListByUsers", Todo::schema()), |args, item| {
        let users = args.get("users").and_then(Value::as_str).unwrap_or_default();
        let user = item.get("userId").and_then(Value::as_u64).map(|u| u.to_string());
        user.is_some_and(|user| users.split(',').any(|u| u == user))
    })
}

fn by_users_ids(state: &State, key: &str) -> Vec<u32> {
    let read = MemoCache::default().read_result::<Vec<Todo>>(state, key, &by_users()).unwrap().unwrap();
    read.iter().map(|t| t.id).collect()
}

fn by_users_seed() -> State {
    let mut state = State::default();
    for users in ["1,2", "2", "3"] {
        let args = json!({ "users": users });
        state.write_result(&format!("users={users}"), &by_users(), json!([]), &args, meta(1)).unwrap();
    }
    state
}

#[test]
fn a_filter_function_decides_which_lists_a_pushed_item_joins() {
    let mut state = by_users_seed();
    state.collection_push(&by_users(), json!({ "id": 7, "userId": 2, "title": "t" }), meta(2)).unwrap();
    state.collection_unshift(&by_users(), json!({ "id": 8, "userId": 1, "title": "u" }), meta(3)).unwrap();
    assert_eq!(by_users_ids(&state, "users=1,2"), [8, 7]);
    assert_eq!(by_users_ids(&state, "users=2"), [7]);
    assert_eq!(by_users_ids(&state, "users=3"), Vec::<u32>::new());
}

#[test]
fn a_filter_function_moves_an_item_between_lists() {
    let mut state = by_users_seed();
    state.collection_push(&by_users(), json!({ "id": 7, "userId": 2, "title": "t" }), meta(2)).unwrap();
    let moving = Collection::moving(&by_users()).into();
    state.write_entities(&moving, json!({ "id": 7, "userId": 3, "title": "t" }), NO_ARGS, meta(3)).unwrap();
    assert_eq!(by_users_ids(&state, "users=1,2"), Vec::<u32>::new());
    assert_eq!(by_users_ids(&state, "users=2"), Vec::<u32>::new());
    assert_eq!(by_users_ids(&state, "users=3"), [7]);
}

/// A user whose `todos` member is the collection's list of `userId` = the
/// user's id (a nested collection, data-client's `nestKey`).
#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Assignee {
    id: u32,
    #[entity(schema = "assignee_todos()")]
    todos: Vec<Todo>,
}

fn assignee_todos() -> SchemaOf<Vec<Todo>> {
    Collection::nested_by(&todos(), |owner, member| {
        assert_eq!(member, "todos", "the member's name is given");
        let mut args = rdc_core::Object::new();
        args.insert("userId".to_owned(), owner.get("id").cloned().unwrap_or_default());
        args
    })
}

fn assignee_todo_ids(state: &State, id: u32) -> Vec<u32> {
    let key = format!("GET /assignees/{id}");
    let owner = MemoCache::default().read_result::<Assignee>(state, &key, &Assignee::schema()).unwrap().unwrap();
    owner.todos.iter().map(|t| t.id).collect()
}

#[test]
fn a_nested_collection_is_keyed_by_its_parent_and_shared_with_the_list_of_those_args() {
    let mut state = State::default();
    let owners = [
        (1, json!({ "id": 1, "todos": [{ "id": 1, "userId": 1, "title": "a" }] })),
        (2, json!({ "id": 2, "todos": [] })),
    ];
    for (id, owner) in owners {
        state
            .write_result(&format!("GET /assignees/{id}"), &Assignee::schema(), owner, &json!({ "id": id }), meta(1))
            .unwrap();
    }
    // Keyed by each owner, not by the args the owner was fetched with.
    assert_eq!(assignee_todo_ids(&state, 1), [1]);
    assert_eq!(assignee_todo_ids(&state, 2), Vec::<u32>::new());
    // A todo created for owner 2 joins owner 2's list only.
    state.collection_push(&todos(), json!({ "id": 3, "userId": 2, "title": "c" }), meta(2)).unwrap();
    assert_eq!(assignee_todo_ids(&state, 2), [3]);
    assert_eq!(assignee_todo_ids(&state, 1), [1]);
    // The list of `GET /todos?userId=2` is the same list.
    state
        .write_result(
            "GET /todos?userId=2",
            &todos(),
            json!([{ "id": 3, "userId": 2, "title": "c" }, { "id": 4, "userId": 2, "title": "d" }]),
            &json!({ "userId": 2 }),
            meta(3),
        )
        .unwrap();
    assert_eq!(assignee_todo_ids(&state, 2), [3, 4]);
    // At the top of a response, the args key the list as ever.
    assert_eq!(ids(&state, "GET /todos?userId=2"), [3, 4]);
}

#[derive(Debug, Clone, serde::Deserialize, Entity)]
struct Loner {
    id: u32,
    #[entity(schema = "unnested_todos()")]
    todos: Vec<Todo>,
}

/// A nest that names no args (the parent lacks the field it reads).
fn unnested_todos() -> SchemaOf<Vec<Todo>> {
    Collection::nested_by(&todos(), |_, _| rdc_core::Object::new())
}

#[test]
fn a_nest_that_names_no_args_keys_the_list_by_the_endpoints_args_not_as_the_list_of_everything() {
    let mut state = State::default();
    let loner = json!({ "id": 1, "todos": [{ "id": 1, "userId": 1, "title": "a" }] });
    state.write_result("GET /loners/1", &Loner::schema(), loner, &json!({ "id": 1 }), meta(1)).unwrap();
    // The list of every todo (no args) is another list.
    state
        .write_result("GET /todos", &todos(), json!([{ "id": 9, "userId": 2, "title": "z" }]), &json!({}), meta(2))
        .unwrap();
    let read = MemoCache::default().read_result::<Loner>(&state, "GET /loners/1", &Loner::schema()).unwrap().unwrap();
    assert_eq!(read.id, 1);
    assert_eq!(read.todos.iter().map(|t| t.id).collect::<Vec<_>>(), [1]);
    assert_eq!(ids(&state, "GET /todos"), [9]);
}
