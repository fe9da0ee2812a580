//! Users: `All(User)` and a create form; the new user appears without a refetch.

use leptos::prelude::*;
use rdc::leptos::{use_mutation, use_suspense};

use crate::api::{all_users, users, NewUser};

#[component]
pub fn Users() -> impl IntoView {
    let list = use_suspense(all_users(), ());
    let create = use_mutation(users().create);
    let name = RwSignal::new(String::new());
    view! {
        <section>
            <h2>"Users"</h2>
            <p class="hint">"All(User): every user in the store, whichever endpoint brought it."</p>
            <ErrorBoundary fallback=super::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading users…"</p> }>
                    <ul class="users">
                        {move || Suspend::new(async move {
                            list.await.map(|users| {
                                users.iter().map(|u| view! { <li data-id=u.id.clone()>{u.name.clone()}</li> }).collect_view()
                            })
                        })}
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
