//! Users: `All(User)` and a create form; the new user appears without a refetch.
//! `list_rows` fetches the list and hands each row its user.

use leptos::prelude::*;
use rdc::leptos::{use_mutation, Row};

use crate::api::{all_users, users, NewUser, User};

/// One user: its name, again when the row's user changes.
fn user_row(row: Row<User>) -> impl IntoView {
    let id = row.pk().as_str().to_owned();
    view! { <li data-id=id>{move || row.with(|u| u.name.clone())}</li> }
}

#[component]
pub fn Users() -> impl IntoView {
    // (Suspends until the list is fetched; one reader for its rows.)
    let list = super::list_rows(all_users(), user_row);
    let create = use_mutation(users().create);
    let name = RwSignal::new(String::new());
    view! {
        <section>
            <h2>"Users"</h2>
            <p class="hint">"All(User): every user in the store, whichever endpoint brought it."</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading users…"</p> }>
                    <ul class="users">
                        {list}
                    </ul>
                </Suspense>
            </ErrorBoundary>
            <form on:submit=move |ev| {
                ev.prevent_default();
                create.run(NewUser { name: name.get_untracked() });
                name.set(String::new());
            }>
                <input id="new-user" placeholder="Name" prop:value=name on:input=move |ev| name.set(event_target_value(&ev))/>
                <button type="submit" disabled=create.pending>"Create user"</button>
                {move || create.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
            </form>
        </section>
    }
}
