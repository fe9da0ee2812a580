//! Prices: an exact decimal and a parsed instant.

use leptos::prelude::*;
use rdc::leptos::use_suspense;

use crate::api::{price, Pair};

#[component]
pub fn Prices() -> impl IntoView {
    let pair = RwSignal::new("BTC-USD".to_owned());
    let quote = use_suspense(price(), Signal::derive(move || Pair { exchange_pair: pair.get() }));
    view! {
        <section>
            <h2>"Prices"</h2>
            <select on:change=move |ev| pair.set(event_target_value(&ev))>
                <option>"BTC-USD"</option>
                <option>"ETH-USD"</option>
            </select>
            <Suspense fallback=|| view! { <p class="loading">"Loading price…"</p> }>
                {move || Suspend::new(async move {
                    quote.await.map(|p| view! {
                        <dl class="price">
                            <dt>"Pair"</dt><dd>{p.exchange_pair.clone()}</dd>
                            <dt>"Price (exact decimal)"</dt><dd class="decimal">{p.price.to_string()}</dd>
                            <dt>"Updated"</dt><dd class="instant">{p.updated_at.format("%Y-%m-%d %H:%M:%S%.3f UTC").to_string()}</dd>
                        </dl>
                    })
                })}
            </Suspense>
        </section>
    }
}
