//! `dehydrate` / `hydrate`: the store a server rendered a page with, sent inside
//! the page and taken up by the browser's controller, its times re-based onto
//! the browser's clock.

use serde::{Deserialize, Serialize};
use std::sync::atomic::Ordering;

use super::Controller;
use rdc_core::Millis;
use rdc_core::State;

/// A controller's store as it travels with a page: its data, the errors of
/// reads that got no data (the page showed them; the browser shows the same
/// text until they expire), and when it was taken, so its times can be read
/// against another clock.
///
/// ```
/// use rdc_core::{json, Entity};
/// use rdc_controller::{Controller, FakeTime, LocalTasks};
/// #[derive(Debug, Clone, serde::Deserialize, Entity)]
/// struct User { id: String, name: String }
///
/// let server_time = FakeTime::default();
/// server_time.advance(1_000_000);
/// let server = Controller::new(server_time.clone(), server_time, LocalTasks::default());
/// server.set(&User::schema(), json!({ "id": "1", "name": "</script>" }))?;
/// let page = server.dehydrate().to_script_text();      // goes inside <script type="application/json">
/// assert!(!page.contains("</script>"));
///
/// let browser_time = FakeTime::default();              // another clock
/// let browser = Controller::new(browser_time.clone(), browser_time, LocalTasks::default());
/// browser.hydrate(rdc_controller::Dehydrated::from_script_text(&page)?);
/// assert_eq!(browser.entity::<User>("1")?.unwrap().name, "</script>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Dehydrated {
    /// The clock of the controller it was taken from, when it was taken.
    pub(crate) taken_at: Millis,
    pub(crate) state: State,
    /// The keys of its results that are kept across page loads where it
    /// comes from (another tab's), so the tab taking it up keeps them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) persist: Vec<String>,
    /// When the data of the store it was taken from began (its start or its
    /// last reset), on its clock: a tab reset since then does not take it up
    /// (it may be the last user's).
    #[serde(default)]
    pub(crate) since: Millis,
    /// How far the clock of the controller it was taken from was ahead of
    /// the wall clock (after a step back): another tab moves its times by
    /// the difference to its own (`Controller::take_shared`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub(crate) offset: Millis,
}

/// Whether `at` is 0 (no offset: left out of the text).
fn is_zero(at: &Millis) -> bool {
    *at == 0
}

impl Dehydrated {
    /// JSON that can sit inside an HTML `<script>` element: `<`, `>`, `&` and
    /// the line and paragraph separators are written as `\u` escapes (they can
    /// only occur inside JSON strings), so no value can close the element,
    /// open a comment or end a JavaScript line.
    pub fn to_script_text(&self) -> String {
        let json = serde_json::to_string(self).unwrap_or_default();
        let mut safe = String::with_capacity(json.len());
        for c in json.chars() {
            match c {
                '<' => safe.push_str("\\u003c"),
                '>' => safe.push_str("\\u003e"),
                '&' => safe.push_str("\\u0026"),
                '\u{2028}' => safe.push_str("\\u2028"),
                '\u{2029}' => safe.push_str("\\u2029"),
                c => safe.push(c),
            }
        }
        safe
    }

    /// How many entities it holds.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let empty = Controller::new(time.clone(), time, LocalTasks::default()).dehydrate();
    /// assert_eq!((empty.entity_count(), empty.result_count()), (0, 0));
    /// ```
    pub fn entity_count(&self) -> usize {
        self.state.tables().values().map(|t| t.rows.len()).sum()
    }

    /// How many endpoint results it holds.
    pub fn result_count(&self) -> usize {
        self.state.result_keys().count()
    }

    /// Reads a dehydrated store's JSON: text made by [`Dehydrated::to_script_text`],
    /// or the same without its escapes (what `sync_tabs` posts).
    ///
    /// # Errors
    /// When the text is not a dehydrated store.
    pub fn from_script_text(text: &str) -> Result<Dehydrated, serde_json::Error> {
        serde_json::from_str(text)
    }
}

impl Controller {
    /// The store as it stands (no optimistic layer), to send with a
    /// server-rendered page: on the server each request has its own controller,
    /// so this is what that page read.
    pub fn dehydrate(&self) -> Dehydrated {
        self.dehydrated(self.inner.base.borrow().page_copy())
    }

    /// `state` stamped with this controller's clock, start and offset.
    fn dehydrated(&self, state: State) -> Dehydrated {
        Dehydrated {
            taken_at: self.now(),
            state,
            persist: Vec::new(),
            since: self.inner.since.load(Ordering::SeqCst),
            offset: self.clock_offset(),
        }
    }

    /// The results at `keys` and the entities they reach: what one read of a
    /// server-rendered page needs to read the same in the browser. Each read's
    /// slice stands alone, so the browser can take them up in any order.
    ///
    /// ```
    /// use rdc_core::{json, Entity};
    /// use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// #[derive(Debug, Clone, serde::Deserialize, Entity)]
    /// struct User { id: String, name: String }
    ///
    /// let time = FakeTime::default();
    /// let server = Controller::new(time.clone(), time, LocalTasks::default());
    /// server.set(&User::schema(), json!({ "id": "1", "name": "Ann" }))?;
    /// server.set(&User::schema(), json!({ "id": "2", "name": "Bo" }))?;
    /// // No read has a result yet: a slice of no key carries nothing, the whole store both users.
    /// assert_eq!(server.dehydrate_keys([]).entity_count(), 0);
    /// assert_eq!(server.dehydrate().entity_count(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dehydrate_keys<'k>(&self, keys: impl IntoIterator<Item = &'k str>) -> Dehydrated {
        let index = self.inner.keys.borrow();
        let state = self.inner.base.borrow().slice(keys, |key| super::keys::schema_of(&index, key));
        self.dehydrated(state)
    }

    /// Takes up a store dehydrated elsewhere: its times are moved by the
    /// difference between this clock and the one it was taken with, so data
    /// fresh for another minute there is fresh for another minute here, and
    /// data already stale is fetched again on its next read. Newer data wins,
    /// by the order writes use (fetch time, then sequence): a row or result this
    /// store holds already is kept unless the page's was fetched after it, and
    /// then the page's replaces it whole (it is the server's merged row, so no
    /// field merge or entity hook runs again). So slices of one page taken at
    /// different moments can be taken up in any order. Times still ahead of
    /// this clock (a page claiming to be taken before it was fetched) move
    /// back to now, so they never beat what this controller fetches later.
    /// An error comes as its text: [`Controller::typed_error`] gives it as
    /// `FetchError::Carried` until it expires.
    pub fn hydrate(&self, dehydrated: Dehydrated) {
        let (from, to) = (dehydrated.taken_at, self.now());
        let shift = |at: Millis| if to >= from { at.saturating_add(to - from) } else { at.saturating_sub(from - to) };
        self.take_up_from_elsewhere(dehydrated.state, &[], shift);
    }

    /// Takes up `state`, a store from elsewhere (a server's page, another
    /// tab's write, a saved store), its times moved by `shift` and none left
    /// later than now (`State::take_up`); `kept` are its results that were
    /// kept across page loads there, so they are kept here too. What this
    /// controller writes next is newer than all of it, also within this
    /// millisecond (`Order::saw`). Nothing taken is shared on, and the
    /// results' schemas come with their first reads.
    pub(super) fn take_up_from_elsewhere(&self, mut state: State, kept: &[String], shift: impl Fn(Millis) -> Millis) {
        // A count at the cap would leave this controller none to write after it.
        state.cap_seqs(crate::order::MAX_TAKEN_SEQ);
        self.note_taken_rows(&state, kept);
        let now = self.now();
        self.inner.order.saw(crate::order::Stamp { at: now, seq: latest_seq(&state) });
        self.not_shared(|| self.write_base(|base| base.take_up(state, shift, now)));
        self.mark_persisted(kept);
        self.count_schemas_unknown();
        self.inner.memo.borrow_mut().clear();
        self.changed();
    }
}

impl Controller {
    /// Calls `sink` after each write to the fetched data (a fetch's result,
    /// a `set`, a collection edit, a delete; not optimistic layers, not data
    /// taken from elsewhere) with what it changed, as a store slice another
    /// controller takes with [`Controller::take_shared`]: how
    /// `rdc_leptos::sync_tabs` keeps the app's tabs showing the same data.
    ///
    /// ```
    /// use std::sync::{Arc, Mutex};
    /// use rdc_core::{json, Entity};
    /// use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// let time = FakeTime::default();
    /// let (one, two) = (Controller::new(time.clone(), time.clone(), LocalTasks::default()), Controller::new(time.clone(), time, LocalTasks::default()));
    /// let sent = Arc::new(Mutex::new(Vec::new()));
    /// let outbox = sent.clone();
    /// one.share_writes(move |slice| outbox.lock().unwrap().push(slice.clone()));
    /// one.set(&User::schema(), json!({ "id": "1", "name": "Ada" }))?;
    /// for slice in sent.lock().unwrap().drain(..) { two.take_shared(slice) }
    /// assert_eq!(two.entity::<User>("1")?.unwrap().name, "Ada");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Each call adds a sink.
    pub fn share_writes(&self, sink: impl Fn(&Dehydrated) + Send + Sync + 'static) {
        self.inner.sinks.borrow_mut().push(Sink::Changes(std::sync::Arc::new(sink)));
    }

    /// Calls `told` after each write of rows or results to the fetched data,
    /// without cutting a slice (persistence saves the store later).
    #[cfg(feature = "persist")]
    pub(super) fn tell_writes(&self, told: impl Fn() + Send + Sync + 'static) {
        self.inner.sinks.borrow_mut().push(Sink::Told(std::sync::Arc::new(told)));
    }

    /// Takes up what another controller shared ([`Controller::share_writes`]):
    /// as [`Controller::hydrate`], in one order of writes for every tab (two
    /// writes of one millisecond are told apart by their sequence numbers,
    /// so every tab keeps the same one), and nothing taken is shared on.
    /// What the other controller wrote before this store was last reset
    /// (its data began before then: the last user's, say) is dropped.
    pub fn take_shared(&self, shared: Dehydrated) {
        // Another tab of this machine: one wall clock, but each tab's clock
        // is ahead of it by the steps back it held through, so times move
        // by the difference (those still ahead of this clock move back).
        let (theirs, ours) = (shared.offset, self.clock_offset());
        let shift = move |at: Millis| at.saturating_sub(theirs).saturating_add(ours);
        if shift(shared.since) < self.inner.reset_at.load(Ordering::SeqCst) {
            return;
        }
        self.take_up_from_elsewhere(shared.state, &shared.persist, shift);
    }

    /// How far this controller's clock is ahead of the injected one (the
    /// steps back it held through).
    pub(crate) fn clock_offset(&self) -> Millis {
        self.now();
        self.inner.steady.offset()
    }

    /// Runs `f` with sharing off: what it writes came from elsewhere.
    pub(super) fn not_shared<R>(&self, f: impl FnOnce() -> R) -> R {
        // Per thread: another thread's own writes are still shared meanwhile.
        let was = self.inner.not_sharing.replace(Some(()));
        let out = f();
        self.inner.not_sharing.replace(was);
        out
    }

    /// Where the change log stands, when writes are shared.
    pub(super) fn share_mark(&self) -> Option<rdc_core::ChangeMark> {
        if self.inner.not_sharing.is_set() || self.inner.sinks.borrow().is_empty() {
            return None;
        }
        self.inner.base.borrow().change_mark()
    }

    /// What the base store wrote since `mark`, for the sinks (`None`: no rows
    /// and no results, an error alone say). Cut before the optimistic layers
    /// go back on; the slice only when a sink takes it.
    pub(super) fn written_since(&self, mark: rdc_core::ChangeMark) -> Option<Written> {
        let base = self.inner.base.borrow();
        if !base.wrote_data_since(mark) {
            return None;
        }
        let sliced = self.inner.sinks.borrow().iter().any(|sink| matches!(sink, Sink::Changes(_)));
        Some(Written { slice: sliced.then(|| base.changed_since(mark)) })
    }

    /// Tells the sinks of a write (nothing borrowed meanwhile).
    pub(super) fn share(&self, written: Written) {
        let sinks = self.inner.sinks.borrow().clone();
        let shared = written.slice.filter(|slice| !slice.is_empty()).map(|slice| {
            let persist = self.persisted_keys(&slice);
            Dehydrated {
                taken_at: self.now(),
                state: slice,
                persist,
                since: self.inner.since.load(Ordering::SeqCst),
                offset: self.clock_offset(),
            }
        });
        for sink in sinks {
            match (sink, &shared) {
                #[cfg(feature = "persist")]
                (Sink::Told(told), _) => told(),
                (Sink::Changes(sink), Some(shared)) => sink(shared),
                (Sink::Changes(_), None) => {}
            }
        }
    }
}

/// Where writes to the fetched data go.
#[derive(Clone)]
pub(super) enum Sink {
    /// Takes what each write changed (another tab).
    Changes(std::sync::Arc<dyn Fn(&Dehydrated) + Send + Sync>),
    /// Only hears that something changed (persistence).
    #[cfg(feature = "persist")]
    Told(std::sync::Arc<dyn Fn() + Send + Sync>),
}

/// A write the sinks hear of: its slice, when a sink takes one.
pub(super) struct Written {
    slice: Option<State>,
}

/// The highest sequence number in `state`.
fn latest_seq(state: &State) -> u64 {
    let rows = state.tables().values().flat_map(|table| table.rows.values().map(|row| row.meta.seq));
    let results = state.result_keys().filter_map(|key| state.result(key)).map(|result| result.meta.seq);
    rows.chain(results).max().unwrap_or(0)
}
