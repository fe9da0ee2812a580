//! `logout_on_401` in headless Chromium: the API server's 401 empties the
//! store and the app shows its sign-in view, with no user data left behind.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use leptos::prelude::*;
use rdc::json;
use rdc::leptos::{new_controller, DataProvider};
use rdc_e2e::{mount_point, wait_for_text};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
async fn a_401_empties_the_store_and_the_app_signs_out() {
    let signed_in = RwSignal::new(true);
    let controller = new_controller();
    controller.add_manager(rdc::rest::logout_on_401(move |_| signed_in.set(false)));
    let root = mount_point();
    let c = controller.clone();
    let _handle = leptos::mount::mount_to(root.clone(), move || {
        view! {
            <DataProvider controller=c.clone()>
                <Show when=move || signed_in.get() fallback=|| "Please sign in">
                    <UserNames/>
                </Show>
            </DataProvider>
        }
    });
    wait_for_text(&root, 5000, |t| t.contains("Ada Lovelace")).await;
    assert!(controller.entity::<User>("u1").unwrap().is_some());
    // The session is gone: `/api/me` answers 401 without the `user` cookie.
    let me = at_server(rdc::rest::RestEndpoint::get("/me"));
    assert!(controller.fetch(&me, json!(null), None).await.is_err());
    let text = wait_for_text(&root, 2000, |t| t.contains("Please sign in")).await;
    assert!(!text.contains("Ada"), "{text}");
    assert_eq!(controller.with_state(|s| s.entity_count()), 0, "no user data is left in the store");
}
