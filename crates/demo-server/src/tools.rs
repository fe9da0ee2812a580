//! Endpoints for tests: echo, any status with a JSON body, and Link-header paging.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

/// Returns what the server received: method, path, query, headers and body.
pub async fn echo(method: Method, OriginalUri(uri): OriginalUri, headers: HeaderMap, body: Bytes) -> Json<Value> {
    let headers: BTreeMap<String, String> = headers
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let text = String::from_utf8_lossy(&body).into_owned();
    let json_body = serde_json::from_str::<Value>(&text).ok();
    Json(json!({
        "method": method.as_str(),
        "path": uri.path(),
        "query": uri.query(),
        "headers": headers,
        "body": text,
        "json": json_body,
    }))
}

/// Answers with the given status and a JSON error body (204 and 304 with none).
pub async fn status(Path(code): Path<u16>) -> Response {
    let Ok(status) = StatusCode::from_u16(code) else {
        return (StatusCode::BAD_REQUEST, Json(json!({ "error": "not a status code" }))).into_response();
    };
    if status == StatusCode::NO_CONTENT || status == StatusCode::NOT_MODIFIED {
        return status.into_response();
    }
    let reason = status.canonical_reason().unwrap_or("unknown");
    (status, Json(json!({ "error": reason, "status": code }))).into_response()
}

/// `GET /items?cursor=N`: pages of 5 items out of 23, with a `Link` header
/// (`rel="next"` / `rel="prev"`) for cursor pagination.
pub async fn paged_items(Query(query): Query<BTreeMap<String, String>>) -> Response {
    const TOTAL: u32 = 23;
    const PAGE: u32 = 5;
    let cursor = query.get("cursor").and_then(|c| c.parse::<u32>().ok()).unwrap_or(0).min(TOTAL);
    let end = (cursor + PAGE).min(TOTAL);
    let items: Vec<Value> = (cursor..end).map(|i| json!({ "id": i + 1, "name": format!("Item {}", i + 1) })).collect();
    let mut links = Vec::new();
    if end < TOTAL {
        links.push(format!("</api/items?cursor={end}>; rel=\"next\""));
    }
    if cursor > 0 {
        links.push(format!("</api/items?cursor={}>; rel=\"prev\"", cursor.saturating_sub(PAGE)));
    }
    let mut response = Json(items).into_response();
    if let Ok(value) = links.join(", ").parse() {
        if !links.is_empty() {
            response.headers_mut().insert(header::LINK, value);
        }
    }
    response
}
