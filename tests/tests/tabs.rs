//! `sync_tabs` in headless Chromium: two controllers on one `BroadcastChannel`
//! (as two tabs of an app would be) see each other's writes without a request,
//! a mounted reader in the other one re-rendering.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::core::Entity;
use rdc::leptos::{new_controller, sync_tabs, DataProvider};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_write_in_one_tab_shows_in_the_other_without_a_request() {
    let channel = format!("rdc-test-{}", js_sys::Math::random());
    let (one, two) = (new_controller(), new_controller());
    sync_tabs(&one, &channel);
    sync_tabs(&two, &channel);
    let root = mount_point();
    let c = two.clone();
    let _handle = leptos::mount::mount_to(
        root.clone(),
        move || view! { <DataProvider controller=c.clone()><UserNames/></DataProvider> },
    );
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    let fetched = two.inflight_keys().len();
    one.set(&User::schema().into(), rdc::json!({ "id": "u1", "name": "Ada (from the other tab)" })).unwrap();
    let text = wait_for_text(&root, 2000, |t| t.contains("from the other tab")).await;
    assert!(text.contains("Ada (from the other tab)"), "{text}");
    assert_eq!((two.inflight_keys().len(), fetched), (0, 0), "taken up, not fetched");
    // And back: the second tab's write reaches the first (an id no server user has).
    let id = format!("tab-{}", (js_sys::Math::random() * 1e9) as u64);
    two.set(&User::schema().into(), rdc::json!({ "id": id.clone(), "name": "Nine" })).unwrap();
    let name = || one.entity::<User>(&id).unwrap().map(|u| u.name.clone());
    for _ in 0..100 {
        if name().is_some() {
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    assert_eq!(name(), Some("Nine".into()));
}

/// Counts the resets a controller takes.
#[derive(Clone, Default)]
struct Resets(std::rc::Rc<std::cell::Cell<u32>>);

impl rdc::controller::Manager for Resets {
    fn on_action(&self, _: &rdc::controller::Controller, action: rdc::controller::Action<'_>) {
        if matches!(action, rdc::controller::Action::Reset) {
            self.0.set(self.0.get() + 1);
        }
    }
}

#[wasm_bindgen_test]
async fn a_reset_in_one_tab_empties_every_tab_once() {
    let channel = format!("rdc-test-{}", js_sys::Math::random());
    let (one, two) = (new_controller(), new_controller());
    sync_tabs(&one, &channel);
    sync_tabs(&two, &channel);
    let (resets_one, resets_two) = (Resets::default(), Resets::default());
    one.add_manager(resets_one.clone());
    two.add_manager(resets_two.clone());
    two.set(&User::schema().into(), rdc::json!({ "id": "signed-in", "name": "Ada" })).unwrap();
    for _ in 0..100 {
        if one.entity::<User>("signed-in").unwrap().is_some() {
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    assert!(one.entity::<User>("signed-in").unwrap().is_some(), "shared first");
    one.reset_entire_store();
    for _ in 0..100 {
        if two.with_state(|s| s.entity_count()) == 0 {
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    rdc_e2e::sleep(200).await;
    assert_eq!(two.with_state(|s| s.entity_count()), 0, "the other tab holds nothing of the last user");
    assert_eq!((resets_one.0.get(), resets_two.0.get()), (1, 1), "each tab reset once: no echo");
}
