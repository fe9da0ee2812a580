//! What is in flight app-wide (`fetching_count`, `pending_mutations`), heard
//! by tracked listeners, and mutation callbacks (`fetch_with`).

mod cells;
mod controller_support;

use cells::{SyncCell, SyncRefCell};
use controller_support::{setup, spawn_fetch, Api};
use rdc_controller::{Controller, FetchError, MutationCallbacks, Spawn};
use rdc_core::json;
use rdc_core::json::Value;
use std::sync::Arc;

/// A tracked listener of `count`: what it last saw.
fn watch(
    controller: &Controller,
    count: impl Fn(&Controller) -> usize + Send + Sync + 'static,
) -> Arc<SyncCell<usize>> {
    let seen = Arc::new(SyncCell::new(usize::MAX));
    let (out, c) = (Arc::clone(&seen), controller.clone());
    controller.listen_reads(move || out.set(count(&c)));
    seen
}

#[test]
fn reads_in_flight_are_counted_and_the_count_returns_to_zero_after_an_answer_and_an_error() {
    let (c, _, tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", None);
    let posts = Api::new(&server, "GET", "/posts", None);
    let all = watch(&c, Controller::fetching_count);
    let of_users = {
        let users = users.clone();
        watch(&c, move |c| c.fetching_count_of(&users))
    };
    assert_eq!((all.get(), of_users.get()), (0, 0));
    let one = spawn_fetch(&c, &tasks, &users, json!({ "id": 1 }), None);
    let two = spawn_fetch(&c, &tasks, &users, json!({ "id": 2 }), None);
    let _shared = spawn_fetch(&c, &tasks, &users, json!({ "id": 2 }), None);
    let three = spawn_fetch(&c, &tasks, &posts, json!(null), None);
    assert_eq!((all.get(), of_users.get()), (3, 2), "identical reads share one request, counted once");
    assert_eq!(
        c.in_flight().iter().map(|r| r.key.as_str()).collect::<Vec<_>>(),
        ["GET /users/1", "GET /users/2", "GET /posts"]
    );
    server.borrow_mut().answer("GET /users/1", Ok(json!({ "id": 1 })));
    tasks.run();
    assert!(one.borrow().as_ref().is_some_and(Result::is_ok));
    assert_eq!((all.get(), of_users.get()), (2, 1));
    server.borrow_mut().answer("GET /users/2", Err("500 down".into()));
    tasks.run();
    assert!(two.borrow().as_ref().is_some_and(Result::is_err));
    assert_eq!((all.get(), of_users.get()), (1, 0), "a failed read is no longer fetching");
    server.borrow_mut().answer("GET /posts", Ok(json!([])));
    tasks.run();
    assert!(three.borrow().is_some());
    assert_eq!((all.get(), of_users.get(), c.in_flight().len()), (0, 0, 0));
}

#[test]
fn a_read_that_times_out_or_meets_a_reset_is_no_longer_counted() {
    let (c, time, tasks, server) = setup();
    let users = Api::new(&server, "GET", "/users", None);
    let all = watch(&c, Controller::fetching_count);
    let late = spawn_fetch(&c, &tasks, &users, json!({ "id": 1 }), None);
    assert_eq!(all.get(), 1);
    time.advance(60_000);
    tasks.run();
    assert!(matches!(*late.borrow(), Some(Err(FetchError::Timeout { .. }))));
    assert_eq!(all.get(), 0, "timed out");
    let reset = spawn_fetch(&c, &tasks, &users, json!({ "id": 2 }), None);
    assert_eq!(all.get(), 1);
    c.reset_entire_store();
    server.borrow_mut().answer("GET /users/2", Ok(json!({ "id": 2 })));
    tasks.run();
    assert!(matches!(*reset.borrow(), Some(Err(FetchError::Reset))));
    assert_eq!(all.get(), 0, "dropped by the reset");
}

#[test]
fn pending_mutations_are_listed_until_they_settle_even_when_aborted_while_held_offline() {
    let (c, _, tasks, server) = setup();
    let save = Api::new(&server, "POST", "/users", None);
    let saving = watch(&c, |c| c.pending_mutations().len());
    let reads = watch(&c, Controller::fetching_count);
    let sent = spawn_fetch(&c, &tasks, &save, json!({ "id": 1 }), Some(json!({ "name": "Ada" })));
    assert_eq!((saving.get(), reads.get()), (1, 0), "a mutation is no read");
    assert_eq!(c.pending_mutations()[0].args, json!({ "id": 1 }));
    server.borrow_mut().answer("POST /users/1", Err("422 refused".into()));
    tasks.run();
    assert!(sent.borrow().as_ref().is_some_and(Result::is_err));
    assert_eq!(saving.get(), 0, "a refused mutation is no longer pending");

    c.set_online(false);
    let (held, abort) = c.fetch_cancellable(&save, json!({ "id": 2 }), Some(json!({})));
    let out = Arc::new(SyncRefCell::new(None));
    let slot = Arc::clone(&out);
    tasks.spawn(Box::pin(async move { *slot.borrow_mut() = Some(held.await) }));
    tasks.run();
    assert_eq!(saving.get(), 1, "held offline, still pending");
    abort.abort();
    tasks.run();
    assert!(matches!(*out.borrow(), Some(Err(FetchError::Aborted))));
    assert_eq!(saving.get(), 0, "aborted");
}

#[test]
fn fetch_with_runs_on_mutate_before_sending_and_the_outcome_callbacks_once_the_store_holds_the_answer() {
    let (c, _, tasks, server) = setup();
    let save = Api::new(&server, "POST", "/users", None);
    let log = Arc::new(SyncRefCell::new(Vec::<String>::new()));
    let callbacks = {
        let (a, b, d, e) = (log.clone(), log.clone(), log.clone(), log.clone());
        let (before, after, api) = (c.clone(), c.clone(), save.clone());
        MutationCallbacks::new()
            .on_mutate(move |args: &Value| {
                a.borrow_mut().push(format!("mutate {args} sent {}", before.pending_mutations().len()));
                args["id"].to_string()
            })
            .on_success(move |result: &Value, args: &Value, context: &String| {
                let stored = after.read::<_, Value>(&api, args).ok().and_then(|read| read.data);
                let pending = after.pending_mutations().len();
                b.borrow_mut()
                    .push(format!("success {result} ctx {context} stored {} pending {pending}", stored.is_some()));
            })
            .on_error(move |error, _, context| d.borrow_mut().push(format!("error {error} ctx {context}")))
            .on_settled(move |outcome, _, context| {
                e.borrow_mut().push(format!("settled {} ctx {context}", outcome.is_ok()))
            })
    };
    let run = |id: u32| {
        let out = Arc::new(SyncRefCell::new(None));
        let slot = Arc::clone(&out);
        let fetch = c.fetch_with(&save, json!({ "id": id }), Some(json!({})), &callbacks);
        tasks.spawn(Box::pin(async move { *slot.borrow_mut() = Some(fetch.await) }));
        tasks.run();
        out
    };
    let ok = run(1);
    assert_eq!(*log.borrow(), [r#"mutate {"id":1} sent 0"#], "on_mutate runs before the request");
    server.borrow_mut().answer("POST /users/1", Ok(json!({ "id": 1, "name": "Ada" })));
    tasks.run();
    assert!(ok.borrow().as_ref().is_some_and(Result::is_ok));
    let failed = run(2);
    server.borrow_mut().answer("POST /users/2", Err("422 refused".into()));
    tasks.run();
    assert!(failed.borrow().as_ref().is_some_and(Result::is_err));
    assert_eq!(
        *log.borrow(),
        [
            r#"mutate {"id":1} sent 0"#,
            r#"success {"id":1,"name":"Ada"} ctx 1 stored true pending 0"#,
            "settled true ctx 1",
            r#"mutate {"id":2} sent 0"#,
            "error 422 refused ctx 2",
            "settled false ctx 2",
        ]
    );
}
