//! Invalidation by endpoint, by typed args and by entity type.

mod cells;
use cells::SyncCell;
use std::sync::Arc;

use rdc_controller::{from_fn, Controller, ExpiryStatus, FakeTime, FnEndpoint, LocalTasks, TypedEndpoint};
use rdc_core::{json, Entity, SchemaOf};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
struct Author {
    id: String,
    name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
struct Article {
    id: String,
    title: String,
    #[entity(nested)]
    author: Author,
}

#[derive(Debug, Clone, Serialize, Deserialize, Entity)]
struct Tag {
    id: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Page {
    author: String,
    page: u32,
}

fn controller() -> (Controller, LocalTasks) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time, tasks.clone()), tasks)
}

async fn articles(args: Page) -> Result<Vec<Article>, String> {
    let author = Author { id: args.author.clone(), name: format!("{} the writer", args.author) };
    Ok(vec![Article { id: format!("{}-{}", args.author, args.page), title: "On sums".into(), author }])
}

async fn tags(_: ()) -> Result<Vec<Tag>, String> {
    Ok(vec![Tag { id: "rust".into() }])
}

async fn authors(_: ()) -> Result<Vec<Author>, String> {
    Ok(vec![])
}

fn endpoints() -> (FnEndpoint<Page, Vec<Article>, String>, FnEndpoint<(), Vec<Tag>, String>) {
    (from_fn("articles", articles).schema(SchemaOf::of()), from_fn("tags", tags).schema(SchemaOf::of()))
}

fn page(author: &str, page: u32) -> Page {
    Page { author: author.into(), page }
}

fn status<C: TypedEndpoint>(c: &Controller, endpoint: &C, args: &C::Args) -> ExpiryStatus
where
    C::Result: serde::de::DeserializeOwned + Send + Sync,
{
    c.read::<_, C::Result>(endpoint, args).map(|read| read.status).unwrap_or_else(|e| panic!("{e}"))
}

/// A tracked listener reading `endpoint` at `args`: how often it ran.
fn reader<C: TypedEndpoint>(c: &Controller, endpoint: &C, args: C::Args) -> Arc<SyncCell<u32>>
where
    C::Result: serde::de::DeserializeOwned + Send + Sync,
    C::Args: Sync,
{
    let runs = Arc::new(SyncCell::new(0));
    let (seen, c2, endpoint) = (Arc::clone(&runs), c.clone(), endpoint.clone());
    c.listen_reads(move || {
        seen.set(seen.get() + 1);
        let _ = c2.read::<_, C::Result>(&endpoint, &args);
    });
    runs
}

#[test]
fn invalidate_endpoint_invalidates_every_read_of_that_endpoint_only_and_wakes_its_readers() {
    use ExpiryStatus::{Invalid, Valid};
    let (c, tasks) = controller();
    let (articles, tags) = endpoints();
    for args in [page("ada", 1), page("ada", 2), page("bob", 1)] {
        tasks.block_on(c.fetch(&articles, args, ())).unwrap();
    }
    tasks.block_on(c.fetch(&tags, (), ())).unwrap();
    let (ada_runs, tag_runs) = (reader(&c, &articles, page("ada", 2)), reader(&c, &tags, ()));
    // Another endpoint of the same type with another name: not these reads.
    let other = from_fn("other_articles", self::articles).schema(SchemaOf::of());
    c.invalidate_endpoint(&other);
    assert_eq!(status(&c, &articles, &page("ada", 1)), Valid);
    c.invalidate_endpoint(&articles);
    assert_eq!([page("ada", 1), page("ada", 2), page("bob", 1)].map(|args| status(&c, &articles, &args)), [Invalid; 3]);
    assert_eq!(status(&c, &tags, &()), Valid, "another endpoint's read stays");
    assert_eq!((ada_runs.get(), tag_runs.get()), (2, 1), "the endpoint's reader woke, the other did not");
}

#[test]
fn invalidate_where_matches_the_typed_args() {
    use ExpiryStatus::{Invalid, Valid};
    let (c, tasks) = controller();
    let (articles, _) = endpoints();
    for args in [page("ada", 1), page("ada", 2), page("bob", 1)] {
        tasks.block_on(c.fetch(&articles, args, ())).unwrap();
    }
    c.invalidate_where(&articles, |args: &Page| args.author == "ada");
    assert_eq!(
        [page("ada", 1), page("ada", 2), page("bob", 1)].map(|args| status(&c, &articles, &args)),
        [Invalid, Invalid, Valid]
    );
    c.invalidate_where(&articles, |args: &Page| args.page == 1);
    assert_eq!(status(&c, &articles, &page("bob", 1)), Invalid);
}

#[test]
fn a_result_set_by_hand_or_taken_from_a_server_page_and_read_counts_as_its_endpoints() {
    let (c, _) = controller();
    let (articles, tags) = endpoints();
    let server = controller().0;
    let ada = json!([{ "id": "a", "title": "t", "author": { "id": "ada", "name": "Ada" } }]);
    server.set_response(&articles, &page("ada", 1), ada).unwrap();
    c.hydrate(server.dehydrate());
    c.set_response(&tags, &(), json!([{ "id": "rust" }])).unwrap();
    // Read once (as a hydrating reader does), it is known as the endpoint's.
    assert_eq!(status(&c, &articles, &page("ada", 1)), ExpiryStatus::Valid);
    c.invalidate_endpoint(&articles);
    c.invalidate_endpoint(&tags);
    assert_eq!(status(&c, &articles, &page("ada", 1)), ExpiryStatus::Invalid);
    assert_eq!(status(&c, &tags, &()), ExpiryStatus::Invalid);
}

#[test]
fn invalidate_entities_invalidates_every_result_that_can_hold_the_type_even_nested_or_empty() {
    use ExpiryStatus::{Invalid, Valid};
    let (c, tasks) = controller();
    let (articles, tags) = endpoints();
    let authors = from_fn("authors", authors).schema(SchemaOf::of());
    tasks.block_on(c.fetch(&articles, page("ada", 1), ())).unwrap();
    tasks.block_on(c.fetch(&tags, (), ())).unwrap();
    tasks.block_on(c.fetch(&authors, (), ())).unwrap();
    let (article_runs, tag_runs) = (reader(&c, &articles, page("ada", 1)), reader(&c, &tags, ()));
    c.invalidate_entities::<Author>();
    assert_eq!(status(&c, &articles, &page("ada", 1)), Invalid, "authors nested in articles");
    assert_eq!(status(&c, &authors, &()), Invalid, "an empty list of authors");
    assert_eq!(status(&c, &tags, &()), Valid, "tags hold no author");
    assert_eq!((article_runs.get(), tag_runs.get()), (2, 1));
    assert!(c.entity::<Author>("ada").unwrap().is_some(), "the rows stay to show meanwhile");
}

#[test]
fn invalidate_entities_invalidates_a_taken_up_result_whose_schema_no_reader_named_yet() {
    let (c, _) = controller();
    let server = controller().0;
    let (_, tags) = endpoints();
    server.set_response(&tags, &(), json!([{ "id": "rust" }])).unwrap();
    c.hydrate(server.dehydrate());
    let key = c.key_of(&tags, &()).unwrap();
    c.invalidate_entities::<Author>();
    assert!(c.with_state(|s| s.result(&key).is_some_and(|r| r.meta.invalidated)), "it may hold authors");
}
