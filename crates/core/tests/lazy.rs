//! `Lazy` (after data-client's): a field normalized through its schema, read
//! as its keys; its entities are read on demand through `Lazy::query`.

use std::sync::Arc;

use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, Lazy, MemoCache, NormalizeError, Pk, Schema, State, WriteMeta};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Building {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Department {
    id: String,
    name: String,
    #[entity(lazy = "Vec<Building>")]
    buildings: Vec<Pk>,
    #[entity(lazy = "Building")]
    main: Pk,
    #[entity(lazy = "Building")]
    annex: Option<String>,
}

/// The same, read through serde's visitor (a hand-written `Deserialize` needs it).
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "Department", serde_read)]
struct DepartmentBySerde {
    id: String,
    #[entity(lazy = "Vec<Building>")]
    buildings: Vec<Pk>,
    #[entity(lazy = "Building")]
    main: Pk,
}

fn meta(now: u64) -> WriteMeta {
    WriteMeta::at(now, 60_000)
}

fn department() -> Value {
    json!({
        "id": "d1",
        "name": "Maths",
        "buildings": [{ "id": "b1", "name": "North" }, { "id": "b2", "name": "South" }],
        "main": { "id": "b1", "name": "North" },
        "annex": null,
    })
}

fn stored() -> State {
    let mut state = State::default();
    state.write_result("GET /d1", &Department::schema(), department(), &Value::Null, meta(0)).unwrap();
    state
}

fn rename(state: &mut State, id: &str, name: &str, now: u64) {
    state.write_entities(&Building::schema(), json!({ "id": id, "name": name }), &Value::Null, meta(now)).unwrap();
}

/// Field `name` of the stored entity `table`/`pk`.
fn field(state: &State, table: &str, pk: &str, name: &str) -> Option<Value> {
    state.entity(table, pk)?.value.as_ref()?.get(name).cloned()
}

fn buildings() -> rdc_core::LazyQuery<Vec<Building>> {
    Lazy::<Vec<Building>>::of().query()
}

#[test]
fn a_lazy_field_reads_as_its_keys_while_its_entities_are_stored() {
    let state = stored();
    assert_eq!(field(&state, "Building", "b2", "name"), Some(json!("South")));
    assert_eq!(field(&state, "Department", "d1", "buildings"), Some(json!(["b1", "b2"])));
    let mut memo = MemoCache::default();
    let read = memo.read_result::<Department>(&state, "GET /d1", &Department::schema()).unwrap().unwrap();
    assert_eq!(read.buildings, [Pk::from("b1"), Pk::from("b2")]);
    assert_eq!((read.main.as_str(), read.annex.as_deref()), ("b1", None));
    let by_serde = memo.entity::<DepartmentBySerde>(&state, "d1").unwrap().unwrap();
    assert_eq!((by_serde.buildings.len(), by_serde.main.as_str()), (2, "b1"));
}

#[test]
fn the_query_reads_the_entities_of_the_keys() {
    let state = stored();
    let mut memo = MemoCache::default();
    let dept = memo.entity::<Department>(&state, "d1").unwrap().unwrap();
    let list = buildings().read(&mut memo, &state, &dept.buildings).unwrap().unwrap();
    assert_eq!(list.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["North", "South"]);
    let main = Lazy::<Building>::of().query().read(&mut memo, &state, &dept.main).unwrap().unwrap();
    assert_eq!(main.name, "North");
    let again = buildings().read(&mut memo, &state, &dept.buildings).unwrap().unwrap();
    assert!(Arc::ptr_eq(&list, &again), "memoized");
    let other = buildings().read(&mut memo, &state, &vec![Pk::from("b2")]).unwrap().unwrap();
    assert_eq!(other.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["South"], "keyed by its keys");
}

#[test]
fn a_change_to_a_lazy_entity_leaves_the_parent_read_as_it_was() {
    let mut state = stored();
    let mut memo = MemoCache::default();
    let before = memo.read_result::<Department>(&state, "GET /d1", &Department::schema()).unwrap().unwrap();
    let query_before = buildings().read(&mut memo, &state, &before.buildings).unwrap().unwrap();
    // What a change can wake: the parent's read looks at no building, its query does.
    let tables =
        |memo: &MemoCache, ty, key: &str| memo.topics(ty, key).map(|t| t.topic.table_key()).collect::<Vec<_>>();
    let parent_tables = tables(&memo, std::any::TypeId::of::<Department>(), "GET /d1");
    assert!(parent_tables.contains(&"Department") && !parent_tables.contains(&"Building"), "{parent_tables:?}");
    let query_type = std::any::TypeId::of::<rdc_core::LazyQuery<Vec<Building>>>();
    assert!(tables(&memo, query_type, &buildings().memo_key(&before.buildings)).contains(&"Building"));
    rename(&mut state, "b1", "North Hall", 1);
    let after = memo.read_result::<Department>(&state, "GET /d1", &Department::schema()).unwrap().unwrap();
    assert!(Arc::ptr_eq(&before, &after), "the parent's read does not depend on its lazy entities");
    let query_after = buildings().read(&mut memo, &state, &after.buildings).unwrap().unwrap();
    assert!(!Arc::ptr_eq(&query_before, &query_after));
    assert_eq!(query_after[0].name, "North Hall");
    // A change to the keys themselves is the parent's.
    let moved = json!({ "id": "d1", "name": "Maths", "buildings": ["b2"], "main": "b2" });
    state.write_entities(&Department::schema(), moved, &Value::Null, meta(2)).unwrap();
    let moved = memo.read_result::<Department>(&state, "GET /d1", &Department::schema()).unwrap().unwrap();
    assert_eq!((moved.buildings.as_slice(), moved.main.as_str()), ([Pk::from("b2")].as_slice(), "b2"));
}

#[test]
fn a_missing_or_deleted_lazy_entity_leaves_the_parent_valid() {
    let mut state = State::default();
    // Keys of buildings never stored: references, as an entity field takes them.
    let dept = json!({ "id": "d2", "name": "Art", "buildings": ["b8"], "main": "b9" });
    let list = Schema::array(Department::schema());
    state.write_result("GET /ds", &list, json!([dept]), &Value::Null, meta(0)).unwrap();
    let mut memo = MemoCache::default();
    let read = memo.read_result::<Vec<Department>>(&state, "GET /ds", &list).unwrap().unwrap();
    assert_eq!(read.len(), 1, "a required lazy field naming nothing stored leaves its entity shown");
    assert_eq!((read[0].main.as_str(), read[0].buildings.as_slice()), ("b9", [Pk::from("b8")].as_slice()));
    assert_eq!(Lazy::<Building>::of().query().read(&mut memo, &state, &read[0].main).unwrap(), None);
    assert_eq!(*buildings().read(&mut memo, &state, &read[0].buildings).unwrap().unwrap(), vec![]);

    let mut state = stored();
    state.write_entities(&Schema::invalidate::<Building>(), json!("b1"), &Value::Null, meta(1)).unwrap();
    let dept = memo.read_result::<Department>(&state, "GET /d1", &Department::schema()).unwrap();
    assert_eq!(dept.map(|d| d.main.clone()), Some(Pk::from("b1")), "its main building deleted, it still reads");
}

#[test]
fn a_lazy_field_that_does_not_fit_its_schema_is_refused_naming_its_path() {
    let refused = |value: Value| {
        let mut state = stored();
        let err = state.write_result("GET /d1", &Department::schema(), value, &Value::Null, meta(1)).unwrap_err();
        assert_eq!(field(&state, "Department", "d1", "name"), Some(json!("Maths")), "store kept");
        err
    };
    let err = refused(json!({ "id": "d1", "name": "x", "buildings": 5, "main": "b1" }));
    assert!(matches!(&err, NormalizeError::UnexpectedShape { path, .. } if path == "buildings"), "{err}");
    let err = refused(json!({ "id": "d1", "name": "x", "buildings": [{ "name": "no id" }], "main": "b1" }));
    assert!(
        matches!(&err, NormalizeError::MissingPrimaryKey { entity: "Building", path } if path == "buildings[0]"),
        "{err}"
    );
    let err = refused(json!({ "id": "d1", "name": "x", "buildings": [], "main": { "id": "b1", "name": 5 } }));
    let field_error = NormalizeError::InvalidField {
        entity: "Building",
        path: "main.name".to_owned(),
        message: "invalid type: integer `5`, expected a string".to_owned(),
    };
    assert_eq!(err.to_string(), field_error.to_string());
}

#[test]
fn a_result_keeps_its_lazy_entities_through_a_sweep_and_holds_their_type() {
    let mut state = stored();
    rename(&mut state, "b9", "Unreached", 0);
    let schema: Schema = Department::schema().into();
    // Everything expired, the result in use: what it reaches stays.
    let swept = state.sweep(120_000, |key| key == "GET /d1", |_| Some(schema.clone()), |_, _, _| false);
    assert_eq!(swept.entities, 1, "only the building no result reaches goes");
    assert!(state.entity("Building", "b1").is_some() && state.entity("Building", "b2").is_some());
    assert!(schema.holds("Building"), "invalidating buildings fetches again what brought them");
}

#[test]
fn a_derived_object_takes_lazy_fields_too() {
    #[derive(Debug, Deserialize, rdc_core::Schema)]
    struct Page {
        #[entity(lazy = "Vec<Building>")]
        results: Vec<String>,
        next: Option<String>,
    }
    let mut state = State::default();
    let page = json!({ "results": [{ "id": "b1", "name": "North" }], "next": "2" });
    state.write_result("GET /b", &Page::schema(), page, &Value::Null, meta(0)).unwrap();
    let read = MemoCache::default().read_result::<Page>(&state, "GET /b", &Page::schema()).unwrap().unwrap();
    assert_eq!((read.results.as_slice(), read.next.as_deref()), (["b1".to_owned()].as_slice(), Some("2")));
    assert!(state.entity("Building", "b1").is_some());
}

#[test]
fn a_lazy_collection_reads_as_its_list_key_and_its_query_reads_the_list() {
    fn lists() -> rdc_core::SchemaOf<Vec<Building>> {
        rdc_core::Collection::of("Buildings", Building::schema())
    }
    #[derive(Debug, Deserialize, Entity)]
    #[entity(key = "Campus")]
    struct Campus {
        id: String,
        #[entity(schema = "Lazy::new(lists())")]
        buildings: Value,
    }
    let mut state = State::default();
    let campus = json!({ "id": "c1", "buildings": [{ "id": "b1", "name": "North" }] });
    state.write_entities(&Campus::schema(), campus, &json!({ "campus": "c1" }), meta(0)).unwrap();
    let mut memo = MemoCache::default();
    let read = memo.entity::<Campus>(&state, "c1").unwrap().unwrap();
    assert_eq!(read.id, "c1");
    assert!(read.buildings.is_string(), "the list's key, not its items: {:?}", read.buildings);
    let query = Lazy::new(lists()).query();
    let list = query.read(&mut memo, &state, &read.buildings).unwrap().unwrap();
    assert_eq!(*list, vec![Building { id: "b1".into(), name: "North".into() }]);
    rename(&mut state, "b1", "North Hall", 1);
    assert!(Arc::ptr_eq(&read, &memo.entity::<Campus>(&state, "c1").unwrap().unwrap()));
    assert_eq!(query.read(&mut memo, &state, &read.buildings).unwrap().unwrap()[0].name, "North Hall");
}

#[test]
fn a_lazy_field_may_name_its_own_type() {
    #[derive(Debug, Deserialize, Entity)]
    struct Employee {
        id: String,
        #[entity(lazy = "Self")]
        manager: Option<Pk>,
        #[entity(lazy = "Vec<Self>")]
        reports: Vec<Pk>,
    }
    let mut state = State::default();
    let ada = json!({ "id": "ada", "manager": { "id": "bo", "reports": ["ada"] }, "reports": [] });
    state.write_entities(&Employee::schema(), ada, &Value::Null, meta(0)).unwrap();
    let mut memo = MemoCache::default();
    let ada = memo.entity::<Employee>(&state, "ada").unwrap().unwrap();
    assert_eq!((ada.id.as_str(), ada.manager.as_ref().map(Pk::as_str)), ("ada", Some("bo")));
    let bo = Lazy::<Employee>::of().query().read(&mut memo, &state, ada.manager.as_ref().unwrap()).unwrap().unwrap();
    assert_eq!(
        (bo.reports.as_slice(), bo.manager.as_ref(), ada.reports.len()),
        ([Pk::from("ada")].as_slice(), None, 0)
    );
}

#[test]
fn null_and_numeric_references_in_a_lazy_field_read_as_keys() {
    let mut state = State::default();
    let dept = json!({
        "id": "d3",
        "name": "Music",
        "buildings": [{ "id": "b1", "name": "North" }, null, 4],
        "main": 1.5,
        "annex": 7,
    });
    state.write_entities(&Department::schema(), dept, &Value::Null, meta(0)).unwrap();
    let mut memo = MemoCache::default();
    let read = memo.entity::<Department>(&state, "d3").unwrap().unwrap();
    assert_eq!(read.buildings, [Pk::from("b1"), Pk::from("4")], "a null names nothing: left out");
    assert_eq!((read.main.as_str(), read.annex.as_deref()), ("1.5", Some("7")));
    let list = buildings().read(&mut memo, &state, &read.buildings).unwrap().unwrap();
    assert_eq!(list.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["North"]);
}

#[test]
fn a_lazy_read_is_memoized_apart_from_entity_reads_whatever_the_pk() {
    let query = Lazy::<Building>::of().query();
    // A pk chosen to be the lazy read's memo key.
    let evil = query.memo_key(&Pk::from("b1"));
    let mut state = State::default();
    rename(&mut state, "b1", "North", 0);
    rename(&mut state, &evil, "Evil", 0);
    let mut memo = MemoCache::default();
    assert_eq!(memo.entity::<Building>(&state, &evil).unwrap().unwrap().name, "Evil");
    assert_eq!(query.read(&mut memo, &state, &Pk::from("b1")).unwrap().unwrap().name, "North");
    assert_eq!(memo.entity::<Building>(&state, &evil).unwrap().unwrap().name, "Evil");
}

#[test]
fn a_lazy_collection_in_a_page_is_made_paginated() {
    let lists = rdc_core::Collection::of("Buildings", Building::schema());
    let page = Schema::object([("results", Schema::lazy(lists))]);
    let next = rdc_core::Collection::paginated_schema(&page, "cursor");
    let mut state = State::default();
    let first = json!({ "results": [{ "id": "b1", "name": "North" }] });
    state.write_result("GET /b", &page, first, &json!({}), meta(0)).unwrap();
    let second = json!({ "results": [{ "id": "b2", "name": "South" }] });
    state.write_result("GET /b?cursor=1", &next, second, &json!({ "cursor": 1 }), meta(1)).unwrap();
    let lists = &state.tables()["Buildings"];
    assert_eq!(lists.rows.len(), 1, "one list, both pages in it");
    assert_eq!(lists.rows[0].value.as_ref().unwrap()["items"], json!(["b1", "b2"]));
}

#[test]
fn an_optional_lazy_type_takes_optional_keys() {
    #[derive(Debug, Deserialize, Entity)]
    struct Site {
        id: String,
        #[entity(lazy = "Option<Building>")]
        annex: Option<Pk>,
    }
    let mut state = State::default();
    let site = json!({ "id": "s1", "annex": { "id": "b1", "name": "North" } });
    state.write_entities(&Site::schema(), site, &Value::Null, meta(0)).unwrap();
    let mut memo = MemoCache::default();
    let read = memo.entity::<Site>(&state, "s1").unwrap().unwrap();
    assert_eq!((read.id.as_str(), read.annex.clone()), ("s1", Some(Pk::from("b1"))));
    let annex = Lazy::<Option<Building>>::of().query().read(&mut memo, &state, &read.annex).unwrap().unwrap();
    assert_eq!(annex.as_ref().as_ref().map(|b| b.name.as_str()), Some("North"));
}
