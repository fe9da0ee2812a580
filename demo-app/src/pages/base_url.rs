//! Base URL: the stream endpoint's path is `/:username`; the `{base_url}`
//! prefix (`url_prefix`) puts the API's address in front of it.

use leptos::prelude::*;
use rdc::controller::TypedEndpoint;
use rdc::leptos::use_suspense;

use crate::api::{stream_at, Username};

/// The streams API's base URL: this page's origin, then `/api/streams`.
#[cfg(target_arch = "wasm32")]
fn base_url() -> String {
    format!("{}/api/streams", window().location().origin().unwrap_or_default())
}

/// Native builds (checks) have no page: the API's default address.
#[cfg(not(target_arch = "wasm32"))]
fn base_url() -> String {
    "http://127.0.0.1:3917/api/streams".to_owned()
}

#[component]
pub fn BaseUrl(username: String) -> impl IntoView {
    let base = base_url();
    let endpoint = stream_at(&base);
    let args = Username { username };
    let key = endpoint.key_for(&args).map_err(|e| e.to_string());
    let data = use_suspense(endpoint, args);
    view! {
        <section>
            <h2>"Base URL"</h2>
            <p class="hint">"Path " <code>"/:username"</code> " after the prefix " <code class="base-url">{base}</code></p>
            <p class="key">{match key { Ok(key) => key, Err(e) => e }}</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading stream…"</p> }>
                    {move || Suspend::new(async move {
                        data.await.map(|s| view! {
                            <dl class="stream">
                                <dt>"Username"</dt><dd class="username">{s.username.clone()}</dd>
                                <dt>"Title"</dt><dd class="title">{s.title.clone()}</dd>
                                <dt>"Viewers"</dt><dd>{s.current_viewers}</dd>
                            </dl>
                        })
                    })}
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}
