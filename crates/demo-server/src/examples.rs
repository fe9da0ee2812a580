//! Endpoints for the demo pages of the spec's other examples: notes under the
//! API's own key names (the key-rename recipe), raw bytes (`arrayBuffer`
//! content) and an answer with rate-limit headers (a `fetchResponse` override).

use axum::extract::{Path, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use crate::state::{AppState, Note};

/// How many `/limited` answers the demo allows (the count never resets).
const RATE_LIMIT: u64 = 1000;
/// The most bytes `/bytes/{n}` sends.
const MAX_BYTES: usize = 4096;

/// `GET /notes`: every note, as the API names its fields (`body`, not `text`).
pub async fn list_notes(State(state): State<AppState>) -> Json<Vec<Note>> {
    Json(state.lock().notes.clone())
}

/// `POST /notes {"body": "..."}`: keeps a note (201); a body without a
/// non-empty `body` string (an app that sent its own key name) is refused (422).
pub async fn create_note(State(state): State<AppState>, Json(sent): Json<Value>) -> Response {
    let Some(body) = sent.get("body").and_then(Value::as_str).filter(|b| !b.trim().is_empty()) else {
        let error = json!({ "error": "a note needs a non-empty \"body\"", "field": "body", "sent": sent });
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(error)).into_response();
    };
    let mut inner = state.lock();
    let note = Note { id: inner.notes.last().map_or(1, |n| n.id + 1), body: body.to_owned() };
    inner.notes.push(note.clone());
    (StatusCode::CREATED, Json(note)).into_response()
}

/// Byte `i` of every `/bytes/{n}` answer.
pub fn byte_at(i: usize) -> u8 {
    u8::try_from((i * 37 + 11) % 256).unwrap_or(0)
}

/// `GET /bytes/{n}`: `n` bytes (at most 4096), byte `i` being `(37 i + 11) mod 256`,
/// as `application/octet-stream`.
pub async fn bytes(Path(n): Path<usize>) -> Response {
    let body: Vec<u8> = (0..n.min(MAX_BYTES)).map(byte_at).collect();
    ([(header::CONTENT_TYPE, "application/octet-stream")], body).into_response()
}

/// `GET /limited`: which answer this is, with `X-RateLimit-Limit` and
/// `X-RateLimit-Remaining` headers (what is left after this answer).
pub async fn limited(State(state): State<AppState>) -> Response {
    let answered = {
        let mut inner = state.lock();
        inner.limited_served += 1;
        inner.limited_served
    };
    let mut response = Json(json!({ "id": "limited", "answered": answered })).into_response();
    let headers = response.headers_mut();
    headers.insert("x-ratelimit-limit", HeaderValue::from(RATE_LIMIT));
    headers.insert("x-ratelimit-remaining", HeaderValue::from(RATE_LIMIT.saturating_sub(answered)));
    response
}

/// A 1x1 PNG (one opaque pixel).
const DOT_PNG: [u8; 70] = [
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4, 0x89, 0x00, 0x00, 0x00, 0x0d, 0x49,
    0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x64, 0xf8, 0xcf, 0x50, 0x0f, 0x00, 0x03, 0x86, 0x01, 0x80, 0x5a, 0x34, 0x7d,
    0x6b, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
];

/// `GET /images/{name}`: `dot.png`, a 1x1 PNG (`image/png`); any other name 404s.
pub async fn image(Path(name): Path<String>) -> Response {
    if name != "dot.png" {
        let error = json!({ "error": format!("no image {name}"), "status": 404 });
        return (StatusCode::NOT_FOUND, Json(error)).into_response();
    }
    ([(header::CONTENT_TYPE, "image/png")], DOT_PNG.to_vec()).into_response()
}
