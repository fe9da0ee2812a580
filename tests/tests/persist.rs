//! `rdc_leptos::persist` in headless Chromium: what a page load kept in
//! IndexedDB is read by the next load's controller without a request; a
//! reset clears it, another version drops it.
#![cfg(target_arch = "wasm32")]

mod common;

use common::*;
use rdc::controller::Controller;
use rdc::controller::{BoxFuture, ExpiryStatus, Persist, PersistStorage, Restored};
use rdc::json;
use rdc::leptos::{new_controller, persist};
use rdc_e2e::wait_for_text;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A database of this test's own.
fn database() -> String {
    format!("rdc-test-{}", (js_sys::Math::random() * 1e12) as u64)
}

/// A page load's controller on `db` under `version`, and what it restored.
async fn load(db: &str, version: u32) -> (Controller, Restored) {
    let controller = new_controller();
    let restored = persist(&controller, db, Persist::new(version)).await;
    (controller, restored)
}

/// A page load that fetches the users list and leaves it saved in `db`.
async fn first_load(db: &str, version: u32) {
    let (first, restored) = load(db, version).await;
    assert_eq!(restored, Restored::Nothing);
    first.fetch(&list_users().persist(true), (), ()).await.unwrap();
    // Saved 100 ms after the write, then IndexedDB's own time: wait until it is there.
    let name = format!("rdc:{db}");
    let mut saved = false;
    for _ in 0..1000 {
        if !run_js(READ_THE_STORE, &name).await.is_null() {
            saved = true;
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    assert!(saved, "the first load's save landed");
}

/// A storage that counts the saves asked of it, then passes them on.
struct CountingSaves<S> {
    inner: S,
    saves: std::sync::Arc<common::SyncCell<u32>>,
}

impl<S: PersistStorage> PersistStorage for CountingSaves<S> {
    fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
        self.inner.load()
    }

    fn save(&self, text: String) {
        self.saves.set(self.saves.get() + 1);
        self.inner.save(text);
    }

    fn clear(&self) {
        self.inner.clear();
    }
}

#[wasm_bindgen_test]
async fn the_next_load_shows_what_was_kept_without_a_request() {
    let db = database();
    first_load(&db, 1).await;

    let (next, restored) = load(&db, 1).await;
    let Restored::Taken { results: 1, entities, .. } = restored else { panic!("{restored:?}") };
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

/// Runs the JS function `body` of `name` (the database's full name) and awaits the promise it returns.
async fn run_js(body: &str, name: &str) -> wasm_bindgen::JsValue {
    let function = js_sys::Function::new_with_args("name", body);
    let promise: js_sys::Promise = function.call1(&wasm_bindgen::JsValue::NULL, &name.into()).unwrap().into();
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap()
}

/// Another connection's read-write transaction on rdc's object store, kept
/// running (one read after another) until `hold` is set false; `alive` until it ends.
const HOLD_THE_STORE: &str = r#"return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
        const db = open.result;
        const tx = db.transaction("store", "readwrite");
        const holder = { hold: true, alive: true };
        tx.oncomplete = tx.onabort = () => { holder.alive = false; db.close(); };
        const store = tx.objectStore("store");
        const spin = () => { if (holder.hold) store.get("snapshot").onsuccess = spin; };
        spin();
        resolve(holder);
    };
})"#;

/// What rdc's object store holds, read by another connection (null: nothing).
const READ_THE_STORE: &str = r#"return new Promise((resolve, reject) => {
    const open = indexedDB.open(name, 1);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
        const db = open.result;
        const read = db.transaction("store").objectStore("store").get("snapshot");
        read.onerror = () => reject(read.error);
        read.onsuccess = () => { db.close(); resolve(read.result === undefined ? null : read.result); };
    };
})"#;

fn field(object: &wasm_bindgen::JsValue, name: &str) -> bool {
    js_sys::Reflect::get(object, &name.into()).unwrap().as_bool().unwrap()
}

#[wasm_bindgen_test]
async fn a_reset_drops_a_save_still_queued_behind_another() {
    let db = database();
    first_load(&db, 1).await;
    // This load's IndexedDB storage, with each save it is asked for counted.
    let signed_in = new_controller();
    let saves = std::sync::Arc::<common::SyncCell<u32>>::default();
    let storage = CountingSaves { inner: rdc::leptos::indexed_db(&db).unwrap(), saves: saves.clone() };
    let restored = signed_in.persist(Persist::new(1), storage).await;
    assert!(matches!(restored, Restored::Taken { .. }), "{restored:?}");
    // Another connection holds the store: the first save waits in IndexedDB,
    // and the second waits behind it in rdc's own queue.
    let holder = run_js(HOLD_THE_STORE, &format!("rdc:{db}")).await;
    signed_in.fetch(&list_users().persist(true), (), ()).await.unwrap();
    assert_eq!(saves.get(), 0, "saved a while after the write, not at once");
    assert!(rdc_e2e::wait_until(10_000, || saves.get() == 1).await, "the first save was asked");
    let queued = json!([{ "id": "q1", "name": "Queued" }]);
    signed_in.set_response(&list_users().persist(true), &(), queued).unwrap();
    assert!(rdc_e2e::wait_until(10_000, || saves.get() == 2).await, "the second save was asked");
    assert!(field(&holder, "alive"), "the first save cannot have landed: the second is still queued");
    signed_in.reset_entire_store();
    js_sys::Reflect::set(&holder, &"hold".into(), &false.into()).unwrap();
    // The clear lands after the first save; a queued save not dropped would land after it.
    let name = format!("rdc:{db}");
    let mut cleared = false;
    for _ in 0..300 {
        if run_js(READ_THE_STORE, &name).await.is_null() {
            cleared = true;
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    assert!(cleared, "the reset's clear landed");
    assert!(!field(&holder, "alive"));
    let (_next_user, restored) = load(&db, 1).await;
    assert_eq!(restored, Restored::Nothing, "the queued save was dropped");
}

#[wasm_bindgen_test]
async fn a_database_that_cannot_be_read_is_a_failed_load_not_nothing() {
    let db = database();
    // A later version than rdc's: rdc's open fails.
    let upgrade = r#"return new Promise((resolve, reject) => {
        const open = indexedDB.open(name, 7);
        open.onerror = () => reject(open.error);
        open.onsuccess = () => { open.result.close(); resolve(null); };
    })"#;
    run_js(upgrade, &format!("rdc:{db}")).await;
    let (controller, restored) = load(&db, 1).await;
    assert!(matches!(&restored, Restored::LoadFailed { reason } if reason.contains("IndexedDB")), "{restored:?}");
    assert!(controller.read::<_, Vec<User>>(&list_users(), &()).unwrap().data.is_none());
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

/// The text saved in `db` (empty when none), once `done` says it is what the test waits for.
async fn saved_once(db: &str, done: impl Fn(&str) -> bool) -> String {
    let name = format!("rdc:{db}");
    for _ in 0..1000 {
        let text = run_js(READ_THE_STORE, &name).await.as_string().unwrap_or_default();
        if done(&text) {
            return text;
        }
        rdc_e2e::sleep(10).await;
    }
    panic!("never saved as expected")
}

/// The users' names on the server.
async fn server_names() -> Vec<String> {
    let users = gloo_net::http::Request::get(&rdc_e2e::api_url("/users")).send().await.unwrap();
    let users: Vec<serde_json::Value> = users.json().await.unwrap();
    users.iter().filter_map(|u| u["name"].as_str().map(str::to_owned)).collect()
}

#[wasm_bindgen_test]
async fn a_mutation_held_offline_is_shown_and_sent_by_the_next_load_once_online() {
    let (db, tag) = (database(), (js_sys::Math::random() * 1e9) as u64);
    let name = format!("Saved offline {tag}");
    let create = || {
        create_user().optimistic(|_, body| {
            let name = body.and_then(|b| b["name"].as_str()).unwrap_or_default();
            json!({ "id": format!("draft-{name}"), "name": name })
        })
    };
    let kept = || Persist::new(1).replay("users.create", &create());
    let first = new_controller();
    first.set_online(false);
    assert_eq!(persist(&first, &db, kept()).await, Restored::Nothing);
    let waiting = first.fetch(&create(), (), NewUser { name: name.clone() });
    saved_once(&db, |text| text.contains(&name)).await;
    // The page closes.
    drop((waiting, first));

    // The page loads again (still offline, as the first one was).
    let next = new_controller();
    next.set_online(false);
    let restored = persist(&next, &db, kept()).await;
    assert!(matches!(restored, Restored::Taken { replayed: 1, .. }), "{restored:?}");
    let draft = format!("draft-{name}");
    for _ in 0..100 {
        if next.entity::<User>(&draft).unwrap().is_some() {
            break;
        }
        rdc_e2e::sleep(10).await;
    }
    let shown = next.entity::<User>(&draft).unwrap().map(|u| u.name.clone());
    assert_eq!((shown, next.queued_mutations()), (Some(name.clone()), 1), "shown at once, held");
    assert!(!server_names().await.contains(&name), "nothing sent while offline");

    next.set_online(true);
    // Once it answered it leaves the saved store: then it is on the server, once.
    saved_once(&db, |text| !text.is_empty() && !text.contains(&name)).await;
    assert_eq!(server_names().await.iter().filter(|n| **n == name).count(), 1, "sent once");
}
