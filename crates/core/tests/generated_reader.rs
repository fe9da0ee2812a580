//! The reader `#[derive(Entity)]` generates gives what serde's visitor gives:
//! the same value, or the same error at the same path, for any stored object
//! (fields missing, null, of the wrong type, unknown, in any order; nested
//! references that resolve or not). `Fast` and `Slow` are the same struct; only
//! `Slow` asks for serde (`#[entity(serde_read)]`). Objects are put in the store
//! through its serialized form, so values the field check would refuse at
//! normalize time reach the reader too.

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use rdc_core::json;
use rdc_core::json::{Text, Value};
use rdc_core::{denormalize, All, Entity, MemoCache, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Owner {
    id: String,
    name: Text,
}

fn seven() -> i8 {
    7
}

macro_rules! twin {
    ($name:ident $(, $attr:meta)?) => {
        #[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
        #[serde(rename_all = "camelCase")]
        $(#[$attr])?
        struct $name {
            id: String,
            title: Text,
            count: u32,
            score: f64,
            flag: Option<bool>,
            note: Option<String>,
            #[serde(rename = "type")]
            kind: Text,
            #[serde(default)]
            tags: Vec<String>,
            #[serde(default = "seven")]
            level: i8,
            created_at: Option<DateTime<Utc>>,
            #[entity(nested)]
            owner: Option<Owner>,
            #[entity(nested)]
            #[serde(default)]
            friends: Vec<Owner>,
        }
    };
}

twin!(Fast);
twin!(Slow, entity(serde_read));

/// A plain response holding entities (`#[derive(Schema)]`), read by a reader
/// too; `SlowPage` leaves it to serde.
#[derive(Debug, Clone, PartialEq, Deserialize, rdc_core::Schema)]
struct FastPage {
    #[entity(nested)]
    items: Vec<Fast>,
    #[entity(nested)]
    first: Option<Fast>,
    total: u32,
    next: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, rdc_core::Schema)]
#[entity(serde_read)]
struct SlowPage {
    #[entity(nested)]
    items: Vec<Slow>,
    #[entity(nested)]
    first: Option<Slow>,
    total: u32,
    next: Option<String>,
}

macro_rules! node_twin {
    ($name:ident $(, $attr:meta)?) => {
        /// A graph node: `Self` in field types, an `f32`, a required reference,
        /// and cycles through the optional ones.
        #[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
        $(#[$attr])?
        struct $name {
            id: u32,
            weight: f32,
            #[entity(nested)]
            owner: Owner,
            #[entity(nested)]
            parent: Option<Box<Self>>,
            #[entity(nested)]
            #[serde(default)]
            children: Vec<Self>,
        }
    };
}

node_twin!(FastNode);
node_twin!(SlowNode, entity(serde_read));

/// `Slow` as a `Fast`, to compare the two reads.
fn same_as_fast(slow: Slow) -> Fast {
    let Slow { id, title, count, score, flag, note, kind, tags, level, created_at, owner, friends } = slow;
    Fast { id, title, count, score, flag, note, kind, tags, level, created_at, owner, friends }
}

const META: WriteMeta = WriteMeta { fetched_at: 1, date: 1, expires_at: u64::MAX, seq: 0 };

/// Values a member may have: right for some fields, wrong for others.
fn member_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(null)),
        Just(json!(true)),
        Just(json!(7)),
        Just(json!(-3)),
        Just(json!(300)),
        Just(json!(1.5)),
        Just(json!(1e20)),
        Just(json!("text")),
        Just(json!("2024-01-02T03:04:05Z")),
        Just(json!("o1")),
        Just(json!("o9")),
        Just(json!([])),
        Just(json!(["o1", "o9"])),
        Just(json!(["a", "b"])),
        Just(json!({"x": 1})),
    ]
}

const MEMBERS: [&str; 13] = [
    "id",
    "title",
    "count",
    "score",
    "flag",
    "note",
    "type",
    "tags",
    "level",
    "createdAt",
    "owner",
    "friends",
    "extra",
];

/// Values that fit member `name`'s field (at its type's edges), and some just
/// past them.
fn fitting(name: &'static str) -> BoxedStrategy<Value> {
    let values: Vec<Value> = match name {
        "id" | "title" | "type" | "note" => vec![json!("text"), json!(""), json!("é✓")],
        "count" => vec![json!(0), json!(7), json!(4_294_967_295u64), json!(4_294_967_296u64), json!(-1)],
        "score" => vec![json!(1.5), json!(7), json!(-3), json!(u64::MAX)],
        "flag" => vec![json!(true), json!(false)],
        "tags" => vec![json!([]), json!(["a", "b"])],
        "level" => vec![json!(7), json!(-128), json!(127), json!(128), json!(-129)],
        "createdAt" => vec![json!("2024-01-02T03:04:05Z"), json!("yesterday")],
        "owner" => vec![json!("o1"), json!("o9")],
        "friends" => vec![json!(["o1"]), json!(["o1", "o9", "o1"])],
        _ => vec![json!(1)],
    };
    proptest::sample::select(values).boxed()
}

/// A stored object: each member present (mostly with a value that fits, else
/// with any value) or not, in some order.
fn object() -> impl Strategy<Value = Vec<(String, Value)>> {
    let members = MEMBERS.iter().map(|name| {
        let value = prop_oneof![6 => fitting(name), 1 => member_value()];
        proptest::option::weighted(0.9, value).prop_map(move |v| (name, v))
    });
    (members.collect::<Vec<_>>(), Just(()).prop_perturb(|_, mut rng| rng.random::<u64>())).prop_map(
        |(members, seed)| {
            let mut present: Vec<(String, Value)> =
                members.into_iter().filter_map(|(name, value)| value.map(|v| (name.to_string(), v))).collect();
            // A deterministic shuffle by the seed (key order carries no meaning).
            let mut state = seed | 1;
            for i in (1..present.len()).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                present.swap(i, (state % (i as u64 + 1)) as usize);
            }
            present
        },
    )
}

/// A store with owner `o1`, and `object` stored as both `Fast` and `Slow` "1".
fn store_with(object: &[(String, Value)]) -> State {
    let mut state = State::default();
    state.write_entities(&Owner::schema(), json!({"id": "o1", "name": "Ada"}), &Value::Null, META).unwrap();
    let valid = json!({"id": "1", "title": "t", "count": 1, "score": 1.0, "type": "k"});
    state.write_entities(&Fast::schema(), valid.clone(), &Value::Null, META).unwrap();
    state.write_entities(&Slow::schema(), valid, &Value::Null, META).unwrap();
    // Swap in the object through the serialized store.
    let mut snapshot = serde_json::to_value(&state).unwrap();
    let mut map = serde_json::Map::new();
    for (name, value) in object {
        map.insert(name.clone(), serde_json::Value::from(value.clone()));
    }
    let mut replaced = 0;
    for key in ["Fast", "Slow"] {
        let rows = snapshot["entities"][key]["rows"].as_object_mut().unwrap();
        for row in rows.values_mut() {
            row["value"] = serde_json::Value::Object(map.clone());
            replaced += 1;
        }
    }
    assert_eq!(replaced, 2, "the snapshot's layout changed: {snapshot}");
    serde_json::from_value(snapshot).unwrap()
}

/// Nodes 0 to 3 as `FastNode` and as `SlowNode`: weights, owners (`o1` is
/// stored, `o9` not), parents and children drawn from the seeds.
fn graph(nodes: &[(u8, u8, Option<u8>, Vec<u8>)]) -> State {
    let mut state = State::default();
    state.write_entities(&Owner::schema(), json!({"id": "o1", "name": "Ada"}), &Value::Null, META).unwrap();
    let weights = [json!(1.5), json!(-3), json!(16_777_217), json!(9_007_199_791_611_905u64), json!(0)];
    for (id, (weight, owner, parent, children)) in nodes.iter().enumerate() {
        let mut node = json!({
            "id": id,
            "weight": weights[*weight as usize % weights.len()].clone(),
            "owner": {"id": if *owner % 3 == 0 { "o9" } else { "o1" }, "name": "Ada"},
            "children": children.iter().map(|c| json!(c % 5)).collect::<Vec<_>>(),
        });
        if let Some(parent) = parent {
            node["parent"] = json!(parent % 5);
        }
        // Owner "o9" is written nowhere: a reference to it does not resolve.
        if *owner % 3 == 0 {
            node["owner"] = json!("o9");
        }
        for schema in [FastNode::schema().into_schema(), SlowNode::schema().into_schema()] {
            // A node whose owner is missing is refused; the graph goes on without it.
            let _ = state.write_entities(&schema, node.clone(), &Value::Null, META);
        }
    }
    // Node 2's weight made unreadable (past the field check, through the
    // serialized store): reads that meet it fail inside lists and cycles.
    if nodes.len() > 2 && nodes[2].0 % 2 == 0 {
        let mut snapshot = serde_json::to_value(&state).unwrap();
        for key in ["FastNode", "SlowNode"] {
            if let Some(row) = snapshot["entities"][key]["rows"].get_mut("2") {
                row["value"]["weight"] = serde_json::json!("heavy");
            }
        }
        state = serde_json::from_value(snapshot).unwrap();
    }
    state
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn graphs_with_cycles_read_as_serde_reads_them(
        nodes in proptest::collection::vec(
            (any::<u8>(), any::<u8>(), proptest::option::of(any::<u8>()), proptest::collection::vec(any::<u8>(), 0..3)),
            1..5,
        )
    ) {
        let state = graph(&nodes);
        for id in 0..5u32 {
            let fast = denormalize::<FastNode>(&state, &FastNode::schema(), &json!(id));
            let slow = denormalize::<SlowNode>(&state, &SlowNode::schema(), &json!(id));
            prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}").replace("SlowNode", "FastNode"));
        }
        let all_fast = denormalize::<Vec<FastNode>>(&state, &All::of::<FastNode>().into(), &Value::Null);
        let all_slow = denormalize::<Vec<SlowNode>>(&state, &All::of::<SlowNode>().into(), &Value::Null);
        prop_assert_eq!(format!("{all_fast:?}"), format!("{all_slow:?}").replace("SlowNode", "FastNode"));
    }
}

/// A hand-written `Deserialize` is what reads use once the type says so
/// (`#[entity(serde_read)]`: the derive cannot see the impl).
#[test]
fn a_hand_written_deserialize_keeps_its_reads() {
    #[derive(Debug, Entity)]
    #[entity(serde_read)]
    struct Trimmed {
        id: String,
        name: String,
    }
    impl<'de> Deserialize<'de> for Trimmed {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            #[derive(Deserialize)]
            struct Raw {
                id: String,
                name: String,
            }
            let raw = Raw::deserialize(d)?;
            Ok(Trimmed { id: raw.id, name: raw.name.trim().to_owned() })
        }
    }
    assert!(Trimmed::READER.is_none() && Trimmed::LIST_READER.is_none());
    assert!(!rdc_core::__private::uses_reader::<Trimmed>());
    let mut state = State::default();
    state.write_entities(&Trimmed::schema(), json!({"id": "1", "name": " Ada "}), &Value::Null, META).unwrap();
    let one: Trimmed = denormalize(&state, &Trimmed::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((one.id.as_str(), one.name.as_str()), ("1", "Ada"));
    let list: Vec<Trimmed> = denormalize(&state, &Schema::array(Trimmed::schema()), &json!(["1"])).unwrap().unwrap();
    assert_eq!(list[0].name, "Ada");
    let all: Vec<Trimmed> = denormalize(&state, &All::of::<Trimmed>().into(), &Value::Null).unwrap().unwrap();
    assert_eq!(all[0].name, "Ada");
}

/// Without the attribute, a debug build's first read of a type whose
/// `Deserialize` asks for another struct stops with the fix in its message
/// (rather than reading other values than the app's impl would).
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "add `#[entity(serde_read)]`")]
fn a_hand_written_deserialize_without_the_attribute_is_caught_in_debug_builds() {
    #[derive(Debug, Entity)]
    #[allow(dead_code)]
    struct Forgot {
        id: String,
    }
    impl<'de> Deserialize<'de> for Forgot {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            #[derive(Deserialize)]
            struct Raw {
                id: String,
            }
            Ok(Forgot { id: Raw::deserialize(d)?.id.to_uppercase() })
        }
    }
    let mut state = State::default();
    state.write_entities(&Forgot::schema(), json!({"id": "a"}), &Value::Null, META).unwrap();
    let _ = denormalize::<Forgot>(&state, &Forgot::schema(), &json!("a"));
}

mod shared {
    // serde's derive matches the shared name twice: the second arm never runs.
    #![allow(unreachable_patterns)]
    use rdc_core::Entity;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, Entity)]
    pub struct Shared {
        pub id: String,
        pub a: Option<u32>,
        #[serde(rename = "a")]
        pub c: Option<u32>,
    }
}

/// Wire names follow serde's rules exactly (`lowercase` leaves a field name as
/// it is); a field whose name two fields share is left to serde.
#[test]
fn wire_names_are_serdes() {
    #[derive(Debug, Deserialize, Entity)]
    #[serde(rename_all = "lowercase")]
    #[allow(non_snake_case)]
    struct Lower {
        id: String,
        userName: String,
    }
    assert!(shared::Shared::READER.is_none());
    let mut state = State::default();
    state.write_entities(&Lower::schema(), json!({"id": "1", "userName": "ada"}), &Value::Null, META).unwrap();
    assert!(rdc_core::__private::uses_reader::<Lower>());
    let lower: Lower = denormalize(&state, &Lower::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((lower.id.as_str(), lower.userName.as_str()), ("1", "ada"));
    state.write_entities(&shared::Shared::schema(), json!({"id": "1", "a": 1}), &Value::Null, META).unwrap();
    let shared: shared::Shared = denormalize(&state, &shared::Shared::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((shared.id.as_str(), shared.a, shared.c), ("1", Some(1), None));
}

#[test]
fn the_derive_generates_a_reader_unless_asked_not_to() {
    assert!(Fast::READER.is_some());
    assert!(Owner::READER.is_some());
    assert!(Slow::READER.is_none());
    assert!(Fast::LIST_READER.is_some());
    // And reads use it.
    assert!(rdc_core::__private::uses_reader::<Fast>());
    assert!(rdc_core::__private::uses_reader::<Owner>());
    assert!(rdc_core::__private::uses_reader::<FastNode>());
    let page = format!("{:?}", FastPage::schema());
    assert_eq!(page, r#"{"items": Array(Entity(Fast)), "first": Entity(Fast)}"#);
    let (Schema::Object(fast), Schema::Object(slow)) =
        (FastPage::schema().into_schema(), SlowPage::schema().into_schema())
    else {
        panic!()
    };
    assert!(fast.reader().is_some() && slow.reader().is_none());
    assert!(Slow::LIST_READER.is_none());
}

/// Options of serializing only leave the reader on.
#[test]
fn serialize_only_options_keep_the_reader() {
    #[derive(Debug, Deserialize, serde::Serialize, Entity)]
    struct Sent {
        id: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
        #[serde(skip_serializing)]
        #[serde(default)]
        local: u32,
    }
    assert!(rdc_core::__private::uses_reader::<Sent>());
    let mut state = State::default();
    state.write_entities(&Sent::schema(), json!({"id": "1", "note": "hi"}), &Value::Null, META).unwrap();
    let sent: Sent = denormalize(&state, &Sent::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((sent.id.as_str(), sent.note.as_deref(), sent.local), ("1", Some("hi"), 0));
}

/// A serde option the reader does not mirror leaves the type to serde.
#[test]
fn an_unmirrored_serde_option_leaves_reads_to_serde() {
    #[derive(Debug, Deserialize, Entity)]
    struct Aliased {
        id: String,
        #[serde(alias = "label")]
        name: String,
    }
    #[derive(Debug, Deserialize, Entity)]
    #[serde(deny_unknown_fields)]
    struct Strict {
        id: String,
    }
    assert!(Aliased::READER.is_none());
    assert!(Strict::READER.is_none());
    let mut state = State::default();
    state.write_entities(&Aliased::schema(), json!({"id": "1", "label": "Ada"}), &Value::Null, META).unwrap();
    let read: Aliased = denormalize(&state, &Aliased::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((read.id.as_str(), read.name.as_str()), ("1", "Ada"));
    state.write_entities(&Strict::schema(), json!({"id": "2"}), &Value::Null, META).unwrap();
    let strict: Strict = denormalize(&state, &Strict::schema(), &json!("2")).unwrap().unwrap();
    assert_eq!(strict.id, "2");
}

#[test]
fn fields_in_any_order_and_unknown_ones_read_as_serde_reads_them() {
    let object: Vec<(String, Value)> = [
        ("extra", json!({"x": 1})),
        ("owner", json!("o1")),
        ("type", json!("k")),
        ("score", json!(2)),
        ("title", json!("Hello")),
        ("count", json!(3)),
        ("id", json!("1")),
        ("createdAt", json!("2024-01-02T03:04:05Z")),
        ("friends", json!(["o1", "o9"])),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    let state = store_with(&object);
    let fast: Fast = denormalize(&state, &Fast::schema(), &json!("1")).unwrap().unwrap();
    let slow: Slow = denormalize(&state, &Slow::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!(fast, same_as_fast(slow));
    assert_eq!(fast.title, "Hello");
    assert_eq!(fast.score, 2.0);
    assert_eq!(fast.level, 7, "the default function fills a missing member");
    assert_eq!(fast.tags, Vec::<String>::new());
    assert_eq!(fast.owner.as_ref().map(|o| o.name.as_str()), Some("Ada"));
    assert_eq!(fast.friends.len(), 1, "a friend not in the store is left out");
}

#[test]
fn a_wrong_member_is_the_same_error_at_the_same_path() {
    let object: Vec<(String, Value)> =
        [("id", json!("1")), ("title", json!("t")), ("count", json!(-3)), ("score", json!(1)), ("type", json!("k"))]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
    let state = store_with(&object);
    let fast = denormalize::<Fast>(&state, &Fast::schema(), &json!("1")).unwrap_err();
    let slow = denormalize::<Slow>(&state, &Slow::schema(), &json!("1")).unwrap_err();
    assert_eq!(fast.to_string(), slow.to_string());
    assert!(fast.to_string().contains("count"), "{fast}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_generated_reader_reads_what_serde_reads(object in object()) {
        let state = store_with(&object);
        let fast = denormalize::<Fast>(&state, &Fast::schema(), &json!("1"));
        let slow = denormalize::<Slow>(&state, &Slow::schema(), &json!("1"));
        match (fast, slow) {
            (Ok(fast), Ok(slow)) => prop_assert_eq!(fast, slow.map(same_as_fast)),
            (Err(fast), Err(slow)) => prop_assert_eq!(fast.to_string(), slow.to_string()),
            (fast, slow) => prop_assert!(false, "reader {:?}, serde {:?}", fast, slow),
        }
        // Lists: an array (with a reference to nothing, left out) and an `All`.
        let refs = json!(["1", "2", "1"]);
        let fast = denormalize::<Vec<Fast>>(&state, &Schema::array(Fast::schema()), &refs);
        let slow = denormalize::<Vec<Slow>>(&state, &Schema::array(Slow::schema()), &refs);
        prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}").replace("Slow", "Fast"));
        let fast = denormalize::<Vec<Fast>>(&state, &All::of::<Fast>().into(), &Value::Null);
        let slow = denormalize::<Vec<Slow>>(&state, &All::of::<Slow>().into(), &Value::Null);
        prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}").replace("Slow", "Fast"));
        // A plain object holding them (its other members drawn like the entity's).
        let member = |name: &str| object.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let mut page = json!({"items": ["1", "2"], "first": "1"});
        for (name, from) in [("total", "count"), ("next", "note")] {
            if let Some(value) = member(from) {
                page[name] = value;
            }
        }
        let fast = denormalize::<FastPage>(&state, &FastPage::schema(), &page);
        let slow = denormalize::<SlowPage>(&state, &SlowPage::schema(), &page);
        prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}").replace("Slow", "Fast"));
        // Memoized reads (fields narrowed to those read) agree too.
        let mut memo = MemoCache::default();
        let fast = memo.entity::<Fast>(&state, "1").map(|r| r.map(|f| (*f).clone()));
        let slow = memo.entity::<Slow>(&state, "1").map(|r| r.map(|s| same_as_fast((*s).clone())));
        prop_assert_eq!(format!("{fast:?}"), format!("{slow:?}"));
    }
}

/// A reference left out because it does not resolve still counts as read: when
/// it changes to one that does, the memoized read is done again.
#[test]
fn a_reference_left_out_is_a_field_the_read_depends_on() {
    let mut state = State::default();
    state.write_entities(&Owner::schema(), json!({"id": "o1", "name": "Ada"}), &Value::Null, META).unwrap();
    let fast = |owner: &str| json!({"id": "1", "title": "t", "count": 1, "score": 1.0, "type": "k", "owner": owner});
    state.write_entities(&Fast::schema(), fast("o9"), &Value::Null, META).unwrap();
    let mut memo = MemoCache::default();
    let first = memo.entity::<Fast>(&state, "1").unwrap().unwrap();
    assert_eq!(first.owner, None);
    state.write_entities(&Fast::schema(), fast("o1"), &Value::Null, META).unwrap();
    let second = memo.entity::<Fast>(&state, "1").unwrap().unwrap();
    assert_eq!(second.owner.as_ref().map(|o| o.name.as_str()), Some("Ada"));
}

/// A plain struct that contains itself gets a schema (`Cyclic` where it meets
/// itself again) and reads like serde.
#[test]
fn a_derived_object_may_contain_itself() {
    #[derive(Debug, Clone, PartialEq, Deserialize, rdc_core::Schema)]
    struct Tree {
        #[entity(nested)]
        owner: Option<Owner>,
        #[entity(nested)]
        #[serde(default)]
        children: Vec<Tree>,
    }
    let schema = Tree::schema();
    assert_eq!(format!("{schema:?}"), r#"{"owner": Entity(Owner), "children": Array(Cyclic(..))}"#);
    let mut state = State::default();
    let tree = json!({"owner": {"id": "o1", "name": "Ada"}, "children": [{"owner": {"id": "o2", "name": "Bo"}}, {}]});
    state.write_result("tree", &schema, tree, &Value::Null, META).unwrap();
    let mut memo = MemoCache::default();
    let read = memo.read_result::<Tree>(&state, "tree", &schema).unwrap().unwrap();
    assert_eq!(read.owner.as_ref().map(|o| o.name.as_str()), Some("Ada"));
    assert_eq!(read.children.len(), 2);
    assert_eq!(read.children[0].owner.as_ref().map(|o| o.name.as_str()), Some("Bo"));
    assert_eq!(read.children[1], Tree { owner: None, children: vec![] });
}

/// A hand-written `Deserialize` that asks for a struct of the same name and
/// fields (serde's documented manual pattern, which no check can tell from
/// the derive's) keeps its reads with the attribute.
#[test]
fn a_hand_written_visitor_of_the_same_struct_keeps_its_reads() {
    #[derive(Debug, Entity)]
    #[entity(serde_read)]
    struct Shouted {
        id: String,
        name: String,
    }
    impl<'de> Deserialize<'de> for Shouted {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            #[derive(Deserialize)]
            #[serde(rename = "Shouted")]
            struct Raw {
                id: String,
                name: String,
            }
            let raw = Raw::deserialize(d)?;
            Ok(Shouted { id: raw.id, name: raw.name.to_uppercase() })
        }
    }
    let mut state = State::default();
    state.write_entities(&Shouted::schema(), json!({"id": "1", "name": "ada"}), &Value::Null, META).unwrap();
    assert!(!rdc_core::__private::uses_reader::<Shouted>());
    let one: Shouted = denormalize(&state, &Shouted::schema(), &json!("1")).unwrap().unwrap();
    assert_eq!((one.id.as_str(), one.name.as_str()), ("1", "ADA"));
}
