//! The controller: fetches through endpoints into the store, deduplicates
//! identical reads, tracks expiry and errors, polls, shows optimistic updates and
//! collects garbage. Framework free: time, timers and spawning are injected.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    warn(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::unreachable, clippy::indexing_slicing)
)]

mod abort;
mod activity;
mod callbacks;
mod clock;
mod deadline;
mod endpoint;
mod expiry;
mod fetch;
mod from_fn;
mod gc;
mod hydrate;
mod invalidate;
mod keys;
mod listeners;
#[cfg(feature = "live")]
mod live;
mod manager;
mod notify;
#[cfg(feature = "offline")]
mod offline;
mod order;
mod persist;
mod poll;
mod reads;
#[cfg(feature = "persist")]
mod replay;
mod saved_body;
mod services;
mod shared;
mod spawn;
mod sync;
mod topics;
mod writes;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use sync::{Gate, PerThread, Slot};

use rdc_core::json::Value;
use serde::de::DeserializeOwned;

pub use abort::Abort;
pub use activity::InFlight;
pub use callbacks::{MutationCallbacks, Settled};
pub use clock::{Clock, FakeTime, Timers};
pub use endpoint::{BoxFuture, Endpoint, Policy, TypedEndpoint};
pub use expiry::{expiry_status, ExpiryStatus};
pub use from_fn::{from_fn, FnCall, FnEndpoint, FnError};
pub use hydrate::Dehydrated;
#[cfg(feature = "live")]
pub use live::{LiveFeed, LiveStats, StreamEvent, StreamSource};
pub use manager::{Action, Manager};
#[cfg(feature = "persist")]
pub use persist::{MemoryStorage, Persist, PersistStorage, Restored};
pub use poll::Subscription;
#[cfg(feature = "persist")]
pub use replay::{QueueError, SavedMutation};
pub use saved_body::SavedBody;
pub use services::FetchContext;
pub use spawn::{LocalTasks, Spawn};

use listeners::Listeners;
use rdc_core::MemoCache;
use rdc_core::Schema;
use rdc_core::{ErrorEntry, State, WriteMeta};
use rdc_core::{NormalizeError, ReadError};
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

/// A mutation's expected result from the store it is written over.
type Optimistic = Arc<dyn Fn(&State) -> Option<Value> + Send + Sync>;

/// An optimistic layer: a mutation's expected result shown until it answers.
struct Layer {
    id: u64,
    key: String,
    schema: Option<Schema>,
    /// Worked out again each time the layer is put on.
    value: Optimistic,
    args: Value,
    /// When the mutation was sent: the layer's writes count from then.
    sent: order::Stamp,
}

struct Inner {
    /// What every slot below is borrowed through (`sync.rs`).
    gate: Arc<Gate>,
    /// The store readers see: the fetched data with the optimistic layers
    /// written over it (and recorded, so they can be taken back; see `write_base`).
    base: Slot<State>,
    layers: Slot<Vec<Layer>>,
    memo: Slot<MemoCache>,
    clock: Arc<dyn Clock>,
    timers: Arc<dyn Timers>,
    spawner: Arc<dyn Spawn>,
    epoch: AtomicU64,
    /// Whether polls wait (the page hidden, the browser offline).
    polls_paused: AtomicBool,
    next_id: AtomicU64,
    listeners: Slot<Listeners>,
    /// What the tracked listener running now has read so far.
    tracking: PerThread<Topics>,
    /// Typed reads made so far (`Controller::read_count`).
    reads: AtomicU64,
    /// Listeners woken and not yet run, in order: one that panics leaves the
    /// rest here, and the next change runs them first.
    waking: Slot<std::collections::VecDeque<u64>>,
    /// Held while woken listeners run: one thread runs them at a time (its
    /// own changes from inside a listener enter again), and a change made on
    /// another thread meanwhile waits its turn, so every write returns after
    /// the listeners it woke ran.
    listeners_turn: Gate,
    /// Changes told so far (`notify.rs`): a tracked listener whose run saw
    /// another thread's change runs again.
    changes_told: AtomicU64,
    /// What each `listen_changes` listener has yet to be told, by its id.
    change_feeds: Slot<rdc_core::FastMap<u64, notify::ChangeFeed>>,
    /// When each answer counts as fetched (`order.rs`).
    order: order::Order,
    /// The clock read as one that never goes back (`Controller::now`).
    steady: clock::Steady,
    /// When the data this store may hold began: its start or its last
    /// reset. Sent with what it shares (`Dehydrated::since`).
    since: AtomicU64,
    /// When the store was last reset (0: never). What another tab wrote
    /// before then (its data began earlier) is not taken up.
    reset_at: AtomicU64,
    /// Per endpoint key: request in flight, retainers, schema, poll, typed error.
    keys: Slot<keys::Keys>,
    /// Hydrated results whose schema no reader has named yet (the garbage
    /// collector needs it to see which entities they reach).
    schemas_unknown: Slot<usize>,
    /// What the app gave this controller's endpoints (`services.rs`).
    services: Slot<Arc<services::Services>>,
    /// What sees each action (`manager.rs`).
    managers: manager::Managers,
    /// Mutations waiting to be sent (`offline.rs`).
    #[cfg(feature = "offline")]
    queue: offline::Queue,
    /// The endpoints whose held mutations are saved with the store (`replay.rs`).
    #[cfg(all(feature = "offline", feature = "persist"))]
    replays: replay::Replays,
    /// What hears of each write to the fetched data (`share_writes`,
    /// persistence; in `hydrate.rs`).
    sinks: Slot<Vec<hydrate::Sink>>,
    /// Set while taking up data from elsewhere: not shared on.
    not_sharing: PerThread<()>,
    /// Rows taken up from elsewhere with kept results whose schema is not
    /// known here yet: kept with them (`persist.rs`).
    taken_rows: Slot<persist::Rows>,
    /// The entity types kept across page loads (`persist.rs`).
    kept_tables: Slot<Vec<&'static str>>,
    /// While saves are made: the data they keep was fetched at or after this
    /// (what the last save kept; 0 before the first). The GC leaves it.
    kept_since: Slot<Option<rdc_core::Millis>>,
    /// The requests in flight (`activity.rs`).
    activity: activity::Activity,
    /// The args each stored result's key was made from (`invalidate.rs`).
    origins: invalidate::Origins,
}

/// The data layer's one entry point. Cheap to clone (all clones share the store).
///
/// ```
/// use rdc_core::Schema;
/// use rdc_controller::{Controller, Endpoint, FakeTime, LocalTasks, BoxFuture, Policy, Spawn};
/// use rdc_core::json;
/// use rdc_core::json::Value;
///
/// #[derive(Clone)]
/// struct Hello;
/// impl Endpoint for Hello {
///     type Output = Value;
///     type Error = String;
///     type Body = Value;
///     fn key(&self, _: &Value) -> Result<String, String> { Ok("GET /hello".into()) }
///     fn schema(&self) -> Option<Schema> { None }
///     fn policy(&self) -> Policy { Policy::default() }
///     fn is_soft(&self, _: &String) -> bool { false }
///     fn fetch(&self, _: &Value, _: Option<Value>) -> BoxFuture<Result<Value, String>> { Box::pin(async { Ok(json!({"hi": 1})) }) }
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
    inner: Arc<Inner>,
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
        let start = clock.now();
        let origin = clock::origin(&clock);
        let gate = Arc::new(Gate::default());
        let g = &gate;
        Controller {
            inner: Arc::new(Inner {
                base: Slot::new(g, "base", tracked_state()),
                layers: Slot::new(g, "layers", Vec::new()),
                memo: Slot::new(g, "memo", MemoCache::default()),
                clock: Arc::new(clock),
                timers: Arc::new(timers),
                spawner: Arc::new(spawner),
                epoch: AtomicU64::new(0),
                polls_paused: AtomicBool::new(false),
                next_id: AtomicU64::new(0),
                listeners: Slot::new(g, "listeners", Listeners::default()),
                tracking: PerThread::new(g, "tracking"),
                reads: AtomicU64::new(0),
                waking: Slot::new(g, "waking", Default::default()),
                listeners_turn: Gate::default(),
                changes_told: AtomicU64::new(0),
                change_feeds: Slot::new(g, "change_feeds", Default::default()),
                order: order::Order::new(origin),
                steady: clock::Steady::new(start),
                since: AtomicU64::new(start),
                reset_at: AtomicU64::new(0),
                keys: Slot::new(g, "keys", Default::default()),
                schemas_unknown: Slot::new(g, "schemas_unknown", 0),
                services: Slot::new(g, "services", Default::default()),
                managers: manager::Managers::new(g),
                #[cfg(feature = "offline")]
                queue: offline::Queue::new(g),
                #[cfg(all(feature = "offline", feature = "persist"))]
                replays: replay::Replays::new(g),
                sinks: Slot::new(g, "sinks", Vec::new()),
                not_sharing: PerThread::new(g, "not_sharing"),
                taken_rows: Slot::new(g, "taken_rows", Default::default()),
                kept_tables: Slot::new(g, "kept_tables", Vec::new()),
                kept_since: Slot::new(g, "kept_since", None),
                activity: activity::Activity::new(g),
                origins: invalidate::Origins::new(g),
                gate,
            }),
        }
    }

    /// Milliseconds now, from the injected clock, except that it never goes
    /// back: when the clock steps back (NTP, a user), this one stands still
    /// for the step and moves on from there. Every time the store holds is
    /// read off it, so writes keep their order and data stays fresh exactly
    /// as long as it had left (invariant 4).
    ///
    /// ```
    /// use rdc_controller::{Controller, FakeTime, LocalTasks};
    /// let time = FakeTime::default();
    /// time.advance(10_000);
    /// let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    /// time.step_back(4_000);
    /// assert_eq!(controller.now(), 10_000);
    /// time.advance(500);
    /// assert_eq!(controller.now(), 10_500);
    /// ```
    pub fn now(&self) -> u64 {
        self.inner.steady.at(self.inner.clock.now())
    }

    /// The meta of a write made now, fresh for `expiry_ms`, after every answer so far.
    fn direct_write_meta(&self, expiry_ms: u64) -> WriteMeta {
        let stamp = self.inner.order.now(self.now());
        WriteMeta { seq: stamp.seq, ..WriteMeta::at(stamp.at, expiry_ms) }
    }

    fn next_id(&self) -> u64 {
        // One add: two threads never get the same id.
        self.inner.next_id.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// Runs `f` on the store as readers see it (optimistic layers applied).
    pub fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> R {
        f(&self.inner.base.borrow())
    }

    /// A copy of the store as readers see it (for inspection or saving).
    pub fn snapshot(&self) -> State {
        // The copy is data only: it neither logs changes nor can take layers back.
        self.with_state(State::data_copy)
    }
}

/// An empty store that logs its changes (for targeted notification).
fn tracked_state() -> State {
    let mut state = State::default();
    state.track_changes();
    state
}

// What a server shares between the threads of its runtime is `Send + Sync`,
// on every target (wasm32 too): checked when the crate compiles.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Controller>();
    send_sync::<Abort>();
    send_sync::<FetchContext>();
    send_sync::<Dehydrated>();
    send_sync::<Subscription>();
    send_sync::<FakeTime>();
    send_sync::<LocalTasks>();
    send_sync::<State>();
    send_sync::<MemoCache>();
    #[cfg(feature = "live")]
    send_sync::<LiveFeed>();
    #[cfg(feature = "persist")]
    send_sync::<MemoryStorage>();
};
