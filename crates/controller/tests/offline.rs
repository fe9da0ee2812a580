//! Mutations made offline: shown at once, held in order, sent one after another
//! once online; a reset drops them unsent; readers of the queue's length wake.

mod cells;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use std::sync::Arc;

use controller_support::*;
use rdc_controller::FetchError;
use rdc_core::{json, json::Value, Entity};

#[derive(Debug, serde::Deserialize, Entity)]
struct Todo {
    #[allow(dead_code)]
    id: u32,
    title: String,
}

fn add_todo(server: &Arc<SyncRefCell<Server>>) -> Api {
    let mut add = Api::new(server, "POST", "/todos", Some(Todo::schema().into()));
    add.optimistic = Some(|_, body| body.cloned().unwrap_or(Value::Null));
    add
}

#[test]
fn offline_mutations_show_at_once_and_go_out_in_order_one_after_another_once_online() {
    let (controller, _time, tasks, server) = setup();
    let add = add_todo(&server);
    let wakes = Arc::new(SyncCell::new(0));
    let (seen, c) = (wakes.clone(), controller.clone());
    let counted = Arc::new(SyncCell::new(0));
    let count = counted.clone();
    controller.listen_reads(move || {
        seen.set(seen.get() + 1);
        count.set(c.queued_mutations());
    });
    controller.set_online(false);
    let first = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 1, "title": "milk" })));
    let second = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 2, "title": "eggs" })));
    let title = |id: &str| controller.entity::<Todo>(id).unwrap().map(|t| t.title.clone());
    assert_eq!((title("1"), title("2")), (Some("milk".into()), Some("eggs".into())), "both shown while offline");
    assert_eq!((server.borrow().requests.len(), counted.get()), (0, 2), "nothing sent; two held");

    controller.set_online(true);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "the first goes alone");
    assert_eq!(counted.get(), 1);
    server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "milk" })));
    tasks.run();
    assert!(matches!(&*first.borrow(), Some(Ok(_))));
    let sent: Vec<Option<Value>> = server.borrow().requests.iter().map(|(_, body)| body.clone()).collect();
    assert_eq!(sent, [Some(json!({ "id": 1, "title": "milk" })), Some(json!({ "id": 2, "title": "eggs" }))]);
    assert_eq!(counted.get(), 0);
    server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 2, "title": "eggs (2)" })));
    tasks.run();
    assert!(matches!(&*second.borrow(), Some(Ok(_))));
    assert_eq!(title("2"), Some("eggs (2)".into()));
    assert!(wakes.get() >= 4, "the count's reader woke as it changed ({} runs)", wakes.get());

    // Online with nothing held, a mutation goes at once, as ever.
    let _third = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 3, "title": "tea" })));
    assert_eq!(server.borrow().requests.len(), 3);
}

#[test]
fn a_reset_drops_held_mutations_unsent() {
    let (controller, _time, tasks, server) = setup();
    let add = add_todo(&server);
    controller.set_online(false);
    let held = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 1, "title": "secret" })));
    assert_eq!(controller.queued_mutations(), 1);
    controller.reset_entire_store();
    tasks.run();
    assert!(matches!(&*held.borrow(), Some(Err(FetchError::Reset))));
    assert_eq!((controller.queued_mutations(), controller.entity::<Todo>("1").unwrap().is_none()), (0, true));
    controller.set_online(true);
    tasks.run();
    assert!(server.borrow().requests.is_empty(), "the last session's mutation never went out");
}

#[test]
fn an_aborted_held_mutation_ends_at_once_and_leaves_the_queue() {
    let (controller, _time, tasks, server) = setup();
    let add = add_todo(&server);
    controller.set_online(false);
    let (fetch, abort) = controller.fetch_cancellable(&add, json!(null), Some(json!({ "id": 1, "title": "milk" })));
    let out = Arc::new(SyncRefCell::new(None));
    let slot = out.clone();
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.borrow_mut() = Some(fetch.await) }));
    tasks.run();
    assert_eq!((controller.queued_mutations(), controller.entity::<Todo>("1").unwrap().is_some()), (1, true));
    abort.abort();
    tasks.run();
    assert!(matches!(&*out.borrow(), Some(Err(FetchError::Aborted))), "ended without waiting to be online");
    assert_eq!((controller.queued_mutations(), controller.entity::<Todo>("1").unwrap().is_none()), (0, true));
    controller.set_online(true);
    tasks.run();
    assert!(server.borrow().requests.is_empty());
}

#[test]
fn a_reset_while_a_held_mutation_is_sending_lets_the_next_users_mutation_go_at_once() {
    let (controller, _time, tasks, server) = setup();
    let add = add_todo(&server);
    controller.set_online(false);
    let a = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 1, "title": "a" })));
    let _b = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 2, "title": "b" })));
    controller.set_online(true);
    tasks.run();
    assert_eq!(server.borrow().requests.len(), 1, "a is on the wire, b held");
    controller.reset_entire_store();
    tasks.run();
    assert_eq!(controller.queued_mutations(), 0, "b dropped");
    // The next user's mutation does not wait for the last user's answer.
    let _c = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 3, "title": "c" })));
    let sent: Vec<Option<Value>> = server.borrow().requests.iter().map(|(_, body)| body.clone()).collect();
    assert_eq!(sent, [Some(json!({ "id": 1, "title": "a" })), Some(json!({ "id": 3, "title": "c" }))]);
    // a's late answer is dropped, and frees nothing of the next session's.
    server.borrow_mut().answer("POST /todos", Ok(json!({ "id": 1, "title": "a" })));
    tasks.run();
    assert!(matches!(&*a.borrow(), Some(Err(FetchError::Reset))));
    assert_eq!(controller.entity::<Todo>("1").unwrap().map(|t| t.title.clone()), None);
    let _d = spawn_fetch(&controller, &tasks, &add, json!(null), Some(json!({ "id": 4, "title": "d" })));
    assert_eq!(server.borrow().requests.len(), 3, "online with nothing held: d goes at once");
}
