//! The rdc demo's pages rendered on the server and hydrated in the browser:
//! the same components as the client-rendered demo, behind one `DataProvider`
//! whose controller, on the server, belongs to one request.

use leptos::prelude::*;
use rdc::leptos::{new_controller, DataProvider};
use rdc::rest;
use rdc::rest::RestEndpoint;
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
    view! {
        <section>
            <h2>"Me"</h2>
            <ErrorBoundary fallback=rdc_demo::pages::error_view>
                <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
                    {move || Suspend::new(async move {
                        me.await.map(|me| view! { <p id="me">"Signed in as " <b>{me.name.clone()}</b></p> })
                    })}
                </Suspense>
            </ErrorBoundary>
        </section>
    }
}

/// The path of the page: the request's on the server, the location's in the browser.
fn path() -> String {
    #[cfg(feature = "ssr")]
    return use_context::<axum::http::request::Parts>().map(|p| p.uri.path().to_owned()).unwrap_or_default();
    #[cfg(all(feature = "hydrate", not(feature = "ssr")))]
    return web_sys::window().and_then(|w| w.location().pathname().ok()).unwrap_or_default();
    #[cfg(not(any(feature = "ssr", feature = "hydrate")))]
    String::new()
}

/// The app: a page per path, each a plain link away (every page load is rendered on the server).
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
            <header>
                <h1>"rdc demo, rendered on the server"</h1>
                <nav><a href="/users">"Users"</a><a href="/items">"Pages"</a><a href="/me">"Me"</a></nav>
            </header>
            // Built inside the provider (children are), so the pages find its controller.
            <main>
                {match path().as_str() {
                    "/items" => Items().into_any(),
                    "/me" => MePage().into_any(),
                    _ => Users().into_any(),
                }}
            </main>
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
                <link rel="stylesheet" href="/style.css"/>
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

    /// The API server's address, for the fetches a render makes.
    #[derive(Debug, Clone)]
    pub struct ApiBase(pub String);

    /// Gives `controller` a client to the API that carries this request's
    /// cookie: the app's choice, so the API answers for this user.
    pub fn give_client(controller: &rdc::controller::Controller) {
        let Some(ApiBase(base)) = use_context::<ApiBase>() else { return };
        let Ok(mut client) = rdc::rest::ReqwestClient::new(&base) else { return };
        // Every Cookie header (HTTP/2 may split them), as one.
        let cookies: Vec<String> = use_context::<axum::http::request::Parts>()
            .map(|p| {
                let all = p.headers.get_all(axum::http::header::COOKIE);
                all.iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect()
            })
            .unwrap_or_default();
        if !cookies.is_empty() {
            client = client.forward("cookie", &cookies.join("; "));
        }
        rdc::rest::provide_client(controller, client);
    }
}

/// The browser's entry point: hydrates the server's HTML.
#[cfg(feature = "hydrate")]
#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(App);
}
