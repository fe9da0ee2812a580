//! Live: prices kept current by a Server-Sent Events stream (a `LiveFeed`
//! manager), with no polling; the stream is open only while this page reads.

use leptos::prelude::*;
use rdc::leptos::use_suspense;

use crate::api::{live_price, LivePair};

/// The feed the app adds to its controller: `/api/live/prices` into the
/// store while a `?live=true` price is read.
#[cfg(target_arch = "wasm32")]
pub fn price_feed() -> rdc::controller::LiveFeed {
    use rdc::core::Entity;
    let stream = rdc::rest::EventSourceStream::new("/api/live/prices");
    let schema = rdc_spec_fixtures::ExchangePrice::schema().into();
    rdc::controller::LiveFeed::new(stream, schema, |key| {
        key.starts_with("GET /api/price/") && key.contains("live=true")
    })
}

#[component]
fn LiveQuote(pair: &'static str) -> impl IntoView {
    let quote = use_suspense(live_price(), LivePair { exchange_pair: pair.to_owned(), live: true });
    view! {
        <div class="live-quote" data-pair=pair>
            <span class="pair">{pair}</span>
            <Suspense fallback=|| view! { <span class="loading">"…"</span> }>
                {move || Suspend::new(async move { quote.await.map(|p| view! { <span class="decimal">{p.price.to_string()}</span> }) })}
            </Suspense>
        </div>
    }
}

#[component]
pub fn Live() -> impl IntoView {
    view! {
        <section>
            <h2>"Live prices"</h2>
            <p class="hint">"A LiveFeed writes each Server-Sent Event into the store: no polling; the stream closes when you leave."</p>
            <LiveQuote pair="BTC-USD"/>
            <LiveQuote pair="ETH-USD"/>
        </section>
    }
}
