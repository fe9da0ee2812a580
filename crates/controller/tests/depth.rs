//! Data whose depth a server decides: a chain of references (a reply thread)
//! as long as it likes. Walks over it stay bounded or iterative, and a panic
//! in a listener leaves the controller usable.

mod cells;
mod controller_support;

use cells::SyncCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use controller_support::*;
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, ReadError, Schema};
use serde::Deserialize;

/// A reply whose `parent` is the reply it answers.
#[derive(Debug, Deserialize, Entity)]
struct Reply {
    #[allow(dead_code)]
    id: String,
    #[entity(nested)]
    parent: Option<Box<Reply>>,
}

/// A reply that cannot be read without its parent.
#[derive(Debug, Deserialize, Entity)]
struct Strict {
    #[allow(dead_code)]
    id: String,
    #[entity(nested)]
    #[allow(dead_code)]
    parent: Box<Strict>,
}

/// `n` replies, each answering the one before it (reply 0 answers nobody),
/// as a list of objects whose `parent` names the previous reply.
fn thread(n: usize) -> Value {
    let items: Vec<Value> = (0..n)
        .map(|i| {
            if i == 0 {
                json!({"id": "0"})
            } else {
                json!({"id": i.to_string(), "parent": {"id": (i - 1).to_string()}})
            }
        })
        .collect();
    Value::Array(items)
}

/// How many replies a read of `reply` shows (itself and its ancestors).
fn depth(reply: &Reply) -> usize {
    let mut n = 1;
    let mut at = reply;
    while let Some(parent) = &at.parent {
        n += 1;
        at = parent;
    }
    n
}

#[test]
fn gc_sweep_marks_a_reply_chain_of_50000_entities_without_recursion() {
    let (c, time, tasks, server) = setup();
    let n = 50_000;
    let api = Api::new(&server, "GET", "/latest", Some(Reply::schema().into()));
    server.borrow_mut().always(json!({"id": (n - 1).to_string()}));
    c.set(&Schema::array(Reply::schema()), thread(n)).unwrap();
    let out = spawn_fetch(&c, &tasks, &api, json!({}), None);
    assert!(out.borrow().as_ref().unwrap().is_ok());
    c.retain("GET /latest");
    time.advance(24 * 3_600_000);
    // The result is in use: everything it reaches through the chain stays.
    assert_eq!(c.sweep(), (0, 0));
    assert_eq!(c.with_state(|s| s.entity_count()), n);
    // The controller still writes.
    c.set(&Reply::schema(), json!({"id": "x"})).unwrap();
    c.release("GET /latest");
    assert_eq!(c.sweep(), (1, n), "unused and expired: the result and the whole chain go (not the fresh reply)");
}

#[test]
fn a_chain_deeper_than_a_read_follows_is_an_error_naming_its_path() {
    let (c, _time, _tasks, _server) = setup();
    let n = 2_000;
    c.set(&Schema::array(Reply::schema()), thread(n)).unwrap();
    let deep = c.entity::<Reply>(&(n - 1).to_string());
    let Err(ReadError::TooDeep { path, depth }) = deep else {
        panic!("a chain cut short must not read as whole: {:?}", deep.map(|r| r.map(|r| self::depth(&r))))
    };
    assert_eq!(depth, 128);
    assert_eq!(path, vec!["parent"; 128].join("."), "the path to the entity past the bound");
    let shallow = c.entity::<Reply>("100").unwrap().unwrap();
    assert_eq!(self::depth(&shallow), 101, "a chain within the bound reads whole");
    // A list of every reply fails the same way, at the first item too deep.
    let all = c.query::<Vec<Reply>>("all replies", &rdc_core::All::of::<Reply>().into());
    assert!(matches!(&all, Err(ReadError::TooDeep { path, .. }) if path.starts_with("[128].parent")), "{all:?}");
}

#[test]
fn a_required_chain_deeper_than_a_read_follows_is_invalid_not_an_error() {
    let (c, _time, _tasks, _server) = setup();
    // Strict reply i requires reply i - 1; reply 0 requires itself (a cycle).
    let n = 3_000;
    let items: Vec<Value> = (0..n)
        .map(|i: usize| json!({"id": i.to_string(), "parent": {"id": i.saturating_sub(1).to_string()}}))
        .collect();
    c.set(&Schema::array(Strict::schema()), Value::Array(items)).unwrap();
    let shallow = c.entity::<Strict>("10");
    assert!(shallow.is_err(), "a cycle of required references is still an error: {shallow:?}");
    let deep = c.entity::<Strict>(&(n - 1).to_string());
    assert!(matches!(deep, Ok(None)), "too deep to read whole: invalid, read as missing: {deep:?}");
}

#[test]
fn a_panicking_listener_leaves_the_controller_usable() {
    let (c, _time, _tasks, _server) = setup();
    c.set(&Reply::schema(), json!({"id": "1"})).unwrap();
    let reader = c.clone();
    let panics = Arc::new(SyncCell::new(false));
    let armed = panics.clone();
    c.listen_reads(move || {
        let _ = reader.entity::<Reply>("1");
        if armed.get() {
            armed.set(false);
            panic!("a listener's bug");
        }
    });
    let woken = Arc::new(SyncCell::new(0));
    let count = woken.clone();
    let reader = c.clone();
    let other = c.listen_reads(move || {
        let _ = reader.entity::<Reply>("1");
        count.set(count.get() + 1);
    });
    let before = woken.get();
    panics.set(true);
    let result = catch_unwind(AssertUnwindSafe(|| c.set(&Reply::schema(), json!({"id": "1", "parent": {"id": "0"}}))));
    assert!(result.is_err(), "the listener panicked");
    // Writes, reads and wake-ups go on.
    c.set(&Reply::schema(), json!({"id": "1", "parent": null})).unwrap();
    assert!(c.entity::<Reply>("1").unwrap().unwrap().parent.is_none());
    assert!(woken.get() > before, "the other listener hears later writes");
    // The listener that panicked records its reads again and is woken alone.
    let seen = woken.get();
    c.set(&Reply::schema(), json!({"id": "9"})).unwrap();
    assert_eq!(woken.get(), seen, "a write of another reply wakes nobody");
    c.unlisten(other);
}
