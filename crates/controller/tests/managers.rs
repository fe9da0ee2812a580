//! Managers see what the controller did, in order, and may call back into it.

mod cells;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use controller_support::*;
use rdc_controller::{Action, Controller, FetchError, Manager};
use rdc_core::json;

/// Notes each action as text; resets the store on an error saying "401".
#[derive(Clone, Default)]
struct Noting(Arc<SyncRefCell<Vec<String>>>);

impl Manager for Noting {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        let note = match action {
            Action::Retained { key } => format!("retained {key}"),
            Action::Released { key } => format!("released {key}"),
            Action::Sent { key } => format!("sent {key}"),
            Action::Resolved { key } => format!("resolved {key}"),
            Action::Failed { key, .. } => {
                let error = action.error::<String>().map(ToString::to_string).unwrap_or_default();
                format!("failed {key}: {error}")
            }
            Action::Reset => "reset".to_owned(),
        };
        self.0.borrow_mut().push(note);
        if action.error::<String>().is_some_and(|e| matches!(e, FetchError::Endpoint(e) if e == "401")) {
            controller.reset_entire_store();
        }
    }
}

#[test]
fn a_manager_sees_readers_requests_and_outcomes_in_order_and_can_reset_the_store() {
    let (controller, _time, tasks, server) = setup();
    let noting = Noting::default();
    controller.add_manager(noting.clone());
    let me = Api::new(&server, "GET", "/me", None);
    let key = "GET /me";
    controller.retain(key);
    controller.retain(key);
    let first = spawn_fetch(&controller, &tasks, &me, json!(null), None);
    server.borrow_mut().answer(key, Ok(json!({ "name": "Ada" })));
    tasks.run();
    assert!(matches!(&*first.borrow(), Some(Ok(_))));
    assert!(controller.with_state(|s| s.result_keys().count()) == 1);

    let second = spawn_fetch(&controller, &tasks, &me, json!(null), None);
    server.borrow_mut().answer(key, Err("401".into()));
    tasks.run();
    assert!(matches!(&*second.borrow(), Some(Err(FetchError::Endpoint(e))) if e == "401"));
    assert_eq!(controller.with_state(|s| s.result_keys().count()), 0, "the manager reset the store");
    controller.release(key);
    controller.release(key);
    let want = [
        "retained GET /me",
        "sent GET /me",
        "resolved GET /me",
        "sent GET /me",
        "failed GET /me: 401",
        "reset",
        "released GET /me",
    ];
    assert_eq!(*noting.0.borrow(), want, "one retained and one released for two readers");
}

/// Resets the store when it sees a failure.
struct ResetOnFailure;

impl Manager for ResetOnFailure {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        if matches!(action, Action::Failed { .. }) {
            controller.reset_entire_store();
        }
    }
}

#[test]
fn an_action_taken_by_a_manager_reaches_every_manager_after_the_one_that_caused_it() {
    let (controller, _time, tasks, server) = setup();
    controller.add_manager(ResetOnFailure);
    let noting = Noting::default();
    controller.add_manager(noting.clone());
    let me = Api::new(&server, "GET", "/me", None);
    let _ = spawn_fetch(&controller, &tasks, &me, json!(null), None);
    server.borrow_mut().answer("GET /me", Err("500".into()));
    tasks.run();
    assert_eq!(*noting.0.borrow(), ["sent GET /me", "failed GET /me: 500", "reset"]);
}

#[test]
fn a_mutation_held_offline_is_sent_only_when_it_goes_out() {
    let (controller, _time, tasks, server) = setup();
    let noting = Noting::default();
    controller.add_manager(noting.clone());
    let add = Api::new(&server, "POST", "/todos", None);
    controller.set_online(false);
    let _ = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 1 })));
    assert!(noting.0.borrow().is_empty(), "not sent while held");
    controller.set_online(true);
    tasks.run();
    assert_eq!(*noting.0.borrow(), ["sent POST /todos"]);
}
