//! In wasm's own stack (1 MiB): a reply thread as long as a server makes it is
//! swept by GC and read without overflowing it, and the controller keeps
//! writing afterwards.
#![cfg(target_arch = "wasm32")]

use rdc::core::{Controller, Entity, FakeTime, LocalTasks, Schema};
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
fn a_reply_chain_of_20000_is_swept_and_read_in_wasm() {
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
    let head = controller.entity::<Reply>(&(n - 1).to_string()).unwrap().expect("the latest reply reads");
    let mut depth = 1;
    let mut at = &*head;
    while let Some(parent) = &at.parent {
        depth += 1;
        at = parent;
    }
    assert_eq!(depth, 129, "read down to the cut");
    controller.set(&Reply::schema(), rdc::json!({"id": "x"})).unwrap();
    controller.release("GET /latest");
    assert_eq!(controller.sweep(), (1, n), "then the chain goes, and the controller still works");
}
