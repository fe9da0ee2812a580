//! Users: `All(User)` and a create form; the new user appears without a refetch.
//! `use_suspense` fetches the list, `use_list` hands each row its user.

use leptos::prelude::*;
use rdc::leptos::{use_list, use_mutation, use_suspense, Row};

use crate::api::{all_users, users, NewUser, User};

/// One user: its name, again when the row's user changes.
fn user_row(row: Row<User>) -> impl IntoView {
    let id = row.pk().as_str().to_owned();
    view! { <li data-id=id>{move || row.with(|u| u.name.clone())}</li> }
}

#[component]
pub fn Users() -> impl IntoView {
    let list = use_suspense(all_users(), ());
    let rows = use_list(all_users(), Signal::derive(|| Some(())));
    let each = move || rows.get().map(|rows| rows.to_vec()).unwrap_or_default();
    let create = use_mutation(users().create);
    let name = RwSignal::new(String::new());
    view! {
        <section>
            <h2>"Users"</h2>
            <p class="hint">"All(User): every user in the store, whichever endpoint brought it."</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading users…"</p> }>
                    <ul class="users">
                        // (Suspends until the list is fetched; the rows come from `use_list`.)
                        {move || Suspend::new(async move { list.await.map(|_| ()) })}
                        <For each=each key=|row| row.id() children=user_row/>
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
