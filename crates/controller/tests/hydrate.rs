//! A store dehydrated on one controller (a server) and hydrated on another (a
//! browser): the data, its freshness against another clock, safe page text.

mod cells;
mod common;
mod controller_support;

use cells::SyncRefCell;
use common::User;
use controller_support::*;
use rdc_controller::{Controller, Dehydrated, ExpiryStatus, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::{Entity, Schema};
use std::sync::Arc;

fn users_api(server: &Arc<SyncRefCell<Server>>) -> Api {
    Api::new(server, "GET", "/users", Some(Schema::array(User::schema())))
}

/// A controller whose clock reads `now`.
fn at(now: u64) -> (Controller, FakeTime, LocalTasks) {
    let time = FakeTime::default();
    time.advance(now);
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time.clone(), tasks.clone()), time, tasks)
}

/// A browser whose clock reads `now`, started from `page`, with the users
/// endpoint over a server of its own (which answers nothing unless told).
fn browser(page: &str, now: u64) -> (Controller, FakeTime, LocalTasks, Arc<SyncRefCell<Server>>, Api) {
    let (c, time, tasks) = at(now);
    c.hydrate(Dehydrated::from_script_text(page).unwrap());
    let server = Arc::new(SyncRefCell::new(Server::default()));
    let api = users_api(&server);
    (c, time, tasks, server, api)
}

/// What a server rendered with: the users list, fetched at `fetched` and
/// dehydrated at `taken` (its data fresh for 60 s).
fn server_page(fetched: u64, taken: u64) -> String {
    let (c, time, tasks, server) = setup();
    time.advance(fetched);
    let api = users_api(&server);
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]));
    tasks.block_on(c.fetch(&api, json!({}), None)).unwrap();
    time.advance(taken - fetched);
    c.dehydrate().to_script_text()
}

#[test]
fn a_hydrated_store_reads_the_same_without_a_request_whatever_the_clock_says() {
    let page = server_page(1_000_000, 1_010_000);
    // The browser's clock is far behind the server's, then far ahead: fresh
    // data has the 50 s it had left on the server either way.
    for client_now in [5_000, 900_000_000] {
        let (c, time, _, server, api) = browser(&page, client_now);
        let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
        assert_eq!(read.status, ExpiryStatus::Valid);
        assert_eq!(read.data.unwrap().iter().map(|u| u.name.as_str()).collect::<Vec<_>>(), ["Ada", "Grace"]);
        assert!(!c.needs_fetch("GET /users", api.policy), "no request for data that came with the page");
        time.advance(49_999);
        assert!(!c.needs_fetch("GET /users", api.policy), "still fresh 49.999 s later");
        time.advance(1);
        assert!(c.needs_fetch("GET /users", api.policy), "stale when the server said: 50 s after the page");
        assert!(server.borrow().requests.is_empty());
    }
}

#[test]
fn data_stale_on_arrival_is_shown_and_fetched_again_once() {
    let page = server_page(0, 100_000);
    let (c, _time, tasks, server, api) = browser(&page, 7);
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!(read.status, ExpiryStatus::Stale, "shown while it is fetched again");
    assert!(c.needs_fetch("GET /users", api.policy));
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada L." }]));
    tasks.block_on(c.fetch(&api, json!({}), None)).unwrap();
    assert!(!c.needs_fetch("GET /users", api.policy), "once");
    assert_eq!(c.entity::<User>("1").unwrap().unwrap().name, "Ada L.");
}

#[test]
fn what_the_page_carries_cannot_break_out_of_its_script_element() {
    let hostile = "</script><script>alert(1)</script><!-- \u{2028}\u{2029} & </SCRIPT >";
    let (server, _, _) = at(1_000);
    server.set(&User::schema(), json!({ "id": "1", "name": hostile })).unwrap();
    let text = server.dehydrate().to_script_text();
    for needle in ["</", "<!--", "<", ">", "&", "\u{2028}", "\u{2029}"] {
        assert!(!text.contains(needle), "{needle:?} in {text}");
    }
    let (browser, _, _) = at(2_000);
    browser.hydrate(Dehydrated::from_script_text(&text).unwrap());
    assert_eq!(browser.entity::<User>("1").unwrap().unwrap().name, hostile, "the same value after the trip");
}

#[test]
fn hydrating_keeps_what_the_browser_fetched_already() {
    let page = server_page(1_000, 2_000);
    let (c, _, tasks) = at(10_000);
    let server = Arc::new(SyncRefCell::new(Server::default()));
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada (newer)" }]));
    let api = users_api(&server);
    tasks.block_on(c.fetch(&api, json!({}), None)).unwrap();
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    assert_eq!(c.entity::<User>("1").unwrap().unwrap().name, "Ada (newer)", "fetched here, after the page");
    assert_eq!(c.entity::<User>("2").unwrap().unwrap().name, "Grace", "what only the page had joins");
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!(read.data.unwrap().len(), 1, "the browser's own result for the key stays");
}

/// The page showed the error of a read that got no data: the browser shows the
/// same text (no request) until the error stops counting, then asks again.
#[test]
fn the_error_of_a_read_without_data_travels_as_its_text_until_it_expires() {
    let (failing, _, tasks) = at(1_000);
    let broken = Api::new(&Arc::new(SyncRefCell::new(Server::default())), "GET", "/broken", None);
    broken.server.borrow_mut().auto = Some(Arc::new(|_, _| Err("HTTP 401 from /broken".to_owned())));
    let shown = tasks.block_on(failing.fetch(&broken, json!({}), None)).unwrap_err().to_string();
    for page in [failing.dehydrate(), failing.dehydrate_keys(["GET /broken"])] {
        let (browser, time, _) = at(500_000);
        browser.hydrate(Dehydrated::from_script_text(&page.to_script_text()).unwrap());
        let carried = browser.typed_error::<Api>("GET /broken").expect("the page's error");
        assert!(matches!(carried, rdc_controller::FetchError::Carried { ref key, .. } if key == "GET /broken"));
        assert_eq!(carried.to_string(), shown, "the same text the server rendered");
        assert!(!browser.needs_fetch("GET /broken", broken.policy));
        time.advance(broken.policy.error_expiry_ms);
        assert!(browser.typed_error::<Api>("GET /broken").is_none());
        assert!(browser.needs_fetch("GET /broken", broken.policy), "expired: asked again");
    }
}

#[test]
fn a_read_hydrated_result_keeps_its_entities_through_a_sweep() {
    let page = server_page(0, 0);
    let (c, time, _, _server, api) = browser(&page, 0);
    c.retain("GET /users");
    assert_eq!(c.read::<_, Vec<User>>(&api, &json!({})).unwrap().data.unwrap().len(), 2);
    time.advance(120_000);
    c.sweep();
    let read = c.read::<_, Vec<User>>(&api, &json!({})).unwrap();
    assert_eq!(read.data.map(|users| users.len()), Some(2), "a mounted reader's stale list keeps its users");
}

#[test]
fn one_reads_slice_holds_its_result_and_the_entities_it_reaches_and_nothing_else() {
    let (c, _time, tasks, server) = setup();
    let list = users_api(&server);
    let one = Api::new(&server, "GET", "/users/:id", Some(User::schema().into()));
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }, { "id": "2", "name": "Grace" }]));
    tasks.block_on(c.fetch(&list, json!({}), None)).unwrap();
    server.borrow_mut().always(json!({ "id": "3", "name": "Linus" }));
    tasks.block_on(c.fetch(&one, json!({ "id": "3" }), None)).unwrap();

    let key = c.key_of(&one, &json!({ "id": "3" })).unwrap();
    let slice = c.dehydrate_keys([key.as_str()]);
    assert_eq!((slice.result_count(), slice.entity_count()), (1, 1), "user 3 and its result only");

    let (browser, _, _) = at(5);
    browser.hydrate(Dehydrated::from_script_text(&slice.to_script_text()).unwrap());
    let read = browser.read::<_, User>(&one, &json!({ "id": "3" })).unwrap();
    assert_eq!(read.data.unwrap().name, "Linus");
    assert_eq!(browser.entity::<User>("1").unwrap(), None, "the list's users stayed behind");
}

/// Two reads of one page resolve at different times: the first's slice holds
/// an entity as it was then, the second's as a later response rewrote it. In
/// whichever order the browser takes them up, the newer row wins, as it does
/// for every write (invariant 4), so the browser shows what the server's HTML showed.
#[test]
fn the_newer_of_two_slices_rows_wins_whatever_order_they_are_taken_up_in() {
    let (c, _time, tasks, server) = setup();
    let list = users_api(&server);
    let one = Api::new(&server, "GET", "/users/:id", Some(User::schema().into()));
    server.borrow_mut().always(json!([{ "id": "1", "name": "Ada" }]));
    tasks.block_on(c.fetch(&list, json!({}), None)).unwrap();
    let first = c.dehydrate_keys(["GET /users"]).to_script_text();
    server.borrow_mut().always(json!({ "id": "1", "name": "Ada Lovelace" }));
    tasks.block_on(c.fetch(&one, json!({ "id": "1" }), None)).unwrap();
    let key = c.key_of(&one, &json!({ "id": "1" })).unwrap();
    let second = c.dehydrate_keys([key.as_str()]).to_script_text();
    for order in [[&first, &second], [&second, &first]] {
        let (browser, _, _) = at(77_000);
        for slice in order {
            browser.hydrate(Dehydrated::from_script_text(slice).unwrap());
        }
        assert_eq!(browser.entity::<User>("1").unwrap().unwrap().name, "Ada Lovelace");
    }
}

/// A user found by its unique email.
#[derive(Debug, serde::Deserialize, rdc_core::Entity)]
#[entity(index = "email")]
#[allow(dead_code)]
struct Account {
    id: String,
    email: String,
}

#[test]
fn entity_by_on_a_hydrated_store_builds_the_index_it_looks_through() {
    let (server, _, _) = at(1_000);
    server.set(&Account::schema(), json!({ "id": "1", "email": "ada@example.com" })).unwrap();
    let page = server.dehydrate().to_script_text();
    let (c, _, _) = at(1_000);
    c.hydrate(Dehydrated::from_script_text(&page).unwrap());
    // The page carries rows, not indexes.
    assert!(!c.with_state(|s| s.is_indexed("Account", "email")));
    let ada = c.entity_by::<Account>("email", &json!("ada@example.com")).unwrap();
    assert_eq!(ada.map(|a| a.id.clone()).as_deref(), Some("1"));
    assert!(c.with_state(|s| s.is_indexed("Account", "email")), "the first lookup built the index");
    // A field the type does not index is still scanned, and builds nothing.
    assert!(c.entity_by::<Account>("id", &json!("1")).unwrap().is_some());
    assert!(!c.with_state(|s| s.is_indexed("Account", "id")));
}

#[derive(Debug, serde::Deserialize, Entity)]
#[allow(dead_code)] // read by its entity reader
struct Building {
    id: String,
    name: String,
}

#[derive(Debug, serde::Deserialize, Entity)]
struct Department {
    id: String,
    #[entity(lazy = "Vec<Building>")]
    buildings: Vec<rdc_core::Pk>,
}

/// A result with a lazy field: its slice carries the buildings it brought
/// (the browser reads them through the query) and the keys as stored.
#[test]
fn a_slice_carries_a_results_lazy_entities_and_the_browser_reads_them() {
    let (c, _time, tasks, server) = setup();
    let api = Api::new(&server, "GET", "/departments", Some(Schema::array(Department::schema())));
    server.borrow_mut().always(json!([{ "id": "d1", "buildings": [{ "id": "b1", "name": "North" }, 7] }]));
    tasks.block_on(c.fetch(&api, json!({}), None)).unwrap();
    let slice = c.dehydrate_keys(["GET /departments"]);
    assert_eq!((slice.result_count(), slice.entity_count()), (1, 2), "the department and its building");

    let (browser, _, _) = at(5);
    browser.hydrate(Dehydrated::from_script_text(&slice.to_script_text()).unwrap());
    let depts = browser.read::<_, Vec<Department>>(&api, &json!({})).unwrap().data.unwrap();
    assert_eq!((depts[0].id.as_str(), depts[0].buildings.clone()), ("d1", vec!["b1".into(), "7".into()]));
    let query = rdc_core::Lazy::<Vec<Building>>::of().query();
    let buildings = browser.query_lazy(&query, &depts[0].buildings).unwrap().unwrap();
    assert_eq!(buildings.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(), ["North"]);
}
