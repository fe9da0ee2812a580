//! `/live/prices`: a Server-Sent Events stream of exchange prices, resumable
//! by `lastEventId`, with faults on demand (an early end, duplicates and
//! overtaken messages).

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::time::Duration;

use axum::extract::Query;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::{self, Stream, StreamExt};
use serde_json::json;

/// Message `id`: BTC-USD on odd ids, ETH-USD on even ones, the price rising with the id.
fn price_event(id: u64) -> Event {
    let (pair, base) = if id % 2 == 1 { ("BTC-USD", 43_000) } else { ("ETH-USD", 2_300) };
    let data = json!({
        "exchangePair": pair,
        "price": format!("{}.{:02}", id.saturating_add(base), id % 100),
        "updatedAt": "2026-11-25T12:34:56.789Z",
    });
    Event::default().id(id.to_string()).data(data.to_string())
}

/// `GET /live/prices`: a message every `interval_ms` (default 400), after
/// `lastEventId` (the query's, else the `Last-Event-ID` header's). With
/// `drop_after=N` the stream ends after N messages; with `faulty=1` each
/// message comes twice and every third is followed by one two ids older.
pub async fn prices(
    Query(query): Query<BTreeMap<String, String>>,
    headers: HeaderMap,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let header = headers.get("last-event-id").and_then(|v| v.to_str().ok());
    let after = query.get("lastEventId").map(String::as_str).or(header).and_then(|v| v.parse().ok()).unwrap_or(0u64);
    let number = |name: &str| query.get(name).and_then(|v| v.parse::<u64>().ok());
    let drop_after = number("drop_after");
    let interval = Duration::from_millis(number("interval_ms").unwrap_or(400).max(20));
    let faulty = query.get("faulty").is_some_and(|v| v == "1");
    let messages = stream::unfold((after, 0u64), move |(last, sent)| async move {
        if drop_after.is_some_and(|most| sent >= most) {
            return None;
        }
        tokio::time::sleep(interval).await;
        let id = last.saturating_add(1);
        let mut events = vec![price_event(id)];
        if faulty {
            events.push(price_event(id));
            if id % 3 == 0 && id > 2 {
                events.push(price_event(id - 2));
            }
        }
        Some((stream::iter(events.into_iter().map(Ok)), (id, sent + 1)))
    });
    Sse::new(messages.flatten()).keep_alive(KeepAlive::default())
}
