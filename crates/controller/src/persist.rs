//! Fetched data that outlives the page: the results of endpoints that ask for
//! it (`Policy::persist`) with the entities they reach, and every row of the
//! entity types named, saved where the app keeps them (IndexedDB in the
//! browser) and taken up again at the next start with their expiry.

#[cfg(feature = "persist")]
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

#[cfg(feature = "persist")]
use super::sync::lock;
#[cfg(feature = "persist")]
use std::sync::{Arc, Weak};

#[cfg(feature = "persist")]
use serde::{Deserialize, Serialize};

use super::{keys, Controller};
#[cfg(feature = "persist")]
use super::{Action, BoxFuture, Dehydrated, Inner, Manager};
#[cfg(feature = "persist")]
use rdc_core::Entity;
use rdc_core::{Millis, State};

#[cfg(feature = "persist")]
/// What outlives the page, under which version of the app's data, and how
/// much of it. Endpoints opt in with `Policy::persist`; entity types here.
///
/// ```
/// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
/// let persist = rdc_controller::Persist::new(3).entity::<User>().max_bytes(500_000);
/// assert_eq!(persist.version(), 3);
/// ```
#[derive(Debug, Clone)]
pub struct Persist {
    version: u32,
    max_bytes: usize,
    save_after_ms: u64,
    entity_types: Vec<&'static str>,
    /// The endpoints whose held mutations are kept (`replay.rs`).
    #[cfg(feature = "offline")]
    replays: Vec<super::replay::Replayable>,
}

#[cfg(feature = "persist")]
impl Persist {
    /// Keeps the results of endpoints that ask for it, saved 100 ms after a
    /// write, up to 2 MB. Raise `version` when the shape of the data changes:
    /// data saved under another version is dropped, not read, and so are the
    /// mutations held offline saved with it (`Persist::replay`): not sent.
    ///
    /// ```
    /// assert_eq!(rdc_controller::Persist::new(1).version(), 1);
    /// ```
    pub fn new(version: u32) -> Persist {
        Persist {
            version,
            max_bytes: 2_000_000,
            save_after_ms: 100,
            entity_types: Vec::new(),
            #[cfg(feature = "offline")]
            replays: Vec::new(),
        }
    }

    #[cfg(feature = "offline")]
    /// Also keeps `endpoint`'s mutations held offline, under `name` (one
    /// name per endpoint, the same at every start, as TanStack's mutation
    /// keys): saved with the store in order, with their args and body as
    /// JSON, until its removal is saved (each change to the queue is saved
    /// at once, not after [`Persist::save_after_ms`]; one on the wire when
    /// the page closed is sent again: let the server take a repeat, e.g. an
    /// id made by the client). At the next start they are taken up with the store, their
    /// optimistic layers shown at once, and sent again one after another
    /// once online. Only mutations of registered endpoints are saved, each
    /// under the first endpoint registered of its endpoint's type that makes
    /// its key from its args: two registered endpoints of one type making
    /// the same key (two REST endpoints of one method and URL template) are
    /// not told apart, so register one of them. A saved one whose name is
    /// not registered here is reported in [`Restored::Taken`]'s `unknown`,
    /// not sent. Names are unique and endpoints mutations: a name registered
    /// twice or a read panics in debug builds. One tab at a time: each tab
    /// saves its own queue over the other's (the last to save wins).
    ///
    /// ```
    /// # use rdc_core::json::Value;
    /// # #[derive(Clone)] struct AddTodo;
    /// # impl rdc_controller::Endpoint for AddTodo {
    /// #     type Output = Value; type Error = String; type Body = Value;
    /// #     fn key(&self, _: &Value) -> Result<String, String> { Ok("POST /todos".into()) }
    /// #     fn schema(&self) -> Option<rdc_core::Schema> { None }
    /// #     fn policy(&self) -> rdc_controller::Policy { rdc_controller::Policy { mutation: true, ..Default::default() } }
    /// #     fn is_soft(&self, _: &String) -> bool { false }
    /// #     fn fetch(&self, _: &Value, _: Option<Value>) -> rdc_controller::BoxFuture<Result<Value, String>> { Box::pin(async { Ok(Value::Null) }) }
    /// #     fn storable(v: &Value) -> Option<Value> { Some(v.clone()) }
    /// # }
    /// let persist = rdc_controller::Persist::new(1).replay("todos.add", &AddTodo);
    /// ```
    pub fn replay<C: crate::TypedEndpoint>(mut self, name: &str, endpoint: &C) -> Persist
    where
        <C::Endpoint as crate::Endpoint>::Body: crate::SavedBody,
    {
        use crate::Endpoint as _;
        debug_assert!(
            !self.replays.iter().any(|replayable| replayable.name() == name),
            "Persist::replay: `{name}` registered twice"
        );
        debug_assert!(endpoint.endpoint().policy().mutation, "Persist::replay: `{name}` is not a mutation");
        self.replays.push(super::replay::Replayable::of(name, endpoint));
        self
    }

    /// Also keeps every row of entity type `E`, whichever result reached it.
    ///
    /// ```
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let persist = rdc_controller::Persist::new(1).entity::<User>();
    /// ```
    pub fn entity<E: Entity>(mut self) -> Persist {
        self.entity_types.push(E::KEY);
        self
    }

    /// The most saved text: over it, the results (and rows) fetched longest
    /// ago are left out until the rest fits. Mutations held offline
    /// (`Persist::replay`) are never left out: a queue alone over the cap
    /// is saved without any fetched data (and taken up at the next start).
    ///
    /// ```
    /// let persist = rdc_controller::Persist::new(1).max_bytes(100_000);
    /// ```
    pub fn max_bytes(mut self, bytes: usize) -> Persist {
        self.max_bytes = bytes;
        self
    }

    /// How long after a write to save (writes meanwhile are saved together).
    ///
    /// ```
    /// let persist = rdc_controller::Persist::new(1).save_after_ms(500);
    /// ```
    pub fn save_after_ms(mut self, ms: u64) -> Persist {
        self.save_after_ms = ms;
        self
    }

    /// The version data is saved under.
    ///
    /// ```
    /// assert_eq!(rdc_controller::Persist::new(7).version(), 7);
    /// ```
    pub fn version(&self) -> u32 {
        self.version
    }
}

#[cfg(feature = "persist")]
/// Where a persisted store is kept: one text, replaced whole. A clear must
/// take effect after the saves called before it and before those called
/// after (a logout leaves nothing). `rdc_leptos::persist` keeps it in
/// IndexedDB; [`MemoryStorage`] in memory.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use rdc_controller::{BoxFuture, PersistStorage};
/// /// Keeps the text in a cell, and counts the saves.
/// struct Counted(Arc<Mutex<(Option<String>, u32)>>);
/// impl PersistStorage for Counted {
///     fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
///         let text = self.0.lock().unwrap().0.clone();
///         Box::pin(async move { Ok(text) })
///     }
///     fn save(&self, text: String) {
///         let mut kept = self.0.lock().unwrap();
///         *kept = (Some(text), kept.1 + 1);
///     }
///     fn clear(&self) { self.0.lock().unwrap().0 = None }
/// }
/// ```
pub trait PersistStorage: Send + Sync + 'static {
    /// The text last saved, if any; `Err` with the reason when it could not
    /// be read (the storage refused or failed), which is not "nothing kept".
    fn load(&self) -> BoxFuture<Result<Option<String>, String>>;
    /// Keeps `text` in place of what was kept.
    fn save(&self, text: String);
    /// Keeps nothing.
    fn clear(&self);
}

#[cfg(feature = "persist")]
/// Storage in memory: for tests, and for a controller started again in one process.
///
/// ```
/// use rdc_controller::{MemoryStorage, PersistStorage};
/// let storage = MemoryStorage::default();
/// storage.save("saved".to_owned());
/// assert_eq!(storage.text().as_deref(), Some("saved"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct MemoryStorage(Arc<std::sync::Mutex<Option<String>>>);

#[cfg(feature = "persist")]
impl MemoryStorage {
    /// What is kept now.
    ///
    /// ```
    /// assert_eq!(rdc_controller::MemoryStorage::default().text(), None);
    /// ```
    pub fn text(&self) -> Option<String> {
        lock(&self.0).clone()
    }
}

#[cfg(feature = "persist")]
impl PersistStorage for MemoryStorage {
    fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
        let text = self.text();
        Box::pin(async move { Ok(text) })
    }
    fn save(&self, text: String) {
        *lock(&self.0) = Some(text);
    }
    fn clear(&self) {
        *lock(&self.0) = None;
    }
}

#[cfg(feature = "persist")]
/// What [`Controller::persist`] found where the store is kept.
///
/// ```
/// use rdc_controller::Restored;
/// let restored = Restored::OtherVersion { found: 1 };
/// let kept_for_me = matches!(restored, Restored::Taken { results, .. } if results > 0);
/// assert!(!kept_for_me);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Restored {
    /// Nothing was kept.
    Nothing,
    /// These were taken up (data the store held already and fetched later won).
    Taken {
        /// Results (each endpoint key's).
        results: usize,
        /// Entity rows.
        entities: usize,
        /// Mutations held offline, sent again in their turn ([`Persist::replay`]).
        replayed: usize,
        /// Mutations held offline whose endpoint is not registered here
        /// (registered by the page that saved them, not this one), or whose
        /// body could not be saved: not sent nor kept, for the app to handle.
        unknown: Vec<crate::SavedMutation>,
    },
    /// It was saved under another version: dropped when older; left alone
    /// when newer (this page is an older version of the app, and saves nothing).
    OtherVersion {
        /// The version it was saved under.
        found: u32,
    },
    /// It does not read as a saved store (another program's, or cut short): dropped.
    Unreadable {
        /// Why, as the JSON reader said.
        reason: String,
    },
    /// The store was reset while it loaded (a logout): dropped, not shown to the next user.
    ResetMeanwhile,
    /// Its queue of mutations held offline names a registered endpoint but
    /// is not a call of it (corrupt or tampered with): nothing was taken up
    /// and it was dropped.
    QueueRejected {
        /// The first mutation that does not read, and why.
        error: crate::QueueError,
    },
    /// The storage could not be read (refused, failed): nothing was taken up,
    /// and what it holds is left as it is: this page saves nothing (a save
    /// would replace what was never read with this session's data alone).
    ///
    /// ```
    /// use rdc_controller::{Controller, FakeTime, BoxFuture, LocalTasks, Persist, PersistStorage, Restored};
    /// struct Refused;
    /// impl PersistStorage for Refused {
    ///     fn load(&self) -> BoxFuture<Result<Option<String>, String>> {
    ///         Box::pin(async { Err("quota exceeded".to_owned()) })
    ///     }
    ///     fn save(&self, _text: String) {}
    ///     fn clear(&self) {}
    /// }
    /// let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    /// let controller = Controller::new(time.clone(), time, tasks.clone());
    /// let restored = tasks.block_on(controller.persist(Persist::new(1), Refused));
    /// assert_eq!(restored, Restored::LoadFailed { reason: "quota exceeded".into() });
    /// ```
    LoadFailed {
        /// Why, as the storage said.
        reason: String,
    },
}

#[cfg(feature = "persist")]
/// The saved text.
#[derive(Serialize, Deserialize)]
struct Saved {
    version: u32,
    store: Dehydrated,
    /// The mutations held offline, oldest first (`replay.rs`).
    #[cfg(feature = "offline")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    queue: Vec<crate::SavedMutation>,
}

#[cfg(feature = "persist")]
impl Saved {
    /// Whether it holds no mutation held offline.
    fn holds_no_mutation(&self) -> bool {
        #[cfg(feature = "offline")]
        return self.queue.is_empty();
        #[cfg(not(feature = "offline"))]
        true
    }
}

#[cfg(feature = "persist")]
/// Only the version, read first so another version's shape is never parsed.
#[derive(Deserialize)]
struct SavedVersion {
    version: u32,
}

impl Controller {
    #[cfg(feature = "persist")]
    /// Keeps the fetched data that asks for it in `storage` from now on, and
    /// takes up what an earlier page saved there: stale data shows at once
    /// and is fetched again on its first read, fresh data is not fetched. A
    /// reset (a logout) clears the storage, so the next user finds nothing.
    /// Await it before mounting the app, so its first reads find what was kept.
    /// The garbage collector leaves what the last save kept, however stale and
    /// unused, so an app opened offline still has it; what the cap left out
    /// goes as any stale, unused data. Optimistic updates are never kept, only
    /// what the server answered.
    ///
    /// ```
    /// use rdc_controller::{Controller, FakeTime, LocalTasks, MemoryStorage, Persist, Restored};
    /// use rdc_core::Entity;
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let (time, tasks, storage) = (FakeTime::default(), LocalTasks::default(), MemoryStorage::default());
    /// let first = Controller::new(time.clone(), time.clone(), tasks.clone());
    /// assert_eq!(tasks.block_on(first.persist(Persist::new(1).entity::<User>(), storage.clone())), Restored::Nothing);
    /// first.set(&User::schema(), rdc_core::json!({ "id": "1", "name": "Ada" }))?;
    /// time.advance(100); // saved 100 ms after the write
    ///
    /// let next = Controller::new(time.clone(), time.clone(), tasks.clone()); // the page loaded again
    /// let restored = tasks.block_on(next.persist(Persist::new(1).entity::<User>(), storage));
    /// assert_eq!(restored, Restored::Taken { results: 0, entities: 1, replayed: 0, unknown: vec![] });
    /// assert_eq!(next.entity::<User>("1")?.unwrap().name, "Ada");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn persist(&self, persist: Persist, storage: impl PersistStorage) -> BoxFuture<Restored> {
        let keeper = Arc::new(Keeper {
            controller: Arc::downgrade(&self.inner),
            persist,
            storage: Box::new(storage),
            loaded: AtomicBool::new(false),
            saving: AtomicBool::new(true),
            dirty: AtomicBool::new(false),
            timer: std::sync::Mutex::new(None),
            fitted: AtomicUsize::new(0),
        });
        self.inner.kept_tables.borrow_mut().extend(&keeper.persist.entity_types);
        self.inner.kept_since.set(Some(0));
        let sink = Arc::clone(&keeper);
        self.tell_writes(move || sink.wrote());
        #[cfg(feature = "offline")]
        {
            let sink = Arc::downgrade(&keeper);
            self.save_queue_of(&keeper.persist.replays, move || {
                if let Some(keeper) = sink.upgrade() {
                    keeper.queue_changed();
                }
            });
        }
        self.add_manager(ClearsOnReset(Arc::clone(&keeper)));
        let load = keeper.storage.load();
        let (controller, epoch) = (self.clone(), self.inner.epoch.load(Ordering::SeqCst));
        Box::pin(async move {
            let text = load.await;
            let restored = match text {
                _ if controller.inner.epoch.load(Ordering::SeqCst) != epoch => Restored::ResetMeanwhile,
                Err(reason) => {
                    // What is saved was never read: it is not saved over.
                    keeper.saving.store(false, Ordering::SeqCst);
                    controller.inner.kept_since.set(None);
                    Restored::LoadFailed { reason }
                }
                Ok(None) => Restored::Nothing,
                Ok(Some(text)) => keeper.restore(&controller, &text),
            };
            keeper.loaded.store(true, Ordering::SeqCst);
            if keeper.dirty.load(Ordering::SeqCst) {
                keeper.schedule();
            }
            restored
        })
    }

    #[cfg(feature = "persist")]
    /// Takes up a saved store as it was (one clock, the wall clock, across
    /// page loads), unless it was saved while the clock was ahead of now:
    /// then its times move back by the difference, so it is never newer than
    /// what is fetched from now on (and so does each row still ahead).
    fn take_up_saved(&self, saved: Dehydrated) -> (usize, usize) {
        let back = saved.taken_at.saturating_sub(self.now());
        let entities = saved.entity_count();
        // Every result of a saved store was kept.
        let kept: Vec<String> = saved.state.result_keys().cloned().collect();
        self.take_up_from_elsewhere(saved.state, &kept, |at| at.saturating_sub(back));
        (kept.len(), entities)
    }

    /// Marks the results at `keys` this store now holds as kept across page
    /// loads (they were, where they came from).
    pub(crate) fn mark_persisted(&self, keys: &[String]) {
        let base = self.inner.base.borrow();
        let mut index = self.inner.keys.borrow_mut();
        for key in keys {
            if base.result(key).is_some() {
                keys::entry(&mut index, key).persist = true;
            }
        }
    }

    /// Remembers the rows of `state`, taken up with the kept results at
    /// `keys` whose schema is not known here yet: they are kept with them.
    pub(crate) fn note_taken_rows(&self, state: &State, keys: &[String]) {
        let index = self.inner.keys.borrow();
        if keys.iter().all(|key| index.get(key).is_some_and(|k| k.schema.is_some())) {
            return;
        }
        let mut taken = self.inner.taken_rows.borrow_mut();
        for (table, rows) in state.tables() {
            taken.entry(table.clone()).or_default().extend(rows.rows.keys().map(|pk| pk.to_string()));
        }
    }

    /// The result keys in `state` that are kept across page loads here.
    pub(crate) fn persisted_keys(&self, state: &State) -> Vec<String> {
        let index = self.inner.keys.borrow();
        state.result_keys().filter(|key| index.get(key.as_str()).is_some_and(|k| k.persist)).cloned().collect()
    }

    #[cfg(feature = "persist")]
    /// What is kept now, as saved text: the persisted results with the rows
    /// they reach, the rows of the named types, and while a result taken up
    /// from elsewhere has not been read (its schema unknown) the rows taken
    /// with it; the newest items that fit in `max_bytes` (searched from
    /// `hint` items). Optimistic layers are left out: only data the server
    /// gave is kept. `None` when it cannot be written.
    fn persisted_text(&self, persist: &Persist, hint: usize) -> Option<Kept> {
        let (now, index, taken) = (self.now(), self.inner.keys.borrow(), self.inner.taken_rows.borrow());
        self.write_base(|base| {
            let items = items_to_keep(&index, base, &persist.entity_types);
            let text_of = |count: usize| {
                let picked = items.get(..count).unwrap_or(&items);
                let keys = picked.iter().filter_map(|(_, item)| match item {
                    Item::Result(key, _) => Some(*key),
                    Item::Row(..) => None,
                });
                let unread = picked.iter().any(|(_, item)| matches!(item, Item::Result(_, true)));
                let mut rows = Rows::default();
                for (_, item) in picked {
                    if let Item::Row(table, pk) = item {
                        rows.entry((*table).to_owned()).or_default().insert((*pk).to_owned());
                    }
                }
                let has = |rows: &Rows, table: &str, pk: &str| rows.get(table).is_some_and(|pks| pks.contains(pk));
                let state = base.slice_with_rows(
                    keys,
                    |key| keys::schema_of(&index, key),
                    |table, pk| has(&rows, table, pk) || (unread && has(&taken, table, pk)),
                );
                let saved = Saved {
                    version: persist.version,
                    store: Dehydrated {
                        taken_at: now,
                        state,
                        persist: Vec::new(),
                        since: self.inner.since.load(Ordering::SeqCst),
                        offset: self.clock_offset(),
                    },
                    #[cfg(feature = "offline")]
                    queue: self.saved_queue(),
                };
                serde_json::to_string(&saved).ok()
            };
            let (count, text) = most_that_fit(items.len(), hint, persist.max_bytes, text_of)?;
            if count == items.len() {
                return Some(Kept { hint: usize::MAX, since: 0, text });
            }
            // Items fetched as late as the oldest one kept count as kept (newest first).
            let since = count.checked_sub(1).and_then(|last| items.get(last)).map_or(Millis::MAX, |item| item.0);
            Some(Kept { hint: count, since, text })
        })
    }

    /// Whether data fetched at a time was kept by the last save (so the GC
    /// leaves it): nothing while no saves are made.
    pub(crate) fn kept_by_the_last_save(&self) -> impl Fn(Millis) -> bool {
        let since = self.inner.kept_since.get();
        move |fetched_at| since.is_some_and(|since| fetched_at >= since)
    }
}

#[cfg(feature = "persist")]
/// What a save keeps, as `text`; where the next save's search starts (how
/// many items were kept, `usize::MAX` for all). The GC leaves what was
/// fetched at or after `since` (at the cut, ties stay too).
struct Kept {
    hint: usize,
    since: Millis,
    text: String,
}

#[cfg(feature = "persist")]
/// The most of `len` items whose text (`text_of(count)`: the newest `count`)
/// fits in `max` bytes, with that text; the text of none when none fits.
/// `hint` is how many the last save kept (0 before the first, `usize::MAX`
/// for all): all, or none yet, all are tried first; fewer, the search gallops
/// out from there (fewer items never make a longer text), so a store that
/// changed a little costs two texts, not one per halving. `None` when a text
/// cannot be made.
fn most_that_fit(
    len: usize,
    hint: usize,
    max: usize,
    text_of: impl Fn(usize) -> Option<String>,
) -> Option<(usize, String)> {
    // `fit` fits (`best` its text; none made for 0) and `over` does not.
    let (mut fit, mut best, mut over) = (0, None, len + 1);
    if hint == 0 || hint >= len {
        let all = text_of(len)?;
        if all.len() <= max || len == 0 {
            return Some((len, all));
        }
        over = len;
    }
    let fits = |count: usize| text_of(count).map(|text| (text.len() <= max).then_some(text));
    let start = hint.min(len - 1);
    if start > 0 {
        let mut step = 1;
        match fits(start)? {
            Some(text) => {
                (fit, best) = (start, Some(text));
                while fit + step < over {
                    match fits(fit + step)? {
                        Some(text) => (fit, best, step) = (fit + step, Some(text), step * 2),
                        None => over = fit + step,
                    }
                }
            }
            None => {
                over = start;
                while over > step {
                    match fits(over - step)? {
                        Some(text) => {
                            (fit, best) = (over - step, Some(text));
                            break;
                        }
                        None => (over, step) = (over - step, step * 2),
                    }
                }
            }
        }
    }
    while fit + 1 < over {
        let mid = (fit + over) / 2;
        match fits(mid)? {
            Some(text) => (fit, best) = (mid, Some(text)),
            None => over = mid,
        }
    }
    let text = match best {
        Some(text) => text,
        None => text_of(0)?,
    };
    Some((fit, text))
}

#[cfg(feature = "persist")]
/// Every item of `base` that may be kept, with when it was fetched, newest
/// first: the results kept across page loads and the live rows of `tables`.
fn items_to_keep<'a>(index: &'a keys::Keys, base: &'a State, tables: &'a [&'static str]) -> Vec<(Millis, Item<'a>)> {
    let mut items: Vec<(Millis, Item)> = index
        .iter()
        .filter(|(_, state)| state.persist)
        .filter_map(|(key, state)| {
            let result = base.result(key)?;
            Some((result.meta.fetched_at, Item::Result(key.as_str(), state.schema.is_none())))
        })
        .collect();
    for table in tables {
        let Some(rows) = base.tables().get(*table) else { continue };
        // Live rows only: a deleted one's tombstone is not worth its bytes.
        let live = rows.rows.iter().filter(|(_, row)| row.value.is_some());
        items.extend(live.map(|(pk, row)| (row.meta.fetched_at, Item::Row(table, pk.as_ref()))));
    }
    items.sort_by_key(|item| std::cmp::Reverse(item.0));
    items
}

#[cfg(feature = "persist")]
/// One thing that may be kept: a result (with whether its schema is still
/// unknown), or an entity row of a named type.
enum Item<'a> {
    Result(&'a str, bool),
    Row(&'a str, &'a str),
}

/// Entity rows: primary keys by table key.
pub(crate) type Rows = rdc_core::FastMap<String, std::collections::HashSet<String>>;

#[cfg(feature = "persist")]
/// Saves the store after writes, clears it on a reset.
struct Keeper {
    controller: Weak<Inner>,
    persist: Persist,
    storage: Box<dyn PersistStorage>,
    /// Whether what was kept has been taken up (nothing is saved before:
    /// it would replace what is not read yet).
    loaded: AtomicBool,
    /// Off when a newer version of the app keeps its data there.
    saving: AtomicBool,
    /// Whether a write came since the last save.
    dirty: AtomicBool,
    timer: std::sync::Mutex<Option<u64>>,
    /// How many items the last save kept, `usize::MAX` for all there were
    /// (where the next one's search starts).
    fitted: AtomicUsize,
}

#[cfg(feature = "persist")]
impl Keeper {
    fn controller(&self) -> Option<Controller> {
        self.controller.upgrade().map(|inner| Controller { inner })
    }

    fn restore(&self, controller: &Controller, text: &str) -> Restored {
        // A save passes the cap only with held mutations alone (never dropped to fit).
        let over = (text.len() > self.persist.max_bytes)
            .then(|| format!("{} bytes, over the {} kept at most", text.len(), self.persist.max_bytes));
        let restored = match serde_json::from_str::<SavedVersion>(text) {
            Err(error) => Restored::Unreadable { reason: over.unwrap_or_else(|| error.to_string()) },
            Ok(found) if found.version > self.persist.version => {
                // A newer version of the app keeps its data there: this tab leaves it alone.
                self.saving.store(false, Ordering::SeqCst);
                controller.inner.kept_since.set(None);
                return Restored::OtherVersion { found: found.version };
            }
            Ok(found) if found.version != self.persist.version => Restored::OtherVersion { found: found.version },
            Ok(_) => match serde_json::from_str::<Saved>(text) {
                Err(error) => Restored::Unreadable { reason: over.unwrap_or_else(|| error.to_string()) },
                Ok(saved) if saved.holds_no_mutation() && over.is_some() => {
                    Restored::Unreadable { reason: over.unwrap_or_default() }
                }
                Ok(saved) => match self.take_up(controller, saved) {
                    Ok(taken) => return taken,
                    Err(error) => Restored::QueueRejected { error },
                },
            },
        };
        self.storage.clear();
        restored
    }

    /// Takes up a saved store of this version with its queue; a queue that
    /// does not read leaves the store as it was.
    fn take_up(&self, controller: &Controller, saved: Saved) -> Result<Restored, crate::QueueError> {
        #[cfg(feature = "offline")]
        let (requests, unknown) = controller.prepare_replays(&self.persist.replays, saved.queue)?;
        let (results, entities) = controller.take_up_saved(saved.store);
        #[cfg(feature = "offline")]
        let replayed = controller.replay(requests);
        #[cfg(not(feature = "offline"))]
        let (replayed, unknown) = (0, Vec::new());
        Ok(Restored::Taken { results, entities, replayed, unknown })
    }

    fn wrote(self: &Arc<Self>) {
        self.dirty.store(true, Ordering::SeqCst);
        if self.loaded.load(Ordering::SeqCst) && lock(&self.timer).is_none() {
            self.schedule();
        }
    }

    /// A mutation was held, or left the queue (it answered): saved at once,
    /// not after `save_after_ms`, so a page closed meanwhile neither loses a
    /// held mutation nor sends an answered one again.
    #[cfg(feature = "offline")]
    fn queue_changed(self: &Arc<Self>) {
        if !self.loaded.load(Ordering::SeqCst) {
            // Saved once what was kept is taken up.
            self.dirty.store(true, Ordering::SeqCst);
            return;
        }
        if !self.saving.load(Ordering::SeqCst) {
            return;
        }
        if let (Some(timer), Some(controller)) = (*lock(&self.timer), self.controller()) {
            controller.cancel_timer(timer);
        }
        self.save();
    }

    fn schedule(self: &Arc<Self>) {
        let Some(controller) = self.controller() else { return };
        if !self.saving.load(Ordering::SeqCst) {
            return;
        }
        let keeper = Arc::downgrade(self);
        let timer = controller.set_timer(
            self.persist.save_after_ms,
            Box::new(move || {
                if let Some(keeper) = keeper.upgrade() {
                    keeper.save();
                }
            }),
        );
        *lock(&self.timer) = Some(timer);
    }

    fn save(&self) {
        *lock(&self.timer) = None;
        self.dirty.store(false, Ordering::SeqCst);
        let Some(controller) = self.controller() else { return };
        let Some(kept) = controller.persisted_text(&self.persist, self.fitted.load(Ordering::SeqCst)) else { return };
        self.fitted.store(kept.hint, Ordering::SeqCst);
        #[cfg(feature = "offline")]
        let holds_mutations = !controller.saved_queue().is_empty();
        #[cfg(not(feature = "offline"))]
        let holds_mutations = false;
        // Held mutations are never dropped to fit: over the cap, they are
        // saved alone (`persisted_text` left every cached item out).
        if kept.text.len() <= self.persist.max_bytes || holds_mutations {
            controller.inner.kept_since.set(Some(kept.since));
            self.storage.save(kept.text);
        } else {
            // A cap too small for even an empty store: nothing is kept.
            controller.inner.kept_since.set(Some(Millis::MAX));
            self.storage.clear();
        }
    }
}

#[cfg(feature = "persist")]
/// Clears the storage when the store is reset; a save pending is dropped.
struct ClearsOnReset(Arc<Keeper>);

#[cfg(feature = "persist")]
impl Manager for ClearsOnReset {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        if matches!(action, Action::Reset) {
            let timer = lock(&self.0.timer).take();
            if let Some(timer) = timer {
                controller.cancel_timer(timer);
            }
            self.0.dirty.store(false, Ordering::SeqCst);
            self.0.fitted.store(0, Ordering::SeqCst);
            if self.0.saving.load(Ordering::SeqCst) {
                controller.inner.kept_since.set(Some(0));
            }
            self.0.storage.clear();
        }
    }
}

#[cfg(feature = "persist")]
#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::most_that_fit;

    /// `most_that_fit` over `len` items of 10 bytes each under `max`, counting the texts made.
    fn search(len: usize, hint: usize, max: usize) -> (usize, u32) {
        let made = Cell::new(0);
        let text_of = |count: usize| {
            made.set(made.get() + 1);
            Some("x".repeat(count * 10))
        };
        let (count, text) = most_that_fit(len, hint, max, text_of).unwrap();
        assert_eq!(text.len(), count * 10);
        (count, made.get())
    }

    #[test]
    fn the_most_items_that_fit_are_found_in_a_few_texts_near_the_last_count() {
        assert_eq!(search(1000, 0, 100_000), (1000, 1), "all fit: one text");
        assert_eq!(search(1001, usize::MAX, 100_000), (1001, 1), "all fit last time and again: one text");
        assert_eq!(search(1000, 600, 6_000), (600, 2), "as many as last time: two texts");
        assert_eq!(search(1000, 590, 6_000).0, 600);
        assert_eq!(search(1000, 610, 6_000).0, 600);
        for hint in [0, 1, 599, 601, 999, 5000] {
            let (count, made) = search(1000, hint, 6_005);
            assert_eq!(count, 600, "from {hint}");
            assert!(made <= 22, "from {hint}: {made} texts");
        }
        assert_eq!(search(1000, 500, 5).0, 0, "none fit: the empty text");
        assert_eq!(search(0, 0, 0), (0, 1));
    }
}
