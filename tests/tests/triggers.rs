//! Non-suspending reads in headless Chromium against the API server:
//! `use_fetch` (once on mount, again on new args, never a Suspense fallback)
//! and `use_keep_previous` (the old args' data shown, flagged, while a slow
//! answer for the new args loads).
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::leptos::{use_cache, use_fetch, use_keep_previous, DataProvider};
use rdc_e2e::{api_url, mount_point, wait_for_text};
use serde::Serialize;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The args of `/slow`: how long it sleeps, and a tag the server counts by.
#[derive(Debug, Clone, PartialEq, Serialize)]
struct Slow {
    ms: u64,
    tag: String,
}

fn slow() -> rdc::rest::RestEndpoint<Slow, (), serde_json::Value> {
    at_server(rdc::rest!(GET "/slow", args = Slow, returns = serde_json::Value))
}

/// How many `/slow` requests tagged `tag` the server has seen start.
async fn started(tag: &str) -> u64 {
    let response = gloo_net::http::Request::get(&api_url(&format!("/slow/seen/{tag}"))).send().await.unwrap();
    response.json::<serde_json::Value>().await.unwrap()["started"].as_u64().unwrap()
}

fn unique(prefix: &str) -> String {
    format!("{prefix}-{}", (js_sys::Math::random() * 1e9) as u64)
}

#[wasm_bindgen_test]
async fn use_fetch_fetches_once_on_mount_and_again_on_new_args_without_suspending() {
    let root = mount_point();
    let tag = unique("use-fetch");
    let ms = RwSignal::new(20u64);
    let t = tag.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let t = t.clone();
        let args = Signal::derive(move || Some(Slow { ms: ms.get(), tag: t.clone() }));
        view! {
            <DataProvider>
                <Suspense fallback=|| "FALLBACK">
                    {
                        // Two triggers of the same read: one request between them.
                        use_fetch(slow(), args);
                        let fetching = use_fetch(slow(), args);
                        let shown = use_cache(slow(), args);
                        move || match shown.get() {
                            Some(v) => format!("slept {} fetching {}", v["slept_ms"], fetching.get()),
                            None => "nothing yet".to_string(),
                        }
                    }
                </Suspense>
            </DataProvider>
        }
    });
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("nothing yet"), "no fallback, and no data before the answer: {text}");
    let text = wait_for_text(&root, 5000, |t| t.contains("slept 20 fetching false")).await;
    assert!(text.contains("slept 20 fetching false"), "{text}");
    assert_eq!(started(&tag).await, 1, "fetched once on mount");

    ms.set(30);
    let text = wait_for_text(&root, 1000, |t| !t.contains("slept 20 fetching false")).await;
    assert!(!text.contains("FALLBACK"), "new args do not suspend: {text}");
    let text = wait_for_text(&root, 5000, |t| t.contains("slept 30 fetching false")).await;
    assert!(text.contains("slept 30 fetching false"), "{text}");
    assert_eq!(started(&tag).await, 2, "fetched again for the new args, once");
}

#[wasm_bindgen_test]
async fn use_keep_previous_shows_the_old_data_flagged_while_the_new_args_load() {
    let root = mount_point();
    let tag = unique("keep-previous");
    let ms = RwSignal::new(10u64);
    let t = tag.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        let t = t.clone();
        let args = Signal::derive(move || Some(Slow { ms: ms.get(), tag: t.clone() }));
        view! {
            <DataProvider>
                {
                    let shown = use_keep_previous(slow(), args);
                    move || match shown.data.get() {
                        Some(v) if shown.is_previous.get() => format!("[slept {} (previous)]", v["slept_ms"]),
                        Some(v) => format!("[slept {}]", v["slept_ms"]),
                        None => "[nothing]".to_string(),
                    }
                }
            </DataProvider>
        }
    });
    let text = wait_for_text(&root, 5000, |t| t.contains("[slept 10]")).await;
    assert!(text.contains("[slept 10]"), "{text}");
    // The server takes 1.5 s over the new args.
    ms.set(1500);
    let text = wait_for_text(&root, 1000, |t| t.contains("[slept 10 (previous)]")).await;
    assert!(text.contains("[slept 10 (previous)]"), "the old data stays, flagged: {text}");
    assert!(!text.contains("[nothing]"), "{text}");
    let text = wait_for_text(&root, 5000, |t| t.contains("[slept 1500]")).await;
    assert!(text.contains("[slept 1500]"), "the new args' own data, unflagged: {text}");
    assert_eq!(started(&tag).await, 2);
}
