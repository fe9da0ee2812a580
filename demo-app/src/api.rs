//! The demo's entities and endpoints: every example of the spec, against the
//! demo API behind Trunk's `/api` proxy.

use std::time::Duration;

use rdc::core::{entry, All, Entity, Schema, Union};
use rdc::json::Value;
use rdc::rest::{recipes, resource, Resource, RestEndpoint};
use serde::Deserialize;

/// A user. The app speaks camelCase; the wire is snake_case (recipe 1).
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(key = "User")]
pub struct User {
    pub id: String,
    pub name: String,
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
#[derive(Debug, Clone, PartialEq, Deserialize, Schema)]
pub struct ItemPage {
    pub link: Option<String>,
    #[entity(nested)]
    pub results: Vec<Item>,
}

fn api(method: &str, path: &str) -> RestEndpoint {
    RestEndpoint::new(method, path).url_prefix("/api")
}

/// Users: `All(User)` list, create with key-case conversion.
pub fn users() -> Resource {
    resource::<User>("/users/:id", "UserList").map(|e| recipes::key_case(&e.url_prefix("/api")))
}

pub fn all_users() -> RestEndpoint {
    recipes::key_case(&api("GET", "/users")).schema(All::of::<User>().into())
}

pub fn feed_by_attribute() -> RestEndpoint {
    api("GET", "/feed").schema(All::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")]).into())
}

pub fn feed_with_unknown() -> RestEndpoint {
    api("GET", "/feed")
        .schema(Schema::array(Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")])))
}

/// The spec's function example: the mapping keys are the type plus `s`.
pub fn feed_schema_by_function() -> Schema {
    All::by_function([entry::<Link>("links"), entry::<Post>("posts")], |value, _parent, _key| {
        value.get("type").and_then(Value::as_str).map(|t| format!("{t}s"))
    })
    .into()
}

pub fn price() -> RestEndpoint {
    api("GET", "/price/:exchangePair").schema(ExchangePrice::schema())
}

pub fn stream() -> RestEndpoint {
    recipes::pk_from_param(&api("GET", "/streams/:username"), "username", "username").schema(Stream::schema())
}

pub fn ticker() -> RestEndpoint {
    recipes::pk_from_param(&api("GET", "/products/:productId/ticker"), "productId", "product_id")
        .schema(Ticker::schema())
        .poll_frequency(Duration::from_millis(2000))
}

pub fn download() -> RestEndpoint {
    recipes::file_download(&api("GET", "/files/:id/download"))
}

pub fn items() -> RestEndpoint {
    recipes::link_pagination(&api("GET", "/items")).schema(ItemPage::schema())
}

/// Data that fails on demand (`/api/flaky`): soft errors keep it showing.
pub fn flaky() -> RestEndpoint {
    api("GET", "/flaky").data_expiry(Duration::from_secs(3))
}
