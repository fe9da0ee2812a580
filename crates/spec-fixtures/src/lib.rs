//! The entities of the specification (section 2.2), shared by rdc-core's tests, the
//! whole-stack browser tests and the demo, so all use the same shapes.

pub mod graph;

use chrono::{DateTime, Utc};
use rdc_core::json::Value;
use rdc_core::Entity;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(key = "User")]
pub struct User {
    pub id: String,
    pub name: String,
}

/// Feed item (link): `id` defaults to 0 as in the spec's abstract base.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
pub struct Link {
    #[serde(default)]
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub url: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
pub struct Post {
    #[serde(default)]
    pub id: u64,
    #[serde(rename = "type")]
    pub kind: String,
    pub content: String,
}

/// A polymorphic feed item: the variant named after the entity's type key, and the
/// untouched original for a type the mapping does not know.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum FeedItem {
    Link(Link),
    Post(Post),
    #[serde(untagged)]
    Unknown(Value),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[serde(rename_all = "camelCase")]
#[entity(key = "ExchangePrice", pk = "exchange_pair")]
pub struct ExchangePrice {
    pub exchange_pair: String,
    pub updated_at: DateTime<Utc>,
    #[serde(with = "rdc_core::fields::decimal")]
    pub price: Decimal,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(key = "Stream", pk = "username")]
pub struct Stream {
    pub username: String,
    pub title: String,
    pub game: String,
    pub current_viewers: u64,
    pub live: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Entity)]
#[entity(key = "Ticker", pk = "product_id")]
pub struct Ticker {
    pub product_id: String,
    pub trade_id: u64,
    #[serde(with = "rdc_core::fields::number_from_string")]
    pub price: f64,
    pub size: String,
    pub time: DateTime<Utc>,
    pub bid: String,
    pub ask: String,
    pub volume: String,
}
