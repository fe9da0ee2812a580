//! `use_mutation`: run a mutation from an event handler, with pending, error
//! and last-result signals.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::{FetchError, TypedEndpoint};

use crate::provider::use_controller;

type Start<C> = Box<dyn Fn(<C as TypedEndpoint>::Args, <C as TypedEndpoint>::Body)>;

/// What [`use_mutation`] returns: `Copy`, so view closures can share it (see
/// [`use_mutation`] for an example).
pub struct Mutation<C: TypedEndpoint>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    start: StoredValue<Start<C>, LocalStorage>,
    /// Whether the last run is in flight.
    pub pending: Signal<bool>,
    /// The last run's error (cleared when a run starts).
    pub error: Signal<Option<FetchError<C::Error>>>,
    /// The last run's result (kept until another run succeeds).
    pub value: Signal<Option<Arc<C::Result>>>,
}

impl<C: TypedEndpoint> std::fmt::Debug for Mutation<C>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutation").field("pending", &self.pending).finish_non_exhaustive()
    }
}

impl<C: TypedEndpoint> Clone for Mutation<C>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: TypedEndpoint> Copy for Mutation<C>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
}

impl<C: TypedEndpoint> Mutation<C>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    /// Sends `body` (for endpoints without args, such as a create).
    pub fn run(&self, body: C::Body)
    where
        C::Args: Default,
    {
        self.run_with(C::Args::default(), body);
    }

    /// Sends `body` with `args` (the path params of an update or a delete).
    pub fn run_with(&self, args: C::Args, body: C::Body) {
        self.start.with_value(|start| start(args, body));
    }
}

/// A mutation to run from event handlers: `create.run(NewUser { .. })` sends
/// it through the controller (its result normalized into the store, so every
/// list and view showing what changed updates) and keeps `pending`, `error`
/// and `value` current for the form. Only the latest run sets them: an answer
/// to an earlier run that lands later changes the store but not the signals.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_leptos::use_mutation;
/// use rdc_rest::RestEndpoint;
/// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
/// #[derive(serde::Serialize)]
/// struct NewUser { name: String }
///
/// #[component]
/// fn AddUser() -> impl IntoView {
///     use rdc_core::Entity;
///     let create = use_mutation(RestEndpoint::post("/api/users").args::<()>().body::<NewUser>().schema(User::schema()));
///     view! {
///         <button on:click=move |_| create.run(NewUser { name: "Ada".into() }) disabled=create.pending>"Add"</button>
///         {move || create.error.get().map(|e| e.to_string())}
///         {move || create.value.get().map(|user| format!("created {}", user.name))}
///     }
/// }
/// ```
pub fn use_mutation<C>(endpoint: C) -> Mutation<C>
where
    C: TypedEndpoint,
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    let controller = use_controller();
    let pending = RwSignal::new(false);
    let error = RwSignal::new(None::<FetchError<C::Error>>);
    let value = RwSignal::new(None::<Arc<C::Result>>);
    let latest = Rc::new(Cell::new(0u64));
    let start: Start<C> = Box::new(move |args, body| {
        let run = latest.get() + 1;
        latest.set(run);
        pending.set(true);
        error.set(None);
        let fetch = controller.fetch(&endpoint, args, body);
        let latest = Rc::clone(&latest);
        leptos::task::spawn_local(async move {
            let outcome = fetch.await;
            // The component may be gone: `try_set` leaves disposed signals be.
            if latest.get() == run {
                match outcome {
                    Ok(result) => {
                        value.try_set(Some(Arc::new(result)));
                    }
                    Err(e) => {
                        error.try_set(Some(e));
                    }
                }
                pending.try_set(false);
            }
        });
    });
    Mutation { start: StoredValue::new_local(start), pending: pending.into(), error: error.into(), value: value.into() }
}

#[cfg(feature = "offline")]
/// How many mutations wait to be sent: made offline (a [`DataProvider`](crate::DataProvider)
/// holds them until the browser is online again), or made while those were
/// still going out. For a "2 changes not sent yet" badge.
///
/// ```no_run
/// use leptos::prelude::*;
/// #[component]
/// fn Unsent() -> impl IntoView {
///     let waiting = rdc_leptos::use_queued_mutations();
///     view! { <Show when=move || { waiting.get() > 0 }>{move || format!("{} changes not sent yet", waiting.get())}</Show> }
/// }
/// ```
pub fn use_queued_mutations() -> Signal<usize> {
    let controller = use_controller();
    let count = RwSignal::new(0);
    let reader = controller.clone();
    let id = controller.listen_reads(move || {
        let queued = reader.queued_mutations();
        if count.get_untracked() != queued {
            count.set(queued);
        }
    });
    let controller = send_wrapper::SendWrapper::new(controller);
    on_cleanup(move || controller.unlisten(id));
    count.into()
}
