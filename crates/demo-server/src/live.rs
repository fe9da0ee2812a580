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
/// (default 400, 20..=10 000); with `drop_after=N` the stream ends after N; with
/// `faulty=1` each comes twice and every third is followed by one two ids older.
fn message_ids(after: u64, query: &BTreeMap<String, String>) -> impl Stream<Item = u64> + use<> {
    let number = |name: &str| query.get(name).and_then(|v| v.parse::<u64>().ok());
    let drop_after = number("drop_after");
    let interval = interval(query);
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

/// The wait between messages: the query's `interval_ms` (default 400), kept
/// within 20 ms..=10 s so a stream neither floods nor waits forever.
fn interval(query: &BTreeMap<String, String>) -> Duration {
    let ms = query.get("interval_ms").and_then(|v| v.parse::<u64>().ok()).unwrap_or(400);
    Duration::from_millis(ms.clamp(20, 10_000))
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
/// every third message: text that is no JSON, a frame without an id, a binary
/// one. With `subscribe=1`, nothing is sent before the client sends
/// `{"subscribe": "prices", "after": N}` (as APIs that need a subscription
/// on each connection do), and the messages resume after its `after` (`null`: from the start).
pub async fn prices_ws(Query(query): Query<BTreeMap<String, String>>, upgrade: WebSocketUpgrade) -> Response {
    upgrade.on_upgrade(move |socket| serve_prices(socket, query))
}

async fn serve_prices(mut socket: WebSocket, query: BTreeMap<String, String>) {
    let after = match query.get("subscribe").is_some_and(|v| v == "1") {
        true => match subscription(&mut socket).await {
            Some(after) => after,
            None => return, // The client went away first.
        },
        false => resume_after(&query, None),
    };
    let junk = query.get("junk").is_some_and(|v| v == "1");
    send_prices(socket, message_ids(after, &query), junk).await;
}

/// Waits for the client's `{"subscribe": "prices", "after": N}`: where to resume.
async fn subscription(socket: &mut WebSocket) -> Option<u64> {
    loop {
        match socket.recv().await? {
            Ok(Message::Text(text)) => {
                let asked: Value = serde_json::from_str(text.as_str()).unwrap_or_default();
                if asked["subscribe"] == "prices" {
                    return Some(asked["after"].as_u64().unwrap_or(0));
                }
            }
            Ok(Message::Close(_)) | Err(_) => return None,
            Ok(_) => {}
        }
    }
}

/// Sends the frames of `ids` while reading the socket: a close from the
/// client (or its going away) ends the task at once, and a ping every 15 s
/// keeps an idle socket from being dropped by proxies.
async fn send_prices(mut socket: WebSocket, ids: impl Stream<Item = u64>, junk: bool) {
    let mut ids = std::pin::pin!(ids);
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + PING_EVERY, PING_EVERY);
    loop {
        let frames = tokio::select! {
            id = ids.next() => match id {
                Some(id) => frames(id, junk),
                None => break,
            },
            received = socket.recv() => match received {
                // Pongs and anything the client sends are ignored.
                Some(Ok(Message::Close(_)) | Err(_)) | None => return,
                Some(Ok(_)) => continue,
            },
            _ = ping.tick() => vec![Message::Ping(Default::default())],
        };
        for frame in frames {
            if socket.send(frame).await.is_err() {
                return; // The client went away.
            }
        }
    }
    let _ = socket.send(Message::Close(Some(axum::extract::ws::CloseFrame { code: 1000, reason: "".into() }))).await;
}

const PING_EVERY: Duration = Duration::from_secs(15);

/// Message `id`'s frames: with `junk`, every third comes after three a client must reject.
fn frames(id: u64, junk: bool) -> Vec<Message> {
    let mut frames = Vec::new();
    if junk && id.is_multiple_of(3) {
        frames.push(Message::Text("not json".into()));
        frames.push(Message::Text(json!({ "data": price(id) }).to_string().into()));
        frames.push(Message::Binary(vec![1, 2, 3].into()));
    }
    frames.push(Message::Text(json!({ "id": id, "data": price(id) }).to_string().into()));
    frames
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;

    /// The live routes on a free port; returns the socket's `ws://` URL.
    async fn serve() -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("ws://{}/ws", listener.local_addr().unwrap());
        let app = axum::Router::new().route("/ws", axum::routing::get(super::prices_ws));
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        url
    }

    #[tokio::test]
    async fn a_socket_closed_by_the_client_ends_even_while_waiting_for_a_message() {
        // An interval far too long to wait: the server must still see the close.
        let url = serve().await;
        let (mut socket, _) = tokio_tungstenite::connect_async(format!("{url}?interval_ms=99999999999")).await.unwrap();
        socket.send(Message::Close(None)).await.unwrap();
        let ended =
            tokio::time::timeout(Duration::from_secs(10), async { while let Some(Ok(_)) = socket.next().await {} });
        assert!(ended.await.is_ok(), "the server answered the close and ended the socket");
    }

    #[test]
    fn the_interval_between_messages_stays_within_bounds() {
        let interval = |value: &str| super::interval(&[("interval_ms".to_owned(), value.to_owned())].into());
        assert_eq!(interval("0"), Duration::from_millis(20));
        assert_eq!(interval("40"), Duration::from_millis(40));
        assert_eq!(interval("99999999999"), Duration::from_secs(10), "a huge interval would never end");
        assert_eq!(super::interval(&Default::default()), Duration::from_millis(400));
    }
}
