//! Reads that never suspend nor return data: `use_fetch` (fetch while mounted),
//! `use_error` (the typed error of a read) and `use_prefetch` (fetch on a hint).

use leptos::prelude::*;
use rdc_controller::{Controller, Endpoint, FetchError};
use serde::de::DeserializeOwned;

use crate::hooks::suspense::Readable;
use crate::provider::use_controller;
use crate::watch::{watch, Snapshot};

/// Fetches `endpoint` for `args` when mounted, when the args change and when
/// its data goes stale or invalid while mounted, if no fresh data is stored
/// and no request for it is in flight (shared with every other read of the
/// key). It never suspends and returns no data: read it with `use_cache`,
/// `use_entity` or `use_keys`. `None` args fetch nothing. Returns whether a
/// request for the current args is in flight. (data-client's `useFetch`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// # use rdc_core::Entity;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let user = RestEndpoint::get("/api/users/:id").args::<UserId>().body::<()>().schema(User::schema());
/// let id = Signal::derive(|| Some(UserId { id: "1".into() }));
/// let loading = rdc_leptos::use_fetch(user.clone(), id);   // no <Suspense> needed
/// let shown = rdc_leptos::use_cache(user, id);                           // what the store has, as it lands
/// # let _ = (loading, shown);
/// ```
pub fn use_fetch<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Signal<bool>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Option<C::Args>> = args.into();
    let controller = use_controller();
    let state = watch::<C, C::Result>(&controller, &endpoint, args);
    fetch_when_needed(controller, endpoint, args, state.clone());
    Signal::derive(move || state.with(|s| s.fetching))
}

/// The typed error of the last fetch of `endpoint` for `args`, while it counts
/// (until its expiry, or until a later fetch succeeds); `None` otherwise, and
/// for `None` args. Never fetches: pair it with [`use_fetch`] and a data read.
/// Args that make no key are their error. (data-client's `useError`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let user = RestEndpoint::get("/api/users/:id").args::<UserId>().body::<()>();
/// let id = Signal::derive(|| Some(UserId { id: "1".into() }));
/// rdc_leptos::use_fetch(user.clone(), id);
/// let error = rdc_leptos::use_error(user, id);
/// let message = move || error.get().map(|e| e.to_string());
/// # let _ = message;
/// ```
pub fn use_error<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Signal<Option<FetchError<C::Error>>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Option<C::Args>> = args.into();
    let controller = use_controller();
    let state = watch::<C, C::Result>(&controller, &endpoint, args);
    error_of(controller, endpoint, args, state)
}

/// A callback that fetches `endpoint` for the args it is given when their data
/// is missing, stale or invalid and nothing is in flight for them: call it on
/// hover or focus so the page a link leads to finds its data. It shares
/// requests with every other read of the key and never suspends; what it
/// fetched is kept as long as any fetched data (a reader mounted later keeps it).
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// # use rdc_core::Entity;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let user = RestEndpoint::get("/api/users/:id").args::<UserId>().body::<()>().schema(User::schema());
/// let prefetch = rdc_leptos::use_prefetch(user);
/// let link = view! { <a href="/users/2" on:mouseenter=move |_| prefetch.run(UserId { id: "2".into() })>"Grace"</a> };
/// # let _ = link;
/// ```
pub fn use_prefetch<C>(endpoint: C) -> Callback<C::Args>
where
    C: Readable,
{
    let prefetch = (use_controller(), endpoint);
    Callback::new(move |args: C::Args| {
        let (controller, endpoint) = &prefetch;
        fetch_if_needed(controller, endpoint, &args);
    })
}

/// Starts a fetch of `endpoint` for `args` when the store has no fresh data
/// for them and none is in flight; nobody awaits it (a retry stops once no
/// mounted reader retains the key).
pub(crate) fn fetch_if_needed<C: Readable>(controller: &Controller, endpoint: &C, args: &C::Args) {
    let Ok((json, key)) = endpoint.json_and_key(args) else { return };
    let raw = endpoint.endpoint();
    if controller.needs_fetch(&key, raw.policy()) && !controller.is_fetching(&key) {
        drop(controller.fetch(raw, json, None));
    }
}

/// An effect that fetches for the current args whenever what `state` shows
/// changes (new args, data gone stale or invalid) and a fetch is needed.
pub(crate) fn fetch_when_needed<C, T>(
    controller: Controller,
    endpoint: C,
    args: Signal<Option<C::Args>>,
    state: ArcRwSignal<Snapshot<T>>,
) where
    C: Readable,
    T: Send + Sync + 'static,
{
    Effect::new(move |_| {
        state.track();
        crate::provider::track_revalidation();
        args.with(|args| {
            if let Some(args) = args {
                fetch_if_needed(&controller, &endpoint, args);
            }
        });
    });
}

/// The typed error `state` (the snapshot of `endpoint` for `args`) shows, if one counts.
pub(crate) fn error_of<C, T>(
    controller: Controller,
    endpoint: C,
    args: Signal<Option<C::Args>>,
    state: ArcRwSignal<Snapshot<T>>,
) -> Signal<Option<FetchError<C::Error>>>
where
    C: Readable,
    T: Send + Sync + 'static,
{
    let read = (controller, endpoint);
    Signal::derive(move || {
        let (counts, read_error) = state.with(|s| (s.error.is_some(), s.read_error.clone()));
        if !counts && read_error.is_none() {
            return None;
        }
        let (controller, endpoint) = &read;
        match args.with(|a| a.as_ref().map(|a| controller.key_of(endpoint, a)))? {
            Err(error) => Some(FetchError::Endpoint(error)),
            Ok(key) => controller
                .typed_error::<C::Endpoint>(&key)
                .or_else(|| read_error.map(|message| FetchError::Read { key, message })),
        }
    })
}
