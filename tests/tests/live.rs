//! A live feed in headless Chromium against the API server's Server-Sent
//! Events and its WebSocket: prices reach a mounted reader with no polling,
//! the server dropping the stream every three messages is recovered from
//! (resuming after the last message), and duplicates, overtaken messages and
//! bad frames never move a price back.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use std::sync::Arc;

use rdc::controller::{LiveFeed, StreamEvent, StreamSource};
use rdc::core::Entity;
use rdc::leptos::{new_controller, use_suspense, DataProvider};
use rdc::rest::{EventSourceStream, WebSocketStream};
use rdc_e2e::{api_url, mount_point, sleep};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[component]
fn BtcPrice() -> impl IntoView {
    let price = use_suspense(price(), Pair { exchange_pair: "BTC-USD".into() });
    view! {
        <Suspense fallback=|| "loading">
            {move || Suspend::new(async move { price.await.map(|p| p.price.to_string()) })}
        </Suspense>
    }
}

/// A source passing on what `inner` reports, counting the events that still
/// came after their connection was closed (a socket left listening), and
/// noting whether the current connection is open.
struct Recording<S> {
    inner: S,
    late: Arc<SyncCell<u32>>,
    open: Arc<SyncCell<bool>>,
}

impl<S: StreamSource> StreamSource for Recording<S> {
    fn open(&self, after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> {
        let closed = Arc::new(SyncCell::new(false));
        let (seen_closed, late, open) = (closed.clone(), self.late.clone(), self.open.clone());
        let close = self.inner.open(
            after,
            Arc::new(move |event| {
                match (seen_closed.get(), &event) {
                    (true, _) => late.set(late.get() + 1),
                    (false, StreamEvent::Opened) => open.set(true),
                    (false, StreamEvent::Failed(_)) => open.set(false),
                    _ => {}
                }
                events(event);
            }),
        );
        let open = self.open.clone();
        Box::new(move || {
            closed.set(true);
            open.set(false);
            close();
        })
    }
}

/// The id of the message that set `pair`'s price in the store (the server
/// sends price `base + id`), if the feed set it.
fn id_of(controller: &rdc::controller::Controller, pair: &str, base: u64) -> Option<u64> {
    let price = controller.entity::<ExchangePrice>(pair).ok().flatten()?.price;
    price.trunc().to_string().parse::<u64>().ok()?.checked_sub(base).filter(|id| *id < 250)
}

/// Mounts a BTC-USD reader with a feed from `stream`, samples what it shows
/// until message 15 or later came, checks the prices only rose and every
/// message up to the last was applied exactly once (a resume after the right
/// id), unmounts and checks no event arrives once closed. Returns the prices
/// seen and the stats.
async fn stream_prices(stream: impl StreamSource + 'static) -> (Vec<f64>, rdc::controller::LiveStats) {
    let (late, open) = (Arc::new(SyncCell::new(0)), Arc::new(SyncCell::new(false)));
    let stream = Recording { inner: stream, late: late.clone(), open: open.clone() };
    let feed =
        LiveFeed::new(stream, ExchangePrice::schema().into(), |key| key.contains("/api/price/")).backoff(50, 400);
    let controller = new_controller();
    controller.add_manager(feed.clone());
    assert!(!feed.stats().connected, "nothing opens before a reader");
    let root = mount_point();
    let c = controller.clone();
    let handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <DataProvider controller=c.clone()><BtcPrice/></DataProvider> },
    );

    // Sample what the page shows until the stream has brought message 15 or later.
    let mut seen: Vec<f64> = Vec::new();
    for _ in 0..500 {
        let shown = root.text_content().unwrap_or_default().parse::<f64>().ok();
        if let Some(price) = shown.filter(|p| *p < 43_250.0 && seen.last() != Some(p)) {
            seen.push(price);
        }
        if seen.last().is_some_and(|p| *p >= 43_015.0) {
            break;
        }
        sleep(10).await;
    }
    assert!(seen.last().is_some_and(|p| *p >= 43_015.0), "the stream brought prices up to {seen:?}");
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "a price went back: {seen:?}");
    // In one tick: the last message in the store (BTC-USD on odd ids,
    // ETH-USD on even ones) and how many were applied. A resume from one id
    // too early applies a message twice, one too late skips one.
    let stats = feed.stats();
    let last = id_of(&controller, "BTC-USD", 43_000).max(id_of(&controller, "ETH-USD", 2_300));
    assert_eq!(Some(stats.applied), last, "each message up to the last applied once: {stats:?}");

    // Unmount while a connection is open (the server has more to send on
    // it, and a close): a source left listening would pass those on.
    for _ in 0..1000 {
        if open.get() {
            break;
        }
        sleep(5).await;
    }
    assert!(open.get(), "the stream reopened");
    drop(handle);
    assert!(!feed.stats().connected, "the stream closed with its last reader");
    // Several messages' time, and the server's close.
    sleep(400).await;
    assert_eq!(late.get(), 0, "no event once closed");
    (seen, stats)
}

#[wasm_bindgen_test]
async fn prices_stream_in_through_drops_duplicates_and_overtaken_messages() {
    let stream = EventSourceStream::new(&api_url("/live/prices?drop_after=3&faulty=1&interval_ms=40"));
    let (_, stats) = stream_prices(stream).await;
    assert!(stats.opened >= 5, "the stream ends every 3 messages and was reopened each time: {stats:?}");
    assert!(stats.dropped >= stats.applied, "every message came twice: {stats:?}");
    assert_eq!(stats.rejected, 0, "{stats:?}");
}

#[wasm_bindgen_test]
async fn prices_stream_in_over_a_websocket_in_order_resuming_after_the_server_closes_it() {
    // The server closes the socket every 3 messages; a feed that did not
    // resume after the last id would start again at message 1 and never reach 15.
    let url = api_url("/live/prices/ws?drop_after=3&faulty=1&junk=1&interval_ms=40");
    let (_, stats) = stream_prices(WebSocketStream::new(&url)).await;
    assert!(stats.opened >= 5, "the socket closes every 3 messages and was reopened each time: {stats:?}");
    assert!(stats.dropped >= stats.applied, "every message came twice: {stats:?}");
    assert!(stats.rejected >= 3, "bad frames (no JSON, no id, binary) are rejected: {stats:?}");
}

#[wasm_bindgen_test]
async fn a_websocket_needing_a_subscription_gets_it_on_every_reconnect_with_where_to_resume() {
    // With `subscribe=1` the server sends nothing before a subscription
    // message, and resumes after the id it names (not the query's).
    let url = api_url("/live/prices/ws?subscribe=1&drop_after=3&interval_ms=40");
    let socket = WebSocketStream::new(&url).on_open(|after| {
        vec![format!(r#"{{"subscribe": "prices", "after": {}}}"#, after.map_or("null".into(), |id| id.to_string()))]
    });
    let (_, stats) = stream_prices(socket).await;
    assert!(stats.opened >= 5, "subscribed again on each of the reopened sockets: {stats:?}");
}
