//! `from_fn`: an async function as an endpoint, through the controller.

mod cells;
mod common;

use cells::SyncCell;
use std::sync::Arc;

use common::User;
use rdc_controller::{from_fn, Controller, FakeTime, FetchError, FnError, LocalTasks};
use rdc_core::Entity;

fn controller() -> (Controller, LocalTasks) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time, tasks.clone()), tasks)
}

#[test]
fn identical_concurrent_calls_share_one_call_and_the_result_is_normalized() {
    let (c, tasks) = controller();
    let calls = Arc::new(SyncCell::new(0));
    let counted = Arc::clone(&calls);
    let user = from_fn("user", move |id: String| {
        counted.set(counted.get() + 1);
        async move { Ok::<_, String>(User { id: id.clone(), name: format!("user {id}") }) }
    })
    .schema(User::schema());
    let (a, b) = (c.fetch(&user, "7".to_owned(), ()), c.fetch(&user, "7".to_owned(), ()));
    assert_eq!(tasks.block_on(a).unwrap().name, "user 7");
    assert_eq!(tasks.block_on(b).unwrap().name, "user 7");
    assert_eq!(calls.get(), 1, "one call for both readers");
    assert_eq!(c.entity::<User>("7").unwrap().unwrap().name, "user 7", "the user is in the store");
    assert_eq!(c.read::<_, User>(&user, &"7".to_owned()).unwrap().data.unwrap().name, "user 7");
}

#[test]
fn the_functions_error_is_typed_and_the_store_keeps_what_it_had() {
    let (c, tasks) = controller();
    let flaky = Arc::new(SyncCell::new(false));
    let fails = Arc::clone(&flaky);
    let user = from_fn("user", move |id: String| {
        let fail = fails.get();
        async move {
            if fail {
                Err(format!("no user {id}"))
            } else {
                Ok(User { id, name: "Ada".into() })
            }
        }
    })
    .schema(User::schema());
    tasks.block_on(c.fetch(&user, "1".to_owned(), ())).unwrap();
    flaky.set(true);
    c.invalidate(&user, &"1".to_owned());
    match tasks.block_on(c.fetch(&user, "1".to_owned(), ())) {
        Err(FetchError::Endpoint(error @ FnError::Failed { .. })) => assert_eq!(error.to_string(), "user: no user 1"),
        other => panic!("{other:?}"),
    }
    assert_eq!(c.entity::<User>("1").unwrap().unwrap().name, "Ada", "the entity stays");
}
