//! Reading: keys, freshness, errors and typed reads of what the store holds.

use std::sync::Arc;

use super::*;

impl Controller {
    /// The store key of `endpoint` for `args`.
    ///
    /// ```
    /// # use rdc_controller::{from_fn, Controller, FakeTime, LocalTasks};
    /// # let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    /// # let controller = Controller::new(time.clone(), time, tasks);
    /// async fn square(n: u32) -> Result<u32, String> { Ok(n * n) }
    /// let squares = from_fn("square", square);
    /// assert_eq!(controller.key_of(&squares, &3).unwrap(), "square 3");
    /// ```
    ///
    /// # Errors
    /// When the args make no key (they cannot be JSON, a path param is missing...).
    pub fn key_of<C: TypedEndpoint>(&self, endpoint: &C, args: &C::Args) -> Result<String, C::Error> {
        endpoint.key_for(args)
    }

    /// Whether a read of `key` should fetch now: no fresh data and no error that
    /// still counts.
    pub fn needs_fetch(&self, key: &str, policy: Policy) -> bool {
        self.note_key(key);
        let now = self.now();
        self.with_state(|state| {
            let mut status = expiry_status(state, key, now, policy.invalid_if_stale);
            let stamp = state.result(key).map(|r| (r.meta.fetched_at, r.meta.seq));
            let keys = self.inner.keys.borrow();
            if let (Some(stamp), Some(flag)) = (stamp, keys.get(key).and_then(|k| k.unreadable)) {
                if flag.wants_fetch(stamp) {
                    status = ExpiryStatus::Invalid;
                }
            }
            let erroring = state.error(key).is_some_and(|e| now < e.expires_at);
            status != ExpiryStatus::Valid && !erroring
        })
    }

    /// The typed error of `key`'s last failed fetch through endpoints of type `E`,
    /// while the error counts (see [`Read::error`]).
    pub fn typed_error<E: Endpoint>(&self, key: &str) -> Option<FetchError<E::Error>> {
        let now = self.now();
        let counting = self.with_state(|s| s.error(key).filter(|e| now < e.expires_at).map(|e| e.message.clone()))?;
        let keys = self.inner.keys.borrow();
        match keys.get(key).and_then(|k| k.typed_error.as_ref()) {
            Some(error) => error.downcast_ref::<FetchError<E::Error>>().cloned(),
            // Only its text came (with a server-rendered page).
            None => Some(FetchError::Carried { key: key.to_owned(), message: counting }),
        }
    }

    /// Whether a request for `key` is in flight.
    pub fn is_fetching(&self, key: &str) -> bool {
        self.note_key(key);
        self.inner.keys.borrow().get(key).is_some_and(|k| k.inflight.is_some())
    }

    /// Keys of requests in flight.
    pub fn inflight_keys(&self) -> Vec<String> {
        let keys = self.inner.keys.borrow();
        keys.iter().filter(|(_, k)| k.inflight.is_some()).map(|(key, _)| key.clone()).collect()
    }

    /// Reads `endpoint`'s data for `args` into `T`, with its status and error.
    /// Unchanged data reads back as the same `Arc`.
    ///
    /// # Errors
    /// When the args are invalid (`Endpoint`) or the data does not fit `T`.
    pub fn read<C: TypedEndpoint, T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        endpoint: &C,
        args: &C::Args,
    ) -> Result<Read<T>, FetchError<ReadError>> {
        let key = self
            .key_of(endpoint, args)
            .map_err(|e| FetchError::Endpoint(ReadError::Type { path: String::new(), message: e.to_string() }))?;
        self.note_read_args(endpoint, &key, args);
        let raw = endpoint.endpoint();
        let schema = raw.schema();
        self.read_key(&key, schema.as_ref(), raw.policy().invalid_if_stale).map_err(FetchError::Endpoint)
    }

    /// Reads the result stored under `key` through `schema` (`None`: plain JSON).
    ///
    /// # Errors
    /// When the data does not fit `T`.
    pub fn read_key<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        key: &str,
        schema: Option<&Schema>,
        invalid_if_stale: bool,
    ) -> Result<Read<T>, ReadError> {
        let now = self.now();
        self.count_read();
        // The args that made the result (kept with it when it holds scalar
        // fields, also once taken up from elsewhere), else the key's last
        // known ones: a scalar field reads their lens.
        self.with_state(|state| {
            let mut memo = self.inner.memo.borrow_mut();
            let origins = self.origins();
            let args = state.result(key).and_then(|r| r.args.as_deref()).or_else(|| origins.get(key));
            let data = match (schema, args) {
                (Some(schema), Some(args)) => memo.read_result_with::<T>(state, key, schema, args),
                (Some(schema), None) => memo.read_result::<T>(state, key, schema),
                (None, _) => memo.read_plain::<T>(state, key),
            };
            drop((memo, origins));
            // Also when the read failed: a write that fixes it must wake the reader.
            self.note_read::<T>(Some(key), key);
            if self.inner.schemas_unknown.get() > 0 && state.result(key).is_some() {
                self.note_schema(key, schema);
            }
            let stored = state.result(key);
            let stamp = stored.map(|r| (r.meta.fetched_at, r.meta.seq));
            // A result that does not read (a row taken up from elsewhere that
            // breaks its schema, say) is fetched again, once.
            let data = data.inspect_err(|_| {
                self.note_unreadable(key, stamp);
            })?;
            // A stored `null` (an entity endpoint answering nobody) reads as
            // nothing and is valid; anything else read as nothing lost entities.
            let unreadable = schema.is_some() && data.is_none() && stored.is_some_and(|r| !r.value.is_null());
            let mut status = expiry_status(state, key, now, invalid_if_stale);
            if self.note_unreadable(key, stamp.filter(|_| unreadable)) {
                status = ExpiryStatus::Invalid;
            }
            let error = state.error(key).filter(|e| now < e.expires_at).cloned();
            Ok(Read { data, status, error })
        })
    }

    /// Records the schema a reader read a hydrated result with.
    pub(super) fn note_schema(&self, key: &str, schema: Option<&Schema>) {
        let mut keys = self.inner.keys.borrow_mut();
        let state = keys::entry(&mut keys, key);
        if state.schema.is_none() {
            state.schema = Some(schema.cloned());
            drop(keys);
            // Counted again, not less one: a key an optimistic layer wrote was never counted.
            self.count_schemas_unknown();
        }
    }

    /// Counts the stored results whose schema no reader has named (taken up
    /// from elsewhere): while there are any, reads note the schema they use.
    /// A walk of the results, after a take-up, a sweep or a schema noted.
    pub(super) fn count_schemas_unknown(&self) {
        let base = self.inner.base.borrow();
        let keys = self.inner.keys.borrow();
        let unknown =
            base.result_keys().filter(|key| keys.get(key.as_str()).is_none_or(|k| k.schema.is_none())).count();
        self.inner.schemas_unknown.set(unknown);
        if unknown == 0 {
            // Every kept result's schema is known: what it reaches is known.
            self.inner.taken_rows.borrow_mut().clear();
        }
    }

    /// Records whether `key`'s stored result (stamped `stamp`) was unreadable;
    /// returns whether it should count as invalid (be fetched again).
    pub(super) fn note_unreadable(&self, key: &str, stamp: Option<(u64, u64)>) -> bool {
        let mut keys = self.inner.keys.borrow_mut();
        let Some(stamp) = stamp else {
            if let Some(state) = keys.get_mut(key).filter(|k| k.unreadable.is_some()) {
                state.unreadable = None;
                keys::tidy(&mut keys, key);
            }
            return false;
        };
        let state = keys::entry(&mut keys, key);
        let refetched = state.unreadable.is_some_and(|u| u.refetched || u.stamp != stamp);
        let flag = keys::Unreadable { stamp, refetched };
        state.unreadable = Some(flag);
        flag.wants_fetch(stamp)
    }

    /// Reads a schema that needs no stored result (e.g. an `All`) into `T`.
    ///
    /// # Errors
    /// When the data does not fit `T`.
    pub fn query<T: DeserializeOwned + Send + Sync + 'static>(
        &self,
        memo_key: &str,
        schema: &Schema,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let read =
            self.with_state(|state| self.inner.memo.borrow_mut().read::<T>(state, memo_key, schema, &Value::Null));
        self.note_read::<T>(None, memo_key);
        read
    }

    /// Reads `query` (a core `Query`: a memoized selector over a schema) for
    /// `args` from the store: the same `Arc` while neither what it reads nor the
    /// args change. A read listener that calls it is woken by what it read.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String }
    /// # let (time, tasks) = (FakeTime::default(), LocalTasks::default());
    /// # let controller = Controller::new(time.clone(), time, tasks);
    /// let count = rdc_core::Query::new("user count", rdc_core::All::of::<User>().into(), |users: &Vec<User>, _| users.len());
    /// assert_eq!(controller.select(&count, &rdc_core::json::Value::Null).unwrap(), None, "no user stored yet");
    /// ```
    ///
    /// # Errors
    /// When the store does not read as the query's input type.
    pub fn select<T: DeserializeOwned + Send + Sync + 'static, R>(
        &self,
        query: &rdc_core::Query<T, R>,
        args: &Value,
    ) -> Result<Option<Arc<R>>, ReadError> {
        let read = self.with_state(|state| query.read(&mut self.inner.memo.borrow_mut(), state, args));
        self.note_read::<T>(None, query.name());
        read
    }

    /// Reads the entities of a lazy field's `keys` through `query` (its
    /// [`Lazy::query`](rdc_core::Lazy::query)): the same `Arc` while neither
    /// changes. A read listener that calls it is woken by those entities,
    /// while the parent's readers are not.
    ///
    /// ```
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// use rdc_core::{json, Entity, Lazy, Pk};
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct Building { id: String, name: String }
    /// #[derive(Debug, serde::Deserialize, Entity)]
    /// struct Department { id: String, #[entity(lazy = "Vec<Building>")] buildings: Vec<Pk> }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set(&Department::schema(), json!({"id": "d1", "buildings": [{"id": "b1", "name": "North"}]}))?;
    /// let dept = controller.entity::<Department>("d1")?.unwrap();
    /// let buildings = controller.query_lazy(&Lazy::<Vec<Building>>::of().query(), &dept.buildings)?.unwrap();
    /// assert_eq!(buildings[0].name, "North");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the stored entities do not read as `T`.
    pub fn query_lazy<T: DeserializeOwned + Send + Sync + 'static, K: rdc_core::LazyKeys<T> + ?Sized>(
        &self,
        query: &rdc_core::LazyQuery<T>,
        keys: &K,
    ) -> Result<Option<Arc<T>>, ReadError> {
        let read = self.with_state(|state| query.read(&mut self.inner.memo.borrow_mut(), state, keys));
        self.note_read::<rdc_core::LazyQuery<T>>(None, &query.memo_key(keys));
        read
    }

    /// Reads entity `E` with primary key `pk` straight from the store (whichever
    /// endpoint brought it); the same `Arc` while it is unchanged.
    ///
    /// # Errors
    /// When the stored entity does not fit `E`.
    pub fn entity<E: rdc_core::Entity>(&self, pk: &str) -> Result<Option<Arc<E>>, ReadError> {
        self.count_read();
        let read = self.with_state(|state| self.inner.memo.borrow_mut().entity::<E>(state, pk));
        self.note_read::<E>(None, pk);
        read
    }

    /// What the last [`Controller::entity`] read of `E` at `pk` depended on
    /// (its rows, nested entities' rows, whole tables), each with the fields
    /// it looked at (a change to no other field can change it), without
    /// reading again or recording anything; empty when it was not read.
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct User { id: String, name: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set(&User::schema(), rdc_core::json!({"id": "1", "name": "Ada"})).unwrap();
    /// assert!(controller.entity_topics::<User>("1").is_empty());
    /// let _ = controller.entity::<User>("1");
    /// let topics = controller.entity_topics::<User>("1");
    /// assert!(!topics.is_empty() && topics.iter().all(|t| t.topic.table_key() == "User"));
    /// ```
    pub fn entity_topics<E: rdc_core::Entity>(&self, pk: &str) -> Vec<rdc_core::TopicFields> {
        let memo = self.inner.memo.borrow();
        memo.topics(std::any::TypeId::of::<E>(), pk).collect()
    }

    /// Entity `E` whose field `field` is `value`, a unique field other than its
    /// primary key (a slug, an email), straight from the store; the same `Arc`
    /// while it is unchanged. A tracked listener hears every write to `E`'s
    /// table (any row may take the value).
    ///
    /// ```
    /// # use rdc_core::Entity;
    /// # use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// #[derive(Debug, serde::Deserialize, rdc_core::Entity)]
    /// struct User { id: String, email: String }
    /// # let time = FakeTime::default();
    /// let controller = Controller::new(time.clone(), time, LocalTasks::default());
    /// controller.set(&User::schema(), rdc_core::json!({ "id": "1", "email": "ada@example.com" }))?;
    /// let ada = controller.entity_by::<User>("email", &rdc_core::json!("ada@example.com"))?;
    /// assert_eq!(ada.map(|u| u.id.clone()), Some("1".to_owned()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// When the stored entity does not fit `E`.
    pub fn entity_by<E: rdc_core::Entity>(&self, field: &str, value: &Value) -> Result<Option<Arc<E>>, ReadError> {
        let key = E::DEF.key;
        // A hydrated or taken-up store comes without indexes: the first
        // lookup by a declared one builds it (a scan at most once).
        if E::DEF.indexes.contains(&field) && !self.with_state(|state| state.is_indexed(key, field)) {
            if let Some(mut state) = self.inner.base.try_borrow_mut() {
                state.index_entity(E::DEF);
            }
        }
        let pk = self.with_state(|state| state.pk_where(key, field, value).map(|pk| pk.as_str().to_owned()));
        self.note_topic(rdc_core::Topic::table(key));
        match pk {
            Some(pk) => self.entity::<E>(&pk),
            None => Ok(None),
        }
    }
}
