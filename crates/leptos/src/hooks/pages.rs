//! `use_pages`: a list read page by page (infinite scroll) both ways, with
//! its next and previous pages, a cap on the pages held, a refetch of the
//! pages held, and loading and error signals.

use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::{Controller, FetchError, TypedEndpoint};
use serde::de::DeserializeOwned;

use crate::hooks::cache::use_dle;
use crate::hooks::suspense::Readable;
use crate::provider::use_controller;

type PageArgs<R, A> = Box<dyn Fn(&R) -> Option<A> + Send + Sync>;
type Run = Box<dyn Fn(Step) + Send + Sync>;

/// One page the hook holds: the page param it was asked with (`None`: the
/// list's own first page) and its own answer.
struct Held<R, A> {
    at: Option<A>,
    data: Arc<R>,
}

impl<R, A: Clone> Clone for Held<R, A> {
    fn clone(&self) -> Self {
        Held { at: self.at.clone(), data: Arc::clone(&self.data) }
    }
}

/// What a call on [`Pages`] asks for.
#[derive(Clone, Copy)]
enum Step {
    Next,
    Previous,
    Refetch,
}

/// What [`use_pages`] returns: `Copy`, so view closures can share it. `A` is
/// the page param (the next-page endpoint's args).
pub struct Pages<R: Send + Sync + 'static, E: Send + Sync + 'static, A: Send + Sync + 'static> {
    /// The list as the store joins it: every item of the pages fetched
    /// through it, each once, in the order they came, and the last page's
    /// information.
    pub data: Signal<Option<Arc<R>>>,
    /// The pages held, first to last, each its own answer as it came, at
    /// most [`Pages::max_pages`] of them: render these when the list loads
    /// previous pages or drops some. An entity edited later shows in
    /// [`Pages::data`] at once; here after [`Pages::refetch`] (or read each
    /// row by its key with `use_entity`).
    pub pages: Signal<Vec<Arc<R>>>,
    /// Whether the last page held names a next one.
    pub has_next: Signal<bool>,
    /// Whether the first page held names a previous one (see [`Pages::previous`]).
    pub has_previous: Signal<bool>,
    /// Whether the first page, a next or previous page, or a refetch is in flight.
    pub loading: Signal<bool>,
    /// The first page's error, else the last page load's or refetch's.
    pub error: Signal<Option<FetchError<E>>>,
    previous_args: StoredValue<Option<PageArgs<R, A>>>,
    max: StoredValue<Option<usize>>,
    run: StoredValue<Run>,
}

impl<R: Send + Sync, E: Send + Sync, A: Send + Sync> Clone for Pages<R, E, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R: Send + Sync, E: Send + Sync, A: Send + Sync> Copy for Pages<R, E, A> {}

impl<R: Send + Sync, E: Send + Sync, A: Send + Sync> std::fmt::Debug for Pages<R, E, A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages")
            .field("has_next", &self.has_next)
            .field("has_previous", &self.has_previous)
            .field("loading", &self.loading)
            .finish_non_exhaustive()
    }
}

impl<R: Send + Sync, E: Send + Sync, A: Send + Sync> Pages<R, E, A> {
    /// Fetches the page after the last one held, unless something is in
    /// flight (a page, or the list itself refetching) or the last page names none. Past [`Pages::max_pages`], the
    /// first page held is dropped.
    ///
    /// ```no_run
    /// # fn on_click(pages: rdc_leptos::Pages<Vec<u32>, (), u32>) {
    /// pages.load_next();
    /// # }
    /// ```
    pub fn load_next(&self) {
        self.run.with_value(|run| run(Step::Next));
    }

    /// Fetches the page before the first one held (named by
    /// [`Pages::previous`] from that page), unless something is in flight
    /// or there is none; it goes in front of [`Pages::pages`]. Past
    /// [`Pages::max_pages`], the last page held is dropped.
    ///
    /// ```no_run
    /// # fn on_click(pages: rdc_leptos::Pages<Vec<u32>, (), u32>) {
    /// pages.load_previous();
    /// # }
    /// ```
    pub fn load_previous(&self) {
        self.run.with_value(|run| run(Step::Previous));
    }

    /// Fetches every page held again, in order from the first, each with the
    /// page param it was asked with (the list's own first page through the
    /// list, so the store's list starts over and each page joins it again),
    /// then shows the new answers together. On an error the pages held stay
    /// and [`Pages::error`] says why.
    ///
    /// ```no_run
    /// # fn on_click(pages: rdc_leptos::Pages<Vec<u32>, (), u32>) {
    /// pages.refetch();
    /// # }
    /// ```
    pub fn refetch(&self) {
        self.run.with_value(|run| run(Step::Refetch));
    }

    /// Names the page before a page (from its answer, as `next_args` names
    /// the next; `None`: it is the first), for [`Pages::load_previous`].
    ///
    /// ```no_run
    /// # use rdc_core::{Collection, Entity};
    /// # use rdc_rest::RestEndpoint;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct Item { id: u32 }
    /// # fn item_list() -> rdc_core::SchemaOf<Vec<Item>> { Collection::of("ItemList", Item::schema()) }
    /// #[derive(Clone, serde::Deserialize, rdc_core::Schema)]
    /// struct Page {
    ///     prev: Option<u32>,
    ///     next: Option<u32>,
    ///     #[entity(nested, schema = "item_list()")]
    ///     results: Vec<Item>,
    /// }
    /// #[derive(Clone, serde::Serialize)]
    /// struct Cursor { cursor: u32 }
    /// let list = RestEndpoint::get("/api/items").args::<()>().body::<()>().schema(Page::schema());
    /// let page = list.paginated("cursor").args::<Cursor>();
    /// let pages = rdc_leptos::use_pages(list, Some(()), page, |p: &Page| p.next.map(|cursor| Cursor { cursor }))
    ///     .previous(|p: &Page| p.prev.map(|cursor| Cursor { cursor }));
    /// pages.load_previous();
    /// ```
    pub fn previous(self, previous_args: impl Fn(&R) -> Option<A> + Send + Sync + 'static) -> Self {
        self.previous_args.set_value(Some(Box::new(previous_args)));
        self
    }

    /// Holds at most `max` pages (at least one): loading a next page past it
    /// drops the first page held, a previous page the last (TanStack's
    /// `maxPages`). [`Pages::data`], the store's list, keeps every item.
    ///
    /// ```no_run
    /// # use rdc_core::{Collection, Entity};
    /// # use rdc_rest::RestEndpoint;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct Item { id: u32 }
    /// # fn item_list() -> rdc_core::SchemaOf<Vec<Item>> { Collection::of("ItemList", Item::schema()) }
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Schema)]
    /// # struct Page { next: Option<u32>, #[entity(nested, schema = "item_list()")] results: Vec<Item> }
    /// # #[derive(Clone, serde::Serialize)] struct Cursor { cursor: u32 }
    /// let list = RestEndpoint::get("/api/items").args::<()>().body::<()>().schema(Page::schema());
    /// let page = list.paginated("cursor").args::<Cursor>();
    /// let pages = rdc_leptos::use_pages(list, Some(()), page, |p: &Page| p.next.map(|cursor| Cursor { cursor }))
    ///     .max_pages(3);
    /// # let _ = pages;
    /// ```
    pub fn max_pages(self, max: usize) -> Self {
        self.max.set_value(Some(max.max(1)));
        self
    }
}

/// A list read page by page, for infinite scroll: `list` (fetched as
/// [`use_dle`] does) is the first page, and [`Pages::load_next`] fetches the
/// page `next_args` names from the last page held (`None`: the last page)
/// through `next_page`, made with
/// [`RestEndpoint::paginated`](https://docs.rs/rdc-rest): its items join the
/// store's list ([`Pages::data`]), each once, and the page joins
/// [`Pages::pages`]. [`Pages::previous`] names earlier pages for
/// [`Pages::load_previous`], [`Pages::max_pages`] caps the pages held, and
/// [`Pages::refetch`] asks for every page held again, in order.
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
///         <button on:click=move |_| pages.refetch()>"Refresh"</button>
///     }
/// }
/// ```
pub fn use_pages<C, N>(
    list: C,
    args: impl Into<Signal<Option<C::Args>>>,
    next_page: N,
    next_args: impl Fn(&C::Result) -> Option<N::Args> + Send + Sync + 'static,
) -> Pages<C::Result, C::Error, N::Args>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
    C::Body: Default,
    N: TypedEndpoint<Result = C::Result, Error = C::Error>,
    N::Args: Clone + Send + Sync,
    N::Body: Default,
{
    let args: Signal<Option<C::Args>> = args.into();
    let first = use_dle(list.clone(), args);
    let data = first.data;
    let next_args: StoredValue<PageArgs<C::Result, N::Args>> = StoredValue::new(Box::new(next_args));
    let previous_args: StoredValue<Option<PageArgs<C::Result, N::Args>>> = StoredValue::new(None);
    let max = StoredValue::new(None);
    let held: RwSignal<Vec<Held<C::Result, N::Args>>> = RwSignal::new(Vec::new());
    let busy = RwSignal::new(false);
    let page_error = RwSignal::new(None);
    // Bumped when the args change: answers to what was asked before are dropped.
    let generation = StoredValue::new(0u64);
    let key_of = list.clone();
    let args_key = move || args.with(|args| args.as_ref().and_then(|args| key_of.key_for(args).ok()));
    hold_first_page(args_key, data, held, move || {
        generation.update_value(|n| *n += 1);
        busy.set(false);
        page_error.set(None);
    });
    let page_args = move |step: Step, pages: &[Held<C::Result, N::Args>]| match step {
        Step::Next => pages.last().and_then(|page| next_args.with_value(|f| f(&page.data))),
        Step::Previous => {
            pages.first().and_then(|page| previous_args.with_value(|f| f.as_ref().and_then(|f| f(&page.data))))
        }
        Step::Refetch => None,
    };
    // The pages held; before the effect above has run (a server render, the
    // first frame), the list's first page alone.
    let current = move || {
        let pages = held.get();
        match data.get() {
            Some(first_page) if pages.is_empty() => vec![Held { at: None, data: first_page }],
            _ => pages,
        }
    };
    let has_next = Signal::derive(move || page_args(Step::Next, &current()).is_some());
    let has_previous = Signal::derive(move || page_args(Step::Previous, &current()).is_some());
    let pages = Signal::derive(move || current().iter().map(|page| Arc::clone(&page.data)).collect());
    let loading = Signal::derive(move || first.loading.get() || busy.get());
    let first_error = first.error;
    let error = Signal::derive(move || first_error.get().or_else(|| page_error.get()));
    let controller = use_controller();
    let run: Run = Box::new(move |step| {
        if loading.get_untracked() {
            return;
        }
        let start = untrack(current);
        let asked = match step {
            Step::Refetch if !start.is_empty() => start.iter().map(|page| page.at.clone()).collect(),
            Step::Refetch => return,
            step => match page_args(step, &start) {
                Some(at) => vec![Some(at)],
                None => return,
            },
        };
        let Some(list_args) = args.get_untracked() else { return };
        let (controller, list, next_page) = (controller.clone(), list.clone(), next_page.clone());
        let asked_in = generation.get_value();
        busy.set(true);
        page_error.set(None);
        leptos::task::spawn(async move {
            let answers = fetch_in_order(&controller, &list, &next_page, list_args, asked).await;
            if generation.try_get_value() != Some(asked_in) {
                return;
            }
            match answers {
                Ok(answers) => {
                    let cap = max.try_get_value().flatten();
                    held.try_update(|pages| {
                        if pages.is_empty() {
                            // Asked for before the first page was taken in as held.
                            *pages = start;
                        }
                        join(pages, step, answers, cap);
                    });
                }
                Err(e) => {
                    page_error.try_set(Some(e));
                }
            }
            busy.try_set(false);
        });
    });
    Pages { data, pages, has_next, has_previous, loading, error, previous_args, max, run: StoredValue::new(run) }
}

/// Starts the pages held with the list's first page, and starts them over
/// (calling `restart`) when the args make another key: args set to an equal
/// value keep them.
fn hold_first_page<R, A>(
    args_key: impl Fn() -> Option<String> + 'static,
    data: Signal<Option<Arc<R>>>,
    held: RwSignal<Vec<Held<R, A>>>,
    restart: impl Fn() + 'static,
) where
    R: Send + Sync + 'static,
    A: Send + Sync + 'static,
{
    Effect::new(move |seen: Option<Option<String>>| {
        let key = args_key();
        let first_page = data.get();
        if seen.as_ref().is_some_and(|seen| *seen != key) {
            held.set(Vec::new());
            restart();
        }
        if let Some(first_page) = first_page {
            if held.with_untracked(Vec::is_empty) {
                held.set(vec![Held { at: None, data: first_page }]);
            }
        }
        key
    });
}

/// Fetches the pages asked for one after another, so each joins the store's
/// list in order: `None` is the list's own first page.
async fn fetch_in_order<C, N>(
    controller: &Controller,
    list: &C,
    next_page: &N,
    list_args: C::Args,
    asked: Vec<Option<N::Args>>,
) -> Result<Vec<Held<C::Result, N::Args>>, FetchError<C::Error>>
where
    C: Readable,
    C::Body: Default,
    N: TypedEndpoint<Result = C::Result, Error = C::Error>,
    N::Args: Clone,
    N::Body: Default,
{
    let mut answers = Vec::with_capacity(asked.len());
    for at in asked {
        let data = match &at {
            None => controller.fetch(list, list_args.clone(), C::Body::default()).await?,
            Some(at) => controller.fetch(next_page, at.clone(), N::Body::default()).await?,
        };
        answers.push(Held { at, data: Arc::new(data) });
    }
    Ok(answers)
}

/// Puts the pages fetched for `step` among those held, keeping at most `cap`.
fn join<R, A>(pages: &mut Vec<Held<R, A>>, step: Step, answers: Vec<Held<R, A>>, cap: Option<usize>) {
    match step {
        Step::Next => {
            pages.extend(answers);
            let over = cap.map_or(0, |cap| pages.len().saturating_sub(cap));
            pages.drain(..over);
        }
        Step::Previous => {
            pages.splice(0..0, answers);
            if let Some(cap) = cap {
                pages.truncate(cap);
            }
        }
        Step::Refetch => *pages = answers,
    }
}
