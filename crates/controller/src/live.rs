//! `LiveFeed`: a manager keeping a stream of entities (Server-Sent Events, a
//! WebSocket) feeding the store while anyone reads what it updates.
//!
//! The stream opens when the first watched key gets a reader and closes when
//! the last one leaves. A dropped stream reopens after a backoff (doubling,
//! capped, never under [`LiveFeed::MIN_BACKOFF_MS`]), resuming after the last
//! message received. The ordering rules are on [`LiveFeed`].

use std::sync::Arc;
use std::sync::Mutex;

use super::sync::lock;

use rdc_core::json::Value;
use rdc_core::Schema;

use super::{Action, Controller, Manager};

/// What an open stream reports (more kinds may come: match with a `_` arm).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// The stream is open.
    Opened,
    /// A message: its id (`None` when it has none) and its text (JSON).
    Message {
        /// The message's id: ids increase along the stream.
        id: Option<u64>,
        /// The message's JSON text.
        data: String,
    },
    /// The stream failed or ended; the feed closes it and reopens it later.
    Failed(String),
    /// A message the source could not read (no JSON frame, no id, too
    /// large), and why: counted as rejected, the store keeps what it had and
    /// the stream stays open.
    Rejected(String),
}

/// Where a feed reads from: `rdc_rest::EventSourceStream` or
/// `rdc_rest::WebSocketStream` in the browser, a fake in tests.
pub trait StreamSource: Send + Sync {
    /// Opens the stream, resuming after message `after` when given; each
    /// event goes to `events`. Returns what closes it.
    fn open(&self, after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send>;
}

/// What a feed did so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LiveStats {
    /// Times the stream opened.
    pub opened: u32,
    /// Messages written to the store.
    pub applied: u64,
    /// Messages dropped as duplicates or out of order.
    pub dropped: u64,
    /// Messages that were no JSON, did not fit the schema, had id
    /// `u64::MAX` or that the source could not read (the store kept what it had).
    pub rejected: u64,
    /// Whether the stream is open or opening now.
    pub connected: bool,
}

/// Keeps a stream feeding the store while a reader of a watched key is mounted.
///
/// Messages are ordered by their ids, so the store never goes back in time:
/// - on a connection, a message whose id is not above the last one taken (a
///   duplicate, a message overtaken by a newer one) is dropped;
/// - a connection's first numbered message is taken whatever its id (a
///   restarted server numbers anew) and counts from there;
/// - once a connection has numbered messages, one without an id is dropped
///   (it cannot be ordered); a stream without ids is applied as it comes;
/// - id `u64::MAX` is rejected: no message could ever come after it.
///
/// ```
/// use std::sync::{Arc, Mutex};
/// use rdc_controller::{Controller, FakeTime, LiveFeed, LocalTasks, StreamEvent, StreamSource};
/// use rdc_core::{json, Entity};
/// # #[derive(Debug, serde::Deserialize, rdc_core::Entity)] struct Price { id: String, price: u32 }
/// type Sink = Arc<Mutex<Option<Arc<dyn Fn(StreamEvent) + Send + Sync>>>>;
/// struct Fake(Sink);
/// impl StreamSource for Fake {
///     fn open(&self, _after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> {
///         *self.0.lock().unwrap() = Some(events);
///         let sink = self.0.clone();
///         Box::new(move || *sink.lock().unwrap() = None)
///     }
/// }
/// let time = FakeTime::default();
/// let controller = Controller::new(time.clone(), time, LocalTasks::default());
/// let sink = Sink::default();
/// let feed = LiveFeed::new(Fake(sink.clone()), Price::schema().into(), |key| key.starts_with("GET /prices/"));
/// controller.add_manager(feed.clone());
/// controller.retain("GET /prices/BTC");
/// let send = sink.lock().unwrap().clone().expect("opened for the first reader");
/// send(StreamEvent::Message { id: Some(1), data: r#"{"id":"BTC","price":7}"#.into() });
/// assert_eq!(controller.entity::<Price>("BTC").unwrap().map(|p| p.price), Some(7));
/// controller.release("GET /prices/BTC");
/// assert!(sink.lock().unwrap().is_none(), "closed when the last reader left");
/// ```
#[derive(Clone)]
pub struct LiveFeed {
    inner: Arc<Feed>,
}

struct Feed {
    source: Box<dyn StreamSource>,
    schema: Schema,
    watches: Box<dyn Fn(&str) -> bool + Send + Sync>,
    /// The first wait before reopening, and the longest, in ms.
    backoff: Mutex<(u64, u64)>,
    state: Mutex<FeedState>,
}

#[derive(Default)]
struct FeedState {
    readers: usize,
    close: Option<Box<dyn FnOnce() + Send>>,
    reopen_timer: Option<u64>,
    /// Counts connections: events of an older one are ignored.
    connection: u64,
    /// The last id taken, on any connection: a reopened stream resumes after it.
    last_id: Option<u64>,
    /// The last id taken on this connection: its first numbered message sets
    /// where ids count from (a restarted server numbers anew).
    counted: Option<u64>,
    /// Failed connections in a row: reset once one proves good (a message
    /// applied, or open for the first wait), so a server that accepts and
    /// closes at once is reopened with a growing backoff.
    failures: u32,
    /// When this connection opened (ms), if it did.
    opened_at: Option<u64>,
    stats: LiveStats,
    /// Why the last message was rejected or the last connection failed.
    last_error: Option<String>,
}

impl std::fmt::Debug for LiveFeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveFeed").field("stats", &self.stats()).finish_non_exhaustive()
    }
}

impl LiveFeed {
    /// The shortest wait before reopening, in ms: a failing stream is never
    /// reopened in a loop. A [`backoff`](LiveFeed::backoff) asked for under
    /// it waits this long.
    ///
    /// ```
    /// # use rdc_controller::{LiveFeed, StreamEvent, StreamSource};
    /// # use std::sync::Arc;
    /// # struct Never;
    /// # impl StreamSource for Never {
    /// #     fn open(&self, _: Option<u64>, _: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> { Box::new(|| ()) }
    /// # }
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Price { id: String }
    /// # use rdc_core::Entity;
    /// assert!(LiveFeed::MIN_BACKOFF_MS > 0, "never a reopen without a wait");
    /// // The quickest reconnecting feed there is.
    /// let eager = LiveFeed::new(Never, Price::schema().into(), |_| true).backoff(LiveFeed::MIN_BACKOFF_MS, 5_000);
    /// # let _ = eager;
    /// ```
    pub const MIN_BACKOFF_MS: u64 = 100;

    /// A feed from `source` whose messages are written with `schema`, open
    /// while a key `watches` accepts has a reader. Reopens after 1 s, doubling to 30 s.
    pub fn new(
        source: impl StreamSource + 'static,
        schema: Schema,
        watches: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> LiveFeed {
        LiveFeed {
            inner: Arc::new(Feed {
                source: Box::new(source),
                schema,
                watches: Box::new(watches),
                backoff: Mutex::new((1_000, 30_000)),
                state: Mutex::default(),
            }),
        }
    }

    /// Reopens after `first_ms`, doubling up to `max_ms` while it keeps failing.
    /// A connection stops the doubling (the next wait is `first_ms` again)
    /// once a message of it is applied or it stayed open `first_ms`: opening
    /// alone does not, so a server that accepts and closes at once is not
    /// reopened in a loop.
    /// A `first_ms` of 0 is refused (the backoff stays as it was), as a poll
    /// frequency of 0 is; a wait is never under [`LiveFeed::MIN_BACKOFF_MS`].
    ///
    /// ```
    /// # use rdc_controller::{LiveFeed, StreamEvent, StreamSource};
    /// # use std::sync::Arc;
    /// # struct Never;
    /// # impl StreamSource for Never {
    /// #     fn open(&self, _: Option<u64>, _: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> { Box::new(|| ()) }
    /// # }
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Price { id: String }
    /// # use rdc_core::Entity;
    /// let feed = LiveFeed::new(Never, Price::schema().into(), |_| true).backoff(500, 10_000);
    /// ```
    #[must_use]
    pub fn backoff(self, first_ms: u64, max_ms: u64) -> LiveFeed {
        if first_ms > 0 {
            let first = first_ms.max(Self::MIN_BACKOFF_MS);
            *lock(&self.inner.backoff) = (first, max_ms.max(first));
        }
        self
    }

    /// What the feed did so far.
    pub fn stats(&self) -> LiveStats {
        lock(&self.inner.state).stats
    }

    /// Why the last message was rejected (not JSON, not the schema's shape,
    /// a frame the source could not read) or the last connection failed,
    /// as the source or the store said it: what to show when
    /// [`LiveStats::rejected`] grows and nothing applies.
    ///
    /// ```
    /// # use rdc_controller::{LiveFeed, StreamEvent, StreamSource};
    /// # use std::sync::Arc;
    /// # struct Never;
    /// # impl StreamSource for Never {
    /// #     fn open(&self, _: Option<u64>, _: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> { Box::new(|| {}) }
    /// # }
    /// # #[derive(serde::Deserialize, rdc_core::Entity)] struct Price { id: String }
    /// # use rdc_core::Entity;
    /// let feed = LiveFeed::new(Never, Price::schema().into(), |_| true);
    /// assert_eq!(feed.last_error(), None);
    /// ```
    pub fn last_error(&self) -> Option<String> {
        lock(&self.inner.state).last_error.clone()
    }
}

impl Manager for LiveFeed {
    fn on_action(&self, controller: &Controller, action: Action<'_>) {
        match action {
            Action::Retained { key } if (self.inner.watches)(key) => {
                let first = {
                    let mut state = lock(&self.inner.state);
                    state.readers += 1;
                    state.readers == 1
                };
                if first {
                    open(&self.inner, controller);
                }
            }
            Action::Released { key } if (self.inner.watches)(key) => {
                let last = {
                    let mut state = lock(&self.inner.state);
                    state.readers = state.readers.saturating_sub(1);
                    state.readers == 0
                };
                if last {
                    close(&self.inner, controller);
                }
            }
            _ => {}
        }
    }
}

/// Opens a new connection; events of earlier ones are ignored from now on.
fn open(feed: &Arc<Feed>, controller: &Controller) {
    let (connection, after) = {
        let mut state = lock(&feed.state);
        state.connection += 1;
        state.stats.connected = true;
        state.counted = None;
        state.opened_at = None;
        (state.connection, state.last_id)
    };
    let (weak, controller) = (Arc::downgrade(feed), controller.clone());
    let events: Arc<dyn Fn(StreamEvent) + Send + Sync> = Arc::new(move |event| {
        if let Some(feed) = weak.upgrade() {
            if lock(&feed.state).connection == connection {
                on_event(&feed, &controller, event);
            }
        }
    });
    let close = feed.source.open(after, events);
    let mut state = lock(&feed.state);
    // An event sent while opening may have ended this connection already.
    match state.connection == connection && state.stats.connected {
        true => state.close = Some(close),
        false => {
            drop(state);
            close();
        }
    }
}

/// Closes the connection and any pending reopen.
fn close(feed: &Feed, controller: &Controller) {
    let (close, timer) = {
        let mut state = lock(&feed.state);
        state.connection += 1;
        state.stats.connected = false;
        (state.close.take(), state.reopen_timer.take())
    };
    if let Some(timer) = timer {
        controller.cancel_timer(timer);
    }
    if let Some(close) = close {
        close();
    }
}

fn on_event(feed: &Arc<Feed>, controller: &Controller, event: StreamEvent) {
    match event {
        StreamEvent::Opened => {
            let mut state = lock(&feed.state);
            state.opened_at = Some(controller.now());
            state.stats.opened += 1;
        }
        StreamEvent::Message { id, data } => on_message(feed, controller, id, data),
        StreamEvent::Rejected(reason) => lock(&feed.state).reject(reason),
        StreamEvent::Failed(reason) => {
            lock(&feed.state).last_error = Some(reason);
            close(feed, controller);
            reopen_after_backoff(feed, controller);
        }
    }
}

impl FeedState {
    fn reject(&mut self, reason: String) {
        self.stats.rejected += 1;
        self.last_error = Some(reason);
    }
}

/// Writes a message that comes in order; counts the others.
fn on_message(feed: &Arc<Feed>, controller: &Controller, id: Option<u64>, data: String) {
    let mut state = lock(&feed.state);
    let in_order = match (id, state.counted) {
        (Some(u64::MAX), _) => return state.reject(format!("message id {} leaves no id to follow", u64::MAX)),
        (Some(id), counted) => counted.is_none_or(|last| id > last),
        (None, counted) => counted.is_none(),
    };
    if !in_order {
        state.stats.dropped += 1;
        return;
    }
    if id.is_some() {
        (state.counted, state.last_id) = (id, id);
    }
    drop(state);
    let written = Value::parse(data)
        .map_err(|e| e.to_string())
        .and_then(|value| controller.set(&feed.schema, value).map_err(|e| e.to_string()));
    let mut state = lock(&feed.state);
    match written {
        Ok(()) => {
            state.stats.applied += 1;
            state.failures = 0;
        }
        Err(reason) => state.reject(reason),
    }
}

/// Reopens a failed stream after a backoff that doubles with each failure
/// in a row (reset once a connection proved good), if it is still read.
fn reopen_after_backoff(feed: &Arc<Feed>, controller: &Controller) {
    let wait = {
        let mut state = lock(&feed.state);
        let (first, max) = *lock(&feed.backoff);
        if state.opened_at.is_some_and(|at| controller.now().saturating_sub(at) >= first) {
            state.failures = 0;
        }
        state.failures = state.failures.saturating_add(1);
        let doubled = first.saturating_mul(1u64 << (state.failures - 1).min(32)).min(max);
        // Up to a quarter less, at random, so clients that lost the
        // stream together do not all come back at once.
        let spread = u128::from(controller.inner.clock.random() % 256);
        let jittered = doubled - u64::try_from(u128::from(doubled / 4) * spread / 256).unwrap_or(0);
        jittered.max(LiveFeed::MIN_BACKOFF_MS)
    };
    let weak = Arc::downgrade(feed);
    let again = controller.clone();
    let timer = controller.set_timer(
        wait,
        Box::new(move || {
            if let Some(feed) = weak.upgrade() {
                let wanted = {
                    let mut state = lock(&feed.state);
                    state.reopen_timer = None;
                    state.readers > 0
                };
                if wanted {
                    open(&feed, &again);
                }
            }
        }),
    );
    lock(&feed.state).reopen_timer = Some(timer);
}
