//! The rdc demo: every example of the specification as a page, with rdc's
//! devtools. Served by `trunk serve` (see the README's demo command); each page
//! has its path (`/users`, `/streams/ninja`...), routed by `leptos_router`.

use leptos::prelude::*;
use leptos_router::components::{Route, Router, Routes, A};
use leptos_router::hooks::{use_location, use_params_map};
use leptos_router::path;
use rdc::controller::Controller;
use rdc::leptos::{new_controller, DataProvider};
use rdc_demo::api::Transport;
use rdc_demo::pages;

/// The nav's links: a page's path and its label.
const NAV: [(&str, &str); 16] = [
    ("/users", "Users"),
    ("/notes", "Notes"),
    ("/feed", "Feed"),
    ("/define", "Define"),
    ("/prices", "Prices"),
    ("/streams/ninja", "Streams"),
    ("/base-url/ninja", "Base URL"),
    ("/ticker", "Ticker"),
    ("/live", "Live"),
    ("/files", "Files"),
    ("/bytes", "Bytes"),
    ("/headers", "Headers"),
    ("/uploads", "Uploads"),
    ("/items", "Pages"),
    ("/scroll", "Infinite"),
    ("/faults", "Faults"),
];

/// A path's first segment: the page it belongs to (`/streams/shroud` is Streams').
fn section(path: &str) -> &str {
    path.trim_start_matches('/').split('/').next().unwrap_or_default()
}

/// The nav, its current page's link marked `active`.
#[component]
fn Nav() -> impl IntoView {
    let pathname = use_location().pathname;
    NAV.into_iter()
        .map(|(href, label)| {
            let active = move || pathname.with(|p| section(p) == section(href));
            view! { <A href={href} {..} class:active=active>{label}</A> }
        })
        .collect_view()
}

/// The `:username` in the page's path, or `ninja`.
fn username() -> Memo<String> {
    let params = use_params_map();
    Memo::new(move |_| params.read().get("username").unwrap_or_else(|| "ninja".to_owned()))
}

/// Streams for the path's username (built again when it changes).
#[component]
fn StreamsPage() -> impl IntoView {
    let username = username();
    move || view! { <pages::streams::Streams username=username.get()/> }
}

/// Base URL for the path's username (built again when it changes).
#[component]
fn BaseUrlPage() -> impl IntoView {
    let username = username();
    move || view! { <pages::base_url::BaseUrl username=username.get()/> }
}

#[component]
fn App(controller: Controller) -> impl IntoView {
    view! {
        <DataProvider controller=controller>
            <rdc_devtools::Devtools/>
            <Router>
                <header>
                    <h1>"rdc demo"</h1>
                    <nav><Nav/></nav>
                </header>
                <div class="layout">
                    <main>
                        // An unknown path shows the users, as `/` does.
                        <Routes fallback=pages::users::Users>
                            <Route path=path!("/") view=pages::users::Users/>
                            <Route path=path!("/users") view=pages::users::Users/>
                            <Route path=path!("/notes") view=pages::notes::Notes/>
                            <Route path=path!("/feed") view=pages::feed::Feed/>
                            <Route path=path!("/define") view=pages::define::Define/>
                            <Route path=path!("/prices") view=pages::prices::Prices/>
                            <Route path=path!("/streams") view=StreamsPage/>
                            <Route path=path!("/streams/:username") view=StreamsPage/>
                            <Route path=path!("/base-url") view=BaseUrlPage/>
                            <Route path=path!("/base-url/:username") view=BaseUrlPage/>
                            <Route path=path!("/ticker") view=pages::ticker::TickerPage/>
                            <Route path=path!("/live") view=|| view! { <pages::live::Live transport=Transport::Sse/> }/>
                            <Route path=path!("/live/ws") view=|| view! { <pages::live::Live transport=Transport::Ws/> }/>
                            <Route path=path!("/files") view=pages::files::Files/>
                            <Route path=path!("/bytes") view=pages::bytes::Bytes/>
                            <Route path=path!("/headers") view=pages::headers::Headers/>
                            <Route path=path!("/uploads") view=pages::uploads::Uploads/>
                            <Route path=path!("/items") view=pages::items::Items/>
                            <Route path=path!("/scroll") view=pages::scroll::Scroll/>
                            <Route path=path!("/faults") view=pages::faults::Faults/>
                        </Routes>
                    </main>
                </div>
            </Router>
        </DataProvider>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    let controller = new_controller();
    // Every open tab of the demo shows the same data.
    rdc::leptos::sync_tabs(&controller, "rdc-demo");
    // Prices streamed into the store while the Live page reads them (a browser
    // `EventSource`, or a `WebSocket` on /live/ws).
    #[cfg(target_arch = "wasm32")]
    for feed in pages::live::price_feeds() {
        controller.add_manager(feed);
    }
    // The users list outlives a reload; mounted once it is back, so it shows at once.
    let restored = rdc::leptos::persist(&controller, "rdc-demo", rdc::controller::Persist::new(1));
    rdc::leptos::mount_when_restored(restored, move || view! { <App controller=controller.clone()/> });
}
