//! Retries through the controller: a 503's `Retry-After` is honoured, a 404 is
//! not tried again, and a mutation retries only when idempotent.
#![cfg(not(target_arch = "wasm32"))]

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::json;
use rdc_rest::{FakeClient, FakeResponse, RestEndpoint, Retry};
use std::time::Duration;

fn setup() -> (Controller, FakeTime, LocalTasks, FakeClient) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time.clone(), tasks.clone()), time, tasks, FakeClient::default())
}

#[test]
fn a_busy_server_is_asked_again_when_its_retry_after_says() {
    let (c, time, tasks, client) = setup();
    let flaky = RestEndpoint::get("/flaky").retry(Retry::default()).client(client.clone());
    client.on("GET", "/flaky", FakeResponse::status(503).header("Retry-After", "2"));
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = out.clone();
    let fetch = c.fetch(&flaky, json!({}), None);
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.lock().unwrap() = Some(fetch.await) }));
    tasks.run();
    assert_eq!(client.requests().len(), 1);
    client.on("GET", "/flaky", FakeResponse::json(json!({ "ok": true })));
    time.advance(1999);
    tasks.run();
    assert_eq!(client.requests().len(), 1, "waits the two seconds asked");
    time.advance(1);
    tasks.run();
    assert_eq!(client.requests().len(), 2);
    assert!(matches!(&*out.lock().unwrap(), Some(Ok(_))));
}

#[test]
fn what_another_try_cannot_mend_is_not_tried_again() {
    let (c, time, tasks, client) = setup();
    client.on("GET", "/gone", FakeResponse::status(404));
    let gone = RestEndpoint::get("/gone").retry(Retry::default()).client(client.clone());
    assert!(tasks.block_on(c.fetch(&gone, json!({}), None)).is_err());
    // A wait longer than the longest allowed: the error stands.
    client.on("GET", "/later", FakeResponse::status(503).header("Retry-After", "3600"));
    let later = RestEndpoint::get("/later").retry(Retry::default()).client(client.clone());
    assert!(tasks.block_on(c.fetch(&later, json!({}), None)).is_err());
    // A mutation is not retried unless idempotent.
    client.on("POST", "/orders", FakeResponse::status(500));
    let order = RestEndpoint::post("/orders").retry(Retry::default()).client(client.clone());
    assert!(tasks.block_on(c.fetch(&order, json!({}), Some(json!({ "item": 1 })))).is_err());
    assert_eq!(client.requests().len(), 3);
    assert_eq!(time.pending(), 0);
    client.on("PUT", "/orders/1", FakeResponse::status(500));
    let put = RestEndpoint::new("PUT", "/orders/:id").retry(Retry::default()).idempotent(true).client(client.clone());
    drop(c.fetch(&put, json!({ "id": 1 }), Some(json!({ "item": 1 }))));
    tasks.run();
    assert_eq!(time.pending(), 0, "no one waits for it: not retried");
    let waited = c.fetch(&put, json!({ "id": 1 }), Some(json!({ "item": 1 })));
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = out.clone();
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.lock().unwrap() = Some(waited.await) }));
    tasks.run();
    assert_eq!(time.pending(), 1, "an idempotent mutation someone awaits waits to retry");
}

#[test]
fn retry_after_as_a_date_counts_from_the_servers_own_date() {
    let (c, time, tasks, client) = setup();
    let busy = FakeResponse::status(429)
        .header("Date", "Wed, 21 Oct 2015 07:28:00 GMT")
        .header("Retry-After", "Wed, 21 Oct 2015 07:28:05 GMT");
    client.on("GET", "/limited", busy);
    let limited = RestEndpoint::get("/limited").retry(Retry::default()).client(client.clone());
    drop(c.fetch(&limited, json!({}), None));
    c.retain("GET /limited");
    tasks.run();
    time.advance(4999);
    tasks.run();
    assert_eq!(client.requests().len(), 1);
    time.advance(1);
    tasks.run();
    assert_eq!(client.requests().len(), 2, "five seconds after the server's Date");
}

/// However long an app lets waits grow, working one out never overflows.
#[test]
fn the_longest_waits_are_worked_out_without_overflow() {
    let retry = Retry { attempts: 64, base: std::time::Duration::MAX, max: std::time::Duration::MAX };
    let down = rdc_rest::RestError::Transport { endpoint: "GET /x".into(), url: "/x".into(), message: "down".into() };
    for attempt in [0, 1, 31, 32, 63] {
        let wait = retry.wait(&down, attempt, u64::MAX).unwrap();
        assert!(wait >= std::time::Duration::MAX / 2, "attempt {attempt}: {wait:?}");
    }
}

#[test]
fn an_endpoints_policy_wins_over_the_apps_which_wins_over_the_platforms() {
    let (c, time, tasks, client) = setup();
    client.on("GET", "/busy", FakeResponse::status(503));
    let busy = RestEndpoint::get("/busy").client(client.clone());
    assert!(tasks.block_on(c.fetch(&busy, json!({}), None)).is_err());
    assert_eq!((client.requests().len(), time.pending()), (1, 0), "a server renders without retries");
    rdc_rest::provide_retry(&c, Retry { attempts: 1, ..Retry::default() });
    let app = c.fetch(&busy, json!({}), None);
    let patient = RestEndpoint::get("/busy").retry(Retry::NEVER).client(client.clone());
    assert!(tasks.block_on(c.fetch(&patient.map(|e| e.url_prefix("/own")), json!({}), None)).is_err());
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = out.clone();
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.lock().unwrap() = Some(app.await) }));
    tasks.run();
    time.advance(1_000);
    tasks.run();
    let sent = |url: &str| client.requests().iter().filter(|r| r.url == url).count();
    assert_eq!((sent("/busy"), sent("/own/busy")), (3, 1), "the app's one retry; the endpoint's none");
    assert!(matches!(&*out.lock().unwrap(), Some(Err(_))), "one retry, then the error");
}

/// The wait before a retry is cut by up to half at random: two randoms give
/// two waits, each between half the doubled wait and all of it.
#[test]
fn waits_are_spread_at_random_within_half_of_the_doubled_wait() {
    use std::time::Duration;
    let retry = Retry::default();
    let down = rdc_rest::RestError::Transport { endpoint: "GET /x".into(), url: "/x".into(), message: "down".into() };
    let doubled = Duration::from_secs(2);
    let waits: Vec<Duration> = [3, 700].iter().map(|random| retry.wait(&down, 1, *random).unwrap()).collect();
    assert_ne!(waits[0], waits[1], "two randoms, two waits");
    for wait in &waits {
        assert!(*wait >= doubled / 2 && *wait <= doubled, "{wait:?} within half of {doubled:?}");
    }
    let lowest = retry.wait(&down, 1, 1023).unwrap();
    assert!(lowest < doubled * 501 / 1000, "the largest random takes off about half: {lowest:?}");
}

/// A clock on fake time whose random number is chosen.
struct Rigged(FakeTime, u64);

impl rdc_controller::Clock for Rigged {
    fn now(&self) -> u64 {
        rdc_controller::Clock::now(&self.0)
    }
    fn random(&self) -> u64 {
        self.1
    }
}

/// The controller hands its clock's random to the retry: 512 of 1024 takes a
/// quarter off the first second's wait.
#[test]
fn the_controller_spreads_retries_with_its_clocks_random() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(Rigged(time.clone(), 512), time.clone(), tasks.clone());
    let client = FakeClient::default();
    client.on("GET", "/busy", FakeResponse::status(503));
    let busy = RestEndpoint::get("/busy").retry(Retry::default()).client(client.clone());
    drop(c.fetch(&busy, json!({}), None));
    c.retain("GET /busy");
    tasks.run();
    time.advance(749);
    tasks.run();
    assert_eq!(client.requests().len(), 1, "not before 750 ms");
    time.advance(1);
    tasks.run();
    assert_eq!(client.requests().len(), 2, "at 750 ms: a quarter off, as random 512 asks");
}

/// The error a fetch that is not retried gives, for `response`.
fn network_error(response: FakeResponse) -> rdc_rest::NetworkError {
    let (c, _, tasks, client) = setup();
    client.on("GET", "/busy", response);
    let busy = RestEndpoint::get("/busy").retry(Retry::NEVER).client(client);
    match tasks.block_on(c.fetch(&busy, json!({}), None)) {
        Err(rdc_controller::FetchError::Endpoint(rdc_rest::RestError::Network { source, .. })) => source,
        other => panic!("{other:?}"),
    }
}

/// RFC 9110 §5.6.7: an HTTP-date is IMF-fixdate, RFC 850 or asctime, and a
/// recipient reads all three (a two-digit year taken near the other date's).
#[test]
fn retry_after_dates_are_read_in_all_three_http_date_formats() {
    let imf = "Wed, 21 Oct 2015 07:28:00 GMT";
    for (date, retry_after) in [
        (imf, "Wed, 21 Oct 2015 07:28:05 GMT"),
        (imf, "Wednesday, 21-Oct-15 07:28:05 GMT"),
        (imf, "Wed Oct 21 07:28:05 2015"),
        ("Wednesday, 21-Oct-15 07:28:00 GMT", "Wed Oct 21 07:28:05 2015"),
        ("Sun Nov  6 23:59:58 1994", "Monday, 07-Nov-94 00:00:03 GMT"),
    ] {
        let busy = FakeResponse::status(503).header("Date", date).header("Retry-After", retry_after);
        assert_eq!(network_error(busy).retry_after, Some(Duration::from_secs(5)), "{date} / {retry_after}");
    }
}

/// A `Retry-After` too large for any clock asks for too long a wait: no
/// retry, not the one a missing header would get.
#[test]
fn a_retry_after_too_large_to_count_is_too_long_not_absent() {
    let huge = "18446744073709551616"; // u64::MAX + 1 seconds
    let source = network_error(FakeResponse::status(503).header("Retry-After", huge));
    assert!(source.retry_after.is_some_and(|wait| wait >= Duration::from_secs(u64::MAX)), "{source:?}");

    let (c, time, tasks, client) = setup();
    client.on("GET", "/later", FakeResponse::status(503).header("Retry-After", huge));
    let later = RestEndpoint::get("/later").retry(Retry::default()).client(client.clone());
    let out = std::sync::Arc::new(std::sync::Mutex::new(None));
    let slot = out.clone();
    let fetch = c.fetch(&later, json!({}), None);
    rdc_controller::Spawn::spawn(&tasks, Box::pin(async move { *slot.lock().unwrap() = Some(fetch.await) }));
    tasks.run();
    assert!(matches!(&*out.lock().unwrap(), Some(Err(_))), "the error stands at once");
    assert_eq!((client.requests().len(), time.pending()), (1, 0), "no retry waits");
}
