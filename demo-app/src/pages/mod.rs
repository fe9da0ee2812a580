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

/// Shows a fetch error the way every page does.
pub fn error_view(errors: ArcRwSignal<Errors>) -> impl IntoView {
    view! {
        <div class="error">
            {move || errors.get().into_iter().map(|(_, e)| view! { <p>{e.to_string()}</p> }).collect_view()}
        </div>
    }
}
