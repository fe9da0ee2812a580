//! The whole loop: a Leptos component mounted in headless Chromium fetches JSON from
//! the running API server through the browser Fetch API and renders it.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use rdc_e2e::{api_url, mount_point, wait_for_text};
use serde::Deserialize;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Debug, Clone, Deserialize)]
struct User {
    id: String,
    name: String,
}

async fn fetch_users() -> Result<Vec<User>, String> {
    let response = gloo_net::http::Request::get(&api_url("/users")).send().await.map_err(|e| e.to_string())?;
    response.json().await.map_err(|e| e.to_string())
}

#[wasm_bindgen_test]
async fn component_fetches_users_and_renders_them() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        let users = LocalResource::new(fetch_users);
        view! {
            <Suspense fallback=|| "loading">
                <ul>
                    {move || users.get().map(|r| match r {
                        Ok(users) => users.into_iter().map(|u| view! { <li id=u.id>{u.name}</li> }).collect_view().into_any(),
                        Err(e) => view! { <li>"error: " {e}</li> }.into_any(),
                    })}
                </ul>
            </Suspense>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("Grace Hopper")).await;
    assert!(text.contains("Ada Lovelace"), "rendered: {text:?}");
    assert!(text.contains("Grace Hopper"), "rendered: {text:?}");
    assert!(!text.contains("error"), "rendered: {text:?}");
}

#[wasm_bindgen_test]
async fn server_answers_cors_requests_with_json() {
    let response = gloo_net::http::Request::get(&api_url("/price/BTC-USD")).send().await.expect("fetch");
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.expect("json");
    assert_eq!(body["exchangePair"], "BTC-USD");
    assert_eq!(body["price"], "43250.123456789012345678");
}
