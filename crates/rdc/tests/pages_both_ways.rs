//! Infinite lists both ways, run natively on fake time: previous pages go in
//! front in order, `max_pages` drops the page at the far end, and a refetch
//! asks for every page held again, in order, with the param each had.

use leptos::prelude::*;
use rdc::prelude::*;
use rdc::testing::MockApp;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
struct Item {
    id: u32,
}

fn item_list() -> SchemaOf<Vec<Item>> {
    Collection::of("ItemList", Item::schema())
}

/// A page: its items and the cursors of the pages around it.
#[derive(Debug, Clone, serde::Deserialize, rdc::Schema)]
struct Page {
    prev: Option<u32>,
    next: Option<u32>,
    #[entity(nested, schema = "item_list()")]
    results: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
struct Cursor {
    cursor: u32,
}

fn list() -> RestEndpoint<(), (), Page> {
    rdc::rest!(GET "/items" -> Page)
}

fn page_at() -> RestEndpoint<Cursor, (), Page> {
    list().paginated("cursor").args::<Cursor>()
}

fn page(prev: Option<u32>, next: Option<u32>, ids: &[u32]) -> rdc::json::Value {
    let results: Vec<_> = ids.iter().map(|id| rdc::json!({ "id": id })).collect();
    rdc::json!({ "prev": prev, "next": next, "results": results })
}

/// The list opens at page 3 (no cursor, or cursor 3); pages 1 to 5 hold two
/// items each but the last.
fn five_pages(app: &MockApp) {
    app.fixture(&page_at(), &Cursor { cursor: 1 }, page(None, Some(2), &[1, 2]));
    app.fixture(&page_at(), &Cursor { cursor: 2 }, page(Some(1), Some(3), &[3, 4]));
    app.fixture(&list(), &(), page(Some(2), Some(4), &[5, 6]));
    app.fixture(&page_at(), &Cursor { cursor: 3 }, page(Some(2), Some(4), &[5, 6]));
    app.fixture(&page_at(), &Cursor { cursor: 4 }, page(Some(3), Some(5), &[7, 8]));
    app.fixture(&page_at(), &Cursor { cursor: 5 }, page(Some(4), None, &[9]));
}

type Shown = rdc::leptos::Pages<Page, RestError, Cursor>;

fn use_both_ways() -> Shown {
    use_pages(list(), Some(()), page_at(), |p: &Page| p.next.map(|cursor| Cursor { cursor }))
        .previous(|p: &Page| p.prev.map(|cursor| Cursor { cursor }))
}

/// The item ids of each page held, in order.
fn held(pages: &Shown) -> Vec<Vec<u32>> {
    pages.pages.get_untracked().iter().map(|p| p.results.iter().map(|i| i.id).collect()).collect()
}

#[test]
fn previous_pages_go_in_front_in_order() {
    let app = MockApp::new();
    five_pages(&app);
    let pages = app.hooks(use_both_ways);
    app.run();
    assert_eq!(held(&pages), [vec![5, 6]]);
    assert!(pages.has_previous.get_untracked());

    pages.load_previous();
    app.run();
    assert_eq!(held(&pages), [vec![3, 4], vec![5, 6]], "page 2 goes in front of page 3");
    pages.load_previous();
    app.run();
    assert_eq!(held(&pages), [vec![1, 2], vec![3, 4], vec![5, 6]]);
    assert!(!pages.has_previous.get_untracked(), "page 1 names no previous page");
    pages.load_previous();
    app.run();
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![1, 2], vec![3, 4], vec![5, 6], vec![7, 8]]);
    assert_eq!(app.requests(), ["GET /items", "GET /items?cursor=2", "GET /items?cursor=1", "GET /items?cursor=4"]);
}

#[test]
fn max_pages_drops_the_page_at_the_far_end_both_ways() {
    let app = MockApp::new();
    five_pages(&app);
    let pages = app.hooks(|| use_both_ways().max_pages(2));
    app.run();
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8]]);
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![7, 8], vec![9]], "page 5 in, page 3 (the first) out");
    assert!(!pages.has_next.get_untracked());
    assert!(pages.has_previous.get_untracked(), "page 4 names page 3 again");

    pages.load_previous();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8]], "page 3 in, page 5 (the last) out");
    pages.load_previous();
    app.run();
    assert_eq!(held(&pages), [vec![3, 4], vec![5, 6]], "page 2 in, page 4 out");
    assert!(pages.has_next.get_untracked(), "page 3 names page 4 again");
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8]]);
    assert_eq!(
        app.requests()[1..],
        [
            "GET /items?cursor=4",
            "GET /items?cursor=5",
            "GET /items?cursor=3",
            "GET /items?cursor=2",
            "GET /items?cursor=4"
        ],
        "a dropped page is asked for again when it comes back"
    );
}

#[test]
fn refetch_asks_for_the_pages_held_again_in_order_and_shows_what_the_server_has() {
    let app = MockApp::new();
    five_pages(&app);
    let pages = app.hooks(use_both_ways);
    app.run();
    pages.load_next();
    app.run();
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8], vec![9]]);

    // Item 50 is added upstream at the top of page 3: every later item shifts on by one.
    app.fixture(&list(), &(), page(Some(2), Some(4), &[50, 5]));
    app.fixture(&page_at(), &Cursor { cursor: 4 }, page(Some(3), Some(5), &[6, 7]));
    app.fixture(&page_at(), &Cursor { cursor: 5 }, page(Some(4), None, &[8, 9]));
    let before = app.requests().len();
    pages.refetch();
    assert!(pages.loading.get_untracked());
    app.run();
    assert_eq!(
        app.requests()[before..],
        ["GET /items", "GET /items?cursor=4", "GET /items?cursor=5"],
        "each page held, in order, with the param it had"
    );
    assert_eq!(held(&pages), [vec![50, 5], vec![6, 7], vec![8, 9]]);
    let stored: Vec<u32> = pages.data.get_untracked().expect("the list").results.iter().map(|i| i.id).collect();
    assert_eq!(stored, [50, 5, 6, 7, 8, 9], "the store's list is the server's, in order");
    assert!(!pages.loading.get_untracked());
}

#[test]
fn refetch_asks_for_each_page_only_once_the_one_before_has_answered() {
    let app = MockApp::new();
    five_pages(&app);
    let pages = app.hooks(use_both_ways);
    app.run();
    pages.load_next();
    app.run();
    let first = app.hold(&list(), &());
    pages.refetch();
    app.run();
    assert_eq!(app.requests()[2..], ["GET /items"], "page 4 waits for the list");
    first.answer(page(Some(2), Some(4), &[5, 6]));
    app.run();
    assert_eq!(app.requests()[2..], ["GET /items", "GET /items?cursor=4"]);
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8]]);
}

#[test]
fn a_failed_page_keeps_the_pages_held_and_names_the_error() {
    let app = MockApp::new();
    five_pages(&app);
    app.error(&page_at(), &Cursor { cursor: 4 }, 500, rdc::json!({ "error": "down" }));
    let pages = app.hooks(use_both_ways);
    app.run();
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6]]);
    assert!(pages.error.get_untracked().is_some(), "the next page's error shows");
    assert!(!pages.loading.get_untracked());
    app.fixture(&page_at(), &Cursor { cursor: 4 }, page(Some(3), Some(5), &[7, 8]));
    pages.load_next();
    app.run();
    assert_eq!(held(&pages), [vec![5, 6], vec![7, 8]]);
    assert!(pages.error.get_untracked().is_none(), "cleared by the next load");
}

#[test]
fn new_args_start_the_pages_held_over_and_drop_answers_to_the_old() {
    let app = MockApp::new();
    five_pages(&app);
    let args = RwSignal::new(Some(()));
    let pages = app.hooks(|| use_pages(list(), args, page_at(), |p: &Page| p.next.map(|cursor| Cursor { cursor })));
    app.run();
    let fourth = app.hold(&page_at(), &Cursor { cursor: 4 });
    pages.load_next();
    app.run();
    args.set(None);
    app.run();
    assert!(held(&pages).is_empty(), "no list, no pages");
    assert!(!pages.has_next.get_untracked());
    fourth.answer(page(Some(3), Some(5), &[7, 8]));
    app.run();
    assert!(held(&pages).is_empty(), "page 4 was asked for under the old args");
    args.set(Some(()));
    app.run();
    assert_eq!(held(&pages), [vec![5, 6, 7, 8]], "the store's list, page 4 joined, starts the pages again");
}

#[test]
fn args_set_to_an_equal_value_keep_the_pages_held() {
    let app = MockApp::new();
    five_pages(&app);
    let args = RwSignal::new(Some(()));
    let pages = app.hooks(|| use_pages(list(), args, page_at(), |p: &Page| p.next.map(|cursor| Cursor { cursor })));
    app.run();
    pages.load_next();
    app.run();
    let before = held(&pages);
    assert_eq!(before.len(), 2, "the list and its next page");
    args.set(Some(()));
    app.run();
    assert_eq!(held(&pages), before, "the same args make the same key: nothing starts over");
}
