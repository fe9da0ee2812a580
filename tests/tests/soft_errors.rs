//! Soft and hard errors reaching a mounted `use_suspense` reader that holds data,
//! in headless Chromium against the API server's any-status tool: a 404 (hard)
//! goes to the ErrorBoundary, a 503 (soft) leaves the data on screen; retries
//! are spread by the browser clock's randoms.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::controller::Controller;
use rdc::core::{Entity, SchemaOf};
use rdc::json;
use rdc::leptos::{new_controller, use_suspense, DataProvider};
use rdc::rest::{RestEndpoint, Retry};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Users read from the server's `/status/{status}`, which answers that status;
/// not tried again, so each error lands at once.
fn users_answering(status: u16) -> RestEndpoint<(), (), Vec<User>> {
    at_server(RestEndpoint::get(&format!("/status/{status}")))
        .args::<()>()
        .body::<()>()
        .schema(SchemaOf::list(User::schema()))
        .retry(Retry::NEVER)
}

/// A reader of `users_answering(status)` inside its own ErrorBoundary, showing
/// `[{status}: names]` or `[{status} error: …]`.
#[component]
fn Reader(status: u16) -> impl IntoView {
    let users = use_suspense(users_answering(status), ());
    view! {
        <ErrorBoundary fallback=move |errors| view! {
            <p>{move || errors.get().into_iter().map(|(_, e)| format!("[{status} error: {e}]")).collect::<String>()}</p>
        }>
            <Suspense fallback=|| "loading">
                {move || Suspend::new(async move {
                    users.await.map(|users| {
                        let names: Vec<String> = users.iter().map(|u| u.name.clone()).collect();
                        format!("[{status}: {}]", names.join(", "))
                    })
                })}
            </Suspense>
        </ErrorBoundary>
    }
}

fn has_error(controller: &Controller, status: u16) -> bool {
    let key = controller.key_of(&users_answering(status), &()).unwrap();
    controller.with_state(|state| state.error(&key).is_some())
}

#[wasm_bindgen_test]
async fn a_hard_error_reaches_the_error_boundary_and_a_soft_one_keeps_the_data() {
    let controller = new_controller();
    for status in [404, 503] {
        controller.set_response(&users_answering(status), &(), json!([{ "id": "u1", "name": "Ada" }])).unwrap();
    }
    let root = mount_point();
    let c = controller.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <DataProvider controller=c.clone()><Reader status=503/><Reader status=404/></DataProvider> }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("[503: Ada]") && t.contains("[404: Ada]")).await;
    assert!(text.contains("[503: Ada]") && text.contains("[404: Ada]"), "both show their data: {text}");
    // Each key is fetched again while its reader shows its data: the answer is an error.
    let soft = controller.fetch(&users_answering(503), (), ()).await.unwrap_err();
    assert!(soft.to_string().contains("503"), "{soft}");
    assert!(has_error(&controller, 503), "the 503 is recorded for its key");
    let hard = controller.fetch(&users_answering(404), (), ()).await.unwrap_err();
    assert!(has_error(&controller, 404), "the 404 is recorded for its key: {hard}");
    // The 404 shows after the 503 landed: by then the 503's reader has re-run too.
    let text = wait_for_text(&root, 5000, |t| t.contains("[404 error:")).await;
    assert!(text.contains("[404 error:") && text.contains("HTTP 404"), "a hard error reaches the boundary: {text}");
    assert!(text.contains("[503: Ada]") && !text.contains("[503 error"), "a soft error keeps the data: {text}");
}

/// The browser clock a controller hands to retries gives real randoms (not
/// one worked out from the time), so retries of clients that failed together spread.
#[wasm_bindgen_test]
fn the_browser_clocks_randoms_spread_retries() {
    use rdc::controller::Clock;
    let busy = rdc::rest::RestError::Transport { endpoint: "GET /x".into(), url: "/x".into(), message: "down".into() };
    let waits: std::collections::BTreeSet<_> =
        (0..8).map(|_| Retry::default().wait(&busy, 0, rdc::leptos::Browser.random()).unwrap()).collect();
    assert!(waits.len() > 1, "eight draws in the same millisecond, one wait: {waits:?}");
}
