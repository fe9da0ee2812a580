//! A list that loads its next page as its end scrolls into view
//! (`use_pages` over a paginated collection, an `IntersectionObserver`).

use leptos::prelude::*;
use rdc::leptos::use_pages;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::api::{item_list, next_items, ItemList};
use crate::pages::items::next_cursor;

#[component]
pub fn Scroll() -> impl IntoView {
    let pages = use_pages(item_list(), Some(()), next_items(), |page: &ItemList| next_cursor(page.link.as_deref()));
    // Whether the list's end is in view: while it is, pages keep coming.
    let end_in_view = RwSignal::new(false);
    let end = NodeRef::<leptos::html::Div>::new();
    Effect::new(move |_| {
        let Some(element) = end.get() else { return };
        let seen = Closure::<dyn Fn(js_sys::Array)>::new(move |entries: js_sys::Array| {
            let entry: web_sys::IntersectionObserverEntry = entries.get(0).unchecked_into();
            end_in_view.set(entry.is_intersecting());
        });
        let Ok(observer) = web_sys::IntersectionObserver::new(seen.as_ref().unchecked_ref()) else { return };
        observer.observe(&element);
        // Both live as long as the page.
        let kept = send_wrapper::SendWrapper::new((observer, seen));
        on_cleanup(move || kept.0.disconnect());
    });
    Effect::new(move |_| {
        if end_in_view.get() && pages.has_next.get() && !pages.loading.get() {
            pages.load_next();
        }
    });
    view! {
        <section>
            <h2>"Infinite list"</h2>
            <p class="hint">"Collection::paginated: each page joins one list, each item once; the list keeps the last page's Link."</p>
            <ul class="scroll-items">
                {move || pages.data.get().map(|page| {
                    page.results.iter().map(|i| view! { <li data-id=i.id>{i.name.clone()}</li> }).collect_view()
                })}
            </ul>
            {move || pages.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
            <p class="status">
                {move || if pages.loading.get() {
                    "Loading…"
                } else if pages.has_next.get() {
                    "Scroll for more"
                } else if pages.data.get().is_some() {
                    "The end"
                } else {
                    ""
                }}
            </p>
            <div class="list-end" node_ref=end></div>
        </section>
    }
}
