//! Typed endpoints through the controller: args structs fill path and query,
//! bodies are any `Serialize`, results follow from the schema.
#![cfg(not(target_arch = "wasm32"))]

use rdc_controller::{Controller, FakeTime, LocalTasks, TypedEndpoint};
use rdc_core::{json, All, Entity, SchemaOf};
use rdc_rest::{FakeClient, FakeResponse, RestEndpoint};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Search {
    team: String,
    page: Option<u32>,
    tags: Vec<String>,
}

fn controller() -> (Controller, LocalTasks) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time, tasks.clone()), tasks)
}

#[test]
fn path_params_come_from_fields_the_others_make_the_query_and_none_is_left_out() {
    let (c, _) = controller();
    let members = RestEndpoint::get("/teams/:team/members").args::<Search>().body::<()>();
    let search = |page| Search { team: "a b".into(), page, tags: vec!["x".into(), "y".into()] };
    assert_eq!(c.key_of(&members, &search(None)).unwrap(), "GET /teams/a%20b/members?tags=x&tags=y");
    assert_eq!(c.key_of(&members, &search(Some(2))).unwrap(), "GET /teams/a%20b/members?page=2&tags=x&tags=y");
}

#[test]
fn a_body_is_any_serialize_and_unit_sends_none() {
    #[derive(Serialize)]
    struct Rename<'a> {
        name: &'a str,
    }
    let (c, tasks) = controller();
    let client = FakeClient::default();
    client.on("PATCH", "/users/1", FakeResponse::json(json!({ "id": "1", "name": "Ada L." })));
    client.on("DELETE", "/users/1", FakeResponse::status(204));
    #[derive(Debug, Clone, PartialEq, Serialize)]
    struct UserId {
        id: String,
    }
    let rename = RestEndpoint::new("PATCH", "/users/:id")
        .args::<UserId>()
        .body::<Rename<'static>>()
        .schema(User::schema())
        .client(client.clone());
    let renamed: User = tasks.block_on(c.fetch(&rename, UserId { id: "1".into() }, Rename { name: "Ada L." })).unwrap();
    assert_eq!(renamed, User { id: "1".into(), name: "Ada L.".into() });
    let remove = RestEndpoint::new("DELETE", "/users/:id").args::<UserId>().body::<()>().client(client.clone());
    tasks.block_on(c.fetch(&remove, UserId { id: "1".into() }, ())).unwrap();
    let sent = client.requests();
    assert_eq!(sent[0].body_text(), Some(r#"{"name":"Ada L."}"#));
    assert!(sent[0].headers.iter().any(|(k, v)| k == "Content-Type" && v == "application/json"));
    assert_eq!(sent[1].body, None, "`()` sends no body");
}

#[test]
fn the_result_is_what_the_schema_reads_as_and_each_call_gets_its_own_answer() {
    let (c, tasks) = controller();
    let client = FakeClient::default();
    client.on(
        "GET",
        "/users",
        FakeResponse::json(json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }])),
    );
    let list = RestEndpoint::get("/users").args::<()>().body::<()>().schema(All::of::<User>()).client(client.clone());
    let users: Vec<User> = tasks.block_on(c.fetch(&list, (), ())).unwrap();
    assert_eq!(users.len(), 2);
    // The same data through a list schema, and the endpoint's result read from the store.
    let page = RestEndpoint::get("/users").args::<()>().body::<()>().schema(SchemaOf::list(User::schema()));
    let read = c.read::<_, Vec<User>>(&page, &()).unwrap();
    assert_eq!(read.data.unwrap().as_slice(), users.as_slice());
    // Two creates in flight on one key: each resolves to its own new user.
    #[derive(Serialize)]
    struct NewUser {
        name: &'static str,
    }
    let create = RestEndpoint::post("/users").args::<()>().body::<NewUser>().schema(User::schema());
    let answering = |id: &str, name: &str| {
        let client = FakeClient::default();
        client.on("POST", "/users", FakeResponse::json(json!({ "id": id, "name": name })));
        client
    };
    let first = c.fetch(&create.client(answering("3", "Barbara")), (), NewUser { name: "Barbara" });
    let second = c.fetch(&create.client(answering("4", "Edsger")), (), NewUser { name: "Edsger" });
    assert_eq!(tasks.block_on(second).unwrap().name, "Edsger");
    assert_eq!(tasks.block_on(first).unwrap().name, "Barbara", "not the user the later answer stored");
}

#[test]
fn the_dynamic_form_takes_json_and_refuses_args_that_are_no_object() {
    let (c, _) = controller();
    let dynamic = RestEndpoint::get("/users/:id");
    assert_eq!(c.key_of(&dynamic, &json!({ "id": "7", "q": "x" })).unwrap(), "GET /users/7?q=x");
    let error = dynamic.encode_args(&json!(["7"])).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /users/:id: the args cannot be sent: args must be a struct or map of params, not an array"
    );
}

#[test]
fn args_that_are_no_object_are_refused_on_every_path() {
    let (c, tasks) = controller();
    let by_number = RestEndpoint::get("/users/:id").args_with(|id: &u64| Ok(json!(id))).body::<()>();
    let error = c.key_of(&by_number, &7).unwrap_err();
    assert_eq!(
        error.to_string(),
        "GET /users/:id: the args cannot be sent: args must be a struct or map of params, not a number"
    );
    // The JSON side, as the blanket `TypedEndpoint` of an `Endpoint` calls it.
    let raw: rdc_rest::RestCall = (*RestEndpoint::get("/users")).clone();
    assert!(rdc_controller::Endpoint::key(&raw, &json!("7")).is_err(), "a string is not no params");
    assert_eq!(rdc_controller::Endpoint::key(&raw, &json!(null)).unwrap(), "GET /users");
    let fetched = tasks.block_on(c.fetch(&raw, json!([1]), None));
    assert!(
        matches!(fetched, Err(rdc_controller::FetchError::Endpoint(rdc_rest::RestError::Encode { .. }))),
        "{fetched:?}"
    );
}

#[test]
fn args_that_are_no_struct_of_params_are_refused_before_any_request() {
    let (c, tasks) = controller();
    let client = FakeClient::default();
    let by_id =
        RestEndpoint::get("/users/:id").args::<String>().body::<()>().schema(User::schema()).client(client.clone());
    let err = tasks.block_on(c.fetch(&by_id, "7".to_owned(), ())).unwrap_err();
    assert_eq!(
        err.to_string(),
        "GET /users/:id: the args cannot be sent: args must be a struct or map of params, not a string"
    );
    assert!(client.requests().is_empty());
}
