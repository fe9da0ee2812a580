//! The rdc demo app: a Leptos CSR app served by `trunk serve`, reading the demo API
//! through Trunk's `/api` proxy.

use leptos::prelude::*;
use serde::Deserialize;

/// A user as `/api/users` returns it.
#[derive(Debug, Clone, Deserialize, PartialEq)]
struct User {
    id: String,
    name: String,
}

async fn fetch_users() -> Result<Vec<User>, String> {
    let response = gloo_net::http::Request::get("/api/users").send().await.map_err(|e| e.to_string())?;
    if !response.ok() {
        return Err(format!("GET /api/users answered {}", response.status()));
    }
    response.json().await.map_err(|e| e.to_string())
}

#[component]
fn Users() -> impl IntoView {
    let users = LocalResource::new(fetch_users);
    view! {
        <section>
            <h2>"Users"</h2>
            <Suspense fallback=|| view! { <p class="loading">"Loading users…"</p> }>
                {move || users.get().map(|result| match result {
                    Ok(users) => view! {
                        <ul class="users">
                            {users.into_iter().map(|u| view! { <li data-id=u.id>{u.name}</li> }).collect_view()}
                        </ul>
                    }.into_any(),
                    Err(message) => view! { <p class="error">{message}</p> }.into_any(),
                })}
            </Suspense>
        </section>
    }
}

#[component]
fn App() -> impl IntoView {
    view! {
        <header><h1>"rdc demo"</h1></header>
        <main><Users/></main>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(App);
}
