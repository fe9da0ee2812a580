//! Images through an endpoint (`use_object_url`, `<Img>`) in headless Chromium
//! against the API server: a `blob:` URL, one per endpoint and args however
//! many readers, revoked when the last reader goes and when a reload replaces it.
#![cfg(target_arch = "wasm32")]

mod common;

use std::cell::Cell;
use std::rc::Rc;

use common::*;
use leptos::prelude::*;
use rdc::controller::FetchError;
use rdc::leptos::{new_controller, use_object_url, DataProvider, Img, ObjectUrl};
use rdc::rest::{recipes, Blob, RestEndpoint, RestError};
use rdc_e2e::{mount_point, wait_until};
use send_wrapper::SendWrapper;
use serde::Serialize;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[derive(Debug, Clone, PartialEq, Serialize)]
struct ImageName {
    name: String,
}

fn image() -> RestEndpoint<ImageName, (), Blob> {
    at_server(recipes::blob(&rdc::rest!(GET "/images/:name", args = ImageName)))
}

fn dot() -> ImageName {
    ImageName { name: "dot.png".into() }
}

/// The `src` of the `<img>` under `selector`, if it has one.
fn src(root: &web_sys::HtmlElement, selector: &str) -> Option<String> {
    root.query_selector(&format!("{selector} img")).ok().flatten()?.get_attribute("src")
}

/// The bytes at `url`, or why they could not be fetched (a revoked URL fails).
async fn fetch_len(url: &str) -> Result<usize, String> {
    let response = gloo_net::http::Request::get(url).send().await.map_err(|e| e.to_string())?;
    response.binary().await.map(|b| b.len()).map_err(|e| e.to_string())
}

/// Fetches `url` every 20 ms until it fails (revoked) or `timeout_ms` passes;
/// returns whether it failed.
async fn revoked_within(url: &str, timeout_ms: i32) -> bool {
    let mut waited = 0;
    while fetch_len(url).await.is_ok() {
        if waited >= timeout_ms {
            return false;
        }
        rdc_e2e::sleep(20).await;
        waited += 20;
    }
    true
}

#[wasm_bindgen_test]
async fn an_img_shows_the_endpoint_image_as_a_blob_url() {
    let root = mount_point();
    let _handle = leptos::mount::mount_to(root.clone(), || {
        view! { <DataProvider><div id="one"><Img endpoint=image() args=dot() attr:alt="dot"/></div></DataProvider> }
    });
    assert!(wait_until(5000, || src(&root, "#one").is_some()).await, "the img got a src");
    let url = src(&root, "#one").unwrap();
    assert!(url.starts_with("blob:"), "an object URL: {url}");
    assert_eq!(fetch_len(&url).await, Ok(70), "the URL holds the server's 70-byte PNG");
    let alt = root.query_selector("#one img").unwrap().unwrap().get_attribute("alt");
    assert_eq!(alt.as_deref(), Some("dot"), "attributes pass to the img");
}

#[wasm_bindgen_test]
async fn two_readers_share_one_url_and_the_last_to_go_revokes_it() {
    let root = mount_point();
    let (first, second) = (RwSignal::new(true), RwSignal::new(true));
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider>
                <Show when=move || first.get()><div id="first"><Img endpoint=image() args=dot()/></div></Show>
                <Show when=move || second.get()><div id="second"><Img endpoint=image() args=dot()/></div></Show>
            </DataProvider>
        }
    });
    assert!(wait_until(5000, || src(&root, "#first").is_some() && src(&root, "#second").is_some()).await);
    let url = src(&root, "#first").unwrap();
    assert!(url.starts_with("blob:"), "{url}");
    assert_eq!(src(&root, "#second"), Some(url.clone()), "both readers show one URL");

    first.set(false);
    assert!(wait_until(2000, || root.query_selector("#first").unwrap().is_none()).await, "the first reader unmounted");
    assert_eq!(fetch_len(&url).await, Ok(70), "a reader is left: the URL still works");

    second.set(false);
    assert!(revoked_within(&url, 2000).await, "the last reader gone: the URL is revoked");
}

#[wasm_bindgen_test]
async fn a_reload_replaces_the_url_and_revokes_the_old_one() {
    let root = mount_point();
    let shown = SendWrapper::new(Rc::new(Cell::new(None::<ObjectUrl<RestError>>)));
    let stash = shown.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider>
                {
                    let image = use_object_url(image(), Some(dot()));
                    stash.set(Some(image));
                    view! { <div id="hook"><img src=move || image.url.get()/></div> }
                }
            </DataProvider>
        }
    });
    let image = shown.get().unwrap();
    assert!(wait_until(5000, || image.url.get_untracked().is_some()).await);
    let old = image.url.get_untracked().unwrap();
    image.reload.run(());
    assert!(wait_until(5000, || image.url.get_untracked().is_some_and(|u| u != old)).await, "a new URL replaced {old}");
    let new = image.url.get_untracked().unwrap();
    assert!(new.starts_with("blob:"), "{new}");
    assert_eq!(fetch_len(&new).await, Ok(70));
    assert!(revoked_within(&old, 2000).await, "the replaced URL is revoked");
    assert_eq!(src(&root, "#hook"), Some(new));
}

#[wasm_bindgen_test]
async fn an_http_error_gives_a_typed_error_and_no_url() {
    let root = mount_point();
    let controller = new_controller();
    let shown = SendWrapper::new(Rc::new(Cell::new(None::<ObjectUrl<RestError>>)));
    let stash = shown.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider controller=controller>
                {
                    let image = use_object_url(image(), Some(ImageName { name: "missing.png".into() }));
                    stash.set(Some(image));
                    view! { <div id="missing"><img src=move || image.url.get()/></div> }
                }
            </DataProvider>
        }
    });
    let image = shown.get().unwrap();
    assert!(wait_until(5000, || image.error.get_untracked().is_some()).await, "the error shows");
    match image.error.get_untracked() {
        Some(FetchError::Endpoint(RestError::Network { endpoint, source })) => {
            assert_eq!(source.status, 404);
            assert!(endpoint.contains("/images/:name"), "the error names the endpoint: {endpoint}");
        }
        other => panic!("expected a 404 network error, got {other:?}"),
    }
    assert_eq!(image.url.get_untracked(), None);
    assert_eq!(src(&root, "#missing"), None, "no src for a failed image");
}

#[wasm_bindgen_test]
async fn a_reader_moving_to_other_args_revokes_the_url_it_left() {
    let root = mount_point();
    let name = RwSignal::new("dot.png".to_owned());
    let shown = SendWrapper::new(Rc::new(Cell::new(None::<ObjectUrl<RestError>>)));
    let stash = shown.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider>
                {
                    let args = Signal::derive(move || Some(ImageName { name: name.get() }));
                    let image = use_object_url(image(), args);
                    stash.set(Some(image));
                    view! { <div id="moving"><img src=move || image.url.get()/></div> }
                }
            </DataProvider>
        }
    });
    let image = shown.get().unwrap();
    assert!(wait_until(5000, || image.url.get_untracked().is_some()).await);
    let old = image.url.get_untracked().unwrap();
    name.set("missing.png".to_owned());
    assert!(revoked_within(&old, 2000).await, "the URL of the args left is revoked");
    assert!(wait_until(5000, || image.error.get_untracked().is_some()).await, "the new args' error shows");
    assert_eq!(image.url.get_untracked(), None, "the new args have no URL");
    assert_eq!(src(&root, "#moving"), None);
}
