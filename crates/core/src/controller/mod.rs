//! The controller: fetches through endpoints into the store, deduplicates
//! identical reads, tracks expiry and errors, polls, shows optimistic updates and
//! collects garbage. Framework free: time, timers and spawning are injected.

mod abort;
mod clock;
mod deadline;
mod endpoint;
mod expiry;
mod from_fn;
mod gc;
mod hydrate;
mod keys;
mod listeners;
mod notify;
mod order;
mod poll;
mod services;
mod shared;
mod spawn;
mod topics;

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use crate::json::Value;
use serde::de::DeserializeOwned;

pub use abort::Abort;
pub use clock::{Clock, FakeTime, Timers};
pub use endpoint::{Endpoint, LocalFuture, Policy, TypedEndpoint};
pub use expiry::{expiry_status, ExpiryStatus};
pub use from_fn::{from_fn, FnCall, FnEndpoint, FnError};
pub use hydrate::Dehydrated;
pub use poll::Subscription;
pub use services::FetchContext;
pub use spawn::{LocalTasks, Spawn};

use crate::error::{NormalizeError, ReadError};
use crate::read::MemoCache;
use crate::schema::Schema;
use crate::store::{ErrorEntry, State, WriteMeta};
use listeners::Listeners;
use shared::{Shared, Wait};
use topics::Topics;

/// Why a controller fetch failed.
#[derive(Debug, Clone, PartialEq)]
pub enum FetchError<E> {
    /// The endpoint failed (bad args, HTTP error, parse error...).
    Endpoint(E),
    /// The response did not normalize; the store is unchanged.
    Normalize(NormalizeError),
    /// The store was reset while the request was in flight; its result was dropped.
    Reset,
    /// The request was cancelled (e.g. newer args replaced it); nothing was stored.
    Aborted,
    /// No answer came within the endpoint's `Policy::timeout_ms`; nothing was stored.
    Timeout {
        /// The limit that passed, in milliseconds.
        ms: u64,
    },
    /// What is stored under `key` does not read as the reader's type (a refetch
    /// read the same): the data is kept, the reader shows this error.
    Read {
        /// The endpoint key (method and URL for REST).
        key: String,
        /// What failed, with the path inside the data.
        message: String,
    },
    /// The error a server met rendering this page, carried with it as text
    /// (the typed error stayed on the server); it counts until its expiry,
    /// then a read asks again.
    Carried {
        /// The endpoint key.
        key: String,
        /// The error's text, as the server showed it.
        message: String,
    },
}

impl<E: std::fmt::Display> std::fmt::Display for FetchError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FetchError::Endpoint(e) => e.fmt(f),
            FetchError::Normalize(e) => e.fmt(f),
            FetchError::Reset => f.write_str("the store was reset while this request was in flight"),
            FetchError::Aborted => f.write_str("the request was cancelled"),
            FetchError::Timeout { ms } => write!(f, "no answer within {ms} ms"),
            FetchError::Read { key, message } => {
                write!(f, "{key}: the stored data does not read as the result type: {message}")
            }
            FetchError::Carried { message, .. } => f.write_str(message),
        }
    }
}

impl<E: std::fmt::Debug + std::fmt::Display> std::error::Error for FetchError<E> {}

/// A typed read of an endpoint's data, with its status and current error.
#[derive(Debug, Clone)]
pub struct Read<T> {
    /// The data, if any is stored (it may be stale).
    pub data: Option<Arc<T>>,
    /// Whether to show it, show it and refetch, or fetch first.
    pub status: ExpiryStatus,
    /// The last error, while it counts.
    pub error: Option<ErrorEntry>,
}

/// An optimistic layer: a mutation's expected result shown until it answers.
struct Layer {
    id: u64,
    key: String,
    schema: Option<Schema>,
    value: Value,
    args: Value,
    /// When the mutation was sent: the layer's writes count from then.
    sent: order::Stamp,
}

struct Inner {
    /// The store readers see: the fetched data with the optimistic layers
    /// written over it (and recorded, so they can be taken back; see `write_base`).
    base: RefCell<State>,
    layers: RefCell<Vec<Layer>>,
    memo: RefCell<MemoCache>,
    clock: Rc<dyn Clock>,
    timers: Rc<dyn Timers>,
    spawner: Rc<dyn Spawn>,
    epoch: Cell<u64>,
    next_id: Cell<u64>,
    listeners: RefCell<Listeners>,
    /// What the tracked listener running now has read so far.
    tracking: RefCell<Option<Topics>>,
    /// Listeners woken and not yet run, in order: one that panics leaves the
    /// rest here, and the next change runs them first.
    waking: RefCell<std::collections::VecDeque<u64>>,
    /// When each answer counts as fetched (`order.rs`).
    order: order::Order,
    /// Per endpoint key: request in flight, retainers, schema, poll, typed error.
    keys: RefCell<keys::Keys>,
    /// Hydrated results whose schema no reader has named yet (the garbage
    /// collector needs it to see which entities they reach).
    schemas_unknown: Cell<usize>,
    /// What the app gave this controller's endpoints (`services.rs`).
    services: RefCell<Rc<services::Services>>,
}

/// The data layer's one entry point. Cheap to clone (all clones share the store).
///
/// ```
/// use rdc_core::{Controller, Endpoint, FakeTime, LocalTasks, LocalFuture, Policy, Schema, Spawn};
/// use rdc_core::json;
/// use rdc_core::json::Value;
///
/// #[derive(Clone)]
/// struct Hello;
/// impl Endpoint for Hello {
///     type Output = Value;
///     type Error = String;
///     fn key(&self, _: &Value) -> Result<String, String> { Ok("GET /hello".into()) }
///     fn schema(&self) -> Option<Schema> { None }
///     fn policy(&self) -> Policy { Policy::default() }
///     fn is_soft(&self, _: &String) -> bool { false }
///     fn fetch(&self, _: &Value, _: Option<Value>) -> LocalFuture<Result<Value, String>> { Box::pin(async { Ok(json!({"hi": 1})) }) }
///     fn storable(v: &Value) -> Option<Value> { Some(v.clone()) }
/// }
///
/// let time = FakeTime::default();
/// let tasks = LocalTasks::default();
/// let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
/// let c = controller.clone();
/// tasks.spawn(Box::pin(async move { c.fetch(&Hello, json!(null), None).await.unwrap(); }));
/// tasks.run();
/// let read = controller.read::<_, Value>(&Hello, &json!(null)).unwrap();
/// assert_eq!(read.data.unwrap()["hi"], 1);
/// ```
#[derive(Clone)]
pub struct Controller {
    inner: Rc<Inner>,
}

impl std::fmt::Debug for Controller {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Controller")
            .field("entities", &self.inner.base.borrow().entity_count())
            .field("inflight", &keys::count(&self.inner.keys.borrow(), |k| k.inflight.is_some()))
            .finish_non_exhaustive()
    }
}

impl Controller {
    /// A controller with an empty store.
    pub fn new(
        clock: impl Clock + 'static,
        timers: impl Timers + 'static,
        spawner: impl Spawn + 'static,
    ) -> Controller {
        Controller {
            inner: Rc::new(Inner {
                base: RefCell::new(tracked_state(0)),
                layers: RefCell::default(),
                memo: RefCell::default(),
                clock: Rc::new(clock),
                timers: Rc::new(timers),
                spawner: Rc::new(spawner),
                epoch: Cell::new(0),
                next_id: Cell::new(0),
                listeners: RefCell::default(),
                tracking: RefCell::default(),
                waking: RefCell::default(),
                order: order::Order::default(),
                keys: RefCell::default(),
                schemas_unknown: Cell::new(0),
                services: RefCell::default(),
            }),
        }
    }

    /// Milliseconds now, from the injected clock.
    pub fn now(&self) -> u64 {
        self.inner.clock.now()
    }

    /// The meta of a write made now, fresh for `expiry_ms`, after every answer so far.
    fn direct_write_meta(&self, expiry_ms: u64) -> WriteMeta {
        let stamp = self.inner.order.now(self.now());
        WriteMeta { seq: stamp.seq, ..WriteMeta::at(stamp.at, expiry_ms) }
    }

    fn next_id(&self) -> u64 {
        let id = self.inner.next_id.get() + 1;
        self.inner.next_id.set(id);
        id
    }

    /// Runs `f` on the store as readers see it (optimistic layers applied).
    pub fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.inner.base.borrow())
    }

    /// A copy of the store as readers see it (for inspection or saving).
    pub fn snapshot(&self) -> State {
        let mut copy = self.with_state(State::clone);
        // The copy is data only: it neither logs changes nor can take layers back.
        copy.changes = None;
        copy.undo = None;
        copy
    }

    /// Fetches `endpoint` with `args` (and a body for mutations), stores the
    /// result, and resolves to the endpoint's typed result. Identical concurrent
    /// reads share one request; mutations never do.
    ///
    /// # Errors
    /// The endpoint's error, a normalization error (the store is unchanged), or
    /// [`FetchError::Reset`] when the store was reset meanwhile.
    pub fn fetch<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
    ) -> LocalFuture<Result<C::Result, FetchError<C::Error>>> {
        match encode(endpoint, &args, body) {
            Ok((args, body)) => typed(endpoint, self.fetch_json(endpoint.endpoint(), args, body)),
            Err(error) => Box::pin(async move { Err(FetchError::Endpoint(error)) }),
        }
    }

    /// [`Controller::fetch`] with the JSON args and body the endpoint takes.
    fn fetch_json<E: Endpoint + Clone>(
        &self,
        endpoint: &E,
        args: Value,
        body: Option<Value>,
    ) -> LocalFuture<Result<E::Output, FetchError<E::Error>>> {
        let key = match endpoint.key(&args) {
            Ok(key) => key,
            Err(error) => return Box::pin(async move { Err(FetchError::Endpoint(error)) }),
        };
        let policy = endpoint.policy();
        // Only a request of the same endpoint type can be joined: another type
        // shares the key but not the output and error types.
        let mut joinable = !policy.mutation;
        if joinable {
            let existing = self.inner.keys.borrow().get(&key).and_then(|k| k.inflight.clone());
            if let Some(shared) = existing {
                if shared.endpoint == std::any::TypeId::of::<E>() {
                    return Box::pin(async move { downcast::<E>(Wait(shared).await) });
                }
                joinable = false;
            }
        }
        let shared = Rc::new(Shared::of::<E>());
        if joinable {
            keys::entry(&mut self.inner.keys.borrow_mut(), &key).inflight = Some(Rc::clone(&shared));
            // Readers show "loading".
            self.touch_key(&key);
            self.changed();
        }
        // The request runs as its own task: a caller that stops waiting (an
        // unmounted component, a re-run read) never strands the other waiters.
        let work = self.request(endpoint.clone(), key, args, body, Rc::clone(&shared), None);
        self.inner.spawner.spawn(work);
        Box::pin(async move { downcast::<E>(Wait(shared).await) })
    }

    /// Like [`Controller::fetch`], but cancellable with the returned [`Abort`]: it
    /// never joins or is joined by other requests, and once aborted it resolves to
    /// [`FetchError::Aborted`] and stores nothing.
    pub fn fetch_cancellable<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
        body: C::Body,
    ) -> (LocalFuture<Result<C::Result, FetchError<C::Error>>>, Abort) {
        let abort = Abort::default();
        let prepared =
            endpoint.json_and_key(&args).and_then(|(args, key)| Ok((args, key, endpoint.encode_body(body)?)));
        let (args, key, body) = match prepared {
            Ok(prepared) => prepared,
            Err(error) => return (Box::pin(async move { Err(FetchError::Endpoint(error)) }), abort),
        };
        let raw = endpoint.endpoint();
        let shared = Rc::new(Shared::of::<C::Endpoint>());
        let work = self.request(raw.clone(), key, args, body, Rc::clone(&shared), Some(abort.clone()));
        self.inner.spawner.spawn(work);
        let output = Box::pin(async move { downcast::<C::Endpoint>(Wait(shared).await) });
        (typed(endpoint, output), abort)
    }

    /// Sends one request, applies its optimistic layer meanwhile, settles the
    /// store, and resolves `shared` for every waiter.
    fn request<E: Endpoint + Clone>(
        &self,
        endpoint: E,
        key: String,
        args: Value,
        body: Option<Value>,
        shared: Rc<Shared>,
        abort: Option<Abort>,
    ) -> LocalFuture<()> {
        let this = self.clone();
        Box::pin(async move {
            let policy = endpoint.policy();
            let now = this.now();
            let sent = if policy.mutation { this.inner.order.mutation(now) } else { this.inner.order.now(now) };
            let epoch = this.inner.epoch.get();
            let layer = match policy.mutation.then(|| endpoint.optimistic(&args, body.as_ref())).flatten() {
                Some(value) => {
                    let id = this.next_id();
                    let schema = endpoint.schema();
                    this.inner.layers.borrow_mut().push(Layer {
                        id,
                        key: key.clone(),
                        schema,
                        value,
                        args: args.clone(),
                        sent,
                    });
                    this.write_base(|_| ());
                    this.changed();
                    Some(id)
                }
                None => None,
            };
            let request = endpoint.fetch_in(&args, body, &this.fetch_context(abort.clone()));
            let result = match policy.timeout_ms {
                Some(ms) => deadline::within(this.inner.timers.as_ref(), ms, request).await,
                None => Some(request.await),
            };
            let timed_out = result.is_none();
            if timed_out {
                if let Some(abort) = &abort {
                    abort.abort();
                }
            }
            // A read counts from when it was sent; a mutation's answer from now
            // (or just before the next mutation sent after it).
            let fetched = if policy.mutation { this.inner.order.answered(sent, this.now()) } else { sent };
            if !policy.mutation {
                let mut keys = this.inner.keys.borrow_mut();
                let state = keys.get_mut(&key).filter(|k| k.inflight.as_ref().is_some_and(|s| Rc::ptr_eq(s, &shared)));
                if let Some(state) = state {
                    state.inflight = None;
                    keys::tidy(&mut keys, &key);
                    drop(keys);
                    this.touch_key(&key);
                }
            }
            if let Some(id) = layer {
                this.inner.layers.borrow_mut().retain(|l| l.id != id);
                this.write_base(|_| ());
            }
            let outcome = if epoch != this.inner.epoch.get() {
                Err(FetchError::Reset)
            } else if let (None, Some(ms)) = (&result, policy.timeout_ms) {
                this.timed_out::<E>(&key, ms, policy.error_expiry_ms)
            } else if abort.as_ref().is_some_and(Abort::is_aborted) {
                Err(FetchError::Aborted)
            } else if let Some(result) = result {
                this.settle(&endpoint, &key, &args, fetched, result)
            } else {
                Err(FetchError::Aborted)
            };
            this.changed();
            let erased = match outcome {
                Ok(out) => Ok(Rc::new(out) as Rc<dyn std::any::Any>),
                Err(err) => Err(Rc::new(err) as Rc<dyn std::any::Any>),
            };
            shared.resolve(erased);
        })
    }

    /// Records that `key`'s request got no answer within `ms`.
    fn timed_out<E: Endpoint>(&self, key: &str, ms: u64, expiry_ms: u64) -> Result<E::Output, FetchError<E::Error>> {
        let now = self.now();
        let error = FetchError::<E::Error>::Timeout { ms };
        let expires = now.saturating_add(expiry_ms);
        self.write_base(|base| base.set_error(key, error.to_string(), now, expires));
        self.set_typed_error(key, Rc::new(error.clone()));
        Err(error)
    }

    /// Writes a fetch's result or error into the base store.
    fn settle<E: Endpoint>(
        &self,
        endpoint: &E,
        key: &str,
        args: &Value,
        fetched: order::Stamp,
        result: Result<E::Output, E::Error>,
    ) -> Result<E::Output, FetchError<E::Error>> {
        let now = self.now();
        let policy = endpoint.policy();
        match result {
            Ok(output) => {
                if let Some(value) = E::storable(&output).filter(|_| policy.data_expiry_ms > 0) {
                    let meta = WriteMeta {
                        fetched_at: fetched.at,
                        date: now,
                        expires_at: now.saturating_add(policy.data_expiry_ms),
                        seq: fetched.seq,
                    };
                    let schema = endpoint.schema();
                    let written = self.write_base(|base| write(base, key, schema.as_ref(), value, args, meta));
                    if let Err(err) = written {
                        let expires = now.saturating_add(policy.error_expiry_ms);
                        self.write_base(|base| base.set_error(key, err.to_string(), now, expires));
                        let error = FetchError::<E::Error>::Normalize(err);
                        self.set_typed_error(key, Rc::new(error.clone()));
                        return Err(error);
                    }
                    let mut keys = self.inner.keys.borrow_mut();
                    let state = keys::entry(&mut keys, key);
                    state.schema = Some(schema);
                    // Storing the result cleared the key's error in the store.
                    state.typed_error = None;
                }
                Ok(output)
            }
            Err(error) => {
                let expires = now.saturating_add(policy.error_expiry_ms);
                self.write_base(|base| base.set_error(key, error.to_string(), now, expires));
                let error = FetchError::Endpoint(error);
                self.set_typed_error(key, Rc::new(error.clone()));
                Err(error)
            }
        }
    }

    /// Fetches only when the data is missing, invalid or stale (and nothing is
    /// in flight for it); resolves to `None` when no fetch was needed.
    ///
    /// # Errors
    /// As [`Controller::fetch`].
    pub fn fetch_if_stale<C: TypedEndpoint>(
        &self,
        endpoint: &C,
        args: C::Args,
    ) -> LocalFuture<Result<Option<C::Result>, FetchError<C::Error>>>
    where
        C::Body: Default,
    {
        let needed = match self.key_of(endpoint, &args) {
            Ok(key) => self.needs_fetch(&key, endpoint.endpoint().policy()),
            Err(_) => true,
        };
        let fetch = needed.then(|| self.fetch(endpoint, args, C::Body::default()));
        Box::pin(async move {
            match fetch {
                Some(fetch) => fetch.await.map(Some),
                None => Ok(None),
            }
        })
    }

    /// The store key of `endpoint` for `args`.
    ///
    /// ```
    /// # use rdc_core::{from_fn, Controller, FakeTime, LocalTasks};
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
        endpoint.json_and_key(args).map(|(_, key)| key)
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
        self.with_state(|state| {
            let mut memo = self.inner.memo.borrow_mut();
            let data = match schema {
                Some(schema) => memo.read_result::<T>(state, key, schema),
                None => memo.read_plain::<T>(state, key),
            };
            drop(memo);
            // Also when the read failed: a write that fixes it must wake the reader.
            self.note_read::<T>(Some(key), key);
            if self.inner.schemas_unknown.get() > 0 && state.result(key).is_some() {
                self.note_schema(key, schema);
            }
            let data = data?;
            let stored = state.result(key);
            let stamp = stored.map(|r| (r.meta.fetched_at, r.meta.seq));
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
    fn note_schema(&self, key: &str, schema: Option<&Schema>) {
        let mut keys = self.inner.keys.borrow_mut();
        let state = keys::entry(&mut keys, key);
        if state.schema.is_none() {
            state.schema = Some(schema.cloned());
            self.inner.schemas_unknown.set(self.inner.schemas_unknown.get().saturating_sub(1));
        }
    }

    /// Records whether `key`'s stored result (stamped `stamp`) was unreadable;
    /// returns whether it should count as invalid (be fetched again).
    fn note_unreadable(&self, key: &str, stamp: Option<(u64, u64)>) -> bool {
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

    /// Reads entity `E` with primary key `pk` straight from the store (whichever
    /// endpoint brought it); the same `Arc` while it is unchanged.
    ///
    /// # Errors
    /// When the stored entity does not fit `E`.
    pub fn entity<E: crate::Entity>(&self, pk: &str) -> Result<Option<Arc<E>>, ReadError> {
        let read = self.with_state(|state| self.inner.memo.borrow_mut().entity::<E>(state, pk));
        self.note_read::<E>(None, pk);
        read
    }

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
        self.write_base(|base| {
            base.version += 1;
            for key in keys {
                if let Some(result) = base.results.get_mut(&key) {
                    result.meta.expires_at = 0;
                    base.log(|log| log.keys.push(key));
                }
            }
        });
        self.changed();
    }

    /// Keeps `error` as the typed error of `key`'s last failed fetch.
    fn set_typed_error(&self, key: &str, error: Rc<dyn std::any::Any>) {
        keys::entry(&mut self.inner.keys.borrow_mut(), key).typed_error = Some(error);
    }

    /// The endpoint keys with a stored result that satisfy `predicate`.
    fn result_keys_where(&self, predicate: impl Fn(&str) -> bool) -> Vec<String> {
        let keys: Vec<String> = self.with_state(|state| state.result_keys().cloned().collect());
        keys.into_iter().filter(|key| predicate(key)).collect()
    }

    /// Empties the store. Requests in flight still finish, but their results are
    /// dropped and their callers get [`FetchError::Reset`].
    pub fn reset_entire_store(&self) {
        self.inner.epoch.set(self.inner.epoch.get() + 1);
        let version = self.inner.base.borrow().version + 1;
        *self.inner.base.borrow_mut() = tracked_state(version);
        self.inner.base.borrow_mut().log(|log| log.everything = true);
        self.inner.layers.borrow_mut().clear();
        let mut keys = self.inner.keys.borrow_mut();
        // The store is empty: no result has a schema, no error a typed copy.
        for state in keys.values_mut() {
            state.inflight = None;
            state.schema = None;
            state.typed_error = None;
        }
        keys.retain(|_, state| !state.is_empty());
        drop(keys);
        self.inner.schemas_unknown.set(0);
        self.inner.memo.borrow_mut().clear();
        self.changed();
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
        let meta = self.direct_write_meta(raw.policy().data_expiry_ms);
        let schema = raw.schema();
        self.write_base(|base| write(base, &key, schema.as_ref(), value, &args, meta))
            .map_err(FetchError::Normalize)?;
        keys::entry(&mut self.inner.keys.borrow_mut(), &key).schema = Some(schema);
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
            .with_state(|state| crate::denormalize::<Value>(state, schema, input))
            .ok()
            .flatten()
            .unwrap_or(Value::Null);
        self.set(schema, update(current))
    }
}

/// An empty store at `version` that logs its changes (for targeted notification).
fn tracked_state(version: u64) -> State {
    let mut state = State { version, ..State::default() };
    state.track_changes();
    state
}

/// Writes a result through its schema, or as plain JSON without one.
fn write(
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

fn downcast<E: Endpoint>(outcome: shared::Outcome) -> Result<E::Output, FetchError<E::Error>> {
    match outcome {
        Ok(any) => any.downcast_ref::<E::Output>().cloned().ok_or(FetchError::Reset),
        Err(any) => Err(any.downcast_ref::<FetchError<E::Error>>().cloned().unwrap_or(FetchError::Reset)),
    }
}

/// The JSON args and body of a typed call.
fn encode<C: TypedEndpoint>(endpoint: &C, args: &C::Args, body: C::Body) -> Result<(Value, Option<Value>), C::Error> {
    Ok((endpoint.encode_args(args)?, endpoint.encode_body(body)?))
}

/// `output` read as `endpoint`'s result once it resolves.
fn typed<C: TypedEndpoint>(
    endpoint: &C,
    output: LocalFuture<Result<<C::Endpoint as Endpoint>::Output, FetchError<C::Error>>>,
) -> LocalFuture<Result<C::Result, FetchError<C::Error>>> {
    let endpoint = endpoint.clone();
    Box::pin(async move { endpoint.decode_result(output.await?).map_err(FetchError::Endpoint) })
}
