//! The browser client against the real API server (headless Chromium): the Fetch
//! API, headers through CORS, blobs and array buffers, error bodies.
#![cfg(target_arch = "wasm32")]

use std::sync::Arc;

use rdc_core::json;
use rdc_core::json::Value;
use rdc_rest::{recipes, Args, Body, BrowserClient, Content, Multipart, RestEndpoint, RestError};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const API: &str = match option_env!("RDC_API_URL") {
    Some(url) => url,
    None => "http://127.0.0.1:3917",
};

fn endpoint(method: &str, path: &str) -> RestEndpoint {
    RestEndpoint::new(method, path).url_prefix(&format!("{API}/api"))
}

async fn run(e: &rdc_rest::RestCall, args: Value, body: Option<Value>) -> Result<Body, RestError> {
    e.fetch(Arc::new(BrowserClient), &args.as_object().cloned().unwrap_or_else(Args::new), body.map(Into::into)).await
}

#[wasm_bindgen_test]
async fn json_from_the_server() {
    let body = run(&endpoint("GET", "/price/:exchangePair"), json!({ "exchangePair": "BTC-USD" }), None).await.unwrap();
    assert_eq!(body.json().unwrap()["price"], "43250.123456789012345678");
}

#[wasm_bindgen_test]
async fn the_server_receives_the_body_and_headers_sent() {
    let e = endpoint("POST", "/echo/:id").header("X-Trace", "t-1");
    let e = recipes::key_case(&e);
    let body = run(&e, json!({ "id": "a b", "q": 1 }), Some(json!({ "userName": "ada" }))).await.unwrap();
    let echo = body.json().unwrap();
    assert_eq!(echo["method"], "POST");
    assert_eq!(echo["path"], "/api/echo/a%20b");
    assert_eq!(echo["query"], "q=1");
    assert_eq!(echo["headers"]["x-trace"], "t-1");
    assert_eq!(echo["headers"]["content-type"], "application/json");
    // Sent snake_case, and the echoed JSON came back camelCase through process.
    assert_eq!(echo["body"], r#"{"user_name":"ada"}"#);
    assert_eq!(echo["json"], json!({ "userName": "ada" }));
}

#[wasm_bindgen_test]
async fn a_form_body_reaches_the_server_as_form_fields() {
    let e = endpoint("POST", "/echo/form").form();
    let body = run(&e, json!({}), Some(json!({ "q": "rust & leptos", "tag": ["a", "b"] }))).await.unwrap();
    let echo = body.json().unwrap();
    assert_eq!(echo["headers"]["content-type"], "application/x-www-form-urlencoded");
    assert_eq!(echo["body"], "q=rust+%26+leptos&tag=a&tag=b");
    // A body that cannot be form fields is refused before anything is sent.
    let refused = run(&e, json!({}), Some(json!({ "user": { "id": 1 } }))).await;
    assert!(matches!(refused, Err(RestError::Encode { part: "body", .. })), "{refused:?}");
}

/// A file as `<input type=file>` gives it.
fn picked_file(bytes: &[u8], name: &str, mime: &str) -> web_sys::File {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let options = web_sys::FilePropertyBag::new();
    options.set_type(mime);
    web_sys::File::new_with_u8_array_sequence_and_options(&parts, name, &options).unwrap()
}

#[wasm_bindgen_test]
async fn a_picked_file_is_uploaded_as_multipart_and_served_back_byte_for_byte() {
    let bytes: Vec<u8> = (0..=255u8).collect();
    let form = Multipart::new()
        .text("title", "From the browser")
        .web_file("file", &picked_file(&bytes, "dot.png", "image/png"));
    let sent =
        endpoint("POST", "/uploads").fetch(Arc::new(BrowserClient), &Args::new(), Some(form.into())).await.unwrap();
    let upload = sent.json().unwrap();
    assert_eq!((upload["title"].as_str(), upload["filename"].as_str()), (Some("From the browser"), Some("dot.png")));
    assert_eq!((upload["content_type"].as_str(), upload["size"].as_u64()), (Some("image/png"), Some(256)));
    let content = endpoint("GET", "/uploads/:id/content").content(Content::ArrayBuffer);
    let served = run(&content, json!({ "id": upload["id"].clone() }), None).await.unwrap();
    assert_eq!(served, Body::Bytes(bytes));
}

#[wasm_bindgen_test]
async fn a_blob_body_is_sent_as_it_is_with_its_type() {
    let blob = rdc_rest::Blob::from_bytes(b"plain words".to_vec(), "text/plain");
    let e = endpoint("PUT", "/echo/blob");
    let echo = e.fetch(Arc::new(BrowserClient), &Args::new(), Some(blob.into())).await.unwrap();
    let echo = echo.json().unwrap();
    assert_eq!(
        (echo["headers"]["content-type"].as_str(), echo["body"].as_str()),
        (Some("text/plain"), Some("plain words"))
    );
}

#[wasm_bindgen_test]
async fn no_content() {
    assert_eq!(run(&endpoint("DELETE", "/status/:code"), json!({ "code": 204 }), None).await.unwrap(), Body::Empty);
}

#[wasm_bindgen_test]
async fn client_and_server_errors_carry_status_and_json_body() {
    for code in [404, 422, 500, 503] {
        let err = run(&endpoint("GET", "/status/:code"), json!({ "code": code }), None).await.unwrap_err();
        assert_eq!(err.status(), Some(code));
        match err {
            RestError::Network { source, endpoint } => {
                assert_eq!(endpoint, "GET /status/:code");
                assert_eq!(source.json().unwrap()["status"], code);
                assert!(source.url.ends_with(&format!("/api/status/{code}")));
            }
            other => panic!("{other:?}"),
        }
    }
}

#[wasm_bindgen_test]
async fn blob_download_with_its_filename() {
    let e = recipes::file_download(&endpoint("GET", "/files/:id/download"));
    match run(&e, json!({ "id": "42" }), None).await.unwrap() {
        Body::File(file) => {
            // filename* (UTF-8) wins over filename.
            assert_eq!(file.filename, "report-42-✓.txt");
            assert_eq!(file.blob.size(), "rdc demo file 42\n".len() as u64);
            assert!(file.blob.mime_type().starts_with("text/plain"));
        }
        other => panic!("{other:?}"),
    }
}

#[wasm_bindgen_test]
async fn array_buffer_bytes() {
    let body = run(&endpoint("GET", "/files/:id/download").content(Content::ArrayBuffer), json!({ "id": "7" }), None)
        .await
        .unwrap();
    assert_eq!(body, Body::Bytes(b"rdc demo file 7\n".to_vec()));
}

#[wasm_bindgen_test]
async fn link_header_pagination_through_cors() {
    let e = recipes::link_pagination(&endpoint("GET", "/items"));
    let page = run(&e, json!({}), None).await.unwrap();
    let page = page.json().unwrap();
    assert_eq!(page["results"].as_array().unwrap().len(), 5);
    let links = rdc_rest::transform::parse_link_header(page["link"].as_str().unwrap());
    assert_eq!(links[0].url, "/api/items?cursor=5");
    assert_eq!(links[0].rel, "next");
}

#[wasm_bindgen_test]
async fn a_refused_connection_is_a_transport_error() {
    let e = RestEndpoint::get("/x").url_prefix("http://127.0.0.1:9");
    let err = run(&e, json!({}), None).await.unwrap_err();
    assert!(matches!(err, RestError::Transport { .. }), "{err:?}");
}

#[wasm_bindgen_test]
async fn a_slow_response_past_the_timeout_is_aborted() {
    let e = endpoint("GET", "/slow").timeout(std::time::Duration::from_millis(200));
    let err = run(&e, json!({ "ms": 3000 }), None).await.unwrap_err();
    match err {
        RestError::Transport { message, endpoint, .. } => {
            assert_eq!(message, "timed out after 200 ms");
            assert_eq!(endpoint, "GET /slow");
        }
        other => panic!("{other:?}"),
    }
    // Within the timeout it answers.
    let ok = run(&e.timeout(std::time::Duration::from_secs(5)), json!({ "ms": 10 }), None).await.unwrap();
    assert_eq!(ok.json().unwrap()["slept_ms"], 10);
}

#[wasm_bindgen_test]
async fn an_aborted_request_is_cancelled_in_the_browser() {
    let abort = rdc_controller::Abort::default();
    abort.abort();
    let e = endpoint("GET", "/slow");
    let args = json!({ "ms": 2000 }).as_object().cloned().unwrap();
    let err = e.fetch_with_abort(Arc::new(BrowserClient), &args, None, Some(abort)).await.unwrap_err();
    match err {
        RestError::Transport { message, .. } => assert_eq!(message, "aborted"),
        other => panic!("{other:?}"),
    }
}
