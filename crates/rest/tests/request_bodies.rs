//! Bodies beyond JSON through the controller: multipart forms with files,
//! blobs and text reach the client as they are, with the content type each
//! needs; optimistic updates see a form's fields; recipes leave them alone.
#![cfg(not(target_arch = "wasm32"))]

use rdc_controller::{Controller, FakeTime, LocalTasks};
use rdc_core::{json, json::Value, Entity};
use rdc_rest::{recipes, Blob, FakeClient, FakeResponse, Multipart, RequestBody, RestEndpoint};
use serde::Deserialize;

#[derive(Debug, Clone, PartialEq, Deserialize, Entity)]
struct Upload {
    id: u64,
    title: String,
}

fn controller() -> (Controller, LocalTasks) {
    let time = FakeTime::default();
    let tasks = LocalTasks::default();
    (Controller::new(time.clone(), time, tasks.clone()), tasks)
}

fn gif() -> Blob {
    Blob::from_bytes(b"GIF89a\x01\x00".to_vec(), "image/gif")
}

#[test]
fn a_form_with_a_file_reaches_the_client_whole_and_the_client_writes_its_content_type() {
    let (c, tasks) = controller();
    let client = FakeClient::default();
    client.on("POST", "/uploads", FakeResponse::json(json!({ "id": 1, "title": "Cat" })));
    let upload = RestEndpoint::post("/uploads")
        .args::<()>()
        .body::<Multipart>()
        .schema(Upload::schema())
        .client(client.clone())
        .map(recipes::key_case);
    let form = Multipart::new().text("title", "Cat").file("file", gif(), "cat.gif");
    let stored: Upload = tasks.block_on(c.fetch(&upload, (), form.clone())).unwrap();
    assert_eq!(stored, Upload { id: 1, title: "Cat".into() });
    let sent = client.requests();
    assert_eq!(sent[0].body, Some(RequestBody::Multipart(form)), "the key-case recipe changes JSON bodies only");
    assert_eq!(sent[0].header("content-type"), None, "the boundary is the client's to write");
}

#[test]
fn a_blob_goes_with_its_mime_type_and_text_as_plain_text() {
    let (c, tasks) = controller();
    let client = FakeClient::default();
    client.on("PUT", "/avatar", FakeResponse::status(204));
    client.on("POST", "/notes", FakeResponse::status(204));
    let avatar = RestEndpoint::new("PUT", "/avatar").args::<()>().body::<Blob>().client(client.clone());
    let note = RestEndpoint::post("/notes").args::<()>().body::<RequestBody>().client(client.clone());
    tasks.block_on(c.fetch(&avatar, (), gif())).unwrap();
    tasks.block_on(c.fetch(&note, (), RequestBody::Text("remember".into()))).unwrap();
    let sent = client.requests();
    assert_eq!(
        (sent[0].body.clone(), sent[0].header("content-type")),
        (Some(RequestBody::Blob(gif())), Some("image/gif"))
    );
    assert_eq!(
        (sent[1].body_text(), sent[1].header("content-type")),
        (Some("remember"), Some("text/plain;charset=UTF-8"))
    );
}

#[test]
fn an_optimistic_upload_sees_the_forms_fields() {
    let upload = RestEndpoint::post("/uploads").schema(Upload::schema()).optimistic(|_, body| {
        let fields = body.cloned().unwrap_or_default();
        json!({ "id": 0, "title": fields["title"].clone(), "bytes": fields["file"]["size"].clone() })
    });
    let form: RequestBody = Multipart::new().text("title", "Cat").file("file", gif(), "cat.gif").into();
    let store = rdc_core::State::default();
    let shown = rdc_controller::Endpoint::optimistic(&*upload, &store, &Value::Null, Some(&form));
    assert_eq!(shown, Some(json!({ "id": 0, "title": "Cat", "bytes": 8 })));
}

/// The parts of an encoded form, split at its boundary.
fn parts_of(content_type: &str, body: &[u8]) -> Vec<String> {
    let boundary = content_type.strip_prefix("multipart/form-data; boundary=").unwrap();
    let body = String::from_utf8_lossy(body).into_owned();
    let closing = format!("--{boundary}--\r\n");
    let body = body.strip_suffix(&closing).expect("the closing delimiter ends the body");
    body.split(&format!("--{boundary}\r\n")).skip(1).map(|p| p.strip_suffix("\r\n").unwrap().to_owned()).collect()
}

#[test]
fn an_encoded_form_escapes_hostile_names_and_its_boundary_is_in_no_part() {
    let hostile = "x\"\r\nContent-Type: text/html\r\n\r\n<script>";
    let form = Multipart::new().text(hostile, "--not-a-boundary\r\n").file(
        "file",
        Blob::from_bytes(b"\r\n----rdc-form-".to_vec(), "bad\r\nType: x"),
        hostile,
    );
    let (content_type, body) = form.encode();
    let parts = parts_of(&content_type, &body);
    assert_eq!(parts.len(), 2);
    let escaped = "x%22%0D%0AContent-Type: text/html%0D%0A%0D%0A<script>";
    assert_eq!(parts[0], format!("Content-Disposition: form-data; name=\"{escaped}\"\r\n\r\n--not-a-boundary\r\n"));
    assert_eq!(
        parts[1],
        format!(
            "Content-Disposition: form-data; name=\"file\"; filename=\"{escaped}\"\r\n\
             Content-Type: application/octet-stream\r\n\r\n\r\n----rdc-form-"
        ),
        "a MIME type with a line break is not written"
    );
    let (again, _) = form.encode();
    assert_ne!(content_type, again, "each encoding draws a new boundary");
}

#[test]
fn a_mime_type_with_a_nul_is_not_written_either() {
    let form = Multipart::new().file("file", Blob::from_bytes(b"x".to_vec(), "image/png\0"), "x.png");
    let (content_type, body) = form.encode();
    let parts = parts_of(&content_type, &body);
    assert!(parts[0].contains("Content-Type: application/octet-stream\r\n"), "{:?}", parts[0]);
}

/// The HTML standard escapes only `"`, CR and LF in a part's name and
/// filename; a NUL has no escape there and would end the header for some
/// parsers, so a form holding one is refused before anything is sent.
#[test]
fn a_nul_in_a_multipart_name_or_filename_is_refused_before_sending() {
    let (c, tasks) = controller();
    let client = FakeClient::default();
    client.on("POST", "/uploads", FakeResponse::json(json!({ "id": 1, "title": "x" })));
    let upload = RestEndpoint::post("/uploads").args::<()>().body::<Multipart>().client(client.clone());
    let forms = [
        Multipart::new().text("title\0admin", "x"),
        Multipart::new().file("photo", gif(), "cat\0.gif"),
        Multipart::new().file("pho\0to", gif(), "cat.gif"),
    ];
    for form in forms {
        let sent = tasks.block_on(c.fetch(&upload, (), form));
        let Err(rdc_controller::FetchError::Endpoint(rdc_rest::RestError::Encode { endpoint, part, message })) = sent
        else {
            panic!("{sent:?}")
        };
        assert_eq!((endpoint.as_str(), part), ("POST /uploads", "body"));
        assert!(message.contains("NUL"), "{message}");
    }
    assert!(client.requests().is_empty());
}
