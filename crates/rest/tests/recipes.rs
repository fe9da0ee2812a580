//! The five transform recipes of spec 2.4, against the in-memory client.
// Native: the fake client's blobs hold bytes (browser blobs are tested in browser.rs).
#![cfg(not(target_arch = "wasm32"))]

mod support {
    use std::sync::Arc;

    use rdc_core::json::Value;
    use rdc_rest::{block_on, Args, Body, FakeClient, RestError};

    pub fn run(e: &rdc_rest::RestCall, client: &FakeClient, a: Value, body: Option<Value>) -> Result<Body, RestError> {
        block_on(e.fetch(
            Arc::new(client.clone()),
            &a.as_object().cloned().unwrap_or_else(Args::new),
            body.map(Into::into),
        ))
    }
}

use rdc_core::json;
use rdc_core::json::Value;
use rdc_core::{Entity, MemoCache, State, WriteMeta};
use rdc_rest::transform::content_disposition_filename;
use rdc_rest::{recipes, Body, FakeClient, FakeResponse, RestEndpoint};
use serde::Deserialize;
use support::run;

#[test]
fn recipe_1_key_case_both_ways_recursively() {
    let client = FakeClient::default();
    client.on(
        "POST",
        "/users",
        FakeResponse::json(
            json!({ "user_id": "1", "full_name": "Ada", "tags": [{ "tag_name": "x" }], "home_town": null }),
        ),
    );
    let e = recipes::key_case(&RestEndpoint::post("/users"));
    let body = run(
        &e,
        &client,
        json!({}),
        Some(json!({ "fullName": "Ada", "tags": [{ "tagName": "x" }], "homeTown": null, "n": 1 })),
    )
    .unwrap();
    assert_eq!(
        body,
        Body::Json(json!({ "userId": "1", "fullName": "Ada", "tags": [{ "tagName": "x" }], "homeTown": null }))
    );
    let sent: Value = serde_json::from_str(client.requests()[0].body_text().unwrap()).unwrap();
    assert_eq!(sent, json!({ "full_name": "Ada", "tags": [{ "tag_name": "x" }], "home_town": null, "n": 1 }));
}

#[test]
fn recipe_2_key_rename_both_ways() {
    let client = FakeClient::default();
    client.on("POST", "/users", FakeResponse::json(json!({ "id": "1", "login": "ada" })));
    let e = recipes::rename_keys(&RestEndpoint::post("/users"), &[("userName", "login")]);
    let body = run(&e, &client, json!({}), Some(json!({ "userName": "ada" }))).unwrap();
    assert_eq!(body, Body::Json(json!({ "id": "1", "userName": "ada" })));
    assert_eq!(client.requests()[0].body_text(), Some(r#"{"login":"ada"}"#));
}

#[derive(Debug, Deserialize, Entity)]
#[entity(key = "Stream", pk = "username")]
struct Stream {
    username: String,
    title: String,
    current_viewers: u64,
}

#[test]
fn recipe_3_the_missing_pk_comes_from_the_path_and_normalizes() {
    let client = FakeClient::default();
    client.on(
        "GET",
        "https://streams.example/ninja",
        FakeResponse::json(json!({ "title": "Live", "game": "G", "current_viewers": 5, "live": true })),
    );
    let e = recipes::pk_from_param(
        &RestEndpoint::get("/:username").url_prefix("https://streams.example"),
        "username",
        "username",
    )
    .schema(Stream::schema());
    let body = run(&e, &client, json!({ "username": "ninja" }), None).unwrap();
    let mut state = State::default();
    state.write_result("k", e.schema_ref().unwrap(), body.into_json(), &Value::Null, WriteMeta::at(0, 1000)).unwrap();
    let stream = MemoCache::default().entity::<Stream>(&state, "ninja").unwrap().unwrap();
    assert_eq!((stream.username.as_str(), stream.title.as_str(), stream.current_viewers), ("ninja", "Live", 5));
}

#[test]
fn recipe_4_link_header_pagination() {
    let client = FakeClient::default();
    client.on(
        "GET",
        "/items",
        FakeResponse::json(json!([{ "id": 1 }])).header("Link", r#"</items?cursor=5>; rel="next""#),
    );
    client.on("GET", "/items?cursor=20", FakeResponse::json(json!([{ "id": 21 }])));
    client.on("GET", "/one", FakeResponse::json(json!({ "id": 1 })));
    let e = recipes::link_pagination(&RestEndpoint::get("/items"));
    let page = run(&e, &client, json!({}), None).unwrap();
    assert_eq!(page, Body::Json(json!({ "link": r#"</items?cursor=5>; rel="next""#, "results": [{ "id": 1 }] })));
    let links = rdc_rest::transform::parse_link_header(page.json().unwrap()["link"].as_str().unwrap());
    assert_eq!((links[0].url.as_str(), links[0].rel.as_str()), ("/items?cursor=5", "next"));
    // No header, but an array: still {link: null, results}.
    let last = run(&e, &client, json!({ "cursor": 20 }), None).unwrap();
    assert_eq!(last, Body::Json(json!({ "link": null, "results": [{ "id": 21 }] })));
    // Neither: the results unchanged.
    let one = run(&recipes::link_pagination(&RestEndpoint::get("/one")), &client, json!({}), None).unwrap();
    assert_eq!(one, Body::Json(json!({ "id": 1 })));
}

#[test]
fn recipe_5_file_download_with_its_filename() {
    let client = FakeClient::default();
    let file = |disposition: Option<&str>| {
        let r = FakeResponse::status(200).header("content-type", "text/plain").body("file body");
        match disposition {
            Some(d) => r.header("Content-Disposition", d),
            None => r,
        }
    };
    client.on("GET", "/files/1/download", file(Some(r#"attachment; filename="report 1.txt""#)));
    client.on(
        "GET",
        "/files/2/download",
        file(Some("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf; filename=resume.pdf")),
    );
    client.on("GET", "/files/3/download", file(None));
    client.on("GET", "/files/4/download", file(Some("attachment; filename=..\\..\\evil\r.sh")));
    let e = recipes::file_download(&RestEndpoint::get("/files/:id/download"));
    assert_eq!(e.data_expiry_length(), std::time::Duration::ZERO);
    let names: Vec<String> = (1..=4)
        .map(|id| match run(&e, &client, json!({ "id": id }), None).unwrap() {
            Body::File(f) => {
                assert_eq!(f.blob.bytes(), b"file body");
                f.filename
            }
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(names, ["report 1.txt", "résumé.pdf", "download", "_.._evil.sh"]);
}

#[test]
fn content_disposition_parsing_is_robust() {
    for (header, want) in [
        ("attachment; filename=plain.txt", Some("plain.txt")),
        (r#"attachment; filename="semi;colon.txt""#, Some("semi;colon.txt")),
        (r#"attachment; filename="quote\"d.txt""#, Some("quote_d.txt")),
        ("attachment; FILENAME=upper.txt", Some("upper.txt")),
        ("attachment; filename*=UTF-8''%ZZbad", None),
        ("attachment; filename=\"\"", None),
        ("attachment; filename=..", None),
        ("attachment; filename=/etc/passwd", Some("_etc_passwd")),
        ("attachment; filename=\"a\u{0}b\"", Some("ab")),
        ("", None),
        (";;;==;", None),
    ] {
        assert_eq!(content_disposition_filename(header).as_deref(), want, "{header:?}");
    }
}
