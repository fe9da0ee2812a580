//! Typed fetches of results with lazy fields, run natively: the result reads
//! as the store reads it (a lazy field's keys), for lists and pages too.

use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Building {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Department {
    id: String,
    #[entity(lazy = "Vec<Building>")]
    buildings: Vec<Pk>,
}

fn departments() -> RestEndpoint<(), (), Vec<Department>> {
    rdc::rest!(GET "/departments" -> Vec<Department>)
}

fn department_list() -> SchemaOf<Vec<Department>> {
    Collection::of("DepartmentList", Department::schema())
}

#[derive(Debug, Clone, serde::Deserialize, rdc::Schema)]
struct Page {
    next: Option<u32>,
    #[entity(nested, schema = "department_list()")]
    results: Vec<Department>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct Cursor {
    cursor: u32,
}

fn first_page() -> RestEndpoint<(), (), Page> {
    rdc::rest!(GET "/departments/pages" -> Page)
}

fn page_at() -> RestEndpoint<Cursor, (), Page> {
    first_page().paginated("cursor").args::<Cursor>()
}

fn dept(id: &str, building: &str) -> rdc::json::Value {
    rdc::json!({ "id": id, "buildings": [{ "id": building, "name": "N" }] })
}

fn keys(depts: &[Department]) -> Vec<(String, Vec<Pk>)> {
    depts.iter().map(|d| (d.id.clone(), d.buildings.clone())).collect()
}

#[test]
fn a_typed_list_fetch_reads_lazy_fields_as_their_keys() {
    let app = MockApp::new();
    app.fixture(&departments(), &(), rdc::json!([dept("d1", "b1")]));
    let read = app.fetch(&departments(), (), ()).unwrap();
    assert_eq!(keys(&read), [("d1".to_owned(), vec![Pk::from("b1")])]);
    assert!(app.controller().entity::<Building>("b1").unwrap().is_some(), "the buildings are stored");
}

#[test]
fn a_typed_page_fetch_reads_lazy_fields_as_their_keys_and_keeps_to_its_page() {
    let app = MockApp::new();
    app.fixture(&first_page(), &(), rdc::json!({ "next": 2, "results": [dept("d1", "b1")] }));
    app.fixture(&page_at(), &Cursor { cursor: 2 }, rdc::json!({ "next": null, "results": [dept("d2", "b2")] }));
    let first = app.fetch(&first_page(), (), ()).unwrap();
    assert_eq!((keys(&first.results), first.next), (vec![("d1".to_owned(), vec![Pk::from("b1")])], Some(2)));
    let second = app.fetch(&page_at(), Cursor { cursor: 2 }, ()).unwrap();
    assert_eq!(keys(&second.results), [("d2".to_owned(), vec![Pk::from("b2")])], "this page's items alone");
}
