//! The todo the hook tests read: an entity, its args, its endpoint and its JSON.
// Each test file uses part of it.
#![allow(dead_code)]

use rdc::prelude::*;

#[derive(Debug, Clone, PartialEq, serde::Deserialize, Entity)]
pub struct Todo {
    pub id: u32,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct TodoId {
    pub id: u32,
}

/// `GET /todos/:id`, fresh for 10 s.
pub fn todo() -> RestEndpoint<TodoId, (), Todo> {
    rdc::rest!(GET "/todos/:id" -> Todo, args = TodoId).data_expiry(std::time::Duration::from_secs(10))
}

pub fn id(id: u32) -> TodoId {
    TodoId { id }
}

pub fn titled(id: u32, title: &str) -> rdc::json::Value {
    rdc::json!({ "id": id, "title": title })
}
