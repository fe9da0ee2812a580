//! How response bodies are read (issue 27, item 11): JSON by media type, a
//! byte order mark skipped, error bodies capped.
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;

use rdc_core::json;
use rdc_rest::{block_on, Args, Body, FakeClient, FakeResponse, RestEndpoint, RestError};

fn get(client: &FakeClient, path: &str) -> Result<Body, RestError> {
    block_on(RestEndpoint::get(path).fetch(Arc::new(client.clone()), &Args::new(), None))
}

/// Serves `body` with `content_type` at `/r`, and reads it.
fn read(content_type: &str, body: &str) -> Result<Body, RestError> {
    let client = FakeClient::default();
    client.on("GET", "/r", FakeResponse::status(200).header("content-type", content_type).body(body));
    get(&client, "/r")
}

#[test]
fn json_is_chosen_by_media_type_not_by_substring() {
    let body = r#"{"a": 1}"#;
    for json_type in [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        " application/json ;charset=UTF-8",
        "application/problem+json",
        "application/vnd.api+JSON; ext=x",
        "text/json",
    ] {
        assert_eq!(read(json_type, body).unwrap(), Body::Json(json!({ "a": 1 })), "{json_type}");
    }
    for other in [
        "text/x-not-json",
        "application/jsonp",
        "application/json-seq",
        "application/x-json",
        "application/json+xml",
        "text/plain; note=json",
        "json",
        "application/",
        "/json",
        "application/+json",
    ] {
        assert_eq!(read(other, body).unwrap(), Body::Text(body.into()), "{other}");
    }
}

#[test]
fn a_utf8_bom_before_json_is_skipped() {
    assert_eq!(read("application/json", "\u{FEFF}{\"a\": 1}").unwrap(), Body::Json(json!({ "a": 1 })));
    assert_eq!(read("application/json", "\u{FEFF}").unwrap(), Body::Empty);
    // Only one, and only at the start, as a browser's UTF-8 decode does.
    assert!(matches!(read("application/json", "\u{FEFF}\u{FEFF}{}"), Err(RestError::Parse { .. })));
    assert_eq!(read("text/plain", "\u{FEFF}hi").unwrap(), Body::Text("hi".into()));
}

#[test]
fn an_error_body_keeps_at_most_64_kib() {
    let client = FakeClient::default();
    // A 3-byte character straddles the 64 KiB mark: cut before it.
    let big = format!("{}€{}", "x".repeat(64 * 1024 - 1), "y".repeat(100_000));
    client.on("GET", "/big", FakeResponse::status(500).body(big));
    client.on("GET", "/small", FakeResponse::status(422).body("€ detail"));
    let err = get(&client, "/big").unwrap_err();
    let RestError::Network { source, .. } = err else { panic!("not a network error") };
    assert!(source.body == "x".repeat(64 * 1024 - 1), "{} bytes kept", source.body.len());
    let err = get(&client, "/small").unwrap_err();
    let RestError::Network { source, .. } = err else { panic!("{err:?}") };
    assert_eq!(source.body, "€ detail");
}
