//! `/live/prices`: a Server-Sent Events stream of exchange prices, resumable
//! by `lastEventId`, with faults on demand (an early end, duplicates and
//! overtaken messages); `/live/prices/ws`: the same messages over a WebSocket.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::Query;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::Response;
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::{json, Value};

/// Message `id`: BTC-USD on odd ids, ETH-USD on even ones, the price rising with the id.
fn price(id: u64) -> Value {
    let (pair, base) = if id % 2 == 1 { ("BTC-USD", 43_000) } else { ("ETH-USD", 2_300) };
    json!({
        "exchangePair": pair,
        "price": format!("{}.{:02}", id.saturating_add(base), id % 100),
        "updatedAt": "2026-11-25T12:34:56.789Z",
    })
}

/// The ids of the messages to send, after `after`: one every `interval_ms`
/// (default 400); with `drop_after=N` the stream ends after N; with
/// `faulty=1` each comes twice and every third is followed by one two ids older.
fn message_ids(after: u64, query: &BTreeMap<String, String>) -> impl Stream<Item = u64> + use<> {
    let number = |name: &str| query.get(name).and_then(|v| v.parse::<u64>().ok());
    let drop_after = number("drop_after");
    let interval = Duration::from_millis(number("interval_ms").unwrap_or(400).max(20));
    let faulty = query.get("faulty").is_some_and(|v| v == "1");
    let ids = stream::unfold((after, 0u64), move |(last, sent)| async move {
        if drop_after.is_some_and(|most| sent >= most) {
            return None;
        }
        tokio::time::sleep(interval).await;
        let id = last.saturating_add(1);
        let mut ids = vec![id];
        if faulty {
            ids.push(id);
            if id % 3 == 0 && id > 2 {
                ids.push(id - 2);
            }
        }
        Some((stream::iter(ids), (id, sent + 1)))
    });
    ids.flatten()
}

/// Where a stream resumes: after the query's `lastEventId` (else `header`'s), or from the start.
fn resume_after(query: &BTreeMap<String, String>, header: Option<&str>) -> u64 {
    query.get("lastEventId").map(String::as_str).or(header).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// `GET /live/prices`: the messages of [`message_ids`] as events, after
/// `lastEventId` (the query's, else the `Last-Event-ID` header's).
pub async fn prices(
    Query(query): Query<BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let header = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    let events = message_ids(resume_after(&query, header), &query)
        .map(|id| Ok(Event::default().id(id.to_string()).data(price(id).to_string())));
    Sse::new(events).keep_alive(KeepAlive::default())
}

/// `GET /live/prices/ws`: the same messages over a WebSocket, each a text
/// frame `{"id": N, "data": <price>}`, after the query's `lastEventId`, with
/// the same options. The server closes the socket (code 1000) where the
/// event stream ends. With `junk=1`, frames a client must reject come before
/// every third message: text that is no JSON, a frame without an id, a binary one.
pub async fn prices_ws(Query(query): Query<BTreeMap<String, String>>, upgrade: WebSocketUpgrade) -> Response {
    let ids = message_ids(resume_after(&query, None), &query);
    let junk = query.get("junk").is_some_and(|v| v == "1");
    upgrade.on_upgrade(move |socket| send_prices(socket, ids, junk))
}

async fn send_prices(mut socket: WebSocket, ids: impl Stream<Item = u64>, junk: bool) {
    let mut ids = std::pin::pin!(ids);
    while let Some(id) = ids.next().await {
        let mut frames = Vec::new();
        if junk && id % 3 == 0 {
            frames.push(Message::Text("not json".into()));
            frames.push(Message::Text(json!({ "data": price(id) }).to_string().into()));
            frames.push(Message::Binary(vec![1, 2, 3].into()));
        }
        frames.push(Message::Text(json!({ "id": id, "data": price(id) }).to_string().into()));
        for frame in frames {
            if socket.send(frame).await.is_err() {
                return; // The client went away.
            }
        }
    }
    let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame { code: 1000, reason: "".into() }))).await;
}
