//! Property: taking back recorded writes restores the store exactly. After any
//! writes (entities new and changed, deletions, collection lists, results,
//! plain results, errors, invalidations) recorded with `State::record_undo`,
//! `State::undo` leaves every table, row (object, meta, version), result and
//! error as it was, and logs every row and key it restored as a change.

use proptest::prelude::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Collection, Entity, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Person {
    id: u32,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Task {
    id: u32,
    owner: u32,
    #[entity(nested)]
    person: Option<Person>,
}

#[derive(Debug, Clone)]
enum Op {
    Person(u32, u8),
    Task(u32, u32, Option<u32>),
    DeletePerson(u32),
    /// A list result of tasks by owner, through a collection.
    List(u32, Vec<u32>),
    Push(u32, u32),
    Remove(u32),
    Plain(u8),
    Error(u8),
    Invalidate(u32),
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u32..5;
    prop_oneof![
        (id.clone(), 0u8..3).prop_map(|(id, n)| Op::Person(id, n)),
        (id.clone(), 0u32..2, proptest::option::of(id.clone())).prop_map(|(id, o, p)| Op::Task(id, o, p)),
        id.clone().prop_map(Op::DeletePerson),
        (0u32..2, proptest::collection::vec(id.clone(), 0..4)).prop_map(|(o, ids)| Op::List(o, ids)),
        (id.clone(), 0u32..2).prop_map(|(id, o)| Op::Push(id, o)),
        id.clone().prop_map(Op::Remove),
        (0u8..3).prop_map(Op::Plain),
        (0u8..3).prop_map(Op::Error),
        (0u32..2).prop_map(Op::Invalidate),
    ]
}

fn tasks() -> Schema {
    Collection::of("TaskList", Task::schema())
}

/// Applies `op` at time `t`; a refused write changes nothing, as in the store.
fn apply(state: &mut State, op: &Op, t: u64) {
    let meta = WriteMeta::at(t, 1000);
    let null = Value::Null;
    match op {
        Op::Person(id, n) => {
            drop(state.write_entities(&Person::schema(), json!({ "id": id, "name": format!("n{n}") }), &null, meta))
        }
        Op::Task(id, owner, person) => {
            let task = json!({ "id": id, "owner": owner, "person": person.map(|p| json!({ "id": p, "name": "p" })) });
            drop(state.write_entities(&Task::schema(), task, &null, meta));
        }
        Op::DeletePerson(id) => drop(state.write_entities(&Schema::invalidate::<Person>(), json!(id), &null, meta)),
        Op::List(owner, ids) => {
            let list: Vec<Value> = ids.iter().map(|id| json!({ "id": id, "owner": owner })).collect();
            drop(state.write_result(
                &format!("GET /tasks?owner={owner}"),
                &tasks(),
                Value::Array(list),
                &json!({ "owner": owner }),
                meta,
            ));
        }
        Op::Push(id, owner) => drop(state.collection_push(&tasks(), json!({ "id": id, "owner": owner }), meta)),
        Op::Remove(id) => state.collection_remove(&tasks(), &id.to_string()),
        Op::Plain(n) => state.write_plain_result("GET /plain", json!({ "n": n }), meta),
        Op::Error(n) => state.set_error(&format!("GET /tasks?owner={}", n % 2), format!("e{n}"), t, t + 10),
        Op::Invalidate(owner) => state.invalidate_result(&format!("GET /tasks?owner={owner}")),
    }
}

/// What readers can see: each row's object, each result's value and
/// invalidation, each error (not the times a write may move on alone).
fn visible(state: &State) -> serde_json::Value {
    use serde_json::{json, Value};
    let all = contents(state);
    let rows = |table: &Value| -> Value {
        table["rows"].as_object().unwrap().iter().map(|(pk, row)| (pk.clone(), row["value"].clone())).collect()
    };
    let entities: serde_json::Map<String, Value> =
        all["entities"].as_object().unwrap().iter().map(|(key, table)| (key.clone(), rows(table))).collect();
    let results: serde_json::Map<String, Value> = all["results"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(key, r)| (key.clone(), json!([r["value"], r["meta"]["invalidated"]])))
        .collect();
    json!({ "entities": entities, "results": results, "errors": all["errors"] })
}

/// Everything the store holds except its version counter (which moves on).
fn contents(state: &State) -> serde_json::Value {
    let mut value = serde_json::to_value(state).unwrap();
    value.as_object_mut().unwrap().remove("version");
    value
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn undo_restores_what_recorded_writes_replaced(
        base in proptest::collection::vec(op(), 0..8),
        layer in proptest::collection::vec(op(), 1..6),
    ) {
        let mut state = State::default();
        for (t, op) in base.iter().enumerate() {
            apply(&mut state, op, t as u64 + 1);
        }
        let before = contents(&state);
        let visible_before = visible(&state);
        let version = state.version();
        state.track_changes();
        state.record_undo();
        for op in &layer {
            // Layers are written "fetched" at any time, older or newer than the base.
            apply(&mut state, op, 4);
        }
        let changed = visible(&state) != visible_before;
        state.take_changes();
        state.undo();
        prop_assert_eq!(contents(&state), before);
        prop_assert!(!state.is_recording_undo());
        prop_assert!(state.version() >= version);
        // Whatever the layer changed that readers see, taking it back is logged.
        let logged = state.take_changes();
        prop_assert!(!changed || !logged.is_empty(), "nothing logged for a visible change: {:?}", logged);
    }
}
