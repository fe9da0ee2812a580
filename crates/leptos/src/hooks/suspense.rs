//! `use_suspense`: data for `<Suspense>` / `<ErrorBoundary>`.

use std::sync::{Arc, Mutex};

use leptos::prelude::*;
use rdc_controller::{Abort, BoxFuture, Controller, Endpoint, ExpiryStatus, FetchError, TypedEndpoint};
use rdc_core::Pk;
use serde::de::DeserializeOwned;

use crate::lock;
use crate::page_data;
use crate::provider::use_controller;
use crate::watch::{read, watch, Snapshot, Target};

/// What a read of endpoint `C` resolves to: its result or its typed error.
///
/// ```
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// type UsersRead = rdc_leptos::DataResult<rdc_rest::RestEndpoint<(), (), Vec<User>>>;
/// // = Result<Arc<Vec<User>>, FetchError<RestError>>
/// # let _: Option<UsersRead> = None;
/// ```
pub type DataResult<C> = Result<Arc<<C as TypedEndpoint>::Result>, FetchError<<C as TypedEndpoint>::Error>>;

/// What the read hooks need of an endpoint: args a signal can hold and an
/// error a boundary can hold. Every typed endpoint with such args is one.
///
/// ```
/// fn readable<C: rdc_leptos::Readable>(_: &C) {}
/// readable(&rdc_rest::RestEndpoint::get("/users").args::<()>());
/// ```
pub trait Readable: TypedEndpoint<Args: Clone + Send + Sync, Error: Send + Sync> {}

impl<C> Readable for C
where
    C: TypedEndpoint,
    C::Args: Clone + Send + Sync,
    C::Error: Send + Sync,
{
}

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
/// use rdc_core::All;
/// use rdc_leptos::use_suspense;
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[component]
/// fn Users() -> impl IntoView {
///     let list = RestEndpoint::get("/api/users").args::<()>().body::<()>().schema(All::of::<User>());
///     let users = use_suspense(list, ());   // reads as Vec<User>
///     view! {
///         <Suspense fallback=|| "Loading…">
///             {move || Suspend::new(async move {
///                 users.await.map(|users| users.iter().map(|u| view! { <p>{u.name.clone()}</p> }).collect_view())
///             })}
///         </Suspense>
///     }
/// }
/// ```
pub fn use_suspense<C>(endpoint: C, args: impl Into<Signal<C::Args>>) -> AsyncDerived<DataResult<C>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<C::Args> = args.into();
    let optional = Signal::derive(move || Some(args.get()));
    let (controller, state, carried) = watched::<C, C::Result>(&endpoint, optional);
    carried.after(AsyncDerived::new(move || {
        let args = args.get();
        state.track();
        crate::provider::track_revalidation();
        resolve(controller.clone(), endpoint.clone(), args, |c, e, a| c.fetch(e, a, None))
    }))
}

/// Like [`use_suspense`], but a request for args that are no longer wanted is
/// aborted as soon as the args change (the browser cancels its `fetch`), so a slow
/// answer for stale args never lands in the store. For search-as-you-type.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct Search { q: String }
/// let search = RestEndpoint::get("/api/search").args::<Search>().body::<()>();
/// let query = RwSignal::new("ru".to_string());
/// let results = rdc_leptos::use_cancelling(search, Signal::derive(move || Search { q: query.get() }));
/// # let _ = results;
/// ```
pub fn use_cancelling<C>(endpoint: C, args: impl Into<Signal<C::Args>>) -> AsyncDerived<DataResult<C>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<C::Args> = args.into();
    let optional = Signal::derive(move || Some(args.get()));
    let (controller, state, carried) = watched::<C, C::Result>(&endpoint, optional);
    // The one request this hook has in flight, by key.
    let pending: Arc<Mutex<Option<(String, Abort)>>> = Arc::default();
    // Args changed: abort the request for the old ones at once (an async read
    // re-runs only after its current future settles).
    {
        let pending = Arc::clone(&pending);
        let endpoint = endpoint.clone();
        let keys = controller.clone();
        Effect::new(move |_| {
            let key = args.with(|a| keys.key_of(&endpoint, a).ok());
            let stale = lock(&pending).take_if(|(k, _)| Some(&*k) != key.as_ref());
            if let Some((_, abort)) = stale {
                abort.abort();
            }
        });
    }
    let on_unmount = Arc::clone(&pending);
    on_cleanup(move || {
        if let Some((_, abort)) = lock(&on_unmount).take() {
            abort.abort();
        }
    });
    carried.after(AsyncDerived::new(move || {
        args.track();
        state.track();
        crate::provider::track_revalidation();
        let (controller, endpoint, pending) = (controller.clone(), endpoint.clone(), Arc::clone(&pending));
        async move {
            loop {
                // Always the latest args: a read whose request was cancelled because
                // the args changed goes on with the new ones.
                let current = args.get_untracked();
                let key = controller.key_of(&endpoint, &current).ok();
                let tracked = Arc::clone(&pending);
                let result =
                    resolve(controller.clone(), endpoint.clone(), current, move |controller, endpoint, args| {
                        let key = endpoint.key(&args).unwrap_or_default();
                        let (fetch, abort) = controller.fetch_cancellable(endpoint, args, None);
                        let replaced = lock(&tracked).replace((key, abort));
                        if let Some((_, old)) = replaced {
                            old.abort();
                        }
                        fetch
                    })
                    .await;
                let moved_on = args.with_untracked(|a| controller.key_of(&endpoint, a).ok()) != key;
                match result {
                    Err(FetchError::Aborted) if moved_on => continue,
                    other => return other,
                }
            }
        }
    }))
}

/// Like [`use_suspense`] for a list shown with [`use_list`](crate::use_list):
/// fetches and suspends the same way (and puts the list into a server-rendered
/// page), but reads only the list's keys, its entities' primary keys in order,
/// so it follows the list's status, error and members, not every row's
/// content (`use_list` follows the rows, with one reader for them all).
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_core::{Entity, SchemaOf};
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[component]
/// fn Users() -> impl IntoView {
///     let page = RestEndpoint::get("/api/users").args::<()>().body::<()>().schema(SchemaOf::list(User::schema()));
///     let fetched = rdc_leptos::use_suspense_keys(page.clone(), ());
///     let rows = rdc_leptos::use_list(page, Signal::derive(|| Some(())));
///     let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
///     // The rows inside the Suspend: a server renders what is outside it before the fetch lands.
///     view! {
///         <Suspense fallback=|| "Loading…"><ul>
///             {move || Suspend::new(async move {
///                 fetched.await.map(|_| view! {
///                     <For each=each key=|row| row.id() let:row>
///                         <li>{move || row.with(|user| user.name.clone())}</li>
///                     </For>
///                 })
///             })}
///         </ul></Suspense>
///     }
/// }
/// ```
pub fn use_suspense_keys<C>(
    endpoint: C,
    args: impl Into<Signal<C::Args>>,
) -> AsyncDerived<Result<Arc<Vec<Pk>>, FetchError<C::Error>>>
where
    C: Readable,
{
    let args: Signal<C::Args> = args.into();
    let optional = Signal::derive(move || Some(args.get()));
    let (controller, state, carried) = watched::<C, Vec<Pk>>(&endpoint, optional);
    carried.after(AsyncDerived::new(move || {
        let args = args.get();
        state.track();
        crate::provider::track_revalidation();
        resolve::<C, Vec<Pk>>(controller.clone(), endpoint.clone(), args, |c, e, a| c.fetch(e, a, None))
    }))
}

/// Like [`use_suspense`], with `None` args fetching nothing (resolving to `Ok(None)`).
pub fn use_suspense_optional<C>(
    endpoint: C,
    args: impl Into<Signal<Option<C::Args>>>,
) -> AsyncDerived<Result<Option<Arc<C::Result>>, FetchError<C::Error>>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Option<C::Args>> = args.into();
    let (controller, state, carried) = watched::<C, C::Result>(&endpoint, args);
    carried.after(AsyncDerived::new(move || {
        let args = args.get();
        state.track();
        crate::provider::track_revalidation();
        let resolved =
            args.map(|args| resolve(controller.clone(), endpoint.clone(), args, |c, e, a| c.fetch(e, a, None)));
        async move {
            match resolved {
                Some(fut) => fut.await.map(Some),
                None => Ok(None),
            }
        }
    }))
}

/// The provider's controller, and the snapshot of `endpoint` for `args` (read
/// as `T`) it keeps current: where every Suspense read starts.
fn watched<C, T>(endpoint: &C, args: Signal<Option<C::Args>>) -> (Controller, ArcRwSignal<Snapshot<T>>, Carried)
where
    C: Readable,
    T: DeserializeOwned + Send + Sync + 'static,
{
    let controller = use_controller();
    // A hydrating page's slice goes into the store before anything reads it.
    let carry = page_data::carry(&controller);
    let key =
        args.with_untracked(|a| a.as_ref().and_then(|a| Target::of(endpoint, a).ok()).map(|t| t.key().to_owned()));
    let state = watch(&controller, endpoint, args);
    (controller, state, Carried { carry, key })
}

/// A Suspense read registered with a server-rendered page, and the key it reads.
struct Carried {
    carry: page_data::Carry,
    key: Option<String>,
}

impl Carried {
    /// On the server, puts the store slice `read` used into the page once it resolves.
    fn after<T: Clone + Send + Sync + 'static>(self, read: AsyncDerived<T>) -> AsyncDerived<T> {
        self.carry.after(self.key, async move {
            let _ = read.await;
        });
        read
    }
}

/// A fetch of the JSON endpoint behind a read: the plain one or a cancellable one.
type FetchJson<C> =
    BoxFuture<Result<<<C as TypedEndpoint>::Endpoint as Endpoint>::Output, FetchError<<C as TypedEndpoint>::Error>>>;

/// The read (as `T`) as a future that is ready at once when data can be shown.
fn resolve<C, T>(
    controller: Controller,
    endpoint: C,
    args: C::Args,
    fetch: impl FnOnce(&Controller, &C::Endpoint, rdc_core::json::Value) -> FetchJson<C> + Send + 'static,
) -> impl std::future::Future<Output = Result<Arc<T>, FetchError<C::Error>>> + Send
where
    C: Readable,
    T: DeserializeOwned + Send + Sync + 'static,
{
    // The key once, and what the store shows for it now (before any await).
    let prepared = endpoint.json_and_key(&args).map(|(json, key)| {
        let target = Target::at(endpoint.endpoint(), key);
        let now = read::<T>(&controller, &target);
        (json, target, now)
    });
    async move {
        let (json, target, now) = prepared.map_err(FetchError::Endpoint)?;
        let key = target.key().to_owned();
        let raw = endpoint.endpoint().clone();
        let policy = raw.policy();
        let hard_error = || {
            controller
                .typed_error::<C::Endpoint>(&key)
                .filter(|e| !matches!(e, FetchError::Endpoint(inner) if raw.is_soft(inner)))
        };
        if let Some(data) = now.data.clone().filter(|_| now.status != ExpiryStatus::Invalid) {
            if let Some(error) = hard_error() {
                return Err(error);
            }
            if now.status == ExpiryStatus::Stale && controller.needs_fetch(&key, policy) {
                // The request runs as its own task; nobody awaits it here.
                drop(controller.fetch(&raw, json.clone(), None));
            }
            return Ok(data);
        }
        if now.error.is_some() && !controller.is_fetching(&key) {
            if let Some(error) = controller.typed_error::<C::Endpoint>(&key) {
                return Err(error);
            }
        }
        // Fresh data that does not read as the type: its error, not another fetch.
        if let Some(message) = now.read_error.clone() {
            if !controller.is_fetching(&key) && !controller.needs_fetch(&key, policy) {
                return Err(FetchError::Read { key, message });
            }
        }
        fetch(&controller, &raw, json).await?;
        let after = read::<T>(&controller, &target);
        match after.data {
            Some(data) => Ok(data),
            None => Err(controller
                .typed_error::<C::Endpoint>(&key)
                .or_else(|| after.read_error.map(|message| FetchError::Read { key: key.clone(), message }))
                .unwrap_or(FetchError::Reset)),
        }
    }
}
