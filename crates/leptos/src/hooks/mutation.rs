//! `use_mutation`: run a mutation from an event handler, with pending, error
//! and last-result signals.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::{Controller, FetchError, MutationCallbacks, Settled, TypedEndpoint};

use crate::provider::use_controller;

/// What runs a [`Mutation`]: the controller, the endpoint, its signals.
struct Runner<C: TypedEndpoint>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    controller: Controller,
    endpoint: C,
    latest: AtomicU64,
    pending: RwSignal<bool>,
    error: RwSignal<Option<FetchError<C::Error>>>,
    value: RwSignal<Option<Arc<C::Result>>>,
}

impl<C: TypedEndpoint> Runner<C>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    fn run<X: Send + 'static>(self: &Arc<Self>, args: C::Args, body: C::Body, callbacks: &MutationCallbacks<C, X>) {
        let run = self.latest.fetch_add(1, Ordering::SeqCst) + 1;
        self.pending.set(true);
        self.error.set(None);
        let fetch = self.controller.fetch_with(&self.endpoint, args, body, callbacks);
        let this = Arc::clone(self);
        leptos::task::spawn(async move {
            let outcome = fetch.await;
            // The component may be gone: `try_set` leaves disposed signals be.
            if this.latest.load(Ordering::SeqCst) == run {
                match outcome {
                    Ok(result) => {
                        this.value.try_set(Some(Arc::new(result)));
                    }
                    Err(e) => {
                        this.error.try_set(Some(e));
                    }
                }
                this.pending.try_set(false);
            }
        });
    }
}

/// What [`use_mutation`] returns: `Copy`, so view closures can share it (see
/// [`use_mutation`] for an example). `X` is what its `on_mutate` returns.
pub struct Mutation<C: TypedEndpoint, X: Send + 'static = ()>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    runner: StoredValue<Arc<Runner<C>>>,
    callbacks: StoredValue<MutationCallbacks<C, X>>,
    /// Whether the last run is in flight.
    pub pending: Signal<bool>,
    /// The last run's error (cleared when a run starts).
    pub error: Signal<Option<FetchError<C::Error>>>,
    /// The last run's result (kept until another run succeeds).
    pub value: Signal<Option<Arc<C::Result>>>,
}

impl<C: TypedEndpoint, X: Send + 'static> std::fmt::Debug for Mutation<C, X>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mutation").field("pending", &self.pending).finish_non_exhaustive()
    }
}

impl<C: TypedEndpoint, X: Send + 'static> Clone for Mutation<C, X>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    fn clone(&self) -> Self {
        *self
    }
}

impl<C: TypedEndpoint, X: Send + 'static> Copy for Mutation<C, X>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
}

impl<C: TypedEndpoint, X: Send + 'static> Mutation<C, X>
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
        let callbacks = self.callbacks.with_value(Clone::clone);
        self.runner.with_value(|runner| runner.run(args, body, &callbacks));
    }

    /// Runs `f` with the result, the args and `on_mutate`'s context after
    /// each run that succeeds, once the store holds its answer (every run,
    /// even after the component is gone). See [`use_mutation`].
    ///
    /// ```no_run
    /// # use rdc_core::Entity;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # fn demo() {
    /// let save = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<String>().schema(User::schema());
    /// let save = rdc_leptos::use_mutation(save)
    ///     .on_success(|user: &User, _, _| leptos::logging::log!("saved {}", user.name));
    /// # let _ = save;
    /// # }
    /// ```
    pub fn on_success(self, f: impl Fn(&C::Result, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.callbacks.update_value(|callbacks| *callbacks = callbacks.clone().on_success(f));
        self
    }

    /// Runs `f` with the error, the args and the context after each run
    /// that fails (an HTTP error, a timeout, a reset...). See [`use_mutation`].
    ///
    /// ```no_run
    /// # use rdc_core::Entity;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # fn demo() {
    /// let save = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<String>().schema(User::schema());
    /// let save = rdc_leptos::use_mutation(save)
    ///     .on_error(|error, _, _| leptos::logging::log!("not saved: {error}"));
    /// # let _ = save;
    /// # }
    /// ```
    pub fn on_error(self, f: impl Fn(&FetchError<C::Error>, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.callbacks.update_value(|callbacks| *callbacks = callbacks.clone().on_error(f));
        self
    }

    /// Runs `f` after `on_success` or `on_error`, with the outcome. See [`use_mutation`].
    ///
    /// ```no_run
    /// # use rdc_core::Entity;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # fn demo() {
    /// let save = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<String>().schema(User::schema());
    /// let save = rdc_leptos::use_mutation(save)
    ///     .on_settled(|_, _, _| leptos::logging::log!("done"));
    /// # let _ = save;
    /// # }
    /// ```
    pub fn on_settled(self, f: impl Fn(Settled<'_, C>, &C::Args, &X) + Send + Sync + 'static) -> Self {
        self.callbacks.update_value(|callbacks| *callbacks = callbacks.clone().on_settled(f));
        self
    }
}

impl<C: TypedEndpoint> Mutation<C, ()>
where
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    /// Runs `f` with the args as each run starts, before anything is sent;
    /// what it returns (the context: say, what to put back on failure)
    /// reaches the other callbacks. Call it first. See [`use_mutation`].
    ///
    /// ```no_run
    /// # use rdc_core::Entity;
    /// # #[derive(Clone, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # fn demo() {
    /// let save = rdc_rest::RestEndpoint::post("/api/users").args::<()>().body::<String>().schema(User::schema());
    /// let save = rdc_leptos::use_mutation(save)
    ///     .on_mutate(|_| "me").on_success(|_, _, who| leptos::logging::log!("saved {who}"));
    /// # let _ = save;
    /// # }
    /// ```
    pub fn on_mutate<Y: Send + 'static>(self, f: impl Fn(&C::Args) -> Y + Send + Sync + 'static) -> Mutation<C, Y> {
        let callbacks = self.callbacks.with_value(|callbacks| callbacks.clone().on_mutate(f));
        Mutation {
            runner: self.runner,
            callbacks: StoredValue::new(callbacks),
            pending: self.pending,
            error: self.error,
            value: self.value,
        }
    }
}

/// A mutation to run from event handlers: `create.run(NewUser { .. })` sends
/// it through the controller (its result normalized into the store, so every
/// list and view showing what changed updates) and keeps `pending`, `error`
/// and `value` current for the form. Only the latest run sets them: an answer
/// to an earlier run that lands later changes the store but not the signals.
///
/// Callbacks run for every run: `on_mutate` before it is sent (its return
/// value, the context, reaches the others), then `on_success` with the
/// typed result or `on_error` with the typed error, then `on_settled`
/// (TanStack's `useMutation` callbacks; [`MutationCallbacks`] has them for
/// `Controller::fetch_with`).
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
///     let notice = RwSignal::new(String::new());
///     let create = use_mutation(RestEndpoint::post("/api/users").args::<()>().body::<NewUser>().schema(User::schema()))
///         .on_mutate(|_| "Ada")
///         .on_success(move |user, _, who| notice.set(format!("{who} is user {}", user.id)))
///         .on_error(move |error, _, _| notice.set(format!("not saved: {error}")));
///     view! {
///         <button on:click=move |_| create.run(NewUser { name: "Ada".into() }) disabled=create.pending>"Add"</button>
///         {move || create.error.get().map(|e| e.to_string())}
///         {move || create.value.get().map(|user| format!("created {}", user.name))}
///         {notice}
///     }
/// }
/// ```
pub fn use_mutation<C>(endpoint: C) -> Mutation<C>
where
    C: TypedEndpoint,
    C::Result: Send + Sync,
    C::Error: Send + Sync,
{
    let runner = Runner {
        controller: use_controller(),
        endpoint,
        latest: AtomicU64::new(0),
        pending: RwSignal::new(false),
        error: RwSignal::new(None),
        value: RwSignal::new(None),
    };
    let (pending, error, value) = (runner.pending.into(), runner.error.into(), runner.value.into());
    Mutation {
        runner: StoredValue::new(Arc::new(runner)),
        callbacks: StoredValue::new(MutationCallbacks::new()),
        pending,
        error,
        value,
    }
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
    on_cleanup(move || controller.unlisten(id));
    count.into()
}
