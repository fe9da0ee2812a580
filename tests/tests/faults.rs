//! Bad days, in headless Chromium against the API server's fault injection: every
//! failure is a typed error naming the endpoint, the store keeps what it had, soft
//! errors keep stale data, a retry recovers, and out-of-order answers leave the newest.
#![cfg(target_arch = "wasm32")]

mod common;

use std::time::Duration;

use common::*;
use rdc::controller::{Controller, FetchError};
use rdc::core::{Entity, Schema};
use rdc::json;
use rdc::json::Value;
use rdc::leptos::new_controller;
use rdc::rest::{RestEndpoint, RestError};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// An endpoint whose key is `GET /users` but which fetches `path`: the fault lands
/// on data the store already has.
fn users_at(path: &str) -> RestEndpoint {
    api("GET", path).schema(Schema::array(User::schema()))
}

/// A controller whose requests are not tried again: these tests look at each
/// error as it comes (the browser's default is three retries).
fn quick_errors() -> Controller {
    let controller = new_controller();
    rdc::rest::provide_retry(&controller, rdc::rest::Retry::NEVER);
    controller
}

async fn seeded(endpoint: &RestEndpoint) -> Controller {
    let controller = quick_errors();
    controller.set_response(endpoint, &json!({}), json!([{ "id": "1", "name": "Ada" }])).unwrap();
    controller
}

fn names(controller: &Controller, endpoint: &RestEndpoint) -> Vec<String> {
    let read = controller.read::<_, Vec<User>>(endpoint, &json!({})).unwrap();
    read.data.map(|users| users.iter().map(|u| u.name.clone()).collect()).unwrap_or_default()
}

async fn fault(path: &str) -> (FetchError<RestError>, Vec<String>) {
    let endpoint = users_at(path).timeout(Duration::from_millis(500));
    let controller = seeded(&endpoint).await;
    let error = controller.fetch(&endpoint, json!({}), None).await.unwrap_err();
    (error, names(&controller, &endpoint))
}

fn endpoint_of(error: &FetchError<RestError>) -> String {
    match error {
        FetchError::Endpoint(RestError::Network { endpoint, .. })
        | FetchError::Endpoint(RestError::Transport { endpoint, .. })
        | FetchError::Endpoint(RestError::Parse { endpoint, .. }) => endpoint.clone(),
        other => panic!("unexpected {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn statuses_with_and_without_bodies_are_network_errors_and_the_store_keeps_its_data() {
    for path in ["/status/404", "/status/422", "/status/500", "/faults/empty/404", "/faults/empty/503"] {
        let (error, kept) = fault(path).await;
        let status: u16 = path.rsplit('/').next().unwrap().parse().unwrap();
        assert_eq!(
            match &error {
                FetchError::Endpoint(e) => e.status(),
                _ => None,
            },
            Some(status),
            "{path}: {error}"
        );
        assert_eq!(endpoint_of(&error), format!("GET {path}"));
        assert_eq!(kept, ["Ada"], "{path}: the store kept its data");
    }
}

#[wasm_bindgen_test]
async fn malformed_truncated_and_non_json_bodies_are_parse_errors() {
    for (path, want) in [
        ("/malformed", "malformed JSON"),
        ("/faults/truncated", "malformed JSON"),
        ("/faults/html", "expected JSON, got text/html"),
    ] {
        let (error, kept) = fault(path).await;
        assert!(matches!(&error, FetchError::Endpoint(RestError::Parse { .. })), "{path}: {error:?}");
        assert!(error.to_string().contains(want), "{path}: {error}");
        assert!(error.to_string().starts_with(&format!("GET {path}: ")), "names the endpoint: {error}");
        assert_eq!(kept, ["Ada"], "{path}");
    }
}

#[wasm_bindgen_test]
async fn a_body_that_does_not_fit_the_schema_is_a_normalize_error() {
    // A price where a user belongs: no `id`, no `name`.
    let endpoint = api("GET", "/price/:exchangePair").schema(User::schema());
    let controller = quick_errors();
    let error = controller.fetch(&endpoint, json!({ "exchangePair": "BTC-USD" }), None).await.unwrap_err();
    assert!(matches!(error, FetchError::Normalize(_)), "{error:?}");
    assert_eq!(controller.snapshot().entity_count(), 0);
}

#[wasm_bindgen_test]
async fn timeouts_dropped_connections_and_cors_failures_are_transport_errors() {
    let (error, kept) = fault("/slow?ms=3000").await;
    assert!(error.to_string().contains("timed out after 500 ms"), "{error}");
    assert_eq!(kept, ["Ada"]);
    let (error, kept) = fault("/faults/drop").await;
    assert!(
        matches!(
            &error,
            FetchError::Endpoint(RestError::Parse { .. }) | FetchError::Endpoint(RestError::Transport { .. })
        ),
        "{error:?}"
    );
    assert_eq!(kept, ["Ada"]);
    let no_cors = RestEndpoint::get("/nocors").url_prefix(rdc_e2e::API_URL).schema(Schema::array(User::schema()));
    let controller = seeded(&no_cors).await;
    let error = controller.fetch(&no_cors, json!({}), None).await.unwrap_err();
    assert!(matches!(&error, FetchError::Endpoint(RestError::Transport { .. })), "{error:?}");
    assert_eq!(names(&controller, &no_cors), ["Ada"]);
}

#[wasm_bindgen_test]
async fn a_huge_body_normalizes() {
    let endpoint = api("GET", "/faults/huge").schema(Schema::array(User::schema()));
    let controller = quick_errors();
    controller.fetch(&endpoint, json!({ "n": 50_000 }), None).await.unwrap();
    assert_eq!(controller.snapshot().entity_count(), 50_000);
    let read = controller.read::<_, Vec<User>>(&endpoint, &json!({ "n": 50_000 })).unwrap();
    assert_eq!(read.data.unwrap().len(), 50_000);
}

#[wasm_bindgen_test]
async fn a_soft_error_keeps_stale_data_and_a_retry_recovers() {
    let flaky = api("GET", "/flaky").data_expiry(Duration::ZERO.max(Duration::from_millis(1)));
    let switch = api("POST", "/flaky/fail");
    let controller = quick_errors();
    controller.fetch(&switch, json!({}), Some(json!({ "fail": false }))).await.unwrap();
    controller.fetch(&flaky, json!({}), None).await.unwrap();
    let before = controller.read::<_, Value>(&flaky, &json!({})).unwrap().data.unwrap();
    controller.fetch(&switch, json!({}), Some(json!({ "fail": true }))).await.unwrap();
    let error = controller.fetch(&flaky, json!({}), None).await.unwrap_err();
    assert_eq!(
        match &error {
            FetchError::Endpoint(e) => e.status(),
            _ => None,
        },
        Some(503)
    );
    assert!(rdc::rest::ErrorPolicy::Auto.is_soft(match &error {
        FetchError::Endpoint(e) => e,
        _ => unreachable!(),
    }));
    let read = controller.read::<_, Value>(&flaky, &json!({})).unwrap();
    assert_eq!(read.data.unwrap(), before, "stale data still readable under a soft error");
    assert!(read.error.is_some());
    controller.fetch(&switch, json!({}), Some(json!({ "fail": false }))).await.unwrap();
    let recovered = controller.fetch(&flaky, json!({}), None).await.unwrap();
    assert!(recovered["value"].as_u64().unwrap() > before["value"].as_u64().unwrap());
    assert!(controller.read::<_, Value>(&flaky, &json!({})).unwrap().error.is_none(), "the retry cleared the error");
}

#[wasm_bindgen_test]
async fn by_default_a_read_rides_out_a_short_outage_with_its_retries() {
    let flaky = api("GET", "/flaky");
    let switch = api("POST", "/flaky/fail");
    let controller = new_controller();
    controller.fetch(&switch, json!({}), Some(json!({ "fail": true }))).await.unwrap();
    let read = controller.fetch(&flaky, json!({}), None);
    let c = controller.clone();
    wasm_bindgen_futures::spawn_local(async move {
        rdc_e2e::sleep(300).await;
        c.fetch(&api("POST", "/flaky/fail"), json!({}), Some(json!({ "fail": false }))).await.unwrap();
    });
    assert!(read.await.unwrap()["value"].as_u64().is_some(), "the retry after about a second found the server back");
}

#[wasm_bindgen_test]
async fn two_fetches_answered_out_of_order_leave_the_newer_data() {
    let user = api("GET", "/faults/user").schema(User::schema());
    let controller = quick_errors();
    // The older request answers last.
    let slow = controller.fetch(&user, json!({ "ms": 600, "name": "older" }), None);
    rdc_e2e::sleep(50).await;
    let fast = controller.fetch(&user, json!({ "ms": 0, "name": "newer" }), None);
    fast.await.unwrap();
    slow.await.unwrap();
    let stored =
        controller.with_state(|s| rdc::core::denormalize::<User>(s, &User::schema(), &json!("x"))).unwrap().unwrap();
    assert_eq!(stored.name, "newer");
}

#[wasm_bindgen_test]
async fn two_fetches_for_one_key_answered_out_of_order_leave_the_newer_data() {
    let name = format!("k{}", (js_sys::Math::random() * 1e9) as u64);
    let endpoint = api("GET", "/faults/sequence/:name").schema(User::schema());
    let args = json!({ "name": name });
    let controller = quick_errors();
    // Two requests for the same key (cancellable ones are never shared): the first
    // is slow, the second starts later and answers first.
    let (first, _a) = controller.fetch_cancellable(&endpoint, args.clone(), None);
    rdc_e2e::sleep(50).await;
    let (second, _b) = controller.fetch_cancellable(&endpoint, args.clone(), None);
    assert_eq!(second.await.unwrap().name, "call 2");
    assert_eq!(first.await.unwrap().name, "call 1");
    let read = controller.read::<_, User>(&endpoint, &args).unwrap();
    assert_eq!(read.data.unwrap().name, "call 2", "the older answer did not overwrite the newer one");
}
