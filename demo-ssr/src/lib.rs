//! The rdc demo's pages rendered on the server and hydrated in the browser:
//! the same components as the client-rendered demo, behind one `DataProvider`
//! whose controller, on the server, belongs to one request.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::hooks::use_params_map;
use leptos_router::path;
use rdc::controller::{from_fn, FnEndpoint};
use rdc::core::All;
use rdc::leptos::{new_controller, use_server_action, use_suspense, DataProvider};
use rdc::rest;
use rdc::rest::RestEndpoint;
use rdc_demo::api::{all_users, users, User, UserId};
use rdc_demo::pages::{items::Items, users::Users};
use serde::Deserialize;

/// The signed-in user, as `/api/me` names them (from the `user` cookie).
#[derive(Debug, Clone, PartialEq, Deserialize, rdc::Entity)]
pub struct Me {
    pub id: String,
    pub name: String,
}

fn me() -> RestEndpoint<(), (), Me> {
    rest!(GET "/api/me" -> Me)
}

/// Who the page is for: the server read it with the request's cookie.
#[component]
fn MePage() -> impl IntoView {
    let me = rdc::leptos::use_suspense(me(), ());
    // The error is shown inside the Suspense, not thrown to an ErrorBoundary:
    // Leptos 0.8's boundary loses an error a suspended read throws when the
    // render moves to another worker thread (README, Server-side rendering).
    view! {
        <section>
            <h2>"Me"</h2>
            <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                {move || Suspend::new(async move {
                    match me.await {
                        Ok(me) => view! { <p id="me">"Signed in as " <b>{me.name.clone()}</b></p> }.into_any(),
                        Err(error) => view! { <div class="error"><p>{error.to_string()}</p></div> }.into_any(),
                    }
                })}
            </Suspense>
        </section>
    }
}

/// Creates a user: runs on the server (the form posts here, before hydration
/// as a plain HTML form, after through the server action), which asks the API.
/// Answers the demo's `User` as the store holds it (camelCase, what the
/// create endpoint's key-case recipe makes), since `use_server_action` writes
/// the answer as it is.
#[server(prefix = "/fn", endpoint = "create_user")]
pub async fn create_user(name: String) -> Result<User, ServerFnError> {
    server::create_user(name).await
}

/// Users added through a server function: a form that works before the page
/// hydrates; after, its answer lands in the store and the list (read through
/// rdc) shows it with no reload and no refetch.
#[component]
fn FormPage() -> impl IntoView {
    let list = rdc::leptos::use_suspense(all_users(), ());
    let form = use_server_action(users().create, ServerAction::<CreateUser>::new());
    view! {
        <section>
            <h2>"Add a user through a server function"</h2>
            <p class="hint">"An ActionForm: a plain form before hydration, its answer normalized into the store after."</p>
            <ErrorBoundary fallback=rdc_demo::pages::error_view>
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
            <ActionForm action=form.action>
                <input id="form-name" name="name" placeholder="Name"/>
                <button id="form-submit" type="submit" disabled=form.pending>"Add through the server"</button>
            </ActionForm>
            {move || form.error.get().map(|e| view! { <p class="error">{e.to_string()}</p> })}
        </section>
    }
}

/// One user's page (`/users/:id`): that user and no other.
#[component]
fn UserPage() -> impl IntoView {
    let params = use_params_map();
    let id = params.with_untracked(|p| p.get("id").unwrap_or_default());
    let user = use_suspense(users().get, UserId { id });
    view! {
        <section>
            <h2>"User"</h2>
            <ErrorBoundary fallback=rdc_demo::pages::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                    {move || Suspend::new(async move {
                        user.await.map(|u| view! { <p id="user" data-id=u.id.clone()>{u.name.clone()}</p> })
                    })}
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}

/// The team: every user, as the `team` server function answers (it asks
/// the API on the server). Read through rdc like any endpoint, so the users
/// land in the same `User` table as `/api/users`' and the browser takes the
/// server's answer up instead of calling the function again.
#[server(prefix = "/fn", endpoint = "team")]
pub async fn team() -> Result<Vec<User>, ServerFnError> {
    server::team().await
}

/// The `team` server function as an rdc endpoint.
pub fn team_endpoint() -> FnEndpoint<(), Vec<User>, ServerFnError> {
    from_fn("team", |(): ()| team()).schema(All::of::<User>())
}

#[component]
fn TeamPage() -> impl IntoView {
    let team = use_suspense(team_endpoint(), ());
    view! {
        <section>
            <h2>"Team, through a server function"</h2>
            <ErrorBoundary fallback=rdc_demo::pages::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                    <ul class="team">
                        {move || Suspend::new(async move {
                            team.await.map(|users| {
                                users.iter().map(|u| view! { <li data-id=u.id.clone()>{u.name.clone()}</li> }).collect_view()
                            })
                        })}
                    </ul>
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}

/// The app: one controller per render (on the server, per request), and
/// `leptos_router`'s routes, which the server renders and the browser hydrates.
#[component]
pub fn App() -> impl IntoView {
    let controller = new_controller();
    #[cfg(feature = "ssr")]
    server::give_client(&controller);
    // Effects run only in the browser, once hydrated: the end-to-end test waits for this mark.
    Effect::new(|_| {
        if let Some(body) = document().body() {
            let _ = body.set_attribute("data-hydrated", "");
        }
    });
    view! {
        <DataProvider controller=controller>
            <Router>
                <header>
                    <h1>"rdc demo, rendered on the server"</h1>
                    <nav>
                        <A href="/users">"Users"</A>
                        <A href="/items">"Pages"</A>
                        <A href="/me">"Me"</A>
                        <A href="/form">"Form"</A>
                        <A href="/team">"Team"</A>
                    </nav>
                </header>
                <main>
                    <Routes fallback=|| view! { <p class="error">"No such page."</p> }>
                        <Route path=path!("/") view=Users/>
                        <Route path=path!("/users") view=Users/>
                        <Route path=path!("/users/:id") view=UserPage/>
                        <Route path=path!("/items") view=Items/>
                        <Route path=path!("/me") view=MePage/>
                        <Route path=path!("/form") view=FormPage/>
                        <Route path=path!("/team") view=TeamPage/>
                    </Routes>
                </main>
            </Router>
        </DataProvider>
    }
}

/// The whole document the server sends.
pub fn shell(options: LeptosOptions) -> impl IntoView {
    view! {
        <!DOCTYPE html>
        <html lang="en">
            <head>
                <meta charset="utf-8"/>
                <meta name="viewport" content="width=device-width, initial-scale=1"/>
                <title>"rdc demo (SSR)"</title>
                <link rel="stylesheet" href="/pkg/rdc_demo_ssr.css"/>
                <HydrationScripts options/>
            </head>
            <body>
                <App/>
            </body>
        </html>
    }
}

/// What the server gives each page's controller.
#[cfg(feature = "ssr")]
pub mod server {
    use leptos::prelude::*;

    /// The API server's address, for the fetches a render makes and the
    /// server functions: set once, by `main`, before serving.
    static API_BASE: std::sync::OnceLock<String> = std::sync::OnceLock::new();

    /// Sets the API server's address (the first call wins).
    pub fn set_api_base(base: String) {
        let _ = API_BASE.set(base);
    }

    fn api_base() -> Option<&'static str> {
        API_BASE.get().map(String::as_str)
    }

    /// Gives `controller` a client to the API that carries this request's
    /// cookie: the app's choice, so the API answers for this user.
    pub fn give_client(controller: &rdc::controller::Controller) {
        let Some(base) = api_base() else { return };
        let Ok(mut client) = rdc::rest::ReqwestClient::new(base) else { return };
        if let Some(cookie) = cookie() {
            client = client.forward("cookie", &cookie);
        }
        rdc::rest::provide_client(controller, client);
    }

    /// This request's cookies: every Cookie header (HTTP/2 may split them), as one.
    fn cookie() -> Option<String> {
        let cookies: Vec<String> = use_context::<axum::http::request::Parts>()
            .map(|p| {
                let all = p.headers.get_all(axum::http::header::COOKIE);
                all.iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect()
            })
            .unwrap_or_default();
        (!cookies.is_empty()).then(|| cookies.join("; "))
    }

    /// The longest name `create_user` sends on.
    const MAX_NAME: usize = 200;
    /// The most of the API's answer `create_user` reads.
    const MAX_ANSWER: usize = 16 * 1024;
    /// The most of the API's answer `team` reads.
    const MAX_TEAM: usize = 1 << 20;
    /// The most of the API's error message the server function's error quotes.
    const MAX_MESSAGE: usize = 200;
    /// How long `create_user` waits for the API.
    const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

    /// `POST /api/users` on the API, for the `create_user` server function, as
    /// this request's user (its cookie forwarded, as the pages' fetches do).
    pub async fn create_user(name: String) -> Result<rdc_demo::api::User, ServerFnError> {
        if name.chars().count() > MAX_NAME {
            return Err(failed(format!("create_user: the name is too long (at most {MAX_NAME} characters)")));
        }
        let Some(base) = api_base() else {
            return Err(failed("create_user: no API address".into()));
        };
        let body = serde_json::json!({ "name": name }).to_string();
        let mut request = http()
            .post(format!("{base}/api/users"))
            .timeout(TIMEOUT)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body);
        if let Some(cookie) = cookie() {
            request = request.header(reqwest::header::COOKIE, cookie);
        }
        let mut sent = request.send().await.map_err(|e| failed(format!("POST /api/users: {e}")))?;
        let status = sent.status();
        let text = read_bounded(&mut sent, MAX_ANSWER).await?;
        if !status.is_success() {
            // The API's own message (`{"error": ".."}`, its start), else the status.
            let said: String = serde_json::from_slice::<serde_json::Value>(&text)
                .ok()
                .and_then(|v| v.get("error")?.as_str().map(|s| s.chars().take(MAX_MESSAGE).collect()))
                .unwrap_or_else(|| status.to_string());
            return Err(failed(format!("POST /api/users: HTTP {}: {said}", status.as_u16())));
        }
        serde_json::from_slice(&text).map_err(|e| failed(format!("POST /api/users: {e}")))
    }

    /// `GET /api/users` on the API, for the `team` server function.
    pub async fn team() -> Result<Vec<rdc_demo::api::User>, ServerFnError> {
        let Some(base) = api_base() else {
            return Err(failed("team: no API address".into()));
        };
        let mut sent = http()
            .get(format!("{base}/api/users"))
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(|e| failed(format!("GET /api/users: {e}")))?;
        let status = sent.status();
        let text = read_bounded(&mut sent, MAX_TEAM).await?;
        if !status.is_success() {
            return Err(failed(format!("GET /api/users: HTTP {}", status.as_u16())));
        }
        // The API speaks snake_case; the store holds the demo's camelCase `User` (one word each here).
        serde_json::from_slice(&text).map_err(|e| failed(format!("GET /api/users: {e}")))
    }

    /// The one HTTP client of the server functions.
    fn http() -> &'static reqwest::Client {
        static HTTP: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
        HTTP.get_or_init(reqwest::Client::new)
    }

    /// The API's answer, refused past `max` bytes.
    async fn read_bounded(response: &mut reqwest::Response, max: usize) -> Result<Vec<u8>, ServerFnError> {
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| failed(format!("reading the API's answer: {e}")))? {
            if body.len() + chunk.len() > max {
                return Err(failed(format!("the API's answer is over {max} bytes")));
            }
            body.extend_from_slice(&chunk);
        }
        Ok(body)
    }

    /// The server function's error, with what went wrong.
    fn failed(message: String) -> ServerFnError {
        ServerFnError::ServerError(message)
    }
}

/// The browser's entry point: hydrates the server's HTML.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}
