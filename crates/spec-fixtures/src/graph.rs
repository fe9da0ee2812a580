//! Small graphs for the store's and controller's tests: nesting (an article,
//! its author and comments), cycles (people and their friends), and helpers
//! that write them.

use rdc_core::json::Value;
use rdc_core::{Entity, State, WriteMeta};
use serde::Deserialize;

use crate::User;

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

/// A comment with an optional author.
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

/// Write metadata at `now`, fresh for a minute.
pub fn meta(now: u64) -> WriteMeta {
    WriteMeta::at(now, 60_000)
}

/// No args.
pub const NO_ARGS: &Value = &Value::Null;

/// Writes `value` as the result of `key` at time `now`; panics on error.
pub fn write(state: &mut State, key: &str, schema: &rdc_core::Schema, value: Value, now: u64) {
    state.write_result(key, schema, value, NO_ARGS, meta(now)).expect("normalize");
}

/// [`User`]'s schema.
pub fn user_schema() -> rdc_core::Schema {
    User::schema().into()
}
