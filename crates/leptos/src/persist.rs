//! Keeping the store across page loads in the browser's IndexedDB.

use rdc_controller::{BoxFuture, Controller, Persist, PersistStorage, Restored};

/// Keeps the data of `controller` that asks to outlive the page
/// (`RestEndpoint::persist`, [`Persist::entity`]) in the IndexedDB database
/// named `database`, and takes up what the last page load kept there (see
/// `Controller::persist`: restored with its expiry, dropped when saved under
/// another `version`, cleared by a reset). The database is `rdc:{database}`.
/// Mount the app once it is done ([`mount_when_restored`]) so its first
/// reads find the data. Natively nothing is kept and it answers
/// [`Restored::Nothing`]; where IndexedDB is missing, refused (a private
/// window) or fails, it answers [`Restored::LoadFailed`].
///
/// ```no_run
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let controller = rdc_leptos::new_controller();
/// let restored = rdc_leptos::persist(&controller, "my-app", rdc_controller::Persist::new(1).entity::<User>());
/// rdc_leptos::mount_when_restored(restored, || "the app");
/// ```
pub fn persist(controller: &Controller, database: &str, persist: Persist) -> BoxFuture<Restored> {
    #[cfg(all(target_arch = "wasm32", feature = "offline"))]
    offline_from_the_start(controller);
    #[cfg(target_arch = "wasm32")]
    return match indexed_db(database) {
        Some(storage) => controller.persist(persist, storage),
        None => Box::pin(async { Restored::LoadFailed { reason: "IndexedDB is missing or refused".into() } }),
    };
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (controller, database, persist);
    #[cfg(not(target_arch = "wasm32"))]
    Box::pin(async { Restored::Nothing })
}

/// Mutations saved offline (`Persist::replay`) wait while the browser is
/// offline from the start, before a `DataProvider` listens for it; its first
/// `online` event sets the controller online again (with or without one).
#[cfg(all(target_arch = "wasm32", feature = "offline"))]
fn offline_from_the_start(controller: &Controller) {
    use wasm_bindgen::JsCast;
    let Some(window) = web_sys::window().filter(|window| !window.navigator().on_line()) else { return };
    controller.set_online(false);
    let back = controller.clone();
    let online = wasm_bindgen::closure::Closure::once_into_js(move || back.set_online(true));
    let options = web_sys::AddEventListenerOptions::new();
    options.set_once(true);
    let added = window.add_event_listener_with_callback_and_add_event_listener_options(
        "online",
        online.unchecked_ref(),
        &options,
    );
    if added.is_err() {
        // Not heard: never held forever.
        controller.set_online(true);
    }
}

/// The IndexedDB storage [`persist`] keeps the store in (the database
/// `rdc:{database}`), for an app or a test that wraps it, e.g. to see each
/// save as it is asked; `None` where IndexedDB is missing or refused, and
/// natively.
///
/// ```no_run
/// let controller = rdc_leptos::new_controller();
/// if let Some(storage) = rdc_leptos::indexed_db("my-app") {
///     let _restored = controller.persist(rdc_controller::Persist::new(1), storage);
/// }
/// ```
#[must_use]
pub fn indexed_db(database: &str) -> Option<impl PersistStorage + Clone> {
    #[cfg(target_arch = "wasm32")]
    return idb::IndexedDb::open(database).map(|db| idb::Shared(send_wrapper::SendWrapper::new(db)));
    #[cfg(not(target_arch = "wasm32"))]
    {
        let _ = database;
        None::<rdc_controller::MemoryStorage>
    }
}

/// Mounts `app` to the page's body once `restored` (from [`persist`]) is
/// done, so its first reads find what was kept instead of fetching it, or
/// after a second if IndexedDB has not answered by then (what it restores
/// later still shows). It runs before Leptos starts its executor, on the
/// browser's own. Natively it does nothing.
///
/// ```no_run
/// use leptos::prelude::*;
/// let controller = rdc_leptos::new_controller();
/// let restored = rdc_leptos::persist(&controller, "my-app", rdc_controller::Persist::new(1));
/// rdc_leptos::mount_when_restored(restored, move || view! { <rdc_leptos::DataProvider controller=controller.clone()>"…"</rdc_leptos::DataProvider> });
/// ```
pub fn mount_when_restored<N: leptos::prelude::IntoView + 'static>(
    restored: BoxFuture<Restored>,
    app: impl FnOnce() -> N + 'static,
) {
    #[cfg(target_arch = "wasm32")]
    {
        // Mounted once restored, or after a second whatever IndexedDB does:
        // a restore landing later still shows (newer data wins).
        let app = std::rc::Rc::new(std::cell::RefCell::new(Some(app)));
        let mount = move || {
            if let Some(app) = app.borrow_mut().take() {
                leptos::mount::mount_to_body(app);
            }
        };
        // Browser only (the page's one thread): made to look `Send` for the timer.
        let on_time = send_wrapper::SendWrapper::new(mount.clone());
        wasm_bindgen_futures::spawn_local(async move {
            restored.await;
            mount();
        });
        rdc_controller::Timers::set_timeout(&crate::Browser, 1_000, Box::new(move || (on_time.take())()));
    }
    #[cfg(not(target_arch = "wasm32"))]
    let _ = (restored, app);
}

#[cfg(target_arch = "wasm32")]
mod idb {
    //! One object store holding one text. Saves wait for the operation before
    //! them (a promise chain); a clear goes at once when the database is open
    //! (IndexedDB runs one connection's transactions in the order they were
    //! made), and saves queued before it are dropped: a logout followed by a
    //! navigation leaves nothing behind.

    use std::cell::{Cell, RefCell};
    use std::rc::Rc;

    use js_sys::Promise;
    use rdc_controller::{BoxFuture, PersistStorage};
    use wasm_bindgen::closure::Closure;
    use wasm_bindgen::{JsCast, JsValue};
    use wasm_bindgen_futures::{future_to_promise, JsFuture};
    use web_sys::{IdbDatabase, IdbRequest, IdbTransactionMode};

    const STORE: &str = "store";
    const KEY: &str = "snapshot";

    /// A database opened once, and the last operation asked of it.
    #[derive(Clone)]
    pub(super) struct IndexedDb {
        /// Settles with the database, or null when it cannot open (no promise here rejects).
        opened: Promise,
        /// The database once open (and until another page asks to upgrade it).
        db: Rc<RefCell<Option<IdbDatabase>>>,
        last: Rc<RefCell<Promise>>,
        /// Counts clears: a save queued before one is dropped.
        clears: Rc<Cell<u64>>,
    }

    impl IndexedDb {
        /// Opens `rdc:{name}` (a name of rdc's own, apart from the app's databases).
        pub(super) fn open(name: &str) -> Option<IndexedDb> {
            let factory = web_sys::window()?.indexed_db().ok()??;
            let request = factory.open_with_u32(&format!("rdc:{name}"), 1).ok()?;
            let upgrade = request.clone();
            let on_upgrade = Closure::once_into_js(move || {
                if let Ok(db) = upgrade.result().and_then(|db| db.dyn_into::<IdbDatabase>()) {
                    let _ = db.create_object_store(STORE);
                }
            });
            request.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
            let db: Rc<RefCell<Option<IdbDatabase>>> = Rc::default();
            let done_opening = done(&request);
            let keep = db.clone();
            let opened = future_to_promise(async move {
                let open = async {
                    JsFuture::from(done_opening).await?;
                    let database: IdbDatabase = request.result()?.dyn_into()?;
                    // Another page upgrading or deleting the database is not kept waiting.
                    let closing = database.clone();
                    let forget = keep.clone();
                    let on_change = Closure::once_into_js(move || {
                        closing.close();
                        forget.replace(None);
                    });
                    database.set_onversionchange(Some(on_change.unchecked_ref()));
                    keep.replace(Some(database.clone()));
                    Ok::<_, JsValue>(JsValue::from(database))
                };
                Ok(open.await.unwrap_or(JsValue::NULL))
            });
            Some(IndexedDb {
                opened,
                db,
                last: Rc::new(RefCell::new(Promise::resolve(&JsValue::NULL))),
                clears: Rc::default(),
            })
        }

        /// Runs `op` once the operations before it are done, unless a clear
        /// came after it was asked; settles with what it read, null when
        /// dropped, or a JS `Error` naming what failed (it never rejects).
        fn then(
            &self,
            mode: IdbTransactionMode,
            op: impl FnOnce(&web_sys::IdbObjectStore) -> Result<IdbRequest, JsValue> + 'static,
        ) -> Promise {
            let (opened, before) = (self.opened.clone(), self.last.borrow().clone());
            let (clears, asked) = (self.clears.clone(), self.clears.get());
            let promise = future_to_promise(async move {
                let _ = JsFuture::from(before).await;
                let run = async {
                    let db: IdbDatabase = JsFuture::from(opened)
                        .await?
                        .dyn_into()
                        .map_err(|_| JsValue::from_str("the database did not open"))?;
                    if clears.get() != asked {
                        return Ok(JsValue::NULL);
                    }
                    let request = op(&store(&db, mode)?)?;
                    JsFuture::from(done(&request)).await?;
                    request.result()
                };
                Ok(run.await.unwrap_or_else(|error| js_sys::Error::new(&reason(&error)).into()))
            });
            *self.last.borrow_mut() = promise.clone();
            promise
        }
    }

    fn store(db: &IdbDatabase, mode: IdbTransactionMode) -> Result<web_sys::IdbObjectStore, JsValue> {
        db.transaction_with_str_and_mode(STORE, mode)?.object_store(STORE)
    }

    /// What a failure says: an exception's message, else its text.
    fn reason(error: &JsValue) -> String {
        let said = match error.dyn_ref::<js_sys::Error>() {
            Some(error) => error.message().as_string(),
            None => error.as_string(),
        };
        format!("IndexedDB: {}", said.unwrap_or_else(|| "the request failed".into()))
    }

    /// A promise settled when `request` succeeds or fails.
    fn done(request: &IdbRequest) -> Promise {
        let request = request.clone();
        Promise::new(&mut |resolve, reject| {
            request.set_onsuccess(Some(&resolve));
            request.set_onerror(Some(&reject));
        })
    }

    impl IndexedDb {
        fn load(&self) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<Option<String>, String>>>> {
            let read = self.then(IdbTransactionMode::Readonly, |store| store.get(&JsValue::from_str(KEY)));
            Box::pin(async move {
                let value = JsFuture::from(read).await.unwrap_or(JsValue::NULL);
                if let Some(failed) = value.dyn_ref::<js_sys::Error>() {
                    return Err(failed.message().as_string().unwrap_or_default());
                }
                // Something not rdc's under its key reads as unreadable text (then it is cleared).
                Ok((!value.is_null() && !value.is_undefined()).then(|| value.as_string().unwrap_or_default()))
            })
        }

        fn save(&self, text: String) {
            let _ = self.then(IdbTransactionMode::Readwrite, move |store| {
                store.put_with_key(&JsValue::from_str(&text), &JsValue::from_str(KEY))
            });
        }

        fn clear(&self) {
            self.clears.set(self.clears.get() + 1);
            let delete = |store: &web_sys::IdbObjectStore| store.delete(&JsValue::from_str(KEY));
            match &*self.db.borrow() {
                // At once: after every save already made, before any other.
                Some(db) => {
                    let _ = store(db, IdbTransactionMode::Readwrite).and_then(|store| delete(&store));
                }
                None => {
                    let opened = self.opened.clone();
                    let _ = future_to_promise(async move {
                        if let Ok(db) = JsFuture::from(opened).await.and_then(|db| db.dyn_into::<IdbDatabase>()) {
                            let _ = store(&db, IdbTransactionMode::Readwrite).and_then(|store| delete(&store));
                        }
                        Ok(JsValue::NULL)
                    });
                }
            }
        }
    }

    /// The database as the controller keeps storage: `Send`, which a
    /// browser's one thread makes true (it exists only there).
    #[derive(Clone)]
    pub(super) struct Shared(pub(super) send_wrapper::SendWrapper<IndexedDb>);

    impl PersistStorage for Shared {
        fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
            Box::pin(send_wrapper::SendWrapper::new(self.0.load()))
        }

        fn save(&self, text: String) {
            self.0.save(text);
        }

        fn clear(&self) {
            self.0.clear();
        }
    }
}
