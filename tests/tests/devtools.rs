//! `<Devtools/>` in headless Chromium: collapsed until asked, then the store's
//! tables, one entity with its referrers, results, the action log and readers,
//! following the store as it changes.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::core::Entity;
use rdc::leptos::{new_controller, DataProvider};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Clicks the first element matching `selector` under `root`.
fn click(root: &web_sys::HtmlElement, selector: &str) {
    let element = root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no {selector}"));
    element.unchecked_into::<web_sys::HtmlElement>().click();
}

/// The text of the first element matching `selector` under `root` ("" if none).
fn text_of(root: &web_sys::HtmlElement, selector: &str) -> String {
    root.query_selector(selector).unwrap().and_then(|e| e.text_content()).unwrap_or_default()
}

#[wasm_bindgen_test]
async fn the_panel_opens_on_demand_and_follows_the_store() {
    let root = mount_point();
    let controller = new_controller();
    let c = controller.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! { <DataProvider controller=c.clone()><UserNames/><rdc_devtools::Devtools/></DataProvider> }
    });
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    assert!(root.query_selector(".rdc-devtools-body").unwrap().is_none(), "collapsed by default");
    click(&root, ".rdc-devtools-toggle");
    wait_for_text(&root, 1000, |t| t.contains("Entities")).await;
    let tables = text_of(&root, ".rdc-devtools-tables");
    assert!(tables.contains("User") && tables.contains("Grace Hopper"), "{tables}");
    click(&root, ".rdc-devtools-entity");
    wait_for_text(&root, 1000, |t| t.contains("Referred to by")).await;
    assert!(
        text_of(&root, ".rdc-devtools-referrers").contains("result GET"),
        "{}",
        text_of(&root, ".rdc-devtools-detail")
    );

    // A write shows at once in the open tab.
    controller.set(&User::schema().into(), rdc::json!({ "id": "u1", "name": "Ada L." })).unwrap();
    let text = wait_for_text(&root, 1000, |t| t.contains("Ada L.")).await;
    assert!(text_of(&root, ".rdc-devtools-detail").contains("Ada L."), "the open entity follows the write: {text}");
    click(&root, ".rdc-devtools-tab[data-tab='Log']");
    let log = wait_for_text(&root, 1000, |t| t.contains("stored GET")).await;
    assert!(log.contains("sent GET"), "the log starts with the panel: {log}");
    click(&root, ".rdc-devtools-tab[data-tab='Results']");
    wait_for_text(&root, 1000, |t| t.contains("valid, expires in")).await;
    let results = text_of(&root, ".rdc-devtools-results");
    assert!(results.contains("GET") && results.contains("valid, expires in"), "the list's result, valid: {results}");
    click(&root, ".rdc-devtools-tab[data-tab='Readers']");
    let readers = wait_for_text(&root, 1000, |t| t.contains("keys read by mounted readers: 1")).await;
    assert!(readers.contains("keys read by mounted readers: 1"), "{readers}");
    click(&root, ".rdc-devtools-toggle");
    wait_for_text(&root, 1000, |t| !t.contains("Readers")).await;
    assert!(root.query_selector(".rdc-devtools-body").unwrap().is_none(), "closed again");
}
