//! Requests that misbehave: one that never answers, two endpoint types that
//! share a key, a poll frequency of zero.

mod cells;
mod common;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use common::User;
use controller_support::*;
use rdc_controller::{BoxFuture, Endpoint, FetchError, Policy};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, Schema};
use std::sync::Arc;

#[test]
fn a_request_that_never_answers_frees_its_key_after_the_timeout() {
    let (c, time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    assert!(c.is_fetching("GET /users"));
    time.advance(Policy::default().timeout_ms.unwrap());
    tasks.run();
    assert!(!c.is_fetching("GET /users"), "the key is free again");
    let error = out.borrow().clone().unwrap().unwrap_err();
    assert!(matches!(error, FetchError::Timeout { ms: 60_000 }), "{error:?}");
    assert!(c.read::<_, Vec<User>>(&api, &json!({})).unwrap().error.is_some(), "readers see the error");
    // A new read fetches again, and its answer is stored.
    let again = spawn_fetch(&c, &tasks, &api, json!({}), None);
    server.borrow_mut().answer_nth("GET /users", 1, Ok(json!([{"id": "1", "name": "Ada"}])));
    tasks.run();
    assert!(again.borrow().as_ref().unwrap().is_ok());
    assert_eq!(time.pending(), 0, "no timer is left behind");
}

/// The same requests as `Api`, read as text: another endpoint type, same keys.
#[derive(Clone)]
struct AsText(Api);

impl Endpoint for AsText {
    type Output = String;
    type Error = String;
    type Body = Value;
    fn key(&self, args: &Value) -> Result<String, String> {
        self.0.key(args)
    }
    fn schema(&self) -> Option<Schema> {
        None
    }
    fn policy(&self) -> Policy {
        self.0.policy()
    }
    fn fetch(&self, args: &Value, body: Option<Value>) -> BoxFuture<Result<String, String>> {
        let fetch = self.0.fetch(args, body);
        Box::pin(async move { fetch.await.map(|v| v.to_string()) })
    }
    fn is_soft(&self, _: &String) -> bool {
        false
    }
    fn storable(_: &String) -> Option<Value> {
        None
    }
}

#[test]
fn two_endpoint_types_sharing_a_key_do_not_join_each_others_request() {
    let (c, _time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/users", Some(Schema::array(User::schema())));
    let first = spawn_fetch(&c, &tasks, &api, json!({}), None);
    let text = AsText(api.clone());
    let second = Arc::new(SyncRefCell::new(None));
    let slot = second.clone();
    let fetch = c.fetch(&text, json!({}), None);
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.borrow_mut() = Some(fetch.await) }));
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2, "each type sends its own request");
    server.borrow_mut().answer("GET /users", Ok(json!([{"id": "1", "name": "Ada"}])));
    server.borrow_mut().answer("GET /users", Ok(json!([{"id": "1", "name": "Ada"}])));
    tasks.run();
    assert!(first.borrow().as_ref().unwrap().is_ok());
    let text = second.borrow().clone().unwrap();
    assert_eq!(text.as_deref(), Ok(r#"[{"id":"1","name":"Ada"}]"#), "not a misleading Reset");
}

#[test]
fn a_poll_frequency_of_zero_is_refused() {
    let (c, time, _tasks, server) = setup();
    let mut api = Api::new(&server, "GET", "/ticker", None);
    api.policy.poll_ms = Some(0);
    assert!(c.subscribe(&api, json!({})).is_none(), "no subscription polls in a loop");
    assert_eq!(time.pending(), 0);
}

#[test]
fn a_timeout_error_counts_for_the_endpoints_error_expiry() {
    let (c, time, tasks, server) = setup();
    let mut api = Api::new(&server, "GET", "/slow", None);
    api.policy = Policy { timeout_ms: Some(100), error_expiry_ms: 10_000, ..Policy::default() };
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    time.advance(100);
    tasks.run();
    assert!(matches!(out.borrow().as_ref(), Some(Err(FetchError::Timeout { ms: 100 }))));
    time.advance(5_000);
    assert!(!c.needs_fetch("GET /slow", api.policy), "the error still counts after 5 s of its 10 s");
    time.advance(5_000);
    assert!(c.needs_fetch("GET /slow", api.policy));
}

/// Waking many listeners costs what they are, not their square.
#[test]
fn waking_80000_listeners_takes_linear_time() {
    let (c, _time, _tasks, _server) = setup();
    let calls = Arc::new(SyncCell::new(0usize));
    for _ in 0..80_000 {
        let calls = calls.clone();
        c.listen(move || calls.set(calls.get() + 1));
    }
    let started = std::time::Instant::now();
    c.set(&User::schema(), json!({"id": "u", "name": "a"})).unwrap();
    let took = started.elapsed();
    assert_eq!(calls.get(), 80_000);
    assert!(took < std::time::Duration::from_secs(3), "{took:?} (quadratic takes tens of seconds in a debug build)");
}
