//! Test fixtures: every entity of spec 2.2, plus small graphs for nesting and cycles.
#![allow(dead_code)]

use chrono::{DateTime, Utc};
use rdc_core::{Entity, State, WriteMeta};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::Value;

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

/// An article with a required author and a list of comments.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Article {
    pub id: u64,
    pub title: String,
    #[entity(nested)]
    pub author: User,
    #[entity(nested)]
    #[serde(default)]
    pub comments: Vec<Comment>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Comment {
    pub id: u64,
    pub text: String,
    #[entity(nested)]
    pub author: Option<User>,
}

/// A self-referencing entity: friends form cycles.
#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
pub struct Person {
    pub id: u32,
    pub name: String,
    #[entity(nested)]
    #[serde(default)]
    pub friends: Vec<Person>,
    #[entity(nested)]
    #[serde(default)]
    pub best_friend: Option<Box<Person>>,
}

pub fn meta(now: u64) -> WriteMeta {
    WriteMeta::at(now, 60_000)
}

pub const NO_ARGS: &Value = &Value::Null;

/// Writes `value` as the result of `key` at time `now`; panics on error.
pub fn write(state: &mut State, key: &str, schema: &rdc_core::Schema, value: Value, now: u64) {
    state.write_result(key, schema, value, NO_ARGS, meta(now)).expect("normalize");
}

pub fn user_schema() -> rdc_core::Schema {
    User::schema()
}
