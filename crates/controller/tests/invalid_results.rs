//! A stored result that cannot be read because entities it requires went
//! invalid counts as invalid: it is fetched again, once (as in the reference
//! library), rather than showing nothing until it expires.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use common::{Article, User};
use controller_support::*;
use rdc_controller::ExpiryStatus;
use rdc_core::json;
use rdc_core::{Entity, Schema};

fn article(author: &str) -> rdc_core::json::Value {
    json!({"id": 1, "title": "T", "author": {"id": author, "name": "Ada"}})
}

/// An article fetched, then its author deleted: read, it is invalid.
fn article_whose_author_went(
) -> (rdc_controller::Controller, rdc_controller::FakeTime, rdc_controller::LocalTasks, Arc<SyncRefCell<Server>>, Api) {
    let (c, time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/article", Some(Article::schema().into()));
    server.borrow_mut().always(article("u1"));
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    c.set(&Schema::invalidate::<User>(), json!("u1")).unwrap();
    assert_eq!(c.read::<_, Article>(&api, &json!({})).unwrap().status, ExpiryStatus::Invalid);
    (c, time, tasks, server, api)
}

#[test]
fn a_result_whose_required_entity_was_deleted_is_invalid_and_fetched_again_once() {
    let (c, _time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/article", Some(Article::schema().into()));
    server.borrow_mut().always(article("u1"));
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    let read = c.read::<_, Article>(&api, &json!({})).unwrap();
    assert_eq!((read.status, read.data.is_some()), (ExpiryStatus::Valid, true));
    assert!(!c.needs_fetch("GET /article", api.policy));
    // The author is deleted (a DELETE's `Invalidate`): the article cannot be read.
    c.set(&Schema::invalidate::<User>(), json!("u1")).unwrap();
    let read = c.read::<_, Article>(&api, &json!({})).unwrap();
    assert!(read.data.is_none());
    assert_eq!(read.status, ExpiryStatus::Invalid, "unreadable data is invalid, not valid and empty");
    assert!(c.needs_fetch("GET /article", api.policy), "it is fetched again");
    // The refetch brings the author back: readable and valid again.
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    let read = c.read::<_, Article>(&api, &json!({})).unwrap();
    assert_eq!((read.status, read.data.map(|a| a.author.id.clone())), (ExpiryStatus::Valid, Some("u1".to_owned())));
    assert!(!c.needs_fetch("GET /article", api.policy));
    assert_eq!(server.borrow().requests.len(), 2);
}

#[test]
fn a_result_still_unreadable_after_its_refetch_is_not_fetched_in_a_loop() {
    // The server keeps answering with an author the app deletes right after.
    let (c, _time, tasks, server, api) = article_whose_author_went();
    assert!(c.needs_fetch("GET /article", api.policy));
    server.borrow_mut().always(json!({"id": 1, "title": "T", "author": "u1"}));
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    let read = c.read::<_, Article>(&api, &json!({})).unwrap();
    assert!(read.data.is_none(), "the new answer names the deleted author only");
    assert!(!c.needs_fetch("GET /article", api.policy), "one refetch per unreadable episode, not a loop");
}

#[test]
fn a_null_answer_of_an_entity_endpoint_is_valid_and_not_fetched_again() {
    let (c, _time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/me", Some(User::schema().into()));
    server.borrow_mut().always(json!(null));
    spawn_fetch(&c, &tasks, &api, json!({}), None);
    let read = c.read::<_, User>(&api, &json!({})).unwrap();
    assert_eq!((read.status, read.data.is_none()), (ExpiryStatus::Valid, true), "nobody is signed in: valid, nothing");
    assert!(!c.needs_fetch("GET /me", api.policy));
    assert_eq!(server.borrow().requests.len(), 1);
}

#[test]
fn a_swept_unreadable_result_leaves_no_key_state_behind() {
    let (c, time, _tasks, _server, _api) = article_whose_author_went();
    time.advance(24 * 3_600_000);
    c.sweep();
    assert!(c.with_state(|s| s.result("GET /article").is_none()), "the unused, expired result went");
    assert_eq!(c.key_count(), 0, "and so did what the controller knew of its key");
}
