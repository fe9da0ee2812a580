//! The demo's entities and endpoints: every example of the spec, against the
//! demo API behind Trunk's `/api` proxy. Each endpoint's args, body and result
//! are types; `rest!` checks the path params against the args at compile time.

use std::time::Duration;

use rdc::core::{entry, All, Collection, Entity, Schema, SchemaOf, Union};
use rdc::rest::{recipes, Body, Content, FileDownload, Multipart, Resource, RestEndpoint, Retry};
use rdc::{resource, rest};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;

/// A user. The app speaks camelCase; the wire is snake_case (recipe 1).
/// Serialize: the SSR demo's server function answers one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(key = "User")]
pub struct User {
    pub id: String,
    pub name: String,
}

/// What creating a user sends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewUser {
    pub name: String,
}

/// One user's path params.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UserId {
    pub id: String,
}

// The specification's entities, as the tests use them (the demo's `User` above
// differs: it is camelCase, for the key-case recipe).
pub use rdc_spec_fixtures::{ExchangePrice, FeedItem, Link, Post, Stream, Ticker};

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Item {
    pub id: u64,
    pub name: String,
}

/// A page of `/items` with its `Link` header (recipe 4). Its schema,
/// `{"results": [Item]}`, comes from the struct (`ItemPage::schema()`).
#[derive(Debug, Clone, PartialEq, Deserialize, rdc::Schema)]
pub struct ItemPage {
    pub link: Option<String>,
    #[entity(nested)]
    pub results: Vec<Item>,
}

/// Users: `All(User)` list, create with key-case conversion.
pub fn users() -> Resource<User, UserId, (), NewUser> {
    resource!("/api/users/:id" -> User, args = UserId, body = NewUser, list = "UserList").map(recipes::key_case)
}

/// Every user, kept across reloads (`rdc::leptos::persist` in `main.rs`).
pub fn all_users() -> RestEndpoint<(), (), Vec<User>> {
    rest!(GET "/api/users", schema = All::of::<User>()).map(recipes::key_case).persist(true)
}

/// The feed's query: a search param the server ignores (another key).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FeedView {
    pub view: String,
}

/// Feed items are links or posts, chosen by their `type`: read into the
/// `FeedItem` enum, which the compiler cannot match to the union (`unchecked`).
pub fn feed_by_attribute() -> RestEndpoint<(), (), Vec<FeedItem>> {
    let all = All::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    rest!(GET "/api/feed", schema = SchemaOf::unchecked(all))
}

pub fn feed_with_unknown() -> RestEndpoint<FeedView, (), Vec<FeedItem>> {
    let union = Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]);
    rest!(GET "/api/feed", args = FeedView, schema = SchemaOf::unchecked(Schema::array(union)))
}

/// The spec's function example: the mapping keys are the type plus `s`.
pub fn feed_schema_by_function() -> SchemaOf<Vec<FeedItem>> {
    SchemaOf::unchecked(All::by_function([entry::<Link>("links"), entry::<Post>("posts")], |value, _parent, _key| {
        value.get("type").and_then(|t| t.as_str()).map(|t| format!("{t}s"))
    }))
}

/// A price's path param.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pair {
    pub exchange_pair: String,
}

pub fn price() -> RestEndpoint<Pair, (), ExchangePrice> {
    rest!(GET "/api/price/:exchangePair" -> ExchangePrice, args = Pair)
}

/// A price read live: the same entity, under a key of its own (`?live=sse`
/// or `?live=ws`) that the live feed of that transport watches.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LivePair {
    pub exchange_pair: String,
    pub live: Transport,
}

/// How live prices reach the store: Server-Sent Events or a WebSocket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    Sse,
    Ws,
}

pub fn live_price() -> RestEndpoint<LivePair, (), ExchangePrice> {
    rest!(GET "/api/price/:exchangePair" -> ExchangePrice, args = LivePair)
}

/// A stream's path param.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Username {
    pub username: String,
}

pub fn stream() -> RestEndpoint<Username, (), Stream> {
    recipes::pk_from_param(&rest!(GET "/api/streams/:username" -> Stream, args = Username), "username", "username")
}

/// A product's path param.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Product {
    pub product_id: String,
}

pub fn ticker() -> RestEndpoint<Product, (), Ticker> {
    let ticker = rest!(GET "/api/products/:productId/ticker" -> Ticker, args = Product);
    recipes::pk_from_param(&ticker, "productId", "product_id").poll_frequency(Duration::from_millis(2000))
}

/// A file's path param.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileId {
    pub id: String,
}

pub fn download() -> RestEndpoint<FileId, (), FileDownload> {
    recipes::file_download(&rest!(GET "/api/files/:id/download", args = FileId))
}

/// Which page of `/items`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cursor {
    pub cursor: u64,
}

pub fn items() -> RestEndpoint<Cursor, (), ItemPage> {
    recipes::link_pagination(&rest!(GET "/api/items" -> ItemPage, args = Cursor))
}

/// `/items` as one list that grows a page at a time: its items in the
/// `ItemList` collection, with the `Link` header of the last page fetched.
#[derive(Debug, Clone, PartialEq, Deserialize, rdc::Schema)]
pub struct ItemList {
    pub link: Option<String>,
    #[entity(nested, schema = "item_collection()")]
    pub results: Vec<Item>,
}

/// The `ItemList` collection: the growing list's items.
pub fn item_collection() -> SchemaOf<Vec<Item>> {
    Collection::of("ItemList", Item::schema())
}

/// The first page of the growing list (no cursor).
pub fn item_list() -> RestEndpoint<(), (), ItemList> {
    recipes::link_pagination(&rest!(GET "/api/items" -> ItemList))
}

/// A further page of it: its items join the list.
pub fn next_items() -> RestEndpoint<Cursor, (), ItemList> {
    item_list().paginated("cursor").args::<Cursor>()
}

/// A file kept by the demo server.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Upload {
    pub id: u64,
    pub title: String,
    pub filename: String,
    pub content_type: String,
    pub size: u64,
}

/// The `UploadList` collection: every upload, oldest first.
pub fn upload_collection() -> SchemaOf<Vec<Upload>> {
    Collection::of("UploadList", Upload::schema())
}

/// The uploads the server keeps.
pub fn uploads() -> RestEndpoint<(), (), Vec<Upload>> {
    rest!(GET "/api/uploads", schema = upload_collection())
}

/// Sends a form with a `file` (and a `title`); the upload the server answers
/// joins the end of the list.
pub fn upload() -> RestEndpoint<(), Multipart, Upload> {
    rest!(POST "/api/uploads", body = Multipart, schema = Collection::push(&upload_collection()))
}

/// Data that fails on demand (`/api/flaky`): soft errors keep it showing. No
/// schema: the JSON as sent. Not retried, so the page shows each error at once
/// (other reads retry three times in the browser).
pub fn flaky() -> RestEndpoint<(), (), Json> {
    rest!(GET "/api/flaky", returns = Json).data_expiry(Duration::from_secs(3)).retry(Retry::NEVER)
}

/// Whether `/api/flaky` fails.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failing {
    pub fail: bool,
}

pub fn set_flaky() -> RestEndpoint<(), Failing, Json> {
    rest!(POST "/api/flaky/fail", body = Failing, returns = Json)
}

/// An HTTP status the server answers with.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Status {
    pub code: u16,
}

pub fn status() -> RestEndpoint<Status, (), Json> {
    rest!(GET "/api/status/:code", args = Status, returns = Json).retry(Retry::NEVER)
}

/// A probe: `/api/<path>`, never kept, never retried (its error shows at once).
pub fn probe(path: &'static str) -> RestEndpoint<(), (), Json> {
    let probe = RestEndpoint::get(path).url_prefix("/api").args::<()>().body::<()>().returns::<Json>();
    probe.data_expiry(Duration::ZERO).retry(Retry::NEVER)
}

/// A note. The app says `text`; the API says `body` (recipe 2, key rename).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
pub struct Note {
    pub id: u64,
    pub text: String,
}

/// What creating a note sends (`text`, sent as the API's `body`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NewNote {
    pub text: String,
}

/// The app's key names and the API's.
const NOTE_KEYS: &[(&str, &str)] = &[("text", "body")];

/// The `NoteList` collection: every note, oldest first.
pub fn note_collection() -> SchemaOf<Vec<Note>> {
    Collection::of("NoteList", Note::schema())
}

/// The notes, their `body` read back as `text`.
pub fn notes() -> RestEndpoint<(), (), Vec<Note>> {
    recipes::rename_keys(&rest!(GET "/api/notes", schema = note_collection()), NOTE_KEYS)
}

/// Creates a note: `text` goes out as `body`; the answer joins the list.
pub fn create_note() -> RestEndpoint<(), NewNote, Note> {
    let create = rest!(POST "/api/notes", body = NewNote, schema = Collection::push(&note_collection()));
    recipes::rename_keys(&create, NOTE_KEYS)
}

/// How many bytes to fetch.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ByteCount {
    pub n: u32,
}

/// Raw bytes (`content: arrayBuffer`), never kept (data expiry 0, as the spec
/// advises for binary bodies).
pub fn bytes() -> RestEndpoint<ByteCount, (), Vec<u8>> {
    let raw = rest!(GET "/api/bytes/:n", args = ByteCount).content(Content::ArrayBuffer).data_expiry(Duration::ZERO);
    raw.result_with(|body| match body {
        Body::Bytes(bytes) => Ok(bytes),
        other => Err(format!("expected bytes, got {}", other.kind())),
    })
}

/// The feed's links only, then posts merged in by `All::define` (the spec's
/// way to complete a definition after it was made, as circular schemas need).
pub fn feed_defined() -> RestEndpoint<FeedView, (), Vec<FeedItem>> {
    let mut all = All::by_attribute("type", [entry::<Link>("link")]);
    all.define([entry::<Post>("post")]);
    rest!(GET "/api/feed", args = FeedView, schema = SchemaOf::unchecked(all))
}

/// The same `All` before `define`: links only.
pub fn feed_links_only() -> RestEndpoint<FeedView, (), Vec<FeedItem>> {
    let all = All::by_attribute("type", [entry::<Link>("link")]);
    rest!(GET "/api/feed", args = FeedView, schema = SchemaOf::unchecked(all))
}

/// What `/api/limited` answers: which answer it was.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Limited {
    pub answered: u64,
}

/// The rate limit the raw response's headers gave.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    pub limit: u64,
    pub remaining: u64,
}

/// `/api/limited` with a `fetchResponse` override: it sees the raw response
/// and hands its `X-RateLimit-*` headers to `seen` before the body is parsed.
pub fn limited(seen: impl Fn(RateLimit) + Send + Sync + 'static) -> RestEndpoint<(), (), Limited> {
    let seen = std::sync::Arc::new(seen);
    let endpoint = rest!(GET "/api/limited", returns = Limited).data_expiry(Duration::ZERO);
    endpoint.with_fetch_response(move |request, sup| {
        let seen = std::sync::Arc::clone(&seen);
        Box::pin(async move {
            let response = sup.call(request).await?;
            let header = |name| response.header(name).and_then(|v| v.trim().parse().ok());
            if let (Some(limit), Some(remaining)) = (header("x-ratelimit-limit"), header("x-ratelimit-remaining")) {
                seen(RateLimit { limit, remaining });
            }
            Ok(response)
        })
    })
}

/// A stream read from `{base_url}/:username` (the spec's `urlPrefix`): the
/// path is only `/:username`, and `base_url` comes before it.
pub fn stream_at(base_url: &str) -> RestEndpoint<Username, (), Stream> {
    let stream = rest!(GET "/:username" -> Stream, args = Username).url_prefix(base_url);
    recipes::pk_from_param(&stream, "username", "username")
}
