//! `use_suspense`: data for `<Suspense>` / `<ErrorBoundary>`.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use rdc_core::json::Value;
use rdc_core::{Abort, Controller, Endpoint, ExpiryStatus, FetchError, LocalFuture};
use send_wrapper::SendWrapper;
use serde::de::DeserializeOwned;

use crate::provider::use_controller;
use crate::watch::{snapshot, watch, Snapshot};

/// What a read resolves to: the data or the typed error.
pub type DataResult<T, E> = Result<Arc<T>, FetchError<<E as Endpoint>::Error>>;

/// Reads `endpoint` for `args`, fetching when the store has no valid data.
///
/// Inside `<Suspense>` it suspends only when there is nothing to show: valid
/// data resolves at once, stale data resolves at once and is refetched in the
/// background. A hard error (or any error with no data) resolves to `Err` for
/// `<ErrorBoundary>`; a soft one keeps the data. New `args` fetch anew. The value
/// changes only when what it reads changes (the same `Arc` otherwise).
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_leptos::use_suspense;
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[component]
/// fn Users() -> impl IntoView {
///     let users = use_suspense::<_, Vec<User>>(RestEndpoint::get("/api/users"), rdc_core::json!({}));
///     view! {
///         <Suspense fallback=|| "Loading…">
///             {move || Suspend::new(async move {
///                 users.await.map(|users| users.iter().map(|u| view! { <p>{u.name.clone()}</p> }).collect_view())
///             })}
///         </Suspense>
///     }
/// }
/// ```
pub fn use_suspense<E, T>(endpoint: E, args: impl Into<Signal<Value>>) -> AsyncDerived<DataResult<T, E>, LocalStorage>
where
    E: Endpoint + Clone,
    E::Error: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let args: Signal<Value> = args.into();
    let optional = Signal::derive(move || Some(args.get()));
    let (controller, state) = watched::<E, T>(&endpoint, optional);
    AsyncDerived::new_unsync(move || {
        let args = args.get();
        state.track();
        resolve::<E, T>((*controller).clone(), endpoint.clone(), args, |c, e, a| c.fetch(e, a, None))
    })
}

/// Like [`use_suspense`], but a request for args that are no longer wanted is
/// aborted as soon as the args change (the browser cancels its `fetch`), so a slow
/// answer for stale args never lands in the store. For search-as-you-type.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// let query = RwSignal::new("ru".to_string());
/// let results = rdc_leptos::use_cancelling::<_, serde_json::Value>(
///     RestEndpoint::get("/api/search"),
///     Signal::derive(move || rdc_core::json!({ "q": query.get() })),
/// );
/// # let _ = results;
/// ```
pub fn use_cancelling<E, T>(endpoint: E, args: impl Into<Signal<Value>>) -> AsyncDerived<DataResult<T, E>, LocalStorage>
where
    E: Endpoint + Clone,
    E::Error: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let args: Signal<Value> = args.into();
    let optional = Signal::derive(move || Some(args.get()));
    let (controller, state) = watched::<E, T>(&endpoint, optional);
    // The one request this hook has in flight, by key.
    let pending: Rc<RefCell<Option<(String, Abort)>>> = Rc::default();
    // Args changed: abort the request for the old ones at once (an async read
    // re-runs only after its current future settles).
    {
        let pending = Rc::clone(&pending);
        let endpoint = endpoint.clone();
        Effect::new(move |_| {
            let key = args.with(|a| endpoint.key(a).ok());
            let stale = pending.borrow_mut().take_if(|(k, _)| Some(&*k) != key.as_ref());
            if let Some((_, abort)) = stale {
                abort.abort();
            }
        });
    }
    let on_unmount = SendWrapper::new(Rc::clone(&pending));
    on_cleanup(move || {
        if let Some((_, abort)) = on_unmount.borrow_mut().take() {
            abort.abort();
        }
    });
    AsyncDerived::new_unsync(move || {
        args.track();
        state.track();
        let (controller, endpoint, pending) = ((*controller).clone(), endpoint.clone(), Rc::clone(&pending));
        async move {
            loop {
                // Always the latest args: a read whose request was cancelled because
                // the args changed goes on with the new ones.
                let current = args.get_untracked();
                let key = endpoint.key(&current).ok();
                let tracked = Rc::clone(&pending);
                let result = resolve::<E, T>(
                    controller.clone(),
                    endpoint.clone(),
                    current,
                    move |controller, endpoint, args| {
                        let key = endpoint.key(&args).unwrap_or_default();
                        let (fetch, abort) = controller.fetch_cancellable(endpoint, args, None);
                        if let Some((_, old)) = tracked.borrow_mut().replace((key, abort)) {
                            old.abort();
                        }
                        fetch
                    },
                )
                .await;
                let moved_on = args.with_untracked(|a| endpoint.key(a).ok()) != key;
                match result {
                    Err(FetchError::Aborted) if moved_on => continue,
                    other => return other,
                }
            }
        }
    })
}

/// Like [`use_suspense`], with `None` args fetching nothing (resolving to `Ok(None)`).
pub fn use_suspense_optional<E, T>(
    endpoint: E,
    args: impl Into<Signal<Option<Value>>>,
) -> AsyncDerived<Result<Option<Arc<T>>, FetchError<E::Error>>, LocalStorage>
where
    E: Endpoint + Clone,
    E::Error: Send + Sync,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let args: Signal<Option<Value>> = args.into();
    let (controller, state) = watched::<E, T>(&endpoint, args);
    AsyncDerived::new_unsync(move || {
        let args = args.get();
        state.track();
        let resolved = args
            .map(|args| resolve::<E, T>((*controller).clone(), endpoint.clone(), args, |c, e, a| c.fetch(e, a, None)));
        async move {
            match resolved {
                Some(fut) => fut.await.map(Some),
                None => Ok(None),
            }
        }
    })
}

/// The provider's controller, and the snapshot of `endpoint` for `args` it keeps
/// current: where every Suspense read starts.
fn watched<E, T>(endpoint: &E, args: Signal<Option<Value>>) -> (SendWrapper<Controller>, ArcRwSignal<Snapshot<T>>)
where
    E: Endpoint + Clone,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let controller = use_controller();
    let state = watch::<E, T>(&controller, endpoint, args);
    (SendWrapper::new(controller), state)
}

/// The read as a future that is ready at once when data can be shown.
fn resolve<E, T>(
    controller: Controller,
    endpoint: E,
    args: Value,
    fetch: impl FnOnce(&Controller, &E, Value) -> LocalFuture<Result<E::Output, FetchError<E::Error>>> + 'static,
) -> impl std::future::Future<Output = DataResult<T, E>>
where
    E: Endpoint + Clone,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let key = endpoint.key(&args);
    let now = snapshot::<E, T>(&controller, &endpoint, Some(&args));
    async move {
        let key = key.map_err(FetchError::Endpoint)?;
        let policy = endpoint.policy();
        let hard_error = || {
            controller
                .typed_error::<E>(&key)
                .filter(|e| !matches!(e, FetchError::Endpoint(inner) if endpoint.is_soft(inner)))
        };
        if let Some(data) = now.data.clone().filter(|_| now.status != ExpiryStatus::Invalid) {
            if let Some(error) = hard_error() {
                return Err(error);
            }
            if now.status == ExpiryStatus::Stale && controller.needs_fetch(&key, policy) {
                let refetch = controller.fetch(&endpoint, args.clone(), None);
                leptos::task::spawn_local(async move {
                    let _ = refetch.await;
                });
            }
            return Ok(data);
        }
        if now.error.is_some() && !controller.is_fetching(&key) {
            if let Some(error) = controller.typed_error::<E>(&key) {
                return Err(error);
            }
        }
        fetch(&controller, &endpoint, args.clone()).await?;
        let after = snapshot::<E, T>(&controller, &endpoint, Some(&args));
        match after.data {
            Some(data) => Ok(data),
            None => Err(controller.typed_error::<E>(&key).unwrap_or(FetchError::Reset)),
        }
    }
}
