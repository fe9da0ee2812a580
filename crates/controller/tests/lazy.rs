//! A lazy field under the controller: a change to its entities wakes the
//! readers of `query_lazy`, not those of the parent.

mod cells;
use cells::SyncCell;
use std::sync::Arc;

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::{Entity, Lazy, Pk};
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)] // fields are there to be deserialized
struct Building {
    id: String,
    name: String,
}

#[derive(Debug, Deserialize, Entity)]
#[allow(dead_code)]
struct Department {
    id: String,
    #[entity(lazy = "Vec<Building>")]
    buildings: Vec<Pk>,
}

/// A tracked listener that counts its runs, each one calling `read`.
fn counter(c: &Controller, read: impl Fn(&Controller) + Send + Sync + 'static) -> Arc<SyncCell<u32>> {
    let runs = Arc::new(SyncCell::new(0));
    let (seen, reader) = (Arc::clone(&runs), c.clone());
    c.listen_reads(move || {
        seen.set(seen.get() + 1);
        read(&reader);
    });
    runs
}

#[test]
fn a_lazy_entity_changed_wakes_the_query_and_not_the_parent() {
    let time = FakeTime::default();
    let c = Controller::new(time.clone(), time, LocalTasks::default());
    let dept = json!({ "id": "d1", "buildings": [{ "id": "b1", "name": "North" }, { "id": "b2", "name": "South" }] });
    c.set(&Department::schema(), dept).unwrap();
    let query = Lazy::<Vec<Building>>::of().query();
    let parent_runs = counter(&c, |c| drop(c.entity::<Department>("d1")));
    let keys = c.entity::<Department>("d1").unwrap().unwrap().buildings.clone();
    let (q, k) = (query.clone(), keys.clone());
    let query_runs = counter(&c, move |c| drop(c.query_lazy(&q, &k)));
    let parent = c.entity::<Department>("d1").unwrap().unwrap();
    let before = c.query_lazy(&query, &keys).unwrap().unwrap();
    assert_eq!((parent_runs.get(), query_runs.get()), (1, 1));
    let tables: Vec<_> = c.entity_topics::<Department>("d1").iter().map(|t| t.topic.table_key()).collect();
    assert!(
        tables.contains(&"Department") && !tables.contains(&"Building"),
        "the parent reads no building: {tables:?}"
    );

    c.set(&Building::schema(), json!({ "id": "b2", "name": "South Hall" })).unwrap();
    assert_eq!(query_runs.get(), 2, "the query's reader wakes");
    assert_eq!(parent_runs.get(), 1, "the parent's does not");
    assert!(Arc::ptr_eq(&parent, &c.entity::<Department>("d1").unwrap().unwrap()), "the parent reads the same");
    let after = c.query_lazy(&query, &keys).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&before, &after));
    assert_eq!(after[1].name, "South Hall");

    // Nor does one of them going: the parent still reads its keys.
    c.set(&rdc_core::Schema::invalidate::<Building>(), json!("b2")).unwrap();
    assert_eq!((query_runs.get(), parent_runs.get()), (3, 1), "a deletion wakes the query alone");
    assert_eq!(c.query_lazy(&query, &keys).unwrap().unwrap().len(), 1);
    assert_eq!(c.entity::<Department>("d1").unwrap().unwrap().buildings.len(), 2);

    // Its keys changing is the parent's change.
    c.set(&Department::schema(), json!({ "id": "d1", "buildings": ["b1"] })).unwrap();
    assert_eq!(parent_runs.get(), 2);
    assert_eq!(c.entity::<Department>("d1").unwrap().unwrap().buildings, [Pk::from("b1")]);
}
