//! Bytes: a body read as an `ArrayBuffer` (`content: arrayBuffer`), never kept.

use leptos::prelude::*;
use rdc::leptos::{use_controller, use_loading};

use crate::api::{bytes, ByteCount};

/// How many bytes the page asks for.
const COUNT: u32 = 64;

#[component]
pub fn Bytes() -> impl IntoView {
    let controller = use_controller();
    let endpoint = bytes();
    let got = RwSignal::new(None::<Vec<u8>>);
    let fetch = use_loading(move |n: u32| {
        let request = controller.fetch(&endpoint, ByteCount { n }, ());
        async move {
            got.set(Some(request.await.map_err(|e| e.to_string())?));
            Ok::<(), String>(())
        }
    });
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
    view! {
        <section>
            <h2>"Bytes"</h2>
            <p class="hint">"content: arrayBuffer, data expiry 0: the bytes as they came, never kept in the store."</p>
            <button id="fetch-bytes" on:click=move |_| fetch.run.run(COUNT) disabled=move || fetch.pending.get()>
                {format!("Fetch {COUNT} bytes")}
            </button>
            {move || got.get().map(|b| view! {
                <p class="bytes"><span class="count">{format!("{} bytes", b.len())}</span>": " <code class="hex">{hex(&b)}</code></p>
            })}
            {move || fetch.error.get().map(|e| view! { <p class="error">{e}</p> })}
        </section>
    }
}
