//! `use_pages`: a list read page by page (infinite scroll), with its next page,
//! loading and error signals.

use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::{FetchError, TypedEndpoint};
use serde::de::DeserializeOwned;

use crate::hooks::cache::use_dle;
use crate::hooks::mutation::use_mutation;
use crate::hooks::suspense::Readable;

type NextArgs<R, A> = Box<dyn Fn(&R) -> Option<A>>;

/// What [`use_pages`] returns: `Copy`, so view closures can share it.
pub struct Pages<R: Send + Sync + 'static, E: Send + Sync + 'static> {
    /// The list with every page fetched so far, and the last page's information.
    pub data: Signal<Option<Arc<R>>>,
    /// Whether the last page fetched names a next one.
    pub has_next: Signal<bool>,
    /// Whether the first or a next page is in flight.
    pub loading: Signal<bool>,
    /// The first page's error, else the last next page's.
    pub error: Signal<Option<FetchError<E>>>,
    load: StoredValue<Box<dyn Fn()>, LocalStorage>,
}

impl<R: Send + Sync, E: Send + Sync> Clone for Pages<R, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Send + Sync, E: Send + Sync> Copy for Pages<R, E> {}

impl<R: Send + Sync, E: Send + Sync> std::fmt::Debug for Pages<R, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("has_next", &self.has_next)
            .field("loading", &self.loading)
            .finish_non_exhaustive()
    }
}

impl<R: Send + Sync, E: Send + Sync> Pages<R, E> {
    /// Fetches the next page, unless a page is in flight or there is none.
    pub fn load_next(&self) {
        self.load.with_value(|load| load());
    }
}

/// A list read page by page, for infinite scroll: `list` (fetched as
/// [`use_dle`] does) shows every page fetched so far, and
/// [`Pages::load_next`] fetches the page `next_args` names from what is shown
/// (`None`: the last page) through `next_page`, made with
/// [`RestEndpoint::paginated`](https://docs.rs/rdc-rest): its items join the
/// list, each once, and the list then carries that page's information.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_core::{Collection, Entity};
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct Item { id: u32 }
/// fn item_list() -> rdc_core::SchemaOf<Vec<Item>> {
///     Collection::of("ItemList", Item::schema())
/// }
/// #[derive(Clone, serde::Deserialize, rdc_core::Schema)]
/// struct Page {
///     next: Option<u32>,
///     #[entity(nested, schema = "item_list()")]
///     results: Vec<Item>,
/// }
/// #[derive(Clone, serde::Serialize)]
/// struct Cursor { cursor: u32 }
///
/// #[component]
/// fn Items() -> impl IntoView {
///     let list = RestEndpoint::get("/api/items").args::<()>().body::<()>().schema(Page::schema());
///     let next_page = list.paginated("cursor").args::<Cursor>();
///     let pages = rdc_leptos::use_pages(list, Some(()), next_page, |page: &Page| page.next.map(|cursor| Cursor { cursor }));
///     view! {
///         <ul>{move || pages.data.get().map(|page| page.results.iter().map(|i| view! { <li>{i.id}</li> }).collect_view())}</ul>
///         <button on:click=move |_| pages.load_next() disabled=move || !pages.has_next.get()>"More"</button>
///     }
/// }
/// ```
pub fn use_pages<C, N>(
    list: C,
    args: impl Into<Signal<Option<C::Args>>>,
    next_page: N,
    next_args: impl Fn(&C::Result) -> Option<N::Args> + 'static,
) -> Pages<C::Result, C::Error>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
    N: TypedEndpoint<Result = C::Result, Error = C::Error>,
    N::Body: Default,
{
    let first = use_dle(list, args);
    let next = use_mutation(next_page);
    let next_args: StoredValue<NextArgs<C::Result, N::Args>, LocalStorage> =
        StoredValue::new_local(Box::new(next_args));
    let data = first.data;
    let has_next = Signal::derive(move || {
        data.with(|page| page.as_deref().is_some_and(|page| next_args.with_value(|f| f(page).is_some())))
    });
    let loading = Signal::derive(move || first.loading.get() || next.pending.get());
    let first_error = first.error;
    let error = Signal::derive(move || first_error.get().or_else(|| next.error.get()));
    let load: Box<dyn Fn()> = Box::new(move || {
        if loading.get_untracked() {
            return;
        }
        let args = data.with_untracked(|page| page.as_deref().and_then(|page| next_args.with_value(|f| f(page))));
        if let Some(args) = args {
            next.run_with(args, N::Body::default());
        }
    });
    Pages { data, has_next, loading, error, load: StoredValue::new_local(load) }
}
