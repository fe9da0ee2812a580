//! Ticker: polled every 2 s while this page is shown.

use leptos::prelude::*;
use rdc::leptos::use_live;

use crate::api::{ticker, Product};

#[component]
pub fn TickerPage() -> impl IntoView {
    let live = use_live(ticker(), Product { product_id: "BTC-USD".into() });
    view! {
        <section>
            <h2>"Ticker"</h2>
            <p class="hint">"Polled every 2000 ms while this page is open; leaving it stops the polling."</p>
            <Suspense fallback=|| view! { <p class="loading">"Loading ticker…"</p> }>
                {move || Suspend::new(async move {
                    live.await.map(|t| view! {
                        <dl class="ticker">
                            <dt>"Product"</dt><dd>{t.product_id.clone()}</dd>
                            <dt>"Trade"</dt><dd class="trade">{t.trade_id}</dd>
                            <dt>"Price"</dt><dd>{format!("{:.2}", t.price)}</dd>
                            <dt>"Bid / ask"</dt><dd>{format!("{} / {}", t.bid, t.ask)}</dd>
                        </dl>
                    })
                })}
            </Suspense>
        </section>
    }
}
