//! Paginated list endpoints through the controller: further pages join the
//! list, each item once, and the list keeps the last page's `Link`.
#![cfg(not(target_arch = "wasm32"))]

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_core::{Collection, Entity, SchemaOf};
use rdc_rest::{recipes, FakeClient, FakeResponse, RestEndpoint};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Item {
    id: u64,
}

fn items() -> SchemaOf<Vec<Item>> {
    Collection::of("ItemList", Item::schema())
}

/// A page: its items in the `ItemList` collection, and the `Link` header.
#[derive(Debug, Clone, PartialEq, Deserialize, rdc_core::Schema)]
struct Page {
    link: Option<String>,
    #[entity(nested, schema = "items()")]
    results: Vec<Item>,
}

#[derive(Debug, Clone, Serialize)]
struct Cursor {
    cursor: u32,
}

fn ids(page: &Page) -> Vec<u64> {
    page.results.iter().map(|item| item.id).collect()
}

#[test]
fn a_further_page_joins_the_list_which_keeps_the_last_pages_link() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    let link = |cursor: u32| format!("</items?cursor={cursor}>; rel=\"next\"");
    let page = |ids: &[u64], next: Option<u32>| {
        let items: Vec<_> = ids.iter().map(|id| json!({ "id": id })).collect();
        let response = FakeResponse::json(json!(items));
        match next {
            Some(cursor) => response.header("Link", &link(cursor)),
            None => response,
        }
    };
    client.on("GET", "/items", page(&[1, 2], Some(2)));
    // Item 2 shifted into the second page meanwhile.
    client.on("GET", "/items?cursor=2", page(&[2, 3], Some(4)));
    client.on("GET", "/items?cursor=4", page(&[5], None));
    let list = recipes::link_pagination(&RestEndpoint::get("/items").schema(Page::schema()).client(client.clone()));
    let next_page = list.paginated("cursor").args::<Cursor>();

    let first: Page = tasks.block_on(c.fetch(&list, json!({}), None)).unwrap();
    assert_eq!((ids(&first), first.link.clone()), (vec![1, 2], Some(link(2))));
    let shown =
        |c: &Controller| -> Page { c.read::<_, Page>(&list, &json!({})).unwrap().data.unwrap().as_ref().clone() };

    let second: Page = tasks.block_on(c.fetch(&next_page, Cursor { cursor: 2 }, None)).unwrap();
    assert_eq!(ids(&second), [2, 3], "a fetch resolves to the page the server sent");
    assert_eq!((ids(&shown(&c)), shown(&c).link), (vec![1, 2, 3], Some(link(4))));

    tasks.block_on(c.fetch(&next_page, Cursor { cursor: 4 }, None)).unwrap();
    assert_eq!((ids(&shown(&c)), shown(&c).link), (vec![1, 2, 3, 5], None), "the last page has no next");
    let urls: Vec<String> = client.requests().into_iter().map(|r| r.url).collect();
    assert_eq!(urls, ["/items", "/items?cursor=2", "/items?cursor=4"]);

    // The first page fetched again starts the list over.
    client.on("GET", "/items", page(&[7], Some(1)));
    tasks.block_on(c.fetch(&list, json!({}), None)).unwrap();
    assert_eq!(ids(&shown(&c)), [7]);
}

/// A NaN or infinite cursor has no JSON (nor URL) form: the call is refused
/// with a typed error naming the endpoint, not sent as the first page.
#[test]
fn a_non_finite_cursor_is_refused_not_fetched_as_the_first_page() {
    #[derive(Debug, Clone, Serialize)]
    struct At {
        cursor: f64,
    }
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    let client = FakeClient::default();
    client.on("GET", "/items", FakeResponse::json(json!([{ "id": 1 }])));
    let next_page = RestEndpoint::get("/items").client(client.clone()).paginated("cursor").args::<At>();
    for cursor in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let refused = tasks.block_on(c.fetch(&next_page, At { cursor }, None));
        let Err(rdc_controller::FetchError::Endpoint(rdc_rest::RestError::Encode { endpoint, part, message })) =
            refused
        else {
            panic!("{cursor}: {refused:?}")
        };
        assert_eq!((endpoint.as_str(), part), ("GET /items", "args"));
        assert!(message.contains("cursor"), "names the field: {message}");
    }
    assert!(client.requests().is_empty());
}
