//! Reads without Suspense: `use_cache` (never fetches), `use_dle` (data, loading,
//! error), `use_query` (a schema read straight from the store, e.g. an `All`).

use std::sync::Arc;

use leptos::prelude::*;
use rdc_core::{Endpoint, FetchError, Schema};
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::provider::use_controller;
use crate::watch::watch;

/// The stored data of `endpoint` for `args`, if any; never fetches. `None` args read nothing.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// let user = rdc_leptos::use_cache::<_, serde_json::Value>(RestEndpoint::get("/api/users/:id"), Signal::derive(|| Some(serde_json::json!({"id": "1"}))));
/// # let _ = user;
/// ```
pub fn use_cache<E, T>(endpoint: E, args: impl Into<Signal<Option<Value>>>) -> Signal<Option<Arc<T>>>
where
    E: Endpoint + Clone,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let state = watch::<E, T>(&use_controller(), &endpoint, args.into());
    Signal::derive(move || state.with(|s| s.data.clone()))
}

/// Data, loading and error of [`use_dle`].
#[derive(Debug)]
pub struct Dle<T: Send + Sync + 'static, E: Send + Sync + 'static> {
    /// The data, possibly stale.
    pub data: Signal<Option<Arc<T>>>,
    /// Whether a request is in flight.
    pub loading: Signal<bool>,
    /// The current error.
    pub error: Signal<Option<FetchError<E>>>,
}

/// Data, loading and error, without Suspense: fetches when the store has no
/// valid data, as `use_suspense` does.
pub fn use_dle<E, T>(endpoint: E, args: impl Into<Signal<Option<Value>>>) -> Dle<T, E::Error>
where
    E: Endpoint + Clone,
    E::Error: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let args: Signal<Option<Value>> = args.into();
    let controller = use_controller();
    let state = watch::<E, T>(&controller, &endpoint, args);
    let controller = SendWrapper::new(controller);
    let fetch_endpoint = endpoint.clone();
    let fetcher = controller.clone();
    let tracked = state.clone();
    Effect::new(move |_| {
        tracked.track();
        let Some(args) = args.get() else { return };
        let Ok(key) = fetch_endpoint.key(&args) else { return };
        if fetcher.needs_fetch(&key, fetch_endpoint.policy()) && !fetcher.is_fetching(&key) {
            let fetch = fetcher.fetch(&fetch_endpoint, args, None);
            leptos::task::spawn_local(async move {
                let _ = fetch.await;
            });
        }
    });
    let data_state = state.clone();
    let loading_state = state.clone();
    let endpoint = SendWrapper::new(endpoint);
    Dle {
        data: Signal::derive(move || data_state.with(|s| s.data.clone())),
        loading: Signal::derive(move || loading_state.with(|s| s.fetching)),
        error: Signal::derive(move || {
            state.with(|s| s.error.as_ref().map(|_| ()))?;
            let key = args.with(|a| a.as_ref().and_then(|a| endpoint.key(a).ok()))?;
            controller.typed_error::<E>(&key)
        }),
    }
}

/// Reads `schema` (an `All`, a `Query`-like schema needing no fetch) from the store;
/// `None` until something of its type was stored.
pub fn use_query<T>(memo_key: &'static str, schema: Schema) -> Signal<Option<Arc<T>>>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let controller = use_controller();
    let read = {
        let controller = controller.clone();
        move || controller.query::<T>(memo_key, &schema).ok().flatten()
    };
    let state = ArcRwSignal::new(read());
    let id = {
        let state = state.clone();
        controller.listen(move || {
            let next = read();
            let same = state.with_untracked(|current| match (current, &next) {
                (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            });
            if !same {
                state.set(next);
            }
        })
    };
    let controller = SendWrapper::new(controller);
    on_cleanup(move || controller.unlisten(id));
    Signal::derive(move || state.get())
}
