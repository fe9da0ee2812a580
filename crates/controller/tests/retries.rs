//! Retries: a failed request is sent again after the wait its endpoint names,
//! while someone still wants the answer.

mod cells;
mod controller_support;

use cells::SyncRefCell;
use controller_support::*;
use rdc_controller::FetchError;
use rdc_core::json;
use std::sync::Arc;

/// Soft errors (5xx) wait 1 s, then 2 s, then 4 s; three retries at most.
fn backoff(error: &str, attempt: u32) -> Option<u64> {
    (error.starts_with('5') && attempt < 3).then(|| 1000 << attempt)
}

/// `GET /users`, retried by [`backoff`].
fn retried_users(server: &Arc<SyncRefCell<Server>>) -> Api {
    let mut users = Api::new(server, "GET", "/users", None);
    users.retry = Some(backoff);
    users
}

#[test]
fn a_failed_read_is_sent_again_after_each_wait_until_it_answers() {
    let (c, time, tasks, server) = setup();
    let users = retried_users(&server);
    let out = spawn_fetch(&c, &tasks, &users, json!({}), None);
    server.borrow_mut().answer("GET /users", Err("503 busy".into()));
    tasks.run();
    assert!(out.borrow().is_none(), "still trying");
    assert_eq!(server.borrow().requests.len(), 1);
    time.advance(999);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "waits the whole second");
    time.advance(1);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2);
    server.borrow_mut().answer("GET /users", Err("502 bad gateway".into()));
    tasks.run();
    time.advance(2000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 3, "then two seconds");
    server.borrow_mut().answer("GET /users", Ok(json!(["ada"])));
    tasks.run();
    assert_eq!(out.borrow().clone(), Some(Ok(json!(["ada"]))));
}

#[test]
fn a_hard_error_and_the_last_retry_give_up_with_their_error() {
    let (c, time, tasks, server) = setup();
    let users = retried_users(&server);
    let out = spawn_fetch(&c, &tasks, &users, json!({}), None);
    server.borrow_mut().answer("GET /users", Err("404 not found".into()));
    tasks.run();
    assert_eq!(out.borrow().clone(), Some(Err(FetchError::Endpoint("404 not found".into()))));
    assert_eq!(time.pending(), 0, "no retry waits");

    let out = spawn_fetch(&c, &tasks, &users, json!({}), None);
    for wait in [1000, 2000, 4000] {
        server.borrow_mut().answer("GET /users", Err("500 down".into()));
        tasks.run();
        time.advance(wait);
        tasks.run();
    }
    server.borrow_mut().answer("GET /users", Err("500 still down".into()));
    tasks.run();
    assert_eq!(out.borrow().clone(), Some(Err(FetchError::Endpoint("500 still down".into()))));
    assert_eq!(server.borrow().requests.len(), 1 + 4, "the first try and three retries");
}

/// Nobody waits and no mounted reader retains the key: the wait ends the
/// retries (an unmounted component's read does not go on alone).
#[test]
fn a_retry_stops_when_nobody_wants_the_answer() {
    let (c, time, tasks, server) = setup();
    let users = retried_users(&server);
    // A mounted reader's fetch: the key is retained, the future dropped.
    c.retain("GET /users");
    drop(c.fetch(&users, json!({}), None));
    tasks.run();
    server.borrow_mut().answer("GET /users", Err("503 busy".into()));
    tasks.run();
    time.advance(1000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2, "retried while retained");
    // The reader unmounts during the next wait.
    server.borrow_mut().answer("GET /users", Err("503 busy".into()));
    tasks.run();
    c.release("GET /users");
    time.advance(2000);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 2, "no retry once released");
    assert!(!c.is_fetching("GET /users"), "the key is free again");
}
