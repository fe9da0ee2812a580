//! Entities and endpoints of the spec, against the running API server.
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use rdc::core::{entry, All, Entity, Schema, Union};
use rdc::rest::{recipes, RestEndpoint};
use rust_decimal::Decimal;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "User")]
pub struct User {
    pub id: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Link {
    #[serde(default)]
    pub id: u64,
    pub url: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Post {
    #[serde(default)]
    pub id: u64,
    pub content: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum FeedItem {
    Link(Link),
    Post(Post),
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(key = "ExchangePrice", pk = "exchange_pair")]
pub struct ExchangePrice {
    pub exchange_pair: String,
    pub updated_at: DateTime<Utc>,
    #[serde(with = "rdc::core::fields::decimal")]
    pub price: Decimal,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "Stream", pk = "username")]
pub struct Stream {
    pub username: String,
    pub title: String,
    pub game: String,
    pub current_viewers: u64,
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
#[entity(key = "Ticker", pk = "product_id")]
pub struct Ticker {
    pub product_id: String,
    pub trade_id: u64,
    #[serde(with = "rdc::core::fields::number_from_string")]
    pub price: f64,
    pub time: DateTime<Utc>,
}

pub fn api(method: &str, path: &str) -> RestEndpoint {
    RestEndpoint::new(method, path).url_prefix(&format!("{}/api", rdc_e2e::API_URL))
}

pub fn list_users() -> RestEndpoint {
    api("GET", "/users").schema(All::of::<User>().into())
}

pub fn create_user() -> RestEndpoint {
    api("POST", "/users").schema(User::schema())
}

pub fn get_user() -> RestEndpoint {
    api("GET", "/users/:id").schema(User::schema())
}

pub fn feed() -> RestEndpoint {
    api("GET", "/feed")
        .schema(Schema::array(Union::by_attribute("type", [entry::<Link>("link"), entry::<Post>("post")])))
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
        .poll_frequency(std::time::Duration::from_millis(2000))
}
