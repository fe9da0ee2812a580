//! Users: `All(User)` and a create form; the new user appears without a refetch.

use leptos::prelude::*;
use rdc::json;
use rdc::leptos::{use_controller, use_loading, use_suspense};

use crate::api::{all_users, users, User};

#[component]
pub fn Users() -> impl IntoView {
    let list = use_suspense::<_, Vec<User>>(all_users(), json!({}));
    let controller = use_controller();
    let create = users().create;
    let save = use_loading(move |name: String| {
        let fetch = controller.fetch(&create, json!({}), Some(json!({ "name": name })));
        async move { fetch.await.map(|_| ()).map_err(|e| e.to_string()) }
    });
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
                save.run.run(name.get_untracked());
                name.set(String::new());
            }>
                <input id="new-user" placeholder="Name" prop:value=name on:input=move |ev| name.set(event_target_value(&ev))/>
                <button type="submit" disabled=move || save.pending.get()>"Create user"</button>
                {move || save.error.get().map(|e| view! { <p class="error">{e}</p> })}
            </form>
        </section>
    }
}
