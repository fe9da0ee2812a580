//! Define: `All::define` merges more entries into an `All`'s mapping after it
//! was made (how the spec completes schemas that refer to each other).

use leptos::prelude::*;
use rdc::leptos::use_suspense;

use crate::api::{feed_defined, feed_links_only, FeedItem, FeedView};

fn item_view(item: &FeedItem) -> AnyView {
    match item {
        FeedItem::Link(l) => view! { <li class="link">{l.title.clone()}</li> }.into_any(),
        FeedItem::Post(p) => view! { <li class="post">{p.content.clone()}</li> }.into_any(),
        FeedItem::Unknown(v) => view! { <li class="unknown">{v.to_string()}</li> }.into_any(),
    }
}

#[component]
pub fn Define() -> impl IntoView {
    // Two keys of `/api/feed` (a search param the server ignores): one schema each.
    let links = use_suspense(feed_links_only(), FeedView { view: "links".into() });
    let defined = use_suspense(feed_defined(), FeedView { view: "defined".into() });
    view! {
        <section>
            <h2>"Define"</h2>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading feed…"</p> }>
                    <h3><code>"All::by_attribute(\"type\", [link])"</code></h3>
                    <ul class="feed links-only">
                        {move || Suspend::new(async move { links.await.map(|items| items.iter().map(item_view).collect_view()) })}
                    </ul>
                    <h3>"The same, then " <code>".define([post])"</code></h3>
                    <ul class="feed defined">
                        {move || Suspend::new(async move { defined.await.map(|items| items.iter().map(item_view).collect_view()) })}
                    </ul>
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}
