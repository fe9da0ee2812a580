//! The fetch pipeline with the in-memory client: defaults, errors, overrides.
// Native: the fake client's blobs hold bytes (browser blobs are tested in browser.rs).
#![cfg(not(target_arch = "wasm32"))]

use std::sync::Arc;

use rdc_core::json;
use rdc_core::json::Value;
use rdc_rest::{block_on, Args, Body, Content, FakeClient, FakeResponse, RequestInit, RestEndpoint, RestError};

fn args(v: Value) -> Args {
    v.as_object().cloned().unwrap()
}

fn run(e: &rdc_rest::RestCall, client: &FakeClient, a: Value, body: Option<Value>) -> Result<Body, RestError> {
    block_on(e.fetch(Arc::new(client.clone()), &args(a), body.map(Into::into)))
}

#[test]
fn json_responses_parse_and_bodies_are_sent_as_json() {
    let client = FakeClient::default();
    client.on("POST", "/users", FakeResponse::json(json!({ "id": "9", "name": "Ada" })).header("x", "y"));
    let body = run(&RestEndpoint::post("/users"), &client, json!({}), Some(json!({ "name": "Ada" }))).unwrap();
    assert_eq!(body, Body::Json(json!({ "id": "9", "name": "Ada" })));
    let sent = &client.requests()[0];
    assert_eq!(sent.method, "POST");
    assert_eq!(sent.body_text(), Some(r#"{"name":"Ada"}"#));
    assert_eq!(sent.header("content-type"), Some("application/json"));
}

#[test]
fn no_content_and_text_and_binary() {
    let client = FakeClient::default();
    client.on("DELETE", "/users/1", FakeResponse::status(204));
    client.on("GET", "/hello", FakeResponse::status(200).header("content-type", "text/plain").body("hi"));
    client.on(
        "GET",
        "/bin",
        FakeResponse::status(200).header("content-type", "application/octet-stream").body(vec![0u8, 159, 255]),
    );
    assert_eq!(
        run(&RestEndpoint::new("DELETE", "/users/:id"), &client, json!({ "id": 1 }), None).unwrap(),
        Body::Empty
    );
    assert_eq!(run(&RestEndpoint::get("/hello"), &client, json!({}), None).unwrap(), Body::Text("hi".into()));
    let bytes = run(&RestEndpoint::get("/bin").content(Content::ArrayBuffer), &client, json!({}), None).unwrap();
    assert_eq!(bytes, Body::Bytes(vec![0, 159, 255]));
    match run(&RestEndpoint::get("/bin").content(Content::Blob), &client, json!({}), None).unwrap() {
        Body::Blob(blob) => {
            assert_eq!((blob.bytes(), blob.mime_type().as_str()), (&[0u8, 159, 255][..], "application/octet-stream"))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_non_2xx_status_is_a_network_error_with_the_body() {
    let client = FakeClient::default();
    let detail = json!({ "error": "name must not be empty", "field": "name" });
    client.on(
        "POST",
        "/users",
        FakeResponse::status(422).header("content-type", "application/json").body(detail.to_string()),
    );
    client.on("GET", "/boom", FakeResponse::status(503));
    let err = run(&RestEndpoint::post("/users"), &client, json!({}), Some(json!({ "name": "" }))).unwrap_err();
    assert_eq!(err.status(), Some(422));
    match &err {
        RestError::Network { endpoint, source } => {
            assert_eq!(endpoint, "POST /users");
            assert_eq!(source.url, "/users");
            assert_eq!(source.json().unwrap()["field"], "name");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.to_string(), "POST /users: HTTP 422 from /users");
    let err = run(&RestEndpoint::get("/boom"), &client, json!({}), None).unwrap_err();
    assert_eq!(err.status(), Some(503));
    assert!(rdc_rest::ErrorPolicy::Auto.is_soft(&err));
}

#[test]
fn malformed_json_is_a_typed_parse_error_naming_the_endpoint() {
    let client = FakeClient::default();
    client.on("GET", "/bad", FakeResponse::status(200).header("content-type", "application/json").body(r#"{"a": 1"#));
    let err = run(&RestEndpoint::get("/bad"), &client, json!({}), None).unwrap_err();
    match err {
        RestError::Parse { endpoint, url, message } => {
            assert_eq!((endpoint.as_str(), url.as_str()), ("GET /bad", "/bad"));
            assert!(message.starts_with("malformed JSON: EOF while parsing"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_transport_failure_is_typed() {
    let err = run(&RestEndpoint::get("/nowhere"), &FakeClient::default(), json!({}), None).unwrap_err();
    assert!(matches!(err, RestError::Transport { ref endpoint, .. } if endpoint == "GET /nowhere"), "{err}");
}

#[test]
fn headers_static_and_computed_are_sent_and_cr_lf_is_refused_before_sending() {
    let client = FakeClient::default();
    client.on("GET", "/me", FakeResponse::json(json!({})));
    let e = RestEndpoint::get("/me").header("Accept", "application/json").headers_with(|args| {
        vec![("Authorization".into(), format!("Bearer {}", args.get("token").and_then(Value::as_str).unwrap_or("")))]
    });
    // The token is a search param here only to show computed headers see the args.
    let e = e.with_request_init(|body, sup| sup(body));
    client.on("GET", "/me?token=t1", FakeResponse::json(json!({})));
    run(&e, &client, json!({ "token": "t1" }), None).unwrap();
    let sent = client.requests().pop().unwrap();
    assert_eq!(sent.header("authorization"), Some("Bearer t1"));
    assert_eq!(sent.header("accept"), Some("application/json"));

    let before = client.requests().len();
    let err = run(&e, &client, json!({ "token": "x\r\nSet-Cookie: a=b" }), None).unwrap_err();
    assert!(matches!(err, RestError::InvalidHeader { ref name, .. } if name == "Authorization"), "{err}");
    let err = run(&RestEndpoint::get("/me").header("Bad Name", "v"), &client, json!({}), None).unwrap_err();
    assert!(matches!(err, RestError::InvalidHeader { .. }));
    assert_eq!(client.requests().len(), before, "nothing was sent");
}

#[test]
fn overrides_can_call_the_step_they_replace_and_stack() {
    let client = FakeClient::default();
    client.on("POST", "/n", FakeResponse::json(json!({ "n": 1 })));
    let e = RestEndpoint::post("/n")
        .with_request_init(|body, sup| {
            let mut init: RequestInit = sup(body.map(|b| {
                b.map_json(|mut b| {
                    b["added"] = json!(true);
                    b
                })
            }))?;
            init.headers.push(("X-Step".into(), "one".into()));
            Ok(init)
        })
        .process(|mut v, _| {
            v["n"] = json!(v["n"].as_i64().unwrap_or(0) * 10);
            v
        })
        .process(|mut v, _| {
            v["n"] = json!(v["n"].as_i64().unwrap_or(0) + 1);
            v
        })
        .with_fetch_response(|request, sup| {
            Box::pin(async move {
                let response = sup.call(request).await?;
                assert_eq!(response.header("content-type"), Some("application/json"));
                Ok(response)
            })
        });
    let body = run(&e, &client, json!({}), Some(json!({ "x": 1 }))).unwrap();
    // Later overrides wrap earlier ones: (1 * 10) + 1.
    assert_eq!(body, Body::Json(json!({ "n": 11 })));
    let sent = client.requests().pop().unwrap();
    // Keys in the order they were set, as JavaScript writes them.
    assert_eq!(sent.body_text(), Some(r#"{"x":1,"added":true}"#));
    assert_eq!(sent.header("x-step"), Some("one"));
}

#[test]
fn a_process_override_can_refuse_a_value() {
    let client = FakeClient::default();
    client.on("GET", "/v", FakeResponse::json(json!({ "version": 2 })));
    let e = RestEndpoint::get("/v").with_process(|body, args, sup| match sup(body, args)? {
        Body::Json(v) if v["version"] != 1 => {
            Err(RestError::Transform { endpoint: "GET /v".into(), message: "unsupported version".into() })
        }
        other => Ok(other),
    });
    let err = run(&e, &client, json!({}), None).unwrap_err();
    assert_eq!(err.to_string(), "GET /v: unsupported version");
}
