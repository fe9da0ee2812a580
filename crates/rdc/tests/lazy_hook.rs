//! `use_lazy`, run natively: the entities of a lazy field's keys, following
//! the store and the keys.

use leptos::prelude::*;
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

fn names(read: &Signal<Option<std::sync::Arc<Vec<Building>>>>) -> Option<Vec<String>> {
    read.get_untracked().map(|list| list.iter().map(|b| b.name.clone()).collect())
}

#[test]
fn use_lazy_reads_the_keys_entities_and_follows_their_changes_and_the_keys() {
    let app = MockApp::new();
    let c = app.controller();
    let dept =
        rdc::json!({ "id": "d1", "buildings": [{ "id": "b1", "name": "North" }, { "id": "b2", "name": "South" }] });
    c.set(&Department::schema(), dept).unwrap();
    let keys = RwSignal::new(c.entity::<Department>("d1").unwrap().unwrap().buildings.clone());
    let parent = app.hooks(|| use_entity::<Department>("d1"));
    let buildings = app.hooks(|| use_lazy(Lazy::<Vec<Building>>::of().query(), move || keys.get()));
    app.run();
    assert_eq!(names(&buildings), Some(vec!["North".into(), "South".into()]));
    let before = parent.get_untracked();
    let tables: Vec<_> = c.entity_topics::<Department>("d1").iter().map(|t| t.topic.table_key()).collect();
    assert!(
        tables.contains(&"Department") && !tables.contains(&"Building"),
        "the parent reads no building: {tables:?}"
    );

    c.set(&Building::schema(), rdc::json!({ "id": "b1", "name": "North Hall" })).unwrap();
    app.run();
    assert_eq!(names(&buildings), Some(vec!["North Hall".into(), "South".into()]), "a lazy entity's change shows");
    assert!(
        matches!((&before, &parent.get_untracked()), (Some(a), Some(b)) if std::sync::Arc::ptr_eq(a, b)),
        "the parent's signal keeps its value"
    );

    keys.set(vec![Pk::from("b2")]);
    app.run();
    assert_eq!(names(&buildings), Some(vec!["South".into()]), "new keys read anew");
}
