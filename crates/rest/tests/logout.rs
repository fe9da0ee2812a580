//! `logout_on_401`: a 401 from any endpoint empties the store; other errors do not.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::{json, Entity};
use rdc_rest::{FakeClient, FakeResponse, RestEndpoint};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

#[test]
fn a_401_empties_the_store_and_signs_out_once_a_403_does_not() {
    let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    let controller = Controller::new(time.clone(), time, tasks.clone());
    let sign_outs = Arc::new(AtomicU32::new(0));
    let count = sign_outs.clone();
    controller.add_manager(rdc_rest::logout_on_401(move |_| {
        count.fetch_add(1, Ordering::SeqCst);
    }));
    let client = FakeClient::default();
    client.on("GET", "/users", FakeResponse::json(json!([{ "id": "1", "name": "Ada" }])));
    client.on("GET", "/forbidden", FakeResponse::status(403));
    client.on("GET", "/me", FakeResponse::status(401));
    let users = RestEndpoint::get("/users").schema(rdc_core::All::of::<User>()).client(client.clone());
    let get = |path: &str| RestEndpoint::get(path).client(client.clone());
    tasks.block_on(controller.fetch(&users, json!(null), None)).unwrap();
    assert!(tasks.block_on(controller.fetch(&get("/forbidden"), json!(null), None)).is_err());
    assert_eq!(
        (controller.entity::<User>("1").unwrap().map(|u| u.name.clone()), sign_outs.load(Ordering::SeqCst)),
        (Some("Ada".into()), 0)
    );
    assert!(tasks.block_on(controller.fetch(&get("/me"), json!(null), None)).is_err());
    assert_eq!(
        (controller.entity::<User>("1").unwrap(), sign_outs.load(Ordering::SeqCst)),
        (None, 1),
        "Ada's data is gone"
    );
}
