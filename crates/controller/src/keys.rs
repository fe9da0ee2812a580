//! What the controller keeps per endpoint key beside the store, in one map: the
//! request in flight, how many mounted readers retain the key, the schema its
//! result was written with (for GC), its poll, and its last typed error.

use std::any::Any;
use std::sync::Arc;

use super::shared::Shared;
use super::BoxFuture;
use rdc_core::FastMap;
use rdc_core::Schema;

/// The controller's state of one endpoint key; an entry goes once it is empty.
#[derive(Default)]
pub(crate) struct KeyState {
    /// The request identical reads join.
    pub inflight: Option<Arc<Shared>>,
    /// Mounted readers keeping the result from GC.
    pub retained: usize,
    /// The schema the stored result was written with (`Some(None)`: plain JSON).
    pub schema: Option<Option<Schema>>,
    /// Whether the stored result outlives the page (its endpoint's
    /// `Policy::persist`, or it was restored from where the app keeps it).
    pub persist: bool,
    pub poll: Option<PollState>,
    /// The typed error of the last failed fetch (the store keeps its text).
    pub typed_error: Option<Arc<dyn Any + Send + Sync>>,
    /// The stored result a read found unreadable (entities it requires went
    /// invalid), by its fetch stamp; `refetched` once a newer one was too.
    pub unreadable: Option<Unreadable>,
}

/// A stored result that could not be read (see [`KeyState::unreadable`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unreadable {
    /// The result's `(fetched_at, seq)`.
    pub stamp: (u64, u64),
    /// Whether a fetch already replaced an unreadable result with another
    /// unreadable one: no more fetching for it (no loop).
    pub refetched: bool,
}

impl Unreadable {
    /// Whether the stored result stamped `stamp` is this one and should be fetched again.
    pub(crate) fn wants_fetch(self, stamp: (u64, u64)) -> bool {
        self.stamp == stamp && !self.refetched
    }
}

impl KeyState {
    pub(crate) fn is_empty(&self) -> bool {
        self.inflight.is_none()
            && self.retained == 0
            && self.schema.is_none()
            && !self.persist
            && self.poll.is_none()
            && self.typed_error.is_none()
            && self.unreadable.is_none()
    }
}

/// Every key's state.
pub(crate) type Keys = FastMap<String, KeyState>;

/// The state of `key`, created when missing.
pub(crate) fn entry<'k>(keys: &'k mut Keys, key: &str) -> &'k mut KeyState {
    keys.entry_ref(key).or_default()
}

/// Drops the entry of `key` once nothing is kept for it.
pub(crate) fn tidy(keys: &mut Keys, key: &str) {
    if keys.get(key).is_some_and(KeyState::is_empty) {
        keys.remove(key);
    }
}

/// How many keys satisfy `test`.
pub(crate) fn count(keys: &Keys, test: impl Fn(&KeyState) -> bool) -> usize {
    keys.values().filter(|state| test(state)).count()
}

/// An endpoint key's polling: who asked at what interval, the timer, and the refetch.
pub(crate) struct PollState {
    pub(super) subscribers: Vec<(u64, u64)>,
    pub(super) timer: Option<u64>,
    pub(super) every_ms: Option<u64>,
    pub(super) refetch: Arc<dyn Fn() -> BoxFuture<()> + Send + Sync>,
}

/// Notes, for the key whose result was just stored, the schema it was written
/// with and whether it outlives the page.
pub(crate) fn note_stored<'k>(
    keys: &'k mut Keys,
    key: &str,
    schema: Option<Schema>,
    persist: bool,
) -> &'k mut KeyState {
    let state = entry(keys, key);
    state.schema = Some(schema);
    state.persist = persist;
    state
}

/// The schema the result at `key` was written with, if known and not plain JSON.
pub(crate) fn schema_of(keys: &Keys, key: &str) -> Option<Schema> {
    keys.get(key).and_then(|k| k.schema.clone()).flatten()
}
