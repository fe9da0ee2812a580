//! Endpoints for tests: echo, any status with a JSON body, and Link-header paging.

use std::collections::BTreeMap;

use axum::body::Bytes;
use axum::extract::{OriginalUri, Path, Query, State};
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::state::AppState;

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

/// `GET /slow?ms=N[&tag=T]`: answers after N ms (default 2000, at most 30000).
/// With a tag, the server remembers how each such request ended (see
/// [`slow_seen`]): answered, or cancelled because the client went away (its
/// handler was dropped before the answer, as when the browser aborts a fetch).
pub async fn slow(State(state): State<AppState>, Query(query): Query<BTreeMap<String, String>>) -> Json<Value> {
    let ms = query.get("ms").and_then(|m| m.parse::<u64>().ok()).unwrap_or(2000).min(30_000);
    let mut watch = query.get("tag").map(|tag| SlowWatch::start(&state, tag));
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    if let Some(watch) = watch.as_mut() {
        watch.answered();
    }
    Json(json!({ "slept_ms": ms }))
}

/// Counts one tagged `/slow` request: started now; answered, or else cancelled
/// when dropped unanswered.
struct SlowWatch {
    state: AppState,
    tag: String,
    answered: bool,
}

impl SlowWatch {
    fn start(state: &AppState, tag: &str) -> SlowWatch {
        state.lock().slow_requests.entry(tag.to_owned()).or_default().started += 1;
        SlowWatch { state: state.clone(), tag: tag.to_owned(), answered: false }
    }

    fn answered(&mut self) {
        self.answered = true;
        self.state.lock().slow_requests.entry(self.tag.clone()).or_default().answered += 1;
    }
}

impl Drop for SlowWatch {
    fn drop(&mut self) {
        if !self.answered {
            self.state.lock().slow_requests.entry(self.tag.clone()).or_default().cancelled += 1;
        }
    }
}

/// `GET /slow/seen/{tag}`: how the `/slow` requests tagged `tag` went:
/// `{"started": n, "answered": n, "cancelled": n}` (zeros for an unknown tag).
pub async fn slow_seen(State(state): State<AppState>, Path(tag): Path<String>) -> Json<Value> {
    let seen = state.lock().slow_requests.get(&tag).copied().unwrap_or_default();
    Json(json!({ "tag": tag, "started": seen.started, "answered": seen.answered, "cancelled": seen.cancelled }))
}

/// `GET /malformed`: a JSON content type with a truncated body.
pub async fn malformed() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], r#"{"items": [1, 2, "#).into_response()
}

/// `GET /flaky`: data, or 503 while failing is switched on.
pub async fn flaky(State(state): State<AppState>) -> Response {
    let mut inner = state.lock();
    if inner.flaky_failing {
        return (StatusCode::SERVICE_UNAVAILABLE, Json(json!({ "error": "switched off", "status": 503 })))
            .into_response();
    }
    inner.flaky_served += 1;
    Json(json!({ "value": inner.flaky_served })).into_response()
}

/// `POST /flaky/fail {"fail": bool}`: switches `/flaky` failing on or off.
pub async fn set_flaky(State(state): State<AppState>, Json(body): Json<Value>) -> Json<Value> {
    let fail = body.get("fail").and_then(Value::as_bool).unwrap_or(false);
    state.lock().flaky_failing = fail;
    Json(json!({ "fail": fail }))
}

/// `GET /faults/truncated`: JSON cut off in the middle.
pub async fn truncated() -> Response {
    ([(header::CONTENT_TYPE, "application/json")], r#"[{"id": "1", "name": "Ada"}, {"id": "2", "na"#).into_response()
}

/// `GET /faults/html`: an HTML error page where JSON was expected (a proxy's, say).
pub async fn html() -> Response {
    ([(header::CONTENT_TYPE, "text/html")], "<html><body>Bad gateway</body></html>").into_response()
}

/// `GET /faults/empty/{code}`: a status with no body at all.
pub async fn empty(Path(code): Path<u16>) -> Response {
    StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_REQUEST).into_response()
}

/// `GET /faults/huge?n=N`: a JSON array of N users (default 50,000; about 2 MB).
pub async fn huge(Query(query): Query<BTreeMap<String, String>>) -> Response {
    let n = query.get("n").and_then(|n| n.parse::<usize>().ok()).unwrap_or(50_000).min(500_000);
    let users: Vec<Value> = (0..n).map(|i| json!({ "id": format!("h{i}"), "name": format!("User {i}") })).collect();
    Json(users).into_response()
}

/// `GET /faults/drop`: starts a 200 response, then breaks the connection mid-body.
pub async fn dropped() -> Response {
    let chunks: Vec<Result<&'static str, std::io::Error>> =
        vec![Ok(r#"[{"id": "1", "name": "#), Err(std::io::Error::other("connection dropped on purpose"))];
    let body = axum::body::Body::from_stream(futures_util::stream::iter(chunks));
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// `GET /faults/user?ms=N&name=X`: user `x` named X, answered after N ms (for
/// out-of-order answers).
pub async fn slow_user(Query(query): Query<BTreeMap<String, String>>) -> Json<Value> {
    let ms = query.get("ms").and_then(|m| m.parse::<u64>().ok()).unwrap_or(0).min(30_000);
    tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    let name = query.get("name").cloned().unwrap_or_default();
    Json(json!({ "id": "x", "name": name }))
}

/// `GET /nocors`: served without CORS headers, so cross-origin reads fail.
pub async fn no_cors() -> Json<Value> {
    Json(json!({ "secret": true }))
}

/// `GET /faults/sequence/{name}`: the first call for `name` answers after 600 ms,
/// later ones at once; each says which call it was (out-of-order answers, one key).
pub async fn sequence(State(state): State<AppState>, Path(name): Path<String>) -> Json<Value> {
    let call = {
        let mut inner = state.lock();
        let count = inner.sequence_calls.entry(name.clone()).or_insert(0);
        *count += 1;
        *count
    };
    if call == 1 {
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    }
    Json(json!({ "id": format!("seq-{name}"), "name": format!("call {call}") }))
}

/// Logs each API request (but not the log's own) as `METHOD /api/path?query`,
/// followed by ` via PROXY` when a proxy forwarded it (the server-rendered
/// demo forwards the browser's requests; its own fetches come direct).
pub async fn log_request(
    State(state): State<AppState>,
    OriginalUri(uri): OriginalUri,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    if !uri.path().ends_with("/requests") {
        let mut line = format!("{} {}", request.method(), uri.path_and_query().map_or(uri.path(), |p| p.as_str()));
        if let Some(via) = request.headers().get(header::VIA).and_then(|v| v.to_str().ok()) {
            line.push_str(" via ");
            line.push_str(via);
        }
        state.lock().request_log.push(line);
    }
    next.run(request).await
}

/// The API requests since the log was last cleared.
pub async fn request_log(State(state): State<AppState>) -> Json<Vec<String>> {
    Json(state.lock().request_log.clone())
}

/// Clears the request log.
pub async fn clear_request_log(State(state): State<AppState>) -> StatusCode {
    state.lock().request_log.clear();
    StatusCode::NO_CONTENT
}

/// The signed-in user, named by the `user` cookie (`401` without one), after
/// 300 ms: pages rendered for two users at once overlap.
pub async fn me(headers: HeaderMap) -> Response {
    let user = headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .find_map(|pair| pair.trim().strip_prefix("user=").map(str::to_owned));
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    match user {
        Some(name) => Json(json!({ "id": "me", "name": name })).into_response(),
        None => (StatusCode::UNAUTHORIZED, Json(json!({ "error": "not signed in" }))).into_response(),
    }
}
