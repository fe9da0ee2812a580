//! `sync_tabs` in headless Chromium: two controllers on one `BroadcastChannel`
//! (as two tabs of an app would be) see each other's writes without a request,
//! a mounted reader in the other one re-rendering.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use rdc::controller::Controller;
use rdc::core::Entity;
use rdc::leptos::{new_controller, sync_tabs};
use rdc_e2e::wait_for_text;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Two controllers synced on a channel of their own, as two tabs of an app.
fn two_tabs() -> (Controller, Controller) {
    let channel = format!("rdc-test-{}", js_sys::Math::random());
    let (one, two) = (new_controller(), new_controller());
    sync_tabs(&one, &channel);
    sync_tabs(&two, &channel);
    (one, two)
}

#[wasm_bindgen_test]
async fn a_write_in_one_tab_shows_in_the_other_without_a_request() {
    let (one, two) = two_tabs();
    let sent = count_actions(&two, |action| matches!(action, rdc::controller::Action::Sent { .. }));
    let (root, _mounted) = mount_user_names(&two);
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    let fetched = sent.get();
    one.set(&User::schema().into(), rdc::json!({ "id": "u1", "name": "Ada (from the other tab)" })).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("from the other tab")).await;
    assert!(text.contains("Ada (from the other tab)"), "{text}");
    rdc_e2e::sleep(100).await;
    assert_eq!((fetched, sent.get()), (1, 1), "the list fetched once, the write taken up, not fetched");
    // And back: the second tab's write reaches the first (an id no server user has).
    let id = format!("tab-{}", (js_sys::Math::random() * 1e9) as u64);
    two.set(&User::schema().into(), rdc::json!({ "id": id.clone(), "name": "Nine" })).unwrap();
    let name = || one.entity::<User>(&id).unwrap().map(|u| u.name.clone());
    rdc_e2e::wait_until(1000, || name().is_some()).await;
    assert_eq!(name(), Some("Nine".into()));
}

#[wasm_bindgen_test]
async fn a_reset_in_one_tab_empties_every_tab_once() {
    let (one, two) = two_tabs();
    let is_reset = |action: &rdc::controller::Action<'_>| matches!(action, rdc::controller::Action::Reset);
    let (resets_one, resets_two) = (count_actions(&one, is_reset), count_actions(&two, is_reset));
    two.set(&User::schema().into(), rdc::json!({ "id": "signed-in", "name": "Ada" })).unwrap();
    let shared = rdc_e2e::wait_until(1000, || one.entity::<User>("signed-in").unwrap().is_some()).await;
    assert!(shared, "shared first");
    one.reset_entire_store();
    rdc_e2e::wait_until(1000, || two.with_state(|s| s.entity_count()) == 0).await;
    rdc_e2e::sleep(200).await;
    assert_eq!(two.with_state(|s| s.entity_count()), 0, "the other tab holds nothing of the last user");
    assert_eq!((resets_one.get(), resets_two.get()), (1, 1), "each tab reset once: no echo");
}
