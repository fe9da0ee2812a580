//! Reads without Suspense: `use_cache` (never fetches), `use_dle` (data, loading,
//! error), `use_query` (a schema read straight from the store, e.g. an `All`).

use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::FetchError;
use rdc_core::{Entity, Pk, SchemaOf};
use serde::de::DeserializeOwned;

use crate::hooks::fetch::{error_of, fetch_when_needed};
use crate::hooks::suspense::Readable;
use crate::provider::use_controller;
use crate::watch::watch;

/// The stored data of `endpoint` for `args`, if any; never fetches. `None` args read nothing.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let endpoint = RestEndpoint::get("/api/users/:id").args::<UserId>().body::<()>();
/// let user = rdc_leptos::use_cache(endpoint, Signal::derive(|| Some(UserId { id: "1".into() })));
/// # let _ = user;
/// ```
pub fn use_cache<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Signal<Option<Arc<C::Result>>>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let state = watch::<C, C::Result>(&use_controller(), &endpoint, args.into());
    Signal::derive(move || state.with(|s| s.data.clone()))
}

/// The primary keys of a stored list of entities (no field of theirs is read),
/// if any; never fetches. For long lists: hand the keys to `<For>` and read
/// each row's entity with [`use_entity`], so a changed entity re-renders one
/// row and the list is read again only when entities join, leave or move.
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// use rdc_core::{Entity, SchemaOf};
/// let page = RestEndpoint::get("/api/users/page").args::<()>().body::<()>().schema(SchemaOf::list(User::schema()));
/// let keys = rdc_leptos::use_keys(page, Signal::derive(|| Some(())));   // Vec<Pk>
/// # let _ = keys;
/// ```
pub fn use_keys<C, E>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Signal<Option<Arc<Vec<Pk>>>>
where
    C: Readable<Result = Vec<E>>,
    E: Entity,
{
    let state = watch::<C, Vec<Pk>>(&use_controller(), &endpoint, args.into());
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

impl<T: Send + Sync + 'static, E: Send + Sync + 'static> Clone for Dle<T, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static, E: Send + Sync + 'static> Copy for Dle<T, E> {}

/// Data, loading and error, without Suspense: fetches when the store has no
/// valid data, as `use_suspense` does.
pub fn use_dle<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Dle<C::Result, C::Error>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Option<C::Args>> = args.into();
    let controller = use_controller();
    let state = watch::<C, C::Result>(&controller, &endpoint, args);
    fetch_when_needed(controller.clone(), endpoint.clone(), args, state.clone());
    let error = error_of(controller, endpoint, args, state.clone());
    let loading_state = state.clone();
    Dle {
        data: Signal::derive(move || state.with(|s| s.data.clone())),
        loading: Signal::derive(move || loading_state.with(|s| s.fetching)),
        error,
    }
}

/// Reads `schema` (an `All`, a `Query`-like schema needing no fetch) from the store,
/// as what it reads as; `None` until something of its type was stored.
///
/// ```no_run
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let everyone = rdc_leptos::use_query("every user", rdc_core::All::of::<User>());   // Vec<User>
/// # let _ = everyone;
/// ```
pub fn use_query<T>(memo_key: &'static str, schema: SchemaOf<T>) -> Signal<Option<Arc<T>>>
where
    T: DeserializeOwned + Send + Sync + 'static,
{
    let schema = schema.into_schema();
    let controller = use_controller();
    let reader = controller.clone();
    let (state, _) = follow(&controller, move || reader.query::<T>(memo_key, &schema).ok().flatten());
    Signal::derive(move || state.get())
}

/// The primary key [`use_entity`] reads: fixed (a `String` or `&str`, as in list
/// rows) or a signal of one (re-read when it changes).
///
/// ```
/// use leptos::prelude::*;
/// let fixed: rdc_leptos::EntityKey = "u1".into();
/// let reactive: rdc_leptos::EntityKey = Signal::derive(|| "u2".to_string()).into();
/// # let _ = (fixed, reactive);
/// ```
#[derive(Debug, Clone)]
pub enum EntityKey {
    /// A key that never changes: no effect is needed to follow it.
    Fixed(rdc_core::Pk),
    /// A key that may change.
    Reactive(Signal<String>),
}

impl From<String> for EntityKey {
    fn from(pk: String) -> Self {
        EntityKey::Fixed(pk.into())
    }
}

impl From<&str> for EntityKey {
    fn from(pk: &str) -> Self {
        EntityKey::Fixed(pk.into())
    }
}

impl From<rdc_core::Pk> for EntityKey {
    fn from(pk: rdc_core::Pk) -> Self {
        EntityKey::Fixed(pk)
    }
}

/// Every Leptos signal of a `String` is a key that may change.
macro_rules! reactive_keys {
    ($($signal:ty),*) => {
        $(
            impl From<$signal> for EntityKey {
                fn from(pk: $signal) -> Self {
                    EntityKey::Reactive(pk.into())
                }
            }
        )*
    };
}

reactive_keys!(
    Signal<String>,
    ReadSignal<String>,
    RwSignal<String>,
    Memo<String>,
    ArcSignal<String>,
    ArcReadSignal<String>,
    ArcRwSignal<String>,
    ArcMemo<String>
);

/// One entity by primary key, straight from the store; never fetches. Use it in
/// list rows (`<For>` keyed by pk) so that a changed entity re-renders only its row.
///
/// ```no_run
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// let user = rdc_leptos::use_entity::<User>("u1");
/// # let _ = user;
/// ```
pub fn use_entity<E: Entity>(pk: impl Into<EntityKey>) -> Signal<Option<Arc<E>>> {
    entity_signal(pk.into())
}

/// One entity by a unique field other than its primary key (a slug, an
/// email), straight from the store; never fetches. It follows whichever
/// entity holds `value`: any write to the type's table reads it again.
///
/// ```no_run
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, email: String }
/// let ada = rdc_leptos::use_entity_by::<User>("email", "ada@example.com");
/// # let _ = ada;
/// ```
pub fn use_entity_by<E: Entity>(
    field: &'static str,
    value: impl Into<rdc_core::json::Value>,
) -> Signal<Option<Arc<E>>> {
    let controller = use_controller();
    let reader = controller.clone();
    let value = value.into();
    let (state, _) = follow(&controller, move || reader.entity_by::<E>(field, &value).ok().flatten());
    state.read_only().into()
}

/// [`use_entity`] once per entity type, not once per entity type and key type.
fn entity_signal<E: Entity>(pk: EntityKey) -> Signal<Option<Arc<E>>> {
    let controller = use_controller();
    let reader = controller.clone();
    match pk {
        EntityKey::Fixed(pk) => {
            let (state, _) = follow(&controller, move || reader.entity::<E>(pk.as_str()).ok().flatten());
            state.read_only().into()
        }
        EntityKey::Reactive(pk) => {
            let (state, refresh) =
                follow(&controller, move || pk.with_untracked(|pk| reader.entity::<E>(pk).ok().flatten()));
            // A new pk: read again.
            Effect::new(move |_| {
                pk.track();
                refresh();
            });
            state.read_only().into()
        }
    }
}

fn same_arc<T>(a: &Option<Arc<T>>, b: &Option<Arc<T>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// A signal of `read()`, recomputed after store changes to what it last read and
/// set only when the `Arc` changed; also returns a refresh for other triggers
/// (which records the reads again). Unlistens on cleanup.
fn follow<T: Send + Sync + 'static>(
    controller: &rdc_controller::Controller,
    read: impl Fn() -> Option<Arc<T>> + Send + Sync + 'static,
) -> (ArcRwSignal<Option<Arc<T>>>, Arc<dyn Fn() + Send + Sync>) {
    let state = ArcRwSignal::new(None);
    let listener = {
        let state = state.clone();
        move || {
            let next = read();
            if !state.with_untracked(|current| same_arc(current, &next)) {
                state.set(next);
            }
        }
    };
    let id = controller.listen_reads(listener);
    let refresh: Arc<dyn Fn() + Send + Sync> = {
        let controller = controller.clone();
        Arc::new(move || controller.run_listener(id))
    };
    let controller = controller.clone();
    on_cleanup(move || controller.unlisten(id));
    (state, refresh)
}
