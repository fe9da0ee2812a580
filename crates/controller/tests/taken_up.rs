//! Data taken up from elsewhere (a server's page, another tab, a saved store)
//! is judged on the receiver's clock and in one total write order: times
//! ahead of the receiver's clock are moved back, tabs settle on one value,
//! a result that cannot be read is fetched again, and a message written
//! before a reset stays out.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use std::sync::Arc;

use common::User;
use controller_support::*;
use rdc_controller::{Controller, Dehydrated, FakeTime, LocalTasks, MemoryStorage, Persist, PersistStorage, Policy};
use rdc_core::json::Value;
use rdc_core::{json, All, Entity, Schema};

const HOUR: u64 = 3_600_000;

fn users(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/users", Some(Schema::array(User::schema())))
}

fn name(c: &Controller, id: &str) -> Option<String> {
    c.entity::<User>(id).unwrap().map(|u| u.name.clone())
}

/// A controller whose clock reads `now`.
fn at(now: u64) -> (Controller, FakeTime, LocalTasks) {
    let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    time.advance(now);
    (Controller::new(time.clone(), time.clone(), tasks.clone()), time, tasks)
}

/// A server's page holding `/users` (Ada), its JSON edited by `edit`.
fn page_with(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let (server, _, tasks) = at(2 * HOUR);
    let api = users(&Arc::default());
    api.server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }]));
    tasks.block_on(server.fetch(&api, Value::Null, None)).unwrap();
    let mut page: serde_json::Value = serde_json::from_str(&server.dehydrate().to_script_text()).unwrap();
    edit(&mut page);
    page.to_string()
}

// Item 5: times from elsewhere are clamped to the receiver's clock.

#[test]
fn a_page_taken_at_zero_pins_neither_its_row_nor_its_result() {
    let page = page_with(|page| page["taken_at"] = 0.into());
    let (c, time, tasks) = at(HOUR);
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    let api = users(&Arc::default());
    assert_eq!(name(&c, "1").as_deref(), Some("Ada"));
    time.advance(61_000);
    assert!(c.needs_fetch("GET /users", Policy::default()), "its minute is up on this clock");
    api.server.borrow_mut().always(json!([{ "id": "1", "name": "Ada L." }]));
    tasks.block_on(c.fetch(&api, Value::Null, None)).unwrap();
    assert_eq!(name(&c, "1").as_deref(), Some("Ada L."), "a later fetch wins");
}

#[test]
fn a_row_fetched_in_the_future_does_not_pin_it_against_later_fetches() {
    let page =
        page_with(|page| page["state"]["entities"]["User"]["rows"]["1"]["meta"]["fetched_at"] = (50 * HOUR).into());
    let (c, _, tasks) = at(HOUR);
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    let api = users(&Arc::default());
    api.server.borrow_mut().always(json!([{ "id": "1", "name": "Ada L." }]));
    tasks.block_on(c.fetch(&api, Value::Null, None)).unwrap();
    assert_eq!(name(&c, "1").as_deref(), Some("Ada L."));
}

#[test]
fn a_saved_row_fetched_in_the_future_does_not_pin_it_after_a_reload() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    time.advance(HOUR);
    let persist = || Persist::new(1).entity::<User>();
    let first = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    LocalTasks::default().block_on(first.persist(persist(), storage.clone()));
    first.set(&User::schema(), json!({ "id": "1", "name": "Ada" })).unwrap();
    time.advance(100);
    let mut saved: serde_json::Value = serde_json::from_str(&storage.text().unwrap()).unwrap();
    saved["store"]["state"]["entities"]["User"]["rows"]["1"]["meta"]["fetched_at"] = (50 * HOUR).into();
    storage.save(saved.to_string());

    for reload in 0..2 {
        let tasks = LocalTasks::default();
        let next = Controller::new(time.clone(), time.clone(), tasks.clone());
        tasks.block_on(next.persist(persist(), storage.clone()));
        assert_eq!(name(&next, "1").as_deref(), Some(if reload == 0 { "Ada" } else { "Ada L." }));
        let api = users(&Arc::default());
        api.server.borrow_mut().always(json!([{ "id": "1", "name": "Ada L." }]));
        tasks.block_on(next.fetch(&api, Value::Null, None)).unwrap();
        assert_eq!(name(&next, "1").as_deref(), Some("Ada L."), "reload {reload}: the fetch wins");
        time.advance(100);
    }
}

#[test]
fn an_error_taken_up_that_never_expires_stops_counting() {
    let (server, _, _) = at(2 * HOUR);
    let api = users(&Arc::default());
    server.set_error(&api, &Value::Null, &"500 down".to_owned());
    let mut page: serde_json::Value = serde_json::from_str(&server.dehydrate().to_script_text()).unwrap();
    page["state"]["errors"]["GET /users"]["expires_at"] = u64::MAX.into();
    let (c, time, _) = at(HOUR);
    c.hydrate(Dehydrated::from_script_text(&page.to_string()).unwrap());
    assert!(c.typed_error::<Api>("GET /users").is_some(), "shown for now");
    time.advance(HOUR);
    assert!(c.typed_error::<Api>("GET /users").is_none(), "not shown forever");
    assert!(c.needs_fetch("GET /users", Policy::default()));
}

#[test]
fn a_result_taken_up_that_never_expires_goes_stale_after_a_day() {
    let page = page_with(|page| {
        page["state"]["results"]["GET /users"]["meta"]["expires_at"] = u64::MAX.into();
        page["state"]["entities"]["User"]["rows"]["1"]["meta"]["expires_at"] = u64::MAX.into();
    });
    let (c, time, _) = at(HOUR);
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    assert!(!c.needs_fetch("GET /users", Policy::default()), "fresh for now");
    time.advance(25 * HOUR);
    assert!(c.needs_fetch("GET /users", Policy::default()), "not fresh forever");
    assert_eq!(c.sweep(), (1, 1), "nor kept forever");
}

#[test]
fn a_taken_up_row_that_breaks_its_schema_leaves_its_result_fetchable_again() {
    let page = page_with(|page| page["state"]["entities"]["User"]["rows"]["1"]["value"]["name"] = 5.into());
    let (c, _, tasks) = at(HOUR);
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    let api = users(&Arc::default());
    assert!(c.read::<_, Vec<User>>(&api, &Value::Null).is_err(), "the list does not read");
    assert!(c.query::<Vec<User>>("every user", &All::of::<User>().into()).is_err());
    assert!(c.needs_fetch("GET /users", Policy::default()), "a result that cannot be read is fetched again");
    api.server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }]));
    tasks.block_on(c.fetch(&api, Value::Null, None)).unwrap();
    let read = c.read::<_, Vec<User>>(&api, &Value::Null).unwrap();
    assert_eq!(read.data.map(|all| all.len()), Some(1));
    assert_eq!(c.query::<Vec<User>>("every user", &All::of::<User>().into()).unwrap().map(|all| all.len()), Some(1));
}

// Items 4 and 5: tabs.

type Outbox = Arc<SyncRefCell<Vec<Dehydrated>>>;

/// A tab on `time`, sharing its writes into its outbox.
fn tab(time: &FakeTime) -> (Controller, Outbox) {
    let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    let outbox = Outbox::default();
    let out = outbox.clone();
    controller.share_writes(move |slice| out.borrow_mut().push(slice.clone()));
    (controller, outbox)
}

fn drain(outbox: &Outbox) -> Vec<Dehydrated> {
    outbox.borrow_mut().drain(..).collect()
}

#[test]
fn tabs_that_write_one_row_in_the_same_millisecond_settle_on_one_value() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let (a, b) = (tab(&time), tab(&time));
    a.0.set(&User::schema(), json!({ "id": "1", "name": "from a" })).unwrap();
    b.0.set(&User::schema(), json!({ "id": "1", "name": "from b" })).unwrap();
    let (to_b, to_a) = (drain(&a.1), drain(&b.1));
    to_b.into_iter().for_each(|slice| b.0.take_shared(slice));
    to_a.into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "1"), name(&b.0, "1"), "one value in both tabs");
    assert!(drain(&a.1).is_empty() && drain(&b.1).is_empty());
}

#[test]
fn a_replayed_message_of_the_same_millisecond_does_not_overwrite_newer_data() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let (a, b) = (tab(&time), tab(&time));
    a.0.set(&User::schema(), json!({ "id": "1", "name": "old" })).unwrap();
    a.0.set(&User::schema(), json!({ "id": "1", "name": "new" })).unwrap();
    let sent = drain(&a.1);
    assert_eq!(sent.len(), 2);
    for slice in sent.iter().chain(sent.first()) {
        b.0.take_shared(slice.clone());
    }
    assert_eq!(name(&b.0, "1").as_deref(), Some("new"), "the replay of the older write loses");
}

#[test]
fn a_tabs_own_write_after_taking_one_up_in_the_same_millisecond_wins() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let (a, b) = (tab(&time), tab(&time));
    for n in 0..3 {
        a.0.set(&User::schema(), json!({ "id": "1", "name": format!("a{n}") })).unwrap();
    }
    drain(&a.1).into_iter().for_each(|slice| b.0.take_shared(slice));
    b.0.set(&User::schema(), json!({ "id": "1", "name": "b" })).unwrap();
    assert_eq!(name(&b.0, "1").as_deref(), Some("b"), "written after what it took up: newer");
    drain(&b.1).into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "1").as_deref(), Some("b"));
}

#[test]
fn a_tabs_own_writes_win_over_a_taken_up_sequence_number_at_the_cap() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let (a, b) = (tab(&time), tab(&time));
    a.0.set(&User::schema(), json!({ "id": "1", "name": "a" })).unwrap();
    for slice in drain(&a.1) {
        let mut text: serde_json::Value = serde_json::from_str(&slice.to_script_text()).unwrap();
        text["state"]["entities"]["User"]["rows"]["1"]["meta"]["seq"] = u64::MAX.into();
        b.0.take_shared(Dehydrated::from_script_text(&text.to_string()).unwrap());
    }
    assert_eq!(name(&b.0, "1").as_deref(), Some("a"));
    for n in 0..2 {
        b.0.set(&User::schema(), json!({ "id": "1", "name": format!("b{n}") })).unwrap();
        assert_eq!(name(&b.0, "1"), Some(format!("b{n}")), "this tab's write {n} of the same millisecond wins");
    }
}

#[test]
fn tabs_whose_clocks_differ_after_a_step_back_reset_together_and_share_again() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let a = tab(&time);
    // The wall clock steps back 10 minutes: `a`'s clock holds, `b` starts on the new reading.
    time.step_back(600_000);
    let b = tab(&time);
    time.advance(1);
    a.0.reset_entire_store();
    b.0.reset_as_elsewhere(a.0.reset_at());
    time.advance(1);
    b.0.set(&User::schema(), json!({ "id": "1", "name": "next user" })).unwrap();
    drain(&b.1).into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "1").as_deref(), Some("next user"), "written after the reset: taken up");
    time.advance(1);
    a.0.set(&User::schema(), json!({ "id": "1", "name": "from a" })).unwrap();
    drain(&a.1).into_iter().for_each(|slice| b.0.take_shared(slice));
    assert_eq!(name(&b.0, "1").as_deref(), Some("from a"), "and the other way");
}

#[test]
fn a_tab_message_written_before_a_reset_and_delivered_after_it_stays_out() {
    let time = FakeTime::default();
    time.advance(HOUR);
    let (a, b) = (tab(&time), tab(&time));
    let storage = MemoryStorage::default();
    LocalTasks::default().block_on(a.0.persist(Persist::new(1).entity::<User>(), storage.clone()));
    b.0.set(&User::schema(), json!({ "id": "1", "name": "last user" })).unwrap();
    time.advance(1);
    a.0.reset_entire_store();
    drain(&b.1).into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "1"), None, "the last user's row does not come back");
    time.advance(100);
    assert!(storage.text().is_none_or(|text| !text.contains("last user")), "nor is it saved");

    // What the resetting tab writes next (the next user's) reaches the
    // other tab, which hears of the reset a little later.
    a.0.set(&User::schema(), json!({ "id": "4", "name": "next user, first" })).unwrap();
    time.advance(1);
    b.0.reset_as_elsewhere(a.0.reset_at());
    drain(&a.1).into_iter().for_each(|slice| b.0.take_shared(slice));
    assert_eq!(name(&b.0, "4").as_deref(), Some("next user, first"));
    // And what the other tab writes then is the next user's too.
    b.0.set(&User::schema(), json!({ "id": "2", "name": "next user" })).unwrap();
    drain(&b.1).into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "2").as_deref(), Some("next user"));
    // So is what a tab opened after the reset writes.
    let c = tab(&time);
    c.0.set(&User::schema(), json!({ "id": "3", "name": "new tab" })).unwrap();
    drain(&c.1).into_iter().for_each(|slice| a.0.take_shared(slice));
    assert_eq!(name(&a.0, "3").as_deref(), Some("new tab"));
}
