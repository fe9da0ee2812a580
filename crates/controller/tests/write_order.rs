//! Write order: a mutation's answer is the server's word on a write we made,
//! so no read sent before it answered hides it; reads sent in one millisecond
//! keep the order they were sent in. (The rule: `controller/order.rs`.)

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use common::User;
use controller_support::*;
use proptest::prelude::*;
use rdc_controller::{FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::Entity;

fn name(c: &rdc_controller::Controller) -> Option<String> {
    c.entity::<User>("1").unwrap().map(|u| u.name.clone())
}

fn user(name: &str) -> Value {
    json!({"id": "1", "name": name})
}

#[test]
fn a_mutation_answer_beats_a_read_sent_before_it_answered() {
    let (c, time, tasks, server) = setup();
    let get = Api::new(&server, "GET", "/users/1", Some(User::schema().into()));
    let put = Api::new(&server, "PUT", "/users/1", Some(User::schema().into()));
    c.set(&User::schema(), user("Ada")).unwrap();
    time.advance(1);
    spawn_fetch(&c, &tasks, &put, json!({}), Some(user("Grace")));
    time.advance(1);
    // A poll starts after the write was sent and is answered first, by a
    // server that had not applied the write yet.
    spawn_fetch(&c, &tasks, &get, json!({}), None);
    server.borrow_mut().answer("GET /users/1", Ok(user("Ada")));
    tasks.run();
    time.advance(1);
    server.borrow_mut().answer("PUT /users/1", Ok(user("Grace")));
    tasks.run();
    assert_eq!(name(&c).as_deref(), Some("Grace"), "the write's answer is not discarded");
    // A read sent after the write answered is newer than it.
    time.advance(1);
    spawn_fetch(&c, &tasks, &get, json!({}), None);
    server.borrow_mut().answer("GET /users/1", Ok(user("Grace Hopper")));
    tasks.run();
    assert_eq!(name(&c).as_deref(), Some("Grace Hopper"));
}

#[test]
fn reads_sent_in_one_millisecond_and_answered_in_reverse_keep_the_newer_answer() {
    let (c, _time, tasks, server) = setup();
    let first = Api::new(&server, "GET", "/users/1", Some(User::schema().into()));
    let second = Api::new(&server, "GET", "/me", Some(User::schema().into()));
    spawn_fetch(&c, &tasks, &first, json!({}), None);
    spawn_fetch(&c, &tasks, &second, json!({}), None);
    server.borrow_mut().answer("GET /me", Ok(user("new")));
    tasks.run();
    server.borrow_mut().answer("GET /users/1", Ok(user("old")));
    tasks.run();
    assert_eq!(name(&c).as_deref(), Some("new"), "the read sent first answered last: its older answer loses");
}

/// One step of an interleaving: which request moves on (send, be served, answer).
#[derive(Debug, Clone)]
struct Request {
    mutation: bool,
    optimistic: bool,
}

/// The server: its current version, and each version's name.
struct Model {
    version: usize,
    served: Vec<Option<usize>>,
    sent_at_version: Vec<Option<usize>>,
}

fn optimistic(_: &Value, body: Option<&Value>) -> Value {
    let mut value = body.cloned().unwrap_or(Value::Null);
    if let Some(name) = value.get("name").and_then(|n| n.as_str()).map(|n| format!("optimistic {n}")) {
        value = json!({"id": "1", "name": name});
    }
    value
}

/// The version a name shows (`v3` is version 3), or `None` for an optimistic one.
fn version_of(name: &str) -> Option<usize> {
    name.strip_prefix('v').and_then(|n| n.parse().ok())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Over any interleaving of reads and mutations (some with optimistic
    /// layers) sent, served and answered in any order a server could (a
    /// read served anywhere between its send and its answer, mutations applied
    /// in the order sent), with time moving on or not between steps:
    /// once a mutation answered, the store never shows an older version than
    /// its write; once a read answered, never one older than the server had
    /// when that read was sent, until a mutation pending then answers (the
    /// client cannot tell whether the server applied it before serving the
    /// read: the mutation's answer wins); and once all have answered it shows
    /// an answer.
    #[test]
    fn the_store_never_goes_back_behind_an_answer(
        requests in prop::collection::vec((any::<bool>(), any::<bool>()), 1..7),
        moves in prop::collection::vec((0usize..7, any::<bool>()), 0..60),
    ) {
        let requests: Vec<Request> = requests.into_iter().map(|(mutation, optimistic)| Request { mutation, optimistic }).collect();
        let time = FakeTime::default();
        let tasks = LocalTasks::default();
        let c = rdc_controller::Controller::new(time.clone(), time.clone(), tasks.clone());
        let server: Arc<SyncRefCell<Server>> = Arc::default();
        c.set(&User::schema(), user("v0")).unwrap();
        let mut model = Model { version: 0, served: vec![None; requests.len()], sent_at_version: vec![None; requests.len()] };
        // Stage of each request: 0 not sent, 1 sent, 2 served, 3 answered.
        let mut stage = vec![0u8; requests.len()];
        // Per request: the mutations pending when it was sent.
        let mut pending_at_send: Vec<Vec<usize>> = vec![Vec::new(); requests.len()];
        let apis: Vec<Api> = requests.iter().enumerate().map(|(i, r)| {
            let mut api = Api::new(&server, if r.mutation { "PUT" } else { "GET" }, &format!("/r{i}"), Some(User::schema().into()));
            if r.optimistic && r.mutation { api.optimistic = Some(optimistic); }
            api
        }).collect();
        // Moves, then enough rounds to finish every request.
        let finish = (0..requests.len() * 3).map(|i| (i % requests.len(), false));
        for (pick, tick) in moves.into_iter().chain(finish) {
            if tick { time.advance(1); }
            let i = pick % requests.len();
            // Mutations are served in the order sent: one waits for every earlier one.
            if requests[i].mutation && stage[i] == 1
                && (0..i).any(|j| requests[j].mutation && stage[j] < 2) {
                continue;
            }
            // Mutations are sent in index order, so that order is the send order.
            if requests[i].mutation && stage[i] == 0 && (0..i).any(|j| requests[j].mutation && stage[j] == 0) {
                continue;
            }
            match stage[i] {
                0 => {
                    let body = requests[i].mutation.then(|| user("pending"));
                    model.sent_at_version[i] = Some(model.version);
                    pending_at_send[i] = (0..requests.len()).filter(|&j| requests[j].mutation && (1..3).contains(&stage[j])).collect();
                    spawn_fetch(&c, &tasks, &apis[i], json!({}), body);
                }
                1 => {
                    if requests[i].mutation { model.version += 1; }
                    model.served[i] = Some(model.version);
                }
                2 => {
                    let version = model.served[i].unwrap_or_default();
                    server.borrow_mut().answer(&format!("{} /r{i}", apis[i].method), Ok(user(&format!("v{version}"))));
                    tasks.run();
                }
                _ => continue,
            }
            stage[i] += 1;
            let floor = (0..requests.len())
                .filter(|&j| stage[j] == 3)
                .filter_map(|j| match requests[j].mutation {
                    true => model.served[j],
                    false => pending_at_send[j].iter().all(|&m| stage[m] < 3).then_some(model.sent_at_version[j]).flatten(),
                })
                .max()
                .unwrap_or(0);
            let shown = name(&c).unwrap_or_default();
            if let Some(shown) = version_of(&shown) {
                prop_assert!(shown >= floor, "shows v{} after an answer that knew v{} (stages {:?})", shown, floor, stage);
            } else {
                let pending = requests.iter().zip(&stage).any(|(r, s)| r.optimistic && r.mutation && *s < 3);
                prop_assert!(pending, "an optimistic value {} with no mutation pending", shown);
            }
        }
        prop_assert!(stage.iter().all(|s| *s == 3));
        prop_assert!(version_of(&name(&c).unwrap_or_default()).is_some());
    }
}
