//! Property: reading back what was written gives what was written, for generated
//! entity graphs with shared and cyclic references.

mod common;

use common::*;
use proptest::prelude::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{denormalize, Entity, MemoCache, Schema, State};

/// A generated graph: node i has a name, friends (indexes) and maybe a best friend.
#[derive(Debug, Clone)]
struct Graph {
    names: Vec<String>,
    friends: Vec<Vec<usize>>,
    best: Vec<Option<usize>>,
}

fn graph() -> impl Strategy<Value = Graph> {
    (1usize..7).prop_flat_map(|n| {
        (
            proptest::collection::vec("[a-z]{1,6}", n),
            proptest::collection::vec(proptest::collection::vec(0..n, 0..3), n),
            proptest::collection::vec(proptest::option::of(0..n), n),
        )
            .prop_map(|(names, friends, best)| Graph { names, friends, best })
    })
}

/// The wire form: every person in full at the top, references embedded as
/// shallow copies (id and name only), so one entity appears in many places.
fn wire(g: &Graph) -> Value {
    let shallow = |i: usize| json!({ "id": i, "name": g.names[i] });
    Value::Array(
        (0..g.names.len())
            .map(|i| {
                json!({
                    "id": i,
                    "name": g.names[i],
                    "friends": g.friends[i].iter().map(|&f| shallow(f)).collect::<Vec<_>>(),
                    "best_friend": g.best[i].map(shallow),
                })
            })
            .collect(),
    )
}

/// What a read must give: the full graph, where an entity met again on its own
/// path has its references cut (lists empty, optional references none).
fn expected(g: &Graph, i: usize, path: &mut Vec<usize>) -> Person {
    if path.contains(&i) {
        return Person { id: i as u32, name: g.names[i].clone(), friends: vec![], best_friend: None };
    }
    path.push(i);
    let friends = g.friends[i].iter().map(|&f| expected(g, f, path)).collect();
    let best_friend = g.best[i].map(|b| Box::new(expected(g, b, path)));
    path.pop();
    Person { id: i as u32, name: g.names[i].clone(), friends, best_friend }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn reading_back_gives_what_was_written(g in graph()) {
        let mut state = State::default();
        let schema = Schema::array(Person::schema());
        write(&mut state, "GET /people", &schema, wire(&g), 1);
        prop_assert_eq!(state.entity_count(), g.names.len());

        let read: Vec<Person> = denormalize(&state, &schema, &state.result("GET /people").unwrap().value).unwrap().unwrap();
        let want: Vec<Person> = (0..g.names.len()).map(|i| expected(&g, i, &mut Vec::new())).collect();
        prop_assert_eq!(&read, &want);

        // Memoized reads agree, and are stable.
        let mut memo = MemoCache::default();
        let a = memo.read_result::<Vec<Person>>(&state, "GET /people", &schema).unwrap().unwrap();
        let b = memo.read_result::<Vec<Person>>(&state, "GET /people", &schema).unwrap().unwrap();
        prop_assert!(std::sync::Arc::ptr_eq(&a, &b));
        prop_assert_eq!(&*a, &want);
    }
}
