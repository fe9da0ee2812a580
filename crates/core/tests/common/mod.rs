//! Test fixtures: every entity of spec 2.2, plus small graphs for nesting and cycles.
#![allow(dead_code)]

use rdc_core::json::Value;
use rdc_core::{Entity, State, WriteMeta};
use serde::Deserialize;

// Each test file uses some of them.
#[allow(unused_imports)]
pub use rdc_spec_fixtures::{ExchangePrice, FeedItem, Link, Post, Stream, Ticker, User};

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
    User::schema().into()
}
