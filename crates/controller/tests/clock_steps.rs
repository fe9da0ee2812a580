//! A wall clock that steps back (NTP, a user): writes stay ordered, fresh data
//! stays fresh exactly as long as it had left, and stale data is fetched again.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use common::User;
use controller_support::*;
use rdc_controller::Policy;
use rdc_core::json::Value;
use rdc_core::{json, Entity, Schema};
use std::sync::Arc;

const HOUR: u64 = 3_600_000;

fn users(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/users", Some(Schema::array(User::schema())))
}

fn names(c: &rdc_controller::Controller, api: &Api) -> Vec<String> {
    let read = c.read::<_, Vec<User>>(api, &Value::Null).unwrap();
    read.data.map(|all| all.iter().map(|u| u.name.clone()).collect()).unwrap_or_default()
}

#[test]
fn after_the_clock_steps_back_stale_data_is_fetched_and_the_answer_replaces_it() {
    let (c, time, tasks, server) = setup();
    let api = users(&server);
    time.advance(10 * HOUR);
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }]));
    spawn_fetch(&c, &tasks, &api, Value::Null, None);
    time.advance(61_000);
    // The controller sees time pass when it reads the clock (a mounted app
    // does at each read and sweep); a step back is seen at the next reading.
    assert!(c.needs_fetch("GET /users", Policy::default()), "stale");
    time.step_back(HOUR);
    assert!(c.needs_fetch("GET /users", Policy::default()), "stale before the step: still stale after it");
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada L." }]));
    spawn_fetch(&c, &tasks, &api, Value::Null, None);
    assert_eq!(names(&c, &api), ["Ada L."], "the newer answer wins");
    assert_eq!(c.entity::<User>("1").unwrap().map(|u| u.name.clone()).as_deref(), Some("Ada L."));
    // A direct write after the step is newer than everything before it too.
    c.set(&User::schema(), json!({ "id": "1", "name": "Ada King" })).unwrap();
    assert_eq!(names(&c, &api), ["Ada King"]);
}

#[test]
fn after_the_clock_steps_back_fresh_data_stays_fresh_for_what_it_had_left_and_no_more() {
    let (c, time, tasks, server) = setup();
    let api = users(&server);
    time.advance(10 * HOUR);
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }]));
    spawn_fetch(&c, &tasks, &api, Value::Null, None);
    time.advance(10_000);
    assert!(!c.needs_fetch("GET /users", Policy::default()), "fresh");
    time.step_back(HOUR);
    assert!(!c.needs_fetch("GET /users", Policy::default()), "50 s left: not expired early");
    time.advance(49_000);
    assert!(!c.needs_fetch("GET /users", Policy::default()), "1 s left");
    time.advance(2_000);
    assert!(c.needs_fetch("GET /users", Policy::default()), "its minute is up: not pinned until the clock catches up");
}
