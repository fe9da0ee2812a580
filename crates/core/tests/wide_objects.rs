//! Issue 27, item 8: wide objects cost linear work. Re-writing an entity of
//! 40,000 fields (unchanged, or with one field changed) and normalizing a
//! `Values` response of 40,000 keys each take milliseconds; work quadratic in
//! the width (a scan of the object per field) takes seconds.

use std::time::{Duration, Instant};

use rdc_core::json::{Map, Value};
use rdc_core::{Entity, Schema, State, WriteMeta};
use serde::Deserialize;

/// Far above what linear work takes (60 to 120 ms in a debug build), far
/// below what quadratic work took (over a minute in a debug build).
const BOUND: Duration = Duration::from_secs(2);

const WIDTH: usize = 40_000;

#[derive(Debug, Deserialize, Entity)]
struct Wide {
    #[allow(dead_code)]
    id: String,
}

#[derive(Debug, Deserialize, Entity)]
struct Item {
    #[allow(dead_code)]
    id: String,
}

/// An entity with `WIDTH` fields besides its key, each holding `value(i)`.
fn wide(value: impl Fn(usize) -> Value) -> Value {
    let fields = (0..WIDTH).map(|i| (format!("f{i}"), value(i)));
    Value::Object(std::iter::once(("id".to_owned(), Value::from("w"))).chain(fields).collect())
}

fn timed<T>(what: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    let took = start.elapsed();
    eprintln!("{what}: {took:?}");
    assert!(took < BOUND, "{what} took {took:?}");
    out
}

fn write(state: &mut State, value: Value, now: u64) {
    state.write_entities(&Wide::schema(), value, &Value::Null, WriteMeta::at(now, u64::MAX)).unwrap();
}

#[test]
fn rewriting_an_entity_of_40_000_fields_takes_linear_time() {
    let mut state = State::default();
    write(&mut state, wide(Value::from), 0);
    timed("re-writing 40,000 equal fields", || write(&mut state, wide(Value::from), 1));
    timed("re-writing 40,000 fields, the last one changed", || {
        write(&mut state, wide(|i| Value::from(if i + 1 == WIDTH { 0 } else { i })), 2)
    });
    let row = state.entity("Wide", "w").and_then(|r| r.value.as_ref()).unwrap();
    assert_eq!(row.len(), WIDTH + 1);
    assert_eq!(row[&format!("f{}", WIDTH - 1)], 0);
    assert_eq!(row["f7"], 7);
}

#[test]
fn a_values_response_of_40_000_keys_normalizes_in_linear_time() {
    let item = |i: usize| Value::Object([("id", Value::from(format!("i{i}")))].into_iter().collect());
    let map: Map = (0..WIDTH).map(|i| (format!("k{i}"), item(i))).collect();
    let mut state = State::default();
    let schema = Schema::values(Item::schema());
    timed("normalizing 40,000 keys", || {
        state.write_result("GET /items", &schema, Value::Object(map), &Value::Null, WriteMeta::at(0, u64::MAX)).unwrap()
    });
    assert_eq!(state.entity_count(), WIDTH);
    let result = state.result("GET /items").unwrap();
    assert_eq!(result.value.as_object().map(Map::len), Some(WIDTH));
    assert_eq!(result.value["k7"], "i7");
}
