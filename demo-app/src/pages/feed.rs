//! Feed: the polymorphic `All` of links and posts, by attribute and by function.

use leptos::prelude::*;
use rdc::leptos::{use_query, use_suspense};

use crate::api::{feed_by_attribute, feed_schema_by_function, feed_with_unknown, FeedItem, FeedView};

fn item_view(item: &FeedItem) -> AnyView {
    match item {
        FeedItem::Link(l) => view! { <li class="link"><a href=l.url.clone()>{l.title.clone()}</a></li> }.into_any(),
        FeedItem::Post(p) => view! { <li class="post">{p.content.clone()}</li> }.into_any(),
        FeedItem::Unknown(v) => view! { <li class="unknown">"unknown item: " {v.to_string()}</li> }.into_any(),
    }
}

#[component]
pub fn Feed() -> impl IntoView {
    let by_attribute = use_suspense(feed_by_attribute(), ());
    // Another key (a search param the server ignores): one schema per key.
    let raw = use_suspense(feed_with_unknown(), FeedView { view: "raw".into() });
    let by_function = use_query("feed by function", feed_schema_by_function());
    view! {
        <section>
            <h2>"Feed"</h2>
            <Suspense fallback=|| view! { <p class="loading">"Loading feed…"</p> }>
                <h3>"All by attribute " <code>"type"</code></h3>
                <ul class="feed by-attribute">
                    {move || Suspend::new(async move { by_attribute.await.map(|items| items.iter().map(item_view).collect_view()) })}
                </ul>
                <h3>"The response, unknown items passed through"</h3>
                <ul class="feed raw">
                    {move || Suspend::new(async move { raw.await.map(|items| items.iter().map(item_view).collect_view()) })}
                </ul>
            </Suspense>
            <h3>"All by function (type + \"s\")"</h3>
            <ul class="feed by-function">
                {move || by_function.get().map(|items| items.iter().map(item_view).collect_view())}
            </ul>
        </section>
    }
}
