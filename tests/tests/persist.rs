//! `rdc_leptos::persist` in headless Chromium: what a page load kept in
//! IndexedDB is read by the next load's controller without a request; a
//! reset clears it, another version drops it.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use rdc::controller::Controller;
use rdc::controller::{ExpiryStatus, Persist, Restored};
use rdc::leptos::{new_controller, persist};
use rdc_e2e::wait_for_text;
use send_wrapper::SendWrapper;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A database of this test's own.
fn database() -> String {
    format!("rdc-test-{}", (js_sys::Math::random() * 1e12) as u64)
}

/// A page load's controller on `db` under `version`, and what it restored.
async fn load(db: &str, version: u32) -> (SendWrapper<Controller>, Restored) {
    let controller = new_controller();
    let restored = persist(&controller, db, Persist::new(version)).await;
    (controller, restored)
}

/// A page load that fetches the users list and leaves it saved in `db`.
async fn first_load(db: &str, version: u32) {
    let (first, restored) = load(db, version).await;
    assert_eq!(restored, Restored::Nothing);
    first.fetch(&list_users().persist(true), (), ()).await.unwrap();
    // Saved 100 ms after the write, then IndexedDB's own time.
    rdc_e2e::sleep(500).await;
}

#[wasm_bindgen_test]
async fn the_next_load_shows_what_was_kept_without_a_request() {
    let db = database();
    first_load(&db, 1).await;

    let (next, restored) = load(&db, 1).await;
    let Restored::Taken { results: 1, entities } = restored else { panic!("{restored:?}") };
    assert!(entities >= 2, "{restored:?}");
    let read = next.read::<_, Vec<User>>(&list_users(), &()).unwrap();
    assert_eq!(read.status, ExpiryStatus::Valid, "fresh: not fetched again");
    let sent = count_actions(&next, |action| matches!(action, rdc::controller::Action::Sent { .. }));
    let (root, _mounted) = mount_user_names(&next);
    let text = wait_for_text(&root, 1000, |t| t.contains("Ada Lovelace")).await;
    assert!(text.contains("Ada Lovelace"), "{text}");
    assert_eq!(sent.get(), 0, "shown from IndexedDB, no request");
}

#[wasm_bindgen_test]
async fn a_reset_clears_what_was_kept() {
    let db = database();
    first_load(&db, 1).await;
    let (signed_in, restored) = load(&db, 1).await;
    assert!(matches!(restored, Restored::Taken { .. }), "{restored:?}");
    signed_in.reset_entire_store();
    // The next user comes with a later page load (another connection to the database).
    rdc_e2e::sleep(100).await;
    let (_next_user, restored) = load(&db, 1).await;
    assert_eq!(restored, Restored::Nothing);
}

#[wasm_bindgen_test]
async fn data_kept_under_another_version_is_dropped() {
    let db = database();
    first_load(&db, 1).await;
    let (upgraded, restored) = load(&db, 2).await;
    assert_eq!(restored, Restored::OtherVersion { found: 1 });
    assert!(upgraded.read::<_, Vec<User>>(&list_users(), &()).unwrap().data.is_none());
    let (_again, restored) = load(&db, 2).await;
    assert_eq!(restored, Restored::Nothing, "dropped for good");
}

#[wasm_bindgen_test]
async fn a_reset_lands_before_a_save_asked_for_just_before_it() {
    let db = database();
    first_load(&db, 1).await;
    let (signed_in, restored) = load(&db, 1).await;
    assert!(matches!(restored, Restored::Taken { .. }), "{restored:?}");
    signed_in.fetch(&list_users().persist(true), (), ()).await.unwrap();
    rdc_e2e::sleep(100).await; // its save is asked for now
    signed_in.reset_entire_store();
    let (_next_user, restored) = load(&db, 1).await;
    assert_eq!(restored, Restored::Nothing);
}

#[wasm_bindgen_test]
async fn the_app_can_delete_the_database_while_a_page_holds_it_open() {
    use wasm_bindgen::JsCast;
    let db = database();
    first_load(&db, 1).await;
    let (_holder, restored) = load(&db, 1).await; // holds the database open
    assert!(matches!(restored, Restored::Taken { .. }), "{restored:?}");
    // What an app may do on logout: delete the database outright.
    let request =
        web_sys::window().unwrap().indexed_db().unwrap().unwrap().delete_database(&format!("rdc:{db}")).unwrap();
    let deleted = js_sys::Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
        request.set_onblocked(Some(reject.unchecked_ref()));
    });
    wasm_bindgen_futures::JsFuture::from(deleted).await.expect("deleted, not blocked by the open connection");
    let (_next, restored) = load(&db, 1).await;
    assert_eq!(restored, Restored::Nothing);
}
