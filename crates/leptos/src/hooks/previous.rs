//! `use_keep_previous`: the last args' data shown, flagged, while new args load;
//! `use_placeholder`: data to show, flagged, while nothing is stored.

use std::sync::Arc;

use leptos::prelude::*;
use rdc_controller::FetchError;
use serde::de::DeserializeOwned;

use crate::hooks::cache::use_dle;
use crate::hooks::suspense::Readable;

/// What [`use_keep_previous`] and [`use_placeholder`] return: [`use_dle`]'s
/// data, loading and error, and whether the data shown is a stand-in.
///
/// ```no_run
/// # use leptos::prelude::*;
/// fn label(shown: rdc_leptos::Shown<String, rdc_rest::RestError>) -> impl Fn() -> String {
///     move || match (shown.data.get(), shown.is_previous.get()) {
///         (Some(name), false) => name.to_string(),
///         (Some(name), true) => format!("{name} (loading…)"),
///         (None, _) => String::new(),
///     }
/// }
/// # let _ = label;
/// ```
#[derive(Debug)]
pub struct Shown<T: Send + Sync + 'static, E: Send + Sync + 'static> {
    /// The data of the current args, or a stand-in while they load.
    pub data: Signal<Option<Arc<T>>>,
    /// Whether `data` is not the current args' own (earlier args' data or a placeholder).
    pub is_previous: Signal<bool>,
    /// Whether a request is in flight.
    pub loading: Signal<bool>,
    /// The current args' error (no stand-in is shown once there is one).
    pub error: Signal<Option<FetchError<E>>>,
}

impl<T: Send + Sync + 'static, E: Send + Sync + 'static> Clone for Shown<T, E> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: Send + Sync + 'static, E: Send + Sync + 'static> Copy for Shown<T, E> {}

/// What is shown: the data and whether it is a stand-in.
type Showing<T> = (Option<Arc<T>>, bool);

/// [`use_dle`] that keeps showing the data last shown (for earlier args)
/// while the current args have neither data nor an error, with `is_previous`
/// set meanwhile: a table paged or filtered by its args does not blank out
/// while the next page loads. (TanStack Query's `placeholderData: keepPreviousData`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct Page { page: u32 }
/// let users = RestEndpoint::get("/api/users").args::<Page>().body::<()>().returns::<Vec<String>>();
/// let page = RwSignal::new(1);
/// let shown = rdc_leptos::use_keep_previous(users, Signal::derive(move || Some(Page { page: page.get() })));
/// let view = move || view! {
///     <ul style:opacity=move || if shown.is_previous.get() { "0.5" } else { "1" }>
///         {shown.data.get().map(|names| names.iter().map(|n| view! { <li>{n.clone()}</li> }).collect_view())}
///     </ul>
/// };
/// # let _ = view;
/// ```
pub fn use_keep_previous<C>(endpoint: C, args: impl Into<Signal<Option<C::Args>>>) -> Shown<C::Result, C::Error>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let dle = use_dle(endpoint, args);
    let (data, error) = (dle.data, dle.error);
    let showing = Memo::new_with_compare(
        move |before: Option<&Showing<C::Result>>| match data.get() {
            Some(own) => (Some(own), false),
            None if error.with(Option::is_none) => {
                let previous = before.and_then(|(shown, _)| shown.clone());
                let stand_in = previous.is_some();
                (previous, stand_in)
            }
            None => (None, false),
        },
        changed,
    );
    // Computed as the data comes, not only when read: what earlier args had
    // is there to keep even if nothing read it meanwhile.
    Effect::new(move |_| showing.with(|_| ()));
    shown(showing, dle.loading, error)
}

/// [`use_dle`] showing `placeholder(args)` (when it gives one) while nothing
/// is stored for the current args and there is no error, with `is_previous`
/// set meanwhile. The placeholder is never stored: the fetch goes out as
/// usual. To store data as if fetched instead (TanStack Query's
/// `initialData`), call `Controller::set_response` before reading.
/// (TanStack Query's `placeholderData`.)
///
/// ```no_run
/// # use leptos::prelude::*;
/// # use rdc_rest::RestEndpoint;
/// #[derive(Clone, PartialEq, serde::Serialize)]
/// struct UserId { id: String }
/// let name = RestEndpoint::get("/api/users/:id/name").args::<UserId>().body::<()>().returns::<String>();
/// let id = Signal::derive(|| Some(UserId { id: "1".into() }));
/// let shown = rdc_leptos::use_placeholder(name, id, |_| Some("…".to_string()));
/// # let _ = shown;
/// ```
pub fn use_placeholder<C>(
    endpoint: C,
    args: impl Into<Signal<Option<C::Args>>>,
    placeholder: impl Fn(&C::Args) -> Option<C::Result> + Send + Sync + 'static,
) -> Shown<C::Result, C::Error>
where
    C: Readable,
    C::Result: DeserializeOwned + Send + Sync,
{
    let args: Signal<Option<C::Args>> = args.into();
    let dle = use_dle(endpoint, args);
    let (data, error) = (dle.data, dle.error);
    let showing = Memo::new_with_compare(
        move |_: Option<&Showing<C::Result>>| match data.get() {
            Some(own) => (Some(own), false),
            None if error.with(Option::is_none) => {
                let stand_in = args.with(|a| a.as_ref().and_then(&placeholder)).map(Arc::new);
                let is_stand_in = stand_in.is_some();
                (stand_in, is_stand_in)
            }
            None => (None, false),
        },
        changed,
    );
    shown(showing, dle.loading, error)
}

fn shown<T: Send + Sync + 'static, E: Send + Sync + 'static>(
    showing: Memo<Showing<T>>,
    loading: Signal<bool>,
    error: Signal<Option<FetchError<E>>>,
) -> Shown<T, E> {
    Shown {
        data: Signal::derive(move || showing.with(|(data, _)| data.clone())),
        is_previous: Signal::derive(move || showing.with(|(_, stand_in)| *stand_in)),
        loading,
        error,
    }
}

/// Whether what is shown changed: another `Arc` or another flag.
fn changed<T>(before: Option<&Showing<T>>, after: Option<&Showing<T>>) -> bool {
    let same = match (before, after) {
        (Some((a, a_flag)), Some((b, b_flag))) => {
            a_flag == b_flag
                && match (a, b) {
                    (Some(a), Some(b)) => Arc::ptr_eq(a, b),
                    (None, None) => true,
                    _ => false,
                }
        }
        (None, None) => true,
        _ => false,
    };
    !same
}
