//! One module per page.

pub mod base_url;
pub mod bytes;
pub mod define;
pub mod faults;
pub mod feed;
pub mod files;
pub mod headers;
pub mod items;
pub mod live;
pub mod notes;
pub mod prices;
pub mod scroll;
pub mod streams;
pub mod ticker;
pub mod uploads;
pub mod users;

use leptos::prelude::*;
use rdc::controller::FetchError;
use rdc::leptos::{use_list, use_suspense_keys, Readable, Row};
use rdc::prelude::Entity;

/// The list of `endpoint` on a page, inside a `<Suspense>`: suspends until
/// the list is fetched (reading its keys alone, for its status and error),
/// then renders each entity with `row`, from `use_list` (one reader for every
/// row; a row re-renders when its entity changes).
pub fn list_rows<C, E, V>(endpoint: C, row: fn(Row<E>) -> V) -> impl IntoView
where
    C: Readable<Args = (), Result = Vec<E>>,
    E: Entity,
    V: IntoView + 'static,
    Result<AnyView, FetchError<C::Error>>: IntoView,
{
    let fetched = use_suspense_keys(endpoint.clone(), ());
    let rows = use_list(endpoint, Signal::derive(|| Some(())));
    let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
    // The rows are rendered once the list is fetched (inside the Suspend): a
    // server renders what is outside it before the fetch lands.
    view! {
        {move || Suspend::new(async move {
            fetched.await.map(|_| view! { <For each=each key=|row| row.id() children=row/> }.into_any())
        })}
    }
}

/// Shows a fetch error the way every page does.
pub fn error_view(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <div class="error">
            {move || errors.get().into_iter().map(|(_, e)| view! { <p>{e.to_string()}</p> }).collect_view()}
        </div>
    }
}
