//! A list paginated by the `Link` header (recipe 4).

use leptos::prelude::*;
use rdc::leptos::use_suspense;
use rdc::rest::transform::parse_link_header;

use crate::api::{items, Cursor};

/// The next page a `Link` header names, if any.
pub fn next_cursor(link: Option<&str>) -> Option<Cursor> {
    let links = parse_link_header(link?);
    let next = links.iter().find(|l| l.rel == "next")?;
    cursor_of(&next.url).map(|cursor| Cursor { cursor })
}

/// The `cursor` query parameter of a link URL.
fn cursor_of(url: &str) -> Option<u64> {
    url.split_once('?')?.1.split('&').find_map(|kv| kv.strip_prefix("cursor=")?.parse().ok())
}

#[component]
pub fn Items() -> impl IntoView {
    let cursor = RwSignal::new(0u64);
    let page = use_suspense(items(), Signal::derive(move || Cursor { cursor: cursor.get() }));
    view! {
        <section>
            <h2>"Pages"</h2>
            <Suspense fallback=|| view! { <p class="loading">"Loading page…"</p> }>
                {move || Suspend::new(async move {
                    page.await.map(|page| {
                        let links = page.link.as_deref().map(parse_link_header).unwrap_or_default();
                        let target = |rel: &str| links.iter().find(|l| l.rel == rel).and_then(|l| cursor_of(&l.url));
                        let (prev, next) = (target("prev"), target("next"));
                        view! {
                            <ul class="items">{page.results.iter().map(|i| view! { <li>{i.name.clone()}</li> }).collect_view()}</ul>
                            <div class="pager">
                                <button id="prev" disabled=prev.is_none() on:click=move |_| if let Some(c) = prev { cursor.set(c) }>"Previous"</button>
                                <button id="next" disabled=next.is_none() on:click=move |_| if let Some(c) = next { cursor.set(c) }>"Next"</button>
                            </div>
                        }
                    })
                })}
            </Suspense>
        </section>
    }
}
