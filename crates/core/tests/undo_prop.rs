//! Property: taking back recorded writes restores the store exactly. After any
//! writes (entities new and changed, deletions, collection lists, results,
//! plain results, errors, invalidations) recorded with `State::record_undo`,
//! `State::undo` leaves every table, row (place, object, meta, version), result
//! and error as it was, entity by entity. And the changes it logs match what it
//! changed: every row whose object differs is logged at its index with a mask
//! covering the fields that differ, every row that became live or deleted is
//! logged live, every result and error that differs is logged by key; and it
//! logs no row the layer did not write and no key the layer did not address.
//! (A deleted row deleted again is logged though its object stays none: a
//! spurious wake-up, allowed here.)

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{fields_changed, Changes, Collection, Entity, EntityMeta, Object, Schema, State, WriteMeta};
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
    Collection::of("TaskList", Task::schema()).into()
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
                &tasks_key(*owner),
                &tasks(),
                Value::Array(list),
                &json!({ "owner": owner }),
                meta,
            ));
        }
        Op::Push(id, owner) => drop(state.collection_push(&tasks(), json!({ "id": id, "owner": owner }), meta)),
        Op::Remove(id) => state.collection_remove(&tasks(), &id.to_string()),
        Op::Plain(n) => state.write_plain_result("GET /plain", json!({ "n": n }), meta),
        Op::Error(n) => state.set_error(&tasks_key(u32::from(*n) % 2), format!("e{n}"), t, t + 10),
        Op::Invalidate(owner) => state.invalidate_result(&tasks_key(*owner)),
    }
}

fn tasks_key(owner: u32) -> String {
    format!("GET /tasks?owner={owner}")
}

/// The endpoint keys whose result or error `op` writes.
fn keys_of(op: &Op) -> Vec<String> {
    match op {
        Op::Person(..) | Op::Task(..) | Op::DeletePerson(_) => Vec::new(),
        Op::List(owner, _) | Op::Push(_, owner) | Op::Invalidate(owner) => vec![tasks_key(*owner)],
        // A removal takes the item out of every list of the collection.
        Op::Remove(_) => vec![tasks_key(0), tasks_key(1)],
        Op::Plain(_) => vec!["GET /plain".to_owned()],
        Op::Error(n) => vec![tasks_key(u32::from(*n) % 2)],
    }
}

/// One row as stored: its index in its table, object (`None` for a deletion
/// tombstone), meta and version.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    index: usize,
    value: Option<Object>,
    meta: EntityMeta,
    version: u64,
}

/// Everything the store holds, entity by entity, except its version counter
/// (which moves on): rows by (table, pk), each table's version, results and
/// errors by key (as JSON: their fields are compared, not their `Arc`s).
#[derive(Debug, Clone, PartialEq)]
struct Snapshot {
    rows: BTreeMap<(String, String), Row>,
    tables: BTreeMap<String, u64>,
    results: BTreeMap<String, serde_json::Value>,
    errors: BTreeMap<String, serde_json::Value>,
}

fn snapshot(state: &State) -> Snapshot {
    let mut rows = BTreeMap::new();
    let mut tables = BTreeMap::new();
    for (key, table) in state.tables() {
        tables.insert(key.clone(), table.version);
        for (index, (pk, row)) in table.rows.iter().enumerate() {
            let value = row.value.as_deref().cloned();
            rows.insert((key.clone(), pk.to_string()), Row { index, value, meta: row.meta, version: row.version });
        }
    }
    let results =
        state.result_keys().map(|key| (key.clone(), serde_json::to_value(state.result(key)).unwrap())).collect();
    // The store lists no error keys; its serialized form has them.
    let all = serde_json::to_value(state).unwrap();
    let errors = all["errors"]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| (key.clone(), serde_json::to_value(state.error(key)).unwrap()))
        .collect();
    Snapshot { rows, tables, results, errors }
}

/// Every entry of `a` and `b` under the same key that differs, as text.
fn differences<K: Ord + std::fmt::Debug, V: PartialEq + std::fmt::Debug>(
    what: &str,
    a: &BTreeMap<K, V>,
    b: &BTreeMap<K, V>,
) -> Vec<String> {
    let keys: BTreeSet<&K> = a.keys().chain(b.keys()).collect();
    keys.into_iter()
        .filter(|k| a.get(k) != b.get(k))
        .map(|k| format!("{what} {k:?}: {:?} != {:?}", a.get(k), b.get(k)))
        .collect()
}

/// Where `after` differs from `before`, entity by entity, table, result and error.
fn diff(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let mut out = differences("row", &before.rows, &after.rows);
    out.extend(differences("table version", &before.tables, &after.tables));
    out.extend(differences("result", &before.results, &after.results));
    out.extend(differences("error", &before.errors, &after.errors));
    out
}

/// Row (table, index) of `snapshot`, `None` when absent.
fn stored_at<'a>(snapshot: &'a Snapshot, table: &str, index: usize) -> Option<&'a Row> {
    snapshot.rows.iter().find(|((t, _), row)| t == table && row.index == index).map(|(_, row)| row)
}

/// The object of row (table, index): `None` when absent, `Some(None)` when a
/// deletion tombstone (readers tell "deleted" from "never stored").
fn row_at<'a>(snapshot: &'a Snapshot, table: &str, index: usize) -> Option<Option<&'a Object>> {
    stored_at(snapshot, table, index).map(|row| row.value.as_ref())
}

/// Checks the changes `undo` logged against what it changed (`at_undo` to
/// `after`), and what the layer's writes could have changed (from `before`
/// through each state in `during`).
fn check_log(
    log: &Changes,
    layer: &[Op],
    before: &Snapshot,
    during: &[Snapshot],
    at_undo: &Snapshot,
    after: &Snapshot,
) -> Result<(), TestCaseError> {
    // Every row whose object changed (or that appeared or went, tombstones too)
    // is logged at its index, its mask covering every field that differs; every
    // row that became live or deleted is logged live.
    let places: BTreeSet<(&str, usize)> =
        at_undo.rows.iter().chain(after.rows.iter()).map(|((table, _), row)| (table.as_str(), row.index)).collect();
    for (table, index) in places {
        let (old, new) = (row_at(at_undo, table, index), row_at(after, table, index));
        if old == new {
            continue;
        }
        let (old, new) = (old.flatten(), new.flatten());
        let want = fields_changed(old, new);
        let logged = log
            .rows
            .iter()
            .filter(|c| c.row.table == table && c.row.index == index)
            .fold(None, |mask: Option<u64>, c| Some(mask.unwrap_or(0) | c.fields));
        prop_assert!(logged.is_some(), "row {table}[{index}] changed ({old:?} -> {new:?}) but is not logged: {log:?}");
        let logged = logged.unwrap_or(0);
        prop_assert_eq!(
            logged & want,
            want,
            "row {}[{}]: logged mask {:b} misses fields of {:b} ({:?} -> {:?})",
            table,
            index,
            logged,
            want,
            old,
            new
        );
        if old.is_some() != new.is_some() {
            prop_assert!(
                log.alive.iter().any(|row| row.table == table && row.index == index),
                "row {table}[{index}] went {} but is not logged live: {log:?}",
                if new.is_some() { "live" } else { "away" }
            );
        }
    }
    // Every result or error that changed is logged by its key.
    for (what, old, new) in [("result", &at_undo.results, &after.results), ("error", &at_undo.errors, &after.errors)] {
        let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
        for key in keys {
            if old.get(key) != new.get(key) {
                prop_assert!(log.keys.contains(key), "{what} of {key} changed but is not logged: {log:?}");
            }
        }
    }
    // And nothing else: a logged row is one the layer wrote (the same index
    // held another row, object, meta or version, at some point), a logged key
    // one a write of the layer addressed.
    let states = || std::iter::once(at_undo).chain(during.iter());
    let logged_rows = log.rows.iter().map(|c| c.row).chain(log.alive.iter().copied());
    for rdc_core::Row { table, index } in logged_rows {
        let was = stored_at(before, table, index);
        prop_assert!(
            states().any(|s| stored_at(s, table, index) != was),
            "row {table}[{index}] is logged but the layer never wrote it: {log:?}"
        );
    }
    let addressed: BTreeSet<String> = layer.iter().flat_map(keys_of).collect();
    for key in &log.keys {
        prop_assert!(addressed.contains(key), "key {key} is logged but no write of the layer addressed it: {log:?}");
    }
    prop_assert!(!log.everything, "an undo wakes only what it restored: {log:?}");
    Ok(())
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
        let before = snapshot(&state);
        let version = state.version();
        state.track_changes();
        state.record_undo();
        let mut during = Vec::new();
        for op in &layer {
            // Layers are written "fetched" at any time, older or newer than the base.
            apply(&mut state, op, 4);
            during.push(snapshot(&state));
        }
        let at_undo = snapshot(&state);
        state.take_changes();
        state.undo();
        let after = snapshot(&state);
        // The store is as it was before the layer: every row (object, meta,
        // version, place), table version, result and error.
        let differ = diff(&before, &after);
        prop_assert!(differ.is_empty(), "undo left differences:\n{}", differ.join("\n"));
        prop_assert!(!state.is_recording_undo());
        prop_assert!(state.version() >= version);
        // What it restored is logged, and only that.
        let log = state.take_changes();
        check_log(&log, &layer, &before, &during, &at_undo, &after)?;
    }
}
