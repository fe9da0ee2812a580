//! In wasm's own stack (1 MiB): a reply thread as long as a server makes it is
//! swept by GC, and a read of it fails with a typed error at the depth bound
//! without overflowing the stack; the controller keeps writing afterwards.
#![cfg(target_arch = "wasm32")]

use rdc::controller::{Controller, FakeTime, LocalTasks};
use rdc::core::{Entity, ReadError, Schema};
use rdc::rest::RestEndpoint;
use serde::Deserialize;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Debug, Deserialize, Entity)]
struct Reply {
    #[allow(dead_code)]
    id: String,
    #[entity(nested)]
    parent: Option<Box<Reply>>,
}

#[wasm_bindgen_test]
fn a_reply_chain_of_20000_is_swept_and_its_read_fails_at_the_bound_in_wasm() {
    let time = FakeTime::default();
    let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    let n = 20_000usize;
    let thread: Vec<rdc::json::Value> = (0..n)
        .map(|i| match i {
            0 => rdc::json!({"id": "0"}),
            _ => rdc::json!({"id": i.to_string(), "parent": {"id": (i - 1).to_string()}}),
        })
        .collect();
    controller.set(&Schema::array(Reply::schema()), rdc::json::Value::Array(thread)).unwrap();
    let latest = RestEndpoint::get("/latest").schema(Reply::schema());
    controller.set_response(&latest, &rdc::json!({}), rdc::json!({"id": (n - 1).to_string()})).unwrap();
    controller.retain("GET /latest");
    time.advance(24 * 3_600_000);
    assert_eq!(controller.sweep(), (0, 0), "everything the result reaches through the chain stays");
    // Deeper than a read follows: a typed error naming the path, never a chain cut short.
    let head = controller.entity::<Reply>(&(n - 1).to_string());
    assert!(
        matches!(&head, Err(ReadError::TooDeep { depth: 128, path }) if path.starts_with("parent.parent")),
        "{head:?}"
    );
    let within = controller.entity::<Reply>("127").unwrap().expect("a chain of 128 reads");
    let mut depth = 1;
    let mut at = &*within;
    while let Some(parent) = &at.parent {
        depth += 1;
        at = parent;
    }
    assert_eq!(depth, 128, "read whole");
    controller.set(&Reply::schema(), rdc::json!({"id": "x"})).unwrap();
    controller.release("GET /latest");
    assert_eq!(controller.sweep(), (1, n), "then the chain goes, and the controller still works");
}

/// A listener that panics traps in wasm (panic = abort: nothing unwinds). It
/// runs with none of the controller's borrows held, so the write that woke it
/// is kept and the controller goes on writing, reading and waking; readers
/// woken with it still run (they wait in the controller's queue).
#[wasm_bindgen_test]
fn a_listener_that_traps_leaves_the_controller_usable() {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
    use std::sync::Arc;
    use wasm_bindgen::{closure::Closure, JsCast, JsValue};

    let time = FakeTime::default();
    let controller = Controller::new(time.clone(), time, LocalTasks::default());
    controller.set(&Reply::schema(), rdc::json!({"id": "1"})).unwrap();
    let armed = Arc::new(AtomicBool::new(false));
    let trap = armed.clone();
    let reader = controller.clone();
    controller.listen_reads(move || {
        let _ = reader.entity::<Reply>("1");
        if trap.swap(false, Ordering::SeqCst) {
            panic!("a listener's bug");
        }
    });
    let woken = Arc::new(AtomicU32::new(0));
    let count = woken.clone();
    let reader = controller.clone();
    controller.listen_reads(move || {
        let _ = reader.entity::<Reply>("1");
        count.fetch_add(1, Ordering::SeqCst);
    });
    armed.store(true, Ordering::SeqCst);
    let writer = controller.clone();
    let write = Closure::<dyn Fn()>::new(move || {
        writer.set(&Reply::schema(), rdc::json!({"id": "1", "parent": {"id": "0"}})).unwrap();
    });
    // Called through JS, so the trap comes back as a JS exception to catch.
    let call = write.as_ref().unchecked_ref::<js_sys::Function>().call0(&JsValue::NULL);
    assert!(call.is_err(), "the listener trapped");
    assert!(controller.entity::<Reply>("1").unwrap().unwrap().parent.is_some(), "the write that woke it is kept");
    // The other reader, woken with it and cut off by the trap, runs at the next
    // change, even one to another entity: no wake-up is lost.
    let before = woken.load(Ordering::SeqCst);
    controller.set(&Reply::schema(), rdc::json!({"id": "9"})).unwrap();
    assert_eq!(woken.load(Ordering::SeqCst), before + 1, "the missed wake-up is delivered");
    controller.set(&Reply::schema(), rdc::json!({"id": "1", "parent": null})).unwrap();
    assert_eq!(woken.load(Ordering::SeqCst), before + 2, "later writes wake readers");
    assert!(controller.entity::<Reply>("1").unwrap().unwrap().parent.is_none());
}
