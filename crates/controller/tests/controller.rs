//! The controller: fetch, expiry, dedup, errors, invalidation, reset, direct writes.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use common::User;
use controller_support::*;
use rdc_controller::{ExpiryStatus, FetchError, Policy};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{All, Entity, Schema};

fn users_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/users", Some(Schema::array(User::schema())))
}

#[test]
fn fetch_stores_and_reads_back_valid_then_stale_then_refetches() {
    let (c, time, tasks, server) = setup();
    let api = users_api(&server);
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    assert!(c.is_fetching("GET /users"));
    server.borrow_mut().answer("GET /users", Ok(json!([{ "id": "1", "name": "Ada" }])));
    tasks.run();
    assert!(out.borrow().as_ref().unwrap().is_ok());
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!((read.status, read.data.unwrap()[0].name.as_str()), (ExpiryStatus::Valid, "Ada"));
    assert!(!c.needs_fetch("GET /users", api.policy));
    time.advance(60_000);
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Stale);
    assert!(read.data.is_some(), "stale data stays readable while it refetches");
    assert!(c.needs_fetch("GET /users", api.policy));
    let strict = Api { policy: Policy { invalid_if_stale: true, ..api.policy }, ..api.clone() };
    assert_eq!(c.read::<_, Vec<User>>(&strict, &json!({})).unwrap().status, ExpiryStatus::Invalid);
}

#[test]
fn identical_concurrent_reads_make_one_request_and_share_its_result() {
    let (c, _time, tasks, server) = setup();
    let api = users_api(&server);
    let outs: Vec<_> = (0..1000).map(|_| spawn_fetch(&c, &tasks, &api, json!({}), None)).collect();
    assert_eq!(server.borrow().requests.len(), 1);
    server.borrow_mut().answer("GET /users", Ok(json!([{ "id": "1", "name": "Ada" }])));
    tasks.run();
    for out in &outs {
        assert_eq!(out.borrow().as_ref().unwrap().as_ref().unwrap()[0]["name"], "Ada");
    }
}

#[test]
fn mutations_are_never_deduplicated() {
    let (c, _time, tasks, server) = setup();
    let create = Api::new(&server, "POST", "/users", Some(User::schema().into()));
    spawn_fetch(&c, &tasks, &create, json!({}), Some(json!({ "name": "A" })));
    spawn_fetch(&c, &tasks, &create, json!({}), Some(json!({ "name": "A" })));
    assert_eq!(server.borrow().requests.len(), 2);
}

#[test]
fn an_error_is_recorded_the_data_stays_and_reads_wait_for_the_error_to_expire() {
    let (c, time, tasks, server) = setup();
    let api = users_api(&server);
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer("GET /users", Ok(json!([{ "id": "1", "name": "Ada" }])));
    tasks.run();
    time.advance(61_000);
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer("GET /users", Err("503 Service Unavailable".into()));
    tasks.run();
    assert_eq!(out.borrow().clone().unwrap(), Err(FetchError::Endpoint("503 Service Unavailable".into())));
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!(read.error.as_ref().map(|e| e.message.as_str()), Some("503 Service Unavailable"));
    assert_eq!(read.data.unwrap()[0].name, "Ada", "soft error: the data is still there");
    assert!(!c.needs_fetch("GET /users", api.policy), "no refetch storm while the error counts");
    time.advance(1_000);
    assert!(c.needs_fetch("GET /users", api.policy));
    assert!(c.read::<_, Vec<User>>(&api, &json!({})).unwrap().error.is_none());
}

#[test]
fn a_bad_body_is_a_normalize_error_and_the_store_keeps_what_it_had() {
    let (c, _time, tasks, server) = setup();
    let api = users_api(&server);
    c.set_response(&api, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    let before = c.snapshot();
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer("GET /users", Ok(json!([{ "name": "no id" }])));
    tasks.run();
    assert!(matches!(out.borrow().clone().unwrap(), Err(FetchError::Normalize(_))));
    let after = c.snapshot();
    assert_eq!(after.entity_count(), before.entity_count());
    assert_eq!(c.read::<_, Vec<User>>(&api, &json!({})).unwrap().data.unwrap()[0].name, "Ada");
}

#[test]
fn a_response_older_than_the_stored_data_never_overwrites_it() {
    let (c, time, tasks, server) = setup();
    let one = Api::new(&server, "GET", "/users", Some(User::schema().into()));
    let rename = Api::new(&server, "PATCH", "/users", Some(User::schema().into()));
    // A slow read starts first, a rename starts later and answers first.
    spawn_fetch(&c, &tasks, &one, json!({ "id": "1" }), None);
    time.advance(10);
    spawn_fetch(&c, &tasks, &rename, json!({ "id": "1" }), Some(json!({ "name": "New" })));
    server.borrow_mut().answer("PATCH /users/1", Ok(json!({ "id": "1", "name": "New" })));
    tasks.run();
    server.borrow_mut().answer("GET /users/1", Ok(json!({ "id": "1", "name": "Old" })));
    tasks.run();
    let user = c.with_state(|s| rdc_core::denormalize::<User>(s, &User::schema(), &json!("1"))).unwrap().unwrap();
    assert_eq!(user.name, "New");
}

#[test]
fn reset_during_a_fetch_drops_its_result_and_tells_the_caller() {
    let (c, _time, tasks, server) = setup();
    let api = users_api(&server);
    c.set_response(&api, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    let out =
        spawn_fetch(&c, &tasks, &Api::new(&server, "GET", "/other", Some(User::schema().into())), json!({}), None);
    c.reset_entire_store();
    assert_eq!(c.snapshot().entity_count(), 0);
    server.borrow_mut().answer("GET /other", Ok(json!({ "id": "2", "name": "Late" })));
    tasks.run();
    assert_eq!(out.borrow().clone().unwrap(), Err(FetchError::Reset));
    assert_eq!(c.snapshot().entity_count(), 0, "the late result was dropped");
}

#[test]
fn invalidate_invalidate_all_and_expire_all() {
    let (c, _time, _tasks, server) = setup();
    let users = users_api(&server);
    let one = Api::new(&server, "GET", "/users", Some(User::schema().into()));
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "A" }])).unwrap();
    c.set_response(&one, &json!({ "id": "1" }), json!({ "id": "1", "name": "A" })).unwrap();
    c.expire_all(|k| k == "GET /users");
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().status, ExpiryStatus::Stale);
    c.invalidate(&users, &json!({}));
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().status, ExpiryStatus::Invalid);
    assert_eq!(c.read::<_, User>(&one, &json!({ "id": "1" })).unwrap().status, ExpiryStatus::Valid);
    c.invalidate_all(|k| k.starts_with("GET /users/"));
    assert_eq!(c.read::<_, User>(&one, &json!({ "id": "1" })).unwrap().status, ExpiryStatus::Invalid);
}

#[test]
fn set_and_set_with_write_entities_every_reader_sees() {
    let (c, _time, _tasks, server) = setup();
    let users = users_api(&server);
    c.set_response(&users, &json!({}), json!([{ "id": "1", "name": "A" }])).unwrap();
    let before = c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap();
    let again = c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap();
    assert!(Arc::ptr_eq(&before, &again));
    c.set(&User::schema(), json!({ "id": "1", "name": "B" })).unwrap();
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().data.unwrap()[0].name, "B");
    c.set_with(&User::schema(), &json!("1"), |mut u| {
        u["name"] = json!(format!("{}!", u["name"].as_str().unwrap_or("")));
        u
    })
    .unwrap();
    let all = c.query::<Vec<User>>("all users", &All::of::<User>().into()).unwrap().unwrap();
    assert_eq!(all[0].name, "B!");
    c.set_error(&users, &json!({}), &"boom".to_owned());
    assert_eq!(c.read::<_, Vec<User>>(&users, &json!({})).unwrap().error.unwrap().message, "boom");
}

#[test]
fn plain_results_without_a_schema_are_stored_as_json() {
    let (c, _time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/stats", None);
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer("GET /stats", Ok(json!({ "count": 3 })));
    tasks.run();
    let read = c.read::<_, Value>(&api, &json!({})).unwrap();
    assert_eq!(read.data.unwrap()["count"], 3);
    // data_expiry 0 keeps nothing.
    let volatile = Api { policy: Policy { data_expiry_ms: 0, ..api.policy }, path: "/blob".into(), ..api };
    spawn_fetch(&c, &tasks, &volatile, json!({}), None);
    server.borrow_mut().answer("GET /blob", Ok(json!("bytes")));
    tasks.run();
    assert!(c.snapshot().result("GET /blob").is_none());
}

#[test]
fn fetch_if_stale_fetches_only_when_needed_and_typed_errors_are_kept() {
    let (c, time, tasks, server) = setup();
    let api = users_api(&server);
    let run = |c: &rdc_controller::Controller| {
        let out = Arc::new(SyncRefCell::new(None));
        let slot = out.clone();
        let fetch = c.fetch_if_stale(&api, json!({}));
        rdc_controller::Spawn::spawn(
            &tasks,
            Box::pin(async move { *slot.borrow_mut() = Some(fetch.await.is_ok_and(|o| o.is_some())) }),
        );
        tasks.run();
        out
    };
    let first = run(&c);
    server.borrow_mut().answer("GET /users", Ok(json!([{ "id": "1", "name": "Ada" }])));
    tasks.run();
    assert_eq!(*first.borrow(), Some(true), "nothing stored: it fetched");
    assert_eq!(*run(&c).borrow(), Some(false), "valid: no fetch");
    assert_eq!(server.borrow().requests.len(), 1);
    time.advance(60_000);
    let third = run(&c);
    assert_eq!(server.borrow().requests.len(), 2, "stale: it fetched");
    server.borrow_mut().answer("GET /users", Err("500 boom".into()));
    tasks.run();
    assert_eq!(*third.borrow(), Some(false));
    assert_eq!(c.typed_error::<Api>("GET /users"), Some(FetchError::Endpoint("500 boom".into())));
    time.advance(1_000);
    assert_eq!(c.typed_error::<Api>("GET /users"), None, "the error expired");
}

#[test]
fn a_cancelled_fetch_resolves_aborted_and_stores_nothing() {
    let (c, _time, tasks, server) = setup();
    let api = users_api(&server);
    let out = Arc::new(SyncRefCell::new(None));
    let slot = out.clone();
    let (fetch, abort) = c.fetch_cancellable(&api, json!({}), None);
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.borrow_mut() = Some(fetch.await) }));
    tasks.run();
    assert!(!c.is_fetching("GET /users"), "cancellable requests are not shared");
    abort.abort();
    server.borrow_mut().answer("GET /users", Ok(json!([{ "id": "1", "name": "Late" }])));
    tasks.run();
    assert_eq!(out.borrow().clone().unwrap(), Err(FetchError::Aborted));
    assert_eq!(c.snapshot().entity_count(), 0);
}
