//! Headers: a `fetchResponse` override sees the raw response, and shows its
//! rate-limit headers beside the data the body held.

use leptos::prelude::*;
use rdc::leptos::{use_controller, use_loading};

use crate::api::{limited, Limited, RateLimit};

#[component]
pub fn Headers() -> impl IntoView {
    let controller = use_controller();
    let rate = RwSignal::new(None::<RateLimit>);
    let endpoint = limited(move |seen| rate.set(Some(seen)));
    let got = RwSignal::new(None::<Limited>);
    let fetch = use_loading(move |()| {
        let request = controller.fetch(&endpoint, (), ());
        async move {
            got.set(Some(request.await.map_err(|e| e.to_string())?));
            Ok::<(), String>(())
        }
    });
    view! {
        <section>
            <h2>"Headers"</h2>
            <p class="hint">"The fetchResponse override reads X-RateLimit-Limit and X-RateLimit-Remaining off the raw response."</p>
            <button id="fetch-limited" on:click=move |_| fetch.run.run(()) disabled=move || fetch.pending.get()>"Fetch"</button>
            <dl class="limited">
                <dt>"Answer (body)"</dt><dd class="answered">{move || got.get().map(|l| l.answered)}</dd>
                <dt>"Remaining (header)"</dt><dd class="remaining">{move || rate.get().map(|r| r.remaining)}</dd>
                <dt>"Limit (header)"</dt><dd class="limit">{move || rate.get().map(|r| r.limit)}</dd>
            </dl>
            {move || fetch.error.get().map(|e| view! { <p class="error">{e}</p> })}
        </section>
    }
}
