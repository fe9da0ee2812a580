//! `LiveFeed` on fake time: open while watched keys have readers, duplicates and
//! overtaken messages dropped, bad messages rejected with the store kept, and a
//! dropped stream reopened after a doubling backoff, resuming where it was.

mod cells;
use cells::SyncRefCell;
use std::sync::Arc;

use rdc_controller::{Controller, FakeTime, LiveFeed, LiveStats, LocalTasks, StreamEvent, StreamSource};
use rdc_core::Entity;
use serde::Deserialize;

#[derive(Debug, Deserialize, Entity)]
struct Price {
    #[allow(dead_code)]
    id: String,
    price: u32,
}

/// A stream source noting each open (`after`) and keeping the latest sink.
#[derive(Clone, Default)]
struct Fake {
    opens: Arc<SyncRefCell<Vec<Option<u64>>>>,
    sink: Arc<SyncRefCell<Option<Arc<dyn Fn(StreamEvent) + Send + Sync>>>>,
    closes: Arc<SyncRefCell<u32>>,
}

impl StreamSource for Fake {
    fn open(&self, after: Option<u64>, events: Arc<dyn Fn(StreamEvent) + Send + Sync>) -> Box<dyn FnOnce() + Send> {
        self.opens.borrow_mut().push(after);
        *self.sink.borrow_mut() = Some(events);
        let closes = self.closes.clone();
        Box::new(move || *closes.borrow_mut() += 1)
    }
}

impl Fake {
    fn send(&self, event: StreamEvent) {
        let sink = self.sink.borrow().clone().expect("a stream was opened");
        sink(event);
    }

    fn price(&self, id: u64, price: u32) {
        self.send(StreamEvent::Message { id: Some(id), data: format!(r#"{{"id":"BTC","price":{price}}}"#) });
    }
}

fn setup() -> (Controller, FakeTime, Fake, LiveFeed) {
    let time = FakeTime::default();
    let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    let fake = Fake::default();
    let feed =
        LiveFeed::new(fake.clone(), Price::schema().into(), |key| key.starts_with("GET /prices")).backoff(1_000, 4_000);
    controller.add_manager(feed.clone());
    (controller, time, fake, feed)
}

fn shown(controller: &Controller) -> Option<u32> {
    controller.entity::<Price>("BTC").unwrap().map(|p| p.price)
}

#[test]
fn the_stream_is_open_while_a_watched_key_has_readers() {
    let (controller, _time, fake, feed) = setup();
    controller.retain("GET /users");
    assert!(fake.opens.borrow().is_empty(), "an unwatched key opens nothing");
    controller.retain("GET /prices/BTC");
    controller.retain("GET /prices/ETH");
    assert_eq!(*fake.opens.borrow(), [None], "one stream for every watched reader");
    controller.release("GET /prices/BTC");
    assert_eq!(*fake.closes.borrow(), 0);
    controller.release("GET /prices/ETH");
    assert_eq!((*fake.closes.borrow(), feed.stats().connected), (1, false), "closed when the last reader left");
}

#[test]
fn duplicates_and_overtaken_messages_are_dropped_and_bad_ones_leave_the_store_as_it_was() {
    let (controller, _time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    fake.price(1, 10);
    fake.price(3, 30);
    fake.price(3, 30);
    fake.price(2, 20);
    assert_eq!(shown(&controller), Some(30), "message 2 came after 3: it is older");
    fake.send(StreamEvent::Message { id: Some(4), data: "{not json".into() });
    fake.send(StreamEvent::Message { id: Some(5), data: r#"{"price":50}"#.into() });
    assert_eq!(shown(&controller), Some(30), "the store keeps what it had");
    fake.price(6, 60);
    assert_eq!(shown(&controller), Some(60));
    let stats = feed.stats();
    assert_eq!((stats.opened, stats.applied, stats.dropped, stats.rejected), (1, 3, 2, 2));
}

/// The stream reopens within `wait` ms, and not before three quarters of it
/// (the spread that keeps clients from all coming back at once).
fn reopens_within(time: &FakeTime, fake: &Fake, wait: u64) {
    let opens = fake.opens.borrow().len();
    time.advance(wait / 4 * 3 - 1);
    assert_eq!(fake.opens.borrow().len(), opens, "not before three quarters of {wait} ms");
    time.advance(wait / 4 + 1);
    assert_eq!(fake.opens.borrow().len(), opens + 1, "by {wait} ms");
}

#[test]
fn a_dropped_stream_reopens_after_a_doubling_backoff_resuming_after_the_last_message() {
    let (controller, time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    fake.price(7, 70);
    let stale = fake.sink.borrow().clone().unwrap();
    fake.send(StreamEvent::Failed("server went away".into()));
    assert_eq!(*fake.closes.borrow(), 1);
    reopens_within(&time, &fake, 1_000);
    assert_eq!(*fake.opens.borrow(), [None, Some(7)], "reopened after 1 s, resuming after message 7");
    stale(StreamEvent::Message { id: Some(100), data: r#"{"id":"BTC","price":1}"#.into() });
    assert_eq!(shown(&controller), Some(70), "the old connection's late events are ignored");
    // Failing again before it opens: 2 s, then 4 s (the cap), then 4 s.
    for wait in [2_000, 4_000, 4_000] {
        fake.send(StreamEvent::Failed("refused".into()));
        reopens_within(&time, &fake, wait);
    }
    fake.send(StreamEvent::Opened);
    fake.price(8, 80);
    fake.send(StreamEvent::Failed("dropped again".into()));
    time.advance(1_000);
    assert_eq!(fake.opens.borrow().len(), 6, "a message taken reset the backoff to 1 s");
    fake.send(StreamEvent::Failed("once more".into()));
    controller.release("GET /prices/BTC");
    time.advance(10_000);
    assert_eq!(fake.opens.borrow().len(), 6, "no reopen once the last reader left");
    assert_eq!(feed.stats(), LiveStats { opened: 2, applied: 2, dropped: 0, rejected: 0, connected: false });
}

#[test]
fn a_stream_that_closes_as_soon_as_it_opens_backs_off_further_each_time() {
    // A server refusing the client (a WebSocket closed with 1008 or 4401
    // right after it opened) must not be reopened every first wait forever.
    let (controller, time, fake) = failed_with_backoff(1_000, 16_000);
    for wait in [1_000, 2_000, 4_000, 8_000, 16_000] {
        reopens_within(&time, &fake, wait);
        fake.send(StreamEvent::Opened);
        fake.send(StreamEvent::Failed("closed (code 4401)".into()));
    }
    reopens_within(&time, &fake, 16_000);
    // A connection that stayed open for the first wait proved good.
    fake.send(StreamEvent::Opened);
    time.advance(1_000);
    fake.send(StreamEvent::Failed("closed after a while".into()));
    reopens_within(&time, &fake, 1_000);
    drop(controller);
}

#[test]
fn a_server_that_restarted_its_ids_is_followed_from_its_first_message() {
    let (controller, time, fake, _feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    fake.price(900, 90);
    fake.send(StreamEvent::Failed("server restarted".into()));
    time.advance(1_000);
    fake.send(StreamEvent::Opened);
    fake.price(1, 91);
    assert_eq!(shown(&controller), Some(91), "a new connection's first message sets where it counts from");
    fake.price(1, 92);
    fake.price(2, 93);
    assert_eq!(shown(&controller), Some(93), "then duplicates are dropped again");
}

/// A feed on `backoff(first_ms, max_ms)`, retained, its first connection failed.
fn failed_with_backoff(first_ms: u64, max_ms: u64) -> (Controller, FakeTime, Fake) {
    let time = FakeTime::default();
    let controller = Controller::new(time.clone(), time.clone(), LocalTasks::default());
    let fake = Fake::default();
    let feed = LiveFeed::new(fake.clone(), Price::schema().into(), |key| key.starts_with("GET /prices"))
        .backoff(first_ms, max_ms);
    controller.add_manager(feed);
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Failed("refused".into()));
    (controller, time, fake)
}

#[test]
fn a_backoff_of_zero_is_refused_and_every_wait_keeps_a_floor() {
    let (_controller, time, fake) = failed_with_backoff(0, 0);
    time.advance(0);
    assert_eq!(fake.opens.borrow().len(), 1, "no reopen without waiting");
    reopens_within(&time, &fake, 1_000);
    // 1 ms asked: raised to the floor (100 ms), jitter included.
    let (_controller, time, fake) = failed_with_backoff(1, 1);
    time.advance(99);
    assert_eq!(fake.opens.borrow().len(), 1, "not before the floor");
    time.advance(1);
    assert_eq!(fake.opens.borrow().len(), 2, "at the floor");
}

#[test]
fn an_id_nothing_could_follow_is_rejected_and_later_messages_still_apply() {
    let (controller, _time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    fake.price(1, 10);
    fake.price(u64::MAX, 99);
    assert_eq!(shown(&controller), Some(10), "id u64::MAX is refused: nothing could come after it");
    fake.price(2, 20);
    assert_eq!(shown(&controller), Some(20), "the count goes on from message 1");
    let stats = feed.stats();
    assert_eq!((stats.applied, stats.dropped, stats.rejected), (2, 0, 1));
}

#[test]
fn a_message_without_an_id_on_a_numbered_stream_is_dropped_and_an_unnumbered_stream_applies_all() {
    let (controller, time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    let unnumbered = |price: u32| StreamEvent::Message { id: None, data: format!(r#"{{"id":"BTC","price":{price}}}"#) };
    fake.send(unnumbered(1));
    fake.send(unnumbered(2));
    assert_eq!(shown(&controller), Some(2), "a stream without ids is applied as it comes");
    fake.price(5, 50);
    fake.send(unnumbered(3));
    assert_eq!(shown(&controller), Some(50), "once numbered, a message without an id cannot be ordered");
    fake.price(4, 40);
    assert_eq!(shown(&controller), Some(50), "and the ordering check still holds");
    // A reopened stream whose first message has no id still takes its first numbered one.
    fake.send(StreamEvent::Failed("restarted".into()));
    time.advance(1_000);
    assert_eq!(*fake.opens.borrow(), [None, Some(5)], "resumes after message 5");
    fake.send(unnumbered(6));
    fake.price(1, 70);
    assert_eq!(shown(&controller), Some(70), "a new connection's first numbered message sets the count");
    let stats = feed.stats();
    assert_eq!((stats.applied, stats.dropped), (5, 2));
}

#[test]
fn a_message_the_source_could_not_read_is_rejected_and_the_stream_goes_on() {
    let (controller, _time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    fake.send(StreamEvent::Opened);
    fake.price(1, 10);
    fake.send(StreamEvent::Rejected("ws://127.0.0.1/live: a frame without an id".into()));
    assert_eq!(shown(&controller), Some(10), "the store keeps what it had");
    fake.price(2, 20);
    assert_eq!(shown(&controller), Some(20), "the stream stays open and in order");
    let stats = feed.stats();
    assert_eq!((stats.opened, stats.applied, stats.dropped, stats.rejected, stats.connected), (1, 2, 0, 1, true));
    assert_eq!(fake.opens.borrow().len(), 1, "no reconnect for one bad message");
}

#[test]
fn the_last_rejection_or_failure_is_kept_with_its_reason() {
    let (controller, _time, fake, feed) = setup();
    controller.retain("GET /prices/BTC");
    assert_eq!(feed.last_error(), None);
    fake.send(StreamEvent::Opened);
    fake.send(StreamEvent::Rejected("ws://127.0.0.1/live: a frame without an id".into()));
    assert_eq!(feed.last_error().as_deref(), Some("ws://127.0.0.1/live: a frame without an id"));
    fake.send(StreamEvent::Message { id: Some(1), data: "not json".into() });
    assert!(
        feed.last_error().is_some_and(|e| e != "ws://127.0.0.1/live: a frame without an id"),
        "{:?}",
        feed.last_error()
    );
    fake.send(StreamEvent::Failed("closed with 4401 (unauthorized)".into()));
    assert_eq!(feed.last_error().as_deref(), Some("closed with 4401 (unauthorized)"));
}
