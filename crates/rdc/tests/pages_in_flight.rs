//! A page of a paginated list shares the list's key, not its request: a page
//! asked for while the list is in flight (or the list while a page is) is
//! sent, and each call resolves to its own answer.

use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, serde::Serialize)]
struct Cursor {
    cursor: u32,
}

fn list() -> RestEndpoint {
    RestEndpoint::get("/items")
}

fn page(ids: &[u32], next: u32) -> rdc::json::Value {
    rdc::json!({ "items": ids, "next": next })
}

fn items(result: Option<Result<rdc::json::Value, FetchError<RestError>>>) -> rdc::json::Value {
    result.expect("answered").expect("a page")["items"].clone()
}

/// The list as the store holds it: its items and its `next`.
fn stored(app: &MockApp) -> (rdc::json::Value, rdc::json::Value) {
    let read = app.controller().read::<_, rdc::json::Value>(&list(), &rdc::json!({})).expect("readable");
    let list = read.data.expect("the list is stored");
    (list["items"].clone(), list["next"].clone())
}

#[test]
fn a_next_page_asked_for_while_the_list_is_in_flight_is_sent() {
    let app = MockApp::new();
    let next_page = list().paginated("cursor").args::<Cursor>();
    let held = app.hold(&list(), &rdc::json!({}));
    app.fixture(&next_page, &Cursor { cursor: 2 }, page(&[3, 4], 3));
    let first = app.start(&list(), rdc::json!({}), None);
    let second = app.start(&next_page, Cursor { cursor: 2 }, None);
    held.answer(page(&[1, 2], 2));
    app.run();
    assert_eq!(app.requests(), ["GET /items", "GET /items?cursor=2"]);
    assert_eq!(items(first.result()), rdc::json!([1, 2]));
    assert_eq!(items(second.result()), rdc::json!([3, 4]));
}

#[test]
fn a_list_refetch_while_a_page_is_in_flight_fetches_the_first_page() {
    let app = MockApp::new();
    let next_page = list().paginated("cursor").args::<Cursor>();
    let held = app.hold(&next_page, &Cursor { cursor: 5 });
    app.fixture(&list(), &rdc::json!({}), page(&[1, 2], 2));
    let fifth = app.start(&next_page, Cursor { cursor: 5 }, None);
    let refetch = app.start(&list(), rdc::json!({}), None);
    assert_eq!(items(refetch.result()), rdc::json!([1, 2]), "the list's own answer, not page 5's");
    assert_eq!(stored(&app), (rdc::json!([1, 2]), rdc::json!(2)), "the list starts over at its first page");
    held.answer(page(&[9], 6));
    app.run();
    assert_eq!(app.requests(), ["GET /items?cursor=5", "GET /items"]);
    assert_eq!(items(fifth.result()), rdc::json!([9]));
    // Page 5 was asked for before the list started over: it does not become the list.
    assert_eq!(stored(&app), (rdc::json!([1, 2]), rdc::json!(2)), "the list is not page 5 with next: 6");
}
