//! Endpoint options that cannot work are refused when the endpoint is used,
//! with a typed error naming the endpoint (issue 27, item 11d).
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;
use std::time::Duration;

use rdc_controller::{Controller, FakeTime, FetchError, LocalTasks};
use rdc_core::json;
use rdc_rest::{block_on, Args, FakeClient, FakeResponse, RestEndpoint, RestError};

/// A `poll_frequency` under a millisecond is 0 ms to the controller: it would
/// refetch as fast as the server answers, for as long as anyone subscribes.
#[test]
fn a_zero_poll_frequency_is_refused() {
    for every in [Duration::ZERO, Duration::from_micros(999)] {
        let client = FakeClient::default();
        client.on("GET", "/ticker", FakeResponse::json(json!({ "price": 1 })));
        let e = RestEndpoint::get("/ticker").poll_frequency(every).client(client.clone());
        let err = e.key(&Args::new()).unwrap_err();
        assert!(
            matches!(&err, RestError::InvalidOption { endpoint, option: "poll_frequency", .. } if endpoint == "GET /ticker"),
            "{err:?}"
        );
        assert_eq!(err.to_string(), "GET /ticker: option `poll_frequency` is invalid: it must be at least 1 ms");
        assert!(matches!(
            block_on(e.fetch(Arc::new(client.clone()), &Args::new(), None)),
            Err(RestError::InvalidOption { .. })
        ));

        // Through the controller: not polled, and a fetch fails with the typed error.
        let time = FakeTime::default();
        let tasks = LocalTasks::default();
        let controller = Controller::new(time.clone(), time.clone(), tasks.clone());
        assert!(controller.subscribe(&e, json!({})).is_none());
        let fetched = block_on(controller.fetch(&e, json!({}), None));
        assert!(matches!(fetched, Err(FetchError::Endpoint(RestError::InvalidOption { .. }))), "{fetched:?}");
        for _ in 0..3 {
            time.advance(1);
            tasks.run();
        }
        assert!(client.requests().is_empty(), "nothing was sent");
    }
    let e = RestEndpoint::get("/ticker").poll_frequency(Duration::from_millis(1));
    assert_eq!(e.key(&Args::new()).unwrap(), "GET /ticker");
}

/// Two controllers (two requests a server renders at once), each with a client
/// of its own: each fetches through its own, and an endpoint's own client wins.
#[test]
fn each_controller_fetches_through_the_client_it_was_given() {
    let me = RestEndpoint::get("/api/me").args::<()>();
    let answers = ["Ann", "Bo"].map(|name| {
        let time = FakeTime::default();
        let tasks = LocalTasks::default();
        let controller = Controller::new(time.clone(), time, tasks.clone());
        let client = FakeClient::default();
        client.on("GET", "/api/me", FakeResponse::json(json!({ "name": name })));
        rdc_rest::provide_client(&controller, client);
        (controller, tasks)
    });
    for ((controller, tasks), name) in answers.iter().zip(["Ann", "Bo"]) {
        assert_eq!(tasks.block_on(controller.fetch(&me, (), None)).unwrap()["name"], name);
    }
    let own = FakeClient::default();
    own.on("GET", "/api/me", FakeResponse::json(json!({ "name": "endpoint's" })));
    let pinned = me.client(own);
    let (controller, tasks) = &answers[0];
    controller.invalidate(&pinned, &());
    assert_eq!(tasks.block_on(controller.fetch(&pinned, (), None)).unwrap()["name"], "endpoint's");
}

/// A form endpoint refuses a body that cannot be form fields, and sends nothing.
#[test]
fn a_form_body_that_is_not_fields_is_refused_before_sending() {
    let client = rdc_rest::FakeClient::default();
    client.on("POST", "/search", rdc_rest::FakeResponse::json(rdc_core::json!({})));
    let search = rdc_rest::RestEndpoint::post("/search").form().client(client.clone());
    let nested = rdc_core::json!({ "filter": { "tag": "a" } });
    let sent =
        rdc_rest::block_on(search.fetch(std::sync::Arc::new(client.clone()), &Default::default(), Some(nested.into())));
    assert!(matches!(sent, Err(rdc_rest::RestError::Encode { part: "body", .. })), "{sent:?}");
    assert!(client.requests().is_empty());
}

/// `.timeout(Duration::MAX)` is no limit at all, also on a clock that has
/// moved: setting its timers never overflows.
#[test]
fn the_longest_timeout_works_on_a_clock_that_has_moved() {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    let c = Controller::new(time.clone(), time.clone(), tasks.clone());
    time.advance(1);
    let client = FakeClient::default();
    client.on("GET", "/slow", FakeResponse::json(json!({ "ok": true })));
    let slow = RestEndpoint::get("/slow").timeout(Duration::MAX).client(client);
    assert_eq!(tasks.block_on(c.fetch(&slow, json!({}), None)).unwrap()["ok"], true);
    rdc_controller::Timers::set_timeout(&time, u64::MAX, Box::new(|| panic!("never due")));
    time.advance(u64::MAX / 2);
}
