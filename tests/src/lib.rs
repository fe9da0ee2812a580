//! Helpers for rdc's whole-stack browser tests: where the API server is, a mount
//! point in the test page, and waiting for the DOM to show something.
//!
//! The API server address is fixed at compile time from `RDC_API_URL`
//! (default `http://127.0.0.1:3917`); the test script starts the server there.
#![deny(missing_docs)]

use wasm_bindgen::JsCast;

/// Base URL of the running `rdc-demo-server`, e.g. `http://127.0.0.1:3917`.
pub const API_URL: &str = match option_env!("RDC_API_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:3917",
};

/// Absolute URL of an API path: `api_url("/users")` is `{API_URL}/api/users`.
///
/// ```
/// assert!(rdc_e2e::api_url("/users").ends_with("/api/users"));
/// ```
pub fn api_url(path: &str) -> String {
    format!("{API_URL}/api{path}")
}

/// Creates a fresh `<div>` in the test page's body to mount a component into.
///
/// # Panics
/// Outside a browser (no `window` or `document`).
pub fn mount_point() -> web_sys::HtmlElement {
    let document = web_sys::window().and_then(|w| w.document()).expect("a browser document");
    let element = document.create_element("div").expect("create a div");
    document.body().expect("a body").append_child(&element).expect("append the div");
    element.unchecked_into()
}

/// Resolves after `ms` milliseconds (a `setTimeout` promise).
pub async fn sleep(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if let Some(window) = web_sys::window() {
            let _ = window.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Polls `condition` every 10 ms until it holds or `timeout_ms` passes;
/// returns whether it held.
pub async fn wait_until(timeout_ms: i32, condition: impl Fn() -> bool) -> bool {
    let mut waited = 0;
    while !condition() {
        if waited >= timeout_ms {
            return false;
        }
        sleep(10).await;
        waited += 10;
    }
    true
}

/// Polls `element`'s text every 10 ms until `predicate` accepts it or `timeout_ms`
/// passes; returns the last text seen either way, so the caller's assertion shows it.
pub async fn wait_for_text(
    element: &web_sys::HtmlElement,
    timeout_ms: i32,
    predicate: impl Fn(&str) -> bool,
) -> String {
    let text = || element.text_content().unwrap_or_default();
    wait_until(timeout_ms, || predicate(&text())).await;
    text()
}
