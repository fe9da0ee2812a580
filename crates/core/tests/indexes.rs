//! Declared unique indexes (`#[entity(index = "..")]`): `State::pk_where`
//! looks through them in constant time, and they follow every write: a field
//! that changes, a deletion, a reset, an optimistic layer taken back, a sweep,
//! a store taken up. Hostile data (a value two entities share, a missing or
//! non-scalar field) has the outcome the docs give, and the index always
//! answers as a scan of the table would.

use proptest::prelude::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
#[entity(index = "email, slug")]
#[allow(dead_code)]
struct Member {
    id: u32,
    email: Option<String>,
    #[serde(rename = "handle")]
    slug: Option<String>,
}

fn put(state: &mut State, member: Value, at: u64) {
    state.write_entities(&Member::schema(), member, &Value::Null, WriteMeta::at(at, 1000)).unwrap();
}

fn by(state: &State, field: &str, value: &str) -> Option<String> {
    let found = state.pk_where("Member", field, &json!(value)).map(|pk| pk.to_string());
    // Where an index is built, it alone gives that answer.
    if state.is_indexed("Member", field) {
        let indexed = state.pk_indexed("Member", field, &json!(value)).map(|pk| pk.map(|pk| pk.to_string()));
        assert_eq!(indexed, Some(found.clone()), "the index alone, for {field} = {value}");
    }
    found
}

#[test]
fn a_declared_index_is_built_by_the_first_write_and_found_by_value() {
    // Field names become wire names.
    assert_eq!(Member::INDEXES, ["email", "handle"]);
    let mut state = State::default();
    assert!(!state.is_indexed("Member", "email"));
    put(&mut state, json!({ "id": 1, "email": "ada@x.org", "handle": "ada" }), 0);
    put(&mut state, json!({ "id": 2, "email": "bo@x.org", "handle": "bo" }), 0);
    assert!(state.is_indexed("Member", "email") && state.is_indexed("Member", "handle"));
    assert!(!state.is_indexed("Member", "id"));
    assert_eq!(by(&state, "email", "bo@x.org").as_deref(), Some("2"));
    assert_eq!(by(&state, "handle", "ada").as_deref(), Some("1"));
    assert_eq!(by(&state, "email", "nobody@x.org"), None);
}

#[test]
fn a_changed_field_moves_the_entity_in_the_index() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    put(&mut state, json!({ "id": 1, "email": "ada@lovelace.org" }), 1);
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    assert_eq!(by(&state, "email", "ada@lovelace.org").as_deref(), Some("1"));
    // Older data does not win, in the row or in the index.
    put(&mut state, json!({ "id": 1, "email": "stale@x.org" }), 0);
    assert_eq!(by(&state, "email", "stale@x.org"), None);
    assert_eq!(by(&state, "email", "ada@lovelace.org").as_deref(), Some("1"));
}

#[test]
fn a_deleted_entity_leaves_the_index_until_written_again() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    let delete = Schema::invalidate::<Member>();
    state.write_entities(&delete, json!({ "id": 1 }), &Value::Null, WriteMeta::at(1, 1000)).unwrap();
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 2);
    assert_eq!(by(&state, "email", "ada@x.org").as_deref(), Some("1"));
}

#[test]
fn a_reset_store_finds_nothing_and_indexes_its_next_writes() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    state.clear();
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    put(&mut state, json!({ "id": 2, "email": "ada@x.org" }), 1);
    assert!(state.is_indexed("Member", "email"));
    assert_eq!(by(&state, "email", "ada@x.org").as_deref(), Some("2"));
}

#[test]
fn taking_back_an_optimistic_layer_restores_the_index() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    put(&mut state, json!({ "id": 2, "email": "bo@x.org" }), 0);
    state.record_undo();
    // The layer: Ada's email changes, a new member appears, Bo is deleted.
    put(&mut state, json!({ "id": 1, "email": "ada@new.org" }), 1);
    put(&mut state, json!({ "id": 3, "email": "cy@x.org" }), 1);
    let delete = Schema::invalidate::<Member>();
    state.write_entities(&delete, json!(2), &Value::Null, WriteMeta::at(1, 1000)).unwrap();
    assert_eq!(by(&state, "email", "ada@new.org").as_deref(), Some("1"));
    assert_eq!(by(&state, "email", "bo@x.org"), None);
    let taken = state.take_back_layers();
    assert_eq!(by(&state, "email", "ada@x.org").as_deref(), Some("1"));
    assert_eq!(by(&state, "email", "ada@new.org"), None);
    assert_eq!(by(&state, "email", "cy@x.org"), None);
    assert_eq!(by(&state, "email", "bo@x.org").as_deref(), Some("2"));
    // Put on again, as the controller does after a real write.
    state.record_undo();
    put(&mut state, json!({ "id": 1, "email": "ada@new.org" }), 1);
    state.keep_unchanged(taken);
    assert_eq!(by(&state, "email", "ada@new.org").as_deref(), Some("1"));
    state.undo();
    assert_eq!(by(&state, "email", "ada@x.org").as_deref(), Some("1"));
}

#[test]
fn a_swept_entity_leaves_the_index() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    state.sweep(5_000, |_| false, |_| None, |_, _, _| false);
    assert!(state.entity("Member", "1").is_none());
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    // Back under another email: the old one names nobody.
    put(&mut state, json!({ "id": 1, "email": "ada@new.org" }), 6_000);
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    assert_eq!(by(&state, "email", "ada@new.org").as_deref(), Some("1"));
}

#[test]
fn a_store_taken_up_is_found_through_the_index() {
    let mut server = State::default();
    put(&mut server, json!({ "id": 1, "email": "ada@new.org" }), 10);
    put(&mut server, json!({ "id": 2, "email": "bo@x.org" }), 10);
    let mut browser = State::default();
    put(&mut browser, json!({ "id": 1, "email": "ada@x.org" }), 0);
    browser.take_up(server.page_copy(), |at| at, 20);
    assert!(browser.is_indexed("Member", "email"));
    assert_eq!(by(&browser, "email", "ada@x.org"), None);
    assert_eq!(by(&browser, "email", "ada@new.org").as_deref(), Some("1"));
    assert_eq!(by(&browser, "email", "bo@x.org").as_deref(), Some("2"));
}

#[test]
fn a_loaded_store_scans_until_indexed_and_then_answers_alike() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    let mut loaded: State = serde_json::from_str(&serde_json::to_string(&state).unwrap()).unwrap();
    assert!(!loaded.is_indexed("Member", "email"));
    assert_eq!(by(&loaded, "email", "ada@x.org").as_deref(), Some("1"), "a scan answers meanwhile");
    loaded.index_entity(Member::DEF);
    assert!(loaded.is_indexed("Member", "email"));
    assert_eq!(by(&loaded, "email", "ada@x.org").as_deref(), Some("1"));
}

/// Two live entities claiming one unique value: the one stored first is
/// found, and the other once the first lets go of it.
#[test]
fn a_value_two_entities_share_finds_the_one_stored_first() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "shared@x.org" }), 0);
    put(&mut state, json!({ "id": 2, "email": "shared@x.org" }), 0);
    put(&mut state, json!({ "id": 3, "email": "shared@x.org" }), 0);
    assert_eq!(by(&state, "email", "shared@x.org").as_deref(), Some("1"));
    put(&mut state, json!({ "id": 1, "email": "own@x.org" }), 1);
    assert_eq!(by(&state, "email", "shared@x.org").as_deref(), Some("2"));
    let delete = Schema::invalidate::<Member>();
    state.write_entities(&delete, json!(2), &Value::Null, WriteMeta::at(2, 1000)).unwrap();
    assert_eq!(by(&state, "email", "shared@x.org").as_deref(), Some("3"));
}

/// A member without the field, with `null`, or with a list or object in it
/// is not refused; the index holds what a scan would find.
#[test]
fn a_missing_or_odd_indexed_field_is_defined() {
    #[derive(Debug, Deserialize, Entity)]
    #[entity(index = "code")]
    #[allow(dead_code)]
    struct Tagged {
        id: u32,
        code: Option<rdc_core::json::Value>,
    }
    let mut state = State::default();
    let rows = json!([{ "id": 1 }, { "id": 2, "code": null }, { "id": 3, "code": [1] }, { "id": 4, "code": 7 }]);
    state.write_entities(&Schema::array(Tagged::schema()), rows, &Value::Null, WriteMeta::at(0, 1000)).unwrap();
    let find = |value: Value| state.pk_where("Tagged", "code", &value).map(|pk| pk.to_string());
    assert_eq!(find(json!("7")).as_deref(), Some("4"), "scalars compare by text");
    assert_eq!(find(json!(7)).as_deref(), Some("4"));
    // `null` compares as the text "null", as in the scan; a list is found by
    // the scan (an index holds scalars only).
    assert_eq!(find(json!(null)).as_deref(), Some("2"));
    assert_eq!(find(json!([1])).as_deref(), Some("3"));
    assert_eq!(find(json!({ "a": 1 })), None);
    assert_eq!(find(json!("absent")), None);
}

#[derive(Debug, Clone)]
enum Op {
    Put(u32, Option<u8>, u64),
    Delete(u32),
    Layer,
    TakeBack,
    Sweep,
    Reset,
    TakeUp(u32, u8),
}

fn op() -> impl Strategy<Value = Op> {
    let id = 0u32..4;
    prop_oneof![
        4 => (id.clone(), proptest::option::of(0u8..3), 0u64..3).prop_map(|(id, e, at)| Op::Put(id, e, at)),
        1 => id.clone().prop_map(Op::Delete),
        1 => Just(Op::Layer),
        1 => Just(Op::TakeBack),
        1 => Just(Op::Sweep),
        1 => Just(Op::Reset),
        1 => (id, 0u8..3).prop_map(|(id, e)| Op::TakeUp(id, e)),
    ]
}

/// A scan of the table, as `pk_where` answers without an index.
fn scan(state: &State, email: &str) -> Option<String> {
    let table = state.tables().get("Member")?;
    table.rows.iter().find_map(|(pk, row)| {
        let found = row.value.as_ref()?.get("email")?;
        (found.as_str() == Some(email)).then(|| pk.to_string())
    })
}

proptest! {
    /// Whatever the writes, the index finds what a scan of the rows finds.
    #[test]
    fn the_index_answers_as_a_scan_does(ops in proptest::collection::vec(op(), 1..40)) {
        let mut state = State::default();
        let mut now: u64 = 0;
        for op in ops {
            now += 1;
            // As the controller does: layers come off before any write but theirs.
            if matches!(op, Op::Sweep | Op::Reset | Op::TakeUp(..)) && state.is_recording_undo() {
                state.take_back_layers();
            }
            match op {
                Op::Put(id, email, back) => {
                    let member = match email {
                        Some(e) => json!({ "id": id, "email": format!("{e}@x.org") }),
                        None => json!({ "id": id }),
                    };
                    put(&mut state, member, now.saturating_sub(back));
                }
                Op::Delete(id) => {
                    let delete = Schema::invalidate::<Member>();
                    state.write_entities(&delete, json!(id), &Value::Null, WriteMeta::at(now, 1000)).unwrap();
                }
                Op::Layer => state.record_undo(),
                Op::TakeBack => {
                    state.take_back_layers();
                }
                Op::Sweep => {
                    state.sweep(now + 2000, |_| false, |_| None, |table, pk, _| table == "Member" && pk != "0");
                }
                Op::Reset => state.clear(),
                Op::TakeUp(id, e) => {
                    let mut page = State::default();
                    put(&mut page, json!({ "id": id, "email": format!("{e}@x.org") }), now);
                    state.take_up(page, |at| at, now);
                }
            }
            let built = state.is_indexed("Member", "email");
            for e in 0..3 {
                let email = format!("{e}@x.org");
                prop_assert_eq!(by(&state, "email", &email), scan(&state, &email), "{}", email);
            }
            // The index the writes kept (built now if none was) alone answers as a scan.
            state.index_entity(Member::DEF);
            prop_assert!(state.is_indexed("Member", "email"));
            for e in 0..3 {
                let email = format!("{e}@x.org");
                let indexed = state.pk_indexed("Member", "email", &json!(email)).map(|pk| pk.map(|pk| pk.to_string()));
                prop_assert_eq!(indexed, Some(scan(&state, &email)), "{} (index built before: {})", email, built);
            }
        }
    }
}

/// Seconds to write `n` members in one response, none with an email and all
/// with the same empty handle (the best of three stores).
fn write_shared_values(n: u32) -> f64 {
    let members = Value::Array((0..n).map(|id| json!({ "id": id, "email": null, "handle": "" })).collect());
    (0..3)
        .map(|_| {
            let mut state = State::default();
            let started = std::time::Instant::now();
            let list = Schema::array(Member::schema());
            state.write_entities(&list, members.clone(), &Value::Null, WriteMeta::at(0, 1000)).unwrap();
            assert!(state.is_indexed("Member", "handle"));
            started.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn many_rows_sharing_a_value_write_in_linear_time() {
    // Ten times the rows: about ten times the time, where a quadratic index
    // takes a hundred. The bound is generous for a loaded machine.
    let (small, large) = (write_shared_values(2_000), write_shared_values(20_000));
    assert!(large < small * 35.0, "2k rows: {small:.4}s, 20k rows: {large:.4}s");
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": null, "handle": "" }), 0);
    put(&mut state, json!({ "id": 2, "email": "bo@x.org", "handle": "" }), 0);
    // Null is not indexed: the scan answers, as before.
    assert_eq!(state.pk_where("Member", "email", &Value::Null).map(|pk| pk.to_string()).as_deref(), Some("1"));
    assert_eq!(by(&state, "handle", "").as_deref(), Some("1"));
}

#[test]
fn a_merge_that_changes_an_indexed_field_moves_the_entity() {
    let mut state = State::default();
    put(&mut state, json!({ "id": 1, "email": "ada@x.org" }), 0);
    // A partial write merges: the email stays, and so does its index entry.
    put(&mut state, json!({ "id": 1, "handle": "ada" }), 1);
    assert!(state.is_indexed("Member", "email"));
    assert_eq!(by(&state, "email", "ada@x.org").as_deref(), Some("1"));
    assert_eq!(by(&state, "handle", "ada").as_deref(), Some("1"));
    // A merge that changes the email moves it, and keeps the handle.
    put(&mut state, json!({ "id": 1, "email": "ada@lovelace.org" }), 2);
    assert_eq!(by(&state, "email", "ada@x.org"), None);
    assert_eq!(by(&state, "email", "ada@lovelace.org").as_deref(), Some("1"));
    assert_eq!(by(&state, "handle", "ada").as_deref(), Some("1"));
}

/// A type whose indexed code may come as a number or a string.
#[derive(Debug, Deserialize, Entity)]
#[entity(index = "code")]
#[allow(dead_code)]
struct Coded {
    id: u32,
    code: Value,
}

#[test]
fn a_number_and_its_text_meet_in_the_index_as_in_a_scan() {
    let mut state = State::default();
    state
        .write_entities(&Coded::schema(), json!({ "id": 1, "code": 7 }), &Value::Null, WriteMeta::at(0, 1000))
        .unwrap();
    state
        .write_entities(&Coded::schema(), json!({ "id": 2, "code": "8" }), &Value::Null, WriteMeta::at(0, 1000))
        .unwrap();
    assert!(state.is_indexed("Coded", "code"));
    for (asked, pk) in [(json!(7), "1"), (json!("7"), "1"), (json!(8), "2"), (json!("8"), "2")] {
        let indexed = state.pk_indexed("Coded", "code", &asked).map(|pk| pk.map(|pk| pk.to_string()));
        assert_eq!(indexed, Some(Some(pk.to_owned())), "the index, for {asked:?}");
        let mut loaded = State::default();
        loaded.take_up(state.data_copy(), |at| at, 0);
        // The same store without an index: the scan agrees.
        let scanned = (!loaded.is_indexed("Coded", "code"))
            .then(|| loaded.pk_where("Coded", "code", &asked).map(|pk| pk.to_string()));
        assert_eq!(scanned, Some(Some(pk.to_owned())), "the scan, for {asked:?}");
    }
}
