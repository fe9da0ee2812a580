//! A list's keys (`Vec<Pk>`) read again after an edit are patched, not read
//! whole: the answer equals a fresh read after any sequence of edits, an
//! unchanged answer is the identical `Arc`, and the work done is what changed
//! (counted by `MemoCache::list_items_checked`, not timed).

mod common;

use std::sync::Arc;

use common::{meta, NO_ARGS};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Collection, Entity, MemoCache, Pk, Schema, SchemaOf, State};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Author {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Row {
    id: String,
    name: String,
    #[entity(nested)]
    author: Author,
}

const KEY: &str = "GET /rows";
const AUTHORS: u64 = 4;

fn row(id: u64, author: u64, name: &str) -> Value {
    json!({ "id": id.to_string(), "name": name, "author": { "id": author.to_string(), "name": format!("a{author}") } })
}

fn collection() -> SchemaOf<Vec<Row>> {
    Collection::of("RowList", Row::schema())
}

/// A small deterministic random source (xorshift).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// The keys a fresh, unmemoized read gives.
fn fresh(state: &State, schema: &Schema) -> Vec<String> {
    let stored = &state.result(KEY).unwrap().value;
    let keys: Option<Vec<Pk>> = rdc_core::denormalize(state, schema, stored).unwrap();
    keys.unwrap_or_default().iter().map(|k| k.as_str().to_owned()).collect()
}

/// Random edits of a list held as a plain result (`collection: false`: each
/// edit writes the whole list again) or as a collection, with deletions,
/// re-fetches, authors going and coming and unrelated writes between reads.
fn run(seed: u64, collection_list: bool) {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let array = Schema::array(Row::schema());
    let coll = collection();
    let schema: &Schema = if collection_list { &coll } else { &array };
    let mut state = State::default();
    let mut list: Vec<u64> = (0..8 + rng.below(12)).collect();
    let mut next = 100;
    let mut now = 1;
    let author_of = |id: u64| id % AUTHORS;
    let items = |list: &[u64]| Value::Array(list.iter().map(|&i| row(i, author_of(i), "r")).collect());
    state.write_result(KEY, schema, items(&list), NO_ARGS, meta(now)).unwrap();
    let mut memo = MemoCache::default();
    let mut last: Option<Arc<Vec<Pk>>> = None;
    for step in 0..60 {
        for _ in 0..1 + rng.below(2) {
            now += 1;
            let op = rng.below(10);
            let pick = list.get(rng.below(list.len() as u64) as usize).copied().unwrap_or(0);
            let write = |state: &mut State, schema: &Schema, value: Value| {
                state.write_entities(schema, value, NO_ARGS, meta(now)).unwrap();
            };
            match op {
                // push or unshift
                0 | 1 => {
                    next += 1;
                    if collection_list {
                        let edit = if op == 0 { Collection::push(&coll) } else { Collection::unshift(&coll) };
                        write(&mut state, &edit, row(next, author_of(next), "new"));
                        if op == 0 {
                            list.push(next)
                        } else {
                            list.insert(0, next)
                        }
                    } else {
                        if op == 0 {
                            list.push(next)
                        } else {
                            list.insert(0, next)
                        }
                        state.write_result(KEY, schema, items(&list), NO_ARGS, meta(now)).unwrap();
                    }
                }
                // remove from the list
                2 if !list.is_empty() => {
                    list.retain(|&i| i != pick);
                    if collection_list {
                        state.collection_remove(&coll, &pick.to_string());
                    } else {
                        state.write_result(KEY, schema, items(&list), NO_ARGS, meta(now)).unwrap();
                    }
                }
                // move one item (a plain list: the list written again)
                3 if !collection_list && list.len() > 1 => {
                    let from = rng.below(list.len() as u64) as usize;
                    let item = list.remove(from);
                    let to = rng.below(list.len() as u64 + 1) as usize;
                    list.insert(to, item);
                    state.write_result(KEY, schema, items(&list), NO_ARGS, meta(now)).unwrap();
                }
                // delete an item, or bring one back (fetched again)
                4 => write(&mut state, &Schema::invalidate::<Row>(), json!(pick.to_string())),
                5 => write(&mut state, &Row::schema().into_schema(), row(pick, author_of(pick), "again")),
                // an author goes (its rows invalid) or comes back
                6 => write(&mut state, &Schema::invalidate::<Author>(), json!(rng.below(AUTHORS).to_string())),
                7 => {
                    let author = rng.below(AUTHORS);
                    write(
                        &mut state,
                        &Author::schema().into_schema(),
                        json!({ "id": author.to_string(), "name": "b" }),
                    );
                }
                // a row renamed (nothing the keys show), or another row written
                8 => write(&mut state, &Row::schema().into_schema(), row(pick, author_of(pick), &format!("n{now}"))),
                _ => write(&mut state, &Row::schema().into_schema(), row(10_000 + now, 0, "elsewhere")),
            }
        }
        let keys = memo.read_result::<Vec<Pk>>(&state, KEY, schema).unwrap().unwrap_or_default();
        let got: Vec<String> = keys.iter().map(|k| k.as_str().to_owned()).collect();
        let want = fresh(&state, schema);
        assert_eq!(got, want, "seed {seed}, step {step}, collection {collection_list}");
        let whole = MemoCache::default().read_result::<Vec<Pk>>(&state, KEY, schema).unwrap().unwrap_or_default();
        assert_eq!(*keys, *whole, "seed {seed}, step {step}: a fresh memo reads the same");
        if let Some(last) = last.as_ref().filter(|last| ***last == *keys) {
            assert!(Arc::ptr_eq(last, &keys), "seed {seed}, step {step}: the same keys, the same Arc");
        }
        last = Some(keys);
    }
}

#[test]
fn keys_patched_after_random_edits_of_a_plain_list_equal_a_fresh_read() {
    for seed in 0..150 {
        run(seed, false);
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Numbered {
    id: u64,
}

/// A list of numbers (references as numbers, not text): read the same way.
#[test]
fn keys_of_numbered_items_patched_equal_a_fresh_read() {
    let schema = Schema::array(Numbered::schema());
    let mut state = State::default();
    let list = Value::Array((0..6).map(|i| json!(i)).collect());
    let objects = Value::Array((0..6).map(|i| json!({ "id": i })).collect());
    state.write_entities(&schema, objects, NO_ARGS, meta(1)).unwrap();
    state.write_result(KEY, &Schema::array(Numbered::schema()), list, NO_ARGS, meta(1)).unwrap();
    let mut memo = MemoCache::default();
    let mut rng = Rng(7);
    for step in 0..200u64 {
        let id = rng.below(6);
        let (edit, value) = match rng.below(2) {
            0 => (Schema::invalidate::<Numbered>(), json!(id)),
            _ => (Numbered::schema().into_schema(), json!({ "id": id })),
        };
        state.write_entities(&edit, value, NO_ARGS, meta(2 + step)).unwrap();
        let keys = memo.read_result::<Vec<Pk>>(&state, KEY, &schema).unwrap().unwrap();
        let got: Vec<String> = keys.iter().map(|k| k.as_str().to_owned()).collect();
        assert_eq!(got, fresh(&state, &schema), "step {step}");
    }
}

#[test]
fn keys_patched_after_random_edits_of_a_collection_equal_a_fresh_read() {
    for seed in 0..150 {
        run(seed, true);
    }
}

const LONG: u64 = 10_000;

fn long_list(collection_list: bool) -> (State, Schema) {
    let schema: Schema = if collection_list { collection().into() } else { Schema::array(Row::schema()) };
    let mut state = State::default();
    let items = Value::Array((0..LONG).map(|i| row(i, i % 10, "r")).collect());
    state.write_result(KEY, &schema, items, NO_ARGS, meta(1)).unwrap();
    (state, schema)
}

/// Reads the keys and returns how many list items the read checked.
fn checked(memo: &mut MemoCache, state: &State, schema: &Schema) -> (Arc<Vec<Pk>>, u64) {
    let before = memo.list_items_checked();
    let keys = memo.read_result::<Vec<Pk>>(state, KEY, schema).unwrap().unwrap();
    (keys, memo.list_items_checked() - before)
}

#[test]
fn keys_of_a_long_list_after_one_delete_check_that_item_only() {
    let (mut state, schema) = long_list(false);
    let mut memo = MemoCache::default();
    assert_eq!(checked(&mut memo, &state, &schema).1, LONG, "the first read checks every item");
    state.write_entities(&Schema::invalidate::<Row>(), json!("5000"), NO_ARGS, meta(2)).unwrap();
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.len() as u64, work), (LONG - 1, 1), "one item went: one checked");
    assert!(keys.iter().all(|k| k.as_str() != "5000"));
    state.write_entities(&Row::schema(), row(5000, 0, "back"), NO_ARGS, meta(3)).unwrap();
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.len() as u64, work), (LONG, 1), "it came back: one checked");
    assert_eq!(keys.get(5000).map(Pk::as_str), Some("5000"));
    // An unrelated write: nothing checked, the same Arc.
    state.write_entities(&Author::schema(), json!({ "id": "99", "name": "x" }), NO_ARGS, meta(4)).unwrap();
    let (again, work) = checked(&mut memo, &state, &schema);
    assert!(Arc::ptr_eq(&keys, &again) && work == 0);
}

#[test]
fn keys_of_a_long_collection_after_an_unshift_a_push_a_remove_and_a_move_check_what_changed() {
    let (mut state, schema) = long_list(true);
    let coll = collection();
    let mut memo = MemoCache::default();
    checked(&mut memo, &state, &schema);
    state.write_entities(&Collection::unshift(&coll), row(LONG, 1, "first"), NO_ARGS, meta(2)).unwrap();
    // The new item is decided, and checked once more as a row that changed.
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.len() as u64, keys.first().map(Pk::as_str)), (LONG + 1, Some("10000")));
    assert!(work <= 2, "{work} items checked after an unshift");
    state.write_entities(&Collection::push(&coll), row(LONG + 1, 1, "last"), NO_ARGS, meta(3)).unwrap();
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.len() as u64, keys.last().map(Pk::as_str)), (LONG + 2, Some("10001")));
    assert!(work <= 2, "{work} items checked after a push");
    state.collection_remove(&coll, "17");
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.len() as u64, work), (LONG + 1, 0), "a removed item needs no check");
    assert_eq!(fresh(&state, &schema), keys.iter().map(|k| k.as_str().to_owned()).collect::<Vec<_>>());
    // A move across the whole list: the list written again, its first item last.
    let (mut state, schema) = long_list(false);
    let mut memo = MemoCache::default();
    checked(&mut memo, &state, &schema);
    let moved = Value::Array((1..LONG).chain([0]).map(|i| row(i, i % 10, "r")).collect());
    state.write_result(KEY, &schema, moved, NO_ARGS, meta(2)).unwrap();
    let (keys, work) = checked(&mut memo, &state, &schema);
    assert_eq!((keys.first().map(Pk::as_str), keys.last().map(Pk::as_str), work), (Some("1"), Some("0"), 0));
}

/// A collection's keys depend on the collection's row: a push or an unshift
/// changes that row alone, and must wake whoever read the keys.
#[test]
fn keys_of_a_collection_depend_on_its_row() {
    let (state, schema) = long_list(true);
    let mut memo = MemoCache::default();
    checked(&mut memo, &state, &schema);
    let topics: Vec<_> = memo.topics(std::any::TypeId::of::<Vec<Pk>>(), KEY).collect();
    assert!(
        topics.iter().any(|t| t.topic.table_key() == "RowList"),
        "no topic on the collection's row among {} topics",
        topics.len()
    );
}
