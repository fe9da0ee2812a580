//! Keeping the store across page loads in the browser's IndexedDB.

use rdc_controller::{Controller, LocalFuture, Persist, Restored};

/// Keeps the data of `controller` that asks to outlive the page
/// (`RestEndpoint::persist`, [`Persist::entity`]) in the IndexedDB database
/// named `database`, and takes up what the last page load kept there (see
/// `Controller::persist`: restored with its expiry, dropped when saved under
/// another `version`, cleared by a reset). Mount the app once it is done
/// ([`mount_when_restored`]) so its first reads find the data; it answers
/// within milliseconds. Natively, and where IndexedDB is missing or refused
/// (a private window), nothing is kept and it answers [`Restored::Nothing`].
///
/// ```no_run
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let controller = rdc_leptos::new_controller();
/// let restored = rdc_leptos::persist(&controller, "my-app", rdc_controller::Persist::new(1).entity::<User>());
/// rdc_leptos::mount_when_restored(restored, || "the app");
/// ```
pub fn persist(controller: &Controller, database: &str, persist: Persist) -> LocalFuture<Restored> {
    #[cfg(target_arch = "wasm32")]
    if let Some(storage) = idb::IndexedDb::open(database) {
        return controller.persist(persist, storage);
    }
    let _ = (controller, database, persist);
    Box::pin(async { Restored::Nothing })
}

/// Mounts `app` to the page's body once `restored` (from [`persist`]) is
/// done, so its first reads find what was kept instead of fetching it. (It
/// runs before Leptos starts its executor, on the browser's own.) Natively
/// it does nothing.
///
/// ```no_run
/// use leptos::prelude::*;
/// let controller = rdc_leptos::new_controller();
/// let restored = rdc_leptos::persist(&controller, "my-app", rdc_controller::Persist::new(1));
/// rdc_leptos::mount_when_restored(restored, move || view! { <rdc_leptos::DataProvider controller=controller.clone()>"…"</rdc_leptos::DataProvider> });
/// ```
pub fn mount_when_restored<N: leptos::prelude::IntoView + 'static>(
    restored: LocalFuture<Restored>,
    app: impl FnOnce() -> N + 'static,
) {
    #[cfg(target_arch = "wasm32")]
    wasm_bindgen_futures::spawn_local(async move {
        restored.await;
        leptos::mount::mount_to_body(app);
    });
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (restored, app);
}

#[cfg(target_arch = "wasm32")]
mod idb {
    //! One object store holding one text. Every operation waits for the one
    //! before it (a promise chain), so saves and clears land in call order.

    use std::cell::RefCell;
    use std::rc::Rc;

    use js_sys::Promise;
    use rdc_controller::{LocalFuture, PersistStorage};
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::{future_to_promise, JsFuture};
    use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

    const STORE: &str = "store";
    const KEY: &str = "snapshot";

    /// A database opened once, and the last operation asked of it.
    #[derive(Clone)]
    pub(super) struct IndexedDb {
        db: Rc<Promise>,
        last: Rc<RefCell<Promise>>,
    }

    impl IndexedDb {
        pub(super) fn open(name: &str) -> Option<IndexedDb> {
            let factory = web_sys::window()?.indexed_db().ok()??;
            let request = factory.open_with_u32(name, 1).ok()?;
            let upgrade = request.clone();
            let on_upgrade = wasm_bindgen::closure::Closure::once_into_js(move || {
                if let Ok(db) = upgrade.result().and_then(|db| db.dyn_into::<IdbDatabase>()) {
                    let _ = db.create_object_store(STORE);
                }
            });
            request.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
            let opened = done(&request);
            // Settles with the database, or with null when it cannot open
            // (no promise here rejects: nothing is left unhandled).
            let db = future_to_promise(async move {
                let open = async { JsFuture::from(opened).await.and_then(|_| request.result()) };
                Ok(open.await.unwrap_or(JsValue::NULL))
            });
            Some(IndexedDb { db: Rc::new(db), last: Rc::new(RefCell::new(Promise::resolve(&JsValue::NULL))) })
        }

        /// Runs `op` on the store once the operations before it are done;
        /// settles with what it read, or with null when it failed.
        fn then(
            &self,
            mode: IdbTransactionMode,
            op: impl FnOnce(&web_sys::IdbObjectStore) -> Result<IdbRequest, JsValue> + 'static,
        ) -> Promise {
            let (db, before) = ((*self.db).clone(), self.last.borrow().clone());
            let promise = future_to_promise(async move {
                let _ = JsFuture::from(before).await;
                let run = async {
                    let db: IdbDatabase = JsFuture::from(db).await?.dyn_into()?;
                    let store = db.transaction_with_str_and_mode(STORE, mode)?.object_store(STORE)?;
                    let request = op(&store)?;
                    JsFuture::from(done(&request)).await?;
                    request.result()
                };
                Ok(run.await.unwrap_or(JsValue::NULL))
            });
            *self.last.borrow_mut() = promise.clone();
            promise
        }
    }

    /// A promise settled when `request` succeeds or fails.
    fn done(request: &IdbRequest) -> Promise {
        let request = request.clone();
        Promise::new(&mut |resolve, reject| {
            request.set_onsuccess(Some(&resolve));
            request.set_onerror(Some(&reject));
        })
    }

    impl PersistStorage for IndexedDb {
        fn load(&self) -> LocalFuture<Option<String>> {
            let read = self.then(IdbTransactionMode::Readonly, |store| store.get(&JsValue::from_str(KEY)));
            Box::pin(async move { JsFuture::from(read).await.ok().and_then(|text| text.as_string()) })
        }

        fn save(&self, text: String) {
            let _ = self.then(IdbTransactionMode::Readwrite, move |store| {
                store.put_with_key(&JsValue::from_str(&text), &JsValue::from_str(KEY))
            });
        }

        fn clear(&self) {
            let _ = self.then(IdbTransactionMode::Readwrite, |store| store.delete(&JsValue::from_str(KEY)));
        }
    }
}
