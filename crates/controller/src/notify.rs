//! Telling readers about changes: plain listeners hear every change; tracked
//! listeners (`listen_reads`) hear only changes to what their last run read,
//! which the controller records while they run.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::topics::Topics;
use super::writes::write_result;
use super::Controller;
use rdc_core::{Changes, State, TakenBack, WriteMeta};

thread_local! {
    /// Changes told by this thread, of any controller: what `run_listener`
    /// leaves out of the changes it counted during a run.
    static CHANGES_HERE: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// The changes a `listen_changes` listener has yet to be told, each with the
/// store version after it.
pub(super) type ChangeFeed = Arc<std::sync::Mutex<std::collections::VecDeque<(u64, Arc<Changes>)>>>;

impl Controller {
    /// Calls `listener` after every change to the store; returns an id for
    /// [`Controller::unlisten`]. Readers should prefer [`Controller::listen_reads`].
    /// One thread at a time runs a controller's listeners: a change made on
    /// another thread meanwhile waits for them, then runs what is left, so a
    /// write returns after the listeners it woke ran, on any thread.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    /// let seen = calls.clone();
    /// let id = controller.listen(move || { seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst); });
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"})).unwrap();
    /// assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    /// controller.unlisten(id);
    /// ```
    pub fn listen(&self, listener: impl Fn() + Send + Sync + 'static) -> u64 {
        let id = self.next_id();
        self.inner.listeners.borrow_mut().add(id, Arc::new(listener), false);
        id
    }

    /// Calls `listener` after every change to the store with what changed:
    /// the rows whose object changed (with the fields that changed), the rows
    /// that came or went, the endpoint keys touched, or `everything` (a reset,
    /// a sweep); and the store version after it (what was read at that
    /// version or later saw it). Returns an id for [`Controller::unlisten`]. For a reader that
    /// works out itself which of its parts a change touched (a list's rows),
    /// at the cost of what changed. Should it panic, the changes after the
    /// one it panicked on are told at its next run.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// let rows = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    /// let seen = rows.clone();
    /// let id = controller.listen_changes(move |changes, _version| { seen.fetch_add(changes.rows.len() + changes.alive.len(), std::sync::atomic::Ordering::SeqCst); });
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"})).unwrap();
    /// assert!(rows.load(std::sync::atomic::Ordering::SeqCst) >= 1);
    /// controller.unlisten(id);
    /// ```
    pub fn listen_changes(&self, listener: impl Fn(&Changes, u64) + Send + Sync + 'static) -> u64 {
        let feed = ChangeFeed::default();
        let told = Arc::clone(&feed);
        let id = self.listen(move || {
            // One at a time, popped before the call (the listener may write,
            // and be told of that in turn; should it panic, the rest stay queued).
            loop {
                let next = crate::sync::lock(&told).pop_front();
                let Some((version, changes)) = next else { break };
                listener(&changes, version);
            }
        });
        self.inner.change_feeds.borrow_mut().insert(id, feed);
        id
    }

    /// Calls `listener` now, and again after each store change that touches
    /// what its last call read through this controller (endpoint keys, the
    /// entities a typed read depended on, `All` tables, requests in flight).
    /// A write then costs what it changed, not how many readers are mounted.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// let user = |name: &str| rdc_core::json!({"id": "1", "name": name});
    /// controller.set(&User::schema(), user("Ada")).unwrap();
    /// let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    /// let (seen, c) = (calls.clone(), controller.clone());
    /// controller.listen_reads(move || {
    ///     seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    ///     let _ = c.entity::<User>("1");
    /// });
    /// controller.set(&User::schema(), rdc_core::json!({"id": "2", "name": "Bob"})).unwrap();
    /// assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1); // another user: not woken
    /// controller.set(&User::schema(), user("Ada L.")).unwrap();
    /// assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 2);
    /// ```
    pub fn listen_reads(&self, listener: impl Fn() + Send + Sync + 'static) -> u64 {
        let id = self.next_id();
        self.inner.listeners.borrow_mut().add(id, Arc::new(listener), true);
        self.run_listener(id);
        id
    }

    /// Calls listener `id` now (say, after its own inputs changed), recording
    /// again what it reads when it is a [`Controller::listen_reads`] listener.
    pub fn run_listener(&self, id: u64) {
        let Some((callback, tracked)) = self.inner.listeners.borrow().callback(id) else { return };
        if !tracked {
            callback();
            return;
        }
        // A change another thread makes between this run's reads and the
        // recording of what they read would wake no one: run again then, until
        // a run sees none (on one thread, as in the browser, it runs once).
        loop {
            let (all, own) = (self.inner.changes_told.load(Ordering::SeqCst), CHANGES_HERE.get());
            let outer =
                Tracking { controller: self, outer: Some(self.inner.tracking.replace(Some(Topics::default()))) };
            callback();
            let mut topics = outer.restore().unwrap_or_default();
            topics.trim();
            self.inner.listeners.borrow_mut().set_topics(id, topics);
            let others = (self.inner.changes_told.load(Ordering::SeqCst) - all) - (CHANGES_HERE.get() - own);
            if others == 0 {
                break;
            }
        }
    }

    /// Runs `f` with no tracked listener recording its reads: a listener that
    /// reads something this way is not woken by changes to it.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"})).unwrap();
    /// let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    /// let (seen, c) = (calls.clone(), controller.clone());
    /// controller.listen_reads(move || {
    ///     seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    ///     let _ = c.untracked(|| c.entity::<User>("1"));
    /// });
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada L."})).unwrap();
    /// assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1); // not woken
    /// ```
    pub fn untracked<R>(&self, f: impl FnOnce() -> R) -> R {
        let outer = Tracking { controller: self, outer: Some(self.inner.tracking.replace(None)) };
        let out = f();
        // Nothing was recorded: the slot held `None` throughout.
        let _ = outer.restore();
        out
    }

    /// How many typed reads (`entity`, `read_key` and the reads built on them)
    /// this controller has made: for tests that count work rather than time it.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// let before = controller.read_count();
    /// let _ = controller.entity::<User>("1");
    /// assert_eq!(controller.read_count(), before + 1);
    /// ```
    pub fn read_count(&self) -> u64 {
        self.inner.reads.load(Ordering::SeqCst)
    }

    /// Counts one typed read.
    pub(super) fn count_read(&self) {
        self.inner.reads.fetch_add(1, Ordering::Relaxed);
    }

    /// Stops calling a listener.
    pub fn unlisten(&self, id: u64) {
        self.inner.listeners.borrow_mut().remove(id);
        self.inner.change_feeds.borrow_mut().remove(&id);
    }

    /// The store's version: it moves on with every write, as the write lands
    /// (before the listeners it wakes have run). A reader kept current by a
    /// listener can compare it with the version it last read at, to catch a
    /// write another thread made that its listener has yet to see.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// let before = controller.store_version();
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1"})).unwrap();
    /// assert!(controller.store_version() > before);
    /// ```
    pub fn store_version(&self) -> u64 {
        self.inner.base.borrow().version()
    }

    /// Number of listeners (for leak checks).
    pub fn listener_count(&self) -> usize {
        self.inner.listeners.borrow().len()
    }

    /// Records, for the tracked listener running now, a read of endpoint `key`
    /// and what the memoized read of `memo_key` into `T` depended on.
    pub(super) fn note_read<T: 'static>(&self, key: Option<&str>, memo_key: &str) {
        self.inner.tracking.with(|topics| {
            if let Some(key) = key {
                topics.key(key);
            }
            topics.record(self.inner.memo.borrow().topics(std::any::TypeId::of::<T>(), memo_key));
        });
    }

    /// Records, for the tracked listener running now, a look at `topic` (all
    /// of its fields).
    pub(super) fn note_topic(&self, topic: rdc_core::Topic) {
        self.inner.tracking.with(|topics| {
            topics.record(std::iter::once(rdc_core::TopicFields { topic, fields: rdc_core::FieldMask::MAX }));
        });
    }

    /// Records, for the tracked listener running now, a look at endpoint `key`.
    pub(super) fn note_key(&self, key: &str) {
        self.inner.tracking.with(|topics| topics.key(key));
    }

    /// Runs `write` on the fetched data alone: takes the optimistic layers back
    /// (the store records what they replaced), writes, and puts the current
    /// layers on again, recording anew. Layers and writes cost what they touch;
    /// the store is never copied, and readers of what a layer touched are woken
    /// through the change log like any others.
    pub(super) fn write_base<R>(&self, write_fn: impl FnOnce(&mut State) -> R) -> R {
        // One step for other threads: none reads the store between its layers
        // taken back and put on again.
        let _whole = self.inner.gate.enter();
        let taken = self.take_layers_back();
        let mark = self.share_mark();
        let out = write_fn(&mut self.inner.base.borrow_mut());
        let written = mark.and_then(|mark| self.written_since(mark));
        self.put_layers_on(taken);
        if let Some(written) = written {
            self.share(written);
        }
        out
    }

    /// The first half of `write_base` (not generic: one copy in the binary).
    fn take_layers_back(&self) -> TakenBack {
        self.inner.base.borrow_mut().take_back_layers()
    }

    /// The second half of `write_base`.
    fn put_layers_on(&self, taken: TakenBack) {
        let mut base = self.inner.base.borrow_mut();
        let layers = self.inner.layers.borrow();
        if !layers.is_empty() {
            base.record_undo();
            for layer in layers.iter() {
                let (at, seq) = (layer.sent.at, layer.sent.seq);
                let meta = WriteMeta { fetched_at: at, date: at, expires_at: u64::MAX, seq };
                // Worked out from the store as it now stands (`None`: the layer stands down).
                let Some(value) = (layer.value)(&base) else { continue };
                let _ = write_result(&mut base, &layer.key, layer.schema.as_ref(), value, &layer.args, meta);
            }
        }
        // Rows the layers touched that read as before are left as they were (same
        // object, version, no change logged): a write wakes only readers of what
        // it changed, layers or not.
        if base.keep_unchanged(taken) {
            // An index a layer's row had now holds another row (or none): memoized
            // reads must not compare that row's fields with the old one's.
            self.inner.memo.borrow_mut().forget_fields();
        }
    }

    /// Wakes the listeners of what changed.
    /// Listeners run from a queue: should one panic, the others woken with
    /// it stay queued and run at the next change, so none misses a wake-up.
    pub(super) fn changed(&self) {
        // Counted before the listeners to wake are chosen (see `run_listener`).
        self.inner.changes_told.fetch_add(1, Ordering::SeqCst);
        CHANGES_HERE.set(CHANGES_HERE.get() + 1);
        let changes = self.inner.base.borrow_mut().take_changes();
        let wake = self.inner.listeners.borrow().to_wake(&changes);
        let feeds = self.inner.change_feeds.borrow();
        if !feeds.is_empty() && !changes.is_empty() {
            let (version, changes) = (self.inner.base.borrow().version(), Arc::new(changes));
            for feed in feeds.values() {
                crate::sync::lock(feed).push_back((version, Arc::clone(&changes)));
            }
        }
        drop(feeds);
        let mut waking = self.inner.waking.borrow_mut();
        if waking.is_empty() {
            // `to_wake`'s ids are sorted and distinct already.
            waking.extend(wake);
        } else {
            // Some are queued still (a listener panicked, or this change came
            // from inside one): add the others once, in n log n (sorted ids
            // searched; no hash map instance for this rare path).
            let mut queued: Vec<u64> = waking.iter().copied().collect();
            rdc_core::json::sort::sort(&mut queued);
            waking.extend(wake.into_iter().filter(|id| queued.binary_search(id).is_err()));
        }
        drop(waking);
        // One thread runs a controller's woken listeners at a time (each run
        // reads what the one before it wrote): while another thread does, this
        // one waits, then runs what is left. On its own thread a change made
        // by a listener enters again and runs the listeners it wakes, as before.
        let _turn = self.inner.listeners_turn.enter();
        loop {
            let next = self.inner.waking.borrow_mut().pop_front();
            let Some(id) = next else { break };
            // A listener woken earlier may have unmounted this one: `run_listener` skips it.
            self.run_listener(id);
        }
    }

    /// Logs that endpoint `key` changed in a way only the controller knows
    /// (a request started or ended).
    pub(super) fn touch_key(&self, key: &str) {
        self.inner.base.borrow_mut().touch_key(key);
    }
}

/// The tracking slot of a listener's outer run, put back when the listener
/// returns or panics (so a panic does not leave its topics collecting reads).
struct Tracking<'c> {
    controller: &'c Controller,
    outer: Option<Option<Topics>>,
}

impl Tracking<'_> {
    /// Puts the outer run's slot back; returns what the listener recorded.
    fn restore(mut self) -> Option<Topics> {
        let outer = self.outer.take().unwrap_or_default();
        self.controller.inner.tracking.replace(outer)
    }
}

impl Drop for Tracking<'_> {
    fn drop(&mut self) {
        if let Some(outer) = self.outer.take() {
            self.controller.inner.tracking.replace(outer);
        }
    }
}
