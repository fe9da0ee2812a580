//! `resource()` through the controller: writes update lists and detail views.
#![cfg(not(target_arch = "wasm32"))]

use rdc_core::json;
use rdc_core::{Controller, Entity, FakeTime, LocalTasks, Spawn};
use rdc_rest::{resource, Body, FakeClient, FakeResponse, RestError};
use serde::Deserialize;

#[derive(Debug, Clone, Deserialize, Entity)]
#[allow(dead_code)]
struct User {
    id: String,
    name: String,
}

fn run<T: 'static>(tasks: &LocalTasks, f: rdc_core::LocalFuture<T>) -> T {
    let out = std::rc::Rc::new(std::cell::RefCell::new(None));
    let slot = out.clone();
    tasks.spawn(Box::pin(async move { *slot.borrow_mut() = Some(f.await) }));
    tasks.run();
    let result = out.borrow_mut().take().expect("the fetch finished");
    result
}

#[test]
fn create_update_and_delete_show_in_lists_and_details_without_refetching() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    let users = resource::<User>("/users/:id", "UserList").map(|e| e.client(client.clone()));
    client.on("GET", "/users", FakeResponse::json(json!([{ "id": "1", "name": "Ada" }])));
    client.on("POST", "/users", FakeResponse::json(json!({ "id": "2", "name": "Grace" })));
    client.on("PATCH", "/users/1", FakeResponse::json(json!({ "id": "1", "name": "Ada L." })));
    client.on("DELETE", "/users/2", FakeResponse::status(204));

    let list = |c: &Controller| -> Vec<String> {
        c.read::<_, Vec<User>>(&users.get_list, &json!({}))
            .unwrap()
            .data
            .unwrap()
            .iter()
            .map(|u| u.name.clone())
            .collect()
    };
    run(&tasks, c.fetch(&users.get_list, json!({}), None)).unwrap();
    assert_eq!(list(&c), ["Ada"]);

    let created = run(&tasks, c.fetch(&users.create, json!({}), Some(json!({ "name": "Grace" })))).unwrap();
    assert_eq!(created, Body::Json(json!({ "id": "2", "name": "Grace" })));
    assert_eq!(list(&c), ["Ada", "Grace"], "the new user joined the list");

    run(&tasks, c.fetch(&users.partial_update, json!({ "id": "1" }), Some(json!({ "name": "Ada L." })))).unwrap();
    assert_eq!(list(&c), ["Ada L.", "Grace"]);

    run(&tasks, c.fetch(&users.delete, json!({ "id": "2" }), None)).unwrap();
    assert_eq!(list(&c), ["Ada L."], "the deleted user left the list");
    assert_eq!(client.requests().iter().filter(|r| r.method == "GET").count(), 1, "no refetch");
}

#[test]
fn without_a_client_natively_the_error_says_so() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let users = resource::<User>("/users/:id", "UserList");
    let err = run(&tasks, c.fetch(&users.get, json!({ "id": "1" }), None)).unwrap_err();
    match err {
        rdc_core::FetchError::Endpoint(RestError::Transport { message, .. }) => {
            assert!(message.contains("no HTTP client"))
        }
        other => panic!("{other:?}"),
    }
}
