//! The rdc demo: every example of the specification as a page, with rdc's
//! devtools. Served by `trunk serve` (see the README's demo command).

use leptos::prelude::*;
use rdc::controller::Controller;
use rdc::leptos::{new_controller, DataProvider};
use rdc_demo::api::Transport;
use rdc_demo::pages;
use send_wrapper::SendWrapper;

/// The page named by the URL hash (`#/users`, `#/streams/ninja`...).
fn current_route() -> String {
    window().location().hash().unwrap_or_default().trim_start_matches('#').to_owned()
}

#[component]
fn App(controller: SendWrapper<Controller>) -> impl IntoView {
    let route = RwSignal::new(current_route());
    let _ = window_event_listener(leptos::ev::hashchange, move |_| route.set(current_route()));
    let nav = [
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
    view! {
        <DataProvider controller=controller>
            <rdc_devtools::Devtools/>
            <header>
                <h1>"rdc demo"</h1>
                <nav>
                    {nav.into_iter().map(|(href, label)| {
                        let active = move || route.with(|r| r.split('/').nth(1) == href.split('/').nth(1));
                        view! { <a href=format!("#{href}") class:active=active>{label}</a> }
                    }).collect_view()}
                </nav>
            </header>
            <div class="layout">
                <main>
                    {move || {
                        let r = route.get();
                        let mut parts = r.trim_start_matches('/').split('/');
                        match (parts.next().unwrap_or(""), parts.next()) {
                            ("notes", _) => pages::notes::Notes().into_any(),
                            ("feed", _) => pages::feed::Feed().into_any(),
                            ("define", _) => pages::define::Define().into_any(),
                            ("prices", _) => pages::prices::Prices().into_any(),
                            ("streams", name) => view! { <pages::streams::Streams username=name.unwrap_or("ninja").to_owned()/> }.into_any(),
                            ("base-url", name) => view! { <pages::base_url::BaseUrl username=name.unwrap_or("ninja").to_owned()/> }.into_any(),
                            ("ticker", _) => pages::ticker::TickerPage().into_any(),
                            ("live", via) => {
                                let transport = if via == Some("ws") { Transport::Ws } else { Transport::Sse };
                                view! { <pages::live::Live transport/> }.into_any()
                            }
                            ("files", _) => pages::files::Files().into_any(),
                            ("bytes", _) => pages::bytes::Bytes().into_any(),
                            ("headers", _) => pages::headers::Headers().into_any(),
                            ("uploads", _) => pages::uploads::Uploads().into_any(),
                            ("items", _) => pages::items::Items().into_any(),
                            ("scroll", _) => pages::scroll::Scroll().into_any(),
                            ("faults", _) => pages::faults::Faults().into_any(),
                            _ => pages::users::Users().into_any(),
                        }
                    }}
                </main>
            </div>
        </DataProvider>
    }
}

fn main() {
    console_error_panic_hook::set_once();
    let controller = new_controller();
    // Every open tab of the demo shows the same data.
    rdc::leptos::sync_tabs(&controller, "rdc-demo");
    // Prices streamed into the store while the Live page reads them (a browser
    // `EventSource`, or a `WebSocket` on #/live/ws).
    #[cfg(target_arch = "wasm32")]
    for feed in pages::live::price_feeds() {
        controller.add_manager(feed);
    }
    // The users list outlives a reload; mounted once it is back, so it shows at once.
    let restored = rdc::leptos::persist(&controller, "rdc-demo", rdc::controller::Persist::new(1));
    rdc::leptos::mount_when_restored(restored, move || view! { <App controller=controller.clone()/> });
}
