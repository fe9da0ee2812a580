//! Garbage collection: results no mounted reader uses and that are past expiry
//! are dropped, then entities no remaining result reaches and that are expired;
//! what the last save kept across page loads stays.

use super::keys;
use super::{Action, Controller};

impl Controller {
    /// Marks `key` as used by a mounted reader (GC keeps it).
    pub fn retain(&self, key: &str) {
        let retained = {
            let mut keys = self.inner.keys.borrow_mut();
            let state = keys::entry(&mut keys, key);
            state.retained += 1;
            state.retained
        };
        if retained == 1 {
            self.dispatch(Action::Retained { key });
        }
    }

    /// Releases one [`Controller::retain`].
    pub fn release(&self, key: &str) {
        let mut keys = self.inner.keys.borrow_mut();
        let Some(state) = keys.get_mut(key) else { return };
        let was = state.retained;
        state.retained = was.saturating_sub(1);
        keys::tidy(&mut keys, key);
        drop(keys);
        if was == 1 {
            self.dispatch(Action::Released { key });
        }
    }

    /// Number of keys retained by readers (for leak checks).
    pub fn retained_count(&self) -> usize {
        keys::count(&self.inner.keys.borrow(), |k| k.retained > 0)
    }

    /// Number of endpoint keys the controller keeps any state for (for leak checks).
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.retain("GET /users");
    /// assert_eq!(controller.key_count(), 1);
    /// controller.release("GET /users");
    /// assert_eq!(controller.key_count(), 0);
    /// ```
    pub fn key_count(&self) -> usize {
        self.inner.keys.borrow().len()
    }

    /// Drops unused, expired results and the expired entities nothing reaches,
    /// but not what the last save kept across page loads ([`Controller::persist`]).
    /// Returns how many results and entities were removed.
    pub fn sweep(&self) -> (usize, usize) {
        let now = self.now();
        let keys = self.inner.keys.borrow();
        // What the last save kept across page loads stays, however stale and unused.
        let kept = self.kept_by_the_last_save();
        let read_or_sent = |key: &str| keys.get(key).is_some_and(|k| k.retained > 0 || k.inflight.is_some());
        let (kept_tables, taken) = (self.inner.kept_tables.borrow(), self.inner.taken_rows.borrow());
        // The rows taken with kept results whose schema is unknown (what they reach is not known yet).
        let unknown = self.inner.schemas_unknown.get() > 0;
        let keep_row = |table: &str, pk: &str, fetched_at| {
            (kept(fetched_at) && kept_tables.contains(&table))
                || (unknown && taken.get(table).is_some_and(|pks| pks.contains(pk)))
        };
        let swept = self.write_base(|base| {
            // Read with the optimistic layers taken back, as the save reads.
            let kept_result = |key: &str| base.result(key).is_some_and(|r| kept(r.meta.fetched_at));
            let kept_results: std::collections::HashSet<&str> =
                keys.iter().filter(|(key, k)| k.persist && kept_result(key)).map(|(key, _)| key.as_str()).collect();
            let in_use = |key: &str| read_or_sent(key) || kept_results.contains(key);
            base.sweep(now, in_use, |key| keys::schema_of(&keys, key), keep_row)
        });
        drop((keys, kept_tables, taken));
        let (drop_keys, removed) = (swept.results, swept.entities);
        // Typed copies of errors the store no longer has (expired or replaced) go too.
        let base = self.inner.base.borrow();
        let mut keys = self.inner.keys.borrow_mut();
        keys.retain(|key, state| {
            if state.typed_error.is_some() && base.error(key).is_none() {
                state.typed_error = None;
            }
            if state.unreadable.is_some() && base.result(key).is_none() {
                state.unreadable = None;
            }
            !state.is_empty()
        });
        drop((base, keys));
        if removed > 0 || !drop_keys.is_empty() {
            let mut keys = self.inner.keys.borrow_mut();
            for key in &drop_keys {
                if let Some(state) = keys.get_mut(key) {
                    state.schema = None;
                    state.persist = false;
                    keys::tidy(&mut keys, key);
                }
            }
            drop(keys);
            self.count_schemas_unknown();
            // Row indices moved: memoized dependencies are void.
            self.inner.memo.borrow_mut().clear();
            self.changed();
        } else if self.inner.base.borrow().has_changes() {
            // Nothing went, but optimistic layers were taken back and put on again.
            self.changed();
        }
        (drop_keys.len(), removed)
    }
}

#[cfg(test)]
mod tests {
    use rdc_core::{json, State, WriteMeta};

    use crate::{Controller, Dehydrated, FakeTime, LocalTasks};

    #[test]
    fn a_swept_result_no_reader_named_the_schema_of_is_no_longer_counted_unknown() {
        let time = FakeTime::default();
        let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
        let mut state = State::default();
        state.write_plain_result("GET /a", json!(1), WriteMeta::at(0, 1000));
        controller.hydrate(Dehydrated { taken_at: 0, state, persist: Vec::new(), since: 0, offset: 0 });
        assert_eq!(controller.inner.schemas_unknown.get(), 1, "hydrated, not read yet");
        time.advance(2000);
        assert_eq!(controller.sweep().0, 1, "expired and unused: swept");
        // Otherwise every read keeps looking for a schema to note.
        assert_eq!(controller.inner.schemas_unknown.get(), 0);
    }
}
