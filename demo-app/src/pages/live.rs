//! Live: prices kept current by a stream (a `LiveFeed` manager) over
//! Server-Sent Events (`/live`) or a WebSocket (`/live/ws`), with no
//! polling; the stream is open only while this page reads.

use leptos::prelude::*;
use rdc::leptos::use_suspense;

use crate::api::{live_price, LivePair, Transport};

/// The feeds the app adds to its controller: `/api/live/prices` as
/// Server-Sent Events while a `?live=sse` price is read, and the same
/// messages over the WebSocket `/api/live/prices/ws` while a `?live=ws` one is.
#[cfg(target_arch = "wasm32")]
pub fn price_feeds() -> [rdc::controller::LiveFeed; 2] {
    use rdc::controller::{LiveFeed, StreamSource};
    use rdc::core::Entity;
    fn feed(source: impl StreamSource + 'static, watched: &'static str) -> LiveFeed {
        let schema = rdc_spec_fixtures::ExchangePrice::schema().into();
        LiveFeed::new(source, schema, move |key| key.starts_with("GET /api/price/") && key.contains(watched))
    }
    [
        feed(rdc::rest::EventSourceStream::new("/api/live/prices"), "live=sse"),
        feed(rdc::rest::WebSocketStream::new("/api/live/prices/ws"), "live=ws"),
    ]
}

#[component]
fn LiveQuote(pair: &'static str, transport: Transport) -> impl IntoView {
    let quote = use_suspense(live_price(), LivePair { exchange_pair: pair.to_owned(), live: transport });
    view! {
        <div class="live-quote" data-pair=pair>
            <span class="pair">{pair}</span>
            <Suspense fallback=|| view! { <span class="loading">"…"</span> }>
                {move || Suspend::new(async move { quote.await.map(|p| view! { <span class="decimal">{p.price.to_string()}</span> }) })}
            </Suspense>
        </div>
    }
}

/// The page, its prices streamed over `transport`; links switch to the other.
#[component]
pub fn Live(transport: Transport) -> impl IntoView {
    let (name, how) = match transport {
        Transport::Sse => ("Server-Sent Events", "each Server-Sent Event"),
        Transport::Ws => ("WebSocket", "each WebSocket message"),
    };
    let tab = |href: &'static str, label: &'static str, of: Transport| {
        view! { <a href=href class="transport" class:active=transport == of data-transport=label>{label}</a> }
    };
    view! {
        <section>
            <h2>"Live prices"</h2>
            <p class="transports">
                {tab("/live", "Server-Sent Events", Transport::Sse)}
                {tab("/live/ws", "WebSocket", Transport::Ws)}
            </p>
            <p class="hint" data-transport=name>
                {format!("A LiveFeed writes {how} into the store: no polling; the stream closes when you leave.")}
            </p>
            <LiveQuote pair="BTC-USD" transport/>
            <LiveQuote pair="ETH-USD" transport/>
        </section>
    }
}
