//! `resource()` through the controller: writes update lists and detail views.
#![cfg(not(target_arch = "wasm32"))]

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::Entity;
use rdc_rest::{resource, FakeClient, FakeResponse, RestError};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct User {
    id: String,
    name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct UserId {
    id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct Named {
    name: String,
}

fn id(id: &str) -> UserId {
    UserId { id: id.to_owned() }
}

fn named(name: &str) -> Named {
    Named { name: name.to_owned() }
}

#[test]
fn create_update_and_delete_show_in_lists_and_details_without_refetching() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    let users = resource::<User>("/users/:id", "UserList")
        .args::<UserId>()
        .list_args::<()>()
        .body::<Named>()
        .map(|e| e.client(client.clone()));
    client.on("GET", "/users", FakeResponse::json(json!([{ "id": "1", "name": "Ada" }])));
    client.on("POST", "/users", FakeResponse::json(json!({ "id": "2", "name": "Grace" })));
    client.on("PATCH", "/users/1", FakeResponse::json(json!({ "id": "1", "name": "Ada L." })));
    client.on("DELETE", "/users/2", FakeResponse::status(204));

    let list = |c: &Controller| -> Vec<String> {
        c.read::<_, Vec<User>>(&users.get_list, &()).unwrap().data.unwrap().iter().map(|u| u.name.clone()).collect()
    };
    let listed: Vec<User> = tasks.block_on(c.fetch(&users.get_list, (), ())).unwrap();
    assert_eq!(listed, [User { id: "1".into(), name: "Ada".into() }]);
    assert_eq!(list(&c), ["Ada"]);

    let created: User = tasks.block_on(c.fetch(&users.create, (), named("Grace"))).unwrap();
    assert_eq!(created, User { id: "2".into(), name: "Grace".into() });
    assert_eq!(list(&c), ["Ada", "Grace"], "the new user joined the list");
    let sent = client.requests().into_iter().find(|r| r.method == "POST").unwrap();
    assert_eq!(sent.body_text(), Some(r#"{"name":"Grace"}"#));

    tasks.block_on(c.fetch(&users.partial_update, id("1"), named("Ada L."))).unwrap();
    assert_eq!(list(&c), ["Ada L.", "Grace"]);

    let () = tasks.block_on(c.fetch(&users.delete, id("2"), ())).unwrap();
    assert_eq!(list(&c), ["Ada L."], "the deleted user left the list");
    assert_eq!(client.requests().iter().filter(|r| r.method == "GET").count(), 1, "no refetch");
}

#[test]
fn without_a_client_natively_the_error_says_so() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let users = resource::<User>("/users/:id", "UserList").args::<UserId>();
    let err = tasks.block_on(c.fetch(&users.get, id("1"), ())).unwrap_err();
    match err {
        rdc_controller::FetchError::Endpoint(RestError::Transport { message, .. }) => {
            assert!(message.contains("no HTTP client"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_response_that_does_not_read_as_the_result_type_is_a_decode_error_naming_the_endpoint() {
    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Health {
        ok: bool,
    }
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    client.on("GET", "/health", FakeResponse::json(json!({ "ok": "yes" })));
    let health = rdc_rest::RestEndpoint::get("/health").args::<()>().body::<()>().returns::<Health>().client(client);
    let err = tasks.block_on(c.fetch(&health, (), ())).unwrap_err();
    match err {
        rdc_controller::FetchError::Endpoint(RestError::Decode { endpoint, message }) => {
            assert_eq!(endpoint, "GET /health");
            assert_eq!(message, "invalid type: string \"yes\", expected a boolean at ok");
        }
        other => panic!("{other:?}"),
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Todo {
    id: String,
    #[serde(rename = "userId")]
    user_id: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
struct OfUser {
    #[serde(rename = "userId")]
    user_id: u32,
}

/// An update that changes the field a list filters by moves the entity: it
/// leaves the old owner's list and joins the new one's, with no refetch.
#[test]
fn an_update_moves_the_entity_between_the_lists_it_matches() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    let todos = resource::<Todo>("/todos/:id", "TodoList")
        .args::<UserId>()
        .list_args::<OfUser>()
        .body::<OfUser>()
        .map(|e| e.client(client.clone()));
    client.on("GET", "/todos?userId=1", FakeResponse::json(json!([{ "id": "a", "userId": 1 }])));
    client.on("GET", "/todos?userId=2", FakeResponse::json(json!([{ "id": "b", "userId": 2 }])));
    client.on("PATCH", "/todos/a", FakeResponse::json(json!({ "id": "a", "userId": 2 })));
    for user_id in [1, 2] {
        tasks.block_on(c.fetch(&todos.get_list, OfUser { user_id }, ())).unwrap();
    }
    let listed = |user_id| -> Vec<String> {
        let list = c.read::<_, Vec<Todo>>(&todos.get_list, &OfUser { user_id }).unwrap().data.unwrap();
        list.iter().map(|t| t.id.clone()).collect()
    };
    tasks.block_on(c.fetch(&todos.partial_update, id("a"), OfUser { user_id: 2 })).unwrap();
    assert_eq!((listed(1), listed(2)), (vec![], vec!["b".to_owned(), "a".to_owned()]));
    let gets = client.requests().into_iter().filter(|r| r.method == "GET").count();
    assert_eq!(gets, 2, "no list was fetched again");
}

/// What an optimistic resource shows while each write is in flight.
#[test]
fn an_optimistic_resource_shows_its_writes_at_once() {
    use rdc_controller::{Endpoint, TypedEndpoint};
    let users = resource::<User>("/users/:id", "UserList").optimistic();
    let mut store = rdc_core::State::default();
    let (one, rename) = (json!({ "id": "1" }), rdc_rest::RequestBody::from(json!({ "name": "Ada L." })));
    // Nothing stored: a partial update has nothing to show over.
    assert_eq!(users.partial_update.endpoint().optimistic(&store, &one, Some(&rename)), None);
    assert_eq!(
        users.update.endpoint().optimistic(&store, &one, Some(&rename)),
        Some(json!({ "id": "1", "name": "Ada L." }))
    );
    assert_eq!(users.delete.endpoint().optimistic(&store, &one, None), Some(one.clone()));
    let ada = json!({ "id": "1", "name": "Ada" });
    store.write_entities(&User::schema().into(), ada, &json!(null), rdc_core::WriteMeta::at(0, 1000)).unwrap();
    assert_eq!(
        users.partial_update.endpoint().optimistic(&store, &one, Some(&rename)),
        Some(json!({ "id": "1", "name": "Ada L." }))
    );
    // A create shows at once when its body carries the key (an id the client made).
    let made = rdc_rest::RequestBody::from(json!({ "id": "c0ffee", "name": "Grace" }));
    let no_key = rdc_rest::RequestBody::from(json!({ "name": "Grace" }));
    let create = users.create.endpoint();
    assert_eq!(create.optimistic(&store, &json!({}), Some(&made)), Some(json!({ "id": "c0ffee", "name": "Grace" })));
    assert_eq!(create.optimistic(&store, &json!({}), Some(&no_key)), None, "the server gives the key: wait for it");
    // Without `.optimistic()`, nothing is shown before the answer.
    let plain = resource::<User>("/users/:id", "UserList");
    assert_eq!(plain.update.endpoint().optimistic(&store, &one, Some(&rename)), None);
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Member {
    id: String,
    name: String,
    email: String,
}

/// A PATCH answered with only the fields it changed resolves to the whole
/// entity as the store merged it (what data-client's `partialUpdate`
/// returns), not a decode error for the fields the answer left out.
#[test]
fn a_partial_update_answered_with_part_of_the_entity_resolves_to_the_stored_entity() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    let members = resource::<Member>("/members/:id", "MemberList")
        .args::<UserId>()
        .body::<Named>()
        .map(|e| e.client(client.clone()));
    client.on("GET", "/members/1", FakeResponse::json(json!({ "id": "1", "name": "Ada", "email": "ada@x.org" })));
    client.on("PATCH", "/members/1", FakeResponse::json(json!({ "id": "1", "name": "Ada L." })));
    tasks.block_on(c.fetch(&members.get, id("1"), ())).unwrap();

    let patched: Member = tasks.block_on(c.fetch(&members.partial_update, id("1"), named("Ada L."))).unwrap();
    let merged = Member { id: "1".into(), name: "Ada L.".into(), email: "ada@x.org".into() };
    assert_eq!(patched, merged);
    assert_eq!(c.read::<_, Member>(&members.get, &id("1")).unwrap().data.unwrap().as_ref(), &merged);
}

#[derive(Debug, Deserialize)]
struct Portfolio {
    portfolio: String,
}

fn portfolio() -> rdc_core::Scalar {
    rdc_core::Scalar::new("portfolio", |a: &Portfolio| Some(a.portfolio.clone()))
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Company {
    id: String,
    price: f64,
    #[entity(scalar = "portfolio()")]
    pct: f64,
}

/// An optimistic partial update of an entity with scalar fields shows over
/// its stored fields, leaving its cells as they are.
#[test]
fn an_optimistic_partial_update_of_an_entity_with_scalar_fields_shows_its_fields() {
    use rdc_controller::{Endpoint, TypedEndpoint};
    use rdc_core::{MemoCache, Schema, State, WriteMeta};
    let companies = resource::<Company>("/companies/:id", "CompanyList").optimistic();
    let mut store = State::default();
    let list = Schema::array(Company::schema());
    let a = json!([{ "id": "1", "price": 10.0, "pct": 0.5 }]);
    store.write_result("companies A", &list, a, &json!({ "portfolio": "A" }), WriteMeta::at(0, 1000)).unwrap();
    let body = rdc_rest::RequestBody::from(json!({ "price": 11.0 }));
    let shown = companies.partial_update.endpoint().optimistic(&store, &json!({ "id": "1" }), Some(&body));
    assert_eq!(shown, Some(json!({ "id": "1", "price": 11.0 })));
    let one = Company::schema().into();
    store.write_result("patch 1", &one, shown.unwrap(), &json!({ "id": "1" }), WriteMeta::at(1, 1000)).unwrap();
    let read = MemoCache::default().read_result::<Vec<Company>>(&store, "companies A", &list).unwrap().unwrap();
    assert_eq!((read[0].price, read[0].pct), (11.0, 0.5));
}
