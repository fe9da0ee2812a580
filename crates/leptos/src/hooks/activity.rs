//! What is in flight app-wide, as signals: one spinner for every read, a
//! "saving…" bar for the mutations.

use leptos::prelude::*;
use rdc_controller::{Controller, InFlight, TypedEndpoint};

use crate::provider::use_controller;

/// A signal of `measure(controller)`, set again whenever a request starts
/// or settles (a tracked listener of the controller's activity).
fn follow<T>(measure: impl Fn(&Controller) -> T + Send + Sync + 'static) -> Signal<T>
where
    T: PartialEq + Clone + Send + Sync + 'static,
{
    let controller = use_controller();
    let reader = controller.clone();
    let value = RwSignal::new(measure(&controller));
    let id = controller.listen_reads(move || {
        let now = measure(&reader);
        if value.try_with_untracked(|v| *v != now).unwrap_or(false) {
            value.try_set(now);
        }
    });
    on_cleanup(move || controller.unlisten(id));
    value.into()
}

/// How many reads are in flight app-wide (TanStack's `useIsFetching`): show
/// one spinner while it is above 0. It goes back to 0 after answers,
/// errors, timeouts and aborts alike.
///
/// ```no_run
/// use leptos::prelude::*;
/// #[component]
/// fn Spinner() -> impl IntoView {
///     let fetching = rdc_leptos::use_is_fetching();
///     view! { <Show when=move || { fetching.get() > 0 }>"Loading…"</Show> }
/// }
/// ```
pub fn use_is_fetching() -> Signal<usize> {
    follow(Controller::fetching_count)
}

/// How many reads of `endpoint` (any args) are in flight.
///
/// ```no_run
/// use leptos::prelude::*;
/// use rdc_rest::RestEndpoint;
/// #[component]
/// fn UsersSpinner() -> impl IntoView {
///     let fetching = rdc_leptos::use_is_fetching_of(RestEndpoint::get("/api/users"));
///     view! { <Show when=move || { fetching.get() > 0 }>"Loading users…"</Show> }
/// }
/// ```
pub fn use_is_fetching_of<C: TypedEndpoint>(endpoint: C) -> Signal<usize> {
    follow(move |controller| controller.fetching_count_of(&endpoint))
}

/// The mutations sent and not settled yet, oldest first (TanStack's
/// `useMutationState` for pending mutations): each with its key and JSON
/// args, for a "saving…" bar.
///
/// ```no_run
/// use leptos::prelude::*;
/// #[component]
/// fn Saving() -> impl IntoView {
///     let saving = rdc_leptos::use_pending_mutations();
///     view! { <Show when=move || saving.with(|s| !s.is_empty())>{move || format!("saving {}…", saving.with(Vec::len))}</Show> }
/// }
/// ```
pub fn use_pending_mutations() -> Signal<Vec<InFlight>> {
    follow(Controller::pending_mutations)
}
