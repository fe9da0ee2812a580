//! The spec's endpoints (section 4) under `/api`.

use axum::extract::{Path, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Form, Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use tower_http::cors::{Any, CorsLayer};

use crate::state::{AppState, User};
use crate::{examples, live, tools, uploads};

/// Builds the whole API: spec endpoints, test tools and CORS.
pub fn router(state: AppState) -> Router {
    let cors = CorsLayer::new()
        .allow_origin(Any)
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
        .allow_headers(Any)
        .expose_headers([
            header::LINK,
            header::CONTENT_DISPOSITION,
            HeaderName::from_static("x-request-count"),
            HeaderName::from_static("x-ratelimit-limit"),
            HeaderName::from_static("x-ratelimit-remaining"),
        ]);
    let state_for_log = state.clone();
    let api = Router::new()
        .route("/health", get(|| async { "ok" }))
        .route("/requests", get(tools::request_log).delete(tools::clear_request_log))
        .route("/me", get(tools::me))
        .route("/users", get(list_users).post(create_user))
        .route("/users/{id}", get(get_user).patch(patch_user).delete(delete_user))
        .route("/sfn/user", post(server_fn_user))
        .route("/feed", get(feed))
        .route("/price/{exchange_pair}", get(price))
        .route("/streams/{username}", get(stream))
        .route("/products/{product_id}/ticker", get(ticker))
        .route("/products/{product_id}/ticker/count", get(ticker_count))
        .route("/files/{id}/download", get(download))
        .route("/notes", get(examples::list_notes).post(examples::create_note))
        .route("/bytes/{n}", get(examples::bytes))
        .route("/images/{name}", get(examples::image))
        .route("/limited", get(examples::limited))
        .route("/live/prices", get(live::prices))
        .route("/live/prices/ws", get(live::prices_ws))
        .route("/uploads", get(uploads::list).post(uploads::create).layer(uploads::size_limit()))
        .route("/uploads/{id}/content", get(uploads::content))
        .route("/echo", any(tools::echo))
        .route("/echo/{*rest}", any(tools::echo))
        .route("/status/{code}", any(tools::status))
        .route("/items", get(tools::paged_items))
        .route("/slow", get(tools::slow))
        .route("/slow/seen/{tag}", get(tools::slow_seen))
        .route("/malformed", get(tools::malformed))
        .route("/flaky", get(tools::flaky))
        .route("/flaky/fail", post(tools::set_flaky))
        .route("/faults/truncated", get(tools::truncated))
        .route("/faults/html", get(tools::html))
        .route("/faults/empty/{code}", get(tools::empty))
        .route("/faults/huge", get(tools::huge))
        .route("/faults/drop", get(tools::dropped))
        .route("/faults/user", get(tools::slow_user))
        .route("/faults/sequence/{name}", get(tools::sequence))
        .with_state(state);
    let api = api.layer(axum::middleware::from_fn_with_state(state_for_log, tools::log_request));
    // Routes merged after the CORS layer have no CORS headers (to test that failure).
    Router::new().nest("/api", api).layer(cors).merge(Router::new().route("/nocors", get(tools::no_cors)))
}

async fn list_users(State(state): State<AppState>) -> Json<Vec<User>> {
    Json(state.lock().users.clone())
}

async fn get_user(State(state): State<AppState>, Path(id): Path<String>) -> Response {
    match state.lock().users.iter().find(|u| u.id == id) {
        Some(user) => Json(user.clone()).into_response(),
        None => {
            (StatusCode::NOT_FOUND, Json(json!({ "error": format!("no user {id}"), "status": 404 }))).into_response()
        }
    }
}

/// The args of the `get_user` Leptos server function.
#[derive(Debug, Deserialize)]
struct ServerFnUserArgs {
    id: String,
}

/// `POST /sfn/user`: the server side of a Leptos `#[server]` function (its
/// default encoding: the args url-encoded, the result as JSON; an error as
/// its text with status 500), for the browser test of `from_fn`.
async fn server_fn_user(State(state): State<AppState>, Form(args): Form<ServerFnUserArgs>) -> Response {
    match state.lock().users.iter().find(|u| u.id == args.id) {
        Some(user) => Json(user.clone()).into_response(),
        None => (StatusCode::INTERNAL_SERVER_ERROR, format!("ServerError|no user {}", args.id)).into_response(),
    }
}

async fn patch_user(State(state): State<AppState>, Path(id): Path<String>, Json(patch): Json<Value>) -> Response {
    let mut inner = state.lock();
    let Some(user) = inner.users.iter_mut().find(|u| u.id == id) else {
        return (StatusCode::NOT_FOUND, Json(json!({ "error": format!("no user {id}"), "status": 404 })))
            .into_response();
    };
    if let Some(name) = patch.get("name").and_then(Value::as_str) {
        user.name = name.to_owned();
    }
    Json(user.clone()).into_response()
}

async fn delete_user(State(state): State<AppState>, Path(id): Path<String>) -> StatusCode {
    state.lock().users.retain(|u| u.id != id);
    StatusCode::NO_CONTENT
}

/// Body of `POST /users`: the id is optional (the server assigns one).
#[derive(Debug, Deserialize)]
struct NewUser {
    id: Option<String>,
    name: String,
}

async fn create_user(
    State(state): State<AppState>,
    body: Result<Json<NewUser>, axum::extract::rejection::JsonRejection>,
) -> Response {
    let Json(new_user) = match body {
        Ok(body) => body,
        Err(rejection) => {
            let error = json!({ "error": rejection.body_text() });
            return (StatusCode::UNPROCESSABLE_ENTITY, Json(error)).into_response();
        }
    };
    if new_user.name.trim().is_empty() {
        let error = json!({ "error": "name must not be empty", "field": "name" });
        return (StatusCode::UNPROCESSABLE_ENTITY, Json(error)).into_response();
    }
    let mut inner = state.lock();
    let id = new_user.id.unwrap_or_else(|| format!("u{}", inner.next_user));
    inner.next_user += 1;
    let user = User { id, name: new_user.name };
    inner.users.retain(|u| u.id != user.id);
    inner.users.push(user.clone());
    (StatusCode::CREATED, Json(user)).into_response()
}

async fn feed() -> Json<Value> {
    Json(json!([
        { "id": 1, "type": "link", "url": "https://www.rust-lang.org", "title": "Rust" },
        { "id": 2, "type": "post", "content": "Normalized caches keep every entity once." },
        { "id": 3, "type": "link", "url": "https://leptos.dev", "title": "Leptos" },
        { "id": 4, "type": "video", "src": "https://example.com/v.mp4" },
        { "id": 5, "type": "post", "content": "Signals re-render only what changed." }
    ]))
}

async fn price(Path(exchange_pair): Path<String>) -> Json<Value> {
    Json(json!({
        "exchangePair": exchange_pair,
        "price": "43250.123456789012345678",
        "updatedAt": "2026-11-25T12:34:56.789Z"
    }))
}

async fn stream(Path(username): Path<String>) -> Json<Value> {
    Json(json!({
        "title": format!("{username} plays live"),
        "game": "Factorio",
        "current_viewers": 1234,
        "live": true
    }))
}

/// How many ticker times are kept per product.
const TICKER_TIMES: usize = 20;

/// Now by the server's clock, in milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
}

async fn ticker(State(state): State<AppState>, Path(product_id): Path<String>) -> Response {
    let count = {
        let mut inner = state.lock();
        let times = inner.ticker_times.entry(product_id.clone()).or_default();
        times.push(now_ms());
        if times.len() > TICKER_TIMES {
            times.remove(0);
        }
        let count = inner.ticker_requests.entry(product_id).or_insert(0);
        *count += 1;
        *count
    };
    let body = json!({
        "trade_id": 1000 + count,
        "price": format!("{}.25", 37000 + count),
        "size": "0.01",
        "time": "2026-11-25T12:00:00Z",
        "bid": "36999.50",
        "ask": "37000.50",
        "volume": "1234.5678"
    });
    let mut response = Json(body).into_response();
    response.headers_mut().insert("x-request-count", HeaderValue::from(count));
    response
}

/// How many ticker requests came for a product, and when the latest came
/// (`times_ms`: the last 20, oldest first, in ms since the Unix epoch by the
/// server's clock; the gaps between polls, free of the client's delays).
async fn ticker_count(State(state): State<AppState>, Path(product_id): Path<String>) -> Json<Value> {
    let inner = state.lock();
    let count = inner.ticker_requests.get(&product_id).copied().unwrap_or(0);
    let times = inner.ticker_times.get(&product_id).cloned().unwrap_or_default();
    Json(json!({ "product_id": product_id, "count": count, "times_ms": times }))
}

async fn download(Path(id): Path<String>) -> Response {
    let body = format!("rdc demo file {id}\n").into_bytes();
    let disposition = format!("attachment; filename=\"report-{id}.txt\"; filename*=UTF-8''report-{id}-%E2%9C%93.txt");
    let disposition = HeaderValue::from_str(&disposition).unwrap_or(HeaderValue::from_static("attachment"));
    ([(header::CONTENT_TYPE, HeaderValue::from_static("text/plain")), (header::CONTENT_DISPOSITION, disposition)], body)
        .into_response()
}
