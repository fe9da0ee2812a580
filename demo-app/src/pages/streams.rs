//! Streams: the username comes from the URL and becomes the entity's pk (recipe 3).

use leptos::prelude::*;
use rdc::leptos::use_suspense;

use crate::api::{stream, Username};

#[component]
pub fn Streams(username: String) -> impl IntoView {
    let data = use_suspense(stream(), Username { username });
    view! {
        <section>
            <h2>"Streams"</h2>
            <p class="hint">"Try " <a href="/streams/shroud">"/streams/shroud"</a></p>
            <Suspense fallback=|| view! { <p class="loading">"Loading stream…"</p> }>
                {move || Suspend::new(async move {
                    data.await.map(|s| view! {
                        <dl class="stream">
                            <dt>"Username"</dt><dd class="username">{s.username.clone()}</dd>
                            <dt>"Title"</dt><dd>{s.title.clone()}</dd>
                            <dt>"Game"</dt><dd>{s.game.clone()}</dd>
                            <dt>"Viewers"</dt><dd>{s.current_viewers}</dd>
                            <dt>"Live"</dt><dd>{if s.live { "yes" } else { "no" }}</dd>
                        </dl>
                    })
                })}
            </Suspense>
        </section>
    }
}
