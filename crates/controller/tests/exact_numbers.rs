//! Issue 36, item 2: a number an `f64` cannot say exactly keeps its text
//! through every text the store is written as: a page's script text (SSR
//! hydration), the persisted text and a tab message.

mod cells;
use cells::SyncRefCell;
use std::str::FromStr;
use std::sync::Arc;

use rdc_controller::{Controller, Dehydrated, FakeTime, LocalTasks, MemoryStorage, Persist, Restored};
use rdc_core::json::Value;
use rdc_core::Entity;
use rust_decimal::Decimal;

#[derive(Debug, Clone, serde::Deserialize, Entity)]
struct Quote {
    #[allow(dead_code)]
    id: String,
    price: Decimal,
}

/// More digits than an `f64` holds: as an `f64` it reads `12345678901234567000`.
const LONG: &str = "12345678901234567890.123456789";

fn controller(time: &FakeTime) -> (Controller, LocalTasks) {
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time.clone(), tasks.clone()), tasks)
}

fn set_quote(c: &Controller) {
    let body = Value::parse(format!(r#"{{"id": "q", "price": {LONG}}}"#)).unwrap();
    c.set(&Quote::schema(), body).unwrap();
}

fn price(c: &Controller) -> Decimal {
    c.entity::<Quote>("q").unwrap().expect("the quote").price
}

fn exact() -> Decimal {
    Decimal::from_str(LONG).unwrap()
}

#[test]
fn a_page_s_script_text_keeps_an_exact_number() {
    let time = FakeTime::default();
    let (server, _) = controller(&time);
    set_quote(&server);
    assert_eq!(price(&server), exact(), "the server renders the exact value");
    let page = server.dehydrate().to_script_text();
    assert!(page.contains(&format!(":{LONG}")), "written as the number it is: {page}");
    serde_json::from_str::<serde_json::Value>(&page).expect("still JSON");
    let (browser, _) = controller(&time);
    browser.hydrate(Dehydrated::from_script_text(&page).unwrap());
    assert_eq!(price(&browser), exact(), "the hydrated page shows the same value");
}

#[test]
fn the_persisted_text_keeps_an_exact_number() {
    let (time, storage) = (FakeTime::default(), MemoryStorage::default());
    let (first, tasks) = controller(&time);
    assert_eq!(tasks.block_on(first.persist(Persist::new(1).entity::<Quote>(), storage.clone())), Restored::Nothing);
    set_quote(&first);
    time.advance(100);
    let text = storage.text().expect("saved");
    assert!(text.contains(LONG), "{text}");
    let (second, tasks) = controller(&time);
    assert_ne!(tasks.block_on(second.persist(Persist::new(1).entity::<Quote>(), storage.clone())), Restored::Nothing);
    assert_eq!(price(&second), exact());
}

#[test]
fn a_tab_message_keeps_an_exact_number() {
    let time = FakeTime::default();
    let (a, _) = controller(&time);
    let (b, _) = controller(&time);
    let posted = Arc::new(SyncRefCell::new(Vec::new()));
    let outbox = posted.clone();
    // What `sync_tabs` posts and reads.
    a.share_writes(move |slice| outbox.borrow_mut().push(serde_json::to_string(slice).unwrap()));
    set_quote(&a);
    let messages = posted.borrow_mut().drain(..).collect::<Vec<_>>();
    assert_eq!(messages.len(), 1);
    assert!(messages[0].contains(LONG), "{}", messages[0]);
    b.take_shared(Dehydrated::from_script_text(&messages[0]).unwrap());
    assert_eq!(price(&b), exact());
}
