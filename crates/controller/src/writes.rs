//! Writing by hand: invalidation, expiry, reset, and responses or errors set
//! without a request.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::*;

impl Controller {
    /// Marks `endpoint`'s data for `args` invalid: readers fetch again.
    pub fn invalidate<C: TypedEndpoint>(&self, endpoint: &C, args: &C::Args) {
        if let Ok(key) = self.key_of(endpoint, args) {
            self.write_base(|base| base.invalidate_result(&key));
            self.changed();
        }
    }

    /// Invalidates every result whose key satisfies `predicate` (e.g. a prefix).
    pub fn invalidate_all(&self, predicate: impl Fn(&str) -> bool) {
        // The predicate may read through the controller: no write is under way yet.
        let keys = self.result_keys_where(predicate);
        self.write_base(|base| {
            for key in &keys {
                base.invalidate_result(key);
            }
        });
        self.changed();
    }

    /// Makes every matching result stale (shown, but refetched on next use).
    pub fn expire_all(&self, predicate: impl Fn(&str) -> bool) {
        let keys = self.result_keys_where(predicate);
        self.write_base(|base| base.expire_results(keys));
        self.changed();
    }

    /// Keeps `error` as the typed error of `key`'s last failed fetch.
    pub(super) fn set_typed_error(&self, key: &str, error: Arc<dyn std::any::Any + Send + Sync>) {
        keys::entry(&mut self.inner.keys.borrow_mut(), key).typed_error = Some(error);
    }

    /// The endpoint keys with a stored result that satisfy `predicate`.
    pub(super) fn result_keys_where(&self, predicate: impl Fn(&str) -> bool) -> Vec<String> {
        let keys: Vec<String> = self.with_state(|state| state.result_keys().cloned().collect());
        keys.into_iter().filter(|key| predicate(key)).collect()
    }

    /// Empties the store. Requests in flight still finish, but their results are
    /// dropped and their callers get [`FetchError::Reset`]; held mutations are
    /// dropped unsent, and the next mutation does not wait for the answer of
    /// one on the wire. What another tab wrote before now is not taken up
    /// any more ([`Controller::take_shared`]).
    pub fn reset_entire_store(&self) {
        self.inner.epoch.fetch_add(1, Ordering::SeqCst);
        let now = self.now();
        self.inner.since.store(now, Ordering::SeqCst);
        self.inner.reset_at.store(now, Ordering::SeqCst);
        self.inner.base.borrow_mut().clear();
        self.inner.layers.borrow_mut().clear();
        let mut keys = self.inner.keys.borrow_mut();
        // The store is empty: no result has a schema, no error a typed copy.
        for state in keys.values_mut() {
            state.inflight = None;
            state.schema = None;
            state.persist = false;
            state.typed_error = None;
        }
        keys.retain(|_, state| !state.is_empty());
        drop(keys);
        self.inner.schemas_unknown.set(0);
        self.inner.taken_rows.borrow_mut().clear();
        self.inner.memo.borrow_mut().clear();
        self.changed();
        #[cfg(feature = "offline")]
        self.drop_held();
        self.dispatch(crate::Action::Reset);
    }

    /// Empties the store as [`Controller::reset_entire_store`] does, for a
    /// reset another tab made at `at` (its [`Controller::reset_at`], on the
    /// wall clock, moved onto this controller's clock here): what
    /// the tabs wrote after that reset is still taken up here, what they
    /// wrote before it is not. `sync_tabs` calls it.
    ///
    /// ```
    /// use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// let time = FakeTime::default();
    /// time.advance(1_000);
    /// let (one, two) = (Controller::new(time.clone(), time.clone(), LocalTasks::default()), Controller::new(time.clone(), time.clone(), LocalTasks::default()));
    /// one.reset_entire_store();
    /// time.advance(5); // the message takes a while
    /// two.reset_as_elsewhere(one.reset_at());
    /// assert_eq!((one.reset_at(), two.reset_at()), (1_000, 1_000));
    /// ```
    pub fn reset_as_elsewhere(&self, at: rdc_core::Millis) {
        self.reset_entire_store();
        let at = at.saturating_add(self.clock_offset());
        self.inner.reset_at.store(at.min(self.now()), Ordering::SeqCst);
    }

    /// When the store was last reset, on the wall clock (this controller's
    /// clock less the steps back it held through; 0: never), for another
    /// tab's [`Controller::reset_as_elsewhere`].
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// assert_eq!(controller.reset_at(), 0);
    /// ```
    pub fn reset_at(&self) -> rdc_core::Millis {
        self.inner.reset_at.load(Ordering::SeqCst).saturating_sub(self.clock_offset())
    }

    /// Stores `value` as the response of `endpoint` for `args`, as if fetched now.
    ///
    /// # Errors
    /// When the value does not normalize (the store is unchanged).
    pub fn set_response<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: &C::Args,
        value: Value,
    ) -> Result<(), FetchError<C::Error>> {
        let (args, key) = endpoint.json_and_key(args).map_err(FetchError::Endpoint)?;
        let raw = endpoint.endpoint();
        let policy = raw.policy();
        let meta = self.direct_write_meta(policy.data_expiry_ms);
        let schema = raw.schema();
        // Known before the write is shared: another tab keeps it too.
        keys::entry(&mut self.inner.keys.borrow_mut(), &key).persist |= policy.persist;
        self.write_base(|base| write_result(base, &key, schema.as_ref(), value, &args, meta))
            .map_err(FetchError::Normalize)?;
        keys::note_stored(&mut self.inner.keys.borrow_mut(), &key, schema, policy.persist);
        self.note_args(&key, &args);
        self.changed();
        Ok(())
    }

    /// Records `error` for `endpoint` with `args` (the data stays).
    pub fn set_error<C: TypedEndpoint>(&self, endpoint: &C, args: &C::Args, error: &C::Error) {
        if let Ok(key) = self.key_of(endpoint, args) {
            let now = self.now();
            let expires = now.saturating_add(endpoint.endpoint().policy().error_expiry_ms);
            self.write_base(|base| base.set_error(&key, error.to_string(), now, expires));
            self.changed();
        }
    }

    /// Writes entities directly (no endpoint result), e.g. after a websocket message.
    ///
    /// # Errors
    /// When the value does not normalize (the store is unchanged).
    pub fn set(&self, schema: &Schema, value: Value) -> Result<(), NormalizeError> {
        let meta = self.direct_write_meta(Policy::default().data_expiry_ms);
        self.write_base(|base| base.write_entities(schema, value, &Value::Null, meta))?;
        self.changed();
        Ok(())
    }

    /// Like [`Controller::set`], computing the new value from the current one
    /// (read through `schema` as JSON, `Null` when missing).
    ///
    /// # Errors
    /// As [`Controller::set`].
    pub fn set_with(
        &self,
        schema: &Schema,
        input: &Value,
        update: impl FnOnce(Value) -> Value,
    ) -> Result<(), NormalizeError> {
        let current = self
            .with_state(|state| rdc_core::denormalize::<Value>(state, schema, input))
            .ok()
            .flatten()
            .unwrap_or(Value::Null);
        self.set(schema, update(current))
    }
}

/// Writes a result through its schema, or as plain JSON without one.
pub(super) fn write_result(
    state: &mut State,
    key: &str,
    schema: Option<&Schema>,
    value: Value,
    args: &Value,
    meta: WriteMeta,
) -> Result<(), NormalizeError> {
    match schema {
        Some(schema) => state.write_result(key, schema, value, args, meta),
        None => {
            state.write_plain_result(key, value, meta);
            Ok(())
        }
    }
}
